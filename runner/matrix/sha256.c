#include "sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

void sha256_hex(const void *data, size_t len, size_t nbytes, char *hex)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	/* EVP_Digest fails only when libcrypto cannot allocate a context: out of memory, like
	 * a failed malloc in a case's key, which no caller could go on without. */
	if (!EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
		abort();
	if (nbytes > 32)
		nbytes = 32;
	for (size_t i = 0; i < nbytes; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	hex[2 * nbytes] = '\0';
}
