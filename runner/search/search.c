/* search: see search.h. One goal at a time, two phases (short trials narrow, final trials
 * confirm); trials are kept and reused: a load measured for one goal is classified for the
 * next from the same trials. Bisection is geometric, so each step halves the bracket's log
 * width and the step counts of search_bounds() are true maxima. */
#include "search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"

/* The first outward step, relative to the bound it leaves: twice the goal width, so that a
 * bound lost by a hair is found again in one step. */
#define SEARCH_STEP_OF_WIDTH 2.0
#define SEARCH_MIN_STEP 1e-3
/* Datagrams a trial may miss of its load and still be a trial of it, whatever the width: a
 * pacer rounds its first and last batch. */
#define SEARCH_SHORT_SLACK 1
/* Floating tolerance when durations are summed. */
#define SEARCH_EPS 1e-9

/* CLS_UNREACHABLE: the sender fell short of the load in every try; it bounds the bracket
 * from above like CLS_UPPER, but says nothing of the path. */
enum cls { CLS_LOWER, CLS_UPPER, CLS_UNREACHABLE, CLS_CAPPED, CLS_ERROR };

struct search {
	const struct search_cfg *c;
	search_trial_fn fn;
	void *ctx;
	struct search_result *r;
	struct ns_err *err;
	uint32_t cap_trials;     /* the stated bound */
	uint32_t loads_cap;      /* loads per goal and phase */
	uint32_t loads;          /* loads classified in the current goal and phase */
	int goal;
	double thin_load;        /* highest load whose trials met the goal without carrying
	                            confirm_packets (0 = none), for the goal's note */
	bool hi_unreachable;     /* the current upper bound is a load the sender could not offer */
	double unreach_load;     /* lowest load of the goal the sender could not offer (0 = none) */
};

void search_cfg_init(struct search_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->goals[0] = (struct search_goal){.loss_ratio = 0.0, .exceed_ratio = 0.5};
	c->goals[1] = (struct search_goal){.loss_ratio = 0.005, .exceed_ratio = 0.5};
	c->n_goals = 2;
	c->min_load = 0;            /* 0 = max_load / 1000 */
	c->max_load = 0;
	c->goal_width = 0.01;
	c->initial_duration_s = 1.0;
	c->final_duration_s = 5.0;
	c->duration_sum_s = 5.0;
	c->trial_overhead_s = 3.0;
	c->confirm_packets = 10000;
}

int search_cfg_check(const struct search_cfg *c, struct ns_err *err)
{
	if (c->n_goals < 1 || c->n_goals > SEARCH_MAX_GOALS)
		return ns_err_code(err, NS_E_USAGE, "goals: 1 to %d loss goals", SEARCH_MAX_GOALS);
	for (uint32_t i = 0; i < c->n_goals; i++) {
		const struct search_goal *g = &c->goals[i];
		if (!(g->loss_ratio >= 0 && g->loss_ratio < 1))
			return ns_err_code(err, NS_E_USAGE, "goal loss ratio %g: from 0 to below 1",
					   g->loss_ratio);
		if (!(g->exceed_ratio >= 0 && g->exceed_ratio < 1))
			return ns_err_code(err, NS_E_USAGE, "exceed ratio %g: from 0 to below 1",
					   g->exceed_ratio);
	}
	if (!(c->goal_width >= 0.0001 && c->goal_width <= 0.5))
		return ns_err_code(err, NS_E_USAGE, "goal width %g: from 0.0001 (0.01 %%) to 0.5",
				   c->goal_width);
	if (!(c->initial_duration_s >= 0.1 && c->initial_duration_s <= 3600))
		return ns_err_code(err, NS_E_USAGE, "initial trial duration %g s: 0.1 to 3600",
				   c->initial_duration_s);
	if (!(c->final_duration_s >= c->initial_duration_s && c->final_duration_s <= 3600))
		return ns_err_code(err, NS_E_USAGE,
				   "final trial duration %g s: from the initial duration to 3600",
				   c->final_duration_s);
	if (!(c->duration_sum_s >= c->final_duration_s && c->duration_sum_s <= 100 * c->final_duration_s))
		return ns_err_code(err, NS_E_USAGE,
				   "duration sum %g s: from one to 100 final trials", c->duration_sum_s);
	if (!(c->min_load >= 0) || !(c->max_load >= 0) ||
	    (c->max_load > 0 && c->min_load >= c->max_load))
		return ns_err_code(err, NS_E_USAGE, "rates: minimum %g must be below maximum %g",
				   c->min_load, c->max_load);
	if (c->confirm_packets > 1000000000ull)
		return ns_err_code(err, NS_E_USAGE, "confirm packets %llu: at most 10^9",
				   (unsigned long long)c->confirm_packets);
	if (!(c->trial_overhead_s >= 0 && c->trial_overhead_s <= 600))
		return ns_err_code(err, NS_E_USAGE, "trial overhead %g s: 0 to 600",
				   c->trial_overhead_s);
	return 0;
}

static double step0(const struct search_cfg *c)
{
	double s = SEARCH_STEP_OF_WIDTH * c->goal_width;
	return s < SEARCH_MIN_STEP ? SEARCH_MIN_STEP : s;
}

/* Loads one goal may classify in one phase: the one or two it starts from, the outward
 * steps (step doubling from step0 until it spans the whole range) and the bisections
 * (log width halving from the whole range down to the goal width). */
static uint32_t loads_per_phase(const struct search_cfg *c, double ratio)
{
	if (ratio < 1.0 + SEARCH_EPS)
		ratio = 1.0 + SEARCH_EPS;
	double out = ceil(log2(fmax(ratio, 1.0) / step0(c))) + 2;
	double target = -log(1.0 - c->goal_width);
	double bis = ceil(log2(fmax(log(ratio), target) / target)) + 1;
	return 2 + (uint32_t)fmax(out, 1) + (uint32_t)fmax(bis, 1);
}

/* Confirming trials at one load stop at twice the duration sum: the exceed ratio decides
 * within one sum; the second is for carrying confirm_packets at low loads. */
#define SEARCH_SUM_CAP 2.0

static uint32_t finals_per_load(const struct search_cfg *c)
{
	return (uint32_t)ceil(SEARCH_SUM_CAP * c->duration_sum_s / c->final_duration_s - SEARCH_EPS);
}

static double load_ratio(const struct search_cfg *c, double max_load)
{
	if (max_load > 0 && c->min_load > 0)
		return max_load / c->min_load;
	return 1000.0; /* min_load defaults to max_load / 1000 */
}

void search_bounds(const struct search_cfg *c, double max_ratio, uint32_t *max_trials,
		   double *max_seconds)
{
	uint32_t loads = loads_per_phase(c, max_ratio);
	uint32_t finals = finals_per_load(c);
	/* every paced trial may be a short one, run again SEARCH_SHORT_REPEATS times */
	uint32_t tries = 1 + SEARCH_SHORT_REPEATS;
	uint64_t trials = 1 + (uint64_t)c->n_goals * loads * (1 + finals) * tries;
	double secs = c->initial_duration_s + c->trial_overhead_s +
		      c->n_goals * loads * tries * (c->initial_duration_s + c->trial_overhead_s) +
		      c->n_goals * loads * finals * tries * (c->final_duration_s + c->trial_overhead_s);
	*max_trials = trials > SEARCH_MAX_TRIALS ? SEARCH_MAX_TRIALS : (uint32_t)trials;
	*max_seconds = secs;
}

/* Runs one trial and keeps it. 1 = the stated bound is reached, -1 = the trial failed. */
static int run_trial(struct search *s, double load, double dur, enum search_phase ph,
		     struct search_trial **out)
{
	struct search_result *r = s->r;
	if (r->n_trials >= s->cap_trials)
		return 1;
	if (r->n_trials % 64 == 0) {
		void *p = realloc(r->trials, (r->n_trials + 64) * sizeof(*r->trials));
		if (!p)
			return ns_err_code(s->err, NS_E_NOMEM, "search: out of memory for trials");
		r->trials = p;
	}
	struct search_trial *t = &r->trials[r->n_trials];
	memset(t, 0, sizeof(*t));
	t->load = load;
	t->duration_s = dur;
	t->phase = ph;
	t->goal = s->goal;
	if (s->fn(s->ctx, load, dur, t, s->err) < 0)
		return -1;
	t->load = load;
	t->duration_s = dur;
	t->phase = ph;
	t->goal = s->goal;
	search_trial_derive(t, s->c->goal_width);
	r->n_trials++;
	r->trial_seconds += t->duration_s;
	r->goals[s->goal < 0 ? 0 : s->goal].trials++;
	*out = t;
	return 0;
}

void search_trial_derive(struct search_trial *t, double goal_width)
{
	double dur = t->duration_s;
	t->intended = t->load > 0 ? (uint64_t)floor(t->load * dur) : 0;
	if (t->received > t->sent)
		t->received = t->sent; /* duplicates are not forwarding */
	t->loss_ratio = t->sent ? (double)(t->sent - t->received) / (double)t->sent : 1.0;
	t->forwarding_pps = (double)t->received / dur;
	t->offered_pps = (double)t->sent / dur;
	/* by datagram counts, not the sender's clock (it stops a few ms past the duration,
	 * which is percents of a short trial); one datagram missing is the pacer's rounding */
	uint64_t missing = t->intended > t->sent ? t->intended - t->sent : 0;
	t->shortfall_ratio = t->intended ? (double)missing / (double)t->intended : 0;
	t->sender_short = t->load > 0 && missing > SEARCH_SHORT_SLACK &&
			  t->shortfall_ratio > goal_width + SEARCH_EPS;
}

static bool meets(const struct search_goal *g, const struct search_trial *t)
{
	return t->loss_ratio <= g->loss_ratio + SEARCH_EPS;
}

/* One trial of the load, run again while the sender falls short of it (at most
 * SEARCH_SHORT_REPEATS times more, with `shorts` earlier short tries at this load and phase
 * counted against that). 2 = every try was short (*out is the last), else as run_trial. */
static int measure(struct search *s, double load, double dur, enum search_phase ph,
		   uint32_t shorts, struct search_trial **out)
{
	for (uint32_t i = shorts; i <= SEARCH_SHORT_REPEATS; i++) {
		int rc = run_trial(s, load, dur, ph, out);
		if (rc)
			return rc;
		if (!(*out)->sender_short)
			return 0;
	}
	return 2;
}

/* Whether load meets goal g with trials of phase ph, running trials as needed. An initial
 * classification takes one trial (any earlier trial at that load of at least the initial
 * duration counts); a final one adds final trials until the exceed ratio decides. */
static enum cls classify_load(struct search *s, double load, enum search_phase ph);

static enum cls classify(struct search *s, double load, enum search_phase ph)
{
	enum cls k = classify_load(s, load, ph);
	if (k == CLS_UNREACHABLE && (s->unreach_load == 0 || load < s->unreach_load))
		s->unreach_load = load;
	return k;
}

static enum cls classify_load(struct search *s, double load, enum search_phase ph)
{
	const struct search_cfg *c = s->c;
	const struct search_goal *g = &c->goals[s->goal];
	if (s->loads >= s->loads_cap)
		return CLS_CAPPED;
	s->loads++;
	struct search_trial *t;
	int rc;
	uint32_t shorts = 0;
	if (ph == SEARCH_PHASE_INITIAL) {
		for (uint32_t i = 0; i < s->r->n_trials; i++) {
			t = &s->r->trials[i];
			if (t->load != load || t->phase < SEARCH_PHASE_INITIAL)
				continue;
			if (!t->sender_short)
				return meets(g, t) ? CLS_LOWER : CLS_UPPER;
			shorts++;
		}
		if (shorts > SEARCH_SHORT_REPEATS)
			return CLS_UNREACHABLE;
		rc = measure(s, load, c->initial_duration_s, ph, shorts, &t);
		if (rc == 2)
			return CLS_UNREACHABLE;
		if (rc)
			return rc > 0 ? CLS_CAPPED : CLS_ERROR;
		return meets(g, t) ? CLS_LOWER : CLS_UPPER;
	}
	double sum = c->duration_sum_s, good = 0, bad = 0;
	uint64_t good_pk = 0;
	uint32_t n = 0;
	for (uint32_t i = 0; i < s->r->n_trials; i++) {
		t = &s->r->trials[i];
		if (t->load != load || t->phase != SEARCH_PHASE_FINAL)
			continue;
		if (t->sender_short) {
			shorts++;
			continue;
		}
		n++;
		shorts = 0; /* the tries of one confirming trial are consecutive */
		*(meets(g, t) ? &good : &bad) += t->duration_s;
		if (meets(g, t))
			good_pk += t->sent;
	}
	if (shorts > SEARCH_SHORT_REPEATS)
		return CLS_UNREACHABLE;
	for (;;) {
		if (bad > g->exceed_ratio * sum + SEARCH_EPS)
			return CLS_UPPER;
		if (good >= (1.0 - g->exceed_ratio) * sum - SEARCH_EPS && good_pk >= c->confirm_packets)
			return CLS_LOWER;
		if (n >= finals_per_load(c)) {
			/* too few datagrams at this load to confirm it: not a lower bound */
			if (s->thin_load == 0 || load > s->thin_load)
				s->thin_load = load;
			return CLS_UPPER;
		}
		rc = measure(s, load, c->final_duration_s, ph, shorts, &t);
		shorts = 0;
		if (rc == 2)
			return CLS_UNREACHABLE;
		if (rc)
			return rc > 0 ? CLS_CAPPED : CLS_ERROR;
		n++;
		*(meets(g, t) ? &good : &bad) += t->duration_s;
		if (meets(g, t))
			good_pk += t->sent;
	}
}

/* Narrows [lo, hi] (0 = unknown) for one phase: checks the bounds it was handed, lower load
 * first, searches outward for a missing one, then bisects to the goal width.
 * Returns 0, 1 when a cap stopped it, -1 on a failed trial. */
static int narrow(struct search *s, enum search_phase ph, double start, double *lo, double *hi)
{
	const double min = s->c->min_load, max = s->r->max_load;
	enum cls k;
	s->loads = 0;
#define CLASSIFY(load)                                      \
	do {                                                \
		k = classify(s, (load), ph);                \
		if (k == CLS_ERROR)                         \
			return -1;                          \
		if (k == CLS_CAPPED)                        \
			return 1;                           \
	} while (0)

/* A load that did not meet the goal, or that the sender could not offer, bounds from above. */
#define PLACE(load)                                             \
	do {                                                    \
		if (k == CLS_LOWER) {                           \
			*lo = (load);                           \
		} else {                                        \
			*hi = (load);                           \
			s->hi_unreachable = k == CLS_UNREACHABLE; \
		}                                               \
	} while (0)

	if (*lo > 0) {
		CLASSIFY(*lo);
		if (k != CLS_LOWER) {
			PLACE(*lo);
			*lo = 0;
		} else if (*hi > 0) {
			CLASSIFY(*hi);
			if (k == CLS_LOWER) {
				*lo = *hi;
				*hi = 0;
			} else {
				PLACE(*hi);
			}
		}
	} else if (*hi > 0) {
		CLASSIFY(*hi);
		if (k == CLS_LOWER) {
			*lo = *hi;
			*hi = 0;
		} else {
			PLACE(*hi);
		}
	} else {
		CLASSIFY(start);
		PLACE(start);
	}

	double step = step0(s->c);
	while (*lo > 0 && *hi == 0 && *lo < max) {
		double cand = fmin(max, *lo * (1.0 + step));
		CLASSIFY(cand);
		PLACE(cand);
		step *= 2;
	}
	while (*hi > 0 && *lo == 0 && *hi > min) {
		double cand = step >= 1.0 ? min : fmax(min, *hi * (1.0 - step));
		CLASSIFY(cand);
		PLACE(cand);
		step *= 2;
	}
	while (*lo > 0 && *hi > 0 && (*hi - *lo) / *hi > s->c->goal_width) {
		double mid = sqrt(*lo * *hi);
		CLASSIFY(mid);
		PLACE(mid);
	}
#undef PLACE
#undef CLASSIFY
	return 0;
}

static void conditional(struct search *s, struct search_goal_result *gr)
{
	double fwd = 0, dur = 0;
	for (uint32_t i = 0; i < s->r->n_trials; i++) {
		const struct search_trial *t = &s->r->trials[i];
		if (t->load == gr->lower && t->phase == SEARCH_PHASE_FINAL && !t->sender_short) {
			fwd += (double)t->received;
			dur += t->duration_s;
		}
	}
	gr->conditional_pps = dur > 0 ? fwd / dur : 0;
}

/* The upper bound is a load the sender could not offer: the most it did offer there, and
 * what the goal is known to hold up to. */
static void sender_limit(struct search *s, struct search_goal_result *gr, double unreached)
{
	const struct search_goal *g = &s->c->goals[s->goal];
	double most = 0, most_met = 0;
	for (uint32_t i = 0; i < s->r->n_trials; i++) {
		const struct search_trial *t = &s->r->trials[i];
		if (t->load != unreached || t->phase < SEARCH_PHASE_INITIAL)
			continue;
		most = fmax(most, t->offered_pps);
		if (t->sender_short && t->cause[0])
			snprintf(gr->sender_cause, sizeof(gr->sender_cause), "%s", t->cause);
		if (meets(g, t))
			most_met = fmax(most_met, t->offered_pps);
	}
	gr->sender_limited = true;
	gr->sender_max_pps = most;
	gr->unreached_pps = unreached;
	gr->at_least_pps = gr->met ? gr->lower : most_met;
}

static void goal_label(const struct search_goal *g, char *out, size_t n)
{
	if (g->loss_ratio == 0)
		snprintf(out, n, "NDR");
	else
		snprintf(out, n, "PDR %g %%", g->loss_ratio * 100);
}

/* Why the sender fell short, in words, from the probe's cause (runner/session/limit.h). */
static const char *cause_words(const char *cause)
{
	static const struct {
		const char *cause, *words;
	} w[] = {
		{"sndbuf_full", "its socket buffer full: the local interface pushing back"},
		{"sender_cpu", "its thread at the limit of its core"},
		{"pacer_late", "its pacer woke late: a busy host"},
		{"steal", "CPU stolen by the hypervisor"},
		{"agent_max_rate", "the agent's --max-rate"},
	};
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (!strcmp(cause, w[i].cause))
			return w[i].words;
	return "its own CPU, or the local interface pushing back";
}

static void sender_note(const struct search *s, struct search_goal_result *gr)
{
	char name[32];
	goal_label(&gr->goal, name, sizeof(name));
	const char *why = cause_words(gr->sender_cause);
	if (s->thin_load > 0 && !gr->met)
		snprintf(gr->note, sizeof(gr->note),
			 "the sender could not offer more than %.0f packets/s here (asked for %.0f; %s), "
			 "and the loads it could offer met the goal with too few datagrams to confirm it "
			 "(%llu): %s is at least %.0f packets/s by those trials", gr->sender_max_pps,
			 gr->unreached_pps, why, (unsigned long long)s->c->confirm_packets, name,
			 gr->at_least_pps);
	else if (gr->upper == 0)
		snprintf(gr->note, sizeof(gr->note),
			 "the sender could not offer more than %.0f packets/s here (what it reached "
			 "unpaced: its own limit or the path's back-pressure), and that met the %s goal: "
			 "%s is at least %.0f packets/s", gr->sender_max_pps, name, name, gr->at_least_pps);
	else if (gr->at_least_pps > 0)
		snprintf(gr->note, sizeof(gr->note),
			 "the sender could not offer more than %.0f packets/s here (asked for %.0f; %s): "
			 "%s is at least %.0f packets/s%s", gr->sender_max_pps, gr->unreached_pps, why, name,
			 gr->at_least_pps,
			 gr->met ? "" : ", the rate its short trials carried within the goal");
	else
		snprintf(gr->note, sizeof(gr->note),
			 "the sender could not offer more than %.0f packets/s here (asked for %.0f, "
			 "down to the minimum of %.0f; %s), and what it offered lost more than the %s goal",
			 gr->sender_max_pps, gr->unreached_pps, s->c->min_load, why, name);
}

static int search_goal(struct search *s, int g)
{
	struct search_goal_result *gr = &s->r->goals[g];
	const double min = s->c->min_load, max = s->r->max_load;
	double lo = 0, hi = 0;
	double start = fmin(max, fmax(min, s->r->mrr_pps));
	s->goal = g;
	s->thin_load = 0;
	s->hi_unreachable = false;
	s->unreach_load = 0;
	gr->goal = s->c->goals[g];
	int rc = narrow(s, SEARCH_PHASE_INITIAL, start, &lo, &hi);
	if (rc == 0)
		rc = narrow(s, SEARCH_PHASE_FINAL, start, &lo, &hi);
	if (rc < 0)
		return -1;
	gr->met = lo > 0;
	gr->lower = lo;
	gr->upper = hi;
	gr->converged = rc == 0 && (lo >= max || (lo > 0 && hi > 0 && (hi - lo) / hi <= s->c->goal_width) ||
				    (lo == 0 && hi <= min));
	if (hi > 0 && s->hi_unreachable) {
		sender_limit(s, gr, hi);
	} else if (!gr->met && s->thin_load > 0 && s->unreach_load > 0) {
		/* what the sender could offer was too little to confirm: its limit, not the path's */
		sender_limit(s, gr, s->unreach_load);
		gr->at_least_pps = s->thin_load;
	} else if (gr->met && lo >= max && s->c->max_load == 0) {
		/* the top is the sender's unpaced rate: as far as it could go, not the path's limit */
		gr->sender_limited = true;
		gr->sender_max_pps = max;
		gr->at_least_pps = lo;
	}
	char goal[32];
	snprintf(goal, sizeof(goal), "%g %%", gr->goal.loss_ratio * 100);
	if (rc > 0)
		snprintf(gr->note, sizeof(gr->note),
			 "stopped at the stated bound of %u trials before the goal width was reached",
			 s->cap_trials);
	else if (gr->sender_limited)
		sender_note(s, gr);
	else if (!gr->met && s->thin_load > 0)
		snprintf(gr->note, sizeof(gr->note),
			 "no load met the %s loss goal over at least %llu datagrams: loss was seen above "
			 "%.0f packets/s, and from there down the confirming trials carried too few "
			 "datagrams to rule out a small loss", goal,
			 (unsigned long long)s->c->confirm_packets, s->thin_load);
	else if (!gr->met)
		snprintf(gr->note, sizeof(gr->note),
			 "no load met the %s loss goal: loss was above it down to the minimum of %.0f "
			 "packets/s", goal, min);
	else if (lo >= max)
		snprintf(gr->note, sizeof(gr->note),
			 "the maximum load of %.0f packets/s met the %s loss goal: the path may carry more",
			 max, goal);
	if (gr->met)
		conditional(s, gr);
	return 0;
}

int search_run(const struct search_cfg *cfg, search_trial_fn fn, void *ctx,
	       struct search_result *r, struct ns_err *err)
{
	memset(r, 0, sizeof(*r));
	if (search_cfg_check(cfg, err) < 0)
		return -1;
	struct search_cfg c = *cfg;
	struct search s = {.c = &c, .fn = fn, .ctx = ctx, .r = r, .err = err, .goal = -1};
	uint32_t max_trials;
	double max_s;
	search_bounds(&c, load_ratio(&c, c.max_load), &max_trials, &max_s);
	s.cap_trials = max_trials;
	s.loads_cap = loads_per_phase(&c, load_ratio(&c, c.max_load));
	r->n_goals = c.n_goals;

	/* The first trial at the maximum load (unpaced when it is not given) measures the
	 * maximum receive rate that every goal starts from. */
	struct search_trial *t;
	int rc = run_trial(&s, c.max_load, c.initial_duration_s, SEARCH_PHASE_MAX, &t);
	if (rc)
		return rc < 0 ? -1 : ns_err_set(err, "search: no trial allowed");
	r->mrr_pps = t->forwarding_pps;
	r->max_load = c.max_load > 0 ? c.max_load : t->offered_pps;
	if (r->max_load <= 0)
		return ns_err_code(err, NS_E_FAIL, "search: the first trial sent nothing");
	if (c.min_load <= 0)
		c.min_load = r->max_load / 1000.0;
	if (c.min_load >= r->max_load)
		return ns_err_code(err, NS_E_USAGE,
				   "search: minimum rate %.0f packets/s is not below the maximum %.0f",
				   c.min_load, r->max_load);
	r->min_load = c.min_load;
	for (uint32_t g = 0; g < c.n_goals; g++)
		if (search_goal(&s, (int)g) < 0)
			return -1;
	return 0;
}

void search_result_free(struct search_result *r)
{
	free(r->trials);
	r->trials = NULL;
	r->n_trials = 0;
}

int search_parse_goals(const char *s, double exceed, struct search_cfg *c, struct ns_err *err)
{
	char buf[256];
	if (strlen(s) >= sizeof(buf))
		return ns_err_code(err, NS_E_USAGE, "goals '%.40s...': too long", s);
	snprintf(buf, sizeof(buf), "%s", s);
	uint32_t n = 0;
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == SEARCH_MAX_GOALS)
			return ns_err_code(err, NS_E_USAGE, "goals '%s': at most %d", s,
					   SEARCH_MAX_GOALS);
		size_t len = strlen(tok);
		bool pct = len > 0 && tok[len - 1] == '%';
		if (pct)
			tok[len - 1] = '\0';
		char *end;
		double v = strtod(tok, &end);
		if (end == tok || *end || !(v >= 0))
			return ns_err_code(err, NS_E_USAGE,
					   "goal '%s': a loss ratio such as 0, 0.5%% or 0.005", tok);
		if (pct)
			v /= 100.0;
		if (v >= 1)
			return ns_err_code(err, NS_E_USAGE, "goal '%s': a loss ratio below 1 (100 %%)",
					   tok);
		c->goals[n++] = (struct search_goal){.loss_ratio = v, .exceed_ratio = exceed};
	}
	if (n == 0)
		return ns_err_code(err, NS_E_USAGE, "goals: name at least one loss ratio");
	c->n_goals = n;
	return 0;
}
