/* pair_key: key files of a matrix's pairs, resolved and checked at load time. */
#include "pair_key.h"

#include <stdio.h>
#include <string.h>

#include "runner/proto/auth.h"

static int check(const char *path, struct ns_err *err)
{
	struct auth_key k;
	int rc = auth_key_load(path, &k, err);
	auth_key_clear(&k);
	return rc;
}

int pair_key_resolve(const char *matrix_path, const char *attr, char *out, size_t cap,
		     struct ns_err *err)
{
	const char *slash = strrchr(matrix_path, '/');
	int n = attr[0] == '/' || !slash
			? snprintf(out, cap, "%s", attr)
			: snprintf(out, cap, "%.*s/%s", (int)(slash - matrix_path), matrix_path, attr);
	if (n < 0 || (size_t)n >= cap)
		return ns_err_code(err, NS_E_INPUT, "key file path '%.64s...' is too long", attr);
	return check(out, err);
}

int pair_key_set(struct matrix_pair *p, const char *path, struct ns_err *err)
{
	if (strlen(path) >= sizeof(p->psk_file))
		return ns_err_code(err, NS_E_INPUT, "key file path '%.64s...' is too long", path);
	if (check(path, err) < 0)
		return -1;
	snprintf(p->psk_file, sizeof(p->psk_file), "%s", path);
	return 0;
}

int pair_key_default(struct matrix *m, const char *psk, struct ns_err *err)
{
	if (!psk || !psk[0] || m->loopback)
		return 0;
	if (strlen(psk) >= sizeof(m->pairs[0].psk_file))
		return ns_err_code(err, NS_E_USAGE, "key file path '%.64s...' is too long", psk);
	if (check(psk, err) < 0)
		return -1;
	for (size_t i = 0; i < m->n_pairs; i++)
		if (!m->pairs[i].psk_file[0])
			snprintf(m->pairs[i].psk_file, sizeof(m->pairs[i].psk_file), "%s", psk);
	return 0;
}
