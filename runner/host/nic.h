/* nic: which interface carries the route to a peer, and what that interface is — driver
 * (ethtool GDRVINFO), link, channels, offloads, root qdisc, and the CPUs its IRQs go to.
 * Linux only: rtnetlink and SIOCETHTOOL. Reads only; sends no packet to anyone. */
#ifndef NS_NIC_H
#define NS_NIC_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/err.h"

#define NIC_ADDR_LEN 64      /* fits an IPv6 text address with scope */
#define NIC_MAX_CPUS 4096
#define NIC_MAX_NOTES 16
#define NIC_NOTE_LEN 200

/* Why some fact is missing, for hostinfo's "warnings". */
struct nic_notes {
	char text[NIC_MAX_NOTES][NIC_NOTE_LEN];
	int n;
};

void nic_note(struct nic_notes *notes, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct nic_route {
	char ifname[IF_NAMESIZE];
	int ifindex;
	char source[NIC_ADDR_LEN];   /* "" = unknown */
	char gateway[NIC_ADDR_LEN];  /* "" = directly connected */
};

/* The route the kernel would use for peer (numeric address or host name; NULL = the default
 * route, IPv4 first, then IPv6). Fails when there is no route at all. */
int nic_route_lookup(const char *peer, struct nic_route *r, struct ns_err *err);

struct nic_info {
	char name[IF_NAMESIZE];
	int ifindex;
	bool loopback;
	char driver[32], driver_version[32], firmware[32], bus_info[32]; /* "" = unknown */
	int speed_mbps;                 /* -1 = unknown */
	int duplex;                     /* -1 unknown, 0 half, 1 full */
	int mtu;                        /* -1 = unknown */
	int rx_queues, tx_queues, combined_queues; /* -1 = unknown */
	int gso, gro, tso;              /* -1 unknown, 0 off, 1 on */
	char qdisc[32];                 /* root qdisc kind, "" = unknown */
	int fq_paces;                   /* UDP paced by SO_MAX_PACING_RATE: -1 unknown, 0, 1 */
	int irq_cpus[NIC_MAX_CPUS];     /* ascending, distinct */
	size_t n_irq_cpus;
};

/* Fills ni for the named interface. Facts that cannot be read stay unknown, with a note;
 * fails only when the interface does not exist. */
int nic_query(const char *ifname, struct nic_info *ni, struct nic_notes *notes, struct ns_err *err);

/* 1 when SO_MAX_PACING_RATE paces UDP on ifname: its root qdisc is fq, or mq/mqprio with fq
 * on every leaf; 0 when not; -1 when the qdiscs cannot be read. */
int nic_fq_paces(const char *ifname, struct ns_err *err);

/* Whether a /proc/interrupts line belongs to a device known by one of names (interface name,
 * parent device name, bus address) — the name must appear whole in the line's action part —
 * and if so its IRQ number in *irq. Exposed for tests. */
bool nic_irq_line_matches(const char *line, const char *const *names, size_t n_names, int *irq);

#endif
