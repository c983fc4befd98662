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

/* Runs one command with /bin/sh -c in a process group of its own, with the environment envp,
 * stdin from /dev/null, stdout and stderr captured (up to HOOK_OUTPUT_MAX each) and a time
 * limit, after which the group gets SIGTERM and, 5 s later, SIGKILL. */
#define HOOK_OUTPUT_MAX (256 * 1024)
enum hook_status { HOOK_OK, HOOK_FAILED, HOOK_TIMEOUT };
struct hook_exec {
	enum hook_status status;
	int exit_code;                     /* -1: ended by a signal or could not start */
	char *out, *errout;                /* NUL-terminated, never NULL after hook_run */
	char error[256];                   /* "" when ok */
};
void hook_run(const char *command, char *const envp[], double timeout_s, struct hook_exec *x);
/* The same for a program and its arguments, no shell (argv[0] without '/' looked up in
 * PATH), its stdout kept up to max_out bytes (a cut one: status HOOK_OK with error set). */
void hook_run_argv(char *const argv[], char *const envp[], double timeout_s, size_t max_out,
		   struct hook_exec *x);
void hook_exec_free(struct hook_exec *x);

#endif
