/* lease: a runner's claim on a (case, repeat) in the database (table case_leases), so that two
 * runners continuing one run never measure the same case at the same time. A claim is taken in
 * one IMMEDIATE transaction with the check that no result is stored yet; it ends when the
 * result is stored, when it expires, or when its runner is gone from this host. */
#ifndef NS_LEASE_H
#define NS_LEASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"
#include "store.h"

#define LEASE_HOLDER_MAX 300

/* This runner's name in the table: "host pid". */
void lease_holder(char buf[LEASE_HOLDER_MAX]);

enum lease_outcome {
	LEASE_TAKEN,      /* ours now: measure it */
	LEASE_HELD,       /* another live runner is measuring it: *other names it */
	LEASE_STORED,     /* a result is stored already (an ok one, or any when !retry_failed) */
};

/* Claims (case_id, repeat) for holder for ttl_s seconds. Returns an outcome or -1. */
int lease_claim(struct store *s, int64_t case_id, uint32_t repeat, const char *holder,
		double ttl_s, bool retry_failed, char *other, size_t other_len, struct ns_err *err);
/* Gives back one claim (after its result is stored, or when it was not measured). */
int lease_release(struct store *s, int64_t case_id, uint32_t repeat, const char *holder,
		  struct ns_err *err);
/* Gives back every claim of holder (at the end of a run). */
int lease_release_all(struct store *s, const char *holder, struct ns_err *err);

/* How many (case, repeat)s of the run have a result: a runner that left cases to another
 * finishes the run only when all of them are in. */
int lease_run_results(struct store *s, int64_t run_id, size_t *n, struct ns_err *err);

#endif
