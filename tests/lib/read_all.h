/* read_all: a whole fixture file into a malloc'd NUL-terminated text, for cmocka unit tests
 * (include after cmocka.h; a file that cannot be read fails the test). */
#ifndef NS_TEST_READ_ALL_H
#define NS_TEST_READ_ALL_H

#include <stdio.h>
#include <stdlib.h>

static inline char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

#endif
