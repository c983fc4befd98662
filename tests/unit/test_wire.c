/* wire: the 10GbE wire rates the pps-vs-size post charted against, and the TCP payload share. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "runner/host/wire.h"

static void ten_gbe_frame_rates(void **state)
{
	(void)state;
	assert_int_equal(lround(wire_pps(10e9, 64)), 14880952);
	assert_int_equal(lround(wire_pps(10e9, 1518)), 812744);
	/* 1 GbE: one tenth. */
	assert_int_equal(lround(wire_pps(1e9, 64)), 1488095);
	assert_true(wire_pps(10e9, 0) == 0);
	assert_true(wire_pps(0, 64) == 0);
}

static void udp_payload_to_frame(void **state)
{
	(void)state;
	/* 1472 bytes of UDP payload fill a 1518-byte frame; small payloads pad to 64. */
	assert_int_equal(wire_udp4_frame_bytes(1472), 1518);
	assert_int_equal(wire_udp4_frame_bytes(18), 64);
	assert_int_equal(wire_udp4_frame_bytes(0), 64);
	assert_int_equal(wire_udp4_frame_bytes(1), 64);
	assert_int_equal(wire_udp4_frame_bytes(19), 65);
	assert_int_equal(lround(wire_udp4_pps(10e9, 1472)), 812744);
	assert_int_equal(lround(wire_udp4_pps(10e9, 1)), 14880952);
	/* Goodput is pps x payload bits: the v_wire_rate formula link * P / (frame + 20). */
	double g = wire_udp4_goodput_bps(10e9, 1472);
	assert_true(fabs(g - 10e9 * 1472.0 / 1538.0) < 1e-3);
	/* The Scaleway post's 64-byte datagrams on 2.5 Gbit/s: at most 2.40 M/s (it saw 228 k/s). */
	assert_int_equal(lround(wire_udp4_pps(2.5e9, 64)), 2403846);
}

static void tcp_share_of_the_link(void **state)
{
	(void)state;
	assert_true(fabs(wire_tcp_share(1500) - 1448.0 / 1538.0) < 1e-12);
	assert_true(fabs(wire_tcp_share(9001) - 8949.0 / 9039.0) < 1e-12);
	assert_true(wire_tcp_share(1500) < wire_tcp_share(9001));
	assert_true(wire_tcp_share(52) == 0);
	assert_true(wire_tcp_share(0) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ten_gbe_frame_rates),
		cmocka_unit_test(udp_payload_to_frame),
		cmocka_unit_test(tcp_share_of_the_link),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
