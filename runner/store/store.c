#include "store.h"
#include "store_int.h"
#include "store_group.h"
#include "store_limit.h"
#include "store_nic.h"
#include "store_latency.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include <sqlite3.h>
#include <stdbool.h>

#include "lib/sql/sqlrow.h"
#include "lib/sql/store_schema.h"

enum {
	ST_RUN_INSERT, ST_RUN_FIND, ST_RUN_FIND_ANY, ST_RUN_STATUS, ST_EP_INSERT, ST_EP_UPDATE, ST_CASE_INSERT,
	ST_CASE_FIND, ST_DONE, ST_DONE_OK, ST_EP_EMULATION, ST_EP_ENDS, ST_RESULT_FAILED_DROP, ST_RESULT_INSERT, ST_SAMPLE_CLEAR, ST_SAMPLE_INSERT,
	ST_SEARCH_INSERT, ST_RESULT_TRUTH, ST_PHASE_INSERT,
	ST_COUNT
};

static const char *const sql_text[ST_COUNT] = {
	[ST_RUN_INSERT] =
	"INSERT INTO runs (matrix_name, matrix_description, matrix_path, matrix_text, matrix_hash,"
	" label, started_at, netsweep_version, runner_host, order_mode, seed, repeats, status)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 'running')",
	[ST_RUN_FIND] =
	/* The newest run of the matrix, and only if it did not finish: an older unfinished run
	 * behind a newer finished one is history, not work left. */
	"SELECT id, seed FROM (SELECT id, seed, status FROM runs WHERE matrix_hash = ?1"
	" ORDER BY started_at DESC, id DESC LIMIT 1) WHERE status <> 'done'",
	[ST_RUN_FIND_ANY] =
	"SELECT id, seed FROM runs WHERE matrix_hash = ?1 ORDER BY started_at DESC, id DESC LIMIT 1",
	[ST_RUN_STATUS] =
	"UPDATE runs SET status = ?2, finished_at = ?3, warnings = coalesce(?4, warnings)"
	" WHERE id = ?1",
	[ST_EP_INSERT] =
	"INSERT INTO endpoints (run_id, name, instance_type, region, client_host, agent_addr,"
	" expected_driver, price_basis, link_bps, client_info, agent_info, zone, client_zone,"
	" client_region, agent_zone, agent_region, relation)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,"
	" coalesce(?17, 'unknown'))"
	" ON CONFLICT (run_id, name) DO UPDATE SET agent_addr = excluded.agent_addr,"
	" client_info = coalesce(excluded.client_info, client_info),"
	" agent_info = coalesce(excluded.agent_info, agent_info)",
	[ST_EP_UPDATE] = "SELECT id FROM endpoints WHERE run_id = ?1 AND name = ?2",
	[ST_EP_EMULATION] =
	"INSERT OR REPLACE INTO endpoint_emulation (endpoint_id, emulation) VALUES (?1, ?2)",
	[ST_EP_ENDS] =
	"INSERT OR REPLACE INTO endpoint_ends (endpoint_id, mesh, client_name, agent_name,"
	" client_zone, agent_zone) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[ST_CASE_INSERT] =
	"INSERT INTO cases (run_id, endpoint_id, case_key, ordinal, protocol, streams, threads,"
	" length, rate_bps, fq_rate_bps, direction, duration_s, omit_s, affinity, window, mss,"
	" nodelay, congestion, gso, params)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,"
	" ?19, ?20) ON CONFLICT (run_id, case_key) DO NOTHING",
	[ST_CASE_FIND] = "SELECT id FROM cases WHERE run_id = ?1 AND case_key = ?2",
	[ST_DONE] =
	"SELECT c.case_key, r.repeat FROM results r JOIN cases c ON c.id = r.case_id"
	" WHERE c.run_id = ?1",
	[ST_DONE_OK] =
	"SELECT c.case_key, r.repeat FROM results r JOIN cases c ON c.id = r.case_id"
	" WHERE c.run_id = ?1 AND r.status = 'ok'",
	[ST_RESULT_FAILED_DROP] =
	"DELETE FROM results WHERE case_id = ?1 AND repeat = ?2 AND status = 'failed'",
	[ST_RESULT_INSERT] =
	"INSERT INTO results (case_id, repeat, started_at, finished_at, status, error, warnings,"
	" duration_s, gso_active,"
	" fwd_snd_bytes, fwd_snd_bps, fwd_snd_packets, fwd_snd_pps, fwd_snd_cpu,"
	" fwd_rcv_bytes, fwd_rcv_bps, fwd_rcv_packets, fwd_rcv_pps, fwd_rcv_cpu,"
	" fwd_retransmits, fwd_rtt_ms, fwd_cwnd_bytes, fwd_lost, fwd_lost_percent,"
	" fwd_out_of_order, fwd_duplicates, fwd_jitter_ms, fwd_kernel_drops,"
	" ret_snd_bps, ret_rcv_bps, ret_snd_pps, ret_rcv_pps, ret_retransmits, ret_lost_percent,"
	" probe_json, fwd_rtt_min_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
	" ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29,"
	" ?30, ?31, ?32, ?33, ?34, ?35, ?36)",
	/* results ids can be reused (INTEGER PRIMARY KEY): samples a manual DELETE left behind
	 * (sqlite3 shell, foreign keys off) must not collide with the new result's. */
	[ST_SAMPLE_CLEAR] = "DELETE FROM samples WHERE result_id = ?1",
	[ST_SAMPLE_INSERT] =
	"INSERT INTO samples (result_id, direction, stream, t_start, t_end, bytes, bps, packets,"
	" retransmits, cwnd_bytes, rtt_ms, lost, jitter_ms)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
	[ST_SEARCH_INSERT] =
	"INSERT OR REPLACE INTO searches (result_id, search_json) VALUES (?1, ?2)",
	[ST_RESULT_TRUTH] = "UPDATE results SET fwd_socket_drops = ?2 WHERE id = ?1",
	[ST_PHASE_INSERT] =
	"INSERT OR REPLACE INTO result_phases (result_id, direction, burst_bps, burst_s,"
	" sustained_bps) VALUES (?1, ?2, ?3, ?4, ?5)",
};

struct store {
	sqlite3 *db;
	sqlite3_stmt *st[ST_COUNT];
	pthread_mutex_t lock;
};

static int db_err(struct store *s, struct ns_err *err, const char *what)
{
	return store_sql_err(s->db, err, what);
}

/* A prepared statement, reset and unbound, ready for new values (prepared on first use). */
static sqlite3_stmt *stmt(struct store *s, int id, struct ns_err *err)
{
	if (!s->st[id] && sqlite3_prepare_v2(s->db, sql_text[id], -1, &s->st[id], NULL) != SQLITE_OK) {
		db_err(s, err, "prepare");
		return NULL;
	}
	sqlite3_reset(s->st[id]);
	sqlite3_clear_bindings(s->st[id]);
	return s->st[id];
}

/* PRAGMA journal_mode takes the database's exclusive lock and answers SQLITE_BUSY at once,
 * without the busy handler, while another connection holds any lock: retried here for as
 * long as the busy timeout would have waited. */
static int set_wal(struct store *s, struct ns_err *err)
{
	for (int waited_ms = 0;; waited_ms += 20) {
		char *msg = NULL;
		int rc = sqlite3_exec(s->db, "PRAGMA journal_mode = WAL", NULL, NULL, &msg);
		sqlite3_free(msg);
		if (rc == SQLITE_OK)
			return 0;
		if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
			return db_err(s, err, "switching to WAL");
		if (waited_ms >= STORE_BUSY_MS)
			return ns_err_code(err, NS_E_BUSY, "database: locked by another process for %d s "
					   "(switching to WAL)", STORE_BUSY_MS / 1000);
		sqlite3_sleep(20);
	}
}

struct store *store_open(const char *path, struct ns_err *err)
{
	struct store *s = calloc(1, sizeof(*s));
	if (!s) {
		ns_err_code(err, NS_E_NOMEM, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				  SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK) {
		ns_err_code(err, s->db ? store_sql_code(s->db) : NS_E_NOMEM, "%s: %s", path,
			    s->db ? sqlite3_errmsg(s->db) : "cannot open");
		goto err;
	}
	sqlite3_busy_timeout(s->db, STORE_BUSY_MS);
	/* The version first: a newer database must not even be switched to WAL. */
	int v = ns_store_user_version(s->db);
	if (v < 0) {
		ns_err_code(err, NS_E_INPUT, "%s: cannot read the schema version (%s)", path,
			    sqlite3_errmsg(s->db));
		goto err;
	}
	if (v > STORE_SCHEMA_VERSION) {
		ns_err_code(err, NS_E_INPUT, "%s: schema version %d is newer than this netsweep's (%d): "
			    "left as it was; use a newer netsweep", path, v, STORE_SCHEMA_VERSION);
		goto err;
	}
	if (set_wal(s, err) < 0 || ns_store_exec(s->db, "PRAGMA foreign_keys = ON", err) < 0 ||
	    ns_store_migrate(s->db, err) < 0) {
		ns_err_prefix(err, "%s", path);
		goto err;
	}
	return s;
err:
	store_close(s);
	return NULL;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(s->st[i]);
	sqlite3_close(s->db);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

sqlite3 *store_db(struct store *s)
{
	return s->db;
}

void store_lock(struct store *s)
{
	pthread_mutex_lock(&s->lock);
}

void store_unlock(struct store *s)
{
	pthread_mutex_unlock(&s->lock);
}

int store_schema_version(struct store *s)
{
	pthread_mutex_lock(&s->lock);
	int v = ns_store_user_version(s->db);
	pthread_mutex_unlock(&s->lock);
	return v;
}

void store_now(char buf[32])
{
	struct timeval tv;
	struct tm tm;
	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	size_t n = strftime(buf, 24, "%Y-%m-%dT%H:%M:%S", &tm);
	int ms = (int)(tv.tv_usec / 1000);
	buf[n] = '.';
	buf[n + 1] = (char)('0' + ms / 100);
	buf[n + 2] = (char)('0' + ms / 10 % 10);
	buf[n + 3] = (char)('0' + ms % 10);
	buf[n + 4] = 'Z';
	buf[n + 5] = '\0';
}

static int step_done(struct store *s, sqlite3_stmt *st, struct ns_err *err, const char *what)
{
	return store_sql_step_done(s->db, st, err, what);
}

/* The matrix's rank-by rule, beside the run (table run_rank, version 7). */
static int run_rank_insert(struct store *s, int64_t run_id, const char *rank_by,
			   struct ns_err *err)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(s->db, "INSERT INTO run_rank (run_id, rank_by) VALUES (?1, ?2)",
			       -1, &st, NULL) != SQLITE_OK)
		return db_err(s, err, "recording the run's rank-by rule");
	sqlite3_bind_int64(st, 1, run_id);
	sqlrow_bind_text(st, 2, rank_by);
	int rc = step_done(s, st, err, "recording the run's rank-by rule");
	sqlite3_finalize(st);
	return rc;
}

/* The matrix's pricing attribute ("spot", "reserved:1yr"), beside the run (version 12). */
static int run_pricing_insert(struct store *s, int64_t run_id, const char *pricing,
			      struct ns_err *err)
{
	sqlite3_stmt *st = NULL;
	const char *colon = strchr(pricing, ':');
	if (sqlite3_prepare_v2(s->db, "INSERT INTO run_pricing (run_id, pricing, term)"
			       " VALUES (?1, ?2, ?3)", -1, &st, NULL) != SQLITE_OK)
		return db_err(s, err, "recording the run's pricing");
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, pricing, colon ? (int)(colon - pricing) : -1, SQLITE_TRANSIENT);
	sqlrow_bind_text(st, 3, colon ? colon + 1 : "");
	int rc = step_done(s, st, err, "recording the run's pricing");
	sqlite3_finalize(st);
	return rc;
}

int store_run_create(struct store *s, const struct store_run *r, int64_t *run_id,
		     struct ns_err *err)
{
	char now[32];
	int rc = -1;
	store_now(now);
	pthread_mutex_lock(&s->lock);
	sqlite3_stmt *st = stmt(s, ST_RUN_INSERT, err);
	if (!st)
		goto out;
	sqlrow_bind_text(st, 1, r->matrix_name);
	sqlrow_bind_text(st, 2, r->description);
	sqlrow_bind_text(st, 3, r->matrix_path);
	sqlrow_bind_text(st, 4, r->matrix_text);
	sqlrow_bind_text(st, 5, r->matrix_hash);
	sqlrow_bind_text(st, 6, r->label);
	sqlrow_bind_text(st, 7, now);
	sqlrow_bind_text(st, 8, r->version);
	sqlrow_bind_text(st, 9, r->runner_host);
	sqlrow_bind_text(st, 10, r->order);
	if (r->has_seed)
		sqlite3_bind_int64(st, 11, r->seed);
	sqlite3_bind_int64(st, 12, r->repeats);
	if (step_done(s, st, err, "recording the run") < 0)
		goto out;
	*run_id = sqlite3_last_insert_rowid(s->db);
	if (r->rank_by && run_rank_insert(s, *run_id, r->rank_by, err) < 0)
		goto out;
	if (r->pricing && run_pricing_insert(s, *run_id, r->pricing, err) < 0)
		goto out;
	rc = 0;
out:
	pthread_mutex_unlock(&s->lock);
	return rc;
}

static int find_run(struct store *s, int which, const char *hash, int64_t *run_id, int64_t *seed,
		    struct ns_err *err)
{
	int rc = -1;
	pthread_mutex_lock(&s->lock);
	sqlite3_stmt *st = stmt(s, which, err);
	if (!st)
		goto out;
	sqlrow_bind_text(st, 1, hash);
	int step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		*run_id = sqlite3_column_int64(st, 0);
		if (seed)
			*seed = sqlite3_column_int64(st, 1);
		rc = 1;
	} else if (step == SQLITE_DONE) {
		rc = 0;
	} else {
		db_err(s, err, "finding a run to resume");
	}
	sqlite3_reset(st);
out:
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int store_run_find_unfinished(struct store *s, const char *hash, int64_t *run_id, int64_t *seed,
			      struct ns_err *err)
{
	return find_run(s, ST_RUN_FIND, hash, run_id, seed, err);
}

int store_run_find_latest(struct store *s, const char *hash, int64_t *run_id, int64_t *seed,
			  struct ns_err *err)
{
	return find_run(s, ST_RUN_FIND_ANY, hash, run_id, seed, err);
}

int store_run_set_status(struct store *s, int64_t run_id, const char *status,
			 const char *warnings_json, struct ns_err *err)
{
	char now[32];
	int rc = -1;
	store_now(now);
	pthread_mutex_lock(&s->lock);
	sqlite3_stmt *st = stmt(s, ST_RUN_STATUS, err);
	if (!st)
		goto out;
	sqlite3_bind_int64(st, 1, run_id);
	sqlrow_bind_text(st, 2, status);
	sqlrow_bind_text(st, 3, strcmp(status, "running") ? now : NULL);
	sqlrow_bind_text(st, 4, warnings_json);
	rc = step_done(s, st, err, "updating the run");
out:
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int store_run_set_overrides(struct store *s, int64_t run_id, const char *json,
			    struct ns_err *err)
{
	sqlite3_stmt *st = NULL;
	pthread_mutex_lock(&s->lock);
	int rc = sqlite3_prepare_v2(s->db, "UPDATE runs SET overrides = ?2 WHERE id = ?1", -1, &st,
				    NULL) == SQLITE_OK ? 0 : -1;
	if (rc == 0) {
		sqlite3_bind_int64(st, 1, run_id);
		sqlrow_bind_text(st, 2, json);
		rc = step_done(s, st, err, "storing the run's overrides");
		sqlite3_finalize(st);
	} else {
		db_err(s, err, "storing the run's overrides");
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int store_endpoint_put(struct store *s, int64_t run_id, const struct store_endpoint *e,
		       int64_t *endpoint_id, struct ns_err *err)
{
	int rc = -1;
	pthread_mutex_lock(&s->lock);
	sqlite3_stmt *st = stmt(s, ST_EP_INSERT, err);
	if (!st)
		goto out;
	sqlite3_bind_int64(st, 1, run_id);
	sqlrow_bind_text(st, 2, e->name);
	sqlrow_bind_text(st, 3, e->instance_type);
	sqlrow_bind_text(st, 4, e->region);
	sqlrow_bind_text(st, 5, e->client_host);
	sqlrow_bind_text(st, 6, e->agent_addr);
	sqlrow_bind_text(st, 7, e->expected_driver);
	sqlrow_bind_text(st, 8, e->price_basis ? e->price_basis : "pair");
	if (e->link_bps)
		sqlite3_bind_int64(st, 9, (sqlite3_int64)e->link_bps);
	sqlrow_bind_text(st, 10, e->client_info);
	sqlrow_bind_text(st, 11, e->agent_info);
	sqlrow_bind_text(st, 12, e->zone);
	sqlrow_bind_text(st, 13, e->client_zone);
	sqlrow_bind_text(st, 14, e->client_region);
	sqlrow_bind_text(st, 15, e->agent_zone);
	sqlrow_bind_text(st, 16, e->agent_region);
	sqlrow_bind_text(st, 17, e->relation);
	if (step_done(s, st, err, "recording an endpoint") < 0)
		goto out;
	st = stmt(s, ST_EP_UPDATE, err);
	if (!st)
		goto out;
	sqlite3_bind_int64(st, 1, run_id);
	sqlrow_bind_text(st, 2, e->name);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*endpoint_id = sqlite3_column_int64(st, 0);
		rc = 0;
	} else {
		db_err(s, err, "finding an endpoint");
	}
	sqlite3_reset(st);
	if (rc == 0 && e->emulation) {
		rc = -1;
		if (!(st = stmt(s, ST_EP_EMULATION, err)))
			goto out;
		sqlite3_bind_int64(st, 1, *endpoint_id);
		sqlrow_bind_text(st, 2, e->emulation);
		if (step_done(s, st, err, "recording a lab pair") < 0)
			goto out;
		rc = 0;
	}
	if (rc == 0 && e->ends) {
		rc = -1;
		if (!(st = stmt(s, ST_EP_ENDS, err)))
			goto out;
		sqlite3_bind_int64(st, 1, *endpoint_id);
		sqlrow_bind_text(st, 2, e->ends->mesh);
		sqlrow_bind_text(st, 3, e->ends->client_name);
		sqlrow_bind_text(st, 4, e->ends->agent_name);
		sqlrow_bind_text(st, 5, e->ends->client_zone);
		sqlrow_bind_text(st, 6, e->ends->agent_zone);
		if (step_done(s, st, err, "recording a pair's ends") < 0)
			goto out;
		rc = 0;
	}
out:
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int store_begin(struct store *s, struct ns_err *err)
{
	pthread_mutex_lock(&s->lock);
	int rc = ns_store_exec(s->db, "BEGIN IMMEDIATE", err);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int store_commit(struct store *s, struct ns_err *err)
{
	pthread_mutex_lock(&s->lock);
	int rc = ns_store_exec(s->db, "COMMIT", err);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

void store_rollback(struct store *s)
{
	pthread_mutex_lock(&s->lock);
	if (!sqlite3_get_autocommit(s->db))
		ns_store_exec(s->db, "ROLLBACK", NULL);
	pthread_mutex_unlock(&s->lock);
}

int store_case_put(struct store *s, int64_t run_id, const struct store_case *c, int64_t *case_id,
		   struct ns_err *err)
{
	const struct probe_params *p = c->p;
	int rc = -1;
	pthread_mutex_lock(&s->lock);
	sqlite3_stmt *st = stmt(s, ST_CASE_INSERT, err);
	if (!st)
		goto out;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, c->endpoint_id);
	sqlrow_bind_text(st, 3, c->case_key);
	sqlite3_bind_int64(st, 4, c->ordinal);
	sqlrow_bind_text(st, 5, ns_proto_name(p->proto));
	sqlite3_bind_int64(st, 6, p->streams);
	sqlite3_bind_int64(st, 7, p->threads);
	sqlite3_bind_int64(st, 8, p->length);
	sqlite3_bind_int64(st, 9, (sqlite3_int64)p->rate_bps);
	sqlite3_bind_int64(st, 10, (sqlite3_int64)p->fq_rate_bps);
	sqlrow_bind_text(st, 11, p->dir == NS_DIR_REVERSE ? "reverse" : p->dir == NS_DIR_BIDIR ? "bidir"
										  : "forward");
	sqlite3_bind_double(st, 12, p->duration_s);
	sqlite3_bind_double(st, 13, p->omit_s);
	sqlrow_bind_text(st, 14, c->affinity ? c->affinity : "none");
	sqlite3_bind_int64(st, 15, p->window);
	sqlite3_bind_int64(st, 16, p->mss);
	sqlite3_bind_int(st, 17, p->nodelay);
	sqlrow_bind_text(st, 18, p->congestion[0] ? p->congestion : NULL);
	sqlite3_bind_int(st, 19, p->gso);
	sqlrow_bind_text(st, 20, c->params_json);
	if (step_done(s, st, err, "recording a case") < 0)
		goto out;
	if (sqlite3_changes(s->db) == 1) {
		*case_id = sqlite3_last_insert_rowid(s->db);
		rc = 0;
		goto out;
	}
	st = stmt(s, ST_CASE_FIND, err); /* resumed: the case is already there */
	if (!st)
		goto out;
	sqlite3_bind_int64(st, 1, run_id);
	sqlrow_bind_text(st, 2, c->case_key);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*case_id = sqlite3_column_int64(st, 0);
		rc = 0;
	} else {
		db_err(s, err, "finding a case");
	}
	sqlite3_reset(st);
out:
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int store_results_done(struct store *s, int64_t run_id, bool ok_only,
		       void (*fn)(const char *case_key, int repeat, void *ctx), void *ctx,
		       struct ns_err *err)
{
	int rc = -1, step;
	pthread_mutex_lock(&s->lock);
	sqlite3_stmt *st = stmt(s, ok_only ? ST_DONE_OK : ST_DONE, err);
	if (!st)
		goto out;
	sqlite3_bind_int64(st, 1, run_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		fn((const char *)sqlite3_column_text(st, 0), sqlite3_column_int(st, 1), ctx);
	if (step == SQLITE_DONE)
		rc = 0;
	else
		db_err(s, err, "reading finished results");
	sqlite3_reset(st);
out:
	pthread_mutex_unlock(&s->lock);
	return rc;
}

/* Figures of a result row: ?10.. in ST_RESULT_INSERT order. Zero TCP/UDP-only figures of the
 * other protocol are stored as NULL, so a report never averages a meaningless 0. */
static void bind_figures(sqlite3_stmt *st, const struct probe_result *res)
{
	if (!res || res->n_dirs == 0)
		return;
	bool tcp = res->params.proto != NS_PROTO_UDP; /* QUIC: its loss and RTT in the TCP columns */
	const struct probe_direction *f = &res->dirs[0];
	const struct probe_figures *snd = &f->sender, *rcv = &f->receiver;
	sqlite3_bind_int64(st, 10, (sqlite3_int64)snd->bytes);
	sqlite3_bind_double(st, 11, snd->bits_per_second);
	sqlite3_bind_int64(st, 12, (sqlite3_int64)snd->packets);
	sqlite3_bind_double(st, 13, snd->packets_per_second);
	sqlite3_bind_double(st, 14, snd->cpu_percent);
	sqlite3_bind_int64(st, 15, (sqlite3_int64)rcv->bytes);
	sqlite3_bind_double(st, 16, rcv->bits_per_second);
	sqlite3_bind_int64(st, 17, (sqlite3_int64)rcv->packets);
	sqlite3_bind_double(st, 18, rcv->packets_per_second);
	sqlite3_bind_double(st, 19, rcv->cpu_percent);
	if (tcp) {
		sqlite3_bind_int64(st, 20, (sqlite3_int64)snd->retransmits);
		sqlite3_bind_double(st, 21, snd->rtt_ms);
		if (snd->rtt_min_ms > 0)
			sqlite3_bind_double(st, 36, snd->rtt_min_ms);
		sqlite3_bind_int64(st, 22, snd->cwnd_bytes);
	} else {
		sqlite3_bind_int64(st, 23, (sqlite3_int64)rcv->lost);
		sqlite3_bind_double(st, 24, rcv->lost_percent);
		sqlite3_bind_int64(st, 25, (sqlite3_int64)rcv->out_of_order);
		sqlite3_bind_int64(st, 26, (sqlite3_int64)rcv->duplicates);
		sqlite3_bind_double(st, 27, rcv->jitter_ms);
	}
	sqlite3_bind_int64(st, 28, (sqlite3_int64)rcv->kernel_drops);
	if (res->n_dirs > 1) {
		const struct probe_direction *r = &res->dirs[1];
		sqlite3_bind_double(st, 29, r->sender.bits_per_second);
		sqlite3_bind_double(st, 30, r->receiver.bits_per_second);
		sqlite3_bind_double(st, 31, r->sender.packets_per_second);
		sqlite3_bind_double(st, 32, r->receiver.packets_per_second);
		if (tcp)
			sqlite3_bind_int64(st, 33, (sqlite3_int64)r->sender.retransmits);
		else
			sqlite3_bind_double(st, 34, r->receiver.lost_percent);
	}
}

static int put_samples(struct store *s, int64_t result_id, const struct probe_result *res,
		       struct ns_err *err)
{
	bool tcp = res->params.proto != NS_PROTO_UDP; /* QUIC: its loss and RTT in the TCP columns */
	for (uint32_t d = 0; d < res->n_dirs && d < 2; d++) {
		const struct probe_direction *dir = &res->dirs[d];
		for (uint32_t i = 0; i < dir->n_intervals; i++) {
			const struct probe_interval *iv = &dir->intervals[i];
			if (iv->omitted)
				continue; /* warm-up: not part of the result */
			sqlite3_stmt *st = stmt(s, ST_SAMPLE_INSERT, err);
			if (!st)
				return -1;
			sqlite3_bind_int64(st, 1, result_id);
			sqlrow_bind_text(st, 2, d == 0 ? "fwd" : "ret");
			sqlite3_bind_int(st, 3, iv->stream);
			sqlite3_bind_double(st, 4, iv->start_s);
			sqlite3_bind_double(st, 5, iv->end_s);
			sqlite3_bind_int64(st, 6, (sqlite3_int64)iv->bytes);
			sqlite3_bind_double(st, 7, iv->bits_per_second);
			sqlite3_bind_int64(st, 8, (sqlite3_int64)iv->packets);
			if (tcp) {
				sqlite3_bind_int64(st, 9, (sqlite3_int64)iv->retransmits);
				sqlite3_bind_int64(st, 10, iv->cwnd_bytes);
				sqlite3_bind_double(st, 11, iv->rtt_ms);
			} else {
				sqlite3_bind_int64(st, 12, (sqlite3_int64)iv->lost);
				sqlite3_bind_double(st, 13, iv->jitter_ms);
			}
			if (step_done(s, st, err, "recording a sample") < 0)
				return -1;
		}
	}
	return 0;
}

/* What is this test's own: its receiving sockets' drops (UDP) and the phases found in each
 * direction's receiver series. */
static int put_truth(struct store *s, int64_t result_id, const struct probe_result *res,
		     struct ns_err *err)
{
	sqlite3_stmt *st;
	if (res->n_dirs > 0 && res->params.proto == NS_PROTO_UDP) {
		if (!(st = stmt(s, ST_RESULT_TRUTH, err)))
			return -1;
		sqlite3_bind_int64(st, 1, result_id);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)res->dirs[0].receiver.socket_drops);
		if (step_done(s, st, err, "recording socket drops") < 0)
			return -1;
	}
	for (uint32_t d = 0; d < res->n_dirs && d < 2; d++) {
		const struct probe_shaping *ph = &res->dirs[d].shaping;
		if (!ph->found)
			continue;
		if (!(st = stmt(s, ST_PHASE_INSERT, err)))
			return -1;
		sqlite3_bind_int64(st, 1, result_id);
		sqlrow_bind_text(st, 2, d == 0 ? "fwd" : "ret");
		sqlite3_bind_double(st, 3, ph->burst_bps);
		sqlite3_bind_double(st, 4, ph->burst_s);
		sqlite3_bind_double(st, 5, ph->sustained_bps);
		if (step_done(s, st, err, "recording phases") < 0)
			return -1;
	}
	return 0;
}

int store_put_result(struct store *s, const struct store_result *r, int64_t *result_id,
		     struct ns_err *err)
{
	int rc = -1;
	pthread_mutex_lock(&s->lock);
	if (ns_store_exec(s->db, "BEGIN IMMEDIATE", err) < 0)
		goto out;
	sqlite3_stmt *st;
	if (r->replace_failed) {
		if (!(st = stmt(s, ST_RESULT_FAILED_DROP, err)))
			goto rollback;
		sqlite3_bind_int64(st, 1, r->case_id);
		sqlite3_bind_int64(st, 2, r->repeat);
		if (step_done(s, st, err, "replacing a failed result") < 0)
			goto rollback;
	}
	st = stmt(s, ST_RESULT_INSERT, err);
	if (!st)
		goto rollback;
	sqlite3_bind_int64(st, 1, r->case_id);
	sqlite3_bind_int64(st, 2, r->repeat);
	sqlrow_bind_text(st, 3, r->started_at);
	sqlrow_bind_text(st, 4, r->finished_at);
	sqlrow_bind_text(st, 5, r->ok ? "ok" : "failed");
	sqlrow_bind_text(st, 6, r->error);
	sqlrow_bind_text(st, 7, r->warnings && r->warnings[0] ? r->warnings : NULL);
	if (r->res && r->res->n_dirs > 0)
		sqlite3_bind_double(st, 8, r->res->duration_s);
	sqlite3_bind_int(st, 9, r->res ? r->res->gso_active : 0);
	bind_figures(st, r->res);
	sqlrow_bind_text(st, 35, r->probe_json);
	if (step_done(s, st, err, "recording a result") < 0) {
		/* Another runner resuming the same run got there first: not an error here. */
		if (sqlite3_extended_errcode(s->db) == SQLITE_CONSTRAINT_UNIQUE)
			rc = 1;
		goto rollback;
	}
	int64_t id = sqlite3_last_insert_rowid(s->db);
	sqlite3_stmt *clear = stmt(s, ST_SAMPLE_CLEAR, err);
	if (!clear)
		goto rollback;
	sqlite3_bind_int64(clear, 1, id);
	if (step_done(s, clear, err, "clearing stale samples") < 0)
		goto rollback;
	if (r->res && (put_samples(s, id, r->res, err) < 0 || put_truth(s, id, r->res, err) < 0 ||
		       store_nic_put(s->db, id, r->res, err) < 0 ||
		       store_limit_put(s->db, id, r->res, err) < 0 ||
		       store_latency_put(s->db, id, r->res, err) < 0 ||
		       store_latency_load_put(s->db, id, r->res, err) < 0))
		goto rollback;
	if (r->group && store_group_put(s->db, id, r->group, err) < 0)
		goto rollback;
	if (r->search_json) {
		sqlite3_stmt *ss = stmt(s, ST_SEARCH_INSERT, err);
		if (!ss)
			goto rollback;
		sqlite3_bind_int64(ss, 1, id);
		sqlrow_bind_text(ss, 2, r->search_json);
		if (step_done(s, ss, err, "recording a rate search") < 0)
			goto rollback;
	}
	if (ns_store_exec(s->db, "COMMIT", err) < 0)
		goto rollback;
	if (result_id)
		*result_id = id;
	rc = 0;
	goto out;
rollback:
	ns_store_exec(s->db, "ROLLBACK", NULL);
out:
	pthread_mutex_unlock(&s->lock);
	return rc;
}
