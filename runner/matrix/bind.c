/* bind: the bind, dscp, family and amount axes (see bind.h). */
#include "bind.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "lib/units.h"
#include "runner/proto/dscp.h"

/* A copy of an attribute, "" when absent or too long for cap (*too_long set). */
static void attr_copy(xmlNodePtr n, const char *name, char *dst, size_t cap, bool *too_long)
{
	xmlChar *v = xmlGetProp(n, BAD_CAST name);
	dst[0] = '\0';
	if (!v)
		return;
	if (strlen((const char *)v) >= cap)
		*too_long = true;
	else
		snprintf(dst, cap, "%s", (const char *)v);
	xmlFree(v);
}

static bool numeric_address(const char *s)
{
	unsigned char a[sizeof(struct in6_addr)];
	return inet_pton(AF_INET, s, a) == 1 || inet_pton(AF_INET6, s, a) == 1;
}

int mxbind_load(const char *path, xmlNodePtr pair, struct matrix_pair *p, struct ns_err *err)
{
	for (xmlNodePtr n = pair->children; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE || xmlStrcmp(n->name, BAD_CAST "bind"))
			continue;
		int line = (int)xmlGetLineNo(n);
		if (p->n_binds == MX_MAX_BINDS)
			return ns_err_code(err, NS_E_INPUT, "%s:%d: pair bind: at most %d per pair",
					   path, line, MX_MAX_BINDS);
		struct matrix_bind *b = &p->binds[p->n_binds];
		char agent[300];
		bool too_long = false;
		attr_copy(n, "name", b->name, sizeof(b->name), &too_long);
		attr_copy(n, "client", b->client, sizeof(b->client), &too_long);
		attr_copy(n, "agent", agent, sizeof(agent), &too_long);
		b->line = line;
		if (too_long)
			return ns_err_code(err, NS_E_INPUT, "%s:%d: pair bind: a value is too long",
					   path, line);
		if (!b->name[0] || !strcmp(b->name, "none"))
			return ns_err_code(err, NS_E_INPUT, "%s:%d: pair bind name: '%s' is not a "
					   "name ('none' is the pair without a bind)", path, line,
					   b->name);
		if (!numeric_address(b->client))
			return ns_err_code(err, NS_E_INPUT, "%s:%d: pair bind client: '%s' is not a "
					   "numeric IPv4 or IPv6 address", path, line, b->client);
		struct probe_params t;
		struct ns_err e;
		probe_params_init(&t);
		t.port = p->agent_port;
		if (!agent[0])
			snprintf(agent, sizeof(agent), "%s", p->agent_host); /* the pair's own */
		if (!agent[0])
			return ns_err_code(err, NS_E_INPUT, "%s:%d: pair bind agent: needed when the "
					   "pair's agent comes from its setup", path, line);
		if (probe_params_target(agent, &t, &e) < 0)
			return ns_err_code(err, NS_E_INPUT, "%s:%d: pair bind agent: %s", path, line,
					   e.msg);
		snprintf(b->agent_host, sizeof(b->agent_host), "%s", t.host);
		b->agent_port = t.port;
		if (mxbind_find(p, b->name))
			return ns_err_code(err, NS_E_INPUT, "%s:%d: pair bind name: '%s' is already a "
					   "bind of pair %s", path, line, b->name, p->name);
		p->n_binds++;
	}
	return 0;
}

const struct matrix_bind *mxbind_find(const struct matrix_pair *p, const char *name)
{
	for (size_t i = 0; i < p->n_binds; i++)
		if (!strcmp(p->binds[i].name, name))
			return &p->binds[i];
	return NULL;
}

int mxbind_parse_value(const struct matrix *m, enum matrix_axis_id axis, const char *text,
		       uint64_t *u, struct ns_err *err)
{
	uint32_t tos;
	switch (axis) {
	case MX_BIND:
		*u = 0;
		if (!strcmp(text, "none"))
			return 0;
		for (size_t i = 0; i < m->n_pairs; i++)
			if (mxbind_find(&m->pairs[i], text)) {
				*u = 1;
				return 0;
			}
		return ns_err_code(err, NS_E_INPUT, "'%s' is not a <bind> of any pair (or 'none')",
				   text);
	case MX_DSCP:
		if (dscp_parse(text, &tos, err) < 0)
			return -1;
		*u = tos;
		return 0;
	case MX_FAMILY:
		if (!strcmp(text, "any"))
			*u = 0;
		else if (!strcmp(text, "4") || !strcmp(text, "6"))
			*u = (uint64_t)(text[0] - '0');
		else
			return ns_err_code(err, NS_E_INPUT, "'%s': family is any, 4 or 6", text);
		return 0;
	case MX_AMOUNT:
		return units_parse_bytes(text, UINT64_MAX, u, err);
	default:
		return ns_err_code(err, NS_E_INPUT, "not a bind axis");
	}
}

int mxbind_apply(const struct matrix *m, uint64_t pair, const char *bind, struct probe_params *p,
		 struct ns_err *err)
{
	if (!strcmp(bind, "none") || pair >= m->n_pairs)
		return 0;
	const struct matrix_pair *mp = &m->pairs[pair];
	const struct matrix_bind *b = mxbind_find(mp, bind);
	if (!b)
		return ns_err_code(err, NS_E_INPUT, "%s:%d: pair %s has no <bind name=\"%s\"> (declare "
				   "it, or exclude the case with a rule)", m->path, mp->line, mp->name,
				   bind);
	snprintf(p->bind, sizeof(p->bind), "%s", b->client);
	snprintf(p->host, sizeof(p->host), "%s", b->agent_host);
	p->port = b->agent_port;
	return 0;
}
