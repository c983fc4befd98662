/* flow_state: one flow's sequence accounting as bpf/xdp_count.c keeps it in its `flows` map
 * and user space (engine_xdp.c) reads it: runner/engine/udpseq.c's algorithm with a window
 * of the same size, so that loss, reordering and duplicates mean what they mean for the
 * socket engine. One writer per flow: a flow arrives on one receive queue, and a queue's XDP
 * program runs on one CPU at a time. */
#ifndef NS_BPF_FLOW_STATE_H
#define NS_BPF_FLOW_STATE_H

#include <linux/types.h>

#define FLOW_WINDOW 65536u        /* sequence numbers remembered, as UDPSEQ_WINDOW */
#define FLOW_WORDS (FLOW_WINDOW / 64)

struct flow_state {
	__u64 packets;            /* distinct sequence numbers seen */
	__u64 bytes;
	__u64 highest_plus1;      /* highest sequence seen + 1, 0 = nothing yet */
	__u64 out_of_order;       /* arrived below the highest seen (and not a duplicate) */
	__u64 duplicates;         /* seen before, within the window */
	__u64 jitter16_ns;        /* 16 x the RFC 3550 jitter estimate, in ns */
	__s64 prev_transit_ns;    /* arrival (bpf_ktime_get_ns) - send time of the previous one */
	__u64 have_transit;
	__u64 seen[FLOW_WORDS];   /* bit (seq % FLOW_WINDOW) set = seq seen */
};

#endif
