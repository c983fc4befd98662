/* limit_judge (runner/session/limit.h): what set a direction's figure, from made-up
 * measurements whose answer follows from the documented thresholds; and the steal share read
 * from /proc/stat text (runner/engine/sysstat.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "runner/engine/sysstat.h"
#include "runner/session/limit.h"

static struct probe_direction dir(double snd_bps, double rcv_bps)
{
	struct probe_direction d;
	memset(&d, 0, sizeof(d));
	d.sender.bits_per_second = snd_bps;
	d.sender.bytes = (uint64_t)(snd_bps / 8);
	d.receiver.bits_per_second = rcv_bps;
	return d;
}

/* 37 of 50 Mbit/s asked: 26 % short, flagged; the cause the evidence points to. */
static void short_sender_is_flagged_with_its_cause(void **state)
{
	(void)state;
	struct probe_direction d = dir(37e6, 37e6);
	d.limit = (struct probe_limit){.asked_bps = 50e6, .sender_thread_cpu = 19,
				       .pace_lost_pct = 25};
	limit_judge(&d.limit, &d, NS_PROTO_UDP);
	assert_true(d.limit.sender_limited);
	assert_true(d.limit.shortfall_pct > 25.9 && d.limit.shortfall_pct < 26.1);
	assert_true(d.limit.offered_bps == 37e6);
	assert_string_equal(d.limit.cause, "pacer_late");
	assert_string_equal(d.limit.limited_by, "sender_cpu");
	char w[512];
	limit_warning(&d.limit, "forward", w, sizeof(w));
	assert_non_null(strstr(w, "37.0 of 50.0 Mbit/s"));
	assert_null(strstr(w, "; ")); /* one warning: probe splits them at "; " */

	d.limit = (struct probe_limit){.asked_bps = 50e6, .sender_thread_cpu = 99};
	limit_judge(&d.limit, &d, NS_PROTO_UDP);
	assert_string_equal(d.limit.cause, "sender_cpu");
	d.limit = (struct probe_limit){.asked_bps = 50e6, .sender_thread_cpu = 99,
				       .sender_steal_pct = 40};
	limit_judge(&d.limit, &d, NS_PROTO_UDP);
	assert_string_equal(d.limit.limited_by, "steal");
	d.limit = (struct probe_limit){.asked_bps = 50e6, .sender_blocked_pct = 60};
	limit_judge(&d.limit, &d, NS_PROTO_TCP);
	assert_string_equal(d.limit.cause, "sndbuf_full");
	assert_string_equal(d.limit.limited_by, "window");
}

/* Within LIMIT_SHORTFALL_PCT is on target: not flagged, the rate was the pacing's. */
static void on_target_sender_is_not_flagged(void **state)
{
	(void)state;
	struct probe_direction d = dir(48.6e6, 48.6e6); /* 2.8 % short */
	d.limit = (struct probe_limit){.asked_bps = 50e6, .pace_lost_pct = 2};
	limit_judge(&d.limit, &d, NS_PROTO_UDP);
	assert_false(d.limit.sender_limited);
	assert_string_equal(d.limit.cause, "");
	assert_string_equal(d.limit.limited_by, "pacing");
	char w[512];
	limit_warning(&d.limit, "forward", w, sizeof(w));
	assert_string_equal(w, "");
	/* over the rate is no shortfall; a sender that sent nothing is the test's failure */
	d = dir(51e6, 51e6);
	d.limit.asked_bps = 50e6;
	limit_judge(&d.limit, &d, NS_PROTO_UDP);
	assert_true(d.limit.shortfall_pct == 0);
	d = dir(0, 0);
	d.limit.asked_bps = 50e6;
	limit_judge(&d.limit, &d, NS_PROTO_UDP);
	assert_false(d.limit.sender_limited);
}

/* Unpaced: the path, the receiver or the sender's core. */
static void unpaced_names_the_bottleneck(void **state)
{
	(void)state;
	struct probe_direction d = dir(1e9, 0.8e9); /* 20 % lost on the way */
	d.receiver.lost = 1000;
	limit_judge(&d.limit, &d, NS_PROTO_UDP);
	assert_string_equal(d.limit.limited_by, "network");
	d.receiver.socket_drops = 900; /* the receiver's own buffers dropped it */
	limit_judge(&d.limit, &d, NS_PROTO_UDP);
	assert_string_equal(d.limit.limited_by, "receiver_cpu");
	d = dir(30e9, 30e9);
	d.limit.sender_thread_cpu = 99;
	limit_judge(&d.limit, &d, NS_PROTO_TCP);
	assert_string_equal(d.limit.limited_by, "sender_cpu");
	assert_string_equal(limit_words(d.limit.limited_by), "the sender's CPU");
	d.limit = (struct probe_limit){.sender_blocked_pct = 70};
	limit_judge(&d.limit, &d, NS_PROTO_TCP);
	assert_string_equal(d.limit.limited_by, "window");
	d.limit = (struct probe_limit){.sender_thread_cpu = 50};
	limit_judge(&d.limit, &d, NS_PROTO_TCP);
	assert_string_equal(d.limit.limited_by, "");
	/* starved: the sender's thread waited for a CPU a third of its time */
	d.limit = (struct probe_limit){.sender_thread_cpu = 50, .sender_runq_pct = 35};
	limit_judge(&d.limit, &d, NS_PROTO_TCP);
	assert_string_equal(d.limit.limited_by, "sender_cpu");
	d.limit = (struct probe_limit){.receiver_runq_pct = 35};
	limit_judge(&d.limit, &d, NS_PROTO_TCP);
	assert_string_equal(d.limit.limited_by, "receiver_cpu");
	/* a starved receiver fills the sender's buffers: its CPU is the story, not the window */
	d.limit = (struct probe_limit){.sender_blocked_pct = 99, .receiver_runq_pct = 60};
	limit_judge(&d.limit, &d, NS_PROTO_TCP);
	assert_string_equal(d.limit.limited_by, "receiver_cpu");
	d.limit = (struct probe_limit){.sender_blocked_pct = 99, .receiver_runq_pct = 5};
	limit_judge(&d.limit, &d, NS_PROTO_TCP);
	assert_string_equal(d.limit.limited_by, "window");
	/* short, and then short again after the sender: the figure is what came after it */
	d = dir(180e6, 100e6); /* 200 asked into a 100 mbit link */
	d.receiver.lost = 10000;
	d.limit = (struct probe_limit){.asked_bps = 200e6, .pace_lost_pct = 10};
	limit_judge(&d.limit, &d, NS_PROTO_UDP);
	assert_true(d.limit.sender_limited);
	assert_string_equal(d.limit.cause, "pacer_late");
	assert_string_equal(d.limit.limited_by, "network");
	d = dir(80e6, 75.6e6); /* the receiver's own rings dropped 5.4 % */
	d.receiver.lost = d.receiver.socket_drops = 5000;
	d.limit = (struct probe_limit){.asked_bps = 100e6, .sender_runq_pct = 30};
	limit_judge(&d.limit, &d, NS_PROTO_UDP);
	assert_true(d.limit.sender_limited);
	assert_string_equal(d.limit.limited_by, "receiver_cpu");
	d = dir(80e6, 79e6); /* within 3 % of what was offered: the sender's figure */
	d.limit = (struct probe_limit){.asked_bps = 100e6, .sender_runq_pct = 30};
	limit_judge(&d.limit, &d, NS_PROTO_UDP);
	assert_string_equal(d.limit.limited_by, "sender_cpu");
	/* paced and starved without the pacer dropping anything: still a cause */
	d = dir(30e9, 30e9);
	d.limit = (struct probe_limit){.asked_bps = 40e9, .sender_runq_pct = 35};
	limit_judge(&d.limit, &d, NS_PROTO_TCP);
	assert_true(d.limit.sender_limited);
	assert_string_equal(d.limit.cause, "pacer_late");
}

/* How the ends were scheduled changes the cause and the words: a real-time sender that left
 * real time had used its core; a late pacer that was refused real time says how to get it. */
static void sched_names_the_cause(void **state)
{
	(void)state;
	char w[512];
	struct probe_direction d = dir(80e6, 80e6);
	d.limit = (struct probe_limit){.asked_bps = 10e9, .sender_thread_cpu = 40,
				       .sender_runq_pct = 60, .sender_sched = "realtime_dropped"};
	limit_judge(&d.limit, &d, NS_PROTO_UDP);
	assert_true(d.limit.sender_limited);
	assert_string_equal(d.limit.cause, "sender_cpu");
	limit_warning(&d.limit, "forward", w, sizeof(w));
	assert_non_null(strstr(w, "more than a whole core"));
	assert_null(strstr(w, "; "));
	d = dir(37e6, 37e6);
	d.limit = (struct probe_limit){.asked_bps = 50e6, .pace_lost_pct = 25,
				       .sender_sched = "not_permitted"};
	limit_judge(&d.limit, &d, NS_PROTO_UDP);
	assert_string_equal(d.limit.cause, "pacer_late");
	limit_warning(&d.limit, "forward", w, sizeof(w));
	assert_non_null(strstr(w, "CAP_SYS_NICE"));
	assert_null(strstr(w, "; "));
	snprintf(d.limit.sender_sched, sizeof(d.limit.sender_sched), "normal");
	limit_warning(&d.limit, "forward", w, sizeof(w));
	assert_non_null(strstr(w, "real-time scheduling was off"));
	assert_null(strstr(w, "; "));
	/* real time and still late (another real-time task, throttling): the plain words */
	snprintf(d.limit.sender_sched, sizeof(d.limit.sender_sched), "realtime");
	limit_warning(&d.limit, "forward", w, sizeof(w));
	assert_non_null(strstr(w, "pacer woke too late"));
	assert_null(strstr(w, "real-time"));
}

static void steal_from_proc_stat(void **state)
{
	(void)state;
	struct sysstat_cpu a, b;
	struct ns_err err;
	assert_int_equal(sysstat_parse_stat("cpu  100 0 50 800 0 0 0 50 0 0\ncpu0 1 2 3 4\n", &a,
					    &err), 0);
	assert_int_equal(a.total, 1000);
	assert_int_equal(a.steal, 50);
	/* 1000 ticks later, 398 of them stolen: 39.8 % */
	assert_int_equal(sysstat_parse_stat("cpu  300 0 150 1102 0 0 0 448 0 0\n", &b, &err), 0);
	assert_true(sysstat_steal_pct(&a, &b) > 39.79 && sysstat_steal_pct(&a, &b) < 39.81);
	assert_true(sysstat_steal_pct(&b, &a) == 0);
	/* an old kernel's four columns: no steal */
	assert_int_equal(sysstat_parse_stat("cpu 1 2 3 4\n", &a, &err), 0);
	assert_int_equal(a.steal, 0);
	assert_int_equal(sysstat_parse_stat("intr 1 2\n", &a, &err), -1);
	/* this host's own /proc/stat reads */
	assert_int_equal(sysstat_cpu_read(&a, &err), 0);
	assert_true(a.total > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(short_sender_is_flagged_with_its_cause),
		cmocka_unit_test(on_target_sender_is_not_flagged),
		cmocka_unit_test(unpaced_names_the_bottleneck),
		cmocka_unit_test(sched_names_the_cause),
		cmocka_unit_test(steal_from_proc_stat),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
