/* clockbound: how far this host's clock may be off true time, as the kernel's NTP state says
 * (adjtimex: STA_UNSYNC, maxerror), and why a request/response test reports round trips only:
 * a one-way delay is the difference of two hosts' clocks and means nothing unless both are
 * synchronised within a bound well below the delay itself. */
#ifndef NS_CLOCKBOUND_H
#define NS_CLOCKBOUND_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/err.h"

struct clock_bound {
	bool synced;          /* the kernel's clock is disciplined (no STA_UNSYNC) */
	double maxerror_us;   /* adjtimex's maximum error, microseconds */
	double esterror_us;   /* its estimated error */
};

int clock_bound_read(struct clock_bound *out, struct ns_err *err);
/* One line: why this test gives round trips only, with this host's clock (client) and the
 * round trip's p50 (us). The agent's bound is not exchanged yet, which alone rules one-way
 * figures out; the client's own state is said first when it already does. */
void clock_round_trip_why(const struct clock_bound *client, double p50_us, char *buf, size_t n);

#endif
