/* placement: see placement.h. */
#include "report/placement/placement.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sql/sqlrow.h"

static const char q_cells[] =
	"SELECT endpoint, client_name, agent_name, client_zone, agent_zone, results_ok,"
	" goodput_bps, rtt_p50_us, rtt_p99_us, loss_percent FROM v_mesh_cells"
	" WHERE run_id = ?1 AND (mesh IS NOT NULL OR (client_zone IS NOT NULL"
	" AND agent_zone IS NOT NULL)) ORDER BY endpoint_id";
static const char q_zones[] =
	"SELECT client_zone, agent_zone, pairs, goodput_bps, min_goodput_bps, rtt_p50_us,"
	" rtt_p99_us, loss_percent FROM v_mesh_zone_cells WHERE run_id = ?1"
	" ORDER BY client_zone, agent_zone";
/* Ranked among all the pairs; the least steady kept when there are more than the limit. */
static const char q_pairs[] =
	"SELECT * FROM (SELECT endpoint, case_key, instance_type, nights, agent_instances,"
	" median_bps, p5_bps, p95_bps, cv_percent, worst_night, worst_bps,"
	" rank() OVER (PARTITION BY case_params ORDER BY cv_percent) AS r, case_params"
	" FROM v_pair_variability WHERE matrix_name = ?1 AND nights >= 2"
	" AND cv_percent IS NOT NULL ORDER BY cv_percent DESC LIMIT ?2)"
	" ORDER BY case_params, r, endpoint";
static const char q_types[] =
	"SELECT instance_type, '', instance_type, nights, instances, median_bps, p5_bps,"
	" p95_bps, cv_percent, NULL, worst_bps, 0 FROM v_itype_variability"
	" WHERE matrix_name = ?1 AND nights >= 2 AND cv_percent IS NOT NULL"
	" ORDER BY cv_percent DESC, instance_type LIMIT ?2";

static const char q_hours[] =
	"SELECT hour_utc, nights, mean_bps, worst_bps FROM v_pair_hourly"
	" WHERE matrix_name = ?1 AND endpoint = ?2 AND case_key = ?3 AND hour_utc IS NOT NULL"
	" ORDER BY hour_utc";

static int prep(sqlite3 *db, const char *sql, sqlite3_stmt **st, struct ns_err *err)
{
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
		return ns_err_code(err, NS_E_INPUT, "database: %s", sqlite3_errmsg(db));
	return 0;
}

/* Grows an array of n elements of size sz by one, zeroed; NULL when out of memory. */
static void *grow(void **v, size_t *n, size_t sz)
{
	char *nv = realloc(*v, (*n + 1) * sz);
	if (!nv)
		return NULL;
	*v = nv;
	memset(nv + *n * sz, 0, sz);
	return nv + (*n)++ * sz;
}

static int add_name(char ***v, size_t *n, char *name)
{
	if (!name)
		return 0;
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i], name))
			return 0;
	char **slot = grow((void **)v, n, sizeof(char *));
	if (!slot)
		return -1;
	*slot = name;
	return 0;
}

static int load_cells(sqlite3 *db, long long run_id, struct rp_placement *p, struct ns_err *err)
{
	sqlite3_stmt *st;
	if (prep(db, q_cells, &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	int s, oom = 0;
	while (!oom && (s = sqlite3_step(st)) == SQLITE_ROW) {
		struct rp_mesh_cell *c = grow((void **)&p->cells, &p->n_cells, sizeof(*c));
		if (!c) {
			oom = 1;
			break;
		}
		c->endpoint = sqlrow_dup_or_empty(st, 0);
		c->from = sqlrow_dup_or_empty(st, 1);
		c->to = sqlrow_dup_or_empty(st, 2);
		c->from_zone = sqlrow_dup(st, 3);
		c->to_zone = sqlrow_dup(st, 4);
		c->results_ok = sqlite3_column_int64(st, 5);
		c->bps = sqlrow_num(st, 6);
		c->p50_us = sqlrow_num(st, 7);
		c->p99_us = sqlrow_num(st, 8);
		c->loss_pct = sqlrow_num(st, 9);
		oom = !c->endpoint || !c->from || !c->to;
	}
	sqlite3_finalize(st);
	if (oom)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	for (size_t i = 0; i < p->n_cells; i++)
		if (add_name(&p->hosts, &p->n_hosts, p->cells[i].from) < 0 ||
		    add_name(&p->hosts, &p->n_hosts, p->cells[i].to) < 0)
			return ns_err_code(err, NS_E_NOMEM, "out of memory");
	return 0;
}

static int load_zones(sqlite3 *db, long long run_id, struct rp_placement *p, struct ns_err *err)
{
	sqlite3_stmt *st;
	if (prep(db, q_zones, &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	int oom = 0;
	while (!oom && sqlite3_step(st) == SQLITE_ROW) {
		struct rp_zone_cell *z = grow((void **)&p->zcells, &p->n_zcells, sizeof(*z));
		if (!z) {
			oom = 1;
			break;
		}
		z->from = sqlrow_dup_or_empty(st, 0);
		z->to = sqlrow_dup_or_empty(st, 1);
		z->pairs = sqlite3_column_int64(st, 2);
		z->bps = sqlrow_num(st, 3);
		z->min_bps = sqlrow_num(st, 4);
		z->p50_us = sqlrow_num(st, 5);
		z->p99_us = sqlrow_num(st, 6);
		z->loss_pct = sqlrow_num(st, 7);
		oom = !z->from || !z->to || add_name(&p->zones, &p->n_zones, z->from) < 0 ||
		      add_name(&p->zones, &p->n_zones, z->to) < 0;
	}
	sqlite3_finalize(st);
	return oom ? ns_err_code(err, NS_E_NOMEM, "out of memory") : 0;
}

static int load_var(sqlite3 *db, const char *sql, const char *matrix, struct rp_var_row **v,
		    size_t *n, struct ns_err *err)
{
	sqlite3_stmt *st;
	if (prep(db, sql, &st, err) < 0)
		return -1;
	sqlrow_bind_text(st, 1, matrix);
	sqlite3_bind_int(st, 2, RP_VAR_MAX_ROWS);
	int oom = 0;
	while (!oom && sqlite3_step(st) == SQLITE_ROW) {
		struct rp_var_row *r = grow((void **)v, n, sizeof(*r));
		if (!r) {
			oom = 1;
			break;
		}
		r->name = sqlrow_dup_or_empty(st, 0);
		r->case_key = sqlrow_dup_or_empty(st, 1);
		r->instance_type = sqlrow_dup(st, 2);
		r->nights = sqlite3_column_int64(st, 3);
		r->instances = sqlite3_column_int64(st, 4);
		r->median_bps = sqlrow_num(st, 5);
		r->p5_bps = sqlrow_num(st, 6);
		r->p95_bps = sqlrow_num(st, 7);
		r->cv_pct = sqlrow_num(st, 8);
		r->worst_night = sqlrow_dup(st, 9);
		r->worst_bps = sqlrow_num(st, 10);
		r->rank = sqlite3_column_int64(st, 11);
		oom = !r->name || !r->case_key;
	}
	sqlite3_finalize(st);
	return oom ? ns_err_code(err, NS_E_NOMEM, "out of memory") : 0;
}

const struct rp_mesh_cell *rp_placement_cell(const struct rp_placement *p, const char *a,
					     const char *b)
{
	for (size_t i = 0; i < p->n_cells; i++)
		if (!strcmp(p->cells[i].from, a) && !strcmp(p->cells[i].to, b))
			return &p->cells[i];
	return NULL;
}

const struct rp_zone_cell *rp_placement_zcell(const struct rp_placement *p, const char *a,
					      const char *b)
{
	for (size_t i = 0; i < p->n_zcells; i++)
		if (!strcmp(p->zcells[i].from, a) && !strcmp(p->zcells[i].to, b))
			return &p->zcells[i];
	return NULL;
}

static int by_ratio(const void *x, const void *y)
{
	double a = ((const struct rp_asym *)x)->ratio, b = ((const struct rp_asym *)y)->ratio;
	return a < b ? 1 : a > b ? -1 : 0;
}

/* The slowest measured cell, and every host pair whose two directions differ. */
static int judge(struct rp_placement *p)
{
	for (size_t i = 0; i < p->n_cells; i++) {
		const struct rp_mesh_cell *c = &p->cells[i];
		if (isnan(c->bps) || c->results_ok == 0)
			continue;
		if (!p->slowest || c->bps < p->slowest->bps)
			p->slowest = c;
		const struct rp_mesh_cell *back = rp_placement_cell(p, c->to, c->from);
		if (!back || isnan(back->bps) || back->results_ok == 0 || c->bps <= 0 ||
		    back->bps < c->bps * RP_ASYM_RATIO)
			continue;
		struct rp_asym *a = grow((void **)&p->asym, &p->n_asym, sizeof(*a));
		if (!a)
			return -1;
		*a = (struct rp_asym){.slow = c, .fast = back, .ratio = back->bps / c->bps};
	}
	if (p->n_asym > 1)
		qsort(p->asym, p->n_asym, sizeof(*p->asym), by_ratio);
	return 0;
}

/* The least steady pair's case by hour of day, when it ran in two hours or more. */
static int load_hours(sqlite3 *db, const char *matrix, struct rp_placement *p,
		      struct ns_err *err)
{
	for (size_t i = 0; i < p->n_pairs; i++)
		if (!p->least || p->pairs[i].cv_pct > p->least->cv_pct)
			p->least = &p->pairs[i];
	if (!p->least)
		return 0;
	sqlite3_stmt *st;
	if (prep(db, q_hours, &st, err) < 0)
		return -1;
	sqlrow_bind_text(st, 1, matrix);
	sqlrow_bind_text(st, 2, p->least->name);
	sqlrow_bind_text(st, 3, p->least->case_key);
	int oom = 0;
	while (!oom && sqlite3_step(st) == SQLITE_ROW) {
		struct rp_hour_row *h = grow((void **)&p->hours, &p->n_hours, sizeof(*h));
		if (!h) {
			oom = 1;
			break;
		}
		h->hour = sqlite3_column_int(st, 0);
		h->nights = sqlite3_column_int64(st, 1);
		h->mean_bps = sqlrow_num(st, 2);
		h->worst_bps = sqlrow_num(st, 3);
	}
	sqlite3_finalize(st);
	if (oom)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	if (p->n_hours < 2) {
		free(p->hours);
		p->hours = NULL;
		p->n_hours = 0;
	}
	return 0;
}

int rp_placement_load(sqlite3 *db, long long run_id, const char *matrix_name,
		      struct rp_placement *p, struct ns_err *err)
{
	memset(p, 0, sizeof(*p));
	if (load_cells(db, run_id, p, err) < 0 || load_zones(db, run_id, p, err) < 0 ||
	    (matrix_name && (load_var(db, q_pairs, matrix_name, &p->pairs, &p->n_pairs, err) < 0 ||
			     load_var(db, q_types, matrix_name, &p->types, &p->n_types, err) < 0 ||
			     load_hours(db, matrix_name, p, err) < 0)))
		goto err;
	if (judge(p) < 0) {
		ns_err_code(err, NS_E_NOMEM, "out of memory");
		goto err;
	}
	return 0;
err:
	rp_placement_free(p);
	return -1;
}

static void free_var(struct rp_var_row *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].case_key);
		free(v[i].instance_type);
		free(v[i].worst_night);
	}
	free(v);
}

void rp_placement_free(struct rp_placement *p)
{
	for (size_t i = 0; i < p->n_cells; i++) {
		free(p->cells[i].endpoint);
		free(p->cells[i].from);
		free(p->cells[i].to);
		free(p->cells[i].from_zone);
		free(p->cells[i].to_zone);
	}
	for (size_t i = 0; i < p->n_zcells; i++) {
		free(p->zcells[i].from);
		free(p->zcells[i].to);
	}
	free(p->cells);
	free(p->zcells);
	free(p->hosts);
	free(p->zones);
	free(p->asym);
	free(p->hours);
	free_var(p->pairs, p->n_pairs);
	free_var(p->types, p->n_types);
	memset(p, 0, sizeof(*p));
}
