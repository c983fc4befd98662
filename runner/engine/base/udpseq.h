/* udpseq: receiver-side accounting of one UDP stream from the sequence numbers and send
 * timestamps every datagram carries (engine.h header). Pure and single-threaded: the engine's
 * receiver thread owns one per stream and publishes the counters. Lost = sequence numbers
 * never seen up to the highest seen (late arrivals fill their gap again); duplicates are found
 * in a sliding bitmap of the last UDPSEQ_WINDOW sequence numbers; jitter is RFC 3550's. */
#ifndef NS_UDPSEQ_H
#define NS_UDPSEQ_H

#include <stdbool.h>
#include <stdint.h>

#define UDPSEQ_WINDOW 65536u /* sequence numbers remembered for duplicate detection (2^n) */

struct udpseq {
	uint64_t highest_plus1;  /* highest sequence seen + 1, 0 = nothing yet */
	uint64_t unique;         /* distinct sequence numbers seen */
	uint64_t out_of_order;   /* arrived below the highest seen (and not a duplicate) */
	uint64_t duplicates;     /* seen before, within the window */
	uint64_t too_old;        /* older than the window: counted as unique late arrivals */
	double jitter_ns;        /* RFC 3550 running estimate */
	int64_t prev_transit_ns; /* transit time of the previous datagram (arrival order) */
	bool have_transit;
	uint64_t seen[UDPSEQ_WINDOW / 64]; /* bit (seq % WINDOW) set = seq seen */
};

void udpseq_init(struct udpseq *u);
/* Accounts one datagram. Returns true if it is new (not a duplicate). The clocks of sender
 * and receiver need not agree: only differences of transit times enter the jitter. */
bool udpseq_add(struct udpseq *u, uint64_t seq, uint64_t send_ns, uint64_t arrival_ns);
/* Sequence numbers never seen up to the highest seen. */
uint64_t udpseq_lost(const struct udpseq *u);
double udpseq_jitter_ms(const struct udpseq *u);

#endif
