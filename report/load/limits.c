/* limits (report): see limits.h. */
#include "report/load/limits.h"

#include <stdlib.h>
#include <string.h>

#include "lib/sql/sqlrow.h"
#include "report/model/describe.h"
#include "report/load/rundb.h"

static void limits_row(struct rp_case *c, sqlite3_stmt *st)
{
	c->n_sender_limited = sqlite3_column_int(st, 1);
	c->limit_shortfall_pct = sqlite3_column_double(st, 2);
	c->limit_asked_bps = sqlite3_column_double(st, 3);
	c->limit_offered_bps = sqlite3_column_double(st, 4);
	free(c->limit_cause);
	c->limit_cause = sqlrow_dup(st, 5);
	free(c->limited_by);
	c->limited_by = sqlrow_dup(st, 6);
	c->n_limited_by = sqlite3_column_int(st, 7);
	c->limit_snd_thread_cpu = sqlite3_column_double(st, 8);
	c->limit_rcv_thread_cpu = sqlite3_column_double(st, 9);
	c->limit_steal_pct = sqlite3_column_double(st, 10);
}

int rp_limits_load(sqlite3 *db, struct rp_data *d, struct ns_err *err)
{
	/* the commonest cause of the limited repeats, the commonest factor of all */
#define LIM_OK " FROM result_limits l2 JOIN results r2 ON r2.id = l2.result_id" \
	       " WHERE r2.case_id = r.case_id AND r2.status = 'ok' AND l2.direction = 'fwd'"
	return rp_db_case_rows(db,
			       "SELECT r.case_id, sum(l.sender_limited),"
			       " max(CASE WHEN l.sender_limited THEN l.shortfall_pct END),"
			       " avg(CASE WHEN l.sender_limited THEN l.asked_bps END),"
			       " avg(CASE WHEN l.sender_limited THEN l.offered_bps END),"
			       " (SELECT l2.cause" LIM_OK " AND l2.sender_limited"
			       "  GROUP BY l2.cause ORDER BY count(*) DESC, l2.cause LIMIT 1),"
			       " (SELECT l2.limited_by" LIM_OK " AND l2.limited_by IS NOT NULL"
			       "  GROUP BY l2.limited_by ORDER BY count(*) DESC, l2.limited_by LIMIT 1),"
			       " (SELECT count(*)" LIM_OK " AND l2.limited_by = (SELECT l3.limited_by"
			       "  FROM result_limits l3 JOIN results r3 ON r3.id = l3.result_id"
			       "  WHERE r3.case_id = r.case_id AND r3.status = 'ok' AND"
			       "  l3.direction = 'fwd' AND l3.limited_by IS NOT NULL"
			       "  GROUP BY l3.limited_by ORDER BY count(*) DESC, l3.limited_by LIMIT 1)),"
			       " max(l.snd_thread_cpu), max(l.rcv_thread_cpu),"
			       " max(max(l.snd_steal_pct, l.rcv_steal_pct))"
			       " FROM results r JOIN cases c ON c.id = r.case_id"
			       " JOIN result_limits l ON l.result_id = r.id AND l.direction = 'fwd'"
			       " WHERE c.run_id = ? AND r.status = 'ok'"
			       " GROUP BY r.case_id", d, limits_row, "result_limits", err);
#undef LIM_OK
}

bool rp_limits_note(const struct rp_case *c, struct rp_buf *b)
{
	if (!c->n_sender_limited)
		return false;
	rp_buf_printf(b, "sender-limited in %d of %d repeats: offered %.1f of %.1f Mbit/s asked "
		      "(%.0f %% short, %s)", c->n_sender_limited, c->n_ok,
		      c->limit_offered_bps / 1e6, c->limit_asked_bps / 1e6, c->limit_shortfall_pct,
		      c->limit_cause ? c->limit_cause : "unknown");
	return true;
}

static bool by(const struct rp_case *c, const char *what)
{
	return c->limited_by && !strcmp(c->limited_by, what);
}

bool rp_limits_finding(const struct rp_data *d, size_t i, struct rp_buf *b)
{
	const struct rp_case *c = &d->cases[i];
	if (c->n_sender_limited) {
		rp_case_label(d, c, b);
		rp_buf_puts(b, ": ");
		rp_limits_note(c, b);
		rp_buf_puts(b, ". Its figure is the sender's, not the path's: it is not ranked or "
			       "gated as the path's (--fail-on-regression leaves it out).");
	} else if (by(c, "sender_cpu") && c->limit_snd_thread_cpu >= RP_LIMIT_CPU_BUSY_PCT) {
		rp_case_label(d, c, b);
		rp_buf_printf(b, ": one sender thread at %.0f %% CPU: the figure is the tool's core, "
			      "add threads.", c->limit_snd_thread_cpu);
	} else if (by(c, "receiver_cpu") && c->limit_rcv_thread_cpu >= RP_LIMIT_CPU_BUSY_PCT) {
		rp_case_label(d, c, b);
		rp_buf_printf(b, ": one receiver thread at %.0f %% CPU: the figure is the receiving "
			      "tool's core, add threads.", c->limit_rcv_thread_cpu);
	} else if (by(c, "receiver_cpu") && c->protocol && !strcmp(c->protocol, "udp")) {
		rp_case_label(d, c, b);
		rp_buf_puts(b, ": the receiver's own socket buffers dropped what was lost: the "
			       "figure is the receiver's, raise -w.");
	} else if (by(c, "receiver_cpu")) {
		/* TCP has no drops of its own to blame: its receiver waited for a CPU */
		rp_case_label(d, c, b);
		rp_buf_puts(b, ": the receiving end waited for a CPU (its thread queued behind "
			       "others): the figure is the receiving host's, not the path's.");
	} else {
		if (!(c->limit_steal_pct >= RP_LIMIT_STEAL_PCT))
			return false;
		rp_case_label(d, c, b);
	}
	if (c->limit_steal_pct >= RP_LIMIT_STEAL_PCT)
		rp_buf_printf(b, " The hypervisor stole up to %.0f %% of an end's CPU during it: a "
			      "crowded or burstable host, part of the answer.", c->limit_steal_pct);
	return true;
}
