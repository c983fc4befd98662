/* `netsweep probe HOST[:PORT] [options]`: one test against an agent, with iperf3's option
 * letters. Parses into probe_params, validates once (probe_params_check), runs probe_run and
 * prints per-interval lines and a summary, or with --json the object of
 * schemas/probe-result.md (errors as JSON too). */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>

#include "runner/core/cmds.h"
#include "lib/cli.h"
#include "lib/err.h"
#include "lib/sys/logout.h"
#include "lib/steady.h"
#include "lib/units.h"
#include "client.h"
#include "client_rpm.h"
#include "iperf3_text.h"
#include "probe_opts.h"
#include "runner/proto/dscp.h"
#include "runner/session/limit.h"
#include "runner/proto/auth.h"
#include "runner/proto/iperf3_json.h"
#include "runner/proto/probe.h"
#include "runner/session/limit.h"
#include "runner/core/version.h"
#include "runner/session/session.h"

/* The time limit of a test by amount (-n/-k) without -t: an agent's default --max-duration
 * (runner/agent/caps.h), so that such a test is not refused by a default agent. */
#define PROBE_AMOUNT_LIMIT_S 3600.0

enum {
	OPT_FROM = PROBE_OPT_END, OPT_JSON_FORMAT, OPT_JSON_STREAM, OPT_LOGFILE, OPT_TIMESTAMPS,
	OPT_FORCEFLUSH, OPT_NO_REALTIME, OPT_RPM
};

/* -f's unit for the text output (0 = netsweep's own adaptive units): the command's state. */
static char out_unit;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: netsweep probe HOST[:PORT] [options]   (IPv6: [ADDR]:PORT)\n"
		"  -c, --client HOST[:PORT] the agent, as iperf3's -c (or as the first operand)\n"
		"      --from HOST[:PORT]   send from the agent there (it runs the test against\n"
		"                           HOST and returns the result; see agent --delegate)\n"
		"      --psk-file FILE      the agents' pre-shared key (default $NETSWEEP_PSK_FILE)\n"
		"  -p, --port PORT          agent control port (default %d)\n"
		"  -u, --udp                UDP (default TCP)\n"
		"      --quic               QUIC (ngtcp2): -P connections of one stream each; the agent's\n"
		"                           certificate is made per test and checked by its hash\n"
		"  -P, --streams N          parallel streams, 1..%d (default 1; also --parallel)\n"
		"      --threads N          sending/receiving threads (default min(streams, CPUs))\n"
		"  -l, --length BYTES       TCP write size (128K) or UDP payload (%d; %d..%d)\n"
		"  -b, --rate RATE          pace the total, bits/s with k/M/G (0 = unlimited; also\n"
		"                           --bitrate)\n"
		"      --fq-rate RATE       per-socket kernel pacing (SO_MAX_PACING_RATE)\n"
		"  -t, --time SECS          measured time (default 10)\n"
		"  -i, --interval SECS      interval reports (default 1, 0 = none)\n"
		"  -O, --omit SECS          warm-up excluded from the results\n"
		"  -R, --reverse            the agent sends\n"
		"      --bidir              both directions at once\n"
		"  -A, --affinity CPULIST   pin the engine threads of both ends (e.g. 0-3,8; thread\n"
		"                           i on the i-th CPU), none: unpinned; default: a one-\n"
		"                           stream request/response test pins each end to one CPU\n"
		"                           (one for both on loopback), others run unpinned\n"
		"      --agent-affinity L   the agent's threads instead: a CPU list, none or auto\n"
		"      --skip-rx-copy       TCP receiver: drop the bytes in the kernel (MSG_TRUNC)\n"
		"      --rx-zerocopy        TCP receiver: map them (TCP_ZEROCOPY_RECEIVE; copies\n"
		"                           what cannot be mapped, the result says how much)\n"
		"  -w, --window BYTES       socket buffers (SO_SNDBUF/SO_RCVBUF)\n"
		"  -M, --mss BYTES          TCP maximum segment size (also --set-mss)\n"
		"  -N, --no-delay           TCP_NODELAY\n"
		"  -C, --congestion ALGO    TCP congestion control\n"
		"      --gso                UDP segmentation offload (UDP_SEGMENT)\n"
		"      --engine NAME        socket (default), xdp: AF_XDP frames accounted in XDP\n"
		"                           at the receiver (UDP, IPv4, root), or xdp-rx: AF_XDP\n"
		"                           at both ends, accounted in user space (slower);\n"
		"                           NAME,socket: an end refused AF_XDP uses sockets\n"
		"  -B, --bind ADDR          source address of control and data (reverse data\n"
		"                           comes back to it)\n"
		"      --cport PORT         first data stream's client port, the next count up\n"
		"  -4, --version4 / -6, --version6   IPv4 / IPv6 only\n"
		"  -S, --tos TOS            IP TOS / IPv6 traffic class byte of the data (0..255)\n"
		"      --dscp NAME|VALUE    DSCP of the data: CS0-CS7, AF11-AF43, EF, VA or 0..63\n"
		"  -Z, --zerocopy           MSG_ZEROCOPY sends (TCP, UDP; falls back with a warning)\n"
		"      --dont-fragment      set DF (IP_PMTUDISC_DO): a datagram over the path MTU\n"
		"                           is an error\n"
		"  -n, --bytes BYTES        end when this much was sent, all streams (-t is then a\n"
		"                           time limit, default one hour: agents refuse longer\n"
		"                           tests unless started with a larger --max-duration)\n"
		"  -k, --blockcount N       end after N writes/datagrams of --length, all streams\n"
		"      --until sustained    end once the receive rate stepped down and then held\n"
		"                           steady for --steady SECS (default %g); -t is the bound\n"
		"      --rr tcp|udp|crr     request/response (TCP_RR, UDP_RR): each stream sends a\n"
		"                           request, waits for the response, and the client times\n"
		"                           every transaction (percentiles, transactions/s); crr\n"
		"                           (TCP_CRR): a new connection per transaction\n"
		"      --request BYTES      request size (default 1; UDP at least and default 8)\n"
		"      --response BYTES     response size (likewise)\n"
		"      --rr-rate N[/s]      transactions/s over all streams (default back to back)\n"
		"      --latency-probe tcp|udp  latency under load: a TCP_RR or UDP_RR flow on a\n"
		"                           connection of its own, timed idle first (a short test\n"
		"                           before the load), then beside the load; reports both\n"
		"                           and the delay the load added (bufferbloat)\n"
		"      --latency-rate N[/s] its transactions/s (default %g)\n"
		"      --latency-size BYTES its request and response size (default the least)\n"
		"      --latency-idle S     its idle window before the load (default %g)\n"
		"      --responsiveness     the responsiveness test (RPM, the IETF IPPM draft; also\n"
		"                           --rpm): TCP connections added until the goodput\n"
		"                           saturates, then round trips per minute from probes on\n"
		"                           connections of their own and on the loaded ones\n"
		"                           (schemas/responsiveness.md)\n"
		"      --connect-timeout S  agent connection timeout (default 5)\n"
		"      --timeout S          whole-test bound (default omit + time + 15)\n"
		"  -J, --json               one JSON object on stdout (schemas/probe-result.md)\n"
		"      --json-format F      netsweep (default) or iperf3: iperf3 -J's layout,\n"
		"                           netsweep's own object under the key \"netsweep\"\n"
		"      --json-stream        iperf3 --json-stream: one JSON event a line (start,\n"
		"                           each interval as it ends, end)\n"
		"  -f, --format UNIT        rates in k/m/g/t bits/s or K/M/G/T bytes/s\n"
		"  -V, --verbose            also the host, the time and the CPU of both ends\n"
		"      --logfile FILE       append the output to FILE instead of stdout\n"
		"      --timestamps[=FMT]   start every output line with the time (strftime FMT,\n"
		"                           default \"%%c \")\n"
		"      --forceflush         flush every output line at once\n"
		"      --no-realtime        a paced test's threads stay ordinary (default: real-time\n"
		"                           where permitted, so that a busy host does not make the\n"
		"                           pacer late; also NETSWEEP_REALTIME=0)\n",
		NS_DEFAULT_PORT, NS_MAX_STREAMS, NS_UDP_DEFAULT_LEN, NS_UDP_MIN_LEN, NS_UDP_MAX_LEN,
		STEADY_DEFAULT_S, PROBE_LAT_RATE, PROBE_LAT_IDLE_S);
}

static void print_json_error(const char *msg)
{
	char *t = probe_opts_json_error(msg);
	if (t)
		printf("%s\n", t);
	free(t);
}

/* A byte count in the units of the rates beside it: with -f as iperf3 writes it (MBytes),
 * else netsweep's (MiB). */
static void fmt_bytes(double b, char *buf, size_t cap)
{
	if (out_unit)
		iperf3_format_bytes(b, buf, cap);
	else
		units_format_bytes(b, buf, cap);
}

/* One end's figures; totals: with its transfer and rate (without them when the stream
 * table above has them in its [SUM] line: one summary, not two). */
static void print_figures(const char *who, const struct probe_figures *f, enum ns_proto proto,
			  bool totals)
{
	char rate[40], bytes[32];
	if (out_unit)
		iperf3_format_rate(f->bits_per_second, out_unit, rate, sizeof(rate));
	else
		units_format_rate(f->bits_per_second, rate, sizeof(rate));
	fmt_bytes((double)f->bytes, bytes, sizeof(bytes));
	if (totals)
		printf("  %-9s %12s %15s %12.0f pkt/s  cpu %5.1f%%", who, bytes, rate,
		       f->packets_per_second, f->cpu_percent);
	else
		printf("  %-9s %.0f pkt/s  cpu %.1f%%", who, f->packets_per_second, f->cpu_percent);
	if (proto == NS_PROTO_TCP && !strcmp(who, "sender"))
		printf("  retr %llu  rtt %.3f ms", (unsigned long long)f->retransmits, f->rtt_ms);
	if (proto == NS_PROTO_QUIC && !strcmp(who, "sender"))
		printf("  lost %llu  rtt %.3f ms (min %.3f)", (unsigned long long)f->retransmits,
		       f->rtt_ms, f->rtt_min_ms);
	if (proto == NS_PROTO_UDP && !strcmp(who, "receiver"))
		printf("  lost %llu/%llu (%.3g%%)  ooo %llu  dup %llu  jitter %.3f ms  kernel drops %llu",
		       (unsigned long long)f->lost, (unsigned long long)(f->lost + f->packets),
		       f->lost_percent, (unsigned long long)f->out_of_order,
		       (unsigned long long)f->duplicates, f->jitter_ms,
		       (unsigned long long)f->kernel_drops);
	printf("\n");
}

/* One interval line as the test runs: this end's view (sent for forward, received for
 * reverse); the summary below adds the other end's. */
static void print_interval(const struct probe_interval *v, enum ns_dir dir, void *arg)
{
	const struct probe_params *p = arg;
	char rate[40], bytes[32];
	if (out_unit)
		iperf3_format_rate(v->bits_per_second, out_unit, rate, sizeof(rate));
	else
		units_format_rate(v->bits_per_second, rate, sizeof(rate));
	fmt_bytes((double)v->bytes, bytes, sizeof(bytes));
	/* with -P, iperf3's habit: a line per stream ([  5], its id + 5), then the [SUM] */
	if (p->streams < 2 && v->stream >= 0)
		return;
	if (p->streams > 1)
		printf(v->stream < 0 ? "[SUM]" : "[%3u]", (unsigned)(v->stream + 5) % 1000u);
	printf("  %-7s %7.2f-%-7.2f s %12s %15s", ns_dir_name(dir), v->start_s, v->end_s, bytes,
	       rate);
	if (p->proto != NS_PROTO_UDP && dir == NS_DIR_FORWARD) {
		char cwnd[32];
		fmt_bytes((double)v->cwnd_bytes, cwnd, sizeof(cwnd));
		printf(p->proto == NS_PROTO_TCP ? "  retr %llu  cwnd %s" : "  lost %llu  cwnd %s",
		       (unsigned long long)v->retransmits, cwnd);
	}
	else if (p->proto == NS_PROTO_UDP && dir == NS_DIR_FORWARD)
		printf("  %llu datagrams sent", (unsigned long long)v->packets);
	else if (p->proto == NS_PROTO_UDP)
		printf("  %llu datagrams  lost %llu  jitter %.3f ms", (unsigned long long)v->packets,
		       (unsigned long long)v->lost, v->jitter_ms);
	printf("%s\n", v->omitted ? "  (omitted)" : "");
	fflush(stdout);
}

static void print_header(const struct probe_params *p)
{
	char amount[32];
	units_format_bytes((double)probe_params_amount(p), amount, sizeof(amount));
	printf("netsweep probe: %s %s, %s port %u, %u stream%s, ", ns_proto_name(p->proto),
	       ns_dir_name(p->dir), p->host, (unsigned)p->port, (unsigned)p->streams,
	       p->streams == 1 ? "" : "s");
	if (probe_params_amount(p))
		printf("%s\n", amount);
	else
		printf("%g s\n", p->duration_s);
	fflush(stdout);
}

/* One end's interface counters over the test, when they were read. */
static void print_nic(const char *who, const struct probe_nic *n)
{
	if (!n->ifname[0])
		return;
	printf("NIC %s %s: rx %llu tx %llu packets, rx %llu tx %llu bytes, drops %llu", who,
	       n->ifname, (unsigned long long)n->rx_packets, (unsigned long long)n->tx_packets,
	       (unsigned long long)n->rx_bytes, (unsigned long long)n->tx_bytes,
	       (unsigned long long)n->drops);
	if (n->allowance_counters)
		printf("; allowance exceeded: bw_in %llu bw_out %llu pps %llu conntrack %llu "
		       "linklocal %llu", (unsigned long long)n->bw_in_allowance_exceeded,
		       (unsigned long long)n->bw_out_allowance_exceeded,
		       (unsigned long long)n->pps_allowance_exceeded,
		       (unsigned long long)n->conntrack_allowance_exceeded,
		       (unsigned long long)n->linklocal_allowance_exceeded);
	printf("\n");
}

static void print_latency_figures(const struct probe_latency_figures *f)
{
	printf("%10llu %10.0f/s  min %.1f  p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f us",
	       (unsigned long long)f->transactions, f->transactions_per_second, f->min_us, f->p50_us,
	       f->p90_us, f->p99_us, f->p999_us, f->max_us);
	if (f->lost)
		printf("  lost %llu", (unsigned long long)f->lost);
}

/* Request/response: the latency series and summary (transactions, not bytes). */
static void print_latency(const struct probe_latency *l)
{
	for (uint32_t i = 0; i < l->n_intervals; i++) {
		const struct probe_latency_interval *v = &l->intervals[i];
		printf("  %7.2f-%-7.2f s ", v->start_s, v->end_s);
		print_latency_figures(&v->f);
		printf("%s\n", v->omitted ? "  (omitted)" : "");
	}
	printf("latency summary (percentiles within %.2g %%):\n  ", 100 * l->relative_error);
	print_latency_figures(&l->sum);
	if (l->client_cpu >= 0)
		printf("  (client on CPU %d)", (int)l->client_cpu);
	printf("\n%s\n", l->one_way_why);
}

/* --latency-probe: idle, then loaded, then what the load added. */
static void print_lul(const struct probe_lul *l)
{
	printf("latency under load (%s beside the load):\n  idle   ", l->test);
	print_latency_figures(&l->idle);
	printf("\n  loaded ");
	print_latency_figures(&l->loaded);
	printf("\n  added by the load: p50 %+.1f  p90 %+.1f  p99 %+.1f  p99.9 %+.1f us\n",
	       l->added_p50_us, l->added_p90_us, l->added_p99_us, l->added_p999_us);
}

static void print_text(const struct probe_result *r)
{
	const struct probe_params *p = &r->params;
	if (r->latency.present)
		print_latency(&r->latency);
	if (r->lul.present)
		print_lul(&r->lul);
	/* with -P the stream table is the summary's transfer and rates, its [SUM] the totals;
	 * the lines below add what it has no column for */
	bool table = p->streams > 1;
	if (table)
		iperf3_print_streams(stdout, r, out_unit);
	for (uint32_t d = 0; d < r->n_dirs; d++) {
		const struct probe_direction *pd = &r->dirs[d];
		printf("%s summary:\n", ns_dir_name(pd->dir));
		print_figures("sender", &pd->sender, p->proto, !table);
		print_figures("receiver", &pd->receiver, p->proto, !table);
		const struct probe_limit *l = &pd->limit;
		if (l->limited_by[0])
			printf("  limited by %s%s (busiest thread: sender %.0f %%, receiver %.0f %% "
			       "CPU; waited for a CPU %.0f / %.0f %%; steal %.1f / %.1f %%; "
			       "scheduled %s / %s)\n",
			       limit_words(l->limited_by),
			       l->sender_limited ? ", the sender fell short of the rate asked" : "",
			       l->sender_thread_cpu, l->receiver_thread_cpu, l->sender_runq_pct,
			       l->receiver_runq_pct, l->sender_steal_pct, l->receiver_steal_pct,
			       l->sender_sched[0] ? l->sender_sched : "?",
			       l->receiver_sched[0] ? l->receiver_sched : "?");
	}
	if (r->gso_active)
		printf("UDP GSO (UDP_SEGMENT) was used\n");
	if (r->engine_mode[0] && strcmp(r->engine_mode, "socket"))
		printf("engine: %s\n", r->engine_mode);
	if (r->cpu_placement[0])
		printf("CPU placement: %s (client threads on CPUs %s, agent threads on %s)\n",
		       r->cpu_placement, r->client_cpus[0] ? r->client_cpus : "any",
		       r->agent_cpus[0] ? r->agent_cpus : "any");
	for (uint32_t d = 0; !p->rr[0] && d < r->n_dirs && d < 2; d++)
		printf("CPU per GB%s: sender %.3f s, receiver %.3f s%s%s\n",
		       r->n_dirs > 1 ? (d ? " (reverse)" : " (forward)") : "",
		       r->dirs[d].sender.cpu_s_per_gb, r->dirs[d].receiver.cpu_s_per_gb,
		       r->rx_path[0] && strcmp(r->rx_path, "copy") ? "; receive path " : "",
		       r->rx_path[0] && strcmp(r->rx_path, "copy") ? r->rx_path : "");
	if (p->tos && r->tos_applied >= 0) {
		char name[16];
		dscp_name((uint32_t)r->tos_applied >> 2, name, sizeof(name));
		printf("TOS 0x%02x (DSCP %s) set on the data sockets\n", (unsigned)r->tos_applied, name);
	}
	if (r->zerocopy_active)
		printf("zero-copy: %llu sends, %llu completions, %llu of them copied\n",
		       (unsigned long long)r->zerocopy_sends,
		       (unsigned long long)r->zerocopy_completions,
		       (unsigned long long)r->zerocopy_copied);
	print_nic("client", &r->nic_client);
	print_nic("agent", &r->nic_agent);
	if (r->shaped_by_provider)
		printf("shaped by the provider: an allowance counter moved, so this figure is the "
		       "provider's shaping, not the instance's capacity\n");
	if (r->ended[0])
		printf("ended: %s after %.1f s\n", !strcmp(r->ended, "sustained") ? "the rate held "
		       "steady after a step down" : "at the duration, no steady rate after a step",
		       r->duration_s);
	if (r->warnings[0])
		printf("warning: %s\n", r->warnings);
}

/* What the run's callbacks and the iperf3 JSON need besides the result: the test, whether
 * intervals go out as --json-stream events, when it started and this process's CPU. */
#define VIEW_MAX_STREAMS 128 /* --json-stream: streams an interval event lists, at most */
struct probe_run_view {
	const struct probe_params *p;
	bool stream;
	struct probe_interval streams[VIEW_MAX_STREAMS]; /* this interval's, until its sum */
	uint32_t n_streams;
	struct iperf3_ctx ctx;
	struct rusage ru0;
	double t0;
	char uname_line[400];
};

static double now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double tv_s(struct timeval t)
{
	return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

static void probe_view_start(struct probe_run_view *v, bool verbose)
{
	struct utsname u;
	struct timespec ts;
	if (uname(&u) == 0)
		snprintf(v->uname_line, sizeof(v->uname_line), "%s %s %s %s %s", u.sysname, u.nodename,
			 u.release, u.version, u.machine);
	clock_gettime(CLOCK_REALTIME, &ts);
	v->ctx = (struct iperf3_ctx){.start_unix = (double)ts.tv_sec, .system_info = v->uname_line,
				     .host_user_pct = -1, .host_system_pct = -1};
	getrusage(RUSAGE_SELF, &v->ru0);
	v->t0 = now_mono();
	if (verbose) {
		char when[64];
		time_t t = ts.tv_sec;
		struct tm tm;
		strftime(when, sizeof(when), "%a, %d %b %Y %H:%M:%S GMT", gmtime_r(&t, &tm));
		printf("netsweep %s\n%s\nTime: %s\n", NETSWEEP_VERSION, v->uname_line, when);
	}
	if (v->stream) {
		char *text = iperf3_json_event_start(v->p, &v->ctx);
		if (text)
			printf("%s\n", text);
		free(text);
		fflush(stdout);
	}
}

/* This process's user and system CPU over the test, % of one CPU, as iperf3 reports it. */
static void probe_view_end(struct probe_run_view *v)
{
	struct rusage ru;
	double wall = now_mono() - v->t0;
	if (getrusage(RUSAGE_SELF, &ru) != 0 || wall <= 0)
		return;
	v->ctx.host_user_pct = 100.0 * (tv_s(ru.ru_utime) - tv_s(v->ru0.ru_utime)) / wall;
	v->ctx.host_system_pct = 100.0 * (tv_s(ru.ru_stime) - tv_s(v->ru0.ru_stime)) / wall;
}

static void view_interval(const struct probe_interval *sum, enum ns_dir dir, void *arg)
{
	struct probe_run_view *v = arg;
	if (!v->stream) {
		print_interval(sum, dir, (void *)v->p);
		return;
	}
	if (sum->stream >= 0) {
		if (v->n_streams < VIEW_MAX_STREAMS)
			v->streams[v->n_streams++] = *sum;
		return;
	}
	char *text = iperf3_json_event_interval(v->p, sum, v->streams, v->n_streams, dir);
	v->n_streams = 0;
	if (text)
		printf("%s\n", text);
	free(text);
	fflush(stdout);
}

static void print_verbose_end(const struct probe_result *r, const struct iperf3_ctx *c)
{
	double remote = 0;
	for (uint32_t d = 0; d < r->n_dirs && d < 2; d++)
		remote += r->dirs[d].dir == NS_DIR_REVERSE ? r->dirs[d].sender.cpu_percent
							   : r->dirs[d].receiver.cpu_percent;
	if (c->host_user_pct >= 0)
		printf("CPU Utilization: local %.1f%% (%.1f%%u/%.1f%%s), remote (engine threads) "
		       "%.1f%%\n", c->host_user_pct + c->host_system_pct, c->host_user_pct,
		       c->host_system_pct, remote);
	if (r->agent_hostinfo)
		printf("agent: %s\n", r->agent_hostinfo);
}

/* What probe's own options say; the test options go into probe_params. */
struct cli {
	const char *from_arg, *psk, *target;
	bool time_given, iperf3_json, json_stream, verbose, rpm;
	struct logout_opts out;
};

static int own_opt(int c, const char *arg, void *ctx, struct ns_err *err)
{
	struct cli *o = ctx;
	switch (c) {
	case OPT_FROM: o->from_arg = arg; return 0;
	case OPT_RPM: o->rpm = true; return 0;
	case PROBE_OPT_PSK: o->psk = arg; return 0;
	case 'J': case PROBE_OPT_JSON: return 0; /* taken before parsing */
	case 't': o->time_given = true; break;
	case 'c': o->target = arg; return 0;
	case 'V': o->verbose = true; return 0;
	case 'f': return iperf3_unit_parse(arg, &out_unit, err);
	case OPT_JSON_FORMAT:
		if (!strcmp(arg, "iperf3") || !strcmp(arg, "netsweep")) {
			o->iperf3_json = !strcmp(arg, "iperf3");
			return 0;
		}
		return ns_err_code(err, NS_E_USAGE, "'%s' is not a JSON format (netsweep, iperf3)", arg);
	case OPT_JSON_STREAM: o->json_stream = true; return 0;
	case OPT_LOGFILE: o->out.logfile = arg; return 0;
	case OPT_TIMESTAMPS: o->out.time_format = arg ? arg : ""; return 0;
	case OPT_FORCEFLUSH: o->out.forceflush = true; return 0;
	case OPT_NO_REALTIME: engine_set_realtime(false); return 0;
	}
	return 1;
}

static const struct option longopts[] = {
	PROBE_LONGOPTS_SHARED,
	{"bitrate", required_argument, NULL, 'b'}, /* iperf3's name first: -b/--bitrate in errors */
	{"quic", no_argument, NULL, PROBE_OPT_QUIC},
	{"rate", required_argument, NULL, 'b'},
	{"fq-rate", required_argument, NULL, PROBE_OPT_FQ_RATE},
	{"time", required_argument, NULL, 't'},
	{"interval", required_argument, NULL, 'i'},
	{"omit", required_argument, NULL, 'O'},
	{"bidir", no_argument, NULL, PROBE_OPT_BIDIR},
	{"mss", required_argument, NULL, 'M'},
	{"set-mss", required_argument, NULL, 'M'},
	{"no-delay", no_argument, NULL, 'N'},
	{"congestion", required_argument, NULL, 'C'},
	{"gso", no_argument, NULL, PROBE_OPT_GSO},
	{"timeout", required_argument, NULL, PROBE_OPT_TIMEOUT},
	{"from", required_argument, NULL, OPT_FROM},
	{"responsiveness", no_argument, NULL, OPT_RPM},
	{"rpm", no_argument, NULL, OPT_RPM},
	{"bind", required_argument, NULL, 'B'},
	{"cport", required_argument, NULL, PROBE_OPT_CPORT},
	{"version4", no_argument, NULL, '4'},
	{"version6", no_argument, NULL, '6'},
	{"tos", required_argument, NULL, 'S'},
	{"dscp", required_argument, NULL, PROBE_OPT_DSCP},
	{"zerocopy", no_argument, NULL, 'Z'},
	{"dont-fragment", no_argument, NULL, PROBE_OPT_DONT_FRAGMENT},
	{"bytes", required_argument, NULL, 'n'},
	{"blockcount", required_argument, NULL, 'k'},
	{"until", required_argument, NULL, PROBE_OPT_UNTIL},
	{"steady", required_argument, NULL, PROBE_OPT_STEADY},
	{"client", required_argument, NULL, 'c'},
	{"json-format", required_argument, NULL, OPT_JSON_FORMAT},
	{"json-stream", no_argument, NULL, OPT_JSON_STREAM},
	{"format", required_argument, NULL, 'f'},
	{"verbose", no_argument, NULL, 'V'},
	{"logfile", required_argument, NULL, OPT_LOGFILE},
	{"timestamps", optional_argument, NULL, OPT_TIMESTAMPS},
	{"forceflush", no_argument, NULL, OPT_FORCEFLUSH},
	{"no-realtime", no_argument, NULL, OPT_NO_REALTIME},
	{"rr", required_argument, NULL, PROBE_OPT_RR},
	{"request", required_argument, NULL, PROBE_OPT_REQUEST},
	{"response", required_argument, NULL, PROBE_OPT_RESPONSE},
	{"rr-rate", required_argument, NULL, PROBE_OPT_RR_RATE},
	{"latency-probe", required_argument, NULL, PROBE_OPT_LAT_PROBE},
	{"latency-rate", required_argument, NULL, PROBE_OPT_LAT_RATE},
	{"latency-size", required_argument, NULL, PROBE_OPT_LAT_SIZE},
	{"latency-idle", required_argument, NULL, PROBE_OPT_LAT_IDLE},
	{NULL, 0, NULL, 0},
};

/* The whole command line: the test's parameters and probe's own options. */
struct probe_cmd {
	struct probe_params p;
	struct probe_params from;          /* --from: the client agent to send from */
	struct cli o;
	bool json;                         /* --json, -J or --json-stream: errors come as JSON */
};

/* argv into c: 0, 1 when --help was asked (and printed), -1 with err (NS_E_USAGE). */
static int probe_cmd_parse(struct probe_cmd *c, int argc, char **argv, struct ns_err *err)
{
	char hint[256];
	probe_params_init(&c->p);
	probe_params_init(&c->from);
	c->o = (struct cli){.psk = getenv("NETSWEEP_PSK_FILE")};
	for (int i = 1; i < argc; i++) /* errors come out as JSON whatever the option order */
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-J") ||
		    !strcmp(argv[i], "--json-stream"))
			c->json = true;
	if (iperf3_hint(argc, argv, hint, sizeof(hint)))
		return ns_err_code(err, NS_E_USAGE, "%s", hint);
	int parsed = probe_opts_parse(argc, argv, ":p:uP:l:b:t:i:O:RA:w:M:NC:JhB:46S:Zn:k:c:f:V",
				      longopts, &c->p, own_opt, &c->o, err);
	if (parsed > 0) {
		usage(stdout);
		return 1;
	}
	if (parsed < 0)
		return -1;
	if (!c->o.target && optind < argc)
		c->o.target = argv[optind++];
	if (!c->o.target)
		return ns_err_code(err, NS_E_USAGE,
				   "no agent given: netsweep probe HOST[:PORT] (or -c HOST)");
	return cli_no_operands(argc, argv, err);
}

/* The options together: the key file read, the defaults that depend on other options, the
 * parameters checked, the agents' addresses resolved, --logfile opened. -1 with err. */
static int probe_cmd_validate(struct probe_cmd *c, struct ns_err *err)
{
	struct probe_params *p = &c->p;
	const char *psk = c->o.psk;
	if (psk && psk[0]) {
		struct auth_key key; /* read now: a bad key file is a usage error, not a failed run */
		int bad = strlen(psk) >= sizeof(p->psk_file)
				  ? ns_err_code(err, NS_E_USAGE, "--psk-file '%s' is too long (at most "
						"%zu characters)", psk, sizeof(p->psk_file) - 1)
				  : auth_key_load(psk, &key, err);
		if (!bad)
			memcpy(p->psk_file, psk, strlen(psk) + 1);
		auth_key_clear(&key);
		if (bad)
			return -1;
	}
	/* by amount, as iperf3's -n/-k: the time is only a limit; unless given, the longest test
	 * an agent takes by default (agent --max-duration) */
	if ((p->bytes || p->blocks) && !c->o.time_given)
		p->duration_s = PROBE_AMOUNT_LIMIT_S - p->omit_s;
	if (p->until[0] && !p->steady_s)
		p->steady_s = STEADY_DEFAULT_S;
	if (probe_params_target(c->o.target, p, err) < 0 || probe_params_check(p, err) < 0)
		return -1;
	if (c->o.from_arg && probe_params_target(c->o.from_arg, &c->from, err) < 0) {
		ns_err_prefix(err, "--from");
		return -1;
	}
	int cpus[UNITS_MAX_CPUS];
	uint32_t n_cpus;
	if (!c->o.from_arg && session_cpus(p, false, cpus, UNITS_MAX_CPUS, &n_cpus, err) < 0)
		return -1; /* this host's */
	char why[NS_ERR_MAX]; /* this host runs the QUIC end itself: say so before any agent */
	if (!c->o.from_arg && p->proto == NS_PROTO_QUIC && !quic_available(why, sizeof(why)))
		return ns_err_code(err, NS_E_UNSUPPORTED, "%s", why);
	if (c->o.out.logfile || c->o.out.time_format || c->o.out.forceflush) {
		FILE *f = logout_open(&c->o.out, err);
		if (!f)
			return -1;
		fflush(stdout);
		stdout = f; /* every printf of this command obeys --logfile/--timestamps */
	}
	return 0;
}

/* --responsiveness: the responsiveness test (client_rpm.h) and its result, JSON
 * (schemas/responsiveness.md) or text. */
static int probe_cmd_rpm(const struct probe_params *p, bool json)
{
	struct probe_result res;
	struct ns_err err = {0};
	int rc = client_rpm_run(p, &res, &err);
	const struct probe_rpm *r = &res.rpm;
	if (json) {
		char *text = probe_result_json(&res, true);
		if (text)
			printf("%s\n", text);
		else
			print_json_error("out of memory writing the result");
		free(text);
	} else if (rc == 0) {
		printf("Responsiveness: %.0f RPM under working conditions (idle %.0f RPM)\n", r->rpm,
		       r->rpm_idle);
		printf("  foreign probes (TCP_RR on connections of their own): trimmed mean %.3f ms of "
		       "%llu; idle %.3f ms of %llu\n", r->foreign_tm_ms,
		       (unsigned long long)r->foreign_probes, r->idle_tm_ms,
		       (unsigned long long)r->idle_probes);
		printf("  self (smoothed RTT of the loaded connections): trimmed mean %.3f ms of %llu\n",
		       r->self_tm_ms, (unsigned long long)r->self_samples);
		printf("  %u load-generating connections (%s), goodput %.1f Mbit/s\n", r->connections,
		       r->saturated ? "goodput saturated" : "goodput not saturated",
		       r->goodput_bps / 1e6);
		if (res.warnings[0])
			printf("warning: %s\n", res.warnings);
	}
	if (rc < 0)
		fprintf(stderr, "netsweep probe: %s\n", err.msg);
	probe_result_free(&res);
	if (fflush(stdout) != 0 || ferror(stdout))
		rc = -1;
	return rc < 0 ? NS_EXIT_FAIL : NS_EXIT_OK;
}

/* Runs the test and prints its result as asked: the exit code. */
static int probe_cmd_run(struct probe_cmd *c)
{
	struct probe_params *p = &c->p;
	const struct cli *o = &c->o;
	bool json = c->json;
	struct ns_err err = {0};
	signal(SIGPIPE, SIG_IGN); /* a lost peer is an error of its call, not the end of us */
	if (o->rpm)
		return probe_cmd_rpm(p, json);
	struct probe_result res;
	struct probe_run_view view = {.p = p, .stream = o->json_stream};
	probe_view_start(&view, o->verbose && !json);
	if (!json)
		print_header(p);
	int rc;
	if (o->from_arg) {
		/* the client agent's CPUs, not ours, take the affinity; its intervals come at the end */
		rc = probe_run_from(c->from.host, c->from.port, p, &res, &err);
		for (uint32_t d = 0; (!json || o->json_stream) && d < res.n_dirs; d++)
			for (uint32_t i = 0; i < res.dirs[d].n_intervals; i++)
				if (res.dirs[d].intervals[i].stream == -1)
					view_interval(&res.dirs[d].intervals[i], res.dirs[d].dir, &view);
	} else {
		rc = client_run(p, &res, (json && !o->json_stream) || p->rr[0] ? NULL : view_interval,
				&view, &err);
	}
	probe_view_end(&view);
	if (o->json_stream) {
		char *text = iperf3_json_event_end(&res, &view.ctx);
		printf("%s\n", text ? text : "{\"event\": \"error\", \"data\": \"out of memory\"}");
		free(text);
	} else if (json) {
		char *text = o->iperf3_json ? iperf3_json(&res, &view.ctx, true)
					    : probe_result_json(&res, true);
		if (text)
			printf("%s\n", text);
		else
			print_json_error("out of memory writing the result");
		free(text);
	} else {
		print_text(&res);
		if (o->verbose)
			print_verbose_end(&res, &view.ctx);
	}
	if (rc < 0)
		fprintf(stderr, "netsweep probe: %s\n", err.msg);
	probe_result_free(&res);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "netsweep probe: writing the output failed\n");
		rc = -1;
	}
	return rc < 0 ? NS_EXIT_FAIL : NS_EXIT_OK;
}

int cmd_probe(int argc, char **argv)
{
	struct probe_cmd c = {0};
	struct ns_err err = {0};
	int parsed = probe_cmd_parse(&c, argc, argv, &err);
	if (parsed > 0)
		return NS_EXIT_OK;
	if (parsed < 0 || probe_cmd_validate(&c, &err) < 0) {
		fprintf(stderr, "netsweep probe: %s\n", err.msg);
		if (c.json)
			print_json_error(err.msg);
		return NS_EXIT_USAGE;
	}
	return probe_cmd_run(&c);
}
