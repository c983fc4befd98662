/* matrix: a sweep described in XML — endpoint pairs, parameter axes, exclude/include rules and
 * run settings — read with libxml2, validated against schemas/matrix.xsd (compiled in), then
 * checked beyond the schema. Every value keeps the line it came from, so any later error can
 * still name file:line. The matrix owns all its strings; expand.h turns it into cases. */
#ifndef NS_MATRIX_H
#define NS_MATRIX_H

#include <stddef.h>

#include "lib/err.h"
#include "matrix_types.h"
#include "matrix_value.h"

/* Reads, validates and checks a matrix file. On failure err holds one line,
 * "FILE:LINE: what is wrong" (or "FILE: ..." when there is no line), and m is left empty.
 * A matrix with <kubernetes> pairs loads only its settings and m->kube (m->kube.pending):
 * its pairs are found by the runner and handed to matrix_load_found. */
int matrix_load(struct matrix *m, const char *path, struct ns_err *err);
/* The same from text already in memory (path only names it in errors). */
int matrix_load_mem(struct matrix *m, const char *path, const char *text, size_t len,
		    struct ns_err *err);
/* A matrix whose <kubernetes> pairs were pending (m->kube.pending, after matrix_load) loaded
 * again from its own text with them in that element's place, then checked whole; m is
 * replaced (and left empty on failure). No pairs found is an error naming the selector. */
int matrix_load_found(struct matrix *m, const struct matrix_pair *found, size_t n_found,
		      struct ns_err *err);
void matrix_free(struct matrix *m);

#endif
