/* group: see group.h. */
#include "group.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fairness.h"
#include "runner/client/client.h"

/* The common start: a test arrives when it is set up (or leaves when it failed before); the
 * barrier opens once every test did one or the other, or at the deadline (not the agent's
 * handshake gate, runner/agent/gate.c). */
struct start_barrier {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t n, in;
	bool open;
	double deadline_s;                 /* after the first arrival */
};

struct worker {
	struct group_test *t;
	struct start_barrier *g;
	bool arrived;
	pthread_t th;
};

static void barrier_count(struct start_barrier *g)
{
	if (++g->in >= g->n) {
		g->open = true;
		pthread_cond_broadcast(&g->cv);
	}
}

static void barrier_arrive(void *arg)
{
	struct worker *w = arg;
	struct start_barrier *g = w->g;
	pthread_mutex_lock(&g->mu);
	w->arrived = true;
	barrier_count(g);
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)g->deadline_s;
	while (!g->open)
		if (pthread_cond_timedwait(&g->cv, &g->mu, &until) == ETIMEDOUT) {
			g->open = true; /* the slowest is late: start anyway, the spread says so */
			pthread_cond_broadcast(&g->cv);
		}
	pthread_mutex_unlock(&g->mu);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct group_test *t = w->t;
	memset(&t->err, 0, sizeof(t->err));
	if (t->client_host[0]) { /* a client agent: it sets up on its own, starts at start_at */
		barrier_arrive(w);
		t->rc = probe_run_from(t->client_host, t->client_port, &t->pp, &t->res, &t->err);
	} else {
		struct client_sync s = {.ready = barrier_arrive, .arg = w};
		t->rc = probe_run_synced(&t->pp, &t->res, &s, &t->err);
	}
	t->started = t->res.started_unix;
	pthread_mutex_lock(&w->g->mu);
	if (!w->arrived)
		barrier_count(w->g); /* failed before its start: the others need not wait for it */
	pthread_mutex_unlock(&w->g->mu);
	return NULL;
}

int group_run(struct group_test *t, size_t n, struct ns_err *err)
{
	struct start_barrier g = {.n = n};
	struct worker *w = calloc(n ? n : 1, sizeof(*w));
	if (!w)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	pthread_mutex_init(&g.mu, NULL);
	pthread_cond_init(&g.cv, NULL);
	g.deadline_s = (n ? t[0].pp.connect_timeout_s : 0) + GROUP_SYNC_SLACK_S;
	/* client agents cannot be held at a gate of this process: every test of a group with
	 * one starts at a common wall-clock second, far enough ahead for them to set up */
	bool remote = false;
	for (size_t i = 0; i < n; i++)
		remote |= t[i].client_host[0] != 0;
	double start_at = remote ? probe_wall_now() + GROUP_REMOTE_LEAD_S : 0;
	for (size_t i = 0; i < n; i++) {
		t[i].pp.start_at = start_at;
		w[i] = (struct worker){.t = &t[i], .g = &g};
		t[i].started = 0;
		if (pthread_create(&w[i].th, NULL, work, &w[i]) != 0) {
			t[i].rc = -1;
			ns_err_code(&t[i].err, NS_E_NOMEM, "cannot start a thread for this test");
			snprintf(t[i].res.error, sizeof(t[i].res.error), "%s", t[i].err.msg);
			pthread_mutex_lock(&g.mu);
			barrier_count(&g);
			pthread_mutex_unlock(&g.mu);
			w[i].th = 0;
			w[i].t = NULL;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (w[i].t)
			pthread_join(w[i].th, NULL);
	free(w);
	pthread_cond_destroy(&g.cv);
	pthread_mutex_destroy(&g.mu);
	char msg[NS_ERR_MAX] = "";
	size_t failed = 0, len = 0;
	enum ns_err_code code = NS_E_FAIL;
	for (size_t i = 0; i < n; i++) {
		if (t[i].rc == 0)
			continue;
		if (!failed++ && t[i].err.code)
			code = t[i].err.code;
		int k = snprintf(msg + len, sizeof(msg) - len, "%sclient %s: %s", len ? "; " : "",
				 t[i].name, t[i].err.msg[0] ? t[i].err.msg : t[i].res.error);
		len += k > 0 ? (size_t)k : 0;
		if (len >= sizeof(msg))
			len = sizeof(msg) - 1;
	}
	if (!failed)
		return 0;
	return ns_err_code(err, code, "%zu of %zu clients failed: %s", failed, n, msg);
}

double group_test_bps(const struct group_test *t)
{
	return t->res.n_dirs > 0 ? t->res.dirs[0].receiver.bits_per_second : 0;
}

/* Calls fn for each sum interval (stream -1, not omitted) of a test's requested direction,
 * in order; returns how many there are. */
static size_t sums(const struct group_test *t, double *bps, double *start, size_t cap)
{
	size_t k = 0;
	const struct probe_direction *d = t->res.n_dirs ? &t->res.dirs[0] : NULL;
	for (uint32_t i = 0; d && i < d->n_intervals; i++) {
		const struct probe_interval *v = &d->intervals[i];
		if (v->stream != -1 || v->omitted)
			continue;
		if (k < cap) {
			if (bps)
				bps[k] = v->bits_per_second;
			if (start)
				start[k] = v->start_s;
		}
		k++;
	}
	return k;
}

/* TCP: when the completed tests' shares settled, their series aligned interval by interval. */
static double converge(const struct group_test *t, size_t n, size_t ok)
{
	size_t n_ivl = SIZE_MAX, c = 0;
	double out = NAN;
	for (size_t i = 0; i < n; i++)
		if (t[i].rc == 0) {
			size_t k = sums(&t[i], NULL, NULL, 0);
			n_ivl = k < n_ivl ? k : n_ivl;
		}
	if (ok == 0 || n_ivl == 0 || n_ivl == SIZE_MAX)
		return NAN;
	double *r = malloc(ok * n_ivl * sizeof(*r)), *ts = malloc(n_ivl * sizeof(*ts));
	if (r && ts) {
		for (size_t i = 0; i < n && c < ok; i++)
			if (t[i].rc == 0) {
				sums(&t[i], r + c * n_ivl, c == 0 ? ts : NULL, n_ivl);
				c++;
			}
		out = fair_converge_s(r, c, n_ivl, ts);
	}
	free(r);
	free(ts);
	return out;
}

void group_figures(const struct group_test *t, size_t n, struct group_figures *f)
{
	double *rate = calloc(n ? n : 1, sizeof(*rate));
	double lo = INFINITY, hi = -INFINITY;
	memset(f, 0, sizeof(*f));
	f->clients = n;
	f->jain = f->min_share = f->min_of_fair = f->converge_s = f->start_spread_ms = NAN;
	if (!rate)
		return;
	for (size_t i = 0; i < n; i++) {
		if (t[i].started > 0) {
			lo = fmin(lo, t[i].started);
			hi = fmax(hi, t[i].started);
		}
		f->dispatched |= t[i].client_host[0] != 0;
		if (t[i].rc == 0)
			rate[f->ok++] = group_test_bps(&t[i]);
	}
	if (hi >= lo)
		f->start_spread_ms = (hi - lo) * 1e3;
	for (size_t i = 0; i < f->ok; i++)
		f->total_bps += rate[i];
	f->jain = fair_jain(rate, f->ok);
	f->min_share = fair_min_share(rate, f->ok);
	f->min_of_fair = fair_min_of_fair(rate, f->ok);
	free(rate);
	if (n && t[0].pp.proto == NS_PROTO_TCP && !t[0].pp.rr[0])
		f->converge_s = converge(t, n, f->ok);
}
