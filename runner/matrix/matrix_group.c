/* matrix_group: see matrix_group.h. */
#include "matrix_group.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix_value.h"
#include "runner/proto/probe.h"


/* "host:port", "[v6]:port" or "host" (the default port) into host and port. */
static int target(const char *path, int line, const char *field, const char *s, char *host,
		  size_t cap, uint16_t *port, struct ns_err *err)
{
	struct probe_params t;
	struct ns_err e;
	probe_params_init(&t);
	if (probe_params_target(s, &t, &e) < 0 || strlen(t.host) >= cap)
		return ns_err_code(err, NS_E_INPUT, "%s:%d: group %s: '%s' is not host:port", path,
				   line, field, s);
	snprintf(host, cap, "%s", t.host);
	*port = t.port;
	return 0;
}

static int load_member(const char *path, xmlNodePtr n, struct matrix_pair *p, struct ns_err *err)
{
	int line = (int)xmlGetLineNo(n);
	if (p->n_members == MX_MAX_MEMBERS)
		return ns_err_code(err, NS_E_INPUT, "%s:%d: group member: at most %d per group",
				   path, line, MX_MAX_MEMBERS);
	struct matrix_member *mb = &p->members[p->n_members];
	char client[300], agent[300];
	memset(mb, 0, sizeof(*mb));
	mb->line = line;
	if (mxval_attr(n, "name", mb->name, sizeof(mb->name)) < 0 ||
	    mxval_attr(n, "client", client, sizeof(client)) < 0 ||
	    mxval_attr(n, "agent", agent, sizeof(agent)) < 0)
		return ns_err_code(err, NS_E_INPUT, "%s:%d: group member: a value is too long", path,
				   line);
	for (size_t i = 0; i < p->n_members; i++)
		if (!strcmp(p->members[i].name, mb->name))
			return ns_err_code(err, NS_E_INPUT, "%s:%d: group member name: '%s' is "
					   "already the member on line %d", path, line, mb->name,
					   p->members[i].line);
	if (p->group == MX_GROUP_INCAST) {
		if (agent[0])
			return ns_err_code(err, NS_E_INPUT, "%s:%d: group member agent: an incast "
					   "group's members are clients; they all send to the "
					   "group's agent=", path, line);
		if (client[0] && target(path, line, "member client", client, mb->client_host,
					sizeof(mb->client_host), &mb->client_port, err) < 0)
			return -1;
		snprintf(mb->agent_host, sizeof(mb->agent_host), "%s", p->agent_host);
		mb->agent_port = p->agent_port;
	} else {
		if (client[0])
			return ns_err_code(err, NS_E_INPUT, "%s:%d: group member client: a fan-out "
					   "group's members are agents; the group's client= sends "
					   "to them all", path, line);
		if (!agent[0])
			return ns_err_code(err, NS_E_INPUT, "%s:%d: group member agent: a fan-out "
					   "group's member needs agent=\"host:port\"", path, line);
		if (target(path, line, "member agent", agent, mb->agent_host,
			   sizeof(mb->agent_host), &mb->agent_port, err) < 0)
			return -1;
		snprintf(mb->client_host, sizeof(mb->client_host), "%s", p->client_host);
		mb->client_port = p->client_port;
	}
	p->n_members++;
	return 0;
}

int mxgroup_load(const char *path, xmlNodePtr g, struct matrix_pair *p, struct ns_err *err)
{
	int line = (int)xmlGetLineNo(g);
	char kind[16];
	if (mxval_attr(g, "kind", kind, sizeof(kind)) < 0 || !kind[0])
		return ns_err_code(err, NS_E_INPUT, "%s:%d: group kind: incast or fan-out", path, line);
	p->group = !strcmp(kind, "incast") ? MX_GROUP_INCAST : MX_GROUP_FANOUT;
	if (p->group == MX_GROUP_INCAST && !p->agent_host[0])
		return ns_err_code(err, NS_E_INPUT, "%s:%d: group agent: an incast group needs the "
				   "agent=\"host:port\" its members send to", path, line);
	if (p->group == MX_GROUP_FANOUT && p->agent_host[0])
		return ns_err_code(err, NS_E_INPUT, "%s:%d: group agent: a fan-out group's agents "
				   "are its members (agent= on each <member>)", path, line);
	if (p->group == MX_GROUP_INCAST && p->client[0])
		return ns_err_code(err, NS_E_INPUT, "%s:%d: group client: an incast group's clients "
				   "are its members (client= on each <member>)", path, line);
	p->members = calloc(MX_MAX_MEMBERS, sizeof(*p->members));
	if (!p->members)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	for (xmlNodePtr n = g->children; n; n = n->next)
		if (n->type == XML_ELEMENT_NODE && !xmlStrcmp(n->name, BAD_CAST "member") &&
		    load_member(path, n, p, err) < 0)
			return -1;
	if (p->n_members == 0)
		return ns_err_code(err, NS_E_INPUT, "%s:%d: group member: a group needs at least "
				   "one <member>", path, line);
	if (p->group == MX_GROUP_FANOUT) { /* the first agent stands for the group's */
		snprintf(p->agent_host, sizeof(p->agent_host), "%s", p->members[0].agent_host);
		p->agent_port = p->members[0].agent_port;
	}
	return 0;
}

static const struct matrix_pair *pair_of(const struct matrix *m, const struct sweep_case *c)
{
	return &m->pairs[expand_value(m, c, MX_PAIR)->u];
}

size_t mxgroup_clients(const struct matrix *m, const struct sweep_case *c)
{
	const struct matrix_pair *p = pair_of(m, c);
	if (p->group != MX_GROUP_NONE && !m->axes[MX_CLIENTS].present &&
	    c->idx[MX_CLIENTS] < m->axes[MX_CLIENTS].n_product)
		return p->n_members;
	return (size_t)expand_value(m, c, MX_CLIENTS)->u;
}

bool mxgroup_is_group(const struct matrix *m, const struct sweep_case *c)
{
	return pair_of(m, c)->group != MX_GROUP_NONE || mxgroup_clients(m, c) > 1;
}

void mxgroup_member(const struct matrix *m, const struct sweep_case *c, size_t k,
		    struct matrix_member *out)
{
	const struct matrix_pair *p = pair_of(m, c);
	if (p->group != MX_GROUP_NONE && k < p->n_members) {
		*out = p->members[k];
		return;
	}
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%.40s-%zu", p->name, k + 1);
	snprintf(out->client_host, sizeof(out->client_host), "%s", p->client_host);
	out->client_port = p->client_port;
	snprintf(out->agent_host, sizeof(out->agent_host), "%s", p->agent_host);
	out->agent_port = p->agent_port;
	out->line = p->line;
}

int mxgroup_check(const struct matrix *m, const struct sweep_case *c, struct ns_err *err)
{
	const struct matrix_pair *p = pair_of(m, c);
	const struct matrix_value *v = expand_value(m, c, MX_CLIENTS);
	size_t n = mxgroup_clients(m, c);
	if (p->group != MX_GROUP_NONE && n > p->n_members)
		return ns_err_code(err, NS_E_INPUT, "%s:%d: axis 'clients' value '%s': group '%s' "
				   "(line %d) has %zu members (exclude the case, or add members)",
				   m->path, v->line, v->text, p->name, p->line, p->n_members);
	if (p->group != MX_GROUP_NONE && strcmp(expand_value(m, c, MX_BIND)->text, "none"))
		return ns_err_code(err, NS_E_INPUT, "%s:%d: axis 'bind' value '%s': group '%s' "
				   "(line %d) has no binds: its members name their own addresses",
				   m->path, expand_value(m, c, MX_BIND)->line,
				   expand_value(m, c, MX_BIND)->text, p->name, p->line);
	if (n > 1 && m->search && expand_value(m, c, MX_PROTOCOL)->u == NS_PROTO_UDP)
		return ns_err_code(err, NS_E_INPUT, "%s:%d: axis 'clients' value '%s': a <search> "
				   "runs one client (exclude clients above 1 from UDP cases)",
				   m->path, v->line ? v->line : p->line, v->text);
	return 0;
}
