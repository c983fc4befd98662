/* probe_params: the defaults and the one validation pass shared by the CLI, the matrix loader
 * and the agent (which re-checks every TEST_REQUEST). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runner/proto/dscp.h"
#include "runner/proto/probe.h"
#include "runner/session/session.h"

static struct probe_params base(void)
{
	struct probe_params p;
	probe_params_init(&p);
	snprintf(p.host, sizeof(p.host), "127.0.0.1");
	return p;
}

/* Expects probe_params_check to fail with a message containing want. */
static void refused(const struct probe_params *p, const char *want)
{
	struct ns_err err = {0};
	assert_int_equal(probe_params_check(p, &err), -1);
	if (!strstr(err.msg, want))
		fail_msg("message '%s' does not mention '%s'", err.msg, want);
	assert_null(strchr(err.msg, '\n')); /* one line */
}

static void defaults_are_valid(void **state)
{
	(void)state;
	struct probe_params p = base();
	assert_int_equal(probe_params_check(&p, NULL), 0);
	assert_int_equal(p.port, NS_DEFAULT_PORT);
	assert_int_equal(p.proto, NS_PROTO_TCP);
	assert_int_equal(p.streams, 1);
	assert_int_equal(p.threads, 0);
	assert_true(p.duration_s == 10 && p.interval_s == 1 && p.omit_s == 0);
	assert_true(p.connect_timeout_s == 5);
	assert_string_equal(ns_proto_name(NS_PROTO_UDP), "udp");
	assert_string_equal(ns_dir_name(NS_DIR_BIDIR), "bidir");
	assert_string_equal(ns_dir_name(NS_DIR_REVERSE), "reverse");
}

static void stream_and_thread_ranges(void **state)
{
	(void)state;
	struct probe_params p = base();
	p.streams = 0;
	refused(&p, "streams");
	p.streams = NS_MAX_STREAMS + 1;
	refused(&p, "streams");
	p.streams = NS_MAX_STREAMS;
	assert_int_equal(probe_params_check(&p, NULL), 0);
	p.threads = NS_MAX_THREADS + 1;
	refused(&p, "threads");
	/* more threads than streams is not an error: the engine cannot use them, so it gets
	 * min(threads, streams) — a matrix sweeping streams keeps one thread setting */
	p = base();
	p.streams = 2;
	p.threads = 8;
	assert_int_equal(probe_params_check(&p, NULL), 0);
	assert_int_equal(session_threads(&p), 2);
	p.threads = 0;
	p.streams = 1;
	assert_int_equal(session_threads(&p), 1);
}

static void udp_length_has_a_clear_range(void **state)
{
	(void)state;
	struct probe_params p = base();
	p.proto = NS_PROTO_UDP;
	p.length = 15;
	refused(&p, "16..65507");
	p.length = 65508;
	refused(&p, "UDP length 65508");
	p.length = 16;
	assert_int_equal(probe_params_check(&p, NULL), 0);
	p.length = 65507;
	assert_int_equal(probe_params_check(&p, NULL), 0);
	p.proto = NS_PROTO_TCP;
	p.length = NS_TCP_MAX_LEN + 1;
	refused(&p, "TCP length");
}

static void times_are_bounded_and_never_nan(void **state)
{
	(void)state;
	struct probe_params p = base();
	p.duration_s = 0;
	refused(&p, "duration");
	p.duration_s = NAN;
	refused(&p, "duration");
	p.duration_s = NS_MAX_DURATION_S + 1;
	refused(&p, "duration");
	p = base();
	p.omit_s = -1;
	refused(&p, "omit");
	p.omit_s = NS_MAX_DURATION_S;
	refused(&p, "omit");
	p = base();
	p.interval_s = 0.005;
	refused(&p, "interval");
	p.interval_s = 0.01; /* 10 ms intervals show pacing bursts and shaping knees */
	assert_int_equal(probe_params_check(&p, NULL), 0);
	p.interval_s = 0;
	assert_int_equal(probe_params_check(&p, NULL), 0);
	p.interval_s = 0.1;
	p.duration_s = 86400;
	refused(&p, "too many intervals");
	p = base();
	p.connect_timeout_s = 0;
	refused(&p, "connect timeout");
	p.connect_timeout_s = INFINITY;
	refused(&p, "connect timeout");
	p = base();
	p.timeout_s = 5; /* shorter than the 10 s test */
	refused(&p, "timeout");
}

static void conflicting_options(void **state)
{
	(void)state;
	struct probe_params p = base();
	p.gso = true;
	refused(&p, "--gso applies to UDP");
	p = base();
	p.proto = NS_PROTO_UDP;
	p.mss = 1400;
	refused(&p, "TCP only");
	p.mss = 0;
	snprintf(p.congestion, sizeof(p.congestion), "bbr");
	refused(&p, "TCP only");
	p = base();
	p.mss = 10;
	refused(&p, "MSS");
	p.mss = 1400;
	assert_int_equal(probe_params_check(&p, NULL), 0);
	snprintf(p.congestion, sizeof(p.congestion), "bb r");
	refused(&p, "congestion");
	p = base();
	p.window = 0x80000000u;
	refused(&p, "window");
	p = base();
	p.port = 0;
	refused(&p, "port");
	p = base();
	p.dir = (enum ns_dir)7;
	refused(&p, "direction");
	p = base();
	snprintf(p.psk_file, sizeof(p.psk_file), "/etc/key"); /* the client's own key file */
	assert_int_equal(probe_params_check(&p, NULL), 0);
}

static void affinity_lists_are_parsed(void **state)
{
	(void)state;
	struct probe_params p = base();
	snprintf(p.affinity, sizeof(p.affinity), "0-1,x");
	refused(&p, "affinity");
	snprintf(p.affinity, sizeof(p.affinity), "0");
	assert_int_equal(probe_params_check(&p, NULL), 0);
	int cpus[8];
	uint32_t n;
	assert_int_equal(session_cpus(&p, false, cpus, 8, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_int_equal(cpus[0], 0);
	/* a CPU this host does not have is refused by the end that would pin to it */
	snprintf(p.affinity, sizeof(p.affinity), "4000");
	assert_int_equal(probe_params_check(&p, NULL), 0);
	struct ns_err err = {0};
	assert_int_equal(session_cpus(&p, false, cpus, 8, &n, &err), -1);
	assert_non_null(strstr(err.msg, "does not exist"));
	/* an unterminated text field (from a broken caller) is refused, not read past */
	p = base();
	memset(p.congestion, 'a', sizeof(p.congestion));
	refused(&p, "not terminated");
}

/* -B, --cport, -4/-6, -S, -n, -k (issue 17). */
static void source_marking_and_amount(void **state)
{
	(void)state;
	struct probe_params p = base();
	snprintf(p.bind, sizeof(p.bind), "10.0.0.5");
	p.cport = 40000;
	p.streams = 4;
	p.tos = 0xb8;
	assert_int_equal(probe_params_check(&p, NULL), 0);
	p.family = 6;
	refused(&p, "is not IPv6");
	p.family = 4;
	assert_int_equal(probe_params_check(&p, NULL), 0);
	snprintf(p.bind, sizeof(p.bind), "fe80::1");
	refused(&p, "is not IPv4");
	snprintf(p.bind, sizeof(p.bind), "host.example");
	refused(&p, "numeric");
	p = base();
	p.family = 5;
	refused(&p, "family");
	p = base();
	p.cport = 65533;
	p.streams = 3;
	assert_int_equal(probe_params_check(&p, NULL), 0); /* 65533..65535 */
	p.dir = NS_DIR_BIDIR;                               /* 6 data streams */
	refused(&p, "65533..65538");
	p = base();
	p.tos = 256;
	refused(&p, "TOS");
	p = base();
	p.bytes = 1000;
	p.blocks = 10;
	refused(&p, "exclude");
	/* the amount: bytes, or blocks of the length (default 128 KiB TCP, 1460 UDP) */
	p.blocks = 0;
	assert_int_equal(probe_params_amount(&p), 1000);
	p.bytes = 0;
	p.blocks = 10;
	assert_int_equal(probe_params_amount(&p), 10 * 128 * 1024);
	p.proto = NS_PROTO_UDP;
	assert_int_equal(probe_params_amount(&p), 14600);
	p.length = 64;
	assert_int_equal(probe_params_amount(&p), 640);
}

/* DSCP names and values against RFC 2474 / 2597 / 3246 / 5865 code points. */
static void dscp_names_and_values(void **state)
{
	(void)state;
	static const struct { const char *in; uint32_t tos; } ok[] = {
		{"EF", 46 << 2}, {"ef", 0xb8}, {"AF41", 34 << 2}, {"af11", 10 << 2},
		{"AF43", 38 << 2}, {"CS0", 0}, {"CS7", 56 << 2}, {"CS1", 8 << 2}, {"VA", 44 << 2},
		{"voice-admit", 44 << 2}, {"0", 0}, {"63", 252}, {"0x2e", 0xb8},
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		uint32_t tos = 999;
		struct ns_err err = {0};
		if (dscp_parse(ok[i].in, &tos, &err) < 0)
			fail_msg("'%s' refused: %s", ok[i].in, err.msg);
		assert_int_equal(tos, ok[i].tos);
	}
	static const char *bad[] = {"64", "-1", "", "EF1", "AF44", "CS8", "1.5", "0x40"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint32_t tos;
		struct ns_err err = {0};
		assert_int_equal(dscp_parse(bad[i], &tos, &err), -1);
		assert_int_equal(err.code, NS_E_USAGE);
	}
	uint32_t tos;
	assert_int_equal(dscp_parse_tos("0xb8", &tos, NULL), 0);
	assert_int_equal(tos, 184);
	assert_int_equal(dscp_parse_tos("16", &tos, NULL), 0);
	assert_int_equal(tos, 16);
	assert_int_equal(dscp_parse_tos("256", &tos, NULL), -1);
	char name[16];
	dscp_name(46, name, sizeof(name));
	assert_string_equal(name, "EF");
	dscp_name(34, name, sizeof(name));
	assert_string_equal(name, "AF41");
	dscp_name(44, name, sizeof(name));
	assert_string_equal(name, "VA");
	dscp_name(5, name, sizeof(name));
	assert_string_equal(name, "5");
}

/* Long-run mode: until sustained with a steady time of at least 4 intervals, below the
 * duration (the bound), never with an amount; a steady time alone means nothing. */
static void until_sustained(void **state)
{
	(void)state;
	struct probe_params p = base();
	snprintf(p.until, sizeof(p.until), "sustained");
	p.duration_s = 60;
	p.interval_s = 0.25;
	p.steady_s = 3;
	assert_int_equal(probe_params_check(&p, NULL), 0);
	p.steady_s = 0.75;
	refused(&p, "steady 0.75 s out of range");
	p.steady_s = 60;
	refused(&p, "less than the duration");
	p.steady_s = 3;
	p.interval_s = 0;
	refused(&p, "needs an interval");
	p.interval_s = 0.25;
	p.bytes = 1000000;
	refused(&p, "not with an amount");
	p.bytes = 0;
	snprintf(p.until, sizeof(p.until), "steady");
	refused(&p, "until 'steady': expected sustained");
	p.until[0] = '\0';
	refused(&p, "a steady time goes with until sustained");
	p.steady_s = 0;
	assert_int_equal(probe_params_check(&p, NULL), 0);
	memset(p.until, 'x', sizeof(p.until)); /* from the wire: no NUL */
	refused(&p, "not terminated");
}

/* --engine: socket, xdp, xdp-rx, the last two with ",socket" for the fallback; AF_XDP
 * carries UDP only and has no GSO. */
static void engine_names(void **state)
{
	(void)state;
	static const struct { const char *v; enum engine_kind kind; bool fallback; } ok[] = {
		{"", ENGINE_SOCKET, false}, {"socket", ENGINE_SOCKET, false},
		{"xdp", ENGINE_XDP, false}, {"xdp-rx", ENGINE_XDP_RX, false},
		{"xdp,socket", ENGINE_XDP, true}, {"xdp-rx,socket", ENGINE_XDP_RX, true},
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct probe_params p = base();
		p.proto = NS_PROTO_UDP;
		snprintf(p.engine, sizeof(p.engine), "%s", ok[i].v);
		assert_int_equal(probe_params_check(&p, NULL), 0);
		assert_int_equal(probe_engine_kind(&p), ok[i].kind);
		assert_int_equal(probe_engine_fallback(&p), ok[i].fallback);
	}
	static const char *const bad[] = {"xdpx", "xd", "socket,socket", "xdp,", "xdp,xdp",
					  "xdp,socket,socket", "xdp-rx,sock", "xdp-count", ",socket"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct probe_params p = base();
		p.proto = NS_PROTO_UDP;
		snprintf(p.engine, sizeof(p.engine), "%s", bad[i]);
		refused(&p, "expected socket, xdp or xdp-rx");
	}
	struct probe_params p = base();
	snprintf(p.engine, sizeof(p.engine), "xdp-rx,socket");
	refused(&p, "sends UDP");
	p.proto = NS_PROTO_UDP;
	p.gso = true;
	refused(&p, "--gso");
}

/* Request/response: the defaults resolve to the protocol's least sizes, UDP keeps room for its
 * sequence number, and a throughput test's own options are refused with it. */
static void request_response(void **state)
{
	(void)state;
	struct probe_params p = base();
	uint32_t req, resp;
	p.rr_request = 10;
	refused(&p, "go with --rr"); /* sizes without --rr */
	p = base();
	memcpy(p.rr, "rr", 3);
	assert_int_equal(probe_params_check(&p, NULL), 0);
	probe_rr_sizes(&p, &req, &resp);
	assert_true(req == 1 && resp == 1);
	p.proto = NS_PROTO_UDP;
	probe_rr_sizes(&p, &req, &resp);
	assert_true(req == ENGINE_RR_SEQ_LEN && resp == ENGINE_RR_SEQ_LEN);
	assert_int_equal(probe_params_check(&p, NULL), 0);
	p.rr_request = 4;
	refused(&p, "out of range");
	p.rr_request = 0;
	p.rr_response = ENGINE_RR_MAX_LEN + 1;
	refused(&p, "out of range");
	p.rr_response = 0;
	p.rr_rate = -1;
	refused(&p, "rr rate");
	p.rr_rate = 1000;
	assert_int_equal(probe_params_check(&p, NULL), 0);
	p.dir = NS_DIR_REVERSE;
	refused(&p, "request/response");
	p.dir = NS_DIR_FORWARD;
	p.rate_bps = 1000000;
	refused(&p, "request/response");
	p.rate_bps = 0;
	memcpy(p.rr, "xrr", 4);
	refused(&p, "expected rr or crr");
	memcpy(p.rr, "crr", 4); /* TCP_CRR: TCP only, no fixed source port */
	refused(&p, "TCP_CRR");
	p.proto = NS_PROTO_TCP;
	assert_int_equal(probe_params_check(&p, NULL), 0);
	assert_string_equal(probe_rr_test(&p), "tcp_crr");
	p.cport = 40000;
	refused(&p, "TCP_CRR");
}

/* A latency probe: its own sizes, rate and idle window in range, never beside a
 * request/response test or the XDP engine; its test is one forward request/response stream
 * of the load's duration with none of the load's own options. */
static void latency_probe(void **state)
{
	(void)state;
	struct probe_params p = base(), lp;
	p.lat_rate = 10;
	refused(&p, "go with --latency-probe");
	p = base();
	memcpy(p.lat_probe, "tcp", 4);
	assert_int_equal(probe_params_check(&p, NULL), 0);
	p.streams = 8;
	p.rate_bps = 1000000;
	p.dir = NS_DIR_BIDIR;
	p.cport = 40000;
	p.omit_s = 2;
	p.interval_s = 0.5;
	snprintf(p.congestion, sizeof(p.congestion), "cubic");
	assert_int_equal(probe_params_check(&p, NULL), 0);
	memcpy(p.lat_probe, "udp", 4); /* UDP beside TCP: congestion is the load's, not its */
	assert_int_equal(probe_params_check(&p, NULL), 0);
	probe_lat_params(&p, &lp);
	assert_int_equal(probe_params_check(&lp, NULL), 0);
	assert_int_equal(lp.proto, NS_PROTO_UDP);
	assert_string_equal(probe_rr_test(&lp), "udp_rr");
	assert_true(lp.streams == 1 && lp.dir == NS_DIR_FORWARD && lp.rate_bps == 0 &&
		    lp.cport == 0 && !lp.congestion[0] && !lp.lat_probe[0]);
	assert_true(lp.omit_s == 2 && lp.duration_s == p.duration_s);
	/* its loaded series on the load's interval clock (a delegated run carries it whole) */
	assert_true(lp.rr_rate == PROBE_LAT_RATE && lp.interval_s == p.interval_s);
	assert_true(probe_lat_idle_s(&p) == PROBE_LAT_IDLE_S);
	p.lat_size = 4; /* UDP_RR carries an 8-byte sequence number */
	refused(&p, "latency probe");
	p.lat_size = 100;
	p.lat_rate = -1;
	refused(&p, "latency rate");
	p.lat_rate = 0;
	p.lat_idle_s = PROBE_LAT_MAX_IDLE_S + 1;
	refused(&p, "idle window");
	p.lat_idle_s = 0.5;
	assert_int_equal(probe_params_check(&p, NULL), 0);
	probe_lat_params(&p, &lp);
	assert_true(lp.rr_request == 100 && lp.rr_response == 100);
	assert_true(probe_lat_idle_s(&p) == 0.5);
	memcpy(p.lat_probe, "sctp", 5);
	refused(&p, "expected tcp or udp");
	p = base();
	memcpy(p.lat_probe, "tcp", 4);
	memcpy(p.rr, "rr", 3);
	refused(&p, "not a request/response test");
	p = base();
	p.proto = NS_PROTO_UDP;
	memcpy(p.lat_probe, "udp", 4);
	snprintf(p.engine, sizeof(p.engine), "xdp");
	refused(&p, "socket engine");
}

/* A group case's common start: 0 (at once) or at most PROBE_START_AT_MAX_S ahead. */
/* QUIC: bulk transfer over the socket engine, either direction and several connections; the
 * options of another transport or engine are refused in one line. */
static void quic_bulk_only(void **state)
{
	(void)state;
	struct probe_params p = base();
	p.proto = NS_PROTO_QUIC;
	p.streams = 4;
	p.dir = NS_DIR_BIDIR;
	assert_int_equal(probe_params_check(&p, NULL), 0);
	assert_string_equal(ns_proto_name(NS_PROTO_QUIC), "quic");
	memcpy(p.rr, "rr", 3);
	refused(&p, "QUIC is bulk transfer");
	p = base();
	p.proto = NS_PROTO_QUIC;
	snprintf(p.engine, sizeof(p.engine), "xdp");
	refused(&p, "QUIC is bulk transfer");
	p = base();
	p.proto = NS_PROTO_QUIC;
	p.length = 1200;
	refused(&p, "QUIC is bulk transfer");
	p = base();
	p.proto = NS_PROTO_QUIC;
	p.gso = true;
	refused(&p, "QUIC uses UDP GSO by itself");
	p = base();
	p.proto = NS_PROTO_QUIC;
	snprintf(p.congestion, sizeof(p.congestion), "bbr");
	refused(&p, "TCP only");
	p = base();
	p.proto = (enum ns_proto)3;
	refused(&p, "unknown protocol 3");
}

static void start_at_bounded(void **state)
{
	(void)state;
	struct probe_params p;
	probe_params_init(&p);
	snprintf(p.host, sizeof(p.host), "127.0.0.1");
	assert_int_equal(probe_params_check(&p, NULL), 0);
	p.start_at = probe_wall_now() + 2;
	assert_int_equal(probe_params_check(&p, NULL), 0);
	p.start_at = probe_wall_now() - 3600; /* past: at once */
	assert_int_equal(probe_params_check(&p, NULL), 0);
	p.start_at = probe_wall_now() + PROBE_START_AT_MAX_S + 60;
	refused(&p, "start_at");
	p.start_at = -1;
	refused(&p, "start_at");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quic_bulk_only),
		cmocka_unit_test(start_at_bounded),
		cmocka_unit_test(defaults_are_valid),
		cmocka_unit_test(stream_and_thread_ranges),
		cmocka_unit_test(udp_length_has_a_clear_range),
		cmocka_unit_test(times_are_bounded_and_never_nan),
		cmocka_unit_test(conflicting_options),
		cmocka_unit_test(affinity_lists_are_parsed),
		cmocka_unit_test(source_marking_and_amount),
		cmocka_unit_test(dscp_names_and_values),
		cmocka_unit_test(until_sustained),
		cmocka_unit_test(engine_names),
		cmocka_unit_test(request_response),
		cmocka_unit_test(latency_probe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
