/* cost: the m4 post's last column from its bandwidths and the catalog's Tokyo prices, the pair
 * vs sender basis, and missing prices that stay missing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "runner/host/catalog.h"
#include "runner/host/cost.h"

/* The m4 post (SEEDS.md 002): iperf Mbit/s and the Mbit/s per $/hour it printed. */
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
	struct ns_err err = {{0}};
	assert_int_equal(catalog_load(&c, NETSWEEP_DATADIR "/catalog/aws.xml", &err), 0);
	for (size_t i = 0; i < sizeof(m4) / sizeof(m4[0]); i++) {
		const struct catalog_price *p = catalog_price(&c, m4[i].type, "ap-northeast-1");
		assert_non_null(p);
		assert_true(fabs(p->usd_per_hour - m4[i].price) < 1e-9);
		double v = cost_mbps_per_usd_hour(m4[i].mbps * 1e6,
						  cost_usd_per_hour(p->usd_per_hour, COST_SENDER));
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
	struct ns_err err = {{0}};
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
	/* Zero throughput at a known price is a real figure: nothing per dollar. */
	assert_true(cost_mbps_per_usd_hour(0, 1.0) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(m4_table_last_column),
		cmocka_unit_test(m4_prices_come_from_the_catalog),
		cmocka_unit_test(pair_costs_twice_the_sender),
		cmocka_unit_test(dollars_per_gbps_hour_and_run_cost),
		cmocka_unit_test(missing_prices_stay_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
