/* history: each case over the matrix's last runs — its median per run (rp_trend) and the
 * step changes found in that series (changepoint.h, method stated on the page). */
#ifndef RP_HISTORY_H
#define RP_HISTORY_H

#include <sqlite3.h>
#include <stddef.h>

#include "report/analyze/changepoint.h"
#include "report/load/data.h"

#define RP_HISTORY_MAX_CASES 2000   /* a bigger run shows no history table or steps */

struct rp_history_step {
	size_t key;                /* index into keys (and trend rows) */
	size_t case_idx;           /* index into the current run's cases */
	struct rp_step s;          /* s.at: index into the trend's runs */
};

struct rp_history {
	struct rp_trend t;         /* t.vals[key * t.n_runs + run] */
	const char **keys;         /* one per current case, in d->cases order */
	struct rp_history_step *steps;
	size_t n_steps;
	double alpha, min_change_pct;
};

/* n_runs: how many runs back (including this one); fewer than 2 *RP_CP_MIN_SIDE runs of the
 * matrix give a history without steps. */
int rp_history_build(sqlite3 *db, const struct rp_data *d, size_t n_runs, double alpha,
		     double min_change_pct, struct rp_history *h, struct ns_err *err);
void rp_history_free(struct rp_history *h);
/* One finding (RP_FIND_STEP) per step, then sorts the findings again. */
struct rp_findings;
int rp_history_findings(const struct rp_data *d, const struct rp_history *h,
			struct rp_findings *f);
/* "night-6 (2026-11-06)", or the date alone, for run r of the history. */
void rp_history_run_name(const struct rp_history *h, size_t r, char *b, size_t n);
/* The step of case key that starts at run, or NULL; whether case key has a step at all. */
const struct rp_history_step *rp_history_step_at(const struct rp_history *h, size_t key,
					       size_t run);
int rp_history_has_step(const struct rp_history *h, size_t key);

#endif
