/* json_out: report.json, the report's summary for dashboards and CI — the run, the per-dollar
 * ranking (with its rule), the comparison verdicts and the findings, with the same numbers
 * as index.html. The format is schemas/report.schema.json (described in schemas/report-json.md). */
#ifndef RP_JSON_OUT_H
#define RP_JSON_OUT_H

#include "lib/err.h"
#include "report/render/report.h"

#define RP_JSON_VERSION 1

int rp_json_write(const struct rp_report *r, const char *path, struct ns_err *err);

#endif
