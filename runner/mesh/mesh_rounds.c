/* mesh_rounds: see mesh_rounds.h. */
#include "mesh_rounds.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The index of name among the mesh's hosts, added when new; -1 when the table is full. */
static int host_index(char (*names)[MX_NAME_MAX], size_t *n, size_t cap, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(names[i], name))
			return (int)i;
	if (*n == cap)
		return -1;
	memcpy(names[*n], name, MX_NAME_MAX);
	return (int)(*n)++;
}

/* The rounds of one mesh (the pairs whose mesh is name), from round base on; returns how many
 * rounds it used. */
static int one_mesh(const struct matrix *m, const char *name, int base, int *round,
		    struct ns_err *err)
{
	size_t cap = 2 * m->n_pairs + 2, n = 0;
	char(*names)[MX_NAME_MAX] = calloc(cap, MX_NAME_MAX);
	/* circle[r][h]: h's partner in tournament round r; used[r]: a pair of the mesh has it */
	int *partner = NULL, *used = NULL, *renum = NULL, rc = -1;
	if (!names)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	for (size_t i = 0; i < m->n_pairs; i++)
		if (!strcmp(m->pairs[i].mesh, name) &&
		    (host_index(names, &n, cap, m->pairs[i].client_name) < 0 ||
		     host_index(names, &n, cap, m->pairs[i].agent_name) < 0))
			goto out;
	size_t even = n + (n & 1), rounds = even > 1 ? even - 1 : 1;
	partner = malloc(rounds * even * sizeof(int));
	used = calloc(rounds, sizeof(int));
	renum = malloc(rounds * sizeof(int));
	int *ring = malloc(even * sizeof(int));
	if (!partner || !used || !renum || !ring) {
		free(ring);
		ns_err_code(err, NS_E_NOMEM, "out of memory");
		goto out;
	}
	for (size_t h = 0; h < even; h++)
		ring[h] = (int)h;
	for (size_t r = 0; r < rounds; r++) {
		for (size_t k = 0; k < even / 2; k++) {
			int a = ring[k], b = ring[even - 1 - k];
			partner[r * even + (size_t)a] = b;
			partner[r * even + (size_t)b] = a;
		}
		/* host 0 stays, the others turn one place */
		int last = ring[even - 1];
		memmove(&ring[2], &ring[1], (even - 2) * sizeof(int));
		if (even > 1)
			ring[1] = last;
	}
	free(ring);
	for (size_t i = 0; i < m->n_pairs; i++) {
		if (strcmp(m->pairs[i].mesh, name))
			continue;
		int a = host_index(names, &n, cap, m->pairs[i].client_name);
		int b = host_index(names, &n, cap, m->pairs[i].agent_name);
		for (size_t r = 0; r < rounds; r++)
			if (partner[r * even + (size_t)a] == b) {
				round[i] = (int)r;
				used[r] = 1;
				break;
			}
	}
	/* rounds no pair of the mesh needs (pairs="per-zone") are left out */
	int next = 0;
	for (size_t r = 0; r < rounds; r++)
		renum[r] = used[r] ? base + next++ : -1;
	for (size_t i = 0; i < m->n_pairs; i++)
		if (!strcmp(m->pairs[i].mesh, name))
			round[i] = renum[round[i]];
	rc = next;
out:
	if (rc < 0 && err->msg[0] == '\0')
		ns_err_code(err, NS_E_NOMEM, "out of memory");
	free(names);
	free(partner);
	free(used);
	free(renum);
	return rc;
}

int mesh_rounds(const struct matrix *m, int *round, struct ns_err *err)
{
	int total = 0;
	err->msg[0] = '\0';
	for (size_t i = 0; i < m->n_pairs; i++)
		round[i] = m->pairs[i].mesh[0] ? -2 : -1; /* -2: a mesh pair not yet placed */
	for (size_t i = 0; i < m->n_pairs; i++) {
		if (round[i] != -2)
			continue;
		int used = one_mesh(m, m->pairs[i].mesh, total, round, err);
		if (used < 0)
			return -1;
		total += used;
	}
	return total;
}

static bool same_end(const char *h1, unsigned p1, const char *h2, unsigned p2)
{
	return h1[0] && h2[0] && p1 == p2 && !strcmp(h1, h2);
}

bool mesh_shares_host(const struct matrix_pair *a, const struct matrix_pair *b)
{
	return same_end(a->client_host, a->client_port, b->client_host, b->client_port) ||
	       same_end(a->client_host, a->client_port, b->agent_host, b->agent_port) ||
	       same_end(a->agent_host, a->agent_port, b->client_host, b->client_port) ||
	       same_end(a->agent_host, a->agent_port, b->agent_host, b->agent_port);
}

double mesh_estimate(const struct matrix *m, const int *round, int n_rounds,
		     const double *per_pair, unsigned jobs)
{
	double total = 0;
	for (int r = 0; r < n_rounds; r++) {
		double sum = 0, longest = 0;
		size_t host_pairs = 0;
		for (size_t i = 0; i < m->n_pairs; i++) {
			if (round[i] != r)
				continue;
			const struct matrix_pair *p = &m->pairs[i];
			double t = per_pair[i];
			bool back = false; /* B->A of an A->B seen already: one host pair */
			for (size_t j = 0; j < m->n_pairs; j++)
				if (round[j] == r && !strcmp(m->pairs[j].client_name, p->agent_name) &&
				    !strcmp(m->pairs[j].agent_name, p->client_name)) {
					if (j < i)
						back = true;
					else
						t += per_pair[j];
				}
			if (back)
				continue;
			host_pairs++;
			sum += t;
			if (t > longest)
				longest = t;
		}
		size_t at_once = jobs < 1 ? 1 : jobs < host_pairs ? jobs : host_pairs;
		double spread = at_once ? sum / (double)at_once : 0;
		total += spread > longest ? spread : longest;
	}
	return total;
}

int mesh_rounds_reorder(const struct matrix *m, int *round, int n_rounds, const size_t *first)
{
	int *order = malloc((size_t)(n_rounds > 0 ? n_rounds : 1) * sizeof(int));
	int *to = malloc((size_t)(n_rounds > 0 ? n_rounds : 1) * sizeof(int));
	if (!order || !to) {
		free(order);
		free(to);
		return -1;
	}
	for (int r = 0; r < n_rounds; r++)
		order[r] = r;
	for (int a = 1; a < n_rounds; a++) /* insertion sort by first position: a few rounds */
		for (int b = a; b > 0 && first[order[b]] < first[order[b - 1]]; b--) {
			int t = order[b];
			order[b] = order[b - 1];
			order[b - 1] = t;
		}
	for (int r = 0; r < n_rounds; r++)
		to[order[r]] = r;
	for (size_t i = 0; i < m->n_pairs; i++)
		if (round[i] >= 0)
			round[i] = to[round[i]];
	free(order);
	free(to);
	return 0;
}
