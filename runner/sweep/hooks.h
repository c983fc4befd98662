/* hooks: a run's provisioning hooks (matrix <setup>/<teardown>, schemas/matrix.xsd) — runs the
 * run's setup, then the pairs' setups in parallel (up to --jobs), reads the agent addresses
 * they print, waits until those agents answer, and later runs every teardown owed, also
 * after a failure or a stop; on --resume first the teardowns a killed run missed. Every hook
 * run is a row of the store's hooks table (command, times, exit code, output). Owns the
 * matrix copy whose pairs carry the provisioned addresses. */
#ifndef NS_HOOKS_H
#define NS_HOOKS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"
#include "lib/sys/proc.h"
#include "runner/matrix/matrix.h"
#include "progress.h"
#include "runner/store/store.h"

struct hooks;

struct hooks_opts {
	struct store *st;
	int64_t run_id;
	unsigned jobs;                     /* setups and teardowns at once, >= 1 */
	struct progress *prog;             /* notes while setting up */
	const atomic_int *stop;            /* set: no more setups start (teardowns still run) */
};

/* True when the matrix has any hook. */
bool hooks_any(const struct matrix *m);

/* Tears down what earlier attempts of the run left (resume), then sets up. Returns 0 with *h
 * (NULL when the matrix has no hooks; failed setups are not errors: hooks_pair_failure says
 * which pairs cannot run), or -1 when the store fails. */
int hooks_setup(const struct matrix *m, const struct hooks_opts *o, struct hooks **h,
		struct ns_err *err);
/* The matrix as the setups left it (each pair's agent and client from its setup); m itself
 * when h is NULL. */
const struct matrix *hooks_matrix(const struct hooks *h, const struct matrix *m);
/* What pair i's setup printed (JSON), or NULL. */
const char *hooks_setup_output(const struct hooks *h, size_t i);
/* Why pair i's cases cannot run (its setup or the run's failed), or NULL. */
const char *hooks_pair_failure(const struct hooks *h, size_t i);
/* Runs every teardown owed (pairs in parallel, then the run's), noting on prog, and frees
 * *h; NULL-safe. Returns the number of teardowns that failed. */
int hooks_teardown(struct hooks **h, struct progress *prog);

#endif
