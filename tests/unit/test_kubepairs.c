/* kubepairs (runner/pairs/kubepairs.c): a matrix's <kubernetes> pairs from kubectl's pod and
 * node lists — the recorded responses in tests/fixtures/kubernetes/ — named by zone and node,
 * priced by the nodes' instance type and region, same-zone or cross-zone; pending, address-less
 * pods left out; the matrix loaded with them and expanded along the zone axis. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/matrix/expand.h"
#include "runner/matrix/matrix.h"
#include "runner/pairs/kubepairs.h"
#include "tests/lib/read_all.h"

#define FIX NETSWEEP_SCHEMADIR "/../tests/fixtures/kubernetes/"

static const struct matrix_pair *named(const struct matrix_pair *p, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(p[i].name, name))
			return &p[i];
	fail_msg("no pair %s", name);
	return NULL;
}

static struct matrix_kube kube(bool from_runner)
{
	struct matrix_kube k = {.present = true, .port = 5302, .from_runner = from_runner};
	snprintf(k.selector, sizeof(k.selector), "app.kubernetes.io/name=netsweep-agent");
	snprintf(k.ns, sizeof(k.ns), "netsweep");
	return k;
}

/* Three running agents on three nodes (the fourth pod is pending): six ordered pairs. */
static void test_agents(void **state)
{
	(void)state;
	char *pods = read_all(FIX "pods.json"), *nodes = read_all(FIX "nodes.json");
	struct matrix_kube k = kube(false);
	struct matrix_pair *p;
	size_t n;
	struct ns_err err = {0};
	assert_int_equal(kubepairs_parse(&k, pods, nodes, NULL, &p, &n, &err), 0);
	assert_int_equal(n, 6);
	const struct matrix_pair *same = named(p, n, "us-east-1a:ip-10-0-1-23--us-east-1a:ip-10-0-1-87");
	assert_string_equal(same->client, "10.0.1.140:5301"); /* its port named netsweep */
	assert_string_equal(same->client_host, "10.0.1.140");
	assert_int_equal(same->client_port, 5301);
	assert_string_equal(same->agent_host, "10.0.1.201");
	assert_int_equal(same->agent_port, 5302); /* no port named netsweep: the matrix's */
	assert_string_equal(same->instance_type, "c5n.xlarge");
	assert_string_equal(same->region, "us-east-1");
	assert_string_equal(same->price_basis, "pair");
	assert_int_equal(same->zone_rel, MX_ZONE_SAME);
	const struct matrix_pair *cross = named(p, n, "us-east-1b:ip-10-0-2-41--us-east-1a:ip-10-0-1-23");
	assert_string_equal(cross->client, "10.0.2.17:5301");
	assert_string_equal(cross->agent_host, "10.0.1.140");
	assert_string_equal(cross->instance_type, "m5.large"); /* the sender's ... */
	assert_string_equal(cross->price_basis, "sender");     /* ... of two types */
	assert_int_equal(cross->zone_rel, MX_ZONE_CROSS);
	/* agent to agent: a mesh of the nodes, each end named and zoned (runner/mesh's rounds,
	 * the heatmaps) */
	assert_string_equal(cross->mesh, "kubernetes");
	assert_string_equal(cross->client_name, "ip-10-0-2-41");
	assert_string_equal(cross->agent_name, "ip-10-0-1-23");
	assert_string_equal(cross->client_zone, "us-east-1b");
	assert_string_equal(cross->agent_zone, "us-east-1a");
	for (size_t i = 0; i < n; i++) {
		assert_true(strcmp(p[i].agent_host, "10.0.2.99") != 0); /* pending: not an agent */
		assert_true(strlen(p[i].name) < MX_NAME_MAX);
	}
	free(p);
	free(pods);
	free(nodes);
}

/* from="runner": one pair per agent, its zone relation to the runner's node. */
static void test_runner(void **state)
{
	(void)state;
	char *pods = read_all(FIX "pods.json"), *nodes = read_all(FIX "nodes.json");
	struct matrix_kube k = kube(true);
	struct matrix_pair *p;
	size_t n;
	struct ns_err err = {0};
	assert_int_equal(kubepairs_parse(&k, pods, nodes, "ip-10-0-2-99.ec2.internal", &p, &n, &err), 0);
	assert_int_equal(n, 3);
	const struct matrix_pair *b = named(p, n, "us-east-1b:ip-10-0-2-41");
	assert_string_equal(b->client, "");
	assert_string_equal(b->agent_host, "10.0.2.17");
	assert_int_equal(b->zone_rel, MX_ZONE_SAME);
	assert_string_equal(b->instance_type, "m5.large");
	assert_int_equal(named(p, n, "us-east-1a:ip-10-0-1-23")->zone_rel, MX_ZONE_CROSS);
	free(p);
	/* the runner's node unknown: so is every pair's zone */
	assert_int_equal(kubepairs_parse(&k, pods, nodes, NULL, &p, &n, &err), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(p[i].zone_rel, MX_ZONE_ANY);
	free(p);
	free(pods);
	free(nodes);
}

static void test_errors(void **state)
{
	(void)state;
	char *nodes = read_all(FIX "nodes.json");
	struct matrix_kube k = kube(false);
	struct matrix_pair *p;
	size_t n;
	struct ns_err err = {0};
	assert_int_equal(kubepairs_parse(&k, "error: the server doesn't have a resource type", nodes,
					 NULL, &p, &n, &err), -1);
	assert_int_equal(err.code, NS_E_INPUT);
	assert_non_null(strstr(err.msg, "pod list"));
	assert_int_equal(kubepairs_parse(&k, "{\"kind\":\"List\",\"items\":[]}", nodes, NULL, &p, &n,
					 &err), -1);
	assert_non_null(strstr(err.msg, "no agent runs"));
	assert_non_null(strstr(err.msg, "app.kubernetes.io/name=netsweep-agent"));
	/* one agent: no pair between two nodes */
	const char *one = "{\"items\":[{\"metadata\":{\"name\":\"a\"},\"spec\":{\"nodeName\":\"n1\","
			  "\"containers\":[]},\"status\":{\"phase\":\"Running\",\"podIP\":\"10.1.0.5\"}}]}";
	assert_int_equal(kubepairs_parse(&k, one, nodes, NULL, &p, &n, &err), -1);
	assert_non_null(strstr(err.msg, "one node"));
	k.from_runner = true; /* ... but the runner can test it */
	assert_int_equal(kubepairs_parse(&k, one, nodes, NULL, &p, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(p[0].name, "n1"); /* a node the node list lacks: no zone, no type */
	assert_string_equal(p[0].instance_type, "");
	assert_int_equal(p[0].agent_port, 5302);
	free(p);
	free(nodes);
}

/* A long node name still makes a pair name of at most 63 characters, unique. */
static void test_long_names(void **state)
{
	(void)state;
	char pods[2048];
	snprintf(pods, sizeof(pods),
		 "{\"items\":[{\"metadata\":{\"name\":\"a\"},\"spec\":{\"nodeName\":\"%s1\"},"
		 "\"status\":{\"phase\":\"Running\",\"podIP\":\"10.1.0.5\"}},"
		 "{\"metadata\":{\"name\":\"b\"},\"spec\":{\"nodeName\":\"%s2\"},"
		 "\"status\":{\"phase\":\"Running\",\"podIP\":\"10.1.0.6\"}}]}",
		 "gke-very-long-cluster-name-default-pool-7d3c9a1e-node-",
		 "gke-very-long-cluster-name-default-pool-7d3c9a1e-node-");
	struct matrix_kube k = kube(false);
	struct matrix_pair *p;
	size_t n;
	struct ns_err err = {0};
	assert_int_equal(kubepairs_parse(&k, pods, "{\"items\":[]}", NULL, &p, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_true(strlen(p[0].name) < MX_NAME_MAX && strlen(p[1].name) < MX_NAME_MAX);
	assert_string_not_equal(p[0].name, p[1].name);
	free(p);
}

/* The matrix: pending until its pairs are found, then every pair in the zone axis's value
 * that fits it — a same-zone pair has zone=same cases only. Keys of zone=any cases are those
 * of a matrix without the axis. */
static void test_matrix_zone(void **state)
{
	(void)state;
	const char *xml =
		"<matrix name=\"k8s\"><pairs><kubernetes selector=\"app.kubernetes.io/name=netsweep-agent\""
		" namespace=\"netsweep\" port=\"5302\"/></pairs>"
		"<axes><axis name=\"zone\"><value>same</value><value>cross</value></axis>"
		"<axis name=\"duration\"><value>1</value></axis></axes></matrix>";
	struct matrix m;
	struct ns_err err = {0};
	assert_int_equal(matrix_load_mem(&m, "k8s.xml", xml, strlen(xml), &err), 0);
	assert_true(m.kube.present && m.kube.pending);
	assert_string_equal(m.kube.selector, "app.kubernetes.io/name=netsweep-agent");
	assert_int_equal(m.kube.port, 5302);
	assert_false(m.kube.from_runner);
	char *pods = read_all(FIX "pods.json"), *nodes = read_all(FIX "nodes.json");
	struct matrix_pair *p;
	size_t n;
	assert_int_equal(kubepairs_parse(&m.kube, pods, nodes, NULL, &p, &n, &err), 0);
	assert_int_equal(matrix_load_found(&m, p, n, &err), 0);
	assert_false(m.kube.pending);
	assert_int_equal(m.n_pairs, 6);
	assert_false(m.loopback);
	struct sweep_cases cs;
	assert_int_equal(expand_matrix(&m, &cs, &err), 0);
	assert_int_equal(cs.n, 6); /* 2 same-zone pairs, 4 cross-zone */
	size_t same = 0;
	for (size_t i = 0; i < cs.n; i++) {
		const struct matrix_pair *mp = &m.pairs[expand_value(&m, &cs.v[i], MX_PAIR)->u];
		uint64_t z = expand_value(&m, &cs.v[i], MX_ZONE)->u;
		assert_int_equal(mp->zone_rel, z);
		same += z == MX_ZONE_SAME;
	}
	assert_int_equal(same, 2);
	expand_free(&cs);
	matrix_free(&m);
	free(p);
	free(pods);
	free(nodes);

	/* zone left out (any): the canonical string has no zone, as before the axis */
	const char *plain = "<matrix name=\"p\"><axes><axis name=\"streams\"><value>2</value></axis>"
			    "</axes></matrix>";
	assert_int_equal(matrix_load_mem(&m, "p.xml", plain, strlen(plain), &err), 0);
	assert_int_equal(expand_matrix(&m, &cs, &err), 0);
	char canon[1024];
	expand_canonical(&m, &cs.v[0], canon, sizeof(canon));
	assert_null(strstr(canon, "zone"));
	expand_free(&cs);
	matrix_free(&m);

	/* <pairs> with nothing in it, and a bad zone value, are errors */
	const char *empty = "<matrix name=\"e\"><pairs/></matrix>";
	assert_int_equal(matrix_load_mem(&m, "e.xml", empty, strlen(empty), &err), -1);
	assert_non_null(strstr(err.msg, "no pair"));
	const char *bad = "<matrix name=\"b\"><axes><axis name=\"zone\"><value>near</value></axis>"
			  "</axes></matrix>";
	assert_int_equal(matrix_load_mem(&m, "b.xml", bad, strlen(bad), &err), -1);
	assert_non_null(strstr(err.msg, "any, same or cross"));
}

/* pairs="per-zone": one representative pair per ordered zone pair — us-east-1a's first agent
 * to its second and to us-east-1b's only one, and that one back; every node needs a zone. */
static void test_per_zone(void **state)
{
	(void)state;
	char *pods = read_all(FIX "pods.json"), *nodes = read_all(FIX "nodes.json");
	struct matrix_kube k = kube(false);
	k.per_zone = true;
	struct matrix_pair *p;
	size_t n;
	struct ns_err err = {0};
	assert_int_equal(kubepairs_parse(&k, pods, nodes, NULL, &p, &n, &err), 0);
	assert_int_equal(n, 3);
	named(p, n, "us-east-1a:ip-10-0-1-23--us-east-1a:ip-10-0-1-87");
	named(p, n, "us-east-1a:ip-10-0-1-23--us-east-1b:ip-10-0-2-41");
	named(p, n, "us-east-1b:ip-10-0-2-41--us-east-1a:ip-10-0-1-23");
	free(p);
	/* a node without its zone label: per-zone cannot place it */
	char *nozone = strdup(nodes), *z = strstr(nozone, "topology.kubernetes.io/zone");
	assert_non_null(z);
	memcpy(z, "topology.kubernetes.io/zzzz", strlen("topology.kubernetes.io/zone"));
	assert_int_equal(kubepairs_parse(&k, pods, nozone, NULL, &p, &n, &err), -1);
	assert_non_null(strstr(err.msg, "no topology.kubernetes.io/zone label"));
	free(nozone);
	free(pods);
	free(nodes);
	/* per-zone picks pairs of agents: with from="runner" (one sender) it is refused at load */
	struct matrix m;
	const char *runner = "<matrix name=\"k\"><pairs><kubernetes selector=\"a=b\" "
			     "from=\"runner\" pairs=\"per-zone\"/></pairs></matrix>";
	assert_int_equal(matrix_load_mem(&m, "k.xml", runner, strlen(runner), &err), -1);
	assert_non_null(strstr(err.msg, "k.xml:1"));
	assert_non_null(strstr(err.msg, "per-zone"));
	const char *agents = "<matrix name=\"k\"><pairs><kubernetes selector=\"a=b\" "
			     "pairs=\"per-zone\"/></pairs></matrix>";
	assert_int_equal(matrix_load_mem(&m, "k.xml", agents, strlen(agents), &err), 0);
	assert_true(m.kube.per_zone);
	matrix_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_agents),
		cmocka_unit_test(test_per_zone),
		cmocka_unit_test(test_runner),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_long_names),
		cmocka_unit_test(test_matrix_zone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
