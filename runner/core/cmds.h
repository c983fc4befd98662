/* cmds: the subcommand entry points, one per module area. Each takes the arguments after its
 * name (argv[0] is the subcommand), prints, and returns an exit code (NS_EXIT_*). */
#ifndef NS_CMDS_H
#define NS_CMDS_H

int cmd_agent(int argc, char **argv);    /* runner/agent/cmd_agent.c */
int cmd_key(int argc, char **argv);      /* runner/agent/cmd_key.c: a new pre-shared key */
int cmd_probe(int argc, char **argv);    /* runner/client/cmd_probe.c */
int cmd_health(int argc, char **argv);   /* runner/client/cmd_health.c: the agent's health check */
int cmd_search(int argc, char **argv);   /* runner/search/cmd_search.c */
int cmd_run(int argc, char **argv);      /* runner/sweep/cmd_run.c */
int cmd_runs(int argc, char **argv);     /* runner/store/admin/cmd_runs.c: the runs a database holds */
int cmd_db(int argc, char **argv);       /* runner/store/admin/cmd_db.c: db merge */
int cmd_hostinfo(int argc, char **argv); /* runner/host/cmd_hostinfo.c */
int cmd_catalog(int argc, char **argv);  /* runner/catalog/cmd_catalog.c: catalog import */
int cmd_cost(int argc, char **argv);     /* runner/catalog/cmd_cost.c: catalog and wire-rate lookups */
int cmd_lab(int argc, char **argv);      /* runner/lab/cmd_lab.c: emulated instance pairs */
int cmd_nicstats(int argc, char **argv); /* runner/host/cmd_nicstats.c: ethtool counters */

#endif
