/* site_pages: see site_pages.h. Pages link only relatively (index.html spelt out, so that
 * file:// works) and load nothing from elsewhere; charts are inline SVG (report/render/hdoc.h)
 * and wide tables scroll in their own box, never the page. */
#include "report/site/site_pages.h"

#include <libxml/HTMLtree.h>
#include <libxml/tree.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/pipeline.h"
#include "report/render/hdoc.h"
#include "report/site/site_band.h"
#include "report/site/site_charts.h"

static const char *css =
	"body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1d2430;"
	"background:#fafafa;line-height:1.4}main{max-width:1180px;margin:0 auto;padding:16px}"
	"h1{font-size:1.6em;margin:.2em 0}h2{border-bottom:2px solid #0072b2;padding-bottom:4px;"
	"margin-top:1.6em}figure h2{font-size:1.17em;border:0;margin:.5em 0}h1,h2,h3,p,li,figcaption,td{overflow-wrap:break-word}"
	"table{border-collapse:collapse;margin:.6em 0;font-size:.9em;background:#fff}"
	"th,td{border:1px solid #d0d5dd;padding:4px 8px;text-align:left;vertical-align:top}"
	"td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
	"th{background:#eef2f7}tr.regressed td{background:#fde2e1}.note{color:#555}"
	".lead{font-size:1.1em}figure{margin:1em 0;background:#fff;border:1px solid #d0d5dd;"
	"padding:8px}figure svg{width:100%;height:auto;max-width:960px;display:block}"
	"figcaption{color:#444;font-size:.9em}.scroll{overflow-x:auto;max-width:100%}"
	"td.headline{min-width:16em}nav a{margin-right:1em}"
	"@media (max-width:700px){main{padding:8px}table{font-size:.8em}figure{padding:2px}"
	".scroll[data-scroll]::before{content:'\\2194  scrolls sideways';display:block;"
	"font-size:.75em;color:#555}"
	HD_STACK_CSS "}";

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* A pair's folder name: the name where it is safe in a URL, else the safe part and a hash of
 * the whole, so that two names never share a folder. */
static void pair_slug(const char *name, char *out, size_t n)
{
	size_t k = 0;
	int changed = 0;
	for (const char *p = name; *p && k + 10 < n && k < 64; p++) {
		char ch = *p;
		if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '-' ||
		    ch == '_') {
			out[k++] = ch;
		} else if (ch >= 'A' && ch <= 'Z') {
			out[k++] = (char)(ch - 'A' + 'a');
			changed = 1;
		} else {
			out[k++] = '-';
			changed = 1;
		}
	}
	if (name[k] || k == 0 || out[0] == '.')
		changed = 1;
	out[k] = '\0';
	if (changed)
		snprintf(out + k, n - k, "%s%08x", k ? "-" : "pair-", fnv1a(name));
}

/* The pairs as the latest night they ran in ranked them, unranked last, then by name: the
 * index's table and the chart's key read best first. */
static int by_rank(const void *a, const void *b)
{
	const struct site_series *x = a, *y = b;
	int rx = x->at[x->latest]->rank, ry = y->at[y->latest]->rank;
	if ((rx == 0) != (ry == 0))
		return rx == 0 ? 1 : -1;
	/* each currency ranks on its own: US dollars first, then by code */
	int ux = !strcmp(x->currency, "USD"), uy = !strcmp(y->currency, "USD");
	if (ux != uy)
		return ux ? -1 : 1;
	int c = strcmp(x->currency, y->currency);
	if (c)
		return c;
	if (rx != ry)
		return rx < ry ? -1 : 1;
	return strcmp(x->name, y->name);
}

int site_series_build(struct site_ctx *s, struct ns_err *err)
{
	s->series = NULL;
	s->n_series = 0;
	size_t cap = 0;
	for (size_t i = 0; i < s->n; i++) {
		for (size_t j = 0; j < s->nights[i].n_pairs; j++) {
			const struct site_pair *sp = &s->nights[i].pairs[j];
			size_t k = 0;
			while (k < s->n_series && strcmp(s->series[k].name, sp->name) != 0)
				k++;
			if (k == s->n_series) {
				if (k == cap) {
					size_t ncap = cap ? cap * 2 : 16;
					struct site_series *nv = realloc(s->series, ncap * sizeof(*nv));
					if (!nv)
						goto nomem;
					s->series = nv;
					cap = ncap;
				}
				struct site_series *p = &s->series[s->n_series++];
				*p = (struct site_series){.name = sp->name,
							  .at = calloc(s->n, sizeof(*p->at))};
				if (!p->at)
					goto nomem;
				pair_slug(sp->name, p->slug, sizeof(p->slug));
			}
			s->series[k].at[i] = sp;
			s->series[k].latest = i;
		}
	}
	for (size_t k = 0; k < s->n_series; k++)
		s->series[k].currency = site_pair_currency(s->series[k].at[s->series[k].latest]);
	if (s->n_series > 1)
		qsort(s->series, s->n_series, sizeof(*s->series), by_rank);
	return 0;
nomem:
	site_series_free(s);
	return ns_err_code(err, NS_E_NOMEM, "out of memory");
}

void site_series_free(struct site_ctx *s)
{
	for (size_t k = 0; k < s->n_series; k++)
		free(s->series[k].at);
	free(s->series);
	s->series = NULL;
	s->n_series = 0;
}

static xmlNodePtr link_to(xmlNodePtr parent, const char *href, const char *text)
{
	xmlNodePtr a = hd_el(parent, "a", text);
	hd_attr(a, "href", href);
	return a;
}

static void meta(xmlNodePtr head, const char *attr, const char *name, const char *content)
{
	xmlNodePtr m = hd_el(head, "meta", NULL);
	hd_attr(m, attr, name);
	hd_attr(m, "content", content);
}

/* An address for the card: absolute under --base-url (what chat unfurlers need), else
 * relative to the page. */
static void absolute(const struct site_ctx *s, const char *path, char *out, size_t n)
{
	const char *b = s->cfg->base_url;
	if (!b) {
		snprintf(out, n, "%s", strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
		return;
	}
	size_t bl = strlen(b);
	snprintf(out, n, "%s%s%s", b, bl && b[bl - 1] == '/' ? "" : "/", path);
}

/* A page's document: head with the viewport, the style, the Open Graph card and the feed;
 * path is the page's own address in the site (for the card's absolute addresses), up the
 * way back to the root ("" or "../../"). Returns <main>. */
static xmlNodePtr page_new(const struct site_ctx *s, htmlDocPtr *docp, const char *title,
			   const char *description, const char *path, const char *up, int card)
{
	htmlDocPtr doc = htmlNewDocNoDtD(NULL, NULL);
	*docp = doc;
	if (!doc)
		return NULL;
	xmlCreateIntSubset(doc, BAD_CAST "html", NULL, NULL);
	xmlNodePtr html = xmlNewDocNode(doc, NULL, BAD_CAST "html", NULL);
	xmlDocSetRootElement(doc, html);
	hd_attr(html, "lang", "en");
	xmlNodePtr head = hd_el(html, "head", NULL);
	meta(head, "name", "viewport", "width=device-width, initial-scale=1");
	hd_el(head, "title", title);
	hd_head_common(head, description);
	char b[4096], dir[4096];
	meta(head, "property", "og:type", "website");
	meta(head, "property", "og:title", title);
	meta(head, "property", "og:description", description);
	if (s->cfg->base_url) {
		absolute(s, path, b, sizeof(b));
		meta(head, "property", "og:url", b);
	}
	if (card) {
		snprintf(dir, sizeof(dir), "%.*scard.png",
			 (int)(strrchr(path, '/') ? strrchr(path, '/') - path + 1 : 0), path);
		absolute(s, dir, b, sizeof(b));
		meta(head, "property", "og:image", b);
		meta(head, "property", "og:image:type", "image/png");
		meta(head, "property", "og:image:width", "1200");
		meta(head, "property", "og:image:height", "630");
		meta(head, "property", "og:image:alt", title);
		meta(head, "name", "twitter:card", "summary_large_image");
	}
	xmlNodePtr feed = hd_el(head, "link", NULL);
	hd_attr(feed, "rel", "alternate");
	hd_attr(feed, "type", "application/atom+xml");
	hd_attr(feed, "title", s->title);
	snprintf(b, sizeof(b), "%sfeed.xml", up);
	hd_attr(feed, "href", b);
	hd_el(head, "style", css);
	return hd_el(hd_el(html, "body", NULL), "main", NULL);
}

static void figure(xmlNodePtr parent, const char *dir, const struct rp_chart *c, const char *dat)
{
	char id[64], b[320];
	snprintf(id, sizeof(id), "chart-%s", c->name);
	xmlNodePtr fig = hd_el(parent, "figure", NULL);
	hd_attr(fig, "id", id);
	hd_attr(fig, "data-status", c->status == RP_CHART_OK ? "ok" : "skipped");
	hd_el(fig, "h2", c->title); /* right under the page's h1: no level skipped */
	if (c->status == RP_CHART_OK && hd_embed_svg(fig, dir, c->name, c->title) < 0)
		hd_el_class(fig, "p", "note", "The chart could not be read back.");
	else if (c->status == RP_CHART_FAILED && snprintf(b, sizeof(b), "Not rendered: %s.", c->reason))
		hd_el_class(fig, "p", "note", b);
	else if (c->status == RP_CHART_NODATA && snprintf(b, sizeof(b), "Not drawn: %s.", c->reason))
		hd_el_class(fig, "p", "note", b);
	else if (c->status == RP_CHART_NOGNUPLOT)
		hd_el_class(fig, "p", "note", "Not rendered (no gnuplot).");
	xmlNodePtr cap = hd_el(fig, "figcaption", c->caption);
	hd_text(cap, " Data: ");
	char own[48];
	if (!dat) { /* the chart's own NAME.dat */
		snprintf(own, sizeof(own), "%s.dat", c->name);
		dat = own;
	}
	link_to(cap, dat, dat);
	hd_text(cap, ", script: ");
	snprintf(b, sizeof(b), "%s.gp", c->name);
	link_to(cap, b, b);
	hd_text(cap, ".");
}

static void td_num(xmlNodePtr tr, const char *fmt, double v)
{
	if (isnan(v))
		hd_td_num(tr, "–", v);
	else
		hd_td_fmt(tr, fmt, v);
}

/* A pair's rank among the pairs of its currency that night ("1 of 3"; "1 of 2 in EUR" on a
 * site of several currencies): never a rank across currencies. */
static void rank_text(const struct site_ctx *s, const struct site_night *n,
		      const struct site_pair *p, char *out, size_t len)
{
	const char *cur = site_pair_currency(p);
	if (!p->rank)
		snprintf(out, len, "–");
	else if (s->mixed)
		snprintf(out, len, "%d of %zu in %s", p->rank, site_night_ranked(n, cur), cur);
	else
		snprintf(out, len, "%d of %zu", p->rank, site_night_ranked(n, cur));
}

static void td_rank(const struct site_ctx *s, xmlNodePtr tr, const struct site_night *n,
		    const struct site_pair *p)
{
	char b[64];
	rank_text(s, n, p, b, sizeof(b));
	hd_el_class(tr, "td", "num", b);
}

/* A price and a figure per price: plain numbers under "$/hour" headers on a dollars-only site,
 * else each with its own money ("€0.012", "3353 per €/hour"; "(EUR at 1.08)" when converted). */
static void td_price(const struct site_ctx *s, xmlNodePtr tr, const struct site_pair *p)
{
	char b[96];
	if (!s->mixed || isnan(p->usd_per_hour)) {
		td_num(tr, "%.4g", p->usd_per_hour);
		return;
	}
	rp_fmt_money(b, sizeof(b), "%.4g", p->usd_per_hour, p->currency);
	if (p->fx_currency && p->fx_usd > 0)
		snprintf(b + strlen(b), sizeof(b) - strlen(b), " (%.3s at %g)", p->fx_currency,
			 p->fx_usd);
	hd_td_num(tr, b, p->usd_per_hour);
}

/* A pair's Mbit/s, and beside it when an "up to" type was ranked on burst credit. */
static void td_mbps(xmlNodePtr tr, const struct site_pair *p)
{
	char r[64], b[128];
	if (isnan(p->mbps)) {
		hd_td_num(tr, "–", p->mbps);
		return;
	}
	/* the unit in every cell, Gbit/s from 10 Gbit/s on (report/model/fmt.h) */
	rp_fmt_in(r, sizeof(r), p->mbps * 1e6, rp_unit_for(p->mbps * 1e6));
	snprintf(b, sizeof(b), "%s%s", r, p->inside_burst ? " (inside its burst window)" : "");
	hd_td_num(tr, b, p->mbps);
}

static void td_mpd(const struct site_ctx *s, xmlNodePtr tr, const struct site_pair *p)
{
	char b[64];
	if (!s->mixed || isnan(p->mpd)) {
		td_num(tr, "%.0f", p->mpd);
		return;
	}
	snprintf(b, sizeof(b), "%.0f per %s/hour", p->mpd, rp_money(p->currency));
	hd_td_num(tr, b, p->mpd);
}

/* The transfer beside the instance-only figures (report/analyze/cost_rank.h): the pair's
 * relation, its traffic's price an hour, the total (instances + transfer) an hour and Mbit/s
 * per total hourly price, each in the pair's own money as td_price and td_mpd say theirs. */
static void td_money(const struct site_ctx *s, xmlNodePtr tr, double v, const char *cur)
{
	char b[64];
	if (!s->mixed || isnan(v)) {
		td_num(tr, "%.4g", v);
		return;
	}
	rp_fmt_money(b, sizeof(b), "%.4g", v, cur);
	hd_td_num(tr, b, v);
}

static void td_transfer(const struct site_ctx *s, xmlNodePtr tr, const struct site_pair *p)
{
	char b[64];
	hd_el(tr, "td", p->relation ? p->relation : "–");
	td_money(s, tr, p->transfer_per_hour, p->currency);
	td_money(s, tr, p->total_per_hour, p->currency);
	if (!s->mixed || isnan(p->mptd)) {
		td_num(tr, "%.4g", p->mptd);
		return;
	}
	snprintf(b, sizeof(b), "%.4g per %s/hour", p->mptd, rp_money(p->currency));
	hd_td_num(tr, b, p->mptd);
}

static int has_transfer(const struct site_pair *p)
{
	return p && !isnan(p->total_per_hour);
}

/* The columns: the instance-only ones, then with transfer when any row has it. */
static void cost_cols(const struct site_ctx *s, const char **cols, size_t at, int xfer,
		      char bufs[4][48])
{
	const char *m = s->mixed ? "price" : "$";
	snprintf(bufs[0], 48, "%s/hour", s->mixed ? "Price" : "$");
	snprintf(bufs[1], 48, "Mbit/s per %s/hour", m);
	snprintf(bufs[2], 48, "Transfer %s/hour", m);
	snprintf(bufs[3], 48, "Total %s/hour", m);
	cols[at++] = bufs[0];
	cols[at++] = bufs[1];
	if (xfer) {
		cols[at++] = "Relation";
		cols[at++] = bufs[2];
		cols[at++] = bufs[3];
		cols[at++] = "Mbit/s per total/hour";
	}
	cols[at++] = "Rank";
	cols[at] = NULL;
}

static void night_href(const struct site_night *n, const char *up, char *out, size_t len)
{
	snprintf(out, len, "%snights/%s/index.html", up, n->slug);
}

static int pair_page(const struct site_ctx *s, const struct site_series *p,
		     const struct site_charts *chp, struct ns_err *err)
{
	char dir[4096], path[4096 + 16], b[1024], href[600];
	snprintf(dir, sizeof(dir), "%s/pairs/%s", s->cfg->outdir, p->slug);
	const struct site_charts ch = *chp;
	const struct site_night *ln = &s->nights[p->latest];
	const struct site_pair *lp = p->at[p->latest];
	char title[512], desc[1024], page[256];
	snprintf(title, sizeof(title), "%s: %s", s->title, p->name);
	if (isnan(lp->mpd)) {
		char r[64];
		rp_fmt_in(r, sizeof(r), lp->mbps * 1e6, rp_unit_for(lp->mbps * 1e6));
		snprintf(desc, sizeof(desc), "%s, %s: %s; no price, so unranked.",
			 p->name, ln->title, r);
	} else {
		char price[64], rank[64], conv[96] = "", r[64];
		rp_fmt_in(r, sizeof(r), lp->mbps * 1e6, rp_unit_for(lp->mbps * 1e6));
		rp_fmt_money(price, sizeof(price), "%.4g", lp->usd_per_hour, lp->currency);
		rank_text(s, ln, lp, rank, sizeof(rank));
		if (lp->fx_currency && lp->fx_usd > 0)
			snprintf(conv, sizeof(conv), " (its %.3s price converted at the run's "
				 "rate, %g US dollars each)", lp->fx_currency, lp->fx_usd);
		snprintf(desc, sizeof(desc), "%s, %s: %s%s at %s/hour, %.0f Mbit/s per "
			 "%s/hour, rank %s%s.", p->name, ln->title, r, lp->inside_burst ?
			 " (inside its burst window: credit's, not what it sustains)" : "", price,
			 lp->mpd, rp_money(lp->currency), rank, conv);
	}
	if (has_transfer(lp)) { /* the transfer beside the instance-only figure */
		char xf[64], tot[64];
		size_t dl = strlen(desc);
		rp_fmt_money(xf, sizeof(xf), "%.4g", lp->transfer_per_hour, lp->currency);
		rp_fmt_money(tot, sizeof(tot), "%.4g", lp->total_per_hour, lp->currency);
		snprintf(desc + dl, sizeof(desc) - dl, " With transfer (%s): %s/hour of traffic, "
			 "%s/hour in all, %.4g Mbit/s per %s/hour.", lp->relation ? lp->relation
			 : "unknown", xf, tot, lp->mptd, rp_money(lp->currency));
	}
	if (lp->lab_scale) { /* as the night's report says it: the figures are the lab's */
		size_t dl = strlen(desc);
		snprintf(desc + dl, sizeof(desc) - dl, " Emulated (netsweep lab, scale %.32s), not "
			 "measured on cloud instances.", lp->lab_scale);
		snprintf(title, sizeof(title), "%s: %s (emulated)", s->title, p->name);
	}
	snprintf(page, sizeof(page), "pairs/%s/index.html", p->slug);
	htmlDocPtr doc;
	xmlNodePtr main = page_new(s, &doc, title, desc, page, "../../",
				   ch.card.status == RP_CHART_OK);
	if (!main)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	xmlNodePtr nav = hd_el(main, "nav", NULL);
	link_to(nav, "../../index.html", "All nights and pairs");
	link_to(nav, "../../feed.xml", "Feed");
	if (lp->itype && lp->region)
		snprintf(b, sizeof(b), "%s (%s, %s)", p->name, lp->itype, lp->region);
	else if (lp->itype)
		snprintf(b, sizeof(b), "%s (%s)", p->name, lp->itype);
	else
		snprintf(b, sizeof(b), "%s", p->name);
	if (lp->lab_scale && strlen(b) > 1 && b[strlen(b) - 1] == ')')
		snprintf(b + strlen(b) - 1, sizeof(b) - strlen(b) + 1, ", emulated)");
	else if (lp->lab_scale)
		snprintf(b + strlen(b), sizeof(b) - strlen(b), " (emulated)");
	hd_el(main, "h1", b);
	hd_attr(hd_el_class(main, "p", "lead", desc), "id", "headline");
	for (size_t i = 0; i < ch.c.n; i++)
		figure(main, dir, &ch.c.items[i], "series.dat");
	xmlNodePtr sec = hd_section(main, "nights", "Every night");
	/* a pair's figures are in its own money, whatever another pair's */
	char cb[4][48];
	const char *cols[12] = {"Night", "Throughput"};
	int xfer = 0;
	for (size_t i = 0; i < s->n; i++)
		xfer |= has_transfer(p->at[i]);
	cost_cols(s, cols, 2, xfer, cb);
	xmlNodePtr tb = hd_el(hd_scroll_table(sec, "nights-table", cols), "tbody", NULL);
	for (size_t i = s->n; i-- > 0;) {
		const struct site_pair *sp = p->at[i];
		if (!sp)
			continue;
		xmlNodePtr tr = hd_el(tb, "tr", NULL);
		night_href(&s->nights[i], "../../", href, sizeof(href));
		link_to(hd_el(tr, "td", NULL), href, s->nights[i].title);
		td_mbps(tr, sp);
		td_price(s, tr, sp);
		td_mpd(s, tr, sp);
		if (xfer)
			td_transfer(s, tr, sp);
		td_rank(s, tr, &s->nights[i], sp);
	}
	hd_stack_on_phones(tb->parent);
	snprintf(b, sizeof(b), "Generated by netsweep site at %s.", s->generated);
	hd_el_class(main, "p", "note", b);
	snprintf(path, sizeof(path), "%s/index.html", dir);
	return hd_save(doc, path, 1, err);
}

static void latest_news(const struct site_ctx *s, xmlNodePtr main)
{
	const struct site_night *ln = &s->nights[s->n - 1];
	char href[600], b[512];
	hd_attr(hd_el_class(main, "p", "lead", ln->headline), "id", "headline");
	xmlNodePtr p = hd_el(main, "p", "Latest night: ");
	hd_attr(p, "id", "latest");
	night_href(ln, "", href, sizeof(href));
	link_to(p, href, ln->title);
	hd_text(p, ln->have_base ? "" : " (no earlier night to compare with)");
	hd_text(p, ".");
	if (!ln->n_regs)
		return;
	xmlNodePtr sec = hd_section(main, "regressions", "Regressions in the latest night");
	xmlNodePtr ul = hd_el(sec, "ul", NULL);
	for (size_t i = 0; i < ln->n_regs; i++) {
		const struct site_reg *g = &ln->regs[i];
		site_reg_text(g, b, sizeof(b));
		hd_el_class(ul, "li", "regression", b);
	}
}

static void pairs_table(const struct site_ctx *s, xmlNodePtr main)
{
	char href[256];
	xmlNodePtr sec = hd_section(main, "pairs", "Pairs");
	hd_el_class(sec, "p", "note", "Each pair as the last night it ran in found it; its page "
		    "has its trend over every night.");
	char cb[4][48];
	const char *cols[12] = {"Pair", "Instance type", "Throughput"};
	int xfer = 0;
	for (size_t k = 0; k < s->n_series; k++)
		xfer |= has_transfer(s->series[k].at[s->series[k].latest]);
	cost_cols(s, cols, 3, xfer, cb);
	if (xfer)
		hd_el_class(sec, "p", "note", "With transfer: each pair's traffic at its ranked "
			    "rate, billed as its relation's rule (the store's v_cost_total), and the "
			    "total of instances and transfer an hour.");
	if (s->mixed)
		hd_el_class(sec, "p", "note", "Each pair's price is in its own currency, and each "
			    "currency is ranked on its own: a figure per dollar is never compared "
			    "with one per euro.");
	xmlNodePtr tb = hd_el(hd_scroll_table(sec, "pairs-table", cols), "tbody", NULL);
	for (size_t k = 0; k < s->n_series; k++) {
		const struct site_series *p = &s->series[k];
		const struct site_pair *lp = p->at[p->latest];
		xmlNodePtr tr = hd_el(tb, "tr", NULL);
		snprintf(href, sizeof(href), "pairs/%s/index.html", p->slug);
		link_to(hd_el(tr, "td", NULL), href, p->name);
		snprintf(href, sizeof(href), "%.200s%s", lp->itype ? lp->itype : "–",
			 lp->lab_scale ? " (emulated)" : "");
		hd_el(tr, "td", href);
		td_mbps(tr, lp);
		td_price(s, tr, lp);
		td_mpd(s, tr, lp);
		if (xfer)
			td_transfer(s, tr, lp);
		td_rank(s, tr, &s->nights[p->latest], lp);
	}
	hd_stack_on_phones(tb->parent);
}

static void nights_table(const struct site_ctx *s, xmlNodePtr main)
{
	char href[600], b[32];
	xmlNodePtr sec = hd_section(main, "nights", "Every night");
	static const char *const cols[] = {"Night", "Cases", "Regressions", "Headline", NULL};
	xmlNodePtr tb = hd_el(hd_scroll_table(sec, "nights-table", cols), "tbody", NULL);
	for (size_t i = s->n; i-- > 0;) {
		const struct site_night *n = &s->nights[i];
		xmlNodePtr tr = hd_el(tb, "tr", NULL);
		if (n->n_regressions)
			hd_attr(tr, "class", "regressed");
		night_href(n, "", href, sizeof(href));
		link_to(hd_el(tr, "td", NULL), href, n->title);
		snprintf(b, sizeof(b), "%zu", n->n_cases);
		hd_el_class(tr, "td", "num", b);
		snprintf(b, sizeof(b), n->have_base ? "%zu" : "–", n->n_regressions);
		hd_el_class(tr, "td", "num", b);
		hd_el_class(tr, "td", "headline", n->headline);
	}
}

static int index_page(const struct site_ctx *s, const struct site_charts *chp,
		      struct ns_err *err)
{
	const struct site_charts ch = *chp;
	const struct site_night *ln = &s->nights[s->n - 1];
	htmlDocPtr doc;
	xmlNodePtr main = page_new(s, &doc, s->title, ln->headline, "index.html", "",
				   ch.card.status == RP_CHART_OK);
	if (!main)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	xmlNodePtr nav = hd_el(main, "nav", NULL);
	link_to(nav, "feed.xml", "Feed");
	link_to(nav, "#pairs", "Pairs");
	link_to(nav, "#nights", "Every night");
	char h1[300];
	snprintf(h1, sizeof(h1), "%s%s", s->title, site_lab_scale(s) ? " (emulated)" : "");
	hd_el(main, "h1", h1);
	latest_news(s, main);
	for (size_t i = 0; i < ch.c.n; i++)
		figure(main, s->cfg->outdir, &ch.c.items[i], NULL);
	pairs_table(s, main);
	nights_table(s, main);
	char b[160], path[4096];
	snprintf(b, sizeof(b), "%zu nights. Generated by netsweep site at %s.", s->n, s->generated);
	hd_el_class(main, "p", "note", b);
	snprintf(path, sizeof(path), "%s/index.html", s->cfg->outdir);
	return hd_save(doc, path, 1, err);
}

int site_pages_write(const struct site_ctx *s, struct ns_err *err)
{
	char root[PATH_MAX], dir[PATH_MAX + 128];
	/* gnuplot draws every chart in one process that moves between the folders: absolute
	 * names */
	if (!realpath(s->cfg->outdir, root))
		return ns_err_code(err, NS_E_IO, "%s: %s", s->cfg->outdir, strerror(errno));
	struct site_charts *pc = calloc(s->n_series + 1, sizeof(*pc));
	struct cg_job *jobs = calloc(SITE_CHART_JOBS * (s->n_series + 1), sizeof(*jobs));
	size_t nj = 0;
	int rc = 0;
	if (!pc || !jobs)
		rc = ns_err_code(err, NS_E_NOMEM, "out of memory");
	snprintf(dir, sizeof(dir), "%s/pairs", root);
	if (rc == 0)
		rc = rp_mkdir_p(dir, err);
	for (size_t k = 0; k < s->n_series && rc == 0; k++) {
		snprintf(dir, sizeof(dir), "%s/pairs/%s", root, s->series[k].slug);
		if ((rc = rp_mkdir_p(dir, err)) == 0)
			rc = site_charts_pair(s, &s->series[k], dir, &pc[k], jobs, &nj, err);
		if (rc == 0)
			rc = site_band_pair(s, &s->series[k], &pc[k], jobs, &nj, err);
	}
	struct site_charts *ic = pc ? &pc[s->n_series] : NULL;
	if (rc == 0)
		rc = site_charts_index(s, root, ic, jobs, &nj, err);
	if (rc == 0 && s->gnuplot)
		rc = cg_run_batch(s->gnuplot, root, s->cfg->gnuplot_timeout, jobs, nj, err);
	for (size_t k = 0; k < s->n_series && rc == 0; k++)
		rc = pair_page(s, &s->series[k], &pc[k], err);
	if (rc == 0)
		rc = index_page(s, ic, err);
	free(pc);
	free(jobs);
	return rc;
}
