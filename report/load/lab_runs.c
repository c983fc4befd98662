#include "report/load/lab_runs.h"

#include <stdlib.h>
#include <string.h>

int rp_lab_load(sqlite3 *db, struct rp_data *d, struct ns_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT e.id, coalesce(json_extract(m.emulation, '$.scale_text'), "
			       "'1') FROM endpoints e JOIN endpoint_emulation m ON m.endpoint_id = e.id "
			       "WHERE e.run_id = ?1", -1, &st, NULL) != SQLITE_OK)
		return 0; /* no such table: written before the lab existed */
	sqlite3_bind_int64(st, 1, d->run.id);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(st, 0);
		for (size_t i = 0; i < d->n_eps; i++) {
			if (d->eps[i].id != id || d->eps[i].lab_scale)
				continue;
			if (!(d->eps[i].lab_scale = strdup((const char *)sqlite3_column_text(st, 1)))) {
				sqlite3_finalize(st);
				return ns_err_code(err, NS_E_NOMEM, "out of memory");
			}
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return ns_err_code(err, NS_E_INPUT, "database: %s", sqlite3_errmsg(db));
	return 0;
}

const char *rp_lab_scale(const struct rp_data *d)
{
	for (size_t i = 0; i < d->n_eps; i++)
		if (d->eps[i].lab_scale)
			return d->eps[i].lab_scale;
	return NULL;
}

size_t rp_lab_pairs(const struct rp_data *d, double *scale)
{
	size_t n = 0;
	for (size_t i = 0; i < d->n_eps; i++)
		if (d->eps[i].lab_scale && n++ == 0)
			*scale = d->eps[i].emu_scale; /* report/advertised.c reads it */
	return n;
}

void rp_lab_headline(const struct rp_data *d, const struct rp_data *base, struct rp_buf *b)
{
	const char *scale = rp_lab_scale(d);
	if (scale)
		rp_buf_printf(b, "Emulated lab run (netsweep lab: network namespaces shaped with tbf "
			      "to the instance types' network figures at scale %s): its throughput and "
			      "per-dollar figures are the lab's, not measured on cloud instances. ",
			      scale);
	if (base && !scale != !rp_lab_scale(base))
		rp_buf_printf(b, "The baseline, run %lld, was %s: the comparison mixes a lab run with "
			      "a run on real instances. ", base->run.id,
			      scale ? "on real instances" : "an emulated lab run");
}
