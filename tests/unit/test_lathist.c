/* lathist: percentiles of histograms merged across streams equal those of the pooled samples
 * within the stated relative error, on synthetic streams of different distributions; the
 * compact text round-trips; interval differences hold the samples in between. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lathist.h"

#define STREAMS 4
#define PER_STREAM 50000

/* A repeatable uniform in (0, 1). */
static double unif(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
}

/* Four streams unlike each other: a tight uniform near 20 us, a lognormal around 150 us, an
 * exponential with a 2 ms mean, and a bimodal one (mostly 60 ns, 1 % at 40 ms). */
static uint64_t sample(int stream, uint64_t *s)
{
	double u = unif(s), v = unif(s);
	switch (stream) {
	case 0: return (uint64_t)(19000 + 2000 * u);
	case 1: return (uint64_t)(150000 * exp(0.5 * sqrt(-2 * log(u)) * cos(6.283185307 * v)));
	case 2: return (uint64_t)(-2e6 * log(u));
	default: return u < 0.99 ? (uint64_t)(50 + 20 * v) : (uint64_t)(40e6 * (1 + v));
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static double exact_pct(const uint64_t *sorted, size_t n, double q)
{
	size_t rank = (size_t)ceil(q / 100.0 * (double)n);
	if (rank < 1)
		rank = 1;
	return (double)sorted[rank - 1];
}

static void merged_equals_pooled(void **state)
{
	(void)state;
	struct lathist *h = calloc(STREAMS + 1, sizeof(*h));
	uint64_t *all = malloc(STREAMS * PER_STREAM * sizeof(*all));
	assert_non_null(h);
	assert_non_null(all);
	uint64_t seed = 42;
	size_t n = 0;
	for (int k = 0; k < STREAMS; k++) {
		lathist_init(&h[k]);
		for (int i = 0; i < PER_STREAM; i++) {
			uint64_t v = sample(k, &seed);
			lathist_record(&h[k], v);
			all[n++] = v;
		}
	}
	struct lathist *m = &h[STREAMS];
	lathist_init(m);
	for (int k = 0; k < STREAMS; k++)
		lathist_merge(m, &h[k]);
	qsort(all, n, sizeof(*all), cmp_u64);
	assert_int_equal(m->count, n);
	const double qs[] = {0.1, 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 100};
	double prev = 0;
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		double want = exact_pct(all, n, qs[i]);
		double got = lathist_percentile(m, qs[i]);
		/* within the stated error of the pooled samples' own percentile */
		assert_true(fabs(got - want) <= LATHIST_REL_ERROR * want + 0.5);
		assert_true(got >= prev); /* monotone */
		prev = got;
	}
	assert_true(lathist_percentile(m, 100) == (double)all[n - 1]);
	assert_true(m->min_ns == all[0] && m->max_ns == all[n - 1]);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += (double)all[i];
	assert_true(fabs(lathist_mean(m) - sum / (double)n) < 1e-6 * sum / (double)n);
	/* why merging matters: the mean of the streams' p99 is far from the pooled p99 */
	double avg = 0;
	for (int k = 0; k < STREAMS; k++)
		avg += lathist_percentile(&h[k], 99) / STREAMS;
	double p99 = exact_pct(all, n, 99);
	assert_true(fabs(avg - p99) > 0.1 * p99);
	free(h);
	free(all);
}

/* Every value lies in its own bucket, buckets tile the range without gaps, and the reported
 * middle is within the stated error of every value in the bucket. */
static void buckets_tile_with_bounded_error(void **state)
{
	(void)state;
	uint64_t next = 0;
	for (uint32_t i = 0; i < LATHIST_BUCKETS; i++) {
		uint64_t lo, hi;
		lathist_bucket_range(i, &lo, &hi);
		assert_true(lo == next);
		assert_true(hi >= lo);
		assert_int_equal(lathist_bucket(lo), i);
		if (i < LATHIST_BUCKETS - 1)
			assert_int_equal(lathist_bucket(hi), i);
		double mid = ((double)lo + (double)hi) / 2;
		assert_true(mid - (double)lo <= LATHIST_REL_ERROR * (double)lo + 0.5);
		next = hi + 1;
	}
	assert_int_equal(lathist_bucket(UINT64_MAX), LATHIST_BUCKETS - 1);
	assert_true(LATHIST_REL_ERROR <= 0.01);
}

static void encode_decode_round_trip(void **state)
{
	(void)state;
	struct lathist *h = calloc(2, sizeof(*h));
	assert_non_null(h);
	lathist_init(&h[0]);
	uint64_t seed = 7;
	for (int i = 0; i < 10000; i++)
		lathist_record(&h[0], sample(i % STREAMS, &seed));
	char *txt = lathist_encode(&h[0]);
	assert_non_null(txt);
	struct ns_err err = {0};
	assert_int_equal(lathist_decode(txt, &h[1], &err), 0);
	assert_memory_equal(&h[0], &h[1], sizeof(h[0]));
	free(txt);
	lathist_init(&h[0]);
	txt = lathist_encode(&h[0]);
	assert_string_equal(txt, "LH1 n=0 sum=0 min=0 max=0 b=");
	assert_int_equal(lathist_decode(txt, &h[1], &err), 0);
	assert_int_equal(h[1].count, 0);
	free(txt);
	const char *bad[] = {"", "LH1", "LH2 n=0 sum=0 min=0 max=0 b=",
			     "LH1 n=2 sum=3 min=1 max=2 b=1:1", "LH1 n=2 sum=3 min=1 max=2 b=1:1,0:1",
			     "LH1 n=1 sum=3 min=1 max=2 b=99999:1", "LH1 n=1 sum=3 min=1 max=2 b=1:0",
			     "LH1 n=1 sum=3 min=1 max=2 b=1:1x", "LH1 n=1 sum=3 min=5 max=2 b=1:1"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(lathist_decode(bad[i], &h[1], &err), -1);
		assert_int_equal(err.code, NS_E_INPUT);
	}
	free(h);
}

/* An interval's histogram is the difference of two copies: exactly its own samples. */
static void interval_difference(void **state)
{
	(void)state;
	struct lathist *h = calloc(4, sizeof(*h));
	assert_non_null(h);
	lathist_init(&h[0]);
	for (int i = 0; i < 1000; i++)
		lathist_record(&h[0], 1000);
	lathist_copy(&h[1], &h[0]);
	for (int i = 0; i < 500; i++)
		lathist_record(&h[0], 5000000);
	lathist_copy(&h[2], &h[0]);
	lathist_sub(&h[3], &h[2], &h[1]);
	assert_int_equal(h[3].count, 500);
	assert_true(fabs(lathist_percentile(&h[3], 50) - 5e6) <= LATHIST_REL_ERROR * 5e6);
	assert_true(lathist_mean(&h[3]) == 5e6);
	assert_true((double)h[3].min_ns <= 5e6 && (double)h[3].max_ns >= 5e6);
	struct lathist_summary s;
	lathist_summarize(&h[2], &s);
	assert_int_equal(s.count, 1500);
	assert_true(s.min_ns == 1000 && s.max_ns == 5e6 &&
		    fabs(s.p50_ns - 1000) <= LATHIST_REL_ERROR * 1000);
	assert_true(s.p50_ns <= s.p90_ns && s.p90_ns <= s.p99_ns && s.p99_ns <= s.p999_ns &&
		    s.p999_ns <= s.max_ns);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(merged_equals_pooled),
		cmocka_unit_test(buckets_tile_with_bounded_error),
		cmocka_unit_test(encode_decode_round_trip),
		cmocka_unit_test(interval_difference),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
