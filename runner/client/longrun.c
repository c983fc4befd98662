#include "longrun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "runner/proto/proto.h"

int longrun_init(struct longrun *l, const struct probe_params *p, struct ns_err *err)
{
	memset(l, 0, sizeof(*l));
	l->on = !strcmp(p->until, "sustained");
	for (uint32_t i = 0; i < 2; i++)
		steady_init(&l->w[i], p->steady_s);
	if (l->on && !(l->scratch = calloc(PROTO_IVLS_PER_CHUNK, sizeof(*l->scratch))))
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	return 0;
}

void longrun_free(struct longrun *l)
{
	for (uint32_t i = 0; i < 2; i++)
		steady_free(&l->w[i]);
	free(l->scratch);
	l->scratch = NULL;
}

static void take(struct steady *w, const struct probe_interval *v)
{
	if (v->stream == -1 && !v->omitted)
		(void)steady_add(w, v->start_s, v->end_s, v->bits_per_second); /* past the bound:
							the series the rule sees stops growing */
}

int longrun_agent(struct longrun *l, const struct session_end *ends, uint32_t n_ends,
		  const uint8_t *buf, uint32_t len, struct ns_err *err)
{
	uint8_t dir;
	uint32_t first, count, d;
	if (!l->on)
		return ns_err_code(err, NS_E_PROTOCOL, "protocol error: unexpected RESULT_INTERVALS "
				   "during the test");
	if (proto_dec_live_intervals(buf, len, &dir, &first, &count, l->scratch,
				     PROTO_IVLS_PER_CHUNK, err) < 0)
		return -1;
	for (d = 0; d < n_ends && (uint8_t)ends[d].dir != dir; d++)
		;
	if (d == n_ends || ends[d].role != ENGINE_SEND || first != l->agent_next[d])
		return ns_err_code(err, NS_E_PROTOCOL, "protocol error: live intervals out of order "
				   "or of a direction the agent does not receive");
	for (uint32_t i = 0; i < count; i++)
		take(&l->w[d], &l->scratch[i]);
	l->agent_next[d] = first + count;
	return 0;
}

bool longrun_reached(struct longrun *l, const struct session_end *ends, uint32_t n_ends)
{
	if (!l->on || n_ends == 0)
		return false;
	bool all = true;
	for (uint32_t d = 0; d < n_ends; d++) {
		if (ends[d].role == ENGINE_RECV)
			for (; l->fed[d] < ends[d].n_ivl; l->fed[d]++)
				take(&l->w[d], &ends[d].ivl[l->fed[d]]);
		all &= steady_reached(&l->w[d]);
	}
	return all;
}

int longrun_expect(const struct longrun *l, int ctl, uint8_t *buf, uint16_t want,
		   uint32_t *len, double deadline, struct ns_err *err)
{
	if (!l->on)
		return client_ctl_expect(ctl, buf, want, len, deadline, err);
	uint16_t type;
	do {
		if (client_ctl_recv(ctl, buf, &type, len, deadline, err) < 0)
			return -1;
	} while (type == PROTO_RESULT_INTERVALS);
	if (type != want)
		return ns_err_code(err, NS_E_PROTOCOL, "protocol error: expected %s, got %s",
				   proto_type_name(want), proto_type_name(type));
	return 0;
}

void longrun_ended(const struct longrun *l, uint32_t n_ends, struct probe_result *res)
{
	if (!l->on)
		return;
	bool all = n_ends > 0;
	for (uint32_t d = 0; d < n_ends; d++)
		all &= l->w[d].reached;
	snprintf(res->ended, sizeof(res->ended), "%s", all ? "sustained" : "duration");
}
