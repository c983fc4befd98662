/* Expansion: product counts, exclude and include rules, keys that stay the same for the same
 * case, and the run order of repeats. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/matrix/bind.h"
#include "runner/matrix/expand.h"
#include "tests/lib/matrix_text.h"

#define AXES_2x3x2                                                                          \
	"<axis name=\"protocol\"><value>tcp</value><value>udp</value></axis>"                \
	"<axis name=\"streams\"><value>1</value><value>8</value><value>32</value></axis>"    \
	"<axis name=\"fq-rate\"><value>0</value><value>800M</value></axis>"

static const char *find_key(const struct matrix *m, const struct sweep_cases *c,
			    const char *proto, const char *streams, const char *fq)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(expand_value(m, &c->v[i], MX_PROTOCOL)->text, proto) &&
		    !strcmp(expand_value(m, &c->v[i], MX_STREAMS)->text, streams) &&
		    !strcmp(expand_value(m, &c->v[i], MX_FQ_RATE)->text, fq))
			return c->v[i].key;
	return NULL;
}

static void product_counts(void **state)
{
	(void)state;
	struct matrix m;
	struct sweep_cases c;
	load(&m, "<matrix name=\"p\"><axes>" AXES_2x3x2 "</axes></matrix>");
	expand(&m, &c);
	assert_int_equal(c.n, 12);
	assert_int_equal(c.excluded, 0);
	/* every combination once */
	for (size_t i = 0; i < c.n; i++)
		for (size_t j = i + 1; j < c.n; j++)
			assert_string_not_equal(c.v[i].key, c.v[j].key);
	expand_free(&c);
	matrix_free(&m);

	/* two pairs double it: the pair axis defaults to every pair */
	load(&m, "<matrix name=\"p\"><pairs><pair name=\"a\" agent=\"192.0.2.1\"/>"
		 "<pair name=\"b\" agent=\"192.0.2.2\"/></pairs><axes>" AXES_2x3x2
		 "</axes></matrix>");
	expand(&m, &c);
	assert_int_equal(c.n, 24);
	expand_free(&c);
	matrix_free(&m);
}

static void excludes_and_includes(void **state)
{
	(void)state;
	struct matrix m;
	struct sweep_cases c;
	/* fq-rate only with TCP: drops udp x {1,8,32} x 800M = 3 */
	load(&m, "<matrix name=\"p\"><axes>" AXES_2x3x2 "</axes><rules>"
		 "<exclude><when axis=\"protocol\" value=\"udp\"/><when axis=\"fq-rate\" not=\"0\"/></exclude>"
		 "<include><set axis=\"protocol\" value=\"udp\"/><set axis=\"streams\" value=\"40\"/></include>"
		 "<include><set axis=\"streams\" value=\"8\"/></include>" /* already there: no-op */
		 "</rules></matrix>");
	expand(&m, &c);
	assert_int_equal(c.excluded, 3);
	assert_int_equal(c.n, 12 - 3 + 1);
	assert_null(find_key(&m, &c, "udp", "8", "800000000"));
	assert_non_null(find_key(&m, &c, "tcp", "8", "800000000"));
	assert_non_null(find_key(&m, &c, "udp", "8", "0"));
	/* the include: unset axes take their first value; it runs after the product */
	const struct sweep_case *inc = &c.v[c.n - 1];
	assert_string_equal(expand_value(&m, inc, MX_STREAMS)->text, "40");
	assert_string_equal(expand_value(&m, inc, MX_PROTOCOL)->text, "udp");
	assert_string_equal(expand_value(&m, inc, MX_FQ_RATE)->text, "0");
	assert_true(inc->include_line > 0);
	expand_free(&c);
	matrix_free(&m);

	/* excluding everything is an error naming the line */
	struct ns_err err = {0};
	load(&m, "<matrix name=\"p\">\n<rules>\n<exclude><when axis=\"protocol\" value=\"tcp\"/>"
		 "</exclude></rules></matrix>");
	assert_int_equal(expand_matrix(&m, &c, &err), -1);
	assert_non_null(strstr(err.msg, "t.xml:3: every case is excluded"));
	matrix_free(&m);
}

static void keys_are_stable(void **state)
{
	(void)state;
	struct matrix m1, m2;
	struct sweep_cases c1, c2;
	/* The same case written differently (units, order of values, other values beside it,
	 * other settings) has the same key; a different parameter gives another key. */
	load(&m1, "<matrix name=\"one\"><axes>" AXES_2x3x2 "</axes></matrix>");
	load(&m2, "<matrix name=\"two\" repeats=\"5\">\n<axes>\n"
		  "<axis name=\"fq-rate\"><value>800000000</value><value>0</value><value>1G</value></axis>"
		  "<axis name=\"streams\"><value>32</value><value>1</value></axis>"
		  "<axis name=\"protocol\"><value>udp</value><value>tcp</value></axis>"
		  "<axis name=\"duration\"><value>10000ms</value></axis>"
		  "</axes></matrix>");
	expand(&m1, &c1);
	expand(&m2, &c2);
	const char *k1 = find_key(&m1, &c1, "tcp", "32", "800000000");
	const char *k2 = find_key(&m2, &c2, "tcp", "32", "800000000");
	assert_non_null(k1);
	assert_non_null(k2);
	assert_string_equal(k1, k2);
	assert_int_equal(strlen(k1), EXPAND_KEY_LEN);
	assert_string_not_equal(k1, find_key(&m1, &c1, "udp", "32", "800000000"));
	/* and the key is the digest of the canonical text, so another version computes it too */
	char canon[1024];
	expand_canonical(&m1, &c1.v[0], canon, sizeof(canon));
	assert_non_null(strstr(canon, "pair=loopback;protocol=tcp;"));
	char hex[65];
	sha256_hex(canon, strlen(canon), EXPAND_KEY_LEN / 2, hex, NULL);
	assert_string_equal(hex, c1.v[0].key);
	expand_free(&c1);
	expand_free(&c2);
	matrix_free(&m1);
	matrix_free(&m2);
}

static void schedule_orders(void **state)
{
	(void)state;
	struct matrix m;
	struct sweep_slot *s;
	size_t n;
	struct ns_err err = {0};
	load(&m, "<matrix name=\"o\" repeats=\"2\"/>");
	assert_int_equal(expand_schedule(&m, 3, 0, &s, &n, &err), 0);
	assert_int_equal(n, 6);
	/* as written: each case's repeats together */
	assert_int_equal(s[0].case_idx, 0); assert_int_equal(s[0].repeat, 0);
	assert_int_equal(s[1].case_idx, 0); assert_int_equal(s[1].repeat, 1);
	assert_int_equal(s[2].case_idx, 1);
	free(s);
	m.order = MX_ORDER_INTERLEAVED;
	assert_int_equal(expand_schedule(&m, 3, 0, &s, &n, &err), 0);
	assert_int_equal(s[1].case_idx, 1); assert_int_equal(s[1].repeat, 0);
	assert_int_equal(s[3].case_idx, 0); assert_int_equal(s[3].repeat, 1);
	free(s);

	/* shuffled: a permutation, the same for the same seed, another for another seed */
	struct sweep_slot *a, *b, *c;
	m.order = MX_ORDER_SHUFFLED;
	m.repeats = 3;
	assert_int_equal(expand_schedule(&m, 50, 42, &a, &n, &err), 0);
	assert_int_equal(expand_schedule(&m, 50, 42, &b, &n, &err), 0);
	assert_int_equal(expand_schedule(&m, 50, 43, &c, &n, &err), 0);
	assert_int_equal(n, 150);
	assert_memory_equal(a, b, n * sizeof(*a));
	assert_memory_not_equal(a, c, n * sizeof(*a));
	int seen[50][3] = {{0}};
	for (size_t i = 0; i < n; i++)
		seen[a[i].case_idx][a[i].repeat]++;
	for (int i = 0; i < 50; i++)
		for (int r = 0; r < 3; r++)
			assert_int_equal(seen[i][r], 1);
	free(a);
	free(b);
	free(c);
	matrix_free(&m);
}

static void check_names_conflicts(void **state)
{
	(void)state;
	struct matrix m;
	struct sweep_cases c;
	struct ns_err err = {0};
	/* each value is fine alone; UDP with a 70000-byte payload is not */
	load(&m, "<matrix name=\"c\">\n<axes>\n"
		 "<axis name=\"protocol\"><value>tcp</value><value>udp</value></axis>\n"
		 "<axis name=\"length\"><value>1K</value><value>70000</value></axis>\n"
		 "</axes></matrix>");
	expand(&m, &c);
	assert_int_equal(expand_check(&m, &c, &err), -1);
	assert_non_null(strstr(err.msg, "t.xml:3: case"));
	assert_non_null(strstr(err.msg, "protocol=udp length=70000"));
	expand_free(&c);
	matrix_free(&m);
	/* a value refused whatever it is combined with is named at its own line */
	load(&m, "<matrix name=\"c\">\n<axes>\n"
		 "<axis name=\"streams\"><value>1</value></axis>\n"
		 "<axis name=\"gso\">\n<value>true</value></axis>\n"
		 "</axes></matrix>");
	expand(&m, &c);
	assert_int_equal(expand_check(&m, &c, &err), -1);
	assert_non_null(strstr(err.msg, "t.xml:5: axis 'gso' value '1'"));
	expand_free(&c);
	matrix_free(&m);
	/* and the same value with UDP is fine */
	load(&m, "<matrix name=\"c\"><axes><axis name=\"protocol\"><value>udp</value></axis>"
		 "<axis name=\"length\"><value>1K</value></axis>"
		 "<axis name=\"gso\"><value>true</value></axis></axes></matrix>");
	expand(&m, &c);
	assert_int_equal(expand_check(&m, &c, &err), 0);
	expand_free(&c);
	matrix_free(&m);
}

/* The axes of issue 17: bind (per pair), dscp, zerocopy, family, amount. A matrix without
 * them keeps the canonical text, hence the case keys, it had before they existed. */
static void source_marking_amount_axes(void **state)
{
	(void)state;
	struct matrix m;
	struct sweep_cases c;
	struct ns_err err = {0};
	load(&m, "<matrix name=\"old\"><axes><axis name=\"streams\"><value>2</value></axis>"
		 "</axes></matrix>");
	expand(&m, &c);
	char canon[1024];
	expand_canonical(&m, &c.v[0], canon, sizeof(canon));
	assert_string_equal(canon, "pair=loopback;protocol=tcp;direction=forward;streams=2;"
				   "threads=0;length=0;rate=0;fq-rate=0;duration=10;omit=0;"
				   "affinity=none;window=0;mss=0;nodelay=0;congestion=;gso=0;");
	expand_free(&c);
	matrix_free(&m);

	load(&m, "<matrix name=\"new\"><pairs>\n"
		 "<pair name=\"a\" agent=\"10.0.0.2\"><bind name=\"eni2\" client=\"10.0.1.5\" "
		 "agent=\"10.0.1.2:6000\"/></pair>\n"
		 "<pair name=\"b\" agent=\"10.0.0.3\"/>\n</pairs><axes>\n"
		 "<axis name=\"bind\"><value>eni2</value></axis>\n"
		 "<axis name=\"dscp\"><value>EF</value><value>af41</value></axis>\n"
		 "<axis name=\"zerocopy\"><value>true</value></axis>\n"
		 "<axis name=\"family\"><value>4</value></axis>\n"
		 "<axis name=\"amount\"><value>100M</value></axis>\n"
		 "</axes></matrix>");
	expand(&m, &c);
	assert_int_equal(c.n, 4); /* 2 pairs x 2 DSCPs */
	struct probe_params p;
	expand_params(&m, &c.v[0], &p);
	assert_int_equal(p.tos, 46 << 2);
	assert_true(p.zerocopy);
	assert_int_equal(p.family, 4);
	assert_int_equal(p.bytes, 100ull << 20);
	assert_string_equal(expand_value(&m, &c.v[0], MX_DSCP)->text, "46");
	expand_canonical(&m, &c.v[0], canon, sizeof(canon));
	assert_non_null(strstr(canon, "gso=0;bind=eni2;dscp=46;zerocopy=1;family=4;amount=104857600;"));
	assert_int_equal(mxbind_apply(&m, 0, "eni2", &p, &err), 0);
	assert_string_equal(p.bind, "10.0.1.5");
	assert_string_equal(p.host, "10.0.1.2");
	assert_int_equal(p.port, 6000);
	/* pair b declares no eni2: named with its line, until a rule excludes it */
	assert_int_equal(expand_check(&m, &c, &err), -1);
	assert_non_null(strstr(err.msg, "t.xml:3: pair b has no <bind name=\"eni2\">"));
	expand_free(&c);
	matrix_free(&m);

	/* a bind no pair declares, a bad DSCP, a bad family: the value's line */
	static const struct { const char *axis, *value, *want; } bad[] = {
		{"bind", "eni9", "not a <bind> of any pair"},
		{"dscp", "AF44", "DSCP 'AF44'"},
		{"family", "5", "family is any, 4 or 6"},
		{"amount", "-1", "amount"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char xml[512];
		snprintf(xml, sizeof(xml), "<matrix name=\"x\"><axes>\n<axis name=\"%s\">"
			 "<value>%s</value></axis></axes></matrix>", bad[i].axis, bad[i].value);
		assert_int_equal(matrix_load_mem(&m, "t.xml", xml, strlen(xml), &err), -1);
		if (!strstr(err.msg, bad[i].want) || !strstr(err.msg, "t.xml:2"))
			fail_msg("%s=%s: '%s'", bad[i].axis, bad[i].value, err.msg);
	}
}

/* Latency under load (issue 24): latency-probe with its rate and size goes to the probe
 * params of every case that has it (none leaves them unset, and the key of a case without
 * it unchanged); a rate without the probe is named at its line. */
static void latency_probe_axes(void **state)
{
	(void)state;
	struct matrix m;
	struct sweep_cases c;
	struct probe_params p;
	struct ns_err err = {0};
	char before[512], after[512];
	load(&m, "<matrix name=\"l\"><axes><axis name=\"streams\"><value>2</value></axis>"
		 "</axes></matrix>");
	expand(&m, &c);
	assert_true(expand_canonical(&m, &c.v[0], before, sizeof(before)) > 0);
	expand_free(&c);
	matrix_free(&m);
	load(&m, "<matrix name=\"l\"><axes><axis name=\"streams\"><value>2</value></axis>"
		 "<axis name=\"latency-probe\"><value>none</value><value>tcp</value></axis>"
		 "</axes></matrix>");
	expand(&m, &c);
	assert_int_equal(c.n, 2);
	assert_true(expand_canonical(&m, &c.v[0], after, sizeof(after)) > 0);
	assert_string_equal(before, after); /* none: the case of before, the same key */
	expand_free(&c);
	matrix_free(&m);
	load(&m, "<matrix name=\"l\"><axes><axis name=\"streams\"><value>2</value></axis>"
		 "<axis name=\"latency-probe\"><value>none</value><value>tcp</value>"
		 "<value>udp</value></axis><axis name=\"latency-rate\"><value>50/s</value></axis>"
		 "<axis name=\"latency-size\"><value>64</value></axis></axes></matrix>");
	expand(&m, &c);
	assert_int_equal(c.n, 3);
	assert_int_equal(expand_check(&m, &c, &err), 0);
	expand_params(&m, &c.v[0], &p);
	assert_true(!p.lat_probe[0] && p.lat_rate == 0 && p.lat_size == 0);
	expand_params(&m, &c.v[1], &p);
	assert_string_equal(p.lat_probe, "tcp");
	assert_true(p.lat_rate == 50 && p.lat_size == 64 && p.streams == 2);
	expand_params(&m, &c.v[2], &p);
	assert_string_equal(p.lat_probe, "udp");
	/* the dry run's time: a probed case's idle test comes before its load */
	assert_true(expand_case_seconds(&m, &c.v[0]) == p.duration_s);
	assert_true(expand_case_seconds(&m, &c.v[2]) == PROBE_LAT_IDLE_S + p.duration_s);
	expand_free(&c);
	matrix_free(&m);
	load(&m, "<matrix name=\"l\"><axes>\n<axis name=\"latency-rate\"><value>5</value>"
		 "</axis></axes></matrix>");
	expand(&m, &c);
	assert_int_equal(expand_check(&m, &c, &err), -1);
	if (!strstr(err.msg, "t.xml:2: axis 'latency-rate': goes with a latency-probe axis"))
		fail_msg("'%s'", err.msg);
	expand_free(&c);
	matrix_free(&m);
	const char *bad;
	bad = "<matrix name=\"l\"><axes>\n<axis name=\"latency-probe\"><value>sctp</value>"
	      "</axis></axes></matrix>";
	assert_int_equal(matrix_load_mem(&m, "t.xml", bad, strlen(bad), &err), -1);
	if (!strstr(err.msg, "latency-probe is none, tcp or udp"))
		fail_msg("'%s'", err.msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(product_counts),
		cmocka_unit_test(excludes_and_includes),
		cmocka_unit_test(keys_are_stable),
		cmocka_unit_test(schedule_orders),
		cmocka_unit_test(check_names_conflicts),
		cmocka_unit_test(source_marking_amount_axes),
		cmocka_unit_test(latency_probe_axes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
