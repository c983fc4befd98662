/* run: executes a matrix's cases — endpoints and their host information first, then every
 * (case, repeat) still missing from the run through probe_run(), each result stored as it
 * finishes. Owns the loopback agent it forks when the matrix names no pairs and the --jobs
 * workers (never two cases on one pair at a time); the caller owns the process (its signals)
 * and hands in the stop flag its handler sets. */
#ifndef NS_RUN_H
#define NS_RUN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"
#include "runner/matrix/expand.h"
#include "runner/matrix/matrix.h"
#include "progress.h"
#include "runner/store/store.h"

#define RUN_MAX_CATALOGS 16
/* The most (case, repeat)s one run may schedule: refused before any row is written. A run
 * of this size at the shortest case (1 s) already lasts 12 days. */
#define RUN_MAX_RUNS 1000000

struct agent;

struct run_opts {
	const char *label;
	bool resume;
	unsigned jobs;                     /* pairs served at once, >= 1 */
	const char *catalogs[RUN_MAX_CATALOGS]; /* --catalog files over the default one */
	size_t n_catalogs;
	double agent_wait_s;               /* < 0: the matrix's agent-wait */
	bool retry_failed;                 /* with resume: failed results are run again */
	enum progress_mode progress;
	char *const *emulation;            /* --lab: per pair its emulation JSON; NULL = real */
	FILE *out;                         /* progress and notes */
	const char *overrides;             /* --set/--only as a JSON array (runs.overrides); NULL = [] */
	const atomic_int *stop;            /* set (a signal): no new case starts, the run ends
	                                      interrupted; NULL = never */
	void (*loopback_child)(struct agent *a); /* in the forked loopback agent, before it
	                                      serves: what ends it (SIGTERM); NULL = the default */
};

struct run_summary {
	int64_t run_id;
	bool resumed;
	size_t total;                      /* (case, repeat)s of the matrix */
	size_t skipped;                    /* already in the database (resume, or another runner) */
	size_t ok, failed;
	size_t down_failed;                /* failed without running: their pair was down */
	char down_pairs[512];              /* "name (host:port)" of each pair found down */
	size_t leased_elsewhere;           /* left to another runner measuring them now */
	bool interrupted;
};

/* Runs what is missing; returns 0 when the run went through (failed cases included:
 * see summary), -1 when it could not go on (database, agent start), err saying why. */
int run_execute(const struct matrix *m, const struct sweep_cases *cases, struct store *st,
		const struct run_opts *o, struct run_summary *sum, struct ns_err *err);

/* Refuses a schedule of more than RUN_MAX_RUNS (case, repeat)s, err naming the figures. */
int run_check_size(const struct matrix *m, const struct sweep_cases *cases, struct ns_err *err);

/* Expected seconds of the whole run with this many jobs (cases, repeats, cool-downs and a
 * per-case allowance for setup). */
double run_estimate(const struct matrix *m, const struct sweep_cases *cases, unsigned jobs);

/* The matrix's canonical parameters of a case as a JSON object (cases.params). */
char *run_case_json(const struct matrix *m, const struct sweep_case *c);

#endif
