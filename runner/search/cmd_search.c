/* `netsweep search HOST[:PORT] --udp -l BYTES`: the highest UDP packet rate whose trials meet
 * each loss goal (NDR, PDR), with real tests against an agent. Prints each trial as it ends
 * and a line per goal, or with --json the object of schemas/search-result.md. --dry-run
 * states the worst-case number of trials and time and runs nothing. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/cli.h"
#include "lib/err.h"
#include "lib/jsonw.h"
#include "lib/units.h"
#include "runner/client/probe_opts.h"
#include "runner/core/cmds.h"
#include "search.h"
#include "search_json.h"
#include "trial.h"

enum {
	OPT_GOALS = PROBE_OPT_END, OPT_EXCEED, OPT_WIDTH, OPT_INITIAL, OPT_FINAL, OPT_SUM, OPT_MIN,
	OPT_MAX, OPT_DRY,
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: netsweep search HOST[:PORT] --udp -l BYTES [options]\n"
		"The highest offered UDP packet rate that meets each loss goal: NDR (no loss) and\n"
		"PDR (partial drop rate) after RFC 2544 and RFC 9971 (MLRsearch).\n"
		"  -p, --port PORT            agent control port (default %d)\n"
		"  -u, --udp                  UDP (the only protocol a loss search applies to)\n"
		"  -l, --length BYTES         UDP payload (%d; %d..%d)\n"
		"  -P, --streams N            parallel streams (default 1; also --parallel)\n"
		"      --threads N            sending/receiving threads\n"
		"  -A, --affinity CPULIST     pin threads on both ends (none: unpinned)\n"
		"      --agent-affinity L     the agent's threads: a CPU list, none or auto\n"
		"      --skip-rx-copy         TCP receiver: drop the bytes in the kernel (MSG_TRUNC)\n"
		"      --rx-zerocopy          TCP receiver: map them (TCP_ZEROCOPY_RECEIVE)\n"
		"  -w, --window BYTES         socket buffers\n"
		"  -R, --reverse              the agent sends\n"
		"      --engine NAME          socket (default), xdp, xdp-rx (AF_XDP; root on both\n"
		"                             ends); NAME,socket: sockets where AF_XDP is refused\n"
		"      --goals LIST           loss ratios, e.g. 0,0.5%% (default; 0 = NDR)\n"
		"      --exceed-ratio R       share of a load's trial time that may exceed the goal\n"
		"                             and the load still count as meeting it (default 0.5)\n"
		"      --width W              relative precision of the result (default 1%%)\n"
		"      --initial-duration S   trials that narrow the bounds (default 1)\n"
		"      --final-duration S     trials that confirm them (default 5)\n"
		"      --duration-sum S       confirming trial time per load (default = final)\n"
		"      --min-pps N            lowest load tried, packets/s, k/M (default max/1000)\n"
		"      --max-pps N            highest load (default: what the sender reaches unpaced)\n"
		"      --connect-timeout S    agent connection timeout (default 5)\n"
		"      --psk-file FILE        the agent's pre-shared key (default $NETSWEEP_PSK_FILE)\n"
		"      --dry-run              state the worst-case trials and time, run nothing\n"
		"  -J, --json                 one JSON object on stdout (schemas/search-result.md)\n",
		NS_DEFAULT_PORT, NS_UDP_DEFAULT_LEN, NS_UDP_MIN_LEN, NS_UDP_MAX_LEN);
}

struct opts {
	struct probe_params p;
	struct search_cfg c;
	double exceed;
	const char *goals;
	bool json, dry_run, udp;
};

static int parse_ratio(const char *s, double *out, struct ns_err *err)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || !(v >= 0))
		return ns_err_code(err, NS_E_USAGE, "'%s': a ratio such as 0.5, or 1%%", s);
	if (*end == '%') {
		v /= 100;
		end++;
	}
	if (*end)
		return ns_err_code(err, NS_E_USAGE, "'%s': a ratio such as 0.5, or 1%%", s);
	*out = v;
	return 0;
}

/* Packets/s with the rate parser's k/M/G suffixes (its number, read as packets). */
static int parse_pps(const char *s, double *out, struct ns_err *err)
{
	uint64_t v;
	if (units_parse_rate(s, &v, err) < 0)
		return -1;
	*out = (double)v;
	return 0;
}

/* search's own options, and those of the test whose meaning differs here: --udp is required
 * (not a switch of protocol), -l is a UDP payload, the key file is taken as given. */
static int apply_opt(int c, const char *arg, void *ctx, struct ns_err *err)
{
	struct opts *o = ctx;
	uint64_t v;
	struct probe_params *p = &o->p;
	switch (c) {
	case 'u': case PROBE_OPT_UDP: o->udp = true; return 0;
	case 'l':
		if (units_parse_bytes(arg, NS_UDP_MAX_LEN, &v, err) < 0)
			return -1;
		p->length = (uint32_t)v;
		return 0;
	case OPT_GOALS: o->goals = arg; return 0;
	case OPT_EXCEED: return parse_ratio(arg, &o->exceed, err);
	case OPT_WIDTH: return parse_ratio(arg, &o->c.goal_width, err);
	case OPT_INITIAL: return units_parse_duration(arg, 3600, &o->c.initial_duration_s, err);
	case OPT_FINAL: return units_parse_duration(arg, 3600, &o->c.final_duration_s, err);
	case OPT_SUM: return units_parse_duration(arg, 360000, &o->c.duration_sum_s, err);
	case OPT_MIN: return parse_pps(arg, &o->c.min_load, err);
	case OPT_MAX: return parse_pps(arg, &o->c.max_load, err);
	case OPT_DRY: o->dry_run = true; return 0;
	case 'J': case PROBE_OPT_JSON: o->json = true; return 0;
	case PROBE_OPT_PSK:
		if (strlen(arg) >= sizeof(p->psk_file))
			return ns_err_code(err, NS_E_USAGE, "path too long");
		snprintf(p->psk_file, sizeof(p->psk_file), "%s", arg);
		return 0;
	}
	return 1;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void goal_name(const struct search_goal *g, char *buf, size_t cap)
{
	if (g->loss_ratio == 0)
		snprintf(buf, cap, "NDR");
	else
		snprintf(buf, cap, "PDR %g%%", g->loss_ratio * 100);
}

struct progress {
	const struct search_cfg *c;
	uint32_t n;
};

static void print_trial(const struct search_trial *t, const struct probe_result *res, void *arg)
{
	(void)res;
	struct progress *pr = arg;
	char load[32];
	if (t->load > 0)
		snprintf(load, sizeof(load), "%.0f pps", t->load);
	else
		snprintf(load, sizeof(load), "unpaced");
	printf("  trial %3u  %5.1f s  %-14s sent %10llu  received %10llu  loss %.4f %%",
	       ++pr->n, t->duration_s, load, (unsigned long long)t->sent,
	       (unsigned long long)t->received, t->loss_ratio * 100);
	if (t->sender_short)
		printf("  offered only %.0f pps: not a trial of this load", t->offered_pps);
	printf("\n");
	fflush(stdout);
}

static void print_summary(const struct opts *o, const struct search_result *r, double elapsed)
{
	uint32_t len = o->p.length ? o->p.length : NS_UDP_DEFAULT_LEN;
	printf("search %s:%u  UDP %u bytes  maximum receive rate %.0f pps (offered up to %.0f)\n",
	       o->p.host, (unsigned)o->p.port, len, r->mrr_pps, r->max_load);
	for (uint32_t i = 0; i < r->n_goals; i++) {
		const struct search_goal_result *g = &r->goals[i];
		char name[32], rate[32];
		goal_name(&g->goal, name, sizeof(name));
		if (g->sender_limited && g->at_least_pps > 0) {
			printf("  %-10s >= %9.0f pps  as far as the sender could offer", name,
			       g->at_least_pps);
			if (g->met) {
				units_format_rate(g->conditional_pps * len * 8.0, rate, sizeof(rate));
				printf("; forwarded %.0f pps, %s of payload", g->conditional_pps, rate);
			}
			printf("\n");
		} else if (g->met) {
			units_format_rate(g->conditional_pps * len * 8.0, rate, sizeof(rate));
			printf("  %-10s %12.0f pps  forwarded %.0f pps, %s of payload", name, g->lower,
			       g->conditional_pps, rate);
			if (g->upper > 0)
				printf("; lowest failing load %.0f pps", g->upper);
			printf("\n");
		} else if (g->sender_limited) {
			printf("  %-10s not met at what the sender could offer\n", name);
		} else {
			printf("  %-10s not met\n", name);
		}
		if (g->note[0])
			printf("             %s\n", g->note);
	}
	printf("  %u trials, %.1f s of trials, %.1f s in all\n", r->n_trials, r->trial_seconds,
	       elapsed);
}

int cmd_search(int argc, char **argv)
{
	static const struct option longopts[] = {
		PROBE_LONGOPTS_SHARED,
		{"goals", required_argument, NULL, OPT_GOALS},
		{"exceed-ratio", required_argument, NULL, OPT_EXCEED},
		{"width", required_argument, NULL, OPT_WIDTH},
		{"initial-duration", required_argument, NULL, OPT_INITIAL},
		{"final-duration", required_argument, NULL, OPT_FINAL},
		{"duration-sum", required_argument, NULL, OPT_SUM},
		{"min-pps", required_argument, NULL, OPT_MIN},
		{"max-pps", required_argument, NULL, OPT_MAX},
		{"dry-run", no_argument, NULL, OPT_DRY},
		{NULL, 0, NULL, 0},
	};
	struct opts o = {.exceed = 0.5};
	struct ns_err err = {0};
	const char *target = NULL;
	probe_params_init(&o.p);
	o.p.proto = NS_PROTO_UDP;
	const char *env_psk = getenv("NETSWEEP_PSK_FILE");
	if (env_psk && strlen(env_psk) < sizeof(o.p.psk_file))
		snprintf(o.p.psk_file, sizeof(o.p.psk_file), "%s", env_psk);
	search_cfg_init(&o.c);
	o.c.duration_sum_s = 0; /* = final duration unless given */
	int parsed = probe_opts_parse(argc, argv, ":p:ul:P:A:w:RJh", longopts, &o.p, apply_opt, &o,
				      &err);
	if (parsed > 0) {
		usage(stdout);
		return NS_EXIT_OK;
	}
	if (parsed < 0)
		goto usage_err;
	if (optind < argc)
		target = argv[optind++];
	if (!target) {
		ns_err_code(&err, NS_E_USAGE, "no agent given: netsweep search HOST[:PORT] --udp");
		goto usage_err;
	}
	if (cli_no_operands(argc, argv, &err) < 0)
		goto usage_err;
	if (!o.udp) {
		ns_err_code(&err, NS_E_USAGE,
			    "a loss search measures UDP: add --udp (TCP retransmits what it loses)");
		goto usage_err;
	}
	if (o.goals && search_parse_goals(o.goals, o.exceed, &o.c, &err) < 0) {
		ns_err_prefix(&err, "--goals");
		goto usage_err;
	}
	for (uint32_t i = 0; i < o.c.n_goals; i++)
		o.c.goals[i].exceed_ratio = o.exceed;
	if (o.c.duration_sum_s == 0)
		o.c.duration_sum_s = o.c.final_duration_s;
	if (probe_params_target(target, &o.p, &err) < 0 || probe_params_check(&o.p, &err) < 0 ||
	    search_cfg_check(&o.c, &err) < 0)
		goto usage_err;

	uint32_t max_trials;
	double max_s;
	search_bounds(&o.c, o.c.max_load > 0 && o.c.min_load > 0 ? o.c.max_load / o.c.min_load : 1000,
		      &max_trials, &max_s);
	if (o.dry_run) {
		if (o.json) {
			struct jsonw w;
			jsonw_init(&w, true);
			search_json_bounds(&w, &o.c);
			const char *t = jsonw_finish(&w);
			if (t)
				printf("%s\n", t);
			jsonw_free(&w);
		} else {
			printf("search %s:%u: %u loss goal(s), at most %u trials and %.0f s "
			       "(trial time plus %.0f s set-up each)\n",
			       o.p.host, (unsigned)o.p.port, o.c.n_goals, max_trials, max_s,
			       o.c.trial_overhead_s);
		}
		return NS_EXIT_OK;
	}
	if (!o.json)
		printf("search %s:%u: at most %u trials, %.0f s\n", o.p.host, (unsigned)o.p.port,
		       max_trials, max_s);

	struct progress pr = {.c = &o.c};
	struct search_probe sp = {.base = o.p, .goal_width = o.c.goal_width,
				  .on_trial = o.json ? NULL : print_trial, .arg = &pr};
	struct search_result r;
	double t0 = now_s();
	int rc = search_run(&o.c, search_probe_trial, &sp, &r, &err);
	double elapsed = now_s() - t0;
	if (rc < 0) {
		char *t = o.json ? probe_opts_json_error(err.msg) : NULL;
		if (t)
			printf("%s\n", t);
		free(t);
		fprintf(stderr, "netsweep search: %s\n", err.msg);
		search_result_free(&r);
		return NS_EXIT_FAIL;
	}
	if (o.json) {
		struct jsonw w;
		jsonw_init(&w, true);
		search_json_write(&w, &o.c, &o.p, &r, elapsed);
		const char *t = jsonw_finish(&w);
		if (t)
			printf("%s\n", t);
		jsonw_free(&w);
	} else {
		print_summary(&o, &r, elapsed);
	}
	search_result_free(&r);
	return NS_EXIT_OK;

usage_err:
	fprintf(stderr, "netsweep search: %s\n", err.msg);
	return NS_EXIT_USAGE;
}
