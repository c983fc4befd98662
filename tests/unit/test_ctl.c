/* runner/client/ctl (driven through probe_hostinfo): what the client says about the far end
 * of a control connection — something that is not a netsweep agent is named as such with what
 * it sent (printable bytes only), and a port that accepts and never speaks times out naming
 * host, port and what was awaited. Servers are threads on loopback ports of their own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runner/client/client.h"

struct server {
	int lfd;
	uint16_t port;
	const char *reply;      /* NULL: accept and say nothing */
	size_t reply_len;
	pthread_t th;
};

static void *serve(void *arg)
{
	struct server *s = arg;
	int fd = accept(s->lfd, NULL, NULL);
	if (fd < 0)
		return NULL;
	char in[64];
	(void)!recv(fd, in, sizeof(in), 0); /* the client's HELLO */
	if (s->reply)
		(void)!send(fd, s->reply, s->reply_len, MSG_NOSIGNAL);
	usleep(s->reply ? 300000 : 1300000); /* the silent one outlasts the 1 s timeout */
	close(fd);
	return NULL;
}

static void server_start(struct server *s, const char *reply, size_t len)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sa);
	s->lfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(s->lfd >= 0);
	assert_int_equal(bind(s->lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(s->lfd, 1), 0);
	assert_int_equal(getsockname(s->lfd, (struct sockaddr *)&sa, &sl), 0);
	s->port = ntohs(sa.sin_port);
	s->reply = reply;
	s->reply_len = len;
	assert_int_equal(pthread_create(&s->th, NULL, serve, s), 0);
}

static void server_stop(struct server *s)
{
	pthread_join(s->th, NULL);
	close(s->lfd);
}

static void a_web_server_is_not_an_agent(void **state)
{
	(void)state;
	static const char http[] = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
	struct server s;
	server_start(&s, http, sizeof(http) - 1);
	char *json = NULL, want[128];
	struct ns_err err = {0};
	assert_int_equal(probe_hostinfo("127.0.0.1", s.port, NULL, 3, &json, &err), -1);
	server_stop(&s);
	snprintf(want, sizeof(want), "127.0.0.1:%u is not a netsweep agent (it sent \"HTTP/1.1 400 Bad...\")",
		 (unsigned)s.port);
	assert_string_equal(err.msg, want);
	assert_int_equal(err.code, NS_E_PROTOCOL);
}

static void binary_replies_are_shown_printable(void **state)
{
	(void)state;
	static const char junk[] = "\xff\xff\xff\xff\x1b[2J\n\r\x07zz\x00\x01\x7f tail of it";
	struct server s;
	server_start(&s, junk, sizeof(junk) - 1);
	char *json = NULL;
	struct ns_err err = {0};
	assert_int_equal(probe_hostinfo("127.0.0.1", s.port, NULL, 3, &json, &err), -1);
	server_stop(&s);
	assert_non_null(strstr(err.msg, "is not a netsweep agent (it sent \""));
	for (const unsigned char *p = (const unsigned char *)err.msg; *p; p++)
		assert_true(*p >= 0x20 && *p < 0x7f);
	assert_non_null(strstr(err.msg, "????"));
}

static void a_silent_port_times_out_naming_it(void **state)
{
	(void)state;
	struct server s;
	server_start(&s, NULL, 0);
	char *json = NULL, want[128];
	struct ns_err err = {0};
	assert_int_equal(probe_hostinfo("127.0.0.1", s.port, NULL, 1, &json, &err), -1);
	server_stop(&s);
	snprintf(want, sizeof(want), "timed out waiting for HELLO (is it a netsweep agent?) from "
		 "127.0.0.1:%u", (unsigned)s.port);
	assert_string_equal(err.msg, want);
	assert_int_equal(err.code, NS_E_TIMEOUT);
}

static void a_closed_port_names_host_and_port(void **state)
{
	(void)state;
	struct server s;
	server_start(&s, "", 0); /* a port that was just free: take it, then close it */
	int port = s.port;
	shutdown(s.lfd, SHUT_RDWR);
	close(s.lfd);
	pthread_cancel(s.th);
	pthread_join(s.th, NULL);
	char *json = NULL, want[96];
	struct ns_err err = {0};
	assert_int_equal(probe_hostinfo("127.0.0.1", (uint16_t)port, NULL, 1, &json, &err), -1);
	snprintf(want, sizeof(want), "agent 127.0.0.1 port %d unreachable", port);
	assert_non_null(strstr(err.msg, want));
	assert_int_equal(err.code, NS_E_UNREACHABLE);
}

/* A port that never answers the SYN (its accept queue is full, so the kernel drops it). */
static void a_silent_host_times_out_naming_the_handshake(void **state)
{
	(void)state;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sa);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 0), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &sl), 0);
	int filler = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(filler, (struct sockaddr *)&sa, sizeof(sa)), 0);
	char *json = NULL, want[160];
	struct ns_err err = {0};
	unsigned port = ntohs(sa.sin_port);
	assert_int_equal(probe_hostinfo("127.0.0.1", (uint16_t)port, NULL, 0.3, &json, &err), -1);
	snprintf(want, sizeof(want), "agent 127.0.0.1 port %u unreachable: timed out waiting for "
		 "SYN-ACK from 127.0.0.1:%u", port, port);
	assert_string_equal(err.msg, want);
	assert_int_equal(err.code, NS_E_UNREACHABLE);
	close(filler);
	close(lfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_web_server_is_not_an_agent),
		cmocka_unit_test(binary_replies_are_shown_printable),
		cmocka_unit_test(a_silent_port_times_out_naming_it),
		cmocka_unit_test(a_closed_port_names_host_and_port),
		cmocka_unit_test(a_silent_host_times_out_naming_the_handshake),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
