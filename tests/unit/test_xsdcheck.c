/* lib/xml/xsdcheck: inputs checked against their XSD stop at the first error, in time linear in
 * what was read (80,000 errors cost what one does), name file:line and the field, refuse a
 * DOCTYPE (no entity, internal or external, is ever expanded) and stop at the time limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/xml/xsdcheck.h"

/* A bound for CPU time, not wall time, so that a busy machine does not fail it: before the
 * validator stopped at the first error, the 80,000-error matrix took 38-44 s (100 s here). */
#define ERRORS_CPU_BOUND_S 2.0

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A text of n copies of item between head and tail (one line each). */
static char *repeat(const char *head, const char *item, size_t n, const char *tail, size_t *len)
{
	size_t hl = strlen(head), il = strlen(item), tl = strlen(tail);
	char *s = malloc(hl + il * n + tl + 1);
	assert_non_null(s);
	memcpy(s, head, hl);
	for (size_t i = 0; i < n; i++)
		memcpy(s + hl + i * il, item, il);
	memcpy(s + hl + il * n, tail, tl + 1);
	*len = hl + il * n + tl;
	return s;
}

static void nameless_pairs_stop_at_the_first(void **state)
{
	(void)state;
	size_t len;
	char *text = repeat("<?xml version=\"1.0\"?>\n<matrix name=\"x\"><pairs>\n",
			    "<pair agent=\"127.0.0.1:5301\"/>\n", 80000, "</pairs></matrix>\n", &len);
	assert_true(len < xsdcheck_matrix.max_bytes);
	struct ns_err err = {0};
	double t0 = cpu_s();
	xmlDocPtr doc = xsdcheck_mem(&xsdcheck_matrix, "m.xml", text, len, &err);
	double used = cpu_s() - t0;
	assert_null(doc);
	assert_int_equal(err.code, NS_E_INPUT);
	/* file:line, the element and the attribute */
	assert_non_null(strstr(err.msg, "m.xml:3: "));
	assert_non_null(strstr(err.msg, "'pair'"));
	assert_non_null(strstr(err.msg, "'name'"));
	assert_true(used < ERRORS_CPU_BOUND_S);
	free(text);
}

static void a_late_error_names_its_line(void **state)
{
	(void)state;
	size_t len;
	char *text = repeat("<?xml version=\"1.0\"?>\n<matrix name=\"x\"><pairs>\n",
			    "<pair name=\"a\" agent=\"127.0.0.1:5301\"/>\n", 70000,
			    "<pair agent=\"h:1\"/>\n</pairs></matrix>\n", &len);
	struct ns_err err = {0};
	assert_null(xsdcheck_mem(&xsdcheck_matrix, "m.xml", text, len, &err));
	/* past 65535: libxml2's short line numbers would say 65535 */
	assert_non_null(strstr(err.msg, "m.xml:70003: "));
	free(text);
}

static void a_catalog_of_errors_stops_at_the_first(void **state)
{
	(void)state;
	size_t len;
	char *text = repeat("<?xml version=\"1.0\"?>\n<catalog>\n",
			    "<instance type=\"t.large\" vcpus=\"zero\"><price region=\"r\" "
			    "usd-per-hour=\"x\" as-of=\"2020-01-01\" source=\"s\"/></instance>\n",
			    250000, "</catalog>\n", &len);
	assert_true(len > (25u << 20) && len < xsdcheck_catalog.max_bytes);
	struct ns_err err = {0};
	double t0 = cpu_s();
	xmlDocPtr doc = xsdcheck_mem(&xsdcheck_catalog, "c.xml", text, len, &err);
	double used = cpu_s() - t0;
	assert_null(doc);
	assert_non_null(strstr(err.msg, "c.xml:3: "));
	assert_non_null(strstr(err.msg, "'vcpus'"));
	assert_true(used < ERRORS_CPU_BOUND_S);
	free(text);
}

static void a_valid_file_gives_its_tree(void **state)
{
	(void)state;
	const char *text = "<?xml version=\"1.0\"?>\n<catalog name=\"c\">\n"
			   "<instance type=\"t.large\" vcpus=\"2\"><price region=\"r\" "
			   "usd-per-hour=\"0.1\" as-of=\"2020-01-01\" source=\"s\"/></instance>\n"
			   "</catalog>\n";
	struct ns_err err = {0};
	xmlDocPtr doc = xsdcheck_mem(&xsdcheck_catalog, "c.xml", text, strlen(text), &err);
	assert_non_null(doc);
	xmlNodePtr root = xmlDocGetRootElement(doc);
	assert_string_equal((const char *)root->name, "catalog");
	xmlNodePtr in = xmlFirstElementChild(root);
	assert_non_null(in);
	assert_int_equal(xmlGetLineNo(in), 3);
	xmlFreeDoc(doc);
}

static void a_duplicate_key_is_refused(void **state)
{
	(void)state;
	const char *in = "<instance type=\"t.large\" vcpus=\"2\"/>\n";
	size_t len;
	char *text = repeat("<catalog>\n", in, 2, "</catalog>\n", &len);
	struct ns_err err = {0};
	assert_null(xsdcheck_mem(&xsdcheck_catalog, "c.xml", text, len, &err));
	assert_int_equal(err.code, NS_E_INPUT);
	assert_non_null(strstr(err.msg, "c.xml:"));
	free(text);
}

static void a_doctype_is_refused(void **state)
{
	(void)state;
	const char *xxe = "<?xml version=\"1.0\"?>\n"
			  "<!DOCTYPE matrix [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n"
			  "<matrix name=\"&x;\"/>\n";
	const char *laughs = "<!DOCTYPE m [<!ENTITY a \"aaaaaaaaaa\">"
			     "<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]>\n"
			     "<matrix name=\"&b;\"/>\n";
	struct ns_err err = {0};
	assert_null(xsdcheck_mem(&xsdcheck_matrix, "m.xml", xxe, strlen(xxe), &err));
	assert_int_equal(err.code, NS_E_INPUT);
	assert_non_null(strstr(err.msg, "m.xml:2: "));
	assert_non_null(strstr(err.msg, "DOCTYPE"));
	assert_null(strstr(err.msg, "root:"));
	assert_null(xsdcheck_mem(&xsdcheck_matrix, "m.xml", laughs, strlen(laughs), &err));
	assert_non_null(strstr(err.msg, "DOCTYPE"));
}

static void not_well_formed_names_the_line(void **state)
{
	(void)state;
	const char *text = "<matrix name=\"x\">\n<axes>\n</matrix>\n";
	struct ns_err err = {0};
	assert_null(xsdcheck_mem(&xsdcheck_matrix, "m.xml", text, strlen(text), &err));
	assert_non_null(strstr(err.msg, "m.xml:3: not well-formed XML"));
	assert_null(xsdcheck_mem(&xsdcheck_matrix, "m.xml", "", 0, &err));
	assert_int_equal(err.code, NS_E_INPUT);
}

static void the_time_limit_stops_a_long_read(void **state)
{
	(void)state;
	size_t len;
	char *text = repeat("<matrix name=\"x\"><pairs>\n", "<pair name=\"a\" agent=\"h:1\"/>\n",
			    100000, "</pairs></matrix>\n", &len);
	struct xsdcheck_spec quick = xsdcheck_matrix;
	quick.max_cpu_s = 1e-6;
	struct ns_err err = {0};
	assert_null(xsdcheck_mem(&quick, "m.xml", text, len, &err));
	assert_int_equal(err.code, NS_E_LIMIT);
	assert_non_null(strstr(err.msg, "CPU-seconds"));
	/* the same text within the real limit is valid */
	xmlDocPtr doc = xsdcheck_mem(&xsdcheck_matrix, "m.xml", text, len, &err);
	assert_non_null(doc);
	xmlFreeDoc(doc);
	free(text);
}

static void slurp_refuses_what_is_not_a_bounded_file(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_xsdcheck.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char fifo[64], big[64];
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(big, sizeof(big), "%s/big.xml", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	char *text = NULL;
	size_t len = 0;
	struct ns_err err = {0};
	assert_int_equal(xsdcheck_slurp(fifo, 100, &text, &len, &err), -1);
	assert_int_equal(err.code, NS_E_INPUT);
	FILE *f = fopen(big, "w");
	assert_non_null(f);
	fputs("<matrix name=\"big\"/>\n", f);
	fclose(f);
	assert_int_equal(xsdcheck_slurp(big, 10, &text, &len, &err), -1);
	assert_int_equal(err.code, NS_E_LIMIT);
	assert_int_equal(xsdcheck_slurp(big, 100, &text, &len, &err), 0);
	assert_int_equal(len, 21);
	assert_string_equal(text, "<matrix name=\"big\"/>\n");
	free(text);
	xmlDocPtr doc = xsdcheck_file(&xsdcheck_matrix, big, &err);
	assert_non_null(doc);
	xmlFreeDoc(doc);
	unlink(fifo);
	unlink(big);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nameless_pairs_stop_at_the_first),
		cmocka_unit_test(a_late_error_names_its_line),
		cmocka_unit_test(a_catalog_of_errors_stops_at_the_first),
		cmocka_unit_test(a_valid_file_gives_its_tree),
		cmocka_unit_test(a_duplicate_key_is_refused),
		cmocka_unit_test(a_doctype_is_refused),
		cmocka_unit_test(not_well_formed_names_the_line),
		cmocka_unit_test(the_time_limit_stops_a_long_read),
		cmocka_unit_test(slurp_refuses_what_is_not_a_bounded_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
