/* group_case: a matrix's group case as the sweep runner runs it — its tests from the matrix
 * (runner/matrix/matrix_group.h) run together (runner/group/group.h), their total as the
 * case's result and each test with the group's fairness for the store (runner/store/store_group.h). */
#ifndef NS_GROUP_CASE_H
#define NS_GROUP_CASE_H

#include "lib/err.h"
#include "runner/matrix/matrix.h"
#include "runner/proto/probe.h"
#include "runner/store/store_group.h"

struct group_case;

/* pp: the case's parameters as the runner made them for the pair (its agent, key, affinity).
 * Fills total (the case's result; on failure what the completed tests measured) and *out,
 * whose group rows go with the result (group_case_rows) and which group_case_free frees
 * (after the result is stored). Returns 0 when every test succeeded, else -1 with err. */
int group_case_run(const struct matrix *m, const struct sweep_case *c,
		   const struct probe_params *pp, struct probe_result *total,
		   struct group_case **out, struct ns_err *err);
const struct store_group *group_case_rows(const struct group_case *g);
void group_case_free(struct group_case *g);

#endif
