#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Parses a non-negative decimal number followed by an optional suffix; *rest points at it. */
static int parse_number(const char *s, double *v, const char **rest, struct ns_err *err)
{
	if (!s || !*s)
		return ns_err_code(err, NS_E_INPUT, "empty value");
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '-')
		return ns_err_code(err, NS_E_INPUT, "'%s' is negative", s);
	if (!isdigit((unsigned char)*s) && *s != '.')
		return ns_err_code(err, NS_E_INPUT, "'%s' is not a number", s);
	char *end;
	errno = 0;
	double d = strtod(s, &end);
	if (errno || end == s || !isfinite(d) || d < 0)
		return ns_err_code(err, NS_E_INPUT, "'%s' is not a number", s);
	*v = d;
	*rest = end;
	return 0;
}

/* What every rate error repeats, so that a typo is answered with the forms that work. */
#define RATE_FORMS "rates are bits/s: 800000, 800k, 500M, 1.5G (also 500Mbit, 500Mbps, 500Mbit/s)"

/* A unit word after the multiplier: bits per second spelled as tc, iperf and data sheets do. */
static bool rate_unit_word(const char *s)
{
	static const char *const words[] = {"", "bit", "bits", "bit/s", "bits/s", "bps"};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcasecmp(s, words[i]) == 0)
			return true;
	return false;
}

int units_parse_rate(const char *s, uint64_t *bps, struct ns_err *err)
{
	double v;
	const char *suf;
	if (parse_number(s, &v, &suf, err) < 0) {
		if (err)
			snprintf(err->msg + strlen(err->msg), sizeof(err->msg) - strlen(err->msg),
				 "; %s", RATE_FORMS);
		return -1;
	}
	double mult = 1;
	char prefix = *suf;
	switch (prefix) {
	case 'k': case 'K': mult = 1e3; suf++; break;
	case 'm': case 'M': mult = 1e6; suf++; break;
	case 'g': case 'G': mult = 1e9; suf++; break;
	case 't': case 'T': mult = 1e12; suf++; break;
	default: break;
	}
	/* A bare lower-case m is milli in SI: 500m would be half a bit per second. With a unit
	 * word after it (500mbit, as tc writes it) it can only mean mega. */
	if (prefix == 'm' && *suf == '\0')
		return ns_err_code(err, NS_E_INPUT, "'%s': m is milli (0.001 bit/s); write %.*sM for "
				   "megabits/s; %s", s, (int)(suf - 1 - s), s, RATE_FORMS);
	if (*suf == 'B' || (*suf == 'b' && suf[1] == '\0'))
		return ns_err_code(err, NS_E_INPUT, "'%s': B is bytes; %s", s, RATE_FORMS);
	if (!rate_unit_word(suf))
		return ns_err_code(err, NS_E_INPUT, "'%s' is not a rate: %s", s, RATE_FORMS);
	v *= mult;
	if (v > 10e12)
		return ns_err_code(err, NS_E_INPUT, "'%s': rate above 10 Tbit/s", s);
	*bps = (uint64_t)llround(v);
	return 0;
}

int units_parse_bytes(const char *s, uint64_t max, uint64_t *bytes, struct ns_err *err)
{
	double v;
	const char *suf;
	if (parse_number(s, &v, &suf, err) < 0)
		return -1;
	double mult = 1;
	switch (*suf) {
	case '\0': break;
	case 'k': case 'K': mult = 1024.0; suf++; break;
	case 'm': case 'M': mult = 1024.0 * 1024; suf++; break;
	case 'g': case 'G': mult = 1024.0 * 1024 * 1024; suf++; break;
	default: return ns_err_code(err, NS_E_INPUT, "'%s': unknown size suffix (use K, M or G)", s);
	}
	if (*suf == 'B' || *suf == 'b')
		suf++;
	if (*suf != '\0')
		return ns_err_code(err, NS_E_INPUT, "'%s': trailing characters after the size", s);
	v *= mult;
	if (v != floor(v))
		return ns_err_code(err, NS_E_INPUT, "'%s' is not a whole number of bytes", s);
	if (v > (double)max)
		return ns_err_code(err, NS_E_INPUT, "'%s' is larger than %llu bytes", s, (unsigned long long)max);
	*bytes = (uint64_t)v;
	return 0;
}

int units_parse_duration(const char *s, double max, double *secs, struct ns_err *err)
{
	double v;
	const char *suf;
	if (parse_number(s, &v, &suf, err) < 0)
		return -1;
	if (strcmp(suf, "") == 0 || strcmp(suf, "s") == 0)
		;
	else if (strcmp(suf, "ms") == 0)
		v /= 1000.0;
	else if (strcmp(suf, "m") == 0 || strcmp(suf, "min") == 0)
		v *= 60.0;
	else if (strcmp(suf, "h") == 0)
		v *= 3600.0;
	else
		return ns_err_code(err, NS_E_INPUT, "'%s': unknown duration suffix (use ms, s, m or h)", s);
	if (v > max)
		return ns_err_code(err, NS_E_INPUT, "'%s' is longer than %g s", s, max);
	*secs = v;
	return 0;
}

int units_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out, struct ns_err *err)
{
	if (!s || !*s)
		return ns_err_code(err, NS_E_INPUT, "empty value");
	if (!isdigit((unsigned char)*s))
		return ns_err_code(err, NS_E_INPUT, "'%s' is not a whole number", s);
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end != '\0')
		return ns_err_code(err, NS_E_INPUT, "'%s' is not a whole number", s);
	if (v < min || v > max)
		return ns_err_code(err, NS_E_INPUT, "'%s' is out of range %llu..%llu", s,
				  (unsigned long long)min, (unsigned long long)max);
	*out = v;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int units_parse_cpulist(const char *s, int *cpus, size_t cap, size_t *n, struct ns_err *err)
{
	size_t count = 0;
	const char *p = s;
	if (!s || !*s)
		return ns_err_code(err, NS_E_INPUT, "empty CPU list");
	while (*p) {
		char *end;
		if (!isdigit((unsigned char)*p))
			return ns_err_code(err, NS_E_INPUT, "CPU list '%s': expected a number at '%s'", s, p);
		long lo = strtol(p, &end, 10), hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				return ns_err_code(err, NS_E_INPUT, "CPU list '%s': expected a number at '%s'", s, p);
			hi = strtol(p, &end, 10);
			p = end;
		}
		if (lo > hi || hi >= UNITS_MAX_CPUS)
			return ns_err_code(err, NS_E_INPUT, "CPU list '%s': bad range %ld-%ld (CPUs are 0..%d)",
					  s, lo, hi, UNITS_MAX_CPUS - 1);
		for (long c = lo; c <= hi; c++) {
			if (count >= cap)
				return ns_err_code(err, NS_E_INPUT, "CPU list '%s': more than %zu CPUs", s, cap);
			cpus[count++] = (int)c;
		}
		if (*p == ',')
			p++;
		else if (*p)
			return ns_err_code(err, NS_E_INPUT, "CPU list '%s': unexpected '%c'", s, *p);
	}
	qsort(cpus, count, sizeof(int), cmp_int);
	size_t w = 0;
	for (size_t i = 0; i < count; i++)
		if (w == 0 || cpus[w - 1] != cpus[i])
			cpus[w++] = cpus[i];
	*n = w;
	return 0;
}

void units_format_cpulist(const int *cpus, size_t n, char *buf, size_t len)
{
	size_t off = 0;
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < n && off < len;) {
		size_t j = i;
		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		int w = (j > i) ? snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "", cpus[i], cpus[j])
				: snprintf(buf + off, len - off, "%s%d", off ? "," : "", cpus[i]);
		if (w < 0)
			return;
		off += (size_t)w;
		i = j + 1;
	}
}

static void format_scaled(double v, double base, const char *const *names, char *buf, size_t len)
{
	int i = 0;
	if (!isfinite(v))
		v = 0;
	while (fabs(v) >= base && names[i + 1]) {
		v /= base;
		i++;
	}
	snprintf(buf, len, "%.2f %s", v, names[i]);
}

void units_format_rate(double bps, char *buf, size_t len)
{
	static const char *const names[] = {"bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s", NULL};
	format_scaled(bps, 1000.0, names, buf, len);
}

void units_format_bytes(double bytes, char *buf, size_t len)
{
	static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB", NULL};
	format_scaled(bytes, 1024.0, names, buf, len);
}

int units_parse_hostport(const char *s, uint16_t default_port, char *host, size_t cap,
			 uint16_t *port, struct ns_err *err)
{
	const char *colon = strrchr(s, ':'), *h = s;
	size_t n;
	if (s[0] == '[') {
		const char *close = strchr(s, ']');
		if (!close || (close[1] && close[1] != ':'))
			return ns_err_code(err, NS_E_INPUT, "'%s' is not host:port", s);
		h = s + 1;
		n = (size_t)(close - h);
		colon = close[1] ? close + 1 : NULL;
	} else if (colon && strchr(s, ':') == colon) {
		n = (size_t)(colon - s);
	} else {
		n = strlen(s); /* a bare name or IPv6 address */
		colon = NULL;
	}
	if (n == 0 || n >= cap)
		return ns_err_code(err, NS_E_INPUT, "'%s' is not host:port", s);
	uint64_t p = default_port;
	if (colon && units_parse_uint(colon + 1, 1, 65535, &p, err) < 0)
		return -1;
	memcpy(host, h, n);
	host[n] = '\0';
	*port = (uint16_t)p;
	return 0;
}
