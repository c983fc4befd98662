/* json_out: see json_out.h. Throughput is in bits/s here whatever unit the page shows. */
#include "report/render/json_out.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/analyze/advertised.h"
#include "lib/atomicfile.h"
#include "report/model/describe.h"
#include "report/model/fmt.h"
#include "report/load/lab_runs.h"
#include "report/load/loadlat.h"
#include "lib/jsonw.h"
#include "report/render/content_placement.h"

static void case_ref(struct jsonw *w, const struct rp_data *d, long i, struct rp_buf *lab)
{
	if (i < 0) {
		jsonw_kv_str(w, "case_key", NULL);
		jsonw_kv_str(w, "case", NULL);
		return;
	}
	rp_buf_reset(lab);
	rp_case_label(d, &d->cases[i], lab);
	jsonw_kv_str(w, "case_key", d->cases[i].case_key);
	jsonw_kv_str(w, "case", rp_buf_str(lab));
}

static void run_obj(struct jsonw *w, const struct rp_data *d)
{
	size_t ok = 0, results = 0;
	for (size_t i = 0; i < d->n_cases; i++) {
		ok += (size_t)d->cases[i].n_ok;
		results += (size_t)d->cases[i].n_results;
	}
	jsonw_obj_open(w);
	jsonw_kv_int(w, "id", d->run.id);
	jsonw_kv_str(w, "matrix", d->run.matrix_name);
	jsonw_kv_str(w, "label", d->run.label);
	jsonw_kv_str(w, "started_at", d->run.started_at);
	jsonw_kv_str(w, "finished_at", d->run.finished_at);
	jsonw_kv_str(w, "status", d->run.status);
	jsonw_kv_uint(w, "cases", d->n_cases);
	jsonw_kv_uint(w, "pairs", d->n_eps);
	jsonw_kv_uint(w, "results", results);
	jsonw_kv_uint(w, "results_ok", ok);
	jsonw_kv_double(w, "cost_usd", d->run_cost_usd);
	double scale = 1;
	size_t lab = rp_lab_pairs(d, &scale);
	if (lab) { /* only an emulated run has it: a run on real instances is as before */
		jsonw_key(w, "emulation");
		jsonw_obj_open(w);
		jsonw_kv_str(w, "lab", "netsweep lab");
		jsonw_kv_double(w, "scale", scale);
		jsonw_kv_str(w, "scale_text", rp_lab_scale(d));
		jsonw_kv_uint(w, "pairs", lab);
		jsonw_kv_str(w, "note", RP_LAB_NOTE);
		jsonw_obj_close(w);
	}
	jsonw_obj_close(w);
}

static void ranking(struct jsonw *w, const struct rp_report *r, struct rp_buf *lab)
{
	const struct rp_data *d = r->d;
	jsonw_obj_open(w);
	jsonw_kv_str(w, "rule", r->rank_rule ? r->rank_rule : RP_RANK_BEST_RULE);
	jsonw_kv_str(w, "pricing", r->pricing ? r->pricing->model : "on-demand");
	jsonw_kv_bool(w, "per_currency", r->pricing && r->pricing->per_currency);
	jsonw_kv_str(w, "note", r->pricing ? r->pricing->note : NULL);
	char dis[1024];
	jsonw_kv_str(w, "transfer_note", rp_cost_disagree(d, r->cost, r->n_cost, dis, sizeof(dis))
					  ? dis : NULL);
	jsonw_key(w, "rows");
	jsonw_arr_open(w);
	for (size_t i = 0; i < r->n_cost; i++) {
		const struct rp_cost_row *c = &r->cost[i];
		const struct rp_endpoint *e = &d->eps[c->ep];
		jsonw_obj_open(w);
		if (c->rank)
			jsonw_kv_int(w, "rank", c->rank);
		else
			jsonw_kv_str(w, "rank", NULL);
		jsonw_kv_str(w, "pair", e->name);
		jsonw_kv_str(w, "instance_type", e->instance_type);
		jsonw_kv_str(w, "region", e->region);
		jsonw_kv_str(w, "price_basis", e->price_basis);
		/* the dollar keys only in dollars; every currency's in per_hour, mbps_per_hour */
		int usd = rp_ep_usd(e);
		jsonw_kv_double(w, "usd_per_hour", usd ? c->usd_per_hour : NAN);
		case_ref(w, d, c->best_case, lab);
		jsonw_kv_double(w, "mbps", c->mbps);
		jsonw_kv_double(w, "mbps_per_usd_hour", usd ? c->mbps_per_usd_hour : NAN);
		jsonw_kv_str(w, "provider", e->provider);
		jsonw_kv_str(w, "currency", isnan(c->usd_per_hour) ? NULL : usd ? "USD" : e->currency);
		jsonw_kv_str(w, "pricing", e->pricing ? e->pricing : "on-demand");
		jsonw_kv_double(w, "per_hour", c->usd_per_hour);
		jsonw_kv_double(w, "mbps_per_hour", c->mbps_per_usd_hour);
		/* how many rank in its currency: "1 of ranked_among", never across currencies */
		size_t among = 0;
		for (size_t k = 0; k < r->n_cost && c->rank; k++)
			among += r->cost[k].rank && rp_money_same(r->cost[k].currency, c->currency);
		if (c->rank)
			jsonw_kv_uint(w, "ranked_among", among);
		else
			jsonw_kv_str(w, "ranked_among", NULL);
		/* converted from its own currency at the run's stated rate */
		jsonw_kv_str(w, "quoted_currency", e->fx_rate > 0 ? e->fx_currency : NULL);
		jsonw_kv_double(w, "fx_usd", e->fx_rate > 0 ? e->fx_rate : NAN);
		jsonw_kv_double(w, "spot_mbps_per_hour", c->spot_mbps_per_hour);
		jsonw_kv_double(w, "advertised_pct", c->best_case >= 0 ?
				rp_advertised_case(d, &d->cases[c->best_case]).pct : NAN);
		jsonw_kv_bool(w, "sender_limited", c->sender_limited);
		/* an "up to" type: its burst window (measured, or the documented range) and
		 * whether the ranked case ran inside it on credit (report/analyze/burst.h) */
		jsonw_kv_bool(w, "inside_burst", c->inside_burst);
		jsonw_kv_str(w, "burst_window_from", !c->burst_window ? NULL
			     : c->window_measured ? "measured" : "documented");
		jsonw_kv_double(w, "burst_window_s", c->window_s);
		/* with transfer (v_cost_total's figures at the ranked rate), in currency */
		jsonw_kv_str(w, "relation", e->xfer.relation[0] ? e->xfer.relation : "unknown");
		jsonw_kv_double(w, "gb_per_hour", c->gb_per_hour);
		jsonw_kv_double(w, "monthly_gb", c->monthly_gb);
		jsonw_kv_double(w, "transfer_per_hour", c->transfer_per_hour);
		jsonw_kv_double(w, "total_per_hour", c->total_per_hour);
		jsonw_kv_double(w, "mbps_per_total_hour", c->mbps_per_total_hour);
		jsonw_kv_double(w, "transfer_per_tb", c->transfer_per_tb);
		jsonw_kv_double(w, "total_per_tb", c->total_per_tb);
		if (c->total_rank)
			jsonw_kv_int(w, "total_rank", c->total_rank);
		else
			jsonw_kv_str(w, "total_rank", NULL);
		if (e->lab_scale)
			jsonw_kv_double(w, "lab_scale", e->emu_scale);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_obj_close(w);
}

static void comparison(struct jsonw *w, const struct rp_report *r, struct rp_buf *lab)
{
	const struct rp_cmp *cmp = r->cmp;
	jsonw_obj_open(w);
	jsonw_kv_double(w, "alpha", cmp->alpha);
	jsonw_kv_double(w, "min_change_pct", cmp->min_change_pct);
	jsonw_kv_uint(w, "regressions", cmp->n_regressions);
	jsonw_kv_uint(w, "improvements", cmp->n_improvements);
	jsonw_kv_uint(w, "untestable", cmp->n_untestable);
	jsonw_kv_uint(w, "new", cmp->n_new);
	jsonw_kv_uint(w, "gone", cmp->n_gone);
	jsonw_key(w, "cases");
	jsonw_arr_open(w);
	for (size_t i = 0; i < cmp->n; i++) {
		const struct rp_cmp_row *x = &cmp->rows[i];
		int tested = x->verdict != RP_UNTESTABLE && x->verdict != RP_NEW;
		jsonw_obj_open(w);
		case_ref(w, r->d, (long)x->cur, lab);
		jsonw_kv_double(w, "baseline_bps", x->base_med);
		jsonw_kv_double(w, "bps", x->cur_med);
		jsonw_kv_double(w, "change_pct", x->change_pct);
		jsonw_kv_double(w, "p", tested ? x->test.p : NAN);
		jsonw_kv_str(w, "verdict", rp_verdict_name(x->verdict));
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_key(w, "per_dollar");
	jsonw_arr_open(w);
	for (size_t k = 0; r->news && k < r->news->n_cost; k++) {
		const struct rp_cost_change *c = &r->news->cost[k];
		jsonw_obj_open(w);
		const char *cur = r->cost[c->cur].currency;
		int usd = !strcmp(rp_money_code(cur), "USD"); /* the dollar keys only in dollars */
		jsonw_kv_str(w, "pair", r->d->eps[r->cost[c->cur].ep].name);
		jsonw_kv_double(w, "baseline_mbps_per_usd_hour", usd ? c->base_mpd : NAN);
		jsonw_kv_double(w, "mbps_per_usd_hour", usd ? c->cur_mpd : NAN);
		jsonw_kv_str(w, "currency", rp_money_code(cur));
		jsonw_kv_double(w, "baseline_mbps_per_hour", c->base_mpd);
		jsonw_kv_double(w, "mbps_per_hour", c->cur_mpd);
		jsonw_kv_double(w, "change_pct", c->change_pct);
		jsonw_kv_int(w, "baseline_rank", c->base_rank);
		jsonw_kv_int(w, "rank", c->cur_rank);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_obj_close(w);
}

/* The responsiveness cases (v_responsiveness, beside v_latency_under_load): null when the
 * run has none. Medians over each case's repeats, as the page's table. */
static void responsiveness(struct jsonw *w, const struct rp_loadlat *l)
{
	if (!l || !l->rpm) {
		jsonw_null(w);
		return;
	}
	jsonw_arr_open(w);
	for (size_t i = 0; i < l->n; i++) {
		const struct rp_ll_case *c = &l->cases[i];
		if (isnan(c->v[RP_LL_RPM]) && isnan(c->v[RP_LL_RPM_IDLE]))
			continue;
		jsonw_obj_open(w);
		jsonw_kv_str(w, "pair", c->endpoint);
		jsonw_kv_str(w, "case_key", c->case_key);
		jsonw_kv_str(w, "case", c->desc);
		jsonw_kv_uint(w, "results_ok", c->n);
		jsonw_kv_double(w, "rpm", c->v[RP_LL_RPM]);
		jsonw_kv_double(w, "rpm_idle", c->v[RP_LL_RPM_IDLE]);
		jsonw_kv_double(w, "rpm_per_usd_hour", c->v[RP_LL_RPM_USD]);
		jsonw_kv_double(w, "goodput_bps", c->v[RP_LL_MBPS] * 1e6);
		jsonw_kv_double(w, "idle_p50_us", c->v[RP_LL_IDLE_P50]);
		jsonw_kv_double(w, "loaded_p50_us", c->v[RP_LL_LOADED_P50]);
		jsonw_kv_double(w, "loaded_p99_us", c->v[RP_LL_LOADED_P99]);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
}

int rp_json_write(const struct rp_report *r, const char *path, struct ns_err *err)
{
	struct jsonw w;
	struct rp_buf lab;
	jsonw_init(&w, true);
	rp_buf_init(&lab);
	jsonw_obj_open(&w);
	jsonw_kv_str(&w, "format", "netsweep-report");
	jsonw_kv_int(&w, "version", RP_JSON_VERSION);
	jsonw_kv_str(&w, "generated_at", r->generated_at);
	jsonw_kv_str(&w, "unit", r->d->unit.name);
	jsonw_key(&w, "run");
	run_obj(&w, r->d);
	jsonw_key(&w, "baseline");
	if (r->base) {
		jsonw_obj_open(&w);
		jsonw_kv_int(&w, "id", r->base->run.id);
		jsonw_kv_str(&w, "label", r->base->run.label);
		jsonw_kv_str(&w, "started_at", r->base->run.started_at);
		jsonw_obj_close(&w);
	} else {
		jsonw_null(&w);
	}
	jsonw_key(&w, "ranking");
	ranking(&w, r, &lab);
	jsonw_key(&w, "comparison");
	if (r->cmp)
		comparison(&w, r, &lab);
	else
		jsonw_null(&w);
	jsonw_key(&w, "findings");
	jsonw_arr_open(&w);
	for (size_t i = 0; i < r->findings->n; i++) {
		jsonw_obj_open(&w);
		jsonw_kv_str(&w, "kind", rp_finding_kind_name(r->findings->items[i].kind));
		jsonw_kv_str(&w, "text", r->findings->items[i].text);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	jsonw_key(&w, "placement");
	if (r->placement)
		rp_placement_json(&w, r->placement);
	else
		jsonw_null(&w);
	jsonw_key(&w, "responsiveness");
	responsiveness(&w, r->loadlat);
	jsonw_obj_close(&w);
	const char *text = jsonw_finish(&w);
	int rc = -1;
	struct atomicfile af;
	if (!text || lab.oom) {
		ns_err_code(err, NS_E_NOMEM, "out of memory");
		goto out;
	}
	if (atomicfile_open(&af, path, 0644, 0, err) < 0)
		goto out;
	fputs(text, af.f);
	fputc('\n', af.f);
	rc = atomicfile_commit(&af, err);
out:
	jsonw_free(&w);
	rp_buf_free(&lab);
	return rc;
}
