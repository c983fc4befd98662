/* compact: what a long-run case (params.until) keeps of its interval series, so that an hour
 * does not bloat the database — the sums only (no per-stream rows), at full resolution for
 * the first COMPACT_FULL_S of measured time (in COMPACT_FULL_S / COMPACT_FULL_ROWS buckets
 * when the intervals are finer) and in COMPACT_BUCKET_S buckets after it. The
 * figures, the phases and how the test ended are computed before, from the whole series;
 * this shapes only what is stored (samples and the result's JSON). README states the bytes
 * an hour costs; tests/unit/test_compact.c measures them. */
#ifndef NS_COMPACT_H
#define NS_COMPACT_H

#include "runner/proto/probe.h"

/* The start of a test (slow start, a short burst): kept as measured, up to 600 rows (at
 * 10 ms intervals, 100 ms buckets). */
#define COMPACT_FULL_S 60.0
#define COMPACT_FULL_ROWS 600
/* After it, one row per 10 s per direction (an interval already longer stays as it is):
 * credit bursts last minutes, so a knee is still placed to a few seconds (the phases were
 * found on the whole series anyway) */
#define COMPACT_BUCKET_S 10.0

/* In place, for a result whose params ask for until; others are left alone. */
void compact_long_run(struct probe_result *res);

#endif
