#include "xsdcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlschemas.h>

extern const char NS_MATRIX_XSD[];  /* schemas/matrix.xsd, see EMBED in mk/lib.mk */
extern const char NS_CATALOG_XSD[]; /* schemas/catalog.xsd */

const struct xsdcheck_spec xsdcheck_matrix = {
	.what = "matrix", .xsd = NS_MATRIX_XSD, .max_bytes = XSDCHECK_MATRIX_MAX_BYTES,
	.max_cpu_s = XSDCHECK_MAX_CPU_S};
const struct xsdcheck_spec xsdcheck_catalog = {
	.what = "catalog", .xsd = NS_CATALOG_XSD, .max_bytes = XSDCHECK_CATALOG_MAX_BYTES,
	.max_cpu_s = XSDCHECK_MAX_CPU_S};

/* The clock is read once per this many elements: often enough to stop within a fraction of a
 * second of the limit, rarely enough to cost nothing. */
#define CLOCK_EVERY_ELEMENTS 256u
/* The parser is fed this much at a time and stopped between two feeds once an error is seen:
 * stopping it inside a callback would free the buffer the schema plug still reads. A chunk
 * holds at most ~150 elements, so at most that many errors are formatted after the first. */
#define FEED_BYTES 4096u

/* libxml2 refuses documents deeper than this without XML_PARSE_HUGE (xmlParserMaxDepth). */
#define MAX_DEPTH 256

enum first_kind { FIRST_NONE, FIRST_PARSE, FIRST_SCHEMA, FIRST_DTD, FIRST_TIME };

/* One read: the first error, all later ones ignored until the parser is stopped. */
struct check {
	xmlParserCtxtPtr pctx;
	/* libxml2 refuses documents deeper than this without XML_PARSE_HUGE (xmlParserMaxDepth). */
#define MAX_DEPTH 256

enum first_kind kind;
	int line;
	char msg[320];
	unsigned elements;
	double cpu_start;
	double max_cpu_s;
	/* the elements open, by their parser's dictionary names, to close after a stop */
	int depth;
	const xmlChar *open[MAX_DEPTH + 1][3];
};

static double thread_cpu_s(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void first_error(struct check *c, /* libxml2 refuses documents deeper than this without XML_PARSE_HUGE (xmlParserMaxDepth). */
#define MAX_DEPTH 256

enum first_kind kind, int line, const char *text)
{
	if (c->kind != FIRST_NONE)
		return;
	c->kind = kind;
	c->line = line > 0 ? line : c->pctx ? xmlSAX2GetLineNumber(c->pctx) : 0;
	snprintf(c->msg, sizeof(c->msg), "%s", text ? text : "malformed XML");
	size_t n = strlen(c->msg);
	while (n > 0 && (c->msg[n - 1] == '\n' || c->msg[n - 1] == ' '))
		c->msg[--n] = '\0';
	/* no more callbacks, so no more validation and no more errors to format, until the
	 * parser is stopped after this chunk (as libxml2 does itself after a fatal error) */
	if (c->pctx) /* NULL while the schema itself is being read */
		c->pctx->disableSAX = 1;
}

static void on_parse_error(void *ctx, xmlErrorPtr e)
{
	if (e && e->level >= XML_ERR_ERROR)
		first_error(ctx, FIRST_PARSE, e->line, e->message);
}

static void on_schema_error(void *ctx, xmlErrorPtr e)
{
	if (e && e->level >= XML_ERR_ERROR)
		first_error(ctx, FIRST_SCHEMA, e->line, e->message);
}

/* No input of ours has a DOCTYPE: refusing it refuses every entity, internal or external.
 * The parser stops here, before the subset's declarations are read (a callback of the
 * DOCTYPE may stop it: libxml2 reads nothing after it returns). */
static void on_doctype(void *ctx, const xmlChar *name, const xmlChar *ext_id,
		       const xmlChar *sys_id)
{
	xmlParserCtxtPtr pctx = ctx;
	first_error(pctx->_private, FIRST_DTD, 0, "a DOCTYPE (DTD) is not allowed");
	xmlStopParser(pctx);
}

static void on_start(void *ctx, const xmlChar *localname, const xmlChar *prefix,
		     const xmlChar *uri, int nb_namespaces, const xmlChar **namespaces,
		     int nb_attributes, int nb_defaulted, const xmlChar **attributes)
{
	xmlParserCtxtPtr pctx = ctx;
	struct check *c = pctx->_private;
	/* the tree first: libxml2 expects an element started before the parser stops */
	xmlSAX2StartElementNs(ctx, localname, prefix, uri, nb_namespaces, namespaces,
			      nb_attributes, nb_defaulted, attributes);
	if (c->depth < MAX_DEPTH + 1) {
		c->open[c->depth][0] = localname;
		c->open[c->depth][1] = prefix;
		c->open[c->depth][2] = uri;
	}
	c->depth++;
	if (++c->elements % CLOCK_EVERY_ELEMENTS == 0 &&
	    thread_cpu_s() - c->cpu_start > c->max_cpu_s)
		first_error(c, FIRST_TIME, 0, "over the time limit");
}

static void on_end(void *ctx, const xmlChar *localname, const xmlChar *prefix,
		   const xmlChar *uri)
{
	xmlParserCtxtPtr pctx = ctx;
	struct check *c = pctx->_private;
	xmlSAX2EndElementNs(ctx, localname, prefix, uri);
	if (c->depth > 0)
		c->depth--;
}

/* The validator frees its key tables (xs:unique) only as their elements end: after a stop,
 * the elements still open are ended through the plug, as the parser would have. */
static void close_open_elements(struct check *c, xmlParserCtxtPtr pctx)
{
	if (c->depth > MAX_DEPTH + 1 || !pctx->sax->endElementNs)
		return;
	while (c->depth > 0) {
		const xmlChar **e = c->open[c->depth - 1];
		pctx->sax->endElementNs(pctx->userData, e[0], e[1], e[2]);
	}
}

static xmlSchemaPtr compile_schema(const struct xsdcheck_spec *spec, struct ns_err *err)
{
	struct check none = {0};
	xmlSchemaParserCtxtPtr sp = xmlSchemaNewMemParserCtxt(spec->xsd, (int)strlen(spec->xsd));
	if (!sp) {
		ns_err_code(err, NS_E_NOMEM, "%s schema: out of memory", spec->what);
		return NULL;
	}
	xmlSchemaSetParserStructuredErrors(sp, on_schema_error, &none);
	xmlSchemaPtr schema = xmlSchemaParse(sp);
	xmlSchemaFreeParserCtxt(sp);
	if (!schema)
		ns_err_set(err, "%s schema (built in) does not compile: %s", spec->what,
			   none.kind ? none.msg : "no reason given");
	return schema;
}

static int report(const struct check *c, const struct xsdcheck_spec *spec, const char *path,
		  xmlParserCtxtPtr pctx, xmlSchemaValidCtxtPtr vctx, struct ns_err *err)
{
	switch (c->kind) {
	case FIRST_PARSE:
	case FIRST_DTD:
		return ns_err_code(err, NS_E_INPUT, "%s:%d: not well-formed XML: %s", path, c->line,
				   c->msg);
	case FIRST_SCHEMA:
		return ns_err_code(err, NS_E_INPUT, "%s:%d: %s", path, c->line, c->msg);
	case FIRST_TIME:
		return ns_err_code(err, NS_E_LIMIT, "%s:%d: reading and checking the %s took over "
				   "%g CPU-seconds (stopped there)", path, c->line, spec->what,
				   spec->max_cpu_s);
	case FIRST_NONE:
		break;
	}
	if (!pctx->wellFormed || !pctx->myDoc)
		return ns_err_code(err, NS_E_INPUT, "%s:%d: not well-formed XML", path,
				   xmlSAX2GetLineNumber(pctx));
	if (xmlSchemaIsValid(vctx) != 1)
		return ns_err_code(err, NS_E_INPUT, "%s: does not match the %s schema", path,
				   spec->what);
	return 0;
}

xmlDocPtr xsdcheck_mem(const struct xsdcheck_spec *spec, const char *path, const char *text,
		       size_t len, struct ns_err *err)
{
	struct check c = {.cpu_start = thread_cpu_s(), .max_cpu_s = spec->max_cpu_s};
	xmlSchemaValidCtxtPtr vctx = NULL;
	xmlSchemaSAXPlugPtr plug = NULL;
	xmlDocPtr doc = NULL;
	if (len > spec->max_bytes || len > (size_t)INT32_MAX) {
		ns_err_code(err, NS_E_LIMIT, "%s: %zu bytes, over the limit of %zu MiB", path, len,
			    spec->max_bytes >> 20);
		return NULL;
	}
	if (len == 0) {
		ns_err_code(err, NS_E_INPUT, "%s:1: not well-formed XML: the file is empty", path);
		return NULL;
	}
	xmlSchemaPtr schema = compile_schema(spec, err);
	if (!schema)
		return NULL;
	xmlSAXHandler sax;
	xmlSAXVersion(&sax, 2);
	sax.startElementNs = on_start;
	sax.endElementNs = on_end;
	sax.internalSubset = on_doctype;
	sax.externalSubset = on_doctype;
	/* the first bytes tell the encoding; libxml2 only buffers them here */
	size_t head = len < 4 ? len : 4;
	xmlParserCtxtPtr pctx = xmlCreatePushParserCtxt(&sax, NULL, text, (int)head, path);
	vctx = xmlSchemaNewValidCtxt(schema);
	if (!pctx || !vctx || !pctx->sax) {
		ns_err_code(err, NS_E_NOMEM, "%s: out of memory", path);
		goto out;
	}
	c.pctx = pctx;
	pctx->_private = &c;
	/* NONET: nothing makes the parser fetch; no NOENT, no DTDLOAD: nothing is substituted. */
	xmlCtxtUseOptions(pctx, XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES);
	xmlSchemaSetValidStructuredErrors(vctx, on_schema_error, &c);
	plug = xmlSchemaSAXPlug(vctx, &pctx->sax, &pctx->userData);
	if (!plug) {
		ns_err_code(err, NS_E_NOMEM, "%s: cannot plug the %s schema into the parser", path,
			    spec->what);
		goto out;
	}
	/* libxml2 2.9 sends parse errors to the thread's handler only: ours for this read. */
	xmlStructuredErrorFunc saved_fn = xmlStructuredError;
	void *saved_ctx = xmlStructuredErrorContext;
	xmlSetStructuredErrorFunc(&c, on_parse_error);
	for (size_t off = head; c.kind == FIRST_NONE && pctx->instate != XML_PARSER_EOF;) {
		size_t n = len - off < FEED_BYTES ? len - off : FEED_BYTES;
		xmlParseChunk(pctx, text + off, (int)n, n == 0);
		off += n;
		if (n == 0)
			break;
	}
	/* Every later error would only be formatted and dropped: libxml2 spends its time there. */
	if (c.kind != FIRST_NONE) {
		close_open_elements(&c, pctx);
		xmlStopParser(pctx);
	}
	xmlSetStructuredErrorFunc(saved_ctx, saved_fn);
	xmlSchemaSAXUnplug(plug);
	plug = NULL;
	if (report(&c, spec, path, pctx, vctx, err) == 0) {
		doc = pctx->myDoc;
		pctx->myDoc = NULL;
	}
out:
	if (pctx) {
		xmlFreeDoc(pctx->myDoc);
		pctx->myDoc = NULL;
		xmlFreeParserCtxt(pctx);
	}
	xmlSchemaFreeValidCtxt(vctx);
	xmlSchemaFree(schema);
	return doc;
}

int xsdcheck_slurp(const char *path, size_t max_bytes, char **text, size_t *len,
		   struct ns_err *err)
{
	struct stat sb;
	char *buf = NULL;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return ns_err_sys(err, "%s: cannot open", path);
	if (fstat(fd, &sb) < 0) {
		ns_err_sys(err, "%s", path);
		goto err;
	}
	if (!S_ISREG(sb.st_mode)) {
		ns_err_code(err, NS_E_INPUT, "%s: not a regular file", path);
		goto err;
	}
	if ((unsigned long long)sb.st_size > max_bytes) {
		ns_err_code(err, NS_E_LIMIT, "%s: %lld bytes, over the limit of %zu MiB", path,
			    (long long)sb.st_size, max_bytes >> 20);
		goto err;
	}
	/* one byte more than the size: a file that grew since fstat is caught, not cut */
	size_t cap = (size_t)sb.st_size + 1, n = 0;
	buf = malloc(cap + 1);
	if (!buf) {
		ns_err_code(err, NS_E_NOMEM, "%s: out of memory", path);
		goto err;
	}
	for (;;) {
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ns_err_sys(err, "%s: read", path);
			goto err;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == cap) {
			ns_err_code(err, NS_E_INPUT, "%s: the file changed while it was read", path);
			goto err;
		}
	}
	close(fd);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
err: {
	int saved = errno;
	free(buf);
	close(fd);
	errno = saved;
}
	return -1;
}

xmlDocPtr xsdcheck_file(const struct xsdcheck_spec *spec, const char *path, struct ns_err *err)
{
	char *text = NULL;
	size_t len = 0;
	if (xsdcheck_slurp(path, spec->max_bytes, &text, &len, err) < 0)
		return NULL;
	xmlDocPtr doc = xsdcheck_mem(spec, path, text, len, err);
	free(text);
	return doc;
}
