/* report/analyze/plan.c, with the transfer ranking of report/analyze/cost.c it builds on: on
 * in-memory data, a cross-zone c5n.9xlarge first per dollar of instances and second with
 * transfer, said in one sentence; a EUR-priced Hetzner pair ranked in its own currency and
 * never in that sentence; the plan for 50 TB a month: one same-zone m5.8xlarge pair cheapest,
 * the cross-zone one with 1000.00 of transfer, the Hetzner server's allowance counted per
 * server, each currency apart; a need a pair cannot meet alone scaled out. */
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
#include "report/analyze/plan.h"

static struct rp_endpoint eps[3];
static struct rp_case cases[3];
static struct rp_data d;

static void fixture(void)
{
	memset(eps, 0, sizeof(eps));
	memset(cases, 0, sizeof(cases));
	static const struct {
		const char *name, *type, *relation, *currency;
		double per_hour, mbps, per_gb, included;
		enum cost_billed billed;
	} p[] = {
		{"c5n-cz", "c5n.9xlarge", "cross-zone", NULL, 2 * 1.944, 50000, 0.01, 0,
		 COST_BILLED_BOTH},
		{"m5-sz", "m5.8xlarge", "same-zone", NULL, 2 * 1.536, 10000, NAN, 0, 0},
		{"hz", "cx22", "internet", "EUR", 2 * 0.0119, 1000, 0.001, 20000, COST_BILLED_SENDER},
	};
	for (size_t i = 0; i < 3; i++) {
		eps[i].name = (char *)p[i].name;
		eps[i].instance_type = (char *)p[i].type;
		eps[i].currency = (char *)p[i].currency;
		eps[i].usd_per_hour = p[i].per_hour;
		eps[i].od_per_hour = eps[i].spot_per_hour = NAN;
		eps[i].emu_scale = 1;
		snprintf(eps[i].xfer.relation, sizeof(eps[i].xfer.relation), "%s", p[i].relation);
		if (!isnan(p[i].per_gb)) {
			eps[i].xfer.has_rule = 1;
			eps[i].xfer.billed = p[i].billed;
			eps[i].xfer.tiers[0] = (struct cost_tier){INFINITY, p[i].per_gb};
			eps[i].xfer.ntiers = 1;
			eps[i].xfer.included_gb = p[i].included;
		}
		cases[i].ep = i;
		cases[i].streams = 1;
		cases[i].protocol = "tcp";
		cases[i].n_ok = 1;
		cases[i].fig[RP_RCV_BPS].med = p[i].mbps * 1e6;
		cases[i].fig[RP_RCV_BPS].n = 1;
	}
	d = (struct rp_data){.eps = eps, .n_eps = 3, .cases = cases, .n_cases = 3};
}

static void ranking_with_transfer(void **state)
{
	(void)state;
	fixture();
	struct rp_cost_row *rows;
	size_t n;
	struct ns_err err = {0};
	assert_int_equal(rp_cost_build(&d, NULL, &rows, &n, &err), 0);
	assert_int_equal(n, 3);
	/* rank order: USD first (c5n 12860, m5 3255), then EUR */
	assert_string_equal(eps[rows[0].ep].name, "c5n-cz");
	assert_int_equal(rows[0].rank, 1);
	assert_int_equal(rows[0].total_rank, 2);
	assert_string_equal(eps[rows[1].ep].name, "m5-sz");
	assert_int_equal(rows[1].rank, 2);
	assert_int_equal(rows[1].total_rank, 1);
	assert_true(rows[1].transfer_per_hour == 0);
	/* 50 Gbit/s across zones: 22,500 GB an hour at 0.02 = 450.00 */
	assert_true(fabs(rows[0].transfer_per_hour - 450.0) < 1e-9);
	assert_true(fabs(rows[0].total_per_hour - 453.888) < 1e-9);
	assert_string_equal(eps[rows[2].ep].name, "hz");
	assert_int_equal(rows[2].rank, 1);
	assert_int_equal(rows[2].total_rank, 1);
	char s[1024];
	assert_int_equal(rp_cost_disagree(&d, rows, n, s, sizeof(s)), 1);
	assert_string_equal(s, "cross-zone c5n.9xlarge ranks first on instances but second with "
			    "transfer at 0.02 $/GB; same-zone m5.8xlarge (m5-sz) ranks first with it.");
	/* in agreement: no sentence */
	eps[0].xfer.tiers[0].per_gb = 0;
	free(rows);
	assert_int_equal(rp_cost_build(&d, NULL, &rows, &n, &err), 0);
	assert_int_equal(rp_cost_disagree(&d, rows, n, s, sizeof(s)), 0);
	free(rows);
}

static void plan_for_a_month(void **state)
{
	(void)state;
	fixture();
	struct rp_cost_row *rows;
	struct rp_plan_option *o;
	size_t n, no;
	struct ns_err err = {0};
	assert_int_equal(rp_cost_build(&d, NULL, &rows, &n, &err), 0);
	struct rp_plan_need need = {.monthly_gb = 50000,
				    .bps = 50000 * 8e9 / (730 * 3600.0)};
	assert_int_equal(rp_plan_build(&d, rows, n, &need, &o, &no, &err), 0);
	assert_int_equal(no, 3);
	assert_string_equal(eps[rows[o[0].row].ep].name, "m5-sz");
	assert_int_equal(o[0].rank, 1);
	assert_int_equal(o[0].pairs, 1);
	assert_true(fabs(o[0].total_month - 2242.56) < 1e-6);
	assert_string_equal(eps[rows[o[1].row].ep].name, "c5n-cz");
	assert_int_equal(o[1].rank, 2);
	assert_true(fabs(o[1].transfer_month - 1000.0) < 1e-6);
	assert_true(fabs(o[1].instances_month - 2838.24) < 1e-6);
	/* EUR apart, ranked 1 in it: 30 TB past the 20 TB allowance at 1 EUR a TB */
	assert_string_equal(o[2].currency, "EUR");
	assert_int_equal(o[2].rank, 1);
	assert_true(fabs(o[2].transfer_month - 30.0) < 1e-6);
	char s[1024];
	assert_int_equal(rp_plan_sentence(&d, rows, &need, o, no, s, sizeof(s)), 1);
	assert_non_null(strstr(s, "To move 50 TB a month: 1 pair of m5.8xlarge same-zone"));
	free(o);
	/* 25 Gbit/s held: m5.8xlarge's 10 Gbit/s need 3 pairs, c5n.9xlarge's 50 one, cx22's 1 25 */
	need = (struct rp_plan_need){.hold = true, .bps = 25e9,
				     .monthly_gb = 25e9 * 3600 / 8e9 * 730};
	assert_int_equal(rp_plan_build(&d, rows, n, &need, &o, &no, &err), 0);
	for (size_t i = 0; i < no; i++) {
		const char *name = eps[rows[o[i].row].ep].name;
		int want = !strcmp(name, "m5-sz") ? 3 : !strcmp(name, "c5n-cz") ? 1 : 25;
		assert_int_equal(o[i].pairs, want);
	}
	free(o);
	/* only cross-zone pairs */
	need.relation = "cross-zone";
	assert_int_equal(rp_plan_build(&d, rows, n, &need, &o, &no, &err), 0);
	assert_int_equal(no, 1);
	free(o);
	free(rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ranking_with_transfer),
		cmocka_unit_test(plan_for_a_month),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
