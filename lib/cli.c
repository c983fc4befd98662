#include "cli.h"

#include <getopt.h>

int cli_option_error(int c, char **argv, struct ns_err *err)
{
	if (c == ':')
		return ns_err_set(err, "option '%s' needs a value", argv[optind - 1]);
	/* a short option inside a cluster (-uX) is not argv[optind - 1]: name it by optopt */
	if (optopt)
		return ns_err_set(err, "unknown option '-%c'", optopt);
	return ns_err_set(err, "unknown option '%s'", argv[optind - 1]);
}

int cli_no_operands(int argc, char **argv, struct ns_err *err)
{
	if (optind < argc)
		return ns_err_set(err, "unexpected argument '%s'", argv[optind]);
	return 0;
}
