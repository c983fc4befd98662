/* catalog transfer rules: <transfer>/<tier> and a price's included-gb-month load into the
 * contract's structs, a later file's rule replaces the same key, the cross-region lookup prefers
 * the named peer over "any other region", and every malformed rule fails naming file, line
 * and the field, leaving the catalog as it was. */
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

#include "lib/catalog/catalog.h"

static char *write_temp(const char *text)
{
	char *path = strdup("/tmp/ns-test-catalog-transfer-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	size_t n = strlen(text);
	assert_int_equal(write(fd, text, n), (ssize_t)n);
	close(fd);
	return path;
}

static void drop_temp(char *path)
{
	unlink(path);
	free(path);
}

#define HEAD "<?xml version=\"1.0\"?>\n<catalog provider=\"aws\">\n"
#define SRC " currency=\"USD\" as-of=\"2026-11-30\" source=\"test\""

static const char rules[] =
	HEAD
	"  <instance type=\"cx22\" provider=\"hetzner\">\n"
	"    <price region=\"fsn1\" per-hour=\"0.006\" currency=\"EUR\" included-gb-month=\"20480\"\n"
	"           as-of=\"2026-11-30\" source=\"test\"/>\n"
	"    <price region=\"ash\" per-hour=\"0.006\" currency=\"EUR\" as-of=\"2026-11-30\" source=\"t\"/>\n"
	"  </instance>\n"
	"  <transfer region=\"us-east-1\" relation=\"cross-zone\" billed=\"both\"" SRC ">\n"
	"    <tier per-gb=\"0.01\"/>\n"
	"  </transfer>\n"
	"  <transfer region=\"us-east-1\" relation=\"same-zone\" billed=\"both\"" SRC ">\n"
	"    <tier per-gb=\"0\"/>\n"
	"  </transfer>\n"
	"  <transfer region=\"us-east-1\" relation=\"cross-region\" billed=\"sender\"" SRC ">\n"
	"    <tier per-gb=\"0.02\"/>\n"
	"  </transfer>\n"
	"  <transfer region=\"us-east-1\" relation=\"cross-region\" peer-region=\"us-east-2\"\n"
	"            billed=\"sender\"" SRC ">\n"
	"    <tier per-gb=\"0.01\"/>\n"
	"  </transfer>\n"
	"  <transfer provider=\"aws\" region=\"us-east-1\" relation=\"internet\" billed=\"sender\"" SRC ">\n"
	"    <tier up-to-gb=\"100\" per-gb=\"0\"/> <tier up-to-gb=\"10240\" per-gb=\"0.09\"/>\n"
	"    <tier up-to-gb=\"51200\" per-gb=\"0.085\"/> <tier up-to-gb=\"153600\" per-gb=\"0.07\"/>\n"
	"    <tier per-gb=\"0.05\"/>\n"
	"  </transfer>\n"
	"  <transfer provider=\"hetzner\" region=\"fsn1\" relation=\"internet\" billed=\"sender\"\n"
	"            currency=\"EUR\" as-of=\"2026-11-30\" source=\"test\">\n"
	"    <tier per-gb=\"0.001\"/>\n"
	"  </transfer>\n"
	"</catalog>\n";

static void rules_load_into_the_contract_structs(void **state)
{
	(void)state;
	char *path = write_temp(rules);
	struct catalog c;
	catalog_init(&c);
	struct ns_err err = {0};
	assert_int_equal(catalog_load(&c, path, &err), 0);
	assert_int_equal(c.ntransfers, 6);

	const struct catalog_transfer *t = catalog_transfer_find(&c, "aws", "us-east-1", "internet", NULL);
	assert_non_null(t);
	assert_string_equal(t->provider, "aws"); /* stated */
	assert_string_equal(t->billed, "sender");
	assert_string_equal(t->currency, "USD");
	assert_string_equal(t->as_of, "2026-11-30");
	assert_string_equal(t->source, "test");
	assert_null(t->peer_region);
	assert_int_equal(t->ntiers, 5);
	assert_true(t->tiers[0].upto_gb == 100 && t->tiers[0].per_gb == 0);
	assert_true(t->tiers[1].upto_gb == 10240 && fabs(t->tiers[1].per_gb - 0.09) < 1e-12);
	assert_true(t->tiers[3].upto_gb == 153600 && fabs(t->tiers[3].per_gb - 0.07) < 1e-12);
	assert_true(isinf(t->tiers[4].upto_gb) && fabs(t->tiers[4].per_gb - 0.05) < 1e-12);

	t = catalog_transfer_find(&c, "aws", "us-east-1", "cross-zone", NULL);
	assert_non_null(t);
	assert_string_equal(t->provider, "aws"); /* from the catalog element */
	assert_string_equal(t->billed, "both");
	assert_int_equal(t->ntiers, 1);
	assert_true(isinf(t->tiers[0].upto_gb) && fabs(t->tiers[0].per_gb - 0.01) < 1e-12);
	t = catalog_transfer_find(&c, "aws", "us-east-1", "same-zone", NULL);
	assert_non_null(t);
	assert_true(t->tiers[0].per_gb == 0); /* free, known: not the same as no rule */

	/* cross-region: the named peer's rule, else the one for any other region */
	t = catalog_transfer_find(&c, "aws", "us-east-1", "cross-region", "us-east-2");
	assert_string_equal(t->peer_region, "us-east-2");
	assert_true(fabs(t->tiers[0].per_gb - 0.01) < 1e-12);
	t = catalog_transfer_find(&c, "aws", "us-east-1", "cross-region", "eu-west-1");
	assert_null(t->peer_region);
	assert_true(fabs(t->tiers[0].per_gb - 0.02) < 1e-12);
	t = catalog_transfer_find(&c, "aws", "us-east-1", "cross-region", NULL);
	assert_null(t->peer_region);

	/* no rule: NULL, never a guess */
	assert_null(catalog_transfer_find(&c, "aws", "eu-west-1", "cross-zone", NULL));
	assert_null(catalog_transfer_find(&c, "gcp", "us-east-1", "cross-zone", NULL));
	assert_null(catalog_transfer_find(&c, "aws", "us-east-1", NULL, NULL));

	t = catalog_transfer_find(&c, "hetzner", "fsn1", "internet", NULL);
	assert_string_equal(t->currency, "EUR");
	const struct catalog_price *p = catalog_price(&c, "cx22", "fsn1");
	assert_true(p->included_gb_month == 20480);
	assert_true(catalog_price(&c, "cx22", "ash")->included_gb_month == 0);
	catalog_free(&c);
	assert_int_equal(c.ntransfers, 0);
	assert_null(c.transfers);
	drop_temp(path);
}

static void later_file_replaces_a_rule_and_keeps_the_rest(void **state)
{
	(void)state;
	char *first = write_temp(rules);
	char *second = write_temp(
		HEAD
		"  <transfer region=\"us-east-1\" relation=\"cross-zone\" billed=\"sender\"\n"
		"            currency=\"USD\" as-of=\"2026-12-01\" source=\"newer\">\n"
		"    <tier up-to-gb=\"1000\" per-gb=\"0.02\"/><tier per-gb=\"0.015\"/>\n"
		"  </transfer>\n"
		"  <transfer region=\"eu-west-1\" relation=\"cross-zone\" billed=\"both\"" SRC ">\n"
		"    <tier per-gb=\"0.01\"/>\n"
		"  </transfer>\n"
		"</catalog>\n");
	struct catalog c;
	catalog_init(&c);
	struct ns_err err = {0};
	assert_int_equal(catalog_load(&c, first, &err), 0);
	assert_int_equal(catalog_load(&c, second, &err), 0);
	assert_int_equal(c.ntransfers, 7);
	const struct catalog_transfer *t = catalog_transfer_find(&c, "aws", "us-east-1", "cross-zone", NULL);
	assert_string_equal(t->source, "newer");
	assert_string_equal(t->billed, "sender");
	assert_int_equal(t->ntiers, 2);
	assert_true(t->tiers[0].upto_gb == 1000);
	assert_non_null(catalog_transfer_find(&c, "aws", "eu-west-1", "cross-zone", NULL));
	/* the rest as the first file had them */
	t = catalog_transfer_find(&c, "aws", "us-east-1", "internet", NULL);
	assert_int_equal(t->ntiers, 5);
	assert_string_equal(t->source, "test");

	/* a file failing half-way leaves the rules as they were */
	char *bad = write_temp(HEAD
			       "  <transfer region=\"us-east-1\" relation=\"internet\" billed=\"sender\"" SRC ">\n"
			       "    <tier per-gb=\"9\"/>\n"
			       "  </transfer>\n"
			       "  <transfer region=\"us-east-1\" relation=\"bogus\" billed=\"sender\"" SRC ">\n"
			       "    <tier per-gb=\"0.01\"/>\n"
			       "  </transfer>\n"
			       "</catalog>\n");
	assert_int_equal(catalog_load(&c, bad, &err), -1);
	assert_int_equal(c.ntransfers, 7);
	t = catalog_transfer_find(&c, "aws", "us-east-1", "internet", NULL);
	assert_int_equal(t->ntiers, 5);
	catalog_free(&c);
	drop_temp(first);
	drop_temp(second);
	drop_temp(bad);
}

/* Each broken rule: refused, the message naming the file, the line and the field. */
static void broken_rules_name_file_line_and_field(void **state)
{
	(void)state;
	static const struct {
		const char *body; /* line 3 on: the rule, whose line is 3 or 4 */
		int line;
		const char *field;
	} cases[] = {
		{"  <transfer region=\"us-east-1\" relation=\"near\" billed=\"both\"" SRC ">\n"
		 "    <tier per-gb=\"0.01\"/>\n  </transfer>\n", 3, "relation"},
		{"  <transfer region=\"us-east-1\" relation=\"internet\" billed=\"nobody\"" SRC ">\n"
		 "    <tier per-gb=\"0.01\"/>\n  </transfer>\n", 3, "billed"},
		{"  <transfer region=\"us-east-1\" relation=\"internet\" billed=\"both\"" SRC ">\n"
		 "  </transfer>\n", 3, "tier"},
		{"  <transfer region=\"us-east-1\" relation=\"internet\" billed=\"both\"" SRC ">\n"
		 "    <tier per-gb=\"-0.01\"/>\n  </transfer>\n", 4, "per-gb"},
		{"  <transfer region=\"us-east-1\" relation=\"internet\" billed=\"both\"" SRC ">\n"
		 "    <tier up-to-gb=\"100\"/>\n  </transfer>\n", 4, "per-gb"},
		{"  <transfer region=\"us-east-1\" relation=\"internet\" billed=\"sender\"" SRC ">\n"
		 "    <tier up-to-gb=\"100\" per-gb=\"0\"/>\n  </transfer>\n", 4, "up-to-gb"},
		{"  <transfer region=\"us-east-1\" relation=\"internet\" billed=\"sender\"" SRC ">\n"
		 "    <tier per-gb=\"0\"/>\n    <tier per-gb=\"0.09\"/>\n  </transfer>\n", 4, "up-to-gb"},
		{"  <transfer region=\"us-east-1\" relation=\"internet\" billed=\"sender\"" SRC ">\n"
		 "    <tier up-to-gb=\"100\" per-gb=\"0\"/>\n    <tier up-to-gb=\"50\" per-gb=\"0.09\"/>\n"
		 "    <tier per-gb=\"0.05\"/>\n  </transfer>\n", 5, "up-to-gb"},
		{"  <transfer region=\"us-east-1\" relation=\"cross-zone\" peer-region=\"us-west-2\" "
		 "billed=\"both\"" SRC ">\n    <tier per-gb=\"0.01\"/>\n  </transfer>\n", 3, "peer-region"},
		{"  <transfer region=\"us-east-1\" relation=\"internet\" billed=\"sender\" as-of=\"2026-11-30\" "
		 "source=\"t\">\n    <tier per-gb=\"0.01\"/>\n  </transfer>\n", 3, "currency"},
		{"  <transfer region=\"us-east-1\" relation=\"internet\" billed=\"sender\" currency=\"usd\" "
		 "as-of=\"2026-11-30\" source=\"t\">\n    <tier per-gb=\"0.01\"/>\n  </transfer>\n", 3,
		 "currency"},
		{"  <transfer region=\"us-east-1\" relation=\"cross-zone\" billed=\"both\"" SRC ">\n"
		 "    <tier per-gb=\"0.01\"/>\n  </transfer>\n"
		 "  <transfer region=\"us-east-1\" relation=\"cross-zone\" billed=\"sender\"" SRC ">\n"
		 "    <tier per-gb=\"0.02\"/>\n  </transfer>\n", 6, "a second rule"},
		/* before the instances: the schema's order */
		{"  <transfer region=\"us-east-1\" relation=\"cross-zone\" billed=\"both\"" SRC ">\n"
		 "    <tier per-gb=\"0.01\"/>\n  </transfer>\n  <instance type=\"m5.large\"/>\n", 6,
		 "instance"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[2048];
		snprintf(text, sizeof(text), HEAD "%s</catalog>\n", cases[i].body);
		char *path = write_temp(text);
		struct catalog c;
		catalog_init(&c);
		struct ns_err err = {0};
		int rc = catalog_load(&c, path, &err);
		if (rc != -1)
			fail_msg("case %zu loaded", i);
		/* libxml2 may number an element by a later line of it (a missing child: its end) */
		char want[256], next[256];
		snprintf(want, sizeof(want), "%s:%d:", path, cases[i].line);
		snprintf(next, sizeof(next), "%s:%d:", path, cases[i].line + 1);
		if (!(strstr(err.msg, want) || strstr(err.msg, next)) || !strstr(err.msg, cases[i].field))
			fail_msg("case %zu: '%s' lacks '%s' or '%s'", i, err.msg, want, cases[i].field);
		assert_int_equal(c.ntransfers, 0);
		catalog_free(&c);
		drop_temp(path);
	}

	/* no provider on the rule nor on the catalog */
	char *path = write_temp("<?xml version=\"1.0\"?>\n<catalog>\n"
				"  <transfer region=\"r1\" relation=\"internet\" billed=\"sender\"" SRC ">\n"
				"    <tier per-gb=\"0.01\"/>\n  </transfer>\n</catalog>\n");
	struct catalog c;
	catalog_init(&c);
	struct ns_err err = {0};
	assert_int_equal(catalog_load(&c, path, &err), -1);
	assert_non_null(strstr(err.msg, ":3:"));
	assert_non_null(strstr(err.msg, "provider"));
	drop_temp(path);

	/* included-gb-month: non-negative */
	path = write_temp("<?xml version=\"1.0\"?>\n<catalog>\n  <instance type=\"cx22\">\n"
			  "    <price region=\"fsn1\" per-hour=\"0.006\" currency=\"EUR\" "
			  "included-gb-month=\"-1\" as-of=\"2026-11-30\" source=\"t\"/>\n"
			  "  </instance>\n</catalog>\n");
	assert_int_equal(catalog_load(&c, path, &err), -1);
	assert_non_null(strstr(err.msg, ":4:"));
	assert_non_null(strstr(err.msg, "included-gb-month"));
	drop_temp(path);
	catalog_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rules_load_into_the_contract_structs),
		cmocka_unit_test(later_file_replaces_a_rule_and_keeps_the_rest),
		cmocka_unit_test(broken_rules_name_file_line_and_field),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
