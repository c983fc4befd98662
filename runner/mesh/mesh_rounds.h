/* mesh_rounds: the order a matrix's <mesh> pairs run in — rounds of a round-robin tournament
 * (the circle method: n hosts in n - 1 rounds, n even; n rounds with one host resting, n odd),
 * each round pairing its hosts off two by two, both directions of a host pair (A->B, then
 * B->A) in the round. No host is in two pairs of a round, so a round's tests can all run at
 * once (up to --jobs); the runner starts a round once the one before has finished, and never
 * runs two tests that share a host (mesh_shares_host). Meshes follow each other; a pair of no
 * mesh has no round. Pure: no I/O. */
#ifndef NS_MESH_ROUNDS_H
#define NS_MESH_ROUNDS_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/err.h"
#include "runner/matrix/matrix_types.h"

/* round[i] for each of m's pairs: its round from 0, or -1 for a pair of no mesh. Returns the
 * number of rounds (0 when the matrix has no mesh), -1 on error (out of memory). */
int mesh_rounds(const struct matrix *m, int *round, struct ns_err *err);

/* Shuffled runs: the rounds renumbered in the order their first slots come in the schedule
 * (first[r]: round r's first schedule position, SIZE_MAX when it has none), so that the
 * seed orders the rounds too and no host pair is always the night's first. round[i] of each
 * of m's pairs is rewritten; -1 when out of memory (round unchanged). */
int mesh_rounds_reorder(const struct matrix *m, int *round, int n_rounds, const size_t *first);

/* Seconds the mesh pairs take in their rounds, one after the other: in each round, its host
 * pairs (A->B and B->A one after the other) up to jobs at once, never less than the longest.
 * per_pair: each pair's seconds; round from mesh_rounds. */
double mesh_estimate(const struct matrix *m, const int *round, int n_rounds,
		     const double *per_pair, unsigned jobs);

/* Whether two pairs have a host in common (a client or an agent at the same address). */
bool mesh_shares_host(const struct matrix_pair *a, const struct matrix_pair *b);

#endif
