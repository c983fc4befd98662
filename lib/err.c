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
		err->code = NS_E_FAIL;
	}
	return -1;
}

int ns_err_code(struct ns_err *err, enum ns_err_code code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		err->code = code;
	}
	return -1;
}

int ns_err_timeout(struct ns_err *err, double after_s, const char *fmt, ...)
{
	if (!err)
		return -1;
	int n;
	/* 0.5, 2.5, 25, 1500: three digits say which setting it was, no more */
	if (after_s <= 0)
		n = snprintf(err->msg, sizeof(err->msg), "timed out waiting for ");
	else
		n = snprintf(err->msg, sizeof(err->msg), after_s < 100 ? "timed out after %.3g s "
			     "waiting for " : "timed out after %.0f s waiting for ", after_s);
	if (n > 0 && (size_t)n < sizeof(err->msg)) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg + n, sizeof(err->msg) - (size_t)n, fmt, ap);
		va_end(ap);
	}
	err->code = NS_E_TIMEOUT;
	return -1;
}

static enum ns_err_code code_of_errno(int e)
{
	switch (e) {
	case ETIMEDOUT:
		return NS_E_TIMEOUT;
	case ECONNREFUSED:
		return NS_E_REFUSED;
	case ENETUNREACH:
	case EHOSTUNREACH:
	case EHOSTDOWN:
	case ENETDOWN:
		return NS_E_UNREACHABLE;
	case ENOMEM:
		return NS_E_NOMEM;
	default:
		return NS_E_IO;
	}
}

const char *ns_err_code_name(enum ns_err_code code)
{
	static const char *const names[] = {
		[NS_E_NONE] = "none", [NS_E_FAIL] = "fail", [NS_E_USAGE] = "usage",
		[NS_E_INPUT] = "input", [NS_E_IO] = "io", [NS_E_NOMEM] = "nomem",
		[NS_E_TIMEOUT] = "timeout", [NS_E_REFUSED] = "refused",
		[NS_E_UNREACHABLE] = "unreachable", [NS_E_BUSY] = "busy",
		[NS_E_PROTOCOL] = "protocol", [NS_E_PEER] = "peer", [NS_E_AUTH] = "auth",
		[NS_E_LIMIT] = "limit", [NS_E_STOPPED] = "stopped",
		[NS_E_UNSUPPORTED] = "unsupported",
	};
	if ((unsigned)code < sizeof(names) / sizeof(names[0]) && names[code])
		return names[code];
	return "unknown";
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
		err->code = code_of_errno(saved);
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
