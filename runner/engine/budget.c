/* budget: see budget.h. Tokens accrue from the last refill at the rate, up to the burst. */
#include "budget.h"

#include <string.h>

int budget_init(struct budget *b, uint64_t rate_bps, uint64_t now_ns, struct ns_err *err)
{
	memset(b, 0, sizeof(*b));
	if (!rate_bps)
		return ns_err_code(err, NS_E_USAGE, "budget: a rate of 0");
	if (pthread_mutex_init(&b->mu, NULL) != 0)
		return ns_err_sys(err, "budget: mutex");
	b->bytes_per_ns = (double)rate_bps / 8e9;
	b->burst = (double)rate_bps / 8.0 * BUDGET_BURST_S;
	if (b->burst < BUDGET_MIN_BURST)
		b->burst = BUDGET_MIN_BURST;
	b->tokens = b->burst;
	b->last_ns = now_ns;
	atomic_init(&b->held, 0);
	return 0;
}

void budget_destroy(struct budget *b)
{
	pthread_mutex_destroy(&b->mu);
}

/* Under the mutex. */
static void refill(struct budget *b, uint64_t now_ns, uint64_t step)
{
	if (now_ns > b->last_ns) {
		b->tokens += (double)(now_ns - b->last_ns) * b->bytes_per_ns;
		b->last_ns = now_ns;
	}
	double most = b->burst > (double)step ? b->burst : (double)step;
	if (b->tokens > most)
		b->tokens = most;
}

uint64_t budget_take(struct budget *b, uint64_t now_ns, uint64_t want, uint64_t step)
{
	if (!step || step > want)
		step = want;
	if (!step)
		return 0;
	pthread_mutex_lock(&b->mu);
	refill(b, now_ns, step);
	uint64_t have = b->tokens > 0 ? (uint64_t)b->tokens : 0;
	uint64_t grant = have < want ? have : want;
	grant -= grant % step;
	b->tokens -= (double)grant;
	pthread_mutex_unlock(&b->mu);
	if (grant < want)
		atomic_fetch_add_explicit(&b->held, 1, memory_order_relaxed);
	return grant;
}

void budget_refund(struct budget *b, uint64_t bytes)
{
	if (!bytes)
		return;
	pthread_mutex_lock(&b->mu);
	b->tokens += (double)bytes;
	pthread_mutex_unlock(&b->mu);
}

uint64_t budget_wait_ns(struct budget *b, uint64_t now_ns, uint64_t step)
{
	pthread_mutex_lock(&b->mu);
	refill(b, now_ns, step);
	double short_by = (double)step - b->tokens;
	pthread_mutex_unlock(&b->mu);
	return short_by > 0 ? (uint64_t)(short_by / b->bytes_per_ns) + 1 : 0;
}

uint64_t budget_held(const struct budget *b)
{
	return atomic_load_explicit(&b->held, memory_order_relaxed);
}
