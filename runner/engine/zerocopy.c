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

/* One completion message: the range [ee_info, ee_data] of send ids it covers. */
static uint64_t one_completion(struct msghdr *m, uint64_t *copied)
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
	}
	return n;
}

uint64_t zc_reap(int fd, uint64_t *copied)
{
	uint64_t n = 0;
	for (;;) {
		char ctrl[128];
		struct msghdr m = {.msg_control = ctrl, .msg_controllen = sizeof(ctrl)};
		if (recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return n; /* EAGAIN: the queue is empty */
		n += one_completion(&m, copied);
	}
}

uint64_t zc_drain(int fd, uint64_t outstanding, int max_ms, uint64_t *copied)
{
	uint64_t n = zc_reap(fd, copied);
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
		uint64_t k = zc_reap(fd, copied);
		if (!k) /* woken by a hang-up, not a completion: do not spin */
			nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
		n += k;
	}
	return n;
}
