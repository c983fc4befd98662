/* lathist: a latency histogram in HDR style — log-linear buckets of nanoseconds with a bounded
 * relative error, fixed memory, merged across streams by adding counts, and percentiles read
 * from the merged counts (never averaged). One writer per histogram (the stream's thread);
 * any thread may copy it at any time, as the engine's counters are read. Pure: no I/O. */
#ifndef NS_LATHIST_H
#define NS_LATHIST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"

/* Below 2 * LATHIST_SUB ns every nanosecond is a bucket; above, each power of two is split
 * into LATHIST_SUB buckets. A bucket's reported value (its middle) is then within
 * 1 / (2 * LATHIST_SUB) = 0.78 % of any value in it: the stated error, <= 1 %. */
#define LATHIST_SUB_BITS 6
#define LATHIST_SUB (1u << LATHIST_SUB_BITS)
#define LATHIST_REL_ERROR (1.0 / (2.0 * LATHIST_SUB))
/* Largest bucket shift: values up to 2^(LATHIST_MAX_SHIFT + LATHIST_SUB_BITS + 1) ns (about
 * 36 minutes) have their own bucket; longer ones are counted in the last (min/max stay exact). */
#define LATHIST_MAX_SHIFT 34
#define LATHIST_BUCKETS ((LATHIST_MAX_SHIFT + 2) * LATHIST_SUB)

struct lathist {
	_Atomic uint64_t count;
	_Atomic uint64_t sum_ns;
	_Atomic uint64_t min_ns;   /* UINT64_MAX while empty */
	_Atomic uint64_t max_ns;
	_Atomic uint64_t b[LATHIST_BUCKETS];
};

/* The figures a report needs, in nanoseconds (0 for an empty histogram). */
struct lathist_summary {
	uint64_t count;
	double min_ns, mean_ns, p50_ns, p90_ns, p99_ns, p999_ns, max_ns;
};

void lathist_init(struct lathist *h);
/* The owner thread only. */
void lathist_record(struct lathist *h, uint64_t ns);
/* dst = src (dst owned by the caller; src may be written meanwhile by its owner). */
void lathist_copy(struct lathist *dst, const struct lathist *src);
/* dst += src: the histogram of both streams' samples together. */
void lathist_merge(struct lathist *dst, const struct lathist *src);
/* dst = later - earlier, two copies of one histogram: the samples recorded in between. Its
 * min and max are the bounds of its lowest and highest buckets, kept within later's exact ones. */
void lathist_sub(struct lathist *dst, const struct lathist *later, const struct lathist *earlier);

/* The q-th percentile (0 < q <= 100), nearest rank: the value of the bucket holding the
 * ceil(q/100 * count)-th smallest sample, within the histogram's min and max (the max itself
 * for the last rank). 0 when empty. */
double lathist_percentile(const struct lathist *h, double q);
double lathist_mean(const struct lathist *h);
void lathist_summarize(const struct lathist *h, struct lathist_summary *s);

/* Bucket of a value, and the bucket's range [*lo, *hi] (inclusive). */
uint32_t lathist_bucket(uint64_t ns);
void lathist_bucket_range(uint32_t idx, uint64_t *lo, uint64_t *hi);

/* Compact text: "LH1 n=N sum=S min=A max=B b=D:C,D:C,..." where each non-empty bucket is its
 * index as the step from the previous non-empty one (the first from 0) and its count. Returns
 * malloc'd text, NULL when out of memory. */
char *lathist_encode(const struct lathist *h);
/* The inverse; -1 with err (NS_E_INPUT) for text that is not such a histogram or whose counts
 * do not add up to n. */
int lathist_decode(const char *text, struct lathist *h, struct ns_err *err);

#endif
