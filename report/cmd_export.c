/* cmd_export: `netsweep export` — runs of the database for dashboards and alerting
 * (report/export.h). Reads only the database, as the report does (read-only; an older schema
 * is migrated in memory). Parses into a config, validates, then exports; -o writes a
 * temporary file beside FILE and renames it, so a failure leaves FILE as it was. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/cmd_export.h"
#include "report/render/export.h"
#include "report/load/rundb.h"
#include "report/load/export_rows.h"
#include "lib/atomicfile.h"
#include "lib/cost.h"
#include "lib/cli.h"
#include "lib/err.h"
#include "lib/units.h"

#define EXPORT_MAX_RUNS 100000 /* --last N: past this a dashboard wants the database itself */

struct export_cfg {
	const char *db, *run, *out;
	uint64_t last;
	double monthly_gb; /* --monthly-transfer; 0 = each run's own volume */
	struct rp_export_opts o;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: netsweep export [--db FILE] [--run RUN | --last N] [--format FORMAT]\n"
		"                       [--type T] [--no-timestamps] [-o FILE]\n"
		"\n"
		"Writes runs for dashboards and alerting (metric names and labels:\n"
		"schemas/export.md):\n"
		"  --db FILE          database (default $NETSWEEP_DB or ./netsweep.db)\n"
		"  --run RUN          a run id, a label, 'latest' (default) or 'previous'\n"
		"  --last N           the newest N runs instead, oldest first (at most %d)\n"
		"  --format FORMAT    openmetrics (default): OpenMetrics 1.0 text, timestamps in\n"
		"                     seconds (promtool tsdb create-blocks-from openmetrics);\n"
		"                     prometheus: Prometheus text, timestamps in milliseconds\n"
		"                     (promtool check metrics; with --no-timestamps for\n"
		"                     node_exporter's textfile collector); ndjson: one v_results\n"
		"                     row a line, every column under its name; iperf3: each\n"
		"                     stored result in iperf3's JSON layout (iperf3 -J), one a\n"
		"                     line, a group case's every client stream in end.streams[]\n"
		"                     (schemas/iperf3-json.md)\n"
		"  --type T           the cases of pairs of instance type T only: its exact name,\n"
		"                     or a family as the run's catalog stated it (m5, Dsv5,\n"
		"                     n2-standard, PRO2, cx)\n"
		"  --no-timestamps    samples without the time of their case\n"
		"  --monthly-transfer VOLUME  price the transfer (netsweep_transfer_usd_per_hour,\n"
		"                     netsweep_total_usd_per_hour, NDJSON's \"transfer\") at this\n"
		"                     monthly volume (50TB, 500GB), as report --monthly-transfer\n"
		"                     does (default: the run's monthly-transfer, else each\n"
		"                     result's rate for a 730-hour month)\n"
		"  -o, --output FILE  write FILE (atomically) instead of standard output\n",
		EXPORT_MAX_RUNS);
}

static int parse(int argc, char **argv, struct export_cfg *c, struct ns_err *err)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},       {"run", required_argument, NULL, 'r'},
		{"last", required_argument, NULL, 'n'},     {"format", required_argument, NULL, 'f'},
		{"no-timestamps", no_argument, NULL, 'T'},  {"output", required_argument, NULL, 'o'},
		{"type", required_argument, NULL, 't'},
		{"monthly-transfer", required_argument, NULL, 'M'},
		{"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
	};
	*c = (struct export_cfg){.db = cli_db_default(), .run = "latest",
				 .o = {.format = RP_EXPORT_OPENMETRICS, .timestamps = true}};
	int ch;
	bool run_given = false;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'd': c->db = optarg; break;
		case 'r': c->run = optarg; run_given = true; break;
		case 'n':
			if (units_parse_uint(optarg, 1, EXPORT_MAX_RUNS, &c->last, err) < 0)
				return ns_err_prefix(err, "--last"), -1;
			break;
		case 'f':
			if (!strcmp(optarg, "openmetrics"))
				c->o.format = RP_EXPORT_OPENMETRICS;
			else if (!strcmp(optarg, "prometheus"))
				c->o.format = RP_EXPORT_PROMETHEUS;
			else if (!strcmp(optarg, "ndjson"))
				c->o.format = RP_EXPORT_NDJSON;
			else if (!strcmp(optarg, "iperf3"))
				c->o.format = RP_EXPORT_IPERF3;
			else
				return ns_err_code(err, NS_E_USAGE, "--format '%s': openmetrics, prometheus, "
						   "ndjson or iperf3", optarg);
			break;
		case 'T': c->o.timestamps = false; break;
		case 't': c->o.type = optarg; break;
		case 'M': {
			struct ns_err ve = {0};
			if (cost_volume_parse(optarg, &c->monthly_gb, &ve) < 0)
				return ns_err_code(err, NS_E_USAGE, "--monthly-transfer: %s",
						   ve.msg);
			break;
		}
		case 'o': c->out = optarg; break;
		case 'h': return 1;
		default: return cli_option_error_hint(ch, argv, longopts, err);
		}
	}
	if (cli_no_operands(argc, argv, err) < 0)
		return -1;
	if (run_given && c->last)
		return ns_err_code(err, NS_E_USAGE, "--run and --last name the runs twice: give one");
	return 0;
}

int cmd_export(int argc, char **argv)
{
	struct export_cfg c;
	struct ns_err err = {0};
	int p = parse(argc, argv, &c, &err);
	if (p > 0) {
		usage(stdout);
		return NS_EXIT_OK;
	}
	if (p < 0) {
		fprintf(stderr, "netsweep export: %s (see 'netsweep export --help')\n", err.msg);
		return NS_EXIT_USAGE;
	}
	sqlite3 *db = NULL;
	long long one, *ids = &one;
	size_t n = 1;
	int rc = NS_EXIT_USAGE;
	struct atomicfile af = {0};
	FILE *out = stdout;
	if (rp_db_open(c.db, &db, &err) < 0)
		goto done;
	if (c.last ? rp_runs_last(db, c.last, &ids, &n, &err) < 0
		   : rp_run_resolve(db, c.run, &one, &err) < 0)
		goto done;
	rc = NS_EXIT_FAIL;
	if (c.monthly_gb > 0 && rp_export_monthly_volume(db, c.monthly_gb, &err) < 0)
		goto done;
	if (c.out) {
		if (atomicfile_open(&af, c.out, 0644, 0, &err) < 0)
			goto done;
		out = af.f;
	}
	if (rp_export(db, ids, n, &c.o, out, &err) < 0)
		goto done;
	if (fflush(out) != 0 || ferror(out)) {
		ns_err_code(&err, NS_E_IO, "%s: %s", c.out ? c.out : "standard output", strerror(errno));
		goto done;
	}
	if (c.out && atomicfile_commit(&af, &err) < 0)
		goto done;
	rc = NS_EXIT_OK;
done:
	atomicfile_abort(&af);
	if (ids != &one)
		free(ids);
	rp_db_close(db);
	if (rc != NS_EXIT_OK)
		fprintf(stderr, "netsweep export: %s\n", err.msg);
	return rc;
}
