/* netsweep cost: the instance catalog with its prices (optionally what a throughput costs on
 * each), and `netsweep cost wire`: the wire-rate table of a link speed. */
#include <dirent.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/core/cmds.h"
#include "lib/cli.h"
#include "lib/err.h"
#include "lib/units.h"
#include "catalog.h"
#include "lib/cost.h"
#include "runner/host/wire.h"

#define MAX_CATALOGS 16
#define MAX_SIZES 64

static void usage(FILE *f)
{
	fprintf(f,
		"usage: netsweep cost [--catalog FILE]... [--no-default-catalog] [--region R] [--type T]\n"
		"                     [--throughput RATE [--basis pair|sender] [--relation REL\n"
		"                     [--peer-region R] [--monthly-transfer VOLUME]]]\n"
		"       netsweep cost wire --speed RATE [--sizes 64,128,...] [--mtus 1500,9001]\n"
		"  --catalog FILE        add a catalog (schemas/catalog.xsd); later files override earlier\n"
		"                        ones; the default is $NETSWEEP_CATALOG or data/catalog/aws.xml\n"
		"  --no-default-catalog  read only the --catalog files\n"
		"  --region R            only prices in region R (e.g. ap-northeast-1)\n"
		"  --type T              only instance type T (its exact name), or the types of family T\n"
		"                        as the catalog states it (m5, Dsv5, n2-standard, PRO2, cx)\n"
		"  --throughput RATE     also show Mbit/s per $/hour and $ per Gbit/s-hour for RATE (436M)\n"
		"  --basis pair|sender   price both instances of a pair (default) or the sender alone\n"
		"  --relation REL        with --throughput: also what moving RATE costs between the\n"
		"                        pair's ends, by the catalog's transfer rules: same-zone,\n"
		"                        cross-zone, cross-region (--peer-region R: to that region) or\n"
		"                        internet; transfer, total per hour and per TB moved\n"
		"  --monthly-transfer V  the monthly volume the transfer tiers are read at (50TB;\n"
		"                        default: RATE for a 730-hour month)\n"
		"  wire --speed RATE     link speed (10G); --sizes are Ethernet frame sizes in bytes with\n"
		"                        FCS (64..9238), --mtus the MTUs for the TCP payload share\n"
		"A catalog file is at most %u MiB, refused at its first error, its reading and checking\n"
		"bounded at %.0f CPU-seconds; a DOCTYPE is refused.\n",
		XSDCHECK_CATALOG_MAX_BYTES >> 20, XSDCHECK_MAX_CPU_S);
}

static void print_catalog(const struct catalog *c, const char *region, const char *type,
			  double bps, enum cost_basis basis, size_t *shown)
{
	/* The last column is padded only when more columns follow: no trailing blanks. */
	int asof_w = bps > 0 ? 10 : 0;
	printf("%-14s %5s %8s %-26s %7s %8s %-8s %-15s %-12s %-3s %9s %-*s", "type", "vCPU", "GiB",
	       "network", "Gbit/s", "baseline", "enhanced", "region", "pricing", "cur", "per hour",
	       asof_w, "as of");
	if (bps > 0)
		printf(" %12s %12s", "Mbit/s/($/h)", "$/(Gbit/s*h)");
	printf("\n");
	*shown = 0;
	for (size_t i = 0; i < c->n_instances; i++) {
		const struct catalog_instance *in = &c->instances[i];
		if (!catalog_type_matches(c, in->type, type))
			continue;
		char vcpu[16] = "-", mem[16] = "-", gbps[16] = "-", base[16] = "-";
		if (in->vcpus)
			snprintf(vcpu, sizeof(vcpu), "%d", in->vcpus);
		if (in->memory_gib > 0)
			snprintf(mem, sizeof(mem), "%g", in->memory_gib);
		if (in->network_gbps > 0)
			snprintf(gbps, sizeof(gbps), "%g", in->network_gbps);
		if (in->baseline_gbps > 0)
			snprintf(base, sizeof(base), "%g", in->baseline_gbps);
		bool any = false;
		for (size_t j = 0; j < c->n_prices; j++) {
			const struct catalog_price *p = &c->prices[j];
			if (strcmp(p->type, in->type) || (region && strcmp(p->region, region)))
				continue;
			any = true;
			char kind[16];
			snprintf(kind, sizeof(kind), "%s%s%s", catalog_pricing_name(p->pricing),
				 p->term[0] ? " " : "", p->term);
			printf("%-14s %5s %8s %-26s %7s %8s %-8s %-15s %-12s %-3s %9.4f %-*s", in->type,
			       vcpu, mem, in->network_label[0] ? in->network_label : "-", gbps, base,
			       in->enhanced[0] ? in->enhanced : "-", p->region, kind, p->currency,
			       p->per_hour, asof_w, p->as_of);
			if (bps > 0) {
				double usd = cost_usd_per_hour(p->per_hour, basis);
				printf(" %12.0f %12.4f", cost_mbps_per_usd_hour(bps, usd),
				       cost_usd_per_gbps_hour(bps, usd));
			}
			printf("\n");
			(*shown)++;
		}
		if (!any && !region) {
			/* Listed, but priceless: say so rather than leave it out. */
			printf("%-14s %5s %8s %-26s %7s %8s %-8s %-15s %-12s %-3s %9s %s\n", in->type,
			       vcpu, mem, in->network_label[0] ? in->network_label : "-", gbps, base,
			       in->enhanced[0] ? in->enhanced : "-", "-", "-", "-", "no price", "-");
			(*shown)++;
		}
	}
}

struct xfer_opts {
	const char *relation, *peer_region;
	double monthly_gb;          /* 0 = the rate for 730 hours */
};

/* What moving bps costs beside each on-demand price shown, by the catalog's transfer rule of
 * the type's provider, the price's region and the relation (lib/cost.h, as v_cost_total). */
static void print_transfer(const struct catalog *c, const char *region, const char *type,
			   double bps, enum cost_basis basis, const struct xfer_opts *o)
{
	printf("\nwith transfer, %s%s%s, tiers at %s:\n", o->relation,
	       o->peer_region ? " to " : "", o->peer_region ? o->peer_region : "",
	       o->monthly_gb > 0 ? "the stated monthly volume" : "the rate for a 730-hour month");
	printf("%-14s %-15s %-3s %10s %10s %10s %12s %10s %s\n", "type", "region", "cur",
	       "instances", "transfer", "total/h", "Mbit/s/(t/h)", "total/TB", "rule");
	for (size_t j = 0; j < c->n_prices; j++) {
		const struct catalog_price *p = &c->prices[j];
		const struct catalog_instance *in = catalog_instance(c, p->type);
		if (!in || !catalog_type_matches(c, p->type, type) || p->pricing != CATALOG_ON_DEMAND ||
		    (region && strcmp(p->region, region)))
			continue;
		const struct catalog_transfer *t = in->provider[0]
			? catalog_transfer_find(c, in->provider, p->region, o->relation, o->peer_region)
			: NULL;
		struct cost_tier tiers[64];
		struct cost_transfer_rule rule = {0};
		char why[96] = "";
		if (t && strcmp(t->currency, p->currency)) {
			snprintf(why, sizeof(why), "a rule in %s, the price in %s", t->currency,
				 p->currency);
			t = NULL;
		}
		if (t) {
			size_t n = t->ntiers < 64 ? t->ntiers : 64;
			for (size_t k = 0; k < n; k++)
				tiers[k] = (struct cost_tier){t->tiers[k].upto_gb, t->tiers[k].per_gb};
			cost_billed_parse(t->billed, &rule.billed);
			rule = (struct cost_transfer_rule){rule.billed, tiers, n, p->included_gb_month};
			snprintf(why, sizeof(why), "billed to %s, %g per GB first (%s)", t->billed,
				 t->tiers[0].per_gb, t->as_of);
		} else if (!why[0]) {
			snprintf(why, sizeof(why), strcmp(o->relation, "same-zone") ? "no rule known"
				 : "free (no rule: same zone)");
		}
		struct cost_total f;
		cost_total_figures(bps, 1, cost_usd_per_hour(p->per_hour, basis), t ? &rule : NULL,
				   o->relation, o->monthly_gb, &f);
		printf("%-14s %-15s %-3s %10.4f %10.4f %10.4f %12.1f %10.2f %s\n", p->type, p->region,
		       p->currency, cost_usd_per_hour(p->per_hour, basis), f.transfer_per_hour,
		       f.total_per_hour, f.mbps_per_total_hour, f.total_per_tb, why);
	}
}

/* Distinct sources of the prices shown, so every figure can be traced. */
static void print_sources(const struct catalog *c, const char *region, const char *type)
{
	const char *seen[32];
	size_t n = 0;
	for (size_t j = 0; j < c->n_prices && n < 32; j++) {
		const struct catalog_price *p = &c->prices[j];
		if (!catalog_type_matches(c, p->type, type) || (region && strcmp(p->region, region)))
			continue;
		bool dup = false;
		for (size_t k = 0; k < n && !dup; k++)
			dup = strcmp(seen[k], p->source) == 0;
		if (!dup)
			seen[n++] = p->source;
	}
	for (size_t k = 0; k < n; k++)
		printf("%s [%zu] %s\n", k == 0 ? "\nprice sources:" : "              ", k + 1, seen[k]);
}

static int parse_list(const char *s, uint64_t min, uint64_t max, uint64_t *out, size_t cap,
		      size_t *n, struct ns_err *err)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", s);
	*n = 0;
	char *save = NULL;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n >= cap)
			return ns_err_set(err, "more than %zu values", cap);
		if (units_parse_uint(tok, min, max, &out[(*n)++], err) < 0)
			return -1;
	}
	if (*n == 0)
		return ns_err_set(err, "empty list");
	return 0;
}

static int usage_error(const char *cmd, const struct ns_err *err)
{
	fprintf(stderr, "%s: %s\n", cmd, err->msg);
	usage(stderr);
	return NS_EXIT_USAGE;
}

static int cmd_wire(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"speed", required_argument, NULL, 's'},
		{"sizes", required_argument, NULL, 'z'},
		{"mtus", required_argument, NULL, 'm'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	uint64_t speed = 0, sizes[MAX_SIZES] = {64, 128, 256, 512, 1024, 1280, 1518};
	uint64_t mtus[MAX_SIZES] = {1500, 9001};
	size_t n_sizes = 7, n_mtus = 2;
	struct ns_err err = {0};
	optind = 0;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (units_parse_rate(optarg, &speed, &err) < 0 || speed == 0) {
				fprintf(stderr, "netsweep cost wire: --speed: %s\n",
					err.msg[0] ? err.msg : "must be more than 0");
				return NS_EXIT_USAGE;
			}
			break;
		case 'z':
			if (parse_list(optarg, WIRE_MIN_FRAME, 9238, sizes, MAX_SIZES, &n_sizes, &err) < 0) {
				fprintf(stderr, "netsweep cost wire: --sizes: %s\n", err.msg);
				return NS_EXIT_USAGE;
			}
			break;
		case 'm':
			if (parse_list(optarg, 68, 65535, mtus, MAX_SIZES, &n_mtus, &err) < 0) {
				fprintf(stderr, "netsweep cost wire: --mtus: %s\n", err.msg);
				return NS_EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return NS_EXIT_OK;
		default:
			cli_option_error_hint(c, argv, longopts, &err);
			return usage_error("netsweep cost wire", &err);
		}
	}
	if (cli_no_operands(argc, argv, &err) < 0)
		return usage_error("netsweep cost wire", &err);
	if (speed == 0) {
		ns_err_set(&err, "--speed is required");
		return usage_error("netsweep cost wire", &err);
	}
	char rate[32];
	units_format_rate((double)speed, rate, sizeof(rate));
	printf("wire rate at %s: frame + %d bytes of preamble and inter-frame gap; "
	       "UDP payload = frame - %d (untagged IPv4)\n",
	       rate, WIRE_PREAMBLE_IFG, WIRE_UDP4_OVERHEAD);
	printf("%10s %12s %14s %14s %16s\n", "frame B", "UDP payload", "frames/s", "frame Mbit/s",
	       "payload Mbit/s");
	for (size_t i = 0; i < n_sizes; i++) {
		double pps = wire_pps((double)speed, sizes[i]);
		uint64_t payload = sizes[i] - WIRE_UDP4_OVERHEAD;
		printf("%10llu %12llu %14.0f %14.1f %16.1f\n", (unsigned long long)sizes[i],
		       (unsigned long long)payload, pps, pps * (double)sizes[i] * 8 / 1e6,
		       pps * (double)payload * 8 / 1e6);
	}
	printf("\nTCP payload share of the link (MSS = MTU - %d with timestamps, per MTU + %d on the wire)\n",
	       WIRE_TCP_TS_HEADERS, WIRE_ETH_PER_PACKET);
	printf("%10s %8s %10s %16s\n", "MTU", "MSS", "share", "payload Mbit/s");
	for (size_t i = 0; i < n_mtus; i++) {
		double share = wire_tcp_share((int)mtus[i]);
		printf("%10llu %8llu %9.2f%% %16.1f\n", (unsigned long long)mtus[i],
		       (unsigned long long)(mtus[i] - WIRE_TCP_TS_HEADERS), share * 100,
		       share * (double)speed / 1e6);
	}
	return NS_EXIT_OK;
}

/* Nothing matched type in the default catalog: the other catalogs shipped beside it (Azure,
 * GCP, Scaleway, Hetzner, AWS spot) that know it, named with the --catalog that adds them. */
static void hint_shipped(const char *type)
{
	const char *def = catalog_default_path();
	const char *slash = strrchr(def, '/');
	char dir[4096], path[4096 + 256];
	if (!slash || (size_t)(slash - def) >= sizeof(dir))
		return;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - def), def);
	DIR *dp = opendir(dir);
	if (!dp)
		return;
	struct dirent *de;
	while ((de = readdir(dp))) {
		size_t n = strlen(de->d_name);
		if (n < 5 || strcmp(de->d_name + n - 4, ".xml") || n > 255)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!strcmp(path, def))
			continue;
		struct catalog c;
		struct ns_err err = {0};
		catalog_init(&c);
		if (catalog_load(&c, path, &err) == 0 && catalog_type_known(&c, type))
			fprintf(stderr, "netsweep cost: the shipped catalog %s has type %s: "
				"add --catalog %s\n", de->d_name, type, path);
		catalog_free(&c);
	}
	closedir(dp);
}

int cmd_cost(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "wire") == 0)
		return cmd_wire(argc - 1, argv + 1);

	static const struct option longopts[] = {
		{"catalog", required_argument, NULL, 'c'},
		{"no-default-catalog", no_argument, NULL, 'N'},
		{"region", required_argument, NULL, 'r'},
		{"type", required_argument, NULL, 't'},
		{"throughput", required_argument, NULL, 'T'},
		{"basis", required_argument, NULL, 'b'},
		{"relation", required_argument, NULL, 'R'},
		{"peer-region", required_argument, NULL, 'P'},
		{"monthly-transfer", required_argument, NULL, 'M'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct xfer_opts xo = {0};
	const char *files[MAX_CATALOGS + 1];
	size_t n_files = 0;
	bool use_default = true;
	const char *region = NULL, *type = NULL;
	uint64_t bps = 0;
	enum cost_basis basis = COST_PAIR;
	struct ns_err err = {0};
	optind = 0;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (n_files >= MAX_CATALOGS) {
				fprintf(stderr, "netsweep cost: at most %d --catalog files\n", MAX_CATALOGS);
				return NS_EXIT_USAGE;
			}
			files[n_files++] = optarg;
			break;
		case 'N':
			use_default = false;
			break;
		case 'r':
			region = optarg;
			break;
		case 't':
			type = optarg;
			break;
		case 'T':
			if (units_parse_rate(optarg, &bps, &err) < 0 || bps == 0) {
				fprintf(stderr, "netsweep cost: --throughput: %s\n",
					err.msg[0] ? err.msg : "must be more than 0");
				return NS_EXIT_USAGE;
			}
			break;
		case 'b':
			if (cost_basis_parse(optarg, &basis, &err) < 0) {
				fprintf(stderr, "netsweep cost: --basis: %s\n", err.msg);
				return NS_EXIT_USAGE;
			}
			break;
		case 'R':
			if (!cost_relation_valid(optarg) || !strcmp(optarg, "unknown")) {
				fprintf(stderr, "netsweep cost: --relation %s: same-zone, cross-zone, "
					"cross-region or internet\n", optarg);
				return NS_EXIT_USAGE;
			}
			xo.relation = optarg;
			break;
		case 'P':
			xo.peer_region = optarg;
			break;
		case 'M':
			if (cost_volume_parse(optarg, &xo.monthly_gb, &err) < 0) {
				fprintf(stderr, "netsweep cost: --monthly-transfer: %s\n", err.msg);
				return NS_EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return NS_EXIT_OK;
		default:
			cli_option_error_hint(c, argv, longopts, &err);
			return usage_error("netsweep cost", &err);
		}
	}
	if (cli_no_operands(argc, argv, &err) < 0)
		return usage_error("netsweep cost", &err);
	if ((xo.relation || xo.monthly_gb > 0 || xo.peer_region) && (!xo.relation || !bps)) {
		fprintf(stderr, "netsweep cost: --relation, --peer-region and --monthly-transfer "
			"price a --throughput's transfer: give --throughput and --relation\n");
		return NS_EXIT_USAGE;
	}
	if (!use_default && n_files == 0) {
		fprintf(stderr, "netsweep cost: --no-default-catalog needs at least one --catalog\n");
		return NS_EXIT_USAGE;
	}

	struct catalog cat;
	catalog_init(&cat);
	if (use_default && catalog_load(&cat, catalog_default_path(), &err) < 0) {
		fprintf(stderr, "netsweep cost: %s\n", err.msg);
		return NS_EXIT_USAGE;
	}
	for (size_t i = 0; i < n_files; i++) {
		if (catalog_load(&cat, files[i], &err) < 0) {
			fprintf(stderr, "netsweep cost: %s\n", err.msg);
			catalog_free(&cat);
			return NS_EXIT_USAGE;
		}
	}
	if (bps > 0) {
		char rate[32];
		units_format_rate((double)bps, rate, sizeof(rate));
		printf("throughput %s, priced per %s (%s)\n", rate, cost_basis_name(basis),
		       basis == COST_PAIR ? "client and agent: twice the unit price" : "unit price");
	}
	size_t shown;
	print_catalog(&cat, region, type, (double)bps, basis, &shown);
	print_sources(&cat, region, type);
	if (xo.relation)
		print_transfer(&cat, region, type, (double)bps, basis, &xo);
	catalog_free(&cat);
	if (shown == 0) {
		fprintf(stderr, "netsweep cost: nothing in the catalog matches%s%s%s%s\n",
			type ? " type " : "", type ? type : "", region ? " region " : "",
			region ? region : "");
		if (type && use_default && !getenv("NETSWEEP_CATALOG"))
			hint_shipped(type);
		return NS_EXIT_FAIL;
	}
	return NS_EXIT_OK;
}
