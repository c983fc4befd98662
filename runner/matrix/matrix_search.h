/* matrix_search: the matrix's <search> element, which turns every UDP case into a zero-loss
 * rate search (runner/search): its goals and trial settings, checked with file:line. */
#ifndef NS_MATRIX_SEARCH_H
#define NS_MATRIX_SEARCH_H

#include <libxml/tree.h>

#include "lib/err.h"
#include "runner/search/search.h"

/* Reads the element's attributes into cfg (defaults from search_cfg_init; the duration sum
 * defaults to the final duration). Errors: "PATH:LINE: search: FIELD: what". */
int matrix_search_load(xmlNodePtr n, const char *path, struct search_cfg *cfg, struct ns_err *err);

#endif
