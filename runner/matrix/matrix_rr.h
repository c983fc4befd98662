/* matrix_rr: the request/response axes of a matrix (issue 24) — rr (none | tcp | udp | crr:
 * TCP_RR, UDP_RR or TCP_CRR), request and response (bytes, 0 = the protocol's least) and rr-rate
 * (transactions/s over all streams, 0 = back to back), and a throughput case's latency probe:
 * latency-probe (none | tcp | udp), latency-rate (0 = the default) and latency-size (bytes) —
 * read into canonical values and applied to a case's probe parameters. rr sets the case's
 * protocol. */
#ifndef NS_MATRIX_RR_H
#define NS_MATRIX_RR_H

#include "lib/err.h"
#include "matrix_types.h"
#include "runner/proto/probe.h"

int mxrr_parse_value(enum matrix_axis_id axis, const char *text, struct matrix_value *out,
		     struct ns_err *err);
void mxrr_apply(struct probe_params *p, enum matrix_axis_id axis, const struct matrix_value *v);
/* request, response or rr-rate axes need an rr axis, latency-rate and latency-size a
 * latency-probe axis (the line of the first at fault). */
int mxrr_check(const struct matrix *m, struct ns_err *err);

#endif
