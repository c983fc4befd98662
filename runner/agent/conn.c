/* conn: what the agent's daemon (agent.c) and its test runners (agent_session.c,
 * agent_delegate.c) share about one client connection — log lines, refusals, releasing the test
 * slot, and address helpers. Below both; calls neither. */
#include "conn.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void agent_log(const struct agent *a, const char *fmt, ...)
{
	if (a->o.quiet || !a->o.log)
		return;
	/* peers' words (names, refused values) go into the line: one line each, nothing raw */
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	proto_printable(line);
	/* each line says when, as iperf3 -s --timestamps does: a test's summary is a record */
	char when[32] = "";
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (gmtime_r(&ts.tv_sec, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ ", &tm);
	char out[1100];
	snprintf(out, sizeof(out), "%snetsweep agent: %s", when, line);
	a->o.log(a->o.log_arg, out);
}

void agent_log_limited(struct agent *a, const char *fmt, ...)
{
	double now = proto_now();
	if (now - a->log_window >= 1.0) {
		if (a->log_dropped)
			agent_log(a, "%lu more refused connections not logged", a->log_dropped);
		a->log_window = now;
		a->log_lines = 0;
		a->log_dropped = 0;
	}
	if (a->log_lines >= AGENT_LOG_PER_S) {
		a->log_dropped++;
		return;
	}
	a->log_lines++;
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	agent_log(a, "%s", line);
}

void agent_linger(struct agent *a, int fd)
{
	shutdown(fd, SHUT_WR);
	int slot = 0;
	for (int i = 0; i < AGENT_MAX_LINGER; i++) {
		if (a->linger[i].fd < 0) {
			slot = i;
			break;
		}
		if (a->linger[i].until < a->linger[slot].until)
			slot = i;
	}
	if (a->linger[slot].fd >= 0)
		close(a->linger[slot].fd);
	a->linger[slot].fd = fd;
	a->linger[slot].until = proto_now() + AGENT_LINGER_S;
}

bool agent_same_ip(const struct sockaddr_storage *x, const struct sockaddr_storage *y)
{
	if (x->ss_family != y->ss_family)
		return false;
	if (x->ss_family == AF_INET)
		return ((const struct sockaddr_in *)x)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)y)->sin_addr.s_addr;
	return !memcmp(&((const struct sockaddr_in6 *)x)->sin6_addr,
		       &((const struct sockaddr_in6 *)y)->sin6_addr, sizeof(struct in6_addr));
}

void agent_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

uint16_t agent_get_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
		return 0;
	return ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
					     : ((struct sockaddr_in6 *)&ss)->sin6_port);
}

/* Before a session's last message: a client that reads it and connects again at once (the
 * runner asks for hostinfo, then runs a test) must find the slot free. The thread itself is
 * joined by the accept loop once it ended. */
void agent_release(struct conn *c)
{
	if (c->holds_slot) {
		c->holds_slot = false;
		atomic_fetch_sub(&c->a->tests, 1);
	}
}

void agent_refuse(struct conn *c, uint16_t code, const char *why)
{
	agent_log(c->a, "%s: %s", c->peer_name, why);
	agent_release(c);
	proto_send_error(c->ctl, code, why);
}
