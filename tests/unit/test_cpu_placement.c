/* test_cpu_placement: runner/session/cpu_placement.c (where each end's engine threads run, the
 * default placement) and the engine's side of it (engine_thread_cpus: the placement recorded
 * is the one the kernel applied, read back per thread with sched_getaffinity), and the TCP
 * receiver's paths (--skip-rx-copy, --rx-zerocopy): every byte counted, the path labelled. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <sched.h>
#include <stdio.h>

#include "../lib/engine_pairs.h"
#include "runner/session/cpu_placement.h"

static size_t allowed(int *cpus, size_t cap)
{
	cpu_set_t set;
	size_t n = 0;
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE && n < cap; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

/* The single CPU of every thread of this process but the main one, counted per CPU; threads
 * not pinned to one CPU are not counted. Returns how many were. */
static int pinned_threads(int *per_cpu, int ncpu)
{
	DIR *d = opendir("/proc/self/task");
	assert_non_null(d);
	struct dirent *de;
	int n = 0;
	while ((de = readdir(d))) {
		int tid = atoi(de->d_name);
		if (tid <= 0 || tid == getpid())
			continue;
		cpu_set_t set;
		if (sched_getaffinity(tid, sizeof(set), &set) < 0 || CPU_COUNT(&set) != 1)
			continue;
		for (int c = 0; c < ncpu; c++)
			if (CPU_ISSET(c, &set)) {
				per_cpu[c]++;
				n++;
			}
	}
	closedir(d);
	return n;
}

static void recorded_placement_is_applied(void **state)
{
	(void)state;
	int cpus[64];
	size_t n = allowed(cpus, 64);
	int pin[2] = {cpus[n - 1], cpus[0]}; /* two threads, on the last and the first CPU */
	int snd[2], rcv[2];
	tcp_pairs(2, snd, rcv);
	struct engine_cfg cfg = {.proto = NS_PROTO_TCP, .role = ENGINE_RECV, .threads = 2,
				 .cpus = pin, .n_cpus = 2};
	struct engine *e = make(&cfg, rcv, 2); /* made and started */
	char rec[64];
	engine_thread_cpus(e, rec, sizeof(rec));
	char want[64];
	snprintf(want, sizeof(want), "%d,%d", pin[0], pin[1]);
	assert_string_equal(rec, want);
	int per_cpu[CPU_SETSIZE] = {0};
	assert_int_equal(pinned_threads(per_cpu, CPU_SETSIZE), 2);
	assert_int_equal(per_cpu[pin[0]] + (pin[0] == pin[1] ? 0 : per_cpu[pin[1]]), 2);
	if (pin[0] != pin[1]) {
		assert_int_equal(per_cpu[pin[0]], 1);
		assert_int_equal(per_cpu[pin[1]], 1);
	}
	for (int i = 0; i < 2; i++)
		close(snd[i]); /* EOF: the receivers end */
	engine_join(e);
	engine_destroy(e);
	/* unpinned: recorded as "" */
	tcp_pairs(1, snd, rcv);
	struct engine_cfg free_cfg = {.proto = NS_PROTO_TCP, .role = ENGINE_RECV, .threads = 1};
	e = make(&free_cfg, rcv, 1);
	engine_thread_cpus(e, rec, sizeof(rec));
	assert_string_equal(rec, "");
	close(snd[0]);
	engine_destroy(e);
}

/* 3 MB through each receive path: all counted, the path named. */
static void receive_paths_count_every_byte(void **state)
{
	(void)state;
	const enum engine_rx paths[] = {ENGINE_RX_COPY, ENGINE_RX_SKIP, ENGINE_RX_MMAP};
	static char block[65536];
	for (size_t k = 0; k < 3; k++) {
		int snd, rcv;
		tcp_pairs(1, &snd, &rcv);
		struct engine_cfg cfg = {.proto = NS_PROTO_TCP, .role = ENGINE_RECV, .threads = 1,
					 .rx = paths[k]};
		struct engine *e = make(&cfg, &rcv, 1);
		uint64_t sent = 0;
		for (int i = 0; i < 48; i++) {
			ssize_t w = write(snd, block, sizeof(block));
			assert_true(w > 0);
			sent += (uint64_t)w;
		}
		close(snd);
		engine_join(e);
		struct engine_stream_snap s;
		engine_snapshot(e, &s);
		assert_int_equal(s.bytes, sent);
		uint64_t mapped;
		int why;
		const char *path = engine_rx_path(e, &mapped, &why);
		if (k == 0)
			assert_string_equal(path, "copy");
		else if (k == 1)
			assert_string_equal(path, "skip");
		else /* mapped where the kernel could, else the fallback with its reason */
			assert_true((!strcmp(path, "mmap") && mapped <= sent) ||
				    (!strcmp(path, "mmap_fallback") && why != 0));
		engine_destroy(e);
	}
}

static void default_placement(void **state)
{
	(void)state;
	int cpus[64];
	size_t n = allowed(cpus, 64);
	struct probe_params p;
	probe_params_init(&p);
	char how[8];
	/* not loopback (no control socket here), a throughput test: unpinned, said so */
	placement_resolve(&p, -1, how, sizeof(how));
	assert_string_equal(how, "none");
	assert_string_equal(p.affinity, ""); /* as it always meant: unpinned */
	int got[8];
	uint32_t k;
	assert_int_equal(session_cpus(&p, false, got, 8, &k, NULL), 0);
	assert_int_equal(k, 0);
	/* request/response: each end on one CPU, the agent's its own last */
	probe_params_init(&p);
	snprintf(p.rr, sizeof(p.rr), "rr");
	placement_resolve(&p, -1, how, sizeof(how));
	assert_string_equal(how, "auto");
	assert_string_equal(p.agent_affinity, "auto");
	assert_int_equal(session_cpus(&p, false, got, 8, &k, NULL), 0);
	assert_int_equal(k, 1);
	assert_int_equal(got[0], cpus[n - 1]);
	assert_int_equal(session_cpus(&p, true, got, 8, &k, NULL), 0);
	assert_int_equal(k, 1);
	assert_int_equal(got[0], cpus[n - 1]);
	/* given: -A for both ends unless the agent has its own; none stays none */
	probe_params_init(&p);
	snprintf(p.affinity, sizeof(p.affinity), "%d", cpus[0]);
	snprintf(p.agent_affinity, sizeof(p.agent_affinity), "none");
	placement_resolve(&p, -1, how, sizeof(how));
	assert_string_equal(how, "given");
	assert_int_equal(session_cpus(&p, false, got, 8, &k, NULL), 0);
	assert_int_equal(k, 1);
	assert_int_equal(session_cpus(&p, true, got, 8, &k, NULL), 0);
	assert_int_equal(k, 0);
	/* the wrong words are refused by the one validation */
	snprintf(p.agent_affinity, sizeof(p.agent_affinity), "sometimes");
	struct ns_err err = {0};
	assert_int_equal(probe_params_check(&p, &err), -1);
	assert_non_null(strstr(err.msg, "agent affinity"));
	snprintf(p.agent_affinity, sizeof(p.agent_affinity), "auto");
	snprintf(p.affinity, sizeof(p.affinity), "auto"); /* the agent's word only */
	assert_int_equal(probe_params_check(&p, &err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(recorded_placement_is_applied),
		cmocka_unit_test(receive_paths_count_every_byte),
		cmocka_unit_test(default_placement),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
