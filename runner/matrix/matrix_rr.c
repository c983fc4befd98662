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
	if (axis == MX_RR) {
		if (!strcmp(text, "none"))
			u = 0;
		else if (!strcmp(text, "tcp"))
			u = 1;
		else if (!strcmp(text, "udp"))
			u = 2;
		else if (!strcmp(text, "crr"))
			u = 3;
		else
			return ns_err_set(err, "'%s': rr is none, tcp, udp or crr", text);
		snprintf(buf, sizeof(buf), "%s", text);
	} else if (axis == MX_RR_RATE) {
		size_t n = strlen(text);
		if (n >= 2 && !strcmp(text + n - 2, "/s"))
			n -= 2;
		if (!n || n >= sizeof(buf))
			return ns_err_set(err, "'%s': expected transactions/s", text);
		memcpy(buf, text, n);
		buf[n] = '\0';
		if (units_parse_uint(buf, 0, 1000000000, &u, err) < 0)
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
	}
}

int mxrr_check(const struct matrix *m, struct ns_err *err)
{
	const struct matrix_axis *rr = &m->axes[MX_RR];
	bool any = false;
	for (size_t i = 0; i < rr->n; i++)
		any |= rr->v[i].u != 0;
	const enum matrix_axis_id dep[] = {MX_REQUEST, MX_RESPONSE, MX_RR_RATE};
	const char *const name[] = {"request", "response", "rr-rate"}; /* matrix_value.c's */
	for (size_t k = 0; k < 3 && !any; k++)
		if (m->axes[dep[k]].present)
			return ns_err_code(err, NS_E_INPUT, "%s:%d: axis '%s': goes with an rr axis "
					   "holding tcp or udp", m->path, m->axes[dep[k]].line,
					   name[k]);
	return 0;
}
