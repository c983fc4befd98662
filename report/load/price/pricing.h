/* pricing (report): which of a run's prices rank and in what money. The pricing model is
 * report --pricing, else the matrix's pricing attribute (run_pricing), else on-demand; each
 * pair's price of that model comes from the run's quotes (v_endpoint_quotes, store version
 * 12) in its own currency. Currencies are never mixed silently: only an exchange rate the
 * user gives (--fx EUR=1.08) converts one to US dollars, and the page says which; without
 * one, each currency is ranked on its own and the page says why. */
#ifndef RP_PRICING_H
#define RP_PRICING_H

#include <stdbool.h>
#include <stddef.h>

#include <sqlite3.h>

#include "lib/err.h"
#include "report/load/data.h"

#define RP_FX_MAX 8

struct rp_fx {
	char cur[4];               /* "EUR" */
	double usd;                /* US dollars per unit of cur */
	char from[300];            /* "--fx", or the catalog's date and source */
	int rank;                  /* whose: RP_FX_CLI over RP_FX_FILE over RP_FX_RUN */
};
enum { RP_FX_RUN = 1, RP_FX_FILE = 2, RP_FX_CLI = 3 };

struct rp_pricing {
	char model[16];            /* "on-demand", "spot", "reserved"; "" = the run's */
	char term[8];              /* reserved: "1yr"; "" otherwise */
	const char *model_from;    /* "report --pricing", "the matrix", "the default" */
	struct rp_fx fx[RP_FX_MAX];
	size_t n_fx;
	size_t n_currencies;       /* distinct currencies of the priced pairs, after --fx */
	bool per_currency;         /* the ranking is split by currency */
	bool have_spot;            /* a pair has a spot price (shown beside the ranked one) */
	char note[600];            /* what the page states: the model, the rates, the split */
};

/* "on-demand", "spot" or "reserved:TERM" into p. */
int rp_pricing_parse_model(const char *s, struct rp_pricing *p, struct ns_err *err);
/* "EUR=1.08[,GBP=1.27]": US dollars per unit of each currency, added to p. */
int rp_pricing_parse_fx(const char *s, struct rp_pricing *p, struct ns_err *err);

/* Settles the model (p->model empty: the run's, else on-demand) and gives each pair its price
 * of that model from the run's quotes, its on-demand and spot prices beside it. A run from
 * before store version 12 has only its on-demand US-dollar prices: other models are missing.
 * The catalog's exchange rates the run recorded (run_fx) join p's for currencies --fx did
 * not give. */
int rp_pricing_load(sqlite3 *db, struct rp_data *d, struct rp_pricing *p, struct ns_err *err);
/* Adds a rate of whose rank (RP_FX_*) unless one of a higher rank is there; 0, or -1 when
 * p holds RP_FX_MAX already. */
int rp_pricing_add_fx(struct rp_pricing *p, const char *cur, double usd, int rank,
		      const char *from);
/* Converts by p's rates, counts the currencies, writes p->note and recomputes the run's cost
 * (after report --catalog, if any). */
void rp_pricing_settle(struct rp_data *d, struct rp_pricing *p);
/* An endpoint's hourly price from the unit price of its type, on its price basis (the pair:
 * both instances; the sender alone): lib/cost's formula, NAN for a missing or invalid price. */
double rp_ep_hourly(const struct rp_endpoint *e, double unit);

/* Each pair's transfer terms (rp_endpoint.xfer) and the run's monthly volume (monthly_gb > 0:
 * report --monthly-transfer's, else the matrix's), after rp_pricing_settle: a rule in another
 * currency than the pair's ranked price is converted at p's rate to US dollars, else counts as
 * none. A database from before store version 30 reads as relations unknown. */
int rp_transfer_load(sqlite3 *db, struct rp_data *d, const struct rp_pricing *p,
		     double monthly_gb, struct ns_err *err);
/* The pair's rule for lib/cost.h (pointing into x); 0 when none is known. */
int rp_xfer_rule(const struct rp_xfer *x, struct cost_transfer_rule *r);

#endif
