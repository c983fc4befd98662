/* settings: what the environment tells netsweep, read in one place — by the command layer
 * (runner/core/main.c calls settings_from_env once, before any command runs and before any
 * thread starts) — and handed to the library, which never reads the environment itself.
 * Each field's variable is documented in the man page (ENVIRONMENT); the test hooks are
 * marked. A unit test sets what it needs with settings_set. */
#ifndef NS_SETTINGS_H
#define NS_SETTINGS_H

#include <stdbool.h>

struct ns_settings {
	const char *db;               /* NETSWEEP_DB: --db's default (NULL: netsweep.db) */
	const char *catalog;          /* NETSWEEP_CATALOG: the default instance catalog */
	const char *lab_dir;          /* NETSWEEP_LAB_DIR: the lab's state directory */
	const char *kubectl;          /* NETSWEEP_KUBECTL: the kubectl program */
	const char *node_name;        /* NETSWEEP_NODE_NAME: this pod's node (downward API) */
	const char *imds_addr;        /* NETSWEEP_IMDS_ADDR: instance metadata host:port */
	bool imds_off;                /* NETSWEEP_IMDS=0|off|no: ask no metadata service */
	const char *gnuplot;          /* NETSWEEP_GNUPLOT: the gnuplot program, or "none" */
	const char *path;             /* PATH: where gnuplot is looked for */
	bool realtime_off;            /* NETSWEEP_REALTIME=0: no real-time engine threads */
	/* test hooks (tests/integration): */
	const char *test_send_stall;  /* NETSWEEP_TEST_SEND_STALL=AT_MS:FOR_MS */
	bool test_xdp_generic;        /* NETSWEEP_TEST_XDP_GENERIC=1: XDP in generic mode */
};

/* The settings in force: all unset (NULL, false) until settings_set. Never NULL. */
const struct ns_settings *settings_get(void);
/* Replaces them (copied; the strings are borrowed and must outlive the process's use).
 * Before any thread reads them. */
void settings_set(const struct ns_settings *s);
/* The settings the environment gives (empty variables count as unset). */
void settings_from_env(struct ns_settings *s);

#endif
