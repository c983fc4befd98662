/* compare: the current run against a baseline run, case by case (matched on case_key).
 * The stated test: Welch's two-sided t-test on the per-repeat receiver goodput, at
 * significance level alpha; a case counts as a regression (or improvement) only when the
 * test is significant AND its median moved by more than min_change_pct, so that loopback
 * noise between identical runs does not flag anything. Cases with fewer than 2 successful
 * repeats on either side are shown with their change but marked untestable. */
#ifndef RP_COMPARE_H
#define RP_COMPARE_H

#include <stddef.h>

#include "report/load/data.h"
#include "report/model/stats.h"

enum rp_verdict { RP_SAME, RP_REGRESSION, RP_IMPROVEMENT, RP_UNTESTABLE, RP_NEW };

struct rp_cmp_row {
	size_t cur;                /* index into the current run's cases */
	long base;                 /* index into the baseline's cases; -1 = new case */
	double base_med, cur_med;  /* receiver goodput, bits/s */
	double change_pct;         /* (cur - base) / base * 100 */
	struct rp_welch test;      /* valid when verdict is not UNTESTABLE / NEW */
	enum rp_verdict verdict;
};

struct rp_cmp {
	double alpha, min_change_pct;
	struct rp_cmp_row *rows;   /* one per current case, in the current run's order */
	size_t n;
	size_t n_regressions, n_improvements, n_untestable, n_new, n_gone;
	double worst_pct;          /* most negative change among regressions (0 if none) */
};

/* The --fail-on-regression gate at fail_pct %. Each current case matched in the baseline
 * trips it when:
 *   tested  the t-test applies and the median fell by more than fail_pct at p < alpha;
 *   median  fewer than 2 successful repeats on a side but at least 1 on each (e.g.
 *           repeats = 1): the median alone fell by more than fail_pct, without a test;
 *   lost    the baseline had successful repeats and the current run has none;
 * and every baseline case missing from the current run (gone) trips it. ungated counts the
 * cases that cannot be gated: no successful repeat in the baseline either. */
/* The rule above in one sentence, for the report (HTML and Markdown). */
#define RP_GATE_RULE "With --fail-on-regression PCT, netsweep report exits 1 when a case " \
	"fell by more than PCT % with that significance; a case with fewer than 2 successful " \
	"repeats on a side (but at least 1 on each) is gated on its median change alone, " \
	"without a test; a case with successful repeats in the baseline and none now, and a " \
	"baseline case missing from this run, also make it exit 1."

/* limited: cases left out because a repeat of theirs, in either run, was sender-limited
 * (report/limits.h): their figure is the sender's, so a fall there is not the path's. */
struct rp_gate {
	size_t tested, median, lost, gone, ungated, limited;
};

void rp_cmp_gate(const struct rp_cmp *cmp, const struct rp_data *cur,
		 const struct rp_data *base, double fail_pct, struct rp_gate *g);
/* The number of causes that trip the gate. */
size_t rp_gate_tripped(const struct rp_gate *g);

int rp_compare(const struct rp_data *cur, const struct rp_data *base, double alpha,
	       double min_change_pct, struct rp_cmp *out, struct ns_err *err);
void rp_cmp_free(struct rp_cmp *c);
const char *rp_verdict_name(enum rp_verdict v);

#endif
