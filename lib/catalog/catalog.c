/* catalog: reads instance catalogs (XML, validated against the compiled-in schemas/catalog.xsd)
 * and merges them: a later file's instance attributes override earlier ones of the same type,
 * its prices replace earlier prices of the same type and region. */
#include "catalog.h"
#include "lib/names/suggest.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <pthread.h>

#include "lib/sys/datadir.h"
#include "lib/names/itype.h"
#include "lib/xml/xsdcheck.h"
#include "lib/settings.h"


#define CATALOG_MAX_ENTRIES 100000 /* bounds memory if a file is absurdly large */

static char default_path[4096];
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

static void find_default(void)
{
	snprintf(default_path, sizeof(default_path), "%s/catalog/aws.xml", ns_datadir());
}

const char *catalog_default_path(void)
{
	const char *env = settings_get()->catalog;
	if (env)
		return env;
	pthread_once(&default_once, find_default); /* computed once, never changed after */
	return default_path;
}

void catalog_init(struct catalog *c)
{
	memset(c, 0, sizeof(*c));
}

/* Open addressing over the arrays' positions (slot = position + 1, 0 = empty), kept at most
 * half full, so that a lookup costs O(1) and a load of n entries O(n). */
struct catalog_index {
	size_t *inst, inst_cap;
	size_t *price, price_cap;
};

static void index_free(struct catalog_index *ix)
{
	if (ix) {
		free(ix->inst);
		free(ix->price);
		free(ix);
	}
}

static void transfer_free(struct catalog_transfer *t)
{
	free(t->provider);
	free(t->region);
	free(t->relation);
	free(t->peer_region);
	free(t->billed);
	free(t->currency);
	free(t->as_of);
	free(t->source);
	free(t->tiers);
	memset(t, 0, sizeof(*t));
}

static int transfer_copy(struct catalog_transfer *d, const struct catalog_transfer *s)
{
	memset(d, 0, sizeof(*d));
	char **dst[] = {&d->provider, &d->region, &d->relation, &d->peer_region, &d->billed,
			&d->currency, &d->as_of, &d->source};
	char *const src[] = {s->provider, s->region, s->relation, s->peer_region, s->billed,
			     s->currency, s->as_of, s->source};
	for (size_t i = 0; i < sizeof(src) / sizeof(src[0]); i++)
		if (src[i] && !(*dst[i] = strdup(src[i])))
			goto oom;
	if (!(d->tiers = malloc(s->ntiers * sizeof(*d->tiers))))
		goto oom;
	memcpy(d->tiers, s->tiers, s->ntiers * sizeof(*d->tiers));
	d->ntiers = s->ntiers;
	return 0;
oom:
	transfer_free(d);
	return -1;
}

void catalog_free(struct catalog *c)
{
	for (size_t i = 0; i < c->ntransfers; i++)
		transfer_free(&c->transfers[i]);
	free(c->transfers);
	free(c->instances);
	free(c->prices);
	index_free(c->ix);
	catalog_init(c);
}

static uint64_t fnv(uint64_t h, const char *s)
{
	for (const char *p = s; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return (h ^ 0xff) * 1099511628211ULL;
}

/* FNV-1a over type and, for prices, region, pricing model and term. */
static uint64_t key_hash(const char *type, const struct catalog_price *k)
{
	uint64_t h = fnv(1469598103934665603ULL, type);
	if (k) {
		h = fnv(h, k->region);
		h = fnv(h, catalog_pricing_name(k->pricing));
		h = fnv(h, k->term);
	}
	return h;
}

static bool price_key_eq(const struct catalog_price *a, const struct catalog_price *b)
{
	return strcmp(a->type, b->type) == 0 && strcmp(a->region, b->region) == 0 &&
	       a->pricing == b->pricing && strcmp(a->term, b->term) == 0;
}

/* The slot holding type (or the price key k), or the empty slot where it would go. */
static size_t *index_slot(const struct catalog *c, const char *type,
			  const struct catalog_price *k)
{
	bool price = k != NULL;
	size_t *tab = price ? c->ix->price : c->ix->inst, cap = price ? c->ix->price_cap
								     : c->ix->inst_cap;
	for (size_t i = (size_t)key_hash(type, k) & (cap - 1);; i = (i + 1) & (cap - 1)) {
		if (!tab[i])
			return &tab[i];
		size_t n = tab[i] - 1;
		if (price ? price_key_eq(&c->prices[n], k) : strcmp(c->instances[n].type, type) == 0)
			return &tab[i];
	}
}

/* Makes room for n entries of one kind (rehashing what is there). */
static int index_reserve(struct catalog *c, bool price, size_t n)
{
	if (!c->ix && !(c->ix = calloc(1, sizeof(*c->ix))))
		return -1;
	size_t **tab = price ? &c->ix->price : &c->ix->inst;
	size_t *cap = price ? &c->ix->price_cap : &c->ix->inst_cap;
	if (*tab && n * 2 <= *cap)
		return 0;
	size_t ncap = 64;
	while (ncap < n * 2)
		ncap *= 2;
	size_t *old = *tab;
	if (!(*tab = calloc(ncap, sizeof(size_t)))) {
		*tab = old;
		return -1;
	}
	free(old);
	*cap = ncap;
	size_t have = price ? c->n_prices : c->n_instances;
	for (size_t k = 0; k < have; k++)
		*index_slot(c, price ? c->prices[k].type : c->instances[k].type,
			    price ? &c->prices[k] : NULL) = k + 1;
	return 0;
}

const struct catalog_instance *catalog_instance(const struct catalog *c, const char *type)
{
	if (!type || !c->ix || !c->ix->inst)
		return NULL;
	size_t k = *index_slot(c, type, NULL);
	return k ? &c->instances[k - 1] : NULL;
}

bool catalog_type_matches(const struct catalog *c, const char *type, const char *want)
{
	const struct catalog_instance *in = catalog_instance(c, type);
	return itype_matches(type, in ? in->family : NULL, want);
}

bool catalog_type_known(const struct catalog *c, const char *want)
{
	for (size_t i = 0; i < c->n_instances; i++)
		if (itype_matches(c->instances[i].type, c->instances[i].family, want))
			return true;
	return false;
}

const struct catalog_price *catalog_price_of(const struct catalog *c, const char *type,
					     const char *region, enum catalog_pricing pricing,
					     const char *term)
{
	if (!type || !region || !c->ix || !c->ix->price || strlen(type) >= sizeof(c->prices[0].type) ||
	    strlen(region) >= sizeof(c->prices[0].region) ||
	    (term && strlen(term) >= sizeof(c->prices[0].term)))
		return NULL;
	struct catalog_price key = {.pricing = pricing};
	snprintf(key.type, sizeof(key.type), "%s", type);
	snprintf(key.region, sizeof(key.region), "%s", region);
	snprintf(key.term, sizeof(key.term), "%s", term ? term : "");
	size_t k = *index_slot(c, type, &key);
	return k ? &c->prices[k - 1] : NULL;
}

const struct catalog_price *catalog_price(const struct catalog *c, const char *type,
					  const char *region)
{
	return catalog_price_of(c, type, region, CATALOG_ON_DEMAND, NULL);
}

static const char *const pricing_names[] = {"on-demand", "spot", "reserved"};

const char *catalog_pricing_name(enum catalog_pricing p)
{
	return (unsigned)p < 3 ? pricing_names[p] : "on-demand";
}

int catalog_pricing_parse(const char *s, enum catalog_pricing *p)
{
	for (int i = 0; s && i < 3; i++)
		if (strcmp(s, pricing_names[i]) == 0) {
			*p = (enum catalog_pricing)i;
			return 0;
		}
	return -1;
}

int catalog_pricing_split(const char *s, enum catalog_pricing *p, char term[8])
{
	char kind[16];
	const char *colon = s ? strchr(s, ':') : NULL;
	term[0] = '\0';
	*p = CATALOG_ON_DEMAND;
	if (!s)
		return 0;
	size_t n = colon ? (size_t)(colon - s) : strlen(s);
	if (n >= sizeof(kind) || (colon && strlen(colon + 1) >= 8))
		return -1;
	memcpy(kind, s, n);
	kind[n] = '\0';
	if (colon)
		snprintf(term, 8, "%s", colon + 1);
	if (catalog_pricing_parse(kind, p) < 0 || (*p == CATALOG_RESERVED) != (colon != NULL))
		return -1;
	return 0;
}

static const char *type_at(const void *ctx, size_t i)
{
	const struct catalog *c = ctx;
	return i < c->n_instances ? c->instances[i].type : NULL;
}

const char *catalog_nearest_type(const struct catalog *c, const char *type)
{
	return suggest_nearest(type, type_at, c);
}

static int node_error(struct ns_err *err, const char *path, xmlNodePtr n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int node_error(struct ns_err *err, const char *path, xmlNodePtr n, const char *fmt, ...)
{
	char text[NS_ERR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return ns_err_set(err, "%s:%ld: %s", path, n ? xmlGetLineNo(n) : 0L, text);
}

static bool is_elem(xmlNodePtr n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && xmlStrcmp(n->name, (const xmlChar *)name) == 0;
}

/* Copies an attribute into buf; returns false when it is absent. */
static bool attr_str(xmlNodePtr n, const char *name, char *buf, size_t len)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
	if (!v)
		return false;
	snprintf(buf, len, "%s", (const char *)v);
	xmlFree(v);
	return true;
}

/* The schema has already checked the lexical form; this converts and range-checks (> 0, or
 * >= 0 with zero_ok). */
static int attr_number(xmlNodePtr n, const char *name, double *out, bool *present, bool zero_ok,
		       const char *path, struct ns_err *err)
{
	char buf[64];
	*present = attr_str(n, name, buf, sizeof(buf));
	if (!*present)
		return 0;
	char *end;
	errno = 0;
	double v = strtod(buf, &end);
	if (errno || end == buf || *end || !(zero_ok ? v >= 0 && isfinite(v) : v > 0))
		return node_error(err, path, n, "attribute %s: '%s' is not a %s number", name, buf,
				  zero_ok ? "non-negative" : "positive");
	*out = v;
	return 0;
}

static int attr_double(xmlNodePtr n, const char *name, double *out, bool *present,
		       const char *path, struct ns_err *err)
{
	return attr_number(n, name, out, present, false, path, err);
}

static int grow(void **arr, size_t n, size_t *cap, size_t elem)
{
	if (n < *cap)
		return 0;
	if (n >= CATALOG_MAX_ENTRIES)
		return -1;
	size_t ncap = *cap ? *cap * 2 : 32;
	void *p = realloc(*arr, ncap * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}

struct merge {
	struct catalog *c;
	size_t cap_instances, cap_prices, cap_transfers;
	long *xline;                /* per transfer rule: the line of this file that set it, 0 =
				     * an earlier file's (a key twice in one file is refused) */
	size_t xline_cap;
	const char *path;
	char provider[32];          /* the catalog element's, for its instances */
};

static int merge_price(struct merge *m, const char *type, xmlNodePtr pn, struct ns_err *err)
{
	struct catalog_price p;
	memset(&p, 0, sizeof(p));
	snprintf(p.type, sizeof(p.type), "%s", type);
	attr_str(pn, "region", p.region, sizeof(p.region));
	attr_str(pn, "as-of", p.as_of, sizeof(p.as_of));
	attr_str(pn, "source", p.source, sizeof(p.source));
	attr_str(pn, "term", p.term, sizeof(p.term));
	attr_str(pn, "window", p.window, sizeof(p.window));
	char buf[16] = "on-demand";
	attr_str(pn, "pricing", buf, sizeof(buf));
	if (catalog_pricing_parse(buf, &p.pricing) < 0)
		return node_error(err, m->path, pn, "price of %s: unknown pricing '%s'", type, buf);
	if ((p.pricing == CATALOG_RESERVED) != (p.term[0] != '\0'))
		return node_error(err, m->path, pn, "price of %s: a term goes with pricing=\"reserved\" "
				  "and only with it", type);
	bool usd, other;
	double usd_v = 0, other_v = 0;
	if (attr_double(pn, "usd-per-hour", &usd_v, &usd, m->path, err) < 0 ||
	    attr_double(pn, "per-hour", &other_v, &other, m->path, err) < 0)
		return -1;
	if (!attr_str(pn, "currency", p.currency, sizeof(p.currency)))
		snprintf(p.currency, sizeof(p.currency), "USD");
	if (usd == other)
		return node_error(err, m->path, pn, "price of %s needs usd-per-hour or per-hour "
				  "(with currency), one of the two", type);
	if (usd && strcmp(p.currency, "USD") != 0)
		return node_error(err, m->path, pn, "price of %s: usd-per-hour with currency %s "
				  "(use per-hour)", type, p.currency);
	p.per_hour = usd ? usd_v : other_v;
	bool incl;
	if (attr_number(pn, "included-gb-month", &p.included_gb_month, &incl, true, m->path, err) < 0)
		return -1;
	if (!p.region[0] || !p.as_of[0] || !p.source[0])
		return node_error(err, m->path, pn, "price of %s needs region, usd-per-hour, as-of and source",
				  type);
	/* the schema's uniqueness skips prices without pricing/term: the same key twice in one
	 * instance element is refused here */
	for (xmlNodePtr q = pn->prev; q; q = q->prev) {
		char r[32] = "", k[16] = "on-demand", t[8] = "";
		if (!is_elem(q, "price"))
			continue;
		attr_str(q, "region", r, sizeof(r));
		attr_str(q, "pricing", k, sizeof(k));
		attr_str(q, "term", t, sizeof(t));
		if (!strcmp(r, p.region) && !strcmp(k, buf) && !strcmp(t, p.term))
			return node_error(err, m->path, pn, "price of %s: a second %s price for %s",
					  type, buf, p.region);
	}
	struct catalog *c = m->c;
	if (index_reserve(c, true, c->n_prices + 1) < 0)
		return node_error(err, m->path, pn, "out of memory");
	size_t *slot = index_slot(c, p.type, &p);
	if (*slot) {
		c->prices[*slot - 1] = p;
		return 0;
	}
	if (grow((void **)&c->prices, c->n_prices, &m->cap_prices, sizeof(p)) < 0)
		return node_error(err, m->path, pn, "too many prices (or out of memory)");
	c->prices[c->n_prices++] = p;
	*slot = c->n_prices;
	return 0;
}

static int merge_fx(struct merge *m, xmlNodePtr n, struct ns_err *err)
{
	struct catalog_fx f = {0};
	bool present;
	attr_str(n, "currency", f.currency, sizeof(f.currency));
	attr_str(n, "as-of", f.as_of, sizeof(f.as_of));
	attr_str(n, "source", f.source, sizeof(f.source));
	if (attr_double(n, "usd-per-unit", &f.usd, &present, m->path, err) < 0)
		return -1;
	struct catalog *c = m->c;
	size_t i = 0;
	while (i < c->n_fx && strcmp(c->fx[i].currency, f.currency))
		i++;
	if (i == CATALOG_MAX_FX)
		return node_error(err, m->path, n, "more than %d exchange rates", CATALOG_MAX_FX);
	c->fx[i] = f;
	if (i == c->n_fx)
		c->n_fx++;
	return 0;
}

static bool same_str(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

/* A transfer rule's key: provider, region, relation and peer region (NULL = any). */
static bool transfer_key_eq(const struct catalog_transfer *t, const char *provider,
			    const char *region, const char *relation, const char *peer)
{
	return same_str(t->provider, provider) && same_str(t->region, region) &&
	       same_str(t->relation, relation) && same_str(t->peer_region, peer);
}

const struct catalog_transfer *catalog_transfer_find(const struct catalog *c, const char *provider,
						     const char *region, const char *relation,
						     const char *peer_region)
{
	if (!provider || !region || !relation)
		return NULL;
	bool cross = strcmp(relation, "cross-region") == 0;
	const struct catalog_transfer *any = NULL;
	for (size_t i = 0; i < c->ntransfers; i++) {
		const struct catalog_transfer *t = &c->transfers[i];
		if (!same_str(t->provider, provider) || !same_str(t->region, region) ||
		    !same_str(t->relation, relation))
			continue;
		if (!cross || !t->peer_region)
			any = any ? any : t;
		if (cross && peer_region && t->peer_region && !strcmp(t->peer_region, peer_region))
			return t;
	}
	return any;
}

/* An attribute's value as a string of its own (NULL when absent, or out of memory: *oom). */
static char *attr_dup(xmlNodePtr n, const char *name, bool *oom)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
	if (!v)
		return NULL;
	char *s = strdup((const char *)v);
	xmlFree(v);
	if (!s)
		*oom = true;
	return s;
}

static int transfer_tiers(struct merge *m, xmlNodePtr tn, struct catalog_transfer *t,
			  const char *what, struct ns_err *err)
{
	size_t n = 0;
	for (xmlNodePtr ch = tn->children; ch; ch = ch->next)
		n += is_elem(ch, "tier");
	if (!n)
		return node_error(err, m->path, tn, "%s: at least one tier", what);
	if (!(t->tiers = calloc(n, sizeof(*t->tiers))))
		return node_error(err, m->path, tn, "out of memory");
	for (xmlNodePtr ch = tn->children; ch; ch = ch->next) {
		if (!is_elem(ch, "tier"))
			continue;
		struct catalog_tier *k = &t->tiers[t->ntiers++];
		bool bounded, priced;
		if (attr_double(ch, "up-to-gb", &k->upto_gb, &bounded, m->path, err) < 0 ||
		    attr_number(ch, "per-gb", &k->per_gb, &priced, true, m->path, err) < 0)
			return -1;
		if (!priced)
			return node_error(err, m->path, ch, "%s: tier %zu: per-gb missing", what,
					  t->ntiers);
		bool last = t->ntiers == n;
		if (!bounded && !last)
			return node_error(err, m->path, ch, "%s: tier %zu: up-to-gb missing (only the "
					  "last tier is unbounded)", what, t->ntiers);
		if (bounded && last)
			return node_error(err, m->path, ch, "%s: tier %zu: the last tier has no up-to-gb "
					  "(it is unbounded)", what, t->ntiers);
		if (!bounded)
			k->upto_gb = INFINITY;
		if (t->ntiers > 1 && !(k->upto_gb > k[-1].upto_gb))
			return node_error(err, m->path, ch, "%s: tier %zu: up-to-gb %g is not above the "
					  "previous tier's %g", what, t->ntiers, k->upto_gb,
					  k[-1].upto_gb);
	}
	return 0;
}

static int merge_transfer(struct merge *m, xmlNodePtr tn, struct ns_err *err)
{
	struct catalog_transfer t = {0};
	bool oom = false;
	t.provider = attr_dup(tn, "provider", &oom);
	if (!t.provider && m->provider[0] && !(t.provider = strdup(m->provider)))
		oom = true;
	t.region = attr_dup(tn, "region", &oom);
	t.relation = attr_dup(tn, "relation", &oom);
	t.peer_region = attr_dup(tn, "peer-region", &oom);
	t.billed = attr_dup(tn, "billed", &oom);
	t.currency = attr_dup(tn, "currency", &oom);
	t.as_of = attr_dup(tn, "as-of", &oom);
	t.source = attr_dup(tn, "source", &oom);
	char what[160];
	snprintf(what, sizeof(what), "transfer %s %s %s%s%s", t.provider ? t.provider : "?",
		 t.region ? t.region : "?", t.relation ? t.relation : "?",
		 t.peer_region ? " to " : "", t.peer_region ? t.peer_region : "");
	if (oom) {
		node_error(err, m->path, tn, "out of memory");
		goto out;
	}
	if (!t.provider) {
		node_error(err, m->path, tn, "%s: provider missing (on the transfer or on the catalog)",
			   what);
		goto out;
	}
	if (!t.region || !t.relation || !t.billed || !t.currency || !t.as_of || !t.source) {
		node_error(err, m->path, tn, "%s needs region, relation, billed, currency, as-of and "
			   "source", what);
		goto out;
	}
	if (t.peer_region && strcmp(t.relation, "cross-region") != 0) {
		node_error(err, m->path, tn, "%s: peer-region goes with relation=\"cross-region\" only",
			   what);
		goto out;
	}
	if (t.peer_region && !strcmp(t.peer_region, t.region)) {
		node_error(err, m->path, tn, "%s: peer-region is the region itself", what);
		goto out;
	}
	if (transfer_tiers(m, tn, &t, what, err) < 0)
		goto out;
	/* one rule per key in a file; a later file's replaces an earlier one's */
	struct catalog *c = m->c;
	size_t i = 0;
	while (i < c->ntransfers && !transfer_key_eq(&c->transfers[i], t.provider, t.region,
						     t.relation, t.peer_region))
		i++;
	if (i < c->ntransfers && i < m->xline_cap && m->xline[i]) {
		node_error(err, m->path, tn, "%s: a second rule for it in this file (the first at "
			   "line %ld)", what, m->xline[i]);
		goto out;
	}
	if (i == c->ntransfers &&
	    grow((void **)&c->transfers, c->ntransfers, &m->cap_transfers, sizeof(t)) < 0) {
		node_error(err, m->path, tn, "too many transfer rules (or out of memory)");
		goto out;
	}
	if (m->xline_cap < m->cap_transfers) {
		long *x = realloc(m->xline, m->cap_transfers * sizeof(*x));
		if (!x) {
			node_error(err, m->path, tn, "out of memory");
			goto out;
		}
		memset(x + m->xline_cap, 0, (m->cap_transfers - m->xline_cap) * sizeof(*x));
		m->xline = x;
		m->xline_cap = m->cap_transfers;
	}
	if (i < c->ntransfers)
		transfer_free(&c->transfers[i]);
	else
		c->ntransfers++;
	c->transfers[i] = t;
	m->xline[i] = xmlGetLineNo(tn) > 0 ? xmlGetLineNo(tn) : 1;
	return 0;
out:
	transfer_free(&t);
	return -1;
}

static int merge_instance(struct merge *m, xmlNodePtr in, struct ns_err *err)
{
	struct catalog *c = m->c;
	char type[sizeof(c->instances[0].type)];
	if (!attr_str(in, "type", type, sizeof(type)) || !type[0])
		return node_error(err, m->path, in, "instance without a type");

	if (index_reserve(c, false, c->n_instances + 1) < 0)
		return node_error(err, m->path, in, "out of memory");
	size_t *slot = index_slot(c, type, NULL);
	struct catalog_instance *ci = *slot ? &c->instances[*slot - 1] : NULL;
	if (!ci) {
		if (grow((void **)&c->instances, c->n_instances, &m->cap_instances, sizeof(*ci)) < 0)
			return node_error(err, m->path, in, "too many instance types (or out of memory)");
		ci = &c->instances[c->n_instances++];
		memset(ci, 0, sizeof(*ci));
		snprintf(ci->type, sizeof(ci->type), "%s", type);
		*slot = c->n_instances;
	}

	char buf[64];
	if (attr_str(in, "vcpus", buf, sizeof(buf))) {
		char *end;
		errno = 0;
		long v = strtol(buf, &end, 10);
		if (errno || *end || v < 1 || v > 100000)
			return node_error(err, m->path, in, "instance %s: vcpus '%s' out of range", type, buf);
		ci->vcpus = (int)v;
	}
	bool present;
	double d;
	if (attr_double(in, "memory-gib", &d, &present, m->path, err) < 0)
		return -1;
	if (present)
		ci->memory_gib = d;
	attr_str(in, "enhanced", ci->enhanced, sizeof(ci->enhanced));
	if (!attr_str(in, "provider", ci->provider, sizeof(ci->provider)) && m->provider[0])
		snprintf(ci->provider, sizeof(ci->provider), "%s", m->provider);
	if (!attr_str(in, "family", ci->family, sizeof(ci->family)) && !ci->family[0])
		itype_family_implied(ci->type, ci->family, sizeof(ci->family));

	for (xmlNodePtr ch = in->children; ch; ch = ch->next) {
		if (is_elem(ch, "network")) {
			attr_str(ch, "label", ci->network_label, sizeof(ci->network_label));
			if (attr_double(ch, "gbps", &d, &present, m->path, err) < 0)
				return -1;
			if (present)
				ci->network_gbps = d;
			if (attr_double(ch, "baseline-gbps", &d, &present, m->path, err) < 0)
				return -1;
			if (present)
				ci->baseline_gbps = d;
			if (attr_str(ch, "up-to", buf, sizeof(buf)))
				ci->up_to = !strcmp(buf, "true") || !strcmp(buf, "1");
		} else if (is_elem(ch, "price")) {
			if (merge_price(m, type, ch, err) < 0)
				return -1;
		}
	}
	return 0;
}

int catalog_load(struct catalog *c, const char *path, struct ns_err *err)
{
	xmlDocPtr doc = NULL;
	/* Work on a copy so that a file failing half-way leaves c as it was. */
	struct catalog work;
	catalog_init(&work);
	struct merge m = {.c = &work, .path = path};

	if (c->n_instances) {
		work.instances = malloc(c->n_instances * sizeof(*work.instances));
		if (!work.instances) {
			ns_err_set(err, "%s: out of memory", path);
			goto err;
		}
		memcpy(work.instances, c->instances, c->n_instances * sizeof(*work.instances));
		work.n_instances = m.cap_instances = c->n_instances;
	}
	if (c->n_prices) {
		work.prices = malloc(c->n_prices * sizeof(*work.prices));
		if (!work.prices) {
			ns_err_set(err, "%s: out of memory", path);
			goto err;
		}
		memcpy(work.prices, c->prices, c->n_prices * sizeof(*work.prices));
		work.n_prices = m.cap_prices = c->n_prices;
	}
	if (c->ntransfers) {
		if (!(work.transfers = calloc(c->ntransfers, sizeof(*work.transfers)))) {
			ns_err_set(err, "%s: out of memory", path);
			goto err;
		}
		m.cap_transfers = c->ntransfers;
		for (; work.ntransfers < c->ntransfers; work.ntransfers++)
			if (transfer_copy(&work.transfers[work.ntransfers],
					  &c->transfers[work.ntransfers]) < 0) {
				ns_err_set(err, "%s: out of memory", path);
				goto err;
			}
	}
	memcpy(work.fx, c->fx, sizeof(work.fx));
	work.n_fx = c->n_fx;

	if ((work.n_instances && index_reserve(&work, false, work.n_instances) < 0) ||
	    (work.n_prices && index_reserve(&work, true, work.n_prices) < 0)) {
		ns_err_set(err, "%s: out of memory", path);
		goto err;
	}
	doc = xsdcheck_file(&xsdcheck_catalog, path, err);
	if (!doc)
		goto err;

	xmlNodePtr root = xmlDocGetRootElement(doc);
	if (root)
		attr_str(root, "provider", m.provider, sizeof(m.provider));
	for (xmlNodePtr n = root ? root->children : NULL; n; n = n->next)
		if ((is_elem(n, "instance") && merge_instance(&m, n, err) < 0) ||
		    (is_elem(n, "fx") && merge_fx(&m, n, err) < 0) ||
		    (is_elem(n, "transfer") && merge_transfer(&m, n, err) < 0))
			goto err;

	catalog_free(c);
	*c = work;
	xmlFreeDoc(doc);
	free(m.xline);
	return 0;

err:
	catalog_free(&work);
	xmlFreeDoc(doc);
	free(m.xline);
	return -1;
}

size_t catalog_shipped_with(const char *type, const char *region,
			    void (*fn)(void *ctx, const char *name, const char *path), void *ctx)
{
	const char *def = catalog_default_path();
	const char *slash = strrchr(def, '/');
	char dir[4096], path[4096 + 256];
	size_t found = 0;
	if (!slash || (size_t)(slash - def) >= sizeof(dir))
		return 0;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - def), def);
	DIR *dp = opendir(dir);
	if (!dp)
		return 0;
	struct dirent *de;
	while ((de = readdir(dp))) {
		size_t n = strlen(de->d_name);
		if (n < 5 || strcmp(de->d_name + n - 4, ".xml") || n > 255)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!strcmp(path, def))
			continue;
		struct catalog c;
		struct ns_err err = {0};
		catalog_init(&c);
		if (catalog_load(&c, path, &err) == 0 &&
		    (region ? catalog_price(&c, type, region) != NULL : catalog_type_known(&c, type))) {
			fn(ctx, de->d_name, path);
			found++;
		}
		catalog_free(&c);
	}
	closedir(dp);
	return found;
}
