/* delegate: probe_run_from — the runner's side of a delegated run. The runner asks a client
 * agent (DELEGATE_REQUEST) to run one test against a target agent and reads the whole result
 * back in binary (DELEGATE_RESULT, its streams and intervals, DONE: runner/proto/result_wire.h)
 * into the struct the store takes. The agent's side is agent_delegate.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "ctl.h"
#include "runner/proto/probe.h"
#include "runner/proto/proto.h"
#include "runner/proto/result_wire.h"

#define DELEGATE_MARGIN_S 10.0     /* the client agent's result collection and transfer */

/* Reads the result's messages into res (its params kept) until DONE. */
static int read_result(int ctl, uint8_t *buf, struct probe_result *res, double deadline,
		       struct ns_err *err)
{
	struct proto_result_rd rd;
	proto_result_rd_init(&rd, res);
	for (bool first = true;; first = false) {
		uint16_t type;
		uint32_t len;
		if (client_ctl_recv(ctl, buf, &type, &len, deadline, err) < 0)
			return client_ctl_waited(ctl, first ? "the delegated test's result "
						 "(DELEGATE_RESULT)" : "the rest of the delegated "
						 "test's result (DELEGATE_STREAMS, DELEGATE_INTERVALS, "
						 "DONE)", err);
		int rc = proto_result_rd_msg(&rd, type, buf, len, err);
		if (rc != 0)
			return rc < 0 ? -1 : 0;
	}
}

int probe_run_from(const char *from_host, uint16_t from_port, const struct probe_params *p,
		   struct probe_result *res, struct ns_err *err)
{
	struct ns_err e = {0};
	struct proto_buf b;
	uint8_t *buf = NULL;
	int ctl = -1, rc;
	memset(res, 0, sizeof(*res));
	res->params = *p;
	res->status = -1;
	proto_buf_init(&b);
	if (probe_params_check(p, &e) < 0)
		goto fail;
	if (!p->host[0] || !from_host || !from_host[0]) {
		ns_err_set(&e, "no target or client agent given");
		goto fail;
	}
	/* the client agent's own connect, the run (bounded by its timeout), the results */
	double timeout = p->timeout_s > 0 ? p->timeout_s : p->omit_s + p->duration_s + 15;
	double conn_deadline = proto_now() + p->connect_timeout_s;
	double deadline = conn_deadline + p->connect_timeout_s + timeout + DELEGATE_MARGIN_S;
	if (p->lat_probe[0]) /* its idle test first: a connect and a test of its own */
		deadline += p->connect_timeout_s + probe_lat_idle_s(p) + DELEGATE_MARGIN_S;
	if (!(buf = malloc(PROTO_MAX_PAYLOAD))) {
		ns_err_code(&e, NS_E_NOMEM, "out of memory");
		goto fail;
	}
	ctl = client_ctl_connect(from_host, from_port, conn_deadline, NULL, NULL, &e);
	if (ctl < 0 || client_ctl_hello(ctl, buf, 0, p->psk_file, conn_deadline, &e) < 0)
		goto client_fail;
	proto_enc_delegate(&b, p);
	rc = proto_send_buf(ctl, PROTO_DELEGATE_REQUEST, &b, conn_deadline, &e);
	if (rc < 0 || read_result(ctl, buf, res, deadline, &e) < 0)
		goto client_fail;
	/* what was asked, exactly (the client agent resolved the target's name) */
	res->params = *p;
	if (res->status != 0) {
		ns_err_set(&e, "client agent %s port %u: %s", from_host, (unsigned)from_port,
			   res->error);
		snprintf(res->error, sizeof(res->error), "%s", e.msg);
		ns_err_set(err, "%s", e.msg);
		rc = -1;
	} else {
		rc = 0;
	}
	goto out;

client_fail:
	if (e.code != NS_E_UNREACHABLE)
		ns_err_prefix(&e, "client agent %s port %u", from_host, (unsigned)from_port);
	else {
		char m[NS_ERR_MAX];
		snprintf(m, sizeof(m), "%s", e.msg);
		ns_err_code(&e, NS_E_UNREACHABLE, "client %s", m);
	}
fail:
	probe_result_free(res);
	memset(res, 0, sizeof(*res));
	res->params = *p;
	res->status = -1;
	snprintf(res->error, sizeof(res->error), "%s", e.msg[0] ? e.msg : "delegated probe failed");
	ns_err_code(err, e.code ? e.code : NS_E_FAIL, "%s", res->error);
	rc = -1;
out:
	proto_buf_free(&b);
	if (ctl >= 0)
		close(ctl);
	free(buf);
	return rc;
}
