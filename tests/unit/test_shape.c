/* runner/lab/shape: scales and --rate lists parse (and bad ones say why), a fixed-rate type
 * gets its goodput plus the 1514/1448 header share as the tbf rate, an "up to" type gets
 * baseline as rate, burst as peakrate and a bucket that lasts the credit, and a type without a
 * figure asks for --rate. Expected figures are computed by hand from the catalog's numbers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "lib/catalog/catalog.h"
#include "runner/catalog/catalog_import.h"
#include "runner/lab/shape.h"

#include <stdlib.h>
#include <unistd.h>

static void scales(void **state)
{
	(void)state;
	struct ns_err err = {0};
	double s;
	assert_int_equal(lab_scale_parse("1/100", &s, &err), 0);
	assert_true(s > 0.00999999 && s < 0.01000001);
	assert_int_equal(lab_scale_parse("0.25", &s, &err), 0);
	assert_true(s == 0.25);
	assert_int_equal(lab_scale_parse("1", &s, &err), 0);
	assert_true(s == 1);
	const char *bad[] = {"", "0", "2", "1/0", "x", "1/", "/3", "-1/10", "1/100x", "nan"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(lab_scale_parse(bad[i], &s, &err), -1);
		assert_int_equal(err.code, NS_E_USAGE);
	}
}

static void rates(void **state)
{
	(void)state;
	struct ns_err err = {0};
	struct lab_rate v[4];
	size_t n = 0;
	assert_int_equal(lab_rates_parse("m4.large=436M,m4.xlarge=730M", v, 4, &n, &err), 0);
	assert_int_equal(lab_rates_parse("m4.large=500M", v, 4, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(lab_rate_find(v, n, "m4.large")->bps, 500000000); /* the last wins */
	assert_int_equal(lab_rate_find(v, n, "m4.xlarge")->bps, 730000000);
	assert_null(lab_rate_find(v, n, "m4.2xlarge"));
	const char *bad[] = {"m4.large", "=436M", "m4.large=", "m4.large=fast", "a=1M,", "a=10k"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t m = 0;
		memset(&err, 0, sizeof(err));
		assert_int_equal(lab_rates_parse(bad[i], v, 4, &m, &err), -1);
		assert_int_equal(err.code, NS_E_USAGE);
	}
	size_t m = 0;
	assert_int_equal(lab_rates_parse("a=1M,b=1M,c=1M", v, 2, &m, &err), -1);
}

static void fixed_rate_type(void **state)
{
	(void)state;
	struct ns_err err = {0};
	struct catalog_instance ci = {.type = "m4.10xlarge", .network_label = "10 Gigabit",
				      .network_gbps = 10};
	struct lab_shape s;
	assert_int_equal(lab_shape_for("m4.10xlarge", &ci, 0, 0.01, 10, &s, &err), 0);
	assert_string_equal(s.source, "catalog");
	assert_int_equal(s.goodput_bps, 100000000);
	/* 100 Mbit/s of payload in 1448-byte segments is 100e6 * 1514 / 1448 on the link */
	assert_int_equal(s.tbf_rate_bps, 104558011);
	assert_int_equal(s.tbf_peak_bps, 0);
	assert_int_equal(s.burst_bytes, 200000);
	/* a --rate wins over the catalog and is scaled too */
	assert_int_equal(lab_shape_for("m4.10xlarge", &ci, 436000000, 1, 10, &s, &err), 0);
	assert_string_equal(s.source, "--rate");
	assert_int_equal(s.goodput_bps, 436000000);
	assert_int_equal(s.tbf_rate_bps, 455872928);
	assert_int_equal(s.burst_bytes, 227936);   /* 4 ms at the tbf rate */
	/* a slow link: never seconds of burst — 100 ms at the rate, in the queue's floor too */
	assert_int_equal(lab_shape_for("m4.10xlarge", &ci, 5000000, 1, 10, &s, &err), 0);
	assert_int_equal(s.tbf_rate_bps, 5227901);   /* 5e6 * 1514 / 1448 */
	assert_int_equal(s.burst_bytes, 65348);
	assert_int_equal(s.limit_bytes, 13069 + 65348);
	/* and at least 16 KiB (a few frames): 0.5 Mbit/s holds 250 ms, not 3 s */
	assert_int_equal(lab_shape_for("m4.10xlarge", &ci, 500000, 1, 10, &s, &err), 0);
	assert_int_equal(s.burst_bytes, 16384);
	assert_true((double)s.burst_bytes * 8 / s.tbf_rate_bps < 0.3);
	/* from 16 Mbit/s up the 200 kB of GSO packets again */
	assert_int_equal(lab_shape_for("m4.10xlarge", &ci, 20000000, 1, 10, &s, &err), 0);
	assert_int_equal(s.burst_bytes, 200000);
	/* no figure: the words say which (a label without a rate, or none), never '(none)' */
	struct catalog_instance moderate = {.type = "m4.large", .network_label = "Moderate"};
	assert_int_equal(lab_shape_for("m4.large", &moderate, 0, 0.01, 10, &s, &err), -1);
	assert_non_null(strstr(err.msg, "network figure 'Moderate' has no rate in it: give one "
				"with --rate m4.large=RATE"));
	struct catalog_instance bare = {.type = "x1"};
	assert_int_equal(lab_shape_for("x1", &bare, 0, 0.01, 10, &s, &err), -1);
	assert_null(strstr(err.msg, "(none)"));
	assert_non_null(strstr(err.msg, "lists no network figure for it: give one with --rate x1=RATE"));
}

static void up_to_type(void **state)
{
	(void)state;
	struct ns_err err = {0};
	struct catalog_instance ci = {.type = "m5.large", .network_label = "Up to 10 Gigabit",
				      .network_gbps = 10, .baseline_gbps = 0.75};
	struct lab_shape s;
	assert_int_equal(lab_shape_for("m5.large", &ci, 0, 0.01, 8, &s, &err), 0);
	assert_int_equal(s.goodput_bps, 7500000);
	assert_int_equal(s.peak_goodput_bps, 100000000);
	assert_int_equal(s.tbf_peak_bps, 104558011);
	assert_true(s.mtu_bytes >= 65536);
	/* the bucket drains at (peak - rate) for the credit: (104558011 - 7841851) / 8 * 8 */
	assert_int_equal(s.burst_bytes, 96716160);
	/* no credit: the baseline alone */
	assert_int_equal(lab_shape_for("m5.large", &ci, 0, 0.01, 0, &s, &err), 0);
	assert_int_equal(s.tbf_peak_bps, 0);
	assert_int_equal(s.goodput_bps, 7500000);
	/* more credit than tbf's bucket holds */
	assert_int_equal(lab_shape_for("m5.large", &ci, 0, 0.01, 3000, &s, &err), -1);
}

static void no_figure(void **state)
{
	(void)state;
	struct ns_err err = {0};
	struct catalog_instance ci = {.type = "m4.large", .network_label = "Moderate"};
	struct lab_shape s;
	assert_int_equal(lab_shape_for("m4.large", &ci, 0, 1, 10, &s, &err), -1);
	assert_int_equal(err.code, NS_E_INPUT);
	assert_non_null(strstr(err.msg, "--rate m4.large=RATE"));
	assert_int_equal(lab_shape_for("x9.huge", NULL, 0, 1, 10, &s, &err), -1);
	assert_int_equal(lab_shape_for("x9.huge", NULL, 1000000, 1, 10, &s, &err), 0);
	/* below the lab's floor once scaled */
	assert_int_equal(lab_shape_for("x9.huge", NULL, 1000000, 0.01, 10, &s, &err), -1);
}

/* Another provider's imported types emulate alike: Scaleway's products/servers, imported,
 * gives PRO2-S its 1.6 Gbit/s of sum_internal_bandwidth as the lab's rate. */
static void imported_provider_type(void **state)
{
	(void)state;
	const char *in[] = {NETSWEEP_SCHEMADIR "/../tests/fixtures/scaleway/products-servers-fr-par-1.json"};
	char out[] = "/tmp/ns-test-lab-scw-XXXXXX";
	int fd = mkstemp(out);
	assert_true(fd >= 0);
	close(fd);
	struct catalog_import_opts o = {.inputs = in, .n_inputs = 1, .as_of = "2026-11-30"};
	struct catalog_import_stats st;
	struct ns_err err = {0};
	assert_int_equal(catalog_import(&o, out, &st, &err), 0);
	struct catalog c;
	catalog_init(&c);
	assert_int_equal(catalog_load(&c, out, &err), 0);
	const struct catalog_instance *ci = catalog_instance(&c, "PRO2-S");
	assert_non_null(ci);
	assert_string_equal(ci->provider, "scaleway");
	struct lab_shape s;
	assert_int_equal(lab_shape_for("PRO2-S", ci, 0, 1, 10, &s, &err), 0);
	assert_string_equal(s.source, "catalog");
	assert_int_equal(s.goodput_bps, 1600000000ULL);
	assert_int_equal(s.peak_goodput_bps, 0);
	catalog_free(&c);
	unlink(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scales),         cmocka_unit_test(rates),
		cmocka_unit_test(fixed_rate_type), cmocka_unit_test(up_to_type),
		cmocka_unit_test(no_figure),      cmocka_unit_test(imported_provider_type),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
