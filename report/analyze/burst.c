/* burst: see burst.h. The rule is v_burst_window's (schemas/store.sql), row for row. */
#include "report/analyze/burst.h"

#include <math.h>
#include <stdio.h>

#include "report/analyze/findings.h"
#include "report/model/describe.h"

/* The type's baseline and peak in bits/s at the pair's scale (a lab pair's are scaled). */
static double baseline_bps(const struct rp_endpoint *e)
{
	return e->adv_baseline_gbps * 1e9 * e->emu_scale;
}

void rp_burst_mark(const struct rp_data *d, struct rp_cost_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct rp_cost_row *r = &rows[i];
		const struct rp_endpoint *e = &d->eps[r->ep];
		r->burst_window = e->adv_up_to && e->adv_baseline_gbps > 0 && e->adv_gbps > 0;
		r->window_measured = r->inside_burst = false;
		r->window_s = NAN;
		if (!r->burst_window)
			continue;
		/* measured: the mean burst length over every shaped result of the pair */
		double sum = 0;
		int k = 0;
		for (size_t c = 0; c < d->n_cases; c++)
			if (d->cases[c].ep == r->ep && d->cases[c].n_shaped > 0) {
				sum += d->cases[c].burst_s * d->cases[c].n_shaped;
				k += d->cases[c].n_shaped;
			}
		if (k) {
			r->window_measured = true;
			r->window_s = sum / k;
		}
		if (r->best_case < 0 || r->sustained)
			continue;
		const struct rp_case *c = &d->cases[r->best_case];
		double ran = c->duration_s + c->omit_s;
		double window = r->window_measured ? r->window_s : RP_BURST_DOC_MAX_S;
		r->inside_burst = ran < window &&
				  r->mbps * 1e6 > baseline_bps(e) * RP_BURST_OVER_BASELINE;
	}
}

void rp_burst_note(const struct rp_data *d, const struct rp_cost_row *r, struct rp_buf *b)
{
	char t[32];
	rp_fmt_bps(t, sizeof(t), baseline_bps(&d->eps[r->ep]));
	rp_buf_printf(b, "inside its burst window: sustains %s", t);
}

/* "~12 minutes", "~40 s", "~5–60 minutes (documented)" */
static void window_text(const struct rp_cost_row *r, struct rp_buf *b)
{
	if (!r->window_measured)
		rp_buf_printf(b, "~%.0f–%.0f minutes (the range AWS documents for network credits; "
			      "this run measured no step down)", RP_BURST_DOC_MIN_S / 60,
			      RP_BURST_DOC_MAX_S / 60);
	else if (r->window_s >= 120)
		rp_buf_printf(b, "~%.0f minutes (measured: its cases stepped down after %.0f s)",
			      r->window_s / 60, r->window_s);
	else
		rp_buf_printf(b, "~%.0f s (measured: its cases stepped down after it)", r->window_s);
}

int rp_burst_findings(const struct rp_data *d, const struct rp_cost_row *rows, size_t n,
		      struct rp_findings *f)
{
	struct rp_buf b;
	rp_buf_init(&b);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct rp_cost_row *r = &rows[i];
		if (!r->inside_burst)
			continue;
		const struct rp_endpoint *e = &d->eps[r->ep];
		const struct rp_case *c = &d->cases[r->best_case];
		char base[32], peak[32], got[32];
		rp_fmt_bps(base, sizeof(base), baseline_bps(e));
		rp_fmt_bps(peak, sizeof(peak), e->adv_gbps * 1e9 * e->emu_scale);
		rp_fmt_bps(got, sizeof(got), r->mbps * 1e6);
		rp_buf_reset(&b);
		rp_buf_printf(&b, "%s ranked on %.3g s cases, inside its burst window: %s measured, "
			      "but its sustained rate is %s, up to %s for ", rp_ep_label(e),
			      c->duration_s + c->omit_s, got, base, peak);
		window_text(r, &b);
		/* a sustained figure the run did measure, in another case of the pair */
		long sus = -1;
		for (size_t k = 0; k < d->n_cases; k++)
			if (d->cases[k].ep == r->ep && d->cases[k].n_shaped > 0 &&
			    (sus < 0 || d->cases[k].sustained_bps > d->cases[sus].sustained_bps))
				sus = (long)k;
		if (sus >= 0) {
			rp_fmt_bps(got, sizeof(got), d->cases[sus].sustained_bps);
			rp_buf_printf(&b, "; this run measured it sustaining %s (", got);
			rp_case_label(d, &d->cases[sus], &b);
			rp_buf_puts(&b, ")");
		}
		rp_buf_puts(&b, ". Its per-dollar figure is credit's, not what it buys by the hour: "
			    "run its cases past the window (the matrix's until axis at sustained, or "
			    "longer durations) to rank it on its sustained rate.");
		rc = b.oom || rp_findings_add(f, RP_FIND_BURST, rp_buf_str(&b)) < 0 ? -1 : 0;
	}
	rp_buf_free(&b);
	return rc;
}
