/* matrix_rr: see matrix_rr.h. */
#include "matrix_rr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"

int mxrr_parse_value(enum matrix_axis_id axis, const char *text, struct matrix_value *out,
		     struct ns_err *err)
{
	char buf[32];
	uint64_t u = 0;
	if (axis == MX_LAT_PROBE) {
		if (strcmp(text, "none") && strcmp(text, "tcp") && strcmp(text, "udp"))
			return ns_err_code(err, NS_E_INPUT,
					   "'%s': latency-probe is none, tcp or udp", text);
		u = !strcmp(text, "tcp") ? 1 : !strcmp(text, "udp") ? 2 : 0;
		snprintf(buf, sizeof(buf), "%s", text);
	} else if (axis == MX_RR) {
		if (!strcmp(text, "none"))
			u = 0;
		else if (!strcmp(text, "tcp"))
			u = 1;
		else if (!strcmp(text, "udp"))
			u = 2;
		else if (!strcmp(text, "crr"))
			u = 3;
		else
			return ns_err_code(err, NS_E_INPUT, "'%s': rr is none, tcp, udp or crr",
					   text);
		snprintf(buf, sizeof(buf), "%s", text);
	} else if (axis == MX_RR_RATE || axis == MX_LAT_RATE) {
		size_t n = strlen(text);
		if (n >= 2 && !strcmp(text + n - 2, "/s"))
			n -= 2;
		if (!n || n >= sizeof(buf))
			return ns_err_code(err, NS_E_INPUT, "'%s': expected transactions/s", text);
		memcpy(buf, text, n);
		buf[n] = '\0';
		if (units_parse_uint(buf, 0, axis == MX_LAT_RATE ? 1000000 : 1000000000, &u, err) < 0)
			return -1;
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)u);
	} else {
		if (units_parse_bytes(text, ENGINE_RR_MAX_LEN, &u, err) < 0)
			return -1;
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)u);
	}
	out->u = u;
	return (out->text = strdup(buf)) ? 0 : ns_err_code(err, NS_E_NOMEM, "out of memory");
}

void mxrr_apply(struct probe_params *p, enum matrix_axis_id axis, const struct matrix_value *v)
{
	/* rr comes first in the axis order, so the sizes and the rate find it set */
	if (axis == MX_RR && v->u) {
		p->proto = v->u == 2 ? NS_PROTO_UDP : NS_PROTO_TCP;
		snprintf(p->rr, sizeof(p->rr), "%s", v->u == 3 ? "crr" : "rr");
	} else if (p->rr[0] && axis == MX_REQUEST) {
		p->rr_request = (uint32_t)v->u;
	} else if (p->rr[0] && axis == MX_RESPONSE) {
		p->rr_response = (uint32_t)v->u;
	} else if (p->rr[0] && axis == MX_RR_RATE) {
		p->rr_rate = (double)v->u;
	} else if (axis == MX_LAT_PROBE && v->u) { /* before its rate and size, likewise */
		snprintf(p->lat_probe, sizeof(p->lat_probe), "%s", v->u == 2 ? "udp" : "tcp");
	} else if (p->lat_probe[0] && axis == MX_LAT_RATE) {
		p->lat_rate = (double)v->u;
	} else if (p->lat_probe[0] && axis == MX_LAT_SIZE) {
		p->lat_size = (uint32_t)v->u;
	}
}

/* Whether axis a holds a value other than none. */
static bool any_set(const struct matrix *m, enum matrix_axis_id a)
{
	bool any = false;
	for (size_t i = 0; i < m->axes[a].n; i++)
		any |= m->axes[a].v[i].u != 0;
	return any;
}

int mxrr_check(const struct matrix *m, struct ns_err *err)
{
	const enum matrix_axis_id dep[] = {MX_REQUEST, MX_RESPONSE, MX_RR_RATE, MX_LAT_RATE,
					   MX_LAT_SIZE};
	const enum matrix_axis_id of[] = {MX_RR, MX_RR, MX_RR, MX_LAT_PROBE, MX_LAT_PROBE};
	const char *const name[] = {"request", "response", "rr-rate", "latency-rate",
				    "latency-size"}; /* matrix_value.c's */
	for (size_t k = 0; k < 5; k++)
		if (m->axes[dep[k]].present && !any_set(m, of[k]))
			return ns_err_code(err, NS_E_INPUT, "%s:%d: axis '%s': goes with %s axis "
					   "holding tcp or udp", m->path, m->axes[dep[k]].line,
					   name[k], of[k] == MX_RR ? "an rr" : "a latency-probe");
	return 0;
}
