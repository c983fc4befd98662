/* settings: see settings.h. The one file below the command layer that reads the environment
 * (tests/integration/layout_deps.sh holds it so). */
#include "settings.h"

#include <stdlib.h>
#include <string.h>

static struct ns_settings current;

const struct ns_settings *settings_get(void)
{
	return &current;
}

void settings_set(const struct ns_settings *s)
{
	current = *s;
}

static const char *var(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

static bool is(const char *name, const char *const *words)
{
	const char *v = var(name);
	for (; v && *words; words++)
		if (!strcmp(v, *words))
			return true;
	return false;
}

void settings_from_env(struct ns_settings *s)
{
	static const char *const off[] = {"0", "off", "no", NULL};
	static const char *const zero[] = {"0", NULL};
	static const char *const one[] = {"1", NULL};
	*s = (struct ns_settings){
		.db = var("NETSWEEP_DB"),
		.catalog = var("NETSWEEP_CATALOG"),
		.lab_dir = var("NETSWEEP_LAB_DIR"),
		.kubectl = var("NETSWEEP_KUBECTL"),
		.node_name = var("NETSWEEP_NODE_NAME"),
		.imds_addr = var("NETSWEEP_IMDS_ADDR"),
		.imds_off = is("NETSWEEP_IMDS", off),
		.gnuplot = var("NETSWEEP_GNUPLOT"),
		.path = getenv("PATH"),
		.realtime_off = is("NETSWEEP_REALTIME", zero),
		.test_send_stall = var("NETSWEEP_TEST_SEND_STALL"),
		.test_xdp_generic = is("NETSWEEP_TEST_XDP_GENERIC", one),
	};
}
