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
#include "lib/sys/datadir.h"
#include "lib/cli.h"
#include "lib/err.h"
#include "lib/units.h"
#include "lib/catalog/catalog.h"
#include "lib/cost.h"
#include "runner/host/wire.h"

#define MAX_CATALOGS 16
#define MAX_SHIPPED 16
#define MAX_TYPES 32
#define MAX_SIZES 64

/* The folder of the shipped catalogs: the default catalog's (ns_datadir()/catalog). */
static const char *shipped_dir(void)
{
	static char dir[4096];
	const char *def = catalog_default_path();
	if (getenv("NETSWEEP_CATALOG") && *getenv("NETSWEEP_CATALOG"))
		snprintf(dir, sizeof(dir), "%s/catalog", ns_datadir());
	else {
		const char *slash = strrchr(def, '/');
		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - def) : 1, slash ? def : ".");
	}
	return dir;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The shipped catalogs, the default one (aws.xml) first and the others by name, examples
 * (*-example.xml) left out; paths malloc'd into out, their number returned. */
static size_t shipped_catalogs(char **out, size_t max)
{
	const char *dir = shipped_dir(), *def = catalog_default_path();
	size_t n = 0;
	DIR *dp = opendir(dir);
	if (!dp)
		return 0;
	struct dirent *de;
	while ((de = readdir(dp)) && n < max) {
		size_t len = strlen(de->d_name);
		if (len < 5 || strcmp(de->d_name + len - 4, ".xml") || len > 255 ||
		    (len > 12 && !strcmp(de->d_name + len - 12, "-example.xml")))
			continue;
		char path[4096 + 256];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if ((out[n] = strdup(path)))
			n++;
	}
	closedir(dp);
	qsort(out, n, sizeof(*out), by_name);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(out[i], def) && i > 0) {
			char *d = out[i];
			memmove(out + 1, out, i * sizeof(*out));
			out[0] = d;
		}
	return n;
}

/* Any of the wanted types (none: every type). */
static bool type_wanted(const struct catalog *c, const char *type, const char *const *want,
			size_t n_want)
{
	for (size_t i = 0; i < n_want; i++)
		if (catalog_type_matches(c, type, want[i]))
			return true;
	return n_want == 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: netsweep cost [--catalog FILE]... [--no-default-catalog] [--region R] [--type T]...\n"
		"                     [--throughput RATE [--basis pair|sender] [--relation REL\n"
		"                     [--peer-region R] [--monthly-transfer VOLUME]]]\n"
		"       netsweep cost transfer [--catalog FILE]... [--no-default-catalog] [--provider P]\n"
		"                     [--region R]\n"
		"       netsweep cost wire --speed RATE [--sizes 64,128,...] [--mtus 1500,9001]\n"
		"  --catalog FILE        add a catalog (schemas/catalog.xsd), searched before the shipped\n"
		"                        ones (its prices win); later files override earlier ones\n"
		"  --no-default-catalog  read only the --catalog files; the default is $NETSWEEP_CATALOG,\n"
		"                        else every shipped catalog (%s/*.xml but *-example.xml)\n"
		"  --region R            only prices in region R (e.g. ap-northeast-1)\n"
		"  --type T              only instance type T (its exact name), or the types of family T\n"
		"                        as the catalog states it (m5, Dsv5, n2-standard, PRO2, cx);\n"
		"                        repeat it for several\n"
		"  --throughput RATE     also show Mbit/s per hour-price and price per Gbit/s-hour for\n"
		"                        RATE (436M), each in the row's currency (cur)\n"
		"  --basis pair|sender   price both instances of a pair (default) or the sender alone\n"
		"  --relation REL        with --throughput: also what moving RATE costs between the\n"
		"                        pair's ends, by the catalog's transfer rules: same-zone,\n"
		"                        cross-zone, cross-region (--peer-region R: to that region) or\n"
		"                        internet; transfer, total per hour and per TB moved\n"
		"  --monthly-transfer V  the monthly volume the transfer tiers are read at (50TB;\n"
		"                        default: RATE for a 730-hour month)\n"
		"  transfer              the catalogs' transfer price rules (schemas/transfer-pricing.md):\n"
		"                        provider, region, relation (same-zone, cross-zone, cross-region\n"
		"                        to a peer or any other region, internet), who is billed per GB\n"
		"                        moved, the tiers of a month's GB, currency, as-of and source;\n"
		"                        and the traffic included per server where a price includes some;\n"
		"                        --provider P only that provider's\n"
		"  wire --speed RATE     link speed (10G); --sizes are Ethernet frame sizes in bytes with\n"
		"                        FCS (64..9238), --mtus the MTUs for the TCP payload share\n"
		"A catalog file is at most %u MiB, refused at its first error, its reading and checking\n"
		"bounded at %.0f CPU-seconds; a DOCTYPE is refused.\n",
		shipped_dir(), XSDCHECK_CATALOG_MAX_BYTES >> 20, XSDCHECK_MAX_CPU_S);
}

static void print_catalog(const struct catalog *c, const char *region, const char *const *types,
			  size_t n_types, double bps, enum cost_basis basis, size_t *shown)
{
	/* nothing matches: no table at all, only the caller's error (not a header above it) */
	*shown = 0;
	for (size_t i = 0; i < c->n_instances && !*shown; i++) {
		const struct catalog_instance *in = &c->instances[i];
		if (!type_wanted(c, in->type, types, n_types))
			continue;
		*shown = !region;
		for (size_t j = 0; j < c->n_prices && !*shown; j++)
			*shown = !strcmp(c->prices[j].type, in->type) && !strcmp(c->prices[j].region, region);
	}
	if (!*shown)
		return;
	/* The last column is padded only when more columns follow: no trailing blanks. */
	int asof_w = bps > 0 ? 10 : 0;
	printf("%-14s %5s %8s %-26s %7s %8s %-8s %-15s %-12s %-3s %9s %-*s", "type", "vCPU", "GiB",
	       "network", "Gbit/s", "baseline", "enhanced", "region", "pricing", "cur", "per hour",
	       asof_w, "as of");
	if (bps > 0)
		printf(" %14s %14s", "Mbit/s/(cur/h)", "cur/(Gbit/s*h)");
	printf("\n");
	*shown = 0;
	for (size_t i = 0; i < c->n_instances; i++) {
		const struct catalog_instance *in = &c->instances[i];
		if (!type_wanted(c, in->type, types, n_types))
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
				/* the formulas are currency-blind: in the row's currency */
				double per_h = cost_usd_per_hour(p->per_hour, basis);
				printf(" %14.0f %14.4f", cost_mbps_per_usd_hour(bps, per_h),
				       cost_usd_per_gbps_hour(bps, per_h));
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
static void print_transfer(const struct catalog *c, const char *region,
			   const char *const *types, size_t n_types, double bps, enum cost_basis basis,
			   const struct xfer_opts *o)
{
	printf("\nwith transfer, %s%s%s, tiers at %s:\n", o->relation,
	       o->peer_region ? " to " : "", o->peer_region ? o->peer_region : "",
	       o->monthly_gb > 0 ? "the stated monthly volume" : "the rate for a 730-hour month");
	printf("%-14s %-15s %-3s %10s %10s %10s %12s %10s %s\n", "type", "region", "cur",
	       "instances", "transfer", "total/h", "Mbit/s/(t/h)", "total/TB", "rule");
	for (size_t j = 0; j < c->n_prices; j++) {
		const struct catalog_price *p = &c->prices[j];
		const struct catalog_instance *in = catalog_instance(c, p->type);
		if (!in || !type_wanted(c, p->type, types, n_types) || p->pricing != CATALOG_ON_DEMAND ||
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
static void print_sources(const struct catalog *c, const char *region, const char *const *types,
			  size_t n_types)
{
	const char *seen[32];
	size_t n = 0;
	for (size_t j = 0; j < c->n_prices && n < 32; j++) {
		const struct catalog_price *p = &c->prices[j];
		if (!type_wanted(c, p->type, types, n_types) || (region && strcmp(p->region, region)))
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

/* Nothing matched in the catalogs read: the shipped catalogs not read that know a wanted type,
 * named with the --catalog that adds them. */
static void hint_shipped(const char *const *types, size_t n_types, char **read, size_t n_read)
{
	char *paths[MAX_SHIPPED];
	size_t n = shipped_catalogs(paths, MAX_SHIPPED);
	for (size_t i = 0; i < n; i++) {
		bool was_read = false;
		for (size_t k = 0; k < n_read && !was_read; k++)
			was_read = !strcmp(read[k], paths[i]);
		struct catalog c;
		struct ns_err err = {0};
		catalog_init(&c);
		if (!was_read && catalog_load(&c, paths[i], &err) == 0)
			for (size_t t = 0; t < n_types; t++)
				if (catalog_type_known(&c, types[t]))
					fprintf(stderr, "netsweep cost: the shipped catalog %s has type %s: "
						"add --catalog %s\n", strrchr(paths[i], '/') + 1, types[t],
						paths[i]);
		catalog_free(&c);
		free(paths[i]);
	}
}

/* The catalogs cost reads, in load order (a later file's entries win): the default ones
 * ($NETSWEEP_CATALOG, else every shipped catalog) unless --no-default-catalog, then the
 * user's --catalog files. Paths malloc'd into out. */
static size_t catalogs_to_read(bool use_default, const char *const *files, size_t n_files,
			       char **out)
{
	size_t n = 0;
	if (use_default) {
		const char *env = getenv("NETSWEEP_CATALOG");
		if (env && *env)
			n += (out[n] = strdup(env)) != NULL;
		else
			n = shipped_catalogs(out, MAX_SHIPPED);
	}
	for (size_t i = 0; i < n_files; i++)
		n += (out[n] = strdup(files[i])) != NULL;
	return n;
}

static void free_paths(char **p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i]);
}

/* Loads the catalogs into cat; on an error prints it and returns -1 (cat freed). */
static int load_all(struct catalog *cat, char **paths, size_t n)
{
	struct ns_err err = {0};
	catalog_init(cat);
	for (size_t i = 0; i < n; i++)
		if (catalog_load(cat, paths[i], &err) < 0) {
			fprintf(stderr, "netsweep cost: %s\n", err.msg);
			catalog_free(cat);
			return -1;
		}
	return 0;
}

/* The catalogs a cost command reads, as its options say. */
struct catalog_sel {
	const char *files[MAX_CATALOGS];
	size_t n_files;
	bool use_default;
};

/* --catalog (c) and --no-default-catalog (N): 1 when c was one of them, -1 on an error
 * (printed), 0 for any other option. */
static int sel_option(struct catalog_sel *s, int c, const char *cmd)
{
	if (c == 'N') {
		s->use_default = false;
		return 1;
	}
	if (c != 'c')
		return 0;
	if (s->n_files >= MAX_CATALOGS) {
		fprintf(stderr, "%s: at most %d --catalog files\n", cmd, MAX_CATALOGS);
		return -1;
	}
	s->files[s->n_files++] = optarg;
	return 1;
}

/* After the options: no operand, then the catalogs loaded into cat, their paths in load
 * order into paths (malloc'd, *n of them; the caller frees them). NS_EXIT_OK, else the exit
 * code of the error printed. */
static int sel_load(const struct catalog_sel *s, int argc, char **argv, const char *cmd,
		    struct catalog *cat, char **paths, size_t *n)
{
	struct ns_err err = {0};
	*n = 0;
	if (cli_no_operands(argc, argv, &err) < 0)
		return usage_error(cmd, &err);
	if (!s->use_default && s->n_files == 0) {
		fprintf(stderr, "%s: --no-default-catalog needs at least one --catalog\n", cmd);
		return NS_EXIT_USAGE;
	}
	*n = catalogs_to_read(s->use_default, s->files, s->n_files, paths);
	return load_all(cat, paths, *n) < 0 ? NS_EXIT_USAGE : NS_EXIT_OK;
}

/* "0 to 100 GB, 0.09 to 10240 GB, 0.05 past": a rule's tiers, per GB in its currency. */
static void tiers_text(const struct catalog_transfer *t, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < t->ntiers && n < len; i++) {
		const struct catalog_tier *k = &t->tiers[i];
		int w = isinf(k->upto_gb) ? snprintf(buf + n, len - n, "%s%g%s", i ? ", " : "",
						     k->per_gb, t->ntiers > 1 ? " past" : "")
					  : snprintf(buf + n, len - n, "%s%g to %g GB", i ? ", " : "",
						     k->per_gb, k->upto_gb);
		if (w < 0)
			break;
		n += (size_t)w;
	}
}

static int cmp_rule(const void *a, const void *b)
{
	const struct catalog_transfer *x = *(const struct catalog_transfer *const *)a;
	const struct catalog_transfer *y = *(const struct catalog_transfer *const *)b;
	static const char *const order[] = {"same-zone", "cross-zone", "cross-region", "internet"};
	int r = strcmp(x->provider, y->provider);
	if (!r)
		r = strcmp(x->region, y->region);
	if (!r) {
		int ox = 4, oy = 4;
		for (int i = 0; i < 4; i++) {
			if (!strcmp(x->relation, order[i]))
				ox = i;
			if (!strcmp(y->relation, order[i]))
				oy = i;
		}
		r = ox - oy;
	}
	if (!r)
		r = strcmp(x->peer_region ? x->peer_region : "", y->peer_region ? y->peer_region : "");
	return r;
}

/* Traffic included with a server (Hetzner): per provider, region and allowance, the types. */
static void print_included(const struct catalog *c, const char *provider, const char *region)
{
	bool head = false;
	for (size_t i = 0; i < c->n_prices; i++) {
		const struct catalog_price *p = &c->prices[i];
		const struct catalog_instance *in = catalog_instance(c, p->type);
		const char *prov = in && in->provider[0] ? in->provider : "-";
		if (p->included_gb_month <= 0 || (region && strcmp(p->region, region)) ||
		    (provider && strcmp(prov, provider)))
			continue;
		bool seen = false; /* one line per provider, region and allowance */
		for (size_t k = 0; k < i && !seen; k++) {
			const struct catalog_price *q = &c->prices[k];
			const struct catalog_instance *qi = catalog_instance(c, q->type);
			seen = q->included_gb_month == p->included_gb_month &&
			       !strcmp(q->region, p->region) &&
			       !strcmp(qi && qi->provider[0] ? qi->provider : "-", prov) &&
			       (!region || !strcmp(q->region, region));
		}
		if (seen)
			continue;
		if (!head)
			printf("\nincluded traffic (per server a month; the internet rule prices what "
			       "goes past it):\n");
		head = true;
		printf("  %-10s %-15s %10.1f GB  ", prov, p->region, p->included_gb_month);
		const char *sep = "";
		for (size_t k = i; k < c->n_prices; k++) {
			const struct catalog_price *q = &c->prices[k];
			const struct catalog_instance *qi = catalog_instance(c, q->type);
			if (q->included_gb_month == p->included_gb_month &&
			    !strcmp(q->region, p->region) &&
			    !strcmp(qi && qi->provider[0] ? qi->provider : "-", prov)) {
				printf("%s%s", sep, q->type);
				sep = ", ";
			}
		}
		printf("\n");
	}
}

/* `netsweep cost transfer`: the transfer rules of the catalogs read. */
static int cmd_transfer(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"catalog", required_argument, NULL, 'c'},
		{"no-default-catalog", no_argument, NULL, 'N'},
		{"provider", required_argument, NULL, 'p'},
		{"region", required_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *provider = NULL, *region = NULL, *cmd = "netsweep cost transfer";
	struct catalog_sel sel = {.use_default = true};
	struct ns_err err = {0};
	optind = 0;
	opterr = 0;
	int c, r;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if ((r = sel_option(&sel, c, cmd)) != 0) {
			if (r < 0)
				return NS_EXIT_USAGE;
			continue;
		}
		switch (c) {
		case 'p': provider = optarg; break;
		case 'r': region = optarg; break;
		case 'h': usage(stdout); return NS_EXIT_OK;
		default:
			cli_option_error_hint(c, argv, longopts, &err);
			return usage_error(cmd, &err);
		}
	}
	char *paths[MAX_SHIPPED + MAX_CATALOGS + 1];
	size_t n_paths;
	struct catalog cat;
	int rc = sel_load(&sel, argc, argv, cmd, &cat, paths, &n_paths);
	free_paths(paths, n_paths);
	if (rc != NS_EXIT_OK)
		return rc;
	const struct catalog_transfer **rules = calloc(cat.ntransfers + 1, sizeof(*rules));
	size_t n = 0;
	for (size_t i = 0; rules && i < cat.ntransfers; i++) {
		const struct catalog_transfer *t = &cat.transfers[i];
		if ((!provider || !strcmp(t->provider, provider)) && (!region || !strcmp(t->region, region)))
			rules[n++] = t;
	}
	qsort(rules, n, sizeof(*rules), cmp_rule);
	printf("%-10s %-15s %-12s %-15s %-8s %-3s %-10s %s\n", "provider", "region", "relation",
	       "peer", "billed", "cur", "as of", "per GB moved, by a month's GB [source]");
	const char *seen[64];
	size_t n_seen = 0;
	for (size_t i = 0; i < n; i++) {
		const struct catalog_transfer *t = rules[i];
		char tiers[512];
		tiers_text(t, tiers, sizeof(tiers));
		size_t s = 0;
		while (s < n_seen && strcmp(seen[s], t->source))
			s++;
		if (s == n_seen && n_seen < 64)
			seen[n_seen++] = t->source;
		printf("%-10s %-15s %-12s %-15s %-8s %-3s %-10s %s [%zu]\n", t->provider, t->region,
		       t->relation, t->peer_region ? t->peer_region
		       : !strcmp(t->relation, "cross-region") ? "(any other)" : "-", t->billed,
		       t->currency, t->as_of, tiers, s + 1);
	}
	print_included(&cat, provider, region);
	for (size_t k = 0; k < n_seen; k++)
		printf("%s [%zu] %s\n", k == 0 ? "\ntransfer sources:" : "                 ", k + 1,
		       seen[k]);
	printf("%s", n ? "\nbilled: who pays per GB moved (both: the sender and the receiver each "
		      "pay it); no rule for a relation means its price is not known, not that it is "
		      "free\n" : "");
	free(rules);
	catalog_free(&cat);
	if (n == 0) {
		fprintf(stderr, "netsweep cost transfer: no transfer rule in the catalogs%s%s%s%s\n",
			provider ? " for provider " : "", provider ? provider : "",
			region ? " in region " : "", region ? region : "");
		return NS_EXIT_FAIL;
	}
	return NS_EXIT_OK;
}

int cmd_cost(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "wire") == 0)
		return cmd_wire(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "transfer") == 0)
		return cmd_transfer(argc - 1, argv + 1);

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
	const char *types[MAX_TYPES], *cmd = "netsweep cost";
	struct catalog_sel sel = {.use_default = true};
	size_t n_types = 0;
	const char *region = NULL;
	uint64_t bps = 0;
	enum cost_basis basis = COST_PAIR;
	struct ns_err err = {0};
	optind = 0;
	opterr = 0;
	int c, r;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if ((r = sel_option(&sel, c, cmd)) != 0) {
			if (r < 0)
				return NS_EXIT_USAGE;
			continue;
		}
		switch (c) {
		case 'r':
			region = optarg;
			break;
		case 't':
			if (n_types >= MAX_TYPES) {
				fprintf(stderr, "netsweep cost: at most %d --type\n", MAX_TYPES);
				return NS_EXIT_USAGE;
			}
			types[n_types++] = optarg;
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
			return usage_error(cmd, &err);
		}
	}
	if ((xo.relation || xo.monthly_gb > 0 || xo.peer_region) && (!xo.relation || !bps)) {
		fprintf(stderr, "netsweep cost: --relation, --peer-region and --monthly-transfer "
			"price a --throughput's transfer: give --throughput and --relation\n");
		return NS_EXIT_USAGE;
	}
	char *paths[MAX_SHIPPED + MAX_CATALOGS + 1];
	size_t n_paths;
	struct catalog cat;
	int rc = sel_load(&sel, argc, argv, cmd, &cat, paths, &n_paths);
	if (rc != NS_EXIT_OK) {
		free_paths(paths, n_paths);
		return rc;
	}
	if (bps > 0) {
		char rate[32];
		units_format_rate((double)bps, rate, sizeof(rate));
		printf("throughput %s, priced per %s (%s); prices in each row's currency (cur)\n", rate,
		       cost_basis_name(basis),
		       basis == COST_PAIR ? "client and agent: twice the unit price" : "unit price");
	}
	size_t shown;
	print_catalog(&cat, region, types, n_types, (double)bps, basis, &shown);
	print_sources(&cat, region, types, n_types);
	if (xo.relation)
		print_transfer(&cat, region, types, n_types, (double)bps, basis, &xo);
	catalog_free(&cat);
	if (shown == 0) {
		fprintf(stderr, "netsweep cost: nothing in the catalog matches");
		for (size_t i = 0; i < n_types; i++)
			fprintf(stderr, "%s%s", i ? " or " : " type ", types[i]);
		fprintf(stderr, "%s%s\n", region ? " region " : "", region ? region : "");
		if (n_types)
			hint_shipped(types, n_types, paths, n_paths);
	}
	free_paths(paths, n_paths);
	return shown ? NS_EXIT_OK : NS_EXIT_FAIL;
}
