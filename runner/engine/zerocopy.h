/* zerocopy: MSG_ZEROCOPY for the engine's senders (-Z). The kernel pins the pages of a send
 * instead of copying them and reports on the socket's error queue when it no longer needs
 * them; zc_reap() reads those completions (as the kernel's msg_zerocopy selftest does) so that
 * the socket's option memory does not run out, and counts them, and how many the kernel had
 * to copy after all (delivery to a local socket, a device without scatter-gather). */
#ifndef NS_ZEROCOPY_H
#define NS_ZEROCOPY_H

#include <stdbool.h>
#include <stdint.h>

/* SO_ZEROCOPY on fd; false when the kernel refuses it (older than 4.14, or the protocol). */
bool zc_enable(int fd);
/* Reads every completion queued on fd's error queue without blocking. Returns the sends they
 * cover and adds those the kernel copied to *copied. */
uint64_t zc_reap(int fd, uint64_t *copied);
/* Waits up to max_ms for the completions of `outstanding` sends, reaping them. */
uint64_t zc_drain(int fd, uint64_t outstanding, int max_ms, uint64_t *copied);

#endif
