/* ethstats and niccount on fixture data: ENA's own string set (as `ethtool -S` lists it on an
 * m5/c5 instance, trimmed to two queues) with its allowance counters picked up and the case
 * flagged as shaped by the provider when one moved; the result's documented set (niccount) for
 * ENA and the other drivers; and the ioctl path's errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "runner/host/ethstats.h"
#include "runner/host/niccount.h"

static const char *const ena_names[] = {
	"tx_timeout", "suspend", "resume", "wd_expired", "interface_up", "interface_down",
	"admin_q_pause", "bw_in_allowance_exceeded", "bw_out_allowance_exceeded",
	"pps_allowance_exceeded", "conntrack_allowance_exceeded", "linklocal_allowance_exceeded",
	"conntrack_allowance_available",
	"queue_0_tx_cnt", "queue_0_tx_bytes", "queue_0_tx_queue_stop", "queue_0_tx_queue_wakeup",
	"queue_0_tx_dma_mapping_err", "queue_0_tx_linearize", "queue_0_tx_linearize_failed",
	"queue_0_tx_napi_comp", "queue_0_tx_tx_poll", "queue_0_tx_doorbells",
	"queue_0_tx_prepare_ctx_err", "queue_0_tx_bad_req_id", "queue_0_tx_llq_buffer_copy",
	"queue_0_tx_missed_tx", "queue_0_tx_unmask_interrupt", "queue_0_rx_cnt",
	"queue_0_rx_bytes", "queue_0_rx_rx_copybreak_pkt", "queue_0_rx_csum_good",
	"queue_0_rx_refil_partial", "queue_0_rx_csum_bad", "queue_0_rx_page_alloc_fail",
	"queue_0_rx_skb_alloc_fail", "queue_0_rx_dma_mapping_err", "queue_0_rx_bad_desc_num",
	"queue_0_rx_bad_req_id", "queue_0_rx_empty_rx_ring", "queue_0_rx_csum_unchecked",
	"queue_1_tx_cnt", "queue_1_rx_cnt", "queue_1_rx_page_alloc_fail",
	"ena_admin_q_aborted_cmd", "ena_admin_q_submitted_cmd", "ena_admin_q_completed_cmd",
	"ena_admin_q_out_of_space", "ena_admin_q_no_completion",
};
#define ENA_N (sizeof(ena_names) / sizeof(ena_names[0]))

static uint64_t idx_of(const char *name)
{
	for (size_t i = 0; i < ENA_N; i++)
		if (!strcmp(ena_names[i], name))
			return i;
	fail_msg("no %s in the fixture", name);
	return 0;
}

static void ena_allowance_counters_flag_the_case(void **state)
{
	(void)state;
	uint64_t v0[ENA_N], v1[ENA_N];
	struct ethstats a, b;
	struct ethstats_delta d[64];
	bool shaped = true;
	for (size_t i = 0; i < ENA_N; i++)
		v0[i] = v1[i] = 1000 + i;
	/* traffic moves packet counters and the available-conntrack gauge: not shaping */
	v1[idx_of("queue_0_tx_cnt")] += 500000;
	v1[idx_of("queue_0_rx_cnt")] += 400000;
	v1[idx_of("conntrack_allowance_available")] -= 20;
	assert_int_equal(ethstats_from(&a, ena_names, v0, ENA_N, NULL), 0);
	assert_int_equal(ethstats_from(&b, ena_names, v1, ENA_N, NULL), 0);
	uint32_t n = ethstats_deltas(&a, &b, d, 64, &shaped);
	assert_false(shaped);
	/* the five allowance counters, always, at zero; no drop counter moved */
	assert_int_equal(n, 5);
	const char *five[] = {"bw_in_allowance_exceeded", "bw_out_allowance_exceeded",
			      "pps_allowance_exceeded", "conntrack_allowance_exceeded",
			      "linklocal_allowance_exceeded"};
	for (int i = 0; i < 5; i++) {
		assert_string_equal(d[i].name, five[i]);
		assert_int_equal(d[i].kind, ETHSTATS_ALLOWANCE);
		assert_int_equal(d[i].delta, 0);
	}
	ethstats_free(&b);

	/* the provider held packets back, and a queue ran out of pages */
	v1[idx_of("bw_out_allowance_exceeded")] += 1234;
	v1[idx_of("queue_1_rx_page_alloc_fail")] += 7;
	assert_int_equal(ethstats_from(&b, ena_names, v1, ENA_N, NULL), 0);
	n = ethstats_deltas(&a, &b, d, 64, &shaped);
	assert_true(shaped);
	assert_int_equal(n, 6);
	assert_string_equal(d[1].name, "bw_out_allowance_exceeded");
	assert_int_equal(d[1].delta, 1234);
	assert_string_equal(d[5].name, "queue_1_rx_page_alloc_fail");
	assert_int_equal(d[5].kind, ETHSTATS_DROP);
	assert_int_equal(d[5].delta, 7);
	/* a bound smaller than the set: allowance counters come first */
	assert_int_equal(ethstats_deltas(&a, &b, d, 2, &shaped), 2);
	assert_string_equal(d[1].name, "bw_out_allowance_exceeded");
	ethstats_free(&a);
	ethstats_free(&b);
}

/* The result's documented set (struct probe_nic) from ENA's string set: the five allowance
 * counters by name, the queues' packets summed, drop counters summed; traffic alone does not
 * flag the case, a moved allowance counter does. */
static void ena_fixture_fills_the_result_set(void **state)
{
	(void)state;
	uint64_t v0[ENA_N], v1[ENA_N];
	struct ethstats a, b;
	struct probe_nic n;
	for (size_t i = 0; i < ENA_N; i++)
		v0[i] = v1[i] = 5000 + 3 * i;
	v1[idx_of("queue_0_rx_cnt")] += 400000;
	v1[idx_of("queue_1_rx_cnt")] += 300000;
	v1[idx_of("queue_0_tx_cnt")] += 90000;
	v1[idx_of("queue_1_tx_cnt")] += 10000;
	v1[idx_of("queue_0_rx_bytes")] += 600000000; /* not a packet count */
	v1[idx_of("queue_0_tx_unmask_interrupt")] += 3000; /* not a drop */
	v1[idx_of("conntrack_allowance_available")] -= 20;
	assert_int_equal(ethstats_from(&a, ena_names, v0, ENA_N, NULL), 0);
	assert_int_equal(ethstats_from(&b, ena_names, v1, ENA_N, NULL), 0);
	memset(&n, 0xff, sizeof(n));
	niccount_summary(&a, &b, &n);
	assert_int_equal(n.allowance_counters, 5);
	assert_int_equal(n.bw_in_allowance_exceeded, 0);
	assert_int_equal(n.bw_out_allowance_exceeded, 0);
	assert_int_equal(n.pps_allowance_exceeded, 0);
	assert_int_equal(n.conntrack_allowance_exceeded, 0);
	assert_int_equal(n.linklocal_allowance_exceeded, 0);
	assert_int_equal(n.rx_packets, 700000);
	assert_int_equal(n.tx_packets, 100000);
	assert_int_equal(n.drops, 0);
	assert_false(niccount_shaped(&n));
	ethstats_free(&b);

	/* the provider held packets back on the way out and on packets per second; a queue ran
	 * out of pages and the watchdog fired */
	v1[idx_of("bw_out_allowance_exceeded")] += 1234;
	v1[idx_of("pps_allowance_exceeded")] += 5;
	v1[idx_of("queue_1_rx_page_alloc_fail")] += 7;
	v1[idx_of("tx_timeout")] += 1;
	assert_int_equal(ethstats_from(&b, ena_names, v1, ENA_N, NULL), 0);
	niccount_summary(&a, &b, &n);
	assert_int_equal(n.bw_out_allowance_exceeded, 1234);
	assert_int_equal(n.pps_allowance_exceeded, 5);
	assert_int_equal(n.bw_in_allowance_exceeded, 0);
	assert_int_equal(n.drops, 8);
	assert_true(niccount_shaped(&n));
	/* each of the five alone flags it */
	static const char *const five[] = {"bw_in_allowance_exceeded", "bw_out_allowance_exceeded",
					   "pps_allowance_exceeded", "conntrack_allowance_exceeded",
					   "linklocal_allowance_exceeded"};
	for (int k = 0; k < 5; k++) {
		uint64_t w[ENA_N];
		struct ethstats c;
		memcpy(w, v0, sizeof(w));
		w[idx_of(five[k])] += 1;
		assert_int_equal(ethstats_from(&c, ena_names, w, ENA_N, NULL), 0);
		niccount_summary(&a, &c, &n);
		if (!niccount_shaped(&n))
			fail_msg("%s moving by one did not flag the case", five[k]);
		ethstats_free(&c);
	}
	ethstats_free(&a);
	ethstats_free(&b);
}

/* Packets and drops of the other drivers: a total counter is not added to its queues'
 * (ixgbevf has both), virtio's XDP subset is not added to its packets, veth counts received
 * packets in its XDP path, and an XDP program's own drops are not the driver's. */
static void other_drivers_result_set(void **state)
{
	(void)state;
	const char *ixgbevf[] = {"rx_packets", "tx_packets", "rx_queue_0_packets",
				 "tx_queue_0_packets", "alloc_rx_buff_failed"};
	const char *virtio[] = {"rx_queue_0_packets", "rx_queue_0_xdp_packets", "rx_queue_1_packets",
				"tx_queue_0_packets", "rx_queue_0_drops"};
	const char *veth[] = {"peer_ifindex", "rx_queue_0_xdp_packets", "rx_queue_0_drops",
			      "rx_queue_0_xdp_drops", "tx_queue_0_xdp_xmit"};
	const char *xen[] = {"rx_gso_checksum_fixup"};
	uint64_t z[5] = {0}, m1[5] = {100, 50, 100, 50, 2}, m2[5] = {0, 30, 40, 20, 3},
		 m3[5] = {9, 500, 1, 500, 7};
	struct {
		const char **names;
		const uint64_t *after;
		uint32_t n;
		uint64_t rx, tx, drops;
	} cases[] = {
		{ixgbevf, m1, 5, 100, 50, 2},
		{virtio, m2, 5, 0 + 40, 20, 3},  /* not the XDP subset's 30 */
		{veth, m3, 5, 500, 0, 1},        /* xdp_drops (500) are the XDP program's */
		{xen, m1, 1, 0, 0, 0},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct ethstats a, b;
		struct probe_nic n;
		assert_int_equal(ethstats_from(&a, cases[k].names, z, cases[k].n, NULL), 0);
		assert_int_equal(ethstats_from(&b, cases[k].names, cases[k].after, cases[k].n, NULL), 0);
		niccount_summary(&a, &b, &n);
		if (n.rx_packets != cases[k].rx || n.tx_packets != cases[k].tx ||
		    n.drops != cases[k].drops || n.allowance_counters != 0)
			fail_msg("%s...: rx %llu tx %llu drops %llu, want %llu %llu %llu", cases[k].names[0],
				 (unsigned long long)n.rx_packets, (unsigned long long)n.tx_packets,
				 (unsigned long long)n.drops, (unsigned long long)cases[k].rx,
				 (unsigned long long)cases[k].tx, (unsigned long long)cases[k].drops);
		assert_false(niccount_shaped(&n));
		ethstats_free(&a);
		ethstats_free(&b);
	}
}

/* Counters are matched by name, whatever order the second reading lists them in. */
static void result_set_matches_by_name(void **state)
{
	(void)state;
	const char *n0[] = {"rx_packets", "tx_packets", "bw_out_allowance_exceeded"};
	const char *n1[] = {"bw_out_allowance_exceeded", "tx_packets", "rx_packets"};
	uint64_t v0[] = {10, 20, 30}, v1[] = {31, 25, 17};
	struct ethstats a, b;
	struct probe_nic n;
	assert_int_equal(ethstats_from(&a, n0, v0, 3, NULL), 0);
	assert_int_equal(ethstats_from(&b, n1, v1, 3, NULL), 0);
	niccount_summary(&a, &b, &n);
	assert_int_equal(n.rx_packets, 7);
	assert_int_equal(n.tx_packets, 5);
	assert_int_equal(n.bw_out_allowance_exceeded, 1);
	assert_int_equal(n.allowance_counters, 1);
	assert_true(niccount_shaped(&n));
	ethstats_free(&a);
	ethstats_free(&b);
}

/* Drop and error counters of the other drivers the tool meets, and what is not one. */
static void kinds_of_other_drivers(void **state)
{
	(void)state;
	/* veth and virtio_net */
	assert_int_equal(ethstats_kind("rx_queue_0_drops"), ETHSTATS_DROP);
	assert_int_equal(ethstats_kind("rx_queue_0_xdp_drops"), ETHSTATS_DROP);
	assert_int_equal(ethstats_kind("tx_queue_0_xdp_xmit_errors"), ETHSTATS_DROP);
	assert_int_equal(ethstats_kind("rx_queue_0_xdp_packets"), ETHSTATS_OTHER);
	assert_int_equal(ethstats_kind("peer_ifindex"), ETHSTATS_OTHER);
	/* ixgbevf */
	assert_int_equal(ethstats_kind("tx_timeout_count"), ETHSTATS_DROP);
	assert_int_equal(ethstats_kind("alloc_rx_buff_failed"), ETHSTATS_DROP);
	assert_int_equal(ethstats_kind("rx_csum_offload_errors"), ETHSTATS_DROP);
	assert_int_equal(ethstats_kind("rx_packets"), ETHSTATS_OTHER);
	/* ENA: "err" inside interrupt is no error; its missed completions and mapping errors are */
	assert_int_equal(ethstats_kind("queue_0_tx_unmask_interrupt"), ETHSTATS_OTHER);
	assert_int_equal(ethstats_kind("queue_0_tx_missed_tx"), ETHSTATS_DROP);
	assert_int_equal(ethstats_kind("queue_0_rx_dma_mapping_err"), ETHSTATS_DROP);
	assert_int_equal(ethstats_kind("tx_queue_0_timeouts"), ETHSTATS_DROP);
	/* a name that merely holds the word is not an allowance counter */
	assert_int_equal(ethstats_kind("conntrack_allowance_available"), ETHSTATS_OTHER);
	assert_int_equal(ethstats_kind("_allowance_exceeded"), ETHSTATS_OTHER);
}

/* A counter that went backwards (driver reset) is 0, and one without a baseline is left out. */
static void resets_and_new_counters(void **state)
{
	(void)state;
	const char *n0[] = {"rx_queue_0_drops", "pps_allowance_exceeded"};
	const char *n1[] = {"rx_queue_0_drops", "pps_allowance_exceeded", "rx_queue_1_drops"};
	uint64_t v0[] = {50, 10}, v1[] = {3, 10, 99};
	struct ethstats a, b;
	struct ethstats_delta d[8];
	bool shaped;
	assert_int_equal(ethstats_from(&a, n0, v0, 2, NULL), 0);
	assert_int_equal(ethstats_from(&b, n1, v1, 3, NULL), 0);
	assert_int_equal(ethstats_deltas(&a, &b, d, 8, &shaped), 1);
	assert_string_equal(d[0].name, "pps_allowance_exceeded");
	assert_false(shaped);
	ethstats_free(&a);
	ethstats_free(&b);
}

static void bad_input(void **state)
{
	(void)state;
	struct ethstats s;
	struct ns_err err = {0};
	assert_int_equal(ethstats_read("", &s, &err), -1);
	assert_int_equal(err.code, NS_E_INPUT);
	assert_int_equal(ethstats_read("a-name-far-too-long-for-ifnamsiz", &s, &err), -1);
	/* loopback has no driver statistics: an error, not an empty set taken as zeros */
	int rc = ethstats_read("lo", &s, &err);
	if (rc == 0)
		ethstats_free(&s);
	assert_int_equal(rc, -1);
	assert_int_equal(ethstats_read("netsweep-none0", &s, &err), -1);
}

/* veth's ethtool set counts only XDP packets: the interface's own counters give the packets
 * and bytes the test moved; the drops are the larger of the two sources, never their sum (the
 * driver's are often a finer split of the same drops). */
static void interface_counters_give_packets_and_bytes(void **state)
{
	(void)state;
	static const char *const veth[] = {"peer_ifindex", "rx_queue_0_xdp_packets",
					   "rx_queue_0_xdp_bytes", "rx_queue_0_drops",
					   "tx_queue_0_xdp_xmit_errors"};
	uint64_t v0[] = {7, 0, 0, 0, 0}, v1[] = {7, 0, 0, 3, 0};
	struct ethstats a, b;
	struct probe_nic n;
	assert_int_equal(ethstats_from(&a, veth, v0, 5, NULL), 0);
	assert_int_equal(ethstats_from(&b, veth, v1, 5, NULL), 0);
	memset(&n, 0, sizeof(n));
	niccount_summary(&a, &b, &n);
	assert_int_equal(n.rx_packets, 0); /* what the driver alone says */
	assert_int_equal(n.drops, 3);
	struct linkstats l0 = {.rx_packets = 100, .tx_packets = 50, .rx_bytes = 10000,
			       .tx_bytes = 5000, .rx_dropped = 1},
			 l1 = {.rx_packets = 100100, .tx_packets = 80, .rx_bytes = 10610000,
			       .tx_bytes = 7000, .rx_dropped = 2, .rx_errors = 1},
			 d;
	linkstats_delta(&l0, &l1, &d);
	assert_int_equal(d.rx_packets, 100000);
	assert_int_equal(linkstats_drops(&d), 2);
	niccount_add_link(&d, &n);
	assert_int_equal(n.rx_packets, 100000);
	assert_int_equal(n.tx_packets, 30);
	assert_int_equal(n.rx_bytes, 10600000);
	assert_int_equal(n.tx_bytes, 2000);
	assert_int_equal(n.drops, 3); /* the driver's 3 hold the interface's 2 */
	d.rx_dropped = 9;
	niccount_add_link(&d, &n);
	assert_int_equal(n.drops, 10); /* the interface's 9 + 1 error: more than the driver's */
	/* a reset between the readings counts 0, never a wrapped huge number */
	linkstats_delta(&l1, &l0, &d);
	assert_int_equal(d.rx_packets, 0);
	assert_int_equal(d.tx_bytes, 0);
	ethstats_free(&a);
	ethstats_free(&b);
}

/* The kernel's own statistics of lo are there in any namespace, through rtnetlink: two
 * readings around some traffic grow; an unknown interface is NS_E_IO. */
static void linkstats_reads_lo(void **state)
{
	(void)state;
	struct linkstats a, b;
	struct ns_err err = {0};
	assert_int_equal(linkstats_read("lo", &a, &err), 0);
	assert_int_equal(linkstats_read("lo", &b, &err), 0);
	assert_true(b.rx_packets >= a.rx_packets && b.tx_bytes >= a.tx_bytes);
	assert_int_equal(linkstats_read("no-such-if0", &a, &err), -1);
	assert_int_equal(err.code, NS_E_IO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ena_allowance_counters_flag_the_case),
		cmocka_unit_test(kinds_of_other_drivers),
		cmocka_unit_test(ena_fixture_fills_the_result_set),
		cmocka_unit_test(other_drivers_result_set),
		cmocka_unit_test(result_set_matches_by_name),
		cmocka_unit_test(resets_and_new_counters),
		cmocka_unit_test(bad_input),
		cmocka_unit_test(interface_counters_give_packets_and_bytes),
		cmocka_unit_test(linkstats_reads_lo),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
