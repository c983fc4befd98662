/* content_tb: the table builder of the content model (content.h) — a table of a section, its
 * rows and their cells, text or figures — for content_tables.c and content_cost.c, below both.
 * Out of memory sets b->oom; every call after that does nothing harmful. */
#ifndef RP_CONTENT_TB_H
#define RP_CONTENT_TB_H

#include <stddef.h>

#include "report/model/fmt.h"
#include "report/render/content.h"

struct tb {
	struct rp_section *s;
	struct rp_table *t;     /* the table being written */
	struct rp_row *row;     /* its row being written */
	int oom;
};

char *tb_dup(struct tb *b, const char *s);
/* A table of b's section, its columns named; the current one from here on. */
void tb_table(struct tb *b, const char *id, const char *heading, const char *note,
	      const char *const *cols, size_t n_cols);
/* A row of the current table; attr ("data-case-key") names a value machines read it by, attr2
 * a second one (NULL: none). */
void tb_row2(struct tb *b, const char *cls, const char *attr, const char *attr_value,
	     const char *attr2, const char *attr2_value);
void tb_row(struct tb *b, const char *cls, const char *attr, const char *attr_value);
/* The next cell of the current row: text ("–" for NULL), flags, a number's value (NAN: none). */
struct rp_cell *tb_cell_v(struct tb *b, const char *text, unsigned flags, double v);
struct rp_cell *tb_cell(struct tb *b, const char *text);
/* A number shown as fmt has it; "–" when v is NAN. */
void tb_cell_fmt(struct tb *b, const char *fmt, double v);
void tb_cell_bps(struct tb *b, double v, struct rp_unit u);
void tb_cell_range(struct tb *b, double lo, double hi, struct rp_unit u);
void tb_cell_int(struct tb *b, int v);

#endif
