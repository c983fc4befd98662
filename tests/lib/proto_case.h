/* proto_case: the input format of tests/fuzz/fuzz_proto.c, shared by the fuzzer, its seed
 * generator (proto_seeds.h) and test_fuzz_seeds. The first byte picks a decoder
 * (data[0] % PROTO_CASES, as the type field would), the rest is its payload; the first
 * PROTO_HDR_LEN bytes are parsed as a frame header too. It says what accepted an input, so
 * that a test can hold every generated seed to decoding whole: a field change that leaves the
 * seeds stale fails that test instead of leaving the fuzzer on the decoders' early exits. */
#ifndef NS_TEST_PROTO_CASE_H
#define NS_TEST_PROTO_CASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runner/proto/proto.h"
#include "runner/proto/result_wire.h"

enum proto_case {
	PROTO_CASE_HELLO,
	PROTO_CASE_ERROR,
	PROTO_CASE_PARAMS,          /* TEST_REQUEST, then probe_params_check */
	PROTO_CASE_READY,
	PROTO_CASE_RESULTS,
	PROTO_CASE_STREAMS,         /* RESULT_STREAMS */
	PROTO_CASE_INTERVALS,       /* RESULT_INTERVALS, read as the end's and as a live chunk */
	PROTO_CASE_DELEGATE,        /* DELEGATE_REQUEST */
	PROTO_CASE_DELEGATE_RESULT, /* see proto_case_delegated */
	PROTO_CASE_HOSTINFO,        /* HOSTINFO_REQUEST */
	PROTO_CASE_JSON,            /* the probe result JSON reader */
	PROTO_CASES
};

/* What accepted an input (bits of proto_case_run's answer). */
#define PROTO_CASE_HEADER_OK 1u /* its first PROTO_HDR_LEN bytes are a valid frame header */
#define PROTO_CASE_BODY_OK 2u   /* its case's decoders took all of the payload */

/* The chunk kinds of a delegated result, by the byte before the chunk (its low 7 bits). */
static inline uint16_t proto_case_chunk_type(uint8_t b)
{
	static const uint16_t kinds[] = {PROTO_DELEGATE_STREAMS, PROTO_DELEGATE_INTERVALS,
					 PROTO_DELEGATE_LATENCY, PROTO_DELEGATE_LAT_HISTOGRAM,
					 PROTO_DELEGATE_LAT_INTERVALS};
	return kinds[(b & 0x7f) % (sizeof(kinds) / sizeof(kinds[0]))];
}
#define PROTO_CASE_CHUNK_MORE 0x80 /* in the kind byte: a u16 length, and more chunks after */

/* A delegated result: u16 length of its DELEGATE_RESULT, that, then chunks, each its kind
 * byte (proto_case_chunk_type) and the chunk: with PROTO_CASE_CHUNK_MORE a u16 length and
 * that many bytes, another chunk following; without, the rest. Then DONE. 0 when DONE closed
 * a complete result. */
static inline int proto_case_delegated(const uint8_t *p, size_t n, struct ns_err *err)
{
	struct probe_result res;
	struct proto_result_rd rd;
	int rc = -1;
	memset(&res, 0, sizeof(res));
	proto_result_rd_init(&rd, &res);
	if (n < 2) {
		ns_err_set(err, "no DELEGATE_RESULT length");
		goto out;
	}
	size_t h = (size_t)p[0] << 8 | p[1], m = n - 2;
	const uint8_t *q = p + 2;
	h = h < m ? h : m;
	if (proto_result_rd_msg(&rd, PROTO_DELEGATE_RESULT, q, h, err) != 0)
		goto out;
	q += h, m -= h;
	if (!m) {
		ns_err_set(err, "no chunk after the DELEGATE_RESULT");
		goto out;
	}
	while (m) {
		uint8_t kind = q[0];
		size_t len = m - 1, skip = 1;
		if ((kind & PROTO_CASE_CHUNK_MORE) && m >= 3) {
			len = (size_t)q[1] << 8 | q[2];
			skip = 3;
			len = len < m - 3 ? len : m - 3;
		}
		if (proto_result_rd_msg(&rd, proto_case_chunk_type(kind), q + skip, len, err) != 0)
			goto out;
		q += skip + len, m -= skip + len;
	}
	if (proto_result_rd_msg(&rd, PROTO_DONE, NULL, 0, err) == 1)
		rc = 0;
out:
	probe_result_free(&res);
	return rc;
}

/* The probe result JSON reader (a search case reads its trials back with it). */
static inline int proto_case_json(const uint8_t *p, size_t n, struct ns_err *err)
{
	char *text = malloc(n + 1);
	if (!text)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	memcpy(text, p, n);
	text[n] = '\0';
	struct probe_result res;
	int rc = probe_result_from_json(text, &res, err);
	if (rc == 0)
		probe_result_free(&res);
	free(text);
	return rc;
}

/* Runs one input through its decoders; err says why the body's were refused. */
static inline unsigned proto_case_run(const uint8_t *data, size_t size, struct ns_err *err)
{
	static struct proto_stream_rec recs[PROTO_STREAMS_PER_CHUNK + 1];
	static struct probe_interval ivl[PROTO_IVLS_PER_CHUNK + 1];
	unsigned ok = 0;
	struct ns_err herr;
	memset(err, 0, sizeof(*err));
	if (size >= PROTO_HDR_LEN) {
		uint16_t type;
		uint32_t len;
		if (proto_header_parse(data, &type, &len, &herr) == 0)
			ok |= PROTO_CASE_HEADER_OK;
	}
	if (size < 1)
		return ok;
	const uint8_t *p = data + 1;
	size_t n = size - 1;
	if (n > PROTO_MAX_PAYLOAD)
		n = PROTO_MAX_PAYLOAD;
	uint8_t dir;
	uint32_t first, count;
	int rc = -1;
	switch (data[0] % PROTO_CASES) {
	case PROTO_CASE_HELLO: {
		struct proto_hello h;
		rc = proto_dec_hello(p, n, &h, err);
		break;
	}
	case PROTO_CASE_ERROR: {
		uint16_t code;
		char text[PROTO_MAX_TEXT];
		rc = proto_dec_error(p, n, &code, text, sizeof(text), err);
		break;
	}
	case PROTO_CASE_PARAMS: {
		struct probe_params q;
		rc = proto_dec_params(p, n, &q, err);
		if (rc == 0)
			rc = probe_params_check(&q, err);
		break;
	}
	case PROTO_CASE_READY: {
		struct proto_ready *r = malloc(sizeof(*r));
		if (r)
			rc = proto_dec_ready(p, n, r, err);
		free(r);
		break;
	}
	case PROTO_CASE_RESULTS: {
		struct proto_results r;
		rc = proto_dec_results(p, n, &r, err);
		break;
	}
	case PROTO_CASE_STREAMS:
		rc = proto_dec_streams(p, n, &dir, &first, &count, recs, PROTO_STREAMS_PER_CHUNK, err);
		break;
	case PROTO_CASE_INTERVALS:
		rc = proto_dec_intervals(p, n, &dir, &first, &count, ivl, PROTO_IVLS_PER_CHUNK, err);
		/* the same chunk sent live during a long-run test, first anywhere in the series */
		if (proto_dec_live_intervals(p, n, &dir, &first, &count, ivl, PROTO_IVLS_PER_CHUNK,
					     rc == 0 ? err : &herr) < 0)
			rc = -1;
		break;
	case PROTO_CASE_DELEGATE: {
		struct probe_params q;
		rc = proto_dec_delegate(p, n, &q, err);
		break;
	}
	case PROTO_CASE_DELEGATE_RESULT:
		rc = proto_case_delegated(p, n, err);
		break;
	case PROTO_CASE_HOSTINFO: {
		char peer[PROTO_MAX_PEER + 1];
		rc = proto_dec_hostinfo_request(p, n, peer, sizeof(peer), err);
		break;
	}
	default:
		rc = proto_case_json(p, n, err);
		break;
	}
	return rc == 0 ? ok | PROTO_CASE_BODY_OK : ok;
}

#endif
