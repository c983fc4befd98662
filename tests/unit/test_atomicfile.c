/* lib/atomicfile: a file is replaced whole at commit or not at all; a failed write, an abort
 * or an existing file under ATOMICFILE_NO_REPLACE leave the old file byte for byte and no
 * temporary file behind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/atomicfile.h"

static char dir[] = "/tmp/test_atomicfile.XXXXXX";
static char path[256];

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[512];
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
			unlink(p);
		}
	if (d)
		closedir(d);
	rmdir(dir);
	return 0;
}

static char *slurp(const char *p)
{
	static char buf[256];
	FILE *f = fopen(p, "r");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* Files in dir other than out.txt: temporary files left behind. */
static int others(void)
{
	int n = 0;
	DIR *d = opendir(dir);
	struct dirent *de;
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && strcmp(de->d_name, "out.txt");
	closedir(d);
	return n;
}

static void commit_replaces_whole(void **state)
{
	(void)state;
	struct ns_err err = {0};
	assert_int_equal(atomicfile_write(path, "old\n", 4, 0644, 0, &err), 0);
	assert_string_equal(slurp(path), "old\n");
	struct atomicfile a;
	assert_int_equal(atomicfile_open(&a, path, 0644, 0, &err), 0);
	fputs("new, longer\n", a.f);
	/* until the commit the old file is what readers see */
	assert_string_equal(slurp(path), "old\n");
	assert_int_equal(atomicfile_commit(&a, &err), 0);
	assert_string_equal(slurp(path), "new, longer\n");
	assert_int_equal(others(), 0);
	struct stat sb;
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0644 & ~(mode_t)umask(022));
}

static void abort_and_failed_writes_leave_the_old_file(void **state)
{
	(void)state;
	struct ns_err err = {0};
	assert_int_equal(atomicfile_write(path, "old\n", 4, 0644, 0, &err), 0);
	struct atomicfile a;
	assert_int_equal(atomicfile_open(&a, path, 0644, 0, &err), 0);
	fputs("half", a.f);
	atomicfile_abort(&a);
	atomicfile_abort(&a);
	assert_string_equal(slurp(path), "old\n");
	assert_int_equal(others(), 0);

	/* a write that fails (here: the descriptor made read-only, as a full disk fails it) */
	assert_int_equal(atomicfile_open(&a, path, 0644, 0, &err), 0);
	int ro = open("/dev/null", O_RDONLY);
	assert_true(ro >= 0);
	assert_int_equal(dup2(ro, fileno(a.f)), fileno(a.f));
	close(ro);
	for (int i = 0; i < 10000; i++)
		fputs("new text that cannot be written\n", a.f);
	assert_int_equal(atomicfile_commit(&a, &err), -1);
	assert_int_equal(err.code, NS_E_IO);
	assert_non_null(strstr(err.msg, path));
	assert_string_equal(slurp(path), "old\n");
	assert_int_equal(others(), 0);
}

static void no_replace_keeps_an_existing_file(void **state)
{
	(void)state;
	struct ns_err err = {0};
	unlink(path);
	assert_int_equal(atomicfile_write(path, "first\n", 6, 0600, ATOMICFILE_NO_REPLACE, &err), 0);
	struct stat sb;
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	assert_int_equal(atomicfile_write(path, "second\n", 7, 0600, ATOMICFILE_NO_REPLACE, &err), -1);
	assert_int_equal(err.code, NS_E_IO);
	assert_string_equal(slurp(path), "first\n");
	assert_int_equal(others(), 0);
}

static void a_missing_directory_is_an_error(void **state)
{
	(void)state;
	struct ns_err err = {0};
	assert_int_equal(atomicfile_write("/nonexistent-dir/x", "x", 1, 0644, 0, &err), -1);
	assert_int_equal(err.code, NS_E_IO);
	assert_non_null(strstr(err.msg, "/nonexistent-dir/x"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(commit_replaces_whole),
		cmocka_unit_test(abort_and_failed_writes_leave_the_old_file),
		cmocka_unit_test(no_replace_keeps_an_existing_file),
		cmocka_unit_test(a_missing_directory_is_an_error),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
