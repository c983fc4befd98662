#include "matrix_longrun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/steady.h"
#include "lib/units.h"

int mxlong_parse_value(enum matrix_axis_id axis, const char *text, struct matrix_value *out,
		       struct ns_err *err)
{
	char buf[32];
	if (axis == MX_UNTIL) {
		if (strcmp(text, "none") && strcmp(text, "sustained"))
			return ns_err_code(err, NS_E_INPUT, "'%s': until is none or sustained",
					   text);
		out->u = !strcmp(text, "sustained");
		snprintf(buf, sizeof(buf), "%s", text);
	} else {
		if (strchr(text, '-'))
			return ns_err_code(err, NS_E_INPUT, "'%s': a duration cannot be negative",
					   text);
		if (units_parse_duration(text, NS_MAX_DURATION_S, &out->d, err) < 0)
			return -1;
		if (!(out->d > 0))
			return ns_err_code(err, NS_E_INPUT,
					   "'%s': a steady time must be above zero", text);
		snprintf(buf, sizeof(buf), "%.9g", out->d);
	}
	return (out->text = strdup(buf)) ? 0 : ns_err_code(err, NS_E_NOMEM, "out of memory");
}

void mxlong_apply(struct probe_params *p, enum matrix_axis_id axis, const struct matrix_value *v)
{
	/* until comes first in the axis order, so steady finds it set */
	if (axis == MX_UNTIL && v->u) {
		snprintf(p->until, sizeof(p->until), "sustained");
		p->steady_s = STEADY_DEFAULT_S;
	} else if (axis == MX_STEADY && p->until[0]) {
		p->steady_s = v->d;
	}
}

size_t mxlong_count(const struct matrix *m, const struct sweep_cases *cs)
{
	size_t n = 0;
	for (size_t i = 0; i < cs->n; i++)
		n += expand_value(m, &cs->v[i], MX_UNTIL)->u != 0;
	return n;
}

/* The line to blame for a case's steady time: its steady value's, else its until value's. */
static int steady_line(const struct matrix *m, const struct sweep_case *c)
{
	return m->axes[MX_STEADY].present ? expand_value(m, c, MX_STEADY)->line
					  : expand_value(m, c, MX_UNTIL)->line;
}

int mxlong_check(const struct matrix *m, const struct sweep_cases *cs, struct ns_err *err)
{
	const struct matrix_axis *u = &m->axes[MX_UNTIL], *st = &m->axes[MX_STEADY];
	bool any = false;
	for (size_t i = 0; i < u->n; i++)
		any |= u->v[i].u != 0;
	if (st->present && !any)
		return ns_err_code(err, NS_E_INPUT, "%s:%d: axis 'steady': goes with an until axis "
				   "holding sustained", m->path, st->line);
	for (size_t i = 0; any && i < cs->n; i++) {
		const struct sweep_case *c = &cs->v[i];
		const struct matrix_value *uv = expand_value(m, c, MX_UNTIL);
		if (!uv->u)
			continue;
		double steady = st->present ? expand_value(m, c, MX_STEADY)->d : STEADY_DEFAULT_S;
		double dur = expand_value(m, c, MX_DURATION)->d;
		if (m->interval_s <= 0)
			return ns_err_code(err, NS_E_INPUT, "%s:%d: axis 'until' value 'sustained': "
					   "watches the interval series, and the matrix's interval is "
					   "0", m->path, uv->line);
		if (m->search && expand_value(m, c, MX_PROTOCOL)->u == NS_PROTO_UDP)
			return ns_err_code(err, NS_E_INPUT, "%s:%d: axis 'until' value 'sustained': "
					   "a UDP case is a rate search here (<search>), whose trials "
					   "have their own durations (exclude those cases)", m->path,
					   uv->line);
		if (expand_value(m, c, MX_AMOUNT)->u)
			return ns_err_code(err, NS_E_INPUT, "%s:%d: axis 'until' value 'sustained': "
					   "ends by the rate, not with an amount (exclude those cases)",
					   m->path, uv->line);
		if (steady < STEADY_MIN_INTERVALS * m->interval_s)
			return ns_err_code(err, NS_E_INPUT, "%s:%d: axis 'steady' value '%g': must span "
					   "at least %d intervals (%g s at interval %g s)", m->path,
					   steady_line(m, c), steady, STEADY_MIN_INTERVALS,
					   STEADY_MIN_INTERVALS * m->interval_s, m->interval_s);
		if (steady >= dur)
			return ns_err_code(err, NS_E_INPUT, "%s:%d: axis 'steady' value '%g': must be "
					   "below the case's duration, %g s (with until sustained the "
					   "duration is the upper bound)", m->path, steady_line(m, c),
					   steady, dur);
	}
	return 0;
}
