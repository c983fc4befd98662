/* netsweep db merge OUT IN...: the runs of each input database added to OUT (the merge
 * itself: runner/store/store_merge.h). Exit 0 when every input went in, 2 for a bad argument
 * or input (OUT left as it was), 1 when the merge failed. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner/core/cmds.h"
#include "lib/err.h"
#include "store_merge.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: netsweep db merge OUT IN...\n"
		"\n"
		"Adds the runs of each IN database to OUT (created when missing), so that one report\n"
		"covers several runners. A run keeps its identity (runs.uuid): a run OUT holds already\n"
		"is kept as it is, so merging an input again adds nothing. Inputs from an older\n"
		"netsweep are migrated on a copy; a database from a newer one is refused. OUT changes\n"
		"only once every input went in: a failure leaves it as it was (or absent).\n");
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* The arguments: OUT, then inputs that can be read and are not OUT itself. */
static int merge_args(int argc, char **argv, struct ns_err *err)
{
	if (argc < 3)
		return ns_err_code(err, NS_E_USAGE, "an output and at least one input are needed");
	for (int i = 2; i < argc; i++) {
		if (access(argv[i], R_OK) != 0)
			return ns_err_code(err, NS_E_USAGE, "%s: %s", argv[i], strerror(errno));
		if (same_file(argv[1], argv[i]))
			return ns_err_code(err, NS_E_USAGE, "%s is the output itself", argv[i]);
	}
	return 0;
}

static int cmd_merge(int argc, char **argv)
{
	struct ns_err err = {0};
	struct store_merge *mg = NULL;
	if (merge_args(argc, argv, &err) < 0) {
		fprintf(stderr, "netsweep db merge: %s\n", err.msg);
		if (argc < 3)
			usage(stderr);
		return NS_EXIT_USAGE;
	}
	int rc = NS_EXIT_FAIL;
	if (store_merge_begin(&mg, argv[1], &err) < 0)
		goto out;
	for (int i = 2; i < argc; i++) {
		long long added;
		if (store_merge_add(mg, argv[i], &added, &err) < 0) {
			if (err.code == NS_E_USAGE)
				rc = NS_EXIT_USAGE;
			goto out;
		}
		printf("netsweep db merge: %s: %lld run%s added\n", argv[i], added,
		       added == 1 ? "" : "s");
	}
	if (store_merge_commit(mg, &err) == 0)
		rc = NS_EXIT_OK;
out:
	if (rc != NS_EXIT_OK)
		fprintf(stderr, "netsweep db merge: %s\n", err.msg);
	store_merge_end(mg);
	return rc;
}

int cmd_db(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "merge") == 0) {
		if (argc >= 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
			usage(stdout);
			return NS_EXIT_OK;
		}
		return cmd_merge(argc - 1, argv + 1);
	}
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return NS_EXIT_OK;
	}
	fprintf(stderr, "netsweep db: %s\n", argc < 2 ? "a subcommand is needed (merge)"
						      : "unknown subcommand (merge is the one there is)");
	usage(stderr);
	return NS_EXIT_USAGE;
}
