/* bpf/xdp_count.c, the XDP engine's default receiver, run by the kernel on frames built here
 * (BPF_PROG_TEST_RUN): its per-flow accounting must agree with udpseq, the socket engine's,
 * fed the same sequence numbers — in order, with gaps, reordered, duplicated, far beyond the
 * window — and a frame of another flow or length must pass untouched and uncounted. Needs
 * root (CAP_BPF) to load the program; skips otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "runner/engine/xdp/bpf/flow_state.h"
#include "runner/engine/base/udpseq.h"

extern const char NS_XDP_COUNT_OBJ[];
extern const unsigned long NS_XDP_COUNT_OBJ_len;

#define LEN 64u
#define SPORT 40000u
#define DPORT 5201u

struct prog {
	struct bpf_object *obj;
	int prog_fd, flows_fd;
};

static struct prog *load(void)
{
	libbpf_set_print(NULL);
	struct prog *p = calloc(1, sizeof(*p));
	assert_non_null(p);
	p->obj = bpf_object__open_mem(NS_XDP_COUNT_OBJ, NS_XDP_COUNT_OBJ_len, NULL);
	assert_non_null(p->obj);
	struct bpf_map *m, *rodata = NULL;
	bpf_object__for_each_map(m, p->obj)
		if (strstr(bpf_map__name(m), ".rodata"))
			rodata = m;
	uint32_t len = LEN;
	assert_non_null(rodata);
	assert_int_equal(bpf_map__set_initial_value(rodata, &len, sizeof(len)), 0);
	int rc = bpf_object__load(p->obj);
	if (rc == -EPERM) {
		bpf_object__close(p->obj);
		free(p);
		skip(); /* not root: the integration tests say so too */
	}
	assert_int_equal(rc, 0);
	p->prog_fd = bpf_program__fd(bpf_object__find_program_by_name(p->obj, "xdp_count"));
	p->flows_fd = bpf_object__find_map_fd_by_name(p->obj, "flows");
	assert_true(p->prog_fd >= 0 && p->flows_fd >= 0);
	uint32_t key = SPORT << 16 | DPORT;
	struct flow_state *zero = calloc(1, sizeof(*zero));
	assert_int_equal(bpf_map_update_elem(p->flows_fd, &key, zero, BPF_NOEXIST), 0);
	free(zero);
	return p;
}

/* One Ethernet/IPv4/UDP frame with the datagram header; returns the program's verdict. */
static int run(struct prog *p, uint64_t seq, uint16_t sport, uint32_t len)
{
	uint8_t f[42 + 256] = {0};
	f[12] = 0x08;
	f[14] = 0x45;
	uint16_t tot = htobe16((uint16_t)(20 + 8 + len)), ulen = htobe16((uint16_t)(8 + len));
	memcpy(f + 16, &tot, 2);
	f[22] = 64;
	f[23] = 17;
	uint16_t sp = htobe16(sport), dp = htobe16(DPORT);
	memcpy(f + 34, &sp, 2);
	memcpy(f + 36, &dp, 2);
	memcpy(f + 38, &ulen, 2);
	uint64_t s = htobe64(seq), t = htobe64(seq * 1000);
	memcpy(f + 42, &s, 8);
	memcpy(f + 50, &t, 8);
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f, .data_size_in = 42 + len, .repeat = 1);
	assert_int_equal(bpf_prog_test_run_opts(p->prog_fd, &o), 0);
	return (int)o.retval;
}

static void state_of(struct prog *p, struct flow_state *f)
{
	uint32_t key = SPORT << 16 | DPORT;
	assert_int_equal(bpf_map_lookup_elem(p->flows_fd, &key, f), 0);
}

/* Feeds seqs to the program and to udpseq; their counts must be the same, and the sequence
 * must have had some of each kind of disorder (not a vacuous agreement on zeros). */
static void agree(const uint64_t *seqs, size_t n)
{
	struct prog *p = load();
	struct udpseq *u = malloc(sizeof(*u));
	assert_non_null(u);
	udpseq_init(u);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(run(p, seqs[i], SPORT, LEN), XDP_DROP);
		udpseq_add(u, seqs[i], seqs[i] * 1000, seqs[i] * 1000 + 500);
	}
	struct flow_state *f = malloc(sizeof(*f));
	assert_non_null(f);
	state_of(p, f);
	assert_int_equal(f->packets, u->unique);
	assert_int_equal(f->highest_plus1, u->highest_plus1);
	assert_int_equal(f->out_of_order, u->out_of_order);
	assert_int_equal(f->duplicates, u->duplicates);
	assert_int_equal(f->bytes, u->unique * LEN);
	assert_true(u->duplicates > 0 && u->out_of_order > 0 && udpseq_lost(u) > 0 && u->too_old > 0);
	free(f);
	free(u);
	bpf_object__close(p->obj);
	free(p);
}

static void a_script(void **state)
{
	(void)state;
	/* in order, a gap (4), late 4, a duplicate of 2, a jump past the window, a too-old one */
	static const uint64_t s[] = {0, 1, 2, 3, 5, 6, 4, 2, 7, 8, 8, 100000, 99999, 7, 100001};
	agree(s, sizeof(s) / sizeof(s[0]));
}

static void random_reorder_loss_and_copies(void **state)
{
	(void)state;
	enum { N = 20000 };
	uint64_t *s = malloc(N * sizeof(*s));
	assert_non_null(s);
	srand(15);
	uint64_t next = 0;
	for (size_t i = 0; i < N; i++) {
		int r = rand() % 100;
		if (i == N / 2)
			s[i] = (next += 2 * UDPSEQ_WINDOW);            /* a jump past the window */
		else if (i == N / 2 + 1)
			s[i] = next - UDPSEQ_WINDOW - 10;              /* too old to remember */
		else if (r < 2 && i > 0)
			s[i] = s[i - 1];                       /* a copy */
		else if (r < 5 && next > 50)
			s[i] = next - 1 - (uint64_t)(rand() % 50); /* late, or a copy of an old one */
		else if (r < 7)
			s[i] = (next += 2 + (uint64_t)(rand() % 100)); /* a loss burst */
		else
			s[i] = next++;
	}
	agree(s, N);
	free(s);
}

static void other_flows_and_lengths_pass(void **state)
{
	(void)state;
	struct prog *p = load();
	assert_int_equal(run(p, 0, SPORT + 1, LEN), XDP_PASS);
	assert_int_equal(run(p, 0, SPORT, LEN + 1), XDP_PASS);
	assert_int_equal(run(p, 0, SPORT, LEN), XDP_DROP);
	struct flow_state *f = malloc(sizeof(*f));
	assert_non_null(f);
	state_of(p, f);
	assert_int_equal(f->packets, 1);
	free(f);
	bpf_object__close(p->obj);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_script),
		cmocka_unit_test(random_reorder_loss_and_copies),
		cmocka_unit_test(other_flows_and_lengths_pass),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
