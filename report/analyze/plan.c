/* plan: see plan.h. */
#include "report/analyze/plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cost.h"
#include "lib/units.h"
#include "report/load/price/pricing.h"
#include "report/model/describe.h"

static bool at(const char *place, const char *zone, const char *region)
{
	return !strcmp(place, zone) || !strcmp(place, region);
}

static bool wanted(const struct rp_endpoint *e, const struct rp_plan_need *need)
{
	const struct rp_xfer *x = &e->xfer;
	if (need->relation && strcmp(x->relation, need->relation))
		return false;
	if (!need->from || !need->to)
		return true;
	return (at(need->from, x->client_zone, x->client_region) &&
		at(need->to, x->agent_zone, x->agent_region)) ||
	       (at(need->to, x->client_zone, x->client_region) &&
		at(need->from, x->agent_zone, x->agent_region));
}

/* The pair's best one-stream median (its sustained rate where shaped), bits/s; NAN = none. */
static double single_flow(const struct rp_data *d, size_t ep)
{
	double best = NAN;
	for (size_t c = 0; c < d->n_cases; c++) {
		const struct rp_case *k = &d->cases[c];
		double v = k->fig[RP_RCV_BPS].med;
		if (k->ep == ep && k->streams == 1 && !isnan(v) && (isnan(best) || v > best))
			best = v;
	}
	return best;
}

static int cur_order(const char *a, const char *b)
{
	const char *x = a ? a : "USD", *y = b ? b : "USD";
	if (!strcmp(x, y))
		return 0;
	return !strcmp(x, "USD") ? -1 : !strcmp(y, "USD") ? 1 : strcmp(x, y);
}

static int by_plan(const void *pa, const void *pb)
{
	const struct rp_plan_option *a = pa, *b = pb;
	int c = cur_order(a->currency, b->currency);
	if (c)
		return c;
	if (isnan(a->total_month) != isnan(b->total_month))
		return isnan(a->total_month) ? 1 : -1;
	if (!isnan(a->total_month) && a->total_month != b->total_month)
		return a->total_month < b->total_month ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

int rp_plan_build(const struct rp_data *d, const struct rp_cost_row *rows, size_t n,
		  const struct rp_plan_need *need, struct rp_plan_option **opts, size_t *n_opts,
		  struct ns_err *err)
{
	*n_opts = 0;
	*opts = calloc(n ? n : 1, sizeof(**opts));
	if (!*opts)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const struct rp_cost_row *r = &rows[i];
		const struct rp_endpoint *e = &d->eps[r->ep];
		double scale = e->emu_scale > 0 ? e->emu_scale : 1;
		if (isnan(r->usd_per_hour) || !(r->mbps > 0) || !wanted(e, need))
			continue;
		struct rp_plan_option *o = &(*opts)[(*n_opts)++];
		o->row = i;
		o->currency = r->currency;
		o->pair_bps = r->mbps * 1e6 / scale;
		o->single_flow_bps = single_flow(d, r->ep) / scale;
		o->pairs = (int)ceil(need->bps / o->pair_bps - 1e-9);
		if (o->pairs < 1)
			o->pairs = 1;
		o->instances_month = o->pairs * r->usd_per_hour * COST_HOURS_PER_MONTH;
		/* the whole month's traffic through the relation's rule, each server's allowance */
		struct cost_transfer_rule rule = {0};
		struct cost_total t;
		int has = rp_xfer_rule(&e->xfer, &rule);
		rule.included_gb *= o->pairs;
		cost_total_figures(need->bps, 1, r->usd_per_hour, has ? &rule : NULL,
				   e->xfer.relation, need->monthly_gb, &t);
		o->transfer_month = t.transfer_per_hour * COST_HOURS_PER_MONTH;
		o->total_month = o->instances_month + o->transfer_month;
	}
	qsort(*opts, *n_opts, sizeof(**opts), by_plan);
	for (size_t i = 0; i < *n_opts; i++) {
		struct rp_plan_option *o = &(*opts)[i];
		o->rank = isnan(o->total_month) ? 0
			  : i > 0 && !cur_order(o->currency, (*opts)[i - 1].currency) &&
				    (*opts)[i - 1].rank ? (*opts)[i - 1].rank + 1 : 1;
	}
	return 0;
}

static void one(const struct rp_data *d, const struct rp_cost_row *rows,
		const struct rp_plan_option *o, char *b, size_t n)
{
	const struct rp_endpoint *e = &d->eps[rows[o->row].ep];
	char rate[32];
	units_format_rate(o->pair_bps, rate, sizeof(rate));
	snprintf(b, n, "%d pair%s of %s %s (%s each) at %.0f %s a month", o->pairs,
		 o->pairs == 1 ? "" : "s", rp_ep_label(e), e->xfer.relation, rate, o->total_month,
		 o->currency ? o->currency : "USD");
}

int rp_plan_sentence(const struct rp_data *d, const struct rp_cost_row *rows,
		     const struct rp_plan_need *need, const struct rp_plan_option *opts,
		     size_t n_opts, char *buf, size_t len)
{
	char what[64], a[256], b[256];
	buf[0] = '\0';
	if (!n_opts || !opts[0].rank)
		return 0;
	if (need->hold)
		units_format_rate(need->bps, what, sizeof(what));
	else
		snprintf(what, sizeof(what), "%.6g TB a month", need->monthly_gb / 1000);
	one(d, rows, &opts[0], a, sizeof(a));
	size_t used = (size_t)snprintf(buf, len, "To %s %s: %s", need->hold ? "hold" : "move",
				       what, a);
	for (size_t i = 1; i < n_opts && i < 3 && opts[i].rank && used < len; i++) {
		one(d, rows, &opts[i], b, sizeof(b));
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i == 1 ? "; next " : ", ", b);
	}
	if (used < len)
		snprintf(buf + used, len - used, ".");
	return 1;
}
