/* data: see data.h. Every statement is prepared with bound parameters; the whole run's
 * results are read in one ordered pass so that 10,000 cases load in well under a second. */
#include "report/load/data.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cost.h"
#include "lib/sql/sqlrow.h"
#include "report/load/lab_runs.h"
#include "report/load/phase_rows.h"
#include "report/load/limits.h"
#include "report/load/provider.h"
#include "report/load/rundb.h"
#include "report/model/stats.h"

/* Makes room for one more element in a growing array; returns the new element (zeroed). */
static void *grow(void *arr, size_t *cap, size_t n, size_t size)
{
	void **a = arr;
	if (n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		void *p = realloc(*a, c * size);
		if (!p)
			return NULL;
		*a = p;
		*cap = c;
	}
	return memset((char *)*a + n * size, 0, size);
}

static int load_run(sqlite3 *db, long long id, struct rp_run *r, struct ns_err *err)
{
	sqlite3_stmt *st;
	if (rp_db_prep(db,
		 "SELECT id, matrix_name, matrix_description, matrix_path, matrix_text, matrix_hash, "
		 "label, started_at, finished_at, netsweep_version, runner_host, order_mode, status, "
		 "warnings, seed, repeats FROM runs WHERE id = ?",
		 &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return ns_err_code(err, NS_E_INPUT, "run %lld: no such run in the database", id);
	}
	r->id = sqlite3_column_int64(st, 0);
	char **s[] = {&r->matrix_name, &r->matrix_description, &r->matrix_path, &r->matrix_text,
		      &r->matrix_hash, &r->label, &r->started_at, &r->finished_at,
		      &r->netsweep_version, &r->runner_host, &r->order_mode, &r->status,
		      &r->warnings};
	for (int i = 0; i < 13; i++)
		*s[i] = sqlrow_dup(st, i + 1);
	r->has_seed = sqlite3_column_type(st, 14) != SQLITE_NULL;
	r->seed = sqlite3_column_int64(st, 14);
	r->repeats = sqlite3_column_int64(st, 15);
	sqlite3_finalize(st);
	/* run_rank came with schema version 8: an older database has no rule (best case). */
	if (sqlite3_prepare_v2(db, "SELECT rank_by FROM run_rank WHERE run_id = ?", -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW)
			r->rank_by = sqlrow_dup(st, 0);
		sqlite3_finalize(st);
	}
	return 0;
}

static void host_read(sqlite3_stmt *st, int base, struct rp_host *h)
{
	char **s[] = {&h->hostname, &h->kernel, &h->os, &h->cpu_model, &h->ifname, &h->driver,
		      &h->driver_family, &h->driver_version, &h->qdisc, &h->provider,
		      &h->cloud_instance_type, &h->cloud_region, &h->cloud_az};
	h->present = sqlite3_column_type(st, base) != SQLITE_NULL;
	for (int i = 0; i < 13; i++)
		*s[i] = sqlrow_dup(st, base + 1 + i);
	h->online_cpus = sqlite3_column_int64(st, base + 14);
	h->mtu = sqlite3_column_int64(st, base + 15);
	h->speed_mbps = sqlite3_column_int64(st, base + 16);
}

/* Column list of one hostinfo side; X is client_info or agent_info. 17 columns. */
#define HOST_SQL(X) \
	X ", json_extract(" X ", '$.hostname'), json_extract(" X ", '$.kernel'), " \
	"json_extract(" X ", '$.os'), json_extract(" X ", '$.cpu_model'), " \
	"json_extract(" X ", '$.interface.name'), json_extract(" X ", '$.interface.driver'), " \
	"json_extract(" X ", '$.interface.driver_family'), " \
	"json_extract(" X ", '$.interface.driver_version'), json_extract(" X ", '$.interface.qdisc'), " \
	"json_extract(" X ", '$.cloud.provider'), json_extract(" X ", '$.cloud.instance_type'), " \
	"json_extract(" X ", '$.cloud.region'), json_extract(" X ", '$.cloud.availability_zone'), " \
	"json_extract(" X ", '$.online_cpus'), json_extract(" X ", '$.interface.mtu'), " \
	"json_extract(" X ", '$.interface.speed_mbps')"

/* Runs sql with ?1 bound to id and calls row() for each result row; row returns -1 to stop
 * with its error set (out of memory). */
struct load_ctx {
	struct rp_data *d;
	size_t cap;                  /* of the array being grown */
};

static int each_row(sqlite3 *db, const char *sql, long long id,
		    int (*row)(sqlite3_stmt *st, struct load_ctx *x), struct load_ctx *x,
		    struct ns_err *err)
{
	sqlite3_stmt *st;
	if (rp_db_prep(db, sql, &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (row(st, x) < 0) {
			sqlite3_finalize(st);
			return ns_err_code(err, NS_E_NOMEM, "out of memory");
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return ns_err_code(err, NS_E_INPUT, "database: %s", sqlite3_errmsg(db));
	return 0;
}

static int endpoint_row(sqlite3_stmt *st, struct load_ctx *x)
{
	struct rp_data *d = x->d;
	struct rp_endpoint *e = grow(&d->eps, &x->cap, d->n_eps, sizeof(*e));
	if (!e)
		return -1;
	d->n_eps++;
	e->id = sqlite3_column_int64(st, 0);
	e->name = sqlrow_dup(st, 1);
	e->instance_type = sqlrow_dup(st, 2);
	e->region = sqlrow_dup(st, 3);
	e->agent_addr = sqlrow_dup(st, 4);
	e->client_host = sqlrow_dup(st, 5);
	e->expected_driver = sqlrow_dup(st, 6);
	e->price_basis = sqlrow_dup(st, 7);
	e->link_bps = sqlite3_column_int64(st, 8);
	e->usd_per_hour = sqlrow_num(st, 9);
	e->unit_usd_per_hour = sqlrow_num(st, 10);
	e->price_as_of = sqlrow_dup(st, 11);
	e->price_source = sqlrow_dup(st, 12);
	e->od_per_hour = e->usd_per_hour;
	e->spot_per_hour = NAN;
	host_read(st, 13, &e->client);
	host_read(st, 13 + 17, &e->agent);
	return 0;
}

static int load_endpoints(sqlite3 *db, struct rp_data *d, struct ns_err *err)
{
	struct load_ctx x = {d, 0};
	return each_row(db,
			"SELECT e.id, e.name, e.instance_type, e.region, e.agent_addr, e.client_host, "
			"e.expected_driver, e.price_basis, e.link_bps, p.usd_per_hour, "
			"p.unit_usd_per_hour, p.as_of, p.source, " HOST_SQL("e.client_info") ", "
			HOST_SQL("e.agent_info")
			" FROM endpoints e JOIN v_endpoint_prices p ON p.endpoint_id = e.id "
			"WHERE e.run_id = ?1 ORDER BY e.id",
			d->run.id, endpoint_row, &x, err);
}

static size_t ep_index(const struct rp_data *d, long long id)
{
	for (size_t i = 0; i < d->n_eps; i++)
		if (d->eps[i].id == id)
			return i;
	return 0;
}

static int case_row(sqlite3_stmt *st, struct load_ctx *x)
{
	struct rp_data *d = x->d;
	struct rp_case *c = grow(&d->cases, &x->cap, d->n_cases, sizeof(*c));
	if (!c)
		return -1;
	d->n_cases++;
	c->id = sqlite3_column_int64(st, 0);
	c->case_key = sqlrow_dup(st, 1);
	c->ordinal = sqlite3_column_int(st, 2);
	c->ep = ep_index(d, sqlite3_column_int64(st, 3));
	c->protocol = sqlrow_dup(st, 4);
	c->direction = sqlrow_dup(st, 5);
	c->affinity = sqlrow_dup(st, 6);
	c->congestion = sqlrow_dup(st, 7);
	long long *n[] = {&c->streams, &c->threads, &c->length, &c->rate_bps, &c->fq_rate_bps,
			  &c->window, &c->mss, &c->nodelay, &c->gso};
	for (int i = 0; i < 9; i++)
		*n[i] = sqlite3_column_int64(st, 8 + i);
	c->duration_s = sqlite3_column_double(st, 17);
	c->omit_s = sqlite3_column_double(st, 18);
	c->engine = sqlrow_dup(st, 19);
	/* axes of issue 17, in the case's params JSON only (NULL / 0 in older databases) */
	c->family = sqlrow_dup(st, 20);
	c->bind_client = sqlrow_dup(st, 21);
	c->bind_agent = sqlrow_dup(st, 22);
	c->dscp = sqlite3_column_int64(st, 23);
	c->zerocopy = sqlite3_column_int64(st, 24);
	c->amount = sqlite3_column_int64(st, 25);
	c->steady_s = sqlite3_column_double(st, 26);
	const unsigned char *rr = sqlite3_column_text(st, 27);
	c->rr = rr && *rr && strcmp((const char *)rr, "none") != 0;
	for (int f = 0; f < RP_NFIG; f++)
		c->fig[f] = (struct rp_stat){NAN, NAN, NAN, NAN, NAN, 0};
	return 0;
}

static int load_cases(sqlite3 *db, struct rp_data *d, struct ns_err *err)
{
	struct load_ctx x = {d, 0};
	return each_row(db,
			"SELECT id, case_key, ordinal, endpoint_id, protocol, direction, affinity, "
			"congestion, streams, threads, length, rate_bps, fq_rate_bps, window, mss, "
			"nodelay, gso, duration_s, omit_s, json_extract(params, '$.engine'), "
			"json_extract(params, '$.family'), "
			"json_extract(params, '$.bind_client'), json_extract(params, '$.bind_agent'), "
			"json_extract(params, '$.dscp'), json_extract(params, '$.zerocopy'), "
			"json_extract(params, '$.amount'), iif(json_extract(params, '$.until') = "
			"'sustained', json_extract(params, '$.steady'), 0), json_extract(params, '$.rr') "
			"FROM cases WHERE run_id = ?1 "
			"ORDER BY ordinal, id",
			d->run.id, case_row, &x, err);
}

static int cmp_case_id(const void *a, const void *b)
{
	long long x = ((const struct rp_case *)a)->id, y = ((const struct rp_case *)b)->id;
	return (x > y) - (x < y);
}

/* Reduces one case's accumulated per-repeat figures (vals[f * cap + i]) into its stats. */
static int reduce_case(struct rp_case *c, double *vals, size_t cap, int n_ok)
{
	double *tmp = malloc((n_ok ? (size_t)n_ok : 1) * sizeof(*tmp));
	c->goodput = malloc((n_ok ? (size_t)n_ok : 1) * sizeof(*c->goodput));
	if (!tmp || !c->goodput) {
		free(tmp);
		return -1;
	}
	/* Only repeats that reported a goodput enter the significance test. */
	for (int i = 0; i < n_ok; i++)
		if (!isnan(vals[RP_RCV_BPS * cap + (size_t)i]))
			c->goodput[c->fig[RP_RCV_BPS].n++] = vals[RP_RCV_BPS * cap + (size_t)i];
	for (int f = 0; f < RP_NFIG; f++) {
		size_t n = 0;
		for (int i = 0; i < n_ok; i++)
			if (!isnan(vals[(size_t)f * cap + (size_t)i]))
				tmp[n++] = vals[(size_t)f * cap + (size_t)i];
		struct rp_stat *s = &c->fig[f];
		s->n = (int)n;
		if (!n)
			continue;
		s->med = rp_median(tmp, n); /* sorts tmp */
		s->min = tmp[0];
		s->max = tmp[n - 1];
		s->q1 = rp_quantile(tmp, n, 0.25);
		s->q3 = rp_quantile(tmp, n, 0.75);
	}
	free(tmp);
	return 0;
}

/* Results in case order; each case's ok repeats are accumulated then reduced. */
static int load_results(sqlite3 *db, struct rp_data *d, struct ns_err *err)
{
	static const char *sql =
		"SELECT r.case_id, r.status, r.error, r.id, r.fwd_rcv_bps, r.fwd_snd_bps, "
		"r.fwd_rcv_pps, r.fwd_snd_pps, r.fwd_snd_cpu, r.fwd_rcv_cpu, r.fwd_retransmits, "
		"r.fwd_lost, r.fwd_lost_percent, r.fwd_kernel_drops, r.fwd_jitter_ms, r.fwd_rtt_ms, "
		"r.ret_rcv_bps, g.jain, g.min_of_fair, g.converge_s, r.fwd_snd_cpu_s_per_gb, "
		"r.fwd_rcv_cpu_s_per_gb, "
		"EXISTS (SELECT 1 FROM samples s WHERE s.result_id = r.id), g.clients, "
		/* the store says what starved is (v_group_fairness), the report does not again */
		"CASE WHEN g.result_id IS NOT NULL THEN (SELECT f.starved FROM v_group_fairness f "
		"WHERE f.result_id = r.id) END "
		"FROM results r LEFT JOIN group_results g ON g.result_id = r.id JOIN cases c ON c.id = r.case_id WHERE c.run_id = ? "
		"ORDER BY r.case_id, r.repeat";
	/* Cases sorted by id for lookup; restored to ordinal order afterwards. */
	if (d->n_cases) /* qsort must not see the NULL of an empty run */
		qsort(d->cases, d->n_cases, sizeof(*d->cases), cmp_case_id);
	sqlite3_stmt *st = NULL;
	size_t cap = 16;
	double *vals = malloc(RP_NFIG * cap * sizeof(*vals));
	if (!vals)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	if (rp_db_prep(db, sql, &st, err) < 0)
		goto err;
	sqlite3_bind_int64(st, 1, d->run.id);
	struct rp_case *cur = NULL;
	int n_ok = 0, rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long long cid = sqlite3_column_int64(st, 0);
		if (!cur || cur->id != cid) {
			if (cur && reduce_case(cur, vals, cap, n_ok) < 0)
				goto oom;
			struct rp_case key = {.id = cid};
			cur = bsearch(&key, d->cases, d->n_cases, sizeof(*d->cases), cmp_case_id);
			n_ok = 0;
			if (!cur)
				continue; /* cannot happen: the join keeps the run's cases */
		}
		cur->n_results++;
		if (sqlite3_column_type(st, 5 + RP_NFIG) != SQLITE_NULL) /* a group case's tests */
			cur->clients = sqlite3_column_int64(st, 5 + RP_NFIG);
		const unsigned char *status = sqlite3_column_text(st, 1);
		if (!status || strcmp((const char *)status, "ok") != 0) {
			if (!cur->first_error)
				cur->first_error = sqlrow_dup(st, 2);
			if (!cur->first_error)
				cur->first_error = strdup("failed (no error text)");
			continue;
		}
		if ((size_t)n_ok == cap) {
			double *n = malloc(RP_NFIG * cap * 2 * sizeof(*n));
			if (!n)
				goto oom;
			for (int f = 0; f < RP_NFIG; f++)
				memcpy(n + (size_t)f * cap * 2, vals + (size_t)f * cap, cap * sizeof(*n));
			free(vals);
			vals = n;
			cap *= 2;
		}
		for (int f = 0; f < RP_NFIG; f++)
			vals[(size_t)f * cap + (size_t)n_ok] = sqlrow_num(st, 4 + f);
		if (!cur->series_result_id && sqlite3_column_int(st, 4 + RP_NFIG))
			cur->series_result_id = sqlite3_column_int64(st, 3);
		if (sqlite3_column_int(st, 6 + RP_NFIG))
			cur->n_starved++;
		if (!cur->group_result_id && sqlite3_column_type(st, 5 + RP_NFIG) != SQLITE_NULL)
			cur->group_result_id = sqlite3_column_int64(st, 3);
		cur->n_ok = ++n_ok;
	}
	if (rc != SQLITE_DONE) {
		ns_err_code(err, NS_E_INPUT, "database: %s", sqlite3_errmsg(db));
		goto err;
	}
	if (cur && reduce_case(cur, vals, cap, n_ok) < 0)
		goto oom;
	sqlite3_finalize(st);
	free(vals);
	return 0;
oom:
	ns_err_code(err, NS_E_NOMEM, "out of memory");
err:
	sqlite3_finalize(st);
	free(vals);
	return -1;
}

static int cmp_case_ordinal(const void *a, const void *b)
{
	const struct rp_case *x = a, *y = b;
	if (x->ordinal != y->ordinal)
		return (x->ordinal > y->ordinal) - (x->ordinal < y->ordinal);
	return (x->id > y->id) - (x->id < y->id);
}

/* Per endpoint: the measured seconds of its successful results and, from store version 3
 * on, its instances' billed seconds (an older database has no v_endpoint_billed: unknown). */
static int load_endpoint_times(sqlite3 *db, struct rp_data *d, struct ns_err *err)
{
	sqlite3_stmt *st;
	for (size_t i = 0; i < d->n_eps; i++)
		d->eps[i].billed_s = NAN;
	/* a long-run case (until sustained) ran for its measured time, not its upper bound */
	if (rp_db_prep(db, "SELECT c.endpoint_id, sum(CASE WHEN json_extract(c.params, '$.until') ="
		 " 'sustained' THEN coalesce(r.duration_s, c.duration_s) ELSE c.duration_s END"
		 " + c.omit_s), count(*) FROM results r"
		 " JOIN cases c ON c.id = r.case_id WHERE c.run_id = ?1 AND r.status = 'ok'"
		 " GROUP BY 1", &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, d->run.id);
	while (sqlite3_step(st) == SQLITE_ROW)
		for (size_t i = 0; i < d->n_eps; i++)
			if (d->eps[i].id == sqlite3_column_int64(st, 0)) {
				d->eps[i].measured_s = sqlite3_column_double(st, 1);
				d->eps[i].ok_results = sqlite3_column_int64(st, 2);
			}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "SELECT endpoint_id, billed_s FROM v_endpoint_billed WHERE run_id = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, d->run.id);
	while (sqlite3_step(st) == SQLITE_ROW)
		for (size_t i = 0; i < d->n_eps; i++)
			if (d->eps[i].id == sqlite3_column_int64(st, 0))
				d->eps[i].billed_s = sqlrow_num(st, 1);
	sqlite3_finalize(st);
	return 0;
}

int rp_ep_usd(const struct rp_endpoint *e)
{
	return !e->currency || strcmp(e->currency, "USD") == 0;
}

const char *rp_data_price_word(const struct rp_data *d)
{
	for (size_t i = 0; i < d->n_eps; i++)
		if (!isnan(d->eps[i].usd_per_hour) && !rp_ep_usd(&d->eps[i]))
			return "a US-dollar price";
	return "a price";
}

void rp_data_recost(struct rp_data *d)
{
	d->run_cost_usd = NAN;
	d->results_without_price = 0;
	for (size_t i = 0; i < d->n_eps; i++) {
		const struct rp_endpoint *e = &d->eps[i];
		if (isnan(e->usd_per_hour) || !rp_ep_usd(e)) {
			d->results_without_price += e->ok_results;
			continue;
		}
		d->run_cost_usd = (isnan(d->run_cost_usd) ? 0 : d->run_cost_usd) +
				  cost_run_usd(e->usd_per_hour, e->measured_s);
	}
	rp_data_billed(d);
}

void rp_data_billed(struct rp_data *d)
{
	d->run_billed_usd = NAN;
	d->run_billed_s = 0;
	for (size_t i = 0; i < d->n_eps; i++) {
		const struct rp_endpoint *e = &d->eps[i];
		if (isnan(e->billed_s))
			continue;
		d->run_billed_s += e->billed_s;
		if (!isnan(e->usd_per_hour) && rp_ep_usd(e))
			d->run_billed_usd = (isnan(d->run_billed_usd) ? 0 : d->run_billed_usd) +
					    cost_run_usd(e->usd_per_hour, e->billed_s);
	}
}

int rp_data_load(sqlite3 *db, long long run_id, struct rp_data *d, struct ns_err *err)
{
	memset(d, 0, sizeof(*d));
	d->run_cost_usd = NAN;
	if (load_run(db, run_id, &d->run, err) < 0 || load_endpoints(db, d, err) < 0 ||
	    rp_lab_load(db, d, err) < 0 ||
	    load_cases(db, d, err) < 0)
		goto err;
	int rc = load_results(db, d, err);
	if (rc == 0)
		rc = rp_phases_load(db, d, err);
	if (rc == 0)
		rc = rp_provider_load(db, d, err);
	if (rc == 0)
		rc = rp_limits_load(db, d, err);
	if (d->n_cases)
		qsort(d->cases, d->n_cases, sizeof(*d->cases), cmp_case_ordinal);
	if (rc < 0)
		goto err;
	sqlite3_stmt *st;
	if (rp_db_prep(db, "SELECT usd, results_without_price FROM v_run_cost WHERE run_id = ?", &st,
		 err) < 0)
		goto err;
	sqlite3_bind_int64(st, 1, run_id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		d->run_cost_usd = sqlrow_num(st, 0);
		d->results_without_price = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (load_endpoint_times(db, d, err) < 0)
		goto err;
	rp_data_billed(d);
	double top = 0;
	for (size_t i = 0; i < d->n_cases; i++)
		for (int f = 0; f < RP_NFIG; f++)
			if ((f == RP_RCV_BPS || f == RP_SND_BPS || f == RP_RET_BPS) &&
			    d->cases[i].fig[f].max > top)
				top = d->cases[i].fig[f].max;
	d->unit = rp_unit_for(top);
	return 0;
err:
	rp_data_free(d);
	return -1;
}

static void host_free(struct rp_host *h)
{
	char *s[] = {h->hostname, h->kernel, h->os, h->cpu_model, h->ifname, h->driver,
		     h->driver_family, h->driver_version, h->qdisc, h->provider,
		     h->cloud_instance_type, h->cloud_region, h->cloud_az};
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		free(s[i]);
}

void rp_data_free(struct rp_data *d)
{
	struct rp_run *r = &d->run;
	char *s[] = {r->matrix_name, r->matrix_description, r->matrix_path, r->matrix_text,
		     r->matrix_hash, r->label, r->started_at, r->finished_at, r->netsweep_version,
		     r->runner_host, r->order_mode, r->status, r->warnings, r->rank_by};
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		free(s[i]);
	for (size_t i = 0; i < d->n_eps; i++) {
		struct rp_endpoint *e = &d->eps[i];
		char *es[] = {e->name, e->instance_type, e->region, e->agent_addr, e->client_host,
			      e->expected_driver, e->price_basis, e->price_as_of, e->price_source,
			      e->currency, e->pricing, e->price_window, e->provider, e->fx_currency};
		for (size_t j = 0; j < sizeof(es) / sizeof(es[0]); j++)
			free(es[j]);
		host_free(&e->client);
		host_free(&e->agent);
		free(e->lab_scale);
	}
	free(d->eps);
	for (size_t i = 0; i < d->n_cases; i++) {
		struct rp_case *c = &d->cases[i];
		free(c->case_key);
		free(c->protocol);
		free(c->direction);
		free(c->affinity);
		free(c->congestion);
		free(c->engine);
		free(c->family);
		free(c->bind_client);
		free(c->bind_agent);
		free(c->goodput);
		free(c->first_error);
		free(c->allowance_where);
		free(c->limit_cause);
		free(c->limited_by);
	}
	free(d->cases);
	memset(d, 0, sizeof(*d));
}

double rp_case_threads(const struct rp_data *d, const struct rp_case *c, int sender)
{
	if (c->threads > 0)
		return (double)c->threads;
	const struct rp_endpoint *e = &d->eps[c->ep];
	/* forward: the client sends; reverse: the agent does. */
	int client_sends = !c->direction || strcmp(c->direction, "reverse") != 0;
	const struct rp_host *h = (sender == client_sends) ? &e->client : &e->agent;
	long long t = c->streams;
	if (h->online_cpus > 0 && h->online_cpus < t)
		t = h->online_cpus;
	return t > 0 ? (double)t : 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int rp_trend_load(sqlite3 *db, const struct rp_data *d, const char *const *keys, size_t n_keys,
		  size_t n, struct rp_trend *t, struct ns_err *err)
{
	memset(t, 0, sizeof(*t));
	sqlite3_stmt *runs = NULL, *res = NULL;
	const char **sorted = NULL;
	double *acc = NULL;
	if (rp_db_prep(db,
		 "SELECT id, started_at, label FROM (SELECT p.id, p.started_at, p.label FROM runs p JOIN runs c "
		 "ON c.id = ?1 WHERE p.matrix_name = c.matrix_name AND (p.started_at < c.started_at "
		 "OR (p.started_at = c.started_at AND p.id <= c.id)) "
		 "ORDER BY p.started_at DESC, p.id DESC LIMIT ?2) ORDER BY started_at, id",
		 &runs, err) < 0)
		goto err;
	sqlite3_bind_int64(runs, 1, d->run.id);
	sqlite3_bind_int64(runs, 2, (sqlite3_int64)n);
	t->run_ids = calloc(n ? n : 1, sizeof(*t->run_ids));
	t->run_started = calloc(n ? n : 1, sizeof(*t->run_started));
	t->run_label = calloc(n ? n : 1, sizeof(*t->run_label));
	if (!t->run_ids || !t->run_started || !t->run_label)
		goto oom;
	while (t->n_runs < n && sqlite3_step(runs) == SQLITE_ROW) {
		t->run_ids[t->n_runs] = sqlite3_column_int64(runs, 0);
		t->run_label[t->n_runs] = sqlrow_dup(runs, 2);
		t->run_started[t->n_runs++] = sqlrow_dup(runs, 1);
	}
	t->n_keys = n_keys;
	t->vals = malloc((n_keys * t->n_runs + 1) * sizeof(*t->vals));
	sorted = malloc((n_keys + 1) * sizeof(*sorted));
	acc = malloc(4096 * sizeof(*acc));
	if (!t->vals || !sorted || !acc)
		goto oom;
	for (size_t i = 0; i < n_keys * t->n_runs; i++)
		t->vals[i] = NAN;
	memcpy(sorted, keys, n_keys * sizeof(*sorted));
	qsort(sorted, n_keys, sizeof(*sorted), cmp_str);
	if (rp_db_prep(db,
		 "SELECT c.case_key, r.fwd_rcv_bps FROM results r JOIN cases c ON c.id = r.case_id "
		 "WHERE c.run_id = ? AND r.status = 'ok' AND r.fwd_rcv_bps IS NOT NULL "
		 "ORDER BY c.case_key",
		 &res, err) < 0)
		goto err;
	for (size_t r = 0; r < t->n_runs; r++) {
		sqlite3_reset(res);
		sqlite3_bind_int64(res, 1, t->run_ids[r]);
		char *key = NULL;
		size_t na = 0;
		int more = 1;
		while (more) {
			more = sqlite3_step(res) == SQLITE_ROW;
			const char *k = more ? (const char *)sqlite3_column_text(res, 0) : NULL;
			if (key && (!k || strcmp(k, key) != 0)) {
				const char **hit = bsearch(&key, sorted, n_keys, sizeof(*sorted), cmp_str);
				if (hit) {
					/* vals is indexed by the caller's key order */
					for (size_t i = 0; i < n_keys; i++)
						if (keys[i] == *hit)
							t->vals[i * t->n_runs + r] = rp_median(acc, na);
				}
				free(key);
				key = NULL;
				na = 0;
			}
			if (!more)
				break;
			if (!key && !(key = strdup(k ? k : "")))
				goto oom;
			if (na < 4096)
				acc[na++] = sqlite3_column_double(res, 1);
		}
	}
	sqlite3_finalize(runs);
	sqlite3_finalize(res);
	free(sorted);
	free(acc);
	return 0;
oom:
	ns_err_code(err, NS_E_NOMEM, "out of memory");
err:
	sqlite3_finalize(runs);
	sqlite3_finalize(res);
	free(sorted);
	free(acc);
	rp_trend_free(t);
	return -1;
}

void rp_trend_free(struct rp_trend *t)
{
	for (size_t i = 0; i < t->n_runs && t->run_started; i++)
		free(t->run_started[i]);
	for (size_t i = 0; i < t->n_runs && t->run_label; i++)
		free(t->run_label[i]);
	free(t->run_started);
	free(t->run_label);
	free(t->run_ids);
	free(t->vals);
	memset(t, 0, sizeof(*t));
}

/* Rows of (repeat or client, t_end, bps) from a statement bound to one id. */
static int series_rows(sqlite3 *db, const char *sql, long long id, struct rp_series *s,
		       struct ns_err *err)
{
	memset(s, 0, sizeof(*s));
	sqlite3_stmt *st;
	if (rp_db_prep(db, sql, &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	size_t cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (s->n == cap) {
			cap = cap ? cap * 2 : 256;
			int *rep = realloc(s->repeat, cap * sizeof(*rep));
			if (rep)
				s->repeat = rep;
			double *te = realloc(s->t_end, cap * sizeof(*te));
			if (te)
				s->t_end = te;
			double *b = realloc(s->bps, cap * sizeof(*b));
			if (b)
				s->bps = b;
			if (!rep || !te || !b) {
				sqlite3_finalize(st);
				rp_series_free(s);
				return ns_err_code(err, NS_E_NOMEM, "out of memory");
			}
		}
		s->repeat[s->n] = sqlite3_column_int(st, 0);
		s->t_end[s->n] = sqlite3_column_double(st, 1);
		s->bps[s->n++] = sqlite3_column_double(st, 2);
	}
	sqlite3_finalize(st);
	return 0;
}

int rp_series_load(sqlite3 *db, long long case_id, struct rp_series *s, struct ns_err *err)
{
	return series_rows(db,
		 "SELECT r.repeat, s.t_end, s.bps FROM results r JOIN samples s ON s.result_id = r.id "
		 "WHERE r.case_id = ? AND r.status = 'ok' AND s.direction = 'fwd' AND s.stream = -1 "
		 "ORDER BY r.repeat, s.t_start", case_id, s, err);
}

int rp_group_series_load(sqlite3 *db, long long result_id, struct rp_series *s,
			 struct ns_err *err)
{
	return series_rows(db, "SELECT client, t_end, bps FROM group_samples WHERE result_id = ? "
			   "ORDER BY client, t_start", result_id, s, err);
}

int rp_group_names_load(sqlite3 *db, long long result_id, char ***names, size_t *n,
			struct ns_err *err)
{
	*names = NULL;
	*n = 0;
	sqlite3_stmt *st;
	if (rp_db_prep(db, "SELECT client, name FROM group_clients WHERE result_id = ?1 AND "
		       "client BETWEEN 0 AND 4095 ORDER BY client", &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, result_id);
	int rc = 0;
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		size_t k = (size_t)sqlite3_column_int(st, 0);
		if (k >= *n) {
			char **nv = realloc(*names, (k + 1) * sizeof(*nv));
			if (!nv) {
				rc = -1;
				break;
			}
			memset(nv + *n, 0, (k + 1 - *n) * sizeof(*nv));
			*names = nv;
			*n = k + 1;
		}
		const unsigned char *t = sqlite3_column_text(st, 1);
		free((*names)[k]);
		if (t && !((*names)[k] = strdup((const char *)t)))
			rc = -1;
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		rp_names_free(*names, *n);
		*names = NULL;
		*n = 0;
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	}
	return 0;
}

void rp_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

void rp_series_free(struct rp_series *s)
{
	free(s->repeat);
	free(s->t_end);
	free(s->bps);
	memset(s, 0, sizeof(*s));
}
