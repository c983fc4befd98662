/* itype: see itype.h. */
#include "lib/names/itype.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

bool itype_matches(const char *type, const char *family, const char *want)
{
	if (!want || !*want)
		return true;
	if (type && !strcmp(type, want))
		return true;
	return family && *family && !strcasecmp(family, want);
}

void itype_family_implied(const char *type, char *out, size_t cap)
{
	const char *dot = type ? strchr(type, '.') : NULL;
	if (!cap)
		return;
	out[0] = '\0';
	if (dot && dot > type)
		snprintf(out, cap, "%.*s", (int)(dot - type), type);
}
