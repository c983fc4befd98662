/* Loopback socket pairs and engine helpers shared by the engine's unit tests (test_engine.c,
 * test_zerocopy.c): each program includes it once, after cmocka. */
#ifndef NS_TEST_ENGINE_PAIRS_H
#define NS_TEST_ENGINE_PAIRS_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "runner/engine/engine.h"

#define MAXS 8

static inline double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };
	nanosleep(&ts, NULL);
}

static int family = AF_INET; /* of the loopback pairs below */

/* Timing bounds. By default (make test) ones that hold on a loaded 2-core machine shared
 * with builds: a starved thread makes rates low and stops late, never the other way round.
 * NS_STRICT_TIMING=1 (make bench: tests/bench/engine_timing.sh) asks for the accuracy the
 * engines are built for, on a quiet machine. */
static inline bool strict_timing(void)
{
	const char *s = getenv("NS_STRICT_TIMING");
	return s && !strcmp(s, "1");
}
#define TIMING(strict, loaded) (strict_timing() ? (strict) : (loaded))

static inline socklen_t loopback(struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		return sizeof(*a);
	}
	struct sockaddr_in *a = (struct sockaddr_in *)ss;
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sizeof(*a);
}

static inline void tcp_pairs(uint32_t n, int *snd, int *rcv)
{
	int l = socket(family, SOCK_STREAM, 0);
	assert_true(l >= 0);
	struct sockaddr_storage a;
	socklen_t al = loopback(&a);
	assert_int_equal(bind(l, (struct sockaddr *)&a, al), 0);
	assert_int_equal(listen(l, 64), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&a, &al), 0);
	for (uint32_t i = 0; i < n; i++) {
		snd[i] = socket(family, SOCK_STREAM, 0);
		assert_int_equal(connect(snd[i], (struct sockaddr *)&a, al), 0);
		rcv[i] = accept(l, NULL, NULL);
		assert_true(rcv[i] >= 0);
	}
	close(l);
}

/* Connected UDP pairs; the receiving sockets keep the system's default buffer size, which
 * the engine is expected to raise. */
static inline void udp_pairs(uint32_t n, int *snd, int *rcv)
{
	for (uint32_t i = 0; i < n; i++) {
		struct sockaddr_storage a, b;
		socklen_t al = loopback(&a), bl = loopback(&b);
		snd[i] = socket(family, SOCK_DGRAM, 0);
		rcv[i] = socket(family, SOCK_DGRAM, 0);
		assert_int_equal(bind(snd[i], (struct sockaddr *)&a, al), 0);
		assert_int_equal(bind(rcv[i], (struct sockaddr *)&b, bl), 0);
		assert_int_equal(getsockname(snd[i], (struct sockaddr *)&a, &al), 0);
		assert_int_equal(getsockname(rcv[i], (struct sockaddr *)&b, &bl), 0);
		assert_int_equal(connect(snd[i], (struct sockaddr *)&b, bl), 0);
		assert_int_equal(connect(rcv[i], (struct sockaddr *)&a, al), 0);
	}
}

static inline struct engine *make(const struct engine_cfg *cfg, const int *fds, uint32_t n)
{
	struct ns_err err = {0};
	struct engine *e = engine_create(cfg, fds, n, &err);
	if (!e)
		fail_msg("engine_create: %s", err.msg);
	if (engine_start(e, &err) < 0)
		fail_msg("engine_start: %s", err.msg);
	return e;
}

/* Bounds are generous: colleagues' tests run netsweep at a raised priority on this 2-core
 * machine and a thread of ours was seen waiting seconds for a CPU. Timing is checked where
 * it is the point (stop_is_honoured_quickly). */
static inline bool wait_done(struct engine *e, double timeout_s)
{
	double end = now_s() + timeout_s;
	while (!engine_done(e) && now_s() < end)
		sleep_s(0.005);
	return engine_done(e);
}

static inline int ipv4(void **state)
{
	(void)state;
	family = AF_INET;
	return 0;
}

#endif
