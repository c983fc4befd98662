/* The rate search against simulated paths: a tbf-like capacity, random loss, noisy trials,
 * a bound that only longer trials lose, and the stated worst case never exceeded. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "runner/search/search.h"

struct path {
	double capacity;        /* packets/s forwarded at most (initial-length trials) */
	double final_capacity;  /* the same for trials longer than the initial ones; 0 = same */
	double random_loss;     /* share lost at every load */
	double sender_max;      /* what an unpaced sender reaches */
	uint32_t spike_every;   /* every n-th trial loses spike_loss on top; 0 = never */
	double spike_loss;
	double initial_s;
	uint32_t calls;
	double last_load;
	double send_cap;        /* the sender cannot put out more than this (0 = no cap) */
	uint64_t seed;          /* != 0: random loss drawn per datagram instead of a fixed share */
	uint32_t stall_every;   /* every n-th paced trial the sender stalls: offers stall_share */
	double stall_share;
	uint32_t paced_calls;
};

/* Lost datagrams out of n at probability p, drawn (xorshift; Poisson by inversion for small
 * means, normal beyond). */
static uint64_t draw_lost(uint64_t *seed, double n, double p)
{
	double lambda = n * p;
	uint64_t x = *seed;
	double u[2];
	for (int i = 0; i < 2; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		u[i] = ((double)(x >> 11) + 0.5) / 9007199254740992.0;
	}
	*seed = x;
	if (lambda < 30) {
		double prod = u[0], l = exp(-lambda);
		uint64_t k = 0;
		while (prod > l) {
			k++;
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			prod *= ((double)(x >> 11) + 0.5) / 9007199254740992.0;
		}
		*seed = x;
		return k;
	}
	double z = sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]);
	double k = lambda + z * sqrt(lambda);
	return k < 0 ? 0 : (uint64_t)k;
}

static int sim_trial(void *ctx, double load, double dur, struct search_trial *t, struct ns_err *err)
{
	(void)err;
	struct path *p = ctx;
	p->calls++;
	p->last_load = load;
	double offered = load > 0 ? load : p->sender_max;
	double cap = p->final_capacity > 0 && dur > p->initial_s ? p->final_capacity : p->capacity;
	double sent = floor(offered * dur);
	if (p->send_cap > 0 && sent > floor(p->send_cap * dur)) {
		sent = floor(p->send_cap * dur);
		snprintf(t->cause, sizeof(t->cause), "sndbuf_full"); /* as the probe would judge it */
	}
	if (load > 0 && p->stall_every && ++p->paced_calls % p->stall_every == 0)
		sent = floor(sent * p->stall_share);
	double fwd = fmin(sent, floor(cap * dur));
	if (p->seed)
		fwd -= (double)draw_lost(&p->seed, fwd, p->random_loss);
	else
		fwd = floor(fwd * (1.0 - p->random_loss));
	if (p->spike_every && p->calls % p->spike_every == 0)
		fwd = floor(fwd * (1.0 - p->spike_loss));
	t->sent = (uint64_t)sent;
	t->received = (uint64_t)fwd;
	t->duration_s = dur;
	return 0;
}

static struct search_cfg cfg_for(struct path *p)
{
	struct search_cfg c;
	search_cfg_init(&c);
	c.initial_duration_s = 1;
	c.final_duration_s = 2;
	c.duration_sum_s = 2;
	c.trial_overhead_s = 0;
	p->initial_s = c.initial_duration_s;
	return c;
}

static void assert_within_bounds(const struct search_cfg *c, const struct search_result *r)
{
	uint32_t max_trials;
	double max_s;
	search_bounds(c, c->max_load > 0 && c->min_load > 0 ? c->max_load / c->min_load : 1000,
		      &max_trials, &max_s);
	if (r->n_trials > max_trials || r->trial_seconds > max_s + 1e-6)
		fail_msg("%u trials / %.1f s over the stated %u / %.1f s", r->n_trials,
			 r->trial_seconds, max_trials, max_s);
}

/* A tbf-like path: NDR just under the capacity, PDR 0.5 % just over it. */
static void capacity_bracket_and_bisection(void **state)
{
	(void)state;
	struct path p = {.capacity = 100000, .sender_max = 400000};
	struct search_cfg c = cfg_for(&p);
	struct search_result r;
	struct ns_err err = {0};
	assert_int_equal(search_run(&c, sim_trial, &p, &r, &err), 0);
	assert_true(fabs(r.mrr_pps - 100000) < 1);
	assert_true(fabs(r.max_load - 400000) < 1);
	const struct search_goal_result *ndr = &r.goals[0], *pdr = &r.goals[1];
	assert_true(ndr->met && ndr->converged);
	assert_true(ndr->lower <= 100000 + 1);
	assert_true(ndr->upper > 100000);
	assert_true((100000 - ndr->lower) / 100000 <= c.goal_width);
	assert_true((ndr->upper - ndr->lower) / ndr->upper <= c.goal_width);
	assert_true(fabs(ndr->conditional_pps - ndr->lower) / ndr->lower < 0.001);
	/* loss <= 0.5 % while load * 0.995 <= capacity */
	double pdr_true = 100000 / (1 - 0.005);
	assert_true(pdr->met && pdr->converged);
	assert_true(pdr->lower <= pdr_true + 1 && pdr->upper > pdr_true);
	assert_true((pdr_true - pdr->lower) / pdr_true <= c.goal_width);
	assert_string_equal(ndr->note, "");
	assert_within_bounds(&c, &r);
	search_result_free(&r);
}

/* Random loss of 0.1 % at every load: no rate meets NDR (never a made-up rate), PDR 0.5 %
 * lands where the capacity loss plus the random loss reach 0.5 %. */
static void random_loss_never_meets_ndr(void **state)
{
	(void)state;
	struct path p = {.capacity = 100000, .sender_max = 400000, .random_loss = 0.001};
	struct search_cfg c = cfg_for(&p);
	struct search_result r;
	struct ns_err err = {0};
	assert_int_equal(search_run(&c, sim_trial, &p, &r, &err), 0);
	assert_false(r.goals[0].met);
	assert_true(r.goals[0].lower == 0);
	assert_non_null(strstr(r.goals[0].note, "no load met the 0 % loss goal"));
	assert_true(r.goals[1].met);
	double pdr_true = 100000 * (1 - 0.001) / (1 - 0.005);
	assert_true(r.goals[1].lower <= pdr_true + 1);
	assert_true((pdr_true - r.goals[1].lower) / pdr_true <= c.goal_width);
	assert_within_bounds(&c, &r);
	search_result_free(&r);
}

/* The same loss drawn at random per datagram: at low loads a short trial often sees none,
 * yet NDR is never reported, over many seeds, because a lower bound's confirming trials must
 * carry confirm_packets datagrams. */
static void random_loss_cannot_hide_at_low_loads(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct path p = {.capacity = 100000, .sender_max = 400000, .random_loss = 0.001,
				 .seed = seed * 7919};
		struct search_cfg c = cfg_for(&p);
		c.n_goals = 1;
		struct search_result r;
		struct ns_err err = {0};
		assert_int_equal(search_run(&c, sim_trial, &p, &r, &err), 0);
		if (r.goals[0].met)
			fail_msg("seed %llu: NDR reported at %.0f pps under 0.1 %% random loss",
				 (unsigned long long)seed, r.goals[0].lower);
		assert_within_bounds(&c, &r);
		search_result_free(&r);
	}
}

/* A sender that cannot reach the load (a ceiling above what the host generates): what it
 * could not send is not the path's loss. The loads it cannot offer bound the bracket, and the
 * answer says the sender, not the path, stopped it: NDR is at least what it could offer. */
static void sender_shortfall_is_not_path_loss(void **state)
{
	(void)state;
	struct path p = {.capacity = 1e9, .sender_max = 400000, .send_cap = 80000};
	struct search_cfg c = cfg_for(&p);
	c.n_goals = 1;
	c.max_load = 400000;
	c.min_load = 400;
	struct search_result r;
	struct ns_err err = {0};
	assert_int_equal(search_run(&c, sim_trial, &p, &r, &err), 0);
	const struct search_goal_result *g = &r.goals[0];
	assert_true(g->met && g->sender_limited);
	/* a load is reached when the sender falls short of it by no more than the goal width */
	double reach = 80000 / (1 - c.goal_width);
	assert_true(g->lower <= reach + 1);
	assert_true((80000 - g->lower) / 80000 <= c.goal_width);
	assert_true(g->upper > reach);
	assert_true(fabs(g->sender_max_pps - 80000) < 1);
	assert_true(g->at_least_pps == g->lower);
	assert_non_null(strstr(g->note, "the sender could not offer more than 80000 packets/s"));
	assert_string_equal(g->sender_cause, "sndbuf_full");
	assert_non_null(strstr(g->note, "the local interface pushing back"));
	assert_non_null(strstr(g->note, "NDR is at least"));
	/* no trial counts the shortfall as loss: the path lost nothing */
	for (uint32_t i = 0; i < r.n_trials; i++)
		assert_true(r.trials[i].loss_ratio == 0);
	assert_within_bounds(&c, &r);
	search_result_free(&r);
}

/* A sender that gives out at 2000 packets/s, too slow for the confirming trials to carry
 * confirm_packets: the goal is not met, but the answer blames the sender, not the path. */
static void sender_too_slow_to_confirm(void **state)
{
	(void)state;
	struct path p = {.capacity = 1e9, .sender_max = 400000, .send_cap = 2000};
	struct search_cfg c = cfg_for(&p);
	c.n_goals = 1;
	c.max_load = 400000;
	c.min_load = 400;
	struct search_result r;
	struct ns_err err = {0};
	assert_int_equal(search_run(&c, sim_trial, &p, &r, &err), 0);
	const struct search_goal_result *g = &r.goals[0];
	assert_false(g->met);
	assert_true(g->sender_limited);
	assert_true(g->at_least_pps > 0 && g->at_least_pps <= 2000 / (1 - c.goal_width) + 1);
	assert_true(g->unreached_pps > 2000);
	assert_non_null(strstr(g->note, "too few datagrams to confirm"));
	assert_non_null(strstr(g->note, "NDR is at least"));
	assert_within_bounds(&c, &r);
	search_result_free(&r);
}

/* The path's own limit below the sender's: an ordinary answer, not called sender-limited,
 * although the loads above the sender's reach were short. */
static void path_limit_below_sender_limit(void **state)
{
	(void)state;
	struct path p = {.capacity = 50000, .sender_max = 400000, .send_cap = 80000};
	struct search_cfg c = cfg_for(&p);
	c.max_load = 400000;
	c.min_load = 400;
	struct search_result r;
	struct ns_err err = {0};
	assert_int_equal(search_run(&c, sim_trial, &p, &r, &err), 0);
	const struct search_goal_result *g = &r.goals[0];
	assert_true(g->met && g->converged && !g->sender_limited);
	assert_true(g->lower <= 50000 + 1 && (50000 - g->lower) / 50000 <= c.goal_width);
	assert_string_equal(g->note, "");
	assert_within_bounds(&c, &r);
	search_result_free(&r);
}

/* Every third paced trial the sender stalls and offers 78 % of the load (a busy host): those
 * trials are run again, never counted as loss, and NDR lands where the clean search puts it. */
static void stalled_trials_are_repeated(void **state)
{
	(void)state;
	struct path clean = {.capacity = 100000, .sender_max = 400000};
	struct path p = clean;
	p.stall_every = 3;
	p.stall_share = 0.78;
	struct search_cfg c = cfg_for(&p);
	struct search_result a, r;
	struct ns_err err = {0};
	assert_int_equal(search_run(&c, sim_trial, &clean, &a, &err), 0);
	assert_int_equal(search_run(&c, sim_trial, &p, &r, &err), 0);
	uint32_t shorts = 0;
	for (uint32_t i = 0; i < r.n_trials; i++)
		shorts += r.trials[i].sender_short;
	assert_true(shorts > 0);
	for (uint32_t g = 0; g < 2; g++) {
		assert_true(r.goals[g].met && r.goals[g].converged && !r.goals[g].sender_limited);
		assert_true(fabs(r.goals[g].lower - a.goals[g].lower) <= 1);
	}
	assert_true(r.n_trials == a.n_trials + shorts);
	assert_within_bounds(&c, &r);
	search_result_free(&a);
	search_result_free(&r);
}

/* A sender that stalls on every paced trial cannot offer any load: never "not met" for the
 * path, the answer says the sender stopped it, and the repeats stay inside the stated bound. */
static void sender_that_never_reaches(void **state)
{
	(void)state;
	struct path p = {.capacity = 1e9, .sender_max = 400000, .stall_every = 1, .stall_share = 0.5};
	struct search_cfg c = cfg_for(&p);
	struct search_result r;
	struct ns_err err = {0};
	assert_int_equal(search_run(&c, sim_trial, &p, &r, &err), 0);
	for (uint32_t g = 0; g < 2; g++) {
		const struct search_goal_result *gr = &r.goals[g];
		assert_false(gr->met);
		assert_true(gr->sender_limited);
		assert_true(gr->at_least_pps > 0 && gr->at_least_pps <= gr->upper * 0.5 + 1);
		assert_non_null(strstr(gr->note, "the sender could not offer more than"));
	}
	assert_within_bounds(&c, &r);
	search_result_free(&r);
}

/* Longer trials see less capacity (a buffer that fills): the final phase loses the lower
 * bound the short trials found and searches outward, downwards, for a new one. */
static void lost_bound_searches_outward(void **state)
{
	(void)state;
	struct path p = {.capacity = 100000, .final_capacity = 90000, .sender_max = 400000};
	struct search_cfg c = cfg_for(&p);
	c.n_goals = 1;
	struct search_result r;
	struct ns_err err = {0};
	assert_int_equal(search_run(&c, sim_trial, &p, &r, &err), 0);
	const struct search_goal_result *g = &r.goals[0];
	assert_true(g->met && g->converged);
	assert_true(g->lower <= 90000 + 1);
	assert_true((90000 - g->lower) / 90000 <= c.goal_width);
	/* some final trial ran at a load the initial phase had called a lower bound */
	bool lost = false;
	for (uint32_t i = 0; i < r.n_trials; i++)
		if (r.trials[i].phase == SEARCH_PHASE_FINAL && r.trials[i].loss_ratio > 0 &&
		    r.trials[i].load <= 100000)
			lost = true;
	assert_true(lost);
	assert_within_bounds(&c, &r);
	search_result_free(&r);
}

/* The path carries more than the maximum load: the goal is met at the maximum, said so. */
static void maximum_load_meets_goal(void **state)
{
	(void)state;
	struct path p = {.capacity = 1e9, .sender_max = 50000};
	struct search_cfg c = cfg_for(&p);
	c.n_goals = 1;
	struct search_result r;
	struct ns_err err = {0};
	assert_int_equal(search_run(&c, sim_trial, &p, &r, &err), 0);
	assert_true(r.goals[0].met && r.goals[0].converged);
	assert_true(fabs(r.goals[0].lower - 50000) < 1);
	assert_true(r.goals[0].upper == 0);
	/* the top is the sender's unpaced rate: a floor, said so */
	assert_true(r.goals[0].sender_limited && fabs(r.goals[0].at_least_pps - 50000) < 1);
	assert_non_null(strstr(r.goals[0].note, "what it reached unpaced"));
	assert_non_null(strstr(r.goals[0].note, "NDR is at least 50000"));
	search_result_free(&r);
	c.max_load = 40000; /* a given maximum the path carries */
	assert_int_equal(search_run(&c, sim_trial, &p, &r, &err), 0);
	assert_true(r.goals[0].met && fabs(r.goals[0].lower - 40000) < 1);
	assert_non_null(strstr(r.goals[0].note, "the path may carry more"));
	assert_false(r.goals[0].sender_limited);
	search_result_free(&r);
}

/* Every third trial loses 2 % on top (a noisy host). With three final trials per load and
 * an exceed ratio of 0.5, one noisy trial in three does not move the confirmed bound; with
 * an exceed ratio of 0, any noisy trial makes the load an upper bound. */
static void exceed_ratio_absorbs_noisy_trials(void **state)
{
	(void)state;
	struct search_result r;
	struct ns_err err = {0};
	struct path p = {.capacity = 100000, .sender_max = 400000, .spike_every = 3,
			 .spike_loss = 0.02};
	struct search_cfg c = cfg_for(&p);
	c.n_goals = 1;
	c.duration_sum_s = 6; /* three final trials */
	assert_int_equal(search_run(&c, sim_trial, &p, &r, &err), 0);
	assert_true(r.goals[0].met);
	double tolerant = r.goals[0].lower;
	assert_true((100000 - tolerant) / 100000 <= 2 * c.goal_width);
	assert_within_bounds(&c, &r);
	search_result_free(&r);

	struct path q = p;
	q.calls = 0;
	c.goals[0].exceed_ratio = 0;
	assert_int_equal(search_run(&c, sim_trial, &q, &r, &err), 0);
	/* strict: either a lower result or no result, never above the tolerant one */
	assert_true(!r.goals[0].met || r.goals[0].lower <= tolerant + 1);
	assert_within_bounds(&c, &r);
	search_result_free(&r);
}

/* A path that loses everything: not met, and the search stays inside its bounds. */
static void dead_path_stays_bounded(void **state)
{
	(void)state;
	struct path p = {.capacity = 0, .sender_max = 400000};
	struct search_cfg c = cfg_for(&p);
	struct search_result r;
	struct ns_err err = {0};
	assert_int_equal(search_run(&c, sim_trial, &p, &r, &err), 0);
	assert_false(r.goals[0].met);
	assert_false(r.goals[1].met);
	assert_within_bounds(&c, &r);
	search_result_free(&r);
}

/* The same search twice gives the same trials: the search itself adds no randomness. */
static void search_is_deterministic(void **state)
{
	(void)state;
	struct path p = {.capacity = 123456, .sender_max = 500000, .random_loss = 0.0002};
	struct search_cfg c = cfg_for(&p);
	struct search_result a, b;
	struct ns_err err = {0};
	assert_int_equal(search_run(&c, sim_trial, &p, &a, &err), 0);
	p.calls = 0;
	assert_int_equal(search_run(&c, sim_trial, &p, &b, &err), 0);
	assert_int_equal(a.n_trials, b.n_trials);
	for (uint32_t i = 0; i < a.n_trials; i++)
		assert_true(a.trials[i].load == b.trials[i].load);
	search_result_free(&a);
	search_result_free(&b);
}

/* A trial is short by datagram counts: more than the goal width and more than one datagram
 * missing; what the path lost is sent - received, never what the sender did not send. */
static void short_trials_by_datagram_counts(void **state)
{
	(void)state;
	struct search_trial t = {.load = 100, .duration_s = 0.3, .sent = 29, .received = 29};
	search_trial_derive(&t, 0.01);
	assert_int_equal(t.intended, 30);
	assert_false(t.sender_short); /* one missing: the pacer's rounding */
	assert_true(t.loss_ratio == 0);
	t = (struct search_trial){.load = 100000, .duration_s = 1, .sent = 98000, .received = 97000};
	search_trial_derive(&t, 0.01);
	assert_true(t.sender_short && fabs(t.shortfall_ratio - 0.02) < 1e-9);
	assert_true(fabs(t.loss_ratio - 1000.0 / 98000) < 1e-12);
	assert_true(fabs(t.offered_pps - 98000) < 1e-6);
	t = (struct search_trial){.load = 100000, .duration_s = 1, .sent = 99500, .received = 99500};
	search_trial_derive(&t, 0.01);
	assert_false(t.sender_short); /* within the width */
	t = (struct search_trial){.load = 0, .duration_s = 1, .sent = 5, .received = 5};
	search_trial_derive(&t, 0.01);
	assert_false(t.sender_short); /* unpaced: nothing asked */
}

static void goals_and_settings_are_checked(void **state)
{
	(void)state;
	struct search_cfg c;
	struct ns_err err = {0};
	search_cfg_init(&c);
	assert_int_equal(search_parse_goals("0,0.5%,0.01", 0.5, &c, &err), 0);
	assert_int_equal(c.n_goals, 3);
	assert_true(c.goals[1].loss_ratio == 0.005);
	assert_true(c.goals[2].loss_ratio == 0.01);
	assert_int_equal(search_parse_goals("0,abc", 0.5, &c, &err), -1);
	assert_non_null(strstr(err.msg, "goal 'abc'"));
	assert_int_equal(search_parse_goals("100%", 0.5, &c, &err), -1);
	assert_int_equal(err.code, NS_E_USAGE);
	search_cfg_init(&c);
	c.final_duration_s = 0.5; /* shorter than the initial trials */
	assert_int_equal(search_cfg_check(&c, &err), -1);
	assert_non_null(strstr(err.msg, "final trial duration"));
	search_cfg_init(&c);
	c.min_load = 1000;
	c.max_load = 500;
	assert_int_equal(search_cfg_check(&c, &err), -1);
	assert_non_null(strstr(err.msg, "minimum"));
}

/* The stated bound grows with the range and shrinks with a wider goal width. */
static void bounds_follow_settings(void **state)
{
	(void)state;
	struct search_cfg c;
	search_cfg_init(&c);
	uint32_t t1, t2, t3;
	double s1, s2, s3;
	search_bounds(&c, 1000, &t1, &s1);
	search_bounds(&c, 1e6, &t2, &s2);
	c.goal_width = 0.05;
	search_bounds(&c, 1000, &t3, &s3);
	assert_true(t2 > t1 && s2 > s1);
	assert_true(t3 < t1 && s3 < s1);
	assert_true(s1 >= t1 * c.initial_duration_s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(capacity_bracket_and_bisection),
		cmocka_unit_test(random_loss_never_meets_ndr),
		cmocka_unit_test(random_loss_cannot_hide_at_low_loads),
		cmocka_unit_test(sender_shortfall_is_not_path_loss),
		cmocka_unit_test(path_limit_below_sender_limit),
		cmocka_unit_test(sender_too_slow_to_confirm),
		cmocka_unit_test(stalled_trials_are_repeated),
		cmocka_unit_test(sender_that_never_reaches),
		cmocka_unit_test(lost_bound_searches_outward),
		cmocka_unit_test(maximum_load_meets_goal),
		cmocka_unit_test(exceed_ratio_absorbs_noisy_trials),
		cmocka_unit_test(dead_path_stays_bounded),
		cmocka_unit_test(search_is_deterministic),
		cmocka_unit_test(short_trials_by_datagram_counts),
		cmocka_unit_test(goals_and_settings_are_checked),
		cmocka_unit_test(bounds_follow_settings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
