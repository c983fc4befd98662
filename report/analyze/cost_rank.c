/* cost: see cost.h. */
#include "report/analyze/cost_rank.h"

#include "lib/cost.h"

#include "report/load/phase_rows.h"
#include "report/load/price/pricing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const rank_keys[] = {"streams", "threads", "length", "rate_bps",
					"fq_rate_bps", "protocol", "direction", "affinity", "window",
					"mss", "nodelay", "congestion", "gso"};

int rp_rank_parse(const char *s, struct rp_rank_rule *r, struct ns_err *err)
{
	memset(r, 0, sizeof(*r));
	if (!s || !strcmp(s, RP_RANK_BEST_RULE))
		return 0;
	const char *p = s;
	while (*p) {
		size_t len = strcspn(p, ",");
		const char *eq = memchr(p, '=', len);
		if (r->n == RP_RANK_MAX_TERMS || !eq || eq == p || eq + 1 == p + len ||
		    (size_t)(eq - p) >= sizeof(r->key[0]) ||
		    (size_t)(p + len - eq - 1) >= sizeof(r->value[0]))
			return ns_err_code(err, NS_E_INPUT, "rank-by %s: '%.*s' is not KEY=VALUE "
					   "(or too many terms)", s, (int)len, p);
		char *k = r->key[r->n];
		memcpy(k, p, (size_t)(eq - p));
		for (char *c = k; *c; c++)
			*c = *c == '-' ? '_' : *c;
		memcpy(r->value[r->n], eq + 1, (size_t)(p + len - eq - 1));
		size_t i = 0;
		while (i < sizeof(rank_keys) / sizeof(rank_keys[0]) && strcmp(k, rank_keys[i]))
			i++;
		if (i == sizeof(rank_keys) / sizeof(rank_keys[0]))
			return ns_err_code(err, NS_E_INPUT, "rank-by %s: unknown key '%s' (a column "
					   "of the cases table: streams, protocol, direction, ...)",
					   s, k);
		r->n++;
		p += len + (p[len] == ',');
	}
	return 0;
}

/* The case's value of a rule key as the store's column holds it, in text. */
static void case_value(const struct rp_case *c, const char *k, char *b, size_t n)
{
	const struct { const char *k; long long v; } nums[] = {
		{"streams", c->streams}, {"threads", c->threads}, {"length", c->length},
		{"rate_bps", c->rate_bps}, {"fq_rate_bps", c->fq_rate_bps}, {"window", c->window},
		{"mss", c->mss}, {"nodelay", c->nodelay}, {"gso", c->gso},
	};
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		if (!strcmp(k, nums[i].k)) {
			snprintf(b, n, "%lld", nums[i].v);
			return;
		}
	const char *s = !strcmp(k, "protocol") ? c->protocol : !strcmp(k, "direction") ?
			c->direction : !strcmp(k, "affinity") ? c->affinity : !strcmp(k, "congestion")
			? c->congestion : NULL;
	snprintf(b, n, "%s", s ? s : "");
}

int rp_rank_matches(const struct rp_rank_rule *r, const struct rp_case *c)
{
	char b[64];
	for (size_t i = 0; r && i < r->n; i++) {
		case_value(c, r->key[i], b, sizeof(b));
		if (strcmp(b, r->value[i]) != 0)
			return 0;
	}
	return 1;
}

/* Currency order: US dollars (NULL) first, then by code. */
static int cur_cmp(const char *a, const char *b)
{
	if (!a || !strcmp(a, "USD"))
		return b && strcmp(b, "USD") ? -1 : 0;
	if (!b || !strcmp(b, "USD"))
		return 1;
	return strcmp(a, b);
}

/* A run with QUIC cases ranks each pair once per protocol, so that TCP, UDP and QUIC stand
 * side by side (the store's v_cost_ranking alike); other runs once per pair. */
static const char *const rank_protos[] = {"tcp", "udp", "quic"};

static bool has_quic(const struct rp_data *d)
{
	for (size_t c = 0; c < d->n_cases; c++)
		if (d->cases[c].protocol && !strcmp(d->cases[c].protocol, "quic"))
			return true;
	return false;
}

int rp_cost_build(const struct rp_data *d, const struct rp_rank_rule *rule,
		  struct rp_cost_row **rows, size_t *n, struct ns_err *err)
{
	*n = 0;
	size_t per = has_quic(d) ? 3 : 1;
	*rows = calloc(d->n_eps ? d->n_eps * per : 1, sizeof(**rows));
	if (!*rows)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	for (size_t i = 0; i < d->n_eps * per; i++) {
		const char *proto = per > 1 ? rank_protos[i % per] : NULL;
		struct rp_cost_row *r = &(*rows)[(*n)++];
		r->ep = i / per;
		r->best_case = -1;
		r->mbps = NAN;
		/* an "up to" type with a sustained rate measured is bought on it: its cases
		 * without one ran inside the burst window, on credit (v_cost_ranking's rule) */
		const struct rp_endpoint *e = &d->eps[r->ep];
		bool sustained_only = false;
		for (size_t c = 0; c < d->n_cases && e->adv_up_to && e->adv_baseline_gbps > 0 &&
		     e->adv_gbps > 0; c++) {
			const struct rp_case *k = &d->cases[c];
			sustained_only |= k->ep == r->ep && k->n_shaped > 0 &&
					  !isnan(rp_phases_rank_bps(k)) && rp_rank_matches(rule, k);
		}
		for (size_t c = 0; c < d->n_cases; c++) {
			const struct rp_case *k = &d->cases[c];
			/* shaped on credits: the rate after the burst is what the money buys */
			double m = rp_phases_rank_bps(k) / 1e6;
			if (proto && (!k->protocol || strcmp(k->protocol, proto)))
				continue;
			if (k->ep == r->ep && !isnan(m) && rp_rank_matches(rule, k) &&
			    (!sustained_only || k->n_shaped > 0) &&
			    (r->best_case < 0 || m > r->mbps)) {
				r->best_case = (long)c;
				r->mbps = m;
				r->sustained = k->n_shaped > 0;
				r->sender_limited = k->n_sender_limited > 0;
			}
		}
		if (proto && r->best_case < 0) { /* no case of that protocol: no row */
			(*n)--;
			continue;
		}
		r->usd_per_hour = d->eps[r->ep].usd_per_hour;
		r->currency = d->eps[r->ep].currency;
		/* the one cost formula (lib/cost.h); NAN where a price or a figure is missing */
		double bps = r->mbps * 1e6;
		r->mbps_per_usd_hour = cost_mbps_per_usd_hour(bps, r->usd_per_hour);
		r->usd_per_gbps_hour = cost_usd_per_gbps_hour(bps, r->usd_per_hour);
		r->spot_mbps_per_hour = cost_mbps_per_usd_hour(bps, d->eps[r->ep].spot_per_hour);
		r->od_mbps_per_hour = cost_mbps_per_usd_hour(bps, d->eps[r->ep].od_per_hour);
		struct cost_transfer_rule rl;
		struct cost_total t;
		const struct rp_xfer *x = &d->eps[r->ep].xfer;
		cost_total_figures(bps, d->eps[r->ep].emu_scale, r->usd_per_hour,
				   rp_xfer_rule(x, &rl) ? &rl : NULL,
				   x->relation, d->monthly_gb, &t);
		r->gb_per_hour = t.gb_per_hour;
		r->monthly_gb = t.monthly_gb;
		r->transfer_per_hour = t.transfer_per_hour;
		r->total_per_hour = t.total_per_hour;
		r->mbps_per_total_hour = t.mbps_per_total_hour;
		r->transfer_per_tb = t.transfer_per_tb;
		r->total_per_tb = t.total_per_tb;
	}
	rp_cost_rank(*rows, *n);
	rp_cost_rank_total(*rows, *n);
	return 0;
}

void rp_cost_rank_total(struct rp_cost_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		double v = rows[i].mbps_per_total_hour;
		rows[i].total_rank = 0;
		if (isnan(v))
			continue;
		int better = 0;
		for (size_t j = 0; j < n; j++) {
			double u = rows[j].mbps_per_total_hour;
			better += !isnan(u) && cur_cmp(rows[i].currency, rows[j].currency) == 0 &&
				  u > v * (1 + 1e-9);
		}
		rows[i].total_rank = better + 1;
	}
}

static const char *ordinal(int k, char *b, size_t n)
{
	static const char *const words[] = {"first", "second", "third", "fourth", "fifth",
					    "sixth", "seventh", "eighth", "ninth", "tenth"};
	if (k >= 1 && k <= 10)
		return words[k - 1];
	snprintf(b, n, "%dth", k);
	return b;
}

int rp_cost_disagree(const struct rp_data *d, const struct rp_cost_row *rows, size_t n,
		     char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const struct rp_cost_row *r = &rows[i];
		if (r->rank != 1 || r->total_rank == 1 || used + 1 >= len)
			continue;
		/* the first of this currency with transfer */
		const struct rp_cost_row *w = NULL;
		for (size_t j = 0; j < n && !w; j++)
			if (rows[j].total_rank == 1 && cur_cmp(rows[j].currency, r->currency) == 0)
				w = &rows[j];
		if (r->total_rank == 0 && !w)
			continue; /* no transfer known in this currency: nothing to compare */
		const struct rp_endpoint *e = &d->eps[r->ep];
		char o[16], why[160];
		const char *money = rp_money(r->currency);
		double per_gb = r->gb_per_hour > 0 ? r->transfer_per_hour / r->gb_per_hour : NAN;
		if (r->total_rank == 0)
			snprintf(why, sizeof(why), "is unranked with transfer (no price known for its "
				 "%s traffic)", e->xfer.relation);
		else
			snprintf(why, sizeof(why), "%s with transfer at %.4g %s/GB",
				 ordinal(r->total_rank, o, sizeof(o)), per_gb, money);
		used += (size_t)snprintf(buf + used, len - used, "%s%s %s ranks first on instances but "
					 "%s", used ? " " : "", e->xfer.relation,
					 e->instance_type ? e->instance_type : e->name, why);
		if (w && used < len) {
			const struct rp_endpoint *we = &d->eps[w->ep];
			used += (size_t)snprintf(buf + used, len - used, "; %s %s (%s) ranks first "
						 "with it", we->xfer.relation,
						 we->instance_type ? we->instance_type : we->name,
						 we->name);
		}
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, ".");
	}
	return buf[0] != '\0';
}

void rp_cost_rank(struct rp_cost_row *rows, size_t n)
{
	/* Insertion sort: stable, and n is the number of endpoint pairs. */
	for (size_t i = 1; i < n; i++) {
		struct rp_cost_row r = rows[i];
		double v = r.mbps_per_usd_hour;
		size_t j = i;
		while (j > 0) {
			double u = rows[j - 1].mbps_per_usd_hour;
			int c = isnan(v) || isnan(u) ? 0 : cur_cmp(r.currency, rows[j - 1].currency);
			int before = !isnan(v) && (isnan(u) || c < 0 || (c == 0 && v > u * (1 + 1e-9)));
			if (!before)
				break;
			rows[j] = rows[j - 1];
			j--;
		}
		rows[j] = r;
	}
	size_t first = 0; /* of the current currency */
	for (size_t i = 0; i < n; i++) {
		double v = rows[i].mbps_per_usd_hour;
		if (i > 0 && cur_cmp(rows[i].currency, rows[i - 1].currency) != 0)
			first = i;
		if (isnan(v))
			rows[i].rank = 0;
		else if (i > first && !isnan(rows[i - 1].mbps_per_usd_hour) &&
			 fabs(rows[i - 1].mbps_per_usd_hour - v) <= 1e-9 * fabs(v))
			rows[i].rank = rows[i - 1].rank;
		else
			rows[i].rank = (int)(i - first) + 1;
	}
}
