/* phase_rows: the burst and sustained phases the runner found in a case's results
 * (result_phases, store version 7) — the sustained rate is the figure to buy on when a case
 * was shaped on credits; and the finding that says so. */
#ifndef RP_PHASES_H
#define RP_PHASES_H

#include <sqlite3.h>

#include "lib/err.h"
#include "report/load/data.h"
#include "report/model/fmt.h"

/* Fills each case's shaping (means over its ok repeats whose forward series stepped down).
 * A database from before version 7 has none: nothing is filled. */
int rp_phases_load(sqlite3 *db, struct rp_data *d, struct ns_err *err);
/* The throughput a case is ranked on per dollar: the sustained rate when it was shaped,
 * else its median goodput (bits/s). */
double rp_phases_rank_bps(const struct rp_case *c);
/* One sentence per shaped case into b, "" when none was. */
void rp_phases_finding(const struct rp_data *d, struct rp_buf *b);

#endif
