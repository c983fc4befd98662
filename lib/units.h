/* units: parse and format the quantities users type and read —
 * bit rates (10G, 800M: powers of 1000, bits/s), byte sizes (128K, 1M: powers of 1024),
 * durations (10, 2.5s, 500ms, 5m) and CPU lists (0-3,8). One tested place for all of them. */
#ifndef NS_UNITS_H
#define NS_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* "0", "1500", "100k", "800M", "10G", "1.5g", "500Mbit", "500Mbps", "500Mbit/s" -> bits/s.
 * Powers of 1000. Rejects negatives, garbage, values over 10 Tbit/s, bytes ("500MB") and a
 * bare "500m" (milli), each error (NS_E_INPUT) listing the accepted forms. */
int units_parse_rate(const char *s, uint64_t *bps, struct ns_err *err);

/* "1472", "128K", "1M", "2G" -> bytes. Powers of 1024. max bounds the result. */
int units_parse_bytes(const char *s, uint64_t max, uint64_t *bytes, struct ns_err *err);

/* "10", "2.5", "10s", "500ms", "5m", "1h" -> seconds. Rejects negatives; max bounds it. */
int units_parse_duration(const char *s, double max, double *secs, struct ns_err *err);

/* Plain unsigned integer in [min, max]. */
int units_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out, struct ns_err *err);

/* "0-3,8,10-11" -> ascending, de-duplicated CPU numbers, each < 4096. Returns the count in *n. */
#define UNITS_MAX_CPUS 4096
int units_parse_cpulist(const char *s, int *cpus, size_t cap, size_t *n, struct ns_err *err);

/* Writes the CPU list back in compact form ("0-3,8"). */
void units_format_cpulist(const int *cpus, size_t n, char *buf, size_t len);

/* 478212345.0 -> "478.21 Mbit/s" (powers of 1000). */
void units_format_rate(double bps, char *buf, size_t len);

/* 1610612736 -> "1.50 GiB" (powers of 1024). */
void units_format_bytes(double bytes, char *buf, size_t len);

/* "host:port", "[v6]:port", "host" or a bare IPv6 address into host (cap bytes) and port
 * (default_port when none is written). */
int units_parse_hostport(const char *s, uint16_t default_port, char *host, size_t cap,
			 uint16_t *port, struct ns_err *err);

#endif
