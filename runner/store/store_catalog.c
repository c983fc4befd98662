/* store_catalog: see store_catalog.h. A handful of rows per run: each statement is prepared
 * where it is used, under the store's lock. */
#include "store_catalog.h"

#include "store_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char ITYPE_SQL[] =
	"INSERT OR IGNORE INTO run_instance_types (run_id, instance_type, vcpus, memory_gib,"
	" network_label, network_gbps, baseline_gbps, enhanced_networking, provider, network_up_to,"
	" family) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";
/* the views' on-demand US-dollar price, beside every quote */
static const char PRICE_SQL[] =
	"INSERT OR IGNORE INTO run_prices (run_id, instance_type, region, usd_per_hour, as_of,"
	" source) SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE ?7 = 'on-demand' AND ?8 = 'USD'";
static const char QUOTE_SQL[] =
	"INSERT OR IGNORE INTO run_price_quotes (run_id, instance_type, region, pricing, term,"
	" currency, per_hour, price_window, as_of, source)"
	" VALUES (?1, ?2, ?3, ?7, ?9, ?8, ?4, ?10, ?5, ?6)";
static const char INCLUDED_SQL[] =
	"INSERT OR IGNORE INTO run_included_transfer (run_id, instance_type, region,"
	" included_gb_month) SELECT ?1, ?2, ?3, ?11 WHERE ?11 > 0";
static const char FX_SQL[] =
	"INSERT OR IGNORE INTO run_fx (run_id, currency, usd, as_of, source)"
	" VALUES (?1, ?2, ?3, ?4, ?5)";

static const char TRANSFER_SQL[] =
	"INSERT OR IGNORE INTO run_transfer_prices (run_id, provider, region, relation, peer_region,"
	" billed, currency, tiers, as_of, source)"
	" VALUES (?1, ?2, ?3, ?4, coalesce(?5, ''), ?6, ?7, ?8, ?9, ?10)";
static const char VOLUME_SQL[] =
	"INSERT OR IGNORE INTO run_transfer_volume (run_id, monthly_gb) VALUES (?1, ?2)";

static void text(sqlite3_stmt *st, int i, const char *v)
{
	if (v && *v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
}

static void positive(sqlite3_stmt *st, int i, double v)
{
	if (v > 0)
		sqlite3_bind_double(st, i, v);
}

/* Prepares sql, lets bind fill it, runs it: 0 or -1 with err saying what. */
static int put(struct store *s, const char *sql, void (*bind)(sqlite3_stmt *, const void *),
	       const void *arg, const char *what, struct ns_err *err)
{
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st = NULL;
	int rc = -1;
	store_lock(s);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		bind(st, arg);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	}
	if (rc < 0)
		store_sql_err(db, err, what);
	sqlite3_finalize(st);
	store_unlock(s);
	return rc;
}

struct row {
	int64_t run_id;
	const void *v;
};

static void bind_type(sqlite3_stmt *st, const void *arg)
{
	const struct row *r = arg;
	const struct catalog_instance *i = r->v;
	sqlite3_bind_int64(st, 1, r->run_id);
	text(st, 2, i->type);
	if (i->vcpus > 0)
		sqlite3_bind_int(st, 3, i->vcpus);
	positive(st, 4, i->memory_gib);
	text(st, 5, i->network_label);
	positive(st, 6, i->network_gbps);
	positive(st, 7, i->baseline_gbps);
	text(st, 8, i->enhanced);
	text(st, 9, i->provider);
	sqlite3_bind_int(st, 10, i->up_to);
	text(st, 11, i->family);
}

static void bind_price(sqlite3_stmt *st, const void *arg)
{
	const struct row *r = arg;
	const struct catalog_price *p = r->v;
	sqlite3_bind_int64(st, 1, r->run_id);
	text(st, 2, p->type);
	text(st, 3, p->region);
	sqlite3_bind_double(st, 4, p->per_hour);
	text(st, 5, p->as_of);
	text(st, 6, p->source);
	text(st, 7, catalog_pricing_name(p->pricing));
	text(st, 8, p->currency[0] ? p->currency : "USD");
	sqlite3_bind_text(st, 9, p->term, -1, SQLITE_TRANSIENT);
	text(st, 10, p->window);
	positive(st, 11, p->included_gb_month);
}

static void bind_fx(sqlite3_stmt *st, const void *arg)
{
	const struct row *r = arg;
	const struct catalog_fx *f = r->v;
	sqlite3_bind_int64(st, 1, r->run_id);
	text(st, 2, f->currency);
	sqlite3_bind_double(st, 3, f->usd);
	text(st, 4, f->as_of);
	text(st, 5, f->source);
}

int store_put_instance_type(struct store *s, int64_t run_id, const struct catalog_instance *i,
			    struct ns_err *err)
{
	struct row r = {run_id, i};
	return put(s, ITYPE_SQL, bind_type, &r, "recording an instance type", err);
}

int store_put_price(struct store *s, int64_t run_id, const struct catalog_price *p,
		    struct ns_err *err)
{
	struct row r = {run_id, p};
	return put(s, PRICE_SQL, bind_price, &r, "recording a price", err) < 0 ||
	       put(s, QUOTE_SQL, bind_price, &r, "recording a price", err) < 0 ||
	       put(s, INCLUDED_SQL, bind_price, &r, "recording a price", err) < 0 ? -1 : 0;
}

int store_put_fx(struct store *s, int64_t run_id, const struct catalog_fx *f,
		 struct ns_err *err)
{
	struct row r = {run_id, f};
	return put(s, FX_SQL, bind_fx, &r, "recording an exchange rate", err);
}

static void bind_volume(sqlite3_stmt *st, const void *arg)
{
	const struct row *r = arg;
	sqlite3_bind_int64(st, 1, r->run_id);
	sqlite3_bind_double(st, 2, *(const double *)r->v);
}

int store_put_transfer_volume(struct store *s, int64_t run_id, double monthly_gb,
			      struct ns_err *err)
{
	struct row r = {run_id, &monthly_gb};
	return put(s, VOLUME_SQL, bind_volume, &r, "recording the monthly transfer volume", err);
}

struct transfer_row {
	int64_t run_id;
	const struct catalog_transfer *t;
	const char *tiers;
};

static void bind_transfer(sqlite3_stmt *st, const void *arg)
{
	const struct transfer_row *r = arg;
	sqlite3_bind_int64(st, 1, r->run_id);
	text(st, 2, r->t->provider);
	text(st, 3, r->t->region);
	text(st, 4, r->t->relation);
	text(st, 5, r->t->peer_region);
	text(st, 6, r->t->billed);
	text(st, 7, r->t->currency ? r->t->currency : "USD");
	text(st, 8, r->tiers);
	text(st, 9, r->t->as_of);
	text(st, 10, r->t->source);
}

int store_put_transfer(struct store *s, int64_t run_id, const struct catalog_transfer *t,
		       struct ns_err *err)
{
	/* the tiers as v_cost_total reads them: [{"up_to_gb": G, "per_gb": P}, ..., {"per_gb": P}] */
	size_t cap = 2 + t->ntiers * 64;
	char *tiers = malloc(cap);
	if (!tiers)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	size_t len = (size_t)snprintf(tiers, cap, "[");
	for (size_t i = 0; i < t->ntiers; i++) {
		const struct catalog_tier *k = &t->tiers[i];
		if (isfinite(k->upto_gb))
			len += (size_t)snprintf(tiers + len, cap - len, "%s{\"up_to_gb\":%.17g,"
						"\"per_gb\":%.17g}", i ? "," : "", k->upto_gb, k->per_gb);
		else
			len += (size_t)snprintf(tiers + len, cap - len, "%s{\"per_gb\":%.17g}",
						i ? "," : "", k->per_gb);
	}
	snprintf(tiers + len, cap - len, "]");
	struct transfer_row r = {run_id, t, tiers};
	int rc = put(s, TRANSFER_SQL, bind_transfer, &r, "recording a transfer rule", err);
	free(tiers);
	return rc;
}
