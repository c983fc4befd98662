/* store_prune: `netsweep db prune` — retention. The raw interval series of every finished
 * run but the newest N of its matrix (samples, group_samples, and the interval arrays of the
 * stored probe JSON) are dropped; everything the summaries are made of stays: runs, cases,
 * results, latency percentiles and histograms, searches, prices, hooks. So a pruned night's
 * report, its site page and every figure of `runs` and `export` stay as they were; only its
 * per-interval charts go. One IMMEDIATE transaction: all or nothing. */
#ifndef NS_STORE_PRUNE_H
#define NS_STORE_PRUNE_H

#include "lib/err.h"
#include "runner/store/store.h"

struct store_prune_stats {
	long long runs, kept;         /* finished runs pruned, and kept whole */
	long long samples, probe_json; /* rows dropped; probe JSONs stripped of their intervals */
};

/* Keeps the newest keep finished runs of each matrix (of matrix only, when not NULL) whole;
 * with dry_run counts what would go and changes nothing. Errors: NS_E_INPUT (the database,
 * busy), NS_E_NOMEM. */
int store_prune(struct store *s, long long keep, const char *matrix, int dry_run,
		struct store_prune_stats *st, struct ns_err *err);
/* VACUUM: gives the freed pages back to the file system. */
int store_vacuum(struct store *s, struct ns_err *err);

#endif
