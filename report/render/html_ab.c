/* html_ab: the "A/B between pairs" section (see html_sections.h). */
#include <math.h>
#include <stdio.h>

#include "report/model/describe.h"
#include "report/model/fmt.h"
#include "report/render/hdoc.h"
#include "report/render/html_sections.h"

void rp_html_ab(const struct rp_report *r, const struct rp_section *sec, xmlNodePtr main)
{
	const struct rp_ab *ab = r->ab;
	xmlNodePtr s = hd_open(main, sec);
	char b[512];
	static const char *const cols[] = {"Differs in", "A", "B", "Case", "A (median)",
					   "B (median)", "Difference", "CI", "p (Welch)", NULL};
	xmlNodePtr tb = hd_el(hd_scroll_table(s, "ab-table", cols), "tbody", NULL);
	struct rp_buf lab;
	rp_buf_init(&lab);
	for (size_t i = 0; i < ab->n; i++) {
		const struct rp_ab_row *w = &ab->rows[i];
		if (w->rr)
			continue;
		xmlNodePtr tr = hd_el(tb, "tr", NULL);
		hd_attr(tr, "data-a", r->d->eps[w->a].name);
		hd_attr(tr, "data-b", r->d->eps[w->b].name);
		if (w->p < ab->alpha)
			hd_attr(tr, "class", "significant");
		hd_el(tr, "td", w->attr);
		snprintf(b, sizeof(b), "%s (%s)", w->va, r->d->eps[w->a].name);
		hd_el(tr, "td", b);
		snprintf(b, sizeof(b), "%s (%s)", w->vb, r->d->eps[w->b].name);
		hd_el(tr, "td", b);
		rp_buf_reset(&lab);
		rp_case_label_short(r->d, &r->d->cases[w->ca], &lab);
		hd_el(tr, "td", rp_buf_str(&lab));
		char x[32];
		rp_fmt_in(x, sizeof(x), w->med_a, r->d->unit);
		hd_td_num(tr, x, w->med_a);
		rp_fmt_in(x, sizeof(x), w->med_b, r->d->unit);
		hd_td_num(tr, x, w->med_b);
		hd_td_fmt(tr, "%+.1f %%", w->diff_pct);
		snprintf(b, sizeof(b), "%+.1f to %+.1f %%", w->ci_lo, w->ci_hi);
		hd_el_class(tr, "td", "num", isnan(w->ci_lo) ? "–" : b);
		hd_td_fmt(tr, "%.3g", w->p);
	}
	rp_buf_free(&lab);
	hd_close(s, sec);
}
