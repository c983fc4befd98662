/* matrix_mesh: see matrix_mesh.h. */
#include "matrix_mesh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"
#include "pair_key.h"
#include "matrix_value.h"
#include "runner/proto/probe.h"

struct mesh_host {
	char name[MX_NAME_MAX], zone[MX_NAME_MAX], type[MX_NAME_MAX], region[32];
	char agent[300], host[256];
	uint16_t port;
	int line;
};

static bool is_host(xmlNodePtr n)
{
	return n->type == XML_ELEMENT_NODE && !xmlStrcmp(n->name, BAD_CAST "host");
}

size_t mxmesh_capacity(xmlNodePtr mesh)
{
	size_t n = 0;
	for (xmlNodePtr c = mesh->children; c; c = c->next)
		n += is_host(c);
	return n > 1 ? n * (n - 1) : 0;
}


static int load_host(const char *path, xmlNodePtr n, struct mesh_host *h, size_t k,
		     const struct mesh_host *before, struct ns_err *err)
{
	int line = (int)xmlGetLineNo(n);
	struct probe_params t;
	struct ns_err e;
	memset(h, 0, sizeof(*h));
	h->line = line;
	if (mxval_attr(n, "name", h->name, sizeof(h->name)) < 0 ||
	    mxval_attr(n, "zone", h->zone, sizeof(h->zone)) < 0 ||
	    mxval_attr(n, "instance-type", h->type, sizeof(h->type)) < 0 ||
	    mxval_attr(n, "region", h->region, sizeof(h->region)) < 0 ||
	    mxval_attr(n, "agent", h->agent, sizeof(h->agent)) < 0)
		return ns_err_code(err, NS_E_INPUT, "%s:%d: mesh host: a value is too long", path,
				   line);
	probe_params_init(&t);
	if (probe_params_target(h->agent, &t, &e) < 0 || strlen(t.host) >= sizeof(h->host))
		return ns_err_code(err, NS_E_INPUT, "%s:%d: mesh host agent: '%s' is not host:port",
				   path, line, h->agent);
	snprintf(h->host, sizeof(h->host), "%s", t.host);
	h->port = t.port;
	for (size_t i = 0; i < k; i++) {
		if (!strcmp(before[i].name, h->name))
			return ns_err_code(err, NS_E_INPUT, "%s:%d: mesh host name: '%s' is already "
					   "the host on line %d", path, line, h->name, before[i].line);
		if (!strcmp(before[i].host, h->host) && before[i].port == h->port)
			return ns_err_code(err, NS_E_INPUT, "%s:%d: mesh host agent: '%s' is already "
					   "host '%s' (line %d)", path, line, h->agent, before[i].name,
					   before[i].line);
	}
	return 0;
}

/* The pair FROM--TO of the mesh. */
static int add_pair(const char *path, xmlNodePtr mesh, struct matrix *m, const char *name,
		    const struct mesh_host *a, const struct mesh_host *b, struct ns_err *err)
{
	struct matrix_pair *p = &m->pairs[m->n_pairs];
	int line = (int)xmlGetLineNo(mesh);
	memset(p, 0, sizeof(*p));
	p->line = a->line;
	if (strlen(a->name) + strlen(b->name) + 2 >= sizeof(p->name))
		return ns_err_code(err, NS_E_INPUT, "%s:%d: mesh host name: '%s--%s' is over %d "
				   "characters as a pair's name", path, a->line, a->name, b->name,
				   MX_NAME_MAX - 1);
	size_t la = strlen(a->name);
	memcpy(p->name, a->name, la);
	memcpy(p->name + la, "--", 2);
	memcpy(p->name + la + 2, b->name, strlen(b->name) + 1);
	snprintf(p->mesh, sizeof(p->mesh), "%s", name);
	snprintf(p->client_name, sizeof(p->client_name), "%s", a->name);
	snprintf(p->agent_name, sizeof(p->agent_name), "%s", b->name);
	snprintf(p->client_zone, sizeof(p->client_zone), "%s", a->zone);
	snprintf(p->agent_zone, sizeof(p->agent_zone), "%s", b->zone);
	snprintf(p->instance_type, sizeof(p->instance_type), "%s", a->type[0] ? a->type : b->type);
	snprintf(p->region, sizeof(p->region), "%s", a->region[0] ? a->region : b->region);
	snprintf(p->price_basis, sizeof(p->price_basis), "%s",
		 a->type[0] && b->type[0] && strcmp(a->type, b->type) ? "sender" : "pair");
	snprintf(p->client, sizeof(p->client), "%s", a->agent);
	snprintf(p->client_host, sizeof(p->client_host), "%s", a->host);
	p->client_port = a->port;
	snprintf(p->agent_host, sizeof(p->agent_host), "%s", b->host);
	p->agent_port = b->port;
	if (a->zone[0] && b->zone[0])
		p->zone_rel = strcmp(a->zone, b->zone) ? MX_ZONE_CROSS : MX_ZONE_SAME;
	char link[64], key[256];
	if (mxval_attr(mesh, "expected-driver", p->expected_driver, sizeof(p->expected_driver)) < 0 ||
	    mxval_attr(mesh, "link-speed", link, sizeof(link)) < 0 ||
	    mxval_attr(mesh, "psk-file", key, sizeof(key)) < 0)
		return ns_err_code(err, NS_E_INPUT, "%s:%d: mesh: a value is too long", path, line);
	if (link[0] && units_parse_rate(link, &p->link_bps, err) < 0) {
		ns_err_prefix(err, "%s:%d: mesh link-speed", path, line);
		return -1;
	}
	if (key[0] && pair_key_resolve(path, key, p->psk_file, sizeof(p->psk_file), err) < 0) {
		ns_err_prefix(err, "%s:%d: mesh psk-file", path, line);
		return -1;
	}
	for (size_t i = 0; i < m->n_pairs; i++)
		if (!strcmp(m->pairs[i].name, p->name))
			return ns_err_code(err, NS_E_INPUT, "%s:%d: mesh: its pair '%s' has the name "
					   "of the pair on line %d", path, line, p->name,
					   m->pairs[i].line);
	m->n_pairs++;
	return 0;
}

/* The index of the first host of zone z after skip (SIZE_MAX: none). */
static size_t in_zone(const struct mesh_host *h, size_t n, const char *z, size_t skip)
{
	for (size_t i = 0; i < n; i++)
		if (i != skip && !strcmp(h[i].zone, z))
			return i;
	return SIZE_MAX;
}

int mxmesh_load(const char *path, xmlNodePtr mesh, struct matrix *m, struct ns_err *err)
{
	int line = (int)xmlGetLineNo(mesh);
	char name[MX_NAME_MAX], mode[16];
	struct mesh_host *h = calloc(MXMESH_MAX_HOSTS, sizeof(*h));
	size_t n = 0;
	int rc = -1;
	if (!h)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	if (mxval_attr(mesh, "name", name, sizeof(name)) < 0 ||
	    mxval_attr(mesh, "pairs", mode, sizeof(mode)) < 0) {
		ns_err_code(err, NS_E_INPUT, "%s:%d: mesh: a value is too long", path, line);
		goto out;
	}
	for (xmlNodePtr c = mesh->children; c; c = c->next) {
		if (!is_host(c))
			continue;
		if (n == MXMESH_MAX_HOSTS) {
			ns_err_code(err, NS_E_INPUT, "%s:%d: mesh host: at most %d hosts in a mesh",
				    path, (int)xmlGetLineNo(c), MXMESH_MAX_HOSTS);
			goto out;
		}
		if (load_host(path, c, &h[n], n, h, err) < 0)
			goto out;
		n++;
	}
	bool per_zone = !strcmp(mode, "per-zone");
	for (size_t i = 0; per_zone && i < n; i++)
		if (!h[i].zone[0]) {
			ns_err_code(err, NS_E_INPUT, "%s:%d: mesh host zone: mesh '%s' has "
				    "pairs=\"per-zone\", so host '%s' needs zone=\"...\"", path,
				    h[i].line, name, h[i].name);
			goto out;
		}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			if (i == j)
				continue;
			if (per_zone) { /* only the zones' first hosts (a zone's second as TO) */
				if (in_zone(h, n, h[i].zone, SIZE_MAX) != i)
					continue;
				size_t first = !strcmp(h[i].zone, h[j].zone)
						       ? in_zone(h, n, h[j].zone, i)
						       : in_zone(h, n, h[j].zone, SIZE_MAX);
				if (first != j)
					continue;
			}
			if (add_pair(path, mesh, m, name, &h[i], &h[j], err) < 0)
				goto out;
		}
	rc = 0;
out:
	free(h);
	return rc;
}
