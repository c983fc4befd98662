/* xdp_raw_tx: the raw AF_XDP copy-mode limit of an interface, for tests/bench/xdp.sh — one
 * AF_XDP socket in copy mode on queue 0 of IFNAME, the same 64-byte-payload UDP frame
 * (prebuilt once in every UMEM frame) pushed as fast as the kernel takes it for SECS
 * seconds: no sequence numbers, no pacing, no accounting. Prints the frames the kernel
 * completed per second. Not part of netsweep: a yardstick for its XDP engine, for a peer
 * that drops at XDP.
 *   xdp_raw_tx IFNAME SRC_MAC DST_MAC SRC_IP DST_IP DST_PORT SECS */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>

#include <xdp/xsk.h>

#define FRAMES 4096u
#define FRAME_SIZE 2048u
#define RING 2048u
#define BATCH 64u
#define PAYLOAD 64u

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int parse_mac(const char *s, uint8_t *m)
{
	return sscanf(s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &m[0], &m[1], &m[2], &m[3], &m[4],
		      &m[5]) == 6 ? 0 : -1;
}

static void frame(uint8_t *f, const uint8_t *smac, const uint8_t *dmac, struct in_addr src,
		  struct in_addr dst, uint16_t port)
{
	memset(f, 0, 42 + PAYLOAD);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	f[12] = 0x08;
	uint8_t *ip = f + 14, *udp = f + 34;
	uint16_t tot = htons(20 + 8 + PAYLOAD), ulen = htons(8 + PAYLOAD), sp = htons(9), dp = htons(port);
	ip[0] = 0x45;
	memcpy(ip + 2, &tot, 2);
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &dst, 4);
	/* no IPv4 checksum: the peer drops every frame at XDP (tests/bpf/xdp_drop.c), before
	 * any stack would check it */
	memcpy(udp, &sp, 2);
	memcpy(udp + 2, &dp, 2);
	memcpy(udp + 4, &ulen, 2);
}

int main(int argc, char **argv)
{
	uint8_t smac[6], dmac[6];
	struct in_addr src, dst;
	if (argc != 8 || parse_mac(argv[2], smac) || parse_mac(argv[3], dmac) ||
	    inet_pton(AF_INET, argv[4], &src) != 1 || inet_pton(AF_INET, argv[5], &dst) != 1) {
		fprintf(stderr, "usage: xdp_raw_tx IFNAME SRC_MAC DST_MAC SRC_IP DST_IP DST_PORT SECS\n");
		return 2;
	}
	double secs = atof(argv[7]);
	size_t len = (size_t)FRAMES * FRAME_SIZE;
	void *area = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return perror("mmap"), 1;
	for (uint32_t i = 0; i < FRAMES; i++)
		frame((uint8_t *)area + (size_t)i * FRAME_SIZE, smac, dmac, src, dst,
		      (uint16_t)atoi(argv[6]));
	struct xsk_ring_prod fq, tx;
	struct xsk_ring_cons cq;
	struct xsk_umem *umem;
	struct xsk_umem_config uc = {.fill_size = RING, .comp_size = RING, .frame_size = FRAME_SIZE};
	int rc = xsk_umem__create(&umem, area, len, &fq, &cq, &uc);
	if (rc)
		return fprintf(stderr, "umem: %s\n", strerror(-rc)), 1;
	struct xsk_socket *xsk;
	struct xsk_socket_config sc = {.tx_size = RING,
				       .libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
				       .bind_flags = XDP_COPY | XDP_USE_NEED_WAKEUP};
	/* the queue may still be held by a socket closed just before (the kernel lets go of it
	 * in a work item a busy machine runs late): wait up to 5 s for it, then say "bound" on
	 * stderr so a caller can start what must find the queue taken */
	for (int tries = 0;; tries++) {
		rc = xsk_socket__create(&xsk, argv[1], 0, umem, NULL, &tx, &sc);
		if (rc != -EBUSY || tries >= 250)
			break;
		usleep(20000);
	}
	if (rc)
		return fprintf(stderr, "xsk on %s: %s\n", argv[1], strerror(-rc)), 1;
	fprintf(stderr, "bound\n");
	uint32_t free_list[FRAMES], nfree = FRAMES;
	for (uint32_t i = 0; i < FRAMES; i++)
		free_list[i] = i;
	uint64_t done = 0;
	double t0 = now_s(), end = t0 + secs;
	while (now_s() < end) {
		uint32_t idx, n = xsk_ring_cons__peek(&cq, RING, &idx);
		for (uint32_t i = 0; i < n; i++)
			free_list[nfree++] = (uint32_t)(*xsk_ring_cons__comp_addr(&cq, idx + i) / FRAME_SIZE);
		if (n)
			xsk_ring_cons__release(&cq, n);
		done += n;
		uint32_t want = nfree < BATCH ? nfree : BATCH;
		if (want && xsk_ring_prod__reserve(&tx, want, &idx) == want) {
			for (uint32_t i = 0; i < want; i++) {
				struct xdp_desc *d = xsk_ring_prod__tx_desc(&tx, idx + i);
				d->addr = (uint64_t)free_list[--nfree] * FRAME_SIZE;
				d->len = 42 + PAYLOAD;
			}
			xsk_ring_prod__submit(&tx, want);
		}
		/* the kernel takes at most 32 frames per call in copy mode: call until it has
		 * taken the ring or takes no more */
		for (int k = 0; k < 16; k++) {
			uint32_t pending = tx.cached_prod - __atomic_load_n(tx.consumer, __ATOMIC_ACQUIRE);
			if (!pending)
				break;
			if (sendto(xsk_socket__fd(xsk), NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 &&
			    errno != EAGAIN && errno != EBUSY && errno != ENOBUFS)
				return perror("sendto"), 1;
			if (tx.cached_prod - __atomic_load_n(tx.consumer, __ATOMIC_ACQUIRE) == pending)
				break;
		}
	}
	double el = now_s() - t0;
	printf("%.0f\n", (double)done / el);
	xsk_socket__delete(xsk);
	xsk_umem__delete(umem);
	return 0;
}
