/* run_int: the runner's state shared by run.c (scheduling, executing, storing) and
 * run_pairs.c (what a run learns and records about its pairs before the first case). For
 * runner/sweep/run*.c only. */
#ifndef NS_RUN_INT_H
#define NS_RUN_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/jsonw.h"
#include "runner/store/lease.h"
#include "run.h"

/* What the runner learns about a pair at run start. */
struct pair_rt {
	char host[256];
	uint16_t port;
	char addr[300];
	int64_t endpoint_id;
	char *client_info, *agent_info;
	char irq_cpus[sizeof(((struct probe_params *)0)->affinity)]; /* compact CPU list for
	                                      affinity "irq" ("0-95"), "" = unknown */
	char fail[NS_ERR_MAX];             /* set: every case of the pair fails with this */
	char warn[NS_ERR_MAX];             /* set: stored with every result of the pair */
	bool busy;
	bool down;                         /* its agent stayed away past agent-wait */
	char down_why[NS_ERR_MAX];
	bool remote;                       /* a client agent sends (the pair has a client) */
	size_t next;                       /* next position in its queue */
	size_t *queue;                     /* schedule positions of its pending slots */
	size_t n_queue;
	int round;                         /* its mesh round (mesh_rounds.h), -1 = no mesh */
};

struct runner {
	const struct matrix *m;
	const struct sweep_cases *cases;
	struct store *st;
	const struct run_opts *o;
	struct run_summary *sum;
	struct progress *prog;
	struct pair_rt *pairs;
	int64_t run_id;
	int64_t *case_ids;
	struct sweep_slot *slots;
	size_t n_slots;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t in_flight;
	size_t *round_left;                /* slots of each mesh round not yet finished */
	int n_rounds;
	bool fatal;
	struct ns_err fatal_err;
	pid_t agent_pid;
	int online_cpus;
	double agent_wait_s;
	char holder[LEASE_HOLDER_MAX];     /* this runner's name on its case leases */
	struct hooks *hooks;               /* provisioning hooks; NULL = none */
	const atomic_int *stop;            /* o->stop, or never_stop */
	atomic_int never_stop;
};

/* Whether the caller asked the run to stop. */
static inline bool run_stopped(const struct runner *R)
{
	return atomic_load(R->stop) != 0;
}

/* Appends "; "-separated text to a fixed buffer. */
void run_append(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Endpoints: agents (the loopback one started), host information, checks, endpoint rows. */
int run_setup_pairs(struct runner *R, struct jsonw *warnings, struct ns_err *err);
/* The catalog as it stands now, for the instance types this run uses. */
int run_snapshot_catalog(struct runner *R, struct jsonw *warnings, struct ns_err *err);

#endif
