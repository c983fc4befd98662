/* lib/names/itype: an exact name always selects its type, a family (any provider's, any case)
 * selects its members, a name without a dot is no AWS family unless the catalog says so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/names/itype.h"

static void test_exact_names(void **state)
{
	(void)state;
	static const char *const names[][2] = {
		{"m5.large", "m5"},         {"Standard_D2s_v5", "Dsv5"}, {"n2-standard-2", "n2-standard"},
		{"PRO2-S", "PRO2"},         {"cx22", "cx"},              {"Standard_F2s_v2", NULL},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_true(itype_matches(names[i][0], names[i][1], names[i][0]));
		assert_true(itype_matches(names[i][0], names[i][1], NULL));
		assert_true(itype_matches(names[i][0], names[i][1], ""));
	}
	/* a name is no prefix of another: cx22 does not select cx32, PRO2-S not PRO2-M */
	assert_false(itype_matches("cx32", "cx", "cx22"));
	assert_false(itype_matches("PRO2-M", "PRO2", "PRO2-S"));
	assert_false(itype_matches("m5.large", "m5", "m5.larg"));
}

static void test_families(void **state)
{
	(void)state;
	assert_true(itype_matches("m5.large", "m5", "m5"));
	assert_false(itype_matches("m5n.large", "m5n", "m5"));
	assert_true(itype_matches("Standard_D2s_v5", "Dsv5", "Dsv5"));
	assert_true(itype_matches("Standard_D2s_v3", "DSv3", "Dsv3")); /* Azure's own casing varies */
	assert_false(itype_matches("Standard_D2s_v3", "DSv3", "Dsv5"));
	assert_true(itype_matches("n2-standard-2", "n2-standard", "n2-standard"));
	assert_false(itype_matches("n2-highmem-2", "n2-highmem", "n2-standard"));
	assert_true(itype_matches("PRO2-S", "PRO2", "PRO2"));
	assert_false(itype_matches("POP2-2C-8G", "POP2", "PRO2"));
	assert_true(itype_matches("cx22", "cx", "cx"));
	assert_false(itype_matches("ccx13", "ccx", "cx"));
	/* no family stated: the exact name only */
	assert_false(itype_matches("Standard_F2s_v2", NULL, "Standard"));
	assert_false(itype_matches("Standard_F2s_v2", "", "Standard_F2s"));
}

static void test_implied(void **state)
{
	(void)state;
	char f[16];
	itype_family_implied("m5.large", f, sizeof(f));
	assert_string_equal(f, "m5");
	itype_family_implied("c5n.18xlarge", f, sizeof(f));
	assert_string_equal(f, "c5n");
	static const char *const dotless[] = {"Standard_D2s_v5", "n2-standard-2", "PRO2-S", "cx22",
					      ".x", ""};
	for (size_t i = 0; i < sizeof(dotless) / sizeof(dotless[0]); i++) {
		itype_family_implied(dotless[i], f, sizeof(f));
		assert_string_equal(f, "");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_names),
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_implied),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
