/* budget: an agent's --max-rate as token buckets in bytes — one share for each sending engine
 * (a test's sending end, a delegated run's), so that the tests running at once divide the cap
 * fairly whatever their write sizes. A share's rate is the cap times its test's asked rate over
 * the larger of the cap and the sum of all asked rates (an unpaced engine asks for the whole
 * cap): tests whose rates fit under the cap together each get their own, more share it in
 * proportion. Before, one bucket served all: a TCP sender's small steps took every token and a
 * 65,507-byte datagram beside it never found its step there. A send draws its bytes before it
 * is made, the first one included; a share starts empty and holds at most BUDGET_BURST_S of its
 * rate (or one datagram), so that no window of any length moves more than the cap x time plus
 * one burst or datagram per share. Thread-safe (a mutex: a capped sender makes few calls). */
#ifndef NS_BUDGET_H
#define NS_BUDGET_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"

/* What a share holds at most: 10 ms of its rate rides out a sender's timer slack, and is far
 * below one default TCP write (128 KiB) at the rates a shared link is capped to. */
#define BUDGET_BURST_S 0.01
/* ... but never less than this: one MSS-sized write of a 9000-byte MTU goes through whole. */
#define BUDGET_MIN_BURST 9000

/* One sending engine's part of the cap; the caller's storage (struct engine holds it). */
struct budget_share {
	double bytes_per_ns;
	double burst;          /* most tokens kept (a larger step accrues up to one step) */
	double tokens;
	uint64_t last_ns;      /* of the last refill, CLOCK_MONOTONIC */
	uint64_t weight_bps;   /* the rate its test asked for (the cap when unpaced or more) */
	_Atomic uint64_t held; /* times its sender found the share short */
	struct budget_share *next;
	bool joined;
};

struct budget {
	pthread_mutex_t mu;
	uint64_t rate_bps;
	struct budget_share common; /* budget_take with a NULL share: the whole cap, for callers
				       that join no share (tests); not meant to mix with shares */
	struct budget_share *shares; /* joined, in no order */
	uint64_t weight_sum;
	_Atomic uint64_t held; /* times any sender was held back (cumulative) */
};

/* rate_bps > 0; the common bucket starts full (one small burst), now_ns on CLOCK_MONOTONIC. */
int budget_init(struct budget *b, uint64_t rate_bps, uint64_t now_ns, struct ns_err *err);
void budget_destroy(struct budget *b);
/* A sending engine takes its share (asked_bps: its test's rate over all its streams, 0 =
 * unpaced) and gives it back when it is done; every share's rate follows the new sum. */
void budget_join(struct budget *b, struct budget_share *s, uint64_t asked_bps, uint64_t now_ns);
void budget_leave(struct budget *b, struct budget_share *s, uint64_t now_ns);
/* Grants a multiple of step bytes from share s (NULL: the common bucket), at most want (step
 * <= want), 0 if not even one step is there; a step larger than the burst accrues up to one
 * step (a whole datagram). */
uint64_t budget_take(struct budget *b, struct budget_share *s, uint64_t now_ns, uint64_t want,
		     uint64_t step);
/* Gives back what a send granted but did not hand to the kernel. */
void budget_refund(struct budget *b, struct budget_share *s, uint64_t bytes);
/* Nanoseconds until step bytes are there (0 = now). */
uint64_t budget_wait_ns(struct budget *b, struct budget_share *s, uint64_t now_ns, uint64_t step);
/* How many times a sender was held back so far (cumulative): any, or share s's. */
uint64_t budget_held(const struct budget *b);
uint64_t budget_share_held(const struct budget_share *s);
/* Share s's burst now, bytes (the common bucket's for NULL): a TCP write is cut to it. */
uint64_t budget_burst(struct budget *b, const struct budget_share *s);
/* Share s's rate now, bits/s (0 when not joined). */
double budget_share_bps(struct budget *b, const struct budget_share *s);

#endif
