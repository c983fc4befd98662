/* history: see history.h. */
#include "report/analyze/history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/model/describe.h"
#include "report/analyze/findings.h"
#include "report/model/fmt.h"

int rp_history_build(sqlite3 *db, const struct rp_data *d, size_t n_runs, double alpha,
		     double min_change_pct, struct rp_history *h, struct ns_err *err)
{
	memset(h, 0, sizeof(*h));
	h->alpha = alpha;
	h->min_change_pct = min_change_pct;
	if (!d->n_cases || d->n_cases > RP_HISTORY_MAX_CASES || n_runs < 2)
		return 0;
	h->keys = calloc(d->n_cases, sizeof(*h->keys));
	if (!h->keys)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	for (size_t i = 0; i < d->n_cases; i++)
		h->keys[i] = d->cases[i].case_key ? d->cases[i].case_key : "";
	if (rp_trend_load(db, d, h->keys, d->n_cases, n_runs, &h->t, err) < 0) {
		rp_history_free(h);
		return -1;
	}
	struct rp_step s[8];
	for (size_t k = 0; k < d->n_cases; k++) {
		size_t n = rp_changepoints(h->t.vals + k * h->t.n_runs, h->t.n_runs, alpha,
					   min_change_pct, s, 8);
		if (!n)
			continue;
		struct rp_history_step *grown = realloc(h->steps, (h->n_steps + n) * sizeof(*grown));
		if (!grown) {
			rp_history_free(h);
			return ns_err_code(err, NS_E_NOMEM, "out of memory");
		}
		h->steps = grown;
		for (size_t i = 0; i < n; i++)
			h->steps[h->n_steps++] = (struct rp_history_step){k, k, s[i]};
	}
	return 0;
}

void rp_history_free(struct rp_history *h)
{
	rp_trend_free(&h->t);
	free(h->keys);
	free(h->steps);
	memset(h, 0, sizeof(*h));
}

void rp_history_run_name(const struct rp_history *h, size_t r, char *b, size_t n)
{
	const char *lab = h->t.run_label[r], *at = h->t.run_started[r];
	if (lab && at)
		snprintf(b, n, "%s (%.10s)", lab, at);
	else if (at)
		snprintf(b, n, "run %lld (%.10s)", h->t.run_ids[r], at);
	else
		snprintf(b, n, "run %lld", h->t.run_ids[r]);
}

int rp_history_findings(const struct rp_data *d, const struct rp_history *h,
			struct rp_findings *f)
{
	struct rp_buf b;
	rp_buf_init(&b);
	for (size_t i = 0; i < h->n_steps; i++) {
		const struct rp_history_step *s = &h->steps[i];
		char name[96], x[32], y[32];
		rp_history_run_name(h, s->s.at, name, sizeof(name));
		rp_fmt_in(x, sizeof(x), s->s.before, d->unit);
		rp_fmt_in(y, sizeof(y), s->s.after, d->unit);
		rp_buf_reset(&b);
		rp_buf_puts(&b, "Step change: ");
		rp_case_label(d, &d->cases[s->case_idx], &b);
		/* Runs with identical medians leave no variance: p is then 0, said as a bound. */
		rp_buf_printf(&b, " moved %+.1f %% from %s on (%s before, %s after; Welch's p %s %.3g "
			      "between the runs either side).", s->s.change_pct, name, x, y,
			      s->s.p < 1e-12 ? "<" : "=", s->s.p < 1e-12 ? 1e-12 : s->s.p);
		if (b.oom || rp_findings_add(f, RP_FIND_STEP, rp_buf_str(&b)) < 0) {
			rp_buf_free(&b);
			return -1;
		}
	}
	rp_buf_free(&b);
	rp_findings_sort(f);
	return 0;
}

const struct rp_history_step *rp_history_step_at(const struct rp_history *h, size_t key, size_t run)
{
	for (size_t i = 0; i < h->n_steps; i++)
		if (h->steps[i].key == key && h->steps[i].s.at == run)
			return &h->steps[i];
	return NULL;
}

int rp_history_has_step(const struct rp_history *h, size_t key)
{
	for (size_t i = 0; i < h->n_steps; i++)
		if (h->steps[i].key == key)
			return 1;
	return 0;
}
