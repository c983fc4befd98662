/* data (load): the report's model (report/model/data.h) filled from the results database
 * (schemas/store.sql is the contract). A run is loaded with its endpoints (hostinfo JSON read
 * through SQLite's json_extract), prices and cases, each case with its per-repeat figures
 * reduced to medians and spread; rows are read by column name. */
#ifndef RP_LOAD_DATA_H
#define RP_LOAD_DATA_H

#include <sqlite3.h>

#include "lib/err.h"
#include "report/model/data.h"

int rp_data_load(sqlite3 *db, long long run_id, struct rp_data *d, struct ns_err *err);
/* The trend of the given case keys over the last n runs of the matrix up to the run's. */
int rp_trend_load(sqlite3 *db, const struct rp_data *d, const char *const *keys, size_t n_keys,
		  size_t n, struct rp_trend *t, struct ns_err *err);
/* Per-interval sums (stream -1, forward) of every ok repeat of a case. */
int rp_series_load(sqlite3 *db, long long case_id, struct rp_series *s, struct ns_err *err);
/* A group result's clients' interval sums (group_samples): repeat[i] is the client's place
 * in the group, ordered by client then time. */
int rp_group_series_load(sqlite3 *db, long long result_id, struct rp_series *s,
			 struct ns_err *err);
/* A group result's clients' names (the matrix's members), *names[i] the client in place i
 * (NULL where there is none); free with rp_names_free. NS_E_NOMEM, NS_E_INPUT. */
int rp_group_names_load(sqlite3 *db, long long result_id, char ***names, size_t *n,
			struct ns_err *err);
void rp_names_free(char **names, size_t n);

#endif
