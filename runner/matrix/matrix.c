#include "matrix.h"
#include "lib/xml/xmlhint.h"
#include "bind.h"
#include "matrix_group.h"
#include "matrix_mesh.h"
#include "pair_key.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "lib/cost.h"
#include "lib/units.h"
#include "lib/xml/xsdcheck.h"
#include "matrix_search.h"
#include "matrix_value.h"
#include "runner/proto/probe.h"

#define MATRIX_MAX_VALUES 100000

/* ---- the tree walk --------------------------------------------------------------------- */

struct loader {
	struct matrix *m;
	const char *path;
	struct ns_err *err;
	const struct matrix_pair *found; /* a <kubernetes> element's pairs (matrix_load_found) */
	size_t n_found;
	bool have_found;
};

static int line_of(xmlNodePtr n)
{
	return n ? (int)xmlGetLineNo(n) : 0;
}

/* "FILE:LINE: field: message" from a message already in err. */
static int fail_at(struct loader *L, xmlNodePtr n, const char *field)
{
	char msg[NS_ERR_MAX];
	snprintf(msg, sizeof(msg), "%s", L->err->msg);
	if (field)
		ns_err_code(L->err, NS_E_INPUT, "%s:%d: %s: %s", L->path, line_of(n), field, msg);
	else
		ns_err_code(L->err, NS_E_INPUT, "%s:%d: %s", L->path, line_of(n), msg);
	return -1;
}

static bool is_elem(xmlNodePtr n, const char *name)
{
	return n && n->type == XML_ELEMENT_NODE && xmlStrcmp(n->name, BAD_CAST name) == 0;
}

/* Attribute text, in a ring of four static slots: callers use or copy it at once (the loader
 * runs on one thread; four slots cover the attributes one expression reads). */
static const char *attr(xmlNodePtr n, const char *name)
{
	static char ring[4][1024];
	static int slot;
	xmlChar *v = xmlGetProp(n, BAD_CAST name);
	if (!v)
		return NULL;
	char *out = ring[slot++ & 3];
	snprintf(out, sizeof(ring[0]), "%s", (const char *)v);
	xmlFree(v);
	return out;
}

static int copy_field(struct loader *L, xmlNodePtr n, const char *field, char *dst, size_t cap,
		      const char *src)
{
	if (!src)
		return 0;
	if (strlen(src) >= cap) {
		ns_err_code(L->err, NS_E_INPUT, "'%s' is longer than %zu characters", src, cap - 1);
		return fail_at(L, n, field);
	}
	memcpy(dst, src, strlen(src) + 1);
	return 0;
}

/* "host:port", "[v6]:port", "host" or a bare IPv6 address (default port) into host/port. */
static int parse_hostport(struct loader *L, xmlNodePtr n, const char *field, const char *s,
			  char *out, size_t cap, uint16_t *out_port)
{
	char host[256];
	uint64_t port = NS_DEFAULT_PORT;
	const char *colon = strrchr(s, ':');
	if (s[0] == '[') {
		const char *close = strchr(s, ']');
		if (!close || (close[1] && close[1] != ':'))
			goto bad;
		snprintf(host, sizeof(host), "%.*s", (int)(close - s - 1), s + 1);
		colon = close[1] ? close + 1 : NULL;
	} else if (colon && strchr(s, ':') == colon) {
		snprintf(host, sizeof(host), "%.*s", (int)(colon - s), s);
	} else {
		snprintf(host, sizeof(host), "%s", s); /* a bare name or IPv6 address */
		colon = NULL;
	}
	if (!host[0])
		goto bad;
	if (colon && units_parse_uint(colon + 1, 1, 65535, &port, L->err) < 0) {
		char f[64];
		snprintf(f, sizeof(f), "%s port", field);
		return fail_at(L, n, f);
	}
	snprintf(out, cap, "%s", host);
	*out_port = (uint16_t)port;
	return 0;
bad:
	ns_err_code(L->err, NS_E_INPUT, "'%s' is not host:port", s);
	return fail_at(L, n, field);
}

/* Hooks run for a quarter of an hour at most unless the matrix says otherwise: long enough
 * to launch and terminate instances, short enough that a hung command is noticed. */
#define MX_HOOK_TIMEOUT_S 900.0
#define MX_HOOK_WAIT_S 300.0

static int load_hook(struct loader *L, xmlNodePtr n, const char *field, struct matrix_hook *h)
{
	xmlChar *t = xmlNodeGetContent(n);
	const char *s;
	int rc = copy_field(L, n, field, h->command, sizeof(h->command), t ? (const char *)t : "");
	xmlFree(t);
	h->line = line_of(n);
	h->timeout_s = MX_HOOK_TIMEOUT_S;
	h->wait_s = MX_HOOK_WAIT_S;
	if (rc < 0)
		return -1;
	if ((s = attr(n, "timeout")) && mxval_parse_duration(s, true, &h->timeout_s, L->err) < 0)
		return fail_at(L, n, "timeout");
	if ((s = attr(n, "wait")) && mxval_parse_duration(s, true, &h->wait_s, L->err) < 0)
		return fail_at(L, n, "wait");
	return 0;
}

static int load_hooks(struct loader *L, xmlNodePtr parent, struct matrix_hook *setup,
		      struct matrix_hook *teardown)
{
	for (xmlNodePtr c = parent->children; c; c = c->next)
		if ((is_elem(c, "setup") && load_hook(L, c, "setup", setup) < 0) ||
		    (is_elem(c, "teardown") && load_hook(L, c, "teardown", teardown) < 0))
			return -1;
	return 0;
}

/* <kubernetes>: the discovery's settings, and the pairs it found when there are some. */
static int load_kube(struct loader *L, xmlNodePtr n)
{
	struct matrix *m = L->m;
	struct matrix_kube *k = &m->kube;
	const char *s;
	k->present = true;
	k->line = line_of(n);
	k->port = NS_DEFAULT_PORT;
	if (copy_field(L, n, "kubernetes selector", k->selector, sizeof(k->selector),
		       attr(n, "selector")) < 0 ||
	    copy_field(L, n, "kubernetes namespace", k->ns, sizeof(k->ns), attr(n, "namespace")) < 0)
		return -1;
	uint64_t port;
	if ((s = attr(n, "port"))) {
		if (units_parse_uint(s, 1, 65535, &port, L->err) < 0)
			return fail_at(L, n, "kubernetes port");
		k->port = (uint16_t)port;
	}
	k->from_runner = (s = attr(n, "from")) && !strcmp(s, "runner");
	k->per_zone = (s = attr(n, "pairs")) && !strcmp(s, "per-zone");
	if (k->per_zone && k->from_runner)
		return fail_at(L, n, "kubernetes pairs: per-zone picks pairs of agents, and from=\"runner\" "
			       "has one sender");
	if (!L->have_found) {
		k->pending = true;
		return 0;
	}
	for (size_t i = 0; i < L->n_found; i++) {
		struct matrix_pair *p = &m->pairs[m->n_pairs];
		*p = L->found[i];
		p->line = k->line;
		for (size_t j = 0; j < m->n_pairs; j++)
			if (!strcmp(m->pairs[j].name, p->name)) {
				ns_err_code(L->err, NS_E_INPUT, "discovered pair '%s' has the name of the "
					    "pair on line %d", p->name, m->pairs[j].line);
				return fail_at(L, n, "kubernetes");
			}
		m->n_pairs++;
	}
	return 0;
}

/* "pair FIELD" or "group FIELD", in a ring of four slots (as attr's) for one expression. */
static const char *fld(bool group, const char *field)
{
	static char ring[4][48];
	static int slot;
	char *out = ring[slot++ & 3];
	snprintf(out, sizeof(ring[0]), "%s %s", group ? "group" : "pair", field);
	return out;
}

/* A written pair's zone axis from its declared placement: its relation, else its ends'
 * zones and regions (each end's region defaults to the pair's). */
static void pair_placement(struct matrix_pair *p)
{
	const char *rel = p->relation[0] ? p->relation
		: cost_relation(p->client_region[0] ? p->client_region : p->region, p->client_zone,
				p->agent_region[0] ? p->agent_region : p->region, p->agent_zone);
	if (strcmp(rel, "same-zone") == 0)
		p->zone_rel = MX_ZONE_SAME;
	else if (strcmp(rel, "cross-zone") == 0 || strcmp(rel, "cross-region") == 0)
		p->zone_rel = MX_ZONE_CROSS;
}

static int load_pairs(struct loader *L, xmlNodePtr pairs)
{
	struct matrix *m = L->m;
	size_t cap = L->n_found;
	for (xmlNodePtr n = pairs->children; n; n = n->next)
		cap += is_elem(n, "pair") || is_elem(n, "group") ? 1
		       : is_elem(n, "mesh")			 ? mxmesh_capacity(n)
								 : 0;
	m->pairs = calloc(cap ? cap : 1, sizeof(*m->pairs));
	if (!m->pairs)
		return ns_err_code(L->err, NS_E_NOMEM, "out of memory");
	for (xmlNodePtr n = pairs->children; n; n = n->next) {
		if (is_elem(n, "kubernetes") && load_kube(L, n) < 0)
			return -1;
		if (is_elem(n, "mesh") && mxmesh_load(L->path, n, m, L->err) < 0)
			return -1;
		bool grp = is_elem(n, "group");
		if (!is_elem(n, "pair") && !grp)
			continue;
		struct matrix_pair *p = &m->pairs[m->n_pairs];
		p->line = line_of(n);
		char link[64] = "";
		if (copy_field(L, n, fld(grp, "link-speed"), link, sizeof(link), attr(n, "link-speed")) < 0)
			return -1;
		if (copy_field(L, n, fld(grp, "name"), p->name, sizeof(p->name), attr(n, "name")) < 0 ||
		    copy_field(L, n, fld(grp, "instance-type"), p->instance_type, sizeof(p->instance_type),
			       attr(n, "instance-type")) < 0 ||
		    copy_field(L, n, fld(grp, "region"), p->region, sizeof(p->region), attr(n, "region")) < 0 ||
		    copy_field(L, n, fld(grp, "client"), p->client, sizeof(p->client), attr(n, "client")) < 0 ||
		    copy_field(L, n, fld(grp, "expected-driver"), p->expected_driver,
			       sizeof(p->expected_driver), attr(n, "expected-driver")) < 0)
			return -1;
		if (copy_field(L, n, fld(grp, "client-zone"), p->client_zone, sizeof(p->client_zone),
			       attr(n, "client-zone")) < 0 ||
		    copy_field(L, n, fld(grp, "agent-zone"), p->agent_zone, sizeof(p->agent_zone),
			       attr(n, "agent-zone")) < 0 ||
		    copy_field(L, n, fld(grp, "client-region"), p->client_region,
			       sizeof(p->client_region), attr(n, "client-region")) < 0 ||
		    copy_field(L, n, fld(grp, "agent-region"), p->agent_region,
			       sizeof(p->agent_region), attr(n, "agent-region")) < 0 ||
		    copy_field(L, n, fld(grp, "relation"), p->relation, sizeof(p->relation),
			       attr(n, "relation")) < 0)
			return -1;
		pair_placement(p);
		snprintf(p->price_basis, sizeof(p->price_basis), "%s",
			 attr(n, "price-basis") ? attr(n, "price-basis") : "pair");
		if (load_hooks(L, n, &p->setup, &p->teardown) < 0)
			return -1;
		const char *agent = attr(n, "agent");
		if (agent && parse_hostport(L, n, fld(grp, "agent"), agent, p->agent_host,
					    sizeof(p->agent_host), &p->agent_port) < 0)
			return -1;
		if (p->client[0] && parse_hostport(L, n, fld(grp, "client"), p->client, p->client_host,
						   sizeof(p->client_host), &p->client_port) < 0)
			return -1;
		m->n_pairs++; /* from here on matrix_free frees what the pair holds */
		if (grp && mxgroup_load(L->path, n, p, L->err) < 0)
			return -1;
		if (!p->agent_host[0] && !p->setup.command[0] && !m->setup.command[0]) {
			ns_err_code(L->err, NS_E_INPUT,
				    "pair '%s' has no agent and no setup to name one", p->name);
			return fail_at(L, n, "pair agent");
		}
		if (link[0] && units_parse_rate(link, &p->link_bps, L->err) < 0)
			return fail_at(L, n, fld(grp, "link-speed"));
		if (mxbind_load(L->path, n, p, L->err) < 0)
			return -1;
		if (attr(n, "psk-file") && pair_key_resolve(L->path, attr(n, "psk-file"), p->psk_file,
							     sizeof(p->psk_file), L->err) < 0)
			return fail_at(L, n, fld(grp, "psk-file"));
		for (size_t i = 0; i + 1 < m->n_pairs; i++)
			if (strcmp(m->pairs[i].name, p->name) == 0) {
				ns_err_code(L->err, NS_E_INPUT,
					    "'%s' is already the name of the %s on line %d",
					    p->name, m->pairs[i].group ? "group" : "pair",
					    m->pairs[i].line);
				return fail_at(L, n, fld(grp, "name"));
			}
	}
	return 0;
}

static int add_value(struct matrix_axis *ax, const struct matrix_value *v)
{
	struct matrix_value *nv = realloc(ax->v, (ax->n + 1) * sizeof(*nv));
	if (!nv)
		return -1;
	ax->v = nv;
	ax->v[ax->n++] = *v;
	return 0;
}

static int load_axes(struct loader *L, xmlNodePtr axes)
{
	struct matrix *m = L->m;
	for (xmlNodePtr n = axes->children; n; n = n->next) {
		if (!is_elem(n, "axis"))
			continue;
		const char *name = attr(n, "name");
		int id = matrix_axis_lookup(name ? name : "");
		if (id < 0) { /* the schema's enumeration already refuses it; kept for safety */
			ns_err_code(L->err, NS_E_INPUT, "'%s' is not an axis", name ? name : "");
			return fail_at(L, n, "axis name");
		}
		char field[64];
		snprintf(field, sizeof(field), "axis '%s'", name);
		struct matrix_axis *ax = &m->axes[id];
		if (ax->present) {
			ns_err_code(L->err, NS_E_INPUT, "already defined on line %d", ax->line);
			return fail_at(L, n, field);
		}
		ax->present = true;
		ax->line = line_of(n);
		for (xmlNodePtr c = n->children; c; c = c->next) {
			if (!is_elem(c, "value"))
				continue;
			xmlChar *t = xmlNodeGetContent(c);
			struct matrix_value v;
			char text[256];
			snprintf(text, sizeof(text), "%s", t ? (const char *)t : "");
			xmlFree(t);
			/* Trim: values are often written on their own indented lines. */
			char *s = text, *e = text + strlen(text);
			while (isspace((unsigned char)*s))
				s++;
			while (e > s && isspace((unsigned char)e[-1]))
				*--e = '\0';
			if (matrix_parse_value(m, id, s, &v, L->err) < 0)
				return fail_at(L, c, field);
			v.line = line_of(c);
			for (size_t i = 0; i < ax->n; i++)
				if (strcmp(ax->v[i].text, v.text) == 0) {
					ns_err_code(L->err, NS_E_INPUT,
						    "'%s' repeats the value on line %d", s,
						    ax->v[i].line);
					free(v.text);
					return fail_at(L, c, field);
				}
			if (ax->n >= MATRIX_MAX_VALUES || add_value(ax, &v) < 0) {
				free(v.text);
				ns_err_code(L->err, NS_E_INPUT, "too many values");
				return fail_at(L, c, field);
			}
		}
		if (ax->n == 0) {
			ns_err_code(L->err, NS_E_INPUT,
				    "has no values (an axis needs at least one <value>)");
			return fail_at(L, n, field);
		}
	}
	return 0;
}

static int include_value(struct matrix *m, int id, const struct matrix_value *v);

static int load_rule(struct loader *L, xmlNodePtr n, bool include)
{
	struct matrix *m = L->m;
	struct matrix_rule *nr = realloc(m->rules, (m->n_rules + 1) * sizeof(*nr));
	if (!nr)
		return ns_err_code(L->err, NS_E_NOMEM, "out of memory");
	m->rules = nr;
	struct matrix_rule *r = &m->rules[m->n_rules++];
	memset(r, 0, sizeof(*r));
	r->include = include;
	r->line = line_of(n);
	const char *elem = include ? "set" : "when";
	size_t cap = 0;
	for (xmlNodePtr c = n->children; c; c = c->next)
		cap += is_elem(c, elem);
	r->c = calloc(cap ? cap : 1, sizeof(*r->c));
	if (!r->c)
		return ns_err_code(L->err, NS_E_NOMEM, "out of memory");
	for (xmlNodePtr c = n->children; c; c = c->next) {
		if (!is_elem(c, elem))
			continue;
		const char *axis = attr(c, "axis"), *value = attr(c, "value"), *not = attr(c, "not");
		char field[80];
		snprintf(field, sizeof(field), "%s axis '%s'", include ? "include" : "exclude",
			 axis ? axis : "");
		int id = matrix_axis_lookup(axis ? axis : "");
		if (id < 0) {
			ns_err_code(L->err, NS_E_INPUT, "not an axis");
			return fail_at(L, c, field);
		}
		if (!include && (!value) == (!not)) {
			ns_err_code(L->err, NS_E_INPUT,
				    "<when> takes exactly one of value=\"..\" or not=\"..\"");
			return fail_at(L, c, field);
		}
		struct matrix_cond *cond = &r->c[r->n];
		cond->axis = id;
		cond->negate = !value;
		if (matrix_parse_value(m, id, value ? value : not, &cond->value, L->err) < 0)
			return fail_at(L, c, field);
		cond->value.line = line_of(c);
		r->n++;
		if (include && include_value(m, id, &cond->value) < 0)
			return ns_err_code(L->err, NS_E_NOMEM, "out of memory");
		for (size_t i = 0; include && i + 1 < r->n; i++)
			if (r->c[i].axis == (enum matrix_axis_id)id) {
				ns_err_code(L->err, NS_E_INPUT, "set twice in one include");
				return fail_at(L, c, field);
			}
	}
	return 0;
}

/* An include may name a value its axis does not list: it is appended after the product's
 * values (axis->n_product), so that every case is a vector of indexes into the axes. */
static int include_value(struct matrix *m, int id, const struct matrix_value *v)
{
	struct matrix_axis *ax = &m->axes[id];
	for (size_t i = 0; i < ax->n; i++)
		if (strcmp(ax->v[i].text, v->text) == 0)
			return 0;
	struct matrix_value copy = *v;
	copy.text = strdup(v->text);
	if (!copy.text || add_value(ax, &copy) < 0) {
		free(copy.text);
		return -1;
	}
	return 0;
}

static int load_settings(struct loader *L, xmlNodePtr root)
{
	struct matrix *m = L->m;
	const char *s;
	uint64_t u;
	if (copy_field(L, root, "matrix name", m->name, sizeof(m->name), attr(root, "name")) < 0)
		return -1;
	m->repeats = 1;
	if ((s = attr(root, "repeats"))) {
		if (units_parse_uint(s, 1, 10000, &u, L->err) < 0)
			return fail_at(L, root, "repeats");
		m->repeats = (uint32_t)u;
	}
	m->order = MX_ORDER_AS_WRITTEN;
	if ((s = attr(root, "order"))) {
		if (!strcmp(s, "interleaved"))
			m->order = MX_ORDER_INTERLEAVED;
		else if (!strcmp(s, "shuffled"))
			m->order = MX_ORDER_SHUFFLED;
	}
	if ((s = attr(root, "rank-by")) && !(m->rank_by = strdup(s)))
		return fail_at(L, root, "rank-by");
	if ((s = attr(root, "pricing")) && !(m->pricing = strdup(s)))
		return fail_at(L, root, "pricing");
	if ((s = attr(root, "monthly-transfer")) && cost_volume_parse(s, &m->monthly_gb, L->err) < 0)
		return fail_at(L, root, "monthly-transfer");
	if ((s = attr(root, "seed"))) {
		if (units_parse_uint(s, 0, UINT32_MAX, &m->seed, L->err) < 0)
			return fail_at(L, root, "seed");
		m->has_seed = true;
	}
	if ((s = attr(root, "cooldown")) && mxval_parse_duration(s, false, &m->cooldown_s, L->err) < 0)
		return fail_at(L, root, "cooldown");
	if ((s = attr(root, "case-timeout")) &&
	    mxval_parse_duration(s, true, &m->case_timeout_s, L->err) < 0)
		return fail_at(L, root, "case-timeout");
	m->interval_s = 1.0;
	if ((s = attr(root, "interval")) && mxval_parse_duration(s, false, &m->interval_s, L->err) < 0)
		return fail_at(L, root, "interval");
	m->agent_wait_s = MX_AGENT_WAIT_DEFAULT_S;
	if ((s = attr(root, "agent-wait")) && mxval_parse_duration(s, false, &m->agent_wait_s, L->err) < 0)
		return fail_at(L, root, "agent-wait");
	bool b = false;
	if ((s = attr(root, "strict")))
		mxval_parse_bool(s, &b);
	m->strict = b;
	return 0;
}

/* Fills every axis the matrix left out with its default, so that expansion sees no holes. */
static int fill_defaults(struct loader *L)
{
	struct matrix *m = L->m;
	for (int id = 0; id < MX_AXIS_COUNT; id++) {
		struct matrix_axis *ax = &m->axes[id];
		if (ax->present)
			continue;
		if (id == MX_PAIR) {
			for (size_t i = 0; i < m->n_pairs; i++) {
				struct matrix_value v = {.u = i, .line = m->pairs[i].line};
				v.text = strdup(m->pairs[i].name);
				if (!v.text || add_value(ax, &v) < 0)
					return ns_err_code(L->err, NS_E_NOMEM, "out of memory");
			}
			continue;
		}
		struct matrix_value v;
		if (matrix_parse_value(m, id, matrix_axis_default(id), &v, L->err) < 0 ||
		    add_value(ax, &v) < 0) {
			ns_err_prefix(L->err, "default of axis %s", matrix_axis_name(id));
			return -1;
		}
	}
	return 0;
}

static int load_doc(struct loader *L, xmlDocPtr doc)
{
	struct matrix *m = L->m;
	xmlNodePtr root = xmlDocGetRootElement(doc);
	xmlNodePtr pairs = NULL, axes = NULL, rules = NULL, search = NULL;
	if (load_settings(L, root) < 0 || load_hooks(L, root, &m->setup, &m->teardown) < 0)
		return -1;
	for (xmlNodePtr n = root->children; n; n = n->next) {
		if (is_elem(n, "description")) {
			xmlChar *t = xmlNodeGetContent(n);
			m->description = t ? strdup((const char *)t) : NULL;
			xmlFree(t);
		} else if (is_elem(n, "pairs")) {
			pairs = n;
		} else if (is_elem(n, "axes")) {
			axes = n;
		} else if (is_elem(n, "rules")) {
			rules = n;
		} else if (is_elem(n, "search")) {
			search = n;
		}
	}
	if (search && matrix_search_load(search, L->path, &m->search_cfg, L->err) < 0)
		return -1;
	m->search = search != NULL;
	if (pairs && load_pairs(L, pairs) < 0)
		return -1;
	if (m->kube.pending)
		return 0; /* settings and the discovery's; the rest once its pairs are found */
	if (m->kube.present && m->n_pairs == 0) {
		ns_err_code(L->err, NS_E_INPUT, "%s:%d: kubernetes: no agent found (selector %s%s%s)",
			    L->path, m->kube.line, m->kube.selector, m->kube.ns[0] ? ", namespace " : "",
			    m->kube.ns);
		return -1;
	}
	if (pairs && m->n_pairs == 0) {
		ns_err_code(L->err, NS_E_INPUT, "%s:%d: pairs: no pair and no kubernetes in it",
			    L->path, line_of(pairs));
		return -1;
	}
	if (m->n_pairs == 0) {
		/* No pairs: one loopback pair whose agent the runner starts itself. */
		m->pairs = calloc(1, sizeof(*m->pairs));
		if (!m->pairs)
			return ns_err_code(L->err, NS_E_NOMEM, "out of memory");
		snprintf(m->pairs[0].name, sizeof(m->pairs[0].name), "loopback");
		snprintf(m->pairs[0].price_basis, sizeof(m->pairs[0].price_basis), "pair");
		m->pairs[0].line = line_of(root);
		m->n_pairs = 1;
		m->loopback = true;
	}
	if (axes && load_axes(L, axes) < 0)
		return -1;
	if (fill_defaults(L) < 0)
		return -1;
	for (int a = 0; a < MX_AXIS_COUNT; a++)
		m->axes[a].n_product = m->axes[a].n;
	for (xmlNodePtr n = rules ? rules->children : NULL; n; n = n->next) {
		if ((is_elem(n, "exclude") && load_rule(L, n, false) < 0) ||
		    (is_elem(n, "include") && load_rule(L, n, true) < 0))
			return -1;
	}
	return 0;
}

/* A file the schema refused: when the reason is a misspelt element, attribute or axis name,
 * say that in words with the name meant (lib/xml/xmlhint.h) instead of the validator's dump of
 * what it allows. Parsed again as xsdcheck does (no network, no DTD), without validation. */
static void misspelt(const char *path, const char *text, size_t len, struct ns_err *err)
{
	if (len > XSDCHECK_MATRIX_MAX_BYTES)
		return;
	xmlDocPtr doc = xmlReadMemory(text, (int)len, path, NULL, XML_PARSE_NONET |
				      XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES);
	struct ns_err hint = {0};
	if (doc && xmlhint_check(doc, xsdcheck_matrix.xsd, path, &hint) < 0)
		*err = hint;
	xmlFreeDoc(doc);
}

static int load_mem(struct loader L, const char *path, const char *text, size_t len)
{
	struct matrix *m = L.m;
	struct ns_err *err = L.err;
	xmlDocPtr doc = NULL;
	memset(m, 0, sizeof(*m));
	m->path = strdup(path);
	m->text = malloc(len + 1);
	if (!m->path || !m->text) {
		ns_err_code(err, NS_E_NOMEM, "%s: out of memory", path);
		goto err;
	}
	memcpy(m->text, text, len);
	m->text[len] = '\0';
	m->text_len = len;
	if (sha256_hex(text, len, 32, m->hash, err) < 0)
		goto err;

	doc = xsdcheck_mem(&xsdcheck_matrix, path, text, len, err);
	if (!doc) {
		if (err->code == NS_E_INPUT)
			misspelt(path, text, len, err);
		goto err;
	}
	if (load_doc(&L, doc) < 0)
		goto err;
	xmlFreeDoc(doc);
	return 0;
err:
	if (doc)
		xmlFreeDoc(doc);
	matrix_free(m);
	return -1;
}

int matrix_load_mem(struct matrix *m, const char *path, const char *text, size_t len,
		    struct ns_err *err)
{
	return load_mem((struct loader){.m = m, .path = path, .err = err}, path, text, len);
}

int matrix_load_found(struct matrix *m, const struct matrix_pair *found, size_t n_found,
		      struct ns_err *err)
{
	char *path = m->path, *text = m->text;
	size_t len = m->text_len;
	m->path = m->text = NULL;
	matrix_free(m);
	struct loader L = {.m = m, .path = path, .err = err, .found = found, .n_found = n_found,
			   .have_found = true};
	int rc = path && text ? load_mem(L, path, text, len) : -1;
	if (!path || !text)
		ns_err_code(err, NS_E_NOMEM, "out of memory");
	free(path);
	free(text);
	return rc;
}

int matrix_load(struct matrix *m, const char *path, struct ns_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	memset(m, 0, sizeof(*m));
	if (xsdcheck_slurp(path, xsdcheck_matrix.max_bytes, &buf, &len, err) < 0)
		return -1;
	int rc = matrix_load_mem(m, path, buf, len, err);
	free(buf);
	return rc;
}

void matrix_free(struct matrix *m)
{
	if (!m)
		return;
	for (int a = 0; a < MX_AXIS_COUNT; a++) {
		for (size_t i = 0; i < m->axes[a].n; i++)
			free(m->axes[a].v[i].text);
		free(m->axes[a].v);
	}
	for (size_t r = 0; r < m->n_rules; r++) {
		for (size_t i = 0; i < m->rules[r].n; i++)
			free(m->rules[r].c[i].value.text);
		free(m->rules[r].c);
	}
	free(m->rules);
	for (size_t i = 0; m->pairs && i < m->n_pairs; i++)
		free(m->pairs[i].members);
	free(m->pairs);
	free(m->description);
	free(m->rank_by);
	free(m->pricing);
	free(m->text);
	free(m->path);
	memset(m, 0, sizeof(*m));
}
