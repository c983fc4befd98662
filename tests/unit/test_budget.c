/* budget: the shared token bucket of an agent's --max-rate (runner/engine/budget.h). Time is
 * passed in, so every bound here is exact; then engines over loopback drawing from one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>

#include "runner/engine/budget.h"
#include "tests/lib/engine_pairs.h"

#define RATE 10000000ull             /* 10 Mbit/s: 1.25 bytes a microsecond */
#define MS 1000000ull

static void starts_with_one_small_burst(void **state)
{
	(void)state;
	struct budget b;
	struct ns_err err = {0};
	assert_int_equal(budget_init(&b, RATE, 0, &err), 0);
	/* 10 ms of 10 Mbit/s is 12,500 bytes: a 128 KiB write gets that, in whole 1448s */
	uint64_t g = budget_take(&b, 0, 131072, 1448);
	assert_int_equal(g, 12500 / 1448 * 1448);
	assert_true(budget_held(&b) == 1);
	/* what is left is less than a step: nothing, and the wait says when */
	assert_int_equal(budget_take(&b, 0, 1448, 1448), 0);
	uint64_t w = budget_wait_ns(&b, 0, 1448);
	assert_true(w > 0 && w <= 1448 * 8 * 1000000000ull / RATE + 1);
	assert_int_equal(budget_take(&b, w, 1448, 1448), 1448);
	budget_destroy(&b);
}

/* However a greedy sender draws (big and small writes, refunds, a long idle time that
 * does not bank credit), no window moves more than rate x time + the burst. */
static void no_window_exceeds_rate_times_time(void **state)
{
	(void)state;
	struct budget b;
	struct ns_err err = {0};
	assert_int_equal(budget_init(&b, RATE, 0, &err), 0);
	uint64_t total = 0, now = 0, from = 0;
	for (int i = 0; i < 20000; i++) {
		now += (i % 7) * 50000ull;                  /* 0..300 us between tries */
		if (i == 10000)
			from = now += 5000 * MS;            /* 5 s idle: at most a burst banked */
		uint64_t want = (i % 3) ? 65536 : 1448;
		uint64_t g = budget_take(&b, now, want, i % 3 == 1 ? 1460 : want);
		if (g && i % 5 == 0) {                      /* a partial send gives some back */
			budget_refund(&b, g / 2);
			g -= g / 2;
		}
		total += g;
		if (i == 9999) {
			assert_true(total <= RATE / 8 * now / 1000000000ull + 12500 + 65536);
			assert_true(total >= RATE / 8 * now / 1000000000ull / 2);
			total = 0;
		}
	}
	/* the window after the idle time: its start banked one burst, not 5 s of rate */
	assert_true(total <= RATE / 8 * (now - from) / 1000000000ull + 12500 + 65536);
	assert_true(total >= RATE / 8 * (now - from) / 1000000000ull / 2);
	budget_destroy(&b);
}

/* A datagram larger than the burst still goes, one at a time, at the rate. */
static void a_step_larger_than_the_burst_accrues(void **state)
{
	(void)state;
	struct budget b;
	struct ns_err err = {0};
	assert_int_equal(budget_init(&b, RATE, 0, &err), 0);
	assert_int_equal(budget_take(&b, 0, 60000, 60000), 0);
	uint64_t t = 60000ull * 8 * 1000000000ull / RATE; /* 48 ms */
	assert_int_equal(budget_take(&b, t, 120000, 60000), 60000);
	/* a long idle time banks one step, not two */
	assert_int_equal(budget_take(&b, t + 1000 * MS, 120000, 60000), 60000);
	budget_destroy(&b);
}

static void a_rate_of_zero_is_refused(void **state)
{
	(void)state;
	struct budget b;
	struct ns_err err = {0};
	assert_int_equal(budget_init(&b, 0, 0, &err), -1);
	assert_int_equal(err.code, NS_E_USAGE);
}

/* Three senders at once draw from one budget of 20 Mbit/s: TCP paced at 40 Mbit/s over 4
 * streams with 1 MiB writes, TCP unpaced, UDP paced at 40 Mbit/s with 8000-byte datagrams.
 * Together they move no more than the budget's rate x the time + its burst + one write each
 * (a thread starved on a loaded machine only moves less), and the budget says it held them. */
static void engines_share_one_budget(void **state)
{
	(void)state;
	struct budget b;
	struct ns_err err = {0};
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	const uint64_t rate = 20000000;
	assert_int_equal(budget_init(&b, rate, (uint64_t)ts.tv_sec * 1000000000ull +
				     (uint64_t)ts.tv_nsec, &err), 0);
	struct engine_cfg cfg[3] = {
		{.proto = NS_PROTO_TCP, .length = 1 << 20, .rate_bps = 40000000},
		{.proto = NS_PROTO_TCP, .length = 1 << 20},
		{.proto = NS_PROTO_UDP, .length = 8000, .rate_bps = 40000000},
	};
	uint32_t n[3] = {4, 2, 2};
	int snd[3][MAXS], rcv[3][MAXS];
	struct engine *s[3], *r[3];
	double t0 = now_s();
	for (int i = 0; i < 3; i++) {
		cfg[i].threads = 2;
		cfg[i].send_duration_s = 1.0;
		struct engine_cfg rc = cfg[i];
		rc.role = ENGINE_RECV;
		cfg[i].role = ENGINE_SEND;
		cfg[i].budget = &b;
		if (cfg[i].proto == NS_PROTO_TCP)
			tcp_pairs(n[i], snd[i], rcv[i]);
		else
			udp_pairs(n[i], snd[i], rcv[i]);
		r[i] = make(&rc, rcv[i], n[i]);
		s[i] = make(&cfg[i], snd[i], n[i]);
	}
	uint64_t sent = 0;
	for (int i = 0; i < 3; i++) {
		assert_true(wait_done(s[i], 10));
		engine_join(s[i]);
	}
	double took = now_s() - t0;
	for (int i = 0; i < 3; i++) {
		struct engine_stream_snap ss[MAXS];
		engine_snapshot(s[i], ss);
		for (uint32_t k = 0; k < n[i]; k++)
			sent += ss[k].bytes;
		engine_stop(r[i]);
		assert_true(wait_done(r[i], 10));
		engine_destroy(s[i]);
		engine_destroy(r[i]);
	}
	double most = rate / 8.0 * took + b.burst + 3 * 65536;
	print_message("%llu bytes in %.2f s through a 20 Mbit/s budget (at most %.0f)\n",
		      (unsigned long long)sent, took, most);
	assert_true(sent <= most);
	assert_true(sent >= rate / 8.0 * 1.0 * TIMING(0.8, 0.3));
	assert_true(budget_held(&b) > 0);
	budget_destroy(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(starts_with_one_small_burst),
		cmocka_unit_test(no_window_exceeds_rate_times_time),
		cmocka_unit_test(a_step_larger_than_the_burst_accrues),
		cmocka_unit_test(a_rate_of_zero_is_refused),
		cmocka_unit_test(engines_share_one_budget),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
