/* Every timeout names host, port and what was awaited, in one wording: "timed out [after N s]
 * waiting for WHAT from HOST:PORT". Each is provoked here on loopback: a fake agent (a thread
 * speaking the control protocol up to a point, then silent) for the client's waits, a fake
 * client against an embedded agent for the agent's, and a full socket for a send. The agent's
 * waits for data streams last its 5 s setup allowance, so those run side by side. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runner/agent/agent.h"
#include "runner/client/client.h"
#include "runner/proto/proto.h"

/* ---- sockets ---- */

static int listen_on(int type, int backlog, uint16_t *port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	if (type == SOCK_STREAM)
		assert_int_equal(listen(fd, backlog), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

static int connect_to(uint16_t port, bool block)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | (block ? 0 : SOCK_NONBLOCK), 0);
	assert_true(fd >= 0);
	int rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	assert_true(rc == 0 || !block);
	return fd;
}

/* ---- the formatter and the control connection itself ---- */

static void one_wording_for_every_timeout(void **state)
{
	(void)state;
	struct ns_err err = {0};
	assert_int_equal(ns_err_timeout(&err, 5, "READY from %s", "10.0.0.1:5201"), -1);
	assert_string_equal(err.msg, "timed out after 5 s waiting for READY from 10.0.0.1:5201");
	assert_int_equal(err.code, NS_E_TIMEOUT);
	ns_err_timeout(&err, 0.5, "x");
	assert_string_equal(err.msg, "timed out after 0.5 s waiting for x");
	ns_err_timeout(&err, 1500, "x");
	assert_string_equal(err.msg, "timed out after 1500 s waiting for x");
	ns_err_timeout(&err, 0, "HELLO from [::1]:5201");
	assert_string_equal(err.msg, "timed out waiting for HELLO from [::1]:5201");
}

/* A peer that reads nothing: the send names it and the message it would not take. */
static void a_send_names_the_peer_that_does_not_read(void **state)
{
	(void)state;
	uint16_t port;
	int small = 4096;
	int lfd = listen_on(SOCK_STREAM, 1, &port);
	setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)); /* the accepted one's */
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	int peer = accept(lfd, NULL, NULL);
	assert_true(peer >= 0);
	static uint8_t junk[65536];
	for (int i = 0; i < 5; i++) { /* both ends' buffers full, and staying so */
		while (send(fd, junk, sizeof(junk), MSG_DONTWAIT | MSG_NOSIGNAL) > 0)
			;
		usleep(20000);
	}
	struct ns_err err = {0};
	char want[128];
	assert_int_equal(proto_send(fd, PROTO_STOP, junk, 60000, proto_now() + 0.2, &err), -1);
	snprintf(want, sizeof(want), "timed out waiting for 127.0.0.1:%u to read STOP",
		 (unsigned)port);
	assert_string_equal(err.msg, want);
	assert_int_equal(err.code, NS_E_TIMEOUT);
	close(fd);
	close(peer);
	close(lfd);
}

/* Nothing, then half a frame: the receive says from whom, and what it had begun to read. */
static void a_receive_names_the_silent_peer(void **state)
{
	(void)state;
	uint16_t port;
	int lfd = listen_on(SOCK_STREAM, 1, &port);
	int fd = connect_to(port, true);
	int peer = accept(lfd, NULL, NULL);
	struct sockaddr_in me;
	socklen_t sl = sizeof(me);
	getsockname(peer, (struct sockaddr *)&me, &sl);
	uint8_t buf[PROTO_MAX_PAYLOAD], hdr[PROTO_HDR_LEN];
	uint16_t type;
	uint32_t len;
	struct ns_err err = {0};
	char want[128];
	assert_int_equal(proto_recv(fd, &type, buf, &len, proto_now() + 0.2, -1, NULL, &err), -1);
	snprintf(want, sizeof(want), "timed out waiting for a message from 127.0.0.1:%u",
		 (unsigned)port);
	assert_string_equal(err.msg, want);
	assert_int_equal(err.code, NS_E_TIMEOUT);
	proto_header_pack(hdr, PROTO_READY, 40);
	assert_int_equal(send(peer, hdr, sizeof(hdr), 0), (ssize_t)sizeof(hdr));
	assert_int_equal(proto_recv(fd, &type, buf, &len, proto_now() + 0.2, -1, NULL, &err), -1);
	snprintf(want, sizeof(want), "timed out waiting for the rest of a READY message from "
		 "127.0.0.1:%u", (unsigned)port);
	assert_string_equal(err.msg, want);
	/* and the other way: the agent's end names the client with its port */
	assert_int_equal(proto_recv(peer, &type, buf, &len, proto_now() + 0.1, -1, NULL, &err), -1);
	sl = sizeof(me);
	getsockname(fd, (struct sockaddr *)&me, &sl);
	snprintf(want, sizeof(want), "timed out waiting for a message from 127.0.0.1:%u",
		 (unsigned)ntohs(me.sin_port));
	assert_string_equal(err.msg, want);
	close(fd);
	close(peer);
	close(lfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_wording_for_every_timeout),
		cmocka_unit_test(a_send_names_the_peer_that_does_not_read),
		cmocka_unit_test(a_receive_names_the_silent_peer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
