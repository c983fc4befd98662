/* client_hostinfo: the control-only questions to an agent — probe_hostinfo asks it to describe
 * its host (HOSTINFO_REQUEST, optionally naming the peer whose route picks the interface),
 * probe_status is the health check (STATUS_REQUEST) — and the JSON check applied to whatever
 * text an agent sends before it is stored or embedded. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "ctl.h"
#include "lib/sql/jsonr.h"
#include "runner/proto/probe.h"
#include "runner/proto/proto.h"

/* Accepts only text that SQLite's JSON parser takes as one JSON value (lib/sql/jsonr.h), so that
 * what an agent sends can be embedded verbatim in our own JSON. */
bool client_json_ok(const char *text)
{
	return jsonr_is_json(text);
}

int probe_hostinfo(const char *host, uint16_t port, const char *psk_file, double timeout_s,
		   char **json, struct ns_err *err)
{
	return probe_hostinfo_peer(host, port, psk_file, NULL, timeout_s, json, err);
}

int probe_hostinfo_peer(const char *host, uint16_t port, const char *psk_file, const char *peer,
			double timeout_s, char **json, struct ns_err *err)
{
	struct proto_buf b;
	uint32_t len;
	int ctl = -1;
	*json = NULL;
	if (!(timeout_s > 0))
		timeout_s = 5;
	double deadline = proto_now() + timeout_s;
	uint8_t *buf = malloc(PROTO_MAX_PAYLOAD + 1);
	if (!buf) {
		ns_err_code(err, NS_E_NOMEM, "out of memory");
		goto err;
	}
	ctl = client_ctl_connect(host, port, deadline, NULL, NULL, err);
	proto_buf_init(&b);
	proto_enc_hostinfo_request(&b, peer);
	int rc = ctl < 0 || client_ctl_hello(ctl, buf, 0, psk_file, deadline, err) < 0
			 ? -1
			 : proto_send_buf(ctl, PROTO_HOSTINFO_REQUEST, &b, deadline, err);
	proto_buf_free(&b);
	if (rc < 0 || client_ctl_expect(ctl, buf, PROTO_HOSTINFO, &len, deadline, err) < 0)
		goto err;
	buf[len] = '\0';
	if (strlen((char *)buf) != len || !client_json_ok((char *)buf)) {
		ns_err_set(err, "agent sent host information that is not valid JSON");
		goto err;
	}
	*json = strdup((char *)buf);
	if (!*json) {
		ns_err_code(err, NS_E_NOMEM, "out of memory");
		goto err;
	}
	close(ctl);
	free(buf);
	return 0;
err:
	if (ctl >= 0)
		close(ctl);
	free(buf);
	return -1;
}

int probe_status(const char *host, uint16_t port, const char *psk_file, double timeout_s,
		 struct proto_status *st, struct ns_err *err)
{
	uint32_t len;
	if (!(timeout_s > 0))
		timeout_s = 5;
	double deadline = proto_now() + timeout_s;
	uint8_t *buf = malloc(PROTO_MAX_PAYLOAD + 1);
	if (!buf)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	int ctl = client_ctl_connect(host, port, deadline, NULL, NULL, err);
	int rc = ctl < 0 || client_ctl_hello(ctl, buf, 0, psk_file, deadline, err) < 0 ||
			 proto_send(ctl, PROTO_STATUS_REQUEST, NULL, 0, deadline, err) < 0 ||
			 client_ctl_expect(ctl, buf, PROTO_STATUS, &len, deadline, err) < 0 ||
			 proto_dec_status(buf, len, st, err) < 0
		 ? -1
		 : 0;
	if (ctl >= 0)
		close(ctl);
	free(buf);
	return rc;
}
