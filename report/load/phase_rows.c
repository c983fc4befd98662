#include "report/load/phase_rows.h"

#include <math.h>
#include <string.h>

#include "report/model/describe.h"
#include "report/load/rundb.h"

static void phases_row(struct rp_case *c, sqlite3_stmt *st)
{
	c->n_shaped = sqlite3_column_int(st, 1);
	c->burst_bps = sqlite3_column_double(st, 2);
	c->burst_s = sqlite3_column_double(st, 3);
	c->sustained_bps = sqlite3_column_double(st, 4);
	c->shaped_ran_s = sqlite3_column_double(st, 5);
}

int rp_phases_load(sqlite3 *db, struct rp_data *d, struct ns_err *err)
{
	/* a database from before version 7 has no such table: no phases, not an error */
	return rp_db_case_rows(db,
			       "SELECT r.case_id, count(*), avg(p.burst_bps), avg(p.burst_s),"
			       " avg(p.sustained_bps), avg(r.duration_s) FROM result_phases p JOIN results r"
			       " ON r.id = p.result_id JOIN cases c ON c.id = r.case_id"
			       " WHERE c.run_id = ? AND r.status = 'ok' AND p.direction = 'fwd'"
			       " GROUP BY r.case_id", d, phases_row, "result_phases", err);
}

double rp_phases_rank_bps(const struct rp_case *c)
{
	return c->n_shaped ? c->sustained_bps : c->fig[RP_RCV_BPS].med;
}

void rp_phases_finding(const struct rp_data *d, struct rp_buf *b)
{
	for (size_t i = 0; i < d->n_cases; i++) {
		const struct rp_case *c = &d->cases[i];
		if (!c->n_shaped)
			continue;
		char burst[32], sus[32];
		rp_fmt_in(burst, sizeof(burst), c->burst_bps, d->unit);
		rp_fmt_in(sus, sizeof(sus), c->sustained_bps, d->unit);
		rp_buf_printf(b, "%s", b->len ? " " : "");
		rp_case_label(d, c, b);
		rp_buf_printf(b, " was shaped: %s for the first %.1f s, then %s sustained (in %d of "
			      "%d repeats). A burst on credits that stops is what \"up to\" bandwidth "
			      "does; the per-dollar ranking uses the sustained rate for this case.",
			      burst, c->burst_s, sus, c->n_shaped, c->n_ok);
		/* long-run mode: the bound was not the length, unless the rate never held (a busy
		 * machine's dips) and the case ran all of it */
		if (c->steady_s > 0 && c->shaped_ran_s < c->duration_s - 0.5)
			rp_buf_printf(b, " In long-run mode it ran %.0f s of its %.0f s bound: it stopped "
				      "once the sustained rate had held for %g s.", c->shaped_ran_s,
				      c->duration_s, c->steady_s);
		else if (c->steady_s > 0)
			rp_buf_printf(b, " In long-run mode it ran to its %.0f s bound: the rate never "
				      "held steady for %g s.", c->duration_s, c->steady_s);
	}
}
