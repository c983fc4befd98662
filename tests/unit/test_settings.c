/* lib/settings: the environment read once — an empty variable is unset, the switches take
 * their words (NETSWEEP_IMDS 0/off/no, NETSWEEP_REALTIME 0, NETSWEEP_TEST_XDP_GENERIC 1) and
 * nothing else, and what settings_set hands over is what the library then reads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "lib/cli.h"
#include "lib/settings.h"

static void empty_is_unset_and_switches_take_their_words(void **state)
{
	(void)state;
	struct ns_settings s;
	setenv("NETSWEEP_DB", "", 1);
	setenv("NETSWEEP_CATALOG", "/tmp/c.xml", 1);
	setenv("NETSWEEP_IMDS", "no", 1);
	setenv("NETSWEEP_REALTIME", "1", 1);
	setenv("NETSWEEP_TEST_XDP_GENERIC", "yes", 1);
	settings_from_env(&s);
	assert_null(s.db);
	assert_string_equal(s.catalog, "/tmp/c.xml");
	assert_true(s.imds_off);
	assert_false(s.realtime_off);
	assert_false(s.test_xdp_generic); /* only "1" */
	setenv("NETSWEEP_IMDS", "maybe", 1);
	setenv("NETSWEEP_REALTIME", "0", 1);
	setenv("NETSWEEP_TEST_XDP_GENERIC", "1", 1);
	settings_from_env(&s);
	assert_false(s.imds_off);
	assert_true(s.realtime_off);
	assert_true(s.test_xdp_generic);
	unsetenv("NETSWEEP_CATALOG");
	unsetenv("NETSWEEP_IMDS");
	unsetenv("NETSWEEP_REALTIME");
	unsetenv("NETSWEEP_TEST_XDP_GENERIC");
}

static void the_library_reads_what_was_set(void **state)
{
	(void)state;
	settings_set(&(struct ns_settings){0});
	assert_string_equal(cli_db_default(), "netsweep.db");
	setenv("NETSWEEP_DB", "/tmp/nightly.db", 1);
	assert_string_equal(cli_db_default(), "netsweep.db"); /* not read behind the caller's back */
	struct ns_settings s;
	settings_from_env(&s);
	settings_set(&s);
	assert_string_equal(cli_db_default(), "/tmp/nightly.db");
	unsetenv("NETSWEEP_DB");
	settings_set(&(struct ns_settings){0});
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty_is_unset_and_switches_take_their_words),
		cmocka_unit_test(the_library_reads_what_was_set),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
