/* dscp: DSCP names and TOS bytes (see dscp.h). */
#include "dscp.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

static const struct {
	const char *name;
	uint8_t dscp;
} names[] = {
	{"CS0", 0},   {"CS1", 8},   {"CS2", 16},  {"CS3", 24},  {"CS4", 32},  {"CS5", 40},
	{"CS6", 48},  {"CS7", 56},  {"AF11", 10}, {"AF12", 12}, {"AF13", 14}, {"AF21", 18},
	{"AF22", 20}, {"AF23", 22}, {"AF31", 26}, {"AF32", 28}, {"AF33", 30}, {"AF41", 34},
	{"AF42", 36}, {"AF43", 38}, {"EF", 46},   {"VA", 44},   {"VOICE-ADMIT", 44},
};

/* A whole unsigned number in base 0 (decimal, 0x, 0 octal) up to max. */
static int number(const char *s, unsigned long max, unsigned long *v)
{
	char *end;
	if (!*s || *s == '-' || *s == '+')
		return -1;
	*v = strtoul(s, &end, 0);
	return *end || *v > max ? -1 : 0;
}

int dscp_parse(const char *s, uint32_t *tos, struct ns_err *err)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i].name)) {
			*tos = (uint32_t)names[i].dscp << 2;
			return 0;
		}
	unsigned long v;
	if (number(s, 63, &v) < 0)
		return ns_err_code(err, NS_E_USAGE, "DSCP '%s' is not a name (CS0-CS7, AF11-AF43, "
				   "EF, VA) or a number 0..63", s);
	*tos = (uint32_t)v << 2;
	return 0;
}

int dscp_parse_tos(const char *s, uint32_t *tos, struct ns_err *err)
{
	unsigned long v;
	if (number(s, 255, &v) < 0)
		return ns_err_code(err, NS_E_USAGE, "TOS '%s' is not a number 0..255", s);
	*tos = (uint32_t)v;
	return 0;
}

void dscp_name(uint32_t dscp, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].dscp == dscp) {
			snprintf(buf, len, "%s", names[i].name);
			return;
		}
	snprintf(buf, len, "%u", (unsigned)dscp);
}
