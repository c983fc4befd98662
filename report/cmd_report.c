/* Placeholder until this subcommand lands; replaced by its module's owner. */
#include <stdio.h>

#include "../runner/core/cmds.h"

int cmd_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "netsweep report: not implemented yet\n");
	return 2;
}
