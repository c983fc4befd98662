/* xdp_busy_shim: an LD_PRELOAD stand-in for a busy device under the AF_XDP sender. Every
 * third zero-length sendto() with no buffer (an AF_XDP transmit kick) fails EBUSY without
 * reaching the kernel, as a copy-mode kick does when the driver dropped a frame for a full
 * queue (a veth whose peer's ring is full); every other call goes through. xdp_netns.sh runs
 * the probe under it and holds the sender to back off, count it and lose nothing. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

typedef ssize_t (*sendto_fn)(int, const void *, size_t, int, const struct sockaddr *,
			     socklen_t);

ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to,
	       socklen_t tolen)
{
	static _Atomic unsigned long kicks;
	sendto_fn real = (sendto_fn)dlsym(RTLD_NEXT, "sendto");
	if (!buf && !len && atomic_fetch_add(&kicks, 1) % 3 == 2) {
		errno = EBUSY;
		return -1;
	}
	return real(fd, buf, len, flags, to, tolen);
}
