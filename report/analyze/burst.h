/* burst: a per-dollar figure bought on burst credit. An "up to" type (the catalog's up-to
 * with a baseline-gbps: AWS's "Up to 10 Gigabit") delivers its peak only while its network
 * credits last and then falls to its baseline. A pair of such a type whose ranked case ran
 * shorter than the burst window, above the baseline, without a measured step down, is ranked
 * on credit: the ranking says so beside the figure, a finding says what it sustains, and
 * the store's v_burst_window says the same in SQL.
 *
 * How the window is known: measured, when a case of the pair stepped down (report/load/
 * phases: the mean burst length of its shaped results); else the providers' documented range
 * (AWS: credits last "typically 5 to 60 minutes"), and a case shorter than its upper end may
 * still be inside it. The catalog states no window of its own. */
#ifndef RP_BURST_H
#define RP_BURST_H

#include <stddef.h>

#include "report/analyze/cost_rank.h"
#include "report/load/data.h"
#include "report/model/fmt.h"

#define RP_BURST_DOC_MIN_S 300.0   /* the documented window: 5 ... */
#define RP_BURST_DOC_MAX_S 3600.0  /* ... to 60 minutes */
/* Over the baseline by more than this share, a figure may be credit's. */
#define RP_BURST_OVER_BASELINE 1.05

/* Marks each row's burst_window, window_s, window_measured and inside_burst. */
void rp_burst_mark(const struct rp_data *d, struct rp_cost_row *rows, size_t n);
/* "inside its burst window (sustains 0.75 Gbit/s)": the note beside a flagged figure. */
void rp_burst_note(const struct rp_data *d, const struct rp_cost_row *r, struct rp_buf *b);
/* A finding per flagged row; -1 out of memory. */
struct rp_findings;
int rp_burst_findings(const struct rp_data *d, const struct rp_cost_row *rows, size_t n,
		      struct rp_findings *f);

#endif
