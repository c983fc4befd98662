/* budget: a token bucket in bytes shared by every sending stream of every engine handed it —
 * an agent's --max-rate over all its tests, one after another, and all their streams. A send
 * draws its bytes before it is made, the first one included, and the bucket holds at most
 * BUDGET_BURST_S of the rate (or one datagram), so that no window of any length moves more
 * than rate x time plus that. Thread-safe (a mutex: a capped sender makes few calls). */
#ifndef NS_BUDGET_H
#define NS_BUDGET_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"

/* What the bucket holds at most: 10 ms of the rate rides out a sender's timer slack, and is
 * far below one default TCP write (128 KiB) at the rates a shared link is capped to. */
#define BUDGET_BURST_S 0.01
/* ... but never less than this: one MSS-sized write of a 9000-byte MTU goes through whole. */
#define BUDGET_MIN_BURST 9000

struct budget {
	pthread_mutex_t mu;
	double bytes_per_ns;
	double burst;          /* most tokens kept */
	double tokens;
	uint64_t last_ns;      /* of the last refill, CLOCK_MONOTONIC */
	_Atomic uint64_t held; /* times a sender found the bucket short (a test's warning) */
};

/* rate_bps > 0; the bucket starts full (one small burst), now_ns on CLOCK_MONOTONIC. */
int budget_init(struct budget *b, uint64_t rate_bps, uint64_t now_ns, struct ns_err *err);
void budget_destroy(struct budget *b);
/* Grants a multiple of step bytes, at most want (step <= want), 0 if not even one step is
 * there; a step larger than the burst accrues up to one step (a whole datagram). */
uint64_t budget_take(struct budget *b, uint64_t now_ns, uint64_t want, uint64_t step);
/* Gives back what a send granted but did not hand to the kernel. */
void budget_refund(struct budget *b, uint64_t bytes);
/* Nanoseconds until step bytes are there (0 = now). */
uint64_t budget_wait_ns(struct budget *b, uint64_t now_ns, uint64_t step);
/* How many times a sender was held back so far (cumulative). */
uint64_t budget_held(const struct budget *b);

#endif
