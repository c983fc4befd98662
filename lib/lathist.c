/* lathist: log-linear latency histograms (see lathist.h). */
#include "lathist.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LD(x) atomic_load_explicit(&(x), memory_order_relaxed)
#define ST(x, v) atomic_store_explicit(&(x), (v), memory_order_relaxed)

void lathist_init(struct lathist *h)
{
	ST(h->count, 0);
	ST(h->sum_ns, 0);
	ST(h->min_ns, UINT64_MAX);
	ST(h->max_ns, 0);
	for (uint32_t i = 0; i < LATHIST_BUCKETS; i++)
		ST(h->b[i], 0);
}

uint32_t lathist_bucket(uint64_t ns)
{
	if (ns < 2 * LATHIST_SUB)
		return (uint32_t)ns;
	uint32_t e = 63u - (uint32_t)__builtin_clzll(ns);
	uint32_t shift = e - LATHIST_SUB_BITS;
	if (shift > LATHIST_MAX_SHIFT)
		return LATHIST_BUCKETS - 1;
	return shift * LATHIST_SUB + (uint32_t)(ns >> shift);
}

void lathist_bucket_range(uint32_t idx, uint64_t *lo, uint64_t *hi)
{
	if (idx < 2 * LATHIST_SUB) {
		*lo = *hi = idx;
		return;
	}
	uint32_t shift = idx / LATHIST_SUB - 1;
	uint64_t m = idx % LATHIST_SUB + LATHIST_SUB;
	*lo = m << shift;
	*hi = *lo + (1ull << shift) - 1;
}

void lathist_record(struct lathist *h, uint64_t ns)
{
	uint32_t i = lathist_bucket(ns);
	ST(h->b[i], LD(h->b[i]) + 1);
	ST(h->sum_ns, LD(h->sum_ns) + ns);
	if (ns < LD(h->min_ns))
		ST(h->min_ns, ns);
	if (ns > LD(h->max_ns))
		ST(h->max_ns, ns);
	/* the count last: a copy never holds more samples than its buckets */
	ST(h->count, LD(h->count) + 1);
}

void lathist_copy(struct lathist *dst, const struct lathist *src)
{
	/* counts read after the buckets, so that buckets >= count in the copy; count is then
	 * recomputed from the buckets so that the two always agree */
	uint64_t n = 0;
	for (uint32_t i = 0; i < LATHIST_BUCKETS; i++) {
		uint64_t c = LD(src->b[i]);
		ST(dst->b[i], c);
		n += c;
	}
	ST(dst->count, n);
	ST(dst->sum_ns, LD(src->sum_ns));
	ST(dst->min_ns, LD(src->min_ns));
	ST(dst->max_ns, LD(src->max_ns));
}

void lathist_merge(struct lathist *dst, const struct lathist *src)
{
	/* the count from the buckets as read: src may be a live histogram */
	uint64_t n = 0;
	for (uint32_t i = 0; i < LATHIST_BUCKETS; i++) {
		uint64_t c = LD(src->b[i]);
		ST(dst->b[i], LD(dst->b[i]) + c);
		n += c;
	}
	ST(dst->count, LD(dst->count) + n);
	ST(dst->sum_ns, LD(dst->sum_ns) + LD(src->sum_ns));
	if (LD(src->min_ns) < LD(dst->min_ns))
		ST(dst->min_ns, LD(src->min_ns));
	if (LD(src->max_ns) > LD(dst->max_ns))
		ST(dst->max_ns, LD(src->max_ns));
}

void lathist_sub(struct lathist *dst, const struct lathist *later, const struct lathist *earlier)
{
	uint64_t n = 0, lo = UINT64_MAX, hi = 0;
	for (uint32_t i = 0; i < LATHIST_BUCKETS; i++) {
		uint64_t a = LD(later->b[i]), b = LD(earlier->b[i]);
		uint64_t c = a > b ? a - b : 0;
		ST(dst->b[i], c);
		if (!c)
			continue;
		uint64_t blo, bhi;
		lathist_bucket_range(i, &blo, &bhi);
		if (lo == UINT64_MAX)
			lo = blo;
		hi = bhi;
		n += c;
	}
	uint64_t s1 = LD(later->sum_ns), s0 = LD(earlier->sum_ns);
	ST(dst->count, n);
	ST(dst->sum_ns, s1 > s0 ? s1 - s0 : 0);
	uint64_t emin = LD(later->min_ns), emax = LD(later->max_ns);
	if (n && lo < emin)
		lo = emin;
	if (n && hi > emax)
		hi = emax;
	ST(dst->min_ns, n ? lo : UINT64_MAX);
	ST(dst->max_ns, n ? hi : 0);
}

/* A bucket's value: the middle of its range (exact below 2 * LATHIST_SUB). */
static double bucket_value(uint32_t idx)
{
	uint64_t lo, hi;
	lathist_bucket_range(idx, &lo, &hi);
	return ((double)lo + (double)hi) / 2.0;
}

double lathist_percentile(const struct lathist *h, double q)
{
	uint64_t n = LD(h->count);
	if (!n || !(q > 0))
		return 0;
	if (q > 100)
		q = 100;
	uint64_t rank = (uint64_t)((q / 100.0) * (double)n + 0.999999999);
	if (rank < 1)
		rank = 1;
	if (rank >= n)
		return (double)LD(h->max_ns); /* the largest sample is known exactly */
	uint64_t cum = 0;
	double v = 0;
	for (uint32_t i = 0; i < LATHIST_BUCKETS; i++) {
		cum += LD(h->b[i]);
		if (cum >= rank) {
			v = bucket_value(i);
			break;
		}
	}
	double mn = (double)LD(h->min_ns), mx = (double)LD(h->max_ns);
	if (v < mn)
		v = mn;
	if (v > mx)
		v = mx;
	return v;
}

double lathist_mean(const struct lathist *h)
{
	uint64_t n = LD(h->count);
	return n ? (double)LD(h->sum_ns) / (double)n : 0;
}

void lathist_summarize(const struct lathist *h, struct lathist_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->count = LD(h->count);
	if (!s->count)
		return;
	s->min_ns = (double)LD(h->min_ns);
	s->max_ns = (double)LD(h->max_ns);
	s->mean_ns = lathist_mean(h);
	s->p50_ns = lathist_percentile(h, 50);
	s->p90_ns = lathist_percentile(h, 90);
	s->p99_ns = lathist_percentile(h, 99);
	s->p999_ns = lathist_percentile(h, 99.9);
}

char *lathist_encode(const struct lathist *h)
{
	/* each bucket at most ",4294967295:18446744073709551615" (32 bytes) */
	size_t cap = 128, len = 0;
	for (uint32_t i = 0; i < LATHIST_BUCKETS; i++)
		cap += LD(h->b[i]) ? 32 : 0;
	char *out = malloc(cap);
	if (!out)
		return NULL;
	uint64_t n = LD(h->count), mn = LD(h->min_ns);
	len = (size_t)snprintf(out, cap, "LH1 n=%" PRIu64 " sum=%" PRIu64 " min=%" PRIu64
			       " max=%" PRIu64 " b=", n, LD(h->sum_ns), n ? mn : 0, LD(h->max_ns));
	uint32_t prev = 0;
	bool first = true;
	for (uint32_t i = 0; i < LATHIST_BUCKETS; i++) {
		uint64_t c = LD(h->b[i]);
		if (!c)
			continue;
		len += (size_t)snprintf(out + len, cap - len, "%s%u:%" PRIu64, first ? "" : ",",
					i - prev, c);
		prev = i;
		first = false;
	}
	return out;
}

static int bad(struct ns_err *err, const char *what)
{
	return ns_err_code(err, NS_E_INPUT, "latency histogram: %s", what);
}

/* "key=" then an unsigned number; *p moves past it. */
static int read_kv(const char **p, const char *key, uint64_t *v)
{
	size_t kl = strlen(key);
	if (strncmp(*p, key, kl) != 0 || (*p)[kl] < '0' || (*p)[kl] > '9')
		return -1;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(*p + kl, &end, 10);
	if (errno)
		return -1;
	*v = x;
	*p = end;
	return 0;
}

int lathist_decode(const char *text, struct lathist *h, struct ns_err *err)
{
	lathist_init(h);
	if (!text || strncmp(text, "LH1 ", 4) != 0)
		return bad(err, "does not start with 'LH1 '");
	const char *p = text + 4;
	uint64_t n, sum, mn, mx;
	if (read_kv(&p, "n=", &n) < 0 || *p++ != ' ' || read_kv(&p, "sum=", &sum) < 0 ||
	    *p++ != ' ' || read_kv(&p, "min=", &mn) < 0 || *p++ != ' ' ||
	    read_kv(&p, "max=", &mx) < 0 || strncmp(p, " b=", 3) != 0)
		return bad(err, "header is not 'n=N sum=S min=A max=B b='");
	p += 3;
	uint64_t total = 0, idx = 0;
	bool first = true;
	while (*p) {
		if (!first && *p++ != ',')
			return bad(err, "buckets are not separated by ','");
		uint64_t step, c;
		char *end;
		if (*p < '0' || *p > '9')
			return bad(err, "bucket step is not a number");
		errno = 0;
		step = strtoull(p, &end, 10);
		if (errno || *end != ':' || end[1] < '0' || end[1] > '9')
			return bad(err, "bucket is not STEP:COUNT");
		p = end + 1;
		c = strtoull(p, &end, 10);
		if (errno || !c)
			return bad(err, "bucket count is not a positive number");
		p = end;
		if ((!first && !step) || step >= LATHIST_BUCKETS || idx + step >= LATHIST_BUCKETS)
			return bad(err, "bucket index out of order or out of range");
		idx += step;
		if (c > UINT64_MAX - total)
			return bad(err, "counts overflow");
		total += c;
		ST(h->b[idx], c);
		first = false;
	}
	if (total != n)
		return bad(err, "bucket counts do not add up to n");
	if (n && mn > mx)
		return bad(err, "min is above max");
	ST(h->count, n);
	ST(h->sum_ns, sum);
	ST(h->min_ns, n ? mn : UINT64_MAX);
	ST(h->max_ns, mx);
	return 0;
}
