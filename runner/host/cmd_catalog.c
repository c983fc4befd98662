/* netsweep catalog import: a catalog file from AWS's published prices and instance figures
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
		"usage: netsweep catalog import -o OUT [--region R]... [--name N] [--as-of DATE] FILE...\n"
		"\n"
		"Writes a catalog (schemas/catalog.xsd) from what AWS publishes; each FILE's kind is\n"
		"recognised from its content:\n"
		"  the Price List bulk offer file  (.../offers/v1.0/aws/AmazonEC2/current/REGION/index.json)\n"
		"  aws pricing get-products --service-code AmazonEC2 [--filters ...]   (its JSON output)\n"
		"  aws ec2 describe-instance-types [--instance-types ...]              (its JSON output)\n"
		"Prices are on-demand Linux on shared tenancy, each with the price list's date and the\n"
		"file it came from; describe-instance-types gives vCPUs, memory, network performance,\n"
		"baseline and peak bandwidth, ENA and EFA.\n"
		"  -o, --output OUT  the catalog file to write\n"
		"  --region R        prices of this region only (repeatable; default all)\n"
		"  --name N          the catalog's name (default aws)\n"
		"  --as-of DATE      YYYY-MM-DD for every price instead of the price list's date\n");
}

static int cmd_import(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'}, {"region", required_argument, NULL, 'r'},
		{"name", required_argument, NULL, 'n'},   {"as-of", required_argument, NULL, 'a'},
		{"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
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
		case 'a': o.as_of = optarg; break;
		case 'r':
			if (o.n_regions >= CATALOG_IMPORT_MAX_REGIONS) {
				fprintf(stderr, "netsweep catalog import: at most %d --region\n",
					CATALOG_IMPORT_MAX_REGIONS);
				return NS_EXIT_USAGE;
			}
			o.regions[o.n_regions++] = optarg;
			break;
		case 'h': usage(stdout); return NS_EXIT_OK;
		default:
			cli_option_error(c, argv, &err);
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
	printf("netsweep catalog import: %zu instance type%s, %zu price%s -> %s\n", st.instance_types,
	       st.instance_types == 1 ? "" : "s", st.prices, st.prices == 1 ? "" : "s", out);
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
