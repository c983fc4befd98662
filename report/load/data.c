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
	static const char *const names[] = {"id", "matrix_name", "matrix_description",
		"matrix_path", "matrix_text", "matrix_hash", "label", "started_at", "finished_at",
		"netsweep_version", "runner_host", "order_mode", "status", "warnings", "seed",
		"repeats"};
	int col[16];
	if (sqlrow_cols(st, names, 16, col, err) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return ns_err_code(err, NS_E_INPUT, "run %lld: no such run in the database", id);
	}
	r->id = sqlite3_column_int64(st, col[0]);
	char **s[] = {&r->matrix_name, &r->matrix_description, &r->matrix_path, &r->matrix_text,
		      &r->matrix_hash, &r->label, &r->started_at, &r->finished_at,
		      &r->netsweep_version, &r->runner_host, &r->order_mode, &r->status,
		      &r->warnings};
	for (int i = 0; i < 13; i++)
		*s[i] = sqlrow_dup(st, col[i + 1]);
	r->has_seed = sqlite3_column_type(st, col[14]) != SQLITE_NULL;
	r->seed = sqlite3_column_int64(st, col[14]);
	r->repeats = sqlite3_column_int64(st, col[15]);
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

/* One hostinfo side from its 17 columns, col[] their indexes (HOST_COLS' order). */
static void host_read(sqlite3_stmt *st, const int *col, struct rp_host *h)
{
	char **s[] = {&h->hostname, &h->kernel, &h->os, &h->cpu_model, &h->ifname, &h->driver,
		      &h->driver_family, &h->driver_version, &h->qdisc, &h->provider,
		      &h->cloud_instance_type, &h->cloud_region, &h->cloud_az};
	h->present = sqlite3_column_type(st, col[0]) != SQLITE_NULL;
	for (int i = 0; i < 13; i++)
		*s[i] = sqlrow_dup(st, col[1 + i]);
	h->online_cpus = sqlite3_column_int64(st, col[14]);
	h->mtu = sqlite3_column_int64(st, col[15]);
	h->speed_mbps = sqlite3_column_int64(st, col[16]);
}

/* Column list of one hostinfo side, each named P + its key; X is client_info or agent_info,
 * P "c_" or "a_". 17 columns, named as HOST_COLS(P) lists them. */
#define HOST_SQL(X, P) \
	X " AS " P "info, json_extract(" X ", '$.hostname') AS " P "hostname, " \
	"json_extract(" X ", '$.kernel') AS " P "kernel, json_extract(" X ", '$.os') AS " P "os, " \
	"json_extract(" X ", '$.cpu_model') AS " P "cpu_model, " \
	"json_extract(" X ", '$.interface.name') AS " P "ifname, " \
	"json_extract(" X ", '$.interface.driver') AS " P "driver, " \
	"json_extract(" X ", '$.interface.driver_family') AS " P "driver_family, " \
	"json_extract(" X ", '$.interface.driver_version') AS " P "driver_version, " \
	"json_extract(" X ", '$.interface.qdisc') AS " P "qdisc, " \
	"json_extract(" X ", '$.cloud.provider') AS " P "provider, " \
	"json_extract(" X ", '$.cloud.instance_type') AS " P "instance_type, " \
	"json_extract(" X ", '$.cloud.region') AS " P "region, " \
	"json_extract(" X ", '$.cloud.availability_zone') AS " P "az, " \
	"json_extract(" X ", '$.online_cpus') AS " P "online_cpus, " \
	"json_extract(" X ", '$.interface.mtu') AS " P "mtu, " \
	"json_extract(" X ", '$.interface.speed_mbps') AS " P "speed_mbps"
#define HOST_COLS(P) P "info", P "hostname", P "kernel", P "os", P "cpu_model", P "ifname", \
	P "driver", P "driver_family", P "driver_version", P "qdisc", P "provider", \
	P "instance_type", P "region", P "az", P "online_cpus", P "mtu", P "speed_mbps"

/* Runs sql with ?1 bound to id and calls row() for each result row; row returns -1 to stop
 * with its error set (out of memory). */
struct load_ctx {
	struct rp_data *d;
	size_t cap;                  /* of the array being grown */
	int col[48];                 /* the statement's columns by the reader's names */
};

static int each_row(sqlite3 *db, const char *sql, long long id, const char *const *names,
		    size_t n_names, int (*row)(sqlite3_stmt *st, struct load_ctx *x),
		    struct load_ctx *x, struct ns_err *err)
{
	sqlite3_stmt *st;
	if (rp_db_prep(db, sql, &st, err) < 0)
		return -1;
	if (n_names > sizeof(x->col) / sizeof(x->col[0]) ||
	    sqlrow_cols(st, names, n_names, x->col, err) < 0) {
		sqlite3_finalize(st);
		return n_names > sizeof(x->col) / sizeof(x->col[0])
			       ? ns_err_code(err, NS_E_FAIL, "internal: too many columns") : -1;
	}
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
	const int *c = x->col;
	e->id = sqlite3_column_int64(st, c[0]);
	char **s[] = {&e->name, &e->instance_type, &e->region, &e->agent_addr, &e->client_host,
		      &e->expected_driver, &e->price_basis};
	for (int i = 0; i < 7; i++)
		*s[i] = sqlrow_dup(st, c[1 + i]);
	e->link_bps = sqlite3_column_int64(st, c[8]);
	e->usd_per_hour = sqlrow_num(st, c[9]);
	e->unit_usd_per_hour = sqlrow_num(st, c[10]);
	e->price_as_of = sqlrow_dup(st, c[11]);
	e->price_source = sqlrow_dup(st, c[12]);
	e->od_per_hour = e->usd_per_hour;
	e->spot_per_hour = NAN;
	host_read(st, c + 13, &e->client);
	host_read(st, c + 13 + 17, &e->agent);
	return 0;
}

static int load_endpoints(sqlite3 *db, struct rp_data *d, struct ns_err *err)
{
	static const char *const names[] = {"id", "name", "instance_type", "region",
		"agent_addr", "client_host", "expected_driver", "price_basis", "link_bps",
		"usd_per_hour", "unit_usd_per_hour", "as_of", "source", HOST_COLS("c_"),
		HOST_COLS("a_")};
	struct load_ctx x = {d, 0, {0}};
	return each_row(db,
			"SELECT e.id, e.name, e.instance_type, e.region, e.agent_addr, e.client_host, "
			"e.expected_driver, e.price_basis, e.link_bps, p.usd_per_hour, "
			"p.unit_usd_per_hour, p.as_of, p.source, " HOST_SQL("e.client_info", "c_") ", "
			HOST_SQL("e.agent_info", "a_")
			" FROM endpoints e JOIN v_endpoint_prices p ON p.endpoint_id = e.id "
			"WHERE e.run_id = ?1 ORDER BY e.id",
			d->run.id, names, sizeof(names) / sizeof(names[0]), endpoint_row, &x, err);
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
	const int *k = x->col;
	c->id = sqlite3_column_int64(st, k[0]);
	c->case_key = sqlrow_dup(st, k[1]);
	c->ordinal = sqlite3_column_int(st, k[2]);
	c->ep = ep_index(d, sqlite3_column_int64(st, k[3]));
	c->protocol = sqlrow_dup(st, k[4]);
	c->direction = sqlrow_dup(st, k[5]);
	c->affinity = sqlrow_dup(st, k[6]);
	c->congestion = sqlrow_dup(st, k[7]);
	long long *n[] = {&c->streams, &c->threads, &c->length, &c->rate_bps, &c->fq_rate_bps,
			  &c->window, &c->mss, &c->nodelay, &c->gso};
	for (int i = 0; i < 9; i++)
		*n[i] = sqlite3_column_int64(st, k[8 + i]);
	c->duration_s = sqlite3_column_double(st, k[17]);
	c->omit_s = sqlite3_column_double(st, k[18]);
	c->engine = sqlrow_dup(st, k[19]);
	/* axes of issue 17, in the case's params JSON only (NULL / 0 in older databases) */
	c->family = sqlrow_dup(st, k[20]);
	c->bind_client = sqlrow_dup(st, k[21]);
	c->bind_agent = sqlrow_dup(st, k[22]);
	c->dscp = sqlite3_column_int64(st, k[23]);
	c->zerocopy = sqlite3_column_int64(st, k[24]);
	c->amount = sqlite3_column_int64(st, k[25]);
	c->steady_s = sqlite3_column_double(st, k[26]);
	const unsigned char *rr = sqlite3_column_text(st, k[27]);
	c->rr = rr && *rr && strcmp((const char *)rr, "none") != 0;
	for (int f = 0; f < RP_NFIG; f++)
		c->fig[f] = (struct rp_stat){NAN, NAN, NAN, NAN, NAN, 0};
	return 0;
}

static int load_cases(sqlite3 *db, struct rp_data *d, struct ns_err *err)
{
	static const char *const names[] = {"id", "case_key", "ordinal", "endpoint_id",
		"protocol", "direction", "affinity", "congestion", "streams", "threads", "length",
		"rate_bps", "fq_rate_bps", "window", "mss", "nodelay", "gso", "duration_s", "omit_s",
		"engine", "family", "bind_client", "bind_agent", "dscp", "zerocopy", "amount",
		"steady_s", "rr"};
	struct load_ctx x = {d, 0, {0}};
	return each_row(db,
			"SELECT id, case_key, ordinal, endpoint_id, protocol, direction, affinity, "
			"congestion, streams, threads, length, rate_bps, fq_rate_bps, window, mss, "
			"nodelay, gso, duration_s, omit_s, json_extract(params, '$.engine') AS engine, "
			"json_extract(params, '$.family') AS family, "
			"json_extract(params, '$.bind_client') AS bind_client, "
			"json_extract(params, '$.bind_agent') AS bind_agent, "
			"json_extract(params, '$.dscp') AS dscp, "
			"json_extract(params, '$.zerocopy') AS zerocopy, "
			"json_extract(params, '$.amount') AS amount, iif(json_extract(params, '$.until') = "
			"'sustained', json_extract(params, '$.steady'), 0) AS steady_s, "
			"json_extract(params, '$.rr') AS rr "
			"FROM cases WHERE run_id = ?1 "
			"ORDER BY ordinal, id",
			d->run.id, names, sizeof(names) / sizeof(names[0]), case_row, &x, err);
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
		"SELECT r.case_id, r.status, r.error, r.id AS result_id, r.fwd_rcv_bps, r.fwd_snd_bps, "
		"r.fwd_rcv_pps, r.fwd_snd_pps, r.fwd_snd_cpu, r.fwd_rcv_cpu, r.fwd_retransmits, "
		"r.fwd_lost, r.fwd_lost_percent, r.fwd_kernel_drops, r.fwd_jitter_ms, r.fwd_rtt_ms, "
		"r.ret_rcv_bps, g.jain, g.min_of_fair, g.converge_s, r.fwd_snd_cpu_s_per_gb, "
		"r.fwd_rcv_cpu_s_per_gb, "
		"EXISTS (SELECT 1 FROM samples s WHERE s.result_id = r.id) AS has_samples, "
		"g.clients AS clients, "
		/* the store says what starved is (v_group_fairness), the report does not again */
		"CASE WHEN g.result_id IS NOT NULL THEN (SELECT f.starved FROM v_group_fairness f "
		"WHERE f.result_id = r.id) END AS starved "
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
	/* by name: the figures in enum rp_fig's order, then the rest */
	static const char *const names[] = {"fwd_rcv_bps", "fwd_snd_bps", "fwd_rcv_pps",
		"fwd_snd_pps", "fwd_snd_cpu", "fwd_rcv_cpu", "fwd_retransmits", "fwd_lost",
		"fwd_lost_percent", "fwd_kernel_drops", "fwd_jitter_ms", "fwd_rtt_ms", "ret_rcv_bps",
		"jain", "min_of_fair", "converge_s", "fwd_snd_cpu_s_per_gb", "fwd_rcv_cpu_s_per_gb",
		"case_id", "status", "error", "result_id", "has_samples", "clients", "starved"};
	_Static_assert(sizeof(names) / sizeof(names[0]) == RP_NFIG + 7, "a column per figure");
	enum { C_CASE = RP_NFIG, C_STATUS, C_ERROR, C_RESULT, C_SAMPLES, C_CLIENTS, C_STARVED };
	int col[RP_NFIG + 7];
	if (rp_db_prep(db, sql, &st, err) < 0 ||
	    sqlrow_cols(st, names, sizeof(names) / sizeof(names[0]), col, err) < 0)
		goto err;
	sqlite3_bind_int64(st, 1, d->run.id);
	struct rp_case *cur = NULL;
	int n_ok = 0, rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long long cid = sqlite3_column_int64(st, col[C_CASE]);
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
		if (sqlite3_column_type(st, col[C_CLIENTS]) != SQLITE_NULL) /* a group case's tests */
			cur->clients = sqlite3_column_int64(st, col[C_CLIENTS]);
		const unsigned char *status = sqlite3_column_text(st, col[C_STATUS]);
		if (!status || strcmp((const char *)status, "ok") != 0) {
			if (!cur->first_error)
				cur->first_error = sqlrow_dup(st, col[C_ERROR]);
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
			vals[(size_t)f * cap + (size_t)n_ok] = sqlrow_num(st, col[f]);
		if (!cur->series_result_id && sqlite3_column_int(st, col[C_SAMPLES]))
			cur->series_result_id = sqlite3_column_int64(st, col[C_RESULT]);
		if (sqlite3_column_int(st, col[C_STARVED]))
			cur->n_starved++;
		if (!cur->group_result_id && sqlite3_column_type(st, col[C_CLIENTS]) != SQLITE_NULL)
			cur->group_result_id = sqlite3_column_int64(st, col[C_RESULT]);
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
	static const char *const names[] = {"endpoint_id", "measured_s", "ok_results"};
	int col[3];
	if (rp_db_prep(db, "SELECT c.endpoint_id, sum(CASE WHEN json_extract(c.params, '$.until') ="
		 " 'sustained' THEN coalesce(r.duration_s, c.duration_s) ELSE c.duration_s END"
		 " + c.omit_s) AS measured_s, count(*) AS ok_results FROM results r"
		 " JOIN cases c ON c.id = r.case_id WHERE c.run_id = ?1 AND r.status = 'ok'"
		 " GROUP BY 1", &st, err) < 0)
		return -1;
	if (sqlrow_cols(st, names, 3, col, err) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_bind_int64(st, 1, d->run.id);
	while (sqlite3_step(st) == SQLITE_ROW)
		for (size_t i = 0; i < d->n_eps; i++)
			if (d->eps[i].id == sqlite3_column_int64(st, col[0])) {
				d->eps[i].measured_s = sqlite3_column_double(st, col[1]);
				d->eps[i].ok_results = sqlite3_column_int64(st, col[2]);
			}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "SELECT endpoint_id, billed_s FROM v_endpoint_billed WHERE run_id = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	static const char *const billed[] = {"endpoint_id", "billed_s"};
	if (sqlrow_cols(st, billed, 2, col, err) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_bind_int64(st, 1, d->run.id);
	while (sqlite3_step(st) == SQLITE_ROW)
		for (size_t i = 0; i < d->n_eps; i++)
			if (d->eps[i].id == sqlite3_column_int64(st, col[0]))
				d->eps[i].billed_s = sqlrow_num(st, col[1]);
	sqlite3_finalize(st);
	return 0;
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

/* Rows of (repeat: the repeat or the client, t_end, bps) from a statement bound to one id. */
static int series_rows(sqlite3 *db, const char *sql, long long id, struct rp_series *s,
		       struct ns_err *err)
{
	memset(s, 0, sizeof(*s));
	sqlite3_stmt *st;
	static const char *const names[] = {"repeat", "t_end", "bps"};
	int col[3];
	if (rp_db_prep(db, sql, &st, err) < 0)
		return -1;
	if (sqlrow_cols(st, names, 3, col, err) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
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
		s->repeat[s->n] = sqlite3_column_int(st, col[0]);
		s->t_end[s->n] = sqlite3_column_double(st, col[1]);
		s->bps[s->n++] = sqlite3_column_double(st, col[2]);
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
	return series_rows(db, "SELECT client AS repeat, t_end, bps FROM group_samples WHERE result_id = ? "
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
