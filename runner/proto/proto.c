/* proto: framing and the encoding of the control protocol (see proto.h); the probe structs
 * are encoded by walking their field tables (fields.h). */
#include "proto.h"

#include <endian.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fields.h"

static const char *const type_names[PROTO_TYPE_MAX + 1] = {
	[PROTO_HELLO] = "HELLO",
	[PROTO_AUTH_CHALLENGE] = "AUTH_CHALLENGE",
	[PROTO_AUTH_RESPONSE] = "AUTH_RESPONSE",
	[PROTO_TEST_REQUEST] = "TEST_REQUEST",
	[PROTO_READY] = "READY",
	[PROTO_START] = "START",
	[PROTO_STOP] = "STOP",
	[PROTO_RESULTS] = "RESULTS",
	[PROTO_RESULT_STREAMS] = "RESULT_STREAMS",
	[PROTO_RESULT_INTERVALS] = "RESULT_INTERVALS",
	[PROTO_DONE] = "DONE",
	[PROTO_HOSTINFO_REQUEST] = "HOSTINFO_REQUEST",
	[PROTO_HOSTINFO] = "HOSTINFO",
	[PROTO_BUSY] = "BUSY",
	[PROTO_ERROR] = "ERROR",
	[PROTO_DELEGATE_REQUEST] = "DELEGATE_REQUEST",
	[PROTO_DELEGATE_RESULT] = "DELEGATE_RESULT",
	[PROTO_DELEGATE_STREAMS] = "DELEGATE_STREAMS",
	[PROTO_DELEGATE_INTERVALS] = "DELEGATE_INTERVALS",
	[PROTO_DELEGATE_LATENCY] = "DELEGATE_LATENCY",
	[PROTO_DELEGATE_LAT_HISTOGRAM] = "DELEGATE_LAT_HISTOGRAM",
	[PROTO_DELEGATE_LAT_INTERVALS] = "DELEGATE_LAT_INTERVALS",
	[PROTO_STATUS_REQUEST] = "STATUS_REQUEST",
	[PROTO_STATUS] = "STATUS",
};

const char *proto_type_name(uint16_t type)
{
	if (type == 0 || type > PROTO_TYPE_MAX)
		return "UNKNOWN";
	return type_names[type];
}

double proto_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- frames ---- */

void proto_header_pack(uint8_t hdr[PROTO_HDR_LEN], uint16_t type, uint32_t len)
{
	uint32_t l = htobe32(len);
	uint16_t t = htobe16(type), f = 0;
	memcpy(hdr, &l, 4);
	memcpy(hdr + 4, &t, 2);
	memcpy(hdr + 6, &f, 2);
}

int proto_header_parse(const uint8_t hdr[PROTO_HDR_LEN], uint16_t *type, uint32_t *len,
		       struct ns_err *err)
{
	uint32_t l;
	uint16_t t;
	memcpy(&l, hdr, 4);
	memcpy(&t, hdr + 4, 2);
	l = be32toh(l);
	t = be16toh(t);
	if (l > PROTO_MAX_PAYLOAD)
		return ns_err_code(err, NS_E_PROTOCOL, "control frame of %u bytes exceeds the %d-byte limit",
				  (unsigned)l, PROTO_MAX_PAYLOAD);
	if (t == 0 || t > PROTO_TYPE_MAX)
		return ns_err_set(err, "unknown control message type %u", (unsigned)t);
	*type = t;
	*len = l;
	return 0;
}

void proto_sa_name(const struct sockaddr *sa, socklen_t sl, bool with_port, char *buf,
		   size_t len)
{
	char host[NI_MAXHOST], port[NI_MAXSERV];
	if (getnameinfo(sa, sl, host, sizeof(host), port, sizeof(port),
			NI_NUMERICHOST | NI_NUMERICSERV) != 0)
		snprintf(buf, len, "the peer");
	else if (!with_port)
		snprintf(buf, len, "%s", host);
	else
		snprintf(buf, len, sa->sa_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, port);
}

void proto_addr_name(int fd, bool local, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int rc = local ? getsockname(fd, (struct sockaddr *)&ss, &sl)
		       : getpeername(fd, (struct sockaddr *)&ss, &sl);
	if (rc < 0)
		snprintf(buf, len, "the peer");
	else
		proto_sa_name((struct sockaddr *)&ss, sl, true, buf, len);
}

void proto_missing_name(char *buf, size_t len, const char *what, uint32_t first,
			uint32_t total, uint32_t missing)
{
	if (missing > 1)
		snprintf(buf, len, "%s %u of %u (and %u more)", what, (unsigned)first + 1,
			 (unsigned)total, (unsigned)missing - 1);
	else
		snprintf(buf, len, "%s %u of %u", what, (unsigned)first + 1, (unsigned)total);
}

/* Waits for fd to be ready for events before deadline; cancel_fd readable aborts. A timeout
 * is left to the caller to word (err->code NS_E_TIMEOUT, message unset). */
static int wait_fd(int fd, short events, double deadline, int cancel_fd, struct ns_err *err)
{
	for (;;) {
		double left = deadline - proto_now();
		if (left <= 0) {
			if (err)
				err->code = NS_E_TIMEOUT;
			return -1;
		}
		struct pollfd pfd[2] = {{.fd = fd, .events = events}, {.fd = cancel_fd, .events = POLLIN}};
		int ms = left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
		int n = poll(pfd, cancel_fd >= 0 ? 2 : 1, ms);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return ns_err_sys(err, "poll");
		}
		if (cancel_fd >= 0 && (pfd[1].revents & POLLIN))
			return ns_err_set(err, "stopped");
		if (n > 0 && pfd[0].revents)
			return 0;
	}
}

static int send_all(int fd, uint16_t type, const uint8_t *p, size_t n, double deadline,
		    struct ns_err *err)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w > 0) {
			p += w;
			n -= (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (wait_fd(fd, POLLOUT, deadline, -1, err) < 0) {
				char peer[PROTO_ADDR_NAME_LEN];
				proto_addr_name(fd, false, peer, sizeof(peer));
				/* the peer reads nothing, or the path stalled: its buffers are full */
				if (err && err->code == NS_E_TIMEOUT)
					ns_err_timeout(err, 0, "%s to read %s", peer, proto_type_name(type));
				return -1;
			}
			continue;
		}
		return ns_err_sys(err, "sending on the control connection");
	}
	return 0;
}

/* Returns 0 when n bytes arrived, -1 on error; *eof set when the peer closed first. */
static int recv_all(int fd, uint8_t *p, size_t n, double deadline, int cancel_fd, bool *eof,
		    struct ns_err *err)
{
	while (n > 0) {
		if (wait_fd(fd, POLLIN, deadline, cancel_fd, err) < 0)
			return -1;
		ssize_t r = recv(fd, p, n, MSG_DONTWAIT);
		if (r > 0) {
			p += r;
			n -= (size_t)r;
			continue;
		}
		if (r == 0) {
			if (eof)
				*eof = true;
			return ns_err_set(err, "the peer closed the control connection");
		}
		if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
			continue;
		if (eof && (errno == ECONNRESET || errno == EPIPE))
			*eof = true;
		return ns_err_sys(err, "reading the control connection");
	}
	return 0;
}

int proto_send(int fd, uint16_t type, const void *payload, size_t len, double deadline,
	       struct ns_err *err)
{
	if (len > PROTO_MAX_PAYLOAD)
		return ns_err_set(err, "internal: %s message of %zu bytes is too large",
				  proto_type_name(type), len);
	uint8_t hdr[PROTO_HDR_LEN];
	proto_header_pack(hdr, type, (uint32_t)len);
	if (send_all(fd, type, hdr, sizeof(hdr), deadline, err) < 0)
		return -1;
	return len ? send_all(fd, type, payload, len, deadline, err) : 0;
}

int proto_send_buf(int fd, uint16_t type, const struct proto_buf *b, double deadline,
		   struct ns_err *err)
{
	if (b->oom)
		return ns_err_code(err, NS_E_NOMEM, "out of memory building a %s message", proto_type_name(type));
	return proto_send(fd, type, b->p, b->len, deadline, err);
}

/* A receive that timed out says from whom, and how far it got. */
static int recv_timed_out(int fd, const char *what, uint16_t type, struct ns_err *err)
{
	char peer[PROTO_ADDR_NAME_LEN];
	proto_addr_name(fd, false, peer, sizeof(peer));
	return ns_err_timeout(err, 0, "%s%s%s from %s", what, type ? proto_type_name(type) : "",
			      type ? " message" : "", peer);
}

int proto_recv(int fd, uint16_t *type, uint8_t *buf, uint32_t *len, double deadline,
	       int cancel_fd, bool *eof, struct ns_err *err)
{
	uint8_t hdr[PROTO_HDR_LEN];
	if (eof)
		*eof = false;
	if (recv_all(fd, hdr, sizeof(hdr), deadline, cancel_fd, eof, err) < 0) {
		if (err && err->code == NS_E_TIMEOUT)
			recv_timed_out(fd, "a message", 0, err);
		return -1;
	}
	if (proto_header_parse(hdr, type, len, err) < 0)
		return -1;
	if (*len && recv_all(fd, buf, *len, deadline, cancel_fd, eof, err) < 0) {
		if (eof && *eof)
			ns_err_set(err, "truncated %s frame: the peer closed the connection",
				   proto_type_name(*type));
		else if (err && err->code == NS_E_TIMEOUT)
			recv_timed_out(fd, "the rest of a ", *type, err);
		return -1;
	}
	return 0;
}

/* ---- messages ---- */

void proto_enc_hello(struct proto_buf *b, const struct proto_hello *h)
{
	proto_put_u32(b, PROTO_MAGIC);
	proto_put_u16(b, h->version);
	proto_put_u16(b, h->flags);
}

int proto_dec_hello(const uint8_t *p, size_t len, struct proto_hello *h, struct ns_err *err)
{
	struct proto_rd r;
	proto_rd_init(&r, p, len);
	uint32_t magic = proto_get_u32(&r);
	h->version = proto_get_u16(&r);
	h->flags = proto_get_u16(&r);
	if (proto_rd_end(&r, "HELLO", err) < 0)
		return -1;
	if (magic != PROTO_MAGIC)
		return ns_err_set(err, "not a netsweep peer (bad HELLO magic)");
	if (h->version != PROTO_VERSION)
		return ns_err_code(err, NS_E_PROTOCOL, "protocol version %u is not supported (this "
				   "side speaks %d; both ends need the same netsweep release)",
				  (unsigned)h->version, PROTO_VERSION);
	return 0;
}

void proto_enc_error(struct proto_buf *b, uint16_t code, const char *text)
{
	char t[PROTO_MAX_TEXT];
	snprintf(t, sizeof(t), "%s", text ? text : "");
	proto_put_u16(b, code);
	proto_put_str(b, t);
}

void proto_printable(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			*s = '?';
}

int proto_dec_error(const uint8_t *p, size_t len, uint16_t *code, char *text, size_t cap,
		    struct ns_err *err)
{
	struct proto_rd r;
	char t[PROTO_MAX_TEXT];
	proto_rd_init(&r, p, len);
	*code = proto_get_u16(&r);
	proto_get_str(&r, t, sizeof(t));
	if (proto_rd_end(&r, "ERROR", err) < 0)
		return -1;
	proto_printable(t);
	snprintf(text, cap, "%s", t);
	return 0;
}

void proto_send_error(int fd, uint16_t code, const char *text)
{
	struct proto_buf b;
	proto_buf_init(&b);
	proto_enc_error(&b, code, text);
	proto_send_buf(fd, PROTO_ERROR, &b, proto_now() + 1.0, NULL);
	proto_buf_free(&b);
}

void proto_enc_params(struct proto_buf *b, const struct probe_params *p)
{
	fields_put(b, &fields_params, p);
}

int proto_dec_params(const uint8_t *p, size_t len, struct probe_params *o, struct ns_err *err)
{
	struct proto_rd r;
	proto_rd_init(&r, p, len);
	probe_params_init(o);
	const struct field *bad = fields_get(&r, &fields_params, o);
	if (proto_rd_end(&r, "TEST_REQUEST", err) < 0)
		return -1;
	if (bad)
		return ns_err_set(err, "unknown %s in TEST_REQUEST", bad->key);
	return 0;
}

void proto_enc_ready(struct proto_buf *b, const struct proto_ready *r)
{
	proto_put_u16(b, r->data_port);
	proto_put_bytes(b, r->cookie, PROTO_COOKIE_LEN);
	proto_put_u32(b, r->n_udp);
	for (uint32_t i = 0; i < r->n_udp && i < PROTO_MAX_UDP_PORTS; i++)
		proto_put_u16(b, r->udp_ports[i]);
	proto_put_u8(b, r->has_cert);
	proto_put_bytes(b, r->cert_sha256, PROTO_CERT_SHA256_LEN);
}

int proto_dec_ready(const uint8_t *p, size_t len, struct proto_ready *o, struct ns_err *err)
{
	struct proto_rd r;
	proto_rd_init(&r, p, len);
	o->data_port = proto_get_u16(&r);
	proto_get_bytes(&r, o->cookie, PROTO_COOKIE_LEN);
	o->n_udp = proto_get_u32(&r);
	if (o->n_udp > PROTO_MAX_UDP_PORTS)
		return ns_err_set(err, "READY lists %u UDP ports (at most %d)", (unsigned)o->n_udp,
				  PROTO_MAX_UDP_PORTS);
	for (uint32_t i = 0; i < o->n_udp; i++)
		o->udp_ports[i] = proto_get_u16(&r);
	o->has_cert = proto_get_u8(&r) != 0;
	proto_get_bytes(&r, o->cert_sha256, PROTO_CERT_SHA256_LEN);
	return proto_rd_end(&r, "READY", err);
}

void proto_enc_results(struct proto_buf *b, const struct proto_results *r)
{
	proto_put_u32(b, r->n_dirs);
	for (uint32_t i = 0; i < r->n_dirs && i < 2; i++)
		fields_put(b, &fields_dir_summary, &r->dirs[i]);
}

int proto_dec_results(const uint8_t *p, size_t len, struct proto_results *o, struct ns_err *err)
{
	struct proto_rd r;
	proto_rd_init(&r, p, len);
	memset(o, 0, sizeof(*o));
	o->n_dirs = proto_get_u32(&r);
	if (o->n_dirs > 2)
		return ns_err_set(err, "RESULTS holds %u directions (at most 2)", (unsigned)o->n_dirs);
	for (uint32_t i = 0; i < o->n_dirs; i++) {
		struct proto_dir_summary *d = &o->dirs[i];
		(void)fields_get(&r, &fields_dir_summary, d);
		if (d->dir > NS_DIR_REVERSE || d->role > ENGINE_RECV || d->n_streams > NS_MAX_STREAMS ||
		    d->n_intervals > PROTO_MAX_INTERVALS)
			return ns_err_set(err, "RESULTS value out of range");
	}
	return proto_rd_end(&r, "RESULTS", err);
}

void proto_enc_streams(struct proto_buf *b, uint8_t dir, uint32_t first,
		       const struct proto_stream_rec *recs, uint32_t count)
{
	proto_put_u8(b, dir);
	proto_put_u32(b, first);
	proto_put_u32(b, count);
	for (uint32_t i = 0; i < count; i++) {
		proto_put_u32(b, (uint32_t)recs[i].cpu);
		fields_put(b, &fields_snap, &recs[i].omit);
		fields_put(b, &fields_snap, &recs[i].end);
	}
}

int proto_dec_streams(const uint8_t *p, size_t len, uint8_t *dir, uint32_t *first,
		      uint32_t *count, struct proto_stream_rec *recs, uint32_t cap,
		      struct ns_err *err)
{
	struct proto_rd r;
	proto_rd_init(&r, p, len);
	*dir = proto_get_u8(&r);
	*first = proto_get_u32(&r);
	*count = proto_get_u32(&r);
	if (r.bad || *dir > NS_DIR_REVERSE || *first > cap || *count > cap - *first)
		return ns_err_set(err, "RESULT_STREAMS chunk out of range");
	for (uint32_t i = 0; i < *count; i++) {
		struct proto_stream_rec *s = &recs[*first + i];
		s->cpu = (int32_t)proto_get_u32(&r);
		(void)fields_get(&r, &fields_snap, &s->omit);
		(void)fields_get(&r, &fields_snap, &s->end);
	}
	return proto_rd_end(&r, "RESULT_STREAMS", err);
}

void proto_enc_intervals(struct proto_buf *b, uint8_t dir, uint32_t first,
			 const struct probe_interval *ivl, uint32_t count)
{
	proto_put_u8(b, dir);
	proto_put_u32(b, first);
	proto_put_u32(b, count);
	for (uint32_t i = 0; i < count; i++)
		fields_put(b, &fields_interval, &ivl[i]);
}

/* at_first: the chunk's intervals go to ivl[first..]; else to ivl[0..]. */
static int dec_intervals(const uint8_t *p, size_t len, uint8_t *dir, uint32_t *first,
			 uint32_t *count, struct probe_interval *ivl, uint32_t cap, bool at_first,
			 struct ns_err *err)
{
	struct proto_rd r;
	proto_rd_init(&r, p, len);
	*dir = proto_get_u8(&r);
	*first = proto_get_u32(&r);
	*count = proto_get_u32(&r);
	uint32_t base = at_first ? *first : 0;
	if (r.bad || *dir > NS_DIR_REVERSE || base > cap || *count > cap - base ||
	    *first > PROTO_MAX_INTERVALS || *count > PROTO_MAX_INTERVALS - *first)
		return ns_err_set(err, "RESULT_INTERVALS chunk out of range");
	for (uint32_t i = 0; i < *count; i++) {
		struct probe_interval *v = &ivl[base + i];
		memset(v, 0, sizeof(*v));
		v->stream = -1;
		(void)fields_get(&r, &fields_interval, v);
	}
	return proto_rd_end(&r, "RESULT_INTERVALS", err);
}

int proto_dec_intervals(const uint8_t *p, size_t len, uint8_t *dir, uint32_t *first,
			uint32_t *count, struct probe_interval *ivl, uint32_t cap,
			struct ns_err *err)
{
	return dec_intervals(p, len, dir, first, count, ivl, cap, true, err);
}

int proto_dec_live_intervals(const uint8_t *p, size_t len, uint8_t *dir, uint32_t *first,
			     uint32_t *count, struct probe_interval *ivl, uint32_t cap,
			     struct ns_err *err)
{
	return dec_intervals(p, len, dir, first, count, ivl, cap, false, err);
}

void proto_enc_delegate(struct proto_buf *b, const struct probe_params *p)
{
	proto_enc_params(b, p);
}

int proto_dec_delegate(const uint8_t *p, size_t len, struct probe_params *o, struct ns_err *err)
{
	if (proto_dec_params(p, len, o, err) < 0) {
		ns_err_prefix(err, "DELEGATE_REQUEST");
		return -1;
	}
	if (!o->host[0] || o->port == 0)
		return ns_err_set(err, "DELEGATE_REQUEST names no target agent");
	if (o->psk_file[0])
		return ns_err_set(err, "DELEGATE_REQUEST may not name a key file on the agent's host");
	return 0;
}

void proto_enc_hostinfo_request(struct proto_buf *b, const char *peer)
{
	if (peer && peer[0])
		proto_put_str(b, peer);
}

int proto_dec_hostinfo_request(const uint8_t *p, size_t len, char *peer, size_t cap,
			       struct ns_err *err)
{
	char t[PROTO_MAX_PEER + 1];
	struct proto_rd r;
	peer[0] = '\0';
	if (len == 0)
		return 0;
	proto_rd_init(&r, p, len);
	proto_get_str(&r, t, sizeof(t));
	if (proto_rd_end(&r, "HOSTINFO_REQUEST", err) < 0)
		return -1;
	if (!t[0] || strspn(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.:_%-") !=
			     strlen(t))
		return ns_err_set(err, "HOSTINFO_REQUEST peer is not an address");
	if (strlen(t) >= cap)
		return ns_err_set(err, "HOSTINFO_REQUEST peer is too long");
	memcpy(peer, t, strlen(t) + 1);
	return 0;
}

void proto_enc_status(struct proto_buf *b, const struct proto_status *s)
{
	proto_put_u32(b, s->tests);
	proto_put_u32(b, s->max_tests);
	proto_put_u64(b, s->max_rate_bps);
	proto_put_u32(b, s->sessions);
	proto_put_u8(b, s->delegate);
	proto_put_f64(b, s->uptime_s);
}

int proto_dec_status(const uint8_t *p, size_t len, struct proto_status *s, struct ns_err *err)
{
	struct proto_rd r;
	proto_rd_init(&r, p, len);
	s->tests = proto_get_u32(&r);
	s->max_tests = proto_get_u32(&r);
	s->max_rate_bps = proto_get_u64(&r);
	s->sessions = proto_get_u32(&r);
	s->delegate = proto_get_u8(&r);
	s->uptime_s = proto_get_f64(&r);
	return proto_rd_end(&r, "STATUS", err);
}
