/* site_night: what `netsweep site` keeps of one night once its report is written — the
 * headline, the regressions against the night before, each pair's ranked figures — in the
 * night's folder as night.xml. The index, the pair pages and the feed are made from these
 * summaries alone, so a rebuild reads one small file per night instead of the night's rows,
 * and a night's summary (like its page) stays whatever later happens to its raw data. */
#ifndef RP_SITE_NIGHT_H
#define RP_SITE_NIGHT_H

#include <stddef.h>

#include "lib/err.h"
#include "report/load/rundb.h"
#include "report/pipeline.h"

struct site_pair {
	char *name, *itype, *region;
	double usd_per_hour, mbps, mpd;  /* NAN = unknown; mpd = Mbit/s per $/hour; both in
					    currency (the names are the old ones) */
	char *currency;                  /* of the price; NULL = USD (a night.xml of before) */
	char *fx_currency;               /* converted from it at fx_usd US dollars each; NULL = */
	double fx_usd;                   /* not converted */
	int rank;                        /* 0 = unranked; ranked among its currency's pairs */
	int inside_burst;                /* an "up to" type ranked inside its burst window */
	char *lab_scale;                 /* emulated by `netsweep lab` at this scale; NULL = real */
	/* with transfer (report/analyze/cost_rank.h), in currency; NAN = unknown (a night.xml
	 * of before, or no transfer rule) */
	char *relation;                  /* same-zone, cross-zone, ...; NULL = unknown */
	double transfer_per_hour, total_per_hour, mptd; /* mptd = Mbit/s per total/hour */
};

struct site_reg {
	char *label;                     /* the case in words */
	double base_bps, bps, change_pct;
};

struct site_night {
	long long run_id;
	char *uuid, *label, *matrix, *started, *finished, *status;
	char *slug;                      /* nights/SLUG/: the night's address, never renamed */
	char *title, *headline;
	int have_base;
	size_t n_cases, n_regressions, n_improvements;
	struct site_reg *regs;           /* worst first */
	size_t n_regs;
	struct site_pair *pairs;         /* rank order, unranked last */
	size_t n_pairs;
};

/* The uuid is a store's own (32 lowercase hex digits, set on insert), not an older store's
 * made-up one. */
int site_uuid_hex(const char *uuid);
/* The night's address: its start date and the start of its uuid ("2026-11-01-3f2a9c1e"),
 * the same in every database the run is merged into. Writes at most n bytes. */
void site_night_slug(const struct rp_night_ref *ref, char *out, size_t n);
/* The summary of the report p just wrote for ref. NS_E_NOMEM. */
int site_night_from_report(const struct rp_night_ref *ref, const char *slug,
			   const struct rp_pipeline *p, struct site_night *out, struct ns_err *err);
int site_night_write(const struct site_night *n, const char *path, struct ns_err *err);
/* Reads a night.xml site_night_write wrote; NS_E_INPUT when it is not one. */
int site_night_read(const char *path, struct site_night *out, struct ns_err *err);
void site_night_free(struct site_night *n);
/* The currency a pair's price and per-price figures are in: its code, "USD" for a night.xml
 * of before the site kept currencies (its prices were dollars). */
const char *site_pair_currency(const struct site_pair *p);
/* How many pairs of the night rank in currency cur: the N of "rank 1 of N". */
size_t site_night_ranked(const struct site_night *n, const char *cur);
/* Whether the site's nights price any pair in another currency than US dollars, or convert
 * one: then every price and per-price figure names its currency. */
int site_nights_mixed(const struct site_night *nights, size_t n);

/* A regression in words, as the index and the feed list it: "m5.8xlarge tcp forward 1
 * stream: -99.5 % (100 Mbit/s to 470 kbit/s)", three significant figures at each end. */
void site_reg_text(const struct site_reg *g, char *out, size_t n);

#endif
