/* zerocopy: MSG_ZEROCOPY for the engine's senders (-Z). The kernel pins the pages of a send
 * instead of copying them and reports on the socket's error queue when it no longer needs
 * them; zc_reap() reads those completions (as the kernel's msg_zerocopy selftest does) so that
 * the socket's option memory does not run out, and counts them, and how many the kernel had
 * to copy after all (delivery to a local socket, a device without scatter-gather). */
#ifndef NS_ZEROCOPY_H
#define NS_ZEROCOPY_H

#include <stdbool.h>
#include <stdint.h>

/* SO_ZEROCOPY on fd; false when the kernel refuses it (older than 4.14; UDP before 5.0),
 * errno saying why. */
bool zc_enable(int fd);

/* Which sends the kernel still holds, for a sender that rewrites its buffers between sends
 * (UDP: every datagram's header): the socket's k-th MSG_ZEROCOPY send (k from 0, the kernel's
 * id) uses slot k % slots, and only its completion frees that slot for the next write. */
#define ZC_RING_MAX 128
struct zc_ring {
	uint32_t slots;          /* a power of two, 1..ZC_RING_MAX: ids wrap at 2^32 */
	uint32_t next_id;        /* the kernel's id of the socket's next zero-copy send */
	uint64_t busy[ZC_RING_MAX / 64];
};
void zc_ring_init(struct zc_ring *r, uint32_t slots);
/* How many of the next max sends have their slots free (the free run from next_id on). */
uint32_t zc_ring_free(const struct zc_ring *r, uint32_t max);
/* The slot of the i-th send from now. */
static inline uint32_t zc_ring_slot(const struct zc_ring *r, uint32_t i)
{
	return (r->next_id + i) & (r->slots - 1);
}
/* The next n sends were made: their slots are busy until completed. */
void zc_ring_sent(struct zc_ring *r, uint32_t n);

/* Reads every completion queued on fd's error queue without blocking. Returns the sends they
 * cover and adds those the kernel copied to *copied; frees their slots in ring (may be NULL).
 * A completion past ring->next_id means the kernel used ids for sends that failed after it
 * built them (the call returned an error): the ring follows the kernel. */
uint64_t zc_reap(int fd, uint64_t *copied, struct zc_ring *ring);
/* Waits up to max_ms for the completions of `outstanding` sends, reaping them. */
uint64_t zc_drain(int fd, uint64_t outstanding, int max_ms, uint64_t *copied);

#endif
