/* `netsweep key FILE`: writes a new random pre-shared key for agents and their clients
 * (--psk-file), readable by its owner only; an existing file is never replaced. */
#include <stdio.h>
#include <string.h>

#include "runner/core/cmds.h"
#include "lib/cli.h"
#include "lib/err.h"
#include "runner/proto/auth.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: netsweep key FILE\n"
		   "  writes a new random %d-byte key (hex) to FILE, mode 0600; copy it to each\n"
		   "  agent host and give it to agent, probe and run as --psk-file FILE\n",
		AUTH_KEY_NEW);
}

int cmd_key(int argc, char **argv)
{
	struct ns_err err = {0};
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return NS_EXIT_OK;
	}
	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "netsweep key: %s\n",
			argc < 2 ? "a key file name is needed" : "one key file name, no options");
		usage(stderr);
		return NS_EXIT_USAGE;
	}
	if (auth_key_create(argv[1], &err) < 0) {
		fprintf(stderr, "netsweep key: %s\n", err.msg);
		return NS_EXIT_FAIL;
	}
	return NS_EXIT_OK;
}
