/* cost: what a throughput figure costs — the hourly price of the endpoint pair (or the sender
 * alone, as the m4 post priced it), Mbit/s per $/hour, $ per Gbit/s-hour, and a run's cost.
 * The one cost formula: `netsweep cost` and the report's ranking call these, and the views of
 * schemas/store.sql (v_endpoint_prices, v_cost, v_run_cost, v_cost_ranking) say the same in
 * SQL for ad-hoc queries — tests/unit/test_cost.c holds them equal row by row. A missing or
 * invalid price gives NAN, never a guess. */
#ifndef NS_COST_H
#define NS_COST_H

#include "lib/err.h"

enum cost_basis {
	COST_PAIR,   /* client and agent, both of the declared type: twice the unit price */
	COST_SENDER, /* the sending instance alone */
};

/* "pair" / "sender" (the endpoints.price_basis values). */
int cost_basis_parse(const char *s, enum cost_basis *basis, struct ns_err *err);
const char *cost_basis_name(enum cost_basis basis);

/* The hourly price of an endpoint on that basis; NAN when unit_usd_per_hour is not > 0. */
double cost_usd_per_hour(double unit_usd_per_hour, enum cost_basis basis);

/* Throughput (bits/s) per dollar-hour, in Mbit/s per $/hour: the m4 post's last column. */
double cost_mbps_per_usd_hour(double bps, double usd_per_hour);

/* Dollars per hour for each Gbit/s delivered; NAN when bps is not > 0. */
double cost_usd_per_gbps_hour(double bps, double usd_per_hour);

/* What seconds of the instances cost, in dollars (on-demand, pro rata). */
double cost_run_usd(double usd_per_hour, double seconds);

/* Dollars per million of something done per_second times a second (request/response
 * transactions): the hour's price over the hour's count; NAN when per_second is not > 0. */
double cost_usd_per_million(double per_second, double usd_per_hour);

/* Transfer: what moving the measured traffic costs beside the instances (issue 39). A
 * pair's relation — same-zone, cross-zone, cross-region, internet, unknown — picks the
 * provider's rule (the catalog's <transfer>, stored per run in run_transfer_prices); the rule
 * bills the sender, the receiver or both, per decimal GB (1e9 bytes), in monthly cumulative
 * volume tiers after a server's included allowance. At a stated monthly volume V the hour's
 * transfer costs (the month's bill for V) / V per GB moved that hour, for each billed side;
 * without one, V is the measured rate for a 730-hour month. Same-zone traffic without a rule
 * is free (every catalogued provider's terms); any other relation without a rule is unknown
 * (NAN). The view v_cost_total says the same in SQL (tests/unit/test_cost.c). */
#define COST_HOURS_PER_MONTH 730.0

enum cost_billed { COST_BILLED_SENDER, COST_BILLED_RECEIVER, COST_BILLED_BOTH };
/* "sender" / "receiver" / "both"; -1 for anything else. */
int cost_billed_parse(const char *s, enum cost_billed *b);
const char *cost_billed_name(enum cost_billed b);

struct cost_tier {
	double upto_gb; /* the month's cumulative volume this tier ends at; INFINITY for the last */
	double per_gb;  /* >= 0 */
};

struct cost_transfer_rule {
	enum cost_billed billed;
	const struct cost_tier *tiers; /* ascending upto_gb, the last unbounded */
	size_t ntiers;
	double included_gb; /* each billed server's monthly allowance (0 = none) */
};

/* Decimal GB an hour at bps. */
double cost_gb_per_hour(double bps);
/* The month's bill of one billed side for monthly_gb: the allowance first, then the tiers
 * (a tier prices the volume between the previous tier's end and its own). NAN when invalid. */
double cost_transfer_month(const struct cost_transfer_rule *r, double monthly_gb);

/* Every figure of a result at the measured rate (NAN where unknown). */
struct cost_total {
	double gb_per_hour;
	double monthly_gb;            /* the volume the tiers are read at */
	double transfer_per_hour;     /* NAN = no rule known, 0 = free */
	double total_per_hour;        /* instances + transfer */
	double mbps_per_instance_hour;
	double mbps_per_total_hour;
	double transfer_per_tb;       /* per decimal TB moved */
	double total_per_tb;
};
/* bps: the rate ranked; scale: a lab pair's (its rates are the instances' times scale: the
 * traffic priced is bps / scale, what the instances it stands for would move; 1 or <= 0 for
 * real pairs; the Mbit/s per price stay on bps, as the lab's ranking on instances does);
 * instance_per_hour: the pair's (or sender's) price, NAN = none;
 * rule: NULL = none known for the relation; relation: "same-zone", ... (NULL = unknown);
 * monthly_gb: the stated volume, <= 0 or NAN = the measured rate for 730 hours. */
void cost_total_figures(double bps, double scale, double instance_per_hour,
			const struct cost_transfer_rule *rule, const char *relation, double monthly_gb,
			struct cost_total *out);

/* A pair's relation from its ends' regions and zones ("" or NULL = unknown): cross-region
 * when both regions are known and differ, else same-zone or cross-zone when both zones are
 * known, else "unknown". A declared relation (the matrix's) wins over this. */
const char *cost_relation(const char *client_region, const char *client_zone,
			  const char *agent_region, const char *agent_zone);
/* A monthly volume as a user writes it — "50TB", "500GB", "1.5 TB", "2PB" (decimal units;
 * a bare number is GB) — into decimal GB, > 0. -1 with err naming what is wrong. */
int cost_volume_parse(const char *s, double *gb, struct ns_err *err);

/* Whether s is one of same-zone, cross-zone, cross-region, internet, unknown. */
int cost_relation_valid(const char *s);

#endif
