/* err: the error a library function hands back to its caller.
 * Library code never prints or exits; it fills a struct ns_err the caller owns
 * and returns -1. Only subcommand entry points print and choose exit codes. */
#ifndef NS_ERR_H
#define NS_ERR_H

#include <stddef.h>

#define NS_ERR_MAX 512

/* Exit codes of every subcommand. */
enum { NS_EXIT_OK = 0, NS_EXIT_FAIL = 1, NS_EXIT_USAGE = 2 };

struct ns_err {
	char msg[NS_ERR_MAX];
};

/* Formats msg into err (if err is not NULL) and returns -1, so that callers can write
 * `return ns_err_set(err, "...")`. */
int ns_err_set(struct ns_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Like ns_err_set, with ": strerror(errno)" appended; errno is preserved. */
int ns_err_sys(struct ns_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prepends "prefix: " to an existing message (for adding file/context). */
void ns_err_prefix(struct ns_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
