/* The report's provider finding from a database built through the real migration ladder: a
 * result stored with shaped_by_provider and an agent row of result_nics whose ENA allowance
 * counters moved gives its case one sentence naming the counters, the interface and the
 * reason; a case whose counters did not move, and a database from before version 9, give none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include <sqlite3.h>

#include "lib/sql/store_schema.h"
#include "report/load/data.h"
#include "report/analyze/findings.h"
#include "tests/lib/report_db.h"

/* Run 1 on pair p: case 'shaped' (two ok repeats, one flagged: the agent's ens5 held back
 * 1234 packets outbound and 5 on packets per second) and case 'clean' (counters read, none
 * moved). */
static const char rows[] =
	REPORT_DB_RUN_PAIR
	"INSERT INTO cases(id, run_id, endpoint_id, case_key, ordinal, protocol, streams,"
	"  direction, duration_s, params) VALUES (10, 1, 1, 'shaped', 1, 'tcp', 8, 'forward', 60,"
	"  '{}'), (11, 1, 1, 'clean', 2, 'tcp', 1, 'forward', 60, '{}');"
	"INSERT INTO results(id, case_id, repeat, started_at, finished_at, status, fwd_rcv_bps)"
	"  VALUES (100, 10, 0, 't', 't', 'ok', 5e9), (101, 10, 1, 't', 't', 'ok', 4.9e9),"
	"  (102, 11, 0, 't', 't', 'ok', 9e8);";
static const char flags[] =
	"UPDATE results SET shaped_by_provider = (id = 101);"
	"INSERT INTO result_nics VALUES (101, 'agent', 'ens5', 5, 0, 1234, 5, 0, 0, 0, 1, 2, 1500000,"
	"  3000000), (101, 'client', 'ens6', 5, 0, 0, 0, 0, 0, 0, 3, 4, 4500, 6000),"
	"  (102, 'agent', 'ens5', 5, 0, 0, 0, 0, 0, 0, 5, 6, 7500, 9000);";

static const char *provider_sentence(const struct rp_findings *f)
{
	for (size_t i = 0; i < f->n; i++)
		if (strstr(f->items[i].text, "shaped by the cloud provider"))
			return f->items[i].text;
	return NULL;
}

static void load_findings(sqlite3 *db, struct rp_data *d, struct rp_findings *f)
{
	struct ns_err err = {0};
	if (rp_data_load(db, 1, d, &err) < 0)
		fail_msg("rp_data_load: %s", err.msg);
	if (rp_findings_build(d, NULL, 0, NULL, NULL, NULL, f, &err) < 0)
		fail_msg("rp_findings_build: %s", err.msg);
}

static void flagged_result_gives_the_sentence(void **state)
{
	(void)state;
	sqlite3 *db;
	struct ns_err err = {0};
	struct rp_data d;
	struct rp_findings f;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	if (ns_store_migrate(db, &err) < 0)
		fail_msg("migrate: %s", err.msg);
	exec(db, rows);
	exec(db, flags);
	/* the phases go through the same per-case reader (report/load/rundb.c) */
	exec(db, "INSERT INTO result_phases VALUES (100, 'fwd', 9e9, 7.5, 5e9);");
	load_findings(db, &d, &f);
	const struct rp_case *sc = d.cases[0].id == 10 ? &d.cases[0] : &d.cases[1];
	assert_int_equal(sc->id, 10);
	assert_int_equal(sc->n_shaped, 1);
	assert_true(sc->burst_s == 7.5 && sc->sustained_bps == 5e9);
	assert_int_equal(sc->n_provider_shaped, 1);
	const char *s = provider_sentence(&f);
	assert_non_null(s);
	/* the case, its repeats, the counters that moved, where, and why it matters */
	assert_non_null(strstr(s, "in 1 of 2 repeats"));
	assert_non_null(strstr(s, "bw_out_allowance_exceeded +1234, pps_allowance_exceeded +5"));
	assert_null(strstr(s, "bw_in_allowance_exceeded"));
	/* beside what that interface moved (its own counters: packets, bytes from store 18) */
	assert_non_null(strstr(s, "on the agent's ens5, which moved 3 packets (4.5 MB) in and out"
				  " over those repeats."));
	assert_null(strstr(s, "ens6"));  /* the client's counters did not move */
	assert_non_null(strstr(s, "the provider's shaping, not the instance's capacity"));
	assert_non_null(strstr(s, "8 streams")); /* the shaped case, not the clean one */
	int n = 0;
	for (size_t i = 0; i < f.n; i++)
		n += strstr(f.items[i].text, "shaped by the cloud provider") != NULL;
	assert_int_equal(n, 1);
	rp_findings_free(&f);
	rp_data_free(&d);
	/* a result stored before version 18 has no bytes: the packets alone, no 0 MB */
	exec(db, "UPDATE result_nics SET rx_bytes = NULL, tx_bytes = NULL;");
	load_findings(db, &d, &f);
	s = provider_sentence(&f);
	assert_non_null(s);
	assert_non_null(strstr(s, "on the agent's ens5, which moved 3 packets in and out over"));
	rp_findings_free(&f);
	rp_data_free(&d);
	sqlite3_close(db);
}

/* A database from version 8 or before has no shaped_by_provider column: its rows, stored
 * before the column existed, are read as the report reads any older file — through the
 * ladder (store_read migrates a copy), which adds the column as NULL: no sentence. */
static void older_database_has_no_sentence(void **state)
{
	(void)state;
	sqlite3 *db;
	struct rp_data d;
	struct rp_findings f;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	struct ns_err err = {0};
	exec(db, NS_STORE_SQL); /* version 1: the column comes from ladder step 9 */
	exec(db, rows);
	if (ns_store_migrate(db, &err) < 0)
		fail_msg("migrate: %s", err.msg);
	load_findings(db, &d, &f);
	assert_null(provider_sentence(&f));
	rp_findings_free(&f);
	rp_data_free(&d);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flagged_result_gives_the_sentence),
		cmocka_unit_test(older_database_has_no_sentence),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
