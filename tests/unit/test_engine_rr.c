/* The request/response engine over real sockets on 127.0.0.1: every answered transaction is in
 * the requester's histogram once (count == its transactions; the answerer's count at most one
 * more per stream, in flight at the end), the
 * percentiles are monotone within the histogram's range, a paced requester never exceeds its
 * rate, a UDP datagram that is not a request goes unanswered, and the sizes are checked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/lib/engine_pairs.h"
#include "lib/lathist.h"

static struct engine_cfg rr_cfg(enum ns_proto proto, enum engine_role role, uint32_t threads)
{
	return (struct engine_cfg){.proto = proto, .role = role, .threads = threads,
				   .rr = ENGINE_RR, .rr_request = 100, .rr_response = 3000,
				   .send_duration_s = role == ENGINE_SEND ? 0.4 : 0};
}

/* Runs a requester over n pairs until it stops by itself, then the answerer to the end;
 * returns the merged histogram in h and the two engines' transaction counts. */
static void run_pair(enum ns_proto proto, uint32_t n, uint32_t cthreads, uint32_t sthreads,
		     double rate, struct lathist *h, uint64_t *client_tx, uint64_t *server_tx,
		     uint64_t *lost)
{
	int snd[MAXS], rcv[MAXS];
	if (proto == NS_PROTO_TCP)
		tcp_pairs(n, snd, rcv);
	else
		udp_pairs(n, snd, rcv);
	struct engine_cfg sc = rr_cfg(proto, ENGINE_RECV, sthreads);
	struct engine_cfg cc = rr_cfg(proto, ENGINE_SEND, cthreads);
	cc.rr_rate = rate;
	if (rate > 0)
		cc.send_duration_s = 1.0; /* long enough that a starved answerer still answers some */
	if (proto == NS_PROTO_UDP) {
		cc.rr_response = sc.rr_response = 1400;
		/* a datagram that is not a request: the wrong length */
		char junk[7] = "junk";
		assert_int_equal(send(snd[0], junk, sizeof(junk), 0), (ssize_t)sizeof(junk));
	}
	struct engine *srv = make(&sc, rcv, n);
	struct engine *cli = make(&cc, snd, n);
	assert_true(wait_done(cli, 30));
	engine_join(cli);
	for (uint32_t i = 0; proto == NS_PROTO_TCP && i < n; i++)
		shutdown(snd[i], SHUT_WR); /* the answerer ends at EOF */
	if (proto == NS_PROTO_UDP) {
		sleep_s(0.1);
		engine_stop(srv);
	}
	assert_true(wait_done(srv, 30));
	engine_join(srv);
	struct engine_stream_snap cs[MAXS], ss[MAXS];
	engine_snapshot(cli, cs);
	engine_snapshot(srv, ss);
	engine_latency(cli, h);
	*client_tx = *server_tx = *lost = 0;
	for (uint32_t i = 0; i < n; i++) {
		*client_tx += cs[i].packets;
		*server_tx += ss[i].packets;
		*lost += cs[i].lost;
		assert_int_equal(cs[i].bytes, cs[i].packets * cc.rr_request);
		assert_int_equal(cs[i].error, 0);
	}
	struct lathist empty;
	engine_latency(srv, &empty);
	assert_int_equal(empty.count, 0); /* the answerer times nothing */
	engine_destroy(cli);
	engine_destroy(srv);
}

static void check_histogram(const struct lathist *h, uint64_t tx)
{
	struct lathist_summary s;
	lathist_summarize(h, &s);
	assert_int_equal(s.count, tx);
	assert_true(s.min_ns > 0);
	assert_true(s.min_ns <= s.p50_ns && s.p50_ns <= s.p90_ns && s.p90_ns <= s.p99_ns &&
		    s.p99_ns <= s.p999_ns && s.p999_ns <= s.max_ns);
	assert_true(s.mean_ns >= s.min_ns && s.mean_ns <= s.max_ns);
}

static void tcp_rr_every_transaction_counted(void **state)
{
	(void)state;
	struct lathist h;
	uint64_t ctx, stx, lost;
	/* 3 streams on one requester thread (non-blocking, ppoll), one answerer thread each
	 * (blocking calls) */
	run_pair(NS_PROTO_TCP, 3, 1, 3, 0, &h, &ctx, &stx, &lost);
	assert_true(ctx > 0);
	/* a request in flight at the requester's deadline is answered but never timed */
	assert_true(stx >= ctx && stx <= ctx + 3);
	assert_int_equal(lost, 0);
	check_histogram(&h, ctx);
	/* the other way round */
	run_pair(NS_PROTO_TCP, 2, 2, 1, 0, &h, &ctx, &stx, &lost);
	assert_true(ctx > 0);
	assert_true(stx >= ctx && stx <= ctx + 2);
	check_histogram(&h, ctx);
}

static void udp_rr_paced_within_rate(void **state)
{
	(void)state;
	struct lathist h;
	uint64_t ctx, stx, lost;
	/* 300/s over 1 s on 2 streams: at most 300 starts (a late one does not move the
	 * schedule, so catching up never exceeds it), plus the one each stream starts at 0 */
	run_pair(NS_PROTO_UDP, 2, 1, 1, 300, &h, &ctx, &stx, &lost);
	assert_true(ctx > 0);
	assert_true(ctx + lost <= 300 + 2);
	assert_true(stx >= ctx); /* a lost response was still answered */
	check_histogram(&h, ctx);
}

static void rr_sizes_are_checked(void **state)
{
	(void)state;
	int snd[1], rcv[1];
	udp_pairs(1, snd, rcv);
	struct engine_cfg c = rr_cfg(NS_PROTO_UDP, ENGINE_SEND, 1);
	c.rr_request = ENGINE_RR_SEQ_LEN - 1; /* no room for the sequence number */
	struct ns_err err = {0};
	assert_null(engine_create(&c, snd, 1, &err));
	c.rr_request = 100;
	c.rr_response = ENGINE_RR_MAX_LEN + 1;
	assert_null(engine_create(&c, snd, 1, &err));
	close(snd[0]);
	close(rcv[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(tcp_rr_every_transaction_counted, ipv4),
		cmocka_unit_test_setup(udp_rr_paced_within_rate, ipv4),
		cmocka_unit_test_setup(rr_sizes_are_checked, ipv4),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
