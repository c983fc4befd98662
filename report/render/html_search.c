/* html_search: the "Zero-loss rate search" section's table and sentences (see
 * html_sections.h). */
#include <math.h>
#include <stdio.h>

#include "report/render/html_sections.h"

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

void rp_search_html(const struct rp_search *s, xmlNodePtr parent)
{
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
			char line[768];
			if (!rp_search_unmet_sentence(&s->rows[i], gg, line, sizeof(line)))
				continue;
			if (!ul) {
				ul = el(parent, "ul", NULL);
				xmlNewProp(ul, BAD_CAST "class", BAD_CAST "findings");
			}
			el(ul, "li", line);
		}
}
