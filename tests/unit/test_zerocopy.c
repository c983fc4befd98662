/* -Z over real sockets on 127.0.0.1: MSG_ZEROCOPY completions for TCP and UDP (with and
 * without UDP_SEGMENT), and that zero-copy never changes what arrives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/lib/engine_pairs.h"

/* -Z: MSG_ZEROCOPY sends come back as completions from the error queue, all of them by the
 * end (on loopback the kernel copies them at delivery, and says so). */
static void zerocopy_completions_are_counted(void **state)
{
	(void)state;
	int snd[1], rcv[1];
	tcp_pairs(1, snd, rcv);
	struct engine_cfg rc = { .proto = NS_PROTO_TCP, .role = ENGINE_RECV, .threads = 1 };
	struct engine_cfg sc = { .proto = NS_PROTO_TCP, .role = ENGINE_SEND, .threads = 1,
				 .length = 64 * 1024, .send_duration_s = 0.5, .zerocopy = true };
	struct engine *r = make(&rc, rcv, 1);
	struct engine *s = make(&sc, snd, 1);
	assert_true(wait_done(s, 10));
	engine_join(s);
	assert_true(wait_done(r, 10));
	engine_join(r);
	struct engine_zc z;
	engine_zerocopy(s, &z);
	struct engine_stream_snap ss[1];
	engine_snapshot(s, ss);
	engine_destroy(s);
	engine_destroy(r);
	if (!z.active)
		skip(); /* a kernel without SO_ZEROCOPY: the engine copied, as it says */
	assert_true(z.sends > 100);
	assert_true(z.sends >= ss[0].packets); /* a write may take several sends */
	assert_int_equal(z.completions, z.sends);
	assert_true(z.copied <= z.completions);
}

/* -Z on UDP: every datagram that arrives arrives once and in order (each call writes its
 * headers only into ring slots the kernel has released: a slot reused too early shows as a
 * duplicate or a reordered sequence), and every zero-copy send completes; also with
 * UDP_SEGMENT, one completion per super-datagram. A loaded machine may starve the receiver
 * and overflow its socket: such loss is not the sender's doing, but it must be counted. */
static void udp_zerocopy_run(bool gso)
{
	int snd[2], rcv[2];
	udp_pairs(2, snd, rcv);
	struct engine_cfg rc = { .proto = NS_PROTO_UDP, .role = ENGINE_RECV, .length = 1000 };
	struct engine_cfg sc = { .proto = NS_PROTO_UDP, .role = ENGINE_SEND, .length = 1000,
				 .threads = 1, .rate_bps = gso ? 400000000 : 80000000,
				 .send_bytes = 4000000,
				 .send_duration_s = 60, .zerocopy = true, .gso = gso };
	struct engine *r = make(&rc, rcv, 2);
	struct engine *s = make(&sc, snd, 2);
	assert_true(wait_done(s, 30));
	engine_join(s);
	sleep_s(0.2);
	engine_stop(r);
	assert_true(wait_done(r, 5));
	engine_join(r);
	struct engine_zc z;
	engine_zerocopy(s, &z);
	struct engine_stream_snap ss[2], rs[2];
	engine_snapshot(s, ss);
	engine_snapshot(r, rs);
	bool gso_took = engine_gso_active(s);
	engine_destroy(s);
	engine_destroy(r);
	if (!z.active)
		skip(); /* a kernel without UDP zero-copy (before 5.0): the engine copied, as it says */
	assert_int_equal(z.fallback_errno, 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(ss[i].packets, 2000);
		assert_int_equal(rs[i].out_of_order + rs[i].duplicates, 0);
		assert_int_equal(rs[i].packets + rs[i].lost, rs[i].highest_seq_plus1);
		/* GSO needs a rate at which the pacer builds batches: a starved receiver
		 * then loses more, which the checks above still account for */
		assert_true(rs[i].packets >= (gso ? 1000 : 1800) && rs[i].highest_seq_plus1 <= 2000);
	}
	assert_int_equal(z.completions, z.sends);
	if (gso && gso_took)
		assert_true(z.sends < 4000); /* super-datagrams, not datagrams */
	else
		assert_int_equal(z.sends, 4000);
}

static void udp_zerocopy_keeps_every_datagram(void **state)
{
	(void)state;
	udp_zerocopy_run(false);
	udp_zerocopy_run(true);
}
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(zerocopy_completions_are_counted, ipv4),
		cmocka_unit_test_setup(udp_zerocopy_keeps_every_datagram, ipv4),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
