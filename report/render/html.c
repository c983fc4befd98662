/* html: see html.h. The gnuplot SVGs are grafted into the tree by hdoc.h's hd_embed_svg. */
#include "report/render/html.h"

#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report/model/describe.h"
#include "report/render/hdoc.h"
#include "report/render/html_sections.h"
#include "report/analyze/advertised.h"
#include "report/load/lab.h"
#include "report/model/fmt.h"
#include "report/load/limits.h"
#include "lib/cli.h"

/* Readable from a phone to a wide screen: the page itself never scrolls sideways; wide tables
 * scroll inside their own box (div.scroll, which says so on narrow screens), charts scale to
 * the column (their SVG has a viewBox and no fixed size). */
static const char *css =
	"body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1d2430;"
	"background:#fafafa;line-height:1.4}main{max-width:1180px;margin:0 auto;padding:16px}"
	"h1{font-size:1.6em;margin:.2em 0}h2{border-bottom:2px solid #0072b2;padding-bottom:4px;"
	"margin-top:1.6em}h1,h2,h3,p,li,figcaption,summary{overflow-wrap:break-word}"
	"table{border-collapse:collapse;margin:.6em 0;font-size:.9em;background:#fff}"
	"th,td{border:1px solid #d0d5dd;padding:4px 8px;text-align:left;vertical-align:top}"
	"td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
	"th{background:#eef2f7}tr.regression td{background:#fde2e1}tr.improvement td{background:#e3f5e1}"
	"tr.missing td{color:#8a5a00}tr.significant td{font-weight:600}.note{color:#555}.warn{background:#fff4d6;padding:8px 12px;"
	"border-left:4px solid #e69f00}td.mismatch{background:#fde2e1;font-weight:600}"
	"figure{margin:1em 0;background:#fff;border:1px solid #d0d5dd;padding:8px}"
	"figure svg{width:100%;height:auto;max-width:960px;display:block}"
	"figcaption{color:#444;font-size:.9em}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;"
	"font-size:.85em}pre{background:#f3f4f6;padding:8px;overflow-x:auto;white-space:pre-wrap;"
	"overflow-wrap:anywhere}ul.findings li{margin:.3em 0}.summary td{overflow-wrap:anywhere}"
	".summary td:first-child{font-weight:600}.scroll{overflow-x:auto;max-width:100%}"
	"td.label{min-width:12em}.lead{font-size:1.1em}"
	"#environment-table td{white-space:nowrap}td.step{background:#fde2e1;font-weight:600}"
	"@media (max-width:700px){main{padding:8px}table{font-size:.8em}"
	"figure{padding:2px;margin:.6em 0}"
	".scroll[data-scroll]::before{content:'\\2194  scrolls sideways';display:block;"
	"font-size:.75em;color:#555}}";

static void td_bps(xmlNodePtr tr, double v, struct rp_unit u)
{
	char b[32];
	rp_fmt_in(b, sizeof(b), v, u);
	hd_td_num(tr, b, v);
}

static void td_range(xmlNodePtr tr, double lo, double hi, struct rp_unit u)
{
	char b[80];
	rp_fmt_range(b, sizeof(b), lo, hi, u);
	hd_el_class(tr, "td", "num", b);
}

static void write_summary(const struct rp_section *sec, xmlNodePtr main)
{
	xmlNodePtr s = hd_open(main, sec);
	xmlNodePtr t = hd_el_class(s, "table", "summary", NULL);
	for (size_t i = 0; i < sec->n_facts; i++)
		hd_row_kv(t, sec->facts[i].key, sec->facts[i].value);
	hd_close(s, sec);
}

static void write_findings(const struct rp_report *r, const struct rp_section *sec,
			   xmlNodePtr main)
{
	xmlNodePtr s = hd_open(main, sec);
	if (!r->findings->n)
		return;
	xmlNodePtr ul = hd_el_class(s, "ul", "findings", NULL);
	for (size_t i = 0; i < r->findings->n; i++)
		hd_attr(hd_el(ul, "li", r->findings->items[i].text), "data-kind",
			rp_finding_kind_name(r->findings->items[i].kind));
}

static void write_method(const struct rp_report *r, const struct rp_section *sec,
			 xmlNodePtr main)
{
	const struct rp_data *d = r->d;
	char b[64];
	xmlNodePtr s = hd_open(main, sec);
	xmlNodePtr det = hd_el(s, "details", NULL);
	hd_el(det, "summary", "Matrix file as run");
	hd_el(det, "pre", d->run.matrix_text);
	hd_el(s, "h3", "Equivalent probe commands");
	hd_el_class(s, "p", "note", RP_PROBE_NOTE);
	struct rp_buf cmd, lab;
	rp_buf_init(&cmd);
	rp_buf_init(&lab);
	static const char *const cols[] = {"#", "Case", "Command", NULL};
	xmlNodePtr t = hd_scroll_table(s, NULL, cols);
	xmlNodePtr tb = hd_el(t, "tbody", NULL);
	for (size_t i = 0; i < d->n_cases; i++) {
		rp_buf_reset(&cmd);
		rp_buf_reset(&lab);
		rp_case_probe_cmd(d, &d->cases[i], &cmd);
		rp_case_label(d, &d->cases[i], &lab);
		xmlNodePtr tr = hd_el(tb, "tr", NULL);
		snprintf(b, sizeof(b), "%d", d->cases[i].ordinal);
		hd_el_class(tr, "td", "num", b);
		hd_el(tr, "td", rp_buf_str(&lab));
		hd_el(hd_el(tr, "td", NULL), "code", rp_buf_str(&cmd));
	}
	rp_buf_free(&cmd);
	rp_buf_free(&lab);
	hd_close(s, sec);
}

static void write_results(const struct rp_report *r, const struct rp_section *sec,
			  xmlNodePtr main)
{
	const struct rp_data *d = r->d;
	xmlNodePtr s = hd_open(main, sec);
	int used[RP_N_FIG_COLS];
	int adv = rp_results_cols(d, used);
	const char *cols[6 + RP_N_FIG_COLS + 2] = {"#", "Case", "Repeats ok", "Receiver (median)",
						   "Min–max", "IQR"};
	size_t nc = 6;
	for (size_t k = 0; k < RP_N_FIG_COLS; k++)
		if (used[k])
			cols[nc++] = rp_fig_cols[k].name;
	if (adv)
		cols[nc++] = "Of advertised";
	cols[nc] = NULL;
	xmlNodePtr t = hd_scroll_table(s, "results-table", cols);
	xmlNodePtr tb = hd_el(t, "tbody", NULL);
	struct rp_buf lab;
	rp_buf_init(&lab);
	char b[96];
	for (size_t i = 0; i < d->n_cases; i++) {
		const struct rp_case *c = &d->cases[i];
		const struct rp_stat *g = &c->fig[RP_RCV_BPS];
		rp_buf_reset(&lab);
		rp_case_label(d, c, &lab);
		xmlNodePtr tr = hd_el(tb, "tr", NULL);
		xmlNewProp(tr, BAD_CAST "data-case-key", BAD_CAST(c->case_key ? c->case_key : ""));
		snprintf(b, sizeof(b), "%d", c->ordinal);
		hd_el_class(tr, "td", "num", b);
		xmlNodePtr lc = hd_el_class(tr, "td", "label", rp_buf_str(&lab));
		if (c->first_error) {
			hd_el(lc, "br", NULL);
			hd_el_class(lc, "span", "note", c->first_error);
		}
		rp_buf_reset(&lab);
		if (rp_limits_note(c, &lab)) {
			hd_el(lc, "br", NULL);
			hd_el_class(lc, "span", "note sender-limited", rp_buf_str(&lab));
		}
		snprintf(b, sizeof(b), "%d / %d", c->n_ok, c->n_results);
		hd_el_class(tr, "td", "num", b);
		td_bps(tr, g->med, d->unit);
		td_range(tr, g->min, g->max, d->unit);
		td_range(tr, g->q1, g->q3, d->unit);
		for (size_t k = 0; k < RP_N_FIG_COLS; k++) {
			double v = c->fig[rp_fig_cols[k].fig].med;
			if (!used[k])
				continue;
			if (!rp_fig_cols[k].fmt) {
				td_bps(tr, v, d->unit);
			} else if (!strcmp(rp_fig_cols[k].fmt, "pps")) {
				rp_fmt_pps(b, sizeof(b), v);
				hd_td_num(tr, b, v);
			} else {
				hd_td_fmt(tr, rp_fig_cols[k].fmt, v);
			}
		}
		if (adv) {
			struct rp_adv a = rp_advertised_case(d, c);
			rp_buf_reset(&lab);
			rp_advertised_text(&a, &lab);
			hd_td_num(tr, rp_buf_str(&lab), a.pct);
		}
	}
	rp_buf_free(&lab);
	hd_close(s, sec);
}

static void write_cost(const struct rp_report *r, const struct rp_section *sec, xmlNodePtr main)
{
	const struct rp_data *d = r->d;
	xmlNodePtr s = hd_open(main, sec);
	const struct rp_pricing *pr = r->pricing;
	/* prices in another currency are per that currency's hour: the Currency column says */
	const char *cols[] = {"Rank", "Instance type", "Region", "Price basis", "$/hour", "Mbit/s",
			      "Mbit/s per $/hour", "$ per Gbit/s-hour", "Ranked case",
			      "Price as of", "Provider", "Currency", "Pricing",
			      pr && pr->have_spot ? "Mbit/s per on-demand hour" : NULL,
			      "Mbit/s per spot hour", NULL};
	xmlNodePtr t = hd_scroll_table(s, "cost-table", cols);
	xmlNodePtr tb = hd_el(t, "tbody", NULL);
	struct rp_buf lab;
	rp_buf_init(&lab);
	char b[64];
	for (size_t i = 0; i < r->n_cost; i++) {
		const struct rp_cost_row *c = &r->cost[i];
		const struct rp_endpoint *e = &d->eps[c->ep];
		xmlNodePtr tr = hd_el(tb, "tr", NULL);
		if (isnan(c->usd_per_hour))
			xmlNewProp(tr, BAD_CAST "class", BAD_CAST "missing");
		snprintf(b, sizeof(b), "%d", c->rank);
		hd_el_class(tr, "td", "num", c->rank ? b : "–");
		hd_el(tr, "td", rp_ep_label(e));
		hd_el(tr, "td", e->region ? e->region : "–");
		hd_el(tr, "td", e->price_basis);
		if (isnan(c->usd_per_hour))
			hd_el(tr, "td", "missing");
		else
			hd_td_fmt(tr, "%.4g", c->usd_per_hour);
		/* shaped on credits: ranked on the rate after the burst; sender-limited: the
		 * sender's figure, not the pair's */
		hd_td_fmt(tr, c->sustained && c->sender_limited ? "%.0f sustained (sender-limited)"
			  : c->sustained ? "%.0f sustained"
			  : c->sender_limited ? "%.0f (sender-limited)" : "%.0f", c->mbps);
		hd_td_fmt(tr, "%.0f", c->mbps_per_usd_hour);
		hd_td_fmt(tr, "%.4g", c->usd_per_gbps_hour);
		rp_buf_reset(&lab);
		if (c->best_case >= 0)
			rp_case_label(d, &d->cases[c->best_case], &lab);
		hd_el(tr, "td", c->best_case >= 0 ? rp_buf_str(&lab) : "no successful case");
		hd_el(tr, "td", e->price_as_of ? e->price_as_of : "–");
		hd_el(tr, "td", e->provider ? e->provider : "–");
		hd_el(tr, "td", isnan(c->usd_per_hour) ? "–" : c->currency ? c->currency : "USD");
		xmlNodePtr pc = hd_el(tr, "td", e->pricing ? e->pricing : "on-demand");
		if (e->price_window)
			xmlNewProp(pc, BAD_CAST "title", BAD_CAST e->price_window);
		if (pr && pr->have_spot) {
			hd_td_fmt(tr, "%.0f", c->od_mbps_per_hour);
			hd_td_fmt(tr, "%.0f", c->spot_mbps_per_hour);
		}
	}
	rp_buf_free(&lab);
	hd_close(s, sec);
}

static void write_comparison(const struct rp_report *r, const struct rp_section *sec,
			     xmlNodePtr main)
{
	const struct rp_cmp *cmp = r->cmp;
	xmlNodePtr s = hd_open(main, sec);
	static const char *const cols[] = {"#", "Case", "Baseline", "Now", "Change", "p (Welch)",
					   "Verdict", NULL};
	xmlNodePtr t = hd_scroll_table(s, "comparison-table", cols);
	xmlNodePtr tb = hd_el(t, "tbody", NULL);
	for (size_t i = 0; i < cmp->n; i++)
		rp_html_cmp_row(r, tb, &cmp->rows[i], 1);
	hd_close(s, sec);
}

/* The per-dollar chart, when drawn, opens the page: it is the question netsweep answers. */
static const struct rp_chart *lead_chart(const struct rp_report *r)
{
	for (size_t i = 0; i < r->charts->n; i++)
		if (!strcmp(r->charts->items[i].name, "per_dollar") &&
		    r->charts->items[i].status == RP_CHART_OK)
			return &r->charts->items[i];
	return NULL;
}

static void chart_figure(const struct rp_report *r, xmlNodePtr s, const struct rp_chart *c)
{
	char id[64], b[320];
	snprintf(id, sizeof(id), "chart-%s", c->name);
	xmlNodePtr fig = hd_el(s, "figure", NULL);
	xmlNewProp(fig, BAD_CAST "id", BAD_CAST id);
	xmlNewProp(fig, BAD_CAST "data-status", BAD_CAST(c->status == RP_CHART_OK ? "ok"
		   : c->status == RP_CHART_NODATA ? "nodata" : c->status == RP_CHART_FAILED
		   ? "failed" : "skipped"));
	hd_el(fig, "h3", c->title);
	if (c->status == RP_CHART_OK && hd_embed_svg(fig, r->outdir, c->name, c->title) < 0) {
		snprintf(b, sizeof(b), "%s.svg could not be read back.", c->name);
		hd_el_class(fig, "p", "warn", b);
	} else if (c->status == RP_CHART_NODATA) {
		snprintf(b, sizeof(b), "Not drawn: %s.", c->reason);
		hd_el_class(fig, "p", "note", b);
		return;
	} else if (c->status == RP_CHART_FAILED) {
		snprintf(b, sizeof(b), "Not rendered: %s.", c->reason);
		hd_el_class(fig, "p", "warn", b);
	} else if (c->status == RP_CHART_NOGNUPLOT) {
		hd_el_class(fig, "p", "note", "Not rendered (no gnuplot).");
	}
	xmlNodePtr cap = hd_el(fig, "figcaption", c->caption);
	hd_text(cap, " Data: ");
	snprintf(b, sizeof(b), "%s.dat", c->name);
	xmlNodePtr a = hd_el(cap, "a", b);
	xmlNewProp(a, BAD_CAST "href", BAD_CAST b);
	hd_text(cap, ", script: ");
	snprintf(b, sizeof(b), "%s.gp", c->name);
	a = hd_el(cap, "a", b);
	xmlNewProp(a, BAD_CAST "href", BAD_CAST b);
	hd_text(cap, ".");
}

static void write_charts(const struct rp_report *r, const struct rp_section *sec,
			 xmlNodePtr main)
{
	xmlNodePtr s = hd_open(main, sec);
	for (size_t i = 0; i < r->charts->n; i++)
		if (&r->charts->items[i] != lead_chart(r))
			chart_figure(r, s, &r->charts->items[i]);
	hd_close(s, sec);
}

/* Each section of the content model by its writer, in the content's order. */
static void write_section(const struct rp_report *r, const struct rp_section *sec,
			  xmlNodePtr main)
{
	switch (sec->kind) {
	case RP_SEC_NEWS:
		rp_html_news(r, sec, main);
		/* the page's lead chart right after the news, above the ranking it illustrates */
		if (lead_chart(r))
			chart_figure(r, main, lead_chart(r));
		break;
	case RP_SEC_COST: write_cost(r, sec, main); break;
	case RP_SEC_FINDINGS: write_findings(r, sec, main); break;
	case RP_SEC_LATENCY: rp_html_latency(r, sec, main); break;
	case RP_SEC_LOADLAT: rp_html_loadlat(r, sec, main); break;
	case RP_SEC_AB: rp_html_ab(r, sec, main); break;
	case RP_SEC_CHARTS: write_charts(r, sec, main); break;
	case RP_SEC_HISTORY: rp_html_history(r, sec, main); break;
	case RP_SEC_SEARCH: {
		xmlNodePtr s = hd_open(main, sec);
		rp_search_html(r->search, s);
		hd_close(s, sec);
		break;
	}
	case RP_SEC_COMPARISON: write_comparison(r, sec, main); break;
	case RP_SEC_RESULTS: write_results(r, sec, main); break;
	case RP_SEC_ENVIRONMENT: rp_html_environment(r, sec, main); break;
	case RP_SEC_METHOD: write_method(r, sec, main); break;
	case RP_SEC_RUN: write_summary(sec, main); break;
	case RP_SEC_N: break;
	}
}

int rp_html_write(const struct rp_report *r, const struct rp_content *c, const char *path,
		  struct ns_err *err)
{
	htmlDocPtr doc = htmlNewDocNoDtD(NULL, NULL);
	if (!doc)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	xmlCreateIntSubset(doc, BAD_CAST "html", NULL, NULL);
	xmlNodePtr html = xmlNewDocNode(doc, NULL, BAD_CAST "html", NULL);
	xmlDocSetRootElement(doc, html);
	xmlNewProp(html, BAD_CAST "lang", BAD_CAST "en");
	xmlNodePtr head = hd_el(html, "head", NULL);
	/* The charset declaration is added by htmlSaveFileFormat (http-equiv, UTF-8); a second
	 * <meta charset> would make the page invalid. */
	xmlNodePtr vp = hd_el(head, "meta", NULL);
	xmlNewProp(vp, BAD_CAST "name", BAD_CAST "viewport");
	xmlNewProp(vp, BAD_CAST "content", BAD_CAST "width=device-width, initial-scale=1");
	hd_el(head, "title", r->title);
	hd_el(head, "style", css);
	xmlNodePtr main = hd_el(hd_el(html, "body", NULL), "main", NULL);
	hd_el(main, "h1", r->title);
	xmlNewProp(hd_el_class(main, "p", "lead", c->headline), BAD_CAST "id", BAD_CAST "headline");
	hd_el_class(main, "p", "note", c->generated);
	for (size_t i = 0; i < c->n; i++)
		write_section(r, &c->secs[i], main);
	return hd_save(doc, path, 1, err);
}

char *rp_html_text_fragment(const char *s)
{
	htmlDocPtr doc = htmlNewDocNoDtD(NULL, NULL);
	xmlNodePtr p = xmlNewDocNode(doc, NULL, BAD_CAST "p", NULL);
	xmlDocSetRootElement(doc, p);
	hd_text(p, s);
	xmlBufferPtr buf = xmlBufferCreate();
	htmlNodeDump(buf, doc, p);
	char *out = strdup((const char *)xmlBufferContent(buf));
	xmlBufferFree(buf);
	xmlFreeDoc(doc);
	return out;
}
