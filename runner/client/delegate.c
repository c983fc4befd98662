/* delegate: probe_run_from — the runner's side of a delegated run. The runner asks a client
 * agent (DELEGATE_REQUEST) to run one test against a target agent and reads the whole result
 * back as probe result JSON (DELEGATE_RESULT chunks), which probe_result_from_json turns into
 * the struct the store takes. The agent's side is agent_delegate.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "ctl.h"
#include "runner/proto/probe.h"
#include "runner/proto/proto.h"

#define DELEGATE_MARGIN_S 10.0     /* the client agent's result collection and JSON transfer */

/* Reads DELEGATE_RESULT chunks (in order, contiguous) into one malloc'd text. */
static char *read_result(int ctl, uint8_t *buf, double deadline, struct ns_err *err)
{
	char *text = NULL;
	uint32_t total = 0, have = 0;
	for (;;) {
		uint16_t type;
		uint32_t len, t, off, n;
		const uint8_t *data;
		if (client_ctl_recv(ctl, buf, &type, &len, deadline, err) < 0) {
			if (err && err->code == NS_E_TIMEOUT) {
				char agent[PROTO_ADDR_NAME_LEN];
				proto_addr_name(ctl, false, agent, sizeof(agent));
				ns_err_timeout(err, 0, "the delegated test's result (DELEGATE_RESULT) "
					       "from %s", agent);
			}
			goto err;
		}
		if (type != PROTO_DELEGATE_RESULT) {
			ns_err_code(err, NS_E_PROTOCOL, "protocol error: expected DELEGATE_RESULT, got %s",
				   proto_type_name(type));
			goto err;
		}
		if (proto_dec_result_chunk(buf, len, &t, &off, &data, &n, err) < 0)
			goto err;
		if (!text) {
			total = t;
			if (!(text = malloc((size_t)total + 1))) {
				ns_err_set(err, "out of memory for a %u-byte result", (unsigned)total);
				goto err;
			}
		}
		if (t != total || off != have || (n == 0 && have < total)) {
			ns_err_set(err, "DELEGATE_RESULT chunks out of order");
			goto err;
		}
		memcpy(text + have, data, n);
		have += n;
		if (have == total)
			break;
	}
	text[total] = '\0';
	if (strlen(text) != total) {
		ns_err_set(err, "DELEGATE_RESULT holds a NUL byte");
		goto err;
	}
	return text;
err:
	free(text);
	return NULL;
}

int probe_run_from(const char *from_host, uint16_t from_port, const struct probe_params *p,
		   struct probe_result *res, struct ns_err *err)
{
	struct ns_err e = {0};
	struct proto_buf b;
	uint8_t *buf = NULL;
	char *json = NULL;
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
	if (!(buf = malloc(PROTO_MAX_PAYLOAD))) {
		ns_err_set(&e, "out of memory");
		goto fail;
	}
	ctl = client_ctl_connect(from_host, from_port, conn_deadline, NULL, NULL, &e);
	if (ctl < 0 || client_ctl_hello(ctl, buf, 0, p->psk_file, conn_deadline, &e) < 0)
		goto client_fail;
	proto_enc_delegate(&b, p);
	rc = proto_send_buf(ctl, PROTO_DELEGATE_REQUEST, &b, conn_deadline, &e);
	if (rc < 0 || !(json = read_result(ctl, buf, deadline, &e)))
		goto client_fail;
	if (probe_result_from_json(json, res, &e) < 0) {
		ns_err_prefix(&e, "client agent %s port %u", from_host, (unsigned)from_port);
		goto fail;
	}
	/* what was asked, exactly (the JSON does not carry every field) */
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
	free(json);
	return rc;
}
