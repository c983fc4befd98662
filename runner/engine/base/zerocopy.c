/* zerocopy: MSG_ZEROCOPY completions (see zerocopy.h). */
#include "zerocopy.h"

#include <errno.h>
#include <time.h> /* before linux/errqueue.h, which uses struct timespec */
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef SO_EE_ORIGIN_ZEROCOPY
#define SO_EE_ORIGIN_ZEROCOPY 5
#endif
#ifndef SO_EE_CODE_ZEROCOPY_COPIED
#define SO_EE_CODE_ZEROCOPY_COPIED 1
#endif

bool zc_enable(int fd)
{
	int one = 1;
	return setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)) == 0;
}

void zc_ring_init(struct zc_ring *r, uint32_t slots)
{
	memset(r, 0, sizeof(*r));
	r->slots = 1;
	while (r->slots * 2 <= slots && r->slots < ZC_RING_MAX)
		r->slots *= 2;
}

static bool slot_busy(const struct zc_ring *r, uint32_t slot)
{
	return r->busy[slot / 64] >> (slot % 64) & 1;
}

uint32_t zc_ring_free(const struct zc_ring *r, uint32_t max)
{
	uint32_t n = 0;
	while (n < max && n < r->slots && !slot_busy(r, zc_ring_slot(r, n)))
		n++;
	return n;
}

void zc_ring_sent(struct zc_ring *r, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t slot = zc_ring_slot(r, i);
		r->busy[slot / 64] |= 1ull << (slot % 64);
	}
	r->next_id += n;
}

/* Frees the slots of ids lo..hi (inclusive, wrapping). */
static void ring_done(struct zc_ring *r, uint32_t lo, uint32_t hi)
{
	if (hi - lo >= r->slots - 1) {
		memset(r->busy, 0, sizeof(r->busy));
	} else {
		for (uint32_t id = lo;; id++) {
			uint32_t slot = id & (r->slots - 1);
			r->busy[slot / 64] &= ~(1ull << (slot % 64));
			if (id == hi)
				break;
		}
	}
	if ((int32_t)(hi - r->next_id) >= 0)
		r->next_id = hi + 1;
}

/* One completion message: the range [ee_info, ee_data] of send ids it covers. */
static uint64_t one_completion(struct msghdr *m, uint64_t *copied, struct zc_ring *ring)
{
	uint64_t n = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		if (!((c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
		      (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR)))
			continue;
		struct sock_extended_err ee;
		memcpy(&ee, CMSG_DATA(c), sizeof(ee));
		if (ee.ee_origin != SO_EE_ORIGIN_ZEROCOPY || ee.ee_errno != 0)
			continue;
		uint64_t k = (uint64_t)(uint32_t)(ee.ee_data - ee.ee_info) + 1; /* ids wrap at 2^32 */
		n += k;
		if (ee.ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
			*copied += k;
		if (ring)
			ring_done(ring, ee.ee_info, ee.ee_data);
	}
	return n;
}

uint64_t zc_reap(int fd, uint64_t *copied, struct zc_ring *ring)
{
	uint64_t n = 0;
	for (;;) {
		char ctrl[128];
		struct msghdr m = {.msg_control = ctrl, .msg_controllen = sizeof(ctrl)};
		if (recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return n; /* EAGAIN: the queue is empty */
		n += one_completion(&m, copied, ring);
	}
}

uint64_t zc_drain(int fd, uint64_t outstanding, int max_ms, uint64_t *copied)
{
	uint64_t n = zc_reap(fd, copied, NULL);
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (n < outstanding) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		long spent = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
		if (spent >= max_ms)
			break;
		/* the error queue reports as POLLERR whatever the events asked for */
		struct pollfd p = {.fd = fd, .events = 0};
		if (poll(&p, 1, (int)(max_ms - spent)) < 0 && errno != EINTR)
			break;
		uint64_t k = zc_reap(fd, copied, NULL);
		if (!k) /* woken by a hang-up, not a completion: do not spin */
			nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
		n += k;
	}
	return n;
}
