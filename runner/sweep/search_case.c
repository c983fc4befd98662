/* search_case: see search_case.h. */
#include "search_case.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/jsonw.h"
#include "runner/search/search_json.h"
#include "runner/search/trial.h"

/* Every trial's probe result as JSON, in trial order, to store the chosen one. */
struct kept {
	char **json;
	uint32_t n, cap;
	bool oom;
};

static void keep(const struct search_trial *t, const struct probe_result *res, void *arg)
{
	(void)t;
	struct kept *k = arg;
	if (k->n == k->cap) {
		uint32_t cap = k->cap ? 2 * k->cap : 32;
		char **p = realloc(k->json, cap * sizeof(*p));
		if (!p) {
			k->oom = true;
			return;
		}
		k->json = p;
		k->cap = cap;
	}
	k->json[k->n++] = probe_result_json(res, false);
}

static uint32_t chosen_trial(const struct search_result *r)
{
	for (uint32_t g = 0; g < r->n_goals; g++) {
		if (!r->goals[g].met)
			continue;
		uint32_t pick = UINT32_MAX;
		for (uint32_t i = 0; i < r->n_trials; i++)
			if (r->trials[i].load == r->goals[g].lower &&
			    r->trials[i].phase == SEARCH_PHASE_FINAL && !r->trials[i].sender_short)
				pick = i;
		if (pick != UINT32_MAX)
			return pick;
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int search_case_run(const struct search_cfg *cfg, const struct probe_params *pp,
		    const char *from_host, uint16_t from_port, struct probe_result *res,
		    char **search_json, struct ns_err *err)
{
	struct kept k = {0};
	struct search_probe sp = {.base = *pp, .from_host = from_host, .from_port = from_port,
				  .goal_width = cfg->goal_width,
				  .on_trial = keep, .arg = &k};
	struct search_result r;
	int rc = -1;
	*search_json = NULL;
	double t0 = now_s();
	if (search_run(cfg, search_probe_trial, &sp, &r, err) < 0)
		goto out;
	if (k.oom || k.n != r.n_trials) {
		ns_err_code(err, NS_E_NOMEM, "search: out of memory keeping the trials");
		goto out;
	}
	uint32_t pick = chosen_trial(&r);
	if (!k.json[pick] || probe_result_from_json(k.json[pick], res, err) < 0) {
		ns_err_prefix(err, "search: the chosen trial's result");
		goto out;
	}
	res->params = *pp;
	struct jsonw w;
	jsonw_init(&w, false);
	search_json_write(&w, cfg, pp, &r, now_s() - t0);
	*search_json = jsonw_steal(&w);
	jsonw_free(&w);
	if (!*search_json) {
		ns_err_code(err, NS_E_NOMEM, "search: out of memory writing its JSON");
		goto out;
	}
	rc = 0;
out:
	for (uint32_t i = 0; i < k.n; i++)
		free(k.json[i]);
	free(k.json);
	search_result_free(&r);
	return rc;
}
