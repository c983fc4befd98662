#include "run.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/sql/jsonr.h"
#include "lib/jsonw.h"
#include "lib/units.h"
#include "runner/core/version.h"
#include "runner/client/client.h"
#include "compact.h"
#include "runner/group/group_case.h"
#include "runner/matrix/matrix_group.h"
#include "search_case.h"
#include "runner/client/client_rpm.h"
#include "runner/proto/proto.h"
#include "runner/store/lease.h"
#include "hooks.h"
#include "runner/pairs/loopback.h"
#include "retry.h"
#include "run_int.h"
#include "runner/matrix/bind.h"
#include "runner/mesh/mesh_rounds.h"

/* Allowance per case for connecting, host information and the database write, used only in
 * estimates (the runner's own overhead is measured by tests/bench/sweep_overhead.sh). */
#define RUN_SETUP_S 0.3

/* ---- cases ----------------------------------------------------------------------------- */

char *run_case_json(const struct matrix *m, const struct sweep_case *c)
{
	struct jsonw w;
	jsonw_init(&w, false);
	jsonw_obj_open(&w);
	for (int a = 0; a < MX_AXIS_COUNT; a++) {
		const struct matrix_value *v = expand_value(m, c, a);
		switch (a) {
		case MX_STREAMS: case MX_THREADS: case MX_LENGTH: case MX_RATE: case MX_FQ_RATE:
		case MX_WINDOW: case MX_MSS: case MX_AMOUNT:
			jsonw_kv_uint(&w, matrix_axis_name(a), v->u);
			break;
		case MX_DSCP:
			jsonw_kv_uint(&w, matrix_axis_name(a), v->u >> 2);
			break;
		case MX_DURATION: case MX_OMIT: case MX_STEADY:
			jsonw_kv_double(&w, matrix_axis_name(a), v->d);
			break;
		case MX_NODELAY: case MX_GSO: case MX_ZEROCOPY: case MX_RPM:
			jsonw_kv_bool(&w, matrix_axis_name(a), v->u != 0);
			break;
		default:
			jsonw_kv_str(&w, matrix_axis_name(a), v->text);
		}
	}
	uint64_t pair = expand_value(m, c, MX_PAIR)->u;
	const struct matrix_bind *b =
		pair < m->n_pairs ? mxbind_find(&m->pairs[pair], expand_value(m, c, MX_BIND)->text)
				  : NULL;
	if (b) { /* the addresses behind the bind's name, for the report's probe command */
		char agent[300];
		snprintf(agent, sizeof(agent), strchr(b->agent_host, ':') ? "[%s]:%u" : "%s:%u",
			 b->agent_host, (unsigned)b->agent_port);
		jsonw_kv_str(&w, "bind_client", b->client);
		jsonw_kv_str(&w, "bind_agent", agent);
	}
	jsonw_kv_str(&w, "key", c->key);
	jsonw_obj_close(&w);
	return jsonw_steal(&w);
}

static int store_cases(struct runner *R, struct ns_err *err)
{
	const struct matrix *m = R->m;
	if (store_begin(R->st, err) < 0)
		return -1;
	for (size_t i = 0; i < R->cases->n; i++) {
		const struct sweep_case *c = &R->cases->v[i];
		struct probe_params p;
		expand_params(m, c, &p);
		char *json = run_case_json(m, c);
		struct store_case sc = {
			.endpoint_id = R->pairs[expand_value(m, c, MX_PAIR)->u].endpoint_id,
			.case_key = c->key,
			.ordinal = (int64_t)i,
			.p = &p,
			.affinity = expand_value(m, c, MX_AFFINITY)->text,
			.params_json = json,
		};
		int rc = json ? store_case_put(R->st, R->run_id, &sc, &R->case_ids[i], err)
			      : ns_err_code(err, NS_E_NOMEM, "out of memory");
		free(json);
		if (rc < 0) {
			store_rollback(R->st);
			return -1;
		}
	}
	return store_commit(R->st, err);
}

/* Resume: which (case, repeat)s are in the database already. */
struct done_ctx {
	const struct sweep_cases *cases;
	uint32_t repeats;
	size_t *order;    /* case indexes sorted by key */
	uint8_t *done;    /* [case * repeats + repeat] */
	size_t n_done;
};

static int cmp_by_key(const void *a, const void *b, void *cases)
{
	const struct sweep_cases *cs = cases;
	return strcmp(cs->v[*(const size_t *)a].key, cs->v[*(const size_t *)b].key);
}

static void mark_done(const char *key, int repeat, void *vctx)
{
	struct done_ctx *d = vctx;
	size_t lo = 0, hi = d->cases->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(d->cases->v[d->order[mid]].key, key);
		if (c == 0) {
			if (repeat >= 0 && (uint32_t)repeat < d->repeats &&
			    !d->done[d->order[mid] * d->repeats + (size_t)repeat]) {
				d->done[d->order[mid] * d->repeats + (size_t)repeat] = 1;
				d->n_done++;
			}
			return;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
}

static int find_done(struct runner *R, uint8_t *done, size_t *n_done, struct ns_err *err)
{
	struct done_ctx d = {.cases = R->cases, .repeats = R->m->repeats, .done = done};
	d.order = malloc(R->cases->n * sizeof(size_t));
	if (!d.order)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	for (size_t i = 0; i < R->cases->n; i++)
		d.order[i] = i;
	qsort_r(d.order, R->cases->n, sizeof(size_t), cmp_by_key, (void *)R->cases);
	int rc = store_results_done(R->st, R->run_id, R->o->retry_failed, mark_done, &d, err);
	free(d.order);
	*n_done = d.n_done;
	return rc;
}

/* ---- executing ------------------------------------------------------------------------- */

static void describe(const struct matrix *m, const struct sweep_case *c, uint32_t repeat,
		     char *buf, size_t len)
{
	int n = expand_describe(m, c, buf, len);
	if (n >= 0 && (size_t)n < len && m->repeats > 1)
		snprintf(buf + n, len - (size_t)n, " repeat=%u", repeat);
}

/* Fills the CPU list of the "irq" and "spread" policies. */
static void resolve_affinity(struct runner *R, const struct pair_rt *p, const char *policy,
			     struct probe_params *pp, char *warn, size_t wlen)
{
	if (strcmp(policy, "irq") == 0) {
		if (p->irq_cpus[0])
			snprintf(pp->affinity, sizeof(pp->affinity), "%s", p->irq_cpus);
		else
			run_append(warn, wlen, "affinity irq: the interface's IRQ CPUs are unknown, not pinned");
	} else if (strcmp(policy, "spread") == 0) {
		uint32_t t = pp->threads ? pp->threads : pp->streams, cpus = (uint32_t)R->online_cpus;
		char n[32];
		/* a client agent sends: its CPUs count, when it said how many */
		if (p->remote && jsonr_get_once(p->client_info, "$.online_cpus", n, sizeof(n), NULL) == 1 &&
		    atoi(n) > 0)
			cpus = (uint32_t)atoi(n);
		if (t > cpus)
			t = cpus;
		if (t <= 1)
			snprintf(pp->affinity, sizeof(pp->affinity), "0");
		else
			snprintf(pp->affinity, sizeof(pp->affinity), "0-%u", t - 1);
	}
}

static void sleep_s(const struct runner *R, double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !run_stopped(R))
		;
}

/* A pair with a client sends from that client agent; otherwise this host sends. Both are
 * bounded by the case's timeout (pp->timeout_s). */
static int run_probe(const struct matrix_pair *mp, const struct probe_params *pp,
		     struct probe_result *res, struct ns_err *e)
{
	if (mp->client_host[0])
		return probe_run_from(mp->client_host, mp->client_port, pp, res, e);
	return probe_run(pp, res, e);
}

/* A responsiveness case (client_rpm.h): its tests run from this host; a pair's client agent
 * would need the whole test delegated, which the protocol does not carry yet. */
static int run_rpm(const struct matrix_pair *mp, const struct probe_params *pp,
		   struct probe_result *res, struct ns_err *e)
{
	if (mp->client_host[0])
		return ns_err_code(e, NS_E_UNSUPPORTED, "responsiveness: pair %s sends from a client "
				   "agent, which cannot run it yet (run it from this host)", mp->name);
	return client_rpm_run(pp, res, e);
}

/* Tries the case again while its agent is away, for at most agent-wait; past that the pair
 * is down and this case's error says so. Returns whether the case then succeeded. */
static bool wait_for_agent(struct runner *R, const struct matrix_pair *mp, struct pair_rt *p,
			   const struct probe_params *pp, struct probe_result *res, struct ns_err *e)
{
	struct retry_wait w;
	double pause;
	retry_wait_init(&w, R->agent_wait_s, proto_now());
	progress_note(R->prog, "pair %s: agent %s: %s; waiting up to %g s for it", mp->name,
		      p->addr, e->msg, R->agent_wait_s);
	while (!run_stopped(R) && (pause = retry_next_pause(&w, proto_now())) >= 0) {
		sleep_s(R, pause);
		probe_result_free(res);
		memset(res, 0, sizeof(*res));
		if (run_probe(mp, pp, res, e) == 0) {
			progress_note(R->prog, "pair %s: agent %s is back", mp->name, p->addr);
			return true;
		}
		if (!retry_agent_lost(e, res))
			return false;
	}
	if (run_stopped(R))
		return false;
	char why[NS_ERR_MAX + 512];
	snprintf(why, sizeof(why), "pair %s is down: agent %s did not come back within %g s "
		 "(agent-wait): %.200s", mp->name, p->addr, R->agent_wait_s, e->msg);
	snprintf(e->msg, sizeof(e->msg), "%.*s", (int)sizeof(e->msg) - 1, why);
	pthread_mutex_lock(&R->lock);
	p->down = true;
	snprintf(p->down_why, sizeof(p->down_why), "not run: %.*s", (int)sizeof(p->down_why) - 16,
		 why);
	char *list = R->sum->down_pairs;
	size_t n = strlen(list);
	snprintf(list + n, sizeof(R->sum->down_pairs) - n, "%s%s (%s)", n ? ", " : "", mp->name,
		 p->addr);
	pthread_mutex_unlock(&R->lock);
	progress_note(R->prog, "pair %s is down: its remaining cases fail without being run",
		      mp->name);
	return false;
}

/* Claims the slot's case in the database: a case another live runner is measuring (two
 * --resumes of one run) or that is stored already is left alone. */
static int run_claim(struct runner *R, const struct sweep_slot *slot, double est, const char *what)
{
	char other[LEASE_HOLDER_MAX];
	struct ns_err e = {0};
	double ttl = 2 * est + R->agent_wait_s + (R->m->case_timeout_s > 0 ? R->m->case_timeout_s : 0) + 60;
	int got = lease_claim(R->st, R->case_ids[slot->case_idx], slot->repeat, R->holder, ttl,
			      R->o->retry_failed, other, sizeof(other), &e);
	pthread_mutex_lock(&R->lock);
	if (got < 0) {
		ns_err_prefix(&e, "case %s not claimed", what);
		if (!R->fatal)
			R->fatal_err = e;
		R->fatal = true;
	} else if (got == LEASE_HELD) {
		R->sum->leased_elsewhere++;
	} else if (got == LEASE_STORED) {
		R->sum->skipped++;
	}
	pthread_mutex_unlock(&R->lock);
	if (got == LEASE_HELD)
		progress_note(R->prog, "%s: being measured by another runner (%s): left to it", what,
			      other);
	return got;
}

static int run_slot(struct runner *R, const struct sweep_slot *slot)
{
	const struct matrix *m = R->m;
	const struct sweep_case *c = &R->cases->v[slot->case_idx];
	const struct matrix_pair *mp = &m->pairs[expand_value(m, c, MX_PAIR)->u];
	struct pair_rt *p = &R->pairs[expand_value(m, c, MX_PAIR)->u];
	char what[300], started[32], finished[32], summary[NS_ERR_MAX + 16], warn[NS_ERR_MAX * 2 + 4];
	double est = expand_case_seconds(m, c) + RUN_SETUP_S + m->cooldown_s; /* as run_estimate */
	struct probe_result res;
	struct ns_err e = {0};
	bool ran = false, ok = false;
	char *json = NULL, *search_json = NULL;
	struct group_case *grp = NULL;

	describe(m, c, slot->repeat, what, sizeof(what));
	int claim = run_claim(R, slot, est, what);
	if (claim != LEASE_TAKEN)
		return claim < 0 ? -1 : 0;
	progress_start(R->prog, what, est);
	store_now(started);
	snprintf(warn, sizeof(warn), "%s", p->warn);
	memset(&res, 0, sizeof(res));
	if (p->fail[0] || p->down) {
		snprintf(e.msg, sizeof(e.msg), "%s", p->fail[0] ? p->fail : p->down_why);
	} else {
		struct probe_params pp;
		expand_params(m, c, &pp);
		snprintf(pp.host, sizeof(pp.host), "%s", p->host);
		pp.port = p->port;
		/* a bind: -B and the agent address the pair declares for it (checked at load) */
		mxbind_apply(m, expand_value(m, c, MX_PAIR)->u, expand_value(m, c, MX_BIND)->text, &pp,
			     NULL);
		snprintf(pp.psk_file, sizeof(pp.psk_file), "%s", mp->psk_file);
		resolve_affinity(R, p, expand_value(m, c, MX_AFFINITY)->text, &pp, warn, sizeof(warn));
		if (m->search && pp.proto == NS_PROTO_UDP)
			ok = search_case_run(&m->search_cfg, &pp, mp->client_host[0] ? mp->client_host : NULL,
					     mp->client_port, &res, &search_json, &e) == 0;
		else if (expand_value(m, c, MX_RPM)->u) /* the responsiveness test, from this host */
			ok = run_rpm(mp, &pp, &res, &e) == 0;
		else if (mxgroup_is_group(m, c)) /* several tests as one case, started together */
			ok = group_case_run(m, c, &pp, &res, &grp, &e) == 0;
		else
			ok = run_probe(mp, &pp, &res, &e) == 0;
		/* An agent running all the tests its --max-tests allows (one of version 19 or older:
		 * any other test) answers busy before any test starts: wait for it, a bounded
		 * while, rather than fail. */
		bool rpm = expand_value(m, c, MX_RPM)->u != 0; /* its own tests: not retried as one */
		for (int tries = 0; !rpm && !grp && !ok && res.n_dirs == 0 && e.code == NS_E_BUSY &&
				    tries < 20 && !run_stopped(R); tries++) {
			probe_result_free(&res);
			memset(&res, 0, sizeof(res));
			sleep_s(R, 0.5);
			ok = run_probe(mp, &pp, &res, &e) == 0;
		}
		if (!rpm && !grp && !ok && retry_agent_lost(&e, &res))
			ok = wait_for_agent(R, mp, p, &pp, &res, &e);
		ran = true;
		if (res.warnings[0])
			run_append(warn, sizeof(warn), "%s", res.warnings);
		compact_long_run(&res); /* an hour must not bloat the database */
		json = probe_result_json(&res, false);
	}
	store_now(finished);
	/* A case that failed once a stop was asked for (a signal to the whole process group, an
	 * interrupted system call) failed because of the stop, not the network: it is not stored,
	 * so --resume runs it again. */
	if (ran && !ok && run_stopped(R)) {
		snprintf(summary, sizeof(summary), "interrupted, not stored (--resume runs it again): %.*s",
			 (int)sizeof(summary) - 64, e.msg[0] ? e.msg : res.error);
		free(json);
		free(search_json);
		probe_result_free(&res);
		group_case_free(grp);
		lease_release(R->st, R->case_ids[slot->case_idx], slot->repeat, R->holder, NULL);
		progress_done(R->prog, what, est, false, summary);
		return 0;
	}
	struct store_result sr = {
		.case_id = R->case_ids[slot->case_idx],
		.repeat = slot->repeat,
		.started_at = started,
		.finished_at = finished,
		.res = ran ? &res : NULL,
		.ok = ok,
		.error = ok ? NULL : (e.msg[0] ? e.msg : res.error),
		.warnings = warn[0] ? warn : NULL,
		.probe_json = json,
		.search_json = ok ? search_json : NULL,
		.group = group_case_rows(grp),
	};
	sr.replace_failed = R->o->retry_failed;
	struct ns_err se;
	int rc = store_put_result(R->st, &sr, NULL, &se);
	if (ok && res.n_dirs > 0)
		units_format_rate(res.dirs[0].receiver.bits_per_second, summary, sizeof(summary));
	else
		snprintf(summary, sizeof(summary), "%s", sr.error ? sr.error : "failed");
	free(json);
	free(search_json);
	if (ran)
		probe_result_free(&res);
	group_case_free(grp);
	if (rc == 1)
		snprintf(summary, sizeof(summary), "already stored by another runner: kept that one");
	lease_release(R->st, sr.case_id, slot->repeat, R->holder, NULL);
	pthread_mutex_lock(&R->lock);
	if (rc < 0) {
		/* never "ok" for what the database does not hold */
		ns_err_prefix(&se, "case %s not stored", what);
		snprintf(summary, sizeof(summary), "%s", se.msg);
		if (!R->fatal)
			R->fatal_err = se;
		R->fatal = true;
		ok = false;
	} else if (rc == 1) {
		R->sum->skipped++;
	} else if (ok) {
		R->sum->ok++;
	} else {
		R->sum->failed++;
		R->sum->down_failed += !ran && p->down;
	}
	pthread_mutex_unlock(&R->lock);
	progress_done(R->prog, what, est, ok, summary);
	return rc < 0 ? -1 : 0;
}

/* The next slot whose pair is free: among free pairs, the one whose next slot comes first in
 * the schedule. NULL when nothing can start now. Called with R->lock held. */
/* A mesh pair may start when its round is the first unfinished one and neither of its hosts
 * is in a test. */
static bool mesh_free(struct runner *R, size_t i)
{
	const struct pair_rt *p = &R->pairs[i];
	if (p->round < 0)
		return true;
	for (int r = 0; r < p->round; r++)
		if (R->round_left[r])
			return false;
	for (size_t j = 0; j < R->m->n_pairs; j++)
		if (R->pairs[j].busy && mesh_shares_host(&R->m->pairs[i], &R->m->pairs[j]))
			return false;
	return true;
}

static struct pair_rt *pick(struct runner *R, size_t *pos)
{
	struct pair_rt *best = NULL;
	for (size_t i = 0; i < R->m->n_pairs; i++) {
		struct pair_rt *p = &R->pairs[i];
		if (p->busy || p->next >= p->n_queue || !mesh_free(R, i))
			continue;
		if (!best || p->queue[p->next] < best->queue[best->next])
			best = p;
	}
	if (best)
		*pos = best->queue[best->next++];
	return best;
}

static bool work_left(struct runner *R)
{
	for (size_t i = 0; i < R->m->n_pairs; i++)
		if (R->pairs[i].next < R->pairs[i].n_queue)
			return true;
	return false;
}

static void *worker(void *arg)
{
	struct runner *R = arg;
	pthread_mutex_lock(&R->lock);
	for (;;) {
		size_t pos;
		struct pair_rt *p = NULL;
		while (!R->fatal && !run_stopped(R) && work_left(R) &&
		       !(p = pick(R, &pos)))
			pthread_cond_wait(&R->cond, &R->lock);
		if (!p)
			break;
		p->busy = true;
		pthread_mutex_unlock(&R->lock);
		run_slot(R, &R->slots[pos]);
		/* The cool-down keeps the pair reserved: the next case on it must not start early. */
		if (R->m->cooldown_s > 0 && !run_stopped(R) && !p->down) {
			pthread_mutex_lock(&R->lock);
			bool more = p->next < p->n_queue;
			pthread_mutex_unlock(&R->lock);
			if (more)
				sleep_s(R, R->m->cooldown_s);
		}
		pthread_mutex_lock(&R->lock);
		p->busy = false;
		if (p->round >= 0)
			R->round_left[p->round]--;
		pthread_cond_broadcast(&R->cond);
	}
	pthread_cond_broadcast(&R->cond);
	pthread_mutex_unlock(&R->lock);
	return NULL;
}

static int execute(struct runner *R, const uint8_t *done, struct ns_err *err)
{
	size_t n_pairs = R->m->n_pairs;
	for (size_t i = 0; i < n_pairs; i++) {
		R->pairs[i].queue = malloc((R->n_slots ? R->n_slots : 1) * sizeof(size_t));
		if (!R->pairs[i].queue)
			return ns_err_code(err, NS_E_NOMEM, "out of memory");
	}
	int *round = calloc(n_pairs ? n_pairs : 1, sizeof(int));
	if (!round)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	R->n_rounds = mesh_rounds(R->m, round, err);
	R->round_left = R->n_rounds > 0 ? calloc((size_t)R->n_rounds, sizeof(size_t)) : NULL;
	if (R->n_rounds > 0 && R->round_left && R->m->order == MX_ORDER_SHUFFLED) {
		/* the seed orders the rounds as it orders the slots */
		size_t *first = R->round_left;
		for (int r = 0; r < R->n_rounds; r++)
			first[r] = SIZE_MAX;
		for (size_t k = R->n_slots; k-- > 0;) {
			int r = round[expand_value(R->m, &R->cases->v[R->slots[k].case_idx], MX_PAIR)->u];
			if (r >= 0)
				first[r] = k;
		}
		if (mesh_rounds_reorder(R->m, round, R->n_rounds, first) < 0)
			R->n_rounds = -1;
		memset(first, 0, (size_t)(R->n_rounds > 0 ? R->n_rounds : 0) * sizeof(size_t));
	}
	for (size_t i = 0; i < n_pairs; i++)
		R->pairs[i].round = R->n_rounds > 0 ? round[i] : -1;
	free(round);
	if (R->n_rounds < 0 && !err->msg[0])
		ns_err_code(err, NS_E_NOMEM, "out of memory");
	if (R->n_rounds < 0 || (R->n_rounds > 0 && !R->round_left))
		return R->n_rounds < 0 ? -1 : ns_err_code(err, NS_E_NOMEM, "out of memory");
	for (size_t k = 0; k < R->n_slots; k++) {
		const struct sweep_slot *s = &R->slots[k];
		if (done[(size_t)s->case_idx * R->m->repeats + s->repeat])
			continue;
		struct pair_rt *p = &R->pairs[expand_value(R->m, &R->cases->v[s->case_idx], MX_PAIR)->u];
		p->queue[p->n_queue++] = k;
		if (p->round >= 0)
			R->round_left[p->round]++;
	}
	unsigned jobs = R->o->jobs ? R->o->jobs : 1;
	if (jobs > n_pairs)
		jobs = (unsigned)n_pairs;
	pthread_t th[64];
	if (jobs > 64)
		jobs = 64;
	unsigned started = 0;
	for (; started < jobs; started++)
		if (pthread_create(&th[started], NULL, worker, R) != 0)
			break;
	if (started == 0)
		return ns_err_code(err, NS_E_NOMEM, "cannot start a runner thread");
	for (unsigned i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (R->fatal) {
		*err = R->fatal_err;
		return -1;
	}
	return 0;
}

int run_check_size(const struct matrix *m, const struct sweep_cases *cases, struct ns_err *err)
{
	if ((uint64_t)cases->n * m->repeats > RUN_MAX_RUNS)
		return ns_err_code(err, NS_E_LIMIT, "%s: %zu cases x %u repeats = %llu runs, over the "
				   "limit of %d runs in one matrix: split it or exclude cases",
				   m->path, cases->n, m->repeats,
				   (unsigned long long)cases->n * m->repeats, RUN_MAX_RUNS);
	return 0;
}

double run_estimate(const struct matrix *m, const struct sweep_cases *cases, unsigned jobs)
{
	double total = 0, *per_pair = calloc(m->n_pairs, sizeof(double)), worst = 0;
	for (size_t i = 0; i < cases->n; i++) {
		double t = (expand_case_seconds(m, &cases->v[i]) + RUN_SETUP_S + m->cooldown_s) *
			   m->repeats;
		total += t;
		if (per_pair)
			per_pair[expand_value(m, &cases->v[i], MX_PAIR)->u] += t;
	}
	/* a mesh's pairs run in rounds (mesh_rounds.h): those seconds apart, the rest spread */
	int *round = per_pair && jobs > 1 ? calloc(m->n_pairs ? m->n_pairs : 1, sizeof(int)) : NULL;
	struct ns_err e;
	int n_rounds = round ? mesh_rounds(m, round, &e) : 0;
	double mesh_s = n_rounds > 0 ? mesh_estimate(m, round, n_rounds, per_pair, jobs) : 0;
	size_t others = m->n_pairs;
	for (size_t i = 0; per_pair && i < m->n_pairs; i++) {
		if (n_rounds > 0 && round[i] >= 0) {
			total -= per_pair[i];
			others--;
		} else if (per_pair[i] > worst) {
			worst = per_pair[i];
		}
	}
	free(round);
	free(per_pair);
	if (jobs <= 1)
		return total;
	double spread = others ? total / (jobs < others ? jobs : others) : 0;
	return (spread > worst ? spread : worst) + mesh_s;
}

static const char *order_name(enum matrix_order o)
{
	return o == MX_ORDER_INTERLEAVED ? "interleaved" : o == MX_ORDER_SHUFFLED ? "shuffled"
										  : "as-written";
}

int run_execute(const struct matrix *m, const struct sweep_cases *cases, struct store *st,
		const struct run_opts *o, struct run_summary *sum, struct ns_err *err)
{
	struct runner R = {.m = m, .cases = cases, .st = st, .o = o, .sum = sum};
	struct jsonw warnings;
	uint8_t *done = NULL;
	int64_t seed = (int64_t)m->seed;
	int rc = -1;

	memset(sum, 0, sizeof(*sum));
	jsonw_init(&warnings, false);
	jsonw_arr_open(&warnings);
	pthread_mutex_init(&R.lock, NULL);
	pthread_cond_init(&R.cond, NULL);
	atomic_init(&R.never_stop, 0);
	R.stop = o->stop ? o->stop : &R.never_stop;
	R.online_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (R.online_cpus < 1)
		R.online_cpus = 1;

	R.pairs = calloc(m->n_pairs, sizeof(*R.pairs));
	R.case_ids = calloc(cases->n, sizeof(*R.case_ids));
	done = calloc(cases->n * m->repeats, 1);
	if (!R.pairs || !R.case_ids || !done) {
		ns_err_code(err, NS_E_NOMEM, "out of memory");
		goto out;
	}
	R.agent_wait_s = o->agent_wait_s >= 0 ? o->agent_wait_s : m->agent_wait_s;
	lease_holder(R.holder);
	if (run_check_size(m, cases, err) < 0)
		goto out;
	int found = 0;
	if (o->resume) {
		found = o->retry_failed ? store_run_find_latest(st, m->hash, &R.run_id, &seed, err)
					: store_run_find_unfinished(st, m->hash, &R.run_id, &seed, err);
		if (found < 0)
			goto out;
	}
	if (!found) {
		if (m->order == MX_ORDER_SHUFFLED && !m->has_seed)
			seed = (int64_t)((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16)) & 0x7fffffff;
		char host[256] = "";
		gethostname(host, sizeof(host) - 1);
		struct store_run r = {
			.matrix_name = m->name, .description = m->description, .matrix_path = m->path,
			.matrix_text = m->text, .matrix_hash = m->hash, .label = o->label,
			.version = NETSWEEP_VERSION, .runner_host = host, .order = order_name(m->order),
			.has_seed = m->has_seed || m->order == MX_ORDER_SHUFFLED, .seed = seed,
			.repeats = m->repeats, .rank_by = m->rank_by, .pricing = m->pricing,
		};
		if (store_run_create(st, &r, &R.run_id, err) < 0 ||
		    (o->overrides && store_run_set_overrides(st, R.run_id, o->overrides, err) < 0))
			goto out;
	} else {
		sum->resumed = true;
		if (store_run_set_status(st, R.run_id, "running", NULL, err) < 0)
			goto out;
	}
	sum->run_id = R.run_id;
	if (expand_schedule(m, cases->n, (uint64_t)seed, &R.slots, &R.n_slots, err) < 0)
		goto fail_run;
	sum->total = R.n_slots;

	R.prog = progress_create(o->out, o->progress, R.n_slots, run_estimate(m, cases, 1));
	if (o->resume && !found)
		progress_note(R.prog, "netsweep run: no unfinished run of this matrix: starting a new one");
	struct hooks_opts ho = {st, R.run_id, o->jobs, R.prog, R.stop};
	if (hooks_setup(m, &ho, &R.hooks, err) < 0)
		goto fail_run;
	R.m = hooks_matrix(R.hooks, m); /* the pairs' agents as the setups named them */
	if (run_setup_pairs(&R, &warnings, err) < 0)
		goto fail_run;
	if (run_snapshot_catalog(&R, &warnings, err) < 0) /* on resume: fills only what is missing */
		goto fail_run;
	if (store_cases(&R, err) < 0)
		goto fail_run;
	if (found && find_done(&R, done, &sum->skipped, err) < 0)
		goto fail_run;
	progress_destroy(R.prog);
	double left = run_estimate(m, cases, o->jobs) *
		      (R.n_slots ? (double)(R.n_slots - sum->skipped) / (double)R.n_slots : 0);
	R.prog = progress_create(o->out, o->progress, R.n_slots - sum->skipped, left);
	if (found)
		progress_note(R.prog, "resuming run %lld: %zu of %zu already done", (long long)R.run_id,
			      sum->skipped, R.n_slots);
	if (execute(&R, done, err) < 0)
		goto fail_run;
	hooks_teardown(&R.hooks, R.prog); /* before the run is done: --resume owes what is left */
	progress_finish(R.prog);
	sum->interrupted = run_stopped(&R);
	jsonw_arr_close(&warnings);
	/* A pair that was down leaves the run failed (--resume --retry-failed takes it up); cases
	 * left to another runner leave the status to that runner. */
	const char *status = sum->interrupted ? "interrupted" : sum->down_pairs[0] ? "failed" : "done";
	size_t stored = 0;
	bool others = sum->leased_elsewhere && !sum->interrupted &&
		      (lease_run_results(st, R.run_id, &stored, err) < 0 || stored < R.n_slots);
	/* with cases still with another runner the status stays 'running': that runner, storing
	 * the last result, sets it */
	if (!others &&
	    store_run_set_status(st, R.run_id, status, found ? NULL : jsonw_finish(&warnings), err) < 0)
		goto fail_run;
	lease_release_all(st, R.holder, NULL);
	rc = 0;
	goto out;
fail_run:
	hooks_teardown(&R.hooks, R.prog);
	progress_finish(R.prog);
	store_run_set_status(st, R.run_id, run_stopped(&R) ? "interrupted" : "failed",
			     NULL, NULL);
	lease_release_all(st, R.holder, NULL);
out:
	hooks_teardown(&R.hooks, R.prog);
	loopback_stop(R.agent_pid);
	progress_destroy(R.prog);
	for (size_t i = 0; R.pairs && i < m->n_pairs; i++) {
		free(R.pairs[i].client_info);
		free(R.pairs[i].agent_info);
		free(R.pairs[i].queue);
	}
	free(R.pairs);
	free(R.round_left);
	free(R.case_ids);
	free(R.slots);
	free(done);
	jsonw_free(&warnings);
	pthread_cond_destroy(&R.cond);
	pthread_mutex_destroy(&R.lock);
	return rc;
}
