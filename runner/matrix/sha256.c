#include "sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

int sha256_hex(const void *data, size_t len, size_t nbytes, char *hex, struct ns_err *err)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	hex[0] = '\0';
	/* EVP_Digest fails only when libcrypto cannot allocate a context: out of memory */
	if (!EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
		return ns_err_code(err, NS_E_NOMEM, "sha256: libcrypto could not make a digest "
				   "(out of memory)");
	if (nbytes > 32)
		nbytes = 32;
	for (size_t i = 0; i < nbytes; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	hex[2 * nbytes] = '\0';
	return 0;
}
