/* lib/sql/jsonr: validity, values by path (strings unquoted, numbers as written, objects whole),
 * typed getters with their bounds and errors naming the path, members in order, and a
 * malformed text refused with NS_E_INPUT rather than read as missing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sql/jsonr.h"

static const char doc[] =
	"{\"pair\": \"p1\", \"n\": 18446744073709551615, \"neg\": -3, \"x\": 0.1,"
	" \"big\": 1.7976931348623157e308, \"ok\": true, \"none\": null,"
	" \"iface\": {\"driver\": \"ena\", \"irq\": [0, 2, 5]}, \"list\": [1, \"two\", 3.25, null, {\"a\": 1}]}";

static void values_by_path(void **state)
{
	(void)state;
	struct jsonr *r;
	struct ns_err err = {0};
	char buf[64];
	assert_int_equal(jsonr_open(&r, &err), 0);
	assert_true(jsonr_valid(r, doc));
	assert_true(jsonr_valid_object(r, doc));
	assert_false(jsonr_valid_object(r, "[1]"));
	assert_true(jsonr_valid(r, "[1]"));
	assert_false(jsonr_valid(r, "{\"a\": 1"));
	assert_false(jsonr_valid(r, NULL));
	assert_true(jsonr_is_json("\"x\""));
	assert_false(jsonr_is_json("x"));
	assert_int_equal(jsonr_get(r, doc, "$.pair", buf, sizeof(buf), &err), 1);
	assert_string_equal(buf, "p1");
	assert_int_equal(jsonr_get(r, doc, "$.iface.driver", buf, sizeof(buf), &err), 1);
	assert_string_equal(buf, "ena");
	assert_int_equal(jsonr_get(r, doc, "$.iface.irq", buf, sizeof(buf), &err), 1);
	assert_string_equal(buf, "[0,2,5]");
	assert_int_equal(jsonr_get(r, doc, "$.x", buf, sizeof(buf), &err), 1);
	assert_string_equal(buf, "0.1"); /* as written, not SQLite's double printed again */
	assert_int_equal(jsonr_get(r, doc, "$.ok", buf, sizeof(buf), &err), 1);
	assert_string_equal(buf, "true");
	assert_int_equal(jsonr_get(r, doc, "$.none", buf, sizeof(buf), &err), 0);
	assert_int_equal(jsonr_get(r, doc, "$.nowhere", buf, sizeof(buf), &err), 0);
	assert_string_equal(buf, "");
	/* too long for the buffer: nothing, never a cut value */
	char tiny[3];
	assert_int_equal(jsonr_get(r, doc, "$.iface.driver", tiny, sizeof(tiny), &err), 2);
	assert_string_equal(tiny, "");
	assert_int_equal(jsonr_get_once(doc, "$.iface.irq", buf, sizeof(buf), &err), 1);
	assert_string_equal(buf, "[0,2,5]");
	assert_int_equal(jsonr_get_once(NULL, "$.a", buf, sizeof(buf), &err), 0);
	/* a hostinfo's IRQ CPUs as the runner reads them (run_pairs.c): 96 CPUs whole or not at
	 * all, never a cut list ("[0," would read as CPU 0) */
	char big[400], cpus96[400];
	size_t off = (size_t)snprintf(big, sizeof(big), "{\"interface\":{\"irq_cpus\":[");
	for (int i = 0; i < 96; i++)
		off += (size_t)snprintf(big + off, sizeof(big) - off, "%s%d", i ? "," : "", i);
	snprintf(big + off, sizeof(big) - off, "]}}");
	assert_int_equal(jsonr_get_once(big, "$.interface.irq_cpus", cpus96, 256, &err), 2);
	assert_string_equal(cpus96, "");
	assert_int_equal(jsonr_get_once(big, "$.interface.irq_cpus", cpus96, sizeof(cpus96), &err), 1);
	assert_int_equal(strlen(cpus96), 279);
	assert_int_equal(jsonr_get_once(big, "$.interface.irq_cpus", cpus96, 280, &err), 1);
	assert_int_equal(jsonr_get_once(big, "$.interface.irq_cpus", cpus96, 279, &err), 2);
	assert_int_equal(jsonr_get_once("{", "$.a", buf, sizeof(buf), &err), -1);
	char *d;
	assert_int_equal(jsonr_dup(r, doc, "$.iface", &d, &err), 1);
	assert_string_equal(d, "{\"driver\":\"ena\",\"irq\":[0,2,5]}");
	free(d);
	assert_int_equal(jsonr_dup(r, doc, "$.none", &d, &err), 0);
	assert_null(d);
	assert_int_equal(jsonr_type(r, doc, "$.list"), JSONR_ARRAY);
	assert_int_equal(jsonr_type(r, doc, "$.iface"), JSONR_OBJECT);
	assert_int_equal(jsonr_type(r, doc, "$.neg"), JSONR_INTEGER);
	assert_int_equal(jsonr_type(r, doc, "$.none"), JSONR_NULL);
	assert_int_equal(jsonr_type(r, doc, "$.nowhere"), JSONR_MISSING);
	assert_int_equal(jsonr_type(r, "{", "$"), JSONR_MISSING);
	/* not JSON, or not a path: an error of the input, not a missing value */
	assert_int_equal(jsonr_get(r, "{\"a\":", "$.a", buf, sizeof(buf), &err), -1);
	assert_int_equal(err.code, NS_E_INPUT);
	assert_int_equal(jsonr_get(r, doc, "pair", buf, sizeof(buf), &err), -1);
	jsonr_close(r);
}

static void typed_getters_keep_their_bounds(void **state)
{
	(void)state;
	struct jsonr *r;
	struct ns_err err = {0};
	uint64_t u = 7;
	int64_t i = 7;
	double x = 7;
	bool b = false;
	assert_int_equal(jsonr_open(&r, &err), 0);
	assert_int_equal(jsonr_u64(r, doc, "$.n", UINT64_MAX, &u, &err), 1);
	assert_true(u == UINT64_MAX); /* past int64: SQLite's double would have lost it */
	assert_int_equal(jsonr_u64(r, doc, "$.n", 1000, &u, &err), -1);
	assert_non_null(strstr(err.msg, "$.n"));
	assert_int_equal(jsonr_u64(r, doc, "$.neg", UINT64_MAX, &u, &err), -1);
	assert_int_equal(jsonr_i64(r, doc, "$.neg", -10, 10, &i, &err), 1);
	assert_true(i == -3);
	assert_int_equal(jsonr_i64(r, doc, "$.neg", 0, 10, &i, &err), -1);
	assert_int_equal(jsonr_i64(r, doc, "$.x", -10, 10, &i, &err), -1); /* 0.1 is no integer */
	assert_int_equal(jsonr_double(r, doc, "$.x", &x, &err), 1);
	assert_true(x == 0.1);
	assert_int_equal(jsonr_double(r, doc, "$.big", &x, &err), 1);
	assert_true(x == 1.7976931348623157e308);
	assert_int_equal(jsonr_double(r, doc, "$.pair", &x, &err), -1);
	assert_int_equal(err.code, NS_E_INPUT);
	x = 7;
	assert_int_equal(jsonr_double(r, doc, "$.none", &x, &err), 0);
	assert_true(x == 7);
	assert_int_equal(jsonr_bool(r, doc, "$.ok", &b, &err), 1);
	assert_true(b);
	assert_int_equal(jsonr_bool(r, doc, "$.nowhere", &b, &err), 0);
	assert_int_equal(jsonr_bool(r, doc, "$.pair", &b, &err), -1);
	assert_int_equal(jsonr_bool(r, "{", "$.ok", &b, &err), -1);
	assert_int_equal(jsonr_num_u64("12x", "k", 100, &u, &err), -1);
	assert_int_equal(jsonr_num_double("1e999", "k", &x, &err), -1);
	assert_int_equal(jsonr_num_double("nan", "k", &x, &err), -1);
	jsonr_close(r);
}

static void members_in_order(void **state)
{
	(void)state;
	struct jsonr *r;
	struct ns_err err = {0};
	struct jsonr_each it;
	assert_int_equal(jsonr_open(&r, &err), 0);
	assert_int_equal(jsonr_each_begin(r, doc, "$.list", &it, &err), 0);
	static const char *const want[] = {"1", "two", "3.25", NULL, "{\"a\":1}"};
	static const enum jsonr_type types[] = {JSONR_INTEGER, JSONR_TEXT, JSONR_REAL, JSONR_NULL,
						JSONR_OBJECT};
	int n = 0;
	while (jsonr_each_next(&it) == 1) {
		char key[8];
		snprintf(key, sizeof(key), "%d", n);
		assert_string_equal(it.key, key);
		assert_int_equal(it.type, types[n]);
		if (want[n])
			assert_string_equal(it.value, want[n]);
		else
			assert_null(it.value);
		/* the reader's other calls work while it iterates */
		char buf[8];
		assert_int_equal(jsonr_get(r, doc, "$.pair", buf, sizeof(buf), &err), 1);
		n++;
	}
	jsonr_each_end(&it);
	assert_int_equal(n, 5);
	assert_int_equal(jsonr_each_begin(r, doc, "$.iface", &it, &err), 0);
	assert_int_equal(jsonr_each_next(&it), 1);
	assert_string_equal(it.key, "driver");
	assert_string_equal(it.value, "ena");
	assert_int_equal(jsonr_each_next(&it), 1);
	assert_string_equal(it.key, "irq");
	assert_int_equal(jsonr_each_next(&it), 0);
	jsonr_each_end(&it);
	assert_int_equal(jsonr_each_begin(r, doc, "$.nowhere", &it, &err), 0);
	assert_int_equal(jsonr_each_next(&it), 0);
	jsonr_each_end(&it);
	assert_int_equal(jsonr_each_begin(r, "[1,", "$", &it, &err), 0);
	assert_int_equal(jsonr_each_next(&it), -1);
	assert_int_equal(err.code, NS_E_INPUT);
	jsonr_each_end(&it);
	jsonr_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(values_by_path),
		cmocka_unit_test(typed_getters_keep_their_bounds),
		cmocka_unit_test(members_in_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
