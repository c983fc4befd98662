/* clockbound: see clockbound.h. */
#include "clockbound.h"

#include <stdio.h>
#include <string.h>
#include <sys/timex.h>

int clock_bound_read(struct clock_bound *out, struct ns_err *err)
{
	struct timex t;
	memset(&t, 0, sizeof(t)); /* modes 0: read only */
	memset(out, 0, sizeof(*out));
	int state = adjtimex(&t);
	if (state < 0)
		return ns_err_sys(err, "adjtimex");
	out->synced = !(t.status & STA_UNSYNC) && state != TIME_ERROR;
	out->maxerror_us = (double)t.maxerror;
	out->esterror_us = (double)t.esterror;
	return 0;
}

void clock_round_trip_why(const struct clock_bound *client, double p50_us, char *buf, size_t n)
{
	if (!client->synced)
		snprintf(buf, n, "round trips only: the client's clock is not synchronised "
			 "(adjtimex: unsynchronised, max error %.0f us), and the agent's clock bound "
			 "is not exchanged", client->maxerror_us);
	else if (client->maxerror_us >= p50_us / 2)
		snprintf(buf, n, "round trips only: the client's clock may be off by %.0f us "
			 "(adjtimex max error), more than half the round trip's p50 (%.1f us)",
			 client->maxerror_us, p50_us);
	else
		snprintf(buf, n, "round trips only: the agent does not report its clock's error "
			 "bound, so a one-way figure would have none");
}
