/* group: a group case's tests (incast: several clients into one agent; fan-out: one client
 * out to several agents) run together — each on its own thread, held after its setup until
 * every one is set up, so that all start within a few milliseconds — then added up into one
 * result (the case's total, stored and reported like any case's) with each test's figures and
 * how fairly they shared the path (fairness.h). */
#ifndef NS_GROUP_GROUP_H
#define NS_GROUP_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"
#include "runner/proto/probe.h"

/* How long a set-up test waits for the slowest of the others before it starts anyway (a test
 * that cannot set up fails on its own connect timeout; this only bounds the wait). */
#define GROUP_SYNC_SLACK_S 5.0
/* A group with client agents starts this long after it is sent off (params.start_at): each
 * agent's connect, handshake and data connections fit in it on any reachable path; one that
 * does not starts late, and start_spread_ms says by how much. */
#define GROUP_REMOTE_LEAD_S 2.0

struct group_test {
	struct probe_params pp;            /* its host and port: this test's agent */
	char name[64];
	char client_host[256];             /* a client agent that sends; "" = this host */
	uint16_t client_port;
	/* filled by group_run */
	struct probe_result res;
	struct ns_err err;
	int rc;                            /* 0 ok, -1 failed (err, res.error) */
	double started;                    /* when it began (res.started_unix: the wall clock of
	                                      the host that sent); 0 = never */
};

/* What a group's sharing looked like, over the tests that completed (NaN: not known). */
struct group_figures {
	size_t clients, ok;
	double start_spread_ms;            /* the latest test's start after the earliest's */
	double total_bps;                  /* the requested direction's receive rates, summed */
	double jain;                       /* fairness.h over those rates */
	double min_share, min_of_fair;
	double converge_s;                 /* TCP: when the shares settled (NaN for UDP) */
	bool dispatched;                   /* some tests ran on client agents: their starts are
	                                      by those hosts' clocks (synced: within their error) */
};

/* Runs the n tests together. Returns 0 when every test succeeded; -1 with err naming the
 * tests that failed (their own errors), each test's figures kept in t[i].res either way. */
int group_run(struct group_test *t, size_t n, struct ns_err *err);

/* The case's total from its tests: figures added up (rates, bytes, packets, retransmits,
 * loss), CPU the busiest end's, the interval sums added interval by interval, every test's
 * streams one after another (stream ids renumbered), the limit judged over all. Only the
 * tests that completed count; at least one must have. total is freed with probe_result_free. */
int group_total(const struct group_test *t, size_t n, struct probe_result *total,
		struct ns_err *err);

void group_figures(const struct group_test *t, size_t n, struct group_figures *f);

/* A test's rate in the group: its requested direction's receive rate (0 when none). */
double group_test_bps(const struct group_test *t);

#endif
