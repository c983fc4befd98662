#include "report/load/provider.h"

#include <stdlib.h>
#include <string.h>

#include "report/model/describe.h"
#include "report/load/rundb.h"

static const char *const allowance_names[5] = {
	"bw_in_allowance_exceeded", "bw_out_allowance_exceeded", "pps_allowance_exceeded",
	"conntrack_allowance_exceeded", "linklocal_allowance_exceeded",
};

static void provider_row(struct rp_case *c, sqlite3_stmt *st)
{
	c->n_provider_shaped = sqlite3_column_int(st, 1);
	for (int k = 0; k < 5; k++)
		c->allowance_exceeded[k] = sqlite3_column_int64(st, 2 + k);
	const unsigned char *w = sqlite3_column_text(st, 7);
	free(c->allowance_where);
	c->allowance_where = w ? strdup((const char *)w) : NULL;
	c->nic_packets = sqlite3_column_int64(st, 8);
	c->nic_bytes = sqlite3_column_int(st, 10) ? -1 : sqlite3_column_int64(st, 9);
}

/* an interface of a result_nics row n whose allowance counters moved */
#define MOVED                                                                                   \
	"n.bw_in_allowance_exceeded + n.bw_out_allowance_exceeded + n.pps_allowance_exceeded +" \
	" n.conntrack_allowance_exceeded + n.linklocal_allowance_exceeded > 0"

int rp_provider_load(sqlite3 *db, struct rp_data *d, struct ns_err *err)
{
	/* a database from before version 9 has no such column: nothing shaped, not an error */
	return rp_db_case_rows(db,
			       "SELECT r.case_id, count(DISTINCT r.id),"
			       " sum(n.bw_in_allowance_exceeded), sum(n.bw_out_allowance_exceeded),"
			       " sum(n.pps_allowance_exceeded), sum(n.conntrack_allowance_exceeded),"
			       " sum(n.linklocal_allowance_exceeded),"
			       " group_concat(DISTINCT CASE WHEN " MOVED
			       "  THEN 'the ' || n.side || '''s ' || n.ifname END),"
			       /* what those interfaces moved: the packets and bytes beside them */
			       " sum(CASE WHEN " MOVED " THEN n.rx_packets + n.tx_packets END),"
			       " sum(CASE WHEN " MOVED " THEN n.rx_bytes + n.tx_bytes END),"
			       " count(CASE WHEN " MOVED " AND n.rx_bytes IS NULL THEN 1 END)"
			       " FROM results r JOIN cases c ON c.id = r.case_id"
			       " LEFT JOIN result_nics n ON n.result_id = r.id"
			       " WHERE c.run_id = ? AND r.status = 'ok' AND r.shaped_by_provider = 1"
			       " GROUP BY r.case_id", d, provider_row, "result_nics", err);
}

bool rp_provider_finding(const struct rp_data *d, size_t i, struct rp_buf *b)
{
	const struct rp_case *c = &d->cases[i];
	if (!c->n_provider_shaped)
		return false;
	rp_case_label(d, c, b);
	rp_buf_printf(b, " was shaped by the cloud provider in %d of %d repeats: ",
		      c->n_provider_shaped, c->n_ok);
	const char *sep = "";
	for (int k = 0; k < 5; k++) {
		if (!c->allowance_exceeded[k])
			continue;
		rp_buf_printf(b, "%s%s +%lld", sep, allowance_names[k], c->allowance_exceeded[k]);
		sep = ", ";
	}
	if (!*sep)
		rp_buf_puts(b, "an allowance counter");
	if (c->allowance_where) {
		rp_buf_printf(b, " on %s", c->allowance_where);
		/* beside what it moved: the share held back (bytes: store version 18 on) */
		if (c->nic_packets > 0) {
			rp_buf_printf(b, ", which moved %lld packets", c->nic_packets);
			if (c->nic_bytes >= 0)
				rp_buf_printf(b, " (%.1f MB)", c->nic_bytes / 1e6);
			rp_buf_puts(b, " in and out over those repeats");
		}
	}
	rp_buf_puts(b, ". The provider's allowance counter moved, so packets were held back by the "
		       "provider's limit on the instance: this case's figure is the provider's "
		       "shaping, not the instance's capacity.");
	return true;
}
