/* reprice: see reprice.h. The catalog is read by lib/catalog, the one catalog loader (the
 * runner's too): validated against schemas/catalog.xsd, errors naming file and line. */
#include "report/load/price/reprice.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/catalog/catalog.h"

/* The file's <fx> rates, over the run's and under --fx. */
static void file_rates(const struct catalog *cat, const char *base, struct rp_pricing *p)
{
	for (size_t i = 0; i < cat->n_fx; i++) {
		const struct catalog_fx *f = &cat->fx[i];
		char from[300];
		snprintf(from, sizeof(from), "--catalog %.60s, as of %.10s: %.200s", base, f->as_of,
			 f->source);
		rp_pricing_add_fx(p, f->currency, f->usd, RP_FX_FILE, from);
	}
}

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

int rp_reprice(struct rp_data *d, const char *path, struct rp_pricing *pr, size_t *n_priced,
	       struct ns_err *err)
{
	*n_priced = 0;
	struct catalog cat;
	catalog_init(&cat);
	if (catalog_load(&cat, path, err) < 0) {
		catalog_free(&cat);
		ns_err_prefix(err, "--catalog");
		return -1;
	}
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	enum catalog_pricing model = CATALOG_ON_DEMAND;
	catalog_pricing_parse(pr->model[0] ? pr->model : "on-demand", &model);
	file_rates(&cat, base, pr);
	for (size_t i = 0; i < d->n_eps; i++) {
		struct rp_endpoint *e = &d->eps[i];
		const struct catalog_price *p =
			e->instance_type && e->region
				? catalog_price_of(&cat, e->instance_type, e->region, model, pr->term)
				: NULL;
		if (!p)
			continue;
		size_t len = strlen(base) + strlen(p->source) + 32;
		char *label = malloc(len);
		if (label)
			snprintf(label, len, "--catalog %s: %s", base, p->source);
		free(e->price_source);
		free(e->price_as_of);
		free(e->currency);
		free(e->pricing);
		free(e->price_window);
		e->currency = strcmp(p->currency, "USD") ? strdup(p->currency) : NULL;
		e->pricing = strdup(catalog_pricing_name(model));
		e->price_window = dup_or_null(p->window);
		e->price_source = label;
		e->price_as_of = dup_or_null(p->as_of);
		e->unit_usd_per_hour = p->per_hour;
		e->usd_per_hour = rp_ep_hourly(e, e->unit_usd_per_hour);
		e->repriced = 1;
		(*n_priced)++;
	}
	catalog_free(&cat);
	/* the run's costs at the prices now in force */
	rp_data_recost(d);
	return 0;
}
