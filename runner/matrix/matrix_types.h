/* matrix_types: what a matrix is in memory — its axes and their values, pairs, hooks, rules
 * and settings — and what one of its cases is (each axis's value index, its stable key), with
 * the value of one axis of a case. Below every file of runner/matrix/: the loader (matrix.h),
 * the value parsers (matrix_value.h, matrix_longrun.h, matrix_rr.h, bind.h) and the expansion
 * (expand.h) all read these types, and none of them includes another to get them. */
#ifndef NS_MATRIX_TYPES_H
#define NS_MATRIX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runner/search/search.h"
#include "sha256.h"

/* The axes, in the order they appear in a case's canonical string (never reorder: case keys
 * are derived from it and must stay stable across versions). */
enum matrix_axis_id {
	MX_PAIR, MX_PROTOCOL, MX_DIRECTION, MX_STREAMS, MX_THREADS, MX_LENGTH, MX_RATE,
	MX_FQ_RATE, MX_DURATION, MX_OMIT, MX_AFFINITY, MX_WINDOW, MX_MSS, MX_NODELAY,
	MX_CONGESTION, MX_GSO,
	/* Axes added later: left out of the canonical string while at their default, so that the
	 * keys of cases written before them do not change. */
	MX_ENGINE, MX_BIND, MX_DSCP, MX_ZEROCOPY, MX_FAMILY, MX_AMOUNT, MX_UNTIL, MX_STEADY,
	MX_RR, MX_REQUEST, MX_RESPONSE, MX_RR_RATE,
	MX_LAT_PROBE, MX_LAT_RATE, MX_LAT_SIZE,
	MX_ZONE,
	MX_CLIENTS,
	MX_RX_COPY, MX_RPM,
	MX_AXIS_COUNT
};
#define MX_V1_AXES MX_ENGINE

/* The zone axis: any (every pair), same or cross — a pair's two ends in one zone or in two
 * (pairs discovered in a Kubernetes cluster know their nodes' zones; a written pair's is
 * unknown, so it has only zone=any cases). The value's u and a pair's zone_rel. */
enum matrix_zone { MX_ZONE_ANY, MX_ZONE_SAME, MX_ZONE_CROSS };

enum matrix_order { MX_ORDER_AS_WRITTEN, MX_ORDER_INTERLEAVED, MX_ORDER_SHUFFLED };

/* One value of an axis: its canonical text (what rules compare and keys hash: "800000000" for
 * "800M", "2.5" for "2500ms") and the parsed number where the axis is numeric. */
struct matrix_value {
	char *text;
	uint64_t u;     /* integers: streams, rates, sizes, pair index, protocol/direction enum */
	double d;       /* durations in seconds */
	int line;
};

struct matrix_axis {
	bool present;   /* written in the matrix; otherwise it holds the one default value */
	int line;
	size_t n;         /* values: [0, n_product) span the product, the rest come from includes */
	size_t n_product;
	struct matrix_value *v;
};

/* A provisioning hook (<setup>/<teardown>): run by hooks.c with /bin/sh -c. */
#define MX_HOOK_MAX 2048
struct matrix_hook {
	char command[MX_HOOK_MAX];         /* "" = none */
	double timeout_s;                  /* time limit of the command */
	double wait_s;                     /* setup: how long its agents get to answer */
	int line;
};

#define MX_NAME_MAX 64
/* <bind name=".." client=".." agent=".."/> in a pair: a value of the bind axis — the client's
 * source address (probe -B) and the agent address to test (host or host:port). */
#define MX_MAX_BINDS 16
/* Default of the matrix's agent-wait (runner/sweep/retry.h waits it): long enough for an
 * agent restarted by systemd or a person, short enough that a dead pair costs one wait, not
 * one per case. */
#define MX_AGENT_WAIT_DEFAULT_S 30.0
struct matrix_bind {
	char name[MX_NAME_MAX];
	char client[64];                   /* numeric address */
	char agent_host[256];
	uint16_t agent_port;               /* the pair's when not written */
	int line;
};

/* A group (<group kind="incast|fan-out">): several tests as one case, started together. Each
 * member is one test's two ends: an incast group's members are its clients (this host when a
 * member names none) sending to the group's agent; a fan-out group's are its agents, each
 * tested from the group's client (this host when it names none). */
enum matrix_group_kind { MX_GROUP_NONE, MX_GROUP_INCAST, MX_GROUP_FANOUT };
/* Members of a group and the clients axis's bound: a case's tests run as threads of the
 * runner, each with its own streams, so this bounds threads and sockets as well. */
#define MX_MAX_MEMBERS 64
struct matrix_member {
	char name[MX_NAME_MAX];
	char client_host[256];             /* "" = this host sends */
	uint16_t client_port;
	char agent_host[256];
	uint16_t agent_port;
	int line;
};

struct matrix_pair {
	char name[MX_NAME_MAX];
	enum matrix_group_kind group;      /* MX_GROUP_NONE: a pair */
	struct matrix_member *members;     /* a group's, n_members of them (malloc'd) */
	size_t n_members;
	char instance_type[MX_NAME_MAX];   /* "" = not declared */
	char region[32];
	char client[256];                  /* as written; "" = this host */
	char client_host[256];             /* the client agent ("" = this host sends) */
	uint16_t client_port;
	char agent_host[256];              /* "" for the loopback pair until its agent starts */
	uint16_t agent_port;
	char expected_driver[32];          /* "" = not checked */
	char price_basis[8];               /* "pair" or "sender" */
	uint64_t link_bps;                 /* 0 = not declared */
	struct matrix_hook setup, teardown;
	struct matrix_bind binds[MX_MAX_BINDS];
	size_t n_binds;
	char psk_file[256];                /* key file proven to its agents ("" = none; pair_key.h) */
	uint8_t zone_rel;                  /* enum matrix_zone: its ends' zones (ANY = unknown) */
	/* A pair a <mesh> made (matrix_mesh.h): the mesh's name and its two hosts' names ("" = not
	 * a mesh pair). The runner keeps a mesh's hosts out of two tests at once and runs its
	 * pairs in rounds (runner/mesh/mesh_rounds.h). */
	char mesh[MX_NAME_MAX];
	char client_name[MX_NAME_MAX], agent_name[MX_NAME_MAX];
	/* Each end's placement ("" = not known: the run asks the end's instance metadata): the
	 * matrix's client-zone/agent-zone, a mesh host's zone=, a Kubernetes node's labels; and
	 * the relation declared ("" = derived from the ends: lib/cost.h cost_relation). */
	char client_zone[MX_NAME_MAX], agent_zone[MX_NAME_MAX];
	char client_region[32], agent_region[32];
	char relation[16];
	int line;
};

/* <kubernetes selector=".." namespace=".." port=".." from="agents|runner"/> in <pairs>: the
 * pairs are the cluster's agents, listed when the run starts (runner/pairs/kubepairs.h) and
 * handed to matrix_load_found. */
struct matrix_kube {
	bool present;
	bool pending;                      /* loaded without its pairs: not to be expanded */
	char selector[256];                /* a label selector, as kubectl -l takes it */
	char ns[64];                       /* "" = every namespace the runner may list */
	uint16_t port;                     /* an agent pod's control port when its spec names none */
	bool from_runner;                  /* this host to each agent; else agent to agent */
	bool per_zone;                     /* agent to agent: one pair per ordered zone pair */
	int line;
};

/* <when axis=".." value=".."/> or not=".."; in an include, <set axis=".." value=".."/>. */
struct matrix_cond {
	enum matrix_axis_id axis;
	bool negate;
	struct matrix_value value;
};

struct matrix_rule {
	bool include;
	int line;
	size_t n;
	struct matrix_cond *c;
};

struct matrix {
	char *path;
	char *text;                        /* the file exactly as read */
	size_t text_len;
	char hash[SHA256_HEX_LEN + 1];     /* sha256 of text: the resume key */
	char name[128];
	char *description;                 /* may be NULL */
	char *rank_by;                     /* rank-by attribute, NULL = best (the report's rule) */
	char *pricing;                     /* pricing attribute ("spot", "reserved:1yr"), NULL = on-demand */
	double monthly_gb;                 /* monthly-transfer attribute, decimal GB; 0 = not stated */
	uint32_t repeats;
	enum matrix_order order;
	bool has_seed;
	uint64_t seed;
	double cooldown_s;
	double case_timeout_s;             /* 0 = probe default (omit + duration + 15 s) */
	double interval_s;                 /* per-interval samples; default 1 s */
	bool strict;                       /* instance-type mismatch fails cases instead of warning */
	double agent_wait_s;               /* how long a lost agent is waited for (retry.h) */
	bool loopback;                     /* no pairs: the runner serves one itself */
	bool search;                       /* <search>: every UDP case is a rate search */
	struct search_cfg search_cfg;
	struct matrix_hook setup, teardown; /* the run's own hooks */
	struct matrix_pair *pairs;
	size_t n_pairs;
	struct matrix_kube kube;           /* pairs discovered in a cluster */
	struct matrix_axis axes[MX_AXIS_COUNT];
	struct matrix_rule *rules;
	size_t n_rules;
};

/* ---- a case of the matrix (expand.h makes them) ---------------------------------------- */

#define EXPAND_MAX_CASES 1000000
#define EXPAND_KEY_LEN 16

struct sweep_case {
	uint32_t idx[MX_AXIS_COUNT];      /* index into matrix->axes[a].v */
	char key[EXPAND_KEY_LEN + 1];
	int include_line;                 /* the <include> it came from, 0 = the product */
};

struct sweep_cases {
	struct sweep_case *v;
	size_t n;
	size_t excluded;                  /* product cases dropped by exclude rules */
};

/* One (case, repeat) to run, in the order the matrix asks for. */
struct sweep_slot {
	uint32_t case_idx;
	uint32_t repeat;
};

/* The case's value of one axis. */
static inline const struct matrix_value *expand_value(const struct matrix *m,
						       const struct sweep_case *c,
						       enum matrix_axis_id a)
{
	return &m->axes[a].v[c->idx[a]];
}

#endif
