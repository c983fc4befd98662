/* site_band: a pair page's band chart — how steady the pair was over the nights: the p5-p95
 * band of its nightly medians (nearest rank), their median as a line, each night's median as
 * a point (the pair's series.dat, column 2), and the caption in words ("varied 31 % night to
 * night": the coefficient of variation, as the store's v_pair_variability has it). Drawn with
 * the page's other charts in site_pages' one gnuplot batch. */
#ifndef RP_SITE_BAND_H
#define RP_SITE_BAND_H

#include "report/site/site_charts.h"

/* Appends the band chart of p (at least two nights with a median) to out and its drawing to
 * jobs (*n; room for one more); fewer nights: nothing. NS_E_IO, NS_E_NOMEM. */
int site_band_pair(const struct site_ctx *s, const struct site_series *p,
		   struct site_charts *out, struct cg_job *jobs, size_t *n, struct ns_err *err);

#endif
