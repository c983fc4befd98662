/* netsweep hostinfo: this host's NIC, driver, CPUs and cloud instance, as a table or JSON. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/core/cmds.h"
#include "lib/cli.h"
#include "lib/err.h"
#include "lib/units.h"
#include "hostinfo.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: netsweep hostinfo [--peer ADDR] [--json] [--no-imds] [--imds-addr H:P]\n"
		"                         [--imds-timeout DUR]\n"
		"  --peer ADDR         describe this host's interface that routes to ADDR (default route\n"
		"                      if absent); ADDR is only looked up in the routing table: no agent\n"
		"                      is asked, so no --psk-file (`netsweep run` asks each pair's\n"
		"                      agents, with their key, and stores the answers)\n"
		"  --json              print the JSON object documented in schemas/hostinfo.md\n"
		"  --no-imds           do not ask the EC2 instance metadata service (also NETSWEEP_IMDS=off)\n"
		"  --imds-addr H:P     metadata service address (default 169.254.169.254:80,\n"
		"                      or NETSWEEP_IMDS_ADDR)\n"
		"  --imds-timeout DUR  whole metadata exchange (default 0.5s, at most 60s)\n");
}

static int usage_error(const struct ns_err *err)
{
	fprintf(stderr, "netsweep hostinfo: %s\n", err->msg);
	usage(stderr);
	return NS_EXIT_USAGE;
}

int cmd_hostinfo(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"peer", required_argument, NULL, 'p'},
		{"json", no_argument, NULL, 'j'},
		{"no-imds", no_argument, NULL, 'n'},
		{"imds-addr", required_argument, NULL, 'a'},
		{"imds-timeout", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct hostinfo_opts o;
	hostinfo_opts_init(&o);
	bool json = false;
	struct ns_err err = {0};
	optind = 0; /* GNU: reinitialise, argv[0] is the subcommand */
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			o.peer = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'n':
			o.imds = false;
			break;
		case 'a':
			o.imds_addr = optarg;
			break;
		case 't':
			if (units_parse_duration(optarg, 60, &o.imds_timeout_s, &err) < 0 ||
			    !(o.imds_timeout_s > 0)) {
				fprintf(stderr, "netsweep hostinfo: --imds-timeout: %s\n",
					err.msg[0] ? err.msg : "must be more than 0");
				return NS_EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return NS_EXIT_OK;
		default:
			cli_option_error_hint(c, argv, longopts, &err);
			return usage_error(&err);
		}
	}
	if (cli_no_operands(argc, argv, &err) < 0)
		return usage_error(&err);

	char *out = NULL;
	int rc = json ? hostinfo_collect_json(&o, &out, &err) : hostinfo_collect_text(&o, &out, &err);
	if (rc < 0) {
		fprintf(stderr, "netsweep hostinfo: %s\n", err.msg);
		return NS_EXIT_FAIL;
	}
	fputs(out, stdout);
	if (json)
		fputc('\n', stdout);
	free(out);
	return NS_EXIT_OK;
}
