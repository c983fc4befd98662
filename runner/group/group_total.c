/* group_total: a group case's total (group.h): its completed tests added up into one probe
 * result, stored as the case's result and read by everything that reads one. */
#include "group.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_figures(struct probe_figures *a, const struct probe_figures *b, double w)
{
	/* each test's engine threads' CPU seconds, added, over all the bytes */
	uint64_t both = a->bytes + b->bytes;
	a->cpu_s_per_gb = both ? (a->cpu_s_per_gb * (double)a->bytes +
				  b->cpu_s_per_gb * (double)b->bytes) / (double)both : 0;
	a->bytes += b->bytes;
	a->packets += b->packets;
	a->bits_per_second += b->bits_per_second;
	a->packets_per_second += b->packets_per_second;
	/* every test of this host is one process, as is the agent: the busiest reading */
	a->cpu_percent = b->cpu_percent > a->cpu_percent ? b->cpu_percent : a->cpu_percent;
	a->retransmits += b->retransmits;
	a->rtt_ms += b->rtt_ms * w;                   /* the mean over tests */
	a->cwnd_bytes += b->cwnd_bytes;
	a->lost += b->lost;
	a->out_of_order += b->out_of_order;
	a->duplicates += b->duplicates;
	a->jitter_ms += b->jitter_ms * w;
	a->kernel_drops = b->kernel_drops > a->kernel_drops ? b->kernel_drops : a->kernel_drops;
	a->socket_drops += b->socket_drops;
}

/* Loss over the sum: what was lost of what was sent (UDP). */
static void loss_percent(struct probe_figures *rcv, const struct probe_figures *snd)
{
	uint64_t sent = snd->packets > rcv->packets + rcv->lost ? snd->packets
								: rcv->packets + rcv->lost;
	rcv->lost_percent = sent ? 100.0 * (double)rcv->lost / (double)sent : 0;
}

/* The limit over all tests: asked and offered added, sender-limited when any was, limited by
 * what limited most of them. */
static void add_limit(struct probe_limit *a, const struct probe_limit *b, const char *by[],
		      size_t *n_by)
{
	a->asked_bps += b->asked_bps;
	a->offered_bps += b->offered_bps;
	if (b->sender_limited && !a->sender_limited) {
		a->sender_limited = true;
		snprintf(a->cause, sizeof(a->cause), "%s", b->cause);
	}
#define MAXOF(f) a->f = b->f > a->f ? b->f : a->f
	MAXOF(sender_thread_cpu); MAXOF(receiver_thread_cpu); MAXOF(sender_steal_pct);
	MAXOF(receiver_steal_pct); MAXOF(sender_blocked_pct); MAXOF(pace_lost_pct);
	MAXOF(sender_runq_pct); MAXOF(receiver_runq_pct);
#undef MAXOF
	if (!a->sender_sched[0])
		snprintf(a->sender_sched, sizeof(a->sender_sched), "%s", b->sender_sched);
	if (!a->receiver_sched[0])
		snprintf(a->receiver_sched, sizeof(a->receiver_sched), "%s", b->receiver_sched);
	if (b->limited_by[0])
		by[(*n_by)++] = b->limited_by;
}

static void most_common(const char *by[], size_t n, char *out, size_t cap)
{
	size_t best = 0;
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		for (size_t j = 0; j < n; j++)
			k += !strcmp(by[i], by[j]);
		if (k > best) {
			best = k;
			snprintf(out, cap, "%s", by[i]);
		}
	}
}

/* Interval sums added index by index (as many as the shortest test has); each test's own
 * streams' intervals after them, stream ids moved past the earlier tests'. */
static int add_intervals(const struct group_test *t, size_t n, uint32_t d, struct probe_direction *o)
{
	size_t n_sum = SIZE_MAX, total = 0;
	for (size_t i = 0; i < n; i++) {
		if (t[i].rc != 0 || t[i].res.n_dirs <= d)
			continue;
		const struct probe_direction *pd = &t[i].res.dirs[d];
		size_t k = 0;
		for (uint32_t j = 0; j < pd->n_intervals; j++)
			k += pd->intervals[j].stream == -1;
		n_sum = k < n_sum ? k : n_sum;
		total += pd->n_intervals - k;
	}
	if (n_sum == SIZE_MAX)
		return 0;
	o->intervals = calloc(n_sum + total + 1, sizeof(*o->intervals));
	if (!o->intervals)
		return -1;
	uint32_t first_stream = 0;
	bool seeded = false;
	size_t w = n_sum;
	for (size_t i = 0; i < n; i++) {
		if (t[i].rc != 0 || t[i].res.n_dirs <= d)
			continue;
		const struct probe_direction *pd = &t[i].res.dirs[d];
		size_t k = 0;
		for (uint32_t j = 0; j < pd->n_intervals; j++) {
			const struct probe_interval *v = &pd->intervals[j];
			if (v->stream != -1) {
				o->intervals[w] = *v;
				o->intervals[w++].stream = (int32_t)(v->stream + first_stream);
				continue;
			}
			if (k >= n_sum)
				continue;
			struct probe_interval *s = &o->intervals[k++];
			if (!seeded) {
				*s = *v;
				continue;
			}
			s->bytes += v->bytes;
			s->bits_per_second += v->bits_per_second;
			s->packets += v->packets;
			s->retransmits += v->retransmits;
			s->cwnd_bytes += v->cwnd_bytes;
			s->lost += v->lost;
			s->rtt_ms = s->rtt_ms > v->rtt_ms ? s->rtt_ms : v->rtt_ms;
			s->jitter_ms = s->jitter_ms > v->jitter_ms ? s->jitter_ms : v->jitter_ms;
		}
		seeded = true;
		first_stream += pd->n_streams;
	}
	o->n_intervals = (uint32_t)w;
	return 0;
}

static int add_streams(const struct group_test *t, size_t n, uint32_t d, struct probe_direction *o)
{
	size_t total = 0;
	for (size_t i = 0; i < n; i++)
		if (t[i].rc == 0 && t[i].res.n_dirs > d)
			total += t[i].res.dirs[d].n_streams;
	o->streams = calloc(total + 1, sizeof(*o->streams));
	if (!o->streams)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (t[i].rc != 0 || t[i].res.n_dirs <= d)
			continue;
		const struct probe_direction *pd = &t[i].res.dirs[d];
		for (uint32_t j = 0; j < pd->n_streams; j++) {
			o->streams[o->n_streams] = pd->streams[j];
			o->streams[o->n_streams].id = o->n_streams;
			o->n_streams++;
		}
	}
	return 0;
}

int group_total(const struct group_test *t, size_t n, struct probe_result *total,
		struct ns_err *err)
{
	const struct group_test *first = NULL;
	size_t ok = 0;
	memset(total, 0, sizeof(*total));
	for (size_t i = 0; i < n; i++)
		if (t[i].rc == 0 && t[i].res.n_dirs > 0) {
			first = first ? first : &t[i];
			ok++;
		}
	if (!first)
		return ns_err_code(err, NS_E_FAIL, "no client of the group completed its test");
	const struct probe_result *f = &first->res;
	total->params = f->params;
	total->params.streams = f->params.streams * (uint32_t)ok;
	snprintf(total->engine_mode, sizeof(total->engine_mode), "%s", f->engine_mode);
	total->tos_applied = f->tos_applied;
	total->dscp_applied = f->dscp_applied;
	total->gso_active = f->gso_active;
	total->n_dirs = f->n_dirs;
	if (f->agent_hostinfo && !(total->agent_hostinfo = strdup(f->agent_hostinfo)))
		goto nomem;
	for (uint32_t d = 0; d < total->n_dirs; d++) {
		struct probe_direction *o = &total->dirs[d];
		const char *by[64];
		size_t n_by = 0;
		o->dir = f->dirs[d].dir;
		for (size_t i = 0; i < n; i++) {
			if (t[i].rc != 0 || t[i].res.n_dirs <= d)
				continue;
			const struct probe_direction *pd = &t[i].res.dirs[d];
			add_figures(&o->sender, &pd->sender, 1.0 / (double)ok);
			add_figures(&o->receiver, &pd->receiver, 1.0 / (double)ok);
			add_limit(&o->limit, &pd->limit, by, &n_by);
			if (n_by == 64)
				n_by--;
			if (t[i].res.duration_s > total->duration_s)
				total->duration_s = t[i].res.duration_s;
		}
		loss_percent(&o->receiver, &o->sender);
		most_common(by, n_by, o->limit.limited_by, sizeof(o->limit.limited_by));
		if (o->limit.asked_bps > 0 && o->limit.offered_bps < o->limit.asked_bps)
			o->limit.shortfall_pct = (o->limit.asked_bps - o->limit.offered_bps) /
						 o->limit.asked_bps * 100;
		if (add_streams(t, n, d, o) < 0 || add_intervals(t, n, d, o) < 0)
			goto nomem;
	}
	for (size_t i = 0; i < n; i++)
		if (t[i].res.warnings[0]) {
			size_t len = strlen(total->warnings);
			snprintf(total->warnings + len, sizeof(total->warnings) - len, "%s%s: %s",
				 len ? "; " : "", t[i].name, t[i].res.warnings);
		}
	total->status = ok == n ? 0 : -1;
	return 0;
nomem:
	probe_result_free(total);
	return ns_err_code(err, NS_E_NOMEM, "out of memory");
}
