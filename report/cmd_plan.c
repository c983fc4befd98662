/* cmd_plan: `netsweep plan` — given a need (--move 50TB a month, or --hold 10G, optionally
 * --between two places or at one --relation), which instance type, how many pairs, at which
 * placement and what it costs a month, from a run's measured results and the prices and
 * transfer rules the run recorded; the next best beside it and the assumptions stated; text or
 * --json. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli.h"
#include "lib/cost.h"
#include "lib/err.h"
#include "lib/jsonw.h"
#include "lib/units.h"
#include "report/analyze/cost_rank.h"
#include "report/analyze/plan.h"
#include "report/cmd_plan.h"
#include "report/load/itypes.h"
#include "report/load/price/pricing.h"
#include "report/load/rundb.h"
#include "report/model/describe.h"

#define PLAN_SHOWN 4

static void usage(FILE *f)
{
	fprintf(f,
		"usage: netsweep plan (--move VOLUME[/month] | --hold RATE) [--between A B]\n"
		"                     [--relation REL] [--db FILE] [--run RUN] [--json]\n"
		"A purchasing plan from a run's measured results: for each priced pair, how many pairs\n"
		"of its type at its placement meet the need (scaled out on its measured rate), what the\n"
		"instances and the transfer (the relation's rule the run recorded, tiers at the month's\n"
		"volume) cost a month; cheapest first, each currency apart, the assumptions stated.\n"
		"  --move VOLUME     move this much a month: 50TB, 500GB (decimal; '/month' optional)\n"
		"  --hold RATE       hold this rate all month: 10G, 2.5G\n"
		"  --between A B     only pairs measured with one end at A and the other at B (a zone or\n"
		"                    a region, as v_results.client_zone/agent_zone/... have it)\n"
		"  --relation REL    only pairs measured at this relation: same-zone, cross-zone,\n"
		"                    cross-region, internet\n"
		"  --db FILE         database (default $NETSWEEP_DB or ./netsweep.db)\n"
		"  --run RUN         a run id, a label, 'latest' (default) or 'previous'\n"
		"  --json            the plan as JSON (schemas/plan-json.md)\n");
}

struct plan_cfg {
	const char *db, *run;
	struct rp_plan_need need;
	bool json, have_need;
};

static int parse(int argc, char **argv, struct plan_cfg *c, struct ns_err *err)
{
	static const struct option longopts[] = {
		{"move", required_argument, NULL, 'm'},     {"hold", required_argument, NULL, 'H'},
		{"between", required_argument, NULL, 'b'},  {"relation", required_argument, NULL, 'R'},
		{"db", required_argument, NULL, 'd'},       {"run", required_argument, NULL, 'r'},
		{"json", no_argument, NULL, 'j'},           {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	*c = (struct plan_cfg){.db = cli_db_default(), .run = "latest"};
	int ch;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'm': {
			char v[64];
			snprintf(v, sizeof(v), "%s", optarg);
			char *slash = strstr(v, "/month");
			if (slash && !slash[6])
				*slash = '\0';
			if (c->have_need)
				return ns_err_code(err, NS_E_USAGE, "--move and --hold: give one need");
			if (cost_volume_parse(v, &c->need.monthly_gb, err) < 0)
				return ns_err_prefix(err, "--move"), -1;
			c->need.bps = c->need.monthly_gb * 8e9 / (COST_HOURS_PER_MONTH * 3600.0);
			c->have_need = true;
			break;
		}
		case 'H': {
			uint64_t bps;
			if (c->have_need)
				return ns_err_code(err, NS_E_USAGE, "--move and --hold: give one need");
			if (units_parse_rate(optarg, &bps, err) < 0 || bps == 0)
				return ns_err_prefix(err, "--hold"), err->code ? -1
					: ns_err_code(err, NS_E_USAGE, "--hold: more than 0");
			c->need.bps = (double)bps;
			c->need.monthly_gb = cost_gb_per_hour(c->need.bps) * COST_HOURS_PER_MONTH;
			c->need.hold = c->have_need = true;
			break;
		}
		case 'b':
			if (optind >= argc || argv[optind][0] == '-')
				return ns_err_code(err, NS_E_USAGE, "--between A B: two places");
			c->need.from = optarg;
			c->need.to = argv[optind++];
			break;
		case 'R':
			if (!cost_relation_valid(optarg) || !strcmp(optarg, "unknown"))
				return ns_err_code(err, NS_E_USAGE, "--relation %s: same-zone, cross-zone, "
						   "cross-region or internet", optarg);
			c->need.relation = optarg;
			break;
		case 'd': c->db = optarg; break;
		case 'r': c->run = optarg; break;
		case 'j': c->json = true; break;
		case 'h': return 1;
		default: return cli_option_error_hint(ch, argv, longopts, err);
		}
	}
	if (cli_no_operands(argc, argv, err) < 0)
		return -1;
	if (!c->have_need)
		return ns_err_code(err, NS_E_USAGE, "what is needed: --move VOLUME (50TB a month) or "
				   "--hold RATE (10G)");
	return 0;
}

static const char *const assumptions[] = {
	"pairs scale out: N pairs move N times one pair's measured rate (its ranked case, the "
	"sustained rate where it stepped down; a lab pair's at the instances' rate)",
	"a month is 730 hours, the instances run all of it at the run's prices (its pricing model)",
	"the transfer is the relation's rule the run recorded, its tiers read at the month's whole "
	"volume, each server's included traffic counted; same-zone without a rule is free",
	"one placement for every pair: the one its measurement had",
};

static void print_text(const struct plan_cfg *c, const struct rp_data *d,
		       const struct rp_cost_row *rows, const struct rp_plan_option *o, size_t n)
{
	char need[64], rate[32], one[32];
	if (c->need.hold)
		units_format_rate(c->need.bps, need, sizeof(need));
	else
		snprintf(need, sizeof(need), "%.6g TB a month", c->need.monthly_gb / 1000);
	units_format_rate(c->need.bps, rate, sizeof(rate));
	printf("need: %s %s (%s, %.6g GB a month), from run %lld (%s)\n",
	       c->need.hold ? "hold" : "move", need, rate, c->need.monthly_gb, d->run.id,
	       d->run.matrix_name);
	printf("%-4s %-24s %-12s %5s %10s %11s %12s %12s %12s %s\n", "rank", "pair", "relation",
	       "pairs", "each", "single flow", "instances/mo", "transfer/mo", "total/mo", "cur");
	for (size_t i = 0; i < n; i++) {
		const struct rp_endpoint *e = &d->eps[rows[o[i].row].ep];
		char rk[8] = "-";
		if (o[i].rank)
			snprintf(rk, sizeof(rk), "%d", o[i].rank);
		units_format_rate(o[i].pair_bps, rate, sizeof(rate));
		if (isnan(o[i].single_flow_bps))
			snprintf(one, sizeof(one), "-");
		else
			units_format_rate(o[i].single_flow_bps, one, sizeof(one));
		printf("%-4s %-24s %-12s %5d %10s %11s %12.2f %12.2f %12.2f %s%s\n", rk, e->name,
		       e->xfer.relation, o[i].pairs, rate, one, o[i].instances_month,
		       o[i].transfer_month, o[i].total_month, o[i].currency ? o[i].currency : "USD",
		       isnan(o[i].transfer_month) ? " (no transfer price known)" : "");
	}
	char s[1024];
	if (rp_plan_sentence(d, rows, &c->need, o, n, s, sizeof(s)))
		printf("\n%s\n", s);
	printf("\nassumptions:\n");
	for (size_t k = 0; k < sizeof(assumptions) / sizeof(assumptions[0]); k++)
		printf("  - %s\n", assumptions[k]);
}

static int print_json(const struct plan_cfg *c, const struct rp_data *d,
		      const struct rp_cost_row *rows, const struct rp_plan_option *o, size_t n)
{
	struct jsonw w;
	jsonw_init(&w, true);
	jsonw_obj_open(&w);
	jsonw_kv_int(&w, "run", d->run.id);
	jsonw_key(&w, "need");
	jsonw_obj_open(&w);
	jsonw_kv_str(&w, "kind", c->need.hold ? "hold" : "move");
	jsonw_kv_double(&w, "bps", c->need.bps);
	jsonw_kv_double(&w, "monthly_gb", c->need.monthly_gb);
	jsonw_kv_str(&w, "relation", c->need.relation);
	jsonw_kv_str(&w, "between", c->need.from);
	jsonw_kv_str(&w, "and", c->need.to);
	jsonw_obj_close(&w);
	jsonw_key(&w, "options");
	jsonw_arr_open(&w);
	for (size_t i = 0; i < n; i++) {
		const struct rp_cost_row *r = &rows[o[i].row];
		const struct rp_endpoint *e = &d->eps[r->ep];
		jsonw_obj_open(&w);
		if (o[i].rank)
			jsonw_kv_int(&w, "rank", o[i].rank);
		else
			jsonw_kv_str(&w, "rank", NULL);
		jsonw_kv_str(&w, "pair", e->name);
		jsonw_kv_str(&w, "instance_type", e->instance_type);
		jsonw_kv_str(&w, "relation", e->xfer.relation);
		jsonw_kv_str(&w, "client_zone", e->xfer.client_zone[0] ? e->xfer.client_zone : NULL);
		jsonw_kv_str(&w, "agent_zone", e->xfer.agent_zone[0] ? e->xfer.agent_zone : NULL);
		jsonw_kv_str(&w, "region", e->region);
		jsonw_kv_str(&w, "price_basis", e->price_basis);
		jsonw_kv_int(&w, "pairs", o[i].pairs);
		jsonw_kv_double(&w, "pair_bps", o[i].pair_bps);
		jsonw_kv_double(&w, "single_flow_bps", o[i].single_flow_bps);
		jsonw_kv_bool(&w, "sustained", r->sustained);
		jsonw_kv_bool(&w, "sender_limited", r->sender_limited);
		jsonw_kv_str(&w, "currency", o[i].currency ? o[i].currency : "USD");
		jsonw_kv_double(&w, "per_hour", r->usd_per_hour);
		jsonw_kv_double(&w, "instances_month", o[i].instances_month);
		jsonw_kv_double(&w, "transfer_month", o[i].transfer_month);
		jsonw_kv_double(&w, "total_month", o[i].total_month);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	char s[1024];
	jsonw_kv_str(&w, "answer", rp_plan_sentence(d, rows, &c->need, o, n, s, sizeof(s)) ? s
										      : NULL);
	jsonw_key(&w, "assumptions");
	jsonw_arr_open(&w);
	for (size_t k = 0; k < sizeof(assumptions) / sizeof(assumptions[0]); k++)
		jsonw_str(&w, assumptions[k]);
	jsonw_arr_close(&w);
	jsonw_obj_close(&w);
	const char *t = jsonw_finish(&w);
	if (t)
		printf("%s\n", t);
	jsonw_free(&w);
	return t ? 0 : -1;
}

int cmd_plan(int argc, char **argv)
{
	struct plan_cfg c;
	struct ns_err err = {0};
	int p = parse(argc, argv, &c, &err);
	if (p > 0) {
		usage(stdout);
		return NS_EXIT_OK;
	}
	if (p < 0) {
		fprintf(stderr, "netsweep plan: %s (see 'netsweep plan --help')\n", err.msg);
		return NS_EXIT_USAGE;
	}
	sqlite3 *db = NULL;
	struct rp_data d = {0};
	struct rp_pricing pricing = {0};
	struct rp_cost_row *rows = NULL;
	struct rp_plan_option *opts = NULL;
	size_t n_rows = 0, n_opts = 0;
	long long run_id;
	struct rp_rank_rule rule;
	int rc = NS_EXIT_USAGE;
	if (rp_db_open(c.db, &db, &err) < 0 || rp_run_resolve(db, c.run, &run_id, &err) < 0)
		goto done;
	rc = NS_EXIT_FAIL;
	if (rp_data_load(db, run_id, &d, &err) < 0 || rp_pricing_load(db, &d, &pricing, &err) < 0 ||
	    rp_itypes_load(db, &d, &err) < 0)
		goto done;
	rp_pricing_settle(&d, &pricing);
	if (rp_transfer_load(db, &d, &pricing, c.need.monthly_gb, &err) < 0 ||
	    rp_rank_parse(d.run.rank_by, &rule, &err) < 0 ||
	    rp_cost_build(&d, &rule, &rows, &n_rows, &err) < 0 ||
	    rp_plan_build(&d, rows, n_rows, &c.need, &opts, &n_opts, &err) < 0)
		goto done;
	if (!n_opts) {
		ns_err_code(&err, NS_E_INPUT, "run %lld has no priced pair with a result%s", run_id,
			    c.need.relation || c.need.from ? " at that placement" : "");
		goto done;
	}
	if (n_opts > PLAN_SHOWN)
		n_opts = PLAN_SHOWN;
	if (c.json ? print_json(&c, &d, rows, opts, n_opts) < 0
		   : (print_text(&c, &d, rows, opts, n_opts), 0))
		goto done;
	rc = NS_EXIT_OK;
done:
	if (rc != NS_EXIT_OK)
		fprintf(stderr, "netsweep plan: %s\n", err.msg);
	free(opts);
	free(rows);
	rp_data_free(&d);
	rp_db_close(db);
	return rc;
}
