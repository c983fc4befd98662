/* csv: results.csv — one row per result (every repeat of every case of the run) with the
 * case's parameters, the measured figures exactly as stored, and the cost figures; a run with
 * emulated pairs (netsweep lab) has two more columns, emulated (0/1) and lab_scale. */
#ifndef RP_CSV_H
#define RP_CSV_H

#include <sqlite3.h>
#include <stdbool.h>

#include "lib/err.h"

int rp_csv_write(sqlite3 *db, long long run_id, bool emulated, const char *path,
		 struct ns_err *err);

/* ranking.csv: the per-dollar ranking as the page shows it (rule, rank, pair, ranked case,
 * median Mbit/s, $/hour, Mbit/s per $/hour), the same columns as v_cost_ranking; with
 * emulated pairs also emulated (0/1) and lab_scale. */
struct rp_report;
int rp_csv_ranking(const struct rp_report *r, const char *path, struct ns_err *err);

#endif
