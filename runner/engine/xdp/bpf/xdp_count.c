/* xdp_count: the XDP engine's receiver in count-only mode. Datagrams of a test's flows (UDP
 * source and destination port listed in `flows` by user space, payload of the test's length)
 * are accounted here as udpseq.c does for the socket engine — loss, reordering, duplicates,
 * RFC 3550 jitter on the kernel's arrival clock (flow_state.h) — and dropped, before the
 * kernel's stack; every other packet passes untouched. */
#include "flow_state.h"
#include "udp4.h"

/* key: UDP source port << 16 | destination port (host order) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct flow_state);
} flows SEC(".maps");

/* The test's UDP payload length; set by user space before the program is loaded. */
const volatile __u32 payload_len = 0;

struct clear_ctx {
	struct flow_state *f;
	__u64 seq, n;
};

/* One word's share of a run of slots; bpf_loop's callback (stop: 1). */
static long clear_word(__u32 k, void *data)
{
	struct clear_ctx *c = data;
	(void)k;
	if (!c->n)
		return 1;
	__u64 i = c->seq % FLOW_WINDOW, bit = i % 64, take = 64 - bit;
	if (take > c->n)
		take = c->n;
	__u64 mask = take == 64 ? ~(__u64)0 : (((__u64)1 << take) - 1) << bit;
	c->f->seen[(i / 64) & (FLOW_WORDS - 1)] &= ~mask;
	c->n -= take;
	c->seq += take;
	return 0;
}

/* Clears the window's slots of n consecutive numbers from seq, a word at a time (at most
 * FLOW_WORDS + 1 words: n <= FLOW_WINDOW); bpf_loop keeps the verifier's work to one pass. */
static __always_inline void clear_run(struct flow_state *f, __u64 seq, __u64 n)
{
	struct clear_ctx c = {f, seq, n};
	bpf_loop(FLOW_WORDS + 1, clear_word, &c, 0);
}

static __always_inline void jitter_update(struct flow_state *f, __u64 send_ns)
{
	__s64 transit = (__s64)(bpf_ktime_get_ns() - send_ns);
	if (f->have_transit) {
		__s64 d = transit - f->prev_transit_ns;
		__u64 ad = d < 0 ? (__u64)-d : (__u64)d;
		/* J += (|D| - J) / 16, kept as 16 J */
		f->jitter16_ns = f->jitter16_ns + ad - f->jitter16_ns / 16;
	}
	f->prev_transit_ns = transit;
	f->have_transit = 1;
}

SEC("xdp")
int xdp_count(struct xdp_md *ctx)
{
	void *end = (void *)(long)ctx->data_end;
	struct iphdr *ip;
	struct udphdr *udp = udp4_header(ctx, &ip);
	if (!udp)
		return XDP_PASS;
	__u32 key = udp4_flow_key(udp);
	struct flow_state *f = bpf_map_lookup_elem(&flows, &key);
	if (!f || bpf_ntohs(udp->len) != payload_len + sizeof(*udp))
		return XDP_PASS;
	__u64 *hdr = (void *)(udp + 1);
	if ((void *)(hdr + 2) > end)
		return XDP_PASS;
	__u64 seq = bpf_be64_to_cpu(hdr[0]), send_ns = bpf_be64_to_cpu(hdr[1]);
	__u64 hp1 = f->highest_plus1;
	__u64 *word = &f->seen[(seq % FLOW_WINDOW / 64) & (FLOW_WORDS - 1)];
	__u64 bit = (__u64)1 << (seq % 64);
	if (seq >= hp1) {
		__u64 gap = seq - hp1; /* numbers skipped before seq */
		if (gap >= FLOW_WINDOW)
			clear_run(f, 0, FLOW_WINDOW);
		else if (gap) /* (the next in order only needs its own bit, set below) */
			clear_run(f, hp1, gap + 1);
		f->highest_plus1 = seq + 1;
	} else if (hp1 - seq > FLOW_WINDOW) {
		f->out_of_order++; /* beyond memory: a very late original rather than a copy */
		bit = 0;
	} else if (*word & bit) {
		f->duplicates++;
		return XDP_DROP;
	} else {
		f->out_of_order++;
	}
	*word |= bit;
	f->packets++;
	f->bytes += payload_len;
	jitter_update(f, send_ns);
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
