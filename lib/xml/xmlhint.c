/* xmlhint: misspelt names against an XSD (xmlhint.h). The XSD is read as plain XML: every
 * xs:element's name, the xs:attribute names of its own complexType (not those of elements
 * nested in it), and for attributes typed by a named xs:simpleType, or by one of their own
 * (<group kind>, <matrix order>), its xs:enumeration values. */
#include "xmlhint.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

#include "lib/names/suggest.h"

#define XH_MAX 512 /* names of one kind an XSD declares, at most (matrix.xsd: under 100) */

struct xh_attr {
	const char *elem, *name, *type; /* type: a named simpleType, or NULL */
	xmlNodePtr own;                 /* the xs:restriction of a simpleType of its own, or NULL */
};

struct xh {
	const char *elems[XH_MAX];
	size_t n_elems;
	struct xh_attr attrs[XH_MAX];
	size_t n_attrs;
	const char *enum_type[XH_MAX], *enum_value[XH_MAX];
	size_t n_enums;
};

static bool is_xs(xmlNodePtr n, const char *local)
{
	return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, local);
}

static const char *prop(xmlNodePtr n, const char *name)
{
	xmlAttrPtr a = xmlHasProp(n, (const xmlChar *)name);
	return a && a->children && a->children->content ? (const char *)a->children->content : NULL;
}

static const char *local_name(const char *qname)
{
	const char *c = qname ? strchr(qname, ':') : NULL;
	return c ? c + 1 : qname;
}

/* The attributes below n that belong to element elem (stopping at nested elements). */
static void collect_attrs(struct xh *h, xmlNodePtr n, const char *elem)
{
	for (xmlNodePtr c = n->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE || is_xs(c, "element"))
			continue;
		const char *name;
		if (is_xs(c, "attribute") && (name = prop(c, "name")) && h->n_attrs < XH_MAX) {
			xmlNodePtr own = NULL;
			for (xmlNodePtr t = c->children; t && !own; t = t->next)
				for (xmlNodePtr r = is_xs(t, "simpleType") ? t->children : NULL; r; r = r->next)
					own = is_xs(r, "restriction") ? r : own;
			h->attrs[h->n_attrs++] = (struct xh_attr){elem, name, local_name(prop(c, "type")),
								 own};
			continue; /* its own simpleType's enumerations are its, not a named type's */
		}
		collect_attrs(h, c, elem);
	}
}

static void collect(struct xh *h, xmlNodePtr n)
{
	for (xmlNodePtr c = n; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		const char *name = prop(c, "name");
		if (is_xs(c, "element") && name) {
			if (h->n_elems < XH_MAX)
				h->elems[h->n_elems++] = name;
			collect_attrs(h, c, name);
		} else if (is_xs(c, "simpleType") && name) {
			for (xmlNodePtr r = c->children; r; r = r->next)
				for (xmlNodePtr e = is_xs(r, "restriction") ? r->children : NULL; e; e = e->next)
					if (is_xs(e, "enumeration") && prop(e, "value") && h->n_enums < XH_MAX) {
						h->enum_type[h->n_enums] = name;
						h->enum_value[h->n_enums++] = prop(e, "value");
					}
		}
		collect(h, c->children);
	}
}

/* The names of one kind as an array for suggest_among (at most XH_MAX). */
static size_t pick(const struct xh *h, int kind, const char *key, const char **out)
{
	size_t n = 0;
	if (kind == 0)
		for (size_t i = 0; i < h->n_elems; i++)
			out[n++] = h->elems[i];
	else if (kind == 1)
		for (size_t i = 0; i < h->n_attrs; i++) {
			if (!strcmp(h->attrs[i].elem, key))
				out[n++] = h->attrs[i].name;
		}
	else
		for (size_t i = 0; i < h->n_enums; i++)
			if (!strcmp(h->enum_type[i], key))
				out[n++] = h->enum_value[i];
	return n;
}

static bool among(const char *word, const char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(word, names[i]))
			return true;
	return false;
}

/* " (did you mean 'x'?)" (<x> for elements), ": one of a, b, c" or ": it takes none" into buf. */
static void hint(const char *word, const char **names, size_t n, bool elem, char *buf, size_t cap)
{
	const char *near = suggest_among(word, names, n);
	if (near) {
		snprintf(buf, cap, elem ? " (did you mean <%s>?)" : " (did you mean '%s'?)", near);
		return;
	}
	if (n == 0) {
		snprintf(buf, cap, ": it takes none");
		return;
	}
	size_t o = (size_t)snprintf(buf, cap, ": one of ");
	for (size_t i = 0; i < n && o < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s%s", i ? ", " : "", names[i]);
}

static int walk(const struct xh *h, xmlNodePtr n, const char *path, const char **scratch,
		struct ns_err *err)
{
	char tail[600];
	for (; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE || n->ns)
			continue; /* another vocabulary's element: the validator's to judge */
		const char *name = (const char *)n->name;
		size_t k = pick(h, 0, NULL, scratch);
		if (!among(name, scratch, k)) {
			hint(name, scratch, k, true, tail, sizeof(tail));
			return ns_err_code(err, NS_E_INPUT, "%s:%ld: unknown element <%s>%s", path,
					   xmlGetLineNo(n), name, tail);
		}
		for (xmlAttrPtr a = n->properties; a; a = a->next) {
			const char *an = (const char *)a->name;
			if (a->ns)
				continue; /* xsi:..., xml:... */
			k = pick(h, 1, name, scratch);
			if (!among(an, scratch, k)) {
				hint(an, scratch, k, false, tail, sizeof(tail));
				return ns_err_code(err, NS_E_INPUT, "%s:%ld: <%s> has no attribute '%s'%s",
						   path, xmlGetLineNo(n), name, an, tail);
			}
			const char *type = NULL, *v = prop(n, an);
			xmlNodePtr own = NULL;
			for (size_t i = 0; i < h->n_attrs && !type && !own; i++)
				if (!strcmp(h->attrs[i].elem, name) && !strcmp(h->attrs[i].name, an)) {
					type = h->attrs[i].type;
					own = h->attrs[i].own;
				}
			k = 0;
			for (xmlNodePtr e = own ? own->children : NULL; e && k < XH_MAX; e = e->next)
				if (is_xs(e, "enumeration") && prop(e, "value"))
					scratch[k++] = prop(e, "value");
			if (own && k)
				type = an; /* "'incst' is not a valid kind" */
			else if (!type || !(k = pick(h, 2, type, scratch)))
				continue;
			if (!v || among(v, scratch, k))
				continue;
			hint(v, scratch, k, false, tail, sizeof(tail));
			return ns_err_code(err, NS_E_INPUT, "%s:%ld: <%s %s=\"%s\">: '%s' is not a valid %s%s",
					   path, xmlGetLineNo(n), name, an, v, v, type, tail);
		}
		if (walk(h, n->children, path, scratch, err) < 0)
			return -1;
	}
	return 0;
}

int xmlhint_check(xmlDocPtr doc, const char *xsd_text, const char *path, struct ns_err *err)
{
	xmlDocPtr xsd = xmlReadMemory(xsd_text, (int)strlen(xsd_text), "schema.xsd", NULL,
				      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	struct xh *h = calloc(1, sizeof(*h));
	const char **scratch = calloc(XH_MAX, sizeof(*scratch));
	int rc = 0;
	if (xsd && h && scratch) {
		collect(h, xmlDocGetRootElement(xsd));
		rc = walk(h, xmlDocGetRootElement(doc), path, scratch, err);
	}
	free(scratch);
	free(h);
	xmlFreeDoc(xsd);
	return rc;
}
