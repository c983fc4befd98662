/* year_store DB NIGHTS [CASES] [SAMPLES]: writes a realistic results database of NIGHTS
 * nightly runs of one matrix for the year-of-nights benchmark (tests/bench/year.sh) and the
 * retention test: the store's own schema (lib/sql/store_schema.h, the whole ladder), ten
 * priced pairs, CASES cases a night (default 300: per pair TCP streams x direction, UDP sizes
 * x rates, request/response cases with latency histograms, UDP rate searches), 3 repeats,
 * SAMPLES interval samples per result (default 10). One pair's link falls to 60 % at 70 % of
 * the year and one pair's price is cut by 10 % half way, so that the trends have news. The
 * last night can be left running (status running, no finish: NS_YEAR_LAST_RUNNING=1) for
 * the "a new night arrives" timings. Deterministic: the same arguments give the same rows
 * (the runs' uuids aside). */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/lathist.h"
#include "lib/sql/store_schema.h"

#define PAIRS 10
#define REPEATS 3

static const struct {
	const char *type;
	double gbps, usd;
} pairs[PAIRS] = {
	{"c5n.large", 3.0, 0.108}, {"c5n.xlarge", 5.0, 0.216}, {"c5n.2xlarge", 10.0, 0.432},
	{"m5.large", 0.75, 0.096}, {"m5.xlarge", 1.25, 0.192}, {"c6gn.medium", 1.6, 0.0432},
	{"c6gn.large", 3.0, 0.0864}, {"c7gn.large", 3.75, 0.1248}, {"m6i.large", 0.78, 0.096},
	{"r5n.large", 2.1, 0.149},
};

static unsigned long long rng_state = 88172645463325252ull;
static double noise(void) /* xorshift64: uniform in [-1, 1) */
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) / (double)(1ull << 52) - 1.0;
}

static int exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "year_store: %s\n", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

enum { S_RUN, S_EP, S_PRICE, S_CASE, S_RES, S_SAMPLE, S_LAT, S_SEARCH, S_N };
static const char *const sql[S_N] = {
	[S_RUN] = "INSERT INTO runs(matrix_name, matrix_text, matrix_hash, label, started_at,"
		  " finished_at, netsweep_version, runner_host, repeats, status)"
		  " VALUES ('year', '<matrix name=\"year\"/>', 'y3ar', ?1, ?2, ?3, '0.1.0', 'bench',"
		  " 3, ?4)",
	[S_EP] = "INSERT INTO endpoints(run_id, name, instance_type, region, agent_addr,"
		 " price_basis, link_bps) VALUES (?1, ?2, ?2, 'us-east-1', '10.0.0.2:5301', 'pair',"
		 " ?3)",
	[S_PRICE] = "INSERT INTO run_prices VALUES (?1, ?2, 'us-east-1', ?3, '2025-01-01', 'bench')",
	[S_CASE] = "INSERT INTO cases(run_id, endpoint_id, case_key, ordinal, protocol, streams,"
		   " length, rate_bps, direction, duration_s, params)"
		   " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 10, ?10)",
	[S_RES] = "INSERT INTO results(case_id, repeat, started_at, finished_at, status,"
		  " duration_s, fwd_snd_bps, fwd_rcv_bps, fwd_rcv_pps, fwd_snd_cpu, fwd_rcv_cpu,"
		  " fwd_retransmits, fwd_lost, fwd_lost_percent)"
		  " VALUES (?1, ?2, ?3, ?3, 'ok', 10, ?4, ?5, ?6, 40, 30, ?7, ?8, ?9)",
	[S_SAMPLE] = "INSERT INTO samples(result_id, direction, stream, t_start, t_end, bytes, bps)"
		     " VALUES (?1, 'fwd', -1, ?2, ?3, ?4, ?5)",
	[S_LAT] = "INSERT INTO result_latency(result_id, test, request, response, rate,"
		  " transactions, transactions_per_second, lost, min_us, mean_us, p50_us, p90_us,"
		  " p99_us, p999_us, max_us, relative_error, client_cpu, histogram)"
		  " VALUES (?1, 'tcp_rr', 64, 64, 0, ?2, ?3, 0, ?4, ?5, ?5, ?6, ?7, ?8, ?8,"
		  " 0.0078125, -1, ?9)",
	[S_SEARCH] = "INSERT INTO searches(result_id, search_json) VALUES (?1, ?2)",
};

static int step(sqlite3 *db, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE) {
		fprintf(stderr, "year_store: %s\n", sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}

/* One result with its samples and, for an RR or search case, its latency or search row. */
static int result(sqlite3 *db, sqlite3_stmt **st, long long case_id, int rep, const char *at,
		  double bps, int kind, int length, int samples)
{
	double pps = length ? bps / 8 / length : bps / 8 / 1448;
	sqlite3_bind_int64(st[S_RES], 1, case_id);
	sqlite3_bind_int(st[S_RES], 2, rep);
	sqlite3_bind_text(st[S_RES], 3, at, -1, SQLITE_STATIC);
	sqlite3_bind_double(st[S_RES], 4, bps * 1.002);
	sqlite3_bind_double(st[S_RES], 5, bps);
	sqlite3_bind_double(st[S_RES], 6, pps);
	sqlite3_bind_int(st[S_RES], 7, kind == 0 ? (int)(50 + 40 * noise()) : 0);
	if (kind == 1) {
		sqlite3_bind_int(st[S_RES], 8, (int)(pps * 10 * 0.0001));
		sqlite3_bind_double(st[S_RES], 9, 0.01);
	}
	if (step(db, st[S_RES]) < 0)
		return -1;
	long long rid = sqlite3_last_insert_rowid(db);
	for (int i = 0; i < samples; i++) {
		double t = 10.0 * i / samples, b = bps * (1 + 0.02 * noise());
		sqlite3_bind_int64(st[S_SAMPLE], 1, rid);
		sqlite3_bind_double(st[S_SAMPLE], 2, t);
		sqlite3_bind_double(st[S_SAMPLE], 3, t + 10.0 / samples);
		sqlite3_bind_int64(st[S_SAMPLE], 4, (long long)(b / 8 * 10 / samples));
		sqlite3_bind_double(st[S_SAMPLE], 5, b);
		if (step(db, st[S_SAMPLE]) < 0)
			return -1;
	}
	if (kind == 2) {
		struct lathist h;
		lathist_init(&h);
		double base_us = 25 + 5 * noise();
		for (int i = 0; i < 400; i++)
			lathist_record(&h, (uint64_t)(1000 * base_us * (1 + 0.3 * fabs(noise())) *
						      (i % 100 == 0 ? 4 : 1)));
		char *text = lathist_encode(&h);
		sqlite3_bind_int64(st[S_LAT], 1, rid);
		sqlite3_bind_int(st[S_LAT], 2, 400000);
		sqlite3_bind_double(st[S_LAT], 3, 40000);
		sqlite3_bind_double(st[S_LAT], 4, base_us * 0.8);
		sqlite3_bind_double(st[S_LAT], 5, base_us);
		sqlite3_bind_double(st[S_LAT], 6, base_us * 1.2);
		sqlite3_bind_double(st[S_LAT], 7, base_us * 4);
		sqlite3_bind_double(st[S_LAT], 8, base_us * 6);
		sqlite3_bind_text(st[S_LAT], 9, text ? text : "", -1, SQLITE_TRANSIENT);
		free(text);
		if (step(db, st[S_LAT]) < 0)
			return -1;
	} else if (kind == 3) {
		char js[1024];
		snprintf(js, sizeof(js),
			 "{\"mrr_pps\":%.0f,\"max_load_pps\":%.0f,\"goals\":[{\"loss_ratio\":0,"
			 "\"met\":true,\"converged\":true,\"lower_pps\":%.0f,\"upper_pps\":%.0f,"
			 "\"conditional_pps\":%.0f,\"trials\":6}],\"trials\":[{\"phase\":\"mrr\","
			 "\"goal\":0,\"load_pps\":%.0f,\"duration_s\":1,\"sent\":%.0f,\"received\":%.0f,"
			 "\"loss_ratio\":0.01}]}", pps * 1.1, pps * 1.2, pps * 0.95, pps, pps * 0.95,
			 pps * 1.1, pps * 1.1, pps * 1.09);
		sqlite3_bind_int64(st[S_SEARCH], 1, rid);
		sqlite3_bind_text(st[S_SEARCH], 2, js, -1, SQLITE_TRANSIENT);
		if (step(db, st[S_SEARCH]) < 0)
			return -1;
	}
	return 0;
}

static int night(sqlite3 *db, sqlite3_stmt **st, int n, int nights, int cases, int samples,
		 int running)
{
	char label[32], start[32], end[32];
	time_t t = (time_t)1735693200 + (time_t)n * 86400; /* 2025-01-01T01:00:00Z */
	strftime(start, sizeof(start), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	t += 5400;
	strftime(end, sizeof(end), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	snprintf(label, sizeof(label), "night-%d", n + 1);
	sqlite3_bind_text(st[S_RUN], 1, label, -1, SQLITE_STATIC);
	sqlite3_bind_text(st[S_RUN], 2, start, -1, SQLITE_STATIC);
	if (!running)
		sqlite3_bind_text(st[S_RUN], 3, end, -1, SQLITE_STATIC);
	sqlite3_bind_text(st[S_RUN], 4, running ? "running" : "done", -1, SQLITE_STATIC);
	if (step(db, st[S_RUN]) < 0)
		return -1;
	long long run = sqlite3_last_insert_rowid(db);
	int per_pair = cases / PAIRS, ordinal = 0;
	for (int p = 0; p < PAIRS; p++) {
		double usd = pairs[p].usd * (p == 3 && n >= nights / 2 ? 0.9 : 1);
		double gbps = pairs[p].gbps * (p == 1 && n >= nights * 7 / 10 ? 0.6 : 1);
		sqlite3_bind_int64(st[S_EP], 1, run);
		sqlite3_bind_text(st[S_EP], 2, pairs[p].type, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st[S_EP], 3, (long long)(pairs[p].gbps * 4e9));
		if (step(db, st[S_EP]) < 0)
			return -1;
		long long ep = sqlite3_last_insert_rowid(db);
		sqlite3_bind_int64(st[S_PRICE], 1, run);
		sqlite3_bind_text(st[S_PRICE], 2, pairs[p].type, -1, SQLITE_STATIC);
		sqlite3_bind_double(st[S_PRICE], 3, usd);
		if (step(db, st[S_PRICE]) < 0)
			return -1;
		for (int k = 0; k < per_pair; k++) {
			/* a third TCP (streams x direction), a third UDP (sizes x rates), then
			 * request/response and rate searches */
			int kind = k < per_pair / 3 ? 0 : k < per_pair * 2 / 3 ? 1
				   : k % 2 ? 2 : 3;
			int streams = kind == 0 ? 1 << (k % 5) : 1;
			int length = kind == 1 || kind == 3 ? 64 << (k % 5) : kind == 2 ? 64 : 0;
			long long rate = kind == 1 && k % 2 ? 1000000000ll : 0;
			const char *dir = kind == 0 && (k / 5) % 2 ? "reverse" : "forward";
			char key[64], params[128];
			snprintf(key, sizeof(key), "%s-k%d", pairs[p].type, k);
			snprintf(params, sizeof(params), "{\"streams\":%d,\"k\":%d}", streams, k);
			sqlite3_bind_int64(st[S_CASE], 1, run);
			sqlite3_bind_int64(st[S_CASE], 2, ep);
			sqlite3_bind_text(st[S_CASE], 3, key, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int(st[S_CASE], 4, ++ordinal);
			sqlite3_bind_text(st[S_CASE], 5, kind == 0 || kind == 2 ? "tcp" : "udp", -1,
					  SQLITE_STATIC);
			sqlite3_bind_int(st[S_CASE], 6, streams);
			sqlite3_bind_int(st[S_CASE], 7, length);
			sqlite3_bind_int64(st[S_CASE], 8, rate);
			sqlite3_bind_text(st[S_CASE], 9, dir, -1, SQLITE_STATIC);
			sqlite3_bind_text(st[S_CASE], 10, params, -1, SQLITE_TRANSIENT);
			if (step(db, st[S_CASE]) < 0)
				return -1;
			long long cid = sqlite3_last_insert_rowid(db);
			double base = gbps * 1e9 * (kind == 0 ? fmin(1.0, 0.4 + 0.15 * streams)
						   : kind == 1 ? fmin(1.0, length / 1500.0 + 0.2) : 0.1);
			if (rate && base > (double)rate)
				base = (double)rate;
			for (int r = 0; r < (running ? 0 : REPEATS); r++)
				if (result(db, st, cid, r, start, base * (1 + 0.01 * noise()), kind,
					   length, samples) < 0)
					return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: year_store DB NIGHTS [CASES] [SAMPLES]\n");
		return 2;
	}
	int nights = atoi(argv[2]), cases = argc > 3 ? atoi(argv[3]) : 300;
	int samples = argc > 4 ? atoi(argv[4]) : 10;
	const char *lr = getenv("NS_YEAR_LAST_RUNNING");
	int last_running = lr && *lr == '1';
	if (nights < 1 || cases < PAIRS || samples < 0) {
		fprintf(stderr, "year_store: NIGHTS >= 1, CASES >= %d, SAMPLES >= 0\n", PAIRS);
		return 2;
	}
	remove(argv[1]);
	sqlite3 *db;
	struct ns_err err = {0};
	if (sqlite3_open(argv[1], &db) != SQLITE_OK || ns_store_migrate(db, &err) < 0) {
		fprintf(stderr, "year_store: %s: %s\n", argv[1], err.msg[0] ? err.msg : sqlite3_errmsg(db));
		return 1;
	}
	sqlite3_stmt *st[S_N];
	for (int i = 0; i < S_N; i++)
		if (sqlite3_prepare_v2(db, sql[i], -1, &st[i], NULL) != SQLITE_OK) {
			fprintf(stderr, "year_store: %s\n", sqlite3_errmsg(db));
			return 1;
		}
	int rc = exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF");
	for (int n = 0; n < nights && rc == 0; n++) {
		rc = exec(db, "BEGIN");
		if (rc == 0)
			rc = night(db, st, n, nights, cases, samples, last_running && n == nights - 1);
		if (rc == 0)
			rc = exec(db, "COMMIT");
	}
	for (int i = 0; i < S_N; i++)
		sqlite3_finalize(st[i]);
	if (rc == 0)
		rc = exec(db, "PRAGMA journal_mode=DELETE");
	sqlite3_close(db);
	return rc == 0 ? 0 : 1;
}
