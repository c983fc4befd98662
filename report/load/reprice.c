#include "report/load/reprice.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

#include "lib/xml/xsdcheck.h"

static int is_elem(xmlNodePtr n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && xmlStrcmp(n->name, BAD_CAST name) == 0;
}

static int attr_is(xmlNodePtr n, const char *name, const char *want)
{
	xmlChar *v = xmlGetProp(n, BAD_CAST name);
	int eq = v && want && strcmp((const char *)v, want) == 0;
	xmlFree(v);
	return eq;
}

static char *attr_dup(xmlNodePtr n, const char *name)
{
	xmlChar *v = xmlGetProp(n, BAD_CAST name);
	char *s = v ? strdup((const char *)v) : NULL;
	xmlFree(v);
	return s;
}

/* An attribute, or what the schema says its absence means. */
static int attr_is_or(xmlNodePtr n, const char *name, const char *want, const char *dflt)
{
	xmlChar *v = xmlGetProp(n, BAD_CAST name);
	int eq = strcmp(v ? (const char *)v : dflt, want) == 0;
	xmlFree(v);
	return eq;
}

/* The price node for type/region of one pricing model and term; the last one wins, as later
 * catalog entries override. */
static xmlNodePtr find_price(xmlNodePtr root, const char *type, const char *region,
			     const char *model, const char *term)
{
	xmlNodePtr found = NULL;
	for (xmlNodePtr in = root->children; in; in = in->next) {
		if (!is_elem(in, "instance") || !attr_is(in, "type", type))
			continue;
		for (xmlNodePtr p = in->children; p; p = p->next)
			if (is_elem(p, "price") && attr_is(p, "region", region) &&
			    attr_is_or(p, "pricing", model, "on-demand") &&
			    attr_is_or(p, "term", term, ""))
				found = p;
	}
	return found;
}

/* The file's <fx> rates, over the run's and under --fx. */
static void file_rates(xmlNodePtr root, const char *base, struct rp_pricing *p)
{
	for (xmlNodePtr n = root->children; n; n = n->next) {
		if (!is_elem(n, "fx"))
			continue;
		char *cur = attr_dup(n, "currency"), *usd = attr_dup(n, "usd-per-unit");
		char *as_of = attr_dup(n, "as-of"), *src = attr_dup(n, "source");
		char from[300];
		snprintf(from, sizeof(from), "--catalog %.60s, as of %.10s: %.200s", base,
			 as_of ? as_of : "", src ? src : "");
		if (cur && usd)
			rp_pricing_add_fx(p, cur, strtod(usd, NULL), RP_FX_FILE, from);
		free(cur);
		free(usd);
		free(as_of);
		free(src);
	}
}

int rp_reprice(struct rp_data *d, const char *path, struct rp_pricing *pr, size_t *n_priced,
	       struct ns_err *err)
{
	*n_priced = 0;
	xmlDocPtr doc = xsdcheck_file(&xsdcheck_catalog, path, err);
	if (!doc) {
		ns_err_prefix(err, "--catalog");
		return -1;
	}
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	xmlNodePtr root = xmlDocGetRootElement(doc);
	const char *model = pr->model, *term = pr->term;
	file_rates(root, base, pr);
	for (size_t i = 0; i < d->n_eps; i++) {
		struct rp_endpoint *e = &d->eps[i];
		xmlNodePtr p = e->instance_type && e->region
				       ? find_price(root, e->instance_type, e->region, model, term) : NULL;
		char *usd = p ? attr_dup(p, "usd-per-hour") : NULL;
		if (p && !usd)
			usd = attr_dup(p, "per-hour");
		if (!usd)
			continue;
		char *src = attr_dup(p, "source");
		size_t len = strlen(base) + (src ? strlen(src) : 0) + 32;
		char *label = malloc(len);
		if (label)
			snprintf(label, len, "--catalog %s: %s", base, src ? src : "");
		free(e->price_source);
		free(e->price_as_of);
		free(e->currency);
		free(e->pricing);
		free(e->price_window);
		e->currency = attr_dup(p, "currency");
		e->pricing = strdup(model);
		e->price_window = attr_dup(p, "window");
		e->price_source = label;
		e->price_as_of = attr_dup(p, "as-of");
		e->unit_usd_per_hour = strtod(usd, NULL);
		e->usd_per_hour = rp_ep_hourly(e, e->unit_usd_per_hour);
		e->repriced = 1;
		free(src);
		free(usd);
		(*n_priced)++;
	}
	xmlFreeDoc(doc);
	/* the run's costs at the prices now in force */
	rp_data_recost(d);
	return 0;
}
