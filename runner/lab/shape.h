/* shape: what a lab link looks like for an instance type — the goodput the catalog (or a
 * --rate override) gives it, times the lab's scale, turned into tbf parameters. Pure: no
 * system calls, so the arithmetic is unit-tested on its own. */
#ifndef NS_LAB_SHAPE_H
#define NS_LAB_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"
#include "lib/catalog/catalog.h"

/* A full-MTU TCP segment as tbf counts it (Ethernet header 14 + IPv4 20 + TCP 20 + timestamps
 * 12 + payload 1448) against the payload the application gets: the ~4.4 % that separates a
 * shaped link rate from the goodput iperf and netsweep report. The lab's rates are goodputs,
 * as the catalog's and the seed measurements' figures are read, so tbf gets the frame rate. */
#define LAB_TCP_PAYLOAD 1448
#define LAB_TCP_FRAME 1514

#define LAB_MAX_RATES 64
#define LAB_DEFAULT_CREDIT_S 10.0 /* how long a full credit bucket keeps an "up to" type at its peak */

struct lab_rate {
	char type[64];
	uint64_t bps;
};

struct lab_shape {
	char source[16];         /* "--rate" or "catalog" */
	double scale;            /* applied to every rate below */
	uint64_t goodput_bps;    /* sustained goodput the lab aims at (scaled) */
	uint64_t peak_goodput_bps; /* burst goodput of an "up to" type; 0 = none */
	double credit_s;         /* seconds at the peak a full bucket allows; 0 = none */
	/* tbf: */
	uint64_t tbf_rate_bps, tbf_peak_bps;
	uint64_t burst_bytes, limit_bytes, mtu_bytes;
};

/* "1/100", "0.01", "1" -> 0.01 .. 1 (a lab never runs faster than the instance). */
int lab_scale_parse(const char *s, double *scale, struct ns_err *err);
/* "m4.large=436M,m4.xlarge=730M" appended to v (n in/out); repeated types: the last wins. */
int lab_rates_parse(const char *s, struct lab_rate *v, size_t cap, size_t *n, struct ns_err *err);
const struct lab_rate *lab_rate_find(const struct lab_rate *v, size_t n, const char *type);

/* The shape of one instance type: override (0 = none) else the catalog entry ci (may be NULL
 * when the catalog does not know the type). Fails, saying which --rate to give, when neither
 * has a figure ("Moderate", "High"). */
int lab_shape_for(const char *type, const struct catalog_instance *ci, uint64_t override_bps,
		  double scale, double credit_s, struct lab_shape *out, struct ns_err *err);

#endif
