/* sha256: the digest behind a run's matrix hash (the resume key) and every case's stable key,
 * computed by libcrypto (EVP). */
#ifndef NS_SHA256_H
#define NS_SHA256_H

#include <stddef.h>

#include "lib/err.h"

#define SHA256_HEX_LEN 64

/* One-shot digest as lower-case hex; hex must hold 2 * nbytes + 1 (at most 65) chars.
 * nbytes < 32 truncates the digest (case keys use the first 8 bytes). 0, or -1 with err
 * (NS_E_NOMEM: libcrypto could not allocate its context) and hex "". */
int sha256_hex(const void *data, size_t len, size_t nbytes, char *hex, struct ns_err *err);

#endif
