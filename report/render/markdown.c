/* markdown: see markdown.h. */
#include "report/render/markdown.h"

#include "report/analyze/advertised.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/atomicfile.h"
#include "report/model/describe.h"
#include "report/model/fmt.h"
#include "report/load/limits.h"
#include "lib/cli.h"

static void esc(struct rp_buf *b, const char *s)
{
	rp_md_escape(b, s ? s : "–");
}


/* GitHub's anchor for a heading: lower case, spaces to '-', other punctuation dropped. */
static void slug(struct rp_buf *b, const char *title)
{
	for (const unsigned char *p = (const unsigned char *)title; *p; p++) {
		if (*p == ' ')
			rp_buf_add(b, "-", 1);
		else if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-')
			rp_buf_add(b, (const char *)p, 1);
		else if (*p >= 'A' && *p <= 'Z')
			rp_buf_printf(b, "%c", *p - 'A' + 'a');
	}
}

static void paras(const struct rp_section *sec, int after, struct rp_buf *b)
{
	for (size_t i = 0; i < sec->n_paras; i++) {
		const struct rp_para *p = &sec->paras[i];
		if (p->after != after)
			continue;
		if (p->style == RP_PARA_WARN)
			rp_buf_puts(b, "> ");
		rp_md_escape(b, p->text);
		if (p->link_text) {
			rp_buf_puts(b, "[");
			rp_md_escape(b, p->link_text);
			rp_buf_puts(b, "](#");
			slug(b, p->link_text);
			rp_buf_puts(b, ").");
		}
		rp_buf_puts(b, "\n\n");
	}
}

/* A section of the content model: its heading and the sentences before its tables; md_close
 * adds the sentences after them. */
static void md_open(const struct rp_section *sec, struct rp_buf *b)
{
	rp_buf_puts(b, "## ");
	rp_md_escape(b, sec->title);
	rp_buf_puts(b, "\n\n");
	paras(sec, 0, b);
}

static void md_close(const struct rp_section *sec, struct rp_buf *b)
{
	if (b->len && b->s[b->len - 1] == '\n' && !(b->len > 1 && b->s[b->len - 2] == '\n'))
		rp_buf_puts(b, "\n");
	paras(sec, 1, b);
}

/* The section's tables of the content model (content.h), as index.html has them. */
static void md_tables(const struct rp_section *sec, struct rp_buf *b)
{
	for (size_t i = 0; i < sec->n_tables; i++) {
		const struct rp_table *t = &sec->tables[i];
		if (t->heading) {
			rp_buf_puts(b, "### ");
			rp_md_escape(b, t->heading);
			rp_buf_puts(b, "\n\n");
		}
		if (t->note) {
			rp_md_escape(b, t->note);
			rp_buf_puts(b, "\n\n");
		}
		rp_buf_puts(b, "|");
		for (size_t k = 0; k < t->n_cols; k++) {
			rp_buf_printf(b, " %s |", t->cols[k]); /* the writers' own words */
		}
		rp_buf_puts(b, "\n|");
		for (size_t k = 0; k < t->n_cols; k++)
			rp_buf_puts(b, "---|");
		rp_buf_puts(b, "\n");
		for (size_t k = 0; k < t->n_rows; k++) {
			const struct rp_row *rw = &t->rows[k];
			rp_buf_puts(b, "|");
			for (size_t j = 0; j < rw->n_cells; j++) {
				const struct rp_cell *c = &rw->cells[j];
				const char *strong = c->flags & RP_CELL_STRONG ? "**" : "";
				rp_buf_printf(b, " %s", strong);
				esc(b, c->text);
				rp_buf_puts(b, strong);
				if ((c->flags & RP_CELL_SAY_TITLE) && c->title) {
					rp_buf_puts(b, " (");
					esc(b, c->title);
					rp_buf_puts(b, ")");
				}
				for (size_t n = 0; n < RP_CELL_NOTES && c->note[n]; n++) {
					rp_buf_puts(b, " — ");
					esc(b, c->note[n]);
				}
				rp_buf_puts(b, " |");
			}
			rp_buf_puts(b, "\n");
		}
		rp_buf_puts(b, "\n");
		if (t->after) {
			esc(b, t->after);
			rp_buf_puts(b, "\n\n");
		}
		for (size_t k = 0; k < t->n_items; k++) {
			rp_buf_puts(b, "- ");
			esc(b, t->items[k]);
			rp_buf_puts(b, k + 1 == t->n_items ? "\n\n" : "\n");
		}
	}
}

static void run_facts(const struct rp_section *sec, struct rp_buf *b)
{
	rp_buf_puts(b, "| | |\n|---|---|\n");
	for (size_t i = 0; i < sec->n_facts; i++) {
		rp_buf_puts(b, "| ");
		esc(b, sec->facts[i].key);
		rp_buf_puts(b, " | ");
		esc(b, sec->facts[i].value);
		rp_buf_puts(b, " |\n");
	}
}

static void findings(const struct rp_report *r, struct rp_buf *b)
{
	for (size_t i = 0; i < r->findings->n; i++) {
		rp_buf_puts(b, "- ");
		esc(b, r->findings->items[i].text);
		rp_buf_puts(b, "\n");
	}
}

static void method(const struct rp_report *r, struct rp_buf *b)
{
	const struct rp_data *d = r->d;
	/* The matrix as run, in a fence longer than any backtick run inside it. */
	size_t run = 0, longest = 0;
	for (const char *p = d->run.matrix_text ? d->run.matrix_text : ""; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	char fence[64];
	size_t nf = longest < 3 ? 3 : longest + 1;
	if (nf < sizeof(fence)) {
		memset(fence, '`', nf);
		fence[nf] = '\0';
		rp_buf_printf(b, "The matrix file as run:\n\n%sxml\n", fence);
		rp_buf_puts(b, d->run.matrix_text);
		if (b->len && b->s[b->len - 1] != '\n')
			rp_buf_puts(b, "\n");
		rp_buf_printf(b, "%s\n\n", fence);
	} else {
		/* No fence could hold it safely; index.html shows it. */
		rp_buf_puts(b, "The matrix file is shown in index.html.\n\n");
	}
}

static void chart(const struct rp_chart *c, struct rp_buf *b)
{
	rp_buf_printf(b, "### %s\n\n", c->title);
	if (c->status == RP_CHART_OK)
		rp_buf_printf(b, "![%s](%s.svg)\n\n", c->title, c->name);
	else if (c->status == RP_CHART_FAILED) {
		rp_buf_puts(b, "Not rendered: ");
		esc(b, c->reason);
		rp_buf_puts(b, ".\n\n");
	}
	esc(b, c->caption);
	rp_buf_printf(b, " Data: [%s.dat](%s.dat), script: [%s.gp](%s.gp).\n\n", c->name,
		      c->name, c->name, c->name);
}

/* Every chart but the group section's; those with nothing to draw in one line. */
static void charts(const struct rp_report *r, struct rp_buf *b)
{
	size_t nd = 0;
	for (size_t i = 0; i < r->charts->n; i++) {
		const struct rp_chart *c = &r->charts->items[i];
		if (strcmp(c->name, "fairness") && c->status != RP_CHART_NODATA)
			chart(c, b);
	}
	for (size_t i = 0; i < r->charts->n; i++) {
		const struct rp_chart *c = &r->charts->items[i];
		if (c->status != RP_CHART_NODATA || !strcmp(c->name, "fairness"))
			continue;
		rp_buf_puts(b, nd++ ? "; " : "Not drawn, nothing to draw: ");
		esc(b, c->title);
		rp_buf_puts(b, " (");
		esc(b, c->reason);
		rp_buf_puts(b, ")");
	}
	if (nd)
		rp_buf_puts(b, ".\n\n");
}

static void group_chart(const struct rp_report *r, struct rp_buf *b)
{
	for (size_t i = 0; i < r->charts->n; i++)
		if (!strcmp(r->charts->items[i].name, "fairness"))
			chart(&r->charts->items[i], b);
}

static void section(const struct rp_report *r, const struct rp_section *sec, struct rp_buf *b)
{
	md_open(sec, b);
	switch (sec->kind) {
	case RP_SEC_NEWS: case RP_SEC_COST: case RP_SEC_COMPARISON: case RP_SEC_RESULTS: break;
	case RP_SEC_GROUP: break; /* its chart after its tables, below */
	case RP_SEC_FINDINGS: findings(r, b); break;
	case RP_SEC_LATENCY: case RP_SEC_LOADLAT: case RP_SEC_PLACEMENT: break;
	case RP_SEC_AB: break;
	case RP_SEC_CHARTS: charts(r, b); break;
	case RP_SEC_HISTORY: break;
	case RP_SEC_SEARCH: break;
	case RP_SEC_ENVIRONMENT: break;
	case RP_SEC_METHOD: method(r, b); break;
	case RP_SEC_RUN: run_facts(sec, b); break;
	case RP_SEC_N: break;
	}
	md_tables(sec, b);
	if (sec->kind == RP_SEC_GROUP)
		group_chart(r, b);
	md_close(sec, b);
}

int rp_markdown_write(const struct rp_report *r, const struct rp_content *c, const char *path,
		      struct ns_err *err)
{
	struct rp_buf b;
	rp_buf_init(&b);
	rp_buf_puts(&b, "# ");
	esc(&b, r->title);
	rp_buf_puts(&b, "\n\n");
	esc(&b, c->headline);
	rp_buf_puts(&b, "\n\n");
	esc(&b, c->generated);
	rp_buf_puts(&b, "\n\n");
	for (size_t i = 0; i < c->n; i++)
		section(r, &c->secs[i], &b);
	if (b.oom) {
		rp_buf_free(&b);
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	}
	int rc = atomicfile_write(path, rp_buf_str(&b), b.len, 0644, 0, err);
	rp_buf_free(&b);
	return rc;
}
