/* site_night: see site_night.h. night.xml is written as a libxml2 tree and read back with
 * libxml2 (no network, no DTD), numbers as %.17g text so that they come back bit for bit. */
#include "report/site/site_night.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/render/hdoc.h"
#include "report/model/describe.h"
#include "report/model/fmt.h"

int site_uuid_hex(const char *uuid)
{
	return uuid && strlen(uuid) == 32 && strspn(uuid, "0123456789abcdef") == 32;
}

void site_night_slug(const struct rp_night_ref *ref, char *out, size_t n)
{
	char date[11] = "undated";
	const char *s = ref->started_at;
	if (s && strlen(s) >= 10 && strspn(s, "0123456789-") >= 10)
		snprintf(date, sizeof(date), "%.10s", s);
	/* a store's own uuid (lib/sql/store_schema.c: 32 hex digits); an older store's
	 * made-up one is no address, its id in this database is */
	if (site_uuid_hex(ref->uuid))
		snprintf(out, n, "%s-%.8s", date, ref->uuid);
	else
		snprintf(out, n, "%s-run%lld", date, ref->id);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

int site_night_from_report(const struct rp_night_ref *ref, const char *slug,
			   const struct rp_pipeline *p, struct site_night *out, struct ns_err *err)
{
	const struct rp_data *d = &p->d;
	*out = (struct site_night){.run_id = ref->id, .uuid = dup_or_null(ref->uuid),
		.label = dup_or_null(ref->label), .matrix = strdup(ref->matrix),
		.started = strdup(ref->started_at), .finished = strdup(ref->finished_at),
		.status = strdup(ref->status), .slug = strdup(slug),
		.headline = strdup(p->content.headline ? p->content.headline : ""),
		.have_base = p->have_cmp, .n_cases = d->n_cases};
	char title[512];
	const char *t = ref->started_at;
	if (strlen(t) >= 16 && t[10] == 'T')
		snprintf(title, sizeof(title), "%s, %.10s %.5s UTC",
			 ref->label ? ref->label : ref->matrix, t, t + 11);
	else
		snprintf(title, sizeof(title), "%s, %s", ref->label ? ref->label : ref->matrix, t);
	out->title = strdup(title);
	if (!out->matrix || !out->started || !out->finished || !out->status || !out->slug ||
	    !out->headline || !out->title)
		goto nomem;
	if (p->have_cmp) {
		out->n_regressions = p->cmp.n_regressions;
		out->n_improvements = p->cmp.n_improvements;
		out->regs = calloc(p->news.n_changed + 1, sizeof(*out->regs));
		if (!out->regs)
			goto nomem;
		struct rp_buf b;
		rp_buf_init(&b);
		for (size_t k = 0; k < p->news.n_changed; k++) {
			const struct rp_cmp_row *w = &p->cmp.rows[p->news.changed[k]];
			if (w->verdict != RP_REGRESSION)
				continue;
			rp_buf_reset(&b);
			rp_case_label(d, &d->cases[w->cur], &b);
			struct site_reg *g = &out->regs[out->n_regs++];
			*g = (struct site_reg){.label = strdup(rp_buf_str(&b)), .base_bps = w->base_med,
					       .bps = w->cur_med, .change_pct = w->change_pct};
			if (!g->label || b.oom) {
				rp_buf_free(&b);
				goto nomem;
			}
		}
		rp_buf_free(&b);
	}
	out->pairs = calloc(p->n_cost + 1, sizeof(*out->pairs));
	if (!out->pairs)
		goto nomem;
	for (size_t i = 0; i < p->n_cost; i++) {
		const struct rp_cost_row *c = &p->cost[i];
		const struct rp_endpoint *e = &d->eps[c->ep];
		struct site_pair *sp = &out->pairs[out->n_pairs++];
		*sp = (struct site_pair){.name = strdup(e->name ? e->name : "?"),
			.itype = dup_or_null(e->instance_type), .region = dup_or_null(e->region),
			.usd_per_hour = c->usd_per_hour, .mbps = c->mbps,
			.mpd = c->mbps_per_usd_hour, .rank = c->rank,
			.currency = isnan(c->usd_per_hour) ? NULL
				  : strdup(rp_money_code(c->currency)),
			.fx_currency = e->fx_rate > 0 ? dup_or_null(e->fx_currency) : NULL,
			.fx_usd = e->fx_rate > 0 ? e->fx_rate : NAN, .inside_burst = c->inside_burst,
			.lab_scale = dup_or_null(e->lab_scale),
			.relation = e->xfer.relation[0] ? strdup(e->xfer.relation) : NULL,
			.transfer_per_hour = c->transfer_per_hour,
			.total_per_hour = c->total_per_hour, .mptd = c->mbps_per_total_hour};
		if (!sp->name || (!isnan(c->usd_per_hour) && !sp->currency) ||
		    (e->lab_scale && !sp->lab_scale) || (e->xfer.relation[0] && !sp->relation))
			goto nomem;
	}
	return 0;
nomem:
	site_night_free(out);
	return ns_err_code(err, NS_E_NOMEM, "out of memory");
}

static void set_text(xmlNodePtr n, const char *name, const char *v)
{
	if (v)
		xmlSetProp(n, BAD_CAST name, BAD_CAST v);
}

static void set_num(xmlNodePtr n, const char *name, double v)
{
	char b[40];
	if (isnan(v))
		return;
	snprintf(b, sizeof(b), "%.17g", v);
	xmlSetProp(n, BAD_CAST name, BAD_CAST b);
}

int site_night_write(const struct site_night *n, const char *path, struct ns_err *err)
{
	xmlDocPtr doc = xmlNewDoc(BAD_CAST "1.0");
	xmlNodePtr root = doc ? xmlNewDocNode(doc, NULL, BAD_CAST "night", NULL) : NULL;
	if (!root) {
		xmlFreeDoc(doc);
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	}
	xmlDocSetRootElement(doc, root);
	set_num(root, "run", (double)n->run_id);
	set_text(root, "uuid", n->uuid);
	set_text(root, "label", n->label);
	set_text(root, "matrix", n->matrix);
	set_text(root, "started", n->started);
	set_text(root, "finished", n->finished);
	set_text(root, "status", n->status);
	set_text(root, "slug", n->slug);
	set_num(root, "baseline", n->have_base);
	set_num(root, "cases", (double)n->n_cases);
	set_num(root, "regressions", (double)n->n_regressions);
	set_num(root, "improvements", (double)n->n_improvements);
	xmlNewTextChild(root, NULL, BAD_CAST "title", BAD_CAST n->title);
	xmlNewTextChild(root, NULL, BAD_CAST "headline", BAD_CAST n->headline);
	for (size_t i = 0; i < n->n_regs; i++) {
		xmlNodePtr r = xmlNewTextChild(root, NULL, BAD_CAST "regression", NULL);
		set_text(r, "case", n->regs[i].label);
		set_num(r, "base_bps", n->regs[i].base_bps);
		set_num(r, "bps", n->regs[i].bps);
		set_num(r, "change_pct", n->regs[i].change_pct);
	}
	for (size_t i = 0; i < n->n_pairs; i++) {
		const struct site_pair *p = &n->pairs[i];
		xmlNodePtr e = xmlNewTextChild(root, NULL, BAD_CAST "pair", NULL);
		set_text(e, "name", p->name);
		set_text(e, "instance_type", p->itype);
		set_text(e, "region", p->region);
		set_num(e, "usd_per_hour", p->usd_per_hour);
		set_num(e, "mbps", p->mbps);
		set_num(e, "mbps_per_usd_hour", p->mpd);
		set_num(e, "rank", p->rank);
		set_text(e, "currency", p->currency);
		set_text(e, "quoted_currency", p->fx_currency);
		set_num(e, "fx_usd", p->fx_usd);
		if (p->inside_burst)
			set_num(e, "inside_burst", 1);
		set_text(e, "lab_scale", p->lab_scale);
		set_text(e, "relation", p->relation);
		set_num(e, "transfer_per_hour", p->transfer_per_hour);
		set_num(e, "total_per_hour", p->total_per_hour);
		set_num(e, "mbps_per_total_hour", p->mptd);
	}
	return hd_save(doc, path, 0, err);
}

static char *get_text(xmlNodePtr n, const char *name)
{
	xmlChar *v = xmlGetProp(n, BAD_CAST name);
	char *s = v ? strdup((const char *)v) : NULL;
	xmlFree(v);
	return s;
}

static double get_num(xmlNodePtr n, const char *name)
{
	xmlChar *v = xmlGetProp(n, BAD_CAST name);
	double d = v ? strtod((const char *)v, NULL) : NAN;
	xmlFree(v);
	return d;
}

static char *content_of(xmlNodePtr n)
{
	xmlChar *v = xmlNodeGetContent(n);
	char *s = strdup(v ? (const char *)v : "");
	xmlFree(v);
	return s;
}

static size_t count_named(xmlNodePtr root, const char *name)
{
	size_t k = 0;
	for (xmlNodePtr c = root->children; c; c = c->next)
		k += c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, name);
	return k;
}

int site_night_read(const char *path, struct site_night *out, struct ns_err *err)
{
	*out = (struct site_night){0};
	xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
				    XML_PARSE_NOWARNING);
	xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
	if (!root || strcmp((const char *)root->name, "night") != 0) {
		xmlFreeDoc(doc);
		return ns_err_code(err, NS_E_INPUT, "%s: not a night summary (remove it to render "
				   "the night again)", path);
	}
	double v = get_num(root, "run");
	out->run_id = isnan(v) ? 0 : (long long)v;
	out->uuid = get_text(root, "uuid");
	out->label = get_text(root, "label");
	out->matrix = get_text(root, "matrix");
	out->started = get_text(root, "started");
	out->finished = get_text(root, "finished");
	out->status = get_text(root, "status");
	out->slug = get_text(root, "slug");
	out->have_base = get_num(root, "baseline") == 1;
	v = get_num(root, "cases");
	out->n_cases = isnan(v) ? 0 : (size_t)v;
	v = get_num(root, "regressions");
	out->n_regressions = isnan(v) ? 0 : (size_t)v;
	v = get_num(root, "improvements");
	out->n_improvements = isnan(v) ? 0 : (size_t)v;
	out->regs = calloc(count_named(root, "regression") + 1, sizeof(*out->regs));
	out->pairs = calloc(count_named(root, "pair") + 1, sizeof(*out->pairs));
	if (!out->regs || !out->pairs)
		goto nomem;
	for (xmlNodePtr c = root->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		const char *name = (const char *)c->name;
		if (!strcmp(name, "title") && !out->title) {
			out->title = content_of(c);
		} else if (!strcmp(name, "headline") && !out->headline) {
			out->headline = content_of(c);
		} else if (!strcmp(name, "regression")) {
			struct site_reg *g = &out->regs[out->n_regs++];
			*g = (struct site_reg){.label = get_text(c, "case"),
				.base_bps = get_num(c, "base_bps"), .bps = get_num(c, "bps"),
				.change_pct = get_num(c, "change_pct")};
			if (!g->label && !(g->label = strdup("?")))
				goto nomem;
		} else if (!strcmp(name, "pair")) {
			struct site_pair *p = &out->pairs[out->n_pairs++];
			v = get_num(c, "rank");
			*p = (struct site_pair){.name = get_text(c, "name"),
				.itype = get_text(c, "instance_type"), .region = get_text(c, "region"),
				.usd_per_hour = get_num(c, "usd_per_hour"), .mbps = get_num(c, "mbps"),
				.mpd = get_num(c, "mbps_per_usd_hour"), .rank = isnan(v) ? 0 : (int)v,
				.currency = get_text(c, "currency"),
				.fx_currency = get_text(c, "quoted_currency"),
				.fx_usd = get_num(c, "fx_usd"),
				.inside_burst = get_num(c, "inside_burst") == 1,
				.lab_scale = get_text(c, "lab_scale"),
				.relation = get_text(c, "relation"),
				.transfer_per_hour = get_num(c, "transfer_per_hour"),
				.total_per_hour = get_num(c, "total_per_hour"),
				.mptd = get_num(c, "mbps_per_total_hour")};
			if (!p->name && !(p->name = strdup("?")))
				goto nomem;
		}
	}
	xmlFreeDoc(doc);
	if (!out->slug || !out->matrix || !out->started) {
		site_night_free(out);
		return ns_err_code(err, NS_E_INPUT, "%s: a night summary without its slug, matrix "
				   "or start (remove it to render the night again)", path);
	}
	if ((!out->title && !(out->title = strdup(out->slug))) ||
	    (!out->headline && !(out->headline = strdup(""))))
		goto nomem_freed;
	return 0;
nomem:
	xmlFreeDoc(doc);
nomem_freed:
	site_night_free(out);
	return ns_err_code(err, NS_E_NOMEM, "out of memory");
}

void site_reg_text(const struct site_reg *g, char *out, size_t n)
{
	char base[32], now[32];
	rp_fmt_bps(base, sizeof(base), g->base_bps);
	rp_fmt_bps(now, sizeof(now), g->bps);
	snprintf(out, n, "%s: %+.1f %% (%s to %s)", g->label, g->change_pct, base, now);
}

void site_night_free(struct site_night *n)
{
	free(n->uuid);
	free(n->label);
	free(n->matrix);
	free(n->started);
	free(n->finished);
	free(n->status);
	free(n->slug);
	free(n->title);
	free(n->headline);
	for (size_t i = 0; i < n->n_regs; i++)
		free(n->regs[i].label);
	free(n->regs);
	for (size_t i = 0; i < n->n_pairs; i++) {
		free(n->pairs[i].name);
		free(n->pairs[i].itype);
		free(n->pairs[i].region);
		free(n->pairs[i].currency);
		free(n->pairs[i].fx_currency);
		free(n->pairs[i].lab_scale);
		free(n->pairs[i].relation);
	}
	free(n->pairs);
	*n = (struct site_night){0};
}

const char *site_pair_currency(const struct site_pair *p)
{
	return rp_money_code(p->currency);
}

size_t site_night_ranked(const struct site_night *n, const char *cur)
{
	size_t k = 0;
	for (size_t i = 0; i < n->n_pairs; i++)
		k += n->pairs[i].rank > 0 && rp_money_same(n->pairs[i].currency, cur);
	return k;
}

int site_nights_mixed(const struct site_night *nights, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < nights[i].n_pairs; j++)
			if (!rp_money_same(nights[i].pairs[j].currency, "USD") ||
			    nights[i].pairs[j].fx_currency)
				return 1;
	return 0;
}
