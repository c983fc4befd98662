/* advertised: see advertised.h. */
#include "report/analyze/advertised.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/model/describe.h"
#include "report/load/phase_rows.h"

struct rp_adv rp_advertised_case(const struct rp_data *d, const struct rp_case *c)
{
	struct rp_adv a = {.pct = NAN, .adv_bps = NAN};
	const struct rp_endpoint *e = &d->eps[c->ep];
	double rate = c->n_shaped > 0 ? c->sustained_bps : c->fig[RP_RCV_BPS].med;
	a.sustained = c->n_shaped > 0;
	/* an "up to" type sustains its baseline: held to it once the burst was over */
	if (e->adv_up_to && e->adv_baseline_gbps > 0 && a.sustained) {
		a.adv_bps = e->adv_baseline_gbps * 1e9 * e->emu_scale;
		a.baseline = true;
	} else if (e->adv_gbps > 0) {
		a.adv_bps = e->adv_gbps * 1e9 * e->emu_scale;
	}
	if (!isnan(a.adv_bps) && !isnan(rate) && a.adv_bps > 0)
		a.pct = 100.0 * rate / a.adv_bps;
	return a;
}

void rp_advertised_text(const struct rp_adv *a, struct rp_buf *b)
{
	if (isnan(a->pct)) {
		rp_buf_puts(b, "–");
		return;
	}
	rp_buf_printf(b, "%.0f %% of %.4g Gbit/s%s%s", a->pct, a->adv_bps / 1e9,
		      a->baseline ? " baseline" : "", a->sustained ? " (sustained)" : "");
}

int rp_advertised_findings(const struct rp_data *d, struct rp_findings *f)
{
	struct rp_buf b, lab;
	rp_buf_init(&b);
	rp_buf_init(&lab);
	int rc = 0;
	for (size_t i = 0; i < d->n_eps && rc == 0; i++) {
		const struct rp_endpoint *e = &d->eps[i];
		long best = -1;
		struct rp_adv ba = {.pct = NAN};
		for (size_t k = 0; k < d->n_cases; k++) {
			if (d->cases[k].ep != i)
				continue;
			struct rp_adv a = rp_advertised_case(d, &d->cases[k]);
			if (!isnan(a.pct) && (best < 0 || a.pct > ba.pct)) {
				best = (long)k;
				ba = a;
			}
		}
		if (best < 0 || ba.pct >= RP_ADVERTISED_SHORT_PCT)
			continue;
		rp_buf_reset(&b);
		rp_buf_reset(&lab);
		rp_case_label(d, &d->cases[best], &lab);
		rp_buf_printf(&b, "%s delivers %.0f %% of the %.4g Gbit/s%s advertised for %s%s at "
			      "best (%s): under %.0f %%.", rp_ep_label(e), ba.pct, ba.adv_bps / 1e9,
			      ba.baseline ? " baseline" : "", e->instance_type ? e->instance_type
			      : "its type", e->emu_scale != 1 ? " (times the lab's scale)" : "",
			      rp_buf_str(&lab), RP_ADVERTISED_SHORT_PCT);
		if (e->adv_up_to && !ba.baseline)
			rp_buf_puts(&b, " It is an \"up to\" type and no case ran past its burst: held "
				    "to its peak.");
		rc = b.oom || rp_findings_add(f, RP_FIND_ADVERTISED, rp_buf_str(&b)) < 0 ? -1 : 0;
	}
	rp_buf_free(&b);
	rp_buf_free(&lab);
	return rc;
}
