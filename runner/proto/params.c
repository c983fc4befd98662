/* params: defaults and the one validation pass of struct probe_params (see probe.h).
 * The CLI, the matrix loader and the agent (on every TEST_REQUEST) all go through
 * probe_params_check, so a value the agent accepts is a value the probe could have sent. */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/steady.h"
#include "lib/units.h"
#include "probe.h"

#define P2_MAX_WINDOW (1024u * 1024 * 1024)   /* SO_SNDBUF/SO_RCVBUF take an int */
#define P2_MIN_MSS 88                         /* the kernel's TCP_MIN_MSS */
#define P2_MAX_MSS 65495
#define P2_MIN_INTERVAL_S 0.01
#define P2_MAX_CONNECT_TIMEOUT_S 600.0
#define P2_MAX_INTERVALS 100000               /* = PROTO_MAX_INTERVALS */
#define P2_MAX_RR_RATE 1e9                    /* transactions/s: far above any host's */
#define P2_MAX_LAT_RATE 1e6                   /* a probe beside a load: thin, by intent */
#define P2_MAX_BLOCKS (1ull << 40)            /* times a 16 MiB write stays below 2^64 bytes */

const char *ns_proto_name(enum ns_proto p)
{
	return p == NS_PROTO_UDP ? "udp" : p == NS_PROTO_QUIC ? "quic" : "tcp";
}

const char *ns_dir_name(enum ns_dir d)
{
	switch (d) {
	case NS_DIR_REVERSE: return "reverse";
	case NS_DIR_BIDIR: return "bidir";
	default: return "forward";
	}
}

double probe_wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void probe_params_init(struct probe_params *p)
{
	memset(p, 0, sizeof(*p));
	p->port = NS_DEFAULT_PORT;
	p->proto = NS_PROTO_TCP;
	p->streams = 1;
	p->duration_s = 10.0;
	p->interval_s = 1.0;
	p->dir = NS_DIR_FORWARD;
	p->connect_timeout_s = 5.0;
}

/* NUL within the array, so that a struct from the wire or a matrix is a C string. */
static bool terminated(const char *s, size_t cap)
{
	return memchr(s, '\0', cap) != NULL;
}

/* -A / --agent-affinity: "" (the default), "none", a CPU list, and for the agent "auto". */
static int check_cpus(const char *v, size_t cap, const char *what, bool auto_ok,
		      struct ns_err *err)
{
	if (!terminated(v, cap))
		return ns_err_code(err, NS_E_INPUT, "a text parameter is not terminated");
	if (!v[0] || !strcmp(v, "none") || (auto_ok && !strcmp(v, "auto")))
		return 0;
	int tmp[UNITS_MAX_CPUS];
	size_t n;
	struct ns_err e;
	if (units_parse_cpulist(v, tmp, UNITS_MAX_CPUS, &n, &e) < 0)
		return ns_err_code(err, NS_E_INPUT, "%s: %s (or none%s)", what, e.msg, auto_ok ? ", auto" : "");
	return 0;
}

/* -B, --cport, -4/-6, -S, -n, -k: their ranges and conflicts. */
static int check_source(const struct probe_params *p, struct ns_err *err)
{
	if (!terminated(p->bind, sizeof(p->bind)))
		return ns_err_code(err, NS_E_INPUT, "a text parameter is not terminated");
	if (p->family != 0 && p->family != 4 && p->family != 6)
		return ns_err_code(err, NS_E_INPUT, "address family %u: must be 4, 6 or 0 (any)",
				  (unsigned)p->family);
	if (p->bind[0]) {
		unsigned char a[sizeof(struct in6_addr)];
		int fam = inet_pton(AF_INET, p->bind, a) == 1	 ? 4
			  : inet_pton(AF_INET6, p->bind, a) == 1 ? 6
								  : 0;
		if (!fam)
			return ns_err_code(err, NS_E_INPUT, "bind address '%s' is not a numeric IPv4 or IPv6 "
					  "address", p->bind);
		if (p->family && p->family != (uint32_t)fam)
			return ns_err_code(err, NS_E_INPUT, "bind address '%s' is not IPv%u", p->bind,
					  (unsigned)p->family);
	}
	uint32_t dirs = p->dir == NS_DIR_BIDIR ? 2 : 1;
	if (p->cport && (uint64_t)p->cport + (uint64_t)p->streams * dirs - 1 > 65535)
		return ns_err_code(err, NS_E_INPUT, "client ports %u..%llu (one per data stream) must be within "
				  "1..65535", (unsigned)p->cport,
				  (unsigned long long)p->cport + p->streams * dirs - 1);
	if (p->tos > 255)
		return ns_err_code(err, NS_E_INPUT, "TOS %u out of range: must be 0..255", (unsigned)p->tos);
	if (p->bytes && p->blocks)
		return ns_err_code(err, NS_E_INPUT, "--bytes and --blockcount exclude each other");
	if (p->blocks > P2_MAX_BLOCKS)
		return ns_err_code(err, NS_E_INPUT, "block count %llu out of range: must be <= %llu",
				  (unsigned long long)p->blocks, (unsigned long long)P2_MAX_BLOCKS);
	return 0;
}

/* Long-run mode: until "sustained" ends at a steady rate after a step down, duration is the
 * bound; the steady time must hold enough intervals to be a level. */
static int check_until(const struct probe_params *p, struct ns_err *err)
{
	if (!terminated(p->until, sizeof(p->until)))
		return ns_err_code(err, NS_E_INPUT, "a text parameter is not terminated");
	if (!p->until[0])
		return p->steady_s == 0 ? 0 : ns_err_code(err, NS_E_USAGE, "a steady time goes "
							  "with until sustained");
	if (strcmp(p->until, "sustained"))
		return ns_err_code(err, NS_E_USAGE, "until '%.11s': expected sustained", p->until);
	if (p->interval_s <= 0)
		return ns_err_code(err, NS_E_USAGE, "until sustained watches the interval series: "
				   "it needs an interval");
	if (!(p->steady_s >= STEADY_MIN_INTERVALS * p->interval_s && p->steady_s < p->duration_s))
		return ns_err_code(err, NS_E_USAGE, "steady %g s out of range: must be at least %d "
				   "intervals (%g s) and less than the duration (%g s)", p->steady_s,
				   STEADY_MIN_INTERVALS, STEADY_MIN_INTERVALS * p->interval_s,
				   p->duration_s);
	if (probe_params_amount(p))
		return ns_err_code(err, NS_E_USAGE, "until sustained ends by the rate: not with an "
				   "amount (-n / -k)");
	return 0;
}

const char *probe_rr_test(const struct probe_params *p)
{
	if (!p->rr[0])
		return "";
	if (!strcmp(p->rr, "crr"))
		return "tcp_crr";
	return p->proto == NS_PROTO_UDP ? "udp_rr" : "tcp_rr";
}

void probe_rr_sizes(const struct probe_params *p, uint32_t *request, uint32_t *response)
{
	uint32_t least = p->proto == NS_PROTO_UDP ? ENGINE_RR_SEQ_LEN : 1;
	*request = p->rr_request ? p->rr_request : least;
	*response = p->rr_response ? p->rr_response : least;
}

/* Request/response: sizes and rate in range, and none of the throughput test's own options
 * (the amount, pacing in bits, a direction, zero-copy, GSO, XDP, long-run mode). */
static int check_rr(const struct probe_params *p, struct ns_err *err)
{
	if (!terminated(p->rr, sizeof(p->rr)))
		return ns_err_code(err, NS_E_INPUT, "a text parameter is not terminated");
	if (!p->rr[0])
		return p->rr_request || p->rr_response || p->rr_rate != 0
			       ? ns_err_code(err, NS_E_USAGE, "--request, --response and --rr-rate "
					     "go with --rr")
			       : 0;
	if (strcmp(p->rr, "rr") && strcmp(p->rr, "crr"))
		return ns_err_code(err, NS_E_USAGE, "rr '%.7s': expected rr or crr", p->rr);
	if (!strcmp(p->rr, "crr") && (p->proto != NS_PROTO_TCP || p->cport || p->bind[0]))
		return ns_err_code(err, NS_E_USAGE, "a connect/request/response test (TCP_CRR) is "
				   "TCP, and takes neither -B nor --cport (each transaction is a new "
				   "connection from any port)");
	uint32_t req, resp, least = p->proto == NS_PROTO_UDP ? ENGINE_RR_SEQ_LEN : 1;
	probe_rr_sizes(p, &req, &resp);
	if (req < least || req > ENGINE_RR_MAX_LEN || resp < least || resp > ENGINE_RR_MAX_LEN)
		return ns_err_code(err, NS_E_USAGE, "request %u / response %u bytes out of range: "
				   "must be %u..%d (UDP carries an 8-byte sequence number)",
				   (unsigned)req, (unsigned)resp, (unsigned)least, ENGINE_RR_MAX_LEN);
	if (!(p->rr_rate >= 0 && p->rr_rate <= P2_MAX_RR_RATE))
		return ns_err_code(err, NS_E_USAGE, "rr rate %g transactions/s out of range: must be "
				   "0 (back to back)..%g", p->rr_rate, P2_MAX_RR_RATE);
	if (p->dir != NS_DIR_FORWARD || p->rate_bps || p->length || probe_params_amount(p) ||
	    p->gso || p->zerocopy || probe_engine_kind(p) != ENGINE_SOCKET || p->until[0])
		return ns_err_code(err, NS_E_USAGE, "a request/response test takes none of -R, "
				   "--bidir, -b, -l, -n, -k, --gso, -Z, --engine xdp, --until "
				   "(sizes: --request/--response; pacing: --rr-rate)");
	return 0;
}

double probe_lat_idle_s(const struct probe_params *p)
{
	return p->lat_idle_s > 0 ? p->lat_idle_s : PROBE_LAT_IDLE_S;
}

void probe_lat_params(const struct probe_params *p, struct probe_params *lp)
{
	probe_params_init(lp);
	memcpy(lp->host, p->host, sizeof(lp->host));
	lp->port = p->port;
	memcpy(lp->psk_file, p->psk_file, sizeof(lp->psk_file));
	memcpy(lp->bind, p->bind, sizeof(lp->bind));
	lp->family = p->family;
	lp->tos = p->tos; /* the load's marking: the same queue */
	lp->connect_timeout_s = p->connect_timeout_s;
	lp->omit_s = p->omit_s;
	lp->duration_s = p->duration_s;
	lp->interval_s = p->interval_s; /* its loaded series on the load's interval clock */
	lp->streams = 1;
	lp->threads = 1;
	lp->proto = !strcmp(p->lat_probe, "udp") ? NS_PROTO_UDP : NS_PROTO_TCP;
	lp->nodelay = lp->proto == NS_PROTO_TCP;
	snprintf(lp->rr, sizeof(lp->rr), "rr");
	lp->rr_request = lp->rr_response = p->lat_size;
	lp->rr_rate = p->lat_rate > 0 ? p->lat_rate : PROBE_LAT_RATE;
}

/* A latency probe: its own sizes and rate in range, beside a throughput test that leaves the
 * probe's connection to the kernel (no XDP engine, which would take its datagrams too). */
static int check_lat(const struct probe_params *p, struct ns_err *err)
{
	if (!terminated(p->lat_probe, sizeof(p->lat_probe)))
		return ns_err_code(err, NS_E_INPUT, "a text parameter is not terminated");
	if (!p->lat_probe[0])
		return p->lat_rate != 0 || p->lat_size || p->lat_idle_s != 0
			       ? ns_err_code(err, NS_E_USAGE, "--latency-rate, --latency-size and "
					     "--latency-idle go with --latency-probe")
			       : 0;
	if (strcmp(p->lat_probe, "tcp") && strcmp(p->lat_probe, "udp"))
		return ns_err_code(err, NS_E_USAGE, "latency probe '%.7s': expected tcp or udp",
				   p->lat_probe);
	if (p->rr[0])
		return ns_err_code(err, NS_E_USAGE, "a latency probe rides beside a throughput test, "
				   "not a request/response test (that one is all latency)");
	if (probe_engine_kind(p) != ENGINE_SOCKET)
		return ns_err_code(err, NS_E_USAGE, "a latency probe goes with the socket engine, not "
				   "--engine xdp (its program would take the probe's datagrams)");
	if (!(p->lat_rate >= 0 && p->lat_rate <= P2_MAX_LAT_RATE))
		return ns_err_code(err, NS_E_USAGE, "latency rate %g transactions/s out of range: "
				   "must be 0 (%g)..%g", p->lat_rate, PROBE_LAT_RATE, P2_MAX_LAT_RATE);
	if (!(p->lat_idle_s >= 0 && p->lat_idle_s <= PROBE_LAT_MAX_IDLE_S))
		return ns_err_code(err, NS_E_USAGE, "latency idle window %g s out of range: must be "
				   "0 (%g s)..%g s", p->lat_idle_s, PROBE_LAT_IDLE_S,
				   PROBE_LAT_MAX_IDLE_S);
	struct probe_params lp;
	probe_lat_params(p, &lp);
	if (check_rr(&lp, err) < 0) {
		ns_err_prefix(err, "latency probe");
		return -1;
	}
	return 0;
}

bool probe_engine_name_ok(const char *v)
{
	size_t n = strcspn(v, ",");
	bool xdp = (n == 3 && !strncmp(v, "xdp", 3)) || (n == 6 && !strncmp(v, "xdp-rx", 6));
	if (v[n]) /* only an XDP engine falls back, and only to sockets */
		return xdp && !strcmp(v + n, ",socket");
	return xdp || !n || (n == 6 && !strncmp(v, "socket", 6));
}

enum engine_kind probe_engine_kind(const struct probe_params *p)
{
	if (!strncmp(p->engine, "xdp-rx", 6))
		return ENGINE_XDP_RX;
	return !strncmp(p->engine, "xdp", 3) ? ENGINE_XDP : ENGINE_SOCKET;
}

bool probe_engine_fallback(const struct probe_params *p)
{
	const char *c = strchr(p->engine, ',');
	return c && !strcmp(c, ",socket");
}

int probe_params_check(const struct probe_params *p, struct ns_err *err)
{
	if (p->proto != NS_PROTO_TCP && p->proto != NS_PROTO_UDP && p->proto != NS_PROTO_QUIC)
		return ns_err_code(err, NS_E_INPUT, "unknown protocol %d", (int)p->proto);
	if (p->proto == NS_PROTO_QUIC &&
	    (p->rr[0] || probe_engine_kind(p) != ENGINE_SOCKET || p->length || p->zerocopy))
		return ns_err_code(err, NS_E_USAGE, "QUIC is bulk transfer on the socket engine: "
				   "not with --rr, --engine xdp, --length or --zerocopy");
	if (p->dir != NS_DIR_FORWARD && p->dir != NS_DIR_REVERSE && p->dir != NS_DIR_BIDIR)
		return ns_err_code(err, NS_E_INPUT, "unknown direction %d", (int)p->dir);
	if (!terminated(p->host, sizeof(p->host)) || !terminated(p->affinity, sizeof(p->affinity)) ||
	    !terminated(p->congestion, sizeof(p->congestion)) ||
	    !terminated(p->psk_file, sizeof(p->psk_file)))
		return ns_err_code(err, NS_E_INPUT, "a text parameter is not terminated");
	if (p->port == 0)
		return ns_err_code(err, NS_E_INPUT, "port must be 1..65535");
	if (!(p->start_at >= 0) || p->start_at > probe_wall_now() + PROBE_START_AT_MAX_S)
		return ns_err_code(err, NS_E_USAGE, "start_at %.3f: at most %g s from now", p->start_at,
				   PROBE_START_AT_MAX_S);

	if (!terminated(p->engine, sizeof(p->engine)) || !probe_engine_name_ok(p->engine))
		return ns_err_code(err, NS_E_USAGE, "engine '%.23s': expected socket, xdp or xdp-rx, "
				   "the last two optionally followed by ,socket", p->engine);
	bool xdp = probe_engine_kind(p) != ENGINE_SOCKET;
	if (xdp && p->proto != NS_PROTO_UDP)
		return ns_err_code(err, NS_E_USAGE, "the xdp engine sends UDP: add -u");
	if (xdp && p->gso)
		return ns_err_code(err, NS_E_USAGE, "--gso is a socket engine option: not with --engine xdp");
	if (p->streams < 1 || p->streams > NS_MAX_STREAMS)
		return ns_err_code(err, NS_E_INPUT, "streams %u out of range: must be 1..%d", (unsigned)p->streams,
				  NS_MAX_STREAMS);
	if (p->threads > NS_MAX_THREADS)
		return ns_err_code(err, NS_E_INPUT, "threads %u out of range: must be 0 (auto)..%d",
				  (unsigned)p->threads, NS_MAX_THREADS);
	if (p->proto == NS_PROTO_UDP && p->length != 0 &&
	    (p->length < NS_UDP_MIN_LEN || p->length > NS_UDP_MAX_LEN))
		return ns_err_code(err, NS_E_INPUT, "UDP length %u out of range: must be %d..%d bytes (a 16-byte "
				  "sequence/timestamp header; 65507 is the largest UDP payload)",
				  (unsigned)p->length, NS_UDP_MIN_LEN, NS_UDP_MAX_LEN);
	if (p->proto == NS_PROTO_TCP && p->length > NS_TCP_MAX_LEN)
		return ns_err_code(err, NS_E_INPUT, "TCP length %u out of range: must be 1..%d bytes",
				  (unsigned)p->length, NS_TCP_MAX_LEN);
	if (!(p->duration_s > 0 && p->duration_s <= NS_MAX_DURATION_S))
		return ns_err_code(err, NS_E_INPUT, "duration %g s out of range: must be > 0 and <= %g s",
				  p->duration_s, NS_MAX_DURATION_S);
	if (!(p->omit_s >= 0 && p->omit_s + p->duration_s <= NS_MAX_DURATION_S))
		return ns_err_code(err, NS_E_INPUT, "omit %g s out of range: must be >= 0, omit + duration <= %g s",
				  p->omit_s, NS_MAX_DURATION_S);
	if (!(p->interval_s == 0 ||
	      (p->interval_s >= P2_MIN_INTERVAL_S && p->interval_s <= NS_MAX_DURATION_S)))
		return ns_err_code(err, NS_E_INPUT, "interval %g s out of range: must be 0 (none) or %g..%g s",
				  p->interval_s, P2_MIN_INTERVAL_S, NS_MAX_DURATION_S);
	if (p->interval_s > 0 && (p->omit_s + p->duration_s) / p->interval_s > P2_MAX_INTERVALS)
		return ns_err_code(err, NS_E_INPUT, "too many intervals: (omit + duration) / interval must be <= %d",
				  P2_MAX_INTERVALS);
	if (p->window > P2_MAX_WINDOW)
		return ns_err_code(err, NS_E_INPUT, "window %u out of range: must be <= %u bytes",
				  (unsigned)p->window, P2_MAX_WINDOW);
	if (p->mss != 0 && (p->mss < P2_MIN_MSS || p->mss > P2_MAX_MSS))
		return ns_err_code(err, NS_E_INPUT, "MSS %u out of range: must be %d..%d bytes", (unsigned)p->mss,
				  P2_MIN_MSS, P2_MAX_MSS);
	if (p->proto != NS_PROTO_TCP && (p->mss || p->nodelay || p->congestion[0]))
		return ns_err_code(err, NS_E_INPUT, "--mss, --no-delay and --congestion apply to TCP only");
	if (p->proto != NS_PROTO_UDP && p->gso)
		return ns_err_code(err, NS_E_INPUT, "--gso applies to UDP only (QUIC uses UDP GSO by itself)");
	for (const char *c = p->congestion; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
			return ns_err_code(err, NS_E_INPUT, "congestion control name '%s' is not valid",
					  p->congestion);
	if (check_cpus(p->affinity, sizeof(p->affinity), "affinity", false, err) < 0 ||
	    check_cpus(p->agent_affinity, sizeof(p->agent_affinity), "agent affinity", true,
		       err) < 0)
		return -1;
	if (!terminated(p->rx_copy, sizeof(p->rx_copy)) ||
	    (p->rx_copy[0] && strcmp(p->rx_copy, "skip") && strcmp(p->rx_copy, "mmap")))
		return ns_err_code(err, NS_E_USAGE, "rx_copy '%.7s': expected skip or mmap (or none "
				   "for the copy)", p->rx_copy);
	if (p->rx_copy[0] && (p->proto != NS_PROTO_TCP || p->rr[0]))
		return ns_err_code(err, NS_E_USAGE, "--skip-rx-copy and --rx-zerocopy are for a TCP "
				   "throughput test's receiver");
	if (!(p->connect_timeout_s > 0 && p->connect_timeout_s <= P2_MAX_CONNECT_TIMEOUT_S))
		return ns_err_code(err, NS_E_INPUT, "connect timeout %g s out of range: must be > 0 and <= %g s",
				  p->connect_timeout_s, P2_MAX_CONNECT_TIMEOUT_S);
	if (!(p->timeout_s >= 0 && p->timeout_s <= 2 * NS_MAX_DURATION_S))
		return ns_err_code(err, NS_E_INPUT, "timeout %g s out of range: must be 0 (auto)..%g s",
				  p->timeout_s, 2 * NS_MAX_DURATION_S);
	if (p->timeout_s > 0 && p->timeout_s < p->omit_s + p->duration_s)
		return ns_err_code(err, NS_E_INPUT, "timeout %g s is shorter than omit + duration", p->timeout_s);
	if (check_until(p, err) < 0 || check_rr(p, err) < 0 || check_lat(p, err) < 0)
		return -1;
	return check_source(p, err);
}

uint64_t probe_params_amount(const struct probe_params *p)
{
	if (p->bytes)
		return p->bytes;
	uint32_t len = p->length ? p->length
				 : (p->proto == NS_PROTO_TCP ? NS_TCP_DEFAULT_LEN : NS_UDP_DEFAULT_LEN);
	return p->blocks * len;
}

/* HOST, HOST:PORT, [V6], [V6]:PORT; a bare IPv6 address (several colons) is all host. */
int probe_params_target(const char *s, struct probe_params *p, struct ns_err *err)
{
	const char *host = s, *port = NULL;
	size_t hlen = strlen(s);
	if (s[0] == '[') {
		const char *end = strchr(s, ']');
		if (!end || (end[1] && end[1] != ':'))
			return ns_err_code(err, NS_E_INPUT, "bad host '%s'", s);
		host = s + 1;
		hlen = (size_t)(end - host);
		port = end[1] == ':' ? end + 2 : NULL;
	} else {
		const char *colon = strchr(s, ':');
		if (colon && !strchr(colon + 1, ':')) {
			hlen = (size_t)(colon - s);
			port = colon + 1;
		}
	}
	if (hlen == 0 || hlen >= sizeof(p->host))
		return ns_err_code(err, NS_E_INPUT, "bad host '%s'", s);
	memcpy(p->host, host, hlen);
	p->host[hlen] = '\0';
	if (port) {
		uint64_t v;
		if (units_parse_uint(port, 1, 65535, &v, err) < 0) {
			ns_err_prefix(err, "port");
			return -1;
		}
		p->port = (uint16_t)v;
	}
	return 0;
}
