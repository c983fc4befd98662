/* sha256: the digest case keys and the resume key are made of, against FIPS 180-2's known
 * answers (one block, the empty message, two blocks). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "runner/matrix/sha256.h"

static void sha256_known_answers(void **state)
{
	(void)state;
	char hex[65];
	assert_int_equal(sha256_hex("abc", 3, 32, hex, NULL), 0);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	assert_int_equal(sha256_hex("", 0, 32, hex, NULL), 0);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	assert_int_equal(sha256_hex(two, strlen(two), 32, hex, NULL), 0);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sha256_known_answers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
