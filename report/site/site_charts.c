/* site_charts: see site_charts.h. The x axis is the nights in order, one place each, labelled
 * by their label or date; a night a pair did not run in, or ran without a price, is a gap
 * (NaN), not a zero. */
#include "report/site/site_charts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/model/fmt.h"

#define CARD_W 1200
#define CARD_H 630
#define CARD_FONT_PX 22
/* Characters of a night's label on the axis; the plot's width less its y axis and label. */
#define TIC_CHARS 12
#define PLOT_MARGIN_PX 110
/* Points are marked while they can be told apart (about a month at a phone's width); past
 * this many nights the line alone. */
#define MARKED_NIGHTS 31

/* A night's tic label: its label, else its date ("11-01"; with the year when the nights
 * span more than one, with the time when two nights share a date). */
static void night_tic(const struct site_ctx *s, size_t i, char *out, size_t n)
{
	const struct site_night *g = &s->nights[i];
	const char *t = g->started ? g->started : "";
	if (g->label && *g->label) {
		size_t cut = strlen(g->label) > TIC_CHARS ? TIC_CHARS : strlen(g->label);
		while (cut && ((unsigned char)g->label[cut] & 0xC0) == 0x80)
			cut--; /* not inside a UTF-8 character */
		snprintf(out, n, "%.*s%s", (int)cut, g->label, g->label[cut] ? "…" : "");
		return;
	}
	if (strlen(t) < 16 || t[10] != 'T') {
		snprintf(out, n, "%.*s", TIC_CHARS, t);
		return;
	}
	int same_year = !strncmp(s->nights[0].started, s->nights[s->n - 1].started, 4);
	int shared = (i > 0 && !strncmp(s->nights[i - 1].started, t, 10)) ||
		     (i + 1 < s->n && !strncmp(s->nights[i + 1].started, t, 10));
	if (shared)
		snprintf(out, n, "%.5s %.5s", t + 5, t + 11);
	else
		snprintf(out, n, "%.*s", same_year ? 5 : 10, t + (same_year ? 5 : 0));
}

/* The x axis: one place per night (a data file's row number, gnuplot's column 0), each
 * labelled by night_tic — every k-th of them, k such that the longest label fits its share
 * of the plot's width at the chart's font, the latest night always — and one night drawn as
 * one point in the middle, not a year around it. */
void site_night_axis(const struct site_ctx *s, struct rp_buf *gp)
{
	char t[64];
	size_t longest = 1;
	for (size_t i = 0; i < s->n; i++) {
		night_tic(s, i, t, sizeof(t));
		longest = strlen(t) > longest ? strlen(t) : longest;
	}
	/* a sans character is at most ~0.6 em; a label keeps one em of space each side */
	double per = (double)longest * 0.6 * CG_FONT_PX + 2 * CG_FONT_PX;
	size_t slots = (size_t)((CG_WIDTH - PLOT_MARGIN_PX) / per);
	size_t k = slots ? (s->n + slots - 1) / slots : s->n;
	if (k < 1)
		k = 1;
	if (s->n == 1)
		rp_buf_puts(gp, "set xrange [-1:1]\n");
	else
		rp_buf_printf(gp, "set xrange [-0.5:%zu.5]\n", s->n - 1);
	rp_buf_puts(gp, "set xlabel 'Night'\nset xtics (");
	int first = 1;
	for (size_t i = 0; i < s->n; i++) {
		if ((s->n - 1 - i) % k)
			continue;
		night_tic(s, i, t, sizeof(t));
		rp_buf_puts(gp, first ? "" : ", ");
		rp_gp_quote(gp, t);
		rp_buf_printf(gp, " %zu", i);
		first = 0;
	}
	rp_buf_puts(gp, ")\n");
}

const char *site_lab_scale(const struct site_ctx *s)
{
	for (size_t k = 0; k < s->n_series; k++) {
		const struct site_pair *p = s->series[k].at[s->series[k].latest];
		if (p && p->lab_scale)
			return p->lab_scale;
	}
	return NULL;
}

/* "Mbit/s per $/hour" for dollars, "Mbit/s per EUR/hour" for another currency (its code:
 * gnuplot's font may lack the symbol, and "$" is never another money's). */
void site_gp_per_money(const char *cur, char *out, size_t n)
{
	snprintf(out, n, "Mbit/s per %s/hour", !strcmp(rp_money_code(cur), "USD") ? "$"
		 : rp_money_code_ok(cur) ? rp_money_code(cur) : "price");
}

static const char *style(const struct site_ctx *s)
{
	return s->n > MARKED_NIGHTS ? "lines" : "linespoints";
}

/* The card: the same plot as a PNG, bigger text, the page's title above it. */
/* A chart's drawing for the batch, or its status without gnuplot. */
static void add_job(const struct rp_chart_opts *o, struct rp_chart *c, const char *ext,
		    struct cg_job *jobs, size_t *n)
{
	if (!o->gnuplot) {
		c->status = RP_CHART_NOGNUPLOT;
		snprintf(c->reason, sizeof(c->reason), "gnuplot not run");
		return;
	}
	jobs[(*n)++] = (struct cg_job){.dir = o->outdir, .script = c->name, .ext = ext, .c = c};
}

static int write_card(const struct rp_chart_opts *o,
		      const char *title, const struct rp_buf *body, struct site_charts *out,
		      struct cg_job *jobs, size_t *n, struct ns_err *err)
{
	struct rp_buf gp;
	rp_buf_init(&gp);
	struct rp_chart *card = &out->card;
	*card = (struct rp_chart){.name = "card"};
	snprintf(card->title, sizeof(card->title), "%s", title);
	cg_gp_header(&gp, o, card);
	rp_buf_printf(&gp, "set terminal pngcairo size %d,%d noenhanced font 'sans,%d' "
		      "background '#ffffff'\nif (outfile eq 'card.svg') outfile = 'card.png'\n"
		      "set output outfile\nset title ", CARD_W, CARD_H,
		      CARD_FONT_PX);
	rp_gp_quote(&gp, title);
	rp_buf_puts(&gp, "\n");
	rp_buf_add(&gp, rp_buf_str(body), body->len);
	int rc = gp.oom ? ns_err_code(err, NS_E_NOMEM, "out of memory")
			: cg_write_file(o->outdir, "card", "gp", &gp, err);
	rp_buf_free(&gp);
	if (rc == 0)
		add_job(o, card, "png", jobs, n);
	return rc;
}

/* One chart of one series column over the nights: col 2 Mbit/s, 3 $/hour, 4 per dollar. */
static int series_chart(const struct site_ctx *s, const struct rp_chart_opts *o, const char *name, const char *title,
			const char *caption, const char *ylabel, int col, struct site_charts *out,
			const char *card_title, struct cg_job *jobs, size_t *n, struct ns_err *err)
{
	struct rp_chart *c = cg_chart_new(&out->c, o, name, title, caption);
	struct rp_buf gp, body;
	rp_buf_init(&gp);
	rp_buf_init(&body);
	cg_gp_header(&gp, o, c);
	site_night_axis(s, &body);
	rp_buf_puts(&body, "set yrange [0:*]\nunset key\nset ylabel ");
	rp_gp_quote(&body, ylabel);
	rp_buf_printf(&body, "\nplot 'series.dat' using 0:%d with %s lw 2\n", col, style(s));
	rp_buf_add(&gp, rp_buf_str(&body), body.len);
	int rc;
	if (gp.oom || body.oom) {
		rc = ns_err_code(err, NS_E_NOMEM, "out of memory");
	} else {
		/* the data is the pair's series.dat, written once for its charts */
		rc = cg_write_file(o->outdir, name, "gp", &gp, err);
		if (rc == 0)
			add_job(o, c, "svg", jobs, n);
		if (rc == 0 && card_title)
			rc = write_card(o, card_title, &body, out, jobs, n, err);
	}
	rp_buf_free(&gp);
	rp_buf_free(&body);
	return rc;
}

int site_charts_pair(const struct site_ctx *s, const struct site_series *p, const char *dir,
		     struct site_charts *out, struct cg_job *jobs, size_t *n, struct ns_err *err)
{
	*out = (struct site_charts){0};
	snprintf(out->dir, sizeof(out->dir), "%s", dir);
	/* a lab pair's charts and card say so, as the night reports' do */
	const char *lab = p->at[p->latest] ? p->at[p->latest]->lab_scale : NULL;
	struct rp_chart_opts o = {.outdir = out->dir, .gnuplot = s->gnuplot,
				  .timeout_s = s->cfg->gnuplot_timeout, .lab_scale = lab};
	struct rp_buf dat;
	rp_buf_init(&dat);
	cg_dat_comment(&dat, p->name);
	/* the pair's money is its last night's: a night priced in another currency is a gap,
	 * never a point on the same axis */
	const char *cur = p->currency;
	if (!strcmp(cur, "USD"))
		rp_buf_puts(&dat, "# night_start mbps usd_per_hour mbps_per_usd_hour\n");
	else
		rp_buf_printf(&dat, "# night_start mbps per_hour mbps_per_hour (in %s)\n",
			      rp_money_code_ok(cur) ? cur : "its currency");
	double lo = NAN, hi = NAN;
	for (size_t i = 0; i < s->n; i++) {
		const struct site_pair *sp = p->at[i];
		int same = sp && rp_money_same(site_pair_currency(sp), cur);
		rp_buf_printf(&dat, "%s ", s->nights[i].started);
		cg_dat_num(&dat, sp ? sp->mbps : NAN, " ");
		cg_dat_num(&dat, same ? sp->usd_per_hour : NAN, " ");
		cg_dat_num(&dat, same ? sp->mpd : NAN, "\n");
		if (same && !isnan(sp->usd_per_hour)) {
			lo = isnan(lo) || sp->usd_per_hour < lo ? sp->usd_per_hour : lo;
			hi = isnan(hi) || sp->usd_per_hour > hi ? sp->usd_per_hour : hi;
		}
	}
	int rc = dat.oom ? ns_err_code(err, NS_E_NOMEM, "out of memory")
			 : cg_write_file(dir, "series", "dat", &dat, err);
	rp_buf_free(&dat);
	if (rc < 0)
		return -1;
	char card[320], per[48], title[96], caption[320], price[32];
	site_gp_per_money(cur, per, sizeof(per));
	snprintf(card, sizeof(card), "%.200s: %s%s", p->name, per, lab ? " (emulated)" : "");
	snprintf(title, sizeof(title), "%s over the nights", per);
	snprintf(caption, sizeof(caption), "The pair's ranked case's median receiver goodput per "
		 "hourly %s, night by night.%s", rp_money_word(cur), s->mixed ? " Nights it was "
		 "priced in another currency are gaps: two currencies never share an axis." : "");
	snprintf(price, sizeof(price), "%s/hour", !strcmp(cur, "USD") ? "$"
		 : rp_money_code_ok(cur) ? cur : "price");
	if (series_chart(s, &o, "per_dollar", title, caption, per, 4, out, card, jobs, n,
			 err) < 0 ||
	    series_chart(s, &o, "throughput", "Throughput over the nights",
			 "The median receiver goodput of the pair's ranked case, night by night.",
			 "Mbit/s", 2, out, NULL, jobs, n, err) < 0)
		return -1;
	if (!isnan(lo) && hi > lo &&
	    series_chart(s, &o, "price", "Price over the nights",
			 "The pair's hourly price as each night recorded it.", price, 3, out,
			 NULL, jobs, n, err) < 0)
		return -1;
	return 0;
}

/* The index's chart of one currency: the pairs whose last night priced them in it, each a
 * gap on a night priced in another; "per_dollar" for the first currency, "per_CODE" for
 * another. The card is drawn from the first. */
static int index_chart(const struct site_ctx *s, const char *dir, const char *cur, int first,
		       size_t n_cur, struct rp_chart_opts *o, struct site_charts *out,
		       struct cg_job *jobs, size_t *n, struct ns_err *err)
{
	struct rp_buf dat, gp, body;
	rp_buf_init(&dat);
	rp_buf_init(&gp);
	rp_buf_init(&body);
	char name[32], per[48], title[96], caption[400];
	if (first) {
		snprintf(name, sizeof(name), "per_dollar");
	} else {
		snprintf(name, sizeof(name), "per_%s", cur);
		for (char *q = name; *q; q++)
			*q = (char)(*q >= 'A' && *q <= 'Z' ? *q - 'A' + 'a' : *q);
	}
	site_gp_per_money(cur, per, sizeof(per));
	size_t shown = 0;
	for (size_t k = 0; k < s->n_series; k++) {
		const struct site_series *p = &s->series[k];
		if (!rp_money_same(p->currency, cur))
			continue;
		if (shown)
			rp_buf_puts(&dat, "\n\n");
		cg_dat_label(&dat, p->name);
		rp_buf_puts(&dat, "\n");
		for (size_t i = 0; i < s->n; i++) {
			const struct site_pair *sp = p->at[i];
			rp_buf_printf(&dat, "%s ", s->nights[i].started);
			cg_dat_num(&dat, sp && rp_money_same(site_pair_currency(sp), cur) ? sp->mpd
				   : NAN, "\n");
		}
		shown++;
	}
	snprintf(title, sizeof(title), "%s over the nights", per);
	snprintf(caption, sizeof(caption), "Each pair's ranked case's median receiver goodput per "
		 "hourly %s, night by night.%s", rp_money_word(cur), n_cur > 1 ? " Only the pairs "
		 "priced in this currency: each currency has its own chart, never one axis for "
		 "two." : "");
	struct rp_chart *c = cg_chart_new(&out->c, o, name, title, caption);
	cg_gp_header(&gp, o, c);
	cg_gp_key_margin(&gp, shown);
	site_night_axis(s, &body);
	rp_buf_puts(&body, "set yrange [0:*]\nset ylabel ");
	rp_gp_quote(&body, per);
	/* past the palette's 7 colours the lines are told apart by their dashes */
	rp_buf_printf(&body, "\nplot for [i=0:%zu] '%s.dat' index i using 0:2 with %s "
		      "lw 2 dt i / 7 + 1 title columnheader(1)\n", shown ? shown - 1 : 0, name,
		      style(s));
	rp_buf_add(&gp, rp_buf_str(&body), body.len);
	int rc = 0;
	if (dat.oom || gp.oom || body.oom) {
		rc = ns_err_code(err, NS_E_NOMEM, "out of memory");
	} else if (!shown) {
		c->status = RP_CHART_NODATA;
		snprintf(c->reason, sizeof(c->reason), "no pair in any night");
	} else if ((rc = cg_write_file(dir, c->name, "dat", &dat, err)) == 0 &&
		   (rc = cg_write_file(dir, c->name, "gp", &gp, err)) == 0) {
		add_job(o, c, "svg", jobs, n);
	}
	if (rc == 0 && shown && first) {
		/* the card's key goes to the right: 630 px leave no room below; on a site of
		 * several currencies the card is the first's and its title says so */
		char ctitle[320];
		if (n_cur > 1)
			snprintf(ctitle, sizeof(ctitle), "%.200s (pairs priced in %s)%s", s->title,
				 cur, o->lab_scale ? " (emulated)" : "");
		else
			snprintf(ctitle, sizeof(ctitle), "%.280s%s", s->title,
				 o->lab_scale ? " (emulated)" : "");
		struct rp_buf cb;
		rp_buf_init(&cb);
		rp_buf_puts(&cb, "set key rmargin top vertical maxcols 1\n");
		rp_buf_add(&cb, rp_buf_str(&body), body.len);
		rc = cb.oom ? ns_err_code(err, NS_E_NOMEM, "out of memory")
			    : write_card(o, ctitle, &cb, out, jobs, n, err);
		rp_buf_free(&cb);
	}
	rp_buf_free(&dat);
	rp_buf_free(&gp);
	rp_buf_free(&body);
	return rc;
}

int site_charts_index(const struct site_ctx *s, const char *dir, struct site_charts *out,
		      struct cg_job *jobs, size_t *n, struct ns_err *err)
{
	*out = (struct site_charts){0};
	snprintf(out->dir, sizeof(out->dir), "%s", dir);
	const char *lab = site_lab_scale(s);
	struct rp_chart_opts o = {.outdir = out->dir, .gnuplot = s->gnuplot,
				  .timeout_s = s->cfg->gnuplot_timeout, .lab_scale = lab};
	/* the currencies of the pairs' last nights, in the pairs' order (US dollars first);
	 * SITE_CHART_JOBS leaves room for the card and three charts */
	const char *curs[SITE_CHART_JOBS - 1];
	size_t n_cur = 0;
	for (size_t k = 0; k < s->n_series; k++) {
		size_t j = 0;
		while (j < n_cur && strcmp(curs[j], s->series[k].currency) != 0)
			j++;
		if (j == n_cur && n_cur < sizeof(curs) / sizeof(curs[0]) &&
		    rp_money_code_ok(s->series[k].currency))
			curs[n_cur++] = s->series[k].currency;
	}
	if (!n_cur)
		curs[n_cur++] = "USD";
	for (size_t k = 0; k < n_cur; k++)
		if (index_chart(s, dir, curs[k], k == 0, n_cur, &o, out, jobs, n, err) < 0)
			return -1;
	return 0;
}
