/* netsweep lab: instance pairs emulated on this host, for rehearsing a matrix for free.
 * `lab up` makes a namespace per pair, shaped with tbf to the type's network figures (times
 * --scale), starts an agent in it and prints the JSON a provisioning hook prints; `lab down`
 * removes everything of its prefix, also what a crashed `lab up` or run left. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/core/cmds.h"
#include "lib/cli.h"
#include "lib/err.h"
#include "lib/jsonw.h"
#include "lib/units.h"
#include "lib/catalog/catalog.h"
#include "runner/matrix/matrix.h"
#include "lab.h"
#include "shape.h"

#define MAX_CATALOGS 16
#define MAX_PAIRS 64

static void usage(FILE *f)
{
	fprintf(f,
		"usage: netsweep lab up [--matrix FILE | TYPE...] [--scale S] [--rate TYPE=RATE[,...]]...\n"
		"                       [--credit SECONDS] [--catalog FILE]... [--psk-file FILE] [--hook]\n"
		"                       [--clients N]\n"
		"       netsweep lab down [--pair NAME | --hook]\n"
		"       netsweep lab status\n"
		"  (each also takes --prefix P, default " LAB_DEFAULT_PREFIX ", and --dir DIR, default\n"
		"   $NETSWEEP_LAB_DIR or " LAB_DEFAULT_DIR ")\n"
		"\n"
		"Emulates instance pairs on this host (root): per pair a network namespace holding an\n"
		"agent on 198.18.N.2:%d, reached from this host over a veth shaped with tbf in both\n"
		"directions to the type's network figure from the catalog; an \"up to\" type gets its\n"
		"baseline as rate and its burst as peakrate over a credit bucket. Rates are TCP\n"
		"goodputs: tbf is set %.1f %% higher for the headers of full-size segments.\n"
		"  --matrix FILE    one lab pair per pair of the matrix (name and instance-type;\n"
		"                   its client-zone, agent-zone and regions go into the pair JSON,\n"
		"                   so that run --lab prices the pair's transfer by its relation)\n"
		"  TYPE...          one lab pair per instance type named (the pair takes its name)\n"
		"  --scale S        every rate times S (1/100, 0.01; default 1), stated in the results\n"
		"  --rate T=R,...   the goodput of type T (436M), over the catalog's figure\n"
		"  --credit S       seconds an \"up to\" type keeps its peak from a full bucket (default %.0f)\n"
		"  --catalog FILE   an instance catalog over the default one (repeatable)\n"
		"  --psk-file FILE  the agents' key file (default $NETSWEEP_PSK_FILE; without one\n"
		"                   the lab makes its own, DIR/PREFIX.psk, mode 0600, removed by\n"
		"                   lab down); the JSON names it as psk_file, which run --lab and\n"
		"                   run --provision lab use\n"
		"  --hook           as a provisioning hook: the pair is $NETSWEEP_PAIR of type\n"
		"                   $NETSWEEP_INSTANCE_TYPE (key $NETSWEEP_PSK_FILE); up prints that\n"
		"                   pair's object only, down removes that pair only\n"
		"  --pair NAME      down: only this pair\n"
		"  --clients N      incast: each pair also gets N client namespaces (1..%d) on a bridge\n"
		"                   in front of its shaped link, each with an agent that sends on the\n"
		"                   runner's behalf (198.18.N.%d..); the JSON lists them as \"clients\".\n"
		"                   With --matrix, an incast <group> gets one per member by itself\n"
		"Then: netsweep run MATRIX --lab FILE, FILE holding what `lab up` printed.\n",
		LAB_AGENT_PORT, (LAB_TCP_FRAME - LAB_TCP_PAYLOAD) * 100.0 / LAB_TCP_PAYLOAD,
		LAB_DEFAULT_CREDIT_S, LAB_MAX_CLIENTS, LAB_CLIENT_HOST0);
}

struct lab_cfg {
	const char *prefix, *dir, *matrix, *psk_file, *pair, *scale_text;
	double scale, credit_s;
	size_t clients;
	struct lab_rate rates[LAB_MAX_RATES];
	size_t n_rates;
	const char *catalogs[MAX_CATALOGS];
	size_t n_catalogs;
	bool hook;
};

static int usage_error(const struct ns_err *err)
{
	fprintf(stderr, "netsweep lab: %s\n", err->msg);
	usage(stderr);
	return NS_EXIT_USAGE;
}

static int parse(int argc, char **argv, struct lab_cfg *c, struct ns_err *err)
{
	static const struct option longopts[] = {
		{"prefix", required_argument, NULL, 'p'}, {"dir", required_argument, NULL, 'D'},
		{"matrix", required_argument, NULL, 'm'}, {"scale", required_argument, NULL, 's'},
		{"rate", required_argument, NULL, 'r'},   {"credit", required_argument, NULL, 'C'},
		{"catalog", required_argument, NULL, 'c'}, {"psk-file", required_argument, NULL, 'k'},
		{"hook", no_argument, NULL, 'H'},         {"pair", required_argument, NULL, 'P'},
		{"clients", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
	};
	int ch;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'p': c->prefix = optarg; break;
		case 'D': c->dir = optarg; break;
		case 'm': c->matrix = optarg; break;
		case 'k': c->psk_file = optarg; break;
		case 'H': c->hook = true; break;
		case 'P': c->pair = optarg; break;
		case 's':
			if (lab_scale_parse(optarg, &c->scale, err) < 0)
				return -1;
			c->scale_text = optarg;
			break;
		case 'r':
			if (lab_rates_parse(optarg, c->rates, LAB_MAX_RATES, &c->n_rates, err) < 0)
				return -1;
			break;
		case 'C':
			if (units_parse_duration(optarg, 3600, &c->credit_s, err) < 0) {
				ns_err_prefix(err, "--credit");
				return -1;
			}
			break;
		case 'n': {
			uint64_t v;
			if (units_parse_uint(optarg, 1, LAB_MAX_CLIENTS, &v, err) < 0) {
				ns_err_prefix(err, "--clients");
				return -1;
			}
			c->clients = (size_t)v;
			break;
		}
		case 'c':
			if (c->n_catalogs >= MAX_CATALOGS)
				return ns_err_set(err, "at most %d --catalog files", MAX_CATALOGS);
			c->catalogs[c->n_catalogs++] = optarg;
			break;
		case 'h': return 1;
		default: return cli_option_error_hint(ch, argv, longopts, err);
		}
	}
	return 0;
}

static int load_catalog(const struct lab_cfg *c, struct catalog *cat, struct ns_err *err)
{
	catalog_init(cat);
	if (catalog_load(cat, catalog_default_path(), err) < 0)
		return -1;
	for (size_t i = 0; i < c->n_catalogs; i++)
		if (catalog_load(cat, c->catalogs[i], err) < 0)
			return -1;
	return 0;
}

/* The pairs to emulate: the matrix's, the types named, or the hook's one. */
static int pick_pairs(const struct lab_cfg *c, int argc, char **argv, struct lab_pair *v,
		      size_t *n, struct ns_err *err)
{
	*n = 0;
	if (c->hook) {
		const char *pair = getenv("NETSWEEP_PAIR"), *type = getenv("NETSWEEP_INSTANCE_TYPE");
		if (!pair || !*pair)
			return ns_err_code(err, NS_E_USAGE, "--hook: NETSWEEP_PAIR is not set");
		if (!type || !*type)
			type = pair;
		if (strlen(pair) >= sizeof(v->pair) || strlen(type) >= sizeof(v->type))
			return ns_err_code(err, NS_E_USAGE, "--hook: pair or type name too long");
		snprintf(v[0].pair, sizeof(v->pair), "%s", pair);
		snprintf(v[0].type, sizeof(v->type), "%s", type);
		v[0].n_clients = c->clients;
		*n = 1;
		return 0;
	}
	if (c->matrix) {
		if (optind < argc)
			return ns_err_code(err, NS_E_USAGE, "--matrix or instance types, not both");
		struct matrix m;
		if (matrix_load(&m, c->matrix, err) < 0)
			return -1;
		int rc = 0;
		if (m.n_pairs == 0 || m.n_pairs > MAX_PAIRS)
			rc = ns_err_code(err, NS_E_INPUT, "%s: a lab emulates 1 to %d pairs, the matrix "
					 "has %zu", c->matrix, MAX_PAIRS, m.n_pairs);
		for (size_t i = 0; !rc && i < m.n_pairs; i++) {
			const struct matrix_pair *mp = &m.pairs[i];
			if (!mp->instance_type[0]) {
				rc = ns_err_code(err, NS_E_INPUT, "%s:%d: pair %s: a lab pair needs an "
						 "instance-type", c->matrix, mp->line, mp->name);
				break;
			}
			snprintf(v[i].pair, sizeof(v->pair), "%s", mp->name);
			snprintf(v[i].type, sizeof(v->type), "%s", mp->instance_type);
			/* the placement the matrix states, for run --lab's relation */
			snprintf(v[i].client_zone, sizeof(v->client_zone), "%s", mp->client_zone);
			snprintf(v[i].agent_zone, sizeof(v->agent_zone), "%s", mp->agent_zone);
			snprintf(v[i].client_region, sizeof(v->client_region), "%s",
				 mp->client_region[0] ? mp->client_region : mp->region);
			snprintf(v[i].agent_region, sizeof(v->agent_region), "%s",
				 mp->agent_region[0] ? mp->agent_region : mp->region);
			v[i].n_clients = c->clients;
			if (mp->group == MX_GROUP_FANOUT)
				rc = ns_err_code(err, NS_E_INPUT, "%s:%d: group %s: the lab emulates "
						 "incast groups (a fan-out's agents are pairs)",
						 c->matrix, mp->line, mp->name);
			else if (mp->group == MX_GROUP_INCAST && mp->n_members > LAB_MAX_CLIENTS)
				rc = ns_err_code(err, NS_E_INPUT, "%s:%d: group %s: the lab emulates at "
						 "most %d clients", c->matrix, mp->line, mp->name,
						 LAB_MAX_CLIENTS);
			else if (mp->group == MX_GROUP_INCAST)
				v[i].n_clients = mp->n_members;
			(*n)++;
		}
		matrix_free(&m);
		return rc;
	}
	if (optind >= argc)
		return ns_err_code(err, NS_E_USAGE, "name instance types or give --matrix FILE");
	for (int i = optind; i < argc; i++) {
		if (*n >= MAX_PAIRS)
			return ns_err_code(err, NS_E_USAGE, "at most %d pairs", MAX_PAIRS);
		if (strlen(argv[i]) >= sizeof(v->type))
			return ns_err_code(err, NS_E_USAGE, "instance type '%s' is too long", argv[i]);
		snprintf(v[*n].pair, sizeof(v->pair), "%s", argv[i]);
		snprintf(v[*n].type, sizeof(v->type), "%s", argv[i]);
		v[*n].n_clients = c->clients;
		(*n)++;
	}
	return 0;
}

static int need_root(const char *what)
{
	if (geteuid() == 0)
		return 0;
	fprintf(stderr, "netsweep lab %s: needs root (network namespaces, veth, tc)\n", what);
	return -1;
}

static int lab_up_cmd(const struct lab_cfg *c, int argc, char **argv)
{
	struct ns_err err = {0};
	struct lab_pair pairs[MAX_PAIRS];
	struct catalog cat;
	struct lab lab = {.lock_fd = -1};
	size_t n = 0, made = 0;
	int rc = NS_EXIT_USAGE;
	memset(pairs, 0, sizeof(pairs));
	catalog_init(&cat);
	if (pick_pairs(c, argc, argv, pairs, &n, &err) < 0 || load_catalog(c, &cat, &err) < 0)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		const struct lab_rate *r = lab_rate_find(c->rates, c->n_rates, pairs[i].type);
		if (lab_shape_for(pairs[i].type, catalog_instance(&cat, pairs[i].type), r ? r->bps : 0,
				  c->scale, c->credit_s, &pairs[i].shape, &err) < 0)
			goto fail;
		pairs[i].scale_text = c->scale_text;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(pairs[i].pair, pairs[j].pair)) {
				ns_err_code(&err, NS_E_USAGE, "pair %s named twice", pairs[i].pair);
				goto fail;
			}
	}
	rc = NS_EXIT_FAIL;
	if (need_root("up") < 0)
		goto out;
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0) {
		ns_err_sys(&err, "/proc/self/exe");
		goto fail;
	}
	self[len] = '\0';
	if (lab_open(&lab, c->dir, c->prefix, &err) < 0) {
		rc = err.code == NS_E_USAGE ? NS_EXIT_USAGE : NS_EXIT_FAIL;
		goto fail;
	}
	for (size_t i = 0; i < n; i++)
		if (lab_has_pair(&lab, pairs[i].pair)) {
			ns_err_code(&err, NS_E_USAGE, "pair %s is up already (netsweep lab down%s%s)",
				    pairs[i].pair, c->hook ? " --pair " : "", c->hook ? pairs[i].pair : "");
			goto fail;
		}
	/* an agent without a key serves loopback clients only, and the lab's are reached over
	 * veths: given none, the pairs get the lab's own (lab_pair_up) */
	const char *psk = c->psk_file;
	if (!psk)
		psk = getenv("NETSWEEP_PSK_FILE");
	for (; made < n; made++)
		if (lab_pair_up(&lab, &pairs[made], self, psk, &err) < 0) {
			ns_err_prefix(&err, "pair %s", pairs[made].pair);
			goto fail;
		}
	struct jsonw w;
	jsonw_init(&w, true);
	if (c->hook) {
		lab_pair_json(&w, &pairs[0]);
	} else {
		jsonw_obj_open(&w);
		jsonw_key(&w, "lab");
		jsonw_obj_open(&w);
		jsonw_kv_str(&w, "prefix", lab.prefix);
		jsonw_kv_str(&w, "state_dir", lab.dir);
		jsonw_kv_double(&w, "scale", c->scale);
		jsonw_kv_str(&w, "scale_text", c->scale_text);
		jsonw_kv_str(&w, "psk_file", pairs[0].psk_file);
		jsonw_obj_close(&w);
		jsonw_key(&w, "pairs");
		jsonw_arr_open(&w);
		for (size_t i = 0; i < n; i++)
			lab_pair_json(&w, &pairs[i]);
		jsonw_arr_close(&w);
		jsonw_obj_close(&w);
	}
	const char *text = jsonw_finish(&w);
	if (text)
		printf("%s\n", text);
	jsonw_free(&w);
	if (!c->hook && (!psk || !psk[0]))
		fprintf(stderr, "netsweep lab up: no key given: the agents prove the lab's own, %s "
			"(removed by lab down; probe them with --psk-file %s)\n", pairs[0].psk_file,
			pairs[0].psk_file);
	rc = NS_EXIT_OK;
	goto out;
fail:
	fprintf(stderr, "netsweep lab up: %s\n", err.msg);
	if (err.code == NS_E_USAGE || err.code == NS_E_INPUT)
		rc = NS_EXIT_USAGE;
	/* all or nothing: the pairs this call made go again */
	for (size_t i = 0; i < made; i++) {
		struct ns_err ignored;
		lab_down(&lab, pairs[i].pair, &ignored);
	}
out:
	lab_close(&lab);
	catalog_free(&cat);
	return rc;
}

static int lab_down_cmd(const struct lab_cfg *c, const char *what)
{
	struct ns_err err = {0};
	struct lab lab;
	const char *pair = c->pair;
	if (c->hook && !pair && !(pair = getenv("NETSWEEP_PAIR")))
		return usage_error(&(struct ns_err){NS_E_USAGE, "--hook: NETSWEEP_PAIR is not set"});
	if (need_root(what) < 0)
		return NS_EXIT_FAIL;
	if (lab_open(&lab, c->dir, c->prefix, &err) < 0) {
		fprintf(stderr, "netsweep lab %s: %s\n", what, err.msg);
		return err.code == NS_E_USAGE ? NS_EXIT_USAGE : NS_EXIT_FAIL;
	}
	int rc = NS_EXIT_OK;
	if (!strcmp(what, "status")) {
		struct jsonw w;
		jsonw_init(&w, true);
		if (lab_status(&lab, &w, &err) == 0 && jsonw_finish(&w))
			printf("%s\n", jsonw_finish(&w));
		jsonw_free(&w);
	} else {
		int removed = lab_down(&lab, pair, &err);
		if (removed < 0) {
			fprintf(stderr, "netsweep lab down: %s\n", err.msg);
			rc = NS_EXIT_FAIL;
		} else if (!c->hook) {
			fprintf(stderr, "netsweep lab down: removed %d pair%s of prefix %s\n", removed,
				removed == 1 ? "" : "s", lab.prefix);
		}
	}
	lab_close(&lab);
	return rc;
}

int cmd_lab(int argc, char **argv)
{
	struct lab_cfg c = {.prefix = LAB_DEFAULT_PREFIX, .scale = 1, .scale_text = "1",
			    .credit_s = LAB_DEFAULT_CREDIT_S};
	struct ns_err err = {0};
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? NS_EXIT_USAGE : NS_EXIT_OK;
	}
	const char *what = argv[1];
	int r = parse(argc - 1, argv + 1, &c, &err);
	if (r > 0) {
		usage(stdout);
		return NS_EXIT_OK;
	}
	if (r < 0)
		return usage_error(&err);
	if (!strcmp(what, "up"))
		return lab_up_cmd(&c, argc - 1, argv + 1);
	if (strcmp(what, "down") && strcmp(what, "status")) {
		ns_err_set(&err, "'%s' is not a lab command (up, down, status)", what);
		return usage_error(&err);
	}
	if (cli_no_operands(argc - 1, argv + 1, &err) < 0)
		return usage_error(&err);
	return lab_down_cmd(&c, what);
}
