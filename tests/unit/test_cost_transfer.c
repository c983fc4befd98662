/* lib/cost's transfer model (issue 39): a cross-zone AWS pair at a measured rate billed on
 * both sides to the cent against a hand calculation, the same pair same-zone free, internet
 * egress through its monthly tiers at a stated volume, a Hetzner server's allowance, the
 * relation derived from the ends, a monthly volume as written; and the view v_cost_total
 * holding cost_total_figures row by row on a store made by the migration ladder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "lib/cost.h"
#include "lib/sql/store_schema.h"

static const struct cost_tier cross_zone_tiers[] = {{INFINITY, 0.01}};
static const struct cost_transfer_rule cross_zone = {COST_BILLED_BOTH, cross_zone_tiers, 1, 0};
/* AWS us-east-1 internet egress as the contract's example states it */
static const struct cost_tier internet_tiers[] = {
	{100, 0}, {10240, 0.09}, {51200, 0.085}, {153600, 0.07}, {INFINITY, 0.05},
};
static const struct cost_transfer_rule internet = {COST_BILLED_SENDER, internet_tiers, 5, 0};
/* Hetzner: 20 TB included per server, 1 EUR per TB past it */
static const struct cost_tier hetzner_tiers[] = {{INFINITY, 0.001}};
static const struct cost_transfer_rule hetzner = {COST_BILLED_SENDER, hetzner_tiers, 1, 20000};

static void cents(double got, double want)
{
	if (!(fabs(got - want) < 0.005))
		fail_msg("%.6f is not %.2f to the cent", got, want);
}

/* A pair of m5.large in us-east-1 (0.096 each an hour) measured at 4.2 Gbit/s across two
 * zones: 4.2e9 * 3600 / 8 = 1,890 GB an hour; 0.01 a GB charged to each side = 37.80 an hour;
 * with the instances 0.192 + 37.80 = 37.992 an hour; 1.89 TB an hour: 20.00 transfer and
 * 20.10 in all per TB moved. Same zone: no transfer, 0.192 an hour, 0.10 per TB. */
static void cross_zone_pair_by_hand(void **state)
{
	(void)state;
	struct cost_total t;
	double pair = cost_usd_per_hour(0.096, COST_PAIR);
	cost_total_figures(4.2e9, 1, pair, &cross_zone, "cross-zone", 0, &t);
	cents(t.gb_per_hour, 1890.00);
	cents(t.transfer_per_hour, 37.80);
	cents(t.total_per_hour, 37.99);
	assert_true(fabs(t.total_per_hour - 37.992) < 1e-9);
	cents(t.transfer_per_tb, 20.00);
	cents(t.total_per_tb, 20.10);
	assert_true(fabs(t.monthly_gb - 1890 * 730.0) < 1e-6);
	cents(t.mbps_per_instance_hour, 21875.00);    /* 4200 / 0.192 */
	cents(t.mbps_per_total_hour, 110.55);         /* 4200 / 37.992 */
	/* the same pair in one zone, no rule for it: free */
	cost_total_figures(4.2e9, 1, pair, NULL, "same-zone", 0, &t);
	assert_true(t.transfer_per_hour == 0);
	cents(t.total_per_hour, 0.19);
	cents(t.total_per_tb, 0.10);
	/* unknown relation: the transfer and so the total stay unknown, never guessed */
	cost_total_figures(4.2e9, 1, pair, NULL, "unknown", 0, &t);
	assert_true(isnan(t.transfer_per_hour) && isnan(t.total_per_hour));
	assert_true(fabs(t.mbps_per_instance_hour - 21875) < 1e-9);
	cost_total_figures(4.2e9, 1, pair, NULL, "cross-zone", 0, &t);
	assert_true(isnan(t.transfer_per_hour));
}

/* 60 TB a month out to the internet: 100 GB free, 10,140 at 0.09 (912.60), 40,960 at 0.085
 * (3,481.60), 8,800 at 0.07 (616.00) = 5,010.20 a month, 0.0835 a GB; at 1 Gbit/s (450 GB an
 * hour) 37.58 an hour. At 5 TB a month the average is 0.0882: 39.69 an hour. */
static void internet_follows_the_tiers(void **state)
{
	(void)state;
	cents(cost_transfer_month(&internet, 60000), 5010.20);
	cents(cost_transfer_month(&internet, 100), 0);
	cents(cost_transfer_month(&internet, 5000), 441.00);
	struct cost_total t;
	cost_total_figures(1e9, 1, 0.192, &internet, "internet", 60000, &t);
	cents(t.transfer_per_hour, 37.58);
	assert_true(t.monthly_gb == 60000);
	cost_total_figures(1e9, 1, 0.192, &internet, "internet", 5000, &t);
	cents(t.transfer_per_hour, 39.69);
	/* past the last bound: 200 TB a month */
	cents(cost_transfer_month(&internet, 200000),
	      912.60 + 3481.60 + 102400 * 0.07 + 46400 * 0.05);
}

/* A Hetzner server: 20 TB a month included; 15 TB costs nothing, 30 TB costs 10 TB past it
 * at 1 EUR per TB. */
static void hetzner_allowance(void **state)
{
	(void)state;
	cents(cost_transfer_month(&hetzner, 15000), 0);
	cents(cost_transfer_month(&hetzner, 20000), 0);
	cents(cost_transfer_month(&hetzner, 30000), 10.00);
	struct cost_total t;
	cost_total_figures(1e9, 1, 0.0119, &hetzner, "internet", 15000, &t);
	assert_true(t.transfer_per_hour == 0);
	cost_total_figures(1e9, 1, 0.0119, &hetzner, "internet", 30000, &t);
	cents(t.transfer_per_hour * 1000, 150.00); /* 10 / 30000 * 450 = 0.15 an hour */
}

static void relation_and_volume(void **state)
{
	(void)state;
	assert_string_equal(cost_relation("us-east-1", "a", "us-east-1", "a"), "same-zone");
	assert_string_equal(cost_relation("us-east-1", "a", "us-east-1", "b"), "cross-zone");
	assert_string_equal(cost_relation("us-east-1", "a", "us-west-2", "a"), "cross-region");
	assert_string_equal(cost_relation("us-east-1", NULL, "us-west-2", ""), "cross-region");
	assert_string_equal(cost_relation("us-east-1", NULL, "us-east-1", NULL), "unknown");
	assert_string_equal(cost_relation(NULL, NULL, NULL, NULL), "unknown");
	assert_true(cost_relation_valid("internet") && !cost_relation_valid("cross"));
	double gb;
	struct ns_err err = {0};
	assert_int_equal(cost_volume_parse("50TB", &gb, &err), 0);
	assert_true(gb == 50000);
	assert_int_equal(cost_volume_parse("1.5 tb", &gb, &err), 0);
	assert_true(gb == 1500);
	assert_int_equal(cost_volume_parse("500", &gb, &err), 0);
	assert_true(gb == 500);
	assert_int_equal(cost_volume_parse("50TiB", &gb, &err), -1);
	assert_non_null(strstr(err.msg, "TiB"));
	assert_int_equal(cost_volume_parse("-3TB", &gb, &err), -1);
	enum cost_billed b;
	assert_int_equal(cost_billed_parse("both", &b), 0);
	assert_int_equal(b, COST_BILLED_BOTH);
	assert_int_equal(cost_billed_parse("all", &b), -1);
}

static void exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
}

static double col(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static void same(double view, double c, const char *what, const char *pair)
{
	if (isnan(view) && isnan(c))
		return;
	if (!(fabs(view - c) <= 1e-9 * fmax(1, fabs(c))))
		fail_msg("%s of %s: the view says %.17g, lib/cost %.17g", what, pair, view, c);
}

/* Each pair: its relation, rate, the rule the view should find and the run's volume. */
static const struct {
	int run;
	const char *name, *provider, *type, *region, *agent_region, *relation, *currency;
	double unit, bps;
	const struct cost_transfer_rule *rule;
	double volume, included, scale;
} pairs[] = {
	{1, "cz", "aws", "m5.large", "us-east-1", NULL, "cross-zone", "USD", 0.096, 4.2e9,
	 &cross_zone, 0, 0, 0},
	{1, "sz", "aws", "m5.large", "us-east-1", NULL, "same-zone", "USD", 0.096, 4.9e9, NULL, 0, 0, 0},
	{1, "un", "aws", "m5.large", "us-east-1", NULL, "unknown", "USD", 0.096, 3e9, NULL, 0, 0, 0},
	{1, "cr", "aws", "c5n.large", "us-east-1", "us-west-2", "cross-region", "USD", 0.108, 2e9,
	 NULL /* the us-west-2 rule, below */, 0, 0, 0},
	{2, "in", "aws", "m5.large", "us-east-1", NULL, "internet", "USD", 0.096, 1e9, &internet,
	 60000, 0, 0},
	{2, "hz", "hetzner", "cx22", "fsn1", NULL, "internet", "EUR", 0.0119, 1e9, &hetzner, 60000,
	 20000, 0},
	/* a lab pair at 1/100: its 420 Mbit/s stand for 42 Gbit/s of traffic */
	{1, "lab", "aws", "m5.large", "us-east-1", NULL, "cross-zone", "USD", 0.096, 4.2e8,
	 &cross_zone, 0, 0, 0.01},
};

static const struct cost_tier to_west_tiers[] = {{INFINITY, 0.02}};
static const struct cost_transfer_rule to_west = {COST_BILLED_SENDER, to_west_tiers, 1, 0};

static void view_holds_the_formula(void **state)
{
	(void)state;
	sqlite3 *db;
	struct ns_err err = {0};
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	if (ns_store_migrate(db, &err) < 0)
		fail_msg("store: %s", err.msg);
	exec(db, "INSERT INTO runs(id, matrix_name, matrix_text, matrix_hash, started_at,"
		 " netsweep_version) VALUES (1, 'a', '<m/>', 'h', 't', 'v'), (2, 'b', '<m/>', 'h2',"
		 " 't', 'v');"
		 "INSERT INTO run_transfer_volume VALUES (2, 60000);"
		 "INSERT INTO run_transfer_prices VALUES"
		 " (1, 'aws', 'us-east-1', 'cross-zone', '', 'both', 'USD', '[{\"per_gb\":0.01}]', 'd', 's'),"
		 " (1, 'aws', 'us-east-1', 'cross-region', '', 'sender', 'USD', '[{\"per_gb\":0.09}]', 'd', 's'),"
		 " (1, 'aws', 'us-east-1', 'cross-region', 'us-west-2', 'sender', 'USD',"
		 "  '[{\"per_gb\":0.02}]', 'd', 's'),"
		 " (2, 'aws', 'us-east-1', 'internet', '', 'sender', 'USD', '[{\"up_to_gb\":100,"
		 "  \"per_gb\":0},{\"up_to_gb\":10240,\"per_gb\":0.09},{\"up_to_gb\":51200,\"per_gb\":0.085},"
		 "  {\"up_to_gb\":153600,\"per_gb\":0.07},{\"per_gb\":0.05}]', 'd', 's'),"
		 " (2, 'hetzner', 'fsn1', 'internet', '', 'sender', 'EUR', '[{\"per_gb\":0.001}]', 'd', 's');");
	char sql[2048];
	size_t n = sizeof(pairs) / sizeof(pairs[0]);
	for (size_t i = 0; i < n; i++) {
		snprintf(sql, sizeof(sql),
			 "INSERT OR IGNORE INTO run_instance_types(run_id, instance_type, provider)"
			 " VALUES (%d, '%s', '%s');"
			 "INSERT OR IGNORE INTO run_price_quotes(run_id, instance_type, region, pricing,"
			 " currency, per_hour, as_of, source) VALUES (%d, '%s', '%s',"
			 " 'on-demand', '%s', %.17g, 'd', 's');"
			 "INSERT INTO run_included_transfer SELECT %d, '%s', '%s', %s WHERE %d;"
			 "INSERT INTO endpoints(id, run_id, name, instance_type, region, agent_addr,"
			 " agent_region, relation) VALUES (%zu, %d, '%s', '%s', '%s', 'x:1', %s%s%s, '%s');"
			 "INSERT INTO cases(id, run_id, endpoint_id, case_key, ordinal, protocol, streams,"
			 " direction, duration_s, params) VALUES (%zu, %d, %zu, 'k%zu', %zu, 'tcp', 1,"
			 " 'forward', 10, '{}');"
			 "INSERT INTO results(case_id, repeat, started_at, finished_at, status, fwd_rcv_bps)"
			 " VALUES (%zu, 0, 'a', 'b', 'ok', %.17g);",
			 pairs[i].run, pairs[i].type, pairs[i].provider, pairs[i].run, pairs[i].type,
			 pairs[i].region, pairs[i].currency, pairs[i].unit, pairs[i].run, pairs[i].type,
			 pairs[i].region, pairs[i].included > 0 ? "20000" : "NULL", pairs[i].included > 0,
			 i + 1, pairs[i].run, pairs[i].name,
			 pairs[i].type, pairs[i].region, pairs[i].agent_region ? "'" : "",
			 pairs[i].agent_region ? pairs[i].agent_region : "NULL",
			 pairs[i].agent_region ? "'" : "", pairs[i].relation, i + 1, pairs[i].run, i + 1,
			 i, i, i + 1, pairs[i].bps);
		exec(db, sql);
		if (pairs[i].scale > 0) {
			snprintf(sql, sizeof(sql), "INSERT INTO endpoint_emulation VALUES (%zu,"
				 " '{\"lab\": \"netns\", \"scale\": %g}');", i + 1, pairs[i].scale);
			exec(db, sql);
		}
	}
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db,
		"SELECT pair, bps, instance_per_hour, gb_per_hour, monthly_gb, transfer_per_hour,"
		" total_per_hour, mbps_per_instance_hour, mbps_per_total_hour, transfer_per_tb,"
		" total_per_tb, currency, relation FROM v_cost_total ORDER BY result_id", -1, &st, NULL),
		SQLITE_OK);
	size_t rows = 0;
	for (; sqlite3_step(st) == SQLITE_ROW; rows++) {
		assert_true(rows < n);
		const char *name = (const char *)sqlite3_column_text(st, 0);
		assert_string_equal(name, pairs[rows].name);
		assert_string_equal((const char *)sqlite3_column_text(st, 11), pairs[rows].currency);
		assert_string_equal((const char *)sqlite3_column_text(st, 12), pairs[rows].relation);
		const struct cost_transfer_rule *rule =
			!strcmp(name, "cr") ? &to_west : pairs[rows].rule;
		struct cost_total t;
		double price = cost_usd_per_hour(pairs[rows].unit, COST_PAIR);
		cost_total_figures(pairs[rows].bps, pairs[rows].scale, price, rule,
				   pairs[rows].relation, pairs[rows].volume, &t);
		same(col(st, 1), pairs[rows].bps, "bps", name);
		same(col(st, 2), price, "instance_per_hour", name);
		same(col(st, 3), t.gb_per_hour, "gb_per_hour", name);
		same(col(st, 4), t.monthly_gb, "monthly_gb", name);
		same(col(st, 5), t.transfer_per_hour, "transfer_per_hour", name);
		same(col(st, 6), t.total_per_hour, "total_per_hour", name);
		same(col(st, 7), t.mbps_per_instance_hour, "mbps_per_instance_hour", name);
		same(col(st, 8), t.mbps_per_total_hour, "mbps_per_total_hour", name);
		same(col(st, 9), t.transfer_per_tb, "transfer_per_tb", name);
		same(col(st, 10), t.total_per_tb, "total_per_tb", name);
	}
	sqlite3_finalize(st);
	assert_int_equal(rows, n);
	/* the hand-checked pair through the view: 37.80 transfer, 37.992 in all an hour */
	sqlite3_stmt *q;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT transfer_per_hour, total_per_hour FROM"
		" v_cost_total WHERE pair = 'cz'", -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	cents(col(q, 0), 37.80);
	assert_true(fabs(col(q, 1) - 37.992) < 1e-9);
	sqlite3_finalize(q);
	/* the lab pair: 42 Gbit/s of traffic priced, 378.00 an hour */
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT transfer_per_hour, lab_scale FROM"
		" v_cost_total WHERE pair = 'lab'", -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	cents(col(q, 0), 378.00);
	assert_true(col(q, 1) == 0.01);
	sqlite3_finalize(q);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cross_zone_pair_by_hand),
		cmocka_unit_test(internet_follows_the_tiers),
		cmocka_unit_test(hetzner_allowance),
		cmocka_unit_test(relation_and_volume),
		cmocka_unit_test(view_holds_the_formula),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
