/* store_hooks: the store's hooks table (schemas/store.sql) — one row per provisioning hook
 * run (runner/sweep/hooks.h), written when the command starts (status running) and again
 * when it ends, so that a runner killed at any moment leaves a record of what it had
 * provisioned, which --resume reads back to tear down. */
#ifndef NS_STORE_HOOKS_H
#define NS_STORE_HOOKS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"
#include "store.h"

/* The attempt the run's hooks are at now (1 + the highest stored) and the run's uuid. */
int store_hook_attempt(struct store *s, int64_t run_id, int *attempt, char *uuid,
		       size_t uuid_len, struct ns_err *err);

/* One hook run: pair "" is the run's own hook; kind "setup" or "teardown". */
struct store_hook_key {
	int64_t run_id;
	const char *pair, *kind;
	int attempt;
};

/* The row of a hook that starts now (status running); an earlier row of that key gives way. */
int store_hook_started(struct store *s, const struct store_hook_key *k, const char *command,
		       struct ns_err *err);

struct store_hook_end {
	const char *status;                /* ok, failed, timeout */
	int exit_code;                     /* < 0: NULL (a signal, or it could not start) */
	const char *error;                 /* NULL = none */
	const char *out, *errout;          /* what it printed */
	const char *output;                /* a setup's JSON object, or NULL */
};
int store_hook_finished(struct store *s, const struct store_hook_key *k,
			const struct store_hook_end *e, struct ns_err *err);

/* A setup of an earlier attempt whose teardown never finished. */
struct store_hook_left {
	char *pair;                        /* "" for the run's own */
	int attempt;
	char *output;                      /* the setup's JSON object, or NULL */
};
/* The setups of attempts before `attempt` left without a finished teardown, pairs first,
 * by attempt. *v is malloc'd (free with store_hook_left_free), *n its length. */
int store_hook_leftovers(struct store *s, int64_t run_id, int attempt,
			 struct store_hook_left **v, size_t *n, struct ns_err *err);
void store_hook_left_free(struct store_hook_left *v, size_t n);

#endif
