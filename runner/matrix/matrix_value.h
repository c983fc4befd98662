/* matrix_value: the axes' names and defaults and the parser of one axis value into its
 * canonical text and number (matrix_axis_name/lookup/default and matrix_parse_value; matrix.h
 * includes this header for them), with the duration and boolean readers the matrix loader
 * shares. */
#ifndef NS_MATRIX_VALUE_H
#define NS_MATRIX_VALUE_H

#include <stdbool.h>

#include <libxml/tree.h>

#include "lib/err.h"
#include "matrix_types.h"

const char *matrix_axis_name(enum matrix_axis_id a);
int matrix_axis_lookup(const char *name); /* -1 when unknown */
const char *matrix_axis_default(enum matrix_axis_id a); /* "" for the pair axis */

/* Parses one value of an axis into its canonical form (used by the loader and by tests).
 * The matrix is needed to resolve pair names. */
int matrix_parse_value(const struct matrix *m, enum matrix_axis_id axis, const char *text,
		       struct matrix_value *out, struct ns_err *err);

/* A duration ("10", "2500ms", "1m"): never negative, above zero when positive is set. */
int mxval_parse_duration(const char *s, bool positive, double *d, struct ns_err *err);
/* 1/true/yes/on or 0/false/no/off; -1 for anything else. */
int mxval_parse_bool(const char *s, bool *b);
/* An element's attribute copied into dst: "" when absent, -1 when longer than cap - 1. */
int mxval_attr(xmlNodePtr n, const char *name, char *dst, size_t cap);

#endif
