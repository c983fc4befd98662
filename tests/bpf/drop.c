/* drop: a tc classifier (clsact egress, direct-action) that drops a fixed share of IPv4
 * packets at random. This kernel has no netem, so the namespace harness makes random loss
 * with this program; tests compare a tool's reported UDP loss with the share set here.
 *
 * The share is fixed at build time: DROP_THRESHOLD is PERCENT/100 * 2^32, and a packet is
 * dropped when bpf_get_prandom_u32() < DROP_THRESHOLD (so 0 never drops). Building per share
 * keeps the program free of maps, which tc's loaders handle differently across versions.
 * Non-IPv4 frames (ARP, IPv6 neighbour discovery) always pass so the link stays usable.
 *
 * Build: clang -O2 -target bpf -I/usr/include/x86_64-linux-gnu -DDROP_THRESHOLD=N -c drop.c
 * Attach: tc qdisc add dev D clsact; tc filter add dev D egress bpf da obj drop.o sec classifier
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>

#ifndef DROP_THRESHOLD
#define DROP_THRESHOLD 42949673u /* 1 % of 2^32 */
#endif

/* No libbpf headers here: declare the helper by its number in enum bpf_func_id. */
static __u32 (*bpf_get_prandom_u32)(void) = (void *)BPF_FUNC_get_prandom_u32;

/* skb->protocol holds the EtherType in network byte order; BPF on x86 is little-endian. */
#define ETH_P_IP_BE ((__u32)__builtin_bswap16(ETH_P_IP))

__attribute__((section("classifier"), used))
int drop_share(struct __sk_buff *skb)
{
	if (skb->protocol != ETH_P_IP_BE)
		return TC_ACT_OK;
	if (bpf_get_prandom_u32() < (__u32)DROP_THRESHOLD)
		return TC_ACT_SHOT;
	return TC_ACT_OK;
}

char LICENSE[] __attribute__((section("license"), used)) = "GPL";
