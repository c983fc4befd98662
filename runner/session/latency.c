/* latency: the requester's histograms over a test (see latency.h). */
#include "latency.h"

#include <stdlib.h>
#include <string.h>

enum { L_OMIT = 0, L_PREV = 1, L_CUR = 2, L_TMP = 3 };

struct lat_end *lat_end_new(struct ns_err *err)
{
	struct lat_end *l = calloc(1, sizeof(*l));
	if (!l) {
		ns_err_code(err, NS_E_NOMEM, "out of memory for the latency histograms");
		return NULL;
	}
	for (int i = 0; i < 4; i++)
		lathist_init(&l->h[i]);
	return l;
}

void lat_end_free(struct lat_end *l)
{
	if (!l)
		return;
	free(l->ivl);
	free(l);
}

void lat_end_mark_omit(struct lat_end *l, const struct engine *eng)
{
	engine_latency(eng, &l->h[L_OMIT]);
	lathist_copy(&l->h[L_PREV], &l->h[L_OMIT]);
	l->omit_taken = true;
}

void lat_figures(const struct lathist *h, double dur, uint64_t lost,
		 struct probe_latency_figures *f)
{
	struct lathist_summary s;
	lathist_summarize(h, &s);
	memset(f, 0, sizeof(*f));
	f->transactions = s.count;
	f->transactions_per_second = dur > 0 ? (double)s.count / dur : 0;
	f->lost = lost;
	f->min_us = s.min_ns / 1e3;
	f->mean_us = s.mean_ns / 1e3;
	f->p50_us = s.p50_ns / 1e3;
	f->p90_us = s.p90_ns / 1e3;
	f->p99_us = s.p99_ns / 1e3;
	f->p999_us = s.p999_ns / 1e3;
	f->max_us = s.max_ns / 1e3;
}

void lat_end_interval(struct lat_end *l, const struct engine *eng, double start_s, double end_s,
		      double dt, bool omitted, uint64_t lost)
{
	engine_latency(eng, &l->h[L_CUR]);
	lathist_sub(&l->h[L_TMP], &l->h[L_CUR], &l->h[L_PREV]);
	lathist_copy(&l->h[L_PREV], &l->h[L_CUR]);
	if (l->n_ivl == l->cap_ivl) {
		uint32_t cap = l->cap_ivl ? l->cap_ivl * 2 : 64;
		struct probe_latency_interval *nv = realloc(l->ivl, cap * sizeof(*nv));
		if (!nv)
			return; /* the series ends here; the test's own figures do not depend on it */
		l->ivl = nv;
		l->cap_ivl = cap;
	}
	struct probe_latency_interval *v = &l->ivl[l->n_ivl++];
	v->start_s = start_s;
	v->end_s = end_s;
	v->omitted = omitted;
	lat_figures(&l->h[L_TMP], dt, lost, &v->f);
}

int lat_end_result(struct lat_end *l, const struct engine *eng, double dur, uint64_t lost,
		   struct probe_latency *out, struct ns_err *err)
{
	engine_latency(eng, &l->h[L_CUR]);
	/* Transactions after the last interval's boundary (a late last tick on a busy host, or
	 * the stop between two ticks) make a last, shorter interval, so that the series adds up
	 * to the test's count as iperf3's last interval does. */
	if (l->n_ivl > 0 && l->n_ivl < l->cap_ivl) {
		lathist_sub(&l->h[L_TMP], &l->h[L_CUR], &l->h[L_PREV]);
		struct lathist_summary tail;
		lathist_summarize(&l->h[L_TMP], &tail);
		double start = l->ivl[l->n_ivl - 1].end_s, end = dur > start ? dur : start;
		if (tail.count > 0) {
			struct probe_latency_interval *v = &l->ivl[l->n_ivl++];
			v->start_s = start;
			v->end_s = end;
			v->omitted = false;
			lat_figures(&l->h[L_TMP], end - start, 0, &v->f);
		}
	}
	const struct lathist *m = &l->h[L_CUR];
	if (l->omit_taken) { /* without an omit period the whole run is measured, exactly */
		lathist_sub(&l->h[L_TMP], &l->h[L_CUR], &l->h[L_OMIT]);
		m = &l->h[L_TMP];
	}
	out->present = true;
	out->relative_error = LATHIST_REL_ERROR;
	lat_figures(m, dur, lost, &out->sum);
	out->intervals = l->ivl;
	out->n_intervals = l->n_ivl;
	l->ivl = NULL;
	l->n_ivl = l->cap_ivl = 0;
	out->histogram = lathist_encode(m);
	if (!out->histogram)
		return ns_err_code(err, NS_E_NOMEM, "out of memory for the latency histogram");
	return 0;
}
