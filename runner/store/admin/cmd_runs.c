/* netsweep runs: the runs a database holds (runner/store/admin/store_runs.h), one line each — id,
 * matrix, label, start, status, cases ok/failed, and the cost (billed time of the instances,
 * measured time beside it) — or a JSON array of them (schemas/runs-json.md). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/core/cmds.h"
#include "lib/cli.h"
#include "lib/err.h"
#include "lib/jsonw.h"
#include "lib/textesc.h"
#include "store_runs.h"

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

static void money(double usd, char *buf, size_t len)
{
	if (isnan(usd))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "$%.4f", usd);
}

static void json_money(struct jsonw *w, const char *key, double usd)
{
	jsonw_key(w, key);
	if (isnan(usd))
		jsonw_null(w);
	else
		jsonw_double(w, usd);
}

/* --json: the same rows as the table, each an object (schemas/runs-json.md). */
static int json_row(const struct store_runs_row *r, void *ctx)
{
	struct jsonw *w = ctx;
	jsonw_obj_open(w);
	jsonw_kv_int(w, "id", r->id);
	jsonw_kv_str(w, "matrix", r->matrix);
	jsonw_kv_str(w, "label", r->label);
	jsonw_kv_str(w, "started_at", r->started_at);
	jsonw_kv_str(w, "status", r->status);
	jsonw_kv_int(w, "results_ok", r->results_ok);
	jsonw_kv_int(w, "results_failed", r->results_failed);
	json_money(w, "billed_usd", r->billed_usd);
	json_money(w, "measured_usd", r->measured_usd);
	jsonw_obj_close(w);
	return 0;
}

static int print_json(const char *db, const char *matrix, struct ns_err *err)
{
	struct jsonw w;
	jsonw_init(&w, true);
	jsonw_arr_open(&w);
	int rc = store_runs_each(db, matrix, json_row, &w, err);
	jsonw_arr_close(&w);
	const char *text = jsonw_finish(&w);
	if (rc == 0 && !text)
		rc = ns_err_code(err, NS_E_NOMEM, "out of memory");
	if (rc == 0 && printf("%s\n", text) < 0)
		rc = ns_err_sys(err, "stdout");
	jsonw_free(&w);
	return rc;
}

/* A stored string as the terminal shows it: a label's ESC[31m, newline or CR as escapes
 * (lib/textesc.h), so that it neither drives the terminal nor breaks the table; NULL is "-". */
static void shown(const char *s, char *buf, size_t len)
{
	textesc(buf, len, s ? s : "-");
}

/* The table's head, once: before the first row, or alone when there is none. */
static void table_head(bool *printed)
{
	if (!*printed)
		printf("%-5s %-20s %-16s %-24s %-11s %5s %6s %10s %11s\n", "id", "matrix", "label",
		       "started", "status", "ok", "failed", "billed", "(measured)");
	*printed = true;
}

static int table_row(const struct store_runs_row *r, void *ctx)
{
	table_head(ctx);
	char billed[32], measured[32];
	money(r->billed_usd, billed, sizeof(billed));
	money(r->measured_usd, measured, sizeof(measured));
	const char *col[4] = {r->matrix, r->label, r->started_at, r->status};
	char text[4][256];
	for (int i = 0; i < 4; i++)
		shown(col[i], text[i], sizeof(text[i]));
	printf("%-5lld %-20s %-16s %-24s %-11s %5lld %6lld %10s %11s\n", (long long)r->id, text[0],
	       text[1], text[2], text[3], (long long)r->results_ok, (long long)r->results_failed,
	       billed, measured);
	return 0;
}

int cmd_runs(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'}, {"matrix", required_argument, NULL, 'm'},
		{"json", no_argument, NULL, 'j'},     {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false;
	const char *db = cli_db_default(), *matrix = NULL;
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
	int rc;
	if (json) {
		rc = print_json(db, matrix, &err);
	} else {
		bool head = false;
		rc = store_runs_each(db, matrix, table_row, &head, &err);
		if (rc == 0)
			table_head(&head);
	}
	if (rc == 0)
		return NS_EXIT_OK;
	fprintf(stderr, "netsweep runs: %s\n", err.msg);
	return err.code == NS_E_INPUT ? NS_EXIT_USAGE : NS_EXIT_FAIL;
}
