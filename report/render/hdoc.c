/* hdoc: see hdoc.h. */
#include "report/render/hdoc.h"

#include <math.h>
#include <stdio.h>

xmlNodePtr hd_el(xmlNodePtr parent, const char *name, const char *text)
{
	return xmlNewTextChild(parent, NULL, BAD_CAST name, text ? BAD_CAST text : NULL);
}

xmlNodePtr hd_el_class(xmlNodePtr parent, const char *name, const char *cls, const char *text)
{
	xmlNodePtr n = hd_el(parent, name, text);
	xmlNewProp(n, BAD_CAST "class", BAD_CAST cls);
	return n;
}

void hd_text(xmlNodePtr parent, const char *s)
{
	xmlAddChild(parent, xmlNewText(BAD_CAST(s ? s : "")));
}

void hd_attr(xmlNodePtr n, const char *name, const char *value)
{
	xmlSetProp(n, BAD_CAST name, BAD_CAST value);
}

xmlNodePtr hd_section(xmlNodePtr main, const char *id, const char *title)
{
	xmlNodePtr s = hd_el(main, "section", NULL);
	xmlNewProp(s, BAD_CAST "id", BAD_CAST id);
	hd_el(s, "h2", title);
	return s;
}

static const char *const para_class[] = {
	[RP_PARA_TEXT] = NULL, [RP_PARA_NOTE] = "note", [RP_PARA_LEAD] = "lead",
	[RP_PARA_WARN] = "warn",
};

static void paras(xmlNodePtr s, const struct rp_section *sec, int after)
{
	for (size_t i = 0; i < sec->n_paras; i++) {
		const struct rp_para *p = &sec->paras[i];
		if (p->after != after)
			continue;
		char cls[64];
		snprintf(cls, sizeof(cls), "%s%s%s", para_class[p->style] ? para_class[p->style] : "",
			 para_class[p->style] && p->cls ? " " : "", p->cls ? p->cls : "");
		xmlNodePtr n = *cls ? hd_el_class(s, "p", cls, p->text) : hd_el(s, "p", p->text);
		if (p->id)
			hd_attr(n, "id", p->id);
		if (p->link_text) {
			hd_attr(hd_el(n, "a", p->link_text), "href", p->link_href);
			hd_text(n, ".");
		}
	}
}

xmlNodePtr hd_open(xmlNodePtr main, const struct rp_section *sec)
{
	xmlNodePtr s = hd_section(main, sec->id, sec->title);
	paras(s, sec, 0);
	return s;
}

void hd_close(xmlNodePtr s, const struct rp_section *sec)
{
	paras(s, sec, 1);
}

xmlNodePtr hd_row_kv(xmlNodePtr table, const char *k, const char *v)
{
	xmlNodePtr tr = hd_el(table, "tr", NULL);
	hd_el(tr, "td", k);
	return hd_el(tr, "td", v ? v : "unknown");
}

xmlNodePtr hd_td_num(xmlNodePtr tr, const char *shown, double v)
{
	xmlNodePtr td = hd_el_class(tr, "td", "num", isnan(v) ? "–" : shown);
	if (!isnan(v)) {
		char b[48];
		snprintf(b, sizeof(b), "%.17g", v);
		xmlNewProp(td, BAD_CAST "data-value", BAD_CAST b);
	}
	return td;
}

void hd_td_fmt(xmlNodePtr tr, const char *fmt, double v)
{
	char b[64];
	snprintf(b, sizeof(b), fmt, v);
	hd_td_num(tr, b, v);
}

xmlNodePtr hd_scroll_table(xmlNodePtr parent, const char *id, const char *const *cols)
{
	xmlNodePtr div = hd_el_class(parent, "div", "scroll", NULL);
	xmlNewProp(div, BAD_CAST "data-scroll", BAD_CAST "x");
	xmlNodePtr t = hd_el(div, "table", NULL);
	if (id)
		xmlNewProp(t, BAD_CAST "id", BAD_CAST id);
	xmlNodePtr tr = hd_el(hd_el(t, "thead", NULL), "tr", NULL);
	for (; *cols; cols++)
		hd_el(tr, "th", *cols);
	return t;
}
