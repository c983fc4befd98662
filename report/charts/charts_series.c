/* charts_series: the charts over time — each pair's interval series (small multiples) and
 * each case's history over the matrix's recent runs (see charts.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/charts/charts_gp.h"
#include "report/model/describe.h"
#include "report/model/fmt.h"
#include "report/analyze/history.h"

#define MAX_PANELS 8

/* Appends one panel: the interval series of case c, one block per repeat. Returns the number
 * of blocks written (0 when the case has fewer than 2 intervals per repeat). */
static size_t series_panel(const struct rp_series *s, const struct rp_data *d,
			   const char *name, const char *title, size_t first_block,
			   const char *line_of, char *const *names, size_t n_names,
			   struct rp_buf *dat, struct rp_buf *gp)
{
	size_t longest = 0, run = 0, blocks = 0;
	for (size_t i = 0; i < s->n; i++) {
		run = (i && s->repeat[i] == s->repeat[i - 1]) ? run + 1 : 1;
		if (run > longest)
			longest = run;
	}
	if (longest < 2)
		return 0;
	rp_buf_puts(gp, "set title ");
	rp_gp_quote(gp, title);
	rp_buf_puts(gp, "\n");
	for (size_t i = 0; i < s->n; i++) {
		if (i == 0 || s->repeat[i] != s->repeat[i - 1]) {
			if (first_block + blocks)
				rp_buf_puts(dat, "\n\n");
			cg_dat_comment(dat, title);
			rp_buf_printf(dat, "# %s %d\n# t_end_s %s\n", line_of, s->repeat[i],
				      d->unit.name);
			rp_buf_printf(gp, "%s'%s.dat' index %zu using 1:2 with linespoints ",
				      blocks ? ", \\\n     " : "plot ", name, first_block + blocks);
			int k = s->repeat[i];
			if (strcmp(line_of, "client")) {
				rp_buf_puts(gp, "notitle");
			} else if (k >= 0 && (size_t)k < n_names && names[k]) {
				rp_buf_puts(gp, "title "); /* the matrix's member name */
				rp_gp_quote(gp, names[k]);
			} else {
				rp_buf_printf(gp, "title 'client %d'", k + 1);
			}
			blocks++;
		}
		rp_buf_printf(dat, "%.6g %.6g\n", s->t_end[i], s->bps[i] / d->unit.div);
	}
	rp_buf_puts(gp, "\n");
	return blocks;
}

int rp_chart_series(sqlite3 *db, const struct rp_data *d, const struct rp_chart_opts *o,
		    struct rp_charts *cs, struct ns_err *err)
{
	/* One panel per endpoint pair: its fastest case that has interval samples. */
	long pick[MAX_PANELS];
	size_t np = 0, more = 0;
	for (size_t e = 0; e < d->n_eps; e++) {
		long best = -1;
		for (size_t i = 0; i < d->n_cases; i++)
			if (d->cases[i].ep == e && d->cases[i].series_result_id &&
			    (best < 0 || d->cases[i].fig[RP_RCV_BPS].med >
					 d->cases[best].fig[RP_RCV_BPS].med))
				best = (long)i;
		if (best >= 0 && np < MAX_PANELS)
			pick[np++] = best;
		else if (best >= 0)
			more++;
	}
	char caption[512];
	snprintf(caption, sizeof(caption), "Per-interval receiver goodput, one panel per endpoint "
		 "pair (its fastest case with interval samples), one line per repeat: how stable "
		 "the result was.%s", more ? " More pairs have samples than are drawn." : "");
	struct rp_chart *c = cg_chart_new(cs, o, "series", "Throughput over time", caption);
	struct rp_buf dat, gp, lab;
	rp_buf_init(&dat);
	rp_buf_init(&gp);
	rp_buf_init(&lab);
	cg_gp_header(&gp, o, c);
	rp_buf_printf(&gp, "set terminal svg size %d,%zu dynamic noenhanced font 'sans,%d' "
		      "background '#ffffff'\nset key off\nset xlabel 'seconds'\n"
		      "set ylabel '%s'\nset yrange [0:*]\nset multiplot layout %zu,1\n",
		      CG_WIDTH, 40 + (np ? np : 1) * 260, CG_FONT_PX, d->unit.name, np ? np : 1);
	size_t blocks = 0, n_samples = 0;
	for (size_t k = 0; k < np; k++) {
		struct rp_series s = {0};
		if (rp_series_load(db, d->cases[pick[k]].id, &s, err) < 0)
			goto err;
		rp_buf_reset(&lab);
		rp_case_label(d, &d->cases[pick[k]], &lab);
		n_samples += s.n;
		blocks += series_panel(&s, d, c->name, rp_buf_str(&lab), blocks, "repeat", NULL, 0,
				       &dat, &gp);
		rp_series_free(&s);
	}
	rp_buf_puts(&gp, "unset multiplot\n");
	int rc = cg_chart_finish(o, c, &dat, &gp, blocks ? NULL : n_samples ? "the charted cases "
				 "have fewer than 2 intervals per repeat" : "no case has interval "
				 "samples", err);
	rp_buf_free(&dat);
	rp_buf_free(&gp);
	rp_buf_free(&lab);
	return rc;
err:
	rp_buf_free(&dat);
	rp_buf_free(&gp);
	rp_buf_free(&lab);
	return -1;
}

int rp_chart_clients(sqlite3 *db, const struct rp_data *d, const struct rp_chart_opts *o,
		     struct rp_charts *cs, struct ns_err *err)
{
	long pick[MAX_PANELS];
	size_t np = 0, more = 0, height = 40;
	for (size_t i = 0; i < d->n_cases; i++)
		if (d->cases[i].group_result_id && d->cases[i].clients > 1) {
			if (np < MAX_PANELS) {
				pick[np++] = (long)i;
				/* a panel grows with its key, one line a client past six, so that
				 * the key beside the plot never reaches the panel's title */
				height += 260 + (d->cases[i].clients > 6 ? 24 * (d->cases[i].clients - 6) : 0);
			} else {
				more++;
			}
		}
	if (!np)
		return 0; /* no group case: no chart */
	char caption[512];
	snprintf(caption, sizeof(caption), "Each client's receive rate over time in group cases "
		 "(incast, fan-out: several tests started together), one panel per case (its first "
		 "repeat), one line per client: how they shared the path and when they settled.%s",
		 more ? " More group cases than are drawn." : "");
	struct rp_chart *c = cg_chart_new(cs, o, "clients", "Clients over time", caption);
	struct rp_buf dat, gp, lab;
	rp_buf_init(&dat);
	rp_buf_init(&gp);
	rp_buf_init(&lab);
	cg_gp_header(&gp, o, c);
	rp_buf_printf(&gp, "set terminal svg size %d,%zu dynamic noenhanced font 'sans,%d' "
		      "background '#ffffff'\nset key outside right center\nset xlabel 'seconds'\n"
		      "set ylabel '%s'\nset yrange [0:*]\nset multiplot layout %zu,1\n",
		      CG_WIDTH, height, CG_FONT_PX, d->unit.name, np);
	size_t blocks = 0;
	int rc = -1;
	for (size_t k = 0; k < np; k++) {
		struct rp_series s = {0};
		char **names;
		size_t n_names;
		if (rp_group_series_load(db, d->cases[pick[k]].group_result_id, &s, err) < 0)
			goto out;
		if (rp_group_names_load(db, d->cases[pick[k]].group_result_id, &names, &n_names,
					err) < 0) {
			rp_series_free(&s);
			goto out;
		}
		rp_buf_reset(&lab);
		rp_case_label(d, &d->cases[pick[k]], &lab);
		blocks += series_panel(&s, d, c->name, rp_buf_str(&lab), blocks, "client", names,
				       n_names, &dat, &gp);
		rp_names_free(names, n_names);
		rp_series_free(&s);
	}
	rp_buf_puts(&gp, "unset multiplot\n");
	rc = cg_chart_finish(o, c, &dat, &gp, blocks ? NULL : "the group cases have fewer than 2 "
			     "intervals per client", err);
out:
	rp_buf_free(&dat);
	rp_buf_free(&gp);
	rp_buf_free(&lab);
	return rc;
}

/* The x label of run r: its date, with the time when two runs shown share a date. */
static void run_tic(const struct rp_trend *t, size_t r, struct rp_buf *dat)
{
	const char *s = t->run_started[r] ? t->run_started[r] : "";
	int clash = 0;
	for (size_t k = 0; k < t->n_runs; k++)
		clash |= k != r && t->run_started[k] && !strncmp(t->run_started[k], s, 10);
	char b[32];
	if (strlen(s) >= 16 && clash)
		snprintf(b, sizeof(b), "%.5s %.5s", s + 5, s + 11);
	else if (strlen(s) >= 10)
		snprintf(b, sizeof(b), "%.10s", s);
	else
		snprintf(b, sizeof(b), "run %lld", t->run_ids[r]);
	cg_dat_label(dat, b);
	rp_buf_puts(dat, " ");
}

int rp_chart_trend(sqlite3 *db, const struct rp_data *d, const struct rp_chart_opts *o,
		       struct rp_charts *cs, struct ns_err *err)
{
	char caption[512];
	snprintf(caption, sizeof(caption), "Median receiver goodput of up to 6 cases over the last "
		 "%zu runs of this matrix, as %% of each case's value in the oldest run shown "
		 "(cases with a step change first, marked where the new level starts, then "
		 "regressed cases, then the fastest).", o->trend_runs);
	struct rp_chart *c = cg_chart_new(cs, o, "trend", "Trend over recent runs", caption);
	/* Pick the keys: regressions first, then the highest medians. */
	const char *keys[6];
	size_t idx[6], nk = 0;
	const struct rp_history *h = o->history;
	for (size_t i = 0; h && i < h->n_steps && nk < 6; i++) {
		int taken = 0;
		for (size_t k = 0; k < nk; k++)
			taken |= idx[k] == h->steps[i].case_idx;
		if (!taken)
			idx[nk++] = h->steps[i].case_idx;
	}
	if (o->cmp)
		for (size_t i = 0; i < o->cmp->n && nk < 6; i++)
			if (o->cmp->rows[i].verdict == RP_REGRESSION) {
				int taken = 0;
				for (size_t k = 0; k < nk; k++)
					taken |= idx[k] == o->cmp->rows[i].cur;
				if (!taken)
					idx[nk++] = o->cmp->rows[i].cur;
			}
	while (nk < 6) {
		long best = -1;
		for (size_t i = 0; i < d->n_cases; i++) {
			int taken = 0;
			for (size_t k = 0; k < nk; k++)
				taken |= idx[k] == i;
			if (!taken && !isnan(d->cases[i].fig[RP_RCV_BPS].med) &&
			    (best < 0 || d->cases[i].fig[RP_RCV_BPS].med > d->cases[best].fig[RP_RCV_BPS].med))
				best = (long)i;
		}
		if (best < 0)
			break;
		idx[nk++] = (size_t)best;
	}
	for (size_t k = 0; k < nk; k++)
		keys[k] = d->cases[idx[k]].case_key ? d->cases[idx[k]].case_key : "";
	struct rp_trend t;
	if (rp_trend_load(db, d, keys, nk, o->trend_runs, &t, err) < 0)
		return -1;
	struct rp_buf dat, gp, lab;
	rp_buf_init(&dat);
	rp_buf_init(&gp);
	rp_buf_init(&lab);
	cg_gp_header(&gp, o, c);
	/* Each case relative to its oldest value shown, so that a 478 Mbit/s case and a
	 * 30 Gbit/s one share an axis and a drop in either is visible. */
	rp_buf_puts(&gp, "set xlabel 'run started'\nset ylabel '% of the oldest run shown'\n"
		    "set yrange [0:*]\nset xtics rotate by -30\nset offsets 0.3, 0.3, 0, 0\n");
	/* + 3: the rotated run dates under the axis. */
	cg_gp_key_margin(&gp, t.n_runs >= 2 ? nk + (h && h->n_steps) + 3 : 0);
	size_t blocks = 0;
	for (size_t k = 0; t.n_runs >= 2 && k < nk; k++) {
		rp_buf_reset(&lab);
		rp_case_label(d, &d->cases[idx[k]], &lab);
		cg_dat_comment(&dat, rp_buf_str(&lab));
		rp_buf_printf(&dat, "# ordinal run_label %s percent_of_oldest step_marker\n",
			      d->unit.name);
		double ref = NAN;
		for (size_t r = 0; r < t.n_runs && isnan(ref); r++)
			ref = t.vals[k * t.n_runs + r];
		for (size_t r = 0; r < t.n_runs; r++) {
			double v = t.vals[k * t.n_runs + r];
			/* NaN keeps the x position but draws no point. */
			rp_buf_printf(&dat, "%zu ", r);
			run_tic(&t, r, &dat);
			cg_dat_num(&dat, v / d->unit.div, " ");
			cg_dat_num(&dat, ref > 0 ? v / ref * 100 : NAN, " ");
			int step = 0;
			for (size_t i = 0; h && i < h->n_steps; i++)
				step |= h->steps[i].case_idx == idx[k] &&
					h->t.run_ids[h->steps[i].s.at] == t.run_ids[r];
			cg_dat_num(&dat, step && ref > 0 ? v / ref * 100 : NAN, "\n");
		}
		rp_buf_puts(&dat, "\n\n");
		rp_buf_printf(&gp, "%s'%s.dat' index %zu using 1:4:xtic(2) with linespoints title ",
			      blocks ? ", \\\n     " : "plot ", c->name, blocks);
		rp_gp_quote(&gp, rp_buf_str(&lab));
		blocks++;
	}
	/* The step marks over the lines: one key entry for all of them. */
	for (size_t k = 0; h && h->n_steps && k < blocks; k++)
		rp_buf_printf(&gp, ", \\\n     '%s.dat' index %zu using 1:5 with points pt 6 ps 3 "
			      "lw 3 lc rgb '#D55E00' %s", c->name, k, k ? "notitle" :
			      "title 'step change starts'");
	rp_buf_puts(&gp, "\n");
	int rc = cg_chart_finish(o, c, &dat, &gp, blocks ? NULL : "fewer than 2 runs of this matrix",
			      err);
	rp_trend_free(&t);
	rp_buf_free(&dat);
	rp_buf_free(&gp);
	rp_buf_free(&lab);
	return rc;
}

