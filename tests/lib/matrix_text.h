/* matrix_text: what the matrix model's unit tests share (include after cmocka.h) — a matrix
 * loaded from text as file "t.xml", and its cases, either failing the test with the error. */
#ifndef NS_TEST_MATRIX_TEXT_H
#define NS_TEST_MATRIX_TEXT_H

#include <string.h>

#include "runner/matrix/expand.h"
#include "runner/matrix/matrix.h"

static inline void load(struct matrix *m, const char *text)
{
	struct ns_err err = {0};
	if (matrix_load_mem(m, "t.xml", text, strlen(text), &err) < 0)
		fail_msg("matrix: %s", err.msg);
}

static inline void expand(const struct matrix *m, struct sweep_cases *c)
{
	struct ns_err err = {0};
	if (expand_matrix(m, c, &err) < 0)
		fail_msg("expand: %s", err.msg);
}

#endif
