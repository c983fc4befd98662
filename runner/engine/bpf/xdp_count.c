/* xdp_count: the XDP engine's receiver in count-only mode. Datagrams of a test's flows (UDP
 * source and destination port listed in `flows` by user space, payload of the test's length)
 * are counted — datagrams, bytes, highest sequence number from the netsweep datagram header —
 * and dropped here, before the kernel's stack; every other packet passes untouched. */
#include "udp4.h"

struct flow_counts {
	__u64 packets;
	__u64 bytes;
	__u64 highest_plus1; /* highest sequence number seen + 1 */
};

/* key: UDP source port << 16 | destination port (host order) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct flow_counts);
} flows SEC(".maps");

/* The test's UDP payload length; set by user space before the program is loaded. */
const volatile __u32 payload_len = 0;

SEC("xdp")
int xdp_count(struct xdp_md *ctx)
{
	void *end = (void *)(long)ctx->data_end;
	struct iphdr *ip;
	struct udphdr *udp = udp4_header(ctx, &ip);
	if (!udp)
		return XDP_PASS;
	__u32 key = udp4_flow_key(udp);
	struct flow_counts *c = bpf_map_lookup_elem(&flows, &key);
	if (!c || bpf_ntohs(udp->len) != payload_len + sizeof(*udp))
		return XDP_PASS;
	__u64 *seq = (void *)(udp + 1);
	if ((void *)(seq + 1) > end)
		return XDP_PASS;
	__u64 next = bpf_be64_to_cpu(*seq) + 1;
	__sync_fetch_and_add(&c->packets, 1);
	__sync_fetch_and_add(&c->bytes, payload_len);
	/* one receive queue per flow on the paths this counts: a plain max is enough */
	if (next > c->highest_plus1)
		c->highest_plus1 = next;
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
