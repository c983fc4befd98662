/* iperf3_text: what `netsweep probe` borrows from iperf3's text habits — -f's units, the
 * per-stream table with [SUM] at the end of a test, and a hint for the iperf3 options that
 * mean something else (or nothing) here. */
#ifndef NS_IPERF3_TEXT_H
#define NS_IPERF3_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "lib/err.h"
#include "runner/proto/probe.h"

/* -f FORMAT: one of k m g t (bits/s in powers of 1000) or K M G T (bytes/s in powers of
 * 1024), as iperf3. *unit = the letter. */
int iperf3_unit_parse(const char *arg, char *unit, struct ns_err *err);

/* A rate in -f's unit ("9.42 Gbits/sec", "1.10 GBytes/sec"); unit 0 = adaptive bits. */
void iperf3_format_rate(double bps, char unit, char *buf, size_t cap);
/* A transfer as iperf3 prints it: adaptive, powers of 1024 ("1.10 GBytes"). */
void iperf3_format_bytes(double bytes, char *buf, size_t cap);

/* The end-of-test table: a line per stream (sender and receiver, or UDP's one), then [SUM]
 * when there are several streams, each direction of a --bidir test in turn. */
void iperf3_print_streams(FILE *out, const struct probe_result *r, char unit);

/* For argv[0..argc) of probe: the first option that is iperf3's but is not (or means
 * something else) here, with what to use instead, into buf; NULL when there is none. */
const char *iperf3_hint(int argc, char **argv, char *buf, size_t cap);

#endif
