/* dup: a tc classifier (clsact egress, direct-action) that sends a fixed share of IPv4 UDP
 * packets twice, for the duplicate counting of the XDP engine's receiver
 * (tests/integration/xdp_netns.sh). This kernel has no netem; as drop.c makes loss, this makes
 * duplicates: the chosen packet is cloned out of the same device first, marked so that the
 * clone passes this classifier untouched on its way out, then the packet itself goes on.
 *
 * DUP_THRESHOLD is PERCENT/100 * 2^32, as in drop.c.
 * Build: clang -O2 -target bpf -I/usr/include/x86_64-linux-gnu -DDUP_THRESHOLD=N -c dup.c
 * Attach: tc qdisc add dev D clsact; tc filter add dev D egress bpf da obj dup.o sec classifier
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>

#ifndef DUP_THRESHOLD
#define DUP_THRESHOLD 42949673u /* 1 % of 2^32 */
#endif
#define DUP_MARK 0x64757021u    /* on the clone only, for its second pass here */

static __u32 (*bpf_get_prandom_u32)(void) = (void *)BPF_FUNC_get_prandom_u32;
static long (*bpf_clone_redirect)(struct __sk_buff *skb, __u32 ifindex, __u64 flags) =
	(void *)BPF_FUNC_clone_redirect;
static long (*bpf_skb_load_bytes)(const void *skb, __u32 off, void *to, __u32 len) =
	(void *)BPF_FUNC_skb_load_bytes;

#define ETH_P_IP_BE ((__u32)__builtin_bswap16(ETH_P_IP))

__attribute__((section("classifier"), used))
int dup_share(struct __sk_buff *skb)
{
	__u8 proto;
	if (skb->mark == DUP_MARK) {
		skb->mark = 0;
		return TC_ACT_OK;
	}
	if (skb->protocol != ETH_P_IP_BE ||
	    bpf_skb_load_bytes(skb, ETH_HLEN + 9, &proto, 1) < 0 || proto != IPPROTO_UDP)
		return TC_ACT_OK;
	if (bpf_get_prandom_u32() < (__u32)DUP_THRESHOLD) {
		skb->mark = DUP_MARK;
		bpf_clone_redirect(skb, skb->ifindex, 0);
		skb->mark = 0;
	}
	return TC_ACT_OK;
}

char LICENSE[] __attribute__((section("license"), used)) = "GPL";
