/* cmd_export: `netsweep export`, runs as OpenMetrics, Prometheus text or NDJSON
 * (report/export.h); main.c's command table calls it. */
#ifndef RP_CMD_EXPORT_H
#define RP_CMD_EXPORT_H

int cmd_export(int argc, char **argv);

#endif
