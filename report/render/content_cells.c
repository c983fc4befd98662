/* content_cells: see content_cells.h. */
#include "report/render/content_cells.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *tb_dup(struct tb *b, const char *s)
{
	char *d = strdup(s ? s : "–");
	if (!d)
		b->oom = 1;
	return d;
}

void tb_table(struct tb *b, const char *id, const char *heading, const char *note,
	      const char *const *cols, size_t n_cols)
{
	struct rp_section *s = b->s;
	struct rp_table *nt = realloc(s->tables, (s->n_tables + 1) * sizeof(*nt));
	char **c = calloc(n_cols, sizeof(*c));
	if (!nt || !c) {
		if (nt)
			s->tables = nt;
		free(c);
		b->oom = 1;
		b->t = NULL;
		return;
	}
	s->tables = nt;
	b->t = &nt[s->n_tables++];
	*b->t = (struct rp_table){.id = id, .heading = heading, .note = note, .cols = c,
				  .n_cols = n_cols};
	for (size_t k = 0; k < n_cols; k++)
		c[k] = tb_dup(b, cols[k]);
}

/* A row of the current table; attr ("data-case-key") names a value machines read it by, attr2
 * a second one (NULL: none). */
void tb_row2(struct tb *b, const char *cls, const char *attr, const char *attr_value,
		 const char *attr2, const char *attr2_value)
{
	struct rp_table *t = b->t;
	b->row = NULL;
	if (!t)
		return;
	struct rp_row *nr = realloc(t->rows, (t->n_rows + 1) * sizeof(*nr));
	struct rp_cell *cells = calloc(t->n_cols, sizeof(*cells));
	if (!nr || !cells) {
		if (nr)
			t->rows = nr;
		free(cells);
		b->oom = 1;
		return;
	}
	t->rows = nr;
	b->row = &nr[t->n_rows++];
	*b->row = (struct rp_row){.cells = cells, .cls = cls, .attr = {attr, attr2}};
	if (attr)
		b->row->attr_value[0] = tb_dup(b, attr_value ? attr_value : "");
	if (attr2)
		b->row->attr_value[1] = tb_dup(b, attr2_value ? attr2_value : "");
}

void tb_row(struct tb *b, const char *cls, const char *attr, const char *attr_value)
{
	tb_row2(b, cls, attr, attr_value, NULL, NULL);
}

/* The next cell of the current row: text ("–" for NULL), flags, a number's value (NAN: none). */
struct rp_cell *tb_cell_v(struct tb *b, const char *text, unsigned flags, double v)
{
	struct rp_row *r = b->row;
	if (!r || r->n_cells == b->t->n_cols)
		return NULL;
	struct rp_cell *c = &r->cells[r->n_cells++];
	*c = (struct rp_cell){.text = tb_dup(b, text), .flags = flags, .value = v};
	return c;
}

struct rp_cell *tb_cell(struct tb *b, const char *text)
{
	return tb_cell_v(b, text, 0, NAN);
}

/* A number shown as fmt has it; "–" when v is NAN. */
void tb_cell_fmt(struct tb *b, const char *fmt, double v)
{
	char t[64];
	snprintf(t, sizeof(t), fmt, v);
	/* a negative that rounds to zero loses its sign: "-0.0 %" is "+0.0 %", or "0.0" */
	size_t z = 1 + strspn(t + 1, "0.");
	if (t[0] == '-' && z > 1 && !isdigit((unsigned char)t[z])) {
		if (strchr(fmt, '+'))
			t[0] = '+';
		else
			memmove(t, t + 1, strlen(t));
	}
	tb_cell_v(b, isnan(v) ? "–" : t, RP_CELL_NUM, v);
}

void tb_cell_bps(struct tb *b, double v, struct rp_unit u)
{
	char t[32];
	rp_fmt_in(t, sizeof(t), v, u);
	tb_cell_v(b, isnan(v) ? "–" : t, RP_CELL_NUM, v);
}

void tb_cell_range(struct tb *b, double lo, double hi, struct rp_unit u)
{
	char t[80];
	rp_fmt_range(t, sizeof(t), lo, hi, u);
	tb_cell_v(b, t, RP_CELL_NUM, NAN);
}

void tb_cell_int(struct tb *b, int v)
{
	char t[24];
	snprintf(t, sizeof(t), "%d", v);
	tb_cell_v(b, t, RP_CELL_NUM, NAN);
}

/* A line said under a cell's text (index.html: a note below it; report.md: after " — "). */
void tb_cell_note(struct tb *b, struct rp_cell *c, const char *cls, const char *text)
{
	for (size_t k = 0; c && k < RP_CELL_NOTES; k++)
		if (!c->note[k]) {
			c->note[k] = tb_dup(b, text);
			c->note_cls[k] = cls;
			return;
		}
}

