/* store_merge: several runners' databases (regions, teams) in one, so that one report covers
 * them all (`netsweep db merge`, runner/store/admin/cmd_db.c). A run keeps its identity by
 * runs.uuid: a run OUT already holds is left as it is, so merging the same input again adds
 * nothing. Inputs at an older schema version are migrated on a private copy (never in
 * place); a newer one is refused. The inputs go into a staging database beside OUT first,
 * and OUT changes once, when all went in (a new OUT is the staging file renamed; an existing
 * one takes it in one transaction): a failure leaves OUT as it was, or absent. */
#ifndef NS_STORE_MERGE_H
#define NS_STORE_MERGE_H

#include "lib/err.h"

struct store_merge;

/* A merge into out (an existing out is migrated in place first, as `run` does). */
int store_merge_begin(struct store_merge **mg, const char *out, struct ns_err *err);
/* The runs of the database in that OUT lacks into the stage; *added counts them. An input
 * that is no netsweep database, unreadable or of a newer schema: NS_E_USAGE. */
int store_merge_add(struct store_merge *mg, const char *in, long long *added,
		    struct ns_err *err);
/* OUT takes what the stage holds. */
int store_merge_commit(struct store_merge *mg, struct ns_err *err);
/* Removes the stage and the copies; NULL-safe. OUT is untouched unless committed. */
void store_merge_end(struct store_merge *mg);

#endif
