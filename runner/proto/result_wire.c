/* result_wire: a delegated run's result in binary (see result_wire.h). */
#include "result_wire.h"

#include <stdlib.h>
#include <string.h>

#include "proto.h"

static void put_figures(struct proto_buf *b, const struct probe_figures *f)
{
	fields_put_all(b, &fields_figures, f);
}

void proto_enc_delegate_result(struct proto_buf *b, const struct probe_result *r)
{
	proto_put_u8(b, r->status == 0 ? 0 : 1);
	proto_put_str(b, r->error);
	proto_put_str(b, r->warnings);
	fields_put_all(b, &fields_result, r);
	uint32_t n = r->n_dirs < 2 ? r->n_dirs : 2;
	proto_put_u32(b, n);
	for (uint32_t d = 0; d < n; d++) {
		const struct probe_direction *pd = &r->dirs[d];
		proto_put_u8(b, (uint8_t)pd->dir);
		put_figures(b, &pd->sender);
		put_figures(b, &pd->receiver);
		proto_put_u8(b, pd->shaping.found);
		fields_put_all(b, &fields_shaping, &pd->shaping);
		fields_put_all(b, &fields_limit, &pd->limit);
		proto_put_u32(b, pd->n_streams);
		proto_put_u32(b, pd->n_intervals);
	}
}

/* A chunk's head: its direction (or series), its first record's place, its count. */
static void put_chunk_head(struct proto_buf *b, uint8_t d, uint32_t first, uint32_t count)
{
	proto_put_u8(b, d);
	proto_put_u32(b, first);
	proto_put_u32(b, count);
}

void proto_enc_delegate_streams(struct proto_buf *b, uint8_t d, uint32_t first,
				const struct probe_stream_result *s, uint32_t count)
{
	put_chunk_head(b, d, first, count);
	for (uint32_t i = 0; i < count; i++) {
		fields_put_all(b, &fields_stream, &s[i]);
		put_figures(b, &s[i].sender);
		put_figures(b, &s[i].receiver);
	}
}

void proto_enc_delegate_intervals(struct proto_buf *b, uint8_t d, uint32_t first,
				  const struct probe_interval *v, uint32_t count)
{
	put_chunk_head(b, d, first, count);
	for (uint32_t i = 0; i < count; i++)
		fields_put_all(b, &fields_interval, &v[i]);
}

/* A histogram's text, at most, in DELEGATE_LAT_HISTOGRAM: the frame's room after its head (a
 * lathist_encode text of every bucket with 64-bit counts is about 53 KB). */
#define RW_MAX_HISTOGRAM (PROTO_MAX_PAYLOAD - 2048)

void proto_enc_delegate_latency(struct proto_buf *b, const struct probe_result *r)
{
	const struct probe_latency *l = &r->latency;
	proto_put_u8(b, (uint8_t)((l->present ? 1 : 0) | (r->lul.present ? 2 : 0)));
	if (l->present) {
		fields_put_all(b, &fields_latency, &l->sum);
		proto_put_f64(b, l->relative_error);
		proto_put_u32(b, (uint32_t)l->client_cpu);
		proto_put_u32(b, (uint32_t)l->agent_cpu);
		proto_put_u8(b, l->client_clock_synced);
		proto_put_f64(b, l->client_clock_maxerror_us);
		proto_put_str(b, l->one_way_why);
		proto_put_u32(b, l->n_intervals);
	}
	if (r->lul.present) {
		fields_put_all(b, &fields_lul, &r->lul);
		fields_put_all(b, &fields_latency, &r->lul.idle);
		fields_put_all(b, &fields_latency, &r->lul.loaded);
		proto_put_u32(b, r->lul.n_intervals);
	}
}

void proto_enc_delegate_lat_histogram(struct proto_buf *b, uint8_t which, const char *text)
{
	proto_put_u8(b, which);
	proto_put_str(b, text);
}

void proto_enc_delegate_lat_intervals(struct proto_buf *b, uint8_t series, uint32_t first,
				      const struct probe_latency_interval *v, uint32_t count)
{
	put_chunk_head(b, series, first, count);
	for (uint32_t i = 0; i < count; i++) {
		proto_put_f64(b, v[i].start_s);
		proto_put_f64(b, v[i].end_s);
		proto_put_u8(b, v[i].omitted);
		fields_put_all(b, &fields_latency, &v[i].f);
	}
}

static int send_one(int fd, uint16_t type, struct proto_buf *b, double deadline,
		    struct ns_err *err)
{
	int rc = proto_send_buf(fd, type, b, deadline, err);
	proto_buf_free(b);
	proto_buf_init(b);
	return rc;
}

/* DELEGATE_LATENCY, then each histogram there is and each series in chunks. */
static int send_latency(int fd, const struct probe_result *r, struct proto_buf *b,
			double deadline, struct ns_err *err)
{
	const char *hist[3] = {r->latency.present ? r->latency.histogram : NULL,
			       r->lul.present ? r->lul.idle_histogram : NULL,
			       r->lul.present ? r->lul.loaded_histogram : NULL};
	const struct probe_latency_interval *ivl[2] = {r->latency.intervals, r->lul.intervals};
	uint32_t n_ivl[2] = {r->latency.present ? r->latency.n_intervals : 0,
			     r->lul.present ? r->lul.n_intervals : 0};
	proto_enc_delegate_latency(b, r);
	if (send_one(fd, PROTO_DELEGATE_LATENCY, b, deadline, err) < 0)
		return -1;
	for (uint8_t k = 0; k < 3; k++) {
		if (!hist[k] || strlen(hist[k]) > RW_MAX_HISTOGRAM)
			continue; /* not known, or past any real histogram's size: the runner's NULL */
		proto_enc_delegate_lat_histogram(b, (uint8_t)(k + 1), hist[k]);
		if (send_one(fd, PROTO_DELEGATE_LAT_HISTOGRAM, b, deadline, err) < 0)
			return -1;
	}
	for (uint8_t k = 0; k < 2; k++)
		for (uint32_t i = 0; i < n_ivl[k]; i += PROTO_DLATIVLS_PER_CHUNK) {
			uint32_t n = n_ivl[k] - i;
			n = n < PROTO_DLATIVLS_PER_CHUNK ? n : PROTO_DLATIVLS_PER_CHUNK;
			proto_enc_delegate_lat_intervals(b, (uint8_t)(k + 1), i, ivl[k] + i, n);
			if (send_one(fd, PROTO_DELEGATE_LAT_INTERVALS, b, deadline, err) < 0)
				return -1;
		}
	return 0;
}

int proto_send_delegate_result(int fd, const struct probe_result *r, double deadline,
			       struct ns_err *err)
{
	struct proto_buf b;
	proto_buf_init(&b);
	proto_enc_delegate_result(&b, r);
	if (send_one(fd, PROTO_DELEGATE_RESULT, &b, deadline, err) < 0)
		goto err;
	for (uint32_t d = 0; d < r->n_dirs && d < 2; d++) {
		const struct probe_direction *pd = &r->dirs[d];
		for (uint32_t i = 0; i < pd->n_streams; i += PROTO_DSTREAMS_PER_CHUNK) {
			uint32_t n = pd->n_streams - i;
			n = n < PROTO_DSTREAMS_PER_CHUNK ? n : PROTO_DSTREAMS_PER_CHUNK;
			proto_enc_delegate_streams(&b, (uint8_t)d, i, pd->streams + i, n);
			if (send_one(fd, PROTO_DELEGATE_STREAMS, &b, deadline, err) < 0)
				goto err;
		}
		for (uint32_t i = 0; i < pd->n_intervals; i += PROTO_DIVLS_PER_CHUNK) {
			uint32_t n = pd->n_intervals - i;
			n = n < PROTO_DIVLS_PER_CHUNK ? n : PROTO_DIVLS_PER_CHUNK;
			proto_enc_delegate_intervals(&b, (uint8_t)d, i, pd->intervals + i, n);
			if (send_one(fd, PROTO_DELEGATE_INTERVALS, &b, deadline, err) < 0)
				goto err;
		}
	}
	if ((r->latency.present || r->lul.present) && send_latency(fd, r, &b, deadline, err) < 0)
		goto err;
	proto_buf_free(&b);
	return 0;
err:
	proto_buf_free(&b);
	return -1;
}

/* ---- the reader ---- */

void proto_result_rd_init(struct proto_result_rd *rd, struct probe_result *res)
{
	struct probe_params p = res->params;
	memset(rd, 0, sizeof(*rd));
	memset(res, 0, sizeof(*res));
	res->params = p;
	res->status = -1;
	rd->res = res;
}

static void get_figures(struct proto_rd *r, struct probe_figures *f)
{
	(void)fields_get_all(r, &fields_figures, f);
}

/* Text from the peer ends up in logs and on terminals. */
static void printable_strings(struct probe_result *res)
{
	proto_printable(res->error);
	proto_printable(res->warnings);
	for (size_t i = 0; i < fields_result.n; i++)
		if (fields_result.f[i].type == FT_STR)
			proto_printable((char *)res + fields_result.f[i].off);
}

static int dec_sums(struct proto_result_rd *rd, const uint8_t *p, size_t len,
		    struct ns_err *err)
{
	struct probe_result *res = rd->res;
	struct proto_rd r;
	proto_rd_init(&r, p, len);
	uint8_t status = proto_get_u8(&r);
	proto_get_str(&r, res->error, sizeof(res->error));
	proto_get_str(&r, res->warnings, sizeof(res->warnings));
	(void)fields_get_all(&r, &fields_result, res);
	uint32_t n = proto_get_u32(&r);
	if (r.bad || status > 1 || n > 2)
		return ns_err_code(err, NS_E_PROTOCOL, "DELEGATE_RESULT out of range");
	for (uint32_t d = 0; d < n; d++) {
		struct probe_direction *pd = &res->dirs[d];
		uint8_t dir = proto_get_u8(&r);
		get_figures(&r, &pd->sender);
		get_figures(&r, &pd->receiver);
		pd->shaping.found = proto_get_u8(&r) != 0;
		(void)fields_get_all(&r, &fields_shaping, &pd->shaping);
		(void)fields_get_all(&r, &fields_limit, &pd->limit);
		proto_printable(pd->limit.cause);
		proto_printable(pd->limit.limited_by);
		rd->want_streams[d] = proto_get_u32(&r);
		rd->want_ivl[d] = proto_get_u32(&r);
		if (r.bad || dir > NS_DIR_REVERSE || rd->want_streams[d] > NS_MAX_STREAMS ||
		    rd->want_ivl[d] > PROTO_MAX_RESULT_INTERVALS)
			return ns_err_code(err, NS_E_PROTOCOL, "DELEGATE_RESULT out of range");
		pd->dir = (enum ns_dir)dir;
		if (rd->want_streams[d] &&
		    !(pd->streams = calloc(rd->want_streams[d], sizeof(*pd->streams))))
			return ns_err_code(err, NS_E_NOMEM, "out of memory for a delegated result");
	}
	if (proto_rd_end(&r, "DELEGATE_RESULT", err) < 0)
		return -1;
	res->n_dirs = n;
	res->status = status ? -1 : 0;
	printable_strings(res);
	rd->have_sums = true;
	return 0;
}

/* A chunk's header: its direction and the next place in that direction's series. */
static int chunk_head(struct proto_rd *r, const struct proto_result_rd *rd, const char *what,
		      const uint32_t *have, const uint32_t *want, uint8_t *d, uint32_t *count,
		      struct ns_err *err)
{
	*d = proto_get_u8(r);
	uint32_t first = proto_get_u32(r);
	*count = proto_get_u32(r);
	if (r->bad || *d >= rd->res->n_dirs || first != have[*d] || *count == 0 ||
	    *count > want[*d] - first)
		return ns_err_code(err, NS_E_PROTOCOL, "%s chunk out of order or out of range",
				   what);
	return 0;
}

static int dec_streams(struct proto_result_rd *rd, const uint8_t *p, size_t len,
		       struct ns_err *err)
{
	uint32_t have[2] = {rd->res->dirs[0].n_streams, rd->res->dirs[1].n_streams};
	struct proto_rd r;
	uint8_t d;
	uint32_t count;
	proto_rd_init(&r, p, len);
	if (chunk_head(&r, rd, "DELEGATE_STREAMS", have, rd->want_streams, &d, &count, err) < 0)
		return -1;
	struct probe_direction *pd = &rd->res->dirs[d];
	for (uint32_t i = 0; i < count && !r.bad; i++) {
		struct probe_stream_result *s = &pd->streams[pd->n_streams + i];
		(void)fields_get_all(&r, &fields_stream, s);
		get_figures(&r, &s->sender);
		get_figures(&r, &s->receiver);
	}
	if (proto_rd_end(&r, "DELEGATE_STREAMS", err) < 0)
		return -1;
	pd->n_streams += count;
	return 0;
}

/* The series grows as its chunks come: memory follows what arrived, not what was announced. */
static int dec_intervals(struct proto_result_rd *rd, const uint8_t *p, size_t len,
			 struct ns_err *err)
{
	uint32_t have[2] = {rd->res->dirs[0].n_intervals, rd->res->dirs[1].n_intervals};
	struct proto_rd r;
	uint8_t d;
	uint32_t count;
	proto_rd_init(&r, p, len);
	if (chunk_head(&r, rd, "DELEGATE_INTERVALS", have, rd->want_ivl, &d, &count, err) < 0)
		return -1;
	if ((size_t)count * PROTO_DIVL_WIRE_LEN != len - r.off)
		return ns_err_code(err, NS_E_PROTOCOL, "DELEGATE_INTERVALS chunk of the wrong size");
	struct probe_direction *pd = &rd->res->dirs[d];
	struct probe_interval *v = realloc(pd->intervals, (pd->n_intervals + (size_t)count) *
							       sizeof(*v));
	if (!v)
		return ns_err_code(err, NS_E_NOMEM, "out of memory for a delegated result");
	pd->intervals = v;
	v += pd->n_intervals;
	memset(v, 0, count * sizeof(*v));
	for (uint32_t i = 0; i < count; i++) {
		(void)fields_get_all(&r, &fields_interval, &v[i]);
		if (v[i].stream < -1 || v[i].stream >= (int32_t)NS_MAX_STREAMS)
			r.bad = true;
	}
	if (proto_rd_end(&r, "DELEGATE_INTERVALS", err) < 0)
		return -1;
	pd->n_intervals += count;
	return 0;
}

static int dec_latency(struct proto_result_rd *rd, const uint8_t *p, size_t len,
		       struct ns_err *err)
{
	struct probe_result *res = rd->res;
	struct probe_latency *l = &res->latency;
	struct proto_rd r;
	proto_rd_init(&r, p, len);
	if (rd->have_latency)
		return ns_err_code(err, NS_E_PROTOCOL, "a second DELEGATE_LATENCY");
	rd->have_latency = true;
	uint8_t flags = proto_get_u8(&r);
	if (flags & ~3u)
		return ns_err_code(err, NS_E_PROTOCOL, "DELEGATE_LATENCY out of range");
	if (flags & 1) {
		(void)fields_get_all(&r, &fields_latency, &l->sum);
		l->relative_error = proto_get_f64(&r);
		l->client_cpu = (int32_t)proto_get_u32(&r);
		l->agent_cpu = (int32_t)proto_get_u32(&r);
		l->client_clock_synced = proto_get_u8(&r) != 0;
		l->client_clock_maxerror_us = proto_get_f64(&r);
		proto_get_str(&r, l->one_way_why, sizeof(l->one_way_why));
		proto_printable(l->one_way_why);
		rd->want_lat_ivl[0] = proto_get_u32(&r);
		l->present = true;
	}
	if (flags & 2) {
		(void)fields_get_all(&r, &fields_lul, &res->lul);
		(void)fields_get_all(&r, &fields_latency, &res->lul.idle);
		(void)fields_get_all(&r, &fields_latency, &res->lul.loaded);
		proto_printable(res->lul.test);
		rd->want_lat_ivl[1] = proto_get_u32(&r);
		res->lul.present = true;
	}
	if (rd->want_lat_ivl[0] > PROTO_MAX_INTERVALS || rd->want_lat_ivl[1] > PROTO_MAX_INTERVALS)
		return ns_err_code(err, NS_E_PROTOCOL, "DELEGATE_LATENCY out of range");
	return proto_rd_end(&r, "DELEGATE_LATENCY", err);
}

/* The histogram slot a DELEGATE_LAT_HISTOGRAM names (1 latency, 2 idle, 3 loaded), NULL for
 * one of an object that did not come. */
static char **histogram_slot(struct probe_result *res, uint8_t which)
{
	switch (which) {
	case 1: return res->latency.present ? &res->latency.histogram : NULL;
	case 2: return res->lul.present ? &res->lul.idle_histogram : NULL;
	case 3: return res->lul.present ? &res->lul.loaded_histogram : NULL;
	}
	return NULL;
}

static int dec_lat_histogram(struct proto_result_rd *rd, const uint8_t *p, size_t len,
			     struct ns_err *err)
{
	struct proto_rd r;
	proto_rd_init(&r, p, len);
	uint8_t which = proto_get_u8(&r);
	char **slot = histogram_slot(rd->res, which);
	if (r.bad || !slot || *slot)
		return ns_err_code(err, NS_E_PROTOCOL, "DELEGATE_LAT_HISTOGRAM out of place or "
				   "out of range");
	char *h = malloc(RW_MAX_HISTOGRAM + 1);
	if (!h)
		return ns_err_code(err, NS_E_NOMEM, "out of memory for a delegated result");
	proto_get_str(&r, h, RW_MAX_HISTOGRAM + 1);
	proto_printable(h);
	char *fit = realloc(h, strlen(h) + 1);
	*slot = fit ? fit : h;
	return proto_rd_end(&r, "DELEGATE_LAT_HISTOGRAM", err);
}

/* A chunk of the latency series (1) or the latency probe's loaded one (2), in order. */
static int dec_lat_intervals(struct proto_result_rd *rd, const uint8_t *p, size_t len,
			     struct ns_err *err)
{
	struct probe_result *res = rd->res;
	struct proto_rd r;
	proto_rd_init(&r, p, len);
	uint8_t series = proto_get_u8(&r);
	uint32_t first = proto_get_u32(&r), count = proto_get_u32(&r);
	struct probe_latency_interval **ivl = series == 1 ? &res->latency.intervals : &res->lul.intervals;
	uint32_t *have = series == 1 ? &res->latency.n_intervals : &res->lul.n_intervals;
	if (r.bad || series < 1 || series > 2 || first != *have || count == 0 ||
	    count > rd->want_lat_ivl[series - 1] - first)
		return ns_err_code(err, NS_E_PROTOCOL, "DELEGATE_LAT_INTERVALS chunk out of order "
				   "or out of range");
	if ((size_t)count * PROTO_DLATIVL_WIRE_LEN != len - r.off)
		return ns_err_code(err, NS_E_PROTOCOL, "DELEGATE_LAT_INTERVALS chunk of the wrong "
				   "size");
	struct probe_latency_interval *v = realloc(*ivl, (*have + (size_t)count) * sizeof(*v));
	if (!v)
		return ns_err_code(err, NS_E_NOMEM, "out of memory for a delegated result");
	*ivl = v;
	v += *have;
	memset(v, 0, count * sizeof(*v));
	for (uint32_t i = 0; i < count; i++) {
		v[i].start_s = proto_get_f64(&r);
		v[i].end_s = proto_get_f64(&r);
		v[i].omitted = proto_get_u8(&r) != 0;
		(void)fields_get_all(&r, &fields_latency, &v[i].f);
	}
	if (proto_rd_end(&r, "DELEGATE_LAT_INTERVALS", err) < 0)
		return -1;
	*have += count;
	return 0;
}

static bool complete(const struct proto_result_rd *rd)
{
	for (uint32_t d = 0; d < rd->res->n_dirs; d++)
		if (rd->res->dirs[d].n_streams != rd->want_streams[d] ||
		    rd->res->dirs[d].n_intervals != rd->want_ivl[d])
			return false;
	return rd->res->latency.n_intervals == rd->want_lat_ivl[0] &&
	       rd->res->lul.n_intervals == rd->want_lat_ivl[1];
}

int proto_result_rd_msg(struct proto_result_rd *rd, uint16_t type, const uint8_t *p,
			size_t len, struct ns_err *err)
{
	if (type == PROTO_DELEGATE_RESULT && !rd->have_sums)
		return dec_sums(rd, p, len, err);
	if (!rd->have_sums)
		return ns_err_code(err, NS_E_PROTOCOL, "protocol error: expected DELEGATE_RESULT, "
				   "got %s", proto_type_name(type));
	switch (type) {
	case PROTO_DELEGATE_STREAMS: return dec_streams(rd, p, len, err);
	case PROTO_DELEGATE_INTERVALS: return dec_intervals(rd, p, len, err);
	case PROTO_DELEGATE_LATENCY: return dec_latency(rd, p, len, err);
	case PROTO_DELEGATE_LAT_HISTOGRAM: return dec_lat_histogram(rd, p, len, err);
	case PROTO_DELEGATE_LAT_INTERVALS: return dec_lat_intervals(rd, p, len, err);
	case PROTO_DONE:
		if (len || !complete(rd))
			return ns_err_code(err, NS_E_PROTOCOL, "DONE before the whole delegated "
					   "result came");
		return 1;
	}
	return ns_err_code(err, NS_E_PROTOCOL, "protocol error: unexpected %s in a delegated result",
			   proto_type_name(type));
}
