/* xdp_drop: drops every packet at the driver, for tests/bench/xdp.sh: the receiving end of
 * the raw AF_XDP copy-mode yardstick costs what netsweep's XDP counting receiver costs at
 * most, so the yardstick measures the sender. */
#include <linux/bpf.h>

#define SEC(name) __attribute__((section(name), used))

SEC("xdp")
int xdp_drop_all(struct xdp_md *ctx)
{
	(void)ctx;
	return XDP_DROP;
}

char _license[] SEC("license") = "GPL";
