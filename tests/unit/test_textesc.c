/* lib/textesc: control characters of stored strings shown as escapes — ESC, CR, LF, tab, other
 * C0 bytes, DEL, C1 controls and bytes that are not UTF-8 — while printable ASCII and UTF-8
 * text are left alone; output is cut at an escape boundary and sized like snprintf. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "lib/textesc.h"

static void expect(const char *in, const char *want)
{
	char *got = textesc_dup(in);
	assert_non_null(got);
	assert_string_equal(got, want);
	assert_int_equal(textesc(NULL, 0, in), strlen(want));
	assert_int_equal(textesc_needed(in), strcmp(in, want) != 0);
	free(got);
}

static void controls_become_escapes(void **state)
{
	(void)state;
	expect("night-1", "night-1");
	expect("a\x1b[31mred", "a\\x1b[31mred");
	expect("two\nlines", "two\\nlines");
	expect("cr\rback", "cr\\rback");
	expect("tab\there", "tab\\there");
	expect("bell\a del\x7f", "bell\\x07 del\\x7f");
	expect("C:\\dir", "C:\\dir");
	expect("", "");
}

static void utf8_kept_c1_and_bad_bytes_escaped(void **state)
{
	(void)state;
	expect("Z\xc3\xbcrich \xe6\x9d\xb1\xe4\xba\xac \xf0\x9f\x9a\x80", "Z\xc3\xbcrich \xe6\x9d\xb1\xe4\xba\xac \xf0\x9f\x9a\x80");
	expect("csi\xc2\x9b" "31m", "csi\\u009b31m");      /* U+009B, CSI as one character */
	expect("nbsp\xc2\xa0", "nbsp\xc2\xa0");           /* U+00A0 is printable */
	expect("raw\x9b" "31m", "raw\\x9b31m");           /* a lone C1 byte: not UTF-8 */
	expect("cut\xe6\x9d", "cut\\xe6\\x9d");           /* a truncated sequence */
	expect("over\xc0\xaf", "over\\xc0\\xaf");         /* an overlong '/' */
	expect("sur\xed\xa0\x80", "sur\\xed\\xa0\\x80");  /* a UTF-16 surrogate */
}

/* XML 1.0's forbidden noncharacters; TEXTESC_KEEP_SPACE keeps newline, CR and tab only */
static void noncharacters_and_keep_space(void **state)
{
	(void)state;
	expect("nc\xef\xbf\xbe\xef\xbf\xbf\xef\xbf\xbd", "nc\\ufffe\\uffff\xef\xbf\xbd");
	char *got = textesc_dup_f("a\nb\tc\rd\x1b\x01\xff", TEXTESC_KEEP_SPACE);
	assert_non_null(got);
	assert_string_equal(got, "a\nb\tc\rd\\x1b\\x01\\xff");
	assert_false(textesc_needed_f("two\nlines\tand tab", TEXTESC_KEEP_SPACE));
	assert_true(textesc_needed("two\nlines"));
	free(got);
	char esc[8];
	assert_int_equal(textesc_step("\xe6\x9d\xb1", esc, 0), 3);
	assert_string_equal(esc, "");
	assert_int_equal(textesc_step("\xe6\x9d", esc, 0), 1);
	assert_string_equal(esc, "\\xe6");
}

static void cut_at_a_boundary(void **state)
{
	(void)state;
	char out[8];
	/* "ab\x1b" -> "ab\\x1b" (6 bytes): with 5 bytes of room the escape is left out whole */
	assert_int_equal(textesc(out, 6, "ab\x1b" "cd"), 8);
	assert_string_equal(out, "ab");
	assert_int_equal(textesc(out, 7, "ab\x1b" "cd"), 8);
	assert_string_equal(out, "ab\\x1b");
	assert_int_equal(textesc(out, 1, "abc"), 3);
	assert_string_equal(out, "");
	assert_int_equal(textesc(out, 3, "\xc3\xbc\xc3\xbc"), 4); /* not half a character */
	assert_string_equal(out, "\xc3\xbc");
	assert_null(textesc_dup(NULL));
	assert_int_equal(textesc(out, sizeof(out), NULL), 0);
	assert_string_equal(out, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(controls_become_escapes),
		cmocka_unit_test(utf8_kept_c1_and_bad_bytes_escaped),
		cmocka_unit_test(noncharacters_and_keep_space),
		cmocka_unit_test(cut_at_a_boundary),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
