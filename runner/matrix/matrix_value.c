/* matrix_value: see matrix_value.h. */
#include "matrix_value.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "matrix_longrun.h"
#include "matrix_rr.h"
#include "lib/names/suggest.h"
#include "lib/units.h"
#include "runner/proto/probe.h"

static const char *const axis_names[MX_AXIS_COUNT] = {
	"pair", "protocol", "direction", "streams", "threads", "length", "rate", "fq-rate",
	"duration", "omit", "affinity", "window", "mss", "nodelay", "congestion", "gso",
	"engine",
	"bind", "dscp", "zerocopy", "family", "amount", "until", "steady",
	"rr", "request", "response", "rr-rate",
	"latency-probe", "latency-rate", "latency-size",
	"zone",
	"clients",
	"rx-copy", "responsiveness",
};

/* Default of an axis the matrix does not write (the pair axis defaults to every pair). */
static const char *const axis_defaults[MX_AXIS_COUNT] = {
	NULL, "tcp", "forward", "1", "0", "0", "0", "0",
	"10", "0", "none", "0", "0", "0", "", "0",
	"socket",
	"none", "0", "0", "any", "0", "none", "60", /* steady: STEADY_DEFAULT_S */
	"none", "0", "0", "0",
	"none", "0", "0",
	"any",
	"1",
	"copy", "0",
};

const char *matrix_axis_default(enum matrix_axis_id a)
{
	return (unsigned)a < MX_AXIS_COUNT && axis_defaults[a] ? axis_defaults[a] : "";
}

const char *matrix_axis_name(enum matrix_axis_id a)
{
	return (unsigned)a < MX_AXIS_COUNT ? axis_names[a] : "?";
}

int matrix_axis_lookup(const char *name)
{
	for (int i = 0; i < MX_AXIS_COUNT; i++)
		if (strcmp(axis_names[i], name) == 0)
			return i;
	return -1;
}

static int set_text(struct matrix_value *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int set_text(struct matrix_value *out, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	out->text = strdup(buf);
	return out->text ? 0 : -1;
}

int mxval_parse_bool(const char *s, bool *b)
{
	if (!strcmp(s, "1") || !strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "on"))
		*b = true;
	else if (!strcmp(s, "0") || !strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "off"))
		*b = false;
	else
		return -1;
	return 0;
}

int mxval_parse_duration(const char *s, bool positive, double *d, struct ns_err *err)
{
	const char *p = s;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '-')
		return ns_err_code(err, NS_E_INPUT, "'%s': a duration cannot be negative", s);
	if (units_parse_duration(s, NS_MAX_DURATION_S, d, err) < 0)
		return -1;
	if (positive && *d <= 0)
		return ns_err_code(err, NS_E_INPUT, "'%s': a duration must be above zero", s);
	return 0;
}

/* A protocol or direction by its name; a misspelt one's error says the nearest ("did you
 * mean") as the matrix's names do, else the names there are. */
static int enum_value(enum matrix_axis_id axis, const char *text, uint64_t *u, struct ns_err *err)
{
	static const char *const protos[] = {"tcp", "udp", "quic"};
	static const char *const dirs[] = {"forward", "reverse", "bidir"};
	static const uint64_t proto_v[] = {NS_PROTO_TCP, NS_PROTO_UDP, NS_PROTO_QUIC};
	static const uint64_t dir_v[] = {NS_DIR_FORWARD, NS_DIR_REVERSE, NS_DIR_BIDIR};
	int proto = axis == MX_PROTOCOL;
	const char *const *names = proto ? protos : dirs;
	size_t n = 3;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(text, names[i])) {
			*u = proto ? proto_v[i] : dir_v[i];
			return 0;
		}
	const char *near = suggest_among(text, names, n);
	if (near)
		return ns_err_code(err, NS_E_INPUT, "'%s': no such %s (did you mean '%s'?)", text,
				   proto ? "protocol" : "direction", near);
	return ns_err_code(err, NS_E_INPUT, proto ? "'%s': protocol is tcp, udp or quic"
			   : "'%s': direction is forward, reverse or bidir", text);
}

/* Canonical texts: the DSCP as its number (u holds the TOS byte), an amount in bytes. */
static const char *dscp_text(uint64_t tos)
{
	static char buf[8];
	snprintf(buf, sizeof(buf), "%u", (unsigned)(tos >> 2));
	return buf;
}

static const char *amount_text(uint64_t bytes)
{
	static char buf[24];
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)bytes);
	return buf;
}

int matrix_parse_value(const struct matrix *m, enum matrix_axis_id axis, const char *text,
		       struct matrix_value *out, struct ns_err *err)
{
	uint64_t u = 0;
	double d = 0;
	bool b;
	memset(out, 0, sizeof(*out));
	switch (axis) {
	case MX_PAIR:
		for (size_t i = 0; i < m->n_pairs; i++)
			if (strcmp(m->pairs[i].name, text) == 0) {
				out->u = i;
				return set_text(out, "%s", text) < 0 ? ns_err_code(err, NS_E_NOMEM, "out of memory") : 0;
			}
		return ns_err_code(err, NS_E_INPUT, "'%s' is not a pair of this matrix", text);
	case MX_PROTOCOL:
	case MX_DIRECTION:
		if (enum_value(axis, text, &u, err) < 0)
			return -1;
		out->u = u;
		return set_text(out, "%s", text) < 0 ? ns_err_code(err, NS_E_NOMEM, "out of memory") : 0;
	case MX_STREAMS:
		if (units_parse_uint(text, 1, NS_MAX_STREAMS, &u, err) < 0)
			return -1;
		break;
	case MX_THREADS:
		if (units_parse_uint(text, 0, NS_MAX_THREADS, &u, err) < 0)
			return -1;
		break;
	case MX_LENGTH:
		if (units_parse_bytes(text, NS_TCP_MAX_LEN, &u, err) < 0)
			return -1;
		break;
	case MX_RATE:
	case MX_FQ_RATE:
		if (units_parse_rate(text, &u, err) < 0)
			return -1;
		break;
	case MX_WINDOW:
		if (units_parse_bytes(text, UINT32_MAX, &u, err) < 0)
			return -1;
		break;
	case MX_MSS:
		if (units_parse_uint(text, 0, 65535, &u, err) < 0)
			return -1;
		break;
	case MX_DURATION:
	case MX_OMIT:
		if (mxval_parse_duration(text, axis == MX_DURATION, &d, err) < 0)
			return -1;
		out->d = d;
		return set_text(out, "%.9g", d) < 0 ? ns_err_code(err, NS_E_NOMEM, "out of memory") : 0;
	case MX_BIND:
	case MX_DSCP:
	case MX_FAMILY:
	case MX_AMOUNT:
		if (mxbind_parse_value(m, axis, text, &out->u, err) < 0)
			return -1;
		return set_text(out, "%s", axis == MX_BIND || axis == MX_FAMILY ? text
					  : axis == MX_DSCP ? dscp_text(out->u) : amount_text(out->u)) < 0
			       ? ns_err_code(err, NS_E_NOMEM, "out of memory") : 0;
	case MX_UNTIL:
	case MX_STEADY:
		return mxlong_parse_value(axis, text, out, err);
	case MX_RR:
	case MX_REQUEST:
	case MX_RESPONSE:
	case MX_RR_RATE:
	case MX_LAT_PROBE:
	case MX_LAT_RATE:
	case MX_LAT_SIZE:
		return mxrr_parse_value(axis, text, out, err);
	case MX_CLIENTS:
		if (units_parse_uint(text, 1, MX_MAX_MEMBERS, &u, err) < 0)
			return -1;
		break;
	case MX_RX_COPY:
		if (strcmp(text, "copy") && strcmp(text, "skip") && strcmp(text, "mmap"))
			return ns_err_code(err, NS_E_INPUT, "'%s': expected copy, skip (MSG_TRUNC: the TCP "
					   "receiver drops the bytes in the kernel) or mmap (TCP receive "
					   "zero-copy)", text);
		return set_text(out, "%s", text) < 0 ? ns_err_code(err, NS_E_NOMEM, "out of memory") : 0;
	case MX_NODELAY:
	case MX_GSO:
	case MX_ZEROCOPY:
	case MX_RPM:
		if (mxval_parse_bool(text, &b) < 0)
			return ns_err_code(err, NS_E_INPUT, "'%s': expected true or false", text);
		u = b;
		break;
	case MX_ENGINE:
		if (strlen(text) >= sizeof(((struct probe_params *)0)->engine) ||
		    !probe_engine_name_ok(text))
			return ns_err_code(err, NS_E_INPUT,
					   "'%s': expected socket, xdp or xdp-rx (the last two "
					   "with ,socket: fall back to sockets where AF_XDP is refused)",
					   text);
		return set_text(out, "%s", text) < 0 ? ns_err_code(err, NS_E_NOMEM, "out of memory") : 0;
	case MX_AFFINITY:
		if (!strcmp(text, "none") || !strcmp(text, "irq") || !strcmp(text, "spread")) {
			return set_text(out, "%s", text) < 0 ? ns_err_code(err, NS_E_NOMEM, "out of memory") : 0;
		} else {
			int cpus[UNITS_MAX_CPUS];
			size_t n;
			char buf[256];
			if (units_parse_cpulist(text, cpus, UNITS_MAX_CPUS, &n, err) < 0) {
				ns_err_prefix(err, "affinity is none, irq, spread or a CPU list");
				return -1;
			}
			units_format_cpulist(cpus, n, buf, sizeof(buf));
			return set_text(out, "%s", buf) < 0 ? ns_err_code(err, NS_E_NOMEM, "out of memory") : 0;
		}
	case MX_ZONE:
		if (strcmp(text, "any") && strcmp(text, "same") && strcmp(text, "cross"))
			return ns_err_code(err, NS_E_INPUT, "'%s': expected any, same or cross (a "
					   "pair's two ends in one zone or in two)", text);
		out->u = !strcmp(text, "same") ? MX_ZONE_SAME : !strcmp(text, "cross") ? MX_ZONE_CROSS
											 : MX_ZONE_ANY;
		return set_text(out, "%s", text) < 0 ? ns_err_code(err, NS_E_NOMEM, "out of memory") : 0;
	case MX_CONGESTION:
		if (strlen(text) > 15)
			return ns_err_code(err, NS_E_INPUT,
					   "'%s': congestion control names have at most 15 characters",
					   text);
		for (const char *p = text; *p; p++)
			if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
				return ns_err_code(err, NS_E_INPUT,
						   "'%s' is not a congestion control name", text);
		return set_text(out, "%s", text) < 0 ? ns_err_code(err, NS_E_NOMEM, "out of memory") : 0;
	default:
		return ns_err_code(err, NS_E_INPUT, "unknown axis");
	}
	out->u = u;
	return set_text(out, "%llu", (unsigned long long)u) < 0 ? ns_err_code(err, NS_E_NOMEM, "out of memory") : 0;
}

int mxval_attr(xmlNodePtr n, const char *name, char *dst, size_t cap)
{
	xmlChar *v = xmlGetProp(n, BAD_CAST name);
	int rc = 0;
	dst[0] = '\0';
	if (!v)
		return 0;
	if (strlen((const char *)v) >= cap)
		rc = -1;
	else
		snprintf(dst, cap, "%s", (const char *)v);
	xmlFree(v);
	return rc;
}
