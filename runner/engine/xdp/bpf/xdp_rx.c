/* xdp_rx: the XDP engine's receiver with full accounting. Datagrams of a test's flows (to the
 * test's IPv4 address, UDP source and destination port listed in `flows` by user space,
 * payload of the test's length) go to the AF_XDP socket of the queue they arrived on, where
 * user space does the sequence accounting; every other packet passes untouched, and so does
 * the test's own flow on a queue without a socket (the redirect's fallback action). */
#include "udp4.h"

/* key: UDP source port << 16 | destination port (host order); value unused */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u32);
} flows SEC(".maps");

/* receive queue -> AF_XDP socket; 64 as the engine's bound on queues (XDP_RX_MAX_QUEUES) */
struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} xsks SEC(".maps");

/* Set by user space before the program is loaded (one variable: .rodata holds only it). */
const volatile struct {
	__u32 payload_len;
	__u32 dst_addr; /* network order */
} cfg = {0, 0};

SEC("xdp")
int xdp_rx(struct xdp_md *ctx)
{
	struct iphdr *ip;
	struct udphdr *udp = udp4_header(ctx, &ip);
	if (!udp || ip->daddr != cfg.dst_addr ||
	    bpf_ntohs(udp->len) != cfg.payload_len + sizeof(*udp))
		return XDP_PASS;
	__u32 key = udp4_flow_key(udp);
	if (!bpf_map_lookup_elem(&flows, &key))
		return XDP_PASS;
	return bpf_redirect_map(&xsks, ctx->rx_queue_index, XDP_PASS);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
