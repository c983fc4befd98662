/* `netsweep health [HOST[:PORT]]`: the agent's health check (STATUS_REQUEST, control protocol
 * version 24) — the handshake, with the key, and the agent's counters back. It sends no data,
 * takes no test slot and draws nothing from --max-rate, so it passes under every cap and with
 * every slot in use and leaves a running test's bytes alone; the image's HEALTHCHECK and the
 * DaemonSets' probes run it. Exit 0: healthy; 1: no answer, refused or a wrong key. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/core/cmds.h"
#include "client.h"
#include "lib/cli.h"
#include "lib/err.h"
#include "lib/units.h"
#include "runner/proto/probe.h"
#include "runner/proto/proto.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: netsweep health [HOST[:PORT]] [-p PORT] [--psk-file FILE] [--timeout S] [-q]\n"
		"Checks that the agent at HOST (default 127.0.0.1) answers its control protocol: the\n"
		"handshake, with the key, and a status request. No test is run and no data is sent:\n"
		"it passes under any --max-rate and with every test slot in use, and a running test\n"
		"is not disturbed. Exit 0 when the agent answered, 1 when it did not (or refused).\n"
		"  -p, --port PORT      agent control port (default %d)\n"
		"      --psk-file FILE  the agent's pre-shared key (default $NETSWEEP_PSK_FILE)\n"
		"      --timeout S      give up after S seconds (default 5)\n"
		"  -q, --quiet          no line on success\n",
		NS_DEFAULT_PORT);
}

int cmd_health(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"port", required_argument, NULL, 'p'}, {"psk-file", required_argument, NULL, 'k'},
		{"timeout", required_argument, NULL, 't'}, {"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	struct ns_err err = {0};
	const char *psk = getenv("NETSWEEP_PSK_FILE"), *port_arg = NULL;
	double timeout_s = 5;
	int quiet = 0, c;
	uint16_t port = NS_DEFAULT_PORT;
	char host[256] = "127.0.0.1";
	optind = 1;
	while ((c = getopt_long(argc, argv, ":p:t:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': port_arg = optarg; break;
		case 'k': psk = optarg; break;
		case 't':
			if (cli_number("--timeout", optarg, 0.1, 3600, &timeout_s, &err) < 0)
				goto usage;
			break;
		case 'q': quiet = 1; break;
		case 'h': usage(stdout); return NS_EXIT_OK;
		default:
			cli_option_error_hint(c, argv, longopts, &err);
			goto usage;
		}
	}
	if (port_arg) {
		uint64_t v;
		if (units_parse_uint(port_arg, 1, 65535, &v, &err) < 0) {
			ns_err_prefix(&err, "--port");
			goto usage;
		}
		port = (uint16_t)v;
	}
	if (optind < argc) {
		if (units_parse_hostport(argv[optind], port, host, sizeof(host), &port, &err) < 0)
			goto usage;
		optind++;
	}
	if (cli_no_operands(argc, argv, &err) < 0)
		goto usage;
	struct proto_status st;
	if (probe_status(host, port, psk, timeout_s, &st, &err) < 0) {
		fprintf(stderr, "netsweep health: agent %s port %u: not healthy: %s\n", host,
			(unsigned)port, err.msg);
		return NS_EXIT_FAIL;
	}
	if (!quiet) {
		char cap[48] = "no --max-rate";
		if (st.max_rate_bps) {
			char r[24];
			units_format_rate((double)st.max_rate_bps, r, sizeof(r));
			snprintf(cap, sizeof(cap), "--max-rate %s", r);
		}
		printf("netsweep health: agent %s port %u healthy: protocol %d, %u of %u test%s "
		       "running, %s%s, up %.0f s\n", host, (unsigned)port, PROTO_VERSION,
		       (unsigned)st.tests, (unsigned)st.max_tests, NS_PLURAL(st.max_tests), cap,
		       st.delegate ? ", delegates" : "", st.uptime_s);
	}
	return NS_EXIT_OK;
usage:
	fprintf(stderr, "netsweep health: %s (see 'netsweep health --help')\n", err.msg);
	return NS_EXIT_USAGE;
}
