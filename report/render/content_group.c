/* content_group: the group section's tables (content.h) — for a run of group cases (incast,
 * fan-out, the clients axis), how the clients shared the path by their number, and each
 * client by the matrix's member name — so that such a report opens on what the matrix
 * varies, without sqlite3. */
#include "report/render/content.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/model/describe.h"
#include "report/model/fmt.h"
#include "report/render/content_cells.h"

/* The clients' rates of case c (report.h's rows are in case order): their sum and the
 * slowest's; the number found. */
static size_t client_rates(const struct rp_report *r, const struct rp_case *c, double *sum,
			   double *min)
{
	size_t n = 0;
	*sum = 0;
	*min = NAN;
	for (size_t k = 0; k < r->n_clients; k++) {
		const struct rp_client_rate *x = &r->clients[k];
		if (strcmp(x->case_key, c->case_key) || isnan(x->bps))
			continue;
		*sum += x->bps;
		*min = isnan(*min) || x->bps < *min ? x->bps : *min;
		n++;
	}
	return n;
}

int rp_content_group_tables(const struct rp_report *r, struct rp_section *s)
{
	const struct rp_data *d = r->d;
	struct tb b = {.s = s};
	struct rp_buf lab;
	rp_buf_init(&lab);
	static const char *const fcols[] = {"Clients", "Case", "Total (median)", "Jain's index",
					    "Slowest client's share", "Slowest / fair share",
					    "Repeats ok"};
	tb_table(&b, "fairness-table", "By number of clients", NULL, fcols, 7);
	for (size_t i = 0; i < d->n_cases; i++) {
		const struct rp_case *c = &d->cases[i];
		if (c->clients <= 0)
			continue;
		double sum, min;
		client_rates(r, c, &sum, &min);
		rp_buf_reset(&lab);
		rp_case_label(d, c, &lab);
		tb_row(&b, c->n_starved ? "regression" : NULL, "data-case-key", c->case_key);
		tb_cell_int(&b, (int)c->clients);
		tb_cell(&b, rp_buf_str(&lab));
		tb_cell_bps(&b, c->fig[RP_RCV_BPS].med, d->unit);
		tb_cell_fmt(&b, "%.3f", c->fig[RP_JAIN].med);
		tb_cell_fmt(&b, "%.1f %%", sum > 0 ? 100 * min / sum : NAN);
		tb_cell_fmt(&b, "%.2f", c->fig[RP_MIN_FAIR].med);
		tb_cell_int(&b, c->n_ok);
	}
	static const char *const ccols[] = {"Clients", "Client", "Receiver (mean)", "Share",
					    "Of fair share"};
	tb_table(&b, "clients-table", "Each client", NULL, ccols, 5);
	for (size_t i = 0; i < d->n_cases; i++) {
		const struct rp_case *c = &d->cases[i];
		double sum, min;
		size_t n;
		if (c->clients <= 0 || !(n = client_rates(r, c, &sum, &min)))
			continue;
		for (size_t k = 0; k < r->n_clients; k++) {
			const struct rp_client_rate *x = &r->clients[k];
			if (strcmp(x->case_key, c->case_key))
				continue;
			tb_row(&b, NULL, "data-case-key", c->case_key);
			tb_cell_int(&b, (int)c->clients);
			tb_cell(&b, x->name);
			tb_cell_bps(&b, x->bps, d->unit);
			tb_cell_fmt(&b, "%.1f %%", sum > 0 ? 100 * x->bps / sum : NAN);
			tb_cell_fmt(&b, "%.2f", sum > 0 ? x->bps * (double)n / sum : NAN);
		}
	}
	b.oom |= lab.oom;
	rp_buf_free(&lab);
	return b.oom ? -1 : 0;
}
