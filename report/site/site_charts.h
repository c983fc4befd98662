/* site_charts: the site's gnuplot charts over the nights, written as the report's are
 * (report/charts/charts_gp.h: NAME.dat, NAME.gp that the user may restyle, NAME.svg) — a
 * pair's throughput, price (when it changed) and per-dollar history, and every pair's per
 * dollar on the index — plus card.png, the per-dollar chart at 1200 x 630 for the page's
 * Open Graph card. */
#ifndef RP_SITE_CHARTS_H
#define RP_SITE_CHARTS_H

#include "report/charts/charts.h"
#include "report/site/site_pages.h"

struct site_charts {
	struct rp_charts c;    /* in the page's order, the per-dollar chart first */
	int card;              /* card.png drawn */
};

/* Into dir (the pair's folder). NS_E_IO, NS_E_NOMEM. */
int site_charts_pair(const struct site_ctx *s, const struct site_series *p, const char *dir,
		     struct site_charts *out, struct ns_err *err);
/* Into dir (the site's root): every pair's per dollar over the nights. */
int site_charts_index(const struct site_ctx *s, const char *dir, struct site_charts *out,
		      struct ns_err *err);

#endif
