/* cidr: a list of address blocks ("10.0.0.0/8,2001:db8::/32,192.0.2.7") and whether an
 * address falls in one. The agent's --allow: which clients it serves and which targets it
 * sends a delegated test to. An IPv4 address seen as ::ffff:a.b.c.d matches IPv4 blocks. */
#ifndef NS_CIDR_H
#define NS_CIDR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "err.h"

#define CIDR_MAX 64

struct cidr_list {
	unsigned n;
	struct cidr {
		int family;           /* AF_INET or AF_INET6 */
		uint8_t addr[16];
		unsigned bits;
	} e[CIDR_MAX];
};

/* Parses a comma-separated list; an address without /bits is one host. */
int cidr_parse(const char *s, struct cidr_list *l, struct ns_err *err);
bool cidr_match(const struct cidr_list *l, const struct sockaddr *sa);
/* 127.0.0.0/8, ::1 and their IPv4-mapped forms. */
bool cidr_is_loopback(const struct sockaddr *sa);

#endif
