/* logout: a stdio stream (glibc's fopencookie) that puts a timestamp at the start of every
 * line and flushes as asked, over standard output or a log file opened for appending. */
#include "logout.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct logout {
	FILE *dst;
	bool own_dst;          /* a log file this stream opened (and closes) */
	bool at_line_start;
	bool forceflush;
	char fmt[LOGOUT_MAX_FORMAT]; /* "" = no timestamps */
};

size_t logout_stamp(const char *fmt, double t, char *buf, size_t cap)
{
	time_t s = (time_t)t;
	struct tm tm;
	if (!cap)
		return 0;
	buf[0] = '\0';
	if (!localtime_r(&s, &tm))
		return 0;
	return strftime(buf, cap, fmt, &tm);
}

static ssize_t logout_write(void *cookie, const char *data, size_t n)
{
	struct logout *l = cookie;
	size_t done = 0;
	while (done < n) {
		if (l->at_line_start && l->fmt[0]) {
			struct timespec ts;
			char stamp[128];
			clock_gettime(CLOCK_REALTIME, &ts);
			size_t len = logout_stamp(l->fmt, (double)ts.tv_sec, stamp, sizeof(stamp));
			if (len && fwrite(stamp, 1, len, l->dst) != len)
				return done ? (ssize_t)done : -1;
		}
		const char *nl = memchr(data + done, '\n', n - done);
		size_t chunk = nl ? (size_t)(nl - (data + done)) + 1 : n - done;
		if (fwrite(data + done, 1, chunk, l->dst) != chunk)
			return done ? (ssize_t)done : -1;
		done += chunk;
		l->at_line_start = nl != NULL;
	}
	if (l->forceflush && fflush(l->dst) != 0)
		return -1;
	return (ssize_t)n;
}

static int logout_close(void *cookie)
{
	struct logout *l = cookie;
	int rc = fflush(l->dst);
	if (l->own_dst && fclose(l->dst) != 0)
		rc = EOF;
	free(l);
	return rc == 0 ? 0 : EOF;
}

FILE *logout_open(const struct logout_opts *o, struct ns_err *err)
{
	struct logout *l = calloc(1, sizeof(*l));
	if (!l) {
		ns_err_code(err, NS_E_NOMEM, "out of memory");
		return NULL;
	}
	l->at_line_start = true;
	l->forceflush = o->forceflush;
	if (o->time_format) {
		const char *f = o->time_format[0] ? o->time_format : LOGOUT_DEFAULT_TIME_FORMAT;
		if (strlen(f) >= sizeof(l->fmt)) {
			free(l);
			ns_err_code(err, NS_E_USAGE, "--timestamps format is too long (at most %d "
				    "characters)", LOGOUT_MAX_FORMAT - 1);
			return NULL;
		}
		memcpy(l->fmt, f, strlen(f) + 1);
	}
	l->dst = stdout;
	if (o->logfile) {
		l->dst = fopen(o->logfile, "a");
		if (!l->dst) {
			int e = errno;
			free(l);
			ns_err_code(err, NS_E_IO, "--logfile %s: %s", o->logfile, strerror(e));
			return NULL;
		}
		l->own_dst = true;
	}
	cookie_io_functions_t io = {.write = logout_write, .close = logout_close};
	FILE *f = fopencookie(l, "w", io);
	if (!f) {
		if (l->own_dst)
			fclose(l->dst);
		free(l);
		ns_err_code(err, NS_E_NOMEM, "out of memory");
		return NULL;
	}
	setvbuf(f, NULL, o->forceflush ? _IOLBF : _IOFBF, 0);
	return f;
}
