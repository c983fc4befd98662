/* udp4: what both XDP programs of the engine look for first — an unfragmented IPv4/UDP
 * datagram without IP options in an Ethernet frame — and its flow key. */
#ifndef NS_BPF_UDP4_H
#define NS_BPF_UDP4_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

/* The UDP header of such a datagram (bounds checked for the verifier), else NULL; *ip its IP
 * header. */
static __always_inline struct udphdr *udp4_header(struct xdp_md *ctx, struct iphdr **ip)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	if ((void *)(eth + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
		return NULL;
	struct iphdr *h = (void *)(eth + 1);
	if ((void *)(h + 1) > end || h->ihl != 5 || h->protocol != IPPROTO_UDP ||
	    (h->frag_off & bpf_htons(0x3fff)))
		return NULL;
	struct udphdr *udp = (void *)(h + 1);
	if ((void *)(udp + 1) > end)
		return NULL;
	*ip = h;
	return udp;
}

/* The key user space registers a flow under: UDP source port << 16 | destination port. */
static __always_inline __u32 udp4_flow_key(const struct udphdr *udp)
{
	return ((__u32)bpf_ntohs(udp->source) << 16) | bpf_ntohs(udp->dest);
}

#endif
