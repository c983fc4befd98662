/* probe_opts: the shared test options (see probe_opts.h). */
#include "probe_opts.h"

#include <stdio.h>
#include <string.h>

#include "lib/cli.h"
#include "lib/jsonw.h"
#include "lib/units.h"
#include "runner/proto/dscp.h"

static int copy_str(char *dst, size_t cap, const char *s, const char *what, struct ns_err *err)
{
	if (strlen(s) >= cap)
		return ns_err_set(err, "%s '%s' is too long (at most %zu characters)", what, s, cap - 1);
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

/* N or N/s transactions per second, 1..max. */
static int parse_tps(const char *arg, uint64_t max, double *out, struct ns_err *err)
{
	char num[32];
	uint64_t v;
	size_t n = strlen(arg);
	if (n >= 2 && !strcmp(arg + n - 2, "/s"))
		n -= 2;
	if (n == 0 || n >= sizeof(num))
		return ns_err_code(err, NS_E_USAGE, "'%s': expected transactions/s", arg);
	memcpy(num, arg, n);
	num[n] = '\0';
	if (units_parse_uint(num, 1, max, &v, err) < 0)
		return -1;
	*out = (double)v;
	return 0;
}

int probe_opts_apply(int c, const char *arg, struct probe_params *p, struct ns_err *err)
{
	uint64_t v;
	switch (c) {
	case 'p':
		if (units_parse_uint(arg, 1, 65535, &v, err) < 0)
			return -1;
		p->port = (uint16_t)v;
		return 0;
	case 'u': case PROBE_OPT_UDP: p->proto = NS_PROTO_UDP; return 0;
	case PROBE_OPT_QUIC: p->proto = NS_PROTO_QUIC; return 0;
	case 'P':
		if (units_parse_uint(arg, 1, NS_MAX_STREAMS, &v, err) < 0)
			return -1;
		p->streams = (uint32_t)v;
		return 0;
	case PROBE_OPT_THREADS:
		if (units_parse_uint(arg, 0, NS_MAX_THREADS, &v, err) < 0)
			return -1;
		p->threads = (uint32_t)v;
		return 0;
	case 'l':
		if (units_parse_bytes(arg, NS_TCP_MAX_LEN, &v, err) < 0)
			return -1;
		p->length = (uint32_t)v;
		return 0;
	case 'b': return units_parse_rate(arg, &p->rate_bps, err);
	case PROBE_OPT_FQ_RATE: return units_parse_rate(arg, &p->fq_rate_bps, err);
	case 't': return units_parse_duration(arg, NS_MAX_DURATION_S, &p->duration_s, err);
	case 'i': return units_parse_duration(arg, NS_MAX_DURATION_S, &p->interval_s, err);
	case 'O': return units_parse_duration(arg, NS_MAX_DURATION_S, &p->omit_s, err);
	case 'R': p->dir = NS_DIR_REVERSE; return 0;
	case PROBE_OPT_BIDIR: p->dir = NS_DIR_BIDIR; return 0;
	case 'A': return copy_str(p->affinity, sizeof(p->affinity), arg, "CPU list", err);
	case PROBE_OPT_AGENT_AFFINITY:
		return copy_str(p->agent_affinity, sizeof(p->agent_affinity), arg, "CPU list", err);
	case PROBE_OPT_SKIP_RX_COPY: snprintf(p->rx_copy, sizeof(p->rx_copy), "skip"); return 0;
	case PROBE_OPT_RX_ZEROCOPY: snprintf(p->rx_copy, sizeof(p->rx_copy), "mmap"); return 0;
	case 'w':
		if (units_parse_bytes(arg, UINT32_MAX, &v, err) < 0)
			return -1;
		p->window = (uint32_t)v;
		return 0;
	case 'M':
		if (units_parse_bytes(arg, UINT32_MAX, &v, err) < 0)
			return -1;
		p->mss = (uint32_t)v;
		return 0;
	case 'N': p->nodelay = true; return 0;
	case 'C': return copy_str(p->congestion, sizeof(p->congestion), arg, "congestion", err);
	case PROBE_OPT_GSO: p->gso = true; return 0;
	case PROBE_OPT_ENGINE: return copy_str(p->engine, sizeof(p->engine), arg, "engine", err);
	case 'B': return copy_str(p->bind, sizeof(p->bind), arg, "bind address", err);
	case PROBE_OPT_CPORT:
		if (units_parse_uint(arg, 1, 65535, &v, err) < 0)
			return -1;
		p->cport = (uint32_t)v;
		return 0;
	case '4': p->family = 4; return 0;
	case '6': p->family = 6; return 0;
	case 'S': return dscp_parse_tos(arg, &p->tos, err);
	case PROBE_OPT_DSCP: return dscp_parse(arg, &p->tos, err);
	case 'Z': p->zerocopy = true; return 0;
	case PROBE_OPT_DONT_FRAGMENT: p->dont_fragment = true; return 0;
	case 'n': return units_parse_bytes(arg, UINT64_MAX, &p->bytes, err);
	case 'k': return units_parse_uint(arg, 1, UINT64_MAX, &p->blocks, err);
	case PROBE_OPT_UNTIL: return copy_str(p->until, sizeof(p->until), arg, "until", err);
	case PROBE_OPT_STEADY:
		return units_parse_duration(arg, NS_MAX_DURATION_S, &p->steady_s, err);
	case PROBE_OPT_RR: /* tcp: TCP_RR, udp: UDP_RR, crr: TCP_CRR */
		if (strcmp(arg, "tcp") && strcmp(arg, "udp") && strcmp(arg, "crr"))
			return ns_err_code(err, NS_E_USAGE, "'%s': expected tcp, udp or crr", arg);
		p->proto = !strcmp(arg, "udp") ? NS_PROTO_UDP : NS_PROTO_TCP;
		snprintf(p->rr, sizeof(p->rr), "%s", !strcmp(arg, "crr") ? "crr" : "rr");
		return 0;
	case PROBE_OPT_REQUEST: case PROBE_OPT_RESPONSE:
		if (units_parse_bytes(arg, ENGINE_RR_MAX_LEN, &v, err) < 0)
			return -1;
		*(c == PROBE_OPT_REQUEST ? &p->rr_request : &p->rr_response) = (uint32_t)v;
		return 0;
	case PROBE_OPT_RR_RATE: return parse_tps(arg, 1000000000, &p->rr_rate, err);
	case PROBE_OPT_LAT_PROBE: /* tcp: TCP_RR, udp: UDP_RR beside the load */
		if (strcmp(arg, "tcp") && strcmp(arg, "udp"))
			return ns_err_code(err, NS_E_USAGE, "'%s': expected tcp or udp", arg);
		snprintf(p->lat_probe, sizeof(p->lat_probe), "%s", arg);
		return 0;
	case PROBE_OPT_LAT_RATE: return parse_tps(arg, 1000000, &p->lat_rate, err);
	case PROBE_OPT_LAT_SIZE:
		if (units_parse_bytes(arg, ENGINE_RR_MAX_LEN, &v, err) < 0)
			return -1;
		p->lat_size = (uint32_t)v;
		return 0;
	case PROBE_OPT_LAT_IDLE:
		return units_parse_duration(arg, PROBE_LAT_MAX_IDLE_S, &p->lat_idle_s, err);
	case PROBE_OPT_CONNECT_TIMEOUT:
		return units_parse_duration(arg, 600, &p->connect_timeout_s, err);
	case PROBE_OPT_TIMEOUT:
		return units_parse_duration(arg, 2 * NS_MAX_DURATION_S, &p->timeout_s, err);
	}
	return 1;
}

int probe_opts_parse(int argc, char **argv, const char *optstring,
		     const struct option *longopts, struct probe_params *p, probe_opts_fn fn,
		     void *ctx, struct ns_err *err)
{
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
		if (c == 'h')
			return 1;
		if (c == ':' || c == '?')
			return cli_option_error_hint(c, argv, longopts, err);
		int rc = fn(c, optarg, ctx, err);
		if (rc > 0)
			rc = probe_opts_apply(c, optarg, p, err);
		if (rc != 0) {
			/* the option as typed: --NAME, or -X with its long name (-b/--bitrate) */
			const struct option *o = longopts;
			while (o->name && o->val != c)
				o++;
			const char *typed = optind > 0 && optind <= argc ? argv[optind - 1] : "";
			if (optarg && typed == optarg && optind > 1)
				typed = argv[optind - 2]; /* "--rate 100X": the option before its value */
			if (rc > 0)
				ns_err_set(err, "internal: option %d", c);
			if (!strncmp(typed, "--", 2))
				ns_err_prefix(err, "%.*s", (int)strcspn(typed, "="), typed);
			else if (c > 0 && c < 128 && o->name)
				ns_err_prefix(err, "-%c/--%s", c, o->name);
			else
				ns_err_prefix(err, "--%s", o->name ? o->name : "?");
			return -1;
		}
	}
	return 0;
}

char *probe_opts_json_error(const char *msg)
{
	struct jsonw w;
	jsonw_init(&w, false);
	jsonw_obj_open(&w);
	jsonw_kv_uint(&w, "version", 1);
	jsonw_kv_str(&w, "status", "error");
	jsonw_kv_str(&w, "error", msg);
	jsonw_obj_close(&w);
	return jsonw_steal(&w);
}
