/* csv: see csv.h. Values are written as SQLite renders them (load/result_rows.h), so the
 * file holds the database's numbers, not the report's rounding. */
#include "report/render/csv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/atomicfile.h"
#include "report/model/describe.h"
#include "report/model/fmt.h"
#include "report/load/lab_runs.h"
#include "report/load/result_rows.h"
#include "report/render/report.h"

struct csv_out {
	FILE *f;
	struct rp_buf b;
};

static int csv_row(void *ctx, int ncols, const char *const *cells, struct ns_err *err)
{
	struct csv_out *o = ctx;
	for (int i = 0; i < ncols; i++) {
		rp_csv_field(&o->b, cells[i]);
		rp_buf_puts(&o->b, i + 1 < ncols ? "," : "\r\n");
	}
	if (o->b.oom)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	if (o->b.len > 1 << 16) {
		fwrite(rp_buf_str(&o->b), 1, o->b.len, o->f);
		rp_buf_reset(&o->b);
	}
	return 0;
}

int rp_csv_write(sqlite3 *db, long long run_id, bool emulated, const char *path,
		 struct ns_err *err)
{
	struct atomicfile af = {0};
	struct csv_out o;
	rp_buf_init(&o.b);
	if (atomicfile_open(&af, path, 0644, 0, err) < 0)
		goto err;
	o.f = af.f;
	if (rp_result_rows(db, run_id, emulated, csv_row, &o, err) < 0)
		goto err;
	fwrite(rp_buf_str(&o.b), 1, o.b.len, o.f);
	rp_buf_free(&o.b);
	return atomicfile_commit(&af, err);
err:
	rp_buf_free(&o.b);
	atomicfile_abort(&af);
	return -1;
}

int rp_csv_ranking(const struct rp_report *r, const char *path, struct ns_err *err)
{
	struct rp_buf b;
	rp_buf_init(&b);
	bool lab = rp_lab_scale(r->d) != NULL;
	rp_buf_puts(&b, "rule,rank,endpoint,instance_type,region,price_basis,usd_per_hour,case_key,"
		    "mbps,mbps_per_usd_hour,provider,currency,pricing,per_hour,mbps_per_hour,relation,"
		    "gb_per_hour,monthly_gb,transfer_per_hour,total_per_hour,mbps_per_total_hour,"
		    "transfer_per_tb,total_per_tb,total_rank,inside_burst,burst_window_from,"
		    "burst_window_s");
	rp_buf_puts(&b, lab ? ",emulated,lab_scale\n" : "\n");
	for (size_t i = 0; i < r->n_cost; i++) {
		const struct rp_cost_row *c = &r->cost[i];
		const struct rp_endpoint *e = &r->d->eps[c->ep];
		rp_csv_field(&b, r->rank_rule ? r->rank_rule : "best");
		if (c->rank)
			rp_buf_printf(&b, ",%d,", c->rank);
		else
			rp_buf_puts(&b, ",,");
		rp_csv_field(&b, e->name);
		rp_buf_puts(&b, ",");
		rp_csv_field(&b, e->instance_type);
		rp_buf_puts(&b, ",");
		rp_csv_field(&b, e->region);
		rp_buf_puts(&b, ",");
		rp_csv_field(&b, e->price_basis);
		rp_buf_puts(&b, ",");
		int usd = rp_ep_usd(e); /* the dollar columns only in dollars */
		if (!isnan(c->usd_per_hour) && usd)
			rp_buf_printf(&b, "%.17g", c->usd_per_hour);
		rp_buf_puts(&b, ",");
		rp_csv_field(&b, c->best_case >= 0 ? r->d->cases[c->best_case].case_key : NULL);
		rp_buf_puts(&b, ",");
		if (!isnan(c->mbps))
			rp_buf_printf(&b, "%.17g", c->mbps);
		rp_buf_puts(&b, ",");
		if (!isnan(c->mbps_per_usd_hour) && usd)
			rp_buf_printf(&b, "%.17g", c->mbps_per_usd_hour);
		rp_buf_puts(&b, ",");
		rp_csv_field(&b, e->provider);
		rp_buf_puts(&b, ",");
		rp_csv_field(&b, isnan(c->usd_per_hour) ? NULL : usd ? "USD" : e->currency);
		rp_buf_puts(&b, ",");
		rp_csv_field(&b, e->pricing ? e->pricing : "on-demand");
		rp_buf_puts(&b, ",");
		if (!isnan(c->usd_per_hour))
			rp_buf_printf(&b, "%.17g", c->usd_per_hour);
		rp_buf_puts(&b, ",");
		if (!isnan(c->mbps_per_usd_hour))
			rp_buf_printf(&b, "%.17g", c->mbps_per_usd_hour);
		rp_buf_puts(&b, ",");
		rp_csv_field(&b, e->xfer.relation[0] ? e->xfer.relation : "unknown");
		const double xf[] = {c->gb_per_hour, c->monthly_gb, c->transfer_per_hour,
				     c->total_per_hour, c->mbps_per_total_hour, c->transfer_per_tb,
				     c->total_per_tb};
		for (size_t k = 0; k < sizeof(xf) / sizeof(xf[0]); k++) {
			rp_buf_puts(&b, ",");
			if (!isnan(xf[k]))
				rp_buf_printf(&b, "%.17g", xf[k]);
		}
		rp_buf_puts(&b, ",");
		if (c->total_rank)
			rp_buf_printf(&b, "%d", c->total_rank);
		/* report.json's burst keys (report/analyze/burst.h): 1/0, measured/documented
		 * (empty: not an "up to" type), the measured window (empty: none) */
		rp_buf_printf(&b, ",%d,%s,", c->inside_burst ? 1 : 0, !c->burst_window ? ""
			      : c->window_measured ? "measured" : "documented");
		if (!isnan(c->window_s))
			rp_buf_printf(&b, "%.17g", c->window_s);
		if (lab && e->lab_scale)
			rp_buf_printf(&b, ",1,%.17g", e->emu_scale);
		else if (lab)
			rp_buf_puts(&b, ",0,");
		rp_buf_puts(&b, "\n");
	}
	int rc = b.oom ? ns_err_code(err, NS_E_NOMEM, "out of memory")
		       : atomicfile_write(path, rp_buf_str(&b), b.len, 0644, 0, err);
	rp_buf_free(&b);
	return rc;
}
