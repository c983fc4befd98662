/* netsweep: batch sweep runner for network throughput benchmarks.
 * main only dispatches: subcommands come from one table, as git does. */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "report/cmd_export.h"
#include "report/cmd_plan.h"
#include "report/cmd_report.h"
#include "report/site/cmd_site.h"
#include "lib/err.h"
#include "lib/names/suggest.h"
#include "version.h"
#include "lib/settings.h"

struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct subcommand subcommands[] = {
	{"run", cmd_run, "run every case of a matrix file and store the results"},
	{"agent", cmd_agent, "serve tests: the receiving (or, reversed, sending) end"},
	{"key", cmd_key, "write a new pre-shared key file for agents and their clients"},
	{"probe", cmd_probe, "run one test against an agent"},
	{"health", cmd_health, "check that an agent answers (control only: no test, no data)"},
	{"search", cmd_search, "find the highest UDP rate with no (or little) loss: NDR, PDR"},
	{"report", cmd_report, "render HTML, Markdown, CSV and charts from the database"},
	{"export", cmd_export, "runs as OpenMetrics/Prometheus text, NDJSON or iperf3's JSON"},
	{"plan", cmd_plan, "which type, how many, where and what a month, for a stated need"},
	{"site", cmd_site, "a static site of every night: index, pair trends, Atom feed"},
	{"runs", cmd_runs, "list the runs in the database: id, label, status, cost"},
	{"db", cmd_db, "database tools: merge runners' databases into one, prune old intervals"},
	{"hostinfo", cmd_hostinfo, "show this host's NIC, driver, CPUs and cloud instance"},
	{"lab", cmd_lab, "emulate instance pairs in network namespaces (root)"},
	{"cost", cmd_cost, "instance catalog, prices and wire-rate references"},
	{"nicstats", cmd_nicstats, "an interface's own counters (ethtool ioctl): drops, allowances"},
	{"catalog", cmd_catalog, "catalog import: a catalog from AWS's price list and instance types"},
};

static const char *command_name(const void *ctx, size_t i)
{
	(void)ctx;
	return i < sizeof(subcommands) / sizeof(subcommands[0]) ? subcommands[i].name : NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: netsweep <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(f, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(f, "\n'netsweep <command> --help' describes a command's options.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return NS_EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		usage(stdout);
		return NS_EXIT_OK;
	}
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("netsweep %s\n", NETSWEEP_VERSION);
		return NS_EXIT_OK;
	}
	struct ns_settings env;
	settings_from_env(&env); /* the one reading of the environment: the library reads these */
	settings_set(&env);
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++) {
		if (strcmp(name, subcommands[i].name) == 0) {
			int rc = subcommands[i].fn(argc - 1, argv + 1);
			if (fflush(stdout) != 0 || ferror(stdout)) {
				perror("netsweep: writing to stdout");
				return rc ? rc : NS_EXIT_FAIL;
			}
			return rc;
		}
	}
	const char *near = suggest_nearest(name, command_name, NULL);
	if (near) { /* a typo: the one line is enough */
		fprintf(stderr, "netsweep: '%s' is not a command (did you mean '%s'?)\n", name, near);
		return NS_EXIT_USAGE;
	}
	fprintf(stderr, "netsweep: '%s' is not a command\n\n", name);
	usage(stderr);
	return NS_EXIT_USAGE;
}
