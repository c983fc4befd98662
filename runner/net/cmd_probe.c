/* Placeholder until this subcommand lands; replaced by its module's owner. */
#include <stdio.h>

#include "../core/cmds.h"
#include "../core/err.h"

int cmd_probe(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "netsweep probe: not implemented yet\n");
	return NS_EXIT_USAGE;
}
