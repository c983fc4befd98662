/* amount: when one end of a test that runs by amount (-n/-k) is over. A sender is over when
 * its engine sent its share and stopped; a TCP receiver when every stream saw EOF; a UDP
 * receiver, which has no end marker, when the sequence numbers seen cover the amount, or when
 * nothing arrived for AMOUNT_UDP_QUIET_S after data did (the last datagrams were lost). */
#ifndef NS_AMOUNT_H
#define NS_AMOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "session.h"

#define AMOUNT_UDP_QUIET_S 1.0

struct amount_watch {
	uint64_t last_packets;     /* UDP receiver: datagrams at the last change */
	double last_change;        /* ... and when it changed */
};

/* amount: bytes of the whole test (probe_params_amount); unit: bytes per datagram. */
bool amount_end_done(struct session_end *s, struct amount_watch *w, uint64_t amount,
		     uint32_t unit, double now);

#endif
