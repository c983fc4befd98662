/* lib/cost: the m4 post's last column from its bandwidths and the catalog's Tokyo prices, the
 * pair vs sender basis, missing prices that stay missing, and the store's cost views holding
 * the same formula as the C functions, row by row, on a store made by the migration ladder;
 * and v_cost_ranking holding the report's ranking (report/analyze/cost_rank.h) row by row, in every
 * pricing model and currency, converted or ranked apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/cost.h"
#include "lib/sql/store_schema.h"
#include "report/analyze/burst.h"
#include "report/analyze/cost_rank.h"
#include "report/load/data.h"
#include "report/load/itypes.h"
#include "report/load/price/pricing.h"
#include "lib/catalog/catalog.h"
#include "runner/host/wire.h"

/* The m4 post (data/matrices/m4-family.xml): iperf Mbit/s and the Mbit/s per $/hour it printed. */
static const struct {
	const char *type;
	double mbps, price, printed;
} m4[] = {
	{"m4.large", 436, 0.183, 2383},  {"m4.xlarge", 730, 0.366, 1995},
	{"m4.2xlarge", 965, 0.732, 1318}, {"m4.4xlarge", 1930, 1.464, 1318},
	{"m4.10xlarge", 5890, 3.66, 1609},
};

static void m4_table_last_column(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(m4) / sizeof(m4[0]); i++) {
		/* The post priced the sender alone. */
		double usd = cost_usd_per_hour(m4[i].price, COST_SENDER);
		double v = cost_mbps_per_usd_hour(m4[i].mbps * 1e6, usd);
		assert_int_equal(lround(v), (long)m4[i].printed);
	}
}

static void m4_prices_come_from_the_catalog(void **state)
{
	(void)state;
	struct catalog c;
	catalog_init(&c);
	struct ns_err err = {0};
	assert_int_equal(catalog_load(&c, NETSWEEP_DATADIR "/catalog/aws.xml", &err), 0);
	for (size_t i = 0; i < sizeof(m4) / sizeof(m4[0]); i++) {
		const struct catalog_price *p = catalog_price(&c, m4[i].type, "ap-northeast-1");
		assert_non_null(p);
		assert_true(fabs(p->per_hour - m4[i].price) < 1e-9);
		double v = cost_mbps_per_usd_hour(m4[i].mbps * 1e6,
						  cost_usd_per_hour(p->per_hour, COST_SENDER));
		assert_int_equal(lround(v), (long)m4[i].printed);
	}
	catalog_free(&c);
}

static void pair_costs_twice_the_sender(void **state)
{
	(void)state;
	double s = cost_usd_per_hour(0.183, COST_SENDER), p = cost_usd_per_hour(0.183, COST_PAIR);
	assert_true(fabs(p - 2 * s) < 1e-12);
	/* Half the Mbit/s per dollar-hour when both ends are paid for. */
	double ms = cost_mbps_per_usd_hour(436e6, s), mp = cost_mbps_per_usd_hour(436e6, p);
	assert_true(fabs(ms - 2 * mp) < 1e-9);
	enum cost_basis b;
	assert_int_equal(cost_basis_parse("sender", &b, NULL), 0);
	assert_int_equal(b, COST_SENDER);
	assert_int_equal(cost_basis_parse("pair", &b, NULL), 0);
	assert_int_equal(b, COST_PAIR);
	struct ns_err err = {0};
	assert_int_equal(cost_basis_parse("both", &b, &err), -1);
	assert_non_null(strstr(err.msg, "both"));
}

static void dollars_per_gbps_hour_and_run_cost(void **state)
{
	(void)state;
	/* c5n.18xlarge at its 100 Gbit/s: 3.888 $/h -> 0.03888 $ per Gbit/s-hour. */
	assert_true(fabs(cost_usd_per_gbps_hour(100e9, 3.888) - 0.03888) < 1e-12);
	/* 300 s of a pair of m4.large in Tokyo: 2 * 0.183 * 300 / 3600. */
	double usd = cost_run_usd(cost_usd_per_hour(0.183, COST_PAIR), 300);
	assert_true(fabs(usd - 0.0305) < 1e-12);
}

static void missing_prices_stay_missing(void **state)
{
	(void)state;
	assert_true(isnan(cost_usd_per_hour(0, COST_PAIR)));
	assert_true(isnan(cost_usd_per_hour(NAN, COST_SENDER)));
	assert_true(isnan(cost_usd_per_hour(-1, COST_SENDER)));
	assert_true(isnan(cost_mbps_per_usd_hour(1e9, NAN)));
	assert_true(isnan(cost_usd_per_gbps_hour(0, 1.0)));
	assert_true(isnan(cost_run_usd(NAN, 10)));
	assert_true(isnan(cost_run_usd(1.0, -1)));
	assert_true(isnan(cost_usd_per_million(0, 1.0)));
	assert_true(isnan(cost_usd_per_million(1000, NAN)));
	/* 1,000 transactions a second on a 3.60 $/hour pair: 3.6 M an hour, 1 $ per million */
	assert_true(fabs(cost_usd_per_million(1000, 3.6) - 1.0) < 1e-12);
	/* Zero throughput at a known price is a real figure: nothing per dollar. */
	assert_true(cost_mbps_per_usd_hour(0, 1.0) == 0);
}

static double one_double(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	double v = sqlite3_column_type(st, 0) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* The views of schemas/store.sql that reports and ad-hoc SQL read must give the figures these
 * functions give: one m4 pair per row of the post, priced per sender, plus one priceless pair. */
static void store_views_agree(void **state)
{
	(void)state;
	sqlite3 *db;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	char *msg = NULL;
	struct ns_err err = {0};
	/* through the ladder: a view may read a column a later step added (v_results' zone) */
	if (ns_store_migrate(db, &err) < 0)
		fail_msg("store.sql: %s", err.msg);
	int rc = sqlite3_exec(db,
		"INSERT INTO runs(id, matrix_name, matrix_text, matrix_hash, started_at, netsweep_version)"
		" VALUES (1, 'm4', '<matrix/>', 'h', '2026-01-01T00:00:00Z', 't');", NULL, NULL, &msg);
	assert_int_equal(rc, SQLITE_OK);
	char sql[1024];
	size_t n = sizeof(m4) / sizeof(m4[0]);
	for (size_t i = 0; i <= n; i++) {
		/* Pair n is an instance type the catalog has no price for. */
		const char *type = i < n ? m4[i].type : "z9.huge";
		double mbps = i < n ? m4[i].mbps : 100;
		snprintf(sql, sizeof(sql),
			 "INSERT INTO endpoints(id, run_id, name, instance_type, region, agent_addr,"
			 " price_basis, link_bps) VALUES (%zu, 1, 'p%zu', '%s', 'ap-northeast-1', 'x:1',"
			 " 'sender', 10000000000);"
			 "INSERT INTO cases(id, run_id, endpoint_id, case_key, ordinal, protocol, streams,"
			 " length, direction, duration_s, omit_s, params) VALUES (%zu, 1, %zu, 'k%zu', %zu,"
			 " 'udp', 1, 1472, 'forward', 300, 2, '{}');"
			 "INSERT INTO results(case_id, repeat, started_at, finished_at, status, fwd_rcv_bps)"
			 " VALUES (%zu, 0, 'a', 'b', 'ok', %.1f);",
			 i + 1, i, type, i + 1, i + 1, i, i, i + 1, mbps * 1e6);
		assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK);
		if (i < n) {
			snprintf(sql, sizeof(sql),
				 "INSERT INTO run_prices VALUES (1, '%s', 'ap-northeast-1', %.3f,"
				 " '2015-06-01', 'test');", type, m4[i].price);
			assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK);
		}
	}
	double run_usd = 0;
	for (size_t i = 0; i < n; i++) {
		double usd = cost_usd_per_hour(m4[i].price, COST_SENDER);
		snprintf(sql, sizeof(sql),
			 "SELECT mbps_per_usd_hour FROM v_cost WHERE instance_type = '%s'", m4[i].type);
		double v = one_double(db, sql);
		assert_true(fabs(v - cost_mbps_per_usd_hour(m4[i].mbps * 1e6, usd)) < 1e-6);
		assert_int_equal(lround(v), (long)m4[i].printed);
		snprintf(sql, sizeof(sql),
			 "SELECT usd_per_gbps_hour FROM v_cost WHERE instance_type = '%s'", m4[i].type);
		assert_true(fabs(one_double(db, sql) - cost_usd_per_gbps_hour(m4[i].mbps * 1e6, usd)) < 1e-9);
		snprintf(sql, sizeof(sql),
			 "SELECT case_cost_usd FROM v_cost WHERE instance_type = '%s'", m4[i].type);
		assert_true(fabs(one_double(db, sql) - cost_run_usd(usd, 302)) < 1e-12);
		run_usd += cost_run_usd(usd, 302);
	}
	/* The ranking puts the smallest first, as the post concluded. */
	assert_true(one_double(db, "SELECT rank FROM v_cost_ranking WHERE instance_type = 'm4.large'") == 1);
	assert_true(one_double(db, "SELECT rank FROM v_cost_ranking WHERE instance_type = 'm4.xlarge'") == 2);
	/* The run's cost sums the priced pairs and counts the one without a price. */
	assert_true(fabs(one_double(db, "SELECT usd FROM v_run_cost WHERE run_id = 1") - run_usd) < 1e-12);
	assert_true(one_double(db, "SELECT results_without_price FROM v_run_cost") == 1);
	assert_true(isnan(one_double(db, "SELECT usd_per_hour FROM v_endpoint_prices WHERE instance_type = 'z9.huge'")));
	/* Wire references: 1472-byte datagrams on 10 Gbit/s. */
	assert_true(fabs(one_double(db, "SELECT wire_pps FROM v_wire_rate LIMIT 1") -
			 wire_udp4_pps(10e9, 1472)) < 1e-6);
	assert_true(fabs(one_double(db, "SELECT wire_goodput_bps FROM v_wire_rate LIMIT 1") -
			 wire_udp4_goodput_bps(10e9, 1472)) < 1e-3);
	sqlite3_close(db);
}

/* Equal as the store gives them: the same double, or both missing (SQL NULL is NaN here). */
static void same(double view, double c, const char *what, long long row)
{
	if (isnan(view) && isnan(c))
		return;
	if (!(fabs(view - c) <= 1e-12 * fabs(c)))
		fail_msg("%s of row %lld: the view says %.17g, lib/cost %.17g", what, row, view, c);
}

static double col(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* A new store at path (a mkstemp template) opened as the runner opens one: the whole ladder. */
static sqlite3 *open_migrated(char *path)
{
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	sqlite3 *db;
	struct ns_err err = {0};
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (ns_store_migrate(db, &err) < 0)
		fail_msg("migrate: %s", err.msg);
	return db;
}

/* A store opened as the runner opens one (the whole ladder), results of both price bases,
 * several durations and rates, one pair without a price: every v_cost row, every
 * v_endpoint_prices row, v_run_cost and v_cost_ranking's per-dollar column must be what
 * lib/cost computes from the same row's inputs. */
static void views_hold_the_c_formula_row_by_row(void **state)
{
	(void)state;
	char path[] = "/tmp/test_cost_XXXXXX";
	sqlite3 *db = open_migrated(path);
	char *msg = NULL;
	if (sqlite3_exec(db, "INSERT INTO runs(id, matrix_name, matrix_text, matrix_hash, started_at,"
			 " netsweep_version) VALUES (1, 'm', '<matrix/>', 'h', '2026-01-01T00:00:00Z',"
			 " 't')", NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s", msg);
	static const struct {
		const char *type, *basis;
		double price; /* 0: no price for this type */
	} eps[] = {{"c5n.large", "pair", 0.108}, {"c5n.18xlarge", "sender", 3.888},
		   {"m6i.metal", "pair", 6.144}, {"z9.huge", "pair", 0}};
	static const double bps[] = {436e6, 9.41e9, 99.7e9, 1, 0, 12345678.9};
	static const struct { double dur, omit; } times[] = {{10, 2}, {300, 0}, {1.5, 0.5}};
	sqlite3_stmt *ins;
	long long case_id = 0;
	for (size_t e = 0; e < sizeof(eps) / sizeof(eps[0]); e++) {
		char sql[512];
		snprintf(sql, sizeof(sql),
			 "INSERT INTO endpoints(id, run_id, name, instance_type, region, agent_addr,"
			 " price_basis) VALUES (%zu, 1, 'p%zu', '%s', 'eu-west-1', 'x:1', '%s')",
			 e + 1, e, eps[e].type, eps[e].basis);
		assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK);
		if (eps[e].price > 0) {
			snprintf(sql, sizeof(sql), "INSERT INTO run_prices VALUES (1, '%s', 'eu-west-1',"
				 " %.17g, '2026-01-01', 'test')", eps[e].type, eps[e].price);
			assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK);
		}
		for (size_t b = 0; b < sizeof(bps) / sizeof(bps[0]); b++) {
			size_t t = (e + b) % (sizeof(times) / sizeof(times[0]));
			case_id++;
			assert_int_equal(sqlite3_prepare_v2(db,
				"INSERT INTO cases(id, run_id, endpoint_id, case_key, ordinal, protocol,"
				" streams, length, direction, duration_s, omit_s, params) VALUES (?1, 1, ?2,"
				" 'k' || ?1, ?1, 'tcp', 1, 0, 'forward', ?3, ?4, '{}')", -1, &ins, NULL),
				SQLITE_OK);
			sqlite3_bind_int64(ins, 1, case_id);
			sqlite3_bind_int64(ins, 2, (long long)e + 1);
			sqlite3_bind_double(ins, 3, times[t].dur);
			sqlite3_bind_double(ins, 4, times[t].omit);
			assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
			sqlite3_finalize(ins);
			assert_int_equal(sqlite3_prepare_v2(db,
				"INSERT INTO results(case_id, repeat, started_at, finished_at, status,"
				" fwd_rcv_bps) VALUES (?1, 0, 'a', 'b', ?2, ?3)", -1, &ins, NULL), SQLITE_OK);
			sqlite3_bind_int64(ins, 1, case_id);
			sqlite3_bind_text(ins, 2, b == 5 ? "failed" : "ok", -1, SQLITE_STATIC);
			sqlite3_bind_double(ins, 3, bps[b]);
			assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
			sqlite3_finalize(ins);
		}
	}
	sqlite3_stmt *st;
	/* each endpoint's hourly price from its unit price and basis */
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT endpoint_id, unit_usd_per_hour, price_basis,"
					    " usd_per_hour FROM v_endpoint_prices", -1, &st, NULL),
			 SQLITE_OK);
	int rows = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		enum cost_basis basis;
		assert_int_equal(cost_basis_parse((const char *)sqlite3_column_text(st, 2), &basis,
						  NULL), 0);
		same(col(st, 3), cost_usd_per_hour(col(st, 1), basis), "usd_per_hour",
		     sqlite3_column_int64(st, 0));
		rows++;
	}
	sqlite3_finalize(st);
	assert_int_equal(rows, 4);
	/* every successful result's cost figures from its goodput, price and duration */
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT result_id, goodput_bps, usd_per_hour,"
		" mbps_per_usd_hour, usd_per_gbps_hour, case_cost_usd, duration_s + omit_s"
		" FROM v_cost", -1, &st, NULL), SQLITE_OK);
	rows = 0;
	double run_usd = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(st, 0);
		double g = col(st, 1), usd = col(st, 2);
		same(col(st, 3), cost_mbps_per_usd_hour(g, usd), "mbps_per_usd_hour", id);
		same(col(st, 4), cost_usd_per_gbps_hour(g, usd), "usd_per_gbps_hour", id);
		same(col(st, 5), cost_run_usd(usd, col(st, 6)), "case_cost_usd", id);
		if (!isnan(cost_run_usd(usd, col(st, 6))))
			run_usd += cost_run_usd(usd, col(st, 6));
		rows++;
	}
	sqlite3_finalize(st);
	assert_int_equal(rows, 4 * 5); /* v_cost joins every endpoint; the failed ones left out */
	same(one_double(db, "SELECT usd FROM v_run_cost WHERE run_id = 1"), run_usd, "v_run_cost.usd",
	     1);
	/* the ranking's per-dollar figure of each priced pair's ranked case */
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT endpoint_id, mbps * 1e6, usd_per_hour,"
					    " mbps_per_usd_hour FROM v_cost_ranking", -1, &st, NULL),
			 SQLITE_OK);
	rows = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		same(col(st, 3), cost_mbps_per_usd_hour(col(st, 1), col(st, 2)),
		     "v_cost_ranking.mbps_per_usd_hour", sqlite3_column_int64(st, 0));
		rows++;
	}
	sqlite3_finalize(st);
	assert_int_equal(rows, 3);
	sqlite3_close(db);
	unlink(path);
}


static void exec_ok(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
}

/* Three runs of the same six pairs: on-demand (the default) with a euro price converted at
 * the run's rate, pound prices ranked apart and a tie; spot (run_pricing); and one from before
 * the quotes (run_prices only). The report's ranking of each (rp_cost_build after the report's
 * pricing) and v_cost_ranking must hold the same rows: pair, case, currency, price, rank. */
static void view_ranks_as_the_report(void **state)
{
	(void)state;
	char path[] = "/tmp/test_cost_rank_XXXXXX";
	sqlite3 *db = open_migrated(path);
	struct ns_err err = {0};
	static const struct {
		const char *type, *basis;
		double bps[2];
	} eps[] = {
		{"m5.large", "pair", {400e6, 900e6}},     {"Standard_D2s_v5", "pair", {1e9, 2e9}},
		{"cx22", "sender", {300e6, 100e6}},       {"PRO2-S", "pair", {1.6e9, 1.5e9}},
		{"z9.huge", "pair", {5e9, 1e9}},          {"m5.xlarge", "pair", {1.8e9, 0.5e9}},
	};
	/* type, model, currency, unit price: m5.xlarge ties m5.large on demand (1.8 at 0.192
	 * against 0.9 at 0.096); z9.huge has none */
	static const struct {
		const char *type, *pricing, *currency;
		double unit;
	} quotes[] = {
		{"m5.large", "on-demand", "USD", 0.096},      {"m5.large", "spot", "USD", 0.035},
		{"Standard_D2s_v5", "on-demand", "EUR", 0.09}, {"Standard_D2s_v5", "spot", "EUR", 0.02},
		{"cx22", "on-demand", "GBP", 0.006},          {"PRO2-S", "on-demand", "GBP", 0.2386},
		{"m5.xlarge", "on-demand", "USD", 0.192},
	};
	char sql[1024];
	long long case_id = 0;
	for (int run = 1; run <= 3; run++) {
		snprintf(sql, sizeof(sql), "INSERT INTO runs(id, matrix_name, matrix_text, matrix_hash,"
			 " started_at, netsweep_version) VALUES (%d, 'm', '<matrix/>', 'h',"
			 " '2026-01-0%dT00:00:00Z', 't')", run, run);
		exec_ok(db, sql);
		if (run == 1) {
			snprintf(sql, sizeof(sql), "INSERT INTO run_fx VALUES (%d, 'EUR', 1.1, "
				 "'2026-01-01', 'test')", run);
			exec_ok(db, sql);
		}
		if (run == 2) {
			snprintf(sql, sizeof(sql), "INSERT INTO run_pricing VALUES (%d, 'spot', '')", run);
			exec_ok(db, sql);
		}
		for (size_t q = 0; q < sizeof(quotes) / sizeof(quotes[0]); q++) {
			if (!strcmp(quotes[q].pricing, "on-demand") && !strcmp(quotes[q].currency, "USD")) {
				snprintf(sql, sizeof(sql), "INSERT INTO run_prices VALUES (%d, '%s', 'r1',"
					 " %.17g, '2026-01-01', 'test')", run, quotes[q].type, quotes[q].unit);
				exec_ok(db, sql);
			}
			if (run == 3)
				continue; /* a run from before the quotes */
			snprintf(sql, sizeof(sql), "INSERT INTO run_price_quotes (run_id, instance_type,"
				 " region, pricing, term, currency, per_hour, as_of, source) VALUES (%d,"
				 " '%s', 'r1', '%s', '', '%s', %.17g, '2026-01-01', 'test')", run,
				 quotes[q].type, quotes[q].pricing, quotes[q].currency, quotes[q].unit);
			exec_ok(db, sql);
		}
		for (size_t e = 0; e < sizeof(eps) / sizeof(eps[0]); e++) {
			long long ep = run * 100 + (long long)e;
			snprintf(sql, sizeof(sql), "INSERT INTO endpoints(id, run_id, name, instance_type,"
				 " region, agent_addr, price_basis) VALUES (%lld, %d, 'p%zu', '%s', 'r1',"
				 " 'x:1', '%s')", ep, run, e, eps[e].type, eps[e].basis);
			exec_ok(db, sql);
			for (int c = 0; c < 2; c++) {
				case_id++;
				snprintf(sql, sizeof(sql), "INSERT INTO cases(id, run_id, endpoint_id,"
					 " case_key, ordinal, protocol, streams, length, direction, duration_s,"
					 " omit_s, params) VALUES (%lld, %d, %lld, 'k%zu-%d', %lld, 'tcp', %d, 0,"
					 " 'forward', 10, 0, '{}');"
					 "INSERT INTO results(case_id, repeat, started_at, finished_at, status,"
					 " fwd_rcv_bps) VALUES (%lld, 0, 'a', 'b', 'ok', %.17g)", case_id, run,
					 ep, e, c, case_id, c + 1, case_id, eps[e].bps[c]);
				exec_ok(db, sql);
			}
		}
	}
	const size_t want_rows[] = {0, 5, 2, 2}; /* priced pairs of runs 1, 2, 3 */
	for (int run = 1; run <= 3; run++) {
		struct rp_data d = {0};
		struct rp_pricing pr = {0};
		struct rp_cost_row *rows = NULL;
		size_t n = 0, ranked = 0;
		if (rp_data_load(db, run, &d, &err) < 0 || rp_pricing_load(db, &d, &pr, &err) < 0)
			fail_msg("report load of run %d: %s", run, err.msg);
		rp_pricing_settle(&d, &pr);
		assert_int_equal(rp_cost_build(&d, NULL, &rows, &n, &err), 0);
		sqlite3_stmt *st;
		assert_int_equal(sqlite3_prepare_v2(db, "SELECT case_id, currency, per_hour, mbps,"
			" rank, usd_per_hour, mbps_per_usd_hour, mbps_per_hour FROM v_cost_ranking"
			" WHERE endpoint_id = ?1", -1, &st, NULL), SQLITE_OK);
		for (size_t i = 0; i < n; i++) {
			const struct rp_cost_row *r = &rows[i];
			const struct rp_endpoint *e = &d.eps[r->ep];
			sqlite3_reset(st);
			sqlite3_bind_int64(st, 1, e->id);
			int found = sqlite3_step(st) == SQLITE_ROW;
			if (!r->rank) {
				if (found)
					fail_msg("run %d pair %s: the view ranks it %d, the report leaves it "
						 "unranked", run, e->name, sqlite3_column_int(st, 4));
				continue;
			}
			if (!found)
				fail_msg("run %d pair %s: ranked %d by the report, not in the view", run,
					 e->name, r->rank);
			ranked++;
			const char *cur = (const char *)sqlite3_column_text(st, 1);
			if (sqlite3_column_int64(st, 0) != d.cases[r->best_case].id ||
			    strcmp(cur, r->currency ? r->currency : "USD") ||
			    sqlite3_column_int(st, 4) != r->rank)
				fail_msg("run %d pair %s: the view has case %lld, %s, rank %d; the report "
					 "case %lld, %s, rank %d", run, e->name,
					 (long long)sqlite3_column_int64(st, 0), cur,
					 sqlite3_column_int(st, 4), d.cases[r->best_case].id,
					 r->currency ? r->currency : "USD", r->rank);
			same(col(st, 2), r->usd_per_hour, "per_hour", e->id);
			same(col(st, 3), r->mbps, "mbps", e->id);
			same(col(st, 7), r->mbps_per_usd_hour, "mbps_per_hour", e->id);
			/* the US-dollar columns: the same figures, or NULL in another currency */
			bool usd = !strcmp(cur, "USD");
			same(col(st, 5), usd ? r->usd_per_hour : NAN, "usd_per_hour", e->id);
			same(col(st, 6), usd ? r->mbps_per_usd_hour : NAN, "mbps_per_usd_hour", e->id);
		}
		sqlite3_finalize(st);
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM v_cost_ranking WHERE run_id = %d", run);
		assert_int_equal((size_t)one_double(db, sql), ranked);
		assert_int_equal(ranked, want_rows[run]);
		free(rows);
		rp_data_free(&d);
	}
	/* what that means, read in the view: the euro price converted and ranked with the dollars,
	 * pounds apart from 1, the tie shared, spot ranked on spot prices */
	assert_true(one_double(db, "SELECT rank FROM v_cost_ranking WHERE run_id = 1 AND"
			       " instance_type = 'Standard_D2s_v5' AND currency = 'USD'") == 1);
	assert_true(one_double(db, "SELECT count(*) FROM v_cost_ranking WHERE run_id = 1 AND"
			       " instance_type LIKE 'm5.%' AND rank = 2") == 2);
	assert_true(one_double(db, "SELECT rank FROM v_cost_ranking WHERE run_id = 1 AND"
			       " instance_type = 'cx22' AND currency = 'GBP'") == 1);
	assert_true(one_double(db, "SELECT rank FROM v_cost_ranking WHERE run_id = 1 AND"
			       " instance_type = 'PRO2-S' AND currency = 'GBP'") == 2);
	assert_true(fabs(one_double(db, "SELECT per_hour FROM v_cost_ranking WHERE run_id = 2 AND"
				    " instance_type = 'm5.large'") - 0.07) < 1e-12);
	assert_true(one_double(db, "SELECT count(*) FROM v_cost_ranking WHERE run_id = 2 AND"
			       " pricing = 'spot'") == 2);
	sqlite3_close(db);
	unlink(path);
}

/* An "up to" type with a sustained rate measured ranks on it, not on a short case's credit
 * (v_cost_ranking version 26 and rp_cost_build), and v_burst_window says what
 * report/analyze/burst.h says: m5.large "up" has a 2 s case at 5 Gbit/s and a 600 s case that
 * stepped down to 0.74 after 300 s; m4.large "flat" (no "up to") the same cases; m5.large
 * "short" only 2 s cases, one above its 0.75 Gbit/s baseline. */
static void burst_ranks_on_sustained(void **state)
{
	(void)state;
	char path[] = "/tmp/test_cost_burst_XXXXXX";
	sqlite3 *db = open_migrated(path);
	struct ns_err err = {0};
	exec_ok(db, "INSERT INTO runs(id, matrix_name, matrix_text, matrix_hash, started_at,"
		" netsweep_version) VALUES (1, 'm', '<matrix/>', 'h', '2026-01-01T00:00:00Z', 't');"
		"INSERT INTO run_prices VALUES (1, 'm5.large', 'r1', 0.096, '2026-01-01', 't');"
		"INSERT INTO run_prices VALUES (1, 'm4.large', 'r1', 0.1, '2026-01-01', 't');"
		"INSERT INTO run_instance_types(run_id, instance_type, network_gbps, baseline_gbps,"
		" network_up_to) VALUES (1, 'm5.large', 10, 0.75, 1), (1, 'm4.large', 0.45, NULL,"
		" NULL)");
	static const struct {
		const char *name, *type;
		double dur[2], bps[2], sustained[2];
	} eps[] = {
		{"up", "m5.large", {2, 600}, {5e9, 2e9}, {0, 0.74e9}},
		{"flat", "m4.large", {2, 600}, {5e9, 2e9}, {0, 0.74e9}},
		{"short", "m5.large", {2, 2}, {3e9, 0.5e9}, {0, 0}},
	};
	char sql[1024];
	for (int e = 0; e < 3; e++) {
		snprintf(sql, sizeof(sql), "INSERT INTO endpoints(id, run_id, name, instance_type,"
			 " region, agent_addr, price_basis) VALUES (%d, 1, '%s', '%s', 'r1', 'x:1',"
			 " 'pair')", e + 1, eps[e].name, eps[e].type);
		exec_ok(db, sql);
		for (int c = 0; c < 2; c++) {
			int id = e * 2 + c + 1;
			snprintf(sql, sizeof(sql), "INSERT INTO cases(id, run_id, endpoint_id, case_key,"
				 " ordinal, protocol, streams, length, direction, duration_s, omit_s,"
				 " params) VALUES (%d, 1, %d, 'k%d', %d, 'tcp', 1, 0, 'forward', %g, 0,"
				 " '{}'); INSERT INTO results(id, case_id, repeat, started_at, finished_at,"
				 " status, fwd_rcv_bps) VALUES (%d, %d, 0, 'a', 'b', 'ok', %.17g)", id,
				 e + 1, id, id, eps[e].dur[c], id, id, eps[e].bps[c]);
			exec_ok(db, sql);
			if (eps[e].sustained[c] > 0) {
				snprintf(sql, sizeof(sql), "INSERT INTO result_phases VALUES (%d, 'fwd',"
					 " 5e9, 300, %.17g)", id, eps[e].sustained[c]);
				exec_ok(db, sql);
			}
		}
	}
	struct rp_data d = {0};
	struct rp_cost_row *rows = NULL;
	size_t n = 0;
	if (rp_data_load(db, 1, &d, &err) < 0 || rp_itypes_load(db, &d, &err) < 0)
		fail_msg("report load: %s", err.msg);
	assert_int_equal(rp_cost_build(&d, NULL, &rows, &n, &err), 0);
	rp_burst_mark(&d, rows, n);
	/* name, ranked case, Mbit/s, inside, window from */
	static const struct {
		const char *name;
		long long case_id;
		double mbps;
		int inside;
		const char *from;
	} want[] = {
		{"up", 2, 740, 0, "measured"}, {"flat", 3, 5000, 0, NULL},
		{"short", 5, 3000, 1, "documented"},
	};
	for (size_t w = 0; w < 3; w++) {
		const struct rp_cost_row *r = NULL;
		for (size_t i = 0; i < n; i++)
			if (!strcmp(d.eps[rows[i].ep].name, want[w].name))
				r = &rows[i];
		assert_non_null(r);
		assert_int_equal(d.cases[r->best_case].id, want[w].case_id);
		assert_true(fabs(r->mbps - want[w].mbps) < 1e-6);
		assert_int_equal(r->inside_burst, want[w].inside);
		assert_int_equal(r->burst_window, want[w].from != NULL);
		snprintf(sql, sizeof(sql), "SELECT case_id FROM v_cost_ranking WHERE endpoint = '%s'",
			 want[w].name);
		assert_int_equal((long long)one_double(db, sql), want[w].case_id);
		snprintf(sql, sizeof(sql), "SELECT mbps FROM v_cost_ranking WHERE endpoint = '%s'",
			 want[w].name);
		same(one_double(db, sql), r->mbps, "mbps", w);
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM v_burst_window WHERE endpoint = '%s'"
			 " AND inside_burst = %d AND window_from = '%s'", want[w].name, want[w].inside,
			 want[w].from ? want[w].from : "none");
		assert_int_equal((int)one_double(db, sql), want[w].from ? 1 : 0);
	}
	assert_true(fabs(one_double(db, "SELECT window_s FROM v_burst_window WHERE endpoint = 'up'")
			 - 300) < 1e-9);
	free(rows);
	rp_data_free(&d);
	sqlite3_close(db);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(m4_table_last_column),
		cmocka_unit_test(m4_prices_come_from_the_catalog),
		cmocka_unit_test(pair_costs_twice_the_sender),
		cmocka_unit_test(dollars_per_gbps_hour_and_run_cost),
		cmocka_unit_test(missing_prices_stay_missing),
		cmocka_unit_test(store_views_agree),
		cmocka_unit_test(views_hold_the_c_formula_row_by_row),
		cmocka_unit_test(view_ranks_as_the_report),
		cmocka_unit_test(burst_ranks_on_sustained),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
