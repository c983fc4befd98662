/* cmd_report: `netsweep report`, the one entry point into report/. It reads only the database;
 * main.c's command table calls it like the runner's commands. */
#ifndef RP_CMD_REPORT_H
#define RP_CMD_REPORT_H

int cmd_report(int argc, char **argv);

#endif
