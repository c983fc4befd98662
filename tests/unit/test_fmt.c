/* Escaping and formatting of the report: the one HTML path (libxml2 text nodes), Markdown,
 * CSV and gnuplot string literals, and units. Hostile strings must come out inert. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "report/model/fmt.h"
#include "report/render/html.h"

typedef void (*escaper)(struct rp_buf *, const char *);

static void expect(escaper f, const char *in, const char *want)
{
	struct rp_buf b;
	rp_buf_init(&b);
	f(&b, in);
	assert_string_equal(rp_buf_str(&b), want);
	rp_buf_free(&b);
}

static void test_html_text_is_escaped(void **state)
{
	(void)state;
	char *s = rp_html_text_fragment("<script>alert(1)</script> & \"q\" <img src=x onerror=y>");
	assert_non_null(s);
	assert_null(strstr(s, "<script"));
	assert_null(strstr(s, "<img"));
	assert_non_null(strstr(s, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_non_null(strstr(s, "&amp;"));
	free(s);
}

static void test_markdown(void **state)
{
	(void)state;
	expect(rp_md_escape, "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;");
	expect(rp_md_escape, "a|b", "a\\|b");
	expect(rp_md_escape, "*bold* _it_ [x](y) `c`", "\\*bold\\* \\_it\\_ \\[x\\](y) \\`c\\`");
	expect(rp_md_escape, "line1\nline2", "line1 line2");
	expect(rp_md_escape, "m4.large", "m4.large");
	expect(rp_md_escape, NULL, "");
}

static void test_csv(void **state)
{
	(void)state;
	expect(rp_csv_field, "plain", "plain");
	expect(rp_csv_field, "a,b", "\"a,b\"");
	expect(rp_csv_field, "say \"hi\"", "\"say \"\"hi\"\"\"");
	expect(rp_csv_field, "two\nlines", "two\\nlines"); /* lib/textesc: shown, not a row break */
	expect(rp_csv_field, "a\x1b[31m,b\r", "\"a\\x1b[31m,b\\r\"");
	expect(rp_csv_field, "=cmd|' /C calc'!A0", "\"'=cmd|' /C calc'!A0\"");
	expect(rp_csv_field, "-5.5", "-5.5");
	expect(rp_csv_field, "+1", "+1");
	expect(rp_csv_field, "+1+1", "\"'+1+1\"");
	expect(rp_csv_field, "-1+1+cmd|' /C calc'!A0", "\"'-1+1+cmd|' /C calc'!A0\"");
	expect(rp_csv_field, "\t=1+1", "\\t=1+1"); /* escaped, it starts with a backslash */
	expect(rp_csv_field, "\r=1+1", "\\r=1+1");
	expect(rp_csv_field, "=1+1", "\"'=1+1\"");
	expect(rp_csv_field, "@SUM(A1)", "\"'@SUM(A1)\"");
	expect(rp_csv_field, "-1.5", "-1.5");
	expect(rp_csv_field, "42", "42");
	expect(rp_csv_field, "-7e3", "-7e3");
	expect(rp_csv_field, "", "");
}

static void test_gnuplot_quote(void **state)
{
	(void)state;
	expect(rp_gp_quote, "it's", "'it''s'");
	/* a newline shown as \n (lib/textesc.h): in single quotes gnuplot reads it literally */
	expect(rp_gp_quote, "a\nb'; system('rm')", "'a\\nb''; system(''rm'')'");
	expect(rp_gp_quote, "esc\x1b bad\xff \xc3\xa9", "'esc\\x1b bad\\xff \xc3\xa9'");
	/* Markdown: the escape's backslash escaped, so it renders as \x1b */
	expect(rp_md_escape, "a\x1b[31m\xff\xc3\xa9", "a\\\\x1b\\[31m\\\\xff\xc3\xa9");
}

static void test_units(void **state)
{
	(void)state;
	char b[32];
	rp_fmt_bps(b, sizeof(b), 436e6);
	assert_string_equal(b, "436 Mbit/s");
	rp_fmt_bps(b, sizeof(b), 23.5e9);
	assert_string_equal(b, "23.5 Gbit/s");
	rp_fmt_bps(b, sizeof(b), 9.5e9);
	assert_string_equal(b, "9.50 Gbit/s");
	rp_fmt_bps(b, sizeof(b), 980e3);
	assert_string_equal(b, "980 kbit/s");
	rp_fmt_pps(b, sizeof(b), 1.42e6);
	assert_string_equal(b, "1.42 Mpps");
	rp_fmt_rate_opt(b, sizeof(b), 800000000LL);
	assert_string_equal(b, "800M");
	rp_fmt_rate_opt(b, sizeof(b), 10000000000LL);
	assert_string_equal(b, "10G");
	rp_fmt_rate_opt(b, sizeof(b), 1234LL);
	assert_string_equal(b, "1234");
}

static void test_buf_grows(void **state)
{
	(void)state;
	struct rp_buf b;
	rp_buf_init(&b);
	assert_string_equal(rp_buf_str(&b), "");
	for (int i = 0; i < 10000; i++)
		rp_buf_printf(&b, "%d,", i % 10);
	assert_int_equal(b.len, 20000);
	assert_int_equal(b.s[19998], '9');
	rp_buf_reset(&b);
	assert_string_equal(rp_buf_str(&b), "");
	rp_buf_free(&b);
}

/* Money: every price in its own currency's symbol or code, never "$" for another money, and
 * nothing but a three-letter code from the database into a page or a gnuplot string. */
static void test_money(void **state)
{
	(void)state;
	char b[64];
	rp_fmt_money(b, sizeof(b), "%.4g", 0.192, "USD");
	assert_string_equal(b, "$0.192");
	rp_fmt_money(b, sizeof(b), "%.4g", 0.192, NULL); /* a store of before currencies */
	assert_string_equal(b, "$0.192");
	rp_fmt_money(b, sizeof(b), "%.4g", 0.012, "EUR");
	assert_string_equal(b, "€0.012");
	rp_fmt_money(b, sizeof(b), "%.4g", 0.5, "CHF");
	assert_string_equal(b, "CHF 0.5");
	rp_fmt_money(b, sizeof(b), "%.4g", NAN, "EUR");
	assert_string_equal(b, "–");
	rp_fmt_money(b, sizeof(b), "%.4g", 1, "%s'x");
	assert_string_equal(b, "¤1");
	rp_fmt_per_money(b, sizeof(b), "EUR");
	assert_string_equal(b, "Mbit/s per €/hour");
	rp_fmt_per_money(b, sizeof(b), NULL);
	assert_string_equal(b, "Mbit/s per $/hour");
	assert_string_equal(rp_money_word("EUR"), "euro");
	assert_string_equal(rp_money_word(NULL), "dollar");
	assert_string_equal(rp_money_word("CHF"), "CHF");
	assert_true(rp_money_same(NULL, "USD"));
	assert_false(rp_money_same("EUR", "USD"));
	assert_false(rp_money_code_ok("eur"));
	assert_true(rp_money_code_ok("GBP"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_html_text_is_escaped),
		cmocka_unit_test(test_markdown),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_gnuplot_quote),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_buf_grows),
		cmocka_unit_test(test_money),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
