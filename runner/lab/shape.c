#include "shape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"

/* Bounds that keep a lab on one host meaningful: below 100 kbit/s a TCP test is all slow
 * start; tbf keeps the bucket as a 32-bit count of 64 ns ticks (~275 s at the rate). */
#define LAB_MIN_BPS 100000ULL
#define LAB_MAX_BUCKET_S 200.0
/* A bucket of 4 ms at the rate (a timer tick at HZ=250, so tbf never starves between ticks)
 * and a few 64 KiB GSO packets, which veth hands to tbf unsplit — but never more than 100 ms
 * at the rate: below 16 Mbit/s the 200 kB would be seconds of burst at line rate (3 s at
 * 0.5 Mbit/s: a fresh pair read 116 % of its rate), so there tbf cuts GSO packets into frames
 * (it does for any packet over its bucket) and the bucket holds 100 ms, at least 16 KiB. */
#define LAB_BUCKET_S 0.004
#define LAB_MIN_BUCKET 200000ULL
#define LAB_SLOW_BUCKET_S 0.100
#define LAB_FLOOR_BUCKET 16384ULL
/* The queue behind the bucket: 20 ms at the rate, room for a TCP window without loss. */
#define LAB_QUEUE_S 0.020
/* The peak bucket (tbf's mtu) holds one whole GSO packet. */
#define LAB_PEAK_MTU 65536ULL

int lab_scale_parse(const char *s, double *scale, struct ns_err *err)
{
	char *end;
	double num = strtod(s, &end), den = 1;
	if (end == s)
		goto bad;
	if (*end == '/') {
		const char *d = end + 1;
		den = strtod(d, &end);
		if (end == d)
			goto bad;
	}
	if (*end || !isfinite(num) || !isfinite(den) || num <= 0 || den <= 0)
		goto bad;
	*scale = num / den;
	if (*scale > 1 || *scale < 1e-6)
		return ns_err_code(err, NS_E_USAGE, "--scale %s: a scale is between 1/1000000 and 1", s);
	return 0;
bad:
	return ns_err_code(err, NS_E_USAGE, "--scale '%s': want a fraction such as 1/100 or 0.01", s);
}

const struct lab_rate *lab_rate_find(const struct lab_rate *v, size_t n, const char *type)
{
	for (size_t i = n; i-- > 0;)
		if (!strcmp(v[i].type, type))
			return &v[i];
	return NULL;
}

int lab_rates_parse(const char *s, struct lab_rate *v, size_t cap, size_t *n, struct ns_err *err)
{
	const char *p = s;
	while (*p) {
		const char *comma = strchr(p, ','), *eq = strchr(p, '=');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (!eq || eq >= p + len || eq == p)
			return ns_err_code(err, NS_E_USAGE, "--rate '%.*s': want TYPE=RATE (m4.large=436M)",
					   (int)len, p);
		size_t tlen = (size_t)(eq - p);
		if (tlen >= sizeof(v->type))
			return ns_err_code(err, NS_E_USAGE, "--rate: instance type '%.*s' is too long",
					   (int)tlen, p);
		if (*n >= cap)
			return ns_err_code(err, NS_E_USAGE, "--rate: at most %zu types", cap);
		char rate[64];
		size_t rlen = len - tlen - 1;
		if (rlen >= sizeof(rate))
			return ns_err_code(err, NS_E_USAGE, "--rate '%.*s': bad rate", (int)len, p);
		memcpy(rate, eq + 1, rlen);
		rate[rlen] = '\0';
		struct lab_rate *r = &v[*n];
		if (units_parse_rate(rate, &r->bps, err) < 0) {
			ns_err_prefix(err, "--rate %.*s", (int)tlen, p);
			err->code = NS_E_USAGE;
			return -1;
		}
		if (r->bps < LAB_MIN_BPS)
			return ns_err_code(err, NS_E_USAGE, "--rate %.*s: at least 100k", (int)len, p);
		memcpy(r->type, p, tlen);
		r->type[tlen] = '\0';
		(*n)++;
		p += len + (comma ? 1 : 0);
		if (comma && !*p)
			return ns_err_code(err, NS_E_USAGE, "--rate '%s' ends with a comma", s);
	}
	return 0;
}

static uint64_t frame_rate(double goodput_bps)
{
	return (uint64_t)llround(goodput_bps * LAB_TCP_FRAME / LAB_TCP_PAYLOAD);
}

int lab_shape_for(const char *type, const struct catalog_instance *ci, uint64_t override_bps,
		  double scale, double credit_s, struct lab_shape *out, struct ns_err *err)
{
	memset(out, 0, sizeof(*out));
	out->scale = scale;
	double sustained, peak = 0;
	if (override_bps) {
		snprintf(out->source, sizeof(out->source), "--rate");
		sustained = (double)override_bps;
	} else if (ci && ci->network_gbps > 0) {
		snprintf(out->source, sizeof(out->source), "catalog");
		if (ci->baseline_gbps > 0 && ci->baseline_gbps < ci->network_gbps) {
			sustained = ci->baseline_gbps * 1e9;
			peak = ci->network_gbps * 1e9;
		} else {
			sustained = ci->network_gbps * 1e9;
		}
	} else if (ci && ci->network_label[0]) {
		return ns_err_code(err, NS_E_INPUT, "%s: the catalog's network figure '%s' has no "
				   "rate in it: give one with --rate %s=RATE", type,
				   ci->network_label, type);
	} else if (ci) {
		return ns_err_code(err, NS_E_INPUT, "%s: the catalog lists no network figure for "
				   "it: give one with --rate %s=RATE", type, type);
	} else {
		return ns_err_code(err, NS_E_INPUT, "%s: not in the catalog: give its rate with "
				   "--rate %s=RATE", type, type);
	}
	sustained *= scale;
	peak *= scale;
	if (sustained < LAB_MIN_BPS)
		return ns_err_code(err, NS_E_INPUT, "%s: %.0f bit/s at this scale is below the lab's "
				   "100 kbit/s: use a larger --scale", type, sustained);
	out->goodput_bps = (uint64_t)llround(sustained);
	out->tbf_rate_bps = frame_rate(sustained);
	double top = sustained;
	uint64_t bucket = (uint64_t)(out->tbf_rate_bps / 8.0 * LAB_BUCKET_S);
	if (peak > 0 && credit_s > 0) {
		out->peak_goodput_bps = (uint64_t)llround(peak);
		out->tbf_peak_bps = frame_rate(peak);
		out->credit_s = credit_s;
		out->mtu_bytes = LAB_PEAK_MTU;
		/* At the peak the bucket drains at (peak - rate): credit_s seconds of that. */
		bucket = (uint64_t)((out->tbf_peak_bps - out->tbf_rate_bps) / 8.0 * credit_s);
		if ((double)bucket * 8 / out->tbf_rate_bps > LAB_MAX_BUCKET_S)
			return ns_err_code(err, NS_E_USAGE, "%s: a %.0f s credit at peak %.0f and "
					   "baseline %.0f bit/s is more than tbf holds: use a shorter "
					   "--credit", type, credit_s, peak, sustained);
		top = peak;
	}
	uint64_t floor = (uint64_t)(out->tbf_rate_bps / 8.0 * LAB_SLOW_BUCKET_S);
	floor = floor > LAB_MIN_BUCKET ? LAB_MIN_BUCKET : floor < LAB_FLOOR_BUCKET ? LAB_FLOOR_BUCKET : floor;
	out->burst_bytes = bucket < floor ? floor : bucket;
	out->limit_bytes = (uint64_t)(frame_rate(top) / 8.0 * LAB_QUEUE_S) + floor;
	return 0;
}
