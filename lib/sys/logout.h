/* logout: iperf3's output habits for a command's standard output — --logfile (append to a
 * file instead), --timestamps[=FORMAT] (each line starts with the time, strftime FORMAT,
 * default "%c "), --forceflush (every line reaches the file or terminal at once) — as one
 * stream the command installs as stdout, so that every printf of the command obeys them.
 * The command (an entry point) installs and closes it; library code never does. */
#ifndef NS_LOGOUT_H
#define NS_LOGOUT_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/err.h"

#define LOGOUT_DEFAULT_TIME_FORMAT "%c "
#define LOGOUT_MAX_FORMAT 64

struct logout_opts {
	const char *logfile;     /* NULL = standard output */
	const char *time_format; /* NULL = no timestamps */
	bool forceflush;
};

/* A stream writing to o's destination with its habits; NULL with err filled (a logfile that
 * cannot be opened for appending, a format too long). */
FILE *logout_open(const struct logout_opts *o, struct ns_err *err);

/* The line prefix for the time t (seconds since the epoch) in format fmt, into buf; exposed
 * for tests. Returns the length written. */
size_t logout_stamp(const char *fmt, double t, char *buf, size_t cap);

#endif
