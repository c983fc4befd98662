/* fake_imds: a tiny IMDSv2 stand-in on 127.0.0.1 for the hostinfo tests. It hands out a token
 * for PUT /latest/api/token (which must carry X-aws-ec2-metadata-token-ttl-seconds) and answers
 * GET /latest/meta-data/{instance-type,placement/region,placement/availability-zone} only with
 * that token (401 otherwise), logging one line per request so that a test can check the flow.
 * --silent listens but never accepts: the address that answers nothing. --linger keeps each
 * connection open after the answer until the client closes it, as a proxy might. It exits after
 * --lifetime seconds whatever happens, so a test that dies leaves nothing behind for long.
 *
 * usage: fake_imds --port-file F [--log F] [--silent] [--linger] [--lifetime S]
 *                  [--instance-type T] [--region R] [--az Z] */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define REQ_MAX 4096
#define TOKEN "AQAEAFakeTokenForNetsweepTests=="

static const char *instance_type = "c5n.18xlarge", *region = "ap-northeast-1",
		  *az = "ap-northeast-1a";
static FILE *log_out;

static void logline(const char *fmt, const char *a, const char *b)
{
	if (!log_out)
		return;
	fprintf(log_out, fmt, a, b);
	fputc('\n', log_out);
	fflush(log_out);
}

static void reply(int fd, int status, const char *reason, const char *body)
{
	char buf[1024];
	int n = snprintf(buf, sizeof(buf),
			 "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
			 "Connection: close\r\nServer: fake_imds\r\n\r\n%s",
			 status, reason, strlen(body), body);
	if (n > 0 && send(fd, buf, (size_t)n, MSG_NOSIGNAL) < 0)
		perror("fake_imds: send");
}

/* The value of a header in a request (case-insensitive name), copied into out. */
static bool header(const char *req, const char *name, char *out, size_t len)
{
	size_t n = strlen(name);
	for (const char *p = strstr(req, "\r\n"); p && p[2]; p = strstr(p + 2, "\r\n")) {
		const char *line = p + 2;
		if (strncasecmp(line, name, n) == 0 && line[n] == ':') {
			const char *v = line + n + 1;
			while (*v == ' ')
				v++;
			size_t vl = strcspn(v, "\r\n");
			if (vl >= len)
				vl = len - 1;
			memcpy(out, v, vl);
			out[vl] = '\0';
			return true;
		}
	}
	return false;
}

static void serve(int fd)
{
	char req[REQ_MAX + 1] = "";
	size_t len = 0;
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	while (len < REQ_MAX && !strstr(req, "\r\n\r\n")) {
		if (poll(&pfd, 1, 2000) <= 0)
			return;
		ssize_t n = recv(fd, req + len, REQ_MAX - len, 0);
		if (n <= 0)
			return;
		len += (size_t)n;
		req[len] = '\0';
	}
	char method[8] = "", path[256] = "", value[256];
	if (sscanf(req, "%7s %255s", method, path) != 2) {
		reply(fd, 400, "Bad Request", "");
		return;
	}
	if (strcmp(method, "PUT") == 0 && strcmp(path, "/latest/api/token") == 0) {
		long ttl = header(req, "X-aws-ec2-metadata-token-ttl-seconds", value, sizeof(value))
				   ? strtol(value, NULL, 10)
				   : 0;
		if (ttl < 1 || ttl > 21600) {
			logline("PUT %s refused: no valid ttl%s", path, "");
			reply(fd, 400, "Bad Request", "");
			return;
		}
		logline("PUT %s ok ttl=%s", path, value);
		reply(fd, 200, "OK", TOKEN);
		return;
	}
	if (strcmp(method, "GET") != 0) {
		reply(fd, 405, "Method Not Allowed", "");
		return;
	}
	if (!header(req, "X-aws-ec2-metadata-token", value, sizeof(value)) || strcmp(value, TOKEN)) {
		logline("GET %s refused: no token%s", path, "");
		reply(fd, 401, "Unauthorized", "");
		return;
	}
	const char *body = NULL;
	if (strcmp(path, "/latest/meta-data/instance-type") == 0)
		body = instance_type;
	else if (strcmp(path, "/latest/meta-data/placement/region") == 0)
		body = region;
	else if (strcmp(path, "/latest/meta-data/placement/availability-zone") == 0)
		body = az;
	if (!body) {
		logline("GET %s not found%s", path, "");
		reply(fd, 404, "Not Found", "");
		return;
	}
	logline("GET %s ok%s", path, "");
	reply(fd, 200, "OK", body);
}

int main(int argc, char **argv)
{
	const char *port_file = NULL, *log_file = NULL;
	bool silent = false, linger = false;
	double lifetime = 30;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--silent")) {
			silent = true;
			continue;
		}
		if (!strcmp(a, "--linger")) {
			linger = true;
			continue;
		}
		if (!v) {
			fprintf(stderr, "fake_imds: %s needs a value\n", a);
			return 2;
		}
		i++;
		if (!strcmp(a, "--port-file"))
			port_file = v;
		else if (!strcmp(a, "--log"))
			log_file = v;
		else if (!strcmp(a, "--lifetime"))
			lifetime = atof(v);
		else if (!strcmp(a, "--instance-type"))
			instance_type = v;
		else if (!strcmp(a, "--region"))
			region = v;
		else if (!strcmp(a, "--az"))
			az = v;
		else {
			fprintf(stderr, "fake_imds: unknown option %s\n", a);
			return 2;
		}
	}
	if (!port_file || !(lifetime > 0)) {
		fprintf(stderr, "fake_imds: --port-file is required, --lifetime must be > 0\n");
		return 2;
	}
	if (log_file && !(log_out = fopen(log_file, "a"))) {
		perror(log_file);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sa);
	int one = 1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(ls, 16) < 0 ||
	    getsockname(ls, (struct sockaddr *)&sa, &sl) < 0) {
		perror("fake_imds: listen");
		return 1;
	}
	/* Written to a temporary name and renamed, so a reader never sees half a number. */
	char tmp[512];
	snprintf(tmp, sizeof(tmp), "%s.tmp", port_file);
	FILE *pf = fopen(tmp, "w");
	if (!pf || fprintf(pf, "%d\n", ntohs(sa.sin_port)) < 0 || fclose(pf) != 0 ||
	    rename(tmp, port_file) < 0) {
		perror(port_file);
		return 1;
	}
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		double left = lifetime - ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9);
		if (left <= 0)
			break;
		if (silent) {
			/* Connections complete in the kernel's backlog and then hear nothing. */
			usleep(left > 0.2 ? 200000 : (useconds_t)(left * 1e6));
			continue;
		}
		struct pollfd pfd = {.fd = ls, .events = POLLIN};
		int pr = poll(&pfd, 1, left > 0.5 ? 500 : (int)(left * 1000) + 1);
		if (pr < 0 && errno != EINTR)
			break;
		if (pr <= 0)
			continue;
		int fd = accept(ls, NULL, NULL);
		if (fd < 0)
			continue;
		serve(fd);
		if (linger) {
			/* Until the client hangs up (or 20 s, past any timeout the tests give): it must
			 * not need our close to finish. */
			char sink[256];
			struct pollfd cp = {.fd = fd, .events = POLLIN};
			while (poll(&cp, 1, 20000) > 0 && recv(fd, sink, sizeof(sink), 0) > 0)
				;
		}
		close(fd);
	}
	close(ls);
	if (log_out)
		fclose(log_out);
	return 0;
}
