/* limit: see limit.h. */
#include "limit.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static void set(char *dst, size_t n, const char *v)
{
	snprintf(dst, n, "%s", v);
}

/* Why a sender offered less than asked: the evidence that stands out, strongest first. */
static const char *shortfall_cause(const struct probe_limit *l)
{
	if (l->sender_blocked_pct >= LIMIT_BLOCKED_PCT)
		return "sndbuf_full";
	/* a real-time sender that used its whole core went back to normal (engine.h): it was
	 * CPU-bound before the host's other work starved it */
	if (l->sender_thread_cpu >= LIMIT_CPU_BUSY_PCT ||
	    !strcmp(l->sender_sched, "realtime_dropped"))
		return "sender_cpu";
	if (l->sender_steal_pct >= LIMIT_STEAL_PCT)
		return "steal";
	if (l->pace_lost_pct > 0 || l->sender_runq_pct >= LIMIT_RUNQ_PCT)
		return "pacer_late"; /* the thread was off the CPU when its bytes were due */
	return "unknown";
}

/* A CPU-bound end on a host whose CPU the hypervisor took: the steal is the story. */
static const char *cpu_or_steal(const char *cpu, double steal_pct)
{
	return steal_pct >= LIMIT_STEAL_PCT ? "steal" : cpu;
}

static const char *judge(const struct probe_limit *l, const struct probe_direction *d,
			 enum ns_proto proto)
{
	/* The figure is the receiver's: what it got short of what was offered was set after the
	 * sender, also when the sender fell short of its rate too (its own flag, sender_limited,
	 * says that): 200 Mbit/s asked into a 100 mbit tbf is the network's figure however short
	 * the sender was, and a receiver whose own rings dropped 5 % is its CPU's. */
	double offered = d->sender.bits_per_second, got = d->receiver.bits_per_second;
	if (offered > 0 && got < offered * (1 - LIMIT_SHORTFALL_PCT / 100)) {
		/* the receiver's own buffers dropped most of it, or its thread was saturated */
		bool own = proto == NS_PROTO_UDP && d->receiver.lost &&
			   d->receiver.socket_drops * 2 >= d->receiver.lost;
		if (own || l->receiver_thread_cpu >= LIMIT_CPU_BUSY_PCT ||
		    l->receiver_runq_pct >= LIMIT_RUNQ_PCT)
			return cpu_or_steal("receiver_cpu", l->receiver_steal_pct);
		return "network";
	}
	if (l->sender_limited) {
		if (!strcmp(l->cause, "sndbuf_full"))
			return proto != NS_PROTO_UDP ? "window" : "network";
		if (!strcmp(l->cause, "steal"))
			return "steal";
		/* sender_cpu, pacer_late (the host's CPU was not there when due), unknown */
		return cpu_or_steal("sender_cpu", l->sender_steal_pct);
	}
	if (l->asked_bps > 0)
		return "pacing";
	if (l->sender_thread_cpu >= LIMIT_CPU_BUSY_PCT)
		return cpu_or_steal("sender_cpu", l->sender_steal_pct);
	if (l->receiver_thread_cpu >= LIMIT_CPU_BUSY_PCT)
		return cpu_or_steal("receiver_cpu", l->receiver_steal_pct);
	/* Starved: the host's other work held the tool's threads off the CPU. Before the full
	 * socket buffers: a sender whose receiver waits for a CPU sits on a full buffer too
	 * (seen through a 200 mbit tbf at load 14: 180.7 of 191.3 Mbit/s, blocked 99 %, the
	 * receiver's thread waiting 60-77 % of its time), and the window is then the
	 * receiver's CPU, not the path's. */
	if (l->sender_runq_pct >= LIMIT_RUNQ_PCT)
		return cpu_or_steal("sender_cpu", l->sender_steal_pct);
	if (l->receiver_runq_pct >= LIMIT_RUNQ_PCT)
		return cpu_or_steal("receiver_cpu", l->receiver_steal_pct);
	if (l->sender_blocked_pct >= LIMIT_BLOCKED_PCT)
		return proto != NS_PROTO_UDP ? "window" : "network";
	return "";
}

void limit_judge(struct probe_limit *l, const struct probe_direction *d, enum ns_proto proto)
{
	l->offered_bps = d->sender.bits_per_second;
	l->shortfall_pct = 0;
	l->sender_limited = false;
	l->cause[0] = '\0';
	if (l->asked_bps > 0 && l->offered_bps < l->asked_bps)
		l->shortfall_pct = (l->asked_bps - l->offered_bps) / l->asked_bps * 100.0;
	/* a sender that sent nothing failed; that is the test's error, not a shortfall */
	if (l->shortfall_pct > LIMIT_SHORTFALL_PCT && d->sender.bytes > 0) {
		l->sender_limited = true;
		set(l->cause, sizeof(l->cause), shortfall_cause(l));
	}
	set(l->limited_by, sizeof(l->limited_by), judge(l, d, proto));
}

static const char *cause_words(const struct probe_limit *l)
{
	if (!strcmp(l->cause, "sndbuf_full"))
		return "its socket buffers were full";
	if (!strcmp(l->cause, "sender_cpu") && !strcmp(l->sender_sched, "realtime_dropped"))
		return "its thread needed more than a whole core for this rate (it left real-time "
		       "scheduling so as not to starve the host)";
	if (!strcmp(l->cause, "sender_cpu"))
		return "its busiest thread used a whole core";
	if (!strcmp(l->cause, "pacer_late") && !strcmp(l->sender_sched, "not_permitted"))
		return "its pacer woke too late (the host's CPU was busy, and real-time "
		       "scheduling, which keeps a paced sender on time, was not permitted: run it "
		       "as root or with CAP_SYS_NICE, or else in a session of its own, setsid -w "
		       "netsweep ..., which gives it the kernel's autogroup share of the CPU)";
	if (!strcmp(l->cause, "pacer_late") && !strcmp(l->sender_sched, "normal"))
		return "its pacer woke too late (the host's CPU was busy, and real-time "
		       "scheduling was off)";
	if (!strcmp(l->cause, "steal"))
		return "the hypervisor stole its host's CPU";
	if (!strcmp(l->cause, "pacer_late"))
		return "its pacer woke too late (the host's CPU was busy)";
	if (!strcmp(l->cause, "agent_max_rate"))
		return "the agent's --max-rate held it";
	return "no cause the tool can see";
}

void limit_warning(const struct probe_limit *l, const char *dir, char *buf, size_t n)
{
	buf[0] = '\0';
	if (!l->sender_limited)
		return;
	snprintf(buf, n, "%s: the sender offered %.1f of %.1f Mbit/s asked (%.1f %% short): %s "
		 "(busiest sender thread %.0f %% CPU, waited for a CPU %.0f %% of its time, "
		 "%.1f %% of the time on full buffers, %.1f %% dropped by the pacer, %.1f %% "
		 "CPU steal). The figure is the sender's, not the path's", dir,
		 l->offered_bps / 1e6, l->asked_bps / 1e6, l->shortfall_pct, cause_words(l),
		 l->sender_thread_cpu, l->sender_runq_pct, l->sender_blocked_pct,
		 l->pace_lost_pct, l->sender_steal_pct);
}

const char *limit_words(const char *by)
{
	static const struct { const char *key, *words; } w[] = {
		{"network", "the network"}, {"sender_cpu", "the sender's CPU"},
		{"receiver_cpu", "the receiver's CPU"}, {"steal", "CPU stolen by the hypervisor"},
		{"pacing", "the pacing rate asked"}, {"window", "the TCP window"},
		{"max_rate", "the agent's --max-rate"},
	};
	for (size_t i = 0; by && i < sizeof(w) / sizeof(w[0]); i++)
		if (!strcmp(by, w[i].key))
			return w[i].words;
	return "";
}
