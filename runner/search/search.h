/* search: the highest offered load whose trials meet a loss goal — RFC 2544 throughput (NDR,
 * zero loss) and partial drop rates (PDR) — after RFC 9971 (MLRsearch): a goal is a loss ratio
 * with an exceed ratio, bounds are narrowed to a relative goal width with short trials, then
 * confirmed with trials of the final duration up to a duration sum; a bound lost on
 * confirmation is searched for outward. Pure logic: the caller's trial function measures,
 * so the search is tested against simulated paths. */
#ifndef NS_SEARCH_H
#define NS_SEARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"

#define SEARCH_MAX_GOALS 8
/* Far above any bound search_bounds() states for sane settings; a guard for memory only. */
#define SEARCH_MAX_TRIALS 10000
/* A trial whose sender offered less than its load by more than the goal width measured the
 * sender, not the path: it is run again up to this many times (a busy host's stall passes in
 * a trial or two) before the load counts as one the sender cannot reach. */
#define SEARCH_SHORT_REPEATS 2

struct search_goal {
	double loss_ratio;    /* 0 = NDR; 0.005 = PDR at 0.5 % */
	double exceed_ratio;  /* share of a load's duration sum whose trials may exceed the
	                         loss ratio and the load still count as meeting the goal */
};

struct search_cfg {
	struct search_goal goals[SEARCH_MAX_GOALS];
	uint32_t n_goals;
	double min_load;            /* offered packets/s; below it a goal counts as not met */
	double max_load;            /* offered packets/s; 0 = whatever the sender reaches unpaced */
	double goal_width;          /* relative: done when (upper - lower) / upper <= this */
	double initial_duration_s;  /* trials that narrow the bounds */
	double final_duration_s;    /* trials that confirm them */
	double duration_sum_s;      /* confirming trials at one load add up to this at most */
	double trial_overhead_s;    /* set-up and drain per trial, for the stated time bound */
	uint64_t confirm_packets;   /* a lower bound's confirming trials carry at least this many
	                               datagrams (more trials, up to twice the duration sum), so
	                               that a small random loss cannot pass unseen: zero loss over
	                               N datagrams hides a loss ratio of 1/N at most by chance */
};

enum search_phase { SEARCH_PHASE_MAX = 0, SEARCH_PHASE_INITIAL = 1, SEARCH_PHASE_FINAL = 2 };

struct search_trial {
	double load;                /* offered packets/s; 0 for the unpaced first trial */
	double duration_s;
	uint64_t intended;          /* datagrams the load asks for in duration_s (0 unpaced) */
	uint64_t sent, received;    /* datagrams */
	double loss_ratio;          /* what the path lost: (sent - received) / sent */
	double forwarding_pps;      /* received / duration */
	double offered_pps;         /* sent / duration: what the sender really offered */
	double shortfall_ratio;     /* (intended - sent) / intended (0 unpaced or when reached) */
	bool sender_short;          /* shortfall_ratio above the goal width: not a trial of load */
	char cause[16];             /* the probe's likely cause of a shortfall (probe_limit.cause:
	                               sndbuf_full, sender_cpu, pacer_late, steal, ...); "" none */
	enum search_phase phase;
	int goal;                   /* goal index that asked for it; -1 for the first trial */
};

/* Measures one trial of duration_s at load (0 = unpaced): fills sent and received (the rest
 * is derived). */
typedef int (*search_trial_fn)(void *ctx, double load, double duration_s, struct search_trial *t,
			       struct ns_err *err);

struct search_goal_result {
	struct search_goal goal;
	bool met;                   /* some load met the goal: lower is the answer */
	double lower;               /* highest load that met it (0 when none) */
	double upper;               /* lowest load that did not (0 when max_load met it) */
	double conditional_pps;     /* forwarded packets/s over the lower bound's final trials */
	bool converged;             /* (upper - lower) / upper <= goal width, or max_load met */
	uint32_t trials;            /* trials run for this goal (shared ones counted once) */
	/* The lowest load that did not meet the goal is one the sender could not offer: the
	 * bracket's top is the generator's, not the path's. */
	bool sender_limited;
	double unreached_pps;       /* with sender_limited: the load it could not offer (upper, or
	                               above a top too thin to confirm; 0 = its unpaced rate) */
	double sender_max_pps;      /* with sender_limited: the most it offered when asked for it */
	char sender_cause[16];      /* with sender_limited: the cause its short trials there gave */
	double at_least_pps;        /* with sender_limited: the goal holds at least up to here
	                               (lower when met; else the most the short trials carried
	                               within the goal; 0 = nothing to claim) */
	char note[320];             /* why not met or not converged; "" otherwise */
};

struct search_result {
	double max_load;            /* the max load used (measured when cfg.max_load was 0) */
	double min_load;            /* the min load used (max_load / 1000 when cfg.min_load was 0) */
	double mrr_pps;             /* maximum receive rate: forwarded in the first trial */
	struct search_trial *trials;
	uint32_t n_trials;
	struct search_goal_result goals[SEARCH_MAX_GOALS];
	uint32_t n_goals;
	double trial_seconds;       /* sum of trial durations */
};

void search_cfg_init(struct search_cfg *c);
/* Fills a measured trial's derived fields (intended, loss_ratio, offered_pps, shortfall) from
 * load, duration_s, sent and received. */
void search_trial_derive(struct search_trial *t, double goal_width);
/* Ranges and conflicts; the message names the setting. */
int search_cfg_check(const struct search_cfg *c, struct ns_err *err);
/* Worst case, stated before a search: at most *max_trials trials and *max_seconds seconds
 * (trial durations plus trial_overhead_s each). search_run never exceeds them. max_ratio is
 * max_load / min_load (pass the expected one when max_load is measured). */
void search_bounds(const struct search_cfg *c, double max_ratio, uint32_t *max_trials,
		   double *max_seconds);
/* Runs the search. -1 only when a trial fails (err says why; r keeps the trials so far). */
int search_run(const struct search_cfg *c, search_trial_fn fn, void *ctx,
	       struct search_result *r, struct ns_err *err);
void search_result_free(struct search_result *r);

/* "0", "0.5%", "0.005" -> ratio; a list "0,0.5%" fills goals (exceed ratio e for each). */
int search_parse_goals(const char *s, double exceed, struct search_cfg *c, struct ns_err *err);

#endif
