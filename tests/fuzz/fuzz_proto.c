/* libFuzzer target: every control-protocol decoder on arbitrary bytes. The first byte picks
 * the message (as the type field would), the rest is its payload; a frame header is parsed
 * from the first 8 bytes too. Nothing may crash, read out of bounds or leak, whatever comes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runner/proto/proto.h"
#include "runner/proto/result_wire.h"

static struct proto_stream_rec recs[PROTO_STREAMS_PER_CHUNK + 1];
static struct probe_interval ivl[PROTO_IVLS_PER_CHUNK + 1];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ns_err err;
	if (size >= PROTO_HDR_LEN) {
		uint16_t type;
		uint32_t len;
		proto_header_parse(data, &type, &len, &err);
	}
	if (size < 1)
		return 0;
	const uint8_t *p = data + 1;
	size_t n = size - 1;
	if (n > PROTO_MAX_PAYLOAD)
		n = PROTO_MAX_PAYLOAD;
	uint8_t dir;
	uint32_t first, count;
	switch (data[0] % 11) {
	case 0: {
		struct proto_hello h;
		proto_dec_hello(p, n, &h, &err);
		break;
	}
	case 1: {
		uint16_t code;
		char text[PROTO_MAX_TEXT];
		proto_dec_error(p, n, &code, text, sizeof(text), &err);
		break;
	}
	case 2: {
		struct probe_params q;
		if (proto_dec_params(p, n, &q, &err) == 0)
			probe_params_check(&q, &err);
		break;
	}
	case 3: {
		struct proto_ready *r = malloc(sizeof(*r));
		if (r)
			proto_dec_ready(p, n, r, &err);
		free(r);
		break;
	}
	case 4: {
		struct proto_results r;
		proto_dec_results(p, n, &r, &err);
		break;
	}
	case 5:
		proto_dec_streams(p, n, &dir, &first, &count, recs, PROTO_STREAMS_PER_CHUNK, &err);
		break;
	case 6:
		proto_dec_intervals(p, n, &dir, &first, &count, ivl, PROTO_IVLS_PER_CHUNK, &err);
		/* the same chunk sent live during a long-run test, first anywhere in the series */
		proto_dec_live_intervals(p, n, &dir, &first, &count, ivl, PROTO_IVLS_PER_CHUNK, &err);
		break;
	case 7: {
		struct probe_params q;
		proto_dec_delegate(p, n, &q, &err);
		break;
	}
	case 8: {
		/* a delegated result: u16 length of its DELEGATE_RESULT, that, then one chunk
		 * (by its first byte: DELEGATE_LATENCY, intervals or streams) and DONE */
		struct probe_result res;
		struct proto_result_rd rd;
		memset(&res, 0, sizeof(res));
		proto_result_rd_init(&rd, &res);
		if (n >= 2) {
			size_t h = (size_t)p[0] << 8 | p[1], m = n - 2;
			const uint8_t *q = p + 2;
			h = h < m ? h : m;
			if (proto_result_rd_msg(&rd, PROTO_DELEGATE_RESULT, q, h, &err) == 0 && m > h &&
			    proto_result_rd_msg(&rd, q[h] % 3 == 2 ? PROTO_DELEGATE_LATENCY
						: q[h] & 1 ? PROTO_DELEGATE_INTERVALS
							   : PROTO_DELEGATE_STREAMS,
						q + h + 1, m - h - 1, &err) == 0)
				proto_result_rd_msg(&rd, PROTO_DONE, NULL, 0, &err);
		}
		probe_result_free(&res);
		break;
	}
	case 9: {
		char peer[PROTO_MAX_PEER + 1];
		proto_dec_hostinfo_request(p, n, peer, sizeof(peer), &err);
		break;
	}
	default: {
		/* the probe result JSON reader (a search case reads its trials back with it) */
		char *text = malloc(n + 1);
		if (!text)
			break;
		memcpy(text, p, n);
		text[n] = '\0';
		struct probe_result res;
		if (probe_result_from_json(text, &res, &err) == 0)
			probe_result_free(&res);
		free(text);
		break;
	}
	}
	return 0;
}
