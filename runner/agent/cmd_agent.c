/* `netsweep agent [--listen ADDR:PORT] [--psk-file FILE] [--allow CIDR,...] [--delegate] ...`:
 * serves tests, several at once (--max-tests), until SIGINT or SIGTERM. The default control port is NS_DEFAULT_PORT (5301) on "::" (IPv4 too). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/core/cmds.h"
#include "lib/cli.h"
#include "lib/err.h"
#include "lib/units.h"
#include "agent.h"
#include "conn.h"
#include "caps.h"
#include "runner/proto/probe.h"

static struct agent *volatile running_agent;

static void on_signal(int sig)
{
	(void)sig;
	if (running_agent)
		agent_stop(running_agent); /* only stores a flag and writes a pipe */
}

static void usage(FILE *f)
{
	fprintf(f, "usage: netsweep agent [--listen ADDR:PORT] [--psk-file FILE] [--allow CIDR,...]\n"
		   "                      [--trust CIDR[:N],...] [--delegate] [--max-duration S] [--max-rate RATE]\n"
		   "                      [--max-streams N] [--max-tests N] [--idle-timeout S]\n"
		   "                      [--no-realtime] [--quiet]\n"
		   "  -l, --listen ADDR:PORT  control address (default [::]:%d, IPv4 too;\n"
		   "                          [ADDR]:PORT for IPv6, :PORT for any address, port 0 = any free)\n"
		   "  -k, --psk-file FILE     pre-shared key (netsweep key FILE) every client must prove;\n"
		   "                          without one only loopback clients are served\n"
		   "      --allow CIDR,...    serve only clients in these address blocks, and send\n"
		   "                          delegated tests only to targets in them\n"
		   "      --trust CIDR[:N],...  each address in these blocks may hold N connections\n"
		   "                          in their handshake at once (default N %d; others %d,\n"
		   "                          and %d per /24 or /64): key holders behind one NAT;\n"
		   "                          a host with :N is written ADDR/32 or ADDR/128\n"
		   "      --delegate          run tests on a remote runner's behalf (a matrix pair's\n"
		   "                          client, netsweep probe --from); off by default\n"
		   "      --no-delegate       the default: refuse every delegated test\n"
		   "      --max-duration S    omit + duration of one test, at most (default %g s)\n"
		   "      --max-rate RATE     a test must pace at or below RATE, bits/s (--bidir: half\n"
		   "                          each way), and all the agent sends, all its tests\n"
		   "                          together, keeps to it from the first byte (default: no cap)\n"
		   "      --max-streams N     streams per direction, at most (default %d)\n"
		   "      --max-tests N       tests served at once, each client its own (1..%d,\n"
		   "                          default %d); one more is refused naming the bound\n"
		   "      --idle-timeout S    drop a silent client after S seconds (default 10)\n"
		   "      --no-realtime       paced tests' threads stay ordinary (default: real-time\n"
		   "                          where permitted, so a busy host does not make them\n"
		   "                          late; also NETSWEEP_REALTIME=0)\n"
		   "  -q, --quiet             no log lines on stderr\n"
		   "      --logfile FILE      append the log lines (each test's summary, with the\n"
		   "                          time) to FILE instead of stderr\n",
		NS_DEFAULT_PORT, AGENT_TRUST_DEFAULT, AGENT_PENDING_PER_ADDR, AGENT_PENDING_PER_PREFIX,
		AGENT_DEFAULT_MAX_DURATION_S, NS_MAX_STREAMS, AGENT_MAX_TESTS_LIMIT,
		AGENT_DEFAULT_MAX_TESTS);
}

/* "ADDR:PORT", "[V6]:PORT", ":PORT", "ADDR" (default port). */
static int parse_listen(const char *s, struct agent_opts *o, struct ns_err *err)
{
	char addr[256];
	const char *port = NULL;
	if (s[0] == '[') {
		const char *end = strchr(s, ']');
		if (!end || (size_t)(end - s - 1) >= sizeof(addr))
			return ns_err_set(err, "bad --listen address '%s'", s);
		memcpy(addr, s + 1, (size_t)(end - s - 1));
		addr[end - s - 1] = '\0';
		if (end[1] == ':')
			port = end + 2;
		else if (end[1])
			return ns_err_set(err, "bad --listen address '%s'", s);
	} else {
		const char *colon = strrchr(s, ':');
		if (colon && strchr(s, ':') == colon) { /* exactly one colon: host:port */
			port = colon + 1;
			snprintf(addr, sizeof(addr), "%.*s", (int)(colon - s), s);
		} else {
			snprintf(addr, sizeof(addr), "%s", s);
		}
	}
	snprintf(o->listen_addr, sizeof(o->listen_addr), "%s", addr[0] ? addr : "::");
	if (port) {
		uint64_t v;
		if (units_parse_uint(port, 0, 65535, &v, err) < 0) {
			ns_err_prefix(err, "--listen port");
			return -1;
		}
		o->port = (uint16_t)v;
	}
	return 0;
}

/* The agent's log lines: stderr, which --logfile reopened on the file. */
static void log_line(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "%s\n", line);
}

int cmd_agent(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"listen", required_argument, NULL, 'l'},
		{"idle-timeout", required_argument, NULL, 'I'},
		{"quiet", no_argument, NULL, 'q'},
		{"no-delegate", no_argument, NULL, 'D'},
		{"delegate", no_argument, NULL, 'G'},
		{"psk-file", required_argument, NULL, 'k'},
		{"allow", required_argument, NULL, 'A'},
		{"trust", required_argument, NULL, 'R'},
		{"max-duration", required_argument, NULL, 'T'},
		{"max-rate", required_argument, NULL, 'B'},
		{"max-streams", required_argument, NULL, 'S'},
		{"max-tests", required_argument, NULL, 'M'},
		{"logfile", required_argument, NULL, 'L'},
		{"no-realtime", no_argument, NULL, 'N'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct agent_opts o;
	struct ns_err err = {0};
	const char *logfile = NULL;
	int c;
	agent_opts_init(&o);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":l:k:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (parse_listen(optarg, &o, &err) < 0)
				goto usage_err;
			break;
		case 'I':
			if (units_parse_duration(optarg, 3600, &o.idle_timeout_s, &err) < 0 ||
			    !(o.idle_timeout_s > 0)) {
				ns_err_set(&err, "--idle-timeout must be > 0 and <= 3600 s");
				goto usage_err;
			}
			break;
		case 'q':
			o.quiet = 1;
			break;
		case 'L':
			logfile = optarg;
			break;
		case 'N':
			engine_set_realtime(false);
			break;
		case 'D':
			o.delegate = 0;
			break;
		case 'G':
			o.delegate = 1;
			break;
		case 'k':
			o.psk_file = optarg;
			break;
		case 'A':
			o.allow = optarg;
			break;
		case 'R':
			o.trust = optarg;
			break;
		case 'T':
			if (units_parse_duration(optarg, NS_MAX_DURATION_S, &o.max_duration_s, &err) < 0 ||
			    !(o.max_duration_s > 0)) {
				ns_err_set(&err, "--max-duration must be > 0 and <= %g s",
					   NS_MAX_DURATION_S);
				goto usage_err;
			}
			break;
		case 'B':
			if (units_parse_rate(optarg, &o.max_rate_bps, &err) < 0) {
				ns_err_prefix(&err, "--max-rate");
				goto usage_err;
			}
			if (!o.max_rate_bps) {
				ns_err_set(&err, "--max-rate must be more than 0 (no option: no cap)");
				goto usage_err;
			}
			break;
		case 'S': {
			uint64_t v;
			if (units_parse_uint(optarg, 1, NS_MAX_STREAMS, &v, &err) < 0) {
				ns_err_prefix(&err, "--max-streams");
				goto usage_err;
			}
			o.max_streams = (uint32_t)v;
			break;
		}
		case 'M': {
			uint64_t v;
			if (units_parse_uint(optarg, 1, AGENT_MAX_TESTS_LIMIT, &v, &err) < 0) {
				ns_err_prefix(&err, "--max-tests");
				goto usage_err;
			}
			o.max_tests = (uint32_t)v;
			break;
		}
		case 'h':
			usage(stdout);
			return NS_EXIT_OK;
		default:
			cli_option_error_hint(c, argv, longopts, &err);
			goto usage_err;
		}
	}
	if (cli_no_operands(argc, argv, &err) < 0)
		goto usage_err;
	if (logfile) {
		FILE *f = fopen(logfile, "a");
		if (!f) {
			ns_err_code(&err, NS_E_USAGE, "--logfile %s: %s", logfile, strerror(errno));
			goto usage_err;
		}
		fclose(f);
		if (!freopen(logfile, "a", stderr))
			return NS_EXIT_FAIL; /* stderr itself is gone: nothing to say it on */
		setvbuf(stderr, NULL, _IOLBF, 0);
	}

	o.log = log_line;
	struct agent *a = agent_create(&o, &err);
	if (!a) {
		fprintf(stderr, "netsweep agent: %s\n", err.msg);
		return err.code == NS_E_INPUT || err.code == NS_E_USAGE ? NS_EXIT_USAGE : NS_EXIT_FAIL;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	running_agent = a;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	int rc = agent_serve(a, &err);
	running_agent = NULL;
	agent_destroy(a);
	if (rc < 0) {
		fprintf(stderr, "netsweep agent: %s\n", err.msg);
		return NS_EXIT_FAIL;
	}
	return NS_EXIT_OK;

usage_err:
	fprintf(stderr, "netsweep agent: %s (see 'netsweep agent --help')\n", err.msg);
	return NS_EXIT_USAGE;
}
