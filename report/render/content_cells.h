/* content_cells: how the content model's tables (content.h) are built, cell by cell — for
 * report/render/ only: content_tables.c builds every table but the ranking and the group's,
 * content_cost.c the ranking, content_group.c a run of group cases' clients and fairness. A builder appends a table to its section, rows to the table and cells to the
 * row; running out of memory sets oom and later calls do nothing. */
#ifndef RP_CONTENT_CELLS_H
#define RP_CONTENT_CELLS_H

#include "report/render/content.h"

struct tb {
	struct rp_section *s;
	struct rp_table *t;     /* the table being written */
	struct rp_row *row;     /* its row being written */
	int oom;
};

/* s, or "–" for NULL, duplicated. */
char *tb_dup(struct tb *b, const char *s);
void tb_table(struct tb *b, const char *id, const char *heading, const char *note,
	      const char *const *cols, size_t n_cols);
/* A row of the current table; attr ("data-case-key") names a value machines read it by, attr2
 * a second one (NULL: none). */
void tb_row2(struct tb *b, const char *cls, const char *attr, const char *attr_value,
	     const char *attr2, const char *attr2_value);
void tb_row(struct tb *b, const char *cls, const char *attr, const char *attr_value);
struct rp_cell *tb_cell_v(struct tb *b, const char *text, unsigned flags, double v);
struct rp_cell *tb_cell(struct tb *b, const char *text);
/* A number shown as fmt has it; "–" when v is NAN; a negative that rounds to zero without
 * its sign ("-0.0 %" is "+0.0 %", or "0.0"). */
void tb_cell_fmt(struct tb *b, const char *fmt, double v);
void tb_cell_bps(struct tb *b, double v, struct rp_unit u);
void tb_cell_range(struct tb *b, double lo, double hi, struct rp_unit u);
void tb_cell_int(struct tb *b, int v);
/* A line said under a cell's text (index.html: a note below it; report.md: after " — "). */
void tb_cell_note(struct tb *b, struct rp_cell *c, const char *cls, const char *text);

/* The per-dollar ranking's tables (content_cost.c): one per currency. */
void rp_content_cost(struct tb *b, const struct rp_report *r, struct rp_buf *lab);

#endif
