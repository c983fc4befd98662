/* iperf3_text: iperf3's units, stream table and option hints (iperf3_text.h). */
#include "iperf3_text.h"

#include <ctype.h>
#include <string.h>

int iperf3_unit_parse(const char *arg, char *unit, struct ns_err *err)
{
	if (arg && strlen(arg) == 1 && strchr("kmgtKMGT", arg[0])) {
		*unit = arg[0];
		return 0;
	}
	return ns_err_code(err, NS_E_USAGE, "unknown format '%s' (k, m, g, t for bits/s; K, M, G, T "
			   "for bytes/s)", arg ? arg : "");
}

void iperf3_format_rate(double bps, char unit, char *buf, size_t cap)
{
	static const char letters[] = "kmgt";
	static const char *const bit_names[] = {"Kbits", "Mbits", "Gbits", "Tbits"};
	static const char *const byte_names[] = {"KBytes", "MBytes", "GBytes", "TBytes"};
	int lower = unit && islower((unsigned char)unit);
	const char *at = unit ? strchr(letters, tolower((unsigned char)unit)) : NULL;
	if (!at) { /* adaptive bits, as iperf3 without -f */
		const char *names[] = {"bits", "Kbits", "Mbits", "Gbits", "Tbits"};
		int i = 0;
		while (i < 4 && bps >= 1000.0) {
			bps /= 1000.0;
			i++;
		}
		snprintf(buf, cap, "%.*f %s/sec", bps < 10 ? 2 : bps < 100 ? 1 : 0, bps, names[i]);
		return;
	}
	int power = (int)(at - letters) + 1;
	double v = lower ? bps : bps / 8.0;
	for (int i = 0; i < power; i++)
		v /= lower ? 1000.0 : 1024.0;
	snprintf(buf, cap, "%.*f %s/sec", v < 10 ? 2 : v < 100 ? 1 : 0, v,
		 lower ? bit_names[power - 1] : byte_names[power - 1]);
}

void iperf3_format_bytes(double bytes, char *buf, size_t cap)
{
	const char *names[] = {"Bytes", "KBytes", "MBytes", "GBytes", "TBytes"};
	int i = 0;
	while (i < 4 && bytes >= 1024.0) {
		bytes /= 1024.0;
		i++;
	}
	snprintf(buf, cap, "%.*f %s", bytes < 10 ? 2 : bytes < 100 ? 1 : 0, bytes, names[i]);
}

static void stream_line(FILE *out, const char *id, double secs, const struct probe_figures *f,
			const struct probe_params *p, const char *role, char unit)
{
	char rate[40], bytes[40];
	iperf3_format_rate(f->bits_per_second, unit, rate, sizeof(rate));
	iperf3_format_bytes((double)f->bytes, bytes, sizeof(bytes));
	fprintf(out, "[%s]   0.00-%-6.2f sec  %12s  %16s", id, secs, bytes, rate);
	if (p->proto != NS_PROTO_UDP) /* QUIC: the packets declared lost */
		fprintf(out, !strcmp(role, "sender") ? "  %4llu" : "      ",
			(unsigned long long)f->retransmits);
	else if (!strcmp(role, "receiver"))
		fprintf(out, "  %.3f ms  %llu/%llu (%.2g%%)", f->jitter_ms,
			(unsigned long long)f->lost, (unsigned long long)(f->lost + f->packets),
			f->lost_percent);
	fprintf(out, "  %s\n", role);
}

void iperf3_print_streams(FILE *out, const struct probe_result *r, char unit)
{
	const struct probe_params *p = &r->params;
	for (uint32_t n = 0; n < r->n_dirs && n < 2; n++) {
		const struct probe_direction *d = &r->dirs[n];
		char id[8];
		fprintf(out, "- - - - - - - - - - - - - - - - - - - - - - - - -\n");
		if (r->n_dirs > 1)
			fprintf(out, "%s:\n", ns_dir_name(d->dir));
		fprintf(out, "[ ID] Interval           Transfer          Bitrate%s\n",
			p->proto != NS_PROTO_UDP ? "          Retr" : "           Jitter    Lost/Total");
		for (uint32_t i = 0; i < d->n_streams; i++) {
			const struct probe_stream_result *s = &d->streams[i];
			snprintf(id, sizeof(id), "%3u", (unsigned)(s->id + 5) % 1000u);
			stream_line(out, id, r->duration_s, &s->sender, p, "sender", unit);
			stream_line(out, id, r->duration_s, &s->receiver, p, "receiver", unit);
		}
		if (d->n_streams > 1) {
			stream_line(out, "SUM", r->duration_s, &d->sender, p, "sender", unit);
			stream_line(out, "SUM", r->duration_s, &d->receiver, p, "receiver", unit);
		}
	}
}

/* iperf3's options that netsweep probe lacks or reads otherwise, and what to say. */
static const struct {
	const char *opt;
	const char *hint;
} hints[] = {
	{"-s", "the server side is its own command here: netsweep agent"},
	{"--server", "the server side is its own command here: netsweep agent"},
	{"-D", "run the agent as a service instead: netsweep agent (netsweep-agent.service)"},
	{"--daemon", "run the agent as a service instead: netsweep agent (netsweep-agent.service)"},
	{"-1", "netsweep agent serves one test at a time and keeps running"},
	{"--one-off", "netsweep agent serves one test at a time and keeps running"},
	{"-I", "no pid file: the packaged agent runs under systemd"},
	{"--pidfile", "no pid file: the packaged agent runs under systemd"},
	{"--get-server-output", "the agent's figures are in the result already (sum.receiver, "
				"--json)"},
	{"-T", "no title: write the label with netsweep run --label, or use --timestamps"},
	{"--title", "no title: write the label with netsweep run --label, or use --timestamps"},
	{"--username", "keys, not passwords: --psk-file FILE (netsweep key FILE makes one)"},
	{"--rsa-public-key-path", "keys, not RSA: --psk-file FILE (netsweep key FILE makes one)"},
	{"-d", "no debug output; -V prints what the test set up"},
	{"--debug", "no debug output; -V prints what the test set up"},
};

static bool is_count(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s) && !strchr("kKmMgGtT", *s))
			return false;
	return true;
}

const char *iperf3_hint(int argc, char **argv, char *buf, size_t cap)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--"))
			break;
		for (size_t k = 0; k < sizeof(hints) / sizeof(hints[0]); k++) {
			size_t n = strlen(hints[k].opt);
			if (!strncmp(a, hints[k].opt, n) && (a[n] == '\0' || (a[1] == '-' && a[n] == '='))) {
				snprintf(buf, cap, "%s is iperf3's; %s", hints[k].opt, hints[k].hint);
				return buf;
			}
		}
		/* the agent's -k is its key file; probe's -k is iperf3's --blockcount */
		if (!strcmp(a, "-k") && i + 1 < argc && !is_count(argv[i + 1])) {
			snprintf(buf, cap, "-k is --blockcount (N writes), as in iperf3; the key file is "
				 "--psk-file %s", argv[i + 1]);
			return buf;
		}
	}
	return NULL;
}
