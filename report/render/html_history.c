/* html_history: the "History" section (see html_sections.h): each case's median over the
 * matrix's last runs, run names as columns, and the step changes found, marked where the
 * new level starts. */
#include <math.h>
#include <stdio.h>

#include "report/model/describe.h"
#include "report/model/fmt.h"
#include "report/render/hdoc.h"
#include "report/render/html_sections.h"
#include "lib/cli.h"

#define MAX_ROWS 60   /* cases with a step first, then in the run's order */

static void row(const struct rp_report *r, xmlNodePtr tb, size_t k)
{
	const struct rp_history *h = r->history;
	const struct rp_case *c = &r->d->cases[k];
	xmlNodePtr tr = hd_el(tb, "tr", NULL);
	hd_attr(tr, "data-case-key", c->case_key ? c->case_key : "");
	struct rp_buf lab;
	rp_buf_init(&lab);
	rp_case_label(r->d, c, &lab);
	hd_el_class(tr, "td", "label", rp_buf_str(&lab));
	rp_buf_free(&lab);
	for (size_t j = 0; j < h->t.n_runs; j++) {
		double v = h->t.vals[k * h->t.n_runs + j];
		char b[48];
		rp_fmt_in(b, sizeof(b), v, r->d->unit);
		xmlNodePtr td = hd_td_num(tr, b, v);
		const struct rp_history_step *s = rp_history_step_at(h, k, j);
		if (s) {
			char t[160];
			snprintf(t, sizeof(t), "step %+.1f %% from here (p = %.3g)", s->s.change_pct,
				 s->s.p);
			hd_attr(td, "class", "num step");
			hd_attr(td, "title", t);
			hd_attr(td, "data-step", "1");
			hd_text(td, s->s.change_pct < 0 ? " ▼" : " ▲");
		}
	}
}

void rp_html_history(const struct rp_report *r, const struct rp_section *sec, xmlNodePtr main)
{
	const struct rp_history *h = r->history;
	xmlNodePtr s = hd_open(main, sec);
	char b[640];
	const char *cols[2 + 64] = {"Case"};
	char names[64][64];
	size_t nc = 1;
	for (size_t j = 0; j < h->t.n_runs && j < 64; j++) {
		rp_history_run_name(h, j, names[j], sizeof(names[j]));
		cols[nc++] = names[j];
	}
	cols[nc] = NULL;
	xmlNodePtr t = hd_scroll_table(s, "history-table", cols);
	xmlNodePtr tb = hd_el(t, "tbody", NULL);
	size_t shown = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < r->d->n_cases && shown < MAX_ROWS; k++)
			if (rp_history_has_step(h, k) == !pass) {
				row(r, tb, k);
				shown++;
			}
	if (shown < r->d->n_cases) {
		snprintf(b, sizeof(b), "%zu more cases are not shown.", r->d->n_cases - shown);
		hd_el_class(s, "p", "note", b);
	}
	hd_close(s, sec);
}
