/* search_chart: see search_chart.h. */
#include "report/charts/search_chart.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool same_series(const struct rp_search_row *a, const struct rp_search_row *b)
{
	return !strcmp(a->endpoint ? a->endpoint : "", b->endpoint ? b->endpoint : "") &&
	       a->streams == b->streams && !strcmp(a->direction, b->direction);
}

static void series_title(struct rp_buf *b, const struct rp_search_row *r, const char *what)
{
	char t[256];
	snprintf(t, sizeof(t), "%s, %s, %lld stream%s%s%s", what, r->endpoint ? r->endpoint : "?",
		 r->streams, r->streams == 1 ? "" : "s", strcmp(r->direction, "forward") ? ", " : "",
		 strcmp(r->direction, "forward") ? r->direction : "");
	rp_gp_quote(b, t);
}

size_t rp_search_chart(const struct rp_search *s, const char *name, struct rp_buf *dat,
		       struct rp_buf *plot)
{
	size_t series = 0, block = 0, lines = 0;
	long long links[4];
	size_t nl = 0;
	for (size_t i = 0; i < s->n;) {
		size_t j = i;
		rp_buf_printf(dat, "# series %zu: length mrr", block);
		for (size_t g = 0; g < s->rows[i].n_goals; g++)
			rp_buf_printf(dat, " goal%zu", g);
		rp_buf_puts(dat, "\n");
		for (; j < s->n && same_series(&s->rows[i], &s->rows[j]); j++) {
			const struct rp_search_row *r = &s->rows[j];
			rp_buf_printf(dat, "%lld %.6g", r->length, r->mrr_pps);
			for (size_t g = 0; g < r->n_goals; g++) {
				if (r->goals[g].met)
					rp_buf_printf(dat, " %.6g", r->goals[g].lower_pps);
				else
					rp_buf_puts(dat, " NaN");
			}
			rp_buf_puts(dat, "\n");
		}
		rp_buf_puts(dat, "\n\n");
		const struct rp_search_row *r = &s->rows[i];
		for (size_t g = 0; g < r->n_goals; g++) {
			char gn[32];
			rp_search_goal_name(r->goals[g].loss_ratio, gn, sizeof(gn));
			rp_buf_printf(plot, "%s'%s.dat' index %zu using 1:($%zu/1e6) with linespoints "
				      "pt %zu lw 2 title ", lines++ ? ", \\\n     " : "plot ", name, block,
				      g + 3, 5 + 2 * g);
			series_title(plot, r, gn);
		}
		rp_buf_printf(plot, ", \\\n     '%s.dat' index %zu using 1:($2/1e6) with points "
			      "pt 2 title ", name, block);
		series_title(plot, r, "unpaced, received");
		lines++;
		series++;
		for (size_t k = i; k < j; k++) {
			size_t m = 0;
			while (m < nl && links[m] != s->rows[k].link_bps)
				m++;
			if (m == nl && nl < 4 && s->rows[k].link_bps > 0)
				links[nl++] = s->rows[k].link_bps;
		}
		block++;
		i = j;
	}
	for (size_t m = 0; series && m < nl; m++) {
		char r[32];
		rp_fmt_bps(r, sizeof(r), (double)links[m]);
		rp_buf_printf(plot, ", \\\n     %lld.0 / (((x + 46 > 64) ? x + 46 : 64) + 20) / 8 / 1e6 "
			      "with lines dashtype 2 lw 2 title 'wire rate, %s link'", links[m], r);
	}
	return series;
}
