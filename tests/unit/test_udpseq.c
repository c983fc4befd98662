/* runner/engine/udpseq: UDP sequence accounting (loss, late packets, reordering, duplicates,
 * the window's wrap, against a model); and runner/engine/pace's rate at its end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdlib.h>

#include "runner/engine/pace.h"
#include "runner/engine/base/udpseq.h"

static struct udpseq *fresh(void)
{
	struct udpseq *u = malloc(sizeof(*u));
	assert_non_null(u);
	udpseq_init(u);
	return u;
}

/* Arrivals with a constant transit time: jitter stays 0. */
static void add(struct udpseq *u, uint64_t seq)
{
	udpseq_add(u, seq, seq * 1000, seq * 1000 + 500);
}

static void in_order_counts_everything_once(void **state)
{
	(void)state;
	struct udpseq *u = fresh();
	for (uint64_t s = 0; s < 1000; s++)
		assert_true(udpseq_add(u, s, s * 1000, s * 1000 + 500));
	assert_int_equal(u->unique, 1000);
	assert_int_equal(u->highest_plus1, 1000);
	assert_int_equal(udpseq_lost(u), 0);
	assert_int_equal(u->out_of_order, 0);
	assert_int_equal(u->duplicates, 0);
	assert_true(udpseq_jitter_ms(u) == 0.0);
	free(u);
}

static void gaps_count_as_lost(void **state)
{
	(void)state;
	struct udpseq *u = fresh();
	for (uint64_t s = 0; s < 100; s++)
		if (s % 10 != 3)
			add(u, s);
	assert_int_equal(udpseq_lost(u), 10);
	assert_int_equal(u->unique, 90);
	assert_int_equal(u->out_of_order, 0);
	/* loss after the highest seen is not known yet */
	struct udpseq *v = fresh();
	add(v, 0);
	add(v, 1);
	assert_int_equal(udpseq_lost(v), 0);
	assert_int_equal(v->highest_plus1, 2);
	free(u);
	free(v);
}

static void late_packet_fills_its_gap(void **state)
{
	(void)state;
	struct udpseq *u = fresh();
	add(u, 0);
	add(u, 1);
	add(u, 4);
	assert_int_equal(udpseq_lost(u), 2);
	add(u, 2); /* late: no longer lost, but out of order */
	assert_int_equal(udpseq_lost(u), 1);
	assert_int_equal(u->out_of_order, 1);
	add(u, 5);
	add(u, 3);
	assert_int_equal(udpseq_lost(u), 0);
	assert_int_equal(u->out_of_order, 2);
	assert_int_equal(u->unique, 6);
	free(u);
}

static void reordering_is_not_loss(void **state)
{
	(void)state;
	struct udpseq *u = fresh();
	/* pairs swapped: 1 0 3 2 5 4 ... */
	for (uint64_t s = 0; s < 200; s += 2) {
		add(u, s + 1);
		add(u, s);
	}
	assert_int_equal(udpseq_lost(u), 0);
	assert_int_equal(u->out_of_order, 100);
	assert_int_equal(u->duplicates, 0);
	assert_int_equal(u->unique, 200);
	free(u);
}

static void duplicates_are_found_and_not_counted(void **state)
{
	(void)state;
	struct udpseq *u = fresh();
	add(u, 0);
	add(u, 1);
	assert_false(udpseq_add(u, 1, 1000, 1500)); /* right away */
	add(u, 2);
	add(u, 3);
	assert_false(udpseq_add(u, 0, 0, 500));     /* later, below the highest */
	assert_int_equal(u->duplicates, 2);
	assert_int_equal(u->unique, 4);
	assert_int_equal(u->out_of_order, 0);
	assert_int_equal(udpseq_lost(u), 0);
	free(u);
}

/* The bitmap is a ring over UDPSEQ_WINDOW numbers: slots reused after a wrap must not report
 * the old number's bit, and duplicates across the wrap point are still found. */
static void window_wraps_without_false_duplicates(void **state)
{
	(void)state;
	struct udpseq *u = fresh();
	const uint64_t w = UDPSEQ_WINDOW;
	for (uint64_t s = 0; s < w - 2; s++)
		add(u, s);
	/* skip w-2 and w-1, then cross the edge: slots 0,1,... are reused for w, w+1, ... */
	for (uint64_t s = w; s < w + 10; s++)
		assert_true(udpseq_add(u, s, s * 1000, s * 1000 + 500));
	assert_int_equal(u->duplicates, 0);
	assert_int_equal(udpseq_lost(u), 2);
	/* w-1 arrives late: its slot was cleared by the skip, so it is new, not a duplicate */
	assert_true(udpseq_add(u, w - 1, 0, 0));
	assert_int_equal(udpseq_lost(u), 1);
	/* duplicates on both sides of the edge */
	assert_false(udpseq_add(u, w + 3, 0, 0));
	assert_false(udpseq_add(u, w - 3, 0, 0));
	assert_int_equal(u->duplicates, 2);
	/* a number that left the window is taken as a very late original */
	assert_true(udpseq_add(u, 5, 0, 0));
	assert_int_equal(u->too_old, 1);
	/* a jump of more than a whole window clears everything */
	uint64_t far = 5 * w;
	assert_true(udpseq_add(u, far, 0, 0));
	assert_true(udpseq_add(u, far - 1, 0, 0));
	assert_false(udpseq_add(u, far, 0, 0));
	free(u);
}

/* Against a plain model (every number ever seen): jumps of every size around word and window
 * edges, late arrivals and copies, so that clearing the skipped slots a word at a time forgets
 * exactly the numbers that left the window. */
static void window_matches_a_model(void **state)
{
	(void)state;
	const uint64_t w = UDPSEQ_WINDOW, top = 64 * (uint64_t)UDPSEQ_WINDOW;
	struct udpseq *u = fresh();
	bool *seen = calloc(top + w, sizeof(bool));
	assert_non_null(seen);
	uint64_t hp1 = 0, dups = 0;
	srand(7);
	for (int k = 0; k < 200000; k++) {
		uint64_t seq;
		int r = rand() % 1000;
		if (r < 770 || hp1 == 0) {
			static const uint64_t jumps[] = { 0, 1, 62, 63, 64, 65, 127, 200, 4095,
							  65534, 65535, 65536, 65537 };
			seq = hp1 + (r < 765 ? 0 : jumps[rand() % 13] + (uint64_t)(rand() % 3));
		} else {
			/* mostly near the top, some beyond the window */
			uint64_t back = 1 + (uint64_t)rand() % (r < 990 ? 300 : w + 100);
			seq = hp1 > back ? hp1 - back : 0;
		}
		if (seq >= top)
			break;
		bool want_new = seq >= hp1 || hp1 - seq > w || !seen[seq];
		if (!want_new)
			dups++;
		bool got = udpseq_add(u, seq, 0, 0);
		if (got != want_new)
			fail_msg("step %d: seq %llu (highest+1 %llu) new %d, model says %d", k,
				 (unsigned long long)seq, (unsigned long long)hp1, got, want_new);
		seen[seq] = true;
		if (seq >= hp1)
			hp1 = seq + 1;
	}
	assert_true(dups > 1000);
	assert_int_equal(u->duplicates, dups);
	assert_int_equal(u->highest_plus1, hp1);
	free(seen);
	free(u);
}

/* RFC 3550 A.8: J += (|D| - J) / 16, D the change in transit time between arrivals.
 * Transit times (ns): 1e6, 3e6, 2e6, 2e6, 6e6 → |D| = 2, 1, 0, 4 ms.
 * J1 = 2/16 = 0.125
 * J2 = 0.125 + (1 - 0.125)/16 = 0.1796875
 * J3 = 0.1796875 + (0 - 0.1796875)/16 = 0.168457031...
 * J4 = 0.168457031 + (4 - 0.168457031)/16 = 0.407928467 ms */
static void jitter_follows_rfc3550(void **state)
{
	(void)state;
	struct udpseq *u = fresh();
	const uint64_t base = 5000000000ull; /* the receiver's clock is offset: it must not matter */
	const uint64_t transit[] = { 1000000, 3000000, 2000000, 2000000, 6000000 };
	const double expect[] = { 0.0, 0.125, 0.1796875, 0.168457031, 0.407928467 };
	for (int i = 0; i < 5; i++) {
		uint64_t send = (uint64_t)i * 10000000ull;
		udpseq_add(u, (uint64_t)i, send, base + send + transit[i]);
		assert_true(udpseq_jitter_ms(u) > expect[i] - 1e-6);
		assert_true(udpseq_jitter_ms(u) < expect[i] + 1e-6);
	}
	/* a duplicate does not move the estimate */
	udpseq_add(u, 4, 0, 123456789);
	assert_true(udpseq_jitter_ms(u) < 0.407928467 + 1e-6 &&
		    udpseq_jitter_ms(u) > 0.407928467 - 1e-6);
	free(u);
}

/* The token bucket: 8 Mbit/s is 1 byte/us; 1000-byte units every 1 ms. */
static void pace_holds_the_rate(void **state)
{
	(void)state;
	struct pace p;
	const uint64_t ms = 1000000;
	pace_init(&p, 8000000, 1000, 1, 0);
	assert_int_equal(pace_ready(&p, 0, 1000, 64), 1);
	pace_sent(&p, 1000);
	assert_int_equal(pace_ready(&p, ms / 2, 1000, 64), 0);
	assert_int_equal(pace_wait_ns(&p, ms / 2), ms / 2 + 1);
	/* woken 1.5 ms late: the credit pays for the missed units */
	assert_int_equal(pace_ready(&p, 2500000, 1000, 64), 2);
	pace_sent(&p, 2000);
	assert_int_equal(pace_ready(&p, 2600000, 1000, 64), 0);
	/* a 200 ms stall: credit is capped at PACE_CREDIT_NS (4 ms: 1 + 4 units), not a flood */
	assert_int_equal(pace_ready(&p, 203 * ms, 1000, 5000), 5);
	pace_sent(&p, 5000);
	assert_int_equal(pace_ready(&p, 203 * ms + 1, 1000, 64), 0);
	/* when one batch is longer than PACE_CREDIT_NS, the cap is the batch (10 units = 10 ms) */
	pace_init(&p, 8000000, 1000, 10, 0);
	assert_int_equal(pace_ready(&p, 5000 * ms, 1000, 5000), 11);
	/* and never more than the caller's batch */
	assert_int_equal(pace_ready(&p, 5000 * ms, 1000, 4), 4);
	/* a sender waits for a lump (about PACE_WAKE_NS, at most one batch), not for every unit:
	 * 64-byte units at 50 Mbit/s are 10.24 us apart, a batch of 64 is 655.36 us */
	pace_init(&p, 50000000, 64, 64, 0);
	assert_int_equal(pace_ready(&p, 0, 64, 64), 1);
	pace_sent(&p, 64);
	assert_int_equal(pace_wait_ns(&p, 0), 655361);
	assert_int_equal(pace_ready(&p, 655361, 64, 64), 64);
	/* 1400-byte units at 100 Mbit/s are 112 us apart: 8 of them fit in 1 ms */
	pace_init(&p, 100000000, 1400, 64, 0);
	pace_sent(&p, 1400);
	assert_int_equal(pace_wait_ns(&p, 0), 8 * 112000 + 1);
	assert_int_equal(pace_ready(&p, 8 * 112000 + 1, 1400, 64), 8);
	/* what a late wake-up could not use is counted: 200 ms late, 4 ms kept */
	pace_init(&p, 8000000, 1000, 1, 0);
	assert_int_equal(pace_ready(&p, 200 * ms, 1000, 64), 5);
	assert_true(pace_lost_ns(&p) > 196 * ms - 1 && pace_lost_ns(&p) < 196 * ms + 1);
	/* a sender refused real time keeps 20 ms: 200 ms late, 21 units may go, 180 ms lost;
	 * a smaller credit than pace_init's changes nothing */
	pace_init(&p, 8000000, 1000, 1, 0);
	pace_set_credit(&p, 20e6);
	pace_set_credit(&p, 1e6);
	assert_int_equal(pace_ready(&p, 200 * ms, 1000, 64), 21);
	assert_true(pace_lost_ns(&p) > 180 * ms - 1 && pace_lost_ns(&p) < 180 * ms + 1);
	/* unlimited */
	pace_init(&p, 0, 1000, 64, 0);
	assert_int_equal(pace_ready(&p, 0, 1000, 64), 64);
	assert_int_equal(pace_wait_ns(&p, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(in_order_counts_everything_once),
		cmocka_unit_test(gaps_count_as_lost),
		cmocka_unit_test(late_packet_fills_its_gap),
		cmocka_unit_test(reordering_is_not_loss),
		cmocka_unit_test(duplicates_are_found_and_not_counted),
		cmocka_unit_test(window_wraps_without_false_duplicates),
		cmocka_unit_test(window_matches_a_model),
		cmocka_unit_test(jitter_follows_rfc3550),
		cmocka_unit_test(pace_holds_the_rate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
