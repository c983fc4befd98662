/* findings: what the numbers say, as sentences derived from the data — best throughput per
 * dollar, where throughput stops scaling with streams, sender/receiver CPU saturation, where
 * UDP loss came from (receiver socket buffer vs network), unstable repeats, failures, and the
 * baseline comparison. Plain text; the writers escape it. */
#ifndef RP_FINDINGS_H
#define RP_FINDINGS_H

#include <stddef.h>

#include "report/analyze/compare.h"
#include "report/analyze/cost_rank.h"
#include "report/load/data.h"

/* Thresholds, stated in the report's method section. */
#define RP_CPU_SATURATED_PCT 90.0   /* % of one core per thread */
#define RP_SCALING_GAIN_PCT 10.0    /* more streams adding less than this = stopped scaling */
#define RP_UNSTABLE_CV_PCT 10.0     /* repeats' coefficient of variation */

/* What a finding is about, in order of importance: the report lists findings in this order
 * (stable within a kind). A new kind goes where its importance puts it. */
enum rp_finding_kind {
	RP_FIND_CHANGE,         /* against the baseline: regressions, improvements */
	RP_FIND_COST_CHANGE,    /* per-dollar figure or rank moved against the baseline */
	RP_FIND_STEP,           /* a step change in a case's history (change points) */
	RP_FIND_AB,             /* pairs differing in one attribute, side by side */
	RP_FIND_COST,           /* the per-dollar ranking */
	RP_FIND_BURST,          /* a pair ranked on burst credit (report/analyze/burst.h) */
	RP_FIND_ADVERTISED,     /* a type delivering less than it advertises */
	RP_FIND_FAILURE,        /* failed or missing repeats */
	RP_FIND_SATURATION,     /* CPU saturated */
	RP_FIND_LOSS,           /* where UDP loss came from */
	RP_FIND_SCALING,        /* streams scaling */
	RP_FIND_SHARING,        /* a group case's client got less than half its fair share */
	RP_FIND_UNSTABLE,       /* repeats disagree */
	RP_FIND_PRICE,          /* prices missing */
	RP_FIND_NKINDS
};

struct rp_finding {
	enum rp_finding_kind kind;
	char *text;
};

struct rp_findings {
	struct rp_finding *items;
	size_t n, cap;
};

struct rp_news;
/* news (may be NULL) adds the per-dollar and rank changes. */
int rp_findings_build(const struct rp_data *d, const struct rp_cost_row *cost, size_t n_cost,
		      const struct rp_cmp *cmp, const struct rp_data *base,
		      const struct rp_news *news, struct rp_findings *f, struct ns_err *err);
/* Adds one sentence (copied); modules with findings of their own (A/B, change points) add
 * theirs with it, then rp_findings_sort puts the list in order of importance. */
int rp_findings_add(struct rp_findings *f, enum rp_finding_kind kind, const char *text);
void rp_findings_sort(struct rp_findings *f);
void rp_findings_free(struct rp_findings *f);
/* A short stable name of a kind ("change", "cost", ...), for report.json. */
const char *rp_finding_kind_name(enum rp_finding_kind k);

/* The opening lines of the page, news first: what changed against the baseline (when there
 * is one), the best per dollar, then what ran and the fastest case. */
struct rp_buf;
void rp_headline(const struct rp_data *d, const struct rp_cost_row *cost, size_t n_cost,
		 const struct rp_cmp *cmp, const struct rp_data *base, const struct rp_news *news,
		 struct rp_buf *b);

#endif
