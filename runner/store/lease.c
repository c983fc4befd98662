#include "lease.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store_int.h"
#include "lib/sql/sqlrow.h"

void lease_holder(char buf[LEASE_HOLDER_MAX])
{
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	snprintf(buf, LEASE_HOLDER_MAX, "%s %ld", host, (long)getpid());
}

/* A holder of this host whose process is gone (kill -9, a crash) holds nothing: its claims
 * are free at once rather than at expiry. Another host's holder is trusted until expiry. */
static bool holder_alive(const char *holder)
{
	char mine[LEASE_HOLDER_MAX], host[256];
	long pid;
	lease_holder(mine);
	const char *sp = strrchr(holder, ' ');
	if (!sp || (size_t)(sp - holder) >= sizeof(host))
		return true;
	memcpy(host, holder, (size_t)(sp - holder));
	host[sp - holder] = '\0';
	if (strncmp(mine, host, strlen(host)) != 0 || mine[strlen(host)] != ' ')
		return true;
	pid = strtol(sp + 1, NULL, 10);
	return pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH;
}

static int lease_err(struct store *s, struct ns_err *err, const char *what)
{
	return store_sql_err(store_db(s), err, what);
}

static int exec_sql(struct store *s, const char *sql, struct ns_err *err)
{
	if (sqlite3_exec(store_db(s), sql, NULL, NULL, NULL) != SQLITE_OK)
		return lease_err(s, err, sql);
	return 0;
}

/* One-row query of (case_id, repeat): 1 with the row's text columns copied, 0 none, -1. */
static int row2(struct store *s, const char *sql, int64_t case_id, uint32_t repeat, char *a,
		size_t alen, char *b, size_t blen, struct ns_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK)
		return lease_err(s, err, "lease lookup");
	sqlite3_bind_int64(st, 1, case_id);
	sqlite3_bind_int64(st, 2, repeat);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		sqlrow_copy(a, alen, st, 0);
		if (b)
			sqlrow_copy(b, blen, st, 1);
		rc = 1;
	} else if (rc == SQLITE_DONE) {
		rc = 0;
	} else {
		rc = lease_err(s, err, "lease lookup");
	}
	sqlite3_finalize(st);
	return rc;
}

int lease_claim(struct store *s, int64_t case_id, uint32_t repeat, const char *holder,
		double ttl_s, bool retry_failed, char *other, size_t other_len, struct ns_err *err)
{
	char status[16], who[LEASE_HOLDER_MAX], live[8];
	int rc = -1, got;
	store_lock(s);
	if (exec_sql(s, "BEGIN IMMEDIATE", err) < 0)
		goto out;
	got = row2(s, "SELECT status, NULL FROM results WHERE case_id = ?1 AND repeat = ?2", case_id,
		   repeat, status, sizeof(status), NULL, 0, err);
	if (got < 0)
		goto rollback;
	if (got && (!retry_failed || strcmp(status, "ok") == 0)) {
		rc = LEASE_STORED;
		goto rollback;
	}
	got = row2(s, "SELECT holder, expires_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
		      " FROM case_leases WHERE case_id = ?1 AND repeat = ?2",
		   case_id, repeat, who, sizeof(who), live, sizeof(live), err);
	if (got < 0)
		goto rollback;
	if (got && strcmp(who, holder) != 0 && strcmp(live, "1") == 0 && holder_alive(who)) {
		snprintf(other, other_len, "%s", who);
		rc = LEASE_HELD;
		goto rollback;
	}
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(store_db(s),
			       "INSERT OR REPLACE INTO case_leases (case_id, repeat, holder, expires_at)"
			       " VALUES (?1, ?2, ?3, strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?4))",
			       -1, &st, NULL) != SQLITE_OK) {
		lease_err(s, err, "taking a lease");
		goto rollback;
	}
	char ttl[32];
	snprintf(ttl, sizeof(ttl), "+%.0f seconds", ttl_s < 1 ? 1 : ttl_s);
	sqlite3_bind_int64(st, 1, case_id);
	sqlite3_bind_int64(st, 2, repeat);
	sqlrow_bind_text(st, 3, holder);
	sqlrow_bind_text(st, 4, ttl);
	int step = sqlite3_step(st);
	sqlite3_finalize(st);
	if (step != SQLITE_DONE) {
		lease_err(s, err, "taking a lease");
		goto rollback;
	}
	if (exec_sql(s, "COMMIT", err) < 0)
		goto rollback;
	rc = LEASE_TAKEN;
	goto out;
rollback:
	sqlite3_exec(store_db(s), "ROLLBACK", NULL, NULL, NULL);
out:
	store_unlock(s);
	return rc;
}

static int release(struct store *s, const char *sql, int64_t case_id, uint32_t repeat,
		   const char *holder, struct ns_err *err)
{
	sqlite3_stmt *st;
	int rc = -1;
	store_lock(s);
	if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) {
		lease_err(s, err, "releasing a lease");
		goto out;
	}
	sqlrow_bind_text(st, 1, holder);
	if (case_id) {
		sqlite3_bind_int64(st, 2, case_id);
		sqlite3_bind_int64(st, 3, repeat);
	}
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : lease_err(s, err, "releasing a lease");
	sqlite3_finalize(st);
out:
	store_unlock(s);
	return rc;
}

int lease_release(struct store *s, int64_t case_id, uint32_t repeat, const char *holder,
		  struct ns_err *err)
{
	return release(s, "DELETE FROM case_leases WHERE holder = ?1 AND case_id = ?2 AND repeat = ?3",
		       case_id, repeat, holder, err);
}

int lease_release_all(struct store *s, const char *holder, struct ns_err *err)
{
	return release(s, "DELETE FROM case_leases WHERE holder = ?1", 0, 0, holder, err);
}

int lease_run_results(struct store *s, int64_t run_id, size_t *n, struct ns_err *err)
{
	sqlite3_stmt *st;
	int rc = -1;
	store_lock(s);
	if (sqlite3_prepare_v2(store_db(s), "SELECT count(*) FROM results r JOIN cases c"
			       " ON c.id = r.case_id WHERE c.run_id = ?1", -1, &st, NULL) != SQLITE_OK) {
		lease_err(s, err, "counting results");
		goto out;
	}
	sqlite3_bind_int64(st, 1, run_id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*n = (size_t)sqlite3_column_int64(st, 0);
		rc = 0;
	} else {
		lease_err(s, err, "counting results");
	}
	sqlite3_finalize(st);
out:
	store_unlock(s);
	return rc;
}
