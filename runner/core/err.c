#include "err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int ns_err_set(struct ns_err *err, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}

int ns_err_sys(struct ns_err *err, const char *fmt, ...)
{
	int saved = errno;
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < sizeof(err->msg))
			snprintf(err->msg + n, sizeof(err->msg) - (size_t)n, ": %s", strerror(saved));
	}
	errno = saved;
	return -1;
}

void ns_err_prefix(struct ns_err *err, const char *fmt, ...)
{
	if (!err)
		return;
	char old[NS_ERR_MAX];
	memcpy(old, err->msg, sizeof(old));
	old[sizeof(old) - 1] = '\0';
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(err->msg) - 2)
		return;
	size_t off = (size_t)n, room = sizeof(err->msg) - off - 1;
	size_t len = strnlen(old, room);
	memcpy(err->msg + off, ": ", 2);
	off += 2;
	if (len > sizeof(err->msg) - off - 1)
		len = sizeof(err->msg) - off - 1;
	memcpy(err->msg + off, old, len);
	err->msg[off + len] = '\0';
}
