/* engine_base: what the engine core (engine.c) and the per-protocol ops (engine_tcp.c,
 * engine_udp.c) share — the clock, per-socket pacing, thread buffers. Calls neither. */
#include "runner/engine/engine_int.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>

uint64_t engine_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int engine_thread_spawn(pthread_t *tid, int cpu, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	if (cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	int rc = pthread_create(tid, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return rc;
}

uint64_t engine_thread_cpu_ns(pthread_t tid)
{
	struct timespec ts;
	clockid_t cid;
	if (pthread_getcpuclockid(tid, &cid) != 0 || clock_gettime(cid, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t engine_real_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* SO_MAX_PACING_RATE takes bytes/s; TCP paces itself by it even without the fq qdisc. */
int engine_sock_pacing(const struct engine *e, int fd, struct ns_err *err)
{
	if (!e->cfg.fq_rate_bps || e->cfg.role != ENGINE_SEND)
		return 0;
	uint64_t rate = e->cfg.fq_rate_bps / 8;
	if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &rate, sizeof(rate)) == 0)
		return 0;
	/* kernels before 4.19 only take 32 bits */
	uint32_t r32 = rate > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)rate;
	if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &r32, sizeof(r32)) == 0)
		return 0;
	return ns_err_sys(err, "engine: SO_MAX_PACING_RATE %llu bytes/s",
			  (unsigned long long)rate);
}

/* Thread buffers come straight from mmap: a multi-MiB malloc'd block, once freed, can stay
 * in the heap (glibc raises its mmap threshold after such a free), and the agent must go back
 * to a small footprint between tests. */
void *engine_buf_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void engine_buf_free(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

size_t engine_thread_share(const struct engine *e, size_t budget, size_t lo, size_t hi)
{
	size_t share = budget / e->nthreads;
	return share < lo ? lo : share > hi ? hi : share;
}

void engine_zc_off(struct engine *e, struct e_stream *s, int why)
{
	int none = 0;
	s->zc = false;
	atomic_store(&e->zc_active, false);
	atomic_compare_exchange_strong(&e->zc_errno, &none, why ? why : EOPNOTSUPP);
}

int engine_zc_nobufs(struct engine *e, struct e_stream *s, struct zc_ring *ring)
{
	uint64_t k = zc_reap(s->fd, &s->zc_copied, ring);
	s->zc_done += k;
	if (k)
		return E_PROGRESS;
	if (s->zc_sends > s->zc_done)
		return E_BACKOFF;
	engine_zc_off(e, s, ENOBUFS);
	return E_PROGRESS;
}

void engine_zc_drain(struct e_stream *s)
{
	if (s->zc_sends > s->zc_done)
		s->zc_done += zc_drain(s->fd, s->zc_sends - s->zc_done, E_ZC_DRAIN_MS, &s->zc_copied);
}

void engine_thread_cpus(const struct engine *e, char *buf, size_t len)
{
	size_t off = 0;
	if (len)
		buf[0] = '\0';
	for (uint32_t i = 0; e && i < e->nthreads && off < len; i++) {
		if (e->threads[i].cpu < 0) { /* all pinned or none: one unpinned means none */
			buf[0] = '\0';
			return;
		}
		int w = snprintf(buf + off, len - off, "%s%d", i ? "," : "", e->threads[i].cpu);
		if (w < 0 || (size_t)w >= len - off) {
			buf[off] = '\0'; /* cut at a whole CPU number */
			return;
		}
		off += (size_t)w;
	}
}
