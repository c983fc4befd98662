/* matrix_group: group cases — <group kind="incast|fan-out"> in <pairs> (several tests against
 * one agent, or from one client against several agents, run as one case on a common start)
 * and the clients axis (how many of a group's members a case runs; on a pair, how many
 * clients send to its agent from its one client). The loader reads a group's members here;
 * the runner asks which tests a case runs. */
#ifndef NS_MATRIX_GROUP_H
#define NS_MATRIX_GROUP_H

#include <libxml/tree.h>

#include "lib/err.h"
#include "matrix_types.h"

/* Reads a <group> element's kind and members into p (whose common attributes — name, agent,
 * client, key, instance type — the loader has read): an incast group's agent= is its pair
 * agent, a fan-out group's first member's agent stands for it. Errors are
 * "FILE:LINE: group FIELD: what". */
int mxgroup_load(const char *path, xmlNodePtr group, struct matrix_pair *p, struct ns_err *err);

/* The number of tests a case runs together: a group's members when the matrix writes no
 * clients axis, else the case's clients value (on a pair as on a group). */
size_t mxgroup_clients(const struct matrix *m, const struct sweep_case *c);

/* Whether a case is a group case (more than one test, or a group pair). */
bool mxgroup_is_group(const struct matrix *m, const struct sweep_case *c);

/* Test k of a case's group: its client ("" = this host) and agent. On a pair every test is
 * the pair's own two ends. */
void mxgroup_member(const struct matrix *m, const struct sweep_case *c, size_t k,
		    struct matrix_member *out);

/* The checks a case's group must pass beyond the schema: no more clients than members, no
 * bind on a group, no rate search with several clients. Errors name the clients value's line
 * (or the group's). */
int mxgroup_check(const struct matrix *m, const struct sweep_case *c, struct ns_err *err);

#endif
