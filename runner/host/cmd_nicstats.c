/* netsweep nicstats: an interface's own counters as the ethtool ioctl gives them (the figures
 * a result's NIC counter deltas come from), with the kind netsweep gives each. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "runner/core/cmds.h"
#include "lib/cli.h"
#include "lib/err.h"
#include "ethstats.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: netsweep nicstats IFACE\n"
		"  Prints every counter of IFACE's driver (ETHTOOL_GSTATS), one \"name value kind\"\n"
		"  a line; kind is allowance (the cloud provider's shaping, e.g. ENA's\n"
		"  bw_out_allowance_exceeded), drop (drop and error counters) or other.\n");
}

int cmd_nicstats(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static const char *const kinds[] = {"other", "allowance", "drop"};
	struct ns_err err = {0};
	optind = 0; /* GNU: reinitialise, argv[0] is the subcommand */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return NS_EXIT_OK;
		}
		cli_option_error_hint(c, argv, longopts, &err);
		fprintf(stderr, "netsweep nicstats: %s\n", err.msg);
		return NS_EXIT_USAGE;
	}
	if (argc - optind != 1) {
		fprintf(stderr, "netsweep nicstats: one interface expected (see --help)\n");
		return NS_EXIT_USAGE;
	}
	struct ethstats s;
	if (ethstats_read(argv[optind], &s, &err) < 0) {
		fprintf(stderr, "netsweep nicstats: %s\n", err.msg);
		return err.code == NS_E_INPUT ? NS_EXIT_USAGE : NS_EXIT_FAIL;
	}
	for (uint32_t i = 0; i < s.n; i++)
		printf("%s %llu %s\n", s.name[i], (unsigned long long)s.val[i],
		       kinds[ethstats_kind(s.name[i])]);
	ethstats_free(&s);
	return NS_EXIT_OK;
}
