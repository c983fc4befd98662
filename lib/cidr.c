/* cidr: address blocks and membership, byte by byte over the prefix. */
#include "cidr.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The address's family and bytes, an IPv4-mapped IPv6 address as IPv4. */
static int addr_bytes(const struct sockaddr *sa, uint8_t out[16])
{
	if (sa->sa_family == AF_INET) {
		memcpy(out, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return AF_INET;
	}
	if (sa->sa_family != AF_INET6)
		return -1;
	const struct in6_addr *a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;
	if (IN6_IS_ADDR_V4MAPPED(a6)) {
		memcpy(out, a6->s6_addr + 12, 4);
		return AF_INET;
	}
	memcpy(out, a6->s6_addr, 16);
	return AF_INET6;
}

static int parse_one(const char *s, struct cidr *c, struct ns_err *err)
{
	char buf[INET6_ADDRSTRLEN + 8];
	if (strlen(s) >= sizeof(buf))
		return ns_err_code(err, NS_E_USAGE, "address block '%.64s' is too long", s);
	snprintf(buf, sizeof(buf), "%s", s);
	char *slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	memset(c, 0, sizeof(*c));
	if (inet_pton(AF_INET, buf, c->addr) == 1) {
		c->family = AF_INET;
		c->bits = 32;
	} else if (inet_pton(AF_INET6, buf, c->addr) == 1) {
		c->family = AF_INET6;
		c->bits = 128;
	} else {
		return ns_err_code(err, NS_E_USAGE, "'%s' is not an IP address or block", s);
	}
	if (slash) {
		char *end;
		unsigned long b = strtoul(slash + 1, &end, 10);
		if (!slash[1] || *end || b > c->bits)
			return ns_err_code(err, NS_E_USAGE, "'%s': prefix length must be 0..%u", s,
					   c->bits);
		c->bits = (unsigned)b;
	}
	return 0;
}

int cidr_parse(const char *s, struct cidr_list *l, struct ns_err *err)
{
	memset(l, 0, sizeof(*l));
	const char *p = s;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		char item[INET6_ADDRSTRLEN + 8];
		if (n == 0 || n >= sizeof(item))
			return ns_err_code(err, NS_E_USAGE, "bad address list '%.64s'", s);
		if (l->n == CIDR_MAX)
			return ns_err_code(err, NS_E_USAGE, "more than %d address blocks", CIDR_MAX);
		memcpy(item, p, n);
		item[n] = '\0';
		if (parse_one(item, &l->e[l->n], err) < 0)
			return -1;
		l->n++;
		p += n;
		if (*p == ',' && !*++p)
			return ns_err_code(err, NS_E_USAGE, "bad address list '%.64s'", s);
	}
	if (l->n == 0)
		return ns_err_code(err, NS_E_USAGE, "empty address list");
	return 0;
}

static bool in_block(const struct cidr *c, int family, const uint8_t a[16])
{
	if (family != c->family)
		return false;
	unsigned full = c->bits / 8, rest = c->bits % 8;
	if (memcmp(a, c->addr, full) != 0)
		return false;
	if (!rest)
		return true;
	uint8_t mask = (uint8_t)(0xff << (8 - rest));
	return (a[full] & mask) == (c->addr[full] & mask);
}

bool cidr_match(const struct cidr_list *l, const struct sockaddr *sa)
{
	uint8_t a[16];
	int family = addr_bytes(sa, a);
	for (unsigned i = 0; family > 0 && i < l->n; i++)
		if (in_block(&l->e[i], family, a))
			return true;
	return false;
}

bool cidr_is_loopback(const struct sockaddr *sa)
{
	uint8_t a[16];
	static const uint8_t one6[16] = {[15] = 1};
	int family = addr_bytes(sa, a);
	if (family == AF_INET)
		return a[0] == 127;
	return family == AF_INET6 && !memcmp(a, one6, 16);
}
