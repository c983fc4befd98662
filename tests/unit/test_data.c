/* Loading a run from a database built in memory through the store's ladder (schemas/store.sql
 * and every step, as the runner makes a fresh one): medians, spread and
 * quartiles over repeats (with NULL figures and failed repeats left out), hostinfo fields
 * through json_extract, missing prices, and which runs "latest" and "previous" mean. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/analyze/cost_rank.h"
#include "report/load/data.h"
#include "report/model/describe.h"
#include "report/model/fmt.h"
#include "report/load/rundb.h"
#include "lib/sql/store_schema.h"

static void exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("sql: %s", msg ? msg : "?");
}

static int setup(void **state)
{
	sqlite3 *db;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	struct ns_err err = {0};
	if (ns_store_migrate(db, &err) < 0) /* a view reads columns the steps add (zone, 25) */
		fail_msg("migrate: %s", err.msg);
	exec(db,
	     "INSERT INTO runs(id, matrix_name, matrix_text, matrix_hash, started_at, "
	     "  netsweep_version, repeats) VALUES "
	     " (1, 'm', '<m/>', 'h', '2026-01-01T00:00:00Z', '0.1.0', 4),"
	     " (2, 'm', '<m/>', 'h', '2026-01-02T00:00:00Z', '0.1.0', 4),"
	     " (3, 'other', '<m/>', 'h', '2026-01-03T00:00:00Z', '0.1.0', 1),"
	     " (4, 'm', '<m/>', 'h', '2025-12-31T00:00:00Z', '0.1.0', 1);"
	     "INSERT INTO endpoints(id, run_id, name, instance_type, region, agent_addr, "
	     "  price_basis, agent_info) VALUES "
	     " (1, 2, 'p', 'c5.large', 'us-east-1', '10.0.0.2:5301', 'pair', "
	     "  '{\"kernel\":\"6.1\",\"online_cpus\":2,\"interface\":{\"driver\":\"xen_netfront\","
	     "   \"driver_family\":\"vif\",\"mtu\":1500,\"qdisc\":\"mq\"},\"cloud\":null}'),"
	     " (2, 2, 'q', 'c5.xlarge', 'us-east-1', '10.0.0.3:5301', 'sender', NULL);"
	     "INSERT INTO run_prices VALUES (2, 'c5.large', 'us-east-1', 0.085, '2026', 't');"
	     "INSERT INTO cases(id, run_id, endpoint_id, case_key, ordinal, protocol, streams, "
	     "  direction, duration_s, params) VALUES "
	     " (10, 2, 1, 'a', 2, 'tcp', 4, 'reverse', 10, '{}'),"
	     " (11, 2, 1, 'b', 1, 'udp', 1, 'forward', 10, '{}'),"
	     " (12, 2, 2, 'c', 3, 'tcp', 1, 'forward', 10, '{}');"
	     /* case a: goodput 1,2,3,4 (+ a failed repeat); CPU missing in one repeat */
	     "INSERT INTO results(case_id, repeat, started_at, finished_at, status, error, "
	     "  fwd_rcv_bps, fwd_snd_cpu) VALUES "
	     " (10, 0, 't', 't', 'ok', NULL, 4e9, 50), (10, 1, 't', 't', 'ok', NULL, 1e9, NULL),"
	     " (10, 2, 't', 't', 'failed', 'agent gone', NULL, NULL),"
	     " (10, 3, 't', 't', 'ok', NULL, 3e9, 70), (10, 4, 't', 't', 'ok', NULL, 2e9, 60),"
	     /* case b: three repeats; case c: only failures */
	     " (11, 0, 't', 't', 'ok', NULL, 5e8, 10), (11, 1, 't', 't', 'ok', NULL, 7e8, 10),"
	     " (11, 2, 't', 't', 'ok', NULL, 6e8, 10),"
	     " (12, 0, 't', 't', 'failed', NULL, NULL, NULL);"
	     "INSERT INTO samples(result_id, stream, t_start, t_end, bytes, bps) "
	     "  SELECT id, -1, 0, 1, 1, 1 FROM results WHERE case_id = 11 AND repeat = 1;");
	*state = db;
	return 0;
}

static int teardown(void **state)
{
	sqlite3_close(*state);
	return 0;
}

static const struct rp_case *find(const struct rp_data *d, const char *key)
{
	for (size_t i = 0; i < d->n_cases; i++)
		if (!strcmp(d->cases[i].case_key, key))
			return &d->cases[i];
	fail_msg("case %s not loaded", key);
	return NULL;
}

static void test_medians_and_spread(void **state)
{
	struct rp_data d;
	struct ns_err err = {0};
	assert_int_equal(rp_data_load(*state, 2, &d, &err), 0);
	assert_int_equal(d.n_cases, 3);
	assert_string_equal(d.cases[0].case_key, "b"); /* ordinal order */
	const struct rp_case *a = find(&d, "a");
	assert_int_equal(a->n_results, 5);
	assert_int_equal(a->n_ok, 4);
	assert_true(a->fig[RP_RCV_BPS].med == 2.5e9);
	assert_true(a->fig[RP_RCV_BPS].min == 1e9 && a->fig[RP_RCV_BPS].max == 4e9);
	assert_true(fabs(a->fig[RP_RCV_BPS].q1 - 1.75e9) < 1 && fabs(a->fig[RP_RCV_BPS].q3 - 3.25e9) < 1);
	assert_int_equal(a->fig[RP_SND_CPU].n, 3);       /* the NULL is left out */
	assert_true(a->fig[RP_SND_CPU].med == 60);
	assert_true(isnan(a->fig[RP_LOST].med));
	assert_string_equal(a->first_error, "agent gone");
	assert_int_equal(a->series_result_id, 0);
	const struct rp_case *b = find(&d, "b");
	assert_true(b->fig[RP_RCV_BPS].med == 6e8);
	assert_int_not_equal(b->series_result_id, 0);
	const struct rp_case *c = find(&d, "c");
	assert_int_equal(c->n_ok, 0);
	assert_true(isnan(c->fig[RP_RCV_BPS].med));
	assert_non_null(c->first_error);
	/* endpoint p: hostinfo via json_extract, pair price doubled; q: no hostinfo, no price */
	assert_int_equal(d.n_eps, 2);
	assert_string_equal(d.eps[0].agent.driver_family, "vif");
	assert_int_equal(d.eps[0].agent.mtu, 1500);
	assert_true(fabs(d.eps[0].usd_per_hour - 0.17) < 1e-12);
	assert_false(d.eps[1].agent.present);
	assert_true(isnan(d.eps[1].usd_per_hour));
	/* reverse: the agent sends; online_cpus 2 caps 4 streams at 2 threads */
	assert_true(rp_case_threads(&d, a, 1) == 2);
	assert_true(rp_case_threads(&d, a, 0) == 4);   /* client side: no hostinfo */
	struct rp_cost_row *rows;
	size_t n;
	assert_int_equal(rp_cost_build(&d, NULL, &rows, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(rows[0].ep, 0);
	assert_int_equal(rows[0].rank, 1);
	assert_true(fabs(rows[0].mbps - 2500) < 1e-9);   /* best case: a */
	assert_int_equal(rows[1].rank, 0);               /* q has no price */
	free(rows);
	rp_data_free(&d);
}

static void test_resolve(void **state)
{
	sqlite3 *db = *state;
	long long id = 0;
	struct ns_err err = {0};
	assert_int_equal(rp_run_resolve(db, "latest", &id, &err), 0);
	assert_int_equal(id, 3);                  /* by start time, not by id */
	assert_int_equal(rp_run_resolve(db, "2", &id, &err), 0);
	assert_int_equal(rp_run_resolve(db, "9", &id, &err), -1);
	assert_non_null(strstr(err.msg, "no run with that id or label"));
	assert_int_equal(rp_run_resolve(db, "x", &id, &err), -1);
	/* a label names its newest run, also when it looks like an id no run has */
	assert_int_equal(sqlite3_exec(db, "UPDATE runs SET label = 'night-1' WHERE id IN (1, 4);"
				      "UPDATE runs SET label = '9' WHERE id = 2", NULL, NULL, NULL), 0);
	assert_int_equal(rp_run_resolve(db, "night-1", &id, &err), 0);
	assert_int_equal(id, 1);                  /* run 1 started after run 4 */
	assert_int_equal(rp_run_resolve(db, "9", &id, &err), 0);
	assert_int_equal(id, 2);
	assert_int_equal(rp_baseline_resolve(db, "night-1", 2, &id, &err), 0);
	assert_int_equal(id, 1);
	assert_int_equal(rp_run_resolve(db, "previous", &id, &err), -1); /* latest, 3, is alone */
	assert_non_null(strstr(err.msg, "first of its matrix"));
	assert_int_equal(rp_baseline_resolve(db, "previous", 2, &id, &err), 0);
	assert_int_equal(id, 1);                  /* same matrix, started before */
	assert_int_equal(rp_baseline_resolve(db, "previous", 1, &id, &err), 0);
	assert_int_equal(id, 4);                  /* run 4 started earlier though its id is higher */
	assert_int_equal(rp_baseline_resolve(db, "previous", 4, &id, &err), 0);
	assert_int_equal(id, 0);                  /* the first run has none */
	assert_int_equal(rp_baseline_resolve(db, "previous", 3, &id, &err), 0);
	assert_int_equal(id, 0);                  /* no other run of that matrix */
	assert_int_equal(rp_baseline_resolve(db, "2", 2, &id, &err), -1);
}

/* The run's cost (v_run_cost) charges successful results only, and counts the successful
 * results of pairs without a price, which make the sum a lower bound. */
static void test_run_cost(void **state)
{
	sqlite3 *db = *state;
	struct rp_data d;
	struct ns_err err = {0};
	assert_int_equal(rp_data_load(db, 2, &d, &err), 0);
	/* 7 ok results of pair p (0.17 $/h) for 10 s; the failed ones of a and c cost nothing */
	assert_true(fabs(d.run_cost_usd - 7 * 0.17 * 10 / 3600) < 1e-12);
	assert_int_equal(d.results_without_price, 0);
	rp_data_free(&d);
	exec(db, "SAVEPOINT sp; INSERT INTO results(case_id, repeat, started_at, finished_at, "
		 "  status, fwd_rcv_bps) VALUES (12, 1, 't', 't', 'ok', 1e9);");
	assert_int_equal(rp_data_load(db, 2, &d, &err), 0);
	assert_true(fabs(d.run_cost_usd - 7 * 0.17 * 10 / 3600) < 1e-12);
	assert_int_equal(d.results_without_price, 1);
	rp_data_free(&d);
	exec(db, "ROLLBACK TO sp; RELEASE sp;");
}

/* The equivalent probe command of a case whose pair has a client sends from that client. */
static void test_probe_cmd_from(void **state)
{
	(void)state;
	struct rp_endpoint e = {.agent_addr = "10.0.0.2:5301"};
	struct rp_case c = {.ep = 0, .protocol = "tcp", .direction = "forward", .streams = 2,
			    .duration_s = 10};
	struct rp_data d = {.eps = &e, .n_eps = 1, .cases = &c, .n_cases = 1};
	struct rp_buf b;
	rp_buf_init(&b);
	rp_case_probe_cmd(&d, &c, &b);
	assert_string_equal(rp_buf_str(&b), "netsweep probe 10.0.0.2:5301 -P 2 -t 10");
	e.client_host = "10.0.0.1:5301";
	rp_buf_reset(&b);
	rp_case_probe_cmd(&d, &c, &b);
	assert_string_equal(rp_buf_str(&b),
			    "netsweep probe 10.0.0.2:5301 --from 10.0.0.1:5301 -P 2 -t 10");
	e.client_host = "client a;b";
	rp_buf_reset(&b);
	rp_case_probe_cmd(&d, &c, &b);
	assert_string_equal(rp_buf_str(&b),
			    "netsweep probe 10.0.0.2:5301 --from 'client a;b' -P 2 -t 10");
	rp_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_medians_and_spread),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_probe_cmd_from),
		cmocka_unit_test(test_run_cost),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
