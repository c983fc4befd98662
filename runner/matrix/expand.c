#include "expand.h"
#include "bind.h"
#include "matrix_group.h"
#include "matrix_longrun.h"
#include "matrix_rr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"
#include "lib/rpm.h"

/* An exclude condition resolved to an index among the axis's product values (-1: none). */
struct resolved {
	int axis;
	long idx;
	bool negate;
};

static long find_value(const struct matrix_axis *ax, const char *text, size_t limit)
{
	for (size_t i = 0; i < limit; i++)
		if (strcmp(ax->v[i].text, text) == 0)
			return (long)i;
	return -1;
}

/* A zone=same or zone=cross case of a pair whose ends are not so: no such case. */
static bool zone_misfit(const struct matrix *m, const uint32_t *idx)
{
	uint64_t want = m->axes[MX_ZONE].v[idx[MX_ZONE]].u;
	uint64_t pair = m->axes[MX_PAIR].v[idx[MX_PAIR]].u;
	return want != MX_ZONE_ANY && (pair >= m->n_pairs || m->pairs[pair].zone_rel != want);
}

static bool excluded(const struct resolved *conds, const size_t *starts, size_t n_rules,
		     const uint32_t *idx)
{
	for (size_t r = 0; r < n_rules; r++) {
		bool all = true;
		for (size_t i = starts[r]; i < starts[r + 1] && all; i++) {
			bool eq = (long)idx[conds[i].axis] == conds[i].idx;
			all = conds[i].negate ? !eq : eq;
		}
		if (all)
			return true;
	}
	return false;
}

int expand_canonical(const struct matrix *m, const struct sweep_case *c, char *buf, size_t len)
{
	size_t w = 0;
	for (int a = 0; a < MX_AXIS_COUNT; a++) {
		const char *name = matrix_axis_name(a), *val = m->axes[a].v[c->idx[a]].text;
		if (a >= MX_V1_AXES && !strcmp(val, matrix_axis_default(a)))
			continue;
		size_t nl = strlen(name), vl = strlen(val);
		if (w + nl + vl + 3 <= len) {
			memcpy(buf + w, name, nl);
			buf[w + nl] = '=';
			memcpy(buf + w + nl + 1, val, vl);
			buf[w + nl + 1 + vl] = ';';
		}
		w += nl + vl + 2;
	}
	if (len)
		buf[w < len ? w : len - 1] = '\0';
	return (int)w;
}

/* Rates are stored canonically in bit/s (so that keys survive unit spelling); people read
 * "500M". Only exact multiples are shortened, so the text never rounds. */
static bool compact_rate(uint64_t bps, char *buf, size_t len)
{
	static const struct { uint64_t mult; char suffix; } units[] = {
		{1000000000000ULL, 'T'}, {1000000000ULL, 'G'}, {1000000ULL, 'M'}, {1000ULL, 'k'},
	};
	for (size_t i = 0; bps && i < sizeof(units) / sizeof(units[0]); i++)
		if (bps % units[i].mult == 0) {
			snprintf(buf, len, "%llu%c", (unsigned long long)(bps / units[i].mult),
				 units[i].suffix);
			return true;
		}
	return false;
}

int expand_describe(const struct matrix *m, const struct sweep_case *c, char *buf, size_t len)
{
	size_t w = 0;
	if (len)
		buf[0] = '\0';
	for (int a = 0; a < MX_AXIS_COUNT; a++) {
		if (a != MX_PAIR && !m->axes[a].present && c->idx[a] < m->axes[a].n_product)
			continue;
		const struct matrix_value *v = &m->axes[a].v[c->idx[a]];
		char shown[32];
		const char *text = v->text;
		if ((a == MX_RATE || a == MX_FQ_RATE) && compact_rate(v->u, shown, sizeof(shown)))
			text = shown;
		int n = snprintf(buf + (w < len ? w : len), w < len ? len - w : 0, "%s%s=%s",
				 w ? " " : "", matrix_axis_name(a), text);
		w += (size_t)(n > 0 ? n : 0);
	}
	return (int)w;
}

static int set_key(const struct matrix *m, struct sweep_case *c, struct ns_err *err)
{
	char buf[2048];
	int n = expand_canonical(m, c, buf, sizeof(buf));
	if (n >= (int)sizeof(buf))
		n = (int)sizeof(buf) - 1;
	return sha256_hex(buf, (size_t)n, EXPAND_KEY_LEN / 2, c->key, err);
}

/* Open-addressing set of case keys (their first 64 bits), to keep includes unique. */
struct keyset {
	uint64_t *slot;
	size_t mask;
};

static uint64_t key_bits(const char *key)
{
	return strtoull(key, NULL, 16) | 1; /* 0 marks an empty slot */
}

static int keyset_init(struct keyset *s, size_t n)
{
	size_t cap = 16;
	while (cap < 2 * n)
		cap <<= 1;
	s->slot = calloc(cap, sizeof(uint64_t));
	s->mask = cap - 1;
	return s->slot ? 0 : -1;
}

/* Returns true if the key was already there. */
static bool keyset_add(struct keyset *s, uint64_t k)
{
	size_t i = (size_t)(k * 0x9e3779b97f4a7c15ull) & s->mask;
	while (s->slot[i]) {
		if (s->slot[i] == k)
			return true;
		i = (i + 1) & s->mask;
	}
	s->slot[i] = k;
	return false;
}

int expand_matrix(const struct matrix *m, struct sweep_cases *out, struct ns_err *err)
{
	struct resolved *conds = NULL;
	size_t *starts = NULL, n_ex = 0, n_conds = 0;
	struct keyset ks = {0};
	memset(out, 0, sizeof(*out));

	uint64_t product = 1;
	for (int a = 0; a < MX_AXIS_COUNT; a++) {
		product *= m->axes[a].n_product;
		if (product > EXPAND_MAX_CASES)
			return ns_err_code(err, NS_E_INPUT,
					   "%s:%d: the axes make more than %d cases", m->path,
					   m->axes[a].line, EXPAND_MAX_CASES);
	}
	size_t n_inc = 0;
	for (size_t r = 0; r < m->n_rules; r++) {
		n_inc += m->rules[r].include;
		n_ex += !m->rules[r].include;
		if (!m->rules[r].include)
			n_conds += m->rules[r].n;
	}
	conds = calloc(n_conds + 1, sizeof(*conds));
	starts = calloc(n_ex + 1, sizeof(*starts));
	out->v = malloc((product + n_inc) * sizeof(*out->v));
	if (!conds || !starts || !out->v)
		goto oom;
	size_t k = 0, e = 0;
	for (size_t r = 0; r < m->n_rules; r++) {
		const struct matrix_rule *rule = &m->rules[r];
		if (rule->include)
			continue;
		starts[e++] = k;
		for (size_t i = 0; i < rule->n; i++) {
			const struct matrix_axis *ax = &m->axes[rule->c[i].axis];
			conds[k].axis = rule->c[i].axis;
			conds[k].negate = rule->c[i].negate;
			conds[k].idx = find_value(ax, rule->c[i].value.text, ax->n_product);
			k++;
		}
	}
	starts[e] = k;

	/* The product as an odometer: the last axis turns fastest. */
	uint32_t idx[MX_AXIS_COUNT] = {0};
	for (uint64_t i = 0; i < product; i++) {
		if (!excluded(conds, starts, n_ex, idx) && !zone_misfit(m, idx)) {
			struct sweep_case *c = &out->v[out->n++];
			memcpy(c->idx, idx, sizeof(idx));
			c->include_line = 0;
			if (set_key(m, c, err) < 0)
				goto fail;
		} else {
			out->excluded++;
		}
		for (int a = MX_AXIS_COUNT - 1; a >= 0; a--) {
			if (++idx[a] < m->axes[a].n_product)
				break;
			idx[a] = 0;
		}
	}

	if (n_inc) {
		if (keyset_init(&ks, out->n + n_inc) < 0)
			goto oom;
		for (size_t i = 0; i < out->n; i++)
			keyset_add(&ks, key_bits(out->v[i].key));
		for (size_t r = 0; r < m->n_rules; r++) {
			const struct matrix_rule *rule = &m->rules[r];
			if (!rule->include)
				continue;
			struct sweep_case *c = &out->v[out->n];
			memset(c->idx, 0, sizeof(c->idx)); /* unset axes: their first value */
			for (size_t i = 0; i < rule->n; i++) {
				const struct matrix_axis *ax = &m->axes[rule->c[i].axis];
				c->idx[rule->c[i].axis] =
					(uint32_t)find_value(ax, rule->c[i].value.text, ax->n);
			}
			c->include_line = rule->line;
			if (set_key(m, c, err) < 0)
				goto fail;
			if (!keyset_add(&ks, key_bits(c->key)))
				out->n++; /* an include equal to a case already there adds nothing */
		}
	}
	if (out->n == 0) {
		ns_err_code(err, NS_E_INPUT, "%s:%d: every case is excluded by the rules", m->path,
			    m->n_rules ? m->rules[0].line : 1);
		goto fail;
	}
	free(ks.slot);
	free(conds);
	free(starts);
	return 0;
oom:
	ns_err_code(err, NS_E_NOMEM, "%s: out of memory expanding the matrix", m->path);
fail:
	free(ks.slot);
	free(conds);
	free(starts);
	expand_free(out);
	return -1;
}

void expand_free(struct sweep_cases *c)
{
	if (!c)
		return;
	free(c->v);
	memset(c, 0, sizeof(*c));
}

/* Sets the one probe parameter an axis stands for. */
static void apply_axis(struct probe_params *p, int a, const struct matrix_value *v)
{
	switch (a) {
	case MX_PROTOCOL: p->proto = (enum ns_proto)v->u; break;
	case MX_DIRECTION: p->dir = (enum ns_dir)v->u; break;
	case MX_STREAMS: p->streams = (uint32_t)v->u; break;
	case MX_THREADS: p->threads = (uint32_t)v->u; break;
	case MX_LENGTH: p->length = (uint32_t)v->u; break;
	case MX_RATE: p->rate_bps = v->u; break;
	case MX_FQ_RATE: p->fq_rate_bps = v->u; break;
	case MX_DURATION: p->duration_s = v->d; break;
	case MX_OMIT: p->omit_s = v->d; break;
	case MX_WINDOW: p->window = (uint32_t)v->u; break;
	case MX_MSS: p->mss = (uint32_t)v->u; break;
	case MX_NODELAY: p->nodelay = v->u != 0; break;
	case MX_GSO: p->gso = v->u != 0; break;
	case MX_ENGINE: snprintf(p->engine, sizeof(p->engine), "%s", v->text); break;
	case MX_ZEROCOPY: p->zerocopy = v->u != 0; break;
	case MX_RX_COPY: /* "copy" is the default path: params say it as "" */
		snprintf(p->rx_copy, sizeof(p->rx_copy), "%s", strcmp(v->text, "copy") ? v->text : "");
		break;
	case MX_DSCP: p->tos = (uint32_t)v->u; break;
	case MX_FAMILY: p->family = (uint32_t)v->u; break;
	case MX_AMOUNT: p->bytes = v->u; break;
	case MX_UNTIL: case MX_STEADY: mxlong_apply(p, (enum matrix_axis_id)a, v); break;
	case MX_RR: case MX_REQUEST: case MX_RESPONSE: case MX_RR_RATE:
	case MX_LAT_PROBE: case MX_LAT_RATE: case MX_LAT_SIZE:
		mxrr_apply(p, (enum matrix_axis_id)a, v);
		break;
	case MX_CONGESTION:
		snprintf(p->congestion, sizeof(p->congestion), "%s", v->text);
		break;
	case MX_AFFINITY: /* a CPU list as it is; the policies are the runner's to resolve */
		if (strcmp(v->text, "none") && strcmp(v->text, "irq") && strcmp(v->text, "spread"))
			snprintf(p->affinity, sizeof(p->affinity), "%s", v->text);
		break;
	default: /* the pair: host and port are the runner's */
		break;
	}
}

static void base_params(const struct matrix *m, struct probe_params *p)
{
	probe_params_init(p);
	p->interval_s = m->interval_s;
	if (m->case_timeout_s > 0) {
		p->timeout_s = m->case_timeout_s;
		/* A short case timeout also bounds the wait for a silent agent. */
		if (p->connect_timeout_s > m->case_timeout_s)
			p->connect_timeout_s = m->case_timeout_s;
	}
}

void expand_params(const struct matrix *m, const struct sweep_case *c, struct probe_params *p)
{
	base_params(m, p);
	for (int a = 0; a < MX_AXIS_COUNT; a++)
		apply_axis(p, a, expand_value(m, c, a));
}

double expand_case_seconds(const struct matrix *m, const struct sweep_case *c)
{
	if (m->search && expand_value(m, c, MX_PROTOCOL)->u == NS_PROTO_UDP) {
		/* a search: its stated worst case (runner/search) */
		const struct search_cfg *sc = &m->search_cfg;
		uint32_t trials;
		double secs;
		search_bounds(sc, sc->max_load > 0 && sc->min_load > 0 ? sc->max_load / sc->min_load
								       : 1000, &trials, &secs);
		return secs;
	}
	/* a latency probe's idle test comes before the load (its default window: no axis sets it) */
	double idle = expand_value(m, c, MX_LAT_PROBE)->u ? PROBE_LAT_IDLE_S : 0;
	/* a responsiveness case: its saturation search (7 tests at least, counted at 10) and its
	 * own latency probe's idle test before the load */
	if (expand_value(m, c, MX_RPM)->u)
		idle = 10 * RPM_ID_S + PROBE_LAT_IDLE_S;
	return idle + expand_value(m, c, MX_OMIT)->d + expand_value(m, c, MX_DURATION)->d;
}

static int check_params(struct probe_params *p, struct ns_err *err)
{
	snprintf(p->host, sizeof(p->host), "127.0.0.1"); /* stands in for the agent */
	p->port = NS_DEFAULT_PORT;
	return probe_params_check(p, err);
}

int expand_check(const struct matrix *m, const struct sweep_cases *cs, struct ns_err *err)
{
	struct ns_err e;
	struct probe_params p;
	if (mxrr_check(m, err) < 0 || mxlong_check(m, cs, err) < 0) /* its values' own lines, before any case's */
		return -1;
	for (size_t i = 0; i < cs->n; i++) {
		const struct sweep_case *c = &cs->v[i];
		expand_params(m, c, &p);
		if (mxgroup_check(m, c, err) < 0)
			return -1;
		if (mxbind_apply(m, expand_value(m, c, MX_PAIR)->u, expand_value(m, c, MX_BIND)->text,
				 &p, err) < 0)
			return -1;
		if (expand_value(m, c, MX_RPM)->u &&
		    (p.proto != NS_PROTO_TCP || p.rr[0] || p.lat_probe[0] || p.dir == NS_DIR_BIDIR ||
		     mxgroup_is_group(m, c))) {
			char what[1024];
			expand_describe(m, c, what, sizeof(what));
			return ns_err_code(err, NS_E_INPUT, "%s:%d: case %s: responsiveness loads TCP in "
					   "one direction and brings its own probes: not with protocol "
					   "udp, rr, latency-probe, direction bidir or several clients",
					   m->path, m->axes[MX_RPM].line ? m->axes[MX_RPM].line : 1, what);
		}
		if (check_params(&p, &e) == 0)
			continue;
		/* A value wrong even on top of the defaults is that value's fault: name its line. */
		for (int a = 0; a < MX_AXIS_COUNT; a++) {
			struct ns_err ea;
			base_params(m, &p);
			apply_axis(&p, a, expand_value(m, c, a));
			if (check_params(&p, &ea) < 0)
				return ns_err_code(err, NS_E_INPUT,
						   "%s:%d: axis '%s' value '%s': %s", m->path,
						   expand_value(m, c, a)->line, matrix_axis_name(a),
						   expand_value(m, c, a)->text, ea.msg);
		}
		/* Otherwise values conflict: name the case, at its include or the first axis. */
		char what[1024];
		expand_describe(m, c, what, sizeof(what));
		int line = c->include_line;
		for (int a = 0; a < MX_AXIS_COUNT && !line; a++)
			line = m->axes[a].line;
		return ns_err_code(err, NS_E_INPUT, "%s:%d: case %s: %s", m->path, line ? line : 1,
				   what, e.msg);
	}
	return 0;
}

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int expand_schedule(const struct matrix *m, size_t n_cases, uint64_t seed,
		    struct sweep_slot **slots, size_t *n, struct ns_err *err)
{
	size_t total = n_cases * m->repeats, k = 0;
	struct sweep_slot *s = malloc((total ? total : 1) * sizeof(*s));
	if (!s)
		return ns_err_code(err, NS_E_NOMEM, "out of memory scheduling %zu runs", total);
	if (m->order == MX_ORDER_INTERLEAVED) {
		for (uint32_t r = 0; r < m->repeats; r++)
			for (size_t c = 0; c < n_cases; c++)
				s[k++] = (struct sweep_slot){(uint32_t)c, r};
	} else {
		for (size_t c = 0; c < n_cases; c++)
			for (uint32_t r = 0; r < m->repeats; r++)
				s[k++] = (struct sweep_slot){(uint32_t)c, r};
	}
	if (m->order == MX_ORDER_SHUFFLED) {
		uint64_t st = seed;
		for (size_t i = total; i > 1; i--) {
			size_t j = (size_t)(splitmix64(&st) % i);
			struct sweep_slot t = s[i - 1];
			s[i - 1] = s[j];
			s[j] = t;
		}
	}
	*slots = s;
	*n = total;
	return 0;
}
