/* limits (report): what limited each case, from result_limits (store version 16) — the ok
 * repeats whose sender offered less than it was asked (sender_limited: the figure is the
 * sender's, not the path's; --fail-on-regression leaves such a case out), the commonest
 * limiting factor, the busiest threads and the CPU steal — the note the results tables put
 * beside a limited case and the findings that say what set a figure. */
#ifndef RP_LIMITS_H
#define RP_LIMITS_H

#include <stdbool.h>

#include <sqlite3.h>

#include "lib/err.h"
#include "report/load/data.h"
#include "report/model/fmt.h"

/* A thread above this share of a core set the figure (runner/session/limit.h's threshold). */
#define RP_LIMIT_CPU_BUSY_PCT 90.0
/* CPU steal worth a finding (runner/session/limit.h's LIMIT_STEAL_PCT). */
#define RP_LIMIT_STEAL_PCT 10.0

/* Fills each case's limit fields over its ok repeats; a database from before version 16 has
 * no result_limits: nothing is filled. */
int rp_limits_load(sqlite3 *db, struct rp_data *d, struct ns_err *err);
/* The results tables' note for a sender-limited case into b ("sender-limited in 2 of 3
 * repeats: offered 37.0 of 50.0 Mbit/s asked, pacer_late"); false (b untouched) if none. */
bool rp_limits_note(const struct rp_case *c, struct rp_buf *b);
/* The finding for case i into b: sender-limited, a thread at a whole core, or CPU steal;
 * false (b untouched) when nothing stood out. */
bool rp_limits_finding(const struct rp_data *d, size_t i, struct rp_buf *b);

#endif
