/* matrix_search: see matrix_search.h. */
#include "matrix_search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"

static int fail(struct ns_err *err, const char *path, xmlNodePtr n, const char *field)
{
	char msg[NS_ERR_MAX];
	snprintf(msg, sizeof(msg), "%s", err->msg);
	return ns_err_code(err, NS_E_INPUT, "%s:%d: search: %s: %s", path, (int)xmlGetLineNo(n),
			   field, msg);
}

/* One attribute's text, copied (NULL when absent). */
static char *attr(xmlNodePtr n, const char *name)
{
	xmlChar *v = xmlGetProp(n, BAD_CAST name);
	if (!v)
		return NULL;
	char *s = strdup((const char *)v);
	xmlFree(v);
	return s;
}

static int ratio(const char *s, double *out, struct ns_err *err)
{
	char *end;
	double v = strtod(s, &end);
	if (end != s && *end == '%') {
		v /= 100;
		end++;
	}
	if (end == s || *end || !(v >= 0))
		return ns_err_code(err, NS_E_INPUT, "'%s': a ratio such as 0.5, or 1%%", s);
	*out = v;
	return 0;
}

int matrix_search_load(xmlNodePtr n, const char *path, struct search_cfg *cfg, struct ns_err *err)
{
	static const char *const fields[] = {
		"goals", "exceed-ratio", "width", "initial-duration", "final-duration",
		"duration-sum", "min-pps", "max-pps", "confirm-packets",
	};
	enum { F_GOALS, F_EXCEED, F_WIDTH, F_INITIAL, F_FINAL, F_SUM, F_MIN, F_MAX, F_CONFIRM, F_N };
	char *v[F_N];
	int rc = -1;
	double exceed = 0.5;
	uint64_t u;
	search_cfg_init(cfg);
	for (int i = 0; i < F_N; i++)
		v[i] = attr(n, fields[i]);
	int f = F_EXCEED;
	if (v[F_EXCEED] && ratio(v[F_EXCEED], &exceed, err) < 0)
		goto out;
	f = F_GOALS;
	if (v[F_GOALS] && search_parse_goals(v[F_GOALS], exceed, cfg, err) < 0)
		goto out;
	for (uint32_t i = 0; i < cfg->n_goals; i++)
		cfg->goals[i].exceed_ratio = exceed;
	f = F_WIDTH;
	if (v[F_WIDTH] && ratio(v[F_WIDTH], &cfg->goal_width, err) < 0)
		goto out;
	f = F_INITIAL;
	if (v[F_INITIAL] && units_parse_duration(v[F_INITIAL], 3600, &cfg->initial_duration_s, err) < 0)
		goto out;
	f = F_FINAL;
	if (v[F_FINAL] && units_parse_duration(v[F_FINAL], 3600, &cfg->final_duration_s, err) < 0)
		goto out;
	cfg->duration_sum_s = cfg->final_duration_s;
	f = F_SUM;
	if (v[F_SUM] && units_parse_duration(v[F_SUM], 360000, &cfg->duration_sum_s, err) < 0)
		goto out;
	f = F_MIN;
	if (v[F_MIN]) {
		if (units_parse_rate(v[F_MIN], &u, err) < 0)
			goto out;
		cfg->min_load = (double)u;
	}
	f = F_MAX;
	if (v[F_MAX]) {
		if (units_parse_rate(v[F_MAX], &u, err) < 0)
			goto out;
		cfg->max_load = (double)u;
	}
	f = F_CONFIRM;
	if (v[F_CONFIRM]) {
		if (units_parse_uint(v[F_CONFIRM], 0, 1000000000, &u, err) < 0)
			goto out;
		cfg->confirm_packets = u;
	}
	f = -1;
	if (search_cfg_check(cfg, err) < 0)
		goto out;
	rc = 0;
out:
	if (rc < 0)
		fail(err, path, n, f >= 0 ? fields[f] : "settings");
	for (int i = 0; i < F_N; i++)
		free(v[i]);
	return rc;
}
