/* export: Prometheus / OpenMetrics text and NDJSON of runs (export.h). The text formats group
 * each metric family's samples under its HELP and TYPE, as both require, so the cases are
 * read once into memory and written family by family. A case's value is its median over the
 * successful repeats (v_case_median), as the report's; its timestamp the end of its last
 * result (the run's start when it has none). */
#include "report/render/export.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/textesc.h"
#include "report/load/export_rows.h"

void rp_export_label(const char *v, char *buf, size_t cap)
{
	size_t o = 0;
	for (size_t take; *v; v += take) {
		/* a control character or a byte that is not UTF-8 as lib/textesc.h's escape, its
		 * backslash doubled: label values must be UTF-8 */
		char esc[8], piece[16];
		take = textesc_step(v, esc, TEXTESC_KEEP_SPACE);
		unsigned char ch = (unsigned char)*v;
		if (esc[0])
			snprintf(piece, sizeof(piece), "\\%s", esc);
		else if (ch == '\\' || ch == '"')
			snprintf(piece, sizeof(piece), "\\%c", ch);
		else if (ch == '\n')
			snprintf(piece, sizeof(piece), "\\n");
		else if (ch == '\r' || ch == '\t')
			snprintf(piece, sizeof(piece), " ");
		else
			snprintf(piece, sizeof(piece), "%.*s", (int)take, v);
		size_t len = strlen(piece);
		if (o + len >= cap)
			break; /* not half a character or escape */
		memcpy(buf + o, piece, len);
		o += len;
	}
	if (cap > 0)
		buf[o] = '\0';
}

static void label(FILE *out, const char *name, const char *v, bool first)
{
	char esc[1024];
	rp_export_label(v, esc, sizeof(esc));
	fprintf(out, "%s%s=\"%s\"", first ? "" : ",", name, esc);
}

/* The case labels of every per-case family: small and the same for all of them. */
static void case_labels(FILE *out, const struct rp_xcase *x)
{
	label(out, "run", x->text[RP_X_RUN], true);
	label(out, "label", x->text[RP_X_LABEL], false);
	label(out, "matrix", x->text[RP_X_MATRIX], false);
	label(out, "pair", x->text[RP_X_PAIR], false);
	label(out, "instance_type", x->text[RP_X_TYPE], false);
	label(out, "region", x->text[RP_X_REGION], false);
	label(out, "protocol", x->text[RP_X_PROTO], false);
	label(out, "direction", x->text[RP_X_DIR], false);
	label(out, "streams", x->text[RP_X_STREAMS], false);
	label(out, "size", x->text[RP_X_LENGTH], false);
	label(out, "emulated", x->num[RP_X_EMU] > 0 ? "true" : "false", false);
	label(out, "case", x->text[RP_X_KEY], false);
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
	 "Median receiver goodput of the case over its successful repeats.", NULL, RP_X_MEDIAN, 1 / 8.0},
	{"netsweep_udp_loss_ratio", "ratio", "Mean share of datagrams lost (UDP cases).", "udp",
	 RP_X_LOST, 0.01},
	{"netsweep_tcp_retransmits", NULL, "Mean TCP retransmissions per repeat (TCP cases).", "tcp",
	 RP_X_RETR, 1},
	{"netsweep_quic_lost_packets", NULL,
	 "Mean packets ngtcp2 declared lost per repeat (QUIC cases).", "quic", RP_X_RETR, 1},
	{"netsweep_responsiveness_rpm", NULL, "Median responsiveness under working load, round trips "
	 "per minute (responsiveness cases; schemas/responsiveness.md).", NULL, RP_X_RPM, 1},
	{"netsweep_responsiveness_idle_rpm", NULL, "Median responsiveness of the idle path, round "
	 "trips per minute (responsiveness cases).", NULL, RP_X_RPM_IDLE, 1},
	{"netsweep_sender_cpu_ratio", "ratio",
	 "Mean CPU of the sending engine threads, share of one CPU.", NULL, RP_X_SCPU, 0.01},
	{"netsweep_receiver_cpu_ratio", "ratio",
	 "Mean CPU of the receiving engine threads, share of one CPU.", NULL, RP_X_RCPU, 0.01},
	{"netsweep_group_clients", NULL,
	 "Tests a group case ran together (incast, fan-out, the clients axis).", NULL,
	 RP_X_CLIENTS, 1},
	{"netsweep_group_fairness_ratio", "ratio",
	 "Mean Jain's fairness index over a group case's clients (1 = equal shares).", NULL,
	 RP_X_JAIN, 1},
	{"netsweep_group_slowest_fair_share_ratio", "ratio",
	 "The slowest client's rate over its fair share, worst repeat (below 0.5: starved).",
	 NULL, RP_X_MINFAIR, 1},
};

/* Per client of a group case: its mean goodput, labelled as its case plus client. */
struct client_ctx {
	FILE *out;
	const struct rp_xset *s;
	const struct rp_export_opts *o;
	char run[32];
};

static int client_sample(void *vctx, const char *key, const char *name, double bps)
{
	struct client_ctx *cx = vctx;
	for (size_t i = 0; i < cx->s->n; i++) {
		const struct rp_xcase *x = &cx->s->c[i];
		if (strcmp(x->text[RP_X_KEY], key) || strcmp(x->text[RP_X_RUN], cx->run))
			continue;
		if (!isfinite(bps))
			return 0;
		fputs("netsweep_client_goodput_bytes_per_second{", cx->out);
		case_labels(cx->out, x);
		label(cx->out, "client", name, false);
		fprintf(cx->out, "} %.17g", bps / 8.0);
		stamp(cx->out, cx->o, x->num[RP_X_TS]);
		fputc('\n', cx->out);
		return 0;
	}
	return 0;
}

static void write_metric(FILE *out, const struct rp_xset *s, const struct xmetric *m,
			 const struct rp_export_opts *o)
{
	family(out, o, m->name, m->unit, m->help);
	for (size_t i = 0; i < s->n; i++) {
		const struct rp_xcase *x = &s->c[i];
		if ((m->proto && strcmp(m->proto, x->text[RP_X_PROTO])) || !isfinite(x->num[m->col]))
			continue;
		fprintf(out, "%s{", m->name);
		case_labels(out, x);
		fprintf(out, "} %.17g", x->num[m->col] * m->scale);
		stamp(out, o, x->num[RP_X_TS]);
		fputc('\n', out);
	}
}

#define GROUP_METRICS 3 /* the last of metrics[]: written only when a run has group cases */

static bool any_group(const struct rp_xset *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (isfinite(s->c[i].num[RP_X_CLIENTS]))
			return true;
	return false;
}

static int write_clients(sqlite3 *db, FILE *out, const struct rp_xset *s, const long long *ids,
			 size_t n, const struct rp_export_opts *o, struct ns_err *err)
{
	if (!any_group(s))
		return 0;
	family(out, o, "netsweep_client_goodput_bytes_per_second", "bytes_per_second",
	       "Mean receiver goodput of one client of a group case over its successful repeats.");
	struct client_ctx cx = {.out = out, .s = s, .o = o};
	for (size_t i = 0; i < n; i++) {
		snprintf(cx.run, sizeof(cx.run), "%lld", ids[i]);
		if (rp_xclients_each(db, ids[i], client_sample, &cx, err) < 0)
			return -1;
	}
	return 0;
}

static void write_text(FILE *out, const struct rp_xset *s, const struct rp_export_opts *o)
{
	size_t n_metrics = sizeof(metrics) / sizeof(metrics[0]) - (any_group(s) ? 0 : GROUP_METRICS);
	for (size_t k = 0; k < n_metrics; k++)
		write_metric(out, s, &metrics[k], o);
	family(out, o, "netsweep_goodput_bytes_per_second_per_usd_hour", NULL,
	       "Median goodput per hourly dollar of the pair (or the sender, as priced).");
	for (size_t i = 0; i < s->n; i++) {
		const struct rp_xcase *x = &s->c[i];
		if (!isfinite(x->num[RP_X_MEDIAN]) || !(x->num[RP_X_PRICE] > 0))
			continue;
		fputs("netsweep_goodput_bytes_per_second_per_usd_hour{", out);
		case_labels(out, x);
		fprintf(out, "} %.17g", x->num[RP_X_MEDIAN] / 8.0 / x->num[RP_X_PRICE]);
		stamp(out, o, x->num[RP_X_TS]);
		fputc('\n', out);
	}
	/* with transfer (v_cost_total, US dollars): the hour's transfer and total, and goodput per
	 * hourly dollar of the total */
	static const struct { const char *name, *help; int col; } xfer[] = {
		{"netsweep_transfer_usd_per_hour", "What moving the case's traffic costs an hour "
		 "(v_cost_total: its relation's transfer rule; 0 = free).", RP_X_XFER},
		{"netsweep_total_usd_per_hour", "Instances and transfer an hour (v_cost_total).",
		 RP_X_TOTAL},
	};
	for (size_t k = 0; k < sizeof(xfer) / sizeof(xfer[0]); k++) {
		family(out, o, xfer[k].name, NULL, xfer[k].help);
		for (size_t i = 0; i < s->n; i++) {
			const struct rp_xcase *x = &s->c[i];
			if (!isfinite(x->num[xfer[k].col]))
				continue;
			fprintf(out, "%s{", xfer[k].name);
			case_labels(out, x);
			fprintf(out, ",relation=\"%s\"} %.17g", x->text[RP_X_RELATION],
				x->num[xfer[k].col]);
			stamp(out, o, x->num[RP_X_TS]);
			fputc('\n', out);
		}
	}
	family(out, o, "netsweep_goodput_bytes_per_second_per_total_usd_hour", NULL,
	       "Median goodput per hourly dollar of instances and transfer.");
	for (size_t i = 0; i < s->n; i++) {
		const struct rp_xcase *x = &s->c[i];
		if (!isfinite(x->num[RP_X_MEDIAN]) || !(x->num[RP_X_TOTAL] > 0))
			continue;
		fputs("netsweep_goodput_bytes_per_second_per_total_usd_hour{", out);
		case_labels(out, x);
		fprintf(out, ",relation=\"%s\"} %.17g", x->text[RP_X_RELATION],
			x->num[RP_X_MEDIAN] / 8.0 / x->num[RP_X_TOTAL]);
		stamp(out, o, x->num[RP_X_TS]);
		fputc('\n', out);
	}
	family(out, o, "netsweep_cost_rank", NULL,
	       "Rank of the pair per unit of its currency in its run (1 = most), on its ranked "
	       "case; each currency ranks on its own.");
	for (size_t i = 0; i < s->n; i++) {
		const struct rp_xcase *x = &s->c[i];
		if (!isfinite(x->num[RP_X_RANK]))
			continue;
		fputs("netsweep_cost_rank{", out);
		case_labels(out, x);
		label(out, "currency", x->text[RP_X_RANK_CUR], false);
		fprintf(out, "} %.0f", x->num[RP_X_RANK]);
		stamp(out, o, x->num[RP_X_TS]);
		fputc('\n', out);
	}
	family(out, o, "netsweep_case_results", NULL, "Results of the case by status.");
	for (size_t i = 0; i < s->n; i++)
		for (int ok = 1; ok >= 0; ok--) {
			const struct rp_xcase *x = &s->c[i];
			fputs("netsweep_case_results{", out);
			case_labels(out, x);
			label(out, "status", ok ? "ok" : "failed", false);
			fprintf(out, "} %.0f", x->num[ok ? RP_X_OK : RP_X_FAILED]);
			stamp(out, o, x->num[RP_X_TS]);
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
			struct rp_xrun run;
			int found = rp_xrun_read(db, ids[i], &run, err);
			if (found < 0)
				return -1;
			if (found && !isnan(run.usd[k])) {
				char id[32];
				snprintf(id, sizeof(id), "%lld", ids[i]);
				fprintf(out, "%s{", names[k]);
				label(out, "run", id, true);
				label(out, "label", run.label, false);
				label(out, "matrix", run.matrix, false);
				fprintf(out, "} %.17g", run.usd[k]);
				stamp(out, o, run.ts);
				fputc('\n', out);
			}
			if (found)
				rp_xrun_free(&run);
		}
	}
	return 0;
}

static int json_line(void *ctx, const char *line, struct ns_err *err)
{
	fprintf((FILE *)ctx, "%s\n", line);
	return 0;
}

/* One v_results row a line, every column under its own name and type. */
static int write_ndjson(sqlite3 *db, FILE *out, const long long *ids, size_t n, const char *type,
			struct ns_err *err)
{
	for (size_t i = 0; i < n; i++)
		if (rp_xjson_rows(db, ids[i], type, json_line, out, err) < 0)
			return -1;
	return 0;
}

int rp_export(sqlite3 *db, const long long *run_ids, size_t n, const struct rp_export_opts *o,
	      FILE *out, struct ns_err *err)
{
	if (o->format == RP_EXPORT_NDJSON)
		return write_ndjson(db, out, run_ids, n, o->type, err);
	if (o->format == RP_EXPORT_IPERF3) {
		for (size_t i = 0; i < n; i++)
			if (rp_xiperf3_rows(db, run_ids[i], o->type, json_line, out, err) < 0)
				return -1;
		return 0;
	}
	struct rp_xset s = {0};
	for (size_t i = 0; i < n; i++)
		if (rp_xset_read(db, run_ids[i], o->type, &s, err) < 0) {
			rp_xset_free(&s);
			return -1;
		}
	write_text(out, &s, o);
	int rc = write_clients(db, out, &s, run_ids, n, o, err);
	rp_xset_free(&s);
	if (rc < 0 || write_runs(db, out, run_ids, n, o, err) < 0)
		return -1;
	if (o->format == RP_EXPORT_OPENMETRICS)
		fputs("# EOF\n", out);
	return 0;
}
