#include "pace.h"

/* Credit kept across a late wake-up, as iperf does by pacing the average since the start:
 * timer slack and a sender kept off the CPU on a loaded machine are made up at once, in
 * batches. Stalls of 100-700 ms were seen on this shared 2-core machine (caps of 4, 10 and
 * 100 ms left -b 5-50 % short), so the cap is long; past it the sender is taken to have
 * been stopped and does not flood to catch up. */
#define PACE_BURST_NS 1e9

void pace_init(struct pace *p, uint64_t rate_bps, uint32_t unit_bytes, uint64_t now_ns)
{
	p->ns_per_byte = rate_bps ? 8e9 / (double)rate_bps : 0.0;
	p->next_ns = (double)now_ns;
	double two_units = 2.0 * unit_bytes * p->ns_per_byte;
	p->burst_ns = two_units > PACE_BURST_NS ? two_units : PACE_BURST_NS;
}

uint32_t pace_ready(struct pace *p, uint64_t now_ns, uint32_t unit_bytes, uint32_t max_units)
{
	if (p->ns_per_byte == 0.0)
		return max_units;
	double now = (double)now_ns;
	if (now < p->next_ns)
		return 0;
	if (now - p->next_ns > p->burst_ns)
		p->next_ns = now - p->burst_ns;
	/* The first unit may go as soon as its start time has come; the credit pays for more. */
	double unit_ns = (double)unit_bytes * p->ns_per_byte;
	double n = 1.0 + (unit_ns > 0 ? (now - p->next_ns) / unit_ns : max_units);
	return n >= max_units ? max_units : (uint32_t)n;
}

void pace_sent(struct pace *p, uint64_t bytes)
{
	p->next_ns += (double)bytes * p->ns_per_byte;
}

uint64_t pace_wait_ns(const struct pace *p, uint64_t now_ns)
{
	double now = (double)now_ns;
	if (p->ns_per_byte == 0.0 || now >= p->next_ns)
		return 0;
	return (uint64_t)(p->next_ns - now) + 1;
}
