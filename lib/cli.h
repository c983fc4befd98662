/* cli: the usage errors every subcommand's getopt_long loop shares, worded one way. */
#ifndef NS_CLI_H
#define NS_CLI_H

#include "lib/err.h"

/* For getopt_long's ':' (missing value) or '?' (unknown option), read with optind and optopt
 * right after the call: fills err and returns -1. */
int cli_option_error(int c, char **argv, struct ns_err *err);

/* --db's default for every command: $NETSWEEP_DB where set and not empty (lib/settings),
 * else netsweep.db. */
const char *cli_db_default(void);

/* The same, and for an unknown long option the nearest of longopts ("did you mean
 * '--streams'?"). */
struct option;
int cli_option_error_hint(int c, char **argv, const struct option *longopts, struct ns_err *err);

/* After the options: -1 with err filled when an argument is left that the command does not
 * take, else 0. */
int cli_no_operands(int argc, char **argv, struct ns_err *err);

/* An option's number in [lo, hi]: 0 with *out set, or -1 with err naming the option, the
 * text and the range. */
int cli_number(const char *opt, const char *s, double lo, double hi, double *out,
	       struct ns_err *err);

/* The "s" of a count's noun, so that no message says "1 repeats". */
#define NS_PLURAL(n) ((n) == 1 ? "" : "s")

#endif
