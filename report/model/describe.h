/* describe: a case in words — the short label used in tables, charts and findings, and the
 * exact equivalent `netsweep probe` command line that reproduces it by hand. */
#ifndef RP_DESCRIBE_H
#define RP_DESCRIBE_H

#include "report/model/data.h"
#include "report/model/fmt.h"

/* The endpoint's instance type (or its name when no type was declared). */
const char *rp_ep_label(const struct rp_endpoint *e);
/* "m4.large tcp forward 4 streams 1460 B fq 800M" — only the parameters that are set. */
void rp_case_label(const struct rp_data *d, const struct rp_case *c, struct rp_buf *b);
/* The same without the endpoint: "tcp forward 4 streams". */
void rp_case_label_short(const struct rp_data *d, const struct rp_case *c, struct rp_buf *b);
/* The same without the stream count: names a series of cases that differ only in streams. */
void rp_case_label_series(const struct rp_data *d, const struct rp_case *c, struct rp_buf *b);
/* "netsweep probe 10.0.0.2:5301 -u -P 4 -l 64 -t 10" in probe's own options; arguments are
 * shell-quoted when they hold anything but [A-Za-z0-9._:/,=+-]. Affinity policies (irq,
 * spread) are resolved by the runner per host, so they are noted after the command. */
void rp_case_probe_cmd(const struct rp_data *d, const struct rp_case *c, struct rp_buf *b);

/* The detected driver in words: its family, with the module name when it differs, and its
 * version ("not reported" / "not recorded" without one). */
void rp_host_driver_text(const struct rp_host *h, char *b, size_t n);
/* Whether the host's driver (family or module) is the expected one. */
int rp_host_driver_matches(const char *expected, const struct rp_host *h);

#endif
