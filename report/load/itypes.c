/* itypes: see itypes.h. */
#include "report/load/itypes.h"

#include <stdlib.h>
#include <string.h>

#include "report/load/rundb.h"

int rp_itypes_load(sqlite3 *db, struct rp_data *d, struct ns_err *err)
{
	sqlite3_stmt *st;
	for (size_t i = 0; i < d->n_eps; i++)
		d->eps[i].emu_scale = 1;
	if (rp_db_prep(db, "SELECT e.id, t.provider, t.network_gbps, t.baseline_gbps,"
		       " t.network_up_to, json_extract(m.emulation, '$.scale') FROM endpoints e"
		       " LEFT JOIN run_instance_types t ON t.run_id = e.run_id"
		       "  AND t.instance_type = e.instance_type"
		       " LEFT JOIN endpoint_emulation m ON m.endpoint_id = e.id WHERE e.run_id = ?1",
		       &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, d->run.id);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (size_t i = 0; i < d->n_eps; i++) {
			struct rp_endpoint *e = &d->eps[i];
			if (e->id != sqlite3_column_int64(st, 0))
				continue;
			const unsigned char *pv = sqlite3_column_text(st, 1);
			const char *own = pv ? (const char *)pv : e->agent.provider;
			free(e->provider);
			e->provider = own ? strdup(own) : NULL;
			e->adv_gbps = sqlite3_column_double(st, 2);
			e->adv_baseline_gbps = sqlite3_column_double(st, 3);
			e->adv_up_to = sqlite3_column_int(st, 4);
			if (sqlite3_column_double(st, 5) > 0)
				e->emu_scale = sqlite3_column_double(st, 5);
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return ns_err_code(err, NS_E_INPUT, "database: reading the instance types: %s",
				   sqlite3_errmsg(db));
	return 0;
}
