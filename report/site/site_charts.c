/* site_charts: see site_charts.h. The x axis is the nights' start time; a night a pair did
 * not run in, or ran without a price, is a gap (NaN), not a zero. */
#define _DEFAULT_SOURCE /* timegm */
#include "report/site/site_charts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report/model/fmt.h"

#define CARD_W 1200
#define CARD_H 630
#define CARD_FONT_PX 22
#define DAY_S 86400.0
/* Points are marked while they can be told apart (about a month at a phone's width); past
 * this many nights the line alone. */
#define MARKED_NIGHTS 31

static double epoch_of(const char *iso)
{
	struct tm tm = {0};
	if (!iso || sscanf(iso, "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			   &tm.tm_hour, &tm.tm_min, &tm.tm_sec) < 3)
		return NAN;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (double)timegm(&tm);
}

/* The time axis: about four labels whatever the span, a date format that fits them. */
static void time_axis(const struct site_ctx *s, struct rp_buf *gp)
{
	double t0 = epoch_of(s->nights[0].started), t1 = epoch_of(s->nights[s->n - 1].started);
	double span = isnan(t0) || isnan(t1) ? 0 : t1 - t0;
	double step = ceil(span / 4 / DAY_S) * DAY_S;
	rp_buf_puts(gp, "set xdata time\nset timefmt '%Y-%m-%dT%H:%M:%SZ'\n");
	if (span > 0)
		rp_buf_puts(gp, "set autoscale xfix\n"); /* the axis ends where the nights do */
	rp_buf_printf(gp, "set format x '%s'\n", span > 200 * DAY_S ? "%b %Y" : "%b %d");
	if (step >= DAY_S)
		rp_buf_printf(gp, "set xtics %.0f\n", step);
	else
		rp_buf_puts(gp, "set format x '%m-%d %H:%M'\n");
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
	time_axis(s, &body);
	rp_buf_puts(&body, "set yrange [0:*]\nunset key\nset ylabel ");
	rp_gp_quote(&body, ylabel);
	rp_buf_printf(&body, "\nplot 'series.dat' using 1:%d with %s lw 2\n", col, style(s));
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
	struct rp_chart_opts o = {.outdir = out->dir, .gnuplot = s->gnuplot,
				  .timeout_s = s->cfg->gnuplot_timeout};
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
	char card[256], per[48], title[96], caption[320], price[32];
	site_gp_per_money(cur, per, sizeof(per));
	snprintf(card, sizeof(card), "%.200s: %s", p->name, per);
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
	time_axis(s, &body);
	rp_buf_puts(&body, "set yrange [0:*]\nset ylabel ");
	rp_gp_quote(&body, per);
	/* past the palette's 7 colours the lines are told apart by their dashes */
	rp_buf_printf(&body, "\nplot for [i=0:%zu] '%s.dat' index i using 1:2 with %s "
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
			snprintf(ctitle, sizeof(ctitle), "%.200s (pairs priced in %s)", s->title,
				 cur);
		else
			snprintf(ctitle, sizeof(ctitle), "%s", s->title);
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
	struct rp_chart_opts o = {.outdir = out->dir, .gnuplot = s->gnuplot,
				  .timeout_s = s->cfg->gnuplot_timeout};
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
