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
	uint64_t g = budget_take(&b, NULL, 0, 131072, 1448);
	assert_int_equal(g, 12500 / 1448 * 1448);
	assert_true(budget_held(&b) == 1);
	/* what is left is less than a step: nothing, and the wait says when */
	assert_int_equal(budget_take(&b, NULL, 0, 1448, 1448), 0);
	uint64_t w = budget_wait_ns(&b, NULL, 0, 1448);
	assert_true(w > 0 && w <= 1448 * 8 * 1000000000ull / RATE + 1);
	assert_int_equal(budget_take(&b, NULL, w, 1448, 1448), 1448);
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
		uint64_t g = budget_take(&b, NULL, now, want, i % 3 == 1 ? 1460 : want);
		if (g && i % 5 == 0) {                      /* a partial send gives some back */
			budget_refund(&b, NULL, g / 2);
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
	assert_int_equal(budget_take(&b, NULL, 0, 60000, 60000), 0);
	uint64_t t = 60000ull * 8 * 1000000000ull / RATE; /* 48 ms */
	assert_int_equal(budget_take(&b, NULL, t, 120000, 60000), 60000);
	/* a long idle time banks one step, not two */
	assert_int_equal(budget_take(&b, NULL, t + 1000 * MS, 120000, 60000), 60000);
	budget_destroy(&b);
}

/* Issue 43: under a 10 Mbit/s cap, a UDP sender of 65,507-byte datagrams and a TCP sender
 * of 1448-byte steps, each paced at 5 Mbit/s by its own pacer, each get their 5 Mbit/s: each
 * draws from its own share. Before, the TCP sender's small steps took every token of the one
 * bucket and the datagram never found its step there (0 or 1 sent in a test). Time is
 * simulated: each sender tries every 100 us what its own pacer allows. */
static void big_datagrams_and_small_writes_get_fair_shares(void **state)
{
	(void)state;
	struct budget b;
	struct budget_share udp, tcp;
	struct ns_err err = {0};
	assert_int_equal(budget_init(&b, RATE, 0, &err), 0);
	budget_join(&b, &udp, 5000000, 0);
	budget_join(&b, &tcp, 5000000, 0);
	assert_true(budget_share_bps(&b, &udp) == 5e6 && budget_share_bps(&b, &tcp) == 5e6);
	const uint64_t dgram = 65507, step = 1448, end = 10000 * MS; /* 10 s */
	double pace_udp = 0, pace_tcp = 0; /* bytes each pacer allows so far */
	uint64_t sent_udp = 0, sent_tcp = 0;
	for (uint64_t now = 0; now < end; now += 100000) {
		pace_udp = 5e6 / 8 * (double)now / 1e9;
		pace_tcp = pace_udp;
		if (pace_udp - (double)sent_udp >= (double)dgram)
			sent_udp += budget_take(&b, &udp, now, dgram, dgram);
		/* TCP: as much as its pacer allows, in steps no bigger than its share's burst */
		uint64_t want = pace_tcp > (double)sent_tcp ? (uint64_t)(pace_tcp - (double)sent_tcp) : 0;
		uint64_t burst = budget_burst(&b, &tcp);
		if (want > burst)
			want = burst;
		if (want >= step)
			sent_tcp += budget_take(&b, &tcp, now, want, step);
	}
	double share = 5e6 / 8 * 10;
	print_message("10 s under 10 Mbit/s: UDP (65,507-byte datagrams) %.0f %%, TCP %.0f %% of "
		      "5 Mbit/s\n", 100.0 * (double)sent_udp / share, 100.0 * (double)sent_tcp / share);
	assert_true((double)sent_udp >= 0.8 * share);
	assert_true((double)sent_tcp >= 0.8 * share);
	assert_true(sent_udp + sent_tcp <= RATE / 8 * 10 + 2 * 65536);
	/* a third test at 5 Mbit/s: three shares of 3.33 Mbit/s, together the cap */
	struct budget_share third;
	budget_join(&b, &third, 5000000, end);
	double sum = budget_share_bps(&b, &udp) + budget_share_bps(&b, &tcp) +
		     budget_share_bps(&b, &third);
	assert_true(sum > RATE - 1 && sum < RATE + 1);
	assert_true(budget_share_bps(&b, &third) > 3.33e6 && budget_share_bps(&b, &third) < 3.34e6);
	/* the third leaves: the others have their 5 Mbit/s again; it starts empty */
	assert_int_equal(budget_take(&b, &third, end, 1448, 1448), 0);
	assert_true(budget_share_held(&third) == 1);
	budget_leave(&b, &third, end + MS);
	assert_true(budget_share_bps(&b, &udp) == 5e6);
	assert_true(budget_share_bps(&b, &third) == 0);
	budget_leave(&b, &udp, end + MS);
	budget_leave(&b, &tcp, end + MS);
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
	double most = rate / 8.0 * took + 3.0 * BUDGET_MIN_BURST + 3 * 65536; /* a burst and a write per share */
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
		cmocka_unit_test(big_datagrams_and_small_writes_get_fair_shares),
		cmocka_unit_test(a_rate_of_zero_is_refused),
		cmocka_unit_test(engines_share_one_budget),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
