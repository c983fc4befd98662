/* agent_delegate: a delegated run on the agent (DELEGATE_REQUEST, schemas/control-protocol.md).
 * A runner elsewhere asks this agent to be the client of one test against a target agent; the
 * agent runs it through the probe's own client_run (so test traffic only ever goes to a
 * netsweep agent that accepted the test in the normal handshake) and sends the whole result
 * back as probe result JSON in bounded chunks. Runs on the session thread, so the agent is
 * busy — and answers BUSY to anyone else — for as long as it lasts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "serve.h"
#include "runner/client/client.h"

/* The delegated test's own bound: what probe_run would allow it, never more than a day. */
static double run_bound(const struct probe_params *p)
{
	double t = p->timeout_s > 0 ? p->timeout_s : p->omit_s + p->duration_s + 15;
	return p->connect_timeout_s + t;
}

/* Per-stream interval records make the JSON largest: without them, the sums still say what
 * the run did. */
static void drop_stream_intervals(struct probe_result *res)
{
	for (uint32_t d = 0; d < res->n_dirs; d++) {
		struct probe_direction *pd = &res->dirs[d];
		uint32_t k = 0;
		for (uint32_t i = 0; i < pd->n_intervals; i++)
			if (pd->intervals[i].stream == -1)
				pd->intervals[k++] = pd->intervals[i];
		pd->n_intervals = k;
	}
	size_t n = strlen(res->warnings);
	snprintf(res->warnings + n, sizeof(res->warnings) - n, "%sper-stream intervals left out: "
		 "the result exceeded the delegation limit", n ? "; " : "");
}

static int send_result(struct conn *c, const char *json, struct ns_err *err)
{
	size_t total = strlen(json), off = 0;
	double deadline = proto_now() + 30;
	do {
		size_t n = total - off < PROTO_DELEGATE_CHUNK ? total - off : PROTO_DELEGATE_CHUNK;
		struct proto_buf b;
		proto_buf_init(&b);
		proto_enc_result_chunk(&b, (uint32_t)total, (uint32_t)off, json + off, (uint32_t)n);
		if (off + n == total)
			agent_release(c->a); /* the last message: the runner may come back at once */
		int rc = proto_send_buf(c->ctl, PROTO_DELEGATE_RESULT, &b, deadline, err);
		proto_buf_free(&b);
		if (rc < 0)
			return -1;
		off += n;
	} while (off < total);
	return 0;
}

void agent_run_delegated(struct conn *c, uint32_t len, uint16_t hello_flags)
{
	struct agent *a = c->a;
	struct probe_params p;
	struct probe_result res;
	struct ns_err err = {0};
	char *json = NULL;

	if (a->o.no_delegate) {
		agent_refuse(c, PROTO_E_REFUSED,
			     "this agent does not run tests on another's behalf (--no-delegate)");
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
	if (run_bound(&p) > NS_MAX_DURATION_S + 600) {
		agent_refuse(c, PROTO_E_BAD_REQUEST, "delegated test timeout out of range");
		return;
	}
	agent_log(a, "%s: delegated %s %s test to %s port %u, %g s", c->peer_name,
		  ns_proto_name(p.proto), ns_dir_name(p.dir), p.host, (unsigned)p.port, p.duration_s);
	int rc = client_run_delegated(&p, &res, &err);
	json = probe_result_json(&res, false);
	if (json && strlen(json) > PROTO_MAX_DELEGATE_JSON) {
		free(json);
		drop_stream_intervals(&res);
		json = probe_result_json(&res, false);
	}
	probe_result_free(&res);
	if (!json || strlen(json) > PROTO_MAX_DELEGATE_JSON) {
		agent_refuse(c, PROTO_E_INTERNAL, json ? "the delegated result is too large"
						       : "out of memory writing the delegated result");
		free(json);
		return;
	}
	agent_log(a, "%s: delegated test %s%s", c->peer_name, rc == 0 ? "done" : "failed: ",
		  rc == 0 ? "" : err.msg);
	if (send_result(c, json, &err) < 0)
		agent_log(a, "%s: sending the delegated result: %s", c->peer_name, err.msg);
	free(json);
}
