/* pace: a token bucket for one sending stream, in nanoseconds of a monotonic clock.
 * The sender asks how many units (datagrams or writes) it may send now, sends them and
 * reports the bytes; credit left over from oversleeping is kept up to one batch or
 * PACE_CREDIT_NS, whichever is larger, so that a stalled sender never turns what it missed
 * into a line-rate burst. What it had to drop is counted (pace_lost_ns): the time the sender
 * fell behind for good. Pure: the caller passes time. */
#ifndef NS_PACE_H
#define NS_PACE_H

#include <stdint.h>

/* Credit kept across a late wake-up when one batch is shorter: enough to ride out timer slack
 * and a short preemption, far too little to flood a shaped link after a stall. */
#define PACE_CREDIT_NS 4e6
/* A sender waits until this long's worth of units (at most one batch) is due before it wakes:
 * waking for every datagram costs a sleep and a context switch per datagram (97,000 a second
 * at 50 Mbit/s of 64-byte datagrams), which on a busy host is where the rate went; a lump of
 * 1 ms is far finer than any interval a test reports and smaller than the credit above. */
#define PACE_WAKE_NS 1e6

struct pace {
	double ns_per_byte;  /* 0 = unlimited */
	double next_ns;      /* earliest time the next byte may leave */
	double burst_ns;     /* most credit kept from the past */
	double lump_ns;      /* pace_wait_ns waits until this much more than one unit is due */
	double lost_ns;      /* credit dropped over the cap: time the sender never made up */
};

/* rate_bps 0 = unlimited. unit_bytes x batch_units: one send call's worth, the credit floor. */
void pace_init(struct pace *p, uint64_t rate_bps, uint32_t unit_bytes, uint32_t batch_units,
	       uint64_t now_ns);
/* Keeps up to credit_ns of missed sending time (never less than pace_init's): a sender that
 * cannot get its CPU on time makes up what it missed, within that burst. */
void pace_set_credit(struct pace *p, double credit_ns);
/* Units of unit_bytes that may go now, at most max_units (0 = wait; see pace_wait_ns). */
uint32_t pace_ready(struct pace *p, uint64_t now_ns, uint32_t unit_bytes, uint32_t max_units);
/* Records bytes actually sent. */
void pace_sent(struct pace *p, uint64_t bytes);
/* Nanoseconds until a lump of units is due (0 = now: some unit is due already). */
uint64_t pace_wait_ns(const struct pace *p, uint64_t now_ns);
/* Nanoseconds of sending time the pacer dropped after late wake-ups (0 unpaced). */
double pace_lost_ns(const struct pace *p);

#endif
