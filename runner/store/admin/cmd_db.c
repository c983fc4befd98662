/* netsweep db merge OUT IN...: the runs of each input database added to OUT (the merge
 * itself: runner/store/admin/store_merge.h). Exit 0 when every input went in, 2 for a bad argument
 * or input (OUT left as it was), 1 when the merge failed.
 * netsweep db prune --keep-nights N: retention (runner/store/admin/store_prune.h). Exit 0 pruned (or
 * counted, --dry-run), 2 for a bad argument or database, 1 when the pruning failed. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner/core/cmds.h"
#include "lib/err.h"
#include "lib/cli.h"
#include "store_merge.h"
#include "store_prune.h"

static void usage_merge(FILE *f)
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

static void usage_prune(FILE *f)
{
	fprintf(f,
		"usage: netsweep db prune --keep-nights N [--db FILE] [--matrix NAME] [--dry-run]\n"
		"                         [--vacuum]\n"
		"\n"
		"Retention: drops the raw interval series (samples, group samples, the interval\n"
		"arrays of each result's probe JSON) of every finished run but the newest N of each\n"
		"matrix, in one transaction. Runs, cases, results, latency percentiles, searches and\n"
		"prices stay, so every night's report, site page, runs line and export stay as they\n"
		"were, without their per-interval charts.\n"
		"  --keep-nights N  the newest N finished runs of each matrix keep their intervals\n"
		"  --db FILE        database (default $NETSWEEP_DB or ./netsweep.db)\n"
		"  --matrix NAME    prune this matrix's runs only\n"
		"  --dry-run        count what would go; change nothing\n"
		"  --vacuum         then give the freed space back to the file system (VACUUM)\n");
}

/* `db --help`: both; `db merge --help` and `db prune --help` their own only. */
static void usage(FILE *f)
{
	usage_merge(f);
	fputc('\n', f);
	usage_prune(f);
}

static int cmd_prune(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"keep-nights", required_argument, NULL, 'k'},
		{"db", required_argument, NULL, 'd'},
		{"matrix", required_argument, NULL, 'm'},
		{"dry-run", no_argument, NULL, 'n'},
		{"vacuum", no_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *db = cli_db_default(), *matrix = NULL;
	long long keep = -1;
	int dry = 0, vacuum = 0, c;
	struct ns_err err = {0};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': {
			char *end;
			errno = 0;
			keep = strtoll(optarg, &end, 10);
			if (errno || end == optarg || *end || keep < 1) {
				fprintf(stderr, "netsweep db prune: --keep-nights %s: expected a whole "
					"number of nights, at least 1\n", optarg);
				return NS_EXIT_USAGE;
			}
			break;
		}
		case 'd': db = optarg; break;
		case 'm': matrix = optarg; break;
		case 'n': dry = 1; break;
		case 'V': vacuum = 1; break;
		case 'h': usage_prune(stdout); return NS_EXIT_OK;
		default:
			cli_option_error_hint(c, argv, longopts, &err);
			fprintf(stderr, "netsweep db prune: %s\n", err.msg);
			return NS_EXIT_USAGE;
		}
	}
	if (cli_no_operands(argc, argv, &err) < 0 ||
	    (keep < 0 && ns_err_code(&err, NS_E_USAGE, "--keep-nights N is needed") < 0) ||
	    (access(db, R_OK | W_OK) != 0 &&
	     ns_err_code(&err, NS_E_USAGE, "%s: %s", db, strerror(errno)) < 0)) {
		fprintf(stderr, "netsweep db prune: %s\n", err.msg);
		return NS_EXIT_USAGE;
	}
	struct store *s = store_open(db, &err);
	if (!s) {
		fprintf(stderr, "netsweep db prune: %s\n", err.msg);
		return NS_EXIT_USAGE;
	}
	struct store_prune_stats st;
	int rc = store_prune(s, keep, matrix, dry, &st, &err);
	if (rc == 0 && vacuum && !dry)
		rc = store_vacuum(s, &err);
	store_close(s);
	if (rc < 0) {
		fprintf(stderr, "netsweep db prune: %s\n", err.msg);
		return NS_EXIT_FAIL;
	}
	printf("netsweep db prune: %s: %lld finished run%s %s (%lld interval sample%s, %lld "
	       "probe JSON interval series); the newest %lld of each matrix (%lld run%s) kept "
	       "whole; results, latency, searches and prices kept%s\n", db, st.runs,
	       NS_PLURAL(st.runs), dry ? "would be pruned" : "pruned", st.samples,
	       NS_PLURAL(st.samples), st.probe_json, keep, st.kept, NS_PLURAL(st.kept),
	       dry ? " (dry run: nothing changed)" : vacuum ? "; space given back (VACUUM)" : "");
	return NS_EXIT_OK;
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
			usage_merge(stderr);
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
	if (argc >= 2 && strcmp(argv[1], "prune") == 0)
		return cmd_prune(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "merge") == 0) {
		if (argc >= 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
			usage_merge(stdout);
			return NS_EXIT_OK;
		}
		return cmd_merge(argc - 1, argv + 1);
	}
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return NS_EXIT_OK;
	}
	fprintf(stderr, "netsweep db: %s\n", argc < 2 ? "a subcommand is needed (merge, prune)"
						      : "unknown subcommand (merge and prune are the ones there are)");
	usage(stderr);
	return NS_EXIT_USAGE;
}
