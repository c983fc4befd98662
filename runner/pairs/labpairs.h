/* labpairs: `run --lab FILE` — a matrix written for real instances pointed at the agents of a
 * lab (`netsweep lab up` printed FILE). Each matrix pair takes the lab pair of its name, else
 * one of its instance type; its client becomes this host, its key the lab pair's psk_file,
 * and the lab pair's emulation JSON is kept for the store, so every result says it was
 * emulated and at what scale. */
#ifndef NS_LABPAIRS_H
#define NS_LABPAIRS_H

#include "lib/err.h"
#include "runner/matrix/matrix.h"

#define LABPAIRS_MAX_FILE (1024 * 1024)

/* Rewrites m's pairs' agents; *emulation gets one malloc'd JSON text per pair (free with
 * labpairs_free). Errors name FILE and the pair without a lab counterpart. */
int labpairs_apply(struct matrix *m, const char *path, char ***emulation, struct ns_err *err);
void labpairs_free(char **emulation, size_t n);

/* `run --provision lab`: every pair's setup and teardown become data/provision/lab.sh's (its
 * lab made by `netsweep lab up --hook` and removed by `lab down --hook`), its client this
 * host; the run's own hooks are dropped (they would provision real instances). Returns how
 * many run hooks were dropped. */
int labpairs_hooks(struct matrix *m, const char *datadir, struct ns_err *err);

#endif
