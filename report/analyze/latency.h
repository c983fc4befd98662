/* latency: the report's request/response figures (v_latency) — one row per case with its
 * repeats' medians, each pair's histograms merged for the percentile chart (latency against
 * percentile, log scales, one line per pair), the p99 against the baseline's by Welch's
 * t-test on log p99 over repeats, and cost per million transactions where a price is known. */
#ifndef RP_LATENCY_H
#define RP_LATENCY_H

#include <sqlite3.h>
#include <stddef.h>

#include "report/charts/charts.h"
#include "report/load/data.h"
#include "report/model/fmt.h"
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
	double usd_per_mtx;                /* pair price per hour / (tps x 3600) x 1e6; NAN */
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

/* The run's request/response results; base (may be NULL) is the baseline run's, alpha and
 * min_change_pct as for throughput regressions. */
int rp_latency_load(sqlite3 *db, const struct rp_data *d, long long base_run_id, double alpha,
		    double min_change_pct, struct rp_latency *out, struct ns_err *err);
void rp_latency_free(struct rp_latency *l);
/* The A/B rows of ab (same run) whose cases are request/response ones. */
struct rp_ab;
int rp_latency_ab(struct rp_latency *l, const struct rp_data *d, const struct rp_ab *ab,
		  struct ns_err *err);
/* The percentile chart (latency.gp / latency.dat) into cs. Nothing without latency results. */
int rp_latency_chart(const struct rp_latency *l, const struct rp_chart_opts *o,
		     struct rp_charts *cs, struct ns_err *err);
/* The tables of report.md's latency section (its heading and method: render/content.c). */
void rp_latency_markdown(const struct rp_latency *l, struct rp_buf *b);
/* The test as the report states it. */
extern const char rp_latency_method[];

#endif
