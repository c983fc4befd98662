/* matrix_override: a campaign bent from the command line without editing its matrix —
 * `run --set NAME=VALUE[,VALUE...]` replaces an axis's values or a run attribute (repeats,
 * cooldown, case-timeout, interval, order, seed, agent-wait), `run --only AXIS=VALUE[,...]`
 * keeps the cases with one of those values (pair=NAME for one pair; instance-type=T the pairs
 * whose type answers to T, its exact name or its family: lib/names/itype.h). The overrides are part
 * of the run's identity (its resume key) and stored with it (runs.overrides). Also the
 * dry run's checks of what a matrix still holds from its example: documentation addresses. */
#ifndef NS_MATRIX_OVERRIDE_H
#define NS_MATRIX_OVERRIDE_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/err.h"
#include "expand.h"
#include "matrix.h"

#define MXO_MAX 32 /* --set and --only options each, at most */

struct mxo_list {
	const char *set[MXO_MAX];
	size_t n_set;
	const char *only[MXO_MAX];
	size_t n_only;
	/* --only instance-type=T: whether a pair's type answers to T (the catalog knows the
	 * families: catalog_type_matches); NULL = by exact name only */
	bool (*type_matches)(const void *ctx, const char *type, const char *want);
	const void *type_ctx;
};

/* Adds one --set (is_set) or --only argument; -1 with err past MXO_MAX. */
int mxo_add(struct mxo_list *l, int is_set, const char *arg, struct ns_err *err);

/* Before expansion: every --set into m. An unknown name says the nearest known one. The
 * resume key (m->hash) then covers the overrides too, so --resume finds the run made with
 * the same ones. */
int mxo_apply_sets(struct matrix *m, const struct mxo_list *l, struct ns_err *err);

/* After expansion: keeps the cases every --only matches (AND over options, OR over the
 * values of one; the cases left out count as excluded). Nothing left is an error naming the
 * values the cases have. */
int mxo_filter(const struct matrix *m, struct sweep_cases *cs, const struct mxo_list *l,
	       struct ns_err *err);

/* The overrides as a JSON array of strings ("set repeats=1", "only pair=a"); "[]" without
 * any. malloc'd, NULL = no memory. */
char *mxo_json(const struct mxo_list *l);

/* For each pair without a setup hook (a hook names the agents it brings up) whose agent or
 * client is a documentation address (RFC 5737 192.0.2.0/24,
 * 198.51.100.0/24, 203.0.113.0/24; RFC 3849 2001:db8::/32) or an example domain (RFC 2606),
 * warn(ctx, message). Returns how many. */
size_t mxo_doc_addresses(const struct matrix *m, void (*warn)(void *ctx, const char *msg),
			 void *ctx);

#endif
