/* libFuzzer target: the matrix loader (libxml2 + schemas/matrix.xsd + the checks beyond the
 * schema) and the expansion of whatever it accepts, on arbitrary text. */
#include <stddef.h>
#include <stdint.h>

#include "runner/matrix/expand.h"
#include "runner/matrix/matrix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct matrix m;
	struct ns_err err;
	if (size > 1 << 20)
		return 0;
	if (matrix_load_mem(&m, "fuzz.xml", (const char *)data, size, &err) == 0) {
		struct sweep_cases cases = {0};
		if (expand_matrix(&m, &cases, &err) == 0)
			expand_check(&m, &cases, &err);
		expand_free(&cases);
		matrix_free(&m);
	}
	return 0;
}
