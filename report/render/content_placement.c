/* content_placement: see content_placement.h. */
#include "report/render/content_placement.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/jsonw.h"
#include "report/model/fmt.h"
#include "report/render/content.h"
#include "report/render/content_cells.h"

/* content_cells' table builder, and the page's throughput unit */
struct pb {
	struct tb tb;
	struct rp_unit u;
};

static const char *const heat_cls[] = {"num heat0", "num heat1", "num heat2", "num heat3",
				       "num heat4"};

static void para(struct pb *b, enum rp_para_style style, const char *id, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void para(struct pb *b, enum rp_para_style style, const char *id, const char *fmt, ...)
{
	struct rp_section *s = b->tb.s;
	struct rp_para *np = realloc(s->paras, (s->n_paras + 1) * sizeof(*np));
	char *t = NULL;
	va_list ap;
	if (!np) {
		b->tb.oom = 1;
		return;
	}
	s->paras = np;
	va_start(ap, fmt);
	if (vasprintf(&t, fmt, ap) < 0)
		t = NULL;
	va_end(ap);
	if (!t) {
		b->tb.oom = 1;
		return;
	}
	np[s->n_paras++] = (struct rp_para){.style = style, .id = id, .text = t};
}

static void table(struct pb *b, const char *id, const char *heading, const char *note,
		  char **cols, size_t n)
{
	tb_table(&b->tb, id, heading, note, (const char *const *)cols, n);
}

static void row(struct pb *b)
{
	tb_row(&b->tb, NULL, NULL, NULL);
}

/* The next cell of the current row: text (NULL = "–"), flags, value (NAN = none), class. */
static void cell(struct pb *b, const char *text, unsigned flags, double v, const char *cls)
{
	struct rp_cell *c = tb_cell_v(&b->tb, text, flags, v);
	if (c)
		c->cls = cls;
}

static void cell_bps(struct pb *b, double v, const char *cls)
{
	char t[32];
	rp_fmt_in(t, sizeof(t), v, b->u);
	cell(b, isnan(v) ? NULL : t, RP_CELL_NUM, v, cls);
}

static void cell_num(struct pb *b, const char *fmt, double v, const char *cls)
{
	char t[48];
	snprintf(t, sizeof(t), fmt, v);
	cell(b, isnan(v) ? NULL : t, RP_CELL_NUM, v, cls);
}

/* heat0 .. heat4 by v's place between lo and hi (higher is better unless lower_better). */
static const char *heat(double v, double lo, double hi, bool lower_better)
{
	if (isnan(v) || isnan(lo) || isnan(hi))
		return NULL;
	double f = hi > lo ? (v - lo) / (hi - lo) : 1;
	if (lower_better)
		f = 1 - f;
	int k = (int)(f * 5);
	return heat_cls[k < 0 ? 0 : k > 4 ? 4 : k];
}

enum fig { FIG_BPS, FIG_P50, FIG_P99, FIG_LOSS };

static double fig_of(const struct rp_mesh_cell *c, enum fig f)
{
	return f == FIG_BPS ? c->bps : f == FIG_P50 ? c->p50_us : f == FIG_P99 ? c->p99_us
										: c->loss_pct;
}

static void range_of(const struct rp_placement *p, enum fig f, double *lo, double *hi)
{
	*lo = *hi = NAN;
	for (size_t i = 0; i < p->n_cells; i++) {
		double v = fig_of(&p->cells[i], f);
		if (isnan(v))
			continue;
		if (isnan(*lo) || v < *lo)
			*lo = v;
		if (isnan(*hi) || v > *hi)
			*hi = v;
	}
}

/* A host x host map of one figure: rows send, columns receive. */
static void host_map(struct pb *b, const struct rp_placement *p, enum fig f, const char *id,
		     const char *heading)
{
	double lo, hi;
	range_of(p, f, &lo, &hi);
	if (isnan(lo))
		return;
	char **cols = calloc(p->n_hosts + 1, sizeof(*cols));
	if (!cols) {
		b->tb.oom = 1;
		return;
	}
	cols[0] = "From \\ to";
	for (size_t i = 0; i < p->n_hosts; i++)
		cols[i + 1] = p->hosts[i];
	table(b, id, heading, f == FIG_BPS ? "Median goodput from the row's host to the "
	      "column's; darker is faster." : f == FIG_LOSS ? "Lost datagrams, % (UDP cases); "
	      "darker is less." : "Round trip, µs; darker is quicker (steps on a log scale).",
	      cols, p->n_hosts + 1);
	free(cols);
	for (size_t i = 0; i < p->n_hosts; i++) {
		row(b);
		cell(b, p->hosts[i], RP_CELL_ROWHEAD, NAN, NULL);
		for (size_t j = 0; j < p->n_hosts; j++) {
			const struct rp_mesh_cell *c = rp_placement_cell(p, p->hosts[i], p->hosts[j]);
			double v = c ? fig_of(c, f) : NAN;
			/* round trips on a log scale: one slow tail must not flatten the rest */
			const char *cls = f == FIG_P50 || f == FIG_P99
						  ? heat(log(v), log(lo), log(hi), true)
						  : heat(v, lo, hi, f != FIG_BPS);
			if (f == FIG_BPS)
				cell_bps(b, v, cls);
			else
				cell_num(b, f == FIG_LOSS ? "%.3g" : "%.0f", v, cls);
		}
	}
}

static void zone_map(struct pb *b, const struct rp_placement *p)
{
	if (p->n_zones < 2)
		return;
	double lo = NAN, hi = NAN;
	for (size_t i = 0; i < p->n_zcells; i++) {
		double v = p->zcells[i].bps;
		if (!isnan(v) && (isnan(lo) || v < lo))
			lo = v;
		if (!isnan(v) && (isnan(hi) || v > hi))
			hi = v;
	}
	char **cols = calloc(p->n_zones + 1, sizeof(*cols));
	if (!cols) {
		b->tb.oom = 1;
		return;
	}
	cols[0] = "From \\ to zone";
	for (size_t i = 0; i < p->n_zones; i++)
		cols[i + 1] = p->zones[i];
	table(b, "heatmap-zones", "Zone x zone: goodput", "The mean of the pairs' median goodput "
	      "from the row's zone to the column's, the slowest pair's after it, then their round "
	      "trip p50 / p99 in µs.", cols, p->n_zones + 1);
	free(cols);
	for (size_t i = 0; i < p->n_zones; i++) {
		row(b);
		cell(b, p->zones[i], RP_CELL_ROWHEAD, NAN, NULL);
		for (size_t j = 0; j < p->n_zones; j++) {
			const struct rp_zone_cell *z = rp_placement_zcell(p, p->zones[i], p->zones[j]);
			char t[160], mean[32], low[32];
			if (!z || isnan(z->bps)) {
				cell(b, NULL, RP_CELL_NUM, NAN, NULL);
				continue;
			}
			rp_fmt_in(mean, sizeof(mean), z->bps, b->u);
			rp_fmt_in(low, sizeof(low), z->min_bps, b->u);
			int o = snprintf(t, sizeof(t), "%s (slowest %s)", mean, low);
			if (!isnan(z->p50_us) && o > 0 && (size_t)o < sizeof(t))
				snprintf(t + o, sizeof(t) - (size_t)o, "; RTT %.0f / %.0f µs", z->p50_us,
					 z->p99_us);
			cell(b, t, RP_CELL_NUM, z->bps, heat(z->bps, lo, hi, false));
		}
	}
}

/* One row per link: the maps' figures for screen readers and copy-paste. */
static void links(struct pb *b, const struct rp_placement *p)
{
	char *cols[] = {"From", "To", "From zone", "To zone", "Goodput (median)", "RTT p50 (µs)",
			"RTT p99 (µs)", "Loss %", "Results ok"};
	table(b, "mesh-links", "Every link", "The heatmaps' figures, one row per link.", cols, 9);
	for (size_t i = 0; i < p->n_cells; i++) {
		const struct rp_mesh_cell *c = &p->cells[i];
		row(b);
		cell(b, c->from, 0, NAN, NULL);
		cell(b, c->to, 0, NAN, NULL);
		cell(b, c->from_zone, 0, NAN, NULL);
		cell(b, c->to_zone, 0, NAN, NULL);
		cell_bps(b, c->bps, NULL);
		cell_num(b, "%.0f", c->p50_us, NULL);
		cell_num(b, "%.0f", c->p99_us, NULL);
		cell_num(b, "%.3g", c->loss_pct, NULL);
		cell_num(b, "%.0f", (double)c->results_ok, NULL);
	}
}

static void findings(struct pb *b, const struct rp_placement *p)
{
	const struct rp_mesh_cell *s = p->slowest;
	char x[32], y[32];
	if (s && p->n_hosts >= 2) {
		rp_fmt_in(x, sizeof(x), s->bps, b->u);
		if (s->from_zone && s->to_zone)
			para(b, RP_PARA_LEAD, "slowest-link", "The slowest link is %s → %s: %s (zone "
			     "%s to %s).", s->from, s->to, x, s->from_zone, s->to_zone);
		else
			para(b, RP_PARA_LEAD, "slowest-link", "The slowest link is %s → %s: %s.",
			     s->from, s->to, x);
	}
	for (size_t i = 0; i < p->n_asym && i < 5; i++) {
		const struct rp_asym *a = &p->asym[i];
		rp_fmt_in(x, sizeof(x), a->slow->bps, b->u);
		rp_fmt_in(y, sizeof(y), a->fast->bps, b->u);
		para(b, RP_PARA_WARN, i == 0 ? "asymmetry" : NULL, "Asymmetric: %s → %s carries %s, "
		     "%s → %s %s (%.1f times as much).", a->slow->from, a->slow->to, x,
		     a->fast->from, a->fast->to, y, a->ratio);
	}
	if (p->n_asym > 5)
		para(b, RP_PARA_NOTE, NULL, "%zu more links differ from their way back by %.1f "
		     "times or more.", p->n_asym - 5, RP_ASYM_RATIO);
}

/* "c5n.large varied 31 % night to night, m5.large 4 %", then the least and most steady pair. */
static void steadiness(struct pb *b, const struct rp_placement *p)
{
	if (p->n_types) {
		char *t = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&t, &len);
		if (!f) {
			b->tb.oom = 1;
			return;
		}
		for (size_t i = 0; i < p->n_types && i < 6; i++)
			fprintf(f, i == 0 ? "%s varied %.0f %% night to night" : ", %s %.0f %%",
				p->types[i].name, p->types[i].cv_pct);
		fclose(f);
		para(b, RP_PARA_LEAD, "variability", "%s (coefficient of variation of the nightly "
		     "medians, over %lld night%s).", t ? t : "", p->types[0].nights,
		     p->types[0].nights == 1 ? "" : "s");
		free(t);
	}
	const struct rp_var_row *worst = p->least, *best = NULL;
	for (size_t i = 0; i < p->n_pairs; i++) {
		const struct rp_var_row *r = &p->pairs[i];
		if (!best || r->cv_pct < best->cv_pct)
			best = r;
	}
	if (worst) {
		char range[80], w[32];
		rp_fmt_range(range, sizeof(range), worst->p5_bps, worst->p95_bps, b->u);
		rp_fmt_in(w, sizeof(w), worst->worst_bps, b->u);
		para(b, RP_PARA_LEAD, "least-steady", "The least steady pair: %s varied %.0f %% "
		     "night to night (p5–p95 of its nightly medians %s over %lld nights; worst "
		     "night %s at %s); the steadiest: %s, %.0f %%.", worst->name, worst->cv_pct,
		     range, worst->nights, worst->worst_night ? worst->worst_night : "?", w, best->name,
		     best->cv_pct);
	}
}

/* The least steady pair's case by UTC hour of day. */
static void hours_table(struct pb *b, const struct rp_placement *p)
{
	if (!p->n_hours)
		return;
	char *cols[] = {"Hour (UTC)", "Nights", "Median (mean of the nights)", "Worst night"};
	table(b, "by-hour", "The least steady pair by hour of day", "Its nights by the UTC hour "
	      "the case started: the mean of their medians and the lowest.", cols, 4);
	for (size_t i = 0; i < p->n_hours; i++) {
		const struct rp_hour_row *h = &p->hours[i];
		char t[16];
		snprintf(t, sizeof(t), "%02d:00", h->hour);
		row(b);
		cell(b, t, 0, NAN, NULL);
		cell_num(b, "%.0f", (double)h->nights, NULL);
		cell_bps(b, h->mean_bps, NULL);
		cell_bps(b, h->worst_bps, NULL);
	}
}

static void var_table(struct pb *b, const struct rp_placement *p)
{
	if (p->n_pairs) {
		char *cols[] = {"Rank", "Pair", "Case", "Instance type", "Nights", "Median",
				"p5–p95", "Variation %", "Worst night"};
		table(b, "consistency", "Consistency ranking", "Per case, the pairs by how much "
		      "their nightly medians varied (coefficient of variation), the steadiest "
		      "first; beside the per-dollar ranking.", cols, 9);
		for (size_t i = 0; i < p->n_pairs; i++) {
			const struct rp_var_row *r = &p->pairs[i];
			char range[80];
			rp_fmt_range(range, sizeof(range), r->p5_bps, r->p95_bps, b->u);
			row(b);
			cell_num(b, "%.0f", (double)r->rank, NULL);
			cell(b, r->name, 0, NAN, NULL);
			cell(b, r->case_key, RP_CELL_CODE, NAN, NULL);
			cell(b, r->instance_type, 0, NAN, NULL);
			cell_num(b, "%.0f", (double)r->nights, NULL);
			cell_bps(b, r->median_bps, NULL);
			cell(b, range, RP_CELL_NUM, NAN, NULL);
			cell_num(b, "%.1f", r->cv_pct, NULL);
			cell(b, r->worst_night, 0, NAN, NULL);
		}
	}
	if (p->n_types) {
		char *cols[] = {"Instance type", "Nights", "Instances", "Median", "p5–p95",
				"Variation %"};
		table(b, "itype-variability", "Instance types night to night", "Every nightly "
		      "median of every pair of the type, per case; instances are the distinct "
		      "hosts at either end.", cols, 6);
		for (size_t i = 0; i < p->n_types; i++) {
			const struct rp_var_row *r = &p->types[i];
			char range[80];
			rp_fmt_range(range, sizeof(range), r->p5_bps, r->p95_bps, b->u);
			row(b);
			cell(b, r->name, 0, NAN, NULL);
			cell_num(b, "%.0f", (double)r->nights, NULL);
			cell_num(b, "%.0f", (double)r->instances, NULL);
			cell_bps(b, r->median_bps, NULL);
			cell(b, range, RP_CELL_NUM, NAN, NULL);
			cell_num(b, "%.1f", r->cv_pct, NULL);
		}
	}
}

/* A map of one link says nothing a results row does not. */
static bool maps(const struct rp_placement *p)
{
	return p->n_cells >= 2 && p->n_hosts >= 2;
}

bool rp_placement_any(const struct rp_placement *p)
{
	return maps(p) || p->n_pairs || p->n_types;
}

int rp_content_placement(const struct rp_placement *p, struct rp_unit u, struct rp_section *s)
{
	struct pb b = {.tb = {.s = s}, .u = u};
	if (maps(p)) {
		findings(&b, p);
		host_map(&b, p, FIG_BPS, "heatmap-goodput", "Host x host: goodput");
		host_map(&b, p, FIG_P50, "heatmap-rtt-p50", "Host x host: round trip p50");
		host_map(&b, p, FIG_P99, "heatmap-rtt-p99", "Host x host: round trip p99");
		host_map(&b, p, FIG_LOSS, "heatmap-loss", "Host x host: loss");
		zone_map(&b, p);
		links(&b, p);
	}
	steadiness(&b, p);
	var_table(&b, p);
	hours_table(&b, p);
	return b.tb.oom ? -1 : 0;
}

static void var_json(struct jsonw *w, const struct rp_var_row *r, bool pair)
{
	jsonw_obj_open(w);
	jsonw_kv_str(w, pair ? "pair" : "instance_type", r->name);
	if (pair) {
		jsonw_kv_str(w, "case_key", r->case_key);
		jsonw_kv_str(w, "instance_type", r->instance_type);
		jsonw_kv_int(w, "consistency_rank", r->rank);
		jsonw_kv_str(w, "worst_night", r->worst_night);
	} else {
		jsonw_kv_int(w, "instances", r->instances);
	}
	jsonw_kv_int(w, "nights", r->nights);
	jsonw_kv_double(w, "median_bps", r->median_bps);
	jsonw_kv_double(w, "p5_bps", r->p5_bps);
	jsonw_kv_double(w, "p95_bps", r->p95_bps);
	jsonw_kv_double(w, "cv_percent", r->cv_pct);
	jsonw_kv_double(w, "worst_bps", r->worst_bps);
	jsonw_obj_close(w);
}

void rp_placement_json(struct jsonw *w, const struct rp_placement *p)
{
	if (!rp_placement_any(p)) {
		jsonw_null(w);
		return;
	}
	jsonw_obj_open(w);
	jsonw_key(w, "links");
	jsonw_arr_open(w);
	for (size_t i = 0; maps(p) && i < p->n_cells; i++) {
		const struct rp_mesh_cell *c = &p->cells[i];
		jsonw_obj_open(w);
		jsonw_kv_str(w, "pair", c->endpoint);
		jsonw_kv_str(w, "from", c->from);
		jsonw_kv_str(w, "to", c->to);
		jsonw_kv_str(w, "from_zone", c->from_zone);
		jsonw_kv_str(w, "to_zone", c->to_zone);
		jsonw_kv_int(w, "results_ok", c->results_ok);
		jsonw_kv_double(w, "goodput_bps", c->bps);
		jsonw_kv_double(w, "rtt_p50_us", c->p50_us);
		jsonw_kv_double(w, "rtt_p99_us", c->p99_us);
		jsonw_kv_double(w, "loss_percent", c->loss_pct);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_kv_str(w, "slowest", maps(p) && p->slowest ? p->slowest->endpoint : NULL);
	jsonw_key(w, "asymmetric");
	jsonw_arr_open(w);
	for (size_t i = 0; maps(p) && i < p->n_asym; i++) {
		jsonw_obj_open(w);
		jsonw_kv_str(w, "slow", p->asym[i].slow->endpoint);
		jsonw_kv_str(w, "fast", p->asym[i].fast->endpoint);
		jsonw_kv_double(w, "ratio", p->asym[i].ratio);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_key(w, "pairs");
	jsonw_arr_open(w);
	for (size_t i = 0; i < p->n_pairs; i++)
		var_json(w, &p->pairs[i], true);
	jsonw_arr_close(w);
	jsonw_key(w, "instance_types");
	jsonw_arr_open(w);
	for (size_t i = 0; i < p->n_types; i++)
		var_json(w, &p->types[i], false);
	jsonw_arr_close(w);
	jsonw_obj_close(w);
}
