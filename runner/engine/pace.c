#include "pace.h"

/* A stall longer than the credit is time the sender lost, not rate it owes: a second of
 * credit (as before) sent a second's bytes back to back after a stall, a line-rate burst
 * that a shaped link drops or a credit-based one counts against the test. */
void pace_init(struct pace *p, uint64_t rate_bps, uint32_t unit_bytes, uint32_t batch_units,
	       uint64_t now_ns)
{
	p->ns_per_byte = rate_bps ? 8e9 / (double)rate_bps : 0.0;
	p->next_ns = (double)now_ns;
	p->lost_ns = 0.0;
	double unit = (double)unit_bytes * p->ns_per_byte;
	double batch = (double)(batch_units ? batch_units : 1) * unit;
	p->burst_ns = batch > PACE_CREDIT_NS ? batch : PACE_CREDIT_NS;
	/* the lump: whole units, at least one, at most one batch, about PACE_WAKE_NS */
	double lump = batch < PACE_WAKE_NS ? batch : PACE_WAKE_NS;
	p->lump_ns = unit > 0 && lump > unit ? (double)(uint64_t)(lump / unit) * unit - unit : 0.0;
}

void pace_set_credit(struct pace *p, double credit_ns)
{
	if (credit_ns > p->burst_ns)
		p->burst_ns = credit_ns;
}

uint32_t pace_ready(struct pace *p, uint64_t now_ns, uint32_t unit_bytes, uint32_t max_units)
{
	if (p->ns_per_byte == 0.0)
		return max_units;
	double now = (double)now_ns;
	if (now < p->next_ns)
		return 0;
	if (now - p->next_ns > p->burst_ns) {
		p->lost_ns += now - p->next_ns - p->burst_ns;
		p->next_ns = now - p->burst_ns;
	}
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
	return (uint64_t)(p->next_ns + p->lump_ns - now) + 1;
}

double pace_lost_ns(const struct pace *p)
{
	return p->lost_ns;
}
