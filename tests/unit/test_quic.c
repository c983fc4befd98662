/* quic: the per-test certificate and its fingerprint (runner/quic/quic_cert.c), and the QUIC
 * engine's stream accounting over loopback (runner/quic/quic_engine.c): a sender that stops
 * by amount delivers every byte it counted, and a client that expects another fingerprint
 * refuses the server and moves nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/crypto.h>

#include "runner/quic/quic.h"
#include "runner/quic/quic_int.h"

/* Two UDP sockets on 127.0.0.1 connected to each other. */
static void udp_pair(int *a, int *b)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_in x, y;
	socklen_t l = sizeof(x);
	*a = socket(AF_INET, SOCK_DGRAM, 0);
	*b = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(*a >= 0 && *b >= 0);
	assert_int_equal(bind(*a, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(bind(*b, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(*a, (struct sockaddr *)&x, &l), 0);
	l = sizeof(y);
	assert_int_equal(getsockname(*b, (struct sockaddr *)&y, &l), 0);
	assert_int_equal(connect(*a, (struct sockaddr *)&y, sizeof(y)), 0);
	assert_int_equal(connect(*b, (struct sockaddr *)&x, sizeof(x)), 0);
}

static void fingerprint_is_the_certificates_sha256(void **state)
{
	(void)state;
	struct quic_cert *c, *d;
	struct ns_err err = {0};
	assert_int_equal(quic_cert_new(&c, &err), 0);
	assert_int_equal(quic_cert_new(&d, &err), 0);
	gnutls_datum_t der;
	assert_int_equal(gnutls_x509_crt_export2(c->crt, GNUTLS_X509_FMT_DER, &der), 0);
	uint8_t want[QUIC_SHA256_LEN], fp[QUIC_SHA256_LEN], other[QUIC_SHA256_LEN];
	assert_int_equal(gnutls_hash_fast(GNUTLS_DIG_SHA256, der.data, der.size, want), 0);
	quic_cert_sha256(c, fp);
	assert_memory_equal(fp, want, QUIC_SHA256_LEN);
	assert_true(quic_cert_matches(der.data, der.size, fp));
	/* made per test: another certificate has another fingerprint, and one bit off fails */
	quic_cert_sha256(d, other);
	assert_memory_not_equal(fp, other, QUIC_SHA256_LEN);
	assert_false(quic_cert_matches(der.data, der.size, other));
	fp[31] ^= 1;
	assert_false(quic_cert_matches(der.data, der.size, fp));
	assert_false(quic_cert_matches(NULL, 0, want));
	char hex[2 * QUIC_SHA256_LEN + 1];
	quic_sha256_hex(want, hex);
	assert_int_equal(strlen(hex), 64);
	assert_true(strspn(hex, "0123456789abcdef") == 64);
	gnutls_free(der.data);
	quic_cert_free(c);
	quic_cert_free(d);
}

struct run {
	uint64_t sent, got, acked;
	int send_err, recv_err;
	bool recv_finished;
};

/* A server receiving on one end, a client sending `amount` bytes on the other; waits up to
 * 20 s for both engines to end. */
static void transfer(uint32_t conns, uint64_t amount, bool wrong_fp, struct run *r)
{
	struct quic_cert *cert;
	struct ns_err err = {0};
	assert_int_equal(quic_cert_new(&cert, &err), 0);
	struct quic_side srv = {.server = true, .cert = cert}, cli = {.server = false};
	quic_cert_sha256(cert, cli.peer_sha256);
	if (wrong_fp)
		cli.peer_sha256[0] ^= 0xff;
	int sfd[4], cfd[4];
	for (uint32_t i = 0; i < conns; i++)
		udp_pair(&sfd[i], &cfd[i]);
	struct engine_cfg rc = {.proto = NS_PROTO_QUIC, .role = ENGINE_RECV, .threads = 1,
				.transport = quic_transport(), .transport_arg = &srv};
	struct engine_cfg sc = {.proto = NS_PROTO_QUIC, .role = ENGINE_SEND, .threads = 2,
				.send_bytes = amount, .send_duration_s = 15,
				.transport = quic_transport(), .transport_arg = &cli};
	struct engine *re = engine_create(&rc, sfd, conns, &err);
	assert_non_null(re);
	struct engine *se = engine_create(&sc, cfd, conns, &err);
	assert_non_null(se);
	assert_int_equal(engine_start(re, &err), 0);
	assert_int_equal(engine_start(se, &err), 0);
	for (int i = 0; i < 2000 && !(engine_done(se) && engine_done(re)); i++)
		usleep(10000);
	assert_true(engine_done(se)); /* the sender ended by itself: its amount, or refused */
	engine_stop(re);
	engine_stop(se);
	engine_join(se);
	engine_join(re);
	struct engine_stream_snap ss[4], rs[4];
	engine_snapshot(se, ss);
	engine_snapshot(re, rs);
	memset(r, 0, sizeof(*r));
	r->recv_finished = true;
	for (uint32_t i = 0; i < conns; i++) {
		r->sent += ss[i].bytes;
		r->acked += ss[i].acked;
		r->got += rs[i].bytes;
		if (ss[i].error)
			r->send_err = ss[i].error;
		if (rs[i].error)
			r->recv_err = rs[i].error;
		r->recv_finished &= rs[i].finished;
	}
	assert_true(engine_cpu_ns(se) > 0);
	assert_string_equal(engine_mode(se), engine_gso_active(se) ? "quic gso" : "quic");
	engine_destroy(se);
	engine_destroy(re);
	quic_cert_free(cert);
}

static void every_counted_byte_arrives(void **state)
{
	(void)state;
	struct run r;
	transfer(3, 30u << 20, false, &r);
	assert_int_equal(r.send_err, 0);
	assert_int_equal(r.recv_err, 0);
	assert_true(r.recv_finished);
	/* the amount split over the connections, each byte once: handed to ngtcp2, arrived
	 * in order at the receiver, acknowledged back to the sender */
	assert_int_equal(r.sent, 30u << 20);
	assert_int_equal(r.got, 30u << 20);
	assert_int_equal(r.acked, 30u << 20);
}

static void another_fingerprint_is_refused(void **state)
{
	(void)state;
	struct run r;
	transfer(1, 1u << 20, true, &r);
	assert_int_equal(r.send_err, EKEYREJECTED);
	assert_int_equal(r.sent, 0);
	assert_int_equal(r.got, 0);
}

static void bad_configurations_fail_cleanly(void **state)
{
	(void)state;
	struct ns_err err = {0};
	int a, b;
	udp_pair(&a, &b);
	/* a server without a certificate, and QUIC without its transport */
	struct quic_side srv = {.server = true};
	struct engine_cfg c = {.proto = NS_PROTO_QUIC, .role = ENGINE_RECV,
			       .transport = quic_transport(), .transport_arg = &srv};
	assert_null(engine_create(&c, &a, 1, &err));
	c.transport = NULL;
	assert_null(engine_create(&c, &a, 1, &err));
	assert_int_equal(err.code, NS_E_UNSUPPORTED);
	/* the sockets are still the caller's */
	assert_true(fcntl(a, F_GETFD) >= 0);
	close(a);
	close(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fingerprint_is_the_certificates_sha256),
		cmocka_unit_test(every_counted_byte_arrives),
		cmocka_unit_test(another_fingerprint_is_refused),
		cmocka_unit_test(bad_configurations_fail_cleanly),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
