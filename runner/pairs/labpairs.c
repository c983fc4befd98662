#include "runner/pairs/labpairs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sql/jsonr.h"
#include "runner/matrix/pair_key.h"

#define LAB_ROW_CLIENTS MX_MAX_MEMBERS

struct lab_row {
	char pair[MX_NAME_MAX], type[MX_NAME_MAX], agent[256], psk_file[1024];
	char clients[LAB_ROW_CLIENTS][64];  /* an incast pair's client agents, host:port */
	size_t n_clients;
	char *emulation;
	bool used;
	/* the placement lab up --matrix carried over ("" = not said) */
	char client_zone[64], agent_zone[64], client_region[32], agent_region[32];
};

#define LAB_ROWS_MAX 1024

static char *read_file(const char *path, struct ns_err *err)
{
	FILE *f = fopen(path, "re");
	if (!f) {
		ns_err_sys(err, "%s", path);
		err->code = NS_E_INPUT;
		return NULL;
	}
	char *buf = malloc(LABPAIRS_MAX_FILE + 1);
	size_t n = buf ? fread(buf, 1, LABPAIRS_MAX_FILE + 1, f) : 0;
	fclose(f);
	if (!buf) {
		ns_err_code(err, NS_E_NOMEM, "out of memory");
		return NULL;
	}
	if (n > LABPAIRS_MAX_FILE) {
		free(buf);
		ns_err_code(err, NS_E_INPUT, "%s: more than %d bytes", path, LABPAIRS_MAX_FILE);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

/* One string field of a pair object into dst: "" when missing, an error when too long. */
static int field(struct jsonr *r, const char *path, const char *obj, const char *key, char *dst,
		 size_t cap, size_t i, struct ns_err *err)
{
	int got = jsonr_get(r, obj, key, dst, cap, err);
	if (got < 0)
		ns_err_prefix(err, "%s: pair %zu", path, i);
	else if (got == 2)
		return ns_err_code(err, NS_E_INPUT, "%s: pair %zu: %s is longer than %zu bytes", path,
				   i, key + 2, cap - 1);
	return got < 0 ? -1 : 0;
}

/* One pair object (JSON text) into a new row. */
static int read_row(struct jsonr *r, const char *path, const char *obj, struct lab_row **rows,
		    size_t *n, struct ns_err *err)
{
	if (*n >= LAB_ROWS_MAX)
		return ns_err_code(err, NS_E_INPUT, "%s: more than %d pairs", path, LAB_ROWS_MAX);
	struct lab_row *grown = realloc(*rows, (*n + 1) * sizeof(**rows));
	if (!grown)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	*rows = grown;
	struct lab_row *row = &(*rows)[(*n)++];
	memset(row, 0, sizeof(*row));
	if (field(r, path, obj, "$.pair", row->pair, sizeof(row->pair), *n, err) < 0 ||
	    field(r, path, obj, "$.instance_type", row->type, sizeof(row->type), *n, err) < 0 ||
	    field(r, path, obj, "$.agent", row->agent, sizeof(row->agent), *n, err) < 0 ||
	    field(r, path, obj, "$.psk_file", row->psk_file, sizeof(row->psk_file), *n, err) < 0 ||
	    field(r, path, obj, "$.client_zone", row->client_zone, sizeof(row->client_zone), *n,
		  err) < 0 ||
	    field(r, path, obj, "$.agent_zone", row->agent_zone, sizeof(row->agent_zone), *n,
		  err) < 0 ||
	    field(r, path, obj, "$.client_region", row->client_region, sizeof(row->client_region),
		  *n, err) < 0 ||
	    field(r, path, obj, "$.agent_region", row->agent_region, sizeof(row->agent_region), *n,
		  err) < 0)
		return -1;
	if (jsonr_type(r, obj, "$.clients") == JSONR_ARRAY) {
		struct jsonr_each it = {0};
		int more, rc = jsonr_each_begin(r, obj, "$.clients", &it, err);
		while (rc == 0 && (more = jsonr_each_next(&it)) == 1) {
			if (row->n_clients == LAB_ROW_CLIENTS || strlen(it.value) >= 64) {
				rc = ns_err_code(err, NS_E_INPUT, "%s: pair %zu: too many clients, or "
						 "one too long", path, *n);
				break;
			}
			snprintf(row->clients[row->n_clients++], 64, "%s", it.value);
		}
		if (rc == 0 && more < 0)
			rc = -1;
		jsonr_each_end(&it);
		if (rc < 0)
			return -1;
	}
	if (!row->agent[0] || jsonr_type(r, obj, "$.emulation") != JSONR_OBJECT)
		return ns_err_code(err, NS_E_INPUT, "%s: pair %zu: needs \"agent\" and an \"emulation\" "
				   "object", path, *n);
	return jsonr_dup(r, obj, "$.emulation", &row->emulation, err) < 0 ? -1 : 0;
}

/* The pairs of `lab up`'s {"pairs": [...]} or of one hook's pair object (lib/sql/jsonr.h). */
static int read_rows(const char *path, const char *text, struct lab_row **rows, size_t *n,
		     struct ns_err *err)
{
	struct jsonr *r = NULL;
	struct jsonr_each it = {0};
	int rc = -1, more;
	*rows = NULL;
	*n = 0;
	if (jsonr_open(&r, err) < 0)
		goto out;
	if (!jsonr_valid(r, text)) {
		ns_err_code(err, NS_E_INPUT, "%s: not JSON (want what `netsweep lab up` prints)", path);
		goto out;
	}
	enum jsonr_type pairs = jsonr_type(r, text, "$.pairs");
	if (pairs == JSONR_MISSING) {
		rc = read_row(r, path, text, rows, n, err);
		goto out;
	}
	if (pairs == JSONR_ARRAY && jsonr_each_begin(r, text, "$.pairs", &it, err) < 0)
		goto out;
	while ((more = jsonr_each_next(&it)) == 1)
		if (read_row(r, path, it.value, rows, n, err) < 0)
			goto out;
	if (more < 0) {
		ns_err_prefix(err, "%s", path);
		goto out;
	}
	rc = 0;
out:
	jsonr_each_end(&it);
	jsonr_close(r);
	return rc;
}

/* "198.18.1.2:5301" (or "[::1]:5301") into host and port. */
static int split_addr(const char *name, const char *path, const char *addr, char *out, size_t cap,
		      uint16_t *out_port, struct ns_err *err)
{
	const char *colon = strrchr(addr, ':');
	char *end;
	unsigned long port = colon ? strtoul(colon + 1, &end, 10) : 0;
	if (!colon || colon == addr || *end || port == 0 || port > 65535)
		return ns_err_code(err, NS_E_INPUT, "%s: pair %s: bad address '%s'", path, name, addr);
	const char *host = addr;
	size_t len = (size_t)(colon - addr);
	if (host[0] == '[' && len >= 2 && host[len - 1] == ']') {
		host++;
		len -= 2;
	}
	if (len >= cap)
		return ns_err_code(err, NS_E_INPUT, "%s: pair %s: address too long", path, name);
	memcpy(out, host, len);
	out[len] = '\0';
	*out_port = (uint16_t)port;
	return 0;
}

/* An incast group's members: the lab pair's client agents, one each, sending to its agent. */
static int set_members(struct matrix_pair *mp, const char *path, const struct lab_row *row,
		       struct ns_err *err)
{
	if (mp->group == MX_GROUP_FANOUT)
		return ns_err_code(err, NS_E_INPUT, "%s: group %s: the lab emulates incast groups (a "
				   "fan-out's agents are pairs of their own)", path, mp->name);
	if (row->n_clients < mp->n_members)
		return ns_err_code(err, NS_E_INPUT, "%s: group %s has %zu members, its lab pair %zu "
				   "clients (netsweep lab up --matrix builds one per member)", path,
				   mp->name, mp->n_members, row->n_clients);
	for (size_t k = 0; k < mp->n_members; k++) {
		struct matrix_member *mb = &mp->members[k];
		if (split_addr(mp->name, path, row->clients[k], mb->client_host,
			       sizeof(mb->client_host), &mb->client_port, err) < 0)
			return -1;
		snprintf(mb->agent_host, sizeof(mb->agent_host), "%s", mp->agent_host);
		mb->agent_port = mp->agent_port;
	}
	return 0;
}

/* "198.18.1.2:5301" (or "[::1]:5301") into the pair's agent. */
static int set_agent(struct matrix_pair *mp, const char *path, const char *addr, struct ns_err *err)
{
	if (split_addr(mp->name, path, addr, mp->agent_host, sizeof(mp->agent_host), &mp->agent_port,
		       err) < 0)
		return -1;
	mp->client[0] = mp->client_host[0] = '\0';
	mp->client_port = 0;
	mp->expected_driver[0] = '\0'; /* a lab's NIC is a veth, whatever the instance would have */
	return 0;
}

int labpairs_apply(struct matrix *m, const char *path, char ***emulation, struct ns_err *err)
{
	struct lab_row *rows = NULL;
	size_t n = 0;
	int rc = -1;
	*emulation = NULL;
	if (m->loopback || !m->n_pairs)
		return ns_err_code(err, NS_E_USAGE, "--lab: the matrix %s has no pairs to emulate",
				   m->path);
	char *text = read_file(path, err);
	if (!text)
		return -1;
	if (read_rows(path, text, &rows, &n, err) < 0)
		goto out;
	if (!(*emulation = calloc(m->n_pairs, sizeof(char *)))) {
		ns_err_code(err, NS_E_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < m->n_pairs; i++) {
		struct matrix_pair *mp = &m->pairs[i];
		struct lab_row *hit = NULL;
		for (size_t k = 0; k < n && !hit; k++)
			if (!rows[k].used && !strcmp(rows[k].pair, mp->name))
				hit = &rows[k];
		for (size_t k = 0; k < n && !hit && mp->instance_type[0]; k++)
			if (!rows[k].used && !strcmp(rows[k].type, mp->instance_type))
				hit = &rows[k];
		if (!hit) {
			ns_err_code(err, NS_E_INPUT, "%s: no lab pair for pair %s (instance type %s): "
				    "netsweep lab up --matrix %s", path, mp->name,
				    mp->instance_type[0] ? mp->instance_type : "none", m->path);
			goto out;
		}
		hit->used = true;
		if (set_agent(mp, path, hit->agent, err) < 0 ||
		    (mp->group != MX_GROUP_NONE && set_members(mp, path, hit, err) < 0))
			goto out;
		/* the key the lab's agent was started with, whatever the matrix names for EC2 */
		if (hit->psk_file[0] && pair_key_set(mp, hit->psk_file, err) < 0) {
			ns_err_prefix(err, "%s: pair %s: psk_file", path, mp->name);
			goto out;
		}
		(*emulation)[i] = hit->emulation;
		hit->emulation = NULL;
		/* the lab's placement where the matrix says none (the matrix's own wins) */
		struct { char *dst; size_t cap; const char *src; } place[] = {
			{mp->client_zone, sizeof(mp->client_zone), hit->client_zone},
			{mp->agent_zone, sizeof(mp->agent_zone), hit->agent_zone},
			{mp->client_region, sizeof(mp->client_region), hit->client_region},
			{mp->agent_region, sizeof(mp->agent_region), hit->agent_region},
		};
		for (size_t k = 0; k < sizeof(place) / sizeof(place[0]); k++)
			if (!place[k].dst[0])
				snprintf(place[k].dst, place[k].cap, "%s", place[k].src);
	}
	rc = 0;
out:
	for (size_t k = 0; k < n; k++)
		free(rows[k].emulation);
	free(rows);
	free(text);
	if (rc < 0 && *emulation) {
		labpairs_free(*emulation, m->n_pairs);
		*emulation = NULL;
	}
	return rc;
}

void labpairs_free(char **emulation, size_t n)
{
	if (!emulation)
		return;
	for (size_t i = 0; i < n; i++)
		free(emulation[i]);
	free(emulation);
}

#define LAB_HOOK_TIMEOUT_S 120.0 /* lab up or down of one pair: well under a second here */
#define LAB_HOOK_WAIT_S 10.0     /* its agent listens before lab up returns */

/* The command line of lab.sh, its path single-quoted for /bin/sh. */
static int hook_command(char *buf, size_t len, const char *datadir, const char *what,
			struct ns_err *err)
{
	size_t o = 0;
	buf[o++] = '\'';
	char path[1024];
	snprintf(path, sizeof(path), "%s/provision/lab.sh", datadir);
	for (const char *c = path; *c; c++) {
		if (o + 8 >= len)
			return ns_err_code(err, NS_E_USAGE, "--provision lab: data folder path too long");
		if (*c == '\'') {
			memcpy(buf + o, "'\\''", 4);
			o += 4;
		} else {
			buf[o++] = *c;
		}
	}
	if ((size_t)snprintf(buf + o, len - o, "' %s", what) >= len - o)
		return ns_err_code(err, NS_E_USAGE, "--provision lab: data folder path too long");
	return 0;
}

int labpairs_hooks(struct matrix *m, const char *datadir, struct ns_err *err)
{
	if (m->loopback || !m->n_pairs)
		return ns_err_code(err, NS_E_USAGE, "--provision lab: the matrix %s has no pairs to "
				   "emulate", m->path);
	struct matrix_hook setup = {.timeout_s = LAB_HOOK_TIMEOUT_S, .wait_s = LAB_HOOK_WAIT_S};
	struct matrix_hook teardown = {.timeout_s = LAB_HOOK_TIMEOUT_S};
	if (hook_command(setup.command, sizeof(setup.command), datadir, "setup", err) < 0 ||
	    hook_command(teardown.command, sizeof(teardown.command), datadir, "teardown", err) < 0)
		return -1;
	for (size_t i = 0; i < m->n_pairs; i++) {
		struct matrix_pair *mp = &m->pairs[i];
		if (mp->group != MX_GROUP_NONE)
			return ns_err_code(err, NS_E_USAGE, "--provision lab: group %s: the lab builds "
					   "groups with netsweep lab up --matrix %s, then run --lab",
					   mp->name, m->path);
		setup.line = mp->setup.line ? mp->setup.line : mp->line;
		teardown.line = mp->teardown.line ? mp->teardown.line : mp->line;
		mp->setup = setup;
		mp->teardown = teardown;
		mp->client[0] = mp->client_host[0] = '\0';
		mp->client_port = 0;
		mp->expected_driver[0] = '\0';
	}
	int dropped = (m->setup.command[0] != 0) + (m->teardown.command[0] != 0);
	memset(&m->setup, 0, sizeof(m->setup));
	memset(&m->teardown, 0, sizeof(m->teardown));
	return dropped;
}
