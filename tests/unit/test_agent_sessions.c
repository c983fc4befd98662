/* runner/agent as a whole (embedded; agent.c, conn.c and gate.c together, with the probe client),
 * hence a descriptive name: several tests at once (issue 32). Four probe_run() calls in four
 * threads, each with another stream count and direction, all complete with their own figures;
 * an agent at --max-tests answers one more TEST_REQUEST ERROR code 9 naming the bound, which
 * probe_run() reports as NS_E_BUSY, while a host-info question is still answered; the slot is
 * free again once a test ended; --max-tests out of 1..256 is refused. */
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

#include "runner/agent/agent.h"
#include "runner/client/client.h"
#include "runner/proto/probe.h"
#include "runner/proto/proto.h"
#include "lib/settings.h"

static void *serve(void *a)
{
	struct ns_err err;
	agent_serve(a, &err);
	return NULL;
}

static struct agent *start(uint32_t max_tests, pthread_t *th)
{
	struct agent_opts o;
	struct ns_err err = {0};
	settings_set(&(struct ns_settings){.imds_off = true});
	agent_opts_init(&o);
	snprintf(o.listen_addr, sizeof(o.listen_addr), "127.0.0.1");
	o.port = 0;
	o.quiet = 1;
	o.max_tests = max_tests;
	struct agent *a = agent_create(&o, &err);
	if (!a)
		fail_msg("agent_create: %s", err.msg);
	assert_int_equal(pthread_create(th, NULL, serve, a), 0);
	return a;
}

static void stop(struct agent *a, pthread_t th)
{
	agent_stop(a);
	assert_int_equal(pthread_join(th, NULL), 0);
	agent_destroy(a);
}

struct run {
	pthread_t th;
	struct probe_params p;
	struct probe_result res;
	struct ns_err err;
	int rc;
};

/* As the runner does: a busy answer (here, the probing raw request below holding a slot for
 * a moment) is asked again a bounded while. */
static void *run_main(void *arg)
{
	struct run *r = arg;
	for (int tries = 0; tries < 50; tries++) {
		memset(&r->err, 0, sizeof(r->err));
		r->rc = probe_run(&r->p, &r->res, &r->err);
		if (r->rc == 0 || r->err.code != NS_E_BUSY)
			break;
		probe_result_free(&r->res);
		usleep(20000);
	}
	return NULL;
}

static void params(struct probe_params *p, uint16_t port, uint32_t streams, enum ns_dir dir,
		   double duration_s)
{
	probe_params_init(p);
	snprintf(p->host, sizeof(p->host), "127.0.0.1");
	p->port = port;
	p->streams = streams;
	p->dir = dir;
	p->duration_s = duration_s;
	p->interval_s = 0;
}

static void max_tests_out_of_range_is_refused(void **state)
{
	(void)state;
	struct agent_opts o;
	uint32_t bad[] = {0, AGENT_MAX_TESTS_LIMIT + 1};
	for (size_t i = 0; i < 2; i++) {
		struct ns_err err = {0};
		agent_opts_init(&o);
		snprintf(o.listen_addr, sizeof(o.listen_addr), "127.0.0.1");
		o.port = 0;
		o.max_tests = bad[i];
		assert_null(agent_create(&o, &err));
		assert_int_equal(err.code, NS_E_USAGE);
		assert_non_null(strstr(err.msg, "--max-tests"));
	}
	agent_opts_init(&o);
	assert_int_equal(o.max_tests, AGENT_DEFAULT_MAX_TESTS);
}

/* Each result is its own test's: its direction and its stream count. */
static void four_tests_at_once_each_get_their_own_figures(void **state)
{
	(void)state;
	pthread_t th;
	struct agent *a = start(4, &th);
	struct run r[4];
	enum ns_dir dirs[4] = {NS_DIR_FORWARD, NS_DIR_REVERSE, NS_DIR_FORWARD, NS_DIR_REVERSE};
	memset(r, 0, sizeof(r));
	for (int i = 0; i < 4; i++) {
		params(&r[i].p, agent_port(a), (uint32_t)i + 1, dirs[i], 1.0);
		assert_int_equal(pthread_create(&r[i].th, NULL, run_main, &r[i]), 0);
	}
	for (int i = 0; i < 4; i++) /* all of them first: a failed check leaves no thread behind */
		assert_int_equal(pthread_join(r[i].th, NULL), 0);
	for (int i = 0; i < 4; i++) {
		if (r[i].rc < 0 || r[i].res.n_dirs != 1)
			fail_msg("test %d: rc %d, %u directions: %s", i, r[i].rc,
				 (unsigned)r[i].res.n_dirs, r[i].err.msg);
		assert_int_equal(r[i].res.dirs[0].dir, dirs[i]);
		assert_int_equal(r[i].res.dirs[0].n_streams, (uint32_t)i + 1);
		assert_true(r[i].res.dirs[0].receiver.bytes > 0);
		assert_true(r[i].res.dirs[0].receiver.bytes == r[i].res.dirs[0].sender.bytes);
		probe_result_free(&r[i].res);
	}
	stop(a, th);
}

/* HELLO and a TEST_REQUEST; returns the type of the answer (code: an ERROR's), the connection
 * closed. */
static uint16_t raw_request(uint16_t port, const struct probe_params *p, uint16_t *code,
			    char *text, size_t cap)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	static uint8_t buf[PROTO_MAX_PAYLOAD + 1];
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct proto_buf b;
	struct proto_hello h = {.version = PROTO_VERSION};
	uint16_t type = 0;
	uint32_t len;
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	proto_buf_init(&b);
	proto_enc_hello(&b, &h);
	assert_int_equal(proto_send_buf(fd, PROTO_HELLO, &b, proto_now() + 2, NULL), 0);
	assert_int_equal(proto_recv(fd, &type, buf, &len, proto_now() + 5, -1, NULL, NULL), 0);
	if (type != PROTO_HELLO) { /* the caller says what it was */
		if (type == PROTO_ERROR)
			assert_int_equal(proto_dec_error(buf, len, code, text, cap, NULL), 0);
		proto_buf_free(&b);
		close(fd);
		return type;
	}
	b.len = 0;
	proto_enc_params(&b, p);
	assert_int_equal(proto_send_buf(fd, PROTO_TEST_REQUEST, &b, proto_now() + 2, NULL), 0);
	proto_buf_free(&b);
	assert_int_equal(proto_recv(fd, &type, buf, &len, proto_now() + 5, -1, NULL, NULL), 0);
	if (type == PROTO_ERROR)
		assert_int_equal(proto_dec_error(buf, len, code, text, cap, NULL), 0);
	close(fd);
	return type;
}

static void past_max_tests_the_refusal_names_the_bound(void **state)
{
	(void)state;
	pthread_t th;
	struct agent *a = start(2, &th);
	uint16_t port = agent_port(a);
	struct run r[2];
	memset(r, 0, sizeof(r));
	for (int i = 0; i < 2; i++) {
		params(&r[i].p, port, 1, NS_DIR_FORWARD, 2.0);
		assert_int_equal(pthread_create(&r[i].th, NULL, run_main, &r[i]), 0);
	}
	/* once both run, a third is refused (a READY before that: the connection closes and
	 * its session ends at once) */
	struct probe_params p;
	params(&p, port, 1, NS_DIR_FORWARD, 1.0);
	uint16_t type = 0, code = 0;
	char text[PROTO_MAX_TEXT] = "";
	for (int tries = 0; tries < 100; tries++) {
		type = raw_request(port, &p, &code, text, sizeof(text));
		if (type == PROTO_ERROR)
			break;
		usleep(10000);
	}
	if (type != PROTO_ERROR || code != PROTO_E_FULL) {
		for (int i = 0; i < 2; i++)
			pthread_join(r[i].th, NULL);
		fail_msg("a third request answered %s (code %u: %s)", proto_type_name(type),
			 (unsigned)code, text);
	}
	assert_non_null(strstr(text, "at most 2 tests at once (--max-tests 2)"));
	/* probe_run() says busy, with the agent's words */
	struct probe_result res;
	struct ns_err err = {0};
	assert_true(probe_run(&p, &res, &err) < 0);
	assert_int_equal(err.code, NS_E_BUSY);
	assert_non_null(strstr(err.msg, "--max-tests 2"));
	probe_result_free(&res);
	/* a host-info question takes no test slot */
	char *json = NULL;
	memset(&err, 0, sizeof(err));
	if (probe_hostinfo("127.0.0.1", port, NULL, 5.0, &json, &err) < 0)
		fail_msg("host information beside 2 tests: %s", err.msg);
	assert_true(json && json[0] == '{');
	free(json);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(r[i].th, NULL), 0);
	for (int i = 0; i < 2; i++) {
		if (r[i].rc < 0)
			fail_msg("test %d: %s", i, r[i].err.msg);
		assert_true(r[i].res.dirs[0].receiver.bytes > 0);
		probe_result_free(&r[i].res);
	}
	/* the slots are free again: a test right after */
	memset(&err, 0, sizeof(err));
	p.duration_s = 0.2;
	if (probe_run(&p, &res, &err) < 0)
		fail_msg("a test after the two: %s", err.msg);
	probe_result_free(&res);
	stop(a, th);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(max_tests_out_of_range_is_refused),
		cmocka_unit_test(four_tests_at_once_each_get_their_own_figures),
		cmocka_unit_test(past_max_tests_the_refusal_names_the_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
