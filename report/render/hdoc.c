/* hdoc: see hdoc.h. */
#include "report/render/hdoc.h"

#include <libxml/HTMLtree.h>
#include <libxml/parser.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/atomicfile.h"
#include "lib/textesc.h"

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

void hd_stack_on_phones(xmlNodePtr t)
{
	xmlNodePtr head = NULL, body = NULL;
	for (xmlNodePtr c = t->children; c; c = c->next) {
		if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, "thead"))
			head = c->children; /* its one tr */
		if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, "tbody"))
			body = c;
	}
	if (!head || !body)
		return;
	for (xmlNodePtr tr = body->children; tr; tr = tr->next) {
		xmlNodePtr th = head->children;
		for (xmlNodePtr td = tr->children; td && th; td = td->next, th = th->next) {
			xmlChar *name = xmlNodeGetContent(th);
			xmlSetProp(td, BAD_CAST "data-label", name ? name : BAD_CAST "");
			xmlFree(name);
		}
	}
	if (t->parent)
		xmlSetProp(t->parent, BAD_CAST "data-stack", BAD_CAST "narrow");
}

static void table_cell(xmlNodePtr tr, const struct rp_cell *c)
{
	xmlNodePtr td;
	if (c->flags & RP_CELL_NUM)
		td = isnan(c->value) ? hd_el_class(tr, "td", "num", c->text)
				     : hd_td_num(tr, c->text, c->value);
	else if (c->flags & RP_CELL_CODE)
		hd_el(td = hd_el(tr, "td", NULL), "code", c->text);
	else if (c->flags & RP_CELL_ROWHEAD) /* screen readers say it with each cell of the row */
		hd_attr(td = hd_el(tr, "th", c->text), "scope", "row");
	else
		td = c->cls ? hd_el_class(tr, "td", c->cls, c->text) : hd_el(tr, "td", c->text);
	if ((c->flags & RP_CELL_NUM) && c->cls)
		hd_attr(td, "class", c->cls);
	if (c->title)
		hd_attr(td, "title", c->title);
	if (c->attr)
		hd_attr(td, c->attr, "1");
	for (size_t k = 0; k < RP_CELL_NOTES && c->note[k]; k++) {
		hd_el(td, "br", NULL);
		hd_el_class(td, "span", c->note_cls[k], c->note[k]);
	}
}

void hd_tables(xmlNodePtr s, const struct rp_section *sec)
{
	for (size_t i = 0; i < sec->n_tables; i++) {
		const struct rp_table *t = &sec->tables[i];
		const char *cols[RP_TABLE_MAX_COLS + 1];
		size_t nc = t->n_cols < RP_TABLE_MAX_COLS ? t->n_cols : RP_TABLE_MAX_COLS;
		for (size_t k = 0; k < nc; k++)
			cols[k] = t->cols[k];
		cols[nc] = NULL;
		if (t->heading)
			hd_el(s, "h3", t->heading);
		if (t->note)
			hd_el_class(s, "p", "note", t->note);
		xmlNodePtr table = hd_scroll_table(s, t->id, cols);
		xmlNodePtr tb = hd_el(table, "tbody", NULL);
		for (size_t k = 0; k < t->n_rows; k++) {
			const struct rp_row *rw = &t->rows[k];
			xmlNodePtr tr = hd_el(tb, "tr", NULL);
			if (rw->cls)
				hd_attr(tr, "class", rw->cls);
			for (size_t n = 0; n < RP_ROW_ATTRS; n++)
				if (rw->attr[n])
					hd_attr(tr, rw->attr[n], rw->attr_value[n]);
			for (size_t j = 0; j < rw->n_cells && j < nc; j++)
				table_cell(tr, &rw->cells[j]);
		}
		/* the per-dollar ranking: what a reader on a phone came for */
		if (t->id && (!strcmp(t->id, "cost-table") || !strcmp(t->id, "cost-change-table")))
			hd_stack_on_phones(table);
		if (t->after)
			hd_el_class(s, "p", "note", t->after);
		xmlNodePtr ul = t->n_items ? hd_el_class(s, "ul", "findings", NULL) : NULL;
		for (size_t k = 0; k < t->n_items; k++)
			hd_el(ul, "li", t->items[k]);
	}
}

/* Drops active content and rewrites ids/references with the chart's prefix. */
static void svg_sanitize(xmlNodePtr n, const char *prefix)
{
	for (xmlNodePtr c = n->children, next; c; c = next) {
		next = c->next;
		/* gnuplot's <title> elements are hover tooltips quoting its own plot commands
		 * ("'per_dollar.dat' using 0:2:xtic(1)"): the figure has a heading instead. */
		if (c->type == XML_ELEMENT_NODE &&
		    (!strcasecmp((const char *)c->name, "script") ||
		     !strcasecmp((const char *)c->name, "foreignObject") ||
		     !strcasecmp((const char *)c->name, "title"))) {
			xmlUnlinkNode(c);
			xmlFreeNode(c);
			continue;
		}
		if (c->type != XML_ELEMENT_NODE && c->type != XML_TEXT_NODE) {
			xmlUnlinkNode(c); /* comments, PIs, entity refs */
			xmlFreeNode(c);
			continue;
		}
		if (c->type == XML_ELEMENT_NODE)
			svg_sanitize(c, prefix);
	}
	for (xmlAttrPtr a = n->properties, next; a; a = next) {
		next = a->next;
		xmlChar *v = xmlNodeGetContent((xmlNodePtr)a);
		const char *name = (const char *)a->name;
		const char *val = v ? (const char *)v : "";
		char buf[512];
		if (!strncasecmp(name, "on", 2) ||
		    (!strcasecmp(name, "href") && val[0] != '#')) {
			xmlRemoveProp(a);
		} else if (!strcmp(name, "id")) {
			snprintf(buf, sizeof(buf), "%s-%s", prefix, val);
			xmlSetProp(n, a->name, BAD_CAST buf);
		} else if (!strcmp(name, "href")) {
			snprintf(buf, sizeof(buf), "#%s-%s", prefix, val + 1);
			xmlSetNsProp(n, a->ns, a->name, BAD_CAST buf);
		} else if (strstr(val, "url(#")) {
			const char *u = strstr(val, "url(#");
			snprintf(buf, sizeof(buf), "%.*surl(#%s-%s", (int)(u - val), val, prefix, u + 5);
			xmlSetNsProp(n, a->ns, a->name, BAD_CAST buf);
		}
		xmlFree(v);
	}
}

int hd_embed_svg(xmlNodePtr fig, const char *dir, const char *name, const char *label)
{
	char path[4096], prefix[48];
	snprintf(path, sizeof(path), "%s/%s.svg", dir, name);
	snprintf(prefix, sizeof(prefix), "ch-%s", name);
	xmlDocPtr svg = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
				    XML_PARSE_NOWARNING);
	xmlNodePtr root = svg ? xmlDocGetRootElement(svg) : NULL;
	if (!root || strcmp((const char *)root->name, "svg") != 0) {
		xmlFreeDoc(svg);
		return -1;
	}
	svg_sanitize(root, prefix);
	/* Scale to the column: the viewBox gives the shape, CSS the size. */
	xmlUnsetProp(root, BAD_CAST "width");
	xmlUnsetProp(root, BAD_CAST "height");
	xmlNodePtr copy = xmlDocCopyNode(root, fig->doc, 1);
	xmlFreeDoc(svg);
	if (!copy)
		return -1;
	xmlNewProp(copy, BAD_CAST "role", BAD_CAST "img");
	xmlNewProp(copy, BAD_CAST "aria-label", BAD_CAST label);
	xmlAddChild(fig, copy);
	return 0;
}

/* Every text, attribute value and comment under n made valid XML 1.0 and UTF-8 by the one
 * sanitiser (lib/textesc.h): a stored label, pair name or hook output with control characters
 * or bytes that are not UTF-8 is shown as escapes instead of making a document no parser reads
 * (a site's night.xml that every later build stopped at). Returns -1 when out of memory. */
static int sanitise(xmlNodePtr n)
{
	for (; n; n = n->next) {
		if ((n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE ||
		     n->type == XML_COMMENT_NODE) && n->content &&
		    textesc_needed_f((const char *)n->content, TEXTESC_KEEP_SPACE)) {
			char *t = textesc_dup_f((const char *)n->content, TEXTESC_KEEP_SPACE);
			if (!t)
				return -1;
			xmlNodeSetContent(n, BAD_CAST t);
			free(t);
		}
		if (n->type == XML_ELEMENT_NODE) {
			for (xmlAttrPtr a = n->properties; a; a = a->next)
				if (sanitise(a->children) < 0)
					return -1;
		}
		if (n->type != XML_ENTITY_REF_NODE && sanitise(n->children) < 0)
			return -1;
	}
	return 0;
}

int hd_save(xmlDocPtr doc, const char *path, int html, struct ns_err *err)
{
	struct atomicfile af;
	if (sanitise(doc->children) < 0) {
		xmlFreeDoc(doc);
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	}
	if (atomicfile_open(&af, path, 0644, 0, err) < 0) {
		xmlFreeDoc(doc);
		return -1;
	}
	/* libxml2 writes the temporary file by its name; the commit syncs and renames it */
	int rc = html ? htmlSaveFileFormat(af.tmp, doc, "UTF-8", 1)
		      : xmlSaveFormatFileEnc(af.tmp, doc, "UTF-8", 1);
	xmlFreeDoc(doc);
	if (rc < 0) {
		atomicfile_abort(&af);
		return ns_err_code(err, NS_E_IO, "%s: cannot write", path);
	}
	return atomicfile_commit(&af, err);
}

/* three white bars on the charts' first colour (#0072B2) */
static const char icon[] = "data:image/svg+xml;base64,"
	"PHN2ZyB4bWxucz0naHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmcnIHZpZXdCb3g9JzAgMCAxNiAxNic+PHJlY3Qg"
	"d2lkdGg9JzE2JyBoZWlnaHQ9JzE2JyByeD0nMycgZmlsbD0nIzAwNzJCMicvPjxwYXRoIGQ9J00zIDEzVjloMnY0"
	"em00IDBWNWgydjh6bTQgMFYzaDJ2MTB6JyBmaWxsPScjZmZmJy8+PC9zdmc+";

void hd_head_common(xmlNodePtr head, const char *description)
{
	if (description && *description) {
		xmlNodePtr m = hd_el(head, "meta", NULL);
		hd_attr(m, "name", "description");
		hd_attr(m, "content", description);
	}
	xmlNodePtr l = hd_el(head, "link", NULL);
	hd_attr(l, "rel", "icon");
	hd_attr(l, "type", "image/svg+xml");
	hd_attr(l, "href", icon);
}
