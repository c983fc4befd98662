/* cmd_site: `netsweep site` — parses the command line into a struct rp_site_cfg, checks it,
 * calls rp_site_build (site.h) and says what it wrote: 0 written, 2 usage or database error. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/cli.h"
#include "lib/cost.h"
#include "report/site/cmd_site.h"
#include "report/site/site.h"

enum { EXIT_OK = 0, EXIT_USAGE = 2 };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: netsweep site [--db FILE] [-o DIR] [--matrix NAME] [--title T]\n"
		"                     [--base-url URL] [--rerender] [--gnuplot-timeout S]\n\n"
		"Writes a static site of every finished run (night) in the database into DIR, to copy\n"
		"as is to any web server, GitHub Pages or a bucket (or open from file://):\n"
		"  DIR/index.html                 the latest night's headline and regressions, every\n"
		"                                 pair's latest figures, every night newest first\n"
		"  DIR/nights/DATE-UUID/          each night's full report (netsweep report --run ID\n"
		"                                 --baseline previous) and its summary, night.xml\n"
		"  DIR/pairs/PAIR/index.html      a pair's throughput, price and per-dollar trend\n"
		"  DIR/feed.xml                   an Atom feed, one entry per night\n"
		"Rebuilding renders only the nights not yet in DIR, then the index, the pair pages\n"
		"and the feed; no address is ever renamed or removed. Links are relative; nothing is\n"
		"loaded from elsewhere. Each page has an Open Graph card (card.png, its per-dollar\n"
		"chart).\n\n"
		"  --db FILE          database (default $NETSWEEP_DB or ./netsweep.db)\n"
		"  -o, --output DIR   the site's folder (default netsweep-site)\n"
		"  --matrix NAME      only this matrix's runs (default: every run)\n"
		"  --title T          the site's title (default from the matrix)\n"
		"  --base-url URL     where DIR is published (https://...): the feed and the cards\n"
		"                     get absolute addresses, which chat unfurlers need\n"
		"  --rerender         render every night's report again (after an upgrade)\n"
		"  --gnuplot-timeout S  time limit per chart (default 20)\n"
		"  --monthly-transfer VOLUME  the nights' transfer tiers at this monthly volume\n"
		"                     (50TB; default: each night's matrix's, else its rates for a\n"
		"                     730-hour month); new nights only, or all with --rerender\n\n"
		"Environment: NETSWEEP_GNUPLOT=PATH|none picks or disables gnuplot.\n");
}

static int parse_args(int argc, char **argv, struct rp_site_cfg *o)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},
		{"output", required_argument, NULL, 'o'},
		{"matrix", required_argument, NULL, 'm'},
		{"title", required_argument, NULL, 'T'},
		{"base-url", required_argument, NULL, 'u'},
		{"rerender", no_argument, NULL, 'R'},
		{"gnuplot-timeout", required_argument, NULL, 'g'},
		{"monthly-transfer", required_argument, NULL, 'M'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	rp_site_cfg_init(o);
	o->db = cli_db_default();
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o->db = optarg; break;
		case 'o': o->outdir = optarg; break;
		case 'm': o->matrix = optarg; break;
		case 'T': o->title = optarg; break;
		case 'u': o->base_url = optarg; break;
		case 'R': o->rerender = 1; break;
		case 'g': {
			struct ns_err ge = {0};
			if (cli_number("--gnuplot-timeout", optarg, 0.1, 3600, &o->gnuplot_timeout,
				       &ge) < 0) {
				fprintf(stderr, "netsweep site: %s\n", ge.msg);
				return -1;
			}
			break;
		}
		case 'M': {
			struct ns_err me = {0};
			if (cost_volume_parse(optarg, &o->monthly_gb, &me) < 0) {
				fprintf(stderr, "netsweep site: --monthly-transfer: %s\n", me.msg);
				return -1;
			}
			break;
		}
		case 'h': usage(stdout); return 1;
		default: {
			struct ns_err oe = {0};
			cli_option_error_hint(c, argv, longopts, &oe);
			fprintf(stderr, "netsweep site: %s\n", oe.msg);
			return -1;
		}
		}
	}
	struct ns_err e = {0};
	if (cli_no_operands(argc, argv, &e) < 0) {
		fprintf(stderr, "netsweep site: %s\n", e.msg);
		return -1;
	}
	return 0;
}

int cmd_site(int argc, char **argv)
{
	struct rp_site_cfg cfg;
	struct ns_err err = {0};
	int pr = parse_args(argc, argv, &cfg);
	if (pr != 0)
		return pr > 0 ? EXIT_OK : EXIT_USAGE;
	struct rp_site_stats st;
	if (rp_site_cfg_check(&cfg, &err) < 0 || rp_site_build(&cfg, &st, &err) < 0) {
		fprintf(stderr, "netsweep site: %s\n", err.msg);
		return EXIT_USAGE;
	}
	printf("netsweep site: %s/index.html: %zu night%s (%zu rendered in %.1f s), %zu pair "
	       "page%s, feed.xml; %.1f s in all\n", cfg.outdir, st.nights, NS_PLURAL(st.nights),
	       st.rendered, st.render_s, st.pairs, NS_PLURAL(st.pairs), st.total_s);
	if (st.repaired)
		printf("netsweep site: %zu night%s rendered again: %s night.xml did not parse\n",
		       st.repaired, NS_PLURAL(st.repaired), st.repaired == 1 ? "its" : "their");
	return EXIT_OK;
}
