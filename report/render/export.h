/* export: runs of the database in the formats dashboards and alerting read — Prometheus
 * text (promtool check metrics, node_exporter's textfile collector), OpenMetrics 1.0 text
 * (promtool tsdb create-blocks-from openmetrics, to backfill nightly runs), NDJSON (one
 * v_results row a line) and iperf3's JSON (one stored result a line, schemas/iperf3-json.md). Metric names, labels and units: schemas/export.md. */
#ifndef RP_EXPORT_H
#define RP_EXPORT_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>

#include "lib/err.h"

enum rp_export_format { RP_EXPORT_OPENMETRICS, RP_EXPORT_PROMETHEUS, RP_EXPORT_NDJSON,
		       RP_EXPORT_IPERF3 /* each stored result in iperf3's JSON layout, one a line */ };

struct rp_export_opts {
	enum rp_export_format format;
	bool timestamps;      /* samples carry their case's time (false for a textfile collector) */
	const char *type;     /* the cases of this type or family only (lib/names/itype.h); NULL = all */
};

/* Writes the runs run_ids[0..n) to out. Returns 0, or -1 with err filled (a query failing). */
int rp_export(sqlite3 *db, const long long *run_ids, size_t n, const struct rp_export_opts *o,
	      FILE *out, struct ns_err *err);

/* A label value in the text formats' escaping (backslash, double quote, newline), CR and tab
 * as spaces, other control characters and bytes that are not UTF-8 as lib/textesc.h's escapes
 * (backslash doubled), into buf (cut before a character that does not fit whole). Exposed for
 * tests. */
void rp_export_label(const char *v, char *buf, size_t cap);

#endif
