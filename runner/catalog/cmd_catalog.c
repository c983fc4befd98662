/* netsweep catalog import: a catalog file from providers' published prices and instance figures
 * (catalog_import.h). Exit 0 written, 2 usage or input errors, 1 anything else. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "runner/core/cmds.h"
#include "lib/cli.h"
#include "lib/err.h"
#include "catalog_import.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: netsweep catalog import -o OUT [--region R]... [--pricing KIND]... [--name N]\n"
		"                               [--description T] [--as-of DATE] FILE...\n"
		"\n"
		"Writes a catalog (schemas/catalog.xsd) from what providers publish; each FILE's kind is\n"
		"recognised from its content, and several files (pages, zones, providers) merge:\n"
		"  AWS Price List offer file or `aws pricing get-products` output: on-demand Linux on\n"
		"      shared tenancy, USD (Windows, RHEL, SUSE, BYOL, dedicated, reserved left out)\n"
		"  `aws ec2 describe-instance-types`: vCPUs, memory, network performance, baseline and\n"
		"      peak bandwidth of all network cards (\"up to\" flagged), ENA, EFA\n"
		"  `aws ec2 describe-spot-price-history`: Linux/UNIX spot, the median of the records per\n"
		"      type and region (its zones together), the window stated (SUSE, RHEL, Windows out)\n"
		"  Azure Retail Prices API pages (Items[]): Virtual Machines by the hour, Linux\n"
		"      pay-as-you-go, Spot and 1/3-year reservations (the term's price over its hours);\n"
		"      Windows, Low Priority, Dev/Test and non-primary meters left out; its currencyCode\n"
		"  Google Cloud Billing Catalog skus[]: predefined vCPU + RAM rates (on demand, Spot, 1/3-\n"
		"      year commitments) times each machine type's shape, from `gcloud compute\n"
		"      machine-types list --format=json` given beside it, else the shipped table\n"
		"      (data/catalog/gcp-machine-types.json); custom, sole-tenant, extended memory out\n"
		"  Scaleway products/servers of one zone, named in the file's name (products-fr-par-1.json):\n"
		"      hourly price in EUR, vCPUs, RAM, sum_internal_bandwidth as the advertised\n"
		"      bandwidth; Windows (-WIN) and end-of-service types left out\n"
		"  Hetzner Cloud server_types: each location's hourly price net of VAT, in EUR (gross\n"
		"      left out), cores, memory; deprecated types left out\n"
		"Every price keeps its pricing model, currency, date and the file it came from.\n"
		"Transfer prices become <transfer> rules (schemas/transfer-pricing.md):\n"
		"  AWS Price List \"Data Transfer\" products (the AWSDataTransfer offer or get-products):\n"
		"      IntraRegion as cross-zone billed both, InterRegion Outbound as cross-region to\n"
		"      toRegionCode, AWS Outbound to External as internet in its tiers; same-zone free\n"
		"  Azure Bandwidth meters: Standard Data Transfer Out (Rtn Preference: MGN) as internet\n"
		"      tiers, Intra Continent Data Transfer Out per peer region of the same continent\n"
		"  Google Cloud Network InterzoneEgress SKUs: cross-zone, per GiB converted to per GB\n"
		"  Hetzner price_per_tb_traffic past included_traffic (included-gb-month on each price);\n"
		"      free within a location and its network zone\n"
		"  Scaleway: its billing lists no per-GB traffic: free rules for the file's zone\n"
		"  -o, --output OUT  the catalog file to write\n"
		"  --region R        prices of this region or zone only (repeatable; default all)\n"
		"  --pricing KIND    on-demand, spot or reserved prices only (repeatable; default all)\n"
		"  --name N          the catalog's name (default the provider's)\n"
		"  --description T   the catalog's description (default: what was imported, and\n"
		"                    the prices' dates)\n"
		"  --as-of DATE      YYYY-MM-DD for every price instead of the price list's date (and\n"
		"                    for Scaleway and Hetzner, whose lists carry none, instead of today)\n");
}

static int cmd_import(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'}, {"region", required_argument, NULL, 'r'},
		{"name", required_argument, NULL, 'n'},   {"as-of", required_argument, NULL, 'a'},
		{"pricing", required_argument, NULL, 'p'}, {"help", no_argument, NULL, 'h'},
		{"description", required_argument, NULL, 'D'},
		{NULL, 0, NULL, 0},
	};
	struct catalog_import_opts o = {0};
	const char *out = NULL;
	struct ns_err err = {0};
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'n': o.name = optarg; break;
		case 'D':
			if (!*optarg || strlen(optarg) > 255) {
				fprintf(stderr, "netsweep catalog import: --description: 1 to 255 "
					"characters\n");
				return NS_EXIT_USAGE;
			}
			o.description = optarg;
			break;
		case 'a': o.as_of = optarg; break;
		case 'r':
			if (o.n_regions >= CATALOG_IMPORT_MAX_REGIONS) {
				fprintf(stderr, "netsweep catalog import: at most %d --region\n",
					CATALOG_IMPORT_MAX_REGIONS);
				return NS_EXIT_USAGE;
			}
			o.regions[o.n_regions++] = optarg;
			break;
		case 'p':
			if (strcmp(optarg, "on-demand") && strcmp(optarg, "spot") &&
			    strcmp(optarg, "reserved")) {
				fprintf(stderr, "netsweep catalog import: --pricing %s: on-demand, spot "
					"or reserved\n", optarg);
				return NS_EXIT_USAGE;
			}
			if (o.n_pricings < 3)
				o.pricings[o.n_pricings++] = optarg;
			break;
		case 'h': usage(stdout); return NS_EXIT_OK;
		default:
			cli_option_error_hint(c, argv, longopts, &err);
			fprintf(stderr, "netsweep catalog import: %s\n", err.msg);
			return NS_EXIT_USAGE;
		}
	}
	if (!out || optind >= argc) {
		fprintf(stderr, "netsweep catalog import: %s\n", !out ? "-o OUT is needed"
									: "an input file is needed");
		usage(stderr);
		return NS_EXIT_USAGE;
	}
	o.inputs = (const char *const *)argv + optind;
	o.n_inputs = (size_t)(argc - optind);
	struct catalog_import_stats st;
	if (catalog_import(&o, out, &st, &err) < 0) {
		fprintf(stderr, "netsweep catalog import: %s\n", err.msg);
		return err.code == NS_E_INPUT ? NS_EXIT_USAGE : NS_EXIT_FAIL;
	}
	char rules[48] = "";
	if (st.transfers)
		snprintf(rules, sizeof(rules), ", %zu transfer rule%s", st.transfers,
			 st.transfers == 1 ? "" : "s");
	printf("netsweep catalog import: %zu instance type%s, %zu price%s%s -> %s\n",
	       st.instance_types, st.instance_types == 1 ? "" : "s", st.prices,
	       st.prices == 1 ? "" : "s", rules, out);
	return NS_EXIT_OK;
}

int cmd_catalog(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "import") == 0)
		return cmd_import(argc - 1, argv + 1);
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return NS_EXIT_OK;
	}
	fprintf(stderr, "netsweep catalog: %s\n", argc < 2 ? "a subcommand is needed (import)"
							   : "unknown subcommand (import is the one there is)");
	usage(stderr);
	return NS_EXIT_USAGE;
}
