#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "lib/jsonw.h"

static void nested_objects_get_commas_right(void **state)
{
	(void)state;
	struct jsonw w;
	jsonw_init(&w, false);
	jsonw_obj_open(&w);
	jsonw_kv_str(&w, "a", "x");
	jsonw_key(&w, "b");
	jsonw_arr_open(&w);
	jsonw_int(&w, -1);
	jsonw_uint(&w, 2);
	jsonw_obj_open(&w);
	jsonw_obj_close(&w);
	jsonw_arr_close(&w);
	jsonw_kv_bool(&w, "c", true);
	jsonw_obj_close(&w);
	assert_string_equal(jsonw_finish(&w), "{\"a\":\"x\",\"b\":[-1,2,{}],\"c\":true}");
	jsonw_free(&w);
}

static void strings_are_escaped(void **state)
{
	(void)state;
	struct jsonw w;
	jsonw_init(&w, false);
	jsonw_str(&w, "q\"b\\n\n\x01<");
	assert_string_equal(jsonw_finish(&w), "\"q\\\"b\\\\n\\n\\u0001<\"");
	jsonw_free(&w);
}

/* JSON must be UTF-8: a byte that is not becomes the text \xNN (lib/textesc.h), a C1 control
 * its \u escape, UTF-8 stays as it is */
static void strings_are_utf8(void **state)
{
	(void)state;
	struct jsonw w;
	jsonw_init(&w, false);
	jsonw_str(&w, "a\xff\xc3(\xc2\x85\xef\xbf\xbe\xc3\xa9\xe6\x9d\xb1\x7f");
	assert_string_equal(jsonw_finish(&w),
			    "\"a\\\\xff\\\\xc3(\\u0085\\ufffe\xc3\xa9\xe6\x9d\xb1\\u007f\"");
	jsonw_free(&w);
}

static void non_finite_numbers_become_null(void **state)
{
	(void)state;
	struct jsonw w;
	jsonw_init(&w, false);
	jsonw_arr_open(&w);
	jsonw_double(&w, NAN);
	jsonw_double(&w, INFINITY);
	jsonw_double(&w, 2.5);
	jsonw_double(&w, 3.0);
	jsonw_str(&w, NULL);
	jsonw_arr_close(&w);
	assert_string_equal(jsonw_finish(&w), "[null,null,2.5,3,null]");
	char *s = jsonw_steal(&w);
	assert_non_null(s);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nested_objects_get_commas_right),
		cmocka_unit_test(strings_are_escaped),
		cmocka_unit_test(strings_are_utf8),
		cmocka_unit_test(non_finite_numbers_become_null),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
