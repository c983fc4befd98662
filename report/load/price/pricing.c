/* pricing: see pricing.h. */
#include "report/load/price/pricing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cost.h"
#include "report/load/rundb.h"

int rp_pricing_parse_model(const char *s, struct rp_pricing *p, struct ns_err *err)
{
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : strlen(s);
	bool reserved = n == 8 && !strncmp(s, "reserved", 8);
	if (!((n == 9 && !strncmp(s, "on-demand", 9)) || (n == 4 && !strncmp(s, "spot", 4)) ||
	      reserved) || reserved != (colon != NULL) || (colon && (strlen(colon + 1) < 3 ||
	      strlen(colon + 1) >= sizeof(p->term))))
		return ns_err_code(err, NS_E_USAGE, "--pricing %s: on-demand, spot or reserved:TERM "
				   "(reserved:1yr, reserved:3yr)", s);
	snprintf(p->model, sizeof(p->model), "%.*s", (int)n, s);
	snprintf(p->term, sizeof(p->term), "%s", colon ? colon + 1 : "");
	p->model_from = "report --pricing";
	return 0;
}

int rp_pricing_parse_fx(const char *s, struct rp_pricing *p, struct ns_err *err)
{
	const char *q = s;
	while (*q) {
		size_t len = strcspn(q, ",");
		char cur[4], *end;
		if (len < 5 || q[3] != '=' || p->n_fx == RP_FX_MAX)
			return ns_err_code(err, NS_E_USAGE, "--fx %s: CUR=USD_PER_UNIT[,...] (EUR=1.08), "
					   "at most %d", s, RP_FX_MAX);
		memcpy(cur, q, 3);
		cur[3] = '\0';
		double v = strtod(q + 4, &end);
		for (int k = 0; k < 3; k++)
			if (cur[k] < 'A' || cur[k] > 'Z')
				v = NAN;
		if (end != q + len || !(v > 0) || !isfinite(v) || v > 1e6)
			return ns_err_code(err, NS_E_USAGE, "--fx %s: '%.*s' is not CUR=RATE with a "
					   "three-letter code and a positive rate", s, (int)len, q);
		rp_pricing_add_fx(p, cur, v, RP_FX_CLI, "--fx");
		q += len + (q[len] == ',');
	}
	return 0;
}

static void set_str(char **dst, const unsigned char *v)
{
	free(*dst);
	*dst = v ? strdup((const char *)v) : NULL;
}

/* The run's pricing attribute, when report --pricing gave none. */
static int run_model(sqlite3 *db, const struct rp_data *d, struct rp_pricing *p,
		     struct ns_err *err)
{
	sqlite3_stmt *st;
	if (rp_db_prep(db, "SELECT pricing, term FROM run_pricing WHERE run_id = ?1", &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, d->run.id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(p->model, sizeof(p->model), "%s", (const char *)sqlite3_column_text(st, 0));
		snprintf(p->term, sizeof(p->term), "%s", (const char *)sqlite3_column_text(st, 1));
		p->model_from = "the matrix";
	} else {
		snprintf(p->model, sizeof(p->model), "on-demand");
		p->term[0] = '\0';
		p->model_from = "the default";
	}
	sqlite3_finalize(st);
	return 0;
}

double rp_ep_hourly(const struct rp_endpoint *e, double unit)
{
	enum cost_basis basis = COST_PAIR;
	if (e->price_basis && cost_basis_parse(e->price_basis, &basis, NULL) < 0)
		basis = COST_PAIR; /* the store's check admits only pair and sender */
	return cost_usd_per_hour(unit, basis);
}

static const struct rp_fx *fx_of(const struct rp_pricing *p, const char *cur)
{
	for (size_t i = 0; cur && i < p->n_fx; i++)
		if (!strcmp(p->fx[i].cur, cur))
			return &p->fx[i];
	return NULL;
}

int rp_pricing_add_fx(struct rp_pricing *p, const char *cur, double usd, int rank,
		      const char *from)
{
	struct rp_fx *f = (struct rp_fx *)fx_of(p, cur);
	if (f && f->rank > rank)
		return 0;
	if (!f) {
		if (p->n_fx == RP_FX_MAX || strlen(cur) != 3)
			return -1;
		f = &p->fx[p->n_fx++];
	}
	memcpy(f->cur, cur, 4);
	f->usd = usd;
	f->rank = rank;
	snprintf(f->from, sizeof(f->from), "%s", from);
	return 0;
}

/* The catalog's rates the run recorded, for the currencies --fx left out. */
static int run_fx(sqlite3 *db, const struct rp_data *d, struct rp_pricing *p,
		  struct ns_err *err)
{
	sqlite3_stmt *st;
	if (rp_db_prep(db, "SELECT currency, usd, as_of, source FROM run_fx WHERE run_id = ?1"
		       " ORDER BY currency", &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, d->run.id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *cur = (const char *)sqlite3_column_text(st, 0);
		char from[300];
		snprintf(from, sizeof(from), "the catalog's rate as of %.10s: %.255s",
			 (const char *)sqlite3_column_text(st, 2),
			 (const char *)sqlite3_column_text(st, 3));
		if (cur)
			rp_pricing_add_fx(p, cur, sqlite3_column_double(st, 1), RP_FX_RUN, from);
	}
	sqlite3_finalize(st);
	return 0;
}

int rp_pricing_load(sqlite3 *db, struct rp_data *d, struct rp_pricing *p, struct ns_err *err)
{
	if ((!p->model[0] && run_model(db, d, p, err) < 0) || run_fx(db, d, p, err) < 0)
		return -1;
	sqlite3_stmt *st;
	if (rp_db_prep(db, "SELECT endpoint_id, pricing, term, currency, unit_per_hour,"
		       " price_window, as_of, source FROM v_endpoint_quotes WHERE run_id = ?1",
		       &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, d->run.id);
	bool quotes = false, on_demand = !strcmp(p->model, "on-demand");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!quotes) { /* the quotes replace the on-demand US-dollar prices of v_endpoint_prices */
			quotes = true;
			for (size_t i = 0; i < d->n_eps; i++)
				d->eps[i].usd_per_hour = d->eps[i].unit_usd_per_hour =
					d->eps[i].od_per_hour = NAN;
		}
		long long id = sqlite3_column_int64(st, 0);
		const char *kind = (const char *)sqlite3_column_text(st, 1);
		const char *term = (const char *)sqlite3_column_text(st, 2);
		double unit = sqlite3_column_double(st, 4);
		for (size_t i = 0; i < d->n_eps; i++) {
			struct rp_endpoint *e = &d->eps[i];
			if (e->id != id)
				continue;
			if (!strcmp(kind, "on-demand"))
				e->od_per_hour = rp_ep_hourly(e, unit);
			if (!strcmp(kind, "spot")) {
				e->spot_per_hour = rp_ep_hourly(e, unit);
				p->have_spot = true;
			}
			if (strcmp(kind, p->model) || strcmp(term, p->term))
				continue;
			e->unit_usd_per_hour = unit;
			e->usd_per_hour = rp_ep_hourly(e, unit);
			set_str(&e->currency, sqlite3_column_text(st, 3));
			set_str(&e->pricing, sqlite3_column_text(st, 1));
			set_str(&e->price_window, sqlite3_column_text(st, 5));
			set_str(&e->price_as_of, sqlite3_column_text(st, 6));
			set_str(&e->price_source, sqlite3_column_text(st, 7));
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return ns_err_code(err, NS_E_INPUT, "database: reading the run's prices: %s", sqlite3_errmsg(db));
	if (!quotes && !on_demand) /* a run from before the quotes: on-demand USD only */
		for (size_t i = 0; i < d->n_eps; i++)
			d->eps[i].usd_per_hour = d->eps[i].unit_usd_per_hour = NAN;
	return 0;
}

static void note_add(struct rp_pricing *p, const char *fmt, const char *a, double v,
		     const char *b)
{
	size_t n = strlen(p->note);
	snprintf(p->note + n, sizeof(p->note) - n, fmt, a, v, b);
}

void rp_pricing_settle(struct rp_data *d, struct rp_pricing *p)
{
	const char *seen[RP_FX_MAX + 2];
	size_t n_seen = 0;
	p->note[0] = '\0';
	snprintf(p->note, sizeof(p->note), "Prices: %s%s%s (%s).", p->model, p->term[0] ? " " : "",
		 p->term, p->model_from ? p->model_from : "the default");
	for (size_t i = 0; i < d->n_eps; i++) {
		struct rp_endpoint *e = &d->eps[i];
		const struct rp_fx *f = rp_ep_usd(e) ? NULL : fx_of(p, e->currency);
		if (f && !isnan(e->usd_per_hour)) {
			e->usd_per_hour *= f->usd;
			e->unit_usd_per_hour *= f->usd;
			e->od_per_hour *= f->usd;
			e->spot_per_hour *= f->usd;
			e->fx_rate = f->usd;
			free(e->fx_currency);
			e->fx_currency = e->currency;
			e->currency = NULL;
			bool told = false;
			for (size_t k = 0; k < n_seen; k++)
				told |= !strcmp(seen[k], f->cur);
			if (!told && n_seen < RP_FX_MAX + 2) {
				seen[n_seen++] = f->cur;
				note_add(p, " %s converted at %g US dollars each (%s).", f->cur, f->usd,
					 f->from);
			}
		}
	}
	const char *curs[RP_FX_MAX + 8];
	p->n_currencies = 0;
	for (size_t i = 0; i < d->n_eps; i++) {
		const struct rp_endpoint *e = &d->eps[i];
		const char *c = e->currency ? e->currency : "USD";
		if (isnan(e->usd_per_hour))
			continue;
		bool have = false;
		for (size_t k = 0; k < p->n_currencies; k++)
			have |= !strcmp(curs[k], c);
		if (!have && p->n_currencies < sizeof(curs) / sizeof(curs[0]))
			curs[p->n_currencies++] = c;
	}
	p->per_currency = p->n_currencies > 1;
	if (p->per_currency) {
		note_add(p, " The pairs are priced in %s", curs[0], 0, "");
		for (size_t k = 1; k < p->n_currencies; k++)
			note_add(p, k + 1 == p->n_currencies ? " and %s" : ", %s", curs[k], 0, "");
		note_add(p, "%s and no exchange rate was given for all of them, so each currency is "
			 "ranked on its own, never mixed: give one (--fx EUR=1.08, US dollars per "
			 "euro) for one ranking.", "", 0, "");
	} else if (n_seen) {
		note_add(p, " One ranking in US dollars.", "", 0, "");
	}
	rp_data_recost(d);
}

/* Each pair's rule as v_cost_total picks it (forward: the client sends), its tiers in order. */
static const char XFER_SQL[] =
	"SELECT e.id, e.relation, e.client_zone, e.agent_zone, coalesce(e.client_region, e.region),"
	" coalesce(e.agent_region, e.region), t.billed, t.currency,"
	" json_extract(j.value, '$.up_to_gb'), json_extract(j.value, '$.per_gb'),"
	" (SELECT q.included_gb_month FROM run_included_transfer q WHERE q.run_id = e.run_id"
	"  AND q.instance_type = e.instance_type AND q.region = e.region)"
	" FROM endpoints e"
	" LEFT JOIN run_instance_types it ON it.run_id = e.run_id AND it.instance_type = e.instance_type"
	" LEFT JOIN run_transfer_prices t ON t.rowid = (SELECT u.rowid FROM run_transfer_prices u"
	"  WHERE u.run_id = e.run_id AND u.provider = it.provider"
	"  AND u.region = coalesce(e.client_region, e.region) AND u.relation = e.relation"
	"  AND (u.relation <> 'cross-region' OR u.peer_region IN ('', coalesce(e.agent_region,"
	"  e.region))) ORDER BY u.peer_region = '' LIMIT 1)"
	" LEFT JOIN json_each(t.tiers) j"
	" WHERE e.run_id = ?1 ORDER BY e.id, j.key";

static void copy_col(char *dst, size_t len, sqlite3_stmt *st, int i)
{
	const unsigned char *v = sqlite3_column_text(st, i);
	snprintf(dst, len, "%s", v ? (const char *)v : "");
}

/* A rule's tiers into the pair's ranked currency: as they are, or at the report's rate to US
 * dollars; a currency without a rate leaves the pair's transfer unknown. */
static void xfer_currency(struct rp_endpoint *e, const struct rp_pricing *p)
{
	struct rp_xfer *x = &e->xfer;
	const char *cur = e->currency ? e->currency : "USD";
	if (!x->has_rule || !strcmp(x->rule_currency, cur))
		return;
	const struct rp_fx *f = strcmp(cur, "USD") ? NULL : fx_of(p, x->rule_currency);
	if (!f) {
		x->has_rule = 0;
		x->unconvertible = 1;
		return;
	}
	for (size_t k = 0; k < x->ntiers; k++)
		x->tiers[k].per_gb *= f->usd;
}

int rp_transfer_load(sqlite3 *db, struct rp_data *d, const struct rp_pricing *p,
		     double monthly_gb, struct ns_err *err)
{
	sqlite3_stmt *st;
	d->monthly_gb = monthly_gb > 0 ? monthly_gb : 0;
	d->monthly_from = monthly_gb > 0 ? "--monthly-transfer" : NULL;
	if (!(monthly_gb > 0)) {
		if (rp_db_prep(db, "SELECT monthly_gb FROM run_transfer_volume WHERE run_id = ?1", &st,
			       err) < 0)
			return -1;
		sqlite3_bind_int64(st, 1, d->run.id);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_double(st, 0) > 0) {
			d->monthly_gb = sqlite3_column_double(st, 0);
			d->monthly_from = "the matrix";
		}
		sqlite3_finalize(st);
	}
	if (rp_db_prep(db, XFER_SQL, &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, d->run.id);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(st, 0);
		for (size_t i = 0; i < d->n_eps; i++) {
			struct rp_xfer *x = &d->eps[i].xfer;
			if (d->eps[i].id != id)
				continue;
			copy_col(x->relation, sizeof(x->relation), st, 1);
			copy_col(x->client_zone, sizeof(x->client_zone), st, 2);
			copy_col(x->agent_zone, sizeof(x->agent_zone), st, 3);
			copy_col(x->client_region, sizeof(x->client_region), st, 4);
			copy_col(x->agent_region, sizeof(x->agent_region), st, 5);
			x->included_gb = sqlite3_column_double(st, 10);
			if (sqlite3_column_type(st, 6) == SQLITE_NULL || x->ntiers == RP_XFER_TIERS)
				break;
			x->has_rule = cost_billed_parse((const char *)sqlite3_column_text(st, 6),
							&x->billed) == 0;
			copy_col(x->rule_currency, sizeof(x->rule_currency), st, 7);
			x->tiers[x->ntiers++] = (struct cost_tier){
				.upto_gb = sqlite3_column_type(st, 8) == SQLITE_NULL
						   ? INFINITY : sqlite3_column_double(st, 8),
				.per_gb = sqlite3_column_double(st, 9),
			};
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return ns_err_code(err, NS_E_INPUT, "database: reading transfer rules: %s",
				   sqlite3_errmsg(db));
	for (size_t i = 0; i < d->n_eps; i++)
		xfer_currency(&d->eps[i], p);
	return 0;
}

int rp_xfer_rule(const struct rp_xfer *x, struct cost_transfer_rule *r)
{
	if (!x->has_rule)
		return 0;
	*r = (struct cost_transfer_rule){x->billed, x->tiers, x->ntiers, x->included_gb};
	return 1;
}
