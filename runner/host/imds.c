/* imds: IMDSv2 over a hand-written HTTP/1.1 client. One connection per request
 * (Connection: close), non-blocking connect and poll against a single monotonic deadline. */
#include "imds.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "runner/proto/proto.h"

#define TOKEN_TTL_S 60 /* the token is used within the same second; keep it short-lived */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int remaining_ms(double deadline)
{
	double left = deadline - now_s();
	if (left <= 0)
		return 0;
	return (int)(left * 1000.0) + 1;
}

static int parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *len,
		      struct ns_err *err)
{
	char host[64];
	const char *port;
	if (addr[0] == '[') {
		const char *close_ = strchr(addr, ']');
		if (!close_ || close_[1] != ':' || (size_t)(close_ - addr - 1) >= sizeof(host))
			return ns_err_set(err, "metadata address '%s': want [IPv6]:PORT", addr);
		memcpy(host, addr + 1, (size_t)(close_ - addr - 1));
		host[close_ - addr - 1] = '\0';
		port = close_ + 2;
	} else {
		const char *colon = strrchr(addr, ':');
		if (!colon || (size_t)(colon - addr) >= sizeof(host))
			return ns_err_set(err, "metadata address '%s': want HOST:PORT", addr);
		memcpy(host, addr, (size_t)(colon - addr));
		host[colon - addr] = '\0';
		port = colon + 1;
	}
	char *end;
	long p = strtol(port, &end, 10);
	if (end == port || *end || p < 1 || p > 65535)
		return ns_err_set(err, "metadata address '%s': bad port", addr);
	memset(ss, 0, sizeof(*ss));
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	/* Numeric only: resolving a name could block past the deadline. */
	if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)p);
		*len = sizeof(*s4);
	} else if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)p);
		*len = sizeof(*s6);
	} else {
		return ns_err_set(err, "metadata address '%s': host must be a numeric address", addr);
	}
	return 0;
}

int imds_parse_response(const char *buf, size_t len, int *status, const char **body,
			size_t *body_len, struct ns_err *err)
{
	const char *hdr_end = NULL;
	for (size_t i = 0; i + 3 < len; i++) {
		if (memcmp(buf + i, "\r\n\r\n", 4) == 0) {
			hdr_end = buf + i;
			break;
		}
	}
	if (!hdr_end)
		return ns_err_set(err, "answer: incomplete HTTP header");
	int code;
	if (len < 12 || strncmp(buf, "HTTP/1.", 7) != 0 || sscanf(buf + 8, " %3d", &code) != 1 ||
	    code < 100 || code > 599)
		return ns_err_set(err, "answer: not an HTTP/1.x status line");
	long content_length = -1;
	const char *line = memchr(buf, '\n', (size_t)(hdr_end - buf));
	while (line && line < hdr_end) {
		line++;
		const char *eol = memchr(line, '\n', (size_t)(hdr_end + 2 - line));
		if (!eol)
			break;
		size_t n = (size_t)(eol - line);
		if (n >= 15 && strncasecmp(line, "Content-Length:", 15) == 0) {
			content_length = strtol(line + 15, NULL, 10);
			if (content_length < 0)
				return ns_err_set(err, "answer: bad Content-Length");
		} else if (n >= 18 && strncasecmp(line, "Transfer-Encoding:", 18) == 0) {
			return ns_err_set(err, "answer: chunked or encoded bodies are not supported");
		}
		line = eol;
	}
	const char *b = hdr_end + 4;
	size_t blen = len - (size_t)(b - buf);
	if (content_length >= 0) {
		if ((size_t)content_length > blen)
			return ns_err_set(err, "answer: body shorter than its Content-Length");
		blen = (size_t)content_length;
	}
	*status = code;
	*body = b;
	*body_len = blen;
	return 0;
}

/* Whether buf holds a whole answer with a Content-Length: then there is no need to wait for
 * the server to close (a proxy may keep the connection open despite Connection: close). */
static bool answer_complete(const char *buf, size_t len)
{
	const char *end = memmem(buf, len, "\r\n\r\n", 4);
	if (!end)
		return false;
	for (const char *line = buf; line && line < end;) {
		const char *eol = memchr(line, '\n', (size_t)(end + 2 - line));
		if (!eol)
			break;
		if ((size_t)(eol - line) > 15 && strncasecmp(line, "Content-Length:", 15) == 0) {
			long cl = strtol(line + 15, NULL, 10);
			return cl >= 0 && len - (size_t)(end + 4 - buf) >= (size_t)cl;
		}
		line = eol + 1;
	}
	return false;
}

/* One request/response on a fresh connection; the answer lands in resp (NUL-terminated). A
 * timeout names the address and what (the answer's name) it waited for. */
static int http_exchange(const struct sockaddr_storage *ss, socklen_t sl, const char *req,
			 const char *what, double deadline, char *resp, size_t cap, size_t *rlen,
			 struct ns_err *err)
{
	char where[PROTO_ADDR_NAME_LEN];
	proto_sa_name((const struct sockaddr *)ss, sl, true, where, sizeof(where));
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return ns_err_sys(err, "socket");
	if (connect(fd, (const struct sockaddr *)ss, sl) < 0 && errno != EINPROGRESS) {
		ns_err_sys(err, "connect");
		goto err;
	}
	struct pollfd pfd = {.fd = fd, .events = POLLOUT};
	int pr = poll(&pfd, 1, remaining_ms(deadline));
	if (pr <= 0) {
		ns_err_timeout(err, 0, "SYN-ACK from %s (%s)", where, what);
		goto err;
	}
	int soerr = 0;
	socklen_t el = sizeof(soerr);
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &el) < 0 || soerr) {
		errno = soerr ? soerr : errno;
		ns_err_sys(err, "connect");
		goto err;
	}
	size_t off = 0, total = strlen(req);
	while (off < total) {
		ssize_t n = send(fd, req + off, total - off, MSG_NOSIGNAL);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			ns_err_sys(err, "send");
			goto err;
		}
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, remaining_ms(deadline)) <= 0) {
			ns_err_timeout(err, 0, "%s to read the %s request", where, what);
			goto err;
		}
	}
	*rlen = 0;
	for (;;) {
		if (*rlen + 1 >= cap) {
			ns_err_set(err, "answer larger than %zu bytes", cap - 1);
			goto err;
		}
		ssize_t n = recv(fd, resp + *rlen, cap - 1 - *rlen, 0);
		if (n > 0) {
			*rlen += (size_t)n;
			if (answer_complete(resp, *rlen))
				break;
			continue;
		}
		if (n == 0)
			break; /* Connection: close ends the answer */
		if (errno != EAGAIN && errno != EINTR) {
			ns_err_sys(err, "receive");
			goto err;
		}
		pfd.events = POLLIN;
		if (poll(&pfd, 1, remaining_ms(deadline)) <= 0) {
			ns_err_timeout(err, 0, "the %s from %s", what, where);
			goto err;
		}
	}
	resp[*rlen] = '\0';
	close(fd);
	return 0;
err:
	close(fd);
	return -1;
}

/* Sends one request and copies a 200 answer's body, trimmed, into out. */
static int http_text(const struct sockaddr_storage *ss, socklen_t sl, const char *req,
		     double deadline, const char *what, char *out, size_t outlen, struct ns_err *err)
{
	char resp[IMDS_MAX_RESPONSE];
	size_t rlen = 0;
	int status;
	const char *body;
	size_t blen;
	if (http_exchange(ss, sl, req, what, deadline, resp, sizeof(resp), &rlen, err) < 0 ||
	    imds_parse_response(resp, rlen, &status, &body, &blen, err) < 0) {
		if (err && err->code != NS_E_TIMEOUT) /* a timeout names it already */
			ns_err_prefix(err, "%s", what);
		return -1;
	}
	if (status != 200)
		return ns_err_set(err, "%s: HTTP status %d", what, status);
	while (blen > 0 && isspace((unsigned char)body[blen - 1]))
		blen--;
	while (blen > 0 && isspace((unsigned char)*body)) {
		body++;
		blen--;
	}
	if (blen == 0 || blen >= outlen)
		return ns_err_set(err, "%s: answer of %zu bytes does not fit", what, blen);
	memcpy(out, body, blen);
	out[blen] = '\0';
	return 0;
}

/* Metadata values go into JSON and the database: accept only what instance types, regions and
 * zones are made of. */
static bool plain_value(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '-' && *s != '_')
			return false;
	return true;
}

int imds_query(const char *addr, double timeout_s, struct imds_info *out, struct ns_err *err)
{
	memset(out, 0, sizeof(*out));
	if (!addr)
		addr = IMDS_DEFAULT_ADDR;
	if (!(timeout_s > 0) || timeout_s > 60)
		return ns_err_set(err, "metadata timeout %.3g s is out of range (0, 60]", timeout_s);
	struct sockaddr_storage ss;
	socklen_t sl = 0;
	if (parse_addr(addr, &ss, &sl, err) < 0)
		return -1;
	double deadline = now_s() + timeout_s;
	char host[80], req[512], token[128];
	snprintf(host, sizeof(host), "%s", addr);

	snprintf(req, sizeof(req),
		 "PUT /latest/api/token HTTP/1.1\r\nHost: %s\r\n"
		 "X-aws-ec2-metadata-token-ttl-seconds: %d\r\nContent-Length: 0\r\n"
		 "Connection: close\r\n\r\n",
		 host, TOKEN_TTL_S);
	if (http_text(&ss, sl, req, deadline, "metadata token", token, sizeof(token), err) < 0)
		return -1;
	for (const char *t = token; *t; t++) /* it goes into a header: no control characters */
		if ((unsigned char)*t < 0x21 || (unsigned char)*t > 0x7e)
			return ns_err_set(err, "metadata token: unexpected characters");

	struct {
		const char *path, *what;
		char *out;
		size_t len;
	} gets[] = {
		{"instance-type", "instance type", out->instance_type, sizeof(out->instance_type)},
		{"placement/region", "region", out->region, sizeof(out->region)},
		{"placement/availability-zone", "availability zone", out->availability_zone,
		 sizeof(out->availability_zone)},
	};
	for (size_t i = 0; i < sizeof(gets) / sizeof(gets[0]); i++) {
		snprintf(req, sizeof(req),
			 "GET /latest/meta-data/%s HTTP/1.1\r\nHost: %s\r\n"
			 "X-aws-ec2-metadata-token: %s\r\nConnection: close\r\n\r\n",
			 gets[i].path, host, token);
		char what[64];
		snprintf(what, sizeof(what), "metadata %s", gets[i].what);
		if (http_text(&ss, sl, req, deadline, what, gets[i].out, gets[i].len, err) < 0)
			return -1;
		if (!plain_value(gets[i].out))
			return ns_err_set(err, "%s: unexpected characters in '%s'", what, gets[i].out);
	}
	return 0;
}
