/* export: Prometheus / OpenMetrics text and NDJSON of runs (export.h). The text formats group
 * each metric family's samples under its HELP and TYPE, as both require, so the cases are
 * read once into memory and written family by family. A case's value is its median over the
 * successful repeats (v_case_median), as the report's; its timestamp the end of its last
 * result (the run's start when it has none). */
#include "report/render/export.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/jsonw.h"
#include "report/load/rundb.h"

static const char CASES_SQL[] =
	"SELECT c.run_id, coalesce(ru.label, ''), ru.matrix_name, e.name, e.instance_type,"
	" e.region, c.protocol, c.direction, c.streams, c.length, c.case_key,"
	" coalesce(strftime('%s', (SELECT max(r.finished_at) FROM results r WHERE r.case_id = c.id)),"
	"          strftime('%s', ru.started_at)),"
	" m.median_bps,"
	" (SELECT count(*) FROM results r WHERE r.case_id = c.id AND r.status = 'ok'),"
	" (SELECT count(*) FROM results r WHERE r.case_id = c.id AND r.status <> 'ok'),"
	" (SELECT avg(r.fwd_lost_percent) FROM results r WHERE r.case_id = c.id AND r.status = 'ok'),"
	" (SELECT avg(r.fwd_retransmits) FROM results r WHERE r.case_id = c.id AND r.status = 'ok'),"
	" (SELECT avg(r.fwd_snd_cpu) FROM results r WHERE r.case_id = c.id AND r.status = 'ok'),"
	" (SELECT avg(r.fwd_rcv_cpu) FROM results r WHERE r.case_id = c.id AND r.status = 'ok'),"
	" ep.usd_per_hour,"
	" EXISTS (SELECT 1 FROM endpoint_emulation em WHERE em.endpoint_id = e.id),"
	" (SELECT rank FROM v_cost_ranking k WHERE k.case_id = c.id)"
	" FROM cases c JOIN runs ru ON ru.id = c.run_id JOIN endpoints e ON e.id = c.endpoint_id"
	" LEFT JOIN v_case_median m ON m.case_id = c.id"
	" LEFT JOIN v_endpoint_prices ep ON ep.endpoint_id = e.id"
	" WHERE c.run_id = ?1 ORDER BY c.ordinal, c.id";

static const char RUN_SQL[] =
	"SELECT coalesce(ru.label, ''), ru.matrix_name, strftime('%s', coalesce(ru.finished_at,"
	" ru.started_at)), (SELECT usd FROM v_run_billed b WHERE b.run_id = ru.id),"
	" (SELECT usd FROM v_run_cost x WHERE x.run_id = ru.id) FROM runs ru WHERE ru.id = ?1";

enum { C_RUN, C_LABEL, C_MATRIX, C_PAIR, C_TYPE, C_REGION, C_PROTO, C_DIR, C_STREAMS, C_LENGTH,
       C_KEY, C_TS, C_MEDIAN, C_OK, C_FAILED, C_LOST, C_RETR, C_SCPU, C_RCPU, C_PRICE, C_EMU,
       C_RANK, C_COLS };

/* One case: its labels as text and its figures (NAN = none). */
struct xcase {
	char *text[C_COLS];
	double num[C_COLS];
};

struct xset {
	struct xcase *c;
	size_t n, cap;
};

static void xset_free(struct xset *s)
{
	for (size_t i = 0; i < s->n; i++)
		for (int k = 0; k < C_COLS; k++)
			free(s->c[i].text[k]);
	free(s->c);
}

static int read_cases(sqlite3 *db, long long run, struct xset *s, struct ns_err *err)
{
	sqlite3_stmt *st;
	if (rp_db_prep(db, CASES_SQL, &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (s->n == s->cap) {
			size_t cap = s->cap ? 2 * s->cap : 64;
			struct xcase *c = realloc(s->c, cap * sizeof(*c));
			if (!c)
				goto nomem;
			s->c = c;
			s->cap = cap;
		}
		struct xcase *x = &s->c[s->n];
		memset(x, 0, sizeof(*x));
		s->n++;
		for (int k = 0; k < C_COLS; k++) {
			const unsigned char *t = sqlite3_column_text(st, k);
			x->num[k] = sqlite3_column_type(st, k) == SQLITE_NULL ? NAN
									      : sqlite3_column_double(st, k);
			x->text[k] = strdup(t ? (const char *)t : "");
			if (!x->text[k])
				goto nomem;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return ns_err_code(err, NS_E_IO, "database: %s", sqlite3_errmsg(db));
	return 0;
nomem:
	sqlite3_finalize(st);
	return ns_err_code(err, NS_E_NOMEM, "out of memory");
}

void rp_export_label(const char *v, char *buf, size_t cap)
{
	size_t o = 0;
	for (; *v && o + 3 < cap; v++) {
		unsigned char ch = (unsigned char)*v;
		if (ch == '\\' || ch == '"') {
			buf[o++] = '\\';
			buf[o++] = (char)ch;
		} else if (ch == '\n') {
			buf[o++] = '\\';
			buf[o++] = 'n';
		} else {
			buf[o++] = ch < 0x20 || ch == 0x7f ? ' ' : (char)ch;
		}
	}
	buf[o] = '\0';
}

static void label(FILE *out, const char *name, const char *v, bool first)
{
	char esc[1024];
	rp_export_label(v, esc, sizeof(esc));
	fprintf(out, "%s%s=\"%s\"", first ? "" : ",", name, esc);
}

/* The case labels of every per-case family: small and the same for all of them. */
static void case_labels(FILE *out, const struct xcase *x)
{
	label(out, "run", x->text[C_RUN], true);
	label(out, "label", x->text[C_LABEL], false);
	label(out, "matrix", x->text[C_MATRIX], false);
	label(out, "pair", x->text[C_PAIR], false);
	label(out, "instance_type", x->text[C_TYPE], false);
	label(out, "region", x->text[C_REGION], false);
	label(out, "protocol", x->text[C_PROTO], false);
	label(out, "direction", x->text[C_DIR], false);
	label(out, "streams", x->text[C_STREAMS], false);
	label(out, "size", x->text[C_LENGTH], false);
	label(out, "emulated", x->num[C_EMU] > 0 ? "true" : "false", false);
	label(out, "case", x->text[C_KEY], false);
}

static void stamp(FILE *out, const struct rp_export_opts *o, double ts)
{
	if (!o->timestamps || !isfinite(ts))
		return;
	/* OpenMetrics counts seconds; Prometheus's text format milliseconds */
	if (o->format == RP_EXPORT_OPENMETRICS)
		fprintf(out, " %.0f", ts);
	else
		fprintf(out, " %.0f", ts * 1000.0);
}

static void family(FILE *out, const struct rp_export_opts *o, const char *name,
		   const char *unit, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
	if (o->format == RP_EXPORT_OPENMETRICS && unit)
		fprintf(out, "# UNIT %s %s\n", name, unit);
}

/* A per-case family: value(x) for every case where it is finite and applies. */
struct xmetric {
	const char *name, *unit, *help;
	const char *proto;   /* NULL = every protocol */
	int col;
	double scale;
};

static const struct xmetric metrics[] = {
	{"netsweep_goodput_bytes_per_second", "bytes_per_second",
	 "Median receiver goodput of the case over its successful repeats.", NULL, C_MEDIAN, 1 / 8.0},
	{"netsweep_udp_loss_ratio", "ratio", "Mean share of datagrams lost (UDP cases).", "udp",
	 C_LOST, 0.01},
	{"netsweep_tcp_retransmits", NULL, "Mean TCP retransmissions per repeat (TCP cases).", "tcp",
	 C_RETR, 1},
	{"netsweep_sender_cpu_ratio", "ratio",
	 "Mean CPU of the sending engine threads, share of one CPU.", NULL, C_SCPU, 0.01},
	{"netsweep_receiver_cpu_ratio", "ratio",
	 "Mean CPU of the receiving engine threads, share of one CPU.", NULL, C_RCPU, 0.01},
};

static void write_metric(FILE *out, const struct xset *s, const struct xmetric *m,
			 const struct rp_export_opts *o)
{
	family(out, o, m->name, m->unit, m->help);
	for (size_t i = 0; i < s->n; i++) {
		const struct xcase *x = &s->c[i];
		if ((m->proto && strcmp(m->proto, x->text[C_PROTO])) || !isfinite(x->num[m->col]))
			continue;
		fprintf(out, "%s{", m->name);
		case_labels(out, x);
		fprintf(out, "} %.17g", x->num[m->col] * m->scale);
		stamp(out, o, x->num[C_TS]);
		fputc('\n', out);
	}
}

static void write_text(FILE *out, const struct xset *s, const struct rp_export_opts *o)
{
	for (size_t k = 0; k < sizeof(metrics) / sizeof(metrics[0]); k++)
		write_metric(out, s, &metrics[k], o);
	family(out, o, "netsweep_goodput_bytes_per_second_per_usd_hour", NULL,
	       "Median goodput per hourly dollar of the pair (or the sender, as priced).");
	for (size_t i = 0; i < s->n; i++) {
		const struct xcase *x = &s->c[i];
		if (!isfinite(x->num[C_MEDIAN]) || !(x->num[C_PRICE] > 0))
			continue;
		fputs("netsweep_goodput_bytes_per_second_per_usd_hour{", out);
		case_labels(out, x);
		fprintf(out, "} %.17g", x->num[C_MEDIAN] / 8.0 / x->num[C_PRICE]);
		stamp(out, o, x->num[C_TS]);
		fputc('\n', out);
	}
	family(out, o, "netsweep_cost_rank", NULL,
	       "Rank of the pair per dollar in its run (1 = most), on its ranked case.");
	for (size_t i = 0; i < s->n; i++) {
		const struct xcase *x = &s->c[i];
		if (!isfinite(x->num[C_RANK]))
			continue;
		fputs("netsweep_cost_rank{", out);
		case_labels(out, x);
		fprintf(out, "} %.0f", x->num[C_RANK]);
		stamp(out, o, x->num[C_TS]);
		fputc('\n', out);
	}
	family(out, o, "netsweep_case_results", NULL, "Results of the case by status.");
	for (size_t i = 0; i < s->n; i++)
		for (int ok = 1; ok >= 0; ok--) {
			const struct xcase *x = &s->c[i];
			fputs("netsweep_case_results{", out);
			case_labels(out, x);
			label(out, "status", ok ? "ok" : "failed", false);
			fprintf(out, "} %.0f", x->num[ok ? C_OK : C_FAILED]);
			stamp(out, o, x->num[C_TS]);
			fputc('\n', out);
		}
}

static int write_runs(sqlite3 *db, FILE *out, const long long *ids, size_t n,
		      const struct rp_export_opts *o, struct ns_err *err)
{
	static const char *const names[2] = {"netsweep_run_billed_usd", "netsweep_run_measured_usd"};
	static const char *const helps[2] = {
		"Billed cost of the run: instances' hook-to-hook or wall time at the run's prices.",
		"Cost of the run's measured seconds at the run's prices."};
	for (int k = 0; k < 2; k++) {
		family(out, o, names[k], NULL, helps[k]);
		for (size_t i = 0; i < n; i++) {
			sqlite3_stmt *st;
			if (rp_db_prep(db, RUN_SQL, &st, err) < 0)
				return -1;
			sqlite3_bind_int64(st, 1, ids[i]);
			if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 3 + k) != SQLITE_NULL) {
				char run[32];
				snprintf(run, sizeof(run), "%lld", ids[i]);
				fprintf(out, "%s{", names[k]);
				label(out, "run", run, true);
				label(out, "label", (const char *)sqlite3_column_text(st, 0), false);
				label(out, "matrix", (const char *)sqlite3_column_text(st, 1), false);
				fprintf(out, "} %.17g", sqlite3_column_double(st, 3 + k));
				stamp(out, o, sqlite3_column_type(st, 2) == SQLITE_NULL
						      ? NAN : sqlite3_column_double(st, 2));
				fputc('\n', out);
			}
			sqlite3_finalize(st);
		}
	}
	return 0;
}

/* One v_results row a line, every column under its own name and type. */
static int write_ndjson(sqlite3 *db, FILE *out, const long long *ids, size_t n, struct ns_err *err)
{
	sqlite3_stmt *st;
	if (rp_db_prep(db, "SELECT * FROM v_results WHERE run_id = ?1 ORDER BY result_id", &st,
		       err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, ids[i]);
		while (sqlite3_step(st) == SQLITE_ROW) {
			struct jsonw w;
			jsonw_init(&w, false);
			jsonw_obj_open(&w);
			for (int k = 0; k < sqlite3_column_count(st); k++) {
				jsonw_key(&w, sqlite3_column_name(st, k));
				switch (sqlite3_column_type(st, k)) {
				case SQLITE_INTEGER: jsonw_int(&w, sqlite3_column_int64(st, k)); break;
				case SQLITE_FLOAT: jsonw_double(&w, sqlite3_column_double(st, k)); break;
				case SQLITE_NULL: jsonw_null(&w); break;
				default: jsonw_str(&w, (const char *)sqlite3_column_text(st, k)); break;
				}
			}
			jsonw_obj_close(&w);
			const char *text = jsonw_finish(&w);
			if (!text) {
				jsonw_free(&w);
				sqlite3_finalize(st);
				return ns_err_code(err, NS_E_NOMEM, "out of memory");
			}
			fprintf(out, "%s\n", text);
			jsonw_free(&w);
		}
	}
	sqlite3_finalize(st);
	return 0;
}

int rp_export(sqlite3 *db, const long long *run_ids, size_t n, const struct rp_export_opts *o,
	      FILE *out, struct ns_err *err)
{
	if (o->format == RP_EXPORT_NDJSON)
		return write_ndjson(db, out, run_ids, n, err);
	struct xset s = {0};
	for (size_t i = 0; i < n; i++)
		if (read_cases(db, run_ids[i], &s, err) < 0) {
			xset_free(&s);
			return -1;
		}
	write_text(out, &s, o);
	xset_free(&s);
	if (write_runs(db, out, run_ids, n, o, err) < 0)
		return -1;
	if (o->format == RP_EXPORT_OPENMETRICS)
		fputs("# EOF\n", out);
	return 0;
}
