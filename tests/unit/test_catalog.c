/* catalog: the shipped catalog loads and holds the seed instance types, later files override
 * earlier ones, and broken files fail with file:line and leave the catalog as it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/catalog/catalog.h"
#include "lib/settings.h"

#define AWS NETSWEEP_DATADIR "/catalog/aws.xml"

static char *write_temp(const char *text)
{
	char *path = strdup("/tmp/ns-test-catalog-XXXXXX");
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

static void shipped_catalog_has_the_seeds(void **state)
{
	(void)state;
	struct catalog c;
	catalog_init(&c);
	struct ns_err err = {0};
	assert_int_equal(catalog_load(&c, AWS, &err), 0);
	static const char *const seeds[] = {"m4.large", "m4.xlarge", "m4.2xlarge", "m4.4xlarge",
					    "m4.10xlarge", "c3.large", "c5n.18xlarge"};
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++)
		assert_non_null(catalog_instance(&c, seeds[i]));
	const struct catalog_instance *in = catalog_instance(&c, "c5n.18xlarge");
	assert_int_equal(in->vcpus, 72);
	assert_true(in->network_gbps == 100);
	assert_string_equal(in->enhanced, "ena");
	in = catalog_instance(&c, "c3.large");
	assert_string_equal(in->enhanced, "ixgbevf");
	assert_string_equal(in->network_label, "Moderate");
	const struct catalog_price *p = catalog_price(&c, "m4.large", "ap-northeast-1");
	assert_non_null(p);
	assert_true(fabs(p->per_hour - 0.183) < 1e-12);
	/* A current set a buyer compares, each family with a price. */
	static const char *const current[] = {"m5.large", "m6i.large", "m7i.large", "c5n.large",
					      "c6in.large", "c7gn.large", "m6g.large"};
	for (size_t i = 0; i < sizeof(current) / sizeof(current[0]); i++)
		assert_non_null(catalog_price(&c, current[i], "us-east-1"));
	/* Every price says when and where from. */
	for (size_t i = 0; i < c.n_prices; i++) {
		assert_int_equal(strlen(c.prices[i].as_of), 10);
		assert_true(strlen(c.prices[i].source) > 10);
		assert_true(c.prices[i].per_hour > 0);
	}
	assert_null(catalog_price(&c, "m4.large", "mars-north-1"));
	assert_null(catalog_instance(&c, "z9.huge"));
	catalog_free(&c);
}

static void later_file_overrides(void **state)
{
	(void)state;
	char *path = write_temp(
		"<?xml version=\"1.0\"?>\n"
		"<catalog name=\"spot\">\n"
		"  <instance type=\"m4.large\">\n"
		"    <price region=\"ap-northeast-1\" usd-per-hour=\"0.05\" as-of=\"2026-11-01\"\n"
		"           source=\"test spot quote\"/>\n"
		"  </instance>\n"
		"  <instance type=\"scaleway.c2s\" vcpus=\"4\" memory-gib=\"8\">\n"
		"    <network label=\"2.5 Gigabit\" gbps=\"2.5\"/>\n"
		"    <price region=\"fr-par-1\" usd-per-hour=\"0.026\" as-of=\"2026-11-01\" source=\"t\"/>\n"
		"  </instance>\n"
		"</catalog>\n");
	struct catalog c;
	catalog_init(&c);
	struct ns_err err = {0};
	assert_int_equal(catalog_load(&c, AWS, &err), 0);
	size_t prices = c.n_prices, instances = c.n_instances;
	assert_int_equal(catalog_load(&c, path, &err), 0);
	const struct catalog_price *p = catalog_price(&c, "m4.large", "ap-northeast-1");
	assert_true(fabs(p->per_hour - 0.05) < 1e-12);
	assert_string_equal(p->source, "test spot quote");
	/* Only what the later file states changes: the instance keeps its figures, other regions
	 * keep their prices. */
	const struct catalog_instance *in = catalog_instance(&c, "m4.large");
	assert_int_equal(in->vcpus, 2);
	assert_string_equal(in->network_label, "Moderate");
	assert_non_null(catalog_price(&c, "m4.large", "us-east-1"));
	assert_int_equal(c.n_prices, prices + 1);
	assert_int_equal(c.n_instances, instances + 1);
	assert_true(catalog_instance(&c, "scaleway.c2s")->network_gbps == 2.5);
	catalog_free(&c);
	drop_temp(path);
}

static void malformed_catalog_names_file_and_line(void **state)
{
	(void)state;
	char *path = write_temp("<?xml version=\"1.0\"?>\n"
				"<catalog>\n"
				"  <instance type=\"m4.large\">\n"
				"  </instanc>\n"
				"</catalog>\n");
	struct catalog c;
	catalog_init(&c);
	struct ns_err err = {0};
	assert_int_equal(catalog_load(&c, AWS, &err), 0);
	size_t prices = c.n_prices;
	assert_int_equal(catalog_load(&c, path, &err), -1);
	char want[256];
	snprintf(want, sizeof(want), "%s:4:", path);
	assert_non_null(strstr(err.msg, want));
	/* The failed file changed nothing. */
	assert_int_equal(c.n_prices, prices);
	catalog_free(&c);
	drop_temp(path);
}

static void invalid_catalog_names_file_and_line(void **state)
{
	(void)state;
	char *path = write_temp("<?xml version=\"1.0\"?>\n"
				"<catalog>\n"
				"  <instance type=\"m4.large\">\n"
				"    <price region=\"us-east-1\" usd-per-hour=\"-0.1\" as-of=\"2026-11-01\"\n"
				"           source=\"negative\"/>\n"
				"  </instance>\n"
				"</catalog>\n");
	struct catalog c;
	catalog_init(&c);
	struct ns_err err = {0};
	assert_int_equal(catalog_load(&c, path, &err), -1);
	/* libxml2 numbers an element by the line its start tag ends on: 4 or 5 here. */
	char want4[256], want5[256];
	snprintf(want4, sizeof(want4), "%s:4:", path);
	snprintf(want5, sizeof(want5), "%s:5:", path);
	assert_true(strstr(err.msg, want4) || strstr(err.msg, want5));
	assert_non_null(strstr(err.msg, "usd-per-hour"));
	assert_int_equal(c.n_prices, 0);
	drop_temp(path);

	/* A price without its source is refused too. */
	path = write_temp("<?xml version=\"1.0\"?>\n"
			  "<catalog>\n"
			  "  <instance type=\"m4.large\">\n"
			  "    <price region=\"us-east-1\" usd-per-hour=\"0.1\" as-of=\"2026-11-01\"/>\n"
			  "  </instance>\n"
			  "</catalog>\n");
	assert_int_equal(catalog_load(&c, path, &err), -1);
	assert_non_null(strstr(err.msg, "source"));
	drop_temp(path);

	assert_int_equal(catalog_load(&c, "/nonexistent/catalog.xml", &err), -1);
	assert_non_null(strstr(err.msg, "/nonexistent/catalog.xml"));
	catalog_free(&c);
}

static void default_path_follows_the_environment(void **state)
{
	(void)state;
	struct ns_settings env;
	unsetenv("NETSWEEP_CATALOG");
	settings_from_env(&env);
	settings_set(&env);
	assert_string_equal(catalog_default_path(), AWS);
	setenv("NETSWEEP_CATALOG", "/tmp/mine.xml", 1);
	settings_from_env(&env); /* as main() reads them */
	settings_set(&env);
	assert_string_equal(catalog_default_path(), "/tmp/mine.xml");
	unsetenv("NETSWEEP_CATALOG");
	settings_set(&(struct ns_settings){0});
}

/* A FIFO would block the parser until a writer came: it is refused at once, by kind. */
static void fifo_is_refused_at_once(void **state)
{
	(void)state;
	char path[] = "/tmp/ns-test-catalog-fifo-XXXXXX";
	assert_non_null(mkdtemp(path));
	char fifo[64];
	snprintf(fifo, sizeof(fifo), "%s/catalog.xml", path);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	struct catalog c;
	catalog_init(&c);
	struct ns_err err = {0};
	time_t t0 = time(NULL);
	assert_int_equal(catalog_load(&c, fifo, &err), -1);
	assert_true(time(NULL) - t0 < 5);
	assert_non_null(strstr(err.msg, fifo));
	assert_non_null(strstr(err.msg, "not a regular file"));
	assert_int_equal(catalog_load(&c, "/tmp", &err), -1);
	assert_non_null(strstr(err.msg, "not a regular file"));
	unlink(fifo);
	rmdir(path);
}

/* Over the size limit: refused before a byte is parsed (a sparse file costs no disk). */
static void oversized_catalog_is_refused(void **state)
{
	(void)state;
	char *path = write_temp("<catalog/>");
	assert_int_equal(truncate(path, (off_t)CATALOG_MAX_BYTES + 1), 0);
	struct catalog c;
	catalog_init(&c);
	struct ns_err err = {0};
	assert_int_equal(catalog_load(&c, path, &err), -1);
	assert_int_equal(err.code, NS_E_LIMIT);
	assert_non_null(strstr(err.msg, path));
	assert_non_null(strstr(err.msg, "32 MiB"));
	drop_temp(path);
}

/* Thousands of types and prices: every one found again, and a later duplicate replaces the
 * earlier entry instead of adding one (the hash index agrees with the arrays). */
static void many_entries_load_and_merge(void **state)
{
	(void)state;
	enum { N = 20000 };
	char *path = strdup("/tmp/ns-test-catalog-big-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "<catalog>\n");
	for (int i = 0; i < N; i++)
		fprintf(f, "<instance type=\"t%d.large\" vcpus=\"%d\"><price region=\"r-%d\" "
			"usd-per-hour=\"%d.5\" as-of=\"2026-01-01\" source=\"s\"/></instance>\n",
			i, i % 64 + 1, i % 7, i + 1);
	fprintf(f, "</catalog>\n");
	fclose(f);
	/* a later file: the same type again, a second region and a new price for the first */
	char *later = write_temp("<catalog><instance type=\"t7.large\"><price region=\"r-0\" usd-per-hour=\"9\" "
		"as-of=\"2026-01-01\" source=\"s\"/><price region=\"r-9\" usd-per-hour=\"3\" "
		"as-of=\"2026-01-01\" source=\"s\"/></instance></catalog>\n");
	struct catalog c;
	catalog_init(&c);
	struct ns_err err = {0};
	if (catalog_load(&c, path, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(c.n_instances, N);
	assert_int_equal(c.n_prices, N);
	assert_int_equal(catalog_load(&c, later, &err), 0);
	assert_int_equal(c.n_instances, N);
	assert_int_equal(c.n_prices, N + 1);
	for (int i = 0; i < N; i += 997) {
		char type[32], region[16];
		snprintf(type, sizeof(type), "t%d.large", i);
		snprintf(region, sizeof(region), "r-%d", i % 7);
		assert_int_equal(catalog_instance(&c, type)->vcpus, i % 64 + 1);
		if (i != 7)
			assert_true(catalog_price(&c, type, region)->per_hour == i + 1.5);
	}
	assert_true(catalog_price(&c, "t7.large", "r-0")->per_hour == 9);
	assert_true(catalog_price(&c, "t7.large", "r-9")->per_hour == 3);
	assert_null(catalog_price(&c, "t7.large", "r-1"));
	assert_null(catalog_instance(&c, "t7.larg"));
	/* loading the files again over themselves changes no count */
	assert_int_equal(catalog_load(&c, path, &err), 0);
	assert_int_equal(catalog_load(&c, later, &err), 0);
	assert_int_equal(c.n_prices, N + 1);
	catalog_free(&c);
	drop_temp(path);
	drop_temp(later);
}

static void nearest_type_suggests_typos_only(void **state)
{
	(void)state;
	struct catalog c;
	catalog_init(&c);
	struct ns_err err = {0};
	assert_int_equal(catalog_load(&c, AWS, &err), 0);
	assert_string_equal(catalog_nearest_type(&c, "m4.xlarg"), "m4.xlarge");
	assert_string_equal(catalog_nearest_type(&c, "m4.2xlareg"), "m4.2xlarge");
	assert_string_equal(catalog_nearest_type(&c, "c5n.18xlarge"), "c5n.18xlarge");
	assert_null(catalog_nearest_type(&c, "quantum.huge"));
	assert_null(catalog_nearest_type(&c, "x"));
	catalog_free(&c);
}

/* Prices of several models and currencies side by side: each found by its key, the currency
 * kept, the catalog's provider inherited, "up to" read; contradictions refused with a line. */
static void pricing_models_and_currencies(void **state)
{
	(void)state;
	char *path = write_temp(
		"<catalog name=\"m\" provider=\"scaleway\">\n"
		"  <instance type=\"PRO2-S\" vcpus=\"8\">\n"
		"    <network gbps=\"1.6\" up-to=\"true\" baseline-gbps=\"0.8\"/>\n"
		"    <price region=\"fr-par-1\" per-hour=\"0.2386\" currency=\"EUR\" as-of=\"2026-11-01\" source=\"t\"/>\n"
		"    <price region=\"fr-par-1\" per-hour=\"0.1\" currency=\"EUR\" pricing=\"spot\" window=\"w\" as-of=\"2026-11-01\" source=\"t\"/>\n"
		"    <price region=\"fr-par-1\" usd-per-hour=\"0.15\" pricing=\"reserved\" term=\"1yr\" as-of=\"2026-11-01\" source=\"t\"/>\n"
		"    <price region=\"fr-par-1\" usd-per-hour=\"0.12\" pricing=\"reserved\" term=\"3yr\" as-of=\"2026-11-01\" source=\"t\"/>\n"
		"  </instance>\n"
		"  <instance type=\"m5.large\" provider=\"aws\"><price region=\"us-east-1\" usd-per-hour=\"0.096\" as-of=\"2026-11-01\" source=\"t\"/></instance>\n"
		"</catalog>\n");
	struct catalog c;
	catalog_init(&c);
	struct ns_err err = {0};
	assert_int_equal(catalog_load(&c, path, &err), 0);
	const struct catalog_price *od = catalog_price(&c, "PRO2-S", "fr-par-1");
	assert_non_null(od);
	assert_string_equal(od->currency, "EUR");
	assert_true(fabs(od->per_hour - 0.2386) < 1e-12);
	const struct catalog_price *spot =
		catalog_price_of(&c, "PRO2-S", "fr-par-1", CATALOG_SPOT, NULL);
	assert_true(spot && fabs(spot->per_hour - 0.1) < 1e-12);
	assert_string_equal(spot->window, "w");
	const struct catalog_price *r3 =
		catalog_price_of(&c, "PRO2-S", "fr-par-1", CATALOG_RESERVED, "3yr");
	assert_true(r3 && fabs(r3->per_hour - 0.12) < 1e-12);
	assert_string_equal(r3->currency, "USD");
	assert_null(catalog_price_of(&c, "PRO2-S", "fr-par-1", CATALOG_RESERVED, "5yr"));
	assert_int_equal(c.n_prices, 5);
	assert_string_equal(catalog_instance(&c, "PRO2-S")->provider, "scaleway");
	assert_string_equal(catalog_instance(&c, "m5.large")->provider, "aws");
	assert_true(catalog_instance(&c, "PRO2-S")->up_to);
	assert_false(catalog_instance(&c, "m5.large")->up_to);
	enum catalog_pricing k;
	char term[8];
	assert_int_equal(catalog_pricing_split("reserved:3yr", &k, term), 0);
	assert_int_equal(k, CATALOG_RESERVED);
	assert_string_equal(term, "3yr");
	assert_int_equal(catalog_pricing_split("spot", &k, term), 0);
	assert_int_equal(k, CATALOG_SPOT);
	assert_int_equal(catalog_pricing_split("reserved", &k, term), -1);
	assert_int_equal(catalog_pricing_split("spot:1yr", &k, term), -1);
	drop_temp(path);

	static const char *const bad[] = {
		/* US dollars said to be euros */
		"<price region=\"r\" usd-per-hour=\"1\" currency=\"EUR\" as-of=\"2026-11-01\" source=\"t\"/>",
		/* two amounts */
		"<price region=\"r\" usd-per-hour=\"1\" per-hour=\"1\" as-of=\"2026-11-01\" source=\"t\"/>",
		/* no amount */
		"<price region=\"r\" currency=\"EUR\" as-of=\"2026-11-01\" source=\"t\"/>",
		/* a term without a reservation */
		"<price region=\"r\" usd-per-hour=\"1\" term=\"1yr\" as-of=\"2026-11-01\" source=\"t\"/>",
		/* the same on-demand price twice */
		"<price region=\"r\" usd-per-hour=\"1\" as-of=\"2026-11-01\" source=\"t\"/>"
		"<price region=\"r\" usd-per-hour=\"2\" as-of=\"2026-11-01\" source=\"t\"/>",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[1024];
		snprintf(text, sizeof(text), "<catalog>\n<instance type=\"x.large\">\n%s\n</instance>\n"
			 "</catalog>\n", bad[i]);
		path = write_temp(text);
		memset(&err, 0, sizeof(err));
		assert_int_equal(catalog_load(&c, path, &err), -1);
		assert_non_null(strstr(err.msg, path));
		assert_non_null(strstr(err.msg, ":3:"));
		drop_temp(path);
	}
	catalog_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shipped_catalog_has_the_seeds),
		cmocka_unit_test(later_file_overrides),
		cmocka_unit_test(malformed_catalog_names_file_and_line),
		cmocka_unit_test(invalid_catalog_names_file_and_line),
		cmocka_unit_test(default_path_follows_the_environment),
		cmocka_unit_test(fifo_is_refused_at_once),
		cmocka_unit_test(oversized_catalog_is_refused),
		cmocka_unit_test(many_entries_load_and_merge),
		cmocka_unit_test(nearest_type_suggests_typos_only),
		cmocka_unit_test(pricing_models_and_currencies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
