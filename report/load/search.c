/* search: see search.h. Reads only the v_search_goals view. */
#include "report/load/search.h"

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

static bool same_series(const struct rp_search_row *a, const struct rp_search_row *b)
{
	return !strcmp(a->endpoint ? a->endpoint : "", b->endpoint ? b->endpoint : "") &&
	       a->streams == b->streams && !strcmp(a->direction, b->direction);
}

static void series_title(struct rp_buf *b, const struct rp_search_row *r, const char *what)
{
	char t[256];
	snprintf(t, sizeof(t), "%s, %s, %lld stream%s%s%s", what, r->endpoint ? r->endpoint : "?",
		 r->streams, r->streams == 1 ? "" : "s", strcmp(r->direction, "forward") ? ", " : "",
		 strcmp(r->direction, "forward") ? r->direction : "");
	rp_gp_quote(b, t);
}

size_t rp_search_chart(const struct rp_search *s, const char *name, struct rp_buf *dat,
		       struct rp_buf *plot)
{
	size_t series = 0, block = 0, lines = 0;
	long long links[4];
	size_t nl = 0;
	for (size_t i = 0; i < s->n;) {
		size_t j = i;
		rp_buf_printf(dat, "# series %zu: length mrr", block);
		for (size_t g = 0; g < s->rows[i].n_goals; g++)
			rp_buf_printf(dat, " goal%zu", g);
		rp_buf_puts(dat, "\n");
		for (; j < s->n && same_series(&s->rows[i], &s->rows[j]); j++) {
			const struct rp_search_row *r = &s->rows[j];
			rp_buf_printf(dat, "%lld %.6g", r->length, r->mrr_pps);
			for (size_t g = 0; g < r->n_goals; g++) {
				if (r->goals[g].met)
					rp_buf_printf(dat, " %.6g", r->goals[g].lower_pps);
				else
					rp_buf_puts(dat, " NaN");
			}
			rp_buf_puts(dat, "\n");
		}
		rp_buf_puts(dat, "\n\n");
		const struct rp_search_row *r = &s->rows[i];
		for (size_t g = 0; g < r->n_goals; g++) {
			char gn[32];
			rp_search_goal_name(r->goals[g].loss_ratio, gn, sizeof(gn));
			rp_buf_printf(plot, "%s'%s.dat' index %zu using 1:($%zu/1e6) with linespoints "
				      "pt %zu lw 2 title ", lines++ ? ", \\\n     " : "plot ", name, block,
				      g + 3, 5 + 2 * g);
			series_title(plot, r, gn);
		}
		rp_buf_printf(plot, ", \\\n     '%s.dat' index %zu using 1:($2/1e6) with points "
			      "pt 2 title ", name, block);
		series_title(plot, r, "unpaced, received");
		lines++;
		series++;
		for (size_t k = i; k < j; k++) {
			size_t m = 0;
			while (m < nl && links[m] != s->rows[k].link_bps)
				m++;
			if (m == nl && nl < 4 && s->rows[k].link_bps > 0)
				links[nl++] = s->rows[k].link_bps;
		}
		block++;
		i = j;
	}
	for (size_t m = 0; series && m < nl; m++) {
		char r[32];
		rp_fmt_bps(r, sizeof(r), (double)links[m]);
		rp_buf_printf(plot, ", \\\n     %lld.0 / (((x + 46 > 64) ? x + 46 : 64) + 20) / 8 / 1e6 "
			      "with lines dashtype 2 lw 2 title 'wire rate, %s link'", links[m], r);
	}
	return series;
}

static xmlNodePtr el(xmlNodePtr parent, const char *name, const char *text)
{
	return xmlNewTextChild(parent, NULL, BAD_CAST name, text ? BAD_CAST text : NULL);
}

static void pps_cell(xmlNodePtr tr, double v)
{
	char t[32] = "–";
	if (!isnan(v))
		snprintf(t, sizeof(t), "%.0f", v);
	xmlNodePtr td = el(tr, "td", t);
	xmlNewProp(td, BAD_CAST "class", BAD_CAST "num");
	if (!isnan(v)) {
		char raw[32];
		snprintf(raw, sizeof(raw), "%.10g", v);
		xmlNewProp(td, BAD_CAST "data-value", BAD_CAST raw);
	}
}

/* A goal the sender bounded: "≥ N", a floor rather than the path's figure. */
static void at_least_cell(xmlNodePtr tr, double v)
{
	char t[48] = "≥ ?";
	if (!isnan(v))
		snprintf(t, sizeof(t), "≥ %.0f", v);
	xmlNodePtr td = el(tr, "td", t);
	xmlNewProp(td, BAD_CAST "class", BAD_CAST "num sender-limited");
	xmlNewProp(td, BAD_CAST "title", BAD_CAST "the sender could not offer more: a floor, not the path's limit");
	if (!isnan(v)) {
		char raw[32];
		snprintf(raw, sizeof(raw), "%.10g", v);
		xmlNewProp(td, BAD_CAST "data-value", BAD_CAST raw);
	}
}

/* "For 64 bytes on c5n, 1 stream: NDR not met — note." */
static void unmet_sentence(const struct rp_search_row *r, const struct rp_search_goal *g,
			   char *out, size_t n)
{
	char gn[32];
	rp_search_goal_name(g->loss_ratio, gn, sizeof(gn));
	if (g->sender_limited)
		snprintf(out, n, "%lld-byte datagrams, %s, %lld stream%s: %s limited by the sender, not "
			 "the path: %s.", r->length, r->endpoint ? r->endpoint : "?", r->streams,
			 r->streams == 1 ? "" : "s", gn, g->note ? g->note : "no note");
	else if (!g->met)
		snprintf(out, n, "%lld-byte datagrams, %s, %lld stream%s: %s not met%s%s.", r->length,
			 r->endpoint ? r->endpoint : "?", r->streams, r->streams == 1 ? "" : "s", gn,
			 g->note ? ": " : "", g->note ? g->note : "");
	else
		snprintf(out, n, "%lld-byte datagrams, %s, %lld stream%s: %s %s.", r->length,
			 r->endpoint ? r->endpoint : "?", r->streams, r->streams == 1 ? "" : "s", gn,
			 g->note ? g->note : "not narrowed to the goal width");
}

void rp_search_html(const struct rp_search *s, xmlNodePtr parent)
{
	el(parent, "p", "The highest offered UDP packet rate whose trials met each loss goal "
			"(NDR: no loss, RFC 2544 throughput; PDR: loss under the ratio), found by "
			"a search after RFC 9971: short trials bracket and bisect, trials of the "
			"final duration confirm. \"Unpaced\" is what arrived when the sender ran "
			"flat out, for comparison; the wire rate is that of the declared link.");
	xmlNodePtr wrap = el(parent, "div", NULL);
	xmlNewProp(wrap, BAD_CAST "class", BAD_CAST "scroll");
	xmlNodePtr table = el(wrap, "table", NULL);
	xmlNewProp(table, BAD_CAST "id", BAD_CAST "search-table");
	xmlNodePtr tr = el(table, "tr", NULL);
	el(tr, "th", "pair");
	el(tr, "th", "streams");
	el(tr, "th", "payload (B)");
	size_t goals = s->n ? s->rows[0].n_goals : 0;
	for (size_t g = 0; g < goals; g++) {
		char gn[32], h[64];
		rp_search_goal_name(s->rows[0].goals[g].loss_ratio, gn, sizeof(gn));
		snprintf(h, sizeof(h), "%s (pps)", gn);
		el(tr, "th", h);
		snprintf(h, sizeof(h), "%s upper bound", gn);
		el(tr, "th", h);
	}
	el(tr, "th", "unpaced received (pps)");
	el(tr, "th", "wire rate (pps)");
	for (size_t i = 0; i < s->n; i++) {
		const struct rp_search_row *r = &s->rows[i];
		char t[32];
		tr = el(table, "tr", NULL);
		el(tr, "td", r->endpoint);
		snprintf(t, sizeof(t), "%lld", r->streams);
		el(tr, "td", t);
		snprintf(t, sizeof(t), "%lld", r->length);
		el(tr, "td", t);
		for (size_t g = 0; g < goals; g++) {
			const struct rp_search_goal *gg = g < r->n_goals ? &r->goals[g] : NULL;
			if (gg && gg->sender_limited)
				at_least_cell(tr, gg->at_least_pps);
			else
				pps_cell(tr, gg && gg->met ? gg->lower_pps : NAN);
			pps_cell(tr, gg ? gg->upper_pps : NAN);
		}
		pps_cell(tr, r->mrr_pps);
		pps_cell(tr, rp_search_wire_pps(r->link_bps, r->length));
	}
	xmlNodePtr ul = NULL;
	for (size_t i = 0; i < s->n; i++)
		for (size_t g = 0; g < s->rows[i].n_goals; g++) {
			const struct rp_search_goal *gg = &s->rows[i].goals[g];
			if (gg->met && gg->converged && !gg->sender_limited)
				continue;
			char line[768];
			unmet_sentence(&s->rows[i], gg, line, sizeof(line));
			if (!ul) {
				ul = el(parent, "ul", NULL);
				xmlNewProp(ul, BAD_CAST "class", BAD_CAST "findings");
			}
			el(ul, "li", line);
		}
}

void rp_search_markdown(const struct rp_search *s, struct rp_buf *b)
{
	size_t goals = s->n ? s->rows[0].n_goals : 0;
	rp_buf_puts(b, "The highest offered UDP packet rate whose trials met each loss goal "
		       "(NDR: no loss; PDR: loss under the ratio), after RFC 9971.\n\n"
		       "| pair | streams | payload (B) |");
	for (size_t g = 0; g < goals; g++) {
		char gn[32];
		rp_search_goal_name(s->rows[0].goals[g].loss_ratio, gn, sizeof(gn));
		rp_buf_printf(b, " %s (pps) |", gn);
	}
	rp_buf_puts(b, " unpaced received (pps) | wire rate (pps) |\n|---|---:|---:|");
	for (size_t g = 0; g < goals; g++)
		rp_buf_puts(b, "---:|");
	rp_buf_puts(b, "---:|---:|\n");
	for (size_t i = 0; i < s->n; i++) {
		const struct rp_search_row *r = &s->rows[i];
		rp_buf_puts(b, "| ");
		rp_md_escape(b, r->endpoint);
		rp_buf_printf(b, " | %lld | %lld |", r->streams, r->length);
		for (size_t g = 0; g < goals; g++) {
			const struct rp_search_goal *gg = g < r->n_goals ? &r->goals[g] : NULL;
			if (gg && gg->sender_limited && !isnan(gg->at_least_pps))
				rp_buf_printf(b, " ≥ %.0f (sender) |", gg->at_least_pps);
			else if (gg && gg->sender_limited)
				rp_buf_puts(b, " not met (sender) |");
			else if (gg && gg->met)
				rp_buf_printf(b, " %.0f |", gg->lower_pps);
			else
				rp_buf_puts(b, " not met |");
		}
		rp_buf_printf(b, " %.0f |", r->mrr_pps);
		double w = rp_search_wire_pps(r->link_bps, r->length);
		if (isnan(w))
			rp_buf_puts(b, " – |\n");
		else
			rp_buf_printf(b, " %.0f |\n", w);
	}
	rp_buf_puts(b, "\n");
	for (size_t i = 0; i < s->n; i++)
		for (size_t g = 0; g < s->rows[i].n_goals; g++) {
			const struct rp_search_goal *gg = &s->rows[i].goals[g];
			if (gg->met && gg->converged && !gg->sender_limited)
				continue;
			char line[768];
			unmet_sentence(&s->rows[i], gg, line, sizeof(line));
			rp_buf_puts(b, "- ");
			rp_md_escape(b, line);
			rp_buf_puts(b, "\n");
		}
	rp_buf_puts(b, "\n");
}
