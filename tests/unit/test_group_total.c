/* runner/group/group_total and group_figures: two clients' results made by hand (two streams
 * each, three intervals, one client failed in a third test) added up — rates, bytes and
 * retransmits summed, CPU the busiest, interval sums added index by index, the streams one
 * after another renumbered — and the total in iperf3's layout has one end.streams[] per
 * client stream; the group's fairness figures come from the completed clients only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sql/jsonr.h"
#include "runner/group/group.h"
#include "runner/proto/iperf3_json.h"

/* A TCP forward result of two streams at rate bps (each stream half), three 1 s intervals. */
static void client(struct group_test *t, const char *name, double bps, uint64_t retrans,
		   double cpu, int rc)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	probe_params_init(&t->pp);
	t->pp.streams = 2;
	t->rc = rc;
	t->started = rc == 0 ? 100.0 + 0.002 * (double)(name[1] - '0') : 0; /* failed: never began */
	struct probe_result *r = &t->res;
	r->params = t->pp;
	r->n_dirs = 1;
	r->duration_s = 3;
	struct probe_direction *d = &r->dirs[0];
	d->dir = NS_DIR_FORWARD;
	d->sender.bits_per_second = bps;
	d->receiver.bits_per_second = bps;
	d->receiver.bytes = d->sender.bytes = (uint64_t)(bps * 3 / 8);
	d->sender.retransmits = retrans;
	d->sender.cpu_percent = cpu;
	d->sender.cpu_s_per_gb = cpu / 100.0; /* c1 0.4, c2 0.6 CPU s per GB */
	d->n_streams = 2;
	d->streams = calloc(2, sizeof(*d->streams));
	d->intervals = calloc(9, sizeof(*d->intervals));
	for (uint32_t s = 0; s < 2; s++) {
		d->streams[s].id = s;
		d->streams[s].receiver.bits_per_second = bps / 2;
	}
	for (uint32_t k = 0; k < 3; k++) {
		struct probe_interval *v = &d->intervals[d->n_intervals++];
		v->start_s = k;
		v->end_s = k + 1;
		v->stream = -1;
		v->bits_per_second = bps;
		for (int32_t s = 0; s < 2; s++) {
			v = &d->intervals[d->n_intervals++];
			v->start_s = k;
			v->end_s = k + 1;
			v->stream = s;
			v->bits_per_second = bps / 2;
		}
	}
}

static void total_adds_up(void **state)
{
	(void)state;
	struct group_test t[3];
	struct probe_result tot;
	struct ns_err err = {0};
	client(&t[0], "c1", 300e6, 5, 40, 0);
	client(&t[1], "c2", 100e6, 7, 60, 0);
	client(&t[2], "c3", 50e6, 1, 90, -1); /* failed: not counted */
	assert_int_equal(group_total(t, 3, &tot, &err), 0);
	assert_int_equal(tot.status, -1); /* one client failed */
	const struct probe_direction *d = &tot.dirs[0];
	assert_float_equal(d->receiver.bits_per_second, 400e6, 1);
	assert_int_equal(d->sender.retransmits, 12);
	assert_float_equal(d->sender.cpu_percent, 60, 1e-9);
	/* CPU per GB over all the bytes: c1 moved 3x c2's, (0.4 x 3 + 0.6) / 4 */
	assert_float_equal(d->sender.cpu_s_per_gb, 0.45, 1e-9);
	assert_int_equal(d->n_streams, 4);
	for (uint32_t s = 0; s < 4; s++)
		assert_int_equal(d->streams[s].id, s);
	assert_int_equal(tot.params.streams, 4);
	size_t sums = 0, per_stream = 0;
	for (uint32_t i = 0; i < d->n_intervals; i++) {
		if (d->intervals[i].stream == -1) {
			assert_float_equal(d->intervals[i].bits_per_second, 400e6, 1);
			sums++;
		} else {
			assert_true(d->intervals[i].stream >= 0 && d->intervals[i].stream < 4);
			per_stream++;
		}
	}
	assert_int_equal(sums, 3);
	assert_int_equal(per_stream, 12);

	/* iperf3's layout: one end.streams[] entry per client stream */
	struct iperf3_ctx ctx = {.start_unix = 1e9, .system_info = "", .host_user_pct = -1,
				 .host_system_pct = -1};
	char *json = iperf3_json(&tot, &ctx, false);
	char n[32];
	assert_non_null(json);
	assert_int_equal(jsonr_get_once(json, "$.end.streams[#-1].receiver.socket", n, sizeof(n),
					NULL) >= 0, 1);
	assert_int_equal(jsonr_get_once(json, "$.end.streams[3].sender.bits_per_second", n,
					sizeof(n), NULL), 1);
	assert_int_equal(jsonr_get_once(json, "$.end.streams[4]", n, sizeof(n), NULL), 0);
	free(json);

	struct group_figures f;
	group_figures(t, 3, &f);
	assert_int_equal(f.clients, 3);
	assert_int_equal(f.ok, 2);
	assert_float_equal(f.total_bps, 400e6, 1);
	assert_float_equal(f.jain, 0.8, 1e-12);           /* 400^2 / (2 x (300^2 + 100^2)) */
	assert_float_equal(f.min_share, 0.25, 1e-12);
	assert_float_equal(f.min_of_fair, 0.5, 1e-12);
	assert_true(isnan(f.converge_s));                  /* 3:1 in every interval */
	assert_float_equal(f.start_spread_ms, 2.0, 1e-6);  /* c1 and c2: 2 ms apart */
	probe_result_free(&tot);
	for (int i = 0; i < 3; i++)
		probe_result_free(&t[i].res);
}

static void none_completed(void **state)
{
	(void)state;
	struct group_test t[1];
	struct probe_result tot;
	struct ns_err err = {0};
	client(&t[0], "c1", 1e6, 0, 1, -1);
	assert_int_equal(group_total(t, 1, &tot, &err), -1);
	assert_int_equal(err.code, NS_E_FAIL);
	probe_result_free(&t[0].res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(total_adds_up),
		cmocka_unit_test(none_completed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
