/* matrix_longrun: the long-run axes (issue 11) — until sustained with steady goes to the probe
 * params (steady's default when only until is written), dry-run counts the long-run cases,
 * and a bad steady time, a steady without until, an amount or a rate search under until
 * sustained, or an unknown until is named at its own line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "lib/steady.h"
#include "runner/matrix/matrix_longrun.h"
#include "tests/lib/matrix_text.h"

static void check_long(const char *axes, const char *want)
{
	struct matrix m;
	struct sweep_cases c;
	struct ns_err err = {0};
	char xml[1024];
	snprintf(xml, sizeof(xml), "<matrix name=\"l\" interval=\"0.5s\">\n<axes>\n"
		 "<axis name=\"duration\"><value>60s</value></axis>\n%s</axes></matrix>", axes);
	load(&m, xml);
	expand(&m, &c);
	assert_int_equal(expand_check(&m, &c, &err), -1);
	if (!strstr(err.msg, want))
		fail_msg("'%s' does not say '%s'", err.msg, want);
	expand_free(&c);
	matrix_free(&m);
}

static void long_run_axes(void **state)
{
	(void)state;
	struct matrix m;
	struct sweep_cases c;
	struct probe_params p;
	struct ns_err err = {0};
	load(&m, "<matrix name=\"l\" interval=\"0.5s\"><axes>"
		 "<axis name=\"duration\"><value>60m</value></axis>"
		 "<axis name=\"until\"><value>none</value><value>sustained</value></axis>"
		 "<axis name=\"steady\"><value>5s</value></axis></axes></matrix>");
	expand(&m, &c);
	assert_int_equal(c.n, 2);
	assert_int_equal(expand_check(&m, &c, &err), 0);
	assert_int_equal(mxlong_count(&m, &c), 1); /* dry-run: 1 case's time is a bound */
	expand_params(&m, &c.v[0], &p);
	assert_string_equal(p.until, "");
	assert_true(p.steady_s == 0);
	expand_params(&m, &c.v[1], &p);
	assert_string_equal(p.until, "sustained");
	assert_true(p.steady_s == 5 && p.duration_s == 3600);
	expand_free(&c);
	matrix_free(&m);
	load(&m, "<matrix name=\"l\"><axes><axis name=\"duration\"><value>5m</value></axis>"
		 "<axis name=\"until\"><value>sustained</value></axis></axes></matrix>");
	expand(&m, &c);
	expand_params(&m, &c.v[0], &p);
	assert_true(p.steady_s == STEADY_DEFAULT_S);
	expand_free(&c);
	matrix_free(&m);
	check_long("<axis name=\"until\"><value>sustained</value></axis>\n"
		   "<axis name=\"steady\"><value>1s</value></axis>\n",
		   "t.xml:5: axis 'steady' value '1': must span at least 4 intervals");
	check_long("<axis name=\"until\"><value>sustained</value></axis>\n"
		   "<axis name=\"steady\"><value>2m</value></axis>\n",
		   "t.xml:5: axis 'steady' value '120': must be below the case's duration, 60 s");
	check_long("<axis name=\"steady\"><value>10s</value></axis>\n",
		   "t.xml:4: axis 'steady': goes with an until axis holding sustained");
	check_long("<axis name=\"until\"><value>sustained</value></axis>\n"
		   "<axis name=\"amount\"><value>1G</value></axis>\n",
		   "t.xml:4: axis 'until' value 'sustained': ends by the rate");
	struct sweep_cases c2;
	load(&m, "<matrix name=\"l\"><axes><axis name=\"protocol\"><value>udp</value></axis>\n"
		 "<axis name=\"until\"><value>sustained</value></axis><axis name=\"duration\">"
		 "<value>5m</value></axis></axes><search goals=\"0\"/></matrix>");
	expand(&m, &c2);
	assert_int_equal(expand_check(&m, &c2, &err), -1);
	assert_non_null(strstr(err.msg, "t.xml:2: axis 'until' value 'sustained': a UDP case is a "
				       "rate search"));
	expand_free(&c2);
	matrix_free(&m);
	assert_int_equal(matrix_load_mem(&m, "t.xml", "<matrix name=\"l\"><axes>\n<axis "
					 "name=\"until\"><value>always</value></axis></axes></matrix>",
					 strlen("<matrix name=\"l\"><axes>\n<axis name=\"until\"><value>"
						"always</value></axis></axes></matrix>"), &err), -1);
	assert_non_null(strstr(err.msg, "t.xml:2: axis 'until': 'always': until is none or sustained"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(long_run_axes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
