/* rperr: the report's error type. report/ never includes runner code (the database is its only
 * interface), so it carries its own copy of the ns_err convention: library functions fill a
 * struct rp_err the caller owns and return -1; only cmd_report prints. */
#ifndef RP_ERR_H
#define RP_ERR_H

#define RP_ERR_MAX 512

struct rp_err {
	char msg[RP_ERR_MAX];
};

/* Formats msg into err (if not NULL) and returns -1. */
int rp_err_set(struct rp_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
