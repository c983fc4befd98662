/* expand: a matrix's cases — the Cartesian product of its axes, minus the exclude rules, plus
 * the include rules — each with a stable key (hex of a digest of its canonical parameter string,
 * so the same case has the same key in every run), and the order the repeats run in. */
#ifndef NS_EXPAND_H
#define NS_EXPAND_H

#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"
#include "runner/proto/probe.h"
#include "matrix.h"
#include "matrix_types.h"

int expand_matrix(const struct matrix *m, struct sweep_cases *out, struct ns_err *err);
void expand_free(struct sweep_cases *c);

/* Runs probe_params_check over every case (a host stands in for the agent). When a case is
 * refused, a value that is wrong even on the defaults is named with its line; otherwise the
 * values conflict and the case is named, at its include's line or the first axis's. Separate
 * from expand_matrix because it costs more than the expansion itself. */
int expand_check(const struct matrix *m, const struct sweep_cases *c, struct ns_err *err);

/* The text the key is derived from: "pair=NAME;protocol=tcp;direction=forward;streams=1;...".
 * Returns the length (as snprintf). */
int expand_canonical(const struct matrix *m, const struct sweep_case *c, char *buf, size_t len);

/* A short description for people: the pair, the axes the matrix writes and values only an
 * include names, as "name=value" words. Returns the length (as snprintf). */
int expand_describe(const struct matrix *m, const struct sweep_case *c, char *buf, size_t len);

/* Probe parameters of a case (probe_params_init defaults, then the case's values). The host,
 * port and the CPU list of the "irq" and "spread" affinity policies are the runner's to fill. */
void expand_params(const struct matrix *m, const struct sweep_case *c, struct probe_params *p);

/* Seconds a case is expected to take: omit + duration. */
double expand_case_seconds(const struct matrix *m, const struct sweep_case *c);

/* The run order of every (case, repeat): as written (each case's repeats together),
 * interleaved (every case once, then again) or shuffled with seed (Fisher-Yates over a
 * splitmix64 stream, so a recorded seed replays the same order). *slots is malloc'd. */
int expand_schedule(const struct matrix *m, size_t n_cases, uint64_t seed,
		    struct sweep_slot **slots, size_t *n, struct ns_err *err);

#endif
