#include "runner/engine/base/udpseq.h"

#include <string.h>

#define WORDS (UDPSEQ_WINDOW / 64)

static inline bool bit_test(const struct udpseq *u, uint64_t seq)
{
	uint64_t i = seq % UDPSEQ_WINDOW;
	return (u->seen[i / 64] >> (i % 64)) & 1u;
}

static inline void bit_set(struct udpseq *u, uint64_t seq)
{
	uint64_t i = seq % UDPSEQ_WINDOW;
	u->seen[i / 64] |= (uint64_t)1 << (i % 64);
}

/* Clears the slots of n consecutive numbers from seq, a word at a time: one bit at a time
 * cost up to 65,535 operations per datagram after a burst loss or a jumping sender. */
static void clear_run(struct udpseq *u, uint64_t seq, uint64_t n)
{
	uint64_t i = seq % UDPSEQ_WINDOW;
	while (n > 0) {
		uint64_t bit = i % 64, take = 64 - bit;
		if (take > n)
			take = n;
		uint64_t mask = take == 64 ? ~(uint64_t)0 : (((uint64_t)1 << take) - 1) << bit;
		u->seen[i / 64] &= ~mask;
		n -= take;
		i = (i + take) % UDPSEQ_WINDOW; /* the window is whole words: a run wraps at a word */
	}
}

void udpseq_init(struct udpseq *u)
{
	memset(u, 0, sizeof(*u));
}

/* Moves the window's top to seq + 1: the slots of the skipped sequence numbers still hold
 * bits of numbers WINDOW older, which leave the window now and must read as unseen. */
static void advance(struct udpseq *u, uint64_t seq)
{
	uint64_t gap = seq - u->highest_plus1; /* numbers skipped before seq */
	if (gap >= UDPSEQ_WINDOW) {
		memset(u->seen, 0, sizeof(u->seen));
	} else {
		clear_run(u, u->highest_plus1, gap + 1); /* the skipped numbers and seq itself */
	}
	u->highest_plus1 = seq + 1;
}

static void jitter_update(struct udpseq *u, uint64_t send_ns, uint64_t arrival_ns)
{
	/* Unsigned wrap-around subtraction then a signed view: correct for any offset between
	 * the two clocks as long as transit differences fit in 63 bits. */
	int64_t transit = (int64_t)(arrival_ns - send_ns);
	if (u->have_transit) {
		int64_t d = transit - u->prev_transit_ns;
		double ad = d < 0 ? -(double)d : (double)d;
		u->jitter_ns += (ad - u->jitter_ns) / 16.0;
	}
	u->prev_transit_ns = transit;
	u->have_transit = true;
}

bool udpseq_add(struct udpseq *u, uint64_t seq, uint64_t send_ns, uint64_t arrival_ns)
{
	if (seq >= u->highest_plus1) {
		advance(u, seq);
	} else if (u->highest_plus1 - seq > UDPSEQ_WINDOW) {
		/* Beyond memory: most likely a very late original rather than a copy. */
		u->too_old++;
		u->out_of_order++;
		u->unique++;
		jitter_update(u, send_ns, arrival_ns);
		return true;
	} else if (bit_test(u, seq)) {
		u->duplicates++;
		return false;
	} else {
		u->out_of_order++;
	}
	bit_set(u, seq);
	u->unique++;
	jitter_update(u, send_ns, arrival_ns);
	return true;
}

uint64_t udpseq_lost(const struct udpseq *u)
{
	/* unique can exceed highest_plus1 only through too_old arrivals whose slot was reused */
	return u->highest_plus1 > u->unique ? u->highest_plus1 - u->unique : 0;
}

double udpseq_jitter_ms(const struct udpseq *u)
{
	return u->jitter_ns / 1e6;
}
