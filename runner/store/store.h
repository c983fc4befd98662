/* store: the SQLite results database (schemas/store.sql, compiled in) — the only interface
 * between the runner, which writes it here, and the report, which reads it. store_open applies
 * and migrates the schema by PRAGMA user_version; every write is a prepared statement; each
 * finished case goes in with its samples in one transaction, so a runner killed at any moment
 * leaves at most the case in flight missing. All calls are serialised by the store's mutex,
 * so runner threads may share one store. */
#ifndef NS_STORE_H
#define NS_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"
#include "lib/catalog/catalog.h"
#include "runner/proto/probe.h"

#include "lib/sql/store_version.h"

#define STORE_SCHEMA_VERSION NS_STORE_SCHEMA_VERSION

struct store;
struct store_group;

/* Reads user_version before anything else: a database from a newer netsweep is refused
 * (NS_E_INPUT) and left byte for byte as it was. Every statement, the switch to WAL included,
 * waits up to STORE_BUSY_MS for other writers. */
#define STORE_BUSY_MS 30000
struct store *store_open(const char *path, struct ns_err *err);
void store_close(struct store *s);
/* The user_version the database is at (after store_open: STORE_SCHEMA_VERSION). */
int store_schema_version(struct store *s);

/* ISO-8601 UTC with milliseconds, as every time in the database is written. */
void store_now(char buf[32]);

struct store_run {
	const char *matrix_name, *description, *matrix_path, *matrix_text, *matrix_hash;
	const char *label, *version, *runner_host;
	const char *order;                 /* as-written, interleaved, shuffled */
	bool has_seed;
	int64_t seed;
	uint32_t repeats;
	const char *rank_by;               /* NULL = best case per pair */
	const char *pricing;               /* "spot", "reserved:1yr"; NULL = on-demand */
};

int store_run_create(struct store *s, const struct store_run *r, int64_t *run_id,
		     struct ns_err *err);
/* The newest run with this matrix hash whose status is not 'done': returns 1 and fills
 * *run_id (and *seed, NULL-able, from the runs row), 0 when there is none, -1 on error. */
int store_run_find_unfinished(struct store *s, const char *hash, int64_t *run_id, int64_t *seed,
			      struct ns_err *err);
/* The newest run with this matrix hash whatever its status (--retry-failed): as above. */
int store_run_find_latest(struct store *s, const char *hash, int64_t *run_id, int64_t *seed,
			  struct ns_err *err);
/* The run's command-line overrides (a JSON array of strings, run --set/--only). */
int store_run_set_overrides(struct store *s, int64_t run_id, const char *json,
			    struct ns_err *err);
/* Sets status (running, done, failed, interrupted), finished_at (NULL for 'running') and,
 * when warnings_json is not NULL, the warnings array. */
int store_run_set_status(struct store *s, int64_t run_id, const char *status,
			 const char *warnings_json, struct ns_err *err);

struct store_endpoint {
	const char *name, *instance_type, *region, *client_host, *agent_addr, *expected_driver;
	const char *price_basis;
	uint64_t link_bps;                 /* 0 = NULL */
	const char *client_info, *agent_info; /* hostinfo JSON or NULL */
	const char *emulation;             /* a lab pair's emulation JSON; NULL = real instances */
	const char *zone;                  /* "same", "cross" or NULL (not known) */
	/* each end's placement (NULL = not known) and the pair's relation: same-zone,
	 * cross-zone, cross-region, internet, unknown (NULL = unknown) */
	const char *client_zone, *client_region, *agent_zone, *agent_region, *relation;
	const struct store_ends *ends;     /* a mesh pair's two hosts; NULL = none */
};

/* A pair's two ends by name and zone (a <mesh>'s pairs): table endpoint_ends. NULL strings
 * are stored as NULL. */
struct store_ends {
	const char *mesh, *client_name, *agent_name, *client_zone, *agent_zone;
};

/* Inserts the endpoint, or on a resumed run refreshes its host information. */
int store_endpoint_put(struct store *s, int64_t run_id, const struct store_endpoint *e,
		       int64_t *endpoint_id, struct ns_err *err);

struct store_case {
	int64_t endpoint_id;
	const char *case_key;
	int64_t ordinal;
	const struct probe_params *p;      /* protocol .. gso columns */
	const char *affinity;              /* the policy or CPU list as the matrix says */
	const char *params_json;
};

/* Explicit transactions, for batches (a run's cases). */
int store_begin(struct store *s, struct ns_err *err);
int store_commit(struct store *s, struct ns_err *err);
void store_rollback(struct store *s);

/* Inserts a case, or finds it when the run already has that key (resume). */
int store_case_put(struct store *s, int64_t run_id, const struct store_case *c, int64_t *case_id,
		   struct ns_err *err);

/* Calls fn for every (case_key, repeat) of the run that has a result (ok_only: an ok one). */
int store_results_done(struct store *s, int64_t run_id, bool ok_only,
		       void (*fn)(const char *case_key, int repeat, void *ctx), void *ctx,
		       struct ns_err *err);

struct store_result {
	int64_t case_id;
	uint32_t repeat;
	const char *started_at, *finished_at;
	const struct probe_result *res;    /* NULL when the case never reached the probe */
	bool ok;
	const char *error, *warnings;      /* NULL = none */
	const char *probe_json;            /* NULL = none */
	const char *search_json;           /* a rate search (schemas/search-result.md); NULL = none */
	bool replace_failed;               /* a failed result of that (case, repeat) gives way */
	const struct store_group *group;   /* a group case's tests (store_group.h); NULL = none */
};

/* The result row and its samples, in one transaction. Returns 0, or 1 when that (case,
 * repeat) is already stored (the database is left as it was), or -1 on error. */
int store_put_result(struct store *s, const struct store_result *r, int64_t *result_id,
		     struct ns_err *err);

#endif
