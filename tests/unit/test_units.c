#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "lib/units.h"

static void rates_parse_with_decimal_suffixes(void **state)
{
	(void)state;
	uint64_t v;
	assert_int_equal(units_parse_rate("0", &v, NULL), 0);
	assert_int_equal(v, 0);
	assert_int_equal(units_parse_rate("800M", &v, NULL), 0);
	assert_int_equal(v, 800000000ULL);
	assert_int_equal(units_parse_rate("10G", &v, NULL), 0);
	assert_int_equal(v, 10000000000ULL);
	assert_int_equal(units_parse_rate("1.5g", &v, NULL), 0);
	assert_int_equal(v, 1500000000ULL);
	assert_int_equal(units_parse_rate("100k", &v, NULL), 0);
	assert_int_equal(v, 100000ULL);
}

static void rates_reject_garbage(void **state)
{
	(void)state;
	uint64_t v;
	struct ns_err err = {0};
	assert_int_equal(units_parse_rate("-1M", &v, &err), -1);
	assert_non_null(strstr(err.msg, "negative"));
	assert_int_equal(units_parse_rate("10X", &v, &err), -1);
	assert_int_equal(units_parse_rate("10Mx", &v, &err), -1);
	assert_int_equal(units_parse_rate("", &v, &err), -1);
	assert_int_equal(units_parse_rate("fast", &v, &err), -1);
	assert_int_equal(units_parse_rate("20T", &v, &err), -1);
}

/* The spellings of tc, iperf and data sheets: a unit word after the multiplier. */
static void rates_accept_unit_words(void **state)
{
	(void)state;
	static const char *const megabits500[] = {"500mbit", "500Mbit", "500Mbps", "500Mbit/s",
						   "500mbps", "500Mbits/s", "500M"};
	for (size_t i = 0; i < sizeof(megabits500) / sizeof(megabits500[0]); i++) {
		uint64_t v = 0;
		struct ns_err err = {0};
		assert_int_equal(units_parse_rate(megabits500[i], &v, &err), 0);
		assert_int_equal(v, 500000000ULL);
	}
	uint64_t v = 0;
	assert_int_equal(units_parse_rate("800kbit", &v, NULL), 0);
	assert_int_equal(v, 800000ULL);
	assert_int_equal(units_parse_rate("1.5Gbps", &v, NULL), 0);
	assert_int_equal(v, 1500000000ULL);
	assert_int_equal(units_parse_rate("1200bit/s", &v, NULL), 0);
	assert_int_equal(v, 1200ULL);
}

/* Each refusal says what it refused and lists the forms that work. */
static void rate_errors_list_the_accepted_forms(void **state)
{
	(void)state;
	static const char *const bad[] = {"10X", "10Mx", "fast", "500Mbyte", "5 00M"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v;
		struct ns_err err = {0};
		assert_int_equal(units_parse_rate(bad[i], &v, &err), -1);
		assert_int_equal(err.code, NS_E_INPUT);
		assert_non_null(strstr(err.msg, "500M"));
		assert_non_null(strstr(err.msg, "1.5G"));
		assert_non_null(strstr(err.msg, "800k"));
		assert_non_null(strstr(err.msg, "bits/s"));
	}
}

/* 500m is 0.5 bit/s in SI: refused with a hint rather than read as mega; 500MB is bytes. */
static void rate_milli_and_bytes_are_errors_with_a_hint(void **state)
{
	(void)state;
	uint64_t v = 7;
	struct ns_err err = {0};
	assert_int_equal(units_parse_rate("500m", &v, &err), -1);
	assert_int_equal(v, 7);
	assert_int_equal(err.code, NS_E_INPUT);
	assert_non_null(strstr(err.msg, "milli"));
	assert_non_null(strstr(err.msg, "write 500M"));
	assert_int_equal(units_parse_rate("500MB", &v, &err), -1);
	assert_non_null(strstr(err.msg, "bytes"));
	assert_non_null(strstr(err.msg, "500Mbit"));
}

static void bytes_use_binary_suffixes(void **state)
{
	(void)state;
	uint64_t v;
	assert_int_equal(units_parse_bytes("1472", 65507, &v, NULL), 0);
	assert_int_equal(v, 1472);
	assert_int_equal(units_parse_bytes("128K", 1 << 30, &v, NULL), 0);
	assert_int_equal(v, 131072);
	assert_int_equal(units_parse_bytes("1M", 1 << 30, &v, NULL), 0);
	assert_int_equal(v, 1048576);
	assert_int_equal(units_parse_bytes("70000", 65507, &v, NULL), -1);
	assert_int_equal(units_parse_bytes("1.5", 65507, &v, NULL), -1);
}

static void durations_accept_units(void **state)
{
	(void)state;
	double v;
	assert_int_equal(units_parse_duration("10", 86400, &v, NULL), 0);
	assert_true(v == 10.0);
	assert_int_equal(units_parse_duration("500ms", 86400, &v, NULL), 0);
	assert_true(v == 0.5);
	assert_int_equal(units_parse_duration("5m", 86400, &v, NULL), 0);
	assert_true(v == 300.0);
	assert_int_equal(units_parse_duration("-3", 86400, &v, NULL), -1);
	assert_int_equal(units_parse_duration("2d", 86400, &v, NULL), -1);
	assert_int_equal(units_parse_duration("25h", 86400, &v, NULL), -1);
}

static void cpulists_sort_and_dedupe(void **state)
{
	(void)state;
	int cpus[16];
	size_t n;
	char buf[64];
	assert_int_equal(units_parse_cpulist("8,0-3,2", cpus, 16, &n, NULL), 0);
	assert_int_equal(n, 5);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[3], 3);
	assert_int_equal(cpus[4], 8);
	units_format_cpulist(cpus, n, buf, sizeof(buf));
	assert_string_equal(buf, "0-3,8");
	assert_int_equal(units_parse_cpulist("3-1", cpus, 16, &n, NULL), -1);
	assert_int_equal(units_parse_cpulist("0-99", cpus, 16, &n, NULL), -1);
	assert_int_equal(units_parse_cpulist("1,a", cpus, 16, &n, NULL), -1);
}

static void rates_format_readably(void **state)
{
	(void)state;
	char buf[32];
	units_format_rate(478212345.0, buf, sizeof(buf));
	assert_string_equal(buf, "478.21 Mbit/s");
	units_format_rate(95e9, buf, sizeof(buf));
	assert_string_equal(buf, "95.00 Gbit/s");
	units_format_bytes(1610612736.0, buf, sizeof(buf));
	assert_string_equal(buf, "1.50 GiB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rates_parse_with_decimal_suffixes),
		cmocka_unit_test(rates_reject_garbage),
		cmocka_unit_test(rates_accept_unit_words),
		cmocka_unit_test(rate_errors_list_the_accepted_forms),
		cmocka_unit_test(rate_milli_and_bytes_are_errors_with_a_hint),
		cmocka_unit_test(bytes_use_binary_suffixes),
		cmocka_unit_test(durations_accept_units),
		cmocka_unit_test(cpulists_sort_and_dedupe),
		cmocka_unit_test(rates_format_readably),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
