#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "lib/names/suggest.h"
#include "lib/settings.h"

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

static const char *longopt_at(const void *ctx, size_t i)
{
	const struct option *o = ctx;
	for (size_t k = 0; k < i; k++)
		if (!o[k].name)
			return NULL;
	return o[i].name;
}

int cli_option_error_hint(int c, char **argv, const struct option *longopts, struct ns_err *err)
{
	const char *arg = argv[optind - 1];
	if (c == ':' || optopt || strncmp(arg, "--", 2) || !longopts)
		return cli_option_error(c, argv, err);
	char word[80];
	size_t n = strcspn(arg + 2, "=");
	if (n >= sizeof(word))
		return cli_option_error(c, argv, err);
	memcpy(word, arg + 2, n);
	word[n] = '\0';
	const char *near = suggest_nearest(word, longopt_at, longopts);
	if (!near || !strcmp(near, word))
		return cli_option_error(c, argv, err);
	return ns_err_code(err, NS_E_USAGE, "unknown option '%s' (did you mean '--%s'?)", arg, near);
}

int cli_number(const char *opt, const char *s, double lo, double hi, double *out,
	       struct ns_err *err)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi))
		return ns_err_code(err, NS_E_USAGE, "%s %s: expected a number in [%g, %g]", opt, s,
				   lo, hi);
	*out = v;
	return 0;
}

const char *cli_db_default(void)
{
	const char *db = settings_get()->db;
	return db ? db : "netsweep.db";
}
