/* Several modules (client/ctl, agent, proto), hence a descriptive name: every timeout names
 * host, port and what was awaited, in one wording: "timed out [after N s] waiting for WHAT from
 * HOST:PORT". Each is provoked here on loopback: a fake agent (a thread speaking the control
 * protocol up to a point, then silent) for the client's waits, a fake client against an
 * embedded agent for the agent's, and a full socket for a send. The agent's waits for data
 * streams last its 5 s setup allowance, so those run side by side. */
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
#include "runner/proto/result_wire.h"
#include "lib/settings.h"

/* ---- sockets ---- */

/* the agents' log lines, to stderr as `netsweep agent` writes them */
static void log_to_stderr(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "%s\n", line);
}

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
	assert_int_equal(ns_err_timeout(&err, 5, "READY from %s", "10.0.0.1:5301"), -1);
	assert_string_equal(err.msg, "timed out after 5 s waiting for READY from 10.0.0.1:5301");
	assert_int_equal(err.code, NS_E_TIMEOUT);
	ns_err_timeout(&err, 0.5, "x");
	assert_string_equal(err.msg, "timed out after 0.5 s waiting for x");
	ns_err_timeout(&err, 1500, "x");
	assert_string_equal(err.msg, "timed out after 1500 s waiting for x");
	ns_err_timeout(&err, 0, "HELLO from [::1]:5301");
	assert_string_equal(err.msg, "timed out waiting for HELLO from [::1]:5301");
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

/* ---- the client's waits, against a fake agent ---- */

/* Until the far end closes (or 20 s): the fake's silence. */
static void wait_eof(int fd)
{
	char junk[4096];
	double until = proto_now() + 20;
	while (proto_now() < until) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		if (poll(&pfd, 1, 100) > 0 && recv(fd, junk, sizeof(junk), MSG_DONTWAIT) == 0)
			return;
	}
}

static void recv_type(int fd, uint8_t *buf, uint16_t want, uint32_t *len)
{
	uint16_t type;
	struct ns_err err = {0};
	assert_int_equal(proto_recv(fd, &type, buf, len, proto_now() + 10, -1, NULL, &err), 0);
	assert_int_equal(type, want);
}

static void send_hello(int fd)
{
	struct proto_buf b;
	struct proto_hello h = {.version = PROTO_VERSION};
	struct ns_err err = {0};
	proto_buf_init(&b);
	proto_enc_hello(&b, &h);
	assert_int_equal(proto_send_buf(fd, PROTO_HELLO, &b, proto_now() + 5, &err), 0);
	proto_buf_free(&b);
}

enum fake_mode {
	F_NO_READY,       /* HELLO, then silence */
	F_DEAD_TCP,       /* READY names a data port whose accept queue is full */
	F_DEAD_UDP,       /* READY names UDP ports that never echo the greeting */
	F_LATE_START,     /* START answered 1 s late: the test cannot end within --timeout */
	F_NO_RESULTS,     /* nothing after STOP */
	F_HALF_RESULTS,   /* RESULTS after STOP, then nothing */
	F_DEAD_TCP_R,     /* F_DEAD_TCP for a reverse test: the client connects all the same */
	F_DELEGATE_NONE,  /* a client agent: DELEGATE_REQUEST read, then silence */
	F_DELEGATE_HALF,  /* ... DELEGATE_RESULT sent, then silence */
};

struct fake {
	enum fake_mode mode;
	int lfd;
	uint16_t port, data_port, udp_ports[2];
	pthread_t th;
	int rc;              /* the probe's */
	struct ns_err err;
};

static void *fake_agent(void *arg)
{
	struct fake *f = arg;
	uint8_t *buf = malloc(PROTO_MAX_PAYLOAD);
	uint32_t len;
	struct probe_params p;
	struct proto_ready r = {0};
	struct proto_buf b;
	struct ns_err err = {0};
	int fillers[2] = {-1, -1}, udp[2] = {-1, -1}, data[2] = {-1, -1}, dl = -1;
	int fd = accept(f->lfd, NULL, NULL);
	assert_true(fd >= 0 && buf);
	recv_type(fd, buf, PROTO_HELLO, &len);
	send_hello(fd);
	if (f->mode == F_NO_READY)
		goto silent;
	if (f->mode == F_DELEGATE_NONE || f->mode == F_DELEGATE_HALF) {
		recv_type(fd, buf, PROTO_DELEGATE_REQUEST, &len);
		if (f->mode == F_DELEGATE_HALF) {
			struct probe_result none = {0};
			proto_buf_init(&b);
			proto_enc_delegate_result(&b, &none);
			assert_int_equal(proto_send_buf(fd, PROTO_DELEGATE_RESULT, &b,
							proto_now() + 5, &err), 0);
			proto_buf_free(&b);
		}
		goto silent;
	}
	recv_type(fd, buf, PROTO_TEST_REQUEST, &len);
	assert_int_equal(proto_dec_params(buf, len, &p, &err), 0);
	if (f->mode == F_DEAD_UDP) {
		r.n_udp = p.streams;
		for (uint32_t k = 0; k < p.streams && k < 2; k++)
			udp[k] = listen_on(SOCK_DGRAM, 0, &r.udp_ports[k]);
		memcpy(f->udp_ports, r.udp_ports, sizeof(f->udp_ports));
	} else if (f->mode == F_DEAD_TCP || f->mode == F_DEAD_TCP_R) {
		dl = listen_on(SOCK_STREAM, 0, &r.data_port);
		for (int i = 0; i < 2; i++) /* the first fills the queue, the next are dropped */
			fillers[i] = connect_to(r.data_port, false);
		usleep(50000);
	} else {
		dl = listen_on(SOCK_STREAM, 4, &r.data_port);
	}
	f->data_port = r.data_port;
	proto_buf_init(&b);
	proto_enc_ready(&b, &r);
	assert_int_equal(proto_send_buf(fd, PROTO_READY, &b, proto_now() + 5, &err), 0);
	proto_buf_free(&b);
	if (f->mode == F_DEAD_TCP || f->mode == F_DEAD_TCP_R || f->mode == F_DEAD_UDP)
		goto silent;
	for (uint32_t k = 0; k < p.streams && k < 2; k++)
		data[k] = accept(dl, NULL, NULL);
	recv_type(fd, buf, PROTO_START, &len);
	if (f->mode == F_LATE_START)
		usleep(1000000);
	assert_int_equal(proto_send(fd, PROTO_START, NULL, 0, proto_now() + 5, &err), 0);
	if (f->mode == F_LATE_START)
		goto silent;
	recv_type(fd, buf, PROTO_STOP, &len);
	if (f->mode == F_HALF_RESULTS) {
		struct proto_results res = {.n_dirs = 1};
		res.dirs[0].dir = NS_DIR_FORWARD;
		res.dirs[0].role = ENGINE_RECV;
		res.dirs[0].n_streams = p.streams;
		proto_buf_init(&b);
		proto_enc_results(&b, &res);
		assert_int_equal(proto_send_buf(fd, PROTO_RESULTS, &b, proto_now() + 5, &err), 0);
		proto_buf_free(&b);
	}
silent:
	wait_eof(fd);
	close(fd);
	for (int i = 0; i < 2; i++) {
		if (fillers[i] >= 0)
			close(fillers[i]);
		if (udp[i] >= 0)
			close(udp[i]);
		if (data[i] >= 0)
			close(data[i]);
	}
	if (dl >= 0)
		close(dl);
	free(buf);
	return NULL;
}

/* A probe against a fake agent in f->mode; its error goes to f->err. */
static void *probe_fake(void *arg)
{
	struct fake *f = arg;
	struct probe_params p;
	struct probe_result res;
	probe_params_init(&p);
	snprintf(p.host, sizeof(p.host), "127.0.0.1");
	p.port = f->port;
	p.proto = f->mode == F_DEAD_UDP ? NS_PROTO_UDP : NS_PROTO_TCP;
	p.streams = f->mode == F_DEAD_TCP || f->mode == F_DEAD_UDP ? 2 : 1;
	p.dir = f->mode == F_DEAD_TCP_R ? NS_DIR_REVERSE : NS_DIR_FORWARD;
	if (p.proto == NS_PROTO_UDP)
		p.rate_bps = 1000000;
	p.connect_timeout_s = 0.5;
	p.duration_s = f->mode == F_LATE_START ? 2 : 1;
	p.interval_s = 0;
	/* the whole test: the connect timeout and this. START comes 1 s late: the test ends
	 * 0.5 s after the bound, and the set-up has 1.5 s before START is late itself. The
	 * others end 1 s before it. */
	p.timeout_s = 2;
	f->rc = probe_run(&p, &res, &f->err);
	probe_result_free(&res);
	return NULL;
}

static void client_waits_name_the_agent(void **state)
{
	(void)state;
	enum { N = F_DEAD_TCP_R + 1 };
	struct fake f[N];
	pthread_t probes[N];
	for (int i = 0; i < N; i++) { /* side by side: each waits its own time out */
		memset(&f[i], 0, sizeof(f[i]));
		f[i].mode = (enum fake_mode)i;
		f[i].lfd = listen_on(SOCK_STREAM, 1, &f[i].port);
		assert_int_equal(pthread_create(&f[i].th, NULL, fake_agent, &f[i]), 0);
		assert_int_equal(pthread_create(&probes[i], NULL, probe_fake, &f[i]), 0);
	}
	for (int i = 0; i < N; i++) {
		pthread_join(probes[i], NULL);
		pthread_join(f[i].th, NULL);
		close(f[i].lfd);
		assert_int_equal(f[i].rc, -1);
		assert_int_equal(f[i].err.code, NS_E_TIMEOUT);
	}
	char want[256];
	snprintf(want, sizeof(want), "timed out waiting for READY from 127.0.0.1:%u",
		 (unsigned)f[F_NO_READY].port);
	assert_string_equal(f[F_NO_READY].err.msg, want);
	snprintf(want, sizeof(want), "timed out after 0.5 s waiting for data connection 1 of 2 "
		 "(and 1 more) to be accepted by 127.0.0.1:%u (agent 127.0.0.1:%u)",
		 (unsigned)f[F_DEAD_TCP].data_port, (unsigned)f[F_DEAD_TCP].port);
	assert_string_equal(f[F_DEAD_TCP].err.msg, want);
	snprintf(want, sizeof(want), "timed out after 0.5 s waiting for data connection 1 of 1 "
		 "to be accepted by 127.0.0.1:%u (agent 127.0.0.1:%u)",
		 (unsigned)f[F_DEAD_TCP_R].data_port, (unsigned)f[F_DEAD_TCP_R].port);
	assert_string_equal(f[F_DEAD_TCP_R].err.msg, want);
	snprintf(want, sizeof(want), "timed out after 0.5 s waiting for the echo of UDP greeting "
		 "1 of 2 (and 1 more) from 127.0.0.1:%u (agent 127.0.0.1:%u)",
		 (unsigned)f[F_DEAD_UDP].udp_ports[0], (unsigned)f[F_DEAD_UDP].port);
	assert_string_equal(f[F_DEAD_UDP].err.msg, want);
	snprintf(want, sizeof(want), "timed out after 2 s waiting for the test with 127.0.0.1:%u "
		 "to end", (unsigned)f[F_LATE_START].port);
	assert_string_equal(f[F_LATE_START].err.msg, want);
	snprintf(want, sizeof(want), "timed out waiting for the test's results (RESULTS) from "
		 "127.0.0.1:%u", (unsigned)f[F_NO_RESULTS].port);
	assert_string_equal(f[F_NO_RESULTS].err.msg, want);
	snprintf(want, sizeof(want), "timed out waiting for the rest of the test's results "
		 "(RESULT_STREAMS, RESULT_INTERVALS, DONE) from 127.0.0.1:%u",
		 (unsigned)f[F_HALF_RESULTS].port);
	assert_string_equal(f[F_HALF_RESULTS].err.msg, want);
}

/* ---- the agent's waits, against a fake client ---- */

enum client_mode {
	C_ONE_OF_TWO,     /* TCP forward, 2 streams: connects the first only */
	C_REVERSE_NONE,   /* TCP reverse, 1 stream: connects none */
	C_UDP_NONE,       /* UDP forward, 2 streams: greets on none */
	C_NO_START,       /* TCP forward, 1 stream connected, never START */
	C_NO_STOP,        /* TCP forward, 0.2 s: START both ways, never STOP */
};

struct fake_client {
	enum client_mode mode;
	struct agent *a;
	pthread_t agent_th, th;
	uint16_t port;       /* the agent's */
	uint16_t my_port;    /* the control connection's, this end */
	char error[PROTO_MAX_TEXT];
};

static void *serve(void *a)
{
	struct ns_err err;
	agent_serve(a, &err);
	return NULL;
}

static void data_connect(uint16_t port, const uint8_t *cookie, uint32_t k, int *fd)
{
	uint8_t h[PROTO_DATA_HELLO_LEN];
	uint32_t be = htonl(k);
	memcpy(h, cookie, PROTO_COOKIE_LEN);
	memcpy(h + PROTO_COOKIE_LEN, &be, 4);
	*fd = connect_to(port, true);
	assert_int_equal(send(*fd, h, sizeof(h), 0), (ssize_t)sizeof(h));
}

static void *fake_client(void *arg)
{
	struct fake_client *fc = arg;
	uint8_t *buf = malloc(PROTO_MAX_PAYLOAD);
	uint32_t len;
	uint16_t type, code;
	struct probe_params p;
	struct proto_ready r;
	struct proto_buf b;
	struct ns_err err = {0};
	int data = -1;
	probe_params_init(&p);
	p.connect_timeout_s = 0.5;
	p.duration_s = 0.2;
	p.interval_s = 0;
	p.streams = fc->mode == C_ONE_OF_TWO || fc->mode == C_UDP_NONE ? 2 : 1;
	p.dir = fc->mode == C_REVERSE_NONE ? NS_DIR_REVERSE : NS_DIR_FORWARD;
	p.proto = fc->mode == C_UDP_NONE ? NS_PROTO_UDP : NS_PROTO_TCP;
	if (p.proto == NS_PROTO_UDP)
		p.rate_bps = 1000000;
	int fd = connect_to(fc->port, true);
	struct sockaddr_in me;
	socklen_t sl = sizeof(me);
	getsockname(fd, (struct sockaddr *)&me, &sl);
	fc->my_port = ntohs(me.sin_port);
	struct proto_hello h = {.version = PROTO_VERSION};
	proto_buf_init(&b);
	proto_enc_hello(&b, &h);
	assert_int_equal(proto_send_buf(fd, PROTO_HELLO, &b, proto_now() + 5, &err), 0);
	recv_type(fd, buf, PROTO_HELLO, &len);
	b.len = 0;
	proto_enc_params(&b, &p);
	assert_int_equal(proto_send_buf(fd, PROTO_TEST_REQUEST, &b, proto_now() + 5, &err), 0);
	proto_buf_free(&b);
	recv_type(fd, buf, PROTO_READY, &len);
	assert_int_equal(proto_dec_ready(buf, len, &r, &err), 0);
	if (fc->mode == C_ONE_OF_TWO || fc->mode == C_NO_START || fc->mode == C_NO_STOP)
		data_connect(r.data_port, r.cookie, 0, &data);
	if (fc->mode != C_NO_START)
		assert_int_equal(proto_send(fd, PROTO_START, NULL, 0, proto_now() + 5, &err), 0);
	if (fc->mode == C_NO_STOP)
		recv_type(fd, buf, PROTO_START, &len);
	/* the agent's ERROR, after its wait */
	assert_int_equal(proto_recv(fd, &type, buf, &len, proto_now() + 15, -1, NULL, &err), 0);
	assert_int_equal(type, PROTO_ERROR);
	assert_int_equal(proto_dec_error(buf, len, &code, fc->error, sizeof(fc->error), &err), 0);
	assert_int_equal(code, fc->mode == C_NO_STOP ? PROTO_E_ABORT : PROTO_E_TIMEOUT);
	if (data >= 0)
		close(data);
	close(fd);
	free(buf);
	return NULL;
}

/* The agent's log, read until it holds want or 3 s passed. */
static bool log_has(FILE *log, const char *want)
{
	char line[1024];
	for (double until = proto_now() + 3; proto_now() < until; usleep(100000)) {
		rewind(log);
		while (fgets(line, sizeof(line), log))
			if (strstr(line, want))
				return true;
	}
	return false;
}

/* The agents' side runs while the client's tests do: their waits are the longest (the
 * agent's setup allowance is a fixed 5 s). stderr goes to a file meanwhile, for the log. */
enum { N_AGENT = C_NO_STOP + 1 };
static struct {
	struct fake_client fc[N_AGENT + 1]; /* [N_AGENT]: an agent that logs, for handshakes */
	FILE *log;
	int saved_stderr, mute, hello;
	char mute_name[PROTO_ADDR_NAME_LEN], hello_name[PROTO_ADDR_NAME_LEN];
	struct fake del[2];              /* client agents of delegated runs, silent */
	pthread_t del_probe[2];
} scene;

/* A delegated run through a fake client agent; its error goes to f->err. Its wait for the
 * result is the longest of all: the run's bound plus a fixed 10 s for the client agent's own
 * result collection. */
static void *probe_from_fake(void *arg)
{
	struct fake *f = arg;
	struct probe_params p;
	struct probe_result res;
	probe_params_init(&p);
	snprintf(p.host, sizeof(p.host), "127.0.0.1");
	p.connect_timeout_s = 0.3;
	p.duration_s = 0.1;
	p.timeout_s = 0.1;
	p.interval_s = 0;
	f->rc = probe_run_from("127.0.0.1", f->port, &p, &res, &f->err);
	probe_result_free(&res);
	return NULL;
}

static int agents_start(void **state)
{
	(void)state;
	enum { N = N_AGENT };
	struct fake_client *fc = scene.fc;
	settings_set(&(struct ns_settings){.imds_off = true});
	for (int i = 0; i < 2; i++) {
		struct fake *f = &scene.del[i];
		memset(f, 0, sizeof(*f));
		f->mode = i ? F_DELEGATE_HALF : F_DELEGATE_NONE;
		f->lfd = listen_on(SOCK_STREAM, 1, &f->port);
		if (pthread_create(&f->th, NULL, fake_agent, f) != 0 ||
		    pthread_create(&scene.del_probe[i], NULL, probe_from_fake, f) != 0)
			return -1;
	}
	scene.log = tmpfile();
	scene.saved_stderr = dup(2);
	if (!scene.log || scene.saved_stderr < 0)
		return -1;
	dup2(fileno(scene.log), 2);
	for (int i = 0; i <= N; i++) { /* one agent each: they wait side by side */
		struct agent_opts o;
		struct ns_err err = {0};
		memset(&fc[i], 0, sizeof(fc[i]));
		fc[i].mode = (enum client_mode)i;
		agent_opts_init(&o);
		snprintf(o.listen_addr, sizeof(o.listen_addr), "127.0.0.1");
		o.port = 0;
		o.idle_timeout_s = 0.5;
		o.quiet = i < N;
		o.log = log_to_stderr;
		if (!(fc[i].a = agent_create(&o, &err)))
			return -1;
		fc[i].port = agent_port(fc[i].a);
		if (pthread_create(&fc[i].agent_th, NULL, serve, fc[i].a) != 0 ||
		    (i < N && pthread_create(&fc[i].th, NULL, fake_client, &fc[i]) != 0))
			return -1;
	}
	/* handshakes: one says nothing, one says HELLO and asks for nothing */
	uint8_t buf[64];
	uint32_t len;
	scene.mute = connect_to(fc[N].port, true);
	scene.hello = connect_to(fc[N].port, true);
	struct proto_buf b;
	struct proto_hello h = {.version = PROTO_VERSION};
	struct ns_err err = {0};
	proto_buf_init(&b);
	proto_enc_hello(&b, &h);
	int rc = proto_send_buf(scene.hello, PROTO_HELLO, &b, proto_now() + 5, &err);
	proto_buf_free(&b);
	if (rc < 0)
		return -1;
	recv_type(scene.hello, buf, PROTO_HELLO, &len);
	proto_addr_name(scene.mute, true, scene.mute_name, sizeof(scene.mute_name));
	proto_addr_name(scene.hello, true, scene.hello_name, sizeof(scene.hello_name));
	return 0;
}

static void agent_waits_name_the_client(void **state)
{
	(void)state;
	enum { N = N_AGENT };
	struct fake_client *fc = scene.fc;
	FILE *log = scene.log;
	const char *mute_name = scene.mute_name, *hello_name = scene.hello_name;
	for (int i = 0; i < N; i++)
		pthread_join(fc[i].th, NULL);
	char want_mute[256], want_hello[256];
	snprintf(want_mute, sizeof(want_mute), "netsweep agent: 127.0.0.1: dropped: timed out "
		 "after 2 s waiting for HELLO from %s (agent 127.0.0.1:%u)", mute_name,
		 (unsigned)fc[N].port);
	snprintf(want_hello, sizeof(want_hello), "netsweep agent: 127.0.0.1: dropped: timed out "
		 "after 2 s waiting for a request (TEST_REQUEST, HOSTINFO_REQUEST, "
		 "STATUS_REQUEST or DELEGATE_REQUEST) from %s (agent 127.0.0.1:%u)", hello_name, (unsigned)fc[N].port);
	bool got_mute = log_has(log, want_mute), got_hello = log_has(log, want_hello);
	close(scene.mute);
	close(scene.hello);
	for (int i = 0; i <= N; i++) {
		agent_stop(fc[i].a);
		pthread_join(fc[i].agent_th, NULL);
		agent_destroy(fc[i].a);
	}
	fflush(stderr);
	dup2(scene.saved_stderr, 2);
	close(scene.saved_stderr);
	char line[1024];
	rewind(log);
	while (fgets(line, sizeof(line), log)) /* what the other tests said, and the log if wrong */
		if (strncmp(line, "netsweep agent: ", 16) || !got_mute || !got_hello)
			fputs(line, stderr);
	fclose(log);
	assert_true(got_mute);
	assert_true(got_hello);
	char want[256];
	/* the client connect timeout (0.5 s) plus the agent's setup allowance (5 s) */
	snprintf(want, sizeof(want), "timed out after 5.5 s waiting for data connection 2 of 2 "
		 "from 127.0.0.1 (agent 127.0.0.1:%u)", (unsigned)fc[0].port);
	assert_string_equal(fc[0].error, want);
	snprintf(want, sizeof(want), "timed out after 5.5 s waiting for data connection 1 of 1 "
		 "from 127.0.0.1 (agent 127.0.0.1:%u)", (unsigned)fc[1].port);
	assert_string_equal(fc[1].error, want);
	snprintf(want, sizeof(want), "timed out after 5.5 s waiting for UDP greeting 1 of 2 "
		 "(and 1 more) from 127.0.0.1 (agent 127.0.0.1:%u)", (unsigned)fc[2].port);
	assert_string_equal(fc[2].error, want);
	snprintf(want, sizeof(want), "timed out after 5.5 s waiting for START from 127.0.0.1:%u "
		 "(agent 127.0.0.1:%u)", (unsigned)fc[3].my_port, (unsigned)fc[3].port);
	assert_string_equal(fc[3].error, want);
	/* the test's 0.2 s plus the agent's --idle-timeout 0.5 s */
	snprintf(want, sizeof(want), "timed out after 0.7 s waiting for STOP from 127.0.0.1:%u "
		 "(agent 127.0.0.1:%u)", (unsigned)fc[4].my_port, (unsigned)fc[4].port);
	assert_string_equal(fc[4].error, want);
}

static void delegated_waits_name_the_client_agent(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++) {
		pthread_join(scene.del_probe[i], NULL);
		pthread_join(scene.del[i].th, NULL);
		close(scene.del[i].lfd);
		assert_int_equal(scene.del[i].rc, -1);
		if (scene.del[i].err.code != NS_E_TIMEOUT)
			fail_msg("%s", scene.del[i].err.msg);
	}
	char want[256];
	snprintf(want, sizeof(want), "client agent 127.0.0.1 port %u: timed out waiting for the "
		 "delegated test's result (DELEGATE_RESULT) from 127.0.0.1:%u",
		 (unsigned)scene.del[0].port, (unsigned)scene.del[0].port);
	assert_string_equal(scene.del[0].err.msg, want);
	snprintf(want, sizeof(want), "client agent 127.0.0.1 port %u: timed out waiting for the "
		 "rest of the delegated test's result (DELEGATE_STREAMS, DELEGATE_INTERVALS, DONE) "
		 "from 127.0.0.1:%u", (unsigned)scene.del[1].port, (unsigned)scene.del[1].port);
	assert_string_equal(scene.del[1].err.msg, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_wording_for_every_timeout),
		cmocka_unit_test(a_send_names_the_peer_that_does_not_read),
		cmocka_unit_test(a_receive_names_the_silent_peer),
		cmocka_unit_test(client_waits_name_the_agent),
		cmocka_unit_test(agent_waits_name_the_client),
		cmocka_unit_test(delegated_waits_name_the_client_agent),
	};
	return cmocka_run_group_tests(tests, agents_start, NULL);
}
