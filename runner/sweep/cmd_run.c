/* netsweep run: loads and checks a matrix, then lists its cases (--dry-run) or runs what is
 * missing of it into the database. Exit 0 when every case succeeded, 1 when some failed (or the
 * run could not go on), 2 for usage and matrix errors — which never touch the database. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/core/cmds.h"
#include "lib/cli.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/units.h"
#include "lib/xml/xsdcheck.h"
#include "runner/catalog/catalog.h"
#include "runner/matrix/expand.h"
#include "labpairs.h"
#include "runner/matrix/matrix.h"
#include "runner/matrix/matrix_longrun.h"
#include "runner/matrix/matrix_override.h"
#include "pricecheck.h"
#include "runner/matrix/pair_key.h"
#include "progress.h"
#include "run.h"
#include "runner/store/store.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: netsweep run MATRIX [--db FILE] [--label TEXT] [--dry-run] [--resume]\n"
		"                    [--jobs N] [--quiet] [--catalog FILE]... [--agent-wait TIME]\n"
		"                    [--retry-failed] [--lab FILE | --provision lab] [--psk-file FILE]\n"
		"                    [--only AXIS=VALUE[,VALUE...]]... [--set NAME=VALUE[,...]]...\n"
		"\n"
		"Runs every case of a matrix file (schemas/matrix.xsd) and stores the results.\n"
		"  --db FILE       results database (default $NETSWEEP_DB, else ./netsweep.db)\n"
		"  --label TEXT    a label stored with the run\n"
		"  --dry-run       list the cases, the estimated time and cost; run nothing\n"
		"  --only AXIS=V[,V...]  run only the cases with one of these values (pair=NAME:\n"
		"                  one pair); repeatable, all must match\n"
		"  --set NAME=V[,V...]   an axis's values, or repeats, cooldown, case-timeout,\n"
		"                  interval, order, seed, agent-wait, instead of the matrix's\n"
		"                  (--set repeats=1 --set duration=2s); repeatable. Overrides are\n"
		"                  stored with the run (runs.overrides) and part of its --resume key\n"
		"  --resume        continue the newest unfinished run of the same matrix\n"
		"  --jobs N        run cases of up to N different pairs at once (default 1)\n"
		"  --quiet         no progress output\n"
		"  --catalog FILE  an instance/price catalog over the default one (repeatable)\n"
		"  --agent-wait TIME  wait this long for a pair's agent that went away before the\n"
		"                  pair counts as down (default: the matrix's agent-wait, else 30s)\n"
		"  --retry-failed  with --resume: continue the newest run of the matrix, finished or\n"
		"                  not, and run its failed cases again\n"
		"  --lab FILE      run against the emulated pairs `netsweep lab up` printed into FILE\n"
		"                  (each pair by its name, else its instance type; results say emulated)\n"
		"  --provision lab every pair set up and torn down by data/provision/lab.sh (netsweep\n"
		"                  lab, root) instead of its own hooks; NETSWEEP_LAB_SCALE, _RATE and\n"
		"                  _CREDIT pass lab up's --scale, --rate and --credit\n"
		"  --psk-file FILE the key proven to every pair's agents without a psk-file of\n"
		"                  their own (default $NETSWEEP_PSK_FILE; netsweep key)\n"
		"At most %d runs (cases x repeats) per matrix. A matrix file is at most %u MiB and a\n"
		"catalog %u MiB; each is refused at its first error, its reading and checking bounded\n"
		"at %.0f CPU-seconds; a DOCTYPE is refused.\n", RUN_MAX_RUNS,
		XSDCHECK_MATRIX_MAX_BYTES >> 20, XSDCHECK_CATALOG_MAX_BYTES >> 20, XSDCHECK_MAX_CPU_S);
}

static void print_estimate(const struct pricecheck_estimate *e)
{
	char t[32];
	for (size_t i = 0; i < e->n; i++) {
		const struct pricecheck_pair *p = &e->pairs[i];
		progress_format_secs(p->seconds, t, sizeof(t));
		if (p->per_hour >= 0)
			printf("pair %s: %s measured at %.4f %s/hour = %.4f %s\n", p->name, t,
			       p->per_hour, p->currency, p->cost, p->currency);
		else
			printf("pair %s: %s measured, no price\n", p->name, t);
	}
	if (e->n - e->unpriced == 0)
		printf("estimated cost: unknown (no pair has a price)\n");
	else if (e->mixed)
		printf("estimated cost: per pair above (their prices are in several currencies)\n");
	else
		printf("estimated cost: %.4f %s for the measured time%s; provisioning and idle time "
		       "come on top\n", e->total, e->currency,
		       e->unpriced ? " of the priced pairs" : "");
}

static void dry_run(const struct matrix *m, const struct sweep_cases *cs, unsigned jobs,
		    const struct pricecheck_estimate *e)
{
	printf("matrix %s: %s\n", m->name, m->path);
	printf("%-6s %-16s %s\n", "case", "key", "parameters");
	for (size_t i = 0; i < cs->n; i++) {
		char what[1024];
		expand_describe(m, &cs->v[i], what, sizeof(what));
		printf("%-6zu %-16s %s\n", i + 1, cs->v[i].key, what);
	}
	char est[32];
	progress_format_secs(run_estimate(m, cs, jobs), est, sizeof(est));
	printf("%zu case%s (%zu excluded) x %u repeat%s = %zu run%s on %zu pair%s; estimated %s%s\n",
	       cs->n, NS_PLURAL(cs->n), cs->excluded, m->repeats, NS_PLURAL(m->repeats),
	       cs->n * m->repeats, NS_PLURAL(cs->n * m->repeats), m->n_pairs,
	       NS_PLURAL(m->n_pairs), est, jobs > 1 ? " with --jobs" : "");
	size_t longrun = mxlong_count(m, cs);
	if (longrun)
		printf("%zu long-run case%s (until sustained): counted at the duration, an upper bound; "
		       "each ends once its rate holds steady after a step down\n", longrun,
		       NS_PLURAL(longrun));
	if (m->search) {
		const struct search_cfg *sc = &m->search_cfg;
		uint32_t trials;
		double secs;
		search_bounds(sc, sc->max_load > 0 && sc->min_load > 0 ? sc->max_load / sc->min_load
								       : 1000, &trials, &secs);
		progress_format_secs(secs, est, sizeof(est));
		printf("every UDP case is a rate search for %u loss goal%s: at most %u trials and %s "
		       "each (worst case, counted in the estimate)\n", sc->n_goals,
		       NS_PLURAL(sc->n_goals), trials, est);
	}
	print_estimate(e);
}

static void warn_stderr(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "netsweep run: warning: %s\n", msg);
}

/* The catalogs load (a bad --catalog file is an input error) and every pair has its price;
 * with est, what the cases would cost. */
static int check_prices(const struct matrix *m, const struct sweep_cases *cs,
			const struct run_opts *o, struct pricecheck_estimate *est, struct ns_err *err)
{
	struct catalog cat;
	catalog_init(&cat);
	int rc = pricecheck_load(&cat, o->catalogs, o->n_catalogs, warn_stderr, NULL, err);
	bool priced = false;
	for (size_t i = 0; i < m->n_pairs; i++)
		priced |= m->pairs[i].instance_type[0] != 0;
	if (rc == 0 && priced)
		rc = pricecheck_pairs(m, &cat, warn_stderr, NULL, err) < 0 ? -1 : 0;
	if (rc == 0 && est)
		pricecheck_estimate(m, cs, &cat, est);
	catalog_free(&cat);
	return rc;
}

int cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},   {"label", required_argument, NULL, 'l'},
		{"dry-run", no_argument, NULL, 'n'},    {"resume", no_argument, NULL, 'r'},
		{"jobs", required_argument, NULL, 'j'}, {"quiet", no_argument, NULL, 'q'},
		{"catalog", required_argument, NULL, 'c'}, {"help", no_argument, NULL, 'h'},
		{"agent-wait", required_argument, NULL, 'w'}, {"retry-failed", no_argument, NULL, 'R'},
		{"lab", required_argument, NULL, 'L'}, {"provision", required_argument, NULL, 'P'},
		{"psk-file", required_argument, NULL, 'k'},
		{"only", required_argument, NULL, 'O'}, {"set", required_argument, NULL, 'S'},
		{NULL, 0, NULL, 0},
	};
	struct mxo_list ovr = {0};
	char *ovr_json = NULL;
	struct pricecheck_estimate *est = NULL;
	struct run_opts o = {.jobs = 1, .out = stdout, .agent_wait_s = -1};
	const char *db = getenv("NETSWEEP_DB");
	const char *lab = NULL;
	bool provision_lab = false;
	char **emulation = NULL;
	const char *psk = getenv("NETSWEEP_PSK_FILE");
	bool dry = false, quiet = false;
	struct ns_err err = {0};
	uint64_t u;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:l:nrj:qc:k:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': db = optarg; break;
		case 'l': o.label = optarg; break;
		case 'n': dry = true; break;
		case 'r': o.resume = true; break;
		case 'q': quiet = true; break;
		case 'L': lab = optarg; break;
		case 'P':
			if (strcmp(optarg, "lab")) {
				fprintf(stderr, "netsweep run: --provision %s: the one built-in provisioner "
					"is lab\n", optarg);
				return NS_EXIT_USAGE;
			}
			provision_lab = true;
			break;
		case 'k': psk = optarg; break;
		case 'j':
			if (units_parse_uint(optarg, 1, 64, &u, &err) < 0) {
				fprintf(stderr, "netsweep run: --jobs: %s\n", err.msg);
				return NS_EXIT_USAGE;
			}
			o.jobs = (unsigned)u;
			break;
		case 'c':
			if (o.n_catalogs >= RUN_MAX_CATALOGS) {
				fprintf(stderr, "netsweep run: at most %d --catalog files\n", RUN_MAX_CATALOGS);
				return NS_EXIT_USAGE;
			}
			o.catalogs[o.n_catalogs++] = optarg;
			break;
		case 'w':
			if (units_parse_duration(optarg, 86400, &o.agent_wait_s, &err) < 0) {
				fprintf(stderr, "netsweep run: --agent-wait: %s\n", err.msg);
				return NS_EXIT_USAGE;
			}
			break;
		case 'R': o.retry_failed = true; break;
		case 'O': case 'S':
			if (mxo_add(&ovr, c == 'S', optarg, &err) < 0) {
				fprintf(stderr, "netsweep run: %s\n", err.msg);
				return NS_EXIT_USAGE;
			}
			break;
		case 'h': usage(stdout); return NS_EXIT_OK;
		default:
			cli_option_error_hint(c, argv, longopts, &err);
			fprintf(stderr, "netsweep run: %s (see 'netsweep run --help')\n", err.msg);
			return NS_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "netsweep run: %s\n", optind >= argc ? "a matrix file is needed"
								 : "only one matrix file at a time");
		usage(stderr);
		return NS_EXIT_USAGE;
	}
	if (!db || !*db)
		db = "netsweep.db";
	if (o.retry_failed && !o.resume) {
		fprintf(stderr, "netsweep run: --retry-failed goes with --resume\n");
		return NS_EXIT_USAGE;
	}

	/* Everything that can be wrong with the input is found before the database is opened. */
	struct matrix m;
	struct sweep_cases cases = {0};
	struct store *st = NULL;
	int rc = NS_EXIT_USAGE;
	if (matrix_load(&m, argv[optind], &err) < 0) {
		fprintf(stderr, "netsweep run: %s\n", err.msg);
		return NS_EXIT_USAGE;
	}
	if (mxo_apply_sets(&m, &ovr, &err) < 0 || !(ovr_json = mxo_json(&ovr))) {
		fprintf(stderr, "netsweep run: %s\n", err.msg[0] ? err.msg : "out of memory");
		goto out;
	}
	o.overrides = ovr_json;
	if (lab && labpairs_apply(&m, lab, &emulation, &err) < 0) {
		fprintf(stderr, "netsweep run: %s\n", err.msg);
		goto out;
	}
	if (provision_lab) {
		int dropped = lab ? ns_err_code(&err, NS_E_USAGE, "--lab or --provision lab, not both")
				  : labpairs_hooks(&m, ns_datadir(), &err);
		if (dropped < 0) {
			fprintf(stderr, "netsweep run: %s\n", err.msg);
			goto out;
		}
		if (dropped)
			fprintf(stderr, "netsweep run: --provision lab: the matrix's own run setup and "
				"teardown are not run\n");
		/* lab.sh runs this very binary */
		char self[4096];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n > 0) {
			self[n] = '\0';
			setenv("NETSWEEP_BIN", self, 1);
		}
	}
	o.emulation = emulation;
	/* emulated instances: this host's metadata service (if any) is not theirs */
	if (lab || provision_lab)
		setenv("NETSWEEP_IMDS", "0", 1);
	if (pair_key_default(&m, psk, &err) < 0) {
		fprintf(stderr, "netsweep run: --psk-file: %s\n", err.msg);
		goto out;
	}
	if (expand_matrix(&m, &cases, &err) < 0 || mxo_filter(&m, &cases, &ovr, &err) < 0 ||
	    expand_check(&m, &cases, &err) < 0) {
		fprintf(stderr, "netsweep run: %s\n", err.msg);
		goto out;
	}
	if (run_check_size(&m, &cases, &err) < 0) {
		fprintf(stderr, "netsweep run: %s\n", err.msg);
		goto out;
	}
	if (dry && !(est = calloc(1, sizeof(*est)))) {
		fprintf(stderr, "netsweep run: out of memory\n");
		goto out;
	}
	if (check_prices(&m, &cases, &o, est, &err) < 0) {
		fprintf(stderr, "netsweep run: %s\n", err.msg);
		goto out;
	}
	mxo_doc_addresses(&m, warn_stderr, NULL);
	if (dry) {
		dry_run(&m, &cases, o.jobs, est);
		rc = NS_EXIT_OK;
		goto out;
	}
	o.progress = quiet ? PROGRESS_QUIET : isatty(STDOUT_FILENO) ? PROGRESS_LIVE : PROGRESS_LOG;
	st = store_open(db, &err);
	if (!st) {
		fprintf(stderr, "netsweep run: %s\n", err.msg);
		rc = err.code == NS_E_INPUT ? NS_EXIT_USAGE : NS_EXIT_FAIL; /* a newer database */
		goto out;
	}
	struct run_summary sum;
	if (run_execute(&m, &cases, st, &o, &sum, &err) < 0) {
		fprintf(stderr, "netsweep run: %s\n", err.msg);
		rc = NS_EXIT_FAIL;
		goto out;
	}
	if (!quiet)
		printf("run %lld%s: %zu ok, %zu failed, %zu stored before; results in %s\n",
		       (long long)sum.run_id, sum.resumed ? " (resumed)" : "", sum.ok, sum.failed,
		       sum.skipped, db);
	if (sum.down_pairs[0])
		fprintf(stderr, "netsweep run: down: %s; %zu case%s failed without being run "
			"(continue with --resume --retry-failed)\n", sum.down_pairs, sum.down_failed,
			sum.down_failed == 1 ? "" : "s");
	if (sum.leased_elsewhere)
		fprintf(stderr, "netsweep run: %zu case%s left to another runner continuing run %lld "
			"at the same time\n", sum.leased_elsewhere, sum.leased_elsewhere == 1 ? "" : "s",
			(long long)sum.run_id);
	if (sum.interrupted) {
		fprintf(stderr, "netsweep run: interrupted; continue with --resume\n");
		rc = NS_EXIT_FAIL;
	} else {
		rc = sum.failed ? NS_EXIT_FAIL : NS_EXIT_OK;
	}
out:
	free(est);
	free(ovr_json);
	store_close(st);
	expand_free(&cases);
	labpairs_free(emulation, m.n_pairs);
	matrix_free(&m);
	return rc;
}
