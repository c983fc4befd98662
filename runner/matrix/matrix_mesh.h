/* matrix_mesh: <mesh> in <pairs> — a set of hosts, each an agent with a name and a zone,
 * turned into pairs: every ordered pair of its hosts, or one representative pair per ordered
 * pair of zones. Each pair is named FROM--TO, sent by FROM's agent (a delegated run) to TO's,
 * and remembers the mesh, both hosts' names and zones (matrix_types.h); the runner's rounds
 * are runner/mesh/mesh_rounds.h's. */
#ifndef NS_MATRIX_MESH_H
#define NS_MATRIX_MESH_H

#include <libxml/tree.h>

#include "lib/err.h"
#include "matrix_types.h"

/* At most this many hosts in a mesh (the XSD's bound too): 32 x 31 ordered pairs. */
#define MXMESH_MAX_HOSTS 32

/* The most pairs a <mesh> element can add (its <host> children n: n x (n - 1)). */
size_t mxmesh_capacity(xmlNodePtr mesh);

/* Appends the mesh's pairs to m->pairs (room for mxmesh_capacity made by the caller),
 * m->n_pairs counting them. Errors are "FILE:LINE: mesh FIELD: what". */
int mxmesh_load(const char *path, xmlNodePtr mesh, struct matrix *m, struct ns_err *err);

#endif
