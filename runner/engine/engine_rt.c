/* engine_rt: real time for the engine threads whose work falls due at set times (engine.h:
 * engine_set_realtime, the SCHED_FIFO policy and its guard), and a thread's own CPU clock. */
#include "engine.h"
#include "engine_int.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "lib/settings.h"

/* engine.h: real time for the threads whose work falls due at set times. */
static _Atomic int realtime_on = -1; /* -1: not decided, from the settings */

void engine_set_realtime(bool on)
{
	atomic_store(&realtime_on, on ? 1 : 0);
}

const char *engine_sched_name(unsigned sched)
{
	static const char *const names[] = {"normal", "not_permitted", "realtime",
					    "realtime_dropped"};
	return sched < sizeof(names) / sizeof(names[0]) ? names[sched] : "";
}

uint64_t engine_self_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void engine_rt_enter(struct e_thread *t)
{
	int on = atomic_load(&realtime_on);
	if (on < 0) {
		on = !settings_get()->realtime_off;
	}
	t->sched = ENGINE_SCHED_NORMAL;
	if (!on || !t->e->cfg.rate_bps || t->e->cfg.rr)
		return;
	struct sched_param sp = {.sched_priority = ENGINE_RT_PRIO};
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) != 0) {
		t->sched = ENGINE_SCHED_NOT_PERMITTED;
		return;
	}
	t->sched = ENGINE_SCHED_REALTIME;
	t->rt_win_ns = engine_now_ns();
	t->rt_win_cpu_ns = engine_self_cpu_ns();
}

/* A real-time thread that used ENGINE_RT_MAX_SHARE of its core over a window would starve the
 * host's other work on that core for nothing (it is CPU-bound either way): back to normal. */
void engine_rt_guard(struct e_thread *t, uint64_t now)
{
	if (t->sched != ENGINE_SCHED_REALTIME || now - t->rt_win_ns < ENGINE_RT_WINDOW_NS)
		return;
	uint64_t cpu = engine_self_cpu_ns();
	if ((double)(cpu - t->rt_win_cpu_ns) >= ENGINE_RT_MAX_SHARE * (double)(now - t->rt_win_ns)) {
		struct sched_param sp = {.sched_priority = 0};
		pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
		t->sched = ENGINE_SCHED_REALTIME_DROPPED;
		return;
	}
	t->rt_win_ns = now;
	t->rt_win_cpu_ns = cpu;
}

