/* placement: where to place and what to trust — a run's heatmaps (host x host and zone x zone:
 * goodput, round-trip p50/p99, loss, from v_mesh_cells and v_mesh_zone_cells) and its
 * matrix's steadiness over nights (v_pair_variability, v_itype_variability), read from the
 * database, with the findings they say: the slowest link, the asymmetric pairs (A->B far from
 * B->A), how much each instance type and pair varied night to night. Beside report/load (at
 * its cap of files), this folder's own SQL reads only those views. */
#ifndef RP_PLACEMENT_H
#define RP_PLACEMENT_H

#include <sqlite3.h>
#include <stddef.h>

#include "lib/err.h"

/* Two directions differ when the faster carries at least this many times the slower. */
#define RP_ASYM_RATIO 1.5
/* At most this many variability rows are shown, the least steady first kept. */
#define RP_VAR_MAX_ROWS 60

struct rp_mesh_cell {
	char *endpoint, *from, *to, *from_zone, *to_zone; /* zones NULL when not known */
	long long results_ok;
	double bps, p50_us, p99_us, loss_pct;           /* NAN = not measured */
};

struct rp_zone_cell {
	char *from, *to;
	long long pairs;
	double bps, min_bps, p50_us, p99_us, loss_pct;
};

/* One pair's (or one instance type's) case over nights. */
struct rp_var_row {
	char *name, *case_key, *instance_type, *worst_night; /* worst_night NULL for a type */
	long long nights, instances;
	double median_bps, p5_bps, p95_bps, cv_pct, worst_bps;
	long long rank;                                 /* consistency rank in its case */
};

/* Two directions of a host pair far apart: from->to carries slow_bps, to->from fast_bps. */
struct rp_asym {
	const struct rp_mesh_cell *slow, *fast;
	double ratio;
};

/* The least steady pair's case by UTC hour of day (v_pair_hourly). */
struct rp_hour_row {
	int hour;
	long long nights;
	double mean_bps, worst_bps;
};

struct rp_placement {
	struct rp_mesh_cell *cells;
	size_t n_cells;
	char **hosts;                      /* the heatmap's hosts, in first-seen order (borrowed) */
	size_t n_hosts;
	struct rp_zone_cell *zcells;
	size_t n_zcells;
	char **zones;                      /* (borrowed) */
	size_t n_zones;
	const struct rp_mesh_cell *slowest; /* NULL without a measured cell */
	struct rp_asym *asym;              /* highest ratio first */
	size_t n_asym;
	struct rp_var_row *pairs;          /* by case, steadiest first (consistency rank) */
	size_t n_pairs;
	struct rp_var_row *types;          /* least steady first */
	size_t n_types;
	const struct rp_var_row *least;    /* the least steady pair, NULL without nights */
	struct rp_hour_row *hours;         /* its case by hour; only when in two hours or more */
	size_t n_hours;
};

/* Reads run_id's heatmaps (its pairs with names at both ends: a mesh's, or zones known) and
 * matrix's variability over its runs, and finds the slowest link and asymmetries.
 * NS_E_INPUT for the database, NS_E_NOMEM. */
int rp_placement_load(sqlite3 *db, long long run_id, const char *matrix_name,
		      struct rp_placement *p, struct ns_err *err);
void rp_placement_free(struct rp_placement *p);

/* The cell from a to b, or NULL. */
const struct rp_mesh_cell *rp_placement_cell(const struct rp_placement *p, const char *a,
					     const char *b);
const struct rp_zone_cell *rp_placement_zcell(const struct rp_placement *p, const char *a,
					      const char *b);

#endif
