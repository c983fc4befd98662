/* cost_rank: throughput per hourly dollar. One row per endpoint pair of a run: its best case (the
 * highest median receiver goodput), Mbit/s per $/hour, $ per Gbit/s-hour, and a rank by
 * Mbit/s per $/hour. Endpoints without a known price are kept, marked missing, unranked. */
#ifndef RP_COST_H
#define RP_COST_H

#include <stdbool.h>
#include <stddef.h>

#include "report/load/data.h"

struct rp_cost_row {
	size_t ep;                 /* index into rp_data.eps */
	long best_case;            /* the ranked case: index into rp_data.cases; -1 = none */
	double mbps;               /* median receiver goodput of the ranked case; its sustained
	                              rate when it was shaped (report/phases.h) */
	bool sustained;            /* mbps is the sustained rate after a burst */
	bool sender_limited;       /* the ranked case's sender fell short of its rate in a repeat:
	                              mbps is the sender's figure, not the pair's (report/limits.h) */
	double usd_per_hour;       /* in currency (the name is the old one); NAN = price missing */
	const char *currency;      /* the pair's price's; NULL = USD */
	double spot_mbps_per_hour; /* on its spot price beside the ranked one; NAN = none */
	double od_mbps_per_hour;   /* on its on-demand price; NAN = none */
	double mbps_per_usd_hour;  /* NAN when price or throughput missing */
	double usd_per_gbps_hour;
	int rank;                  /* 1 = best; 0 = unranked (no price or no result) */
	/* with transfer (lib/cost.h cost_total_figures at mbps, in currency; NAN = unknown) */
	double gb_per_hour, monthly_gb, transfer_per_hour, total_per_hour, mbps_per_total_hour,
	       transfer_per_tb, total_per_tb;
	int total_rank;            /* by mbps_per_total_hour, each currency apart; 0 = unranked */
	/* report/analyze/burst.h: the pair's type is an "up to" type (burst_window), its window
	 * in seconds (NAN: not measured, the documented range), and whether the ranked case
	 * ran inside it on credit */
	bool burst_window, window_measured, inside_burst;
	double window_s;
};

/* Ranks rows by Mbit/s per total (instances + transfer) hourly price into total_rank, each
 * currency apart, without reordering them. */
void rp_cost_rank_total(struct rp_cost_row *rows, size_t n);
/* The sentence when the two rankings disagree on a currency's first ("cross-zone c5n.large
 * ranks first on instances but third with transfer at 0.02 $/GB; same-zone m5.large ranks
 * first with it."), into buf; 0 when they agree or transfer is unknown. */
int rp_cost_disagree(const struct rp_data *d, const struct rp_cost_row *rows, size_t n,
		     char *buf, size_t len);

/* The ranking rule, one definition for the page, report.json, ranking.csv and the store's
 * v_cost_ranking view: each pair is ranked on its highest-median case among the cases that
 * match every KEY=VALUE term of the rule (all its cases for "best"). KEY is a column of the
 * store's cases table (streams, threads, length, rate_bps, fq_rate_bps, protocol, direction,
 * affinity, window, mss, nodelay, congestion, gso; '-' reads as '_'), VALUE as the column
 * holds it (bits/s for rates, 1/0 for flags). */
#define RP_RANK_BEST_RULE "best"
#define RP_RANK_MAX_TERMS 8
struct rp_rank_rule {
	size_t n;
	char key[RP_RANK_MAX_TERMS][24], value[RP_RANK_MAX_TERMS][64];
};
/* Parses "best" or "k=v[,k=v]"; -1 with err naming the bad term (unknown key, no '='). */
int rp_rank_parse(const char *s, struct rp_rank_rule *r, struct ns_err *err);
int rp_rank_matches(const struct rp_rank_rule *r, const struct rp_case *c);

/* Builds the rows (one per endpoint, in rank order) into *rows (malloc'd); rule NULL = best. */
int rp_cost_build(const struct rp_data *d, const struct rp_rank_rule *rule,
		  struct rp_cost_row **rows, size_t *n, struct ns_err *err);
/* Sorts rows by Mbit/s per $/hour, best first, unranked last, and assigns competition ranks
 * (1, 2, 2, 4): values within one part in 10^9 tie, so equal ratios printed alike share a
 * rank. Stable: ties keep their input order. Rows priced in different currencies are never
 * compared: each currency is a ranking of its own (US dollars first), ranked from 1. */
void rp_cost_rank(struct rp_cost_row *rows, size_t n);

#endif
