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

#endif
