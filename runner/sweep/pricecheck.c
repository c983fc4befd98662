#include "pricecheck.h"

#include <stdio.h>
#include <string.h>

int pricecheck_load(struct catalog *cat, const char *const *files, size_t n_files,
		    void (*warn)(void *ctx, const char *msg), void *ctx, struct ns_err *err)
{
	struct ns_err e = {0};
	if (catalog_load(cat, catalog_default_path(), &e) < 0) {
		char msg[NS_ERR_MAX + 32];
		snprintf(msg, sizeof(msg), "catalog: %s", e.msg);
		warn(ctx, msg);
	}
	for (size_t i = 0; i < n_files; i++)
		if (catalog_load(cat, files[i], err) < 0) {
			ns_err_prefix(err, "--catalog");
			return -1;
		}
	return 0;
}

/* The first shipped catalog that prices it, as `netsweep cost` names it. */
static void first_shipped(void *ctx, const char *name, const char *path)
{
	char *out = ctx;
	if (!*out)
		snprintf(out, NS_ERR_MAX / 2, " (the shipped catalog %s prices it: add --catalog %s)",
			 name, path);
}

int pricecheck_pairs(const struct matrix *m, const struct catalog *cat,
		     void (*warn)(void *ctx, const char *msg), void *ctx, struct ns_err *err)
{
	int missing = 0;
	enum catalog_pricing kind;
	char term[8];
	if (catalog_pricing_split(m->pricing, &kind, term) < 0)
		return ns_err_code(err, NS_E_INPUT, "%s: pricing '%s' is not on-demand, spot or "
				   "reserved:TERM", m->path, m->pricing);
	for (size_t i = 0; i < m->n_pairs; i++) {
		const struct matrix_pair *p = &m->pairs[i];
		if (!p->instance_type[0])
			continue; /* nothing to price: the report shows no cost for it */
		if (p->region[0] && catalog_price_of(cat, p->instance_type, p->region, kind, term))
			continue;
		char msg[NS_ERR_MAX], hint[MX_NAME_MAX + 32] = "";
		const char *near = catalog_instance(cat, p->instance_type)
					   ? NULL : catalog_nearest_type(cat, p->instance_type);
		char shipped[NS_ERR_MAX / 2] = "";
		if (near)
			snprintf(hint, sizeof(hint), " (did you mean %s?)", near);
		else if (p->region[0])
			catalog_shipped_with(p->instance_type, p->region, first_shipped, shipped);
		if (!p->region[0])
			snprintf(msg, sizeof(msg), "%s:%d: pair %s: no region, so no price for %s%s: "
				 "its cost will be missing from the report", m->path, p->line, p->name,
				 p->instance_type, hint);
		else
			snprintf(msg, sizeof(msg), "%s:%d: pair %s: the catalog has no %s%sprice for %s "
				 "in %s%s: its cost will be missing from the report%s", m->path, p->line,
				 p->name, m->pricing ? m->pricing : "", m->pricing ? " " : "",
				 p->instance_type, p->region, hint, shipped);
		if (m->strict)
			return ns_err_code(err, NS_E_INPUT, "%s (strict=\"true\"; add the price with "
					   "--catalog FILE)", msg);
		warn(ctx, msg);
		missing++;
	}
	return missing;
}

void pricecheck_estimate(const struct matrix *m, const struct sweep_cases *cs,
			 const struct catalog *cat, struct pricecheck_estimate *e)
{
	memset(e, 0, sizeof(*e));
	for (size_t i = 0; i < m->n_pairs && i < PRICECHECK_MAX_PAIRS; i++) {
		const struct matrix_pair *p = &m->pairs[i];
		struct pricecheck_pair *out = &e->pairs[e->n++];
		snprintf(out->name, sizeof(out->name), "%s", p->name);
		for (size_t k = 0; k < cs->n; k++)
			if (expand_value(m, &cs->v[k], MX_PAIR)->u == i)
				out->seconds += m->repeats * (expand_case_seconds(m, &cs->v[k]) +
							      m->cooldown_s);
		const struct catalog_price *pr = p->instance_type[0] && p->region[0]
							 ? catalog_price(cat, p->instance_type, p->region)
							 : NULL;
		out->per_hour = pr ? pr->per_hour * (strcmp(p->price_basis, "sender") ? 2 : 1) : -1;
		if (pr) {
			snprintf(out->currency, sizeof(out->currency), "%s", pr->currency);
			out->cost = out->per_hour * out->seconds / 3600.0;
			if (!e->currency[0])
				snprintf(e->currency, sizeof(e->currency), "%s", pr->currency);
			if (strcmp(e->currency, pr->currency))
				e->mixed = true;
			e->total += out->cost;
		} else {
			e->unpriced++;
		}
	}
}
