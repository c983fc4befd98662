/* kubepairs: see kubepairs.h. The JSON is read with lib/sql/jsonr; kubectl runs through
 * lib/sys/proc.s argv runner (no shell: the runner's image has none). */
#include "runner/pairs/kubepairs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sys/proc.h"
#include "lib/sql/jsonr.h"
#include "lib/settings.h"

extern char **environ;

#define LABEL_ZONE "$.metadata.labels.\"topology.kubernetes.io/zone\""
#define LABEL_REGION "$.metadata.labels.\"topology.kubernetes.io/region\""
#define LABEL_TYPE "$.metadata.labels.\"node.kubernetes.io/instance-type\""
#define KUBE_MAX_AGENTS 4096

struct kube_node {
	char name[256], zone[64], region[32], type[MX_NAME_MAX];
};

struct kube_agent {
	char pod[256], node[256], host[64];
	uint16_t port;
	const struct kube_node *n; /* NULL: a node the node list does not have */
};

struct kube_list {
	struct kube_node *nodes;
	size_t n_nodes;
	struct kube_agent *agents;
	size_t n_agents;
};

/* One string at path of obj into dst: "" when missing; too long is an error naming what. */
static int str_at(struct jsonr *r, const char *obj, const char *path, char *dst, size_t cap,
		  const char *what, struct ns_err *err)
{
	int got = jsonr_get(r, obj, path, dst, cap, err);
	if (got == 2)
		return ns_err_code(err, NS_E_INPUT, "%s: %s is longer than %zu bytes", what, path,
				   cap - 1);
	return got < 0 ? -1 : 0;
}

static int read_node(struct jsonr *r, const char *obj, struct kube_list *l, struct ns_err *err)
{
	struct kube_node *grown = realloc(l->nodes, (l->n_nodes + 1) * sizeof(*grown));
	if (!grown)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	l->nodes = grown;
	struct kube_node *n = &l->nodes[l->n_nodes];
	memset(n, 0, sizeof(*n));
	if (str_at(r, obj, "$.metadata.name", n->name, sizeof(n->name), "node", err) < 0 ||
	    str_at(r, obj, LABEL_ZONE, n->zone, sizeof(n->zone), n->name, err) < 0 ||
	    str_at(r, obj, LABEL_REGION, n->region, sizeof(n->region), n->name, err) < 0 ||
	    str_at(r, obj, LABEL_TYPE, n->type, sizeof(n->type), n->name, err) < 0)
		return -1;
	if (n->name[0])
		l->n_nodes++;
	return 0;
}

/* The control port: the first container port named netsweep, else the matrix's. */
static int pod_port(struct jsonr *r, const char *obj, uint16_t dflt, uint16_t *port,
		    struct ns_err *err)
{
	struct jsonr_each c = {0}, p = {0};
	int rc = -1, more, more_p = 0;
	bool found = false;
	char name[64];
	*port = dflt;
	if (jsonr_each_begin(r, obj, "$.spec.containers", &c, err) < 0)
		return -1;
	while (!found && (more = jsonr_each_next(&c)) == 1) {
		char *cont = strdup(c.value ? c.value : "{}"); /* c.value lasts until c's next */
		if (!cont) {
			ns_err_code(err, NS_E_NOMEM, "out of memory");
			goto out;
		}
		if (jsonr_each_begin(r, cont, "$.ports", &p, err) < 0) {
			free(cont);
			goto out;
		}
		while (!found && (more_p = jsonr_each_next(&p)) == 1) {
			uint64_t v = 0;
			if (p.type != JSONR_OBJECT ||
			    jsonr_get(r, p.value, "$.name", name, sizeof(name), err) != 1 ||
			    strcmp(name, "netsweep"))
				continue;
			if (jsonr_u64(r, p.value, "$.containerPort", 65535, &v, err) < 0) {
				more_p = -1;
				break;
			}
			found = v > 0;
			if (found)
				*port = (uint16_t)v;
		}
		jsonr_each_end(&p);
		free(cont);
		if (more_p < 0)
			goto out;
	}
	rc = more < 0 ? -1 : 0;
out:
	jsonr_each_end(&c);
	return rc;
}

static int read_pod(struct jsonr *r, const char *obj, const struct matrix_kube *k,
		    struct kube_list *l, struct ns_err *err)
{
	char phase[32];
	struct kube_agent a = {0};
	if (str_at(r, obj, "$.metadata.name", a.pod, sizeof(a.pod), "pod", err) < 0 ||
	    str_at(r, obj, "$.status.phase", phase, sizeof(phase), a.pod, err) < 0 ||
	    str_at(r, obj, "$.spec.nodeName", a.node, sizeof(a.node), a.pod, err) < 0 ||
	    str_at(r, obj, "$.status.podIP", a.host, sizeof(a.host), a.pod, err) < 0)
		return -1;
	if (strcmp(phase, "Running") || !a.host[0] || !a.node[0])
		return 0; /* pending, ending or not scheduled: not an agent yet */
	if (pod_port(r, obj, k->port, &a.port, err) < 0) {
		ns_err_prefix(err, "pod %s", a.pod);
		return -1;
	}
	if (l->n_agents >= KUBE_MAX_AGENTS)
		return ns_err_code(err, NS_E_INPUT, "more than %d agents", KUBE_MAX_AGENTS);
	struct kube_agent *grown = realloc(l->agents, (l->n_agents + 1) * sizeof(*grown));
	if (!grown)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	l->agents = grown;
	l->agents[l->n_agents++] = a;
	return 0;
}

/* Every object of a list's items through one reader. */
static int each_item(struct jsonr *r, const char *json, const char *what,
		     int (*fn)(struct jsonr *, const char *, const struct matrix_kube *,
			       struct kube_list *, struct ns_err *),
		     const struct matrix_kube *k, struct kube_list *l, struct ns_err *err)
{
	struct jsonr_each it = {0};
	int more, rc = -1;
	if (!jsonr_valid_object(r, json) || jsonr_type(r, json, "$.items") != JSONR_ARRAY)
		return ns_err_code(err, NS_E_INPUT, "%s: not a list (want kubectl get -o json's "
				   "{\"items\": [...]})", what);
	if (jsonr_each_begin(r, json, "$.items", &it, err) < 0)
		goto out;
	while ((more = jsonr_each_next(&it)) == 1) {
		if (it.type != JSONR_OBJECT) {
			ns_err_code(err, NS_E_INPUT, "%s: item %s is not an object", what, it.key);
			goto out;
		}
		if (fn(r, it.value, k, l, err) < 0)
			goto out;
	}
	rc = more < 0 ? -1 : 0;
out:
	if (rc < 0)
		ns_err_prefix(err, "%s", what);
	jsonr_each_end(&it);
	return rc;
}

static int node_item(struct jsonr *r, const char *obj, const struct matrix_kube *k,
		     struct kube_list *l, struct ns_err *err)
{
	(void)k;
	return read_node(r, obj, l, err);
}

static int cmp_agent(const void *a, const void *b)
{
	const struct kube_agent *x = a, *y = b;
	int c = strcmp(x->node, y->node);
	return c ? c : strcmp(x->pod, y->pod);
}

/* A node's name up to its first dot: ip-10-0-1-23 of ip-10-0-1-23.ec2.internal. */
static void short_name(const char *node, char *out, size_t cap)
{
	size_t len = strcspn(node, ".");
	snprintf(out, cap, "%.*s", (int)len, node);
}

/* zoneA:nodeA--zoneB:nodeB (from the runner: zoneB:nodeB), shorter when that is over the
 * 63 characters of a pair name: without zones, then the nodes cut. Unique with -2, -3 ... */
static void pair_name(const struct kube_agent *c, const struct kube_agent *a,
		      const struct matrix_pair *done, size_t n_done, char *out)
{
	char cs[256] = "", as[256], base[MX_NAME_MAX];
	if (c)
		short_name(c->node, cs, sizeof(cs));
	short_name(a->node, as, sizeof(as));
	const char *cz = c && c->n ? c->n->zone : "", *az = a->n ? a->n->zone : "";
	char full[1024];
	if (c)
		snprintf(full, sizeof(full), "%s%s%s--%s%s%s", cz, cz[0] ? ":" : "", cs, az,
			 az[0] ? ":" : "", as);
	else
		snprintf(full, sizeof(full), "%s%s%s", az, az[0] ? ":" : "", as);
	if (strlen(full) >= MX_NAME_MAX - 3) {
		if (c)
			snprintf(full, sizeof(full), "%.28s--%.28s", cs, as);
		else
			snprintf(full, sizeof(full), "%.58s", as);
	}
	snprintf(base, sizeof(base), "%s", full);
	snprintf(out, MX_NAME_MAX, "%s", base);
	for (unsigned k = 2;; k++) {
		bool taken = false;
		for (size_t i = 0; i < n_done && !taken; i++)
			taken = !strcmp(done[i].name, out);
		if (!taken)
			return;
		snprintf(out, MX_NAME_MAX, "%.58s-%u", base, k);
	}
}

static const struct kube_node *find_node(const struct kube_list *l, const char *name)
{
	for (size_t i = 0; name && name[0] && i < l->n_nodes; i++)
		if (!strcmp(l->nodes[i].name, name))
			return &l->nodes[i];
	return NULL;
}

static uint8_t zone_rel(const struct kube_node *x, const struct kube_node *y)
{
	if (!x || !y || !x->zone[0] || !y->zone[0])
		return MX_ZONE_ANY;
	return strcmp(x->zone, y->zone) ? MX_ZONE_CROSS : MX_ZONE_SAME;
}

/* The first agent (in node order) in zone, not on node skip_node (NULL: any); SIZE_MAX when
 * none. */
static size_t zone_first(const struct kube_list *l, const char *zone, const char *skip_node)
{
	for (size_t i = 0; i < l->n_agents; i++)
		if (!strcmp(l->agents[i].n->zone, zone) &&
		    (!skip_node || strcmp(l->agents[i].node, skip_node)))
			return i;
	return SIZE_MAX;
}

/* pairs="per-zone": whether c -> a is its ordered zone pair's representative — c its zone's
 * first agent, a the other zone's first, or, within one zone, the first agent on another
 * node (as a <mesh pairs="per-zone">). */
static bool zone_representative(const struct kube_list *l, size_t ci, size_t ai)
{
	const struct kube_agent *c = &l->agents[ci], *a = &l->agents[ai];
	if (zone_first(l, c->n->zone, NULL) != ci)
		return false;
	bool same = !strcmp(c->n->zone, a->n->zone);
	return zone_first(l, a->n->zone, same ? c->node : NULL) == ai;
}

/* One pair: client c (NULL: this host) sends to agent a. */
static void make_pair(const struct kube_agent *c, const struct kube_agent *a,
		      const struct kube_node *runner, struct matrix_pair *p,
		      const struct matrix_pair *done, size_t n_done)
{
	memset(p, 0, sizeof(*p));
	pair_name(c, a, done, n_done, p->name);
	const struct kube_node *priced = c ? c->n : a->n;
	bool same_type = !c || (c->n && a->n && !strcmp(c->n->type, a->n->type));
	if (priced) {
		snprintf(p->instance_type, sizeof(p->instance_type), "%s", priced->type);
		snprintf(p->region, sizeof(p->region), "%s", priced->region);
	}
	/* two nodes of one type: the pair's price; of two types: the sender's */
	snprintf(p->price_basis, sizeof(p->price_basis), "%s", same_type ? "pair" : "sender");
	snprintf(p->agent_host, sizeof(p->agent_host), "%s", a->host);
	p->agent_port = a->port;
	if (c) {
		bool v6 = strchr(c->host, ':') != NULL;
		snprintf(p->client, sizeof(p->client), "%s%s%s:%u", v6 ? "[" : "", c->host,
			 v6 ? "]" : "", c->port);
		snprintf(p->client_host, sizeof(p->client_host), "%s", c->host);
		p->client_port = c->port;
		/* agent to agent: a mesh of the nodes (rounds, no node in two tests, heatmaps) */
		char cs[256], as[256];
		short_name(c->node, cs, sizeof(cs));
		short_name(a->node, as, sizeof(as));
		snprintf(p->mesh, sizeof(p->mesh), "kubernetes");
		snprintf(p->client_name, sizeof(p->client_name), "%.63s", cs);
		snprintf(p->agent_name, sizeof(p->agent_name), "%.63s", as);
		snprintf(p->client_zone, sizeof(p->client_zone), "%.63s", c->n ? c->n->zone : "");
		snprintf(p->agent_zone, sizeof(p->agent_zone), "%.63s", a->n ? a->n->zone : "");
	}
	p->zone_rel = zone_rel(c ? c->n : runner, a->n);
	/* each end's placement from its node's topology labels (the relation: run_pairs.c) */
	const struct kube_node *cn = c ? c->n : runner;
	if (cn) {
		snprintf(p->client_zone, sizeof(p->client_zone), "%s", cn->zone);
		snprintf(p->client_region, sizeof(p->client_region), "%s", cn->region);
	}
	if (a->n) {
		snprintf(p->agent_zone, sizeof(p->agent_zone), "%s", a->n->zone);
		snprintf(p->agent_region, sizeof(p->agent_region), "%s", a->n->region);
	}
}

int kubepairs_parse(const struct matrix_kube *k, const char *pods_json, const char *nodes_json,
		    const char *runner_node, struct matrix_pair **pairs, size_t *n,
		    struct ns_err *err)
{
	struct jsonr *r = NULL;
	struct kube_list l = {0};
	int rc = -1;
	*pairs = NULL;
	*n = 0;
	if (jsonr_open(&r, err) < 0)
		return -1;
	if (each_item(r, nodes_json, "the node list", node_item, k, &l, err) < 0 ||
	    each_item(r, pods_json, "the pod list", read_pod, k, &l, err) < 0)
		goto out;
	if (!l.n_agents) {
		ns_err_code(err, NS_E_INPUT, "no agent runs: no pod with label %s%s%s is running "
			    "with an address", k->selector, k->ns[0] ? " in namespace " : "", k->ns);
		goto out;
	}
	qsort(l.agents, l.n_agents, sizeof(*l.agents), cmp_agent);
	for (size_t i = 0; i < l.n_agents; i++)
		l.agents[i].n = find_node(&l, l.agents[i].node);
	size_t cap = k->from_runner ? l.n_agents : l.n_agents * (l.n_agents - 1);
	if (!(*pairs = calloc(cap ? cap : 1, sizeof(**pairs)))) {
		ns_err_code(err, NS_E_NOMEM, "out of memory");
		goto out;
	}
	const struct kube_node *runner = find_node(&l, runner_node);
	for (size_t i = 0; k->per_zone && i < l.n_agents; i++)
		if (!l.agents[i].n || !l.agents[i].n->zone[0]) {
			ns_err_code(err, NS_E_INPUT, "pairs=\"per-zone\": node %s of pod %s has no "
				    "topology.kubernetes.io/zone label", l.agents[i].node,
				    l.agents[i].pod);
			goto out;
		}
	for (size_t ci = 0; ci < (k->from_runner ? 1 : l.n_agents); ci++)
		for (size_t ai = 0; ai < l.n_agents; ai++) {
			const struct kube_agent *c = k->from_runner ? NULL : &l.agents[ci];
			if (c && !strcmp(c->node, l.agents[ai].node))
				continue; /* one node's two agents test no network */
			if (k->per_zone && !zone_representative(&l, ci, ai))
				continue;
			make_pair(c, &l.agents[ai], runner, &(*pairs)[*n], *pairs, *n);
			(*n)++;
		}
	if (!*n) {
		ns_err_code(err, NS_E_INPUT, "the agents (label %s) run on one node, %s: a pair needs "
			    "two (or from=\"runner\")", k->selector, l.agents[0].node);
		goto out;
	}
	rc = 0;
out:
	if (rc < 0) {
		free(*pairs);
		*pairs = NULL;
		*n = 0;
	}
	free(l.nodes);
	free(l.agents);
	jsonr_close(r);
	return rc;
}

/* kubectl ARGS... into *json (malloc'd). */
static int kubectl(char *const argv[], char **json, struct ns_err *err)
{
	struct proc_exec x;
	proc_run_argv(argv, environ, KUBEPAIRS_TIMEOUT_S, KUBEPAIRS_MAX_JSON, &x);
	if (x.status != PROC_OK || x.error[0]) {
		size_t len = strlen(x.errout);
		while (len && (x.errout[len - 1] == '\n' || x.errout[len - 1] == '\r'))
			x.errout[--len] = '\0';
		const char *last = strrchr(x.errout, '\n');
		ns_err_code(err, NS_E_FAIL, "%s %s %s: %s%s%s", argv[0], argv[1], argv[2],
			    x.exit_code == 127 ? "not found (NETSWEEP_KUBECTL names it)" : x.error,
			    x.errout[0] ? ": " : "", last ? last + 1 : x.errout);
		proc_exec_free(&x);
		return -1;
	}
	*json = x.out;
	free(x.errout);
	return 0;
}

int kubepairs_load(struct matrix *m, struct ns_err *err)
{
	if (!m->kube.pending)
		return 0;
	const char *prog = settings_get()->kubectl;
	char *bin = (char *)(prog ? prog : "kubectl");
	char sel[sizeof(m->kube.selector)], ns[sizeof(m->kube.ns)];
	snprintf(sel, sizeof(sel), "%s", m->kube.selector);
	snprintf(ns, sizeof(ns), "%s", m->kube.ns);
	char *pods_argv[] = {bin, "get", "pods", "-o", "json", "-l", sel,
			     ns[0] ? "-n" : "--all-namespaces", ns[0] ? ns : NULL, NULL};
	char *nodes_argv[] = {bin, "get", "nodes", "-o", "json", NULL};
	char *pods = NULL, *nodes = NULL;
	struct matrix_pair *found = NULL;
	size_t n = 0;
	int rc = -1;
	if (kubectl(pods_argv, &pods, err) < 0 || kubectl(nodes_argv, &nodes, err) < 0 ||
	    kubepairs_parse(&m->kube, pods, nodes, settings_get()->node_name, &found, &n,
			    err) < 0) {
		ns_err_prefix(err, "%s:%d: kubernetes", m->path, m->kube.line);
		goto out;
	}
	rc = matrix_load_found(m, found, n, err);
out:
	free(found);
	free(pods);
	free(nodes);
	return rc;
}
