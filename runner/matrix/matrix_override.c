/* matrix_override: --set, --only and the documentation-address check (matrix_override.h). */
#include "matrix_override.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/names/itype.h"
#include "lib/jsonw.h"
#include "lib/names/suggest.h"
#include "lib/units.h"
#include "matrix_value.h"
#include "sha256.h"

#define MXO_MAX_VALUES 256 /* values of one --set or --only */

/* The run attributes --set takes, as the matrix element writes them. */
static const char *const attrs[] = {"repeats", "cooldown", "case-timeout", "interval", "order",
				    "seed", "agent-wait"};
#define N_ATTRS (sizeof(attrs) / sizeof(attrs[0]))

int mxo_add(struct mxo_list *l, int is_set, const char *arg, struct ns_err *err)
{
	size_t *n = is_set ? &l->n_set : &l->n_only;
	if (*n >= MXO_MAX)
		return ns_err_code(err, NS_E_USAGE, "at most %d --%s options", MXO_MAX,
				   is_set ? "set" : "only");
	(is_set ? l->set : l->only)[(*n)++] = arg;
	return 0;
}

static const char *name_at(const void *ctx, size_t i)
{
	(void)ctx;
	if (i < N_ATTRS)
		return attrs[i];
	i -= N_ATTRS;
	return i < MX_AXIS_COUNT ? matrix_axis_name((enum matrix_axis_id)i) : NULL;
}

/* NAME=VALUE into name (bounded) and *value. */
static int split(const char *opt, const char *arg, char *name, size_t cap, const char **value,
		 struct ns_err *err)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		return ns_err_code(err, NS_E_USAGE, "--%s '%s': NAME=VALUE[,VALUE...]", opt, arg);
	if ((size_t)(eq - arg) >= cap)
		return ns_err_code(err, NS_E_USAGE, "--%s '%s': no such name", opt, arg);
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = '\0';
	*value = eq + 1;
	return 0;
}

static int unknown(const char *opt, const char *arg, const char *name, bool attrs_too,
		   struct ns_err *err)
{
	const char *near = suggest_nearest(name, name_at, NULL);
	if (near && !attrs_too && matrix_axis_lookup(near) < 0)
		near = NULL;
	if (near)
		return ns_err_code(err, NS_E_USAGE, "--%s %s: no %s '%s' (did you mean '%s'?)", opt,
				   arg, attrs_too ? "axis or attribute" : "axis", name, near);
	return ns_err_code(err, NS_E_USAGE, "--%s %s: no %s '%s'", opt, arg,
			   attrs_too ? "axis or attribute" : "axis", name);
}

/* The comma-separated values of an axis, parsed; *n set. out holds MXO_MAX_VALUES. */
static int parse_values(const struct matrix *m, enum matrix_axis_id a, const char *opt,
			const char *arg, const char *list, struct matrix_value *out, size_t *n,
			struct ns_err *err)
{
	char buf[1024];
	if (strlen(list) >= sizeof(buf))
		return ns_err_code(err, NS_E_USAGE, "--%s %s: too long", opt, arg);
	memcpy(buf, list, strlen(list) + 1);
	*n = 0;
	for (char *save = NULL, *v = strtok_r(buf, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
		if (*n >= MXO_MAX_VALUES)
			return ns_err_code(err, NS_E_USAGE, "--%s %s: at most %d values", opt, arg,
					   MXO_MAX_VALUES);
		if (matrix_parse_value(m, a, v, &out[*n], err) < 0) {
			for (size_t i = 0; i < *n; i++)
				free(out[i].text);
			err->code = NS_E_USAGE;
			return ns_err_prefix(err, "--%s %s", opt, arg), -1;
		}
		(*n)++;
	}
	if (!*n)
		return ns_err_code(err, NS_E_USAGE, "--%s %s: no value", opt, arg);
	return 0;
}

static int set_attr(struct matrix *m, const char *name, const char *v, const char *arg,
		    struct ns_err *err)
{
	uint64_t u;
	int rc = 0;
	if (!strcmp(name, "repeats")) {
		if ((rc = units_parse_uint(v, 1, 10000, &u, err)) == 0)
			m->repeats = (uint32_t)u;
	} else if (!strcmp(name, "seed")) {
		if ((rc = units_parse_uint(v, 0, UINT32_MAX, &m->seed, err)) == 0)
			m->has_seed = true;
	} else if (!strcmp(name, "order")) {
		if (!strcmp(v, "as-written"))
			m->order = MX_ORDER_AS_WRITTEN;
		else if (!strcmp(v, "interleaved"))
			m->order = MX_ORDER_INTERLEAVED;
		else if (!strcmp(v, "shuffled"))
			m->order = MX_ORDER_SHUFFLED;
		else
			rc = ns_err_code(err, NS_E_INPUT,
					 "'%s': order is as-written, interleaved or shuffled", v);
	} else {
		double *d = !strcmp(name, "cooldown") ? &m->cooldown_s
			    : !strcmp(name, "case-timeout") ? &m->case_timeout_s
			    : !strcmp(name, "interval") ? &m->interval_s : &m->agent_wait_s;
		rc = mxval_parse_duration(v, !strcmp(name, "case-timeout"), d, err);
	}
	if (rc < 0) {
		err->code = NS_E_USAGE;
		ns_err_prefix(err, "--set %s", arg);
	}
	return rc;
}

/* The axis takes the given values for every case: the product's, and the includes' (an
 * include's own value for it gives way). Exclude rules compare against the new values. */
static void set_axis(struct matrix *m, enum matrix_axis_id a, struct matrix_value *v, size_t n)
{
	struct matrix_axis *ax = &m->axes[a];
	for (size_t i = 0; i < ax->n; i++)
		free(ax->v[i].text);
	free(ax->v);
	ax->v = v;
	ax->n = ax->n_product = n;
	ax->present = true;
	for (size_t r = 0; r < m->n_rules; r++) {
		struct matrix_rule *rule = &m->rules[r];
		if (!rule->include)
			continue;
		for (size_t i = 0; i < rule->n;) {
			if (rule->c[i].axis != a) {
				i++;
				continue;
			}
			free(rule->c[i].value.text);
			rule->c[i] = rule->c[--rule->n];
		}
	}
}

static int rehash(struct matrix *m, const struct mxo_list *l, struct ns_err *err)
{
	char *j = mxo_json(l);
	size_t lt = m->text_len, lj = j ? strlen(j) : 0;
	char *buf = malloc(lt + lj + 1);
	int rc = -1;
	if (!buf || !j) {
		ns_err_code(err, NS_E_NOMEM, "out of memory");
	} else {
		memcpy(buf, m->text, lt);
		buf[lt] = '\0'; /* text, a NUL, the overrides: no matrix text ends that way */
		memcpy(buf + lt + 1, j, lj);
		rc = sha256_hex(buf, lt + 1 + lj, 32, m->hash, err);
	}
	free(buf);
	free(j);
	return rc;
}

int mxo_apply_sets(struct matrix *m, const struct mxo_list *l, struct ns_err *err)
{
	for (size_t k = 0; k < l->n_set; k++) {
		char name[64];
		const char *v;
		if (split("set", l->set[k], name, sizeof(name), &v, err) < 0)
			return -1;
		int a = matrix_axis_lookup(name);
		if (a == MX_PAIR)
			return ns_err_code(err, NS_E_USAGE, "--set %s: pairs are chosen with --only "
					   "pair=NAME", l->set[k]);
		if (a < 0) {
			bool attr = false;
			for (size_t i = 0; i < N_ATTRS; i++)
				attr |= !strcmp(attrs[i], name);
			if (!attr)
				return unknown("set", l->set[k], name, true, err);
			if (set_attr(m, name, v, l->set[k], err) < 0)
				return -1;
			continue;
		}
		struct matrix_value *vals = calloc(MXO_MAX_VALUES, sizeof(*vals));
		size_t n;
		if (!vals)
			return ns_err_code(err, NS_E_NOMEM, "out of memory");
		if (parse_values(m, (enum matrix_axis_id)a, "set", l->set[k], v, vals, &n, err) < 0) {
			free(vals);
			return -1;
		}
		set_axis(m, (enum matrix_axis_id)a, vals, n);
	}
	if (l->n_set || l->n_only)
		return rehash(m, l, err);
	return 0;
}

/* "1, 4" for the error: the values the cases have. */
static void present_values(const struct matrix *m, enum matrix_axis_id a, char *buf, size_t cap)
{
	size_t o = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < m->axes[a].n && o < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s%s", i ? ", " : "", m->axes[a].v[i].text);
}

/* --only instance-type=T[,T...]: the cases of the pairs whose type answers to one of them. */
static int filter_types(const struct matrix *m, struct sweep_cases *cs, const struct mxo_list *l,
			const char *arg, const char *list, struct ns_err *err)
{
	char buf[1024];
	const char *want[MXO_MAX_VALUES];
	size_t n = 0, kept = 0;
	if (strlen(list) >= sizeof(buf))
		return ns_err_code(err, NS_E_USAGE, "--only %s: too long", arg);
	memcpy(buf, list, strlen(list) + 1);
	for (char *save = NULL, *v = strtok_r(buf, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
		if (n >= MXO_MAX_VALUES)
			return ns_err_code(err, NS_E_USAGE, "--only %s: at most %d values", arg,
					   MXO_MAX_VALUES);
		want[n++] = v;
	}
	if (!n)
		return ns_err_code(err, NS_E_USAGE, "--only %s: no value", arg);
	for (size_t i = 0; i < cs->n; i++) {
		const char *t = m->pairs[expand_value(m, &cs->v[i], MX_PAIR)->u].instance_type;
		bool hit = false;
		for (size_t j = 0; j < n && !hit && t[0]; j++)
			hit = l->type_matches ? l->type_matches(l->type_ctx, t, want[j])
					      : itype_matches(t, NULL, want[j]);
		if (hit)
			cs->v[kept++] = cs->v[i];
	}
	if (!kept) {
		char have[512];
		size_t o = 0;
		have[0] = '\0';
		for (size_t i = 0; i < m->n_pairs && o < sizeof(have); i++)
			o += (size_t)snprintf(have + o, sizeof(have) - o, "%s%s", i ? ", " : "",
					      m->pairs[i].instance_type[0] ? m->pairs[i].instance_type
									   : "(none)");
		return ns_err_code(err, NS_E_USAGE, "--only %s: no case left (the pairs' "
				   "instance types: %s)", arg, have);
	}
	cs->excluded += cs->n - kept;
	cs->n = kept;
	return 0;
}

int mxo_filter(const struct matrix *m, struct sweep_cases *cs, const struct mxo_list *l,
	       struct ns_err *err)
{
	for (size_t k = 0; k < l->n_only; k++) {
		char name[64];
		const char *list;
		if (split("only", l->only[k], name, sizeof(name), &list, err) < 0)
			return -1;
		if (!strcmp(name, "instance-type")) {
			if (filter_types(m, cs, l, l->only[k], list, err) < 0)
				return -1;
			continue;
		}
		int a = matrix_axis_lookup(name);
		if (a < 0)
			return unknown("only", l->only[k], name, false, err);
		struct matrix_value vals[MXO_MAX_VALUES];
		size_t n, kept = 0;
		if (parse_values(m, (enum matrix_axis_id)a, "only", l->only[k], list, vals, &n, err) < 0)
			return -1;
		for (size_t i = 0; i < cs->n; i++) {
			const char *t = expand_value(m, &cs->v[i], (enum matrix_axis_id)a)->text;
			bool hit = false;
			for (size_t j = 0; j < n && !hit; j++)
				hit = !strcmp(t, vals[j].text);
			if (hit)
				cs->v[kept++] = cs->v[i];
		}
		for (size_t j = 0; j < n; j++)
			free(vals[j].text);
		if (!kept) {
			char have[512];
			present_values(m, (enum matrix_axis_id)a, have, sizeof(have));
			return ns_err_code(err, NS_E_USAGE, "--only %s: no case left (the cases' %s: %s)",
					   l->only[k], name, have);
		}
		cs->excluded += cs->n - kept;
		cs->n = kept;
	}
	return 0;
}

char *mxo_json(const struct mxo_list *l)
{
	struct jsonw w;
	char item[1100];
	jsonw_init(&w, false);
	jsonw_arr_open(&w);
	for (size_t i = 0; i < l->n_set; i++) {
		snprintf(item, sizeof(item), "set %s", l->set[i]);
		jsonw_str(&w, item);
	}
	for (size_t i = 0; i < l->n_only; i++) {
		snprintf(item, sizeof(item), "only %s", l->only[i]);
		jsonw_str(&w, item);
	}
	jsonw_arr_close(&w);
	return jsonw_steal(&w);
}

/* Whether host is a documentation address or an example domain; what it is in *why. */
static bool documentation(const char *host, const char **why)
{
	struct in_addr a4;
	struct in6_addr a6;
	if (inet_pton(AF_INET, host, &a4) == 1) {
		uint32_t h = ntohl(a4.s_addr);
		*why = "a documentation address (RFC 5737)";
		return (h >> 8) == 0xc00002u || (h >> 8) == 0xc63364u || (h >> 8) == 0xcb0071u;
	}
	if (inet_pton(AF_INET6, host, &a6) == 1) {
		*why = "a documentation address (RFC 3849)";
		return a6.s6_addr[0] == 0x20 && a6.s6_addr[1] == 0x01 && a6.s6_addr[2] == 0x0d &&
		       a6.s6_addr[3] == 0xb8;
	}
	static const char *const domains[] = {"example.com", "example.net", "example.org",
					      "example"};
	size_t lh = strlen(host);
	for (size_t i = 0; i < sizeof(domains) / sizeof(domains[0]); i++) {
		size_t ld = strlen(domains[i]);
		if ((lh == ld || (lh > ld && host[lh - ld - 1] == '.')) &&
		    !strcasecmp(host + lh - ld, domains[i])) {
			*why = "an example domain (RFC 2606)";
			return true;
		}
	}
	return false;
}

size_t mxo_doc_addresses(const struct matrix *m, void (*warn)(void *ctx, const char *msg),
			 void *ctx)
{
	size_t n = 0;
	for (size_t i = 0; i < m->n_pairs; i++) {
		const struct matrix_pair *p = &m->pairs[i];
		if (p->setup.command[0] || m->setup.command[0])
			continue; /* its setup hook names the agents it brings up */
		const char *hosts[2] = {p->agent_host, p->client_host}, *roles[2] = {"agent", "client"};
		for (int k = 0; k < 2; k++) {
			const char *why;
			if (!hosts[k][0] || !documentation(hosts[k], &why))
				continue;
			char msg[768];
			snprintf(msg, sizeof(msg), "%s:%d: pair %s: %s %s is %s: put the real host there "
				 "(or a provisioning hook) before a real run", m->path, p->line, p->name,
				 roles[k], hosts[k], why);
			warn(ctx, msg);
			n++;
		}
	}
	return n;
}
