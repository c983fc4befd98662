/* search: see search.h. Reads only the v_search_goals view. */
#include "report/load/search_rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sql/sqlrow.h"

/* The first repeat's search of each case, goals in order. */
static const char *const load_sql =
	"SELECT endpoint, coalesce(link_bps, 0), length, streams, direction, mrr_pps, goal,"
	" loss_ratio, met, converged, lower_pps, upper_pps, conditional_pps, note,"
	" sender_limited, at_least_pps"
	" FROM v_search_goals g WHERE run_id = ?1 AND repeat = (SELECT min(repeat)"
	" FROM v_search_goals h WHERE h.case_id = g.case_id)"
	" ORDER BY endpoint, streams, direction, length, case_id, goal";

int rp_search_load(sqlite3 *db, long long run_id, struct rp_search *s, struct ns_err *err)
{
	memset(s, 0, sizeof(*s));
	sqlite3_stmt *st = NULL;
	/* a database from before searches has no such view: no searches */
	if (sqlite3_prepare_v2(db, load_sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, run_id);
	size_t cap = 0;
	int rc;
	struct rp_search_row *row = NULL;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long long goal = sqlite3_column_int64(st, 6);
		/* a new row whenever the goal index starts again */
		if (!row || goal == 0) {
			if (s->n == cap) {
				size_t nc = cap ? 2 * cap : 16;
				void *p = realloc(s->rows, nc * sizeof(*s->rows));
				if (!p)
					goto oom;
				s->rows = p;
				cap = nc;
			}
			row = &s->rows[s->n++];
			memset(row, 0, sizeof(*row));
			row->endpoint = sqlrow_dup(st, 0);
			row->link_bps = sqlite3_column_int64(st, 1);
			row->length = sqlite3_column_int64(st, 2);
			row->streams = sqlite3_column_int64(st, 3);
			const unsigned char *d = sqlite3_column_text(st, 4);
			snprintf(row->direction, sizeof(row->direction), "%s", d ? (const char *)d : "");
			row->mrr_pps = sqlrow_num(st, 5);
		}
		if (row->n_goals == RP_SEARCH_GOALS)
			continue;
		struct rp_search_goal *g = &row->goals[row->n_goals++];
		g->loss_ratio = sqlite3_column_double(st, 7);
		g->met = sqlite3_column_int(st, 8) != 0;
		g->converged = sqlite3_column_int(st, 9) != 0;
		g->lower_pps = sqlrow_num(st, 10);
		g->upper_pps = sqlrow_num(st, 11);
		g->conditional_pps = sqlrow_num(st, 12);
		g->note = sqlrow_dup(st, 13);
		g->sender_limited = sqlite3_column_int(st, 14) != 0;
		g->at_least_pps = sqlrow_num(st, 15);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		rp_search_free(s);
		return ns_err_code(err, NS_E_INPUT, "reading the rate searches: %s", sqlite3_errmsg(db));
	}
	return 0;
oom:
	sqlite3_finalize(st);
	rp_search_free(s);
	return ns_err_code(err, NS_E_NOMEM, "out of memory reading the rate searches");
}

void rp_search_free(struct rp_search *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->rows[i].endpoint);
		for (size_t g = 0; g < s->rows[i].n_goals; g++)
			free(s->rows[i].goals[g].note);
	}
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

void rp_search_goal_name(double loss_ratio, char *out, size_t n)
{
	if (loss_ratio == 0)
		snprintf(out, n, "NDR");
	else
		snprintf(out, n, "PDR %g %%", loss_ratio * 100);
}

double rp_search_wire_pps(long long link_bps, long long payload)
{
	long long frame = payload + 46 > 64 ? payload + 46 : 64;
	return link_bps > 0 ? (double)link_bps / ((double)(frame + 20) * 8) : NAN;
}
