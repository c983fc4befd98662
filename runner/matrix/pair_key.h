/* pair_key: which pre-shared key file each pair's agents are proven (schemas/matrix.xsd,
 * psk-file): the one its provisioner names, else the pair's own attribute, else the run's
 * --psk-file or NETSWEEP_PSK_FILE; the loopback pair's agent, forked by the runner, has none.
 * Every file is read once up front, so that a missing or world-readable key stops the run
 * before it starts. */
#ifndef NS_PAIR_KEY_H
#define NS_PAIR_KEY_H

#include <stddef.h>

#include "lib/err.h"
#include "matrix_types.h"

/* The attribute as written, relative to the matrix file's folder; the file must load. */
int pair_key_resolve(const char *matrix_path, const char *attr, char *out, size_t cap,
		     struct ns_err *err);
/* The key a provisioner (a lab, a setup hook) says the pair's agents prove; it overrides the
 * pair's own, which was written for the instances the provisioner stands in for. The file
 * must load. */
int pair_key_set(struct matrix_pair *p, const char *path, struct ns_err *err);
/* Gives psk (NULL or "" = none) to every pair without a key of its own, loopback excepted. */
int pair_key_default(struct matrix *m, const char *psk, struct ns_err *err);

#endif
