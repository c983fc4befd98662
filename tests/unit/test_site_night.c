/* report/site/site_night: a night's address (its date and the start of its uuid, or its id
 * for an older store's made-up uuid), night.xml written and read back field for field, a file
 * that is not a night summary refused with NS_E_INPUT, and a regression in words. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/site/site_night.h"

static void a_night_is_addressed_by_date_and_uuid(void **state)
{
	(void)state;
	char slug[64];
	struct rp_night_ref r = {.id = 7, .uuid = "3f2a9c1e00112233445566778899aabb",
				 .started_at = "2026-11-01 18:07:00"};
	assert_true(site_uuid_hex(r.uuid));
	site_night_slug(&r, slug, sizeof(slug));
	assert_string_equal(slug, "2026-11-01-3f2a9c1e");
	/* an older store's made-up uuid is no address: the run's id is */
	r.uuid = "v2-0123456789abcdef-2026-11-01-host-7";
	assert_false(site_uuid_hex(r.uuid));
	site_night_slug(&r, slug, sizeof(slug));
	assert_string_equal(slug, "2026-11-01-run7");
	r.started_at = "soon";
	site_night_slug(&r, slug, sizeof(slug));
	assert_string_equal(slug, "undated-run7");
}

static void night_xml_round_trips(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_site_night.XXXXXX", path[128];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/night.xml", dir);
	struct site_reg reg = {.label = "m5.large tcp forward 1 stream", .base_bps = 100e6,
			       .bps = 47e4, .change_pct = -99.53};
	struct site_night n = {.run_id = 12, .uuid = "3f2a9c1e00112233445566778899aabb",
			       .label = "night <2> & \"more\"", .matrix = "lab-demo.xml",
			       .started = "2026-11-01 18:07:00", .finished = "2026-11-01 18:20:00",
			       .status = "done", .slug = "2026-11-01-3f2a9c1e", .title = "Night 2",
			       .headline = "m5.large fell 99.5 %", .have_base = 1, .n_cases = 9,
			       .n_regressions = 1, .regs = &reg, .n_regs = 1};
	/* a pair with its transfer, in its own currency, and one without (as a night.xml of
	 * before transfer was kept reads) */
	struct site_pair pairs[2] = {
		{.name = "hetzner", .usd_per_hour = 0.012, .mbps = 40, .mpd = 3333, .rank = 1,
		 .currency = "EUR", .fx_usd = NAN, .relation = "cross-zone",
		 .transfer_per_hour = 0.25, .total_per_hour = 0.262, .mptd = 152.67},
		{.name = "m5.large", .usd_per_hour = 0.096, .mbps = 700, .mpd = 7291, .rank = 1,
		 .currency = "USD", .fx_usd = NAN, .transfer_per_hour = NAN,
		 .total_per_hour = NAN, .mptd = NAN}};
	n.pairs = pairs;
	n.n_pairs = 2;
	struct ns_err err = {0};
	assert_int_equal(site_night_write(&n, path, &err), 0);
	struct site_night back;
	memset(&back, 0, sizeof(back));
	if (site_night_read(path, &back, &err) != 0)
		fail_msg("%s", err.msg);
	assert_int_equal(back.run_id, 12);
	assert_string_equal(back.label, n.label);
	assert_string_equal(back.matrix, n.matrix);
	assert_string_equal(back.slug, n.slug);
	assert_string_equal(back.headline, n.headline);
	assert_int_equal(back.n_cases, 9);
	assert_int_equal(back.n_regs, 1);
	assert_string_equal(back.regs[0].label, reg.label);
	assert_true(fabs(back.regs[0].bps - reg.bps) < 1);
	assert_true(fabs(back.regs[0].change_pct - reg.change_pct) < 0.01);
	assert_int_equal(back.n_pairs, 2);
	assert_string_equal(back.pairs[0].currency, "EUR");
	assert_string_equal(back.pairs[0].relation, "cross-zone");
	assert_true(back.pairs[0].transfer_per_hour == 0.25);
	assert_true(back.pairs[0].total_per_hour == 0.262);
	assert_true(back.pairs[0].mptd == 152.67);
	assert_null(back.pairs[1].relation);
	assert_true(isnan(back.pairs[1].transfer_per_hour) && isnan(back.pairs[1].total_per_hour) &&
		    isnan(back.pairs[1].mptd));
	site_night_free(&back);

	/* a file that is not a night summary: refused as input, nothing half-read */
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("<?xml version=\"1.0\"?><feed/>", f);
	fclose(f);
	memset(&back, 0, sizeof(back));
	err.code = 0;
	assert_int_equal(site_night_read(path, &back, &err), -1);
	assert_int_equal(err.code, NS_E_INPUT);
	unlink(path);
	rmdir(dir);
}

static void a_regression_in_words(void **state)
{
	(void)state;
	char text[256];
	struct site_reg g = {.label = "m5.8xlarge tcp forward 1 stream", .base_bps = 100e6,
			     .bps = 0.47e6, .change_pct = -99.53};
	site_reg_text(&g, text, sizeof(text));
	assert_non_null(strstr(text, "m5.8xlarge tcp forward 1 stream"));
	assert_non_null(strstr(text, "-99.5 %"));
	/* each end in its own unit: never "100 to 0 Mbit/s" */
	assert_non_null(strstr(text, "100 Mbit/s"));
	assert_null(strstr(text, " 0 Mbit/s"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_night_is_addressed_by_date_and_uuid),
		cmocka_unit_test(night_xml_round_trips),
		cmocka_unit_test(a_regression_in_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
