/* kubepairs: a matrix's <kubernetes> pairs — the cluster's agents found when the run starts.
 * kubectl lists them (`get pods -o json -l SELECTOR`, and `get nodes -o json` for the nodes'
 * well-known labels): in a pod it speaks for the pod's service account, so the runner needs
 * no TLS of its own and only the right to list pods and nodes (packaging/kubernetes/rbac.yaml).
 * Each pair is named by its nodes' zones and names, priced by node.kubernetes.io/instance-type
 * in topology.kubernetes.io/region, and knows whether its ends share a zone (the zone axis). */
#ifndef NS_KUBEPAIRS_H
#define NS_KUBEPAIRS_H

#include <stddef.h>

#include "lib/err.h"
#include "runner/matrix/matrix.h"

/* kubectl's answers are read up to this size (a pod's JSON is a few KiB) */
#define KUBEPAIRS_MAX_JSON (64 * 1024 * 1024)
#define KUBEPAIRS_TIMEOUT_S 60.0

/* The pairs k describes from a pod list and a node list (kubectl get -o json, or the API's
 * PodList and NodeList): the pods running with an address; from agents, every ordered pair of
 * agents on two nodes (the first the client), else one pair per agent from this host, whose
 * node (runner_node, "" = unknown) decides its zone. *pairs is malloc'd (*n of them, at least
 * one); errors name what in the JSON is wrong, or that no agent runs (NS_E_INPUT). */
int kubepairs_parse(const struct matrix_kube *k, const char *pods_json, const char *nodes_json,
		    const char *runner_node, struct matrix_pair **pairs, size_t *n,
		    struct ns_err *err);

/* For a matrix loaded with its <kubernetes> pairs pending: lists them with kubectl
 * (NETSWEEP_KUBECTL, else kubectl on PATH; this pod's node from NETSWEEP_NODE_NAME) and loads
 * the matrix again with them (matrix_load_found). Any other matrix: 0, untouched. */
int kubepairs_load(struct matrix *m, struct ns_err *err);

#endif
