/* advertised: see advertised.h. */
#include "report/analyze/advertised.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/model/describe.h"
#include "report/load/phases.h"
#include "report/load/rundb.h"

int rp_advertised_load(sqlite3 *db, struct rp_data *d, struct ns_err *err)
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

struct rp_adv rp_advertised_case(const struct rp_data *d, const struct rp_case *c)
{
	struct rp_adv a = {.pct = NAN, .adv_bps = NAN};
	const struct rp_endpoint *e = &d->eps[c->ep];
	double rate = c->n_shaped > 0 ? c->sustained_bps : c->fig[RP_RCV_BPS].med;
	a.sustained = c->n_shaped > 0;
	/* an "up to" type sustains its baseline: held to it once the burst was over */
	if (e->adv_up_to && e->adv_baseline_gbps > 0 && a.sustained) {
		a.adv_bps = e->adv_baseline_gbps * 1e9 * e->emu_scale;
		a.baseline = true;
	} else if (e->adv_gbps > 0) {
		a.adv_bps = e->adv_gbps * 1e9 * e->emu_scale;
	}
	if (!isnan(a.adv_bps) && !isnan(rate) && a.adv_bps > 0)
		a.pct = 100.0 * rate / a.adv_bps;
	return a;
}

void rp_advertised_text(const struct rp_adv *a, struct rp_buf *b)
{
	if (isnan(a->pct)) {
		rp_buf_puts(b, "–");
		return;
	}
	rp_buf_printf(b, "%.0f %% of %.4g Gbit/s%s%s", a->pct, a->adv_bps / 1e9,
		      a->baseline ? " baseline" : "", a->sustained ? " (sustained)" : "");
}

int rp_advertised_findings(const struct rp_data *d, struct rp_findings *f)
{
	struct rp_buf b, lab;
	rp_buf_init(&b);
	rp_buf_init(&lab);
	int rc = 0;
	for (size_t i = 0; i < d->n_eps && rc == 0; i++) {
		const struct rp_endpoint *e = &d->eps[i];
		long best = -1;
		struct rp_adv ba = {.pct = NAN};
		for (size_t k = 0; k < d->n_cases; k++) {
			if (d->cases[k].ep != i)
				continue;
			struct rp_adv a = rp_advertised_case(d, &d->cases[k]);
			if (!isnan(a.pct) && (best < 0 || a.pct > ba.pct)) {
				best = (long)k;
				ba = a;
			}
		}
		if (best < 0 || ba.pct >= RP_ADVERTISED_SHORT_PCT)
			continue;
		rp_buf_reset(&b);
		rp_buf_reset(&lab);
		rp_case_label(d, &d->cases[best], &lab);
		rp_buf_printf(&b, "%s delivers %.0f %% of the %.4g Gbit/s%s advertised for %s%s at "
			      "best (%s): under %.0f %%.", rp_ep_label(e), ba.pct, ba.adv_bps / 1e9,
			      ba.baseline ? " baseline" : "", e->instance_type ? e->instance_type
			      : "its type", e->emu_scale != 1 ? " (times the lab's scale)" : "",
			      rp_buf_str(&lab), RP_ADVERTISED_SHORT_PCT);
		if (e->adv_up_to && !ba.baseline)
			rp_buf_puts(&b, " It is an \"up to\" type and no case ran past its burst: held "
				    "to its peak.");
		rc = b.oom || rp_findings_add(f, RP_FIND_ADVERTISED, rp_buf_str(&b)) < 0 ? -1 : 0;
	}
	rp_buf_free(&b);
	rp_buf_free(&lab);
	return rc;
}
