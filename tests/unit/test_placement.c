/* placement (report/placement/placement.c) and its section (report/render/content_placement.c), from a
 * database built through the real migration ladder: a run's mesh links (the slowest, an
 * asymmetric pair at 2.5 times, a pair within 1.5 times not named), the heatmap's cells with
 * their figures and colour steps, and a matrix's nights (the steady pair ranked first, the
 * noisy one's coefficient of variation, the instance types least steady first). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sql/store_schema.h"
#include "report/render/content_placement.h"
#include "report/render/content.h"
#include "tests/lib/report_db.h"

static const char rows[] =
	"INSERT INTO runs(id, matrix_name, matrix_text, matrix_hash, started_at, netsweep_version)"
	"  VALUES (1, 'mesh', '<m/>', 'h', '2026-01-01T00:00:00Z', '0.1.0');"
	"INSERT INTO endpoints(id, run_id, name, agent_addr) VALUES (1, 1, 'a--b', 'b:1'),"
	"  (2, 1, 'b--a', 'a:1'), (3, 1, 'a--c', 'c:1'), (4, 1, 'c--a', 'a:1');"
	"INSERT INTO endpoint_ends VALUES (1, 'm', 'a', 'b', 'z1', 'z1'),"
	"  (2, 'm', 'b', 'a', 'z1', 'z1'), (3, 'm', 'a', 'c', 'z1', 'z2'),"
	"  (4, 'm', 'c', 'a', 'z2', 'z1');"
	"INSERT INTO cases(id, run_id, endpoint_id, case_key, ordinal, protocol, streams,"
	"  direction, duration_s, params) VALUES (1, 1, 1, 'k1', 1, 'tcp', 1, 'forward', 1, '{}'),"
	"  (2, 1, 2, 'k2', 2, 'tcp', 1, 'forward', 1, '{}'),"
	"  (3, 1, 3, 'k3', 3, 'tcp', 1, 'forward', 1, '{}'),"
	"  (4, 1, 4, 'k4', 4, 'tcp', 1, 'forward', 1, '{}');"
	"INSERT INTO results(case_id, repeat, started_at, finished_at, status, fwd_rcv_bps) VALUES"
	"  (1, 0, 't', 't', 'ok', 40e6), (2, 0, 't', 't', 'ok', 100e6),"
	"  (3, 0, 't', 't', 'ok', 90e6), (4, 0, 't', 't', 'ok', 95e6);"
	/* matrix 'nights': pairs x (m5.large, steady) and y (c5n.large, noisy), three nights */
	"INSERT INTO runs(id, matrix_name, matrix_text, matrix_hash, started_at, netsweep_version,"
	"  label) VALUES (2, 'nights', '<m/>', 'n', '2026-01-02T02:00:00Z', '0.1.0', 'n1'),"
	"  (3, 'nights', '<m/>', 'n', '2026-01-03T02:00:00Z', '0.1.0', 'n2'),"
	"  (4, 'nights', '<m/>', 'n', '2026-01-04T03:00:00Z', '0.1.0', 'n3');"
	"INSERT INTO endpoints(id, run_id, name, instance_type, agent_addr) VALUES"
	"  (10, 2, 'x', 'm5.large', 'x:1'), (11, 2, 'y', 'c5n.large', 'y:1'),"
	"  (20, 3, 'x', 'm5.large', 'x:1'), (21, 3, 'y', 'c5n.large', 'y:1'),"
	"  (30, 4, 'x', 'm5.large', 'x:1'), (31, 4, 'y', 'c5n.large', 'y:1');"
	"INSERT INTO cases(id, run_id, endpoint_id, case_key, ordinal, protocol, streams,"
	"  direction, duration_s, params) VALUES"
	"  (10, 2, 10, 'kx', 1, 'tcp', 1, 'forward', 1, '{\"pair\":\"x\",\"streams\":1,\"key\":\"kx\"}'),"
	"  (11, 2, 11, 'ky', 2, 'tcp', 1, 'forward', 1, '{\"pair\":\"y\",\"streams\":1,\"key\":\"ky\"}'),"
	"  (20, 3, 20, 'kx', 1, 'tcp', 1, 'forward', 1, '{\"pair\":\"x\",\"streams\":1,\"key\":\"kx\"}'),"
	"  (21, 3, 21, 'ky', 2, 'tcp', 1, 'forward', 1, '{\"pair\":\"y\",\"streams\":1,\"key\":\"ky\"}'),"
	"  (30, 4, 30, 'kx', 1, 'tcp', 1, 'forward', 1, '{\"pair\":\"x\",\"streams\":1,\"key\":\"kx\"}'),"
	"  (31, 4, 31, 'ky', 2, 'tcp', 1, 'forward', 1, '{\"pair\":\"y\",\"streams\":1,\"key\":\"ky\"}');"
	"INSERT INTO results(case_id, repeat, started_at, finished_at, status, fwd_rcv_bps) VALUES"
	"  (10, 0, '2026-01-02T02:00:01Z', 't', 'ok', 100e6), (11, 0, '2026-01-02T02:00:02Z', 't', 'ok', 50e6),"
	"  (20, 0, '2026-01-03T02:00:01Z', 't', 'ok', 101e6), (21, 0, '2026-01-03T02:00:02Z', 't', 'ok', 150e6),"
	"  (30, 0, '2026-01-04T03:00:01Z', 't', 'ok', 99e6), (31, 0, '2026-01-04T03:00:02Z', 't', 'ok', 100e6);";

static sqlite3 *open_db(void)
{
	sqlite3 *db;
	struct ns_err err = {0};
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	if (ns_store_migrate(db, &err) < 0)
		fail_msg("migrate: %s", err.msg);
	exec(db, rows);
	return db;
}

static const struct rp_table *table_of(const struct rp_section *s, const char *id)
{
	for (size_t i = 0; i < s->n_tables; i++)
		if (s->tables[i].id && !strcmp(s->tables[i].id, id))
			return &s->tables[i];
	return NULL;
}

static void free_section(struct rp_section *s)
{
	for (size_t k = 0; k < s->n_paras; k++)
		free(s->paras[k].text);
	free(s->paras);
	rp_content_tables_free(s);
}

static void mesh_links(void **state)
{
	(void)state;
	sqlite3 *db = open_db();
	struct rp_placement p;
	struct ns_err err = {0};
	assert_int_equal(rp_placement_load(db, 1, "mesh", &p, &err), 0);
	assert_int_equal(p.n_cells, 4);
	assert_int_equal(p.n_hosts, 3);
	assert_string_equal(p.slowest->endpoint, "a--b");
	assert_int_equal(p.n_asym, 1); /* a--c / c--a differ by less than 1.5 times */
	assert_string_equal(p.asym[0].slow->endpoint, "a--b");
	assert_string_equal(p.asym[0].fast->endpoint, "b--a");
	assert_true(fabs(p.asym[0].ratio - 2.5) < 1e-9);
	assert_int_equal(p.n_zones, 2);
	assert_non_null(rp_placement_zcell(&p, "z1", "z2"));
	assert_true(rp_placement_any(&p));

	struct rp_section s = {.kind = RP_SEC_PLACEMENT, .id = "placement"};
	assert_int_equal(rp_content_placement(&p, rp_unit_for(100e6), &s), 0);
	assert_string_equal(s.paras[0].id, "slowest-link");
	assert_non_null(strstr(s.paras[0].text, "a → b: 40"));
	assert_non_null(strstr(s.paras[1].text, "Asymmetric: a → b carries 40"));
	assert_non_null(strstr(s.paras[1].text, "(2.5 times as much)"));
	const struct rp_table *t = table_of(&s, "heatmap-goodput");
	assert_non_null(t);
	assert_int_equal(t->n_rows, 3);
	assert_int_equal(t->n_cols, 4);
	/* row a: -, 40 (slowest: heat0), 90; row b: 100 (fastest: heat4) */
	assert_string_equal(t->rows[0].cells[1].text, "–");
	assert_non_null(strstr(t->rows[0].cells[2].text, "Mbit/s"));
	assert_string_equal(t->rows[0].cells[2].cls, "num heat0");
	assert_string_equal(t->rows[1].cells[1].cls, "num heat4");
	assert_null(table_of(&s, "heatmap-rtt-p50")); /* no round trips measured */
	assert_int_equal(table_of(&s, "mesh-links")->n_rows, 4);
	free_section(&s);
	rp_placement_free(&p);
	sqlite3_close(db);
}

static void nights(void **state)
{
	(void)state;
	sqlite3 *db = open_db();
	struct rp_placement p;
	struct ns_err err = {0};
	assert_int_equal(rp_placement_load(db, 4, "nights", &p, &err), 0);
	assert_int_equal(p.n_cells, 0);
	assert_int_equal(p.n_pairs, 2);
	assert_string_equal(p.pairs[0].name, "x"); /* steadiest first */
	assert_int_equal(p.pairs[0].rank, 1);
	assert_string_equal(p.pairs[1].name, "y");
	assert_int_equal(p.pairs[1].rank, 2);
	assert_true(fabs(p.pairs[1].cv_pct - 50) < 1e-6); /* 50, 100, 150: sd 50 over mean 100 */
	assert_true(fabs(p.pairs[1].p5_bps - 50e6) < 1 && fabs(p.pairs[1].p95_bps - 150e6) < 1);
	assert_string_equal(p.pairs[1].worst_night, "n1");
	assert_int_equal(p.n_types, 2);
	assert_string_equal(p.types[0].name, "c5n.large"); /* least steady first */
	struct rp_section s = {.kind = RP_SEC_PLACEMENT, .id = "placement"};
	/* a page in Gbit/s says every figure in Gbit/s */
	assert_int_equal(rp_content_placement(&p, rp_unit_for(20e9), &s), 0);
	assert_string_equal(s.paras[0].id, "variability");
	assert_non_null(strstr(s.paras[1].text, "0.05 Gbit/s"));
	assert_non_null(strstr(s.paras[0].text, "c5n.large varied 50 % night to night, m5.large 1 %"));
	assert_non_null(strstr(s.paras[1].text, "The least steady pair: y varied 50 %"));
	assert_non_null(table_of(&s, "consistency"));
	/* y by hour: two nights at 02:00 (50, 150: mean 100), one at 03:00 (100) */
	const struct rp_table *h = table_of(&s, "by-hour");
	assert_non_null(h);
	assert_int_equal(h->n_rows, 2);
	assert_string_equal(h->rows[0].cells[0].text, "02:00");
	assert_true(fabs(h->rows[0].cells[2].value - 100e6) < 1);
	assert_true(fabs(h->rows[0].cells[3].value - 50e6) < 1);
	free_section(&s);
	rp_placement_free(&p);
	/* the hour of day: the third night started an hour later */
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT group_concat(hour_utc || ':' || nights)"
					    " FROM v_pair_hourly WHERE endpoint = 'y'", -1, &st,
					    NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "2:2,3:1");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mesh_links),
		cmocka_unit_test(nights),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
