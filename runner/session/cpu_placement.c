/* placement: where each end's engine threads run (see placement.h). */
#include "cpu_placement.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/units.h"
#include "runner/proto/proto.h"
#include "session.h"

/* The CPUs this process may run on, ascending; 0 when unknown. */
static size_t allowed_cpus(int *cpus, size_t cap)
{
	cpu_set_t set;
	size_t n = 0;
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < cap; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

void placement_resolve(struct probe_params *p, int ctl, char *how, size_t how_len)
{
	if (p->affinity[0]) {
		bool none = !strcmp(p->affinity, "none") &&
			    (!p->agent_affinity[0] || !strcmp(p->agent_affinity, "none"));
		snprintf(how, how_len, "%s", none ? "none" : "given");
		return;
	}
	if (p->agent_affinity[0]) { /* the agent's given, the client's by default: unpinned */
		snprintf(p->affinity, sizeof(p->affinity), "none");
		snprintf(how, how_len, "given");
		return;
	}
	int cpus[UNITS_MAX_CPUS];
	size_t n = allowed_cpus(cpus, UNITS_MAX_CPUS);
	bool local = ctl >= 0 && engine_sock_is_local(ctl);
	bool one_rr = p->rr[0] && p->streams == 1; /* several streams: one CPU would serialise them */
	if (n >= 1 && local && one_rr) { /* one CPU for both: no cross-CPU wake-up a turn */
		units_format_cpulist(cpus + n - 1, 1, p->affinity, sizeof(p->affinity));
		snprintf(p->agent_affinity, sizeof(p->agent_affinity), "%s", p->affinity);
		snprintf(how, how_len, "auto");
	} else if (n >= 1 && one_rr) {
		units_format_cpulist(cpus + n - 1, 1, p->affinity, sizeof(p->affinity));
		snprintf(p->agent_affinity, sizeof(p->agent_affinity), "auto");
		snprintf(how, how_len, "auto");
	} else { /* params.affinity stays "": unpinned, as it always meant */
		snprintf(how, how_len, "none");
	}
}

int session_cpus(const struct probe_params *p, bool agent_end, int *cpus, uint32_t cap,
		 uint32_t *n, struct ns_err *err)
{
	*n = 0;
	const char *v = agent_end && p->agent_affinity[0] ? p->agent_affinity : p->affinity;
	if (!v[0] || !strcmp(v, "none"))
		return 0;
	int tmp[UNITS_MAX_CPUS];
	size_t cnt;
	if (!strcmp(v, "auto")) { /* the agent's own pick: its last CPU */
		cnt = allowed_cpus(tmp, UNITS_MAX_CPUS);
		if (cnt && cap) {
			cpus[0] = tmp[cnt - 1];
			*n = 1;
		}
		return 0;
	}
	if (units_parse_cpulist(v, tmp, UNITS_MAX_CPUS, &cnt, err) < 0)
		return -1;
	long have = sysconf(_SC_NPROCESSORS_CONF);
	for (size_t i = 0; i < cnt; i++)
		if (have > 0 && tmp[i] >= have)
			return ns_err_set(err, "%saffinity: CPU %d does not exist here (CPUs 0-%ld)",
					  agent_end ? "agent " : "", tmp[i], have - 1);
	/* only CPUs this process may use (a default split made on the client's CPUs, an agent
	 * started under taskset): the result records the CPUs really used */
	int ok[UNITS_MAX_CPUS];
	size_t n_ok = allowed_cpus(ok, UNITS_MAX_CPUS);
	for (size_t i = 0; i < cnt && *n < cap; i++)
		for (size_t j = 0; j < n_ok; j++)
			if (ok[j] == tmp[i]) {
				cpus[(*n)++] = tmp[i];
				break;
			}
	if (!n_ok) { /* unknown: as given */
		*n = (uint32_t)(cnt > cap ? cap : cnt);
		memcpy(cpus, tmp, *n * sizeof(int));
	}
	return 0;
}

/* CPU seconds per 10^9 bytes of one end, from its share of a CPU over dur. */
static double cpu_s_per_gb(double cpu_percent, double dur, uint64_t bytes)
{
	if (!bytes || !(dur > 0) || !(cpu_percent >= 0))
		return 0;
	return cpu_percent / 100.0 * dur / ((double)bytes / 1e9);
}

/* A warning beside the others, as client_warn writes them ("; "-separated). */
__attribute__((format(printf, 2, 3))) static void warn(struct probe_result *res,
						       const char *fmt, ...)
{
	char w[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w, sizeof(w), fmt, ap);
	va_end(ap);
	size_t n = strlen(res->warnings);
	snprintf(res->warnings + n, sizeof(res->warnings) - n, "%s%s", n ? "; " : "", w);
}

static void append(char *dst, size_t cap, uint32_t d, const char *v)
{
	size_t l = strlen(dst);
	if (d == 0)
		snprintf(dst, cap, "%s", v);
	else if (l + 1 < cap)
		snprintf(dst + l, cap - l, "/%s", v);
}

void placement_note(struct probe_result *res, uint32_t d, const struct session_end *me,
		    const struct proto_dir_summary *as, double dur)
{
	struct probe_direction *pd = &res->dirs[d];
	pd->sender.cpu_s_per_gb = cpu_s_per_gb(pd->sender.cpu_percent, dur, pd->sender.bytes);
	pd->receiver.cpu_s_per_gb = cpu_s_per_gb(pd->receiver.cpu_percent, dur,
						 pd->receiver.bytes);
	char mine[sizeof(res->client_cpus)] = "";
	if (me->eng)
		engine_thread_cpus(me->eng, mine, sizeof(mine));
	append(res->client_cpus, sizeof(res->client_cpus), d, mine);
	char theirs[sizeof(as->cpus)] = "";
	if (as) {
		snprintf(theirs, sizeof(theirs), "%s", as->cpus);
		proto_printable(theirs);
	}
	append(res->agent_cpus, sizeof(res->agent_cpus), d, theirs);
	/* the receiver's path: this end's engine, or the agent's word for its end */
	uint64_t mapped = 0;
	int why = 0;
	const char *path = "";
	if (me->role == ENGINE_RECV && me->eng) {
		path = engine_rx_path(me->eng, &mapped, &why);
	} else if (as) {
		path = as->rx_path;
		mapped = as->rx_mapped;
	}
	if (!path[0] || (res->rx_path[0] && strcmp(path, "copy")))
		return; /* bidir: the first path that is not a plain copy wins */
	snprintf(res->rx_path, sizeof(res->rx_path), "%s", path);
	proto_printable(res->rx_path);
	if (!strcmp(res->rx_path, "mmap_fallback"))
		warn(res, "--rx-zerocopy: TCP receive zero-copy refused (%s), the bytes were "
			  "copied (mapping needs payloads in whole pages: a NIC's header split)",
		     why ? strerror(why) : "on the agent's host");
	else if (!strcmp(res->rx_path, "mmap") && pd->receiver.bytes)
		warn(res, "--rx-zerocopy mapped %.0f %% of the bytes received; the rest "
				 "were copied (segments not page-aligned on this path)",
				 100.0 * (double)mapped / (double)pd->receiver.bytes);
}
