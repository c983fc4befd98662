/* budget: see budget.h. Tokens accrue from a share's last refill at its rate, up to its burst;
 * a join or a leave refills every share at its old rate, then sets the new ones. */
#include "budget.h"

#include <string.h>

static double burst_of(double bytes_per_ns)
{
	double burst = bytes_per_ns * 1e9 * BUDGET_BURST_S;
	return burst < BUDGET_MIN_BURST ? BUDGET_MIN_BURST : burst;
}

int budget_init(struct budget *b, uint64_t rate_bps, uint64_t now_ns, struct ns_err *err)
{
	memset(b, 0, sizeof(*b));
	if (!rate_bps)
		return ns_err_code(err, NS_E_USAGE, "budget: a rate of 0");
	if (pthread_mutex_init(&b->mu, NULL) != 0)
		return ns_err_sys(err, "budget: mutex");
	b->rate_bps = rate_bps;
	b->common.bytes_per_ns = (double)rate_bps / 8e9;
	b->common.burst = burst_of(b->common.bytes_per_ns);
	b->common.tokens = b->common.burst;
	b->common.last_ns = now_ns;
	atomic_init(&b->common.held, 0);
	atomic_init(&b->held, 0);
	return 0;
}

void budget_destroy(struct budget *b)
{
	pthread_mutex_destroy(&b->mu);
}

/* Under the mutex. */
static void refill(struct budget_share *s, uint64_t now_ns, uint64_t step)
{
	if (now_ns > s->last_ns) {
		s->tokens += (double)(now_ns - s->last_ns) * s->bytes_per_ns;
		s->last_ns = now_ns;
	}
	double most = s->burst > (double)step ? s->burst : (double)step;
	if (s->tokens > most)
		s->tokens = most;
}

/* Under the mutex: every share refilled to now at its old rate, then given its new one. */
static void reshare(struct budget *b, uint64_t now_ns)
{
	double denom = (double)(b->weight_sum > b->rate_bps ? b->weight_sum : b->rate_bps);
	for (struct budget_share *s = b->shares; s; s = s->next) {
		refill(s, now_ns, 0);
		s->bytes_per_ns = (double)b->rate_bps * ((double)s->weight_bps / denom) / 8e9;
		s->burst = burst_of(s->bytes_per_ns);
	}
}

void budget_join(struct budget *b, struct budget_share *s, uint64_t asked_bps, uint64_t now_ns)
{
	memset(s, 0, sizeof(*s));
	atomic_init(&s->held, 0);
	s->weight_bps = !asked_bps || asked_bps > b->rate_bps ? b->rate_bps : asked_bps;
	s->last_ns = now_ns; /* empty: the first bytes accrue at the share's rate */
	pthread_mutex_lock(&b->mu);
	s->next = b->shares;
	b->shares = s;
	b->weight_sum += s->weight_bps;
	s->joined = true;
	reshare(b, now_ns);
	pthread_mutex_unlock(&b->mu);
}

void budget_leave(struct budget *b, struct budget_share *s, uint64_t now_ns)
{
	pthread_mutex_lock(&b->mu);
	if (s->joined) {
		for (struct budget_share **pp = &b->shares; *pp; pp = &(*pp)->next)
			if (*pp == s) {
				*pp = s->next;
				break;
			}
		b->weight_sum -= s->weight_bps;
		s->joined = false;
		s->bytes_per_ns = 0;
		reshare(b, now_ns);
	}
	pthread_mutex_unlock(&b->mu);
}

uint64_t budget_take(struct budget *b, struct budget_share *s, uint64_t now_ns, uint64_t want,
		     uint64_t step)
{
	if (!step || step > want)
		step = want;
	if (!step)
		return 0;
	if (!s)
		s = &b->common;
	pthread_mutex_lock(&b->mu);
	refill(s, now_ns, step);
	uint64_t have = s->tokens > 0 ? (uint64_t)s->tokens : 0;
	uint64_t grant = have < want ? have : want;
	grant -= grant % step;
	s->tokens -= (double)grant;
	pthread_mutex_unlock(&b->mu);
	if (grant < want) {
		atomic_fetch_add_explicit(&b->held, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&s->held, 1, memory_order_relaxed);
	}
	return grant;
}

void budget_refund(struct budget *b, struct budget_share *s, uint64_t bytes)
{
	if (!bytes)
		return;
	if (!s)
		s = &b->common;
	pthread_mutex_lock(&b->mu);
	s->tokens += (double)bytes;
	pthread_mutex_unlock(&b->mu);
}

uint64_t budget_wait_ns(struct budget *b, struct budget_share *s, uint64_t now_ns, uint64_t step)
{
	if (!s)
		s = &b->common;
	pthread_mutex_lock(&b->mu);
	refill(s, now_ns, step);
	double short_by = (double)step - s->tokens, per_ns = s->bytes_per_ns;
	pthread_mutex_unlock(&b->mu);
	if (short_by <= 0)
		return 0;
	return per_ns > 0 ? (uint64_t)(short_by / per_ns) + 1 : 1000000; /* left: 1 ms */
}

uint64_t budget_held(const struct budget *b)
{
	return atomic_load_explicit(&b->held, memory_order_relaxed);
}

uint64_t budget_share_held(const struct budget_share *s)
{
	return atomic_load_explicit(&s->held, memory_order_relaxed);
}

double budget_share_bps(struct budget *b, const struct budget_share *s)
{
	pthread_mutex_lock(&b->mu);
	double bps = s->joined ? s->bytes_per_ns * 8e9 : 0;
	pthread_mutex_unlock(&b->mu);
	return bps;
}

uint64_t budget_burst(struct budget *b, const struct budget_share *s)
{
	pthread_mutex_lock(&b->mu);
	double burst = (s ? s : &b->common)->burst;
	pthread_mutex_unlock(&b->mu);
	return (uint64_t)burst;
}
