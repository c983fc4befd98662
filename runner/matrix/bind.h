/* bind: the matrix axes of issue 17 that need more than a number — bind (a per-pair source
 * and agent address, declared as <bind> in a pair), dscp (names or values), family and amount
 * — read into canonical values, and a case's bind turned into probe parameters. */
#ifndef NS_MXBIND_H
#define NS_MXBIND_H

#include <libxml/tree.h>

#include "lib/err.h"
#include "matrix_types.h"
#include "runner/proto/probe.h"

/* The <bind> children of a <pair> element into p->binds; errors name path:line. */
int mxbind_load(const char *path, xmlNodePtr pair, struct matrix_pair *p, struct ns_err *err);
/* One value of MX_BIND ("none" -> 0, a bind some pair declares -> 1), MX_DSCP (-> TOS byte),
 * MX_FAMILY ("any", "4", "6" -> 0, 4, 6) or MX_AMOUNT (bytes, 0 = by time). */
int mxbind_parse_value(const struct matrix *m, enum matrix_axis_id axis, const char *text,
		       uint64_t *u, struct ns_err *err);
/* The bind of that name in a pair, NULL if it has none. */
const struct matrix_bind *mxbind_find(const struct matrix_pair *p, const char *name);
/* A case's bind value applied to p: -B and the agent address of the pair's bind. Returns -1
 * (err naming the pair and the bind) when the case's pair does not declare it. */
int mxbind_apply(const struct matrix *m, uint64_t pair, const char *bind, struct probe_params *p,
		 struct ns_err *err);

#endif
