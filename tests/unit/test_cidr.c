/* cidr: address blocks parsed and matched, IPv4-mapped addresses as IPv4, loopback. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "lib/cidr.h"

static struct sockaddr_storage addr(const char *s)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof(ss));
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, s, &a4->sin_addr) == 1)
		a4->sin_family = AF_INET;
	else {
		assert_int_equal(inet_pton(AF_INET6, s, &a6->sin6_addr), 1);
		a6->sin6_family = AF_INET6;
	}
	return ss;
}

static bool match(const struct cidr_list *l, const char *s)
{
	struct sockaddr_storage ss = addr(s);
	return cidr_match(l, (struct sockaddr *)&ss);
}

static void blocks_match_by_prefix(void **state)
{
	(void)state;
	struct cidr_list l;
	assert_int_equal(cidr_parse("10.1.0.0/16,192.0.2.7,2001:db8::/32,172.16.0.0/12", &l, NULL), 0);
	assert_int_equal(l.n, 4);
	assert_true(match(&l, "10.1.255.3"));
	assert_false(match(&l, "10.2.0.1"));
	assert_true(match(&l, "192.0.2.7"));
	assert_false(match(&l, "192.0.2.8"));
	assert_true(match(&l, "2001:db8:1::5"));
	assert_false(match(&l, "2001:db9::5"));
	assert_true(match(&l, "172.31.255.255"));   /* /12: 172.16-31 */
	assert_false(match(&l, "172.32.0.0"));
	assert_true(match(&l, "::ffff:10.1.2.3"));  /* the dual-stack socket's view */
	assert_int_equal(cidr_parse("0.0.0.0/0", &l, NULL), 0);
	assert_true(match(&l, "203.0.113.9"));
	assert_false(match(&l, "::2"));
}

static void bad_lists_are_refused(void **state)
{
	(void)state;
	struct cidr_list l;
	struct ns_err err = {0};
	const char *bad[] = {"", ",", "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/8,", "host.example",
			     "::1/129", "10.0.0.0/8x", "1.2.3.4,,5.6.7.8"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(cidr_parse(bad[i], &l, &err), -1);
		assert_int_equal(err.code, NS_E_USAGE);
	}
}

static void loopback_addresses(void **state)
{
	(void)state;
	const char *yes[] = {"127.0.0.1", "127.9.9.9", "::1", "::ffff:127.0.0.1"};
	const char *no[] = {"10.0.0.1", "::2", "::ffff:10.0.0.1", "128.0.0.1"};
	for (size_t i = 0; i < 4; i++) {
		struct sockaddr_storage a = addr(yes[i]), b = addr(no[i]);
		assert_true(cidr_is_loopback((struct sockaddr *)&a));
		assert_false(cidr_is_loopback((struct sockaddr *)&b));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(blocks_match_by_prefix),
		cmocka_unit_test(bad_lists_are_refused),
		cmocka_unit_test(loopback_addresses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
