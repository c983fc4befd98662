/* The field tables (runner/proto/fields.h), walked: every field is set to a value of its own
 * (distinct from the others and from the default), sent through the real binary messages and
 * through the result JSON, and must come back equal. A field added to a table is covered here
 * without a new line; only a range it must stay in needs one (see fixup_*). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/proto/fields.h"
#include "runner/proto/proto.h"

static const struct field_table *const all_tables[] = {
	&fields_params, &fields_result, &fields_figures, &fields_stream, &fields_shaping,
	&fields_interval, &fields_snap, &fields_dir_summary, &fields_latency, &fields_limit,
	&fields_lul,
};
#define N_TABLES (sizeof(all_tables) / sizeof(all_tables[0]))

/* Field i of t in dst gets a value no other field of the table has; seed keeps two structs of
 * the same table (sender / receiver, omit / end) apart too. Wide types get values past their
 * low bytes so that a truncated or byte-swapped encoding shows. */
static void fill(const struct field_table *t, void *dst, unsigned seed)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct field *f = &t->f[i];
		void *p = (char *)dst + f->off;
		unsigned k = seed * 100 + (unsigned)i + 2;
		switch (f->type) {
		case FT_BOOL: *(bool *)p = true; break;
		case FT_U8: *(uint8_t *)p = (uint8_t)k; break;
		case FT_U16: *(uint16_t *)p = (uint16_t)(0x0100 + k); break;
		case FT_U32: *(uint32_t *)p = 0x00010000u + k; break;
		case FT_U64: *(uint64_t *)p = 0x0102030405060000ull + k; break;
		case FT_I32: *(int32_t *)p = -(int32_t)k; break;
		case FT_F64: *(double *)p = k + 0.1; break; /* not exact in binary: 17 digits needed */
		case FT_STR: snprintf(p, f->size, "v%u", k); break;
		case FT_PROTO: *(enum ns_proto *)p = NS_PROTO_UDP; break;
		case FT_DIR: *(enum ns_dir *)p = NS_DIR_REVERSE; break;
		case FT_ERRNO: *(int *)p = (int)k; break;
		}
	}
}

/* Ranges the decoders enforce (proto_dec_results). */
static void fixup_dir_summary(struct proto_dir_summary *d)
{
	d->dir = NS_DIR_REVERSE;
	d->role = ENGINE_RECV;
	d->n_streams = NS_MAX_STREAMS;
}

static bool field_equal(const struct field *f, const void *a, const void *b)
{
	const char *pa = (const char *)a + f->off, *pb = (const char *)b + f->off;
	if (f->type == FT_STR)
		return strcmp(pa, pb) == 0;
	if (f->type == FT_BOOL)
		return *(const bool *)pa == *(const bool *)pb;
	if (f->type == FT_F64)
		return *(const double *)pa == *(const double *)pb;
	return memcmp(pa, pb, f->size) == 0;
}

/* Every field that should have travelled (on the wire: F_WIRE; in JSON: in_json for proto)
 * is equal; dflt is what a struct holds before decoding, to show each value was not it. */
static void compare(const struct field_table *t, const void *want, const void *got,
		    const void *dflt, bool wire, enum ns_proto proto, const char *how)
{
	int checked = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct field *f = &t->f[i];
		bool travels = wire ? (f->flags & F_WIRE) != 0 : field_in_json(f, proto);
		if (!travels)
			continue;
		if (field_equal(f, want, dflt))
			fail_msg("%s.%s: the test value is the default", t->name, f->name);
		if (!field_equal(f, want, got))
			fail_msg("%s.%s did not come back through %s (%s)", t->name, f->name, how,
				 ns_proto_name(proto));
		checked++;
	}
	if (checked == 0 && t->n > 0 && !(wire && t == &fields_figures))
		fail_msg("%s: no field travelled through %s", t->name, how);
}

/* Each table is well formed: unique names and keys, keys only on JSON fields, and the wire
 * layout of the fixed-size records unchanged from protocol version 2. */
static void tables_are_well_formed(void **state)
{
	(void)state;
	for (size_t n = 0; n < N_TABLES; n++) {
		const struct field_table *t = all_tables[n];
		assert_true(t->n > 0);
		for (size_t i = 0; i < t->n; i++) {
			const struct field *f = &t->f[i];
			if ((f->flags & F_JSON) && !f->key)
				fail_msg("%s.%s goes to JSON without a key", t->name, f->name);
			if (!(f->flags & (F_WIRE | F_JSON)))
				fail_msg("%s.%s goes nowhere", t->name, f->name);
			for (size_t j = 0; j < i; j++) {
				if (!strcmp(f->name, t->f[j].name))
					fail_msg("%s.%s twice", t->name, f->name);
				if (f->key && t->f[j].key && !strcmp(f->key, t->f[j].key))
					fail_msg("%s: JSON key '%s' twice", t->name, f->key);
			}
		}
	}
	assert_int_equal(PROTO_SNAP_WIRE_LEN, 117);
	assert_int_equal(PROTO_IVL_WIRE_LEN, 81);
}

static void every_wire_field_round_trips(void **state)
{
	(void)state;
	struct ns_err err;
	struct proto_buf b;
	uint8_t dir;
	uint32_t first, count;

	/* TEST_REQUEST */
	struct probe_params p, pb, pd;
	probe_params_init(&pd);
	memset(&p, 0, sizeof(p));
	fill(&fields_params, &p, 1);
	proto_buf_init(&b);
	proto_enc_params(&b, &p);
	if (proto_dec_params(b.p, b.len, &pb, &err) < 0)
		fail_msg("proto_dec_params: %s", err.msg);
	compare(&fields_params, &p, &pb, &pd, true, NS_PROTO_TCP, "TEST_REQUEST");
	proto_buf_free(&b);

	/* RESULTS */
	struct proto_results r = {.n_dirs = 2}, rb, rd;
	memset(&rd, 0, sizeof(rd));
	for (unsigned d = 0; d < 2; d++) {
		fill(&fields_dir_summary, &r.dirs[d], d + 1);
		fixup_dir_summary(&r.dirs[d]);
	}
	proto_enc_results(&b, &r);
	if (proto_dec_results(b.p, b.len, &rb, &err) < 0)
		fail_msg("proto_dec_results: %s", err.msg);
	for (unsigned d = 0; d < 2; d++)
		compare(&fields_dir_summary, &r.dirs[d], &rb.dirs[d], &rd.dirs[d], true, NS_PROTO_TCP,
			"RESULTS");
	proto_buf_free(&b);

	/* RESULT_STREAMS: both snapshots of two streams */
	struct proto_stream_rec s[2], sb[2], sd;
	memset(s, 0, sizeof(s));
	memset(&sd, 0, sizeof(sd));
	for (unsigned i = 0; i < 2; i++) {
		s[i].cpu = (int32_t)i + 3;
		fill(&fields_snap, &s[i].omit, 2 * i + 1);
		fill(&fields_snap, &s[i].end, 2 * i + 2);
	}
	proto_enc_streams(&b, NS_DIR_REVERSE, 0, s, 2);
	assert_int_equal(b.len, 9 + 2 * (4 + 2 * PROTO_SNAP_WIRE_LEN));
	if (proto_dec_streams(b.p, b.len, &dir, &first, &count, sb, 2, &err) < 0)
		fail_msg("proto_dec_streams: %s", err.msg);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(sb[i].cpu, s[i].cpu);
		compare(&fields_snap, &s[i].omit, &sb[i].omit, &sd.omit, true, NS_PROTO_TCP,
			"RESULT_STREAMS");
		compare(&fields_snap, &s[i].end, &sb[i].end, &sd.end, true, NS_PROTO_TCP,
			"RESULT_STREAMS");
	}
	proto_buf_free(&b);

	/* RESULT_INTERVALS */
	struct probe_interval v[2], vb[2], vd;
	memset(v, 0, sizeof(v));
	memset(&vd, 0, sizeof(vd));
	fill(&fields_interval, &v[0], 1);
	fill(&fields_interval, &v[1], 2);
	proto_enc_intervals(&b, NS_DIR_FORWARD, 0, v, 2);
	assert_int_equal(b.len, 9 + 2 * PROTO_IVL_WIRE_LEN);
	if (proto_dec_intervals(b.p, b.len, &dir, &first, &count, vb, 2, &err) < 0)
		fail_msg("proto_dec_intervals: %s", err.msg);
	for (unsigned i = 0; i < 2; i++)
		compare(&fields_interval, &v[i], &vb[i], &vd, true, NS_PROTO_TCP, "RESULT_INTERVALS");
	proto_buf_free(&b);
}

/* A result with every JSON field set, written and read back, for either protocol (fields of
 * the other protocol are omitted from the text and are not compared). */
static void json_round_trip(enum ns_proto proto)
{
	struct probe_result res, back, dflt;
	struct probe_stream_result st, st0;
	struct probe_interval iv, iv0;
	struct ns_err err;
	memset(&res, 0, sizeof(res));
	memset(&dflt, 0, sizeof(dflt));
	memset(&st0, 0, sizeof(st0));
	memset(&iv0, 0, sizeof(iv0));
	fill(&fields_result, &res, 1);
	fill(&fields_params, &res.params, 2);
	res.params.proto = proto;
	res.params.psk_file[0] = '\0';
	res.n_dirs = 1;
	struct probe_direction *d = &res.dirs[0];
	d->dir = res.params.dir;
	fill(&fields_figures, &d->sender, 3);
	fill(&fields_figures, &d->receiver, 4);
	fill(&fields_shaping, &d->shaping, 9);
	d->shaping.found = true;
	fill(&fields_limit, &d->limit, 10);
	memset(&st, 0, sizeof(st));
	fill(&fields_stream, &st, 5);
	fill(&fields_figures, &st.sender, 6);
	fill(&fields_figures, &st.receiver, 7);
	memset(&iv, 0, sizeof(iv));
	fill(&fields_interval, &iv, 8);
	d->streams = &st;
	d->n_streams = 1;
	d->intervals = &iv;
	d->n_intervals = 1;
	/* the latency objects (issue 24): a delegated or stored result keeps them */
	struct probe_latency_interval lv;
	memset(&lv, 0, sizeof(lv));
	res.latency.present = true;
	fill(&fields_latency, &res.latency.sum, 11);
	res.latency.relative_error = 0.0078125;
	res.latency.client_cpu = 3;
	res.latency.agent_cpu = 1;
	res.latency.client_clock_synced = true;
	res.latency.client_clock_maxerror_us = 1234.5;
	snprintf(res.latency.one_way_why, sizeof(res.latency.one_way_why), "clocks not bounded");
	res.latency.histogram = "v1 12:3 14:1";
	lv.start_s = 0.5;
	lv.end_s = 1.5;
	lv.omitted = true;
	fill(&fields_latency, &lv.f, 12);
	res.latency.intervals = &lv;
	res.latency.n_intervals = 1;
	res.lul.present = true;
	fill(&fields_lul, &res.lul, 13);
	fill(&fields_latency, &res.lul.idle, 14);
	fill(&fields_latency, &res.lul.loaded, 15);

	char *json = probe_result_json(&res, false);
	assert_non_null(json);
	if (probe_result_from_json(json, &back, &err) < 0)
		fail_msg("probe_result_from_json: %s\n%s", err.msg, json);
	const char *how = "the result JSON";
	compare(&fields_result, &res, &back, &dflt, false, proto, how);
	struct probe_params pd;
	probe_params_init(&pd);
	/* TCP is the default protocol; in the TCP pass the TCP-only keys of the figures show
	 * that it came back */
	pd.proto = proto == NS_PROTO_TCP ? NS_PROTO_UDP : NS_PROTO_TCP;
	compare(&fields_params, &res.params, &back.params, &pd, false, proto, how);
	assert_int_equal(back.n_dirs, 1);
	compare(&fields_figures, &d->sender, &back.dirs[0].sender, &dflt.dirs[0].sender, false,
		proto, how);
	compare(&fields_figures, &d->receiver, &back.dirs[0].receiver, &dflt.dirs[0].receiver,
		false, proto, how);
	assert_true(back.dirs[0].shaping.found);
	compare(&fields_shaping, &d->shaping, &back.dirs[0].shaping, &dflt.dirs[0].shaping, false,
		proto, how);
	compare(&fields_limit, &d->limit, &back.dirs[0].limit, &dflt.dirs[0].limit, false, proto,
		how);
	assert_int_equal(back.dirs[0].n_streams, 1);
	compare(&fields_stream, &st, &back.dirs[0].streams[0], &st0, false, proto, how);
	compare(&fields_figures, &st.sender, &back.dirs[0].streams[0].sender, &st0.sender, false,
		proto, how);
	compare(&fields_figures, &st.receiver, &back.dirs[0].streams[0].receiver, &st0.receiver,
		false, proto, how);
	assert_int_equal(back.dirs[0].n_intervals, 1);
	compare(&fields_interval, &iv, &back.dirs[0].intervals[0], &iv0, false, proto, how);
	const struct probe_latency *bl = &back.latency;
	assert_true(bl->present && back.lul.present);
	compare(&fields_latency, &res.latency.sum, &bl->sum, &dflt.latency.sum, false, proto, how);
	assert_true(bl->relative_error == 0.0078125 && bl->client_cpu == 3 && bl->agent_cpu == 1);
	assert_true(bl->client_clock_synced && bl->client_clock_maxerror_us == 1234.5);
	assert_string_equal(bl->one_way_why, "clocks not bounded");
	assert_string_equal(bl->histogram, "v1 12:3 14:1");
	assert_int_equal(bl->n_intervals, 1);
	assert_true(bl->intervals[0].start_s == 0.5 && bl->intervals[0].end_s == 1.5 &&
		    bl->intervals[0].omitted);
	compare(&fields_latency, &lv.f, &bl->intervals[0].f, &dflt.latency.sum, false, proto, how);
	compare(&fields_lul, &res.lul, &back.lul, &dflt.lul, false, proto, how);
	compare(&fields_latency, &res.lul.idle, &back.lul.idle, &dflt.lul.idle, false, proto, how);
	compare(&fields_latency, &res.lul.loaded, &back.lul.loaded, &dflt.lul.loaded, false, proto,
		how);
	probe_result_free(&back);
	free(json);
}

static void every_json_field_round_trips(void **state)
{
	(void)state;
	json_round_trip(NS_PROTO_TCP);
	json_round_trip(NS_PROTO_UDP);
	json_round_trip(NS_PROTO_QUIC); /* "quic", with TCP's loss, RTT and cwnd keys */
}

static const struct field *find_key(const struct field_table *t, const char *key)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->f[i].key && !strcmp(t->f[i].key, key))
			return &t->f[i];
	return NULL;
}

/* The NIC counter keys of the result are ENA's own counter names (as `ethtool -S` prints
 * them), once per end, and the agent's set travels in RESULTS (schemas/probe-result.md). */
static void nic_counter_keys_are_enas_names(void **state)
{
	(void)state;
	static const char *const ena[] = {"bw_in_allowance_exceeded", "bw_out_allowance_exceeded",
					  "pps_allowance_exceeded", "conntrack_allowance_exceeded",
					  "linklocal_allowance_exceeded"};
	static const char *const ends[] = {"client_", "agent_"};
	char key[64];
	for (size_t e = 0; e < 2; e++) {
		for (size_t i = 0; i < 5; i++) {
			snprintf(key, sizeof(key), "%s%s", ends[e], ena[i]);
			const struct field *f = find_key(&fields_result, key);
			if (!f || f->type != FT_U64 || !(f->flags & F_JSON))
				fail_msg("no JSON count %s in probe_result", key);
		}
		snprintf(key, sizeof(key), "%snic", ends[e]);
		assert_non_null(find_key(&fields_result, key));
	}
	assert_non_null(find_key(&fields_result, "shaped_by_provider"));
	size_t wire = 0;
	for (size_t i = 0; i < fields_dir_summary.n; i++)
		if (!strncmp(fields_dir_summary.f[i].name, "nic.", 4) &&
		    (fields_dir_summary.f[i].flags & F_WIRE))
			wire++;
	assert_int_equal(wire, 12); /* struct probe_nic: every member */
}

/* Long-run mode (issue 11): what a test asks for travels to the agent, which sends its
 * interval sums live when until is set; how it ended is the client's and goes to JSON only. */
static void long_run_fields(void **state)
{
	(void)state;
	const struct field *u = find_key(&fields_params, "until");
	const struct field *s = find_key(&fields_params, "steady_s");
	const struct field *e = find_key(&fields_result, "ended");
	assert_non_null(u);
	assert_non_null(s);
	assert_non_null(e);
	assert_int_equal(u->type, FT_STR);
	assert_true((u->flags & F_WJ) == F_WJ);
	assert_true(u->size > strlen("sustained"));
	assert_int_equal(s->type, FT_F64);
	assert_true((s->flags & F_WJ) == F_WJ);
	assert_int_equal(e->type, FT_STR);
	assert_int_equal(e->flags, F_JSON);
	assert_true(e->size > strlen("sustained") && e->size > strlen("duration"));
	/* wire fields go at the end of TEST_REQUEST: older fields keep their offsets (the
	 * request/response ones came after) */
	assert_ptr_equal(s, &fields_params.f[fields_params.n - 12]);
	assert_ptr_equal(u, &fields_params.f[fields_params.n - 13]);
}

/* Request/response (issue 24): its four fields, then the latency probe's four, are the last
 * of TEST_REQUEST (the agent answers the probe, so it must know of it), and the latency
 * figures are the client's own (JSON only). */
static void request_response_fields(void **state)
{
	(void)state;
	const char *keys[] = {"rr", "rr_request", "rr_response", "rr_rate", "latency_probe",
			      "latency_rate", "latency_size", "latency_idle_s"};
	for (size_t i = 0; i < 8; i++) {
		const struct field *f = find_key(&fields_params, keys[i]);
		assert_non_null(f);
		assert_ptr_equal(f, &fields_params.f[fields_params.n - 11 + i]);
		assert_true((f->flags & F_WJ) == F_WJ);
	}
	/* then a group case's common start (protocol 23) */
	const struct field *sa = find_key(&fields_params, "start_at");
	assert_non_null(sa);
	assert_ptr_equal(sa, &fields_params.f[fields_params.n - 3]);
	assert_true(sa->type == FT_F64 && (sa->flags & F_WJ) == F_WJ);
	/* then the agent's CPUs and the TCP receiver's path (protocol 24), the last */
	const struct field *aa = find_key(&fields_params, "agent_affinity");
	const struct field *rx = find_key(&fields_params, "rx_copy");
	assert_ptr_equal(aa, &fields_params.f[fields_params.n - 2]);
	assert_ptr_equal(rx, &fields_params.f[fields_params.n - 1]);
	assert_true(aa->type == FT_STR && rx->type == FT_STR && (rx->flags & F_WJ) == F_WJ);
	for (size_t i = 0; i < fields_latency.n; i++)
		assert_int_equal(fields_latency.f[i].flags, F_JSON);
	for (size_t i = 0; i < fields_lul.n; i++)
		assert_int_equal(fields_lul.f[i].flags, F_JSON);
	assert_non_null(find_key(&fields_latency, "p999_us"));
	assert_non_null(find_key(&fields_lul, "added_p99_us"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tables_are_well_formed),
		cmocka_unit_test(every_wire_field_round_trips),
		cmocka_unit_test(every_json_field_round_trips),
		cmocka_unit_test(nic_counter_keys_are_enas_names),
		cmocka_unit_test(long_run_fields),
		cmocka_unit_test(request_response_fields),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
