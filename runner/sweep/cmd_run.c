/* netsweep run: loads and checks a matrix, then lists its cases (--dry-run) or runs what is
 * missing of it into the database. Exit 0 when every case succeeded, 1 when some failed (or the
 * run could not go on), 2 for usage and matrix errors — which never touch the database. */
#include <getopt.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/core/cmds.h"
#include "lib/cli.h"
#include "lib/sys/datadir.h"
#include "lib/err.h"
#include "lib/textesc.h"
#include "lib/units.h"
#include "lib/xml/xsdcheck.h"
#include "runner/agent/agent.h"
#include "lib/catalog/catalog.h"
#include "runner/matrix/expand.h"
#include "runner/pairs/kubepairs.h"
#include "runner/pairs/labpairs.h"
#include "runner/matrix/matrix.h"
#include "runner/matrix/matrix_longrun.h"
#include "runner/matrix/matrix_override.h"
#include "pricecheck.h"
#include "runner/matrix/pair_key.h"
#include "progress.h"
#include "run.h"
#include "runner/store/store.h"
#include "runner/mesh/mesh_rounds.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: netsweep run MATRIX [--db FILE] [--label TEXT] [--dry-run] [--resume]\n"
		"                    [--jobs N] [--quiet] [--catalog FILE]... [--agent-wait TIME]\n"
		"                    [--retry-failed] [--lab FILE | --provision lab] [--psk-file FILE]\n"
		"                    [--only AXIS=VALUE[,VALUE...]]... [--set NAME=VALUE[,...]]...\n"
		"                    [--seed N]\n"
		"\n"
		"Runs every case of a matrix file (schemas/matrix.xsd) and stores the results.\n"
		"  --db FILE       results database (default $NETSWEEP_DB, else ./netsweep.db)\n"
		"  --label TEXT    a label stored with the run (printable UTF-8, at most 200 bytes)\n"
		"  --dry-run       list the cases, the estimated time and cost; run nothing\n"
		"  --only AXIS=V[,V...]  run only the cases with one of these values (pair=NAME:\n"
		"                  one pair; instance-type=T: the pairs of type T or of family T\n"
		"                  as the catalog states it); repeatable, all must match\n"
		"  --set NAME=V[,V...]   an axis's values, or repeats, cooldown, case-timeout,\n"
		"                  interval, order, seed, agent-wait, instead of the matrix's\n"
		"                  (--set repeats=1 --set duration=2s); repeatable. Overrides are\n"
		"                  stored with the run (runs.overrides) and part of its --resume key\n"
		"  --seed N        order=\"shuffled\" with this seed (as --set order=shuffled\n"
		"                  --set seed=N): replays the order of the run that recorded N\n"
		"                  (runs.seed)\n"
		"  --resume        continue the newest unfinished run of the same matrix\n"
		"  --jobs N        run cases of up to N different pairs at once (default 1); a\n"
		"                  <mesh>'s pairs run in rounds, never a host in two tests at once\n"
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

/* A mesh's rounds: which host pairs each round runs, both directions. */
static void mesh_dry_run(const struct matrix *m, unsigned jobs)
{
	int *round = calloc(m->n_pairs ? m->n_pairs : 1, sizeof(int));
	struct ns_err e;
	int n = round ? mesh_rounds(m, round, &e) : -1;
	if (n < 0)
		printf("mesh schedule: %s\n", round ? e.msg : "out of memory");
	for (int r = 0; r < n; r++) {
		size_t tests = 0, hosts = 0; /* ordered pairs; host pairs (A->B with B->A once) */
		for (size_t i = 0; i < m->n_pairs; i++) {
			if (round[i] != r)
				continue;
			tests++;
			bool back = false;
			for (size_t j = 0; j < i; j++)
				back |= round[j] == r && !strcmp(m->pairs[j].client_name,
								 m->pairs[i].agent_name) &&
					!strcmp(m->pairs[j].agent_name, m->pairs[i].client_name);
			hosts += !back;
		}
		size_t at_once = hosts < jobs ? hosts : jobs;
		printf("mesh round %d of %d: %zu pair%s, %zu at once (--jobs %u):", r + 1, n, tests,
		       NS_PLURAL(tests), at_once, jobs);
		for (size_t i = 0; i < m->n_pairs; i++)
			if (round[i] == r)
				printf(" %s", m->pairs[i].name);
		printf("\n");
	}
	if (n > 1 && m->order == MX_ORDER_SHUFFLED)
		printf("mesh rounds: order=\"shuffled\" runs them in the order its seed gives the "
		       "cases, not as listed\n");
	free(round);
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
	for (size_t i = 0; i < m->n_pairs; i++) { /* a group's tests, started together */
		const struct matrix_pair *p = &m->pairs[i];
		if (p->group == MX_GROUP_NONE)
			continue;
		printf("group %s (%s, %zu members, started together as one case):", p->name,
		       p->group == MX_GROUP_INCAST ? "incast" : "fan-out", p->n_members);
		for (size_t k = 0; k < p->n_members; k++) {
			const struct matrix_member *mb = &p->members[k];
			char from[300] = "this host";
			if (mb->client_host[0])
				snprintf(from, sizeof(from), "%s:%u", mb->client_host, mb->client_port);
			printf(" %s %s -> %s:%u%s", mb->name, from, mb->agent_host, mb->agent_port,
			       k + 1 < p->n_members ? ";" : "\n");
		}
	}
	mesh_dry_run(m, jobs);
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

/* ---- the process: signals ------------------------------------------------------------- */

/* SIGINT or SIGTERM asks the run to stop (no new case starts, the run is left interrupted
 * for --resume); the handler goes back to the default at once, so a second one ends the
 * runner there and then. */
static atomic_int stop_requested;
static struct agent *loopback_agent; /* in the forked loopback agent: the one to stop */

static void on_stop_signal(int sig)
{
	(void)sig;
	atomic_store(&stop_requested, 1);
}

static void on_loopback_term(int sig)
{
	(void)sig;
	if (loopback_agent)
		agent_stop(loopback_agent); /* only stores a flag and writes a pipe */
}

/* In the loopback agent's child, which has a process group of its own: only the runner's
 * SIGTERM (loopback_stop) ends it, never a Ctrl-C that should still reach it. */
static void loopback_signals(struct agent *a)
{
	struct sigaction term = {.sa_handler = on_loopback_term}, ign = {.sa_handler = SIG_IGN};
	loopback_agent = a;
	sigaction(SIGTERM, &term, NULL);
	sigaction(SIGINT, &ign, NULL);
}

struct saved_signals {
	struct sigaction intr, term, pipe;
};

static void signals_install(struct saved_signals *old)
{
	struct sigaction stop = {.sa_handler = on_stop_signal, .sa_flags = SA_RESETHAND};
	struct sigaction ign = {.sa_handler = SIG_IGN};
	atomic_store(&stop_requested, 0);
	sigaction(SIGINT, &stop, &old->intr);
	sigaction(SIGTERM, &stop, &old->term);
	sigaction(SIGPIPE, &ign, &old->pipe); /* a lost peer is an error of its call, not death */
}

static void signals_restore(const struct saved_signals *old)
{
	sigaction(SIGINT, &old->intr, NULL);
	sigaction(SIGTERM, &old->term, NULL);
	sigaction(SIGPIPE, &old->pipe, NULL);
}

/* ---- the command line ------------------------------------------------------------------ */

struct run_cmd {
	const char *matrix_path;
	const char *db;                    /* --db, else $NETSWEEP_DB, else netsweep.db */
	const char *lab;                   /* --lab FILE */
	bool provision_lab;                /* --provision lab */
	const char *psk;                   /* --psk-file, else $NETSWEEP_PSK_FILE */
	bool dry, quiet;
	struct mxo_list ovr;               /* --only and --set */
	char seed_set[2][48];              /* --seed N as --set order=shuffled --set seed=N */
	struct run_opts o;
	bool show_usage;                   /* the error is about the arguments as a whole */
};

static void run_cmd_init(struct run_cmd *c)
{
	memset(c, 0, sizeof(*c));
	c->db = cli_db_default();
	c->psk = getenv("NETSWEEP_PSK_FILE");
	c->o.jobs = 1;
	c->o.out = stdout;
	c->o.agent_wait_s = -1;
}

/* argv into c: 0, 1 when --help was asked (and printed), -1 with err (NS_E_USAGE). */
static int run_cmd_parse(struct run_cmd *c, int argc, char **argv, struct ns_err *err)
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
		{"seed", required_argument, NULL, 's'},
		{NULL, 0, NULL, 0},
	};
	uint64_t u;
	int opt;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":d:l:nrj:qc:k:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd': c->db = optarg; break;
		case 'l': c->o.label = optarg; break;
		case 'n': c->dry = true; break;
		case 'r': c->o.resume = true; break;
		case 'q': c->quiet = true; break;
		case 'L': c->lab = optarg; break;
		case 'P':
			if (strcmp(optarg, "lab"))
				return ns_err_code(err, NS_E_USAGE, "--provision %s: the one built-in "
						   "provisioner is lab", optarg);
			c->provision_lab = true;
			break;
		case 'k': c->psk = optarg; break;
		case 'j':
			if (units_parse_uint(optarg, 1, 64, &u, err) < 0) {
				ns_err_prefix(err, "--jobs");
				err->code = NS_E_USAGE;
				return -1;
			}
			c->o.jobs = (unsigned)u;
			break;
		case 'c':
			if (c->o.n_catalogs >= RUN_MAX_CATALOGS)
				return ns_err_code(err, NS_E_USAGE, "at most %d --catalog files",
						   RUN_MAX_CATALOGS);
			c->o.catalogs[c->o.n_catalogs++] = optarg;
			break;
		case 'w':
			if (units_parse_duration(optarg, 86400, &c->o.agent_wait_s, err) < 0) {
				ns_err_prefix(err, "--agent-wait");
				err->code = NS_E_USAGE;
				return -1;
			}
			break;
		case 'R': c->o.retry_failed = true; break;
		case 'O': case 'S':
			if (mxo_add(&c->ovr, opt == 'S', optarg, err) < 0) {
				err->code = NS_E_USAGE;
				return -1;
			}
			break;
		case 's':
			if (units_parse_uint(optarg, 0, UINT32_MAX, &u, err) < 0) {
				ns_err_prefix(err, "--seed");
				err->code = NS_E_USAGE;
				return -1;
			}
			snprintf(c->seed_set[0], sizeof(c->seed_set[0]), "order=shuffled");
			snprintf(c->seed_set[1], sizeof(c->seed_set[1]), "seed=%llu",
				 (unsigned long long)u);
			if (mxo_add(&c->ovr, 1, c->seed_set[0], err) < 0 ||
			    mxo_add(&c->ovr, 1, c->seed_set[1], err) < 0) {
				err->code = NS_E_USAGE;
				return -1;
			}
			break;
		case 'h': usage(stdout); return 1;
		default: {
			struct ns_err hint = {0};
			cli_option_error_hint(opt, argv, longopts, &hint);
			return ns_err_code(err, NS_E_USAGE, "%s (see 'netsweep run --help')", hint.msg);
		}
		}
	}
	if (optind + 1 != argc) {
		c->show_usage = true;
		return ns_err_code(err, NS_E_USAGE, "%s", optind >= argc ? "a matrix file is needed"
								      : "only one matrix file at a time");
	}
	c->matrix_path = argv[optind];
	return 0;
}

/* A label is shown in every report, page and feed: printable UTF-8 (lib/textesc.h changes
 * nothing in it) and at most RUN_LABEL_MAX bytes. Text that is already stored is made safe
 * where it is written; here it is refused where it enters. */
#define RUN_LABEL_MAX 200
static int check_label(const char *label, struct ns_err *err)
{
	size_t len = strlen(label);
	if (len == 0 || len > RUN_LABEL_MAX)
		return ns_err_code(err, NS_E_USAGE, "--label: %zu bytes; a label is 1 to %d bytes",
				   len, RUN_LABEL_MAX);
	for (size_t i = 0, take; label[i]; i += take) {
		char esc[8];
		take = textesc_step(label + i, esc, 0);
		if (esc[0])
			return ns_err_code(err, NS_E_USAGE, "--label: %s at byte %zu; a label is "
					   "printable UTF-8 text, without control characters",
					   esc[1] == 'x' && (unsigned char)label[i] >= 0x80
					   ? "a byte that is not UTF-8" : "a control character", i + 1);
	}
	return 0;
}

/* What the options say together: -1 with err (NS_E_USAGE) when they conflict. */
static int run_cmd_validate(struct run_cmd *c, struct ns_err *err)
{
	if (!c->db || !*c->db)
		c->db = "netsweep.db";
	if (c->o.retry_failed && !c->o.resume)
		return ns_err_code(err, NS_E_USAGE, "--retry-failed goes with --resume");
	if (c->lab && c->provision_lab)
		return ns_err_code(err, NS_E_USAGE, "--lab or --provision lab, not both");
	if (c->o.label && check_label(c->o.label, err) < 0)
		return -1;
	c->o.progress = c->quiet ? PROGRESS_QUIET
			: isatty(STDOUT_FILENO) ? PROGRESS_LIVE : PROGRESS_LOG;
	return 0;
}

/* ---- the run --------------------------------------------------------------------------- */

/* What the run needs besides the options, made from them. */
struct run_input {
	struct matrix m;
	struct sweep_cases cases;
	char *ovr_json;
	char **emulation;                  /* --lab: per pair */
	struct pricecheck_estimate *est;   /* --dry-run */
};

static void run_input_free(struct run_input *in)
{
	free(in->est);
	free(in->ovr_json);
	expand_free(&in->cases);
	labpairs_free(in->emulation, in->m.n_pairs);
	matrix_free(&in->m);
}

/* --provision lab: every pair's hooks are data/provision/lab.sh's, which runs this binary. */
static int provision_lab(struct matrix *m, struct ns_err *err)
{
	int dropped = labpairs_hooks(m, ns_datadir(), err);
	if (dropped < 0)
		return -1;
	if (dropped)
		fprintf(stderr, "netsweep run: --provision lab: the matrix's own run setup and "
			"teardown are not run\n");
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		setenv("NETSWEEP_BIN", self, 1);
	}
	return 0;
}

static bool catalog_matches(const void *ctx, const char *type, const char *want)
{
	return catalog_type_matches(ctx, type, want);
}

/* --only: an instance-type selection answers to the families the catalogs state. */
static int filter_cases(struct run_cmd *c, struct run_input *in, struct ns_err *err)
{
	struct catalog cat;
	bool by_type = false;
	for (size_t k = 0; k < c->ovr.n_only; k++)
		by_type |= !strncmp(c->ovr.only[k], "instance-type=", 14);
	catalog_init(&cat);
	int rc = by_type ? pricecheck_load(&cat, c->o.catalogs, c->o.n_catalogs, warn_stderr, NULL,
					   err) : 0;
	c->ovr.type_matches = by_type ? catalog_matches : NULL;
	c->ovr.type_ctx = &cat;
	if (rc == 0)
		rc = mxo_filter(&in->m, &in->cases, &c->ovr, err);
	c->ovr.type_matches = NULL;
	c->ovr.type_ctx = NULL;
	catalog_free(&cat);
	return rc;
}

/* Everything that can be wrong with the input, found before the database is opened: the
 * matrix, the overrides, the lab pairs, the key, the cases and the prices. -1 with err. */
static int run_prepare(struct run_cmd *c, struct run_input *in, struct ns_err *err)
{
	if (matrix_load(&in->m, c->matrix_path, err) < 0 || kubepairs_load(&in->m, err) < 0)
		return -1;
	if (mxo_apply_sets(&in->m, &c->ovr, err) < 0)
		return -1;
	if (!(in->ovr_json = mxo_json(&c->ovr)))
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	c->o.overrides = in->ovr_json;
	if (c->lab && labpairs_apply(&in->m, c->lab, &in->emulation, err) < 0)
		return -1;
	if (c->provision_lab && provision_lab(&in->m, err) < 0)
		return -1;
	c->o.emulation = in->emulation;
	/* emulated instances: this host's metadata service (if any) is not theirs */
	if (c->lab || c->provision_lab)
		setenv("NETSWEEP_IMDS", "0", 1);
	if (pair_key_default(&in->m, c->psk, err) < 0) {
		ns_err_prefix(err, "--psk-file");
		return -1;
	}
	if (expand_matrix(&in->m, &in->cases, err) < 0 || filter_cases(c, in, err) < 0 ||
	    expand_check(&in->m, &in->cases, err) < 0 || run_check_size(&in->m, &in->cases, err) < 0)
		return -1;
	if (c->dry && !(in->est = calloc(1, sizeof(*in->est))))
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	if (check_prices(&in->m, &in->cases, &c->o, in->est, err) < 0)
		return -1;
	mxo_doc_addresses(&in->m, warn_stderr, NULL);
	return 0;
}

static int report_summary(const struct run_cmd *c, const struct run_summary *sum)
{
	if (!c->quiet)
		printf("run %lld%s: %zu ok, %zu failed, %zu stored before; results in %s\n",
		       (long long)sum->run_id, sum->resumed ? " (resumed)" : "", sum->ok,
		       sum->failed, sum->skipped, c->db);
	if (sum->down_pairs[0])
		fprintf(stderr, "netsweep run: down: %s; %zu case%s failed without being run "
			"(continue with --resume --retry-failed)\n", sum->down_pairs,
			sum->down_failed, sum->down_failed == 1 ? "" : "s");
	if (sum->leased_elsewhere)
		fprintf(stderr, "netsweep run: %zu case%s left to another runner continuing run %lld "
			"at the same time\n", sum->leased_elsewhere,
			sum->leased_elsewhere == 1 ? "" : "s", (long long)sum->run_id);
	if (sum->interrupted) {
		fprintf(stderr, "netsweep run: interrupted; continue with --resume\n");
		return NS_EXIT_FAIL;
	}
	return sum->failed ? NS_EXIT_FAIL : NS_EXIT_OK;
}

/* Opens the database and runs what is missing, with the process's signals the runner's:
 * the exit code. */
static int run_store(struct run_cmd *c, struct run_input *in)
{
	struct ns_err err = {0};
	struct store *st = store_open(c->db, &err);
	if (!st) {
		fprintf(stderr, "netsweep run: %s\n", err.msg);
		return err.code == NS_E_INPUT ? NS_EXIT_USAGE : NS_EXIT_FAIL; /* a newer database */
	}
	struct saved_signals old;
	struct run_summary sum;
	c->o.stop = &stop_requested;
	c->o.loopback_child = loopback_signals;
	signals_install(&old);
	int rc = run_execute(&in->m, &in->cases, st, &c->o, &sum, &err);
	signals_restore(&old);
	store_close(st);
	if (rc < 0) {
		fprintf(stderr, "netsweep run: %s\n", err.msg);
		return NS_EXIT_FAIL;
	}
	return report_summary(c, &sum);
}

int cmd_run(int argc, char **argv)
{
	struct run_cmd c;
	struct run_input in = {0};
	struct ns_err err = {0};
	run_cmd_init(&c);
	int parsed = run_cmd_parse(&c, argc, argv, &err);
	if (parsed == 1)
		return NS_EXIT_OK;
	if (parsed < 0 || run_cmd_validate(&c, &err) < 0) {
		fprintf(stderr, "netsweep run: %s\n", err.msg);
		if (c.show_usage)
			usage(stderr);
		return NS_EXIT_USAGE;
	}
	int rc = NS_EXIT_USAGE; /* input errors never touch the database */
	if (run_prepare(&c, &in, &err) < 0) {
		fprintf(stderr, "netsweep run: %s\n", err.msg);
	} else if (c.dry) {
		dry_run(&in.m, &in.cases, c.o.jobs, in.est);
		rc = NS_EXIT_OK;
	} else {
		rc = run_store(&c, &in);
	}
	run_input_free(&in);
	return rc;
}
