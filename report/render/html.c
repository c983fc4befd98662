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
#include "report/analyze/advertised.h"
#include "report/load/lab_runs.h"
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
	"span.burst{display:inline-block;white-space:normal;min-width:9em;color:#8a5a00;"
	"font-weight:600;text-align:left}"
	"figure{margin:1em 0;background:#fff;border:1px solid #d0d5dd;padding:8px}"
	"figure svg{width:100%;height:auto;max-width:960px;display:block}"
	"figcaption{color:#444;font-size:.9em}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;"
	"font-size:.85em}pre{background:#f3f4f6;padding:8px;overflow-x:auto;white-space:pre-wrap;"
	"overflow-wrap:anywhere}ul.findings li{margin:.3em 0}.summary td{overflow-wrap:anywhere}"
	".summary td:first-child{font-weight:600}.scroll{overflow-x:auto;max-width:100%}"
	"td.label{min-width:12em}.lead{font-size:1.1em}"
	/* heatmaps (report/placement): a sequential scale, text legible on every step */
	"td.heat0{background:#f7fbff}td.heat1{background:#deebf7}td.heat2{background:#c6dbef}"
	"td.heat3{background:#6baed6}td.heat4{background:#08519c;color:#fff}"
	"#environment-table td{white-space:nowrap}td.step{background:#fde2e1;font-weight:600}"
	"@media (max-width:700px){main{padding:8px}table{font-size:.8em}"
	"figure{padding:2px;margin:.6em 0}"
	".scroll[data-scroll]::before{content:'\\2194  scrolls sideways';display:block;"
	"font-size:.75em;color:#555}"
	HD_STACK_CSS "}";

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
	xmlNodePtr s = hd_open(main, sec);
	xmlNodePtr det = hd_el(s, "details", NULL);
	hd_el(det, "summary", "Matrix file as run");
	hd_el(det, "pre", r->d->run.matrix_text);
	hd_tables(s, sec);
	hd_close(s, sec);
}

static const struct rp_chart *chart_named(const struct rp_report *r, const char *name)
{
	for (size_t i = 0; i < r->charts->n; i++)
		if (!strcmp(r->charts->items[i].name, name))
			return &r->charts->items[i];
	return NULL;
}

/* The per-dollar chart, when drawn, opens the page: it is the question netsweep answers;
 * so do the other currencies' (per_eur, ...), each its own chart — but not one bar of a run
 * of group cases, which opens on its clients instead. */
static int lead_chart(const struct rp_report *r, const struct rp_chart *c)
{
	size_t ranked = 0;
	for (size_t i = 0; i < r->n_cost; i++)
		ranked += r->cost[i].rank > 0;
	if (ranked < 2 && chart_named(r, "fairness"))
		return 0;
	return c->status == RP_CHART_OK && (!strcmp(c->name, "per_dollar") ||
		(!strncmp(c->name, "per_", 4) && strlen(c->name) == 7));
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

/* Every chart but those shown elsewhere (the lead, the group section's); those with nothing
 * to draw in one line, not a panel each. */
static void write_charts(const struct rp_report *r, const struct rp_section *sec,
			 xmlNodePtr main)
{
	xmlNodePtr s = hd_open(main, sec);
	struct rp_buf nd;
	rp_buf_init(&nd);
	for (size_t i = 0; i < r->charts->n; i++) {
		const struct rp_chart *c = &r->charts->items[i];
		if (lead_chart(r, c) || !strcmp(c->name, "fairness"))
			continue;
		if (c->status == RP_CHART_NODATA)
			rp_buf_printf(&nd, "%s%s (%s)", nd.len ? "; " : "Not drawn, nothing to draw: ",
				      c->title, c->reason);
		else
			chart_figure(r, s, c);
	}
	if (nd.len) {
		rp_buf_puts(&nd, ".");
		hd_attr(hd_el_class(s, "p", "note", rp_buf_str(&nd)), "id", "charts-nodata");
	}
	rp_buf_free(&nd);
	hd_close(s, sec);
}

/* The group section: its tables, then throughput and fairness against the clients. */
static void write_group(const struct rp_report *r, const struct rp_section *sec, xmlNodePtr main)
{
	xmlNodePtr s = hd_open(main, sec);
	hd_tables(s, sec);
	if (chart_named(r, "fairness"))
		chart_figure(r, s, chart_named(r, "fairness"));
	hd_close(s, sec);
}

/* A section whose tables are all the content model's. */
static void write_tables(const struct rp_section *sec, xmlNodePtr main)
{
	xmlNodePtr s = hd_open(main, sec);
	hd_tables(s, sec);
	hd_close(s, sec);
}

/* Each section of the content model by its writer, in the content's order. */
static void write_section(const struct rp_report *r, const struct rp_section *sec,
			  xmlNodePtr main)
{
	switch (sec->kind) {
	case RP_SEC_NEWS:
		write_tables(sec, main);
		/* the page's lead chart right after the news, above the ranking it illustrates */
		for (size_t i = 0; i < r->charts->n; i++)
			if (lead_chart(r, &r->charts->items[i]))
				chart_figure(r, main, &r->charts->items[i]);
		break;
	case RP_SEC_GROUP: write_group(r, sec, main); break;
	case RP_SEC_COST: write_tables(sec, main); break;
	case RP_SEC_FINDINGS: write_findings(r, sec, main); break;
	case RP_SEC_LATENCY: write_tables(sec, main); break;
	case RP_SEC_LOADLAT: write_tables(sec, main); break;
	case RP_SEC_PLACEMENT: write_tables(sec, main); break;
	case RP_SEC_AB: write_tables(sec, main); break;
	case RP_SEC_CHARTS: write_charts(r, sec, main); break;
	case RP_SEC_HISTORY: write_tables(sec, main); break;
	case RP_SEC_SEARCH: write_tables(sec, main); break;
	case RP_SEC_COMPARISON: write_tables(sec, main); break;
	case RP_SEC_RESULTS: write_tables(sec, main); break;
	case RP_SEC_ENVIRONMENT: write_tables(sec, main); break;
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
	hd_head_common(head, c->headline);
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
