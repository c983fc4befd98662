/* csv: results.csv — one row per result (every repeat of every case of the run) with the
 * case's parameters, the measured figures exactly as stored, and the cost figures. */
#ifndef RP_CSV_H
#define RP_CSV_H

#include <sqlite3.h>

#include "lib/err.h"

int rp_csv_write(sqlite3 *db, long long run_id, const char *path, struct ns_err *err);

#endif
