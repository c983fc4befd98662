/* report_db: what the report's database tests share (include after cmocka.h) — SQL that must
 * run, and run 1 on pair p (an m5.large pair in us-east-1, two repeats) for their cases. */
#ifndef NS_TEST_REPORT_DB_H
#define NS_TEST_REPORT_DB_H

#include <sqlite3.h>

static inline void exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("sql: %s", msg ? msg : "?");
}

#define REPORT_DB_RUN_PAIR \
	"INSERT INTO runs(id, matrix_name, matrix_text, matrix_hash, started_at, netsweep_version," \
	"  repeats) VALUES (1, 'm', '<m/>', 'h', '2026-01-01T00:00:00Z', '0.1.0', 2);" \
	"INSERT INTO endpoints(id, run_id, name, instance_type, region, agent_addr, price_basis)" \
	"  VALUES (1, 1, 'p', 'm5.large', 'us-east-1', '10.0.0.2:5301', 'pair');"

#endif
