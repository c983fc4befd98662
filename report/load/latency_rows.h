/* latency_rows: the run's request/response results as v_latency holds them — one row per case
 * with its repeats' medians and each repeat's p99, and each pair's histograms merged for the
 * percentile chart. The analysis (price, baseline test, A/B) fills the rest: analyze/latency_analysis.h. */
#ifndef RP_LATENCY_ROWS_H
#define RP_LATENCY_ROWS_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/err.h"
#include "lib/lathist.h"

#define RP_LAT_MAX_REPEATS 64

struct rp_lat_case {
	char *case_key, *endpoint, *test;
	long long request, response, streams;
	double rate;
	size_t n;                          /* ok results */
	double tps, p50_us, p99_us, p999_us; /* medians over repeats */
	long long lost;                    /* summed */
	int client_cpu;                    /* of the first result */
	int agent_cpu;                     /* ... the agent's answerer's (-1 unknown) */
	double agent_cpu_pct;              /* the agent's answerers' CPU load, median */
	double usd_per_mtx;                /* pair price per hour / (tps x 3600) x 1e6; NAN;
					      in currency (the name is the old one) */
	const char *currency;              /* of that price: the pair's (NULL = USD) */
	double p99s[RP_LAT_MAX_REPEATS];   /* each repeat's p99, for the test */
	/* against the baseline's case of the same key: change of the median p99 (%), Welch on
	 * log p99 (p = NAN when either side has fewer than 2 repeats), verdict */
	double base_p99_us, change_pct, p;
	int regressed;
};

struct rp_lat_pair {
	char *endpoint;
	struct lathist h;                  /* every ok result's histogram of the pair, merged */
};

/* A/B on latency: the request/response cases of two pairs that differ in one attribute
 * (report/ab.h's rows), p99 of A against B's by Welch's t on log p99 over repeats. */
struct rp_lat_ab {
	const char *a, *b, *attr, *va, *vb;  /* pair names, the attribute and its values */
	const struct rp_lat_case *ca, *cb;
	double p99_diff_pct;               /* (median p99 A / median p99 B - 1) x 100 */
	double p;                          /* NAN = fewer than 2 repeats a side */
};

struct rp_latency {
	struct rp_lat_case *cases;
	size_t n;
	struct rp_lat_ab *ab;
	size_t n_ab;
	struct rp_lat_pair *pairs;
	size_t n_pairs;
	size_t n_regressed;
};

/* Appends run_id's ok request/response results to l, grouped by case in order; with hist,
 * each pair's histograms merged. NS_E_INPUT for the database, NS_E_NOMEM. */
int rp_latency_read(sqlite3 *db, long long run_id, bool hist, struct rp_latency *l,
		    struct ns_err *err);
void rp_latency_free(struct rp_latency *l);

#endif
