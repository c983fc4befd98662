/* libFuzzer target: every control-protocol decoder on arbitrary bytes. The first byte picks
 * the message (as the type field would), the rest is its payload; a frame header is parsed
 * from the first 8 bytes too (tests/lib/proto_case.h holds the format, the seed generator
 * fuzz_seeds.c writes it). Nothing may crash, read out of bounds or leak, whatever comes. */
#include <stddef.h>
#include <stdint.h>

#include "tests/lib/proto_case.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ns_err err;
	(void)proto_case_run(data, size, &err);
	return 0;
}
