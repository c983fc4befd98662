/* Matrix loading: what a good file turns into, and that every kind of bad file is refused
 * with one message naming the file, the line and what is wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "runner/matrix/expand.h"
#include "runner/matrix/matrix.h"
#include "runner/matrix/matrix_group.h"

static const char good[] =
	"<?xml version=\"1.0\"?>\n"                                           /* 1 */
	"<matrix name=\"t\" repeats=\"3\" order=\"interleaved\" seed=\"42\"\n" /* 2 */
	"        cooldown=\"2s\" case-timeout=\"60s\">\n"                     /* 3 */
	"  <description>A test</description>\n"                               /* 4 */
	"  <pairs>\n"                                                         /* 5 */
	"    <pair name=\"m4.large\" instance-type=\"m4.large\" region=\"ap-northeast-1\"\n"
	"          agent=\"192.0.2.10:5301\" expected-driver=\"ena\" price-basis=\"sender\"\n"
	"          link-speed=\"10G\"/>\n"                                    /* 8 */
	"    <pair name=\"v6\" agent=\"[2001:db8::1]:6000\"/>\n"              /* 9 */
	"    <pair name=\"bare\" agent=\"192.0.2.11\"/>\n"                    /* 10 */
	"  </pairs>\n"
	"  <axes>\n"
	"    <axis name=\"protocol\"><value>tcp</value><value>udp</value></axis>\n" /* 13 */
	"    <axis name=\"fq-rate\">\n"                                       /* 14 */
	"      <value>0</value>\n"
	"      <value> 800M </value>\n"                                       /* 16 */
	"    </axis>\n"
	"    <axis name=\"duration\"><value>2500ms</value></axis>\n"          /* 18 */
	"    <axis name=\"affinity\"><value>none</value><value>3,0-1</value></axis>\n"
	"  </axes>\n"
	"  <rules>\n"
	"    <exclude><when axis=\"protocol\" value=\"udp\"/><when axis=\"fq-rate\" not=\"0\"/></exclude>\n"
	"    <include><set axis=\"pair\" value=\"v6\"/><set axis=\"streams\" value=\"8\"/></include>\n"
	"  </rules>\n"
	"</matrix>\n";

static int load(struct matrix *m, const char *text, struct ns_err *err)
{
	return matrix_load_mem(m, "t.xml", text, strlen(text), err);
}

static void good_matrix_loads(void **state)
{
	(void)state;
	struct matrix m;
	struct ns_err err = {0};
	assert_int_equal(load(&m, good, &err), 0);
	assert_string_equal(m.name, "t");
	assert_string_equal(m.description, "A test");
	assert_int_equal(m.repeats, 3);
	assert_int_equal(m.order, MX_ORDER_INTERLEAVED);
	assert_true(m.has_seed);
	assert_int_equal(m.seed, 42);
	assert_true(m.cooldown_s == 2.0);
	assert_true(m.case_timeout_s == 60.0);
	assert_false(m.loopback);
	assert_int_equal(m.n_pairs, 3);
	assert_string_equal(m.pairs[0].agent_host, "192.0.2.10");
	assert_int_equal(m.pairs[0].agent_port, 5301);
	assert_string_equal(m.pairs[0].expected_driver, "ena");
	assert_string_equal(m.pairs[0].price_basis, "sender");
	assert_int_equal(m.pairs[0].link_bps, 10000000000ULL);
	assert_int_equal(m.pairs[0].line, 8); /* libxml2: where the start tag ends */
	assert_string_equal(m.pairs[1].agent_host, "2001:db8::1");
	assert_int_equal(m.pairs[1].agent_port, 6000);
	assert_int_equal(m.pairs[2].agent_port, 5301);
	assert_string_equal(m.pairs[2].price_basis, "pair");
	/* values are canonical and keep their lines */
	assert_int_equal(m.axes[MX_FQ_RATE].n, 2);
	assert_string_equal(m.axes[MX_FQ_RATE].v[1].text, "800000000");
	assert_int_equal(m.axes[MX_FQ_RATE].v[1].line, 16);
	assert_string_equal(m.axes[MX_DURATION].v[0].text, "2.5");
	assert_string_equal(m.axes[MX_AFFINITY].v[1].text, "0-1,3");
	/* unwritten axes hold their default; the pair axis holds every pair */
	assert_false(m.axes[MX_STREAMS].present);
	assert_string_equal(m.axes[MX_STREAMS].v[0].text, "1");
	assert_int_equal(m.axes[MX_PAIR].n_product, 3);
	/* the include's streams=8 is an extra value outside the product */
	assert_int_equal(m.axes[MX_STREAMS].n_product, 1);
	assert_int_equal(m.axes[MX_STREAMS].n, 2);
	assert_int_equal(m.n_rules, 2);
	assert_true(m.rules[0].c[1].negate);
	/* the hash is of the text as read */
	assert_int_equal(strlen(m.hash), 64);
	matrix_free(&m);
}

static void no_pairs_means_loopback(void **state)
{
	(void)state;
	struct matrix m;
	struct ns_err err = {0};
	assert_int_equal(load(&m, "<matrix name=\"l\"/>", &err), 0);
	assert_true(m.loopback);
	assert_int_equal(m.n_pairs, 1);
	assert_string_equal(m.pairs[0].name, "loopback");
	assert_int_equal(m.repeats, 1);
	assert_int_equal(m.order, MX_ORDER_AS_WRITTEN);
	matrix_free(&m);
}

/* Loads bad text and checks the one-line message names file:line and contains `what`. */
static void refused(const char *text, int line, const char *what)
{
	struct matrix m;
	struct ns_err err = {0};
	char at[32];
	assert_int_equal(load(&m, text, &err), -1);
	snprintf(at, sizeof(at), "t.xml:%d: ", line);
	if (strncmp(err.msg, at, strlen(at)) != 0 || !strstr(err.msg, what) || strchr(err.msg, '\n'))
		fail_msg("wanted '%s...%s', got '%s'", at, what, err.msg);
}

static void not_xml_names_line(void **state)
{
	(void)state;
	refused("<matrix name=\"x\">\n<axes>\n</matrix>\n", 3, "not well-formed");
	refused("this is not xml", 1, "not well-formed");
}

static void schema_violations_name_line(void **state)
{
	(void)state;
	refused("<matrix name=\"x\">\n  <axes>\n    <axis name=\"speed\"><value>1</value></axis>\n"
		"  </axes>\n</matrix>\n", 3, "speed");
	refused("<matrix name=\"x\" repeats=\"0\"/>", 1, "repeats");
	refused("<matrix name=\"x\">\n<pairs>\n<pair name=\"a\"/>\n</pairs>\n</matrix>", 3, "agent");
	refused("<matrix>\n</matrix>", 1, "name");
	refused("<matrix name=\"x\">\n<frobs/>\n</matrix>", 2, "frobs");
}

static void checks_beyond_schema_name_line(void **state)
{
	(void)state;
	refused("<matrix name=\"x\">\n<axes>\n<axis name=\"streams\"/>\n</axes>\n</matrix>", 3,
		"no values");
	refused("<matrix name=\"x\">\n<axes>\n<axis name=\"duration\">\n<value>-5s</value>\n"
		"</axis>\n</axes>\n</matrix>", 4, "negative");
	refused("<matrix name=\"x\">\n<axes>\n<axis name=\"duration\"><value>0</value></axis>\n"
		"</axes>\n</matrix>", 3, "above zero");
	refused("<matrix name=\"x\">\n<pairs><pair name=\"a\" agent=\"192.0.2.1\"/></pairs>\n"
		"<rules>\n<exclude><when axis=\"pair\" value=\"b\"/></exclude>\n</rules>\n</matrix>",
		4, "'b' is not a pair");
	refused("<matrix name=\"x\">\n<axes>\n<axis name=\"streams\"><value>0</value></axis>\n"
		"</axes>\n</matrix>", 3, "out of range");
	refused("<matrix name=\"x\">\n<axes>\n<axis name=\"streams\"><value>1</value>\n"
		"<value>1</value></axis>\n</axes>\n</matrix>", 4, "repeats the value on line 3");
	refused("<matrix name=\"x\">\n<axes>\n<axis name=\"protocol\"><value>sctp</value></axis>\n"
		"</axes>\n</matrix>", 3, "tcp, udp or quic");
	refused("<matrix name=\"x\">\n<pairs>\n<pair name=\"a\" agent=\"192.0.2.1\"/>\n"
		"<pair name=\"a\" agent=\"192.0.2.2\"/>\n</pairs>\n</matrix>", 4, "already the name");
	refused("<matrix name=\"x\">\n<pairs>\n<pair name=\"a\" agent=\"192.0.2.1:99999\"/>\n"
		"</pairs>\n</matrix>", 3, "port");
	refused("<matrix name=\"x\">\n<axes>\n<axis name=\"streams\"><value>1</value></axis>\n"
		"<axis name=\"streams\"><value>2</value></axis>\n</axes>\n</matrix>", 4,
		"already defined on line 3");
	refused("<matrix name=\"x\">\n<rules>\n<exclude><when axis=\"streams\"/></exclude>\n"
		"</rules>\n</matrix>", 3, "exactly one of");
	refused("<matrix name=\"x\" cooldown=\"-1s\"/>", 1, "negative");
}

/* Hooks: a pair's or the run's setup may name the agent; their limits have defaults. */
static void hooks_load(void **state)
{
	(void)state;
	struct matrix m;
	struct ns_err err = {0};
	assert_int_equal(load(&m, "<matrix name=\"h\">\n"
			       "<setup timeout=\"2m\">make-all</setup>\n"
			       "<pairs><pair name=\"a\"><setup wait=\"30s\">up a</setup>"
			       "<teardown timeout=\"90\">down a</teardown></pair>\n"
			       "<pair name=\"b\"/></pairs>\n</matrix>", &err), 0);
	assert_string_equal(m.setup.command, "make-all");
	assert_true(m.setup.timeout_s == 120);
	assert_false(m.teardown.command[0]);
	assert_string_equal(m.pairs[0].setup.command, "up a");
	assert_true(m.pairs[0].setup.wait_s == 30 && m.pairs[0].setup.timeout_s == 900);
	assert_true(m.pairs[0].teardown.timeout_s == 90);
	assert_int_equal(m.pairs[0].teardown.line, 3);
	assert_false(m.pairs[1].agent_host[0]);  /* the run's setup names it */
	matrix_free(&m);
	refused("<matrix name=\"x\">\n<pairs>\n<pair name=\"a\"><teardown>t</teardown></pair>\n"
		"</pairs>\n</matrix>", 3, "no agent and no setup");
	refused("<matrix name=\"x\">\n<pairs>\n<pair name=\"a\">\n<setup timeout=\"0\">s</setup>"
		"</pair>\n</pairs>\n</matrix>", 4, "timeout");
	refused("<matrix name=\"x\">\n<setup></setup>\n</matrix>", 2, "setup");
}

static void missing_file_names_file(void **state)
{
	(void)state;
	struct matrix m;
	struct ns_err err = {0};
	assert_int_equal(matrix_load(&m, "/nonexistent/s3.xml", &err), -1);
	assert_non_null(strstr(err.msg, "/nonexistent/s3.xml"));
	assert_non_null(strstr(err.msg, "No such file"));
}

/* Groups: an incast group's members are clients of its agent, a fan-out group's are agents
 * of its client; the clients axis picks how many; bad groups are refused at their line. */
static const char groups[] =
	"<matrix name=\"g\">\n"                                              /* 1 */
	"<pairs>\n"
	"<group name=\"in\" kind=\"incast\" agent=\"192.0.2.1:7000\">\n"     /* 3 */
	"<member name=\"c1\"/><member name=\"c2\" client=\"192.0.2.2\"/>\n"
	"<member name=\"c3\" client=\"192.0.2.3:6000\"/>\n"
	"</group>\n"
	"<group name=\"out\" kind=\"fan-out\" client=\"192.0.2.9\">\n"       /* 7 */
	"<member name=\"a1\" agent=\"192.0.2.4\"/><member name=\"a2\" agent=\"192.0.2.5:7\"/>\n"
	"</group>\n"
	"<pair name=\"p\" agent=\"192.0.2.6\"/>\n"                             /* 10 */
	"</pairs>\n"
	"</matrix>\n";

static void groups_load(void **state)
{
	(void)state;
	struct matrix m;
	struct sweep_cases cs;
	struct matrix_member mb;
	struct ns_err err = {0};
	if (load(&m, groups, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(m.n_pairs, 3);
	assert_int_equal(m.pairs[0].group, MX_GROUP_INCAST);
	assert_int_equal(m.pairs[0].n_members, 3);
	assert_int_equal(m.pairs[1].group, MX_GROUP_FANOUT);
	assert_string_equal(m.pairs[1].agent_host, "192.0.2.4"); /* the first member's */
	assert_int_equal(m.pairs[2].group, MX_GROUP_NONE);
	assert_int_equal(expand_matrix(&m, &cs, &err), 0);
	assert_int_equal(cs.n, 3);
	assert_int_equal(expand_check(&m, &cs, &err), 0);
	/* no clients axis: a group runs all its members, a pair one test */
	assert_int_equal(mxgroup_clients(&m, &cs.v[0]), 3);
	assert_true(mxgroup_is_group(&m, &cs.v[0]));
	assert_int_equal(mxgroup_clients(&m, &cs.v[2]), 1);
	assert_false(mxgroup_is_group(&m, &cs.v[2]));
	mxgroup_member(&m, &cs.v[0], 0, &mb);
	assert_string_equal(mb.client_host, "");
	assert_string_equal(mb.agent_host, "192.0.2.1");
	assert_int_equal(mb.agent_port, 7000);
	mxgroup_member(&m, &cs.v[0], 2, &mb);
	assert_string_equal(mb.client_host, "192.0.2.3");
	assert_int_equal(mb.client_port, 6000);
	mxgroup_member(&m, &cs.v[1], 1, &mb);
	assert_string_equal(mb.client_host, "192.0.2.9");
	assert_string_equal(mb.agent_host, "192.0.2.5");
	assert_int_equal(mb.agent_port, 7);
	expand_free(&cs);
	matrix_free(&m);

	/* a clients axis: on a pair, N tests of its own two ends; too many for a group: refused
	 * at the value's line */
	char text[2048];
	snprintf(text, sizeof(text), "%.*s<axes>\n<axis name=\"clients\"><value>2</value>"
		 "<value>3</value></axis>\n</axes>\n</matrix>\n",
		 (int)(strstr(groups, "</matrix>") - groups), groups);
	assert_int_equal(load(&m, text, &err), 0);
	assert_int_equal(expand_matrix(&m, &cs, &err), 0);
	assert_int_equal(cs.n, 6);
	assert_int_equal(expand_check(&m, &cs, &err), -1);
	if (!strstr(err.msg, "t.xml:13"))
		fail_msg("%s", err.msg);
	assert_non_null(strstr(err.msg, "t.xml:13: axis 'clients' value '3': group 'out' (line 7) "
				       "has 2 members"));
	assert_int_equal(mxgroup_clients(&m, &cs.v[5]), 3); /* pair p, clients 3 */
	mxgroup_member(&m, &cs.v[5], 2, &mb);
	assert_string_equal(mb.agent_host, "192.0.2.6");
	expand_free(&cs);
	matrix_free(&m);
}

/* A written pair's placement (issue 39): each end's zone and region, or its relation, kept
 * as written; the zone axis runs a pair only in its own relation (a pair whose placement is
 * not written stays unknown: zone=any cases only); monthly-transfer in decimal GB. */
static void placement_loads(void **state)
{
	(void)state;
	struct matrix m;
	struct sweep_cases cs;
	struct ns_err err = {0};
	const char *text =
		"<matrix name=\"p\" monthly-transfer=\"1.5TB\"><pairs>\n"
		"<pair name=\"sz\" agent=\"192.0.2.1\" region=\"us-east-1\" client-zone=\"use1-az1\""
		" agent-zone=\"use1-az1\"/>\n"
		"<pair name=\"cr\" agent=\"192.0.2.2\" region=\"us-east-1\" agent-region=\"us-west-2\"/>\n"
		"<pair name=\"net\" agent=\"192.0.2.3\" relation=\"internet\"/>\n"
		"<pair name=\"un\" agent=\"192.0.2.4\" region=\"us-east-1\"/>\n"
		"</pairs><axes><axis name=\"zone\"><value>same</value><value>cross</value></axis>"
		"</axes></matrix>\n";
	if (load(&m, text, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(m.monthly_gb == 1500);
	assert_string_equal(m.pairs[0].client_zone, "use1-az1");
	assert_int_equal(m.pairs[0].zone_rel, MX_ZONE_SAME);
	assert_string_equal(m.pairs[1].agent_region, "us-west-2");
	assert_int_equal(m.pairs[1].zone_rel, MX_ZONE_CROSS);
	assert_string_equal(m.pairs[2].relation, "internet");
	assert_int_equal(m.pairs[2].zone_rel, MX_ZONE_ANY);
	assert_int_equal(m.pairs[3].zone_rel, MX_ZONE_ANY);
	/* zone=same: sz; zone=cross: cr */
	assert_int_equal(expand_matrix(&m, &cs, &err), 0);
	assert_int_equal(cs.n, 2);
	expand_free(&cs);
	matrix_free(&m);
	refused("<matrix name=\"p\">\n<pairs><pair name=\"a\" agent=\"192.0.2.1\" relation=\"near\"/>"
		"</pairs></matrix>", 2, "relation");
	refused("<matrix name=\"p\" monthly-transfer=\"0TB\">\n</matrix>", 1, "monthly-transfer");
}

static void bad_groups_name_line(void **state)
{
	(void)state;
	refused("<matrix name=\"x\">\n<pairs>\n<group name=\"g\" kind=\"incast\">\n"
		"<member name=\"a\"/></group>\n</pairs>\n</matrix>", 3, "group agent: an incast");
	refused("<matrix name=\"x\">\n<pairs>\n<group name=\"g\" kind=\"incast\" agent=\"h\">\n"
		"<member name=\"a\" agent=\"h2\"/></group>\n</pairs>\n</matrix>", 4,
		"group member agent: an incast group's members are clients");
	refused("<matrix name=\"x\">\n<pairs>\n<group name=\"g\" kind=\"fan-out\">\n"
		"<member name=\"a\"/></group>\n</pairs>\n</matrix>", 4, "needs agent=");
	refused("<matrix name=\"x\">\n<pairs>\n<group name=\"g\" kind=\"fan-out\" agent=\"h\">\n"
		"<member name=\"a\" agent=\"h\"/></group>\n</pairs>\n</matrix>", 3,
		"are its members");
	refused("<matrix name=\"x\">\n<pairs>\n<group name=\"g\" kind=\"fan-out\">\n"
		"<member name=\"a\" agent=\"h\"/>\n<member name=\"a\" agent=\"i\"/>\n"
		"</group>\n</pairs>\n</matrix>", 5, "already the member on line 4");
	refused("<matrix name=\"x\">\n<pairs>\n<group name=\"g\" kind=\"fan-out\">\n"
		"<member name=\"a\" agent=\"h:99999\"/></group>\n</pairs>\n</matrix>", 4,
		"group member agent: 'h:99999' is not host:port");
	refused("<matrix name=\"x\">\n<pairs>\n<group name=\"g\" kind=\"many\" agent=\"h\">\n"
		"<member name=\"a\"/></group>\n</pairs>\n</matrix>", 3, "many");
	refused("<matrix name=\"x\">\n<pairs>\n<pair name=\"g\" agent=\"h\"/>\n"
		"<group name=\"g\" kind=\"incast\" agent=\"h\"><member name=\"a\"/></group>\n"
		"</pairs>\n</matrix>", 4, "already the name of the pair on line 3");
	refused("<matrix name=\"x\">\n<axes>\n<axis name=\"clients\"><value>65</value></axis>\n"
		"</axes>\n</matrix>", 3, "out of range");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(good_matrix_loads),
		cmocka_unit_test(no_pairs_means_loopback),
		cmocka_unit_test(placement_loads),
		cmocka_unit_test(not_xml_names_line),
		cmocka_unit_test(schema_violations_name_line),
		cmocka_unit_test(checks_beyond_schema_name_line),
		cmocka_unit_test(missing_file_names_file),
		cmocka_unit_test(hooks_load),
		cmocka_unit_test(groups_load),
		cmocka_unit_test(bad_groups_name_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
