/* site: `netsweep site` as a library call — a static folder made from one database that can
 * be copied as is to any web server, GitHub Pages or a bucket, and read from file:// too:
 * every night's full report (report/pipeline.c, unchanged) at nights/SLUG/, one page per
 * endpoint pair with its trend over all nights at pairs/SLUG/, index.html (the latest night's
 * headline and regressions first, then every night, newest first) and an Atom feed,
 * feed.xml. Addresses are stable: a rebuild renders only the nights it has no summary of
 * (site_night.h) and rewrites the index, the pair pages and the feed; it renames and removes
 * nothing. Links are relative, and nothing is loaded from elsewhere. Prints nothing. */
#ifndef RP_SITE_H
#define RP_SITE_H

#include <stddef.h>

#include "lib/err.h"

struct rp_site_cfg {
	const char *db, *outdir;
	const char *matrix;     /* only this matrix's runs; NULL = every run */
	const char *title;      /* NULL: from the matrix */
	const char *base_url;   /* where the folder is published, for the feed's and the cards'
				   absolute addresses; NULL = relative ones only */
	double gnuplot_timeout; /* per chart */
	int rerender;           /* render every night's report again (its address kept) */
	double monthly_gb;      /* --monthly-transfer: the nights' transfer tiers at this volume;
				   0 = each night's matrix's, else its rates for 730 hours */
};

struct rp_site_stats {
	size_t nights, rendered, pairs;
	size_t repaired;           /* of rendered: nights whose night.xml no parser read */
	double render_s, total_s;  /* rendering the new nights; the whole build */
};

/* Defaults; db from $NETSWEEP_DB when set. */
void rp_site_cfg_init(struct rp_site_cfg *cfg);
/* NS_E_USAGE: no database, no folder, a base URL that is not http(s). */
int rp_site_cfg_check(const struct rp_site_cfg *cfg, struct ns_err *err);
/* Builds or updates the site; a night whose night.xml is damaged is rendered again (counted in
 * st->repaired). Errors: NS_E_USAGE (no finished run), NS_E_INPUT (the database), NS_E_IO (the
 * folder or a file), NS_E_NOMEM. */
int rp_site_build(const struct rp_site_cfg *cfg, struct rp_site_stats *st, struct ns_err *err);

#endif
