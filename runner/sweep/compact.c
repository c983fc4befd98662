#include "compact.h"

#include <math.h>

/* Interval times are multiples of the interval in binary floating point: 0.3 / 0.1 is
 * 2.9999999999999996. A bucket takes an interval by its start, to within this. */
#define COMPACT_TIME_EPS 1e-6

/* Adds b (just after a in time) into a: counters summed, the rate over the joint time, the
 * time-weighted means of RTT and jitter, the last cwnd. */
static void merge(struct probe_interval *a, const struct probe_interval *b)
{
	double ta = a->end_s - a->start_s, tb = b->end_s - b->start_s, t = ta + tb;
	if (t > 0) {
		a->rtt_ms = (a->rtt_ms * ta + b->rtt_ms * tb) / t;
		a->jitter_ms = (a->jitter_ms * ta + b->jitter_ms * tb) / t;
	}
	a->end_s = b->end_s;
	a->bytes += b->bytes;
	a->packets += b->packets;
	a->retransmits += b->retransmits;
	a->lost += b->lost;
	a->cwnd_bytes = b->cwnd_bytes;
	t = a->end_s - a->start_s;
	a->bits_per_second = t > 0 ? a->bytes * 8.0 / t : 0;
}

static void compact_dir(struct probe_direction *d)
{
	uint32_t k = 0;
	double bucket_of_last = -1;
	for (uint32_t i = 0; i < d->n_intervals; i++) {
		const struct probe_interval *v = &d->intervals[i];
		if (v->stream != -1)
			continue;
		/* warm-up as measured; the first minute in fine buckets, then in coarse ones */
		double bucket = -1;
		if (!v->omitted && v->start_s >= COMPACT_FULL_S)
			bucket = COMPACT_FULL_ROWS + floor((v->start_s - COMPACT_FULL_S) / COMPACT_BUCKET_S +
							   COMPACT_TIME_EPS);
		else if (!v->omitted && v->start_s >= 0)
			bucket = floor(v->start_s / (COMPACT_FULL_S / COMPACT_FULL_ROWS) + COMPACT_TIME_EPS);
		if (bucket >= 0 && k > 0 && bucket == bucket_of_last)
			merge(&d->intervals[k - 1], v);
		else
			d->intervals[k++] = *v;
		bucket_of_last = bucket;
	}
	d->n_intervals = k;
}

void compact_long_run(struct probe_result *res)
{
	if (!res->params.until[0])
		return;
	for (uint32_t d = 0; d < res->n_dirs && d < 2; d++)
		compact_dir(&res->dirs[d]);
}
