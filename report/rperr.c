/* rperr: see rperr.h. */
#include "rperr.h"

#include <stdarg.h>
#include <stdio.h>

int rp_err_set(struct rp_err *err, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}
