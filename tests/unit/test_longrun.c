/* The client's half of long-run mode (runner/client/longrun.c) without sockets: the agent's
 * live RESULT_INTERVALS chunks of a forward test feed the stop rule in order, a chunk out of
 * order or for a direction the agent does not receive is a protocol error, a test that did
 * not ask gets none, and the result says how the test ended. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "runner/client/longrun.h"
#include "runner/proto/proto.h"

static struct probe_params long_params(void)
{
	struct probe_params p;
	probe_params_init(&p);
	snprintf(p.until, sizeof(p.until), "sustained");
	p.steady_s = 2;
	p.interval_s = 0.25;
	p.duration_s = 60;
	return p;
}

/* Chunk of intervals [first, first + n) of a series: 200 Mbit/s for 2 s, then 40. */
static void chunk(struct proto_buf *b, uint8_t dir, uint32_t first, uint32_t n)
{
	struct probe_interval v[64];
	assert_true(n <= 64);
	for (uint32_t i = 0; i < n; i++) {
		double t = (first + i) * 0.25;
		v[i] = (struct probe_interval){.start_s = t, .end_s = t + 0.25, .stream = -1,
					       .bits_per_second = t < 2 ? 200e6 : 40e6};
	}
	b->len = 0;
	proto_enc_intervals(b, dir, first, v, n);
}

/* One end of the client's, as run() sets it up. */
static void one_end(struct session_end *e, enum ns_dir dir, enum engine_role role)
{
	memset(e, 0, sizeof(*e));
	e->dir = dir;
	e->role = role;
}

static void agent_series_stops_the_test(void **state)
{
	(void)state;
	struct probe_params p = long_params();
	struct longrun l;
	struct ns_err err = {0};
	struct session_end ends[1];
	one_end(&ends[0], NS_DIR_FORWARD, ENGINE_SEND); /* the agent's series is the receiver's */
	struct probe_result res = {0};
	struct proto_buf b;
	proto_buf_init(&b);
	assert_int_equal(longrun_init(&l, &p, &err), 0);
	assert_true(l.on);
	uint32_t sent = 0;
	bool stopped = false;
	while (!stopped && sent < 200) { /* as the agent sends: a few intervals at a time */
		chunk(&b, NS_DIR_FORWARD, sent, 3);
		if (longrun_agent(&l, ends, 1, b.p, (uint32_t)b.len, &err) < 0)
			fail_msg("longrun_agent: %s", err.msg);
		sent += 3;
		stopped = longrun_reached(&l, ends, 1);
	}
	/* the step at 2 s, then 2 s of level: stopped by ~4.5 s of series */
	assert_true(stopped);
	assert_true(sent * 0.25 >= 4.0 && sent * 0.25 <= 5.5);
	longrun_ended(&l, 1, &res);
	assert_string_equal(res.ended, "sustained");
	/* a chunk that skips intervals, or of the direction the agent sends, is refused */
	chunk(&b, NS_DIR_FORWARD, sent + 1, 2);
	assert_int_equal(longrun_agent(&l, ends, 1, b.p, (uint32_t)b.len, &err), -1);
	assert_int_equal(err.code, NS_E_PROTOCOL);
	chunk(&b, NS_DIR_REVERSE, 0, 2);
	assert_int_equal(longrun_agent(&l, ends, 1, b.p, (uint32_t)b.len, &err), -1);
	longrun_free(&l);
	proto_buf_free(&b);
}

static void flat_series_ends_at_the_duration(void **state)
{
	(void)state;
	struct probe_params p = long_params();
	struct longrun l;
	struct ns_err err = {0};
	struct session_end ends[1];
	one_end(&ends[0], NS_DIR_REVERSE, ENGINE_RECV); /* reverse: this end's own series */
	struct probe_interval own[40];
	for (uint32_t i = 0; i < 40; i++)
		own[i] = (struct probe_interval){.start_s = i * 0.25, .end_s = (i + 1) * 0.25,
						 .stream = -1, .bits_per_second = 100e6};
	ends[0].ivl = own;
	ends[0].n_ivl = 40;
	assert_int_equal(longrun_init(&l, &p, &err), 0);
	assert_false(longrun_reached(&l, ends, 1));
	struct probe_result res = {0};
	longrun_ended(&l, 1, &res);
	assert_string_equal(res.ended, "duration");
	longrun_free(&l);
	/* a test that did not ask: nothing live, no verdict */
	p.until[0] = '\0';
	assert_int_equal(longrun_init(&l, &p, &err), 0);
	assert_false(longrun_reached(&l, ends, 1));
	struct proto_buf b;
	proto_buf_init(&b);
	chunk(&b, NS_DIR_FORWARD, 0, 2);
	assert_int_equal(longrun_agent(&l, ends, 1, b.p, (uint32_t)b.len, &err), -1);
	memset(&res, 0, sizeof(res));
	longrun_ended(&l, 1, &res);
	assert_string_equal(res.ended, "");
	longrun_free(&l);
	proto_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(agent_series_stops_the_test),
		cmocka_unit_test(flat_series_ends_at_the_duration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
