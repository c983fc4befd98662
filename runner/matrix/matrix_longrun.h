/* matrix_longrun: the long-run axes of a matrix (issue 11) — until (none | sustained: end once
 * the receive rate stepped down and held steady) and steady (how long it must hold; default
 * STEADY_DEFAULT_S) — read into canonical values, applied to a case's probe parameters, and
 * checked per case naming the line at fault. With until sustained, duration is the bound. */
#ifndef NS_MATRIX_LONGRUN_H
#define NS_MATRIX_LONGRUN_H

#include "lib/err.h"
#include "matrix_types.h"
#include "runner/proto/probe.h"

/* One value of MX_UNTIL ("none" -> 0, "sustained" -> 1) or MX_STEADY (a duration above zero,
 * into out->d); out->text gets the canonical text. */
int mxlong_parse_value(enum matrix_axis_id axis, const char *text, struct matrix_value *out,
		       struct ns_err *err);
/* Sets p's until or steady_s from the case's value (steady only under until sustained). */
void mxlong_apply(struct probe_params *p, enum matrix_axis_id axis, const struct matrix_value *v);
/* A steady axis needs an until axis with sustained; every sustained case needs the matrix's
 * interval, a steady time of at least STEADY_MIN_INTERVALS intervals and below its duration,
 * no amount, and not to be a rate search. Errors are "FILE:LINE: axis 'steady' ...". */
int mxlong_check(const struct matrix *m, const struct sweep_cases *cs, struct ns_err *err);
/* How many of the cases are long-run (their duration is a bound, not their length). */
size_t mxlong_count(const struct matrix *m, const struct sweep_cases *cs);

#endif
