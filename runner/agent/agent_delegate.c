/* agent_delegate: a delegated run on the agent (DELEGATE_REQUEST, schemas/control-protocol.md).
 * Only with --delegate. A runner elsewhere asks this agent to be the client of one test against
 * a target agent; the agent runs it through the probe's own client_run (so test traffic only
 * ever goes to a netsweep agent that proved the key and accepted the test) and sends the whole
 * result back in binary (runner/proto/result_wire.h). The test is bound to the requester: a
 * watcher thread stops it when the requester's connection closes or the agent is stopped.
 * Whatever goes wrong before the target accepted is one message, given no sooner than the
 * connect timeout, so that a delegated run tells nothing about what listens where. Runs on a
 * session thread of its own and holds one of the agent's --max-tests slots while it lasts. */
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caps.h"
#include "conn.h"
#include "serve.h"
#include "runner/client/client.h"
#include "runner/proto/result_wire.h"

/* The delegated test's own bound: what probe_run would allow it, never more than a day. */
static double run_bound(const struct probe_params *p)
{
	double t = p->timeout_s > 0 ? p->timeout_s : p->omit_s + p->duration_s + 15;
	return p->connect_timeout_s + t;
}

/* Stops the delegated test (writes cancel_w) when the requester's connection becomes readable
 * (it closed: a runner sends nothing more) or the agent's stop pipe does; done_r ends it. */
struct watch {
	int requester, stop_r, done_r, cancel_w;
	pthread_t tid;
};

static void *watch_main(void *arg)
{
	struct watch *w = arg;
	struct pollfd pfd[3] = {{.fd = w->requester, .events = POLLIN | POLLRDHUP},
				{.fd = w->stop_r, .events = POLLIN},
				{.fd = w->done_r, .events = POLLIN}};
	for (;;) {
		int n = poll(pfd, 3, -1);
		if (n < 0)
			continue; /* EINTR */
		if (pfd[2].revents)
			return NULL;
		ssize_t r = write(w->cancel_w, "x", 1);
		(void)r;
		return NULL;
	}
}

/* The target by address, once: checked against --allow, and the address the test goes to
 * (no second lookup that could answer differently). */
static int resolve_target(struct agent *a, struct probe_params *p)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai = NULL;
	int rc = getaddrinfo(p->host, NULL, &hints, &ai);
	if (rc != 0 || !ai)
		return -1;
	bool ok = !a->allow.n || cidr_match(&a->allow, ai->ai_addr);
	char host[INET6_ADDRSTRLEN];
	if (ok && getnameinfo(ai->ai_addr, ai->ai_addrlen, host, sizeof(host), NULL, 0,
			      NI_NUMERICHOST) == 0)
		snprintf(p->host, sizeof(p->host), "%s", host);
	else
		ok = false;
	freeaddrinfo(ai);
	return ok ? 0 : -1;
}

/* Runs the test, stopped by the watcher; *accepted as client_run_delegated says. A target
 * refused before any connection (not in --allow, not resolved) is not run but answered as
 * late as any other failure: the time of the answer must not tell the allow list. */
static int run_bound_to_requester(struct conn *c, const struct probe_params *p, bool refused,
				  struct probe_result *res, bool *accepted, struct ns_err *err)
{
	int cancel[2] = {-1, -1}, done[2] = {-1, -1};
	struct watch w;
	int rc = -1;
	*accepted = false;
	memset(res, 0, sizeof(*res));
	if (pipe2(cancel, O_CLOEXEC) < 0 || pipe2(done, O_CLOEXEC) < 0) {
		ns_err_sys(err, "pipe");
		goto out;
	}
	w = (struct watch){.requester = c->ctl, .stop_r = c->a->pipe_r, .done_r = done[0],
			   .cancel_w = cancel[1]};
	if (pthread_create(&w.tid, NULL, watch_main, &w) != 0) {
		ns_err_sys(err, "pthread_create");
		goto out;
	}
	double t0 = proto_now();
	rc = refused ? -1 : client_run_delegated(p, cancel[0], res, accepted, c->a->budget, err);
	if (rc < 0 && !*accepted) {
		/* as slow as a silent target, whatever the target did */
		struct pollfd pfd = {.fd = cancel[0], .events = POLLIN};
		double left = t0 + p->connect_timeout_s - proto_now();
		if (left > 0)
			poll(&pfd, 1, (int)(left * 1000) + 1);
	}
	ssize_t wr = write(done[1], "x", 1);
	(void)wr;
	pthread_join(w.tid, NULL);
out:
	for (int i = 0; i < 2; i++) {
		if (cancel[i] >= 0)
			close(cancel[i]);
		if (done[i] >= 0)
			close(done[i]);
	}
	return rc;
}

/* The whole result in binary, then DONE: the last message, so the agent is free before it
 * (the runner may come back at once). */
static int send_result(struct conn *c, const struct probe_result *res, struct ns_err *err)
{
	double deadline = proto_now() + 30;
	if (proto_send_delegate_result(c->ctl, res, deadline, err) < 0)
		return -1;
	agent_release(c);
	return proto_send(c->ctl, PROTO_DONE, NULL, 0, deadline, err);
}

void agent_run_delegated(struct conn *c, uint32_t len, uint16_t hello_flags)
{
	struct agent *a = c->a;
	struct probe_params p;
	struct probe_result res;
	struct ns_err err = {0};

	if (!a->o.delegate) {
		agent_refuse(c, PROTO_E_REFUSED, "this agent does not run tests on another's behalf "
			     "(it was not started with --delegate)");
		return;
	}
	if (hello_flags & PROTO_HELLO_DELEGATED) {
		agent_refuse(c, PROTO_E_REFUSED, "a delegated run cannot delegate again");
		return;
	}
	if (proto_dec_delegate(c->buf, len, &p, &err) < 0 || probe_params_check(&p, &err) < 0) {
		agent_refuse(c, PROTO_E_BAD_REQUEST, err.msg);
		return;
	}
	if (agent_caps_check(a, &p, &err) < 0) { /* the caps hold for what it sends, too */
		agent_refuse(c, PROTO_E_BAD_REQUEST, err.msg);
		return;
	}
	if (agent_fds_take(c, &p, &err) < 0) {
		agent_refuse(c, PROTO_E_FULL, err.msg);
		return;
	}
	if (run_bound(&p) > NS_MAX_DURATION_S + 600) {
		agent_refuse(c, PROTO_E_BAD_REQUEST, "delegated test timeout out of range");
		return;
	}
	if (p.connect_timeout_s > AGENT_MAX_CONNECT_S) /* every wait before data flows is bounded */
		p.connect_timeout_s = AGENT_MAX_CONNECT_S;
	/* the target is proven this agent's own key (a peer never names a file here) */
	snprintf(p.psk_file, sizeof(p.psk_file), "%s", a->o.psk_file ? a->o.psk_file : "");
	char target[sizeof(p.host) + 16];
	snprintf(target, sizeof(target), "%s port %u", p.host, (unsigned)p.port);
	agent_log(a, "%s: delegated %s %s test to %s, %g s", c->peer_name,
		  ns_proto_name(p.proto), ns_dir_name(p.dir), target, p.duration_s);
	bool accepted = false;
	memset(&res, 0, sizeof(res));
	bool refused = resolve_target(a, &p) < 0;
	int rc = run_bound_to_requester(c, &p, refused, &res, &accepted, &err);
	if (rc < 0 && !accepted) {
		/* one answer for closed, silent, filtered, talking, refusing, not allowed */
		probe_result_free(&res);
		memset(&res, 0, sizeof(res));
		res.params = p;
		res.params.psk_file[0] = '\0';
		res.status = -1;
		snprintf(res.error, sizeof(res.error), "no test with the target agent %s: "
			 "unreachable, not a netsweep agent, not allowed, or it refused", target);
		agent_log(a, "%s: delegated test to %s not started: %s", c->peer_name, target,
			  err.msg[0] ? err.msg : "target not allowed or not resolved");
		ns_err_set(&err, "%s", res.error);
	}
	agent_log(a, "%s: delegated test %s%s", c->peer_name, rc == 0 ? "done" : "failed: ",
		  rc == 0 ? "" : err.msg);
	if (send_result(c, &res, &err) < 0)
		agent_log(a, "%s: sending the delegated result: %s", c->peer_name, err.msg);
	probe_result_free(&res);
}
