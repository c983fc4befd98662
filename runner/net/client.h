/* client: probe_run with a live view. `netsweep probe` prints each interval as it ends;
 * probe_run (probe.h) is this without a callback. */
#ifndef NS_CLIENT_H
#define NS_CLIENT_H

#include "probe.h"

/* Called on the probe's thread for every interval sum (stream -1) of this end as it is
 * recorded; the other end's figures (UDP loss at the receiver, for instance) come only with
 * the final result. */
typedef void (*client_interval_fn)(const struct probe_interval *sum, enum ns_dir dir, void *arg);

int client_run(const struct probe_params *p, struct probe_result *res, client_interval_fn fn,
	       void *arg, struct ns_err *err);

#endif
