/* runs: `netsweep runs` — the runs a database holds, one line each: id, matrix, label, start,
 * status, cases ok/failed, and the cost (billed time of the instances, measured time beside
 * it). The database is read as `report` reads it (lib/sql/store_read.h): never written, an older
 * one migrated on a copy in memory. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "runner/core/cmds.h"
#include "lib/cli.h"
#include "lib/err.h"
#include "lib/jsonw.h"
#include "lib/sql/store_read.h"
#include "lib/textesc.h"

static const char RUNS_SQL[] =
	"SELECT r.id, r.matrix_name, coalesce(r.label, ''), r.started_at, r.status,"
	" (SELECT count(*) FROM results x JOIN cases c ON c.id = x.case_id"
	"  WHERE c.run_id = r.id AND x.status = 'ok'),"
	" (SELECT count(*) FROM results x JOIN cases c ON c.id = x.case_id"
	"  WHERE c.run_id = r.id AND x.status = 'failed'),"
	" (SELECT usd FROM v_run_billed WHERE run_id = r.id),"
	" (SELECT usd FROM v_run_cost WHERE run_id = r.id)"
	" FROM runs r WHERE ?1 IS NULL OR r.matrix_name = ?1 ORDER BY r.started_at, r.id";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: netsweep runs [--db FILE] [--matrix NAME] [--json]\n"
		"\n"
		"Lists the runs in the database: id, matrix, label, start, status, results ok and\n"
		"failed, and cost: the instances' billed time (setup to teardown, or the run's wall\n"
		"time without hooks) at the run's prices, the measured seconds' cost in brackets.\n"
		"A run id, a label or 'previous' names a run for report --run and --baseline.\n"
		"  --db FILE       database (default $NETSWEEP_DB, else ./netsweep.db)\n"
		"  --matrix NAME   only the runs of this matrix\n"
		"  --json          a JSON array, one object a run (schemas/runs-json.md)\n");
}

static void money(sqlite3_stmt *st, int col, char *buf, size_t len)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "$%.4f", sqlite3_column_double(st, col));
}

static void json_money(struct jsonw *w, const char *key, sqlite3_stmt *st, int col)
{
	jsonw_key(w, key);
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		jsonw_null(w);
	else
		jsonw_double(w, sqlite3_column_double(st, col));
}

/* --json: the same rows as the table, each an object (schemas/runs-json.md). */
static int print_json(sqlite3 *h, sqlite3_stmt *st, const char *db)
{
	struct jsonw w;
	int step;
	jsonw_init(&w, true);
	jsonw_arr_open(&w);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		jsonw_obj_open(&w);
		jsonw_kv_int(&w, "id", sqlite3_column_int64(st, 0));
		jsonw_kv_str(&w, "matrix", (const char *)sqlite3_column_text(st, 1));
		jsonw_kv_str(&w, "label", (const char *)sqlite3_column_text(st, 2));
		jsonw_kv_str(&w, "started_at", (const char *)sqlite3_column_text(st, 3));
		jsonw_kv_str(&w, "status", (const char *)sqlite3_column_text(st, 4));
		jsonw_kv_int(&w, "results_ok", sqlite3_column_int64(st, 5));
		jsonw_kv_int(&w, "results_failed", sqlite3_column_int64(st, 6));
		json_money(&w, "billed_usd", st, 7);
		json_money(&w, "measured_usd", st, 8);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	const char *text = jsonw_finish(&w);
	int rc = NS_EXIT_FAIL;
	if (step != SQLITE_DONE)
		fprintf(stderr, "netsweep runs: %s: %s\n", db, sqlite3_errmsg(h));
	else if (!text)
		fprintf(stderr, "netsweep runs: out of memory\n");
	else if (printf("%s\n", text) > 0)
		rc = NS_EXIT_OK;
	jsonw_free(&w);
	return rc;
}

/* A stored string as the terminal shows it: a label's ESC[31m, newline or CR as escapes
 * (lib/textesc.h), so that it neither drives the terminal nor breaks the table; NULL is "-". */
static void shown(sqlite3_stmt *st, int col, char *buf, size_t len)
{
	const char *s = (const char *)sqlite3_column_text(st, col);
	textesc(buf, len, s ? s : "-");
}

int cmd_runs(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'}, {"matrix", required_argument, NULL, 'm'},
		{"json", no_argument, NULL, 'j'},     {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	const char *db = getenv("NETSWEEP_DB"), *matrix = NULL;
	struct ns_err err = {0};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': db = optarg; break;
		case 'm': matrix = optarg; break;
		case 'j': json = true; break;
		case 'h': usage(stdout); return NS_EXIT_OK;
		default:
			cli_option_error_hint(c, argv, longopts, &err);
			fprintf(stderr, "netsweep runs: %s\n", err.msg);
			return NS_EXIT_USAGE;
		}
	}
	if (cli_no_operands(argc, argv, &err) < 0) {
		fprintf(stderr, "netsweep runs: %s\n", err.msg);
		return NS_EXIT_USAGE;
	}
	if (!db || !*db)
		db = "netsweep.db";
	/* read as `report` reads it: never written, an older schema migrated on a copy in
	 * memory, so a read-only file, folder or medium lists as well as any */
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	int rc = NS_EXIT_FAIL;
	if (ns_store_open_read(db, &h, &err) < 0) {
		fprintf(stderr, "netsweep runs: %s\n", err.msg);
		return NS_EXIT_USAGE;
	}
	if (sqlite3_prepare_v2(h, RUNS_SQL, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "netsweep runs: %s: %s\n", db, sqlite3_errmsg(h));
		goto out;
	}
	if (matrix)
		sqlite3_bind_text(st, 1, matrix, -1, SQLITE_STATIC);
	if (json) {
		rc = print_json(h, st, db);
		goto out;
	}
	printf("%-5s %-20s %-16s %-24s %-11s %5s %6s %10s %11s\n", "id", "matrix", "label",
	       "started", "status", "ok", "failed", "billed", "(measured)");
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		char billed[32], measured[32];
		money(st, 7, billed, sizeof(billed));
		money(st, 8, measured, sizeof(measured));
		char text[4][256];
		for (int i = 0; i < 4; i++)
			shown(st, i + 1, text[i], sizeof(text[i]));
		printf("%-5lld %-20s %-16s %-24s %-11s %5lld %6lld %10s %11s\n",
		       (long long)sqlite3_column_int64(st, 0), text[0], text[1], text[2], text[3],
		       (long long)sqlite3_column_int64(st, 5), (long long)sqlite3_column_int64(st, 6),
		       billed, measured);
	}
	if (step != SQLITE_DONE) {
		fprintf(stderr, "netsweep runs: %s: %s\n", db, sqlite3_errmsg(h));
		goto out;
	}
	rc = NS_EXIT_OK;
out:
	sqlite3_finalize(st);
	sqlite3_close(h);
	return rc;
}
