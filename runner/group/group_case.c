/* group_case: see group_case.h. */
#include "group_case.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "group.h"
#include "runner/matrix/matrix_group.h"

struct group_case {
	struct group_test *t;
	size_t n;
	struct group_figures f;
	struct store_group sg;
	struct store_group_client *sc;
	char **json;
	char (*agent)[300];
};

void group_case_free(struct group_case *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++) {
		probe_result_free(&g->t[i].res);
		free(g->json ? g->json[i] : NULL);
	}
	free(g->t);
	free(g->sc);
	free(g->json);
	free(g->agent);
	free(g);
}

const struct store_group *group_case_rows(const struct group_case *g)
{
	return g ? &g->sg : NULL;
}

static const char *kind_name(enum matrix_group_kind k)
{
	return k == MX_GROUP_INCAST ? "incast" : k == MX_GROUP_FANOUT ? "fan-out" : "clients";
}

/* The rows the store keeps of each test and of the group. */
static void rows(struct group_case *g, enum matrix_group_kind kind, uint32_t streams)
{
	double first = INFINITY;
	for (size_t i = 0; i < g->n; i++)
		if (g->t[i].started > 0 && g->t[i].started < first)
			first = g->t[i].started;
	for (size_t i = 0; i < g->n; i++) {
		const struct group_test *t = &g->t[i];
		g->json[i] = t->res.n_dirs ? probe_result_json(&t->res, false) : NULL;
		g->sc[i] = (struct store_group_client){
			.name = t->name, .client_host = t->client_host, .agent = g->agent[i],
			.ok = t->rc == 0, .error = t->rc == 0 ? NULL : t->err.msg[0] ? t->err.msg
										      : t->res.error,
			.start_offset_ms = t->started > 0 ? (t->started - first) * 1e3 : NAN,
			.res = t->res.n_dirs ? &t->res : NULL, .probe_json = g->json[i],
		};
	}
	g->sg = (struct store_group){
		.kind = kind_name(kind), .clients = (uint32_t)g->n, .completed = (uint32_t)g->f.ok,
		.streams_per_client = streams, .start_spread_ms = g->f.start_spread_ms,
		.dispatched = g->f.dispatched, .total_bps = g->f.total_bps, .jain = g->f.jain,
		.min_share = g->f.min_share, .min_of_fair = g->f.min_of_fair,
		.converge_s = g->f.converge_s, .c = g->sc, .n = g->n,
	};
}

int group_case_run(const struct matrix *m, const struct sweep_case *c,
		   const struct probe_params *pp, struct probe_result *total,
		   struct group_case **out, struct ns_err *err)
{
	const struct matrix_pair *mp = &m->pairs[expand_value(m, c, MX_PAIR)->u];
	struct group_case *g = calloc(1, sizeof(*g));
	size_t n = mxgroup_clients(m, c);
	memset(total, 0, sizeof(*total));
	*out = NULL;
	if (!g || !(g->t = calloc(n, sizeof(*g->t))) || !(g->sc = calloc(n, sizeof(*g->sc))) ||
	    !(g->json = calloc(n, sizeof(*g->json))) || !(g->agent = calloc(n, sizeof(*g->agent)))) {
		group_case_free(g);
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	}
	g->n = n;
	for (size_t i = 0; i < n; i++) {
		struct matrix_member mb;
		struct group_test *t = &g->t[i];
		mxgroup_member(m, c, i, &mb);
		t->pp = *pp;
		if (mp->group == MX_GROUP_FANOUT) { /* each member its own agent */
			snprintf(t->pp.host, sizeof(t->pp.host), "%s", mb.agent_host);
			t->pp.port = mb.agent_port;
		}
		snprintf(t->name, sizeof(t->name), "%s", mb.name);
		snprintf(t->client_host, sizeof(t->client_host), "%s", mb.client_host);
		t->client_port = mb.client_port;
		snprintf(g->agent[i], sizeof(g->agent[i]), "%s:%u", t->pp.host, t->pp.port);
	}
	int rc = group_run(g->t, n, err);
	group_figures(g->t, n, &g->f);
	struct ns_err te;
	if (group_total(g->t, n, total, &te) < 0 && rc == 0) {
		*err = te;
		rc = -1;
	}
	rows(g, mp->group, pp->streams);
	*out = g;
	return rc;
}
