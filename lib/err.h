/* err: the error a library function hands back to its caller — a code to act on and a message
 * for people. Library code never prints or exits; it fills a struct ns_err the caller owns and
 * returns -1. Only subcommand entry points print and choose exit codes. Callers branch on
 * err.code, never on the message: a message can carry a peer's words. */
#ifndef NS_ERR_H
#define NS_ERR_H

#include <stddef.h>

#define NS_ERR_MAX 512

/* Exit codes of every subcommand. */
enum { NS_EXIT_OK = 0, NS_EXIT_FAIL = 1, NS_EXIT_USAGE = 2 };

/* What kind of failure, as redis's anet returns ANET_ERR beside its buffer. */
enum ns_err_code {
	NS_E_NONE = 0,
	NS_E_FAIL,        /* anything not listed below */
	NS_E_USAGE,       /* a bad option or argument */
	NS_E_INPUT,       /* a bad file or value: matrix, catalog, database contents */
	NS_E_IO,          /* a local system call failed */
	NS_E_NOMEM,
	NS_E_TIMEOUT,     /* a bounded wait ran out */
	NS_E_REFUSED,     /* the peer's port refused the connection */
	NS_E_UNREACHABLE, /* no way to the peer: resolution, route, refused or silent connect */
	NS_E_BUSY,        /* the agent serves another test; trying again later may work */
	NS_E_PROTOCOL,    /* the peer broke the control protocol */
	NS_E_PEER,        /* the peer answered with an error of its own */
	NS_E_AUTH,        /* authentication failed */
	NS_E_LIMIT,       /* a request over a configured cap */
	NS_E_STOPPED,     /* stopped on request (signal, agent_stop) */
	NS_E_UNSUPPORTED, /* this host, device or account cannot do it (AF_XDP without root ...) */
};

struct ns_err {
	enum ns_err_code code;
	char msg[NS_ERR_MAX];
};

/* Formats msg into err (if err is not NULL), sets code NS_E_FAIL and returns -1, so that
 * callers can write `return ns_err_set(err, "...")`. */
int ns_err_set(struct ns_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The same with a code of the caller's choosing. */
int ns_err_code(struct ns_err *err, enum ns_err_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like ns_err_set, with ": strerror(errno)" appended and the code read from errno
 * (ETIMEDOUT: timeout, ECONNREFUSED: refused, unreachable network or host: unreachable,
 * ENOMEM: nomem, else io); errno is preserved. */
int ns_err_sys(struct ns_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A bounded wait ran out, in the one wording every timeout uses: "timed out after N s waiting
 * for WHAT", where WHAT names the thing awaited and its host and port ("READY from
 * 10.0.0.1:5301"). N is the length of the wait the user can set (--connect-timeout,
 * --timeout); after_s <= 0 leaves it out, for steps that share one deadline. Code NS_E_TIMEOUT. */
int ns_err_timeout(struct ns_err *err, double after_s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prepends "prefix: " to an existing message (for adding file/context); keeps the code. */
void ns_err_prefix(struct ns_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A short stable name of a code ("busy", "timeout", ...), for logs and JSON. */
const char *ns_err_code_name(enum ns_err_code code);

#endif
