/* matrix_value: the axes' names and defaults and the parser of one axis value into its
 * canonical text and number (matrix_axis_name/lookup/default and matrix_parse_value, declared
 * in matrix.h), with the duration and boolean readers the matrix loader shares. */
#ifndef NS_MATRIX_VALUE_H
#define NS_MATRIX_VALUE_H

#include <stdbool.h>

#include "lib/err.h"
#include "matrix.h"

/* A duration ("10", "2500ms", "1m"): never negative, above zero when positive is set. */
int mxval_parse_duration(const char *s, bool positive, double *d, struct ns_err *err);
/* 1/true/yes/on or 0/false/no/off; -1 for anything else. */
int mxval_parse_bool(const char *s, bool *b);

#endif
