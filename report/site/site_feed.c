/* site_feed: see site_feed.h. Built as a libxml2 tree in the Atom namespace; the entries'
 * content is XHTML (type="xhtml"), so that the regressions reach a reader as a list. */
#define _DEFAULT_SOURCE /* timegm */
#include "report/site/site_feed.h"

#include <libxml/tree.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report/render/hdoc.h"

#define ATOM_NS "http://www.w3.org/2005/Atom"
#define XHTML_NS "http://www.w3.org/1999/xhtml"

/* A stored time as RFC 3339 in UTC; the generation time when it does not read as one. */
static void rfc3339(const struct site_ctx *s, const char *iso, char *out, size_t n)
{
	struct tm tm = {0};
	if (!iso || sscanf(iso, "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			   &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6) {
		snprintf(out, n, "%s", s->generated);
		return;
	}
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	time_t t = timegm(&tm);
	strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
}

static xmlNodePtr el(xmlNodePtr parent, const char *name, const char *text)
{
	return xmlNewTextChild(parent, NULL, BAD_CAST name, text ? BAD_CAST text : NULL);
}

static void link_el(xmlNodePtr parent, const char *rel, const char *type, const char *href)
{
	xmlNodePtr l = el(parent, "link", NULL);
	xmlSetProp(l, BAD_CAST "rel", BAD_CAST rel);
	if (type)
		xmlSetProp(l, BAD_CAST "type", BAD_CAST type);
	xmlSetProp(l, BAD_CAST "href", BAD_CAST href);
}

/* The run's uuid as a URN; a run without one (a store older than version 3 copied in) by
 * its matrix and id. */
static void entry_id(const struct site_night *n, char *out, size_t len)
{
	const char *u = n->uuid;
	if (site_uuid_hex(u))
		snprintf(out, len, "urn:uuid:%.8s-%.4s-%.4s-%.4s-%.12s", u, u + 8, u + 12, u + 16,
			 u + 20);
	else
		snprintf(out, len, "tag:netsweep.invalid,2000:%s", n->slug);
}

static void entry(const struct site_ctx *s, xmlNodePtr feed, const struct site_night *n)
{
	char b[1024];
	xmlNodePtr e = el(feed, "entry", NULL);
	el(e, "title", n->title);
	entry_id(n, b, sizeof(b));
	el(e, "id", b);
	rfc3339(s, n->finished, b, sizeof(b));
	el(e, "updated", b);
	rfc3339(s, n->started, b, sizeof(b));
	el(e, "published", b);
	snprintf(b, sizeof(b), "nights/%s/index.html", n->slug);
	link_el(e, "alternate", "text/html", b);
	el(e, "summary", n->headline);
	xmlNodePtr c = el(e, "content", NULL);
	xmlSetProp(c, BAD_CAST "type", BAD_CAST "xhtml");
	xmlNodePtr div = xmlNewChild(c, NULL, BAD_CAST "div", NULL);
	xmlNsPtr xh = xmlNewNs(div, BAD_CAST XHTML_NS, NULL);
	xmlSetNs(div, xh);
	xmlNewTextChild(div, xh, BAD_CAST "p", BAD_CAST n->headline);
	if (!n->have_base) {
		xmlNewTextChild(div, xh, BAD_CAST "p", BAD_CAST "No earlier night to compare with.");
		return;
	}
	snprintf(b, sizeof(b), "%zu regression%s, %zu improvement%s against the night before.",
		 n->n_regressions, n->n_regressions == 1 ? "" : "s", n->n_improvements,
		 n->n_improvements == 1 ? "" : "s");
	xmlNewTextChild(div, xh, BAD_CAST "p", BAD_CAST b);
	if (!n->n_regs)
		return;
	xmlNodePtr ul = xmlNewChild(div, xh, BAD_CAST "ul", NULL);
	for (size_t i = 0; i < n->n_regs; i++) {
		const struct site_reg *g = &n->regs[i];
		site_reg_text(g, b, sizeof(b));
		xmlNewTextChild(ul, xh, BAD_CAST "li", BAD_CAST b);
	}
}

int site_feed_write(const struct site_ctx *s, struct ns_err *err)
{
	char b[4096], path[4096 + 16];
	xmlDocPtr doc = xmlNewDoc(BAD_CAST "1.0");
	xmlNodePtr feed = doc ? xmlNewDocNode(doc, NULL, BAD_CAST "feed", NULL) : NULL;
	if (!feed) {
		xmlFreeDoc(doc);
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	}
	xmlDocSetRootElement(doc, feed);
	xmlSetNs(feed, xmlNewNs(feed, BAD_CAST ATOM_NS, NULL));
	const char *base = s->cfg->base_url;
	if (base) {
		size_t bl = strlen(base);
		snprintf(b, sizeof(b), "%s%s", base, bl && base[bl - 1] == '/' ? "" : "/");
		xmlNodeSetBase(feed, BAD_CAST b);
	}
	el(feed, "title", s->title);
	if (base) {
		snprintf(path, sizeof(path), "%sfeed.xml", b);
		el(feed, "id", path);
	} else {
		/* the first night's identity names the series (tag URI, RFC 4151) */
		snprintf(path, sizeof(path), "tag:netsweep.invalid,2000:site-%s",
			 s->nights[0].slug);
		el(feed, "id", path);
	}
	rfc3339(s, s->nights[s->n - 1].finished, b, sizeof(b));
	el(feed, "updated", b);
	el(el(feed, "author", NULL), "name", "netsweep");
	el(feed, "generator", "netsweep site");
	link_el(feed, "self", "application/atom+xml", "feed.xml");
	link_el(feed, "alternate", "text/html", "index.html");
	for (size_t i = s->n; i-- > 0;)
		entry(s, feed, &s->nights[i]);
	snprintf(path, sizeof(path), "%s/feed.xml", s->cfg->outdir);
	return hd_save(doc, path, 0, err);
}
