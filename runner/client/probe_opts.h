/* probe_opts: the test options `netsweep probe` and `netsweep search` share — iperf3's letters
 * and long names, each parsed into probe_params in one place with one wording — and the JSON
 * object a command prints for an error with --json. Commands keep their own options and
 * parsing loop; this only turns one option into a field. */
#ifndef NS_PROBE_OPTS_H
#define NS_PROBE_OPTS_H

#include <getopt.h>

#include "lib/err.h"
#include "runner/proto/probe.h"

/* getopt_long values of the long-only test options; a command's own start at PROBE_OPT_END. */
enum probe_opt {
	PROBE_OPT_UDP = 256, PROBE_OPT_THREADS, PROBE_OPT_FQ_RATE, PROBE_OPT_BIDIR, PROBE_OPT_GSO,
	PROBE_OPT_JSON, PROBE_OPT_CONNECT_TIMEOUT, PROBE_OPT_TIMEOUT, PROBE_OPT_ENGINE,
	PROBE_OPT_CPORT, PROBE_OPT_DSCP, PROBE_OPT_DONT_FRAGMENT, PROBE_OPT_PSK, PROBE_OPT_UNTIL,
	PROBE_OPT_STEADY, PROBE_OPT_RR, PROBE_OPT_REQUEST, PROBE_OPT_RESPONSE, PROBE_OPT_RR_RATE,
	PROBE_OPT_LAT_PROBE, PROBE_OPT_LAT_RATE, PROBE_OPT_LAT_SIZE, PROBE_OPT_LAT_IDLE,
	PROBE_OPT_QUIC, PROBE_OPT_AGENT_AFFINITY, PROBE_OPT_SKIP_RX_COPY, PROBE_OPT_RX_ZEROCOPY,
	PROBE_OPT_END
};

/* The long options both commands take, as struct option entries. */
#define PROBE_LONGOPTS_SHARED \
	{"port", required_argument, NULL, 'p'}, \
	{"udp", no_argument, NULL, PROBE_OPT_UDP}, \
	{"length", required_argument, NULL, 'l'}, \
	{"streams", required_argument, NULL, 'P'}, \
	{"parallel", required_argument, NULL, 'P'}, \
	{"threads", required_argument, NULL, PROBE_OPT_THREADS}, \
	{"affinity", required_argument, NULL, 'A'}, \
	{"agent-affinity", required_argument, NULL, PROBE_OPT_AGENT_AFFINITY}, \
	{"skip-rx-copy", no_argument, NULL, PROBE_OPT_SKIP_RX_COPY}, \
	{"rx-zerocopy", no_argument, NULL, PROBE_OPT_RX_ZEROCOPY}, \
	{"window", required_argument, NULL, 'w'}, \
	{"reverse", no_argument, NULL, 'R'}, \
	{"engine", required_argument, NULL, PROBE_OPT_ENGINE}, \
	{"json", no_argument, NULL, PROBE_OPT_JSON}, \
	{"connect-timeout", required_argument, NULL, PROBE_OPT_CONNECT_TIMEOUT}, \
	{"psk-file", required_argument, NULL, PROBE_OPT_PSK}, \
	{"help", no_argument, NULL, 'h'}

/* Option c (a letter or a PROBE_OPT_*) with its argument into p. Returns 0, -1 with err set
 * (the value's fault; probe_opts_parse names the option), or 1 when c is not a
 * test option (-J/--json, --psk-file and the command's own are the caller's). */
int probe_opts_apply(int c, const char *arg, struct probe_params *p, struct ns_err *err);

/* A command's own options: 0 taken, -1 a bad value (err set), 1 not its own (then the
 * option is a test option, for probe_opts_apply). */
typedef int (*probe_opts_fn)(int c, const char *arg, void *ctx, struct ns_err *err);

/* Parses argv's options with getopt_long (from argv[1], permuting, so that HOST may come
 * anywhere as iperf3 allows): each goes to fn, then into p by probe_opts_apply. Returns 0
 * with optind at the first operand, 1 for -h/--help, -1 with err naming the option (a usage
 * error). */
int probe_opts_parse(int argc, char **argv, const char *optstring,
		     const struct option *longopts, struct probe_params *p, probe_opts_fn fn,
		     void *ctx, struct ns_err *err);

/* {"version": 1, "status": "error", "error": msg} as malloc'd text (NULL: out of memory). */
char *probe_opts_json_error(const char *msg);

#endif
