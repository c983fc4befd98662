/* store_schema: see store_schema.h. */
#include "store_schema.h"

#include <stdbool.h>
#include <stdio.h>

#include <sqlite3.h>

/* The migration ladder: step i brings a database from user_version i to i + 1. Version 1 is
 * the whole schema; later versions append ALTER/CREATE blocks here, never edit earlier ones,
 * and raise NS_STORE_SCHEMA_VERSION (lib/sql/store_version.h) with them.
 * A step that changes a view drops it: after any step the schema file runs again, and its
 * CREATE ... IF NOT EXISTS statements recreate the dropped views as they now stand. */
static const char *const migrations[] = {
	NS_STORE_SQL,
	/* 2: v_run_cost charges only successful results */
	"DROP VIEW IF EXISTS v_run_cost;",
	/* 3: a run's identity across databases (db merge) and the provisioning hooks' records */
	"ALTER TABLE runs ADD COLUMN uuid TEXT;"
	/* runs from before: an identity from what they are, so that merging an old database
	 * twice still adds its runs once */
	"UPDATE runs SET uuid = 'v2-' || substr(matrix_hash, 1, 16) || '-' || started_at || '-' ||"
	" coalesce(runner_host, '') || '-' || id WHERE uuid IS NULL;"
	"CREATE UNIQUE INDEX runs_by_uuid ON runs(uuid);"
	"CREATE TRIGGER runs_uuid AFTER INSERT ON runs WHEN new.uuid IS NULL BEGIN"
	" UPDATE runs SET uuid = lower(hex(randomblob(16))) WHERE id = new.id; END;",
	/* 4: rate searches (the searches table and its views come from the schema file) */
	"SELECT 1;",
	/* 5: case_leases, created by the schema file that runs after the steps */
	"-- case_leases",
	/* 6: lab pairs (table endpoint_emulation, from the schema file); v_results says so */
	"DROP VIEW IF EXISTS v_results;",
	/* 7: the receiving sockets' own drops; result_phases comes from the schema file */
	"ALTER TABLE results ADD COLUMN fwd_socket_drops INTEGER;",
	/* 8: the matrix's rank-by rule (table run_rank, from the schema file); v_cost_ranking
	 * ranks each pair's ranked case, as the report does */
	"DROP VIEW IF EXISTS v_cost_ranking;",
	/* 9: whether the provider shaped a result; result_nics comes from the schema file */
	"ALTER TABLE results ADD COLUMN shaped_by_provider INTEGER;",
	/* 10: v_cost_ranking ranks a case shaped on credits on its sustained rate, as the report
	 * does; v_run_cost charges a long-run case the time it ran, not its upper bound */
	"DROP VIEW IF EXISTS v_cost_ranking; DROP VIEW IF EXISTS v_run_cost;",
	/* 11: v_cost_ranking's columns of before version 8 (mean_mbps, mean_mbps_per_usd_hour,
	 * results) back as deprecated aliases: users' queries on them work again */
	"DROP VIEW IF EXISTS v_cost_ranking;",
	/* 12: prices of every pricing model and currency (run_price_quotes, run_pricing and
	 * v_endpoint_quotes from the schema file); who sells a type, and "up to" bandwidth */
	"ALTER TABLE run_instance_types ADD COLUMN provider TEXT;"
	"ALTER TABLE run_instance_types ADD COLUMN network_up_to INTEGER;",
	/* 13: the command line's overrides of a run (run --set, --only), a JSON array */
	"ALTER TABLE runs ADD COLUMN overrides TEXT NOT NULL DEFAULT '[]';",
	/* 14: a search's goals say when the sender, not the path, bounded them; its trials
	 * what the sender offered */
	"DROP VIEW IF EXISTS v_search_goals; DROP VIEW IF EXISTS v_search_trials;",
	/* 15: the catalog's exchange rates with the run (run_fx, from the schema file) */
	"-- run_fx",
	/* 16: what limited each result (table result_limits, from the schema file); v_results
	 * shows the forward direction's sender_limited flag and limiting factor */
	"DROP VIEW IF EXISTS v_results;",
	/* 17: request/response latency (table result_latency and view v_latency from the
	 * schema file) */
	"DROP VIEW IF EXISTS v_latency;",
	/* 18: the bytes each end's interface moved over a result (its own statistics, beside
	 * the packets); view v_result_nics from the schema file. A database from before
	 * version 9 has no result_nics yet (the schema file creates it after the steps): the
	 * step creates it as version 9 did, so that every database adds the columns alike. */
	"CREATE TABLE IF NOT EXISTS result_nics ("
	" result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,"
	" side TEXT NOT NULL CHECK (side IN ('client', 'agent')), ifname TEXT NOT NULL,"
	" allowance_counters INTEGER NOT NULL, bw_in_allowance_exceeded INTEGER NOT NULL,"
	" bw_out_allowance_exceeded INTEGER NOT NULL, pps_allowance_exceeded INTEGER NOT NULL,"
	" conntrack_allowance_exceeded INTEGER NOT NULL,"
	" linklocal_allowance_exceeded INTEGER NOT NULL, drops INTEGER NOT NULL,"
	" rx_packets INTEGER NOT NULL, tx_packets INTEGER NOT NULL,"
	" PRIMARY KEY (result_id, side)) WITHOUT ROWID;"
	"ALTER TABLE result_nics ADD COLUMN rx_bytes INTEGER;"
	"ALTER TABLE result_nics ADD COLUMN tx_bytes INTEGER;"
	"DROP VIEW IF EXISTS v_result_nics;",
	/* 19: latency under load, a throughput result's latency probe idle and loaded (table
	 * result_latency_load and view v_latency_under_load from the schema file) */
	"DROP VIEW IF EXISTS v_latency_under_load;",
	/* 20: the CPU the agent's answerer ran on beside the client's (result_latency.agent_cpu);
	 * v_latency shows it with both ends' CPU load. A database from before version 17 has no
	 * result_latency yet (the schema file creates it after the steps): the step creates it
	 * as version 17 did, so that every database adds the column alike. */
	"CREATE TABLE IF NOT EXISTS result_latency ("
	" result_id INTEGER PRIMARY KEY REFERENCES results(id) ON DELETE CASCADE,"
	" test TEXT NOT NULL, request INTEGER NOT NULL, response INTEGER NOT NULL,"
	" rate REAL NOT NULL, transactions INTEGER NOT NULL,"
	" transactions_per_second REAL NOT NULL, lost INTEGER NOT NULL, min_us REAL NOT NULL,"
	" mean_us REAL NOT NULL, p50_us REAL NOT NULL, p90_us REAL NOT NULL,"
	" p99_us REAL NOT NULL, p999_us REAL NOT NULL, max_us REAL NOT NULL,"
	" relative_error REAL NOT NULL, client_cpu INTEGER NOT NULL, histogram TEXT NOT NULL);"
	"ALTER TABLE result_latency ADD COLUMN agent_cpu INTEGER;"
	"DROP VIEW IF EXISTS v_latency;",
	/* 21: the provider's family of each instance type, as the catalog stated it (what a
	 * selection by type answers to beside the exact name: lib/names/itype.h) */
	"ALTER TABLE run_instance_types ADD COLUMN family TEXT;",
	/* 22: v_cost_ranking ranks every pricing model and currency as the report does (the
	 * run's model, converted at the run's exchange rates, each currency apart; before, on-
	 * demand US dollars only), on v_endpoint_ranked_price (from the schema file) */
	"DROP VIEW IF EXISTS v_cost_ranking;",
	/* 23: group cases (tables group_results, group_clients, group_samples and views
	 * v_group_fairness, v_group_clients from the schema file) */
	"-- groups",
	/* 24: v_case_median per case and v_cost_ranking partitioned by run as well, so that one
	 * run's medians and ranking read that run's rows, not every night's (the same rows and
	 * columns; tests/bench/year.sh has the figures) */
	"DROP VIEW IF EXISTS v_case_median; DROP VIEW IF EXISTS v_cost_ranking;",
	/* 25: a pair's zone relation (pairs found in a Kubernetes cluster: same or cross zone),
	 * shown by v_results */
	"ALTER TABLE endpoints ADD COLUMN zone TEXT CHECK (zone IS NULL OR zone IN ('same', 'cross'));"
	"DROP VIEW IF EXISTS v_results;",
	/* 26: v_burst_window, a ranked "up to" type's burst window and whether its ranked case
	 * ran inside it, and v_cost_ranking, which ranks such a type on a measured sustained
	 * rate when it has one (both from the schema file) */
	"DROP VIEW IF EXISTS v_burst_window; DROP VIEW IF EXISTS v_cost_ranking;",
	/* 27: protocol 'quic' (runner/quic). SQLite alters no CHECK constraint: the table's
	 * stored definition is rewritten in place, as its documentation allows for a change
	 * that leaves every stored row valid, and the schema reloaded. And the least RTT of TCP
	 * and QUIC results, shown by v_results. */
	"PRAGMA writable_schema = ON;"
	"UPDATE sqlite_schema SET sql = replace(sql, 'protocol IN (''tcp'', ''udp'')', "
	"'protocol IN (''tcp'', ''udp'', ''quic'')') WHERE type = 'table' AND name = 'cases';"
	"PRAGMA writable_schema = RESET;"
	"ALTER TABLE results ADD COLUMN fwd_rtt_min_ms REAL;"
	"DROP VIEW IF EXISTS v_cost_ranking; DROP VIEW IF EXISTS v_results;",
	/* 28: a mesh pair's two hosts and their zones (table endpoint_ends from the schema file,
	 * with the views v_pair_ends, v_mesh_cells, v_pair_nightly, v_pair_variability,
	 * v_itype_variability, v_consistency_ranking) */
	"-- endpoint_ends",
	/* 29: CPU per bit and CPU placement (issue 41): both ends' CPU seconds per GB of each
	 * direction, where the result's engine threads ran and how its TCP receiver took the
	 * bytes; v_cpu_per_bit (store.sql) reads them */
	"ALTER TABLE results ADD COLUMN fwd_snd_cpu_s_per_gb REAL;"
	"ALTER TABLE results ADD COLUMN fwd_rcv_cpu_s_per_gb REAL;"
	"ALTER TABLE results ADD COLUMN ret_snd_cpu_s_per_gb REAL;"
	"ALTER TABLE results ADD COLUMN ret_rcv_cpu_s_per_gb REAL;"
	"ALTER TABLE results ADD COLUMN cpu_placement TEXT;"
	"ALTER TABLE results ADD COLUMN client_cpus TEXT;"
	"ALTER TABLE results ADD COLUMN agent_cpus TEXT;"
	"ALTER TABLE results ADD COLUMN rx_path TEXT;"
	"DROP VIEW IF EXISTS v_cpu_per_bit; DROP VIEW IF EXISTS v_responsiveness;",
	/* 30: transfer (issue 39) — each end's zone and region and the pair's relation, the run's
	 * transfer rules, monthly volume and servers' included traffic (tables from the schema
	 * file); v_results shows the
	 * placement, v_cost_total (from the schema file) prices the traffic */
	"ALTER TABLE endpoints ADD COLUMN client_zone TEXT;"
	"ALTER TABLE endpoints ADD COLUMN client_region TEXT;"
	"ALTER TABLE endpoints ADD COLUMN agent_zone TEXT;"
	"ALTER TABLE endpoints ADD COLUMN agent_region TEXT;"
	"ALTER TABLE endpoints ADD COLUMN relation TEXT NOT NULL DEFAULT 'unknown' CHECK (relation"
	" IN ('same-zone', 'cross-zone', 'cross-region', 'internet', 'unknown'));"
	"UPDATE endpoints SET relation = CASE zone WHEN 'same' THEN 'same-zone' ELSE 'cross-zone'"
	" END WHERE zone IS NOT NULL;"
	"DROP VIEW IF EXISTS v_results;",
};

_Static_assert(sizeof(migrations) / sizeof(migrations[0]) == NS_STORE_SCHEMA_VERSION,
	       "one migration step per schema version (lib/sql/store_version.h)");

int ns_store_exec(sqlite3 *db, const char *sql, struct ns_err *err)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		ns_err_set(err, "database: %s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int ns_store_user_version(sqlite3 *db)
{
	sqlite3_stmt *st;
	int v = -1;
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

int ns_store_migrate(sqlite3 *db, struct ns_err *err)
{
	if (ns_store_exec(db, "BEGIN IMMEDIATE", err) < 0)
		return -1;
	int v = ns_store_user_version(db);
	if (v < 0) {
		ns_err_set(err, "database: reading user_version: %s", sqlite3_errmsg(db));
		goto err;
	}
	if (v > NS_STORE_SCHEMA_VERSION) {
		ns_err_code(err, NS_E_INPUT, "database: schema version %d is newer than this "
			    "netsweep's (%d)", v, NS_STORE_SCHEMA_VERSION);
		goto err;
	}
	bool migrated = v < NS_STORE_SCHEMA_VERSION;
	for (; v < NS_STORE_SCHEMA_VERSION; v++) {
		char pragma[64];
		if (ns_store_exec(db, migrations[v], err) < 0)
			goto err;
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", v + 1);
		if (ns_store_exec(db, pragma, err) < 0)
			goto err;
	}
	if (migrated && ns_store_exec(db, NS_STORE_SQL, err) < 0)
		goto err;
	return ns_store_exec(db, "COMMIT", err);
err:
	ns_store_exec(db, "ROLLBACK", NULL);
	return -1;
}
