/* agent_session: one test on the agent — the data connections (only from the client's address,
 * only with the cookie), the engines and their snapshots, and the results sent back
 * (schemas/control-protocol.md). Runs on the session thread; every wait watches the control
 * connection and the agent's stop pipe. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "lib/units.h"
#include "caps.h"
#include "conn.h"
#include "serve.h"
#include "runner/engine/budget.h"
#include "runner/session/session.h"
#include "runner/session/sockopt.h"
#include "runner/host/niccount.h"

/* A TCP data connection from the client's address whose greeting is not all in yet. */
struct dpend {
	int fd;
	double accepted, deadline;
	uint32_t got;
	uint8_t h[PROTO_DATA_HELLO_LEN];
};

struct atest {
	struct conn *c;
	struct probe_params p;
	struct session_end ends[2];   /* [0] the first direction of the test */
	uint32_t n_ends, total;       /* total: the load's streams, then a latency probe's */
	uint32_t n_load;              /* the load's streams (n_ends x streams) */
	struct probe_params lp;       /* a latency probe's test (p.lat_probe), answered on lat */
	struct session_end lat;       /* its one stream, index n_load; n 0 = none */
	uint8_t cookie[PROTO_COOKIE_LEN];
	struct quic_cert *cert;       /* QUIC: the server's certificate for this test */
	int dfd;                      /* TCP data listener */
	int *udp;                     /* UDP sockets by stream index (fds of ends[]), -1 = TCP */
	bool *got;                    /* stream k has its connection */
	struct dpend *pend;           /* in the order of arrival; room for total + AGENT_DATA_EXTRA */
	uint32_t n_pend, cap_pend;
	double accept_pause;          /* out of descriptors: the listener rests until then */
	uint32_t n_got;
	bool start_asked;
	struct niccount nic;          /* the interface towards the client, over the test */
	uint32_t live_sent[2];        /* until set: interval sums of ends[i] sent during the test */
};


static int *stream_slot(struct atest *t, uint32_t k)
{
	if (k >= t->n_load)
		return &t->lat.fds[0];
	struct session_end *e = &t->ends[0];
	if (k >= e->n) {
		k -= e->n;
		e = &t->ends[1];
	}
	return &e->fds[k];
}

static bool valid_hello(const struct atest *t, const uint8_t *h, uint32_t *index)
{
	uint32_t be;
	if (memcmp(h, t->cookie, PROTO_COOKIE_LEN) != 0)
		return false;
	memcpy(&be, h + PROTO_COOKIE_LEN, 4);
	*index = ntohl(be);
	return *index < t->total;
}

/* The transport of stream k: the load's, or its latency probe's. */
static enum ns_proto stream_proto(const struct atest *t, uint32_t k)
{
	return k >= t->n_load ? t->lp.proto : t->p.proto;
}

/* A TCP data listener is needed: TCP load, or a TCP latency probe. */
static bool has_listener(const struct atest *t)
{
	return t->p.proto == NS_PROTO_TCP || (t->lat.n && t->lp.proto == NS_PROTO_TCP);
}

/* Opens the data listener and the UDP sockets on the control connection's local address:
 * READY's UDP ports are the UDP streams' in stream order (a UDP latency probe's last). */
static int open_data(struct atest *t, struct proto_ready *r, struct ns_err *err)
{
	struct sockaddr_storage sa = t->c->local;
	agent_set_port(&sa, 0);
	for (uint32_t k = 0; k < t->total; k++)
		t->udp[k] = -1;
	if (has_listener(t)) {
		t->dfd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (t->dfd < 0)
			return ns_err_sys(err, "socket");
		if (sockopt_apply(t->dfd, &t->p, err) < 0)
			return -1;
		if (bind(t->dfd, (struct sockaddr *)&sa, t->c->local_len) < 0 ||
		    listen(t->dfd, strcmp(t->p.rr, "crr") ? (int)(t->total + AGENT_DATA_EXTRA)
							   : SOMAXCONN) < 0)
			return ns_err_sys(err, "data listener");
		r->data_port = agent_get_port(t->dfd);
	}
	r->n_udp = 0;
	for (uint32_t k = 0; k < t->total; k++) {
		if (!NS_PROTO_DGRAM(stream_proto(t, k)))
			continue;
		int fd = socket(sa.ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			return ns_err_sys(err, "UDP socket");
		*stream_slot(t, k) = fd;
		t->udp[k] = fd;
		if (sockopt_apply(fd, k >= t->n_load ? &t->lp : &t->p, err) < 0)
			return -1;
		if (bind(fd, (struct sockaddr *)&sa, t->c->local_len) < 0)
			return ns_err_sys(err, "UDP bind");
		r->udp_ports[r->n_udp++] = agent_get_port(fd);
	}
	return 0;
}

/* Takes stream k's greeting from pending connection i (removed from the list either way):
 * the stream's socket if the cookie is right and the index free, else closed. */
static void pend_done(struct atest *t, uint32_t i, bool complete)
{
	struct dpend *d = &t->pend[i];
	uint32_t k;
	if (complete && valid_hello(t, d->h, &k) && !t->got[k] && t->udp[k] < 0) {
		int fl = fcntl(d->fd, F_GETFL); /* the engines' sends and reads say MSG_DONTWAIT */
		if (fl >= 0)
			fcntl(d->fd, F_SETFL, fl & ~O_NONBLOCK);
		if (k >= t->n_load ? t->lp.nodelay : t->p.nodelay)
			sockopt_nodelay(d->fd, NULL);
		*stream_slot(t, k) = d->fd;
		t->got[k] = true;
		t->n_got++;
	} else {
		close(d->fd);
	}
	t->n_pend--; /* in the order of arrival: the first of two with one index wins */
	memmove(d, d + 1, (t->n_pend - i) * sizeof(*d));
}

/* New TCP data connections: only from the client's address; each waits for its greeting
 * beside the others, under its own deadline, so that silent ones hold up nobody. There is
 * room for every stream and AGENT_DATA_EXTRA more; when full, the oldest makes room once it
 * waited AGENT_DATA_EVICT_S (a real stream's greeting follows its connect at once), and
 * until then the listener is not polled (listener_wait). */
static void accept_data(struct atest *t)
{
	for (;;) {
		double now = proto_now();
		if (t->n_pend == t->cap_pend) {
			if (now - t->pend[0].accepted < AGENT_DATA_EVICT_S)
				return;
			pend_done(t, 0, false);
		}
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		int fd = accept4(t->dfd, (struct sockaddr *)&from, &fl, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				t->accept_pause = now + AGENT_ACCEPT_PAUSE_S;
			return;
		}
		if (!agent_same_ip(&from, &t->c->peer)) {
			close(fd);
			continue;
		}
		t->pend[t->n_pend++] = (struct dpend){.fd = fd, .accepted = now,
						      .deadline = now + AGENT_COOKIE_WAIT_S};
	}
}

/* Seconds until the listener may be polled again (0 = now): after an accept that ran out of
 * descriptors, or while the pending list is full of connections younger than
 * AGENT_DATA_EVICT_S. */
static double listener_wait(const struct atest *t, double now)
{
	double w = t->accept_pause - now;
	if (t->n_pend == t->cap_pend && t->pend[0].accepted + AGENT_DATA_EVICT_S - now > w)
		w = t->pend[0].accepted + AGENT_DATA_EVICT_S - now;
	return w > 0 ? w : 0;
}

/* Reads what pending connection i has of its greeting; returns true if it left the list. */
static bool pend_read(struct atest *t, uint32_t i)
{
	struct dpend *d = &t->pend[i];
	ssize_t r = recv(d->fd, d->h + d->got, sizeof(d->h) - d->got, MSG_DONTWAIT);
	if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return false;
	if (r <= 0) {
		pend_done(t, i, false);
		return true;
	}
	d->got += (uint32_t)r;
	if (d->got < sizeof(d->h))
		return false;
	pend_done(t, i, true);
	return true;
}

/* Drops pending connections past their deadline; returns the time of the next one (or far). */
static double pend_expire(struct atest *t, double now)
{
	double next = now + 3600;
	for (uint32_t i = 0; i < t->n_pend;) {
		if (now >= t->pend[i].deadline) {
			pend_done(t, i, false);
			continue;
		}
		if (t->pend[i].deadline < next)
			next = t->pend[i].deadline;
		i++;
	}
	return next;
}

/* A UDP greeting on stream k's socket: connect to its source (the client's address only) and
 * echo it, again for every repeat, since the echo may be lost. */
static void udp_greeting(struct atest *t, uint32_t k)
{
	uint8_t h[PROTO_DATA_HELLO_LEN + 1];
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	uint32_t idx;
	ssize_t r = recvfrom(t->udp[k], h, sizeof(h), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
	if (r != PROTO_DATA_HELLO_LEN || !agent_same_ip(&from, &t->c->peer) || !valid_hello(t, h, &idx) ||
	    idx != k)
		return;
	if (!t->got[k]) {
		if (connect(t->udp[k], (struct sockaddr *)&from, fl) < 0)
			return;
		t->got[k] = true;
		t->n_got++;
	}
	send(t->udp[k], h, PROTO_DATA_HELLO_LEN, MSG_DONTWAIT);
}

/* What the agent waited for in vain, named with the client and the agent's own address: the
 * first data stream missing (client's host only: their ports are the client's to pick), else
 * WHAT from the client's control connection. */
static int test_timed_out(const struct atest *t, double after_s, const char *what,
			  struct ns_err *err)
{
	const struct conn *c = t->c;
	char agent[PROTO_ADDR_NAME_LEN], client[PROTO_ADDR_NAME_LEN], stream[96];
	uint32_t first = 0;
	proto_addr_name(c->ctl, true, agent, sizeof(agent));
	if (t->n_got == t->total || !t->got) {
		proto_sa_name((const struct sockaddr *)&c->peer, c->peer_len, true, client,
			      sizeof(client));
		return ns_err_timeout(err, after_s, "%s from %s (agent %s)", what, client, agent);
	}
	while (first < t->total && t->got[first])
		first++;
	proto_missing_name(stream, sizeof(stream), NS_PROTO_DGRAM(stream_proto(t, first))
				? "UDP greeting" : "data connection", first, t->total,
				t->total - t->n_got);
	proto_sa_name((const struct sockaddr *)&c->peer, c->peer_len, false, client, sizeof(client));
	return ns_err_timeout(err, after_s, "%s from %s (agent %s)", stream, client, agent);
}

/* Waits for every data stream and the client's START. */
static int connect_phase(struct atest *t, struct ns_err *err)
{
	struct conn *c = t->c;
	/* however long the client says its connects may take, the agent waits a bounded time */
	double wait = t->p.connect_timeout_s < AGENT_MAX_CONNECT_S ? t->p.connect_timeout_s
								   : AGENT_MAX_CONNECT_S;
	double deadline = proto_now() + wait + AGENT_SETUP_S;
	/* control, stop pipe, the listener (if any), the UDP sockets; then the pending */
	bool tcp = has_listener(t);
	uint32_t nl = 2 + (tcp ? 1 : 0), first_udp = nl;
	t->cap_pend = tcp ? t->total + AGENT_DATA_EXTRA : 0;
	struct pollfd *pfd = calloc(nl + t->total + t->cap_pend, sizeof(*pfd));
	uint32_t *udp_k = calloc(t->total, sizeof(*udp_k)); /* stream of pfd[first_udp + i] */
	int rc = -1;
	if (!pfd || !udp_k || (tcp && !(t->pend = calloc(t->cap_pend, sizeof(*t->pend))))) {
		free(pfd);
		free(udp_k);
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	}
	pfd[0] = (struct pollfd){.fd = c->ctl, .events = POLLIN};
	pfd[1] = (struct pollfd){.fd = c->a->pipe_r, .events = POLLIN};
	if (tcp)
		pfd[2] = (struct pollfd){.fd = t->dfd, .events = POLLIN};
	for (uint32_t k = 0; k < t->total; k++)
		if (t->udp[k] >= 0) {
			udp_k[nl - first_udp] = k;
			pfd[nl++] = (struct pollfd){.fd = t->udp[k], .events = POLLIN};
		}
	while (!(t->start_asked && t->n_got == t->total)) {
		double now = proto_now(), left = deadline - now;
		if (left <= 0) {
			test_timed_out(t, wait + AGENT_SETUP_S, "START", err);
			goto out;
		}
		double next = pend_expire(t, now), lw = tcp ? listener_wait(t, now) : 0;
		if (next - now < left)
			left = next - now;
		if (tcp)
			pfd[2].events = lw > 0 ? 0 : POLLIN;
		if (lw > 0 && lw < left)
			left = lw;
		uint32_t np = nl + t->n_pend;
		for (uint32_t i = 0; i < t->n_pend; i++)
			pfd[nl + i] = (struct pollfd){.fd = t->pend[i].fd, .events = POLLIN};
		int n = poll(pfd, np, (int)(left * 1000) + 1);
		if (n < 0 && errno != EINTR) {
			ns_err_sys(err, "poll");
			goto out;
		}
		if (n <= 0)
			continue;
		if (pfd[1].revents) {
			ns_err_set(err, "agent stopping");
			goto out;
		}
		/* the pending first, in order (j: where entry i of this round's poll is now),
		 * then what the listener has */
		for (uint32_t i = 0, j = 0, n0 = t->n_pend; i < n0; i++)
			if (!(pfd[nl + i].revents && pend_read(t, j)))
				j++;
		for (uint32_t i = 2; i < nl; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			if (i < first_udp)
				accept_data(t);
			else
				udp_greeting(t, udp_k[i - first_udp]);
		}
		if (pfd[0].revents) {
			uint16_t type;
			uint32_t len;
			bool eof;
			if (proto_recv(c->ctl, &type, c->buf, &len, proto_now() + 5, c->a->pipe_r, &eof,
				       err) < 0)
				goto out;
			if (type != PROTO_START) {
				ns_err_set(err, "expected START, got %s", proto_type_name(type));
				goto out;
			}
			t->start_asked = true;
		}
	}
	rc = 0;
out:
	while (t->n_pend) /* late or extra connections: every stream is in, or the test failed */
		pend_done(t, 0, false);
	free(t->pend);
	t->pend = NULL;
	free(pfd);
	free(udp_k);
	return rc;
}

/* Long-run mode: the receiving ends' new interval sums go to the client as they are recorded,
 * so that it can end the test once the rate held steady after a step down. */
static int send_live(struct atest *t, struct ns_err *err)
{
	for (uint32_t i = 0; t->p.until[0] && i < t->n_ends; i++) {
		struct session_end *e = &t->ends[i];
		uint32_t first = t->live_sent[i], cnt = e->n_ivl - first;
		if (e->role != ENGINE_RECV || cnt == 0)
			continue;
		if (cnt > PROTO_IVLS_PER_CHUNK)
			cnt = PROTO_IVLS_PER_CHUNK;
		struct proto_buf b;
		proto_buf_init(&b);
		proto_enc_intervals(&b, (uint8_t)e->dir, first, e->ivl + first, cnt);
		int rc = proto_send_buf(t->c->ctl, PROTO_RESULT_INTERVALS, &b, proto_now() + 5, err);
		proto_buf_free(&b);
		if (rc < 0)
			return -1;
		t->live_sent[i] = first + cnt;
	}
	return 0;
}

/* The measured run: intervals until the client's STOP. Returns -1 when the client went away. */
static int measure(struct atest *t, struct ns_err *err)
{
	struct conn *c = t->c;
	struct session_clock clk;
	session_clock_init(&clk, proto_now(), &t->p);
	/* a silent client is dropped a bounded time after the test should have ended */
	double bound = t->p.omit_s + t->p.duration_s + c->a->o.idle_timeout_s;
	double deadline = clk.t0 + bound;
	for (;;) {
		double now = proto_now();
		double next = session_tick(&clk, t->ends, t->n_ends, now);
		if (now >= deadline)
			return test_timed_out(t, bound, "STOP", err);
		/* a reverse sender's failure (--dont-fragment: the path MTU) goes to the client */
		for (uint32_t i = 0; i < t->n_ends && !clk.ended; i++)
			if (session_end_sender_error(&t->ends[i], &t->p, err) < 0)
				return -1;
		if (send_live(t, err) < 0)
			return -1;
		double wait = next - now < 0.2 ? next - now : 0.2;
		/* a sender's time ends when it stops: watch it closely at the end */
		if (clk.ended)
			for (uint32_t i = 0; i < t->n_ends; i++)
				if (!session_end_watch(&t->ends[i], now))
					wait = 0.002;
		/* ... an amount's end (-n / -k) comes whenever: the engine keeps its time */
		for (uint32_t i = 0; !clk.ended && probe_params_amount(&t->p) && i < t->n_ends; i++)
			session_end_watch(&t->ends[i], now);
		struct pollfd pfd[2] = {{.fd = c->ctl, .events = POLLIN},
					{.fd = c->a->pipe_r, .events = POLLIN}};
		int n = poll(pfd, 2, wait > 0 ? (int)(wait * 1000) + 1 : 0);
		if (n <= 0)
			continue;
		if (pfd[1].revents)
			return ns_err_set(err, "agent stopping");
		uint16_t type;
		uint32_t len;
		bool eof;
		if (proto_recv(c->ctl, &type, c->buf, &len, proto_now() + 5, c->a->pipe_r, &eof,
			       err) < 0)
			return -1;
		if (type == PROTO_STOP)
			return 0;
		return ns_err_set(err, "client sent %s during the test", proto_type_name(type));
	}
}

/* "test done" with what this end moved in each direction, as iperf3 -s prints a test's
 * summary: bytes, seconds, rate, this end's engine CPU, and a UDP receiver's loss. */
static void log_summary(const struct atest *t)
{
	char line[512];
	size_t len = 0;
	line[0] = '\0';
	for (uint32_t i = 0; i < t->n_ends && len < sizeof(line); i++) {
		const struct session_end *e = &t->ends[i];
		uint64_t bytes = 0, packets = 0, lost = 0;
		for (uint32_t k = 0; k < e->n; k++) {
			bytes += e->cur[k].bytes - e->omit[k].bytes;
			packets += e->cur[k].packets - e->omit[k].packets;
			lost += e->cur[k].lost - e->omit[k].lost;
		}
		/* over the test's duration, as the client reports it: this end's last snapshot
		 * waits for STOP, a round trip later from a distant client (10.01 Mbit/s was
		 * logged as 6.66 over the wall time) */
		double dur = e->t_end - e->t_omit;
		if (t->p.duration_s > 0 && dur > t->p.duration_s)
			dur = t->p.duration_s;
		char amount[32], rate[32];
		units_format_bytes((double)bytes, amount, sizeof(amount));
		units_format_rate(dur > 0 ? 8.0 * (double)bytes / dur : 0, rate, sizeof(rate));
		len += (size_t)snprintf(line + len, sizeof(line) - len, "; %s %s %s in %.2f s, %s, cpu "
					"%.0f%%", ns_dir_name(e->dir), e->role == ENGINE_SEND ? "sent" : "received",
					amount, dur, rate, session_end_cpu_percent(e));
		if (len < sizeof(line) && e->role == ENGINE_RECV && t->p.proto == NS_PROTO_UDP)
			len += (size_t)snprintf(line + len, sizeof(line) - len, ", lost %llu/%llu",
						(unsigned long long)lost,
						(unsigned long long)(lost + packets));
	}
	agent_log(t->c->a, "%s: test done%s", t->c->peer_name, line);
}

static int send_results(struct atest *t, struct ns_err *err)
{
	int fd = t->c->ctl;
	double deadline = proto_now() + 10;
	struct proto_results r = {.n_dirs = t->n_ends};
	struct probe_nic nic;
	struct ns_err nerr = {0};
	if (niccount_end(&t->nic, &nic, &nerr) < 0)
		agent_log(t->c->a, "%s: %s", t->c->peer_name, nerr.msg);
	for (uint32_t i = 0; i < t->n_ends; i++) {
		struct session_end *e = &t->ends[i];
		double dur = e->t_end - e->t_omit;
		r.dirs[i] = (struct proto_dir_summary){
			.dir = (uint8_t)e->dir,
			.role = (uint8_t)e->role,
			.n_streams = e->n,
			.n_intervals = e->n_ivl,
			.duration_s = dur,
			.cpu_percent = session_end_cpu_percent(e),
			.kernel_drops = e->drops_end > e->drops_omit ? e->drops_end - e->drops_omit : 0,
			.gso_active = e->role == ENGINE_SEND && engine_gso_active(e->eng),
			.nic = nic,
			.held_by_cap = session_end_held_by_cap(e, t->p.rate_bps),
			.busiest_cpu_pct = e->diag.busiest_cpu_pct,
			.blocked_pct = e->diag.blocked_pct,
			.pace_lost_pct = e->diag.pace_lost_pct,
			.steal_pct = session_end_steal_pct(e),
			.runq_pct = e->diag.runq_pct,
			.last_cpu = e->eng && e->n ? engine_stream_last_cpu(e->eng, 0) : -1,
			.sched = e->diag.sched,
			.tx_busy = e->diag.tx_busy,
		};
		snprintf(r.dirs[i].mode, sizeof(r.dirs[i].mode), "%s", session_end_mode(e));
		if (e->eng) {
			int why;
			engine_thread_cpus(e->eng, r.dirs[i].cpus, sizeof(r.dirs[i].cpus));
			snprintf(r.dirs[i].rx_path, sizeof(r.dirs[i].rx_path), "%s",
				 engine_rx_path(e->eng, &r.dirs[i].rx_mapped, &why));
		}
		if (e->role == ENGINE_SEND && t->p.zerocopy) {
			struct engine_zc z;
			engine_zerocopy(e->eng, &z);
			r.dirs[i].zc_active = z.active && z.sends > 0;
			r.dirs[i].zc_sends = z.sends;
			r.dirs[i].zc_completions = z.completions;
			r.dirs[i].zc_copied = z.copied;
		}
	}
	struct proto_buf b;
	proto_buf_init(&b);
	proto_enc_results(&b, &r);
	int rc = proto_send_buf(fd, PROTO_RESULTS, &b, deadline, err);
	for (uint32_t i = 0; rc == 0 && i < t->n_ends; i++) {
		struct session_end *e = &t->ends[i];
		struct proto_stream_rec recs[PROTO_STREAMS_PER_CHUNK];
		for (uint32_t first = 0; rc == 0 && first < e->n; first += PROTO_STREAMS_PER_CHUNK) {
			uint32_t cnt = e->n - first < PROTO_STREAMS_PER_CHUNK ? e->n - first
									     : PROTO_STREAMS_PER_CHUNK;
			for (uint32_t k = 0; k < cnt; k++) {
				recs[k].cpu = engine_stream_cpu(e->eng, first + k);
				recs[k].omit = e->omit[first + k];
				recs[k].end = e->cur[first + k];
			}
			b.len = 0;
			proto_enc_streams(&b, (uint8_t)e->dir, first, recs, cnt);
			rc = proto_send_buf(fd, PROTO_RESULT_STREAMS, &b, deadline, err);
		}
		for (uint32_t first = 0; rc == 0 && first < e->n_ivl; first += PROTO_IVLS_PER_CHUNK) {
			uint32_t cnt = e->n_ivl - first < PROTO_IVLS_PER_CHUNK ? e->n_ivl - first
									       : PROTO_IVLS_PER_CHUNK;
			b.len = 0;
			proto_enc_intervals(&b, (uint8_t)e->dir, first, e->ivl + first, cnt);
			rc = proto_send_buf(fd, PROTO_RESULT_INTERVALS, &b, deadline, err);
		}
	}
	proto_buf_free(&b);
	if (rc < 0)
		return -1;
	agent_release(t->c);
	return proto_send(fd, PROTO_DONE, NULL, 0, deadline, err);
}

/* A latency probe's answerer, started beside the load's engines (its requester on the
 * client times the transactions). */
static int start_lat(struct atest *t, struct ns_err *err)
{
	struct session_end *e = &t->lat;
	if (t->lp.proto == NS_PROTO_UDP) {
		uint8_t junk[64]; /* late repeats of the greeting are not requests */
		while (recv(e->fds[0], junk, sizeof(junk), MSG_DONTWAIT) > 0)
			;
	}
	e->cookie = t->cookie;
	return session_end_start(e, &t->lp, 1, NULL, 0, err);
}

void agent_run_test(struct conn *c, uint32_t len)
{
	struct atest t;
	struct ns_err err = {0};
	struct proto_ready *ready = calloc(1, sizeof(*ready));
	int cpus[UNITS_MAX_CPUS];
	uint32_t n_cpus = 0;
	uint16_t code = PROTO_E_BAD_REQUEST;
	memset(&t, 0, sizeof(t));
	t.c = c;
	t.dfd = -1;
	if (!ready) {
		agent_refuse(c, PROTO_E_INTERNAL, "out of memory");
		return;
	}
	if (proto_dec_params(c->buf, len, &t.p, &err) < 0 || probe_params_check(&t.p, &err) < 0 ||
	    agent_caps_check(c->a, &t.p, &err) < 0 ||
	    session_cpus(&t.p, true, cpus, UNITS_MAX_CPUS, &n_cpus, &err) < 0)
		goto fail;
	if (agent_fds_take(c, &t.p, &err) < 0) {
		code = PROTO_E_FULL;
		goto fail;
	}
	code = PROTO_E_INTERNAL;
	/* the agent receives the forward direction and sends the reverse one */
	if (t.p.dir != NS_DIR_REVERSE &&
	    session_end_init(&t.ends[t.n_ends++], NS_DIR_FORWARD, ENGINE_RECV, t.p.streams, false,
			     &err) < 0)
		goto fail;
	if (t.p.dir != NS_DIR_FORWARD &&
	    session_end_init(&t.ends[t.n_ends++], NS_DIR_REVERSE, ENGINE_SEND, t.p.streams, false,
			     &err) < 0)
		goto fail;
	t.n_load = t.total = t.n_ends * t.p.streams;
	if (t.p.lat_probe[0]) { /* its answerer: one stream after the load's */
		probe_lat_params(&t.p, &t.lp);
		if (session_end_init(&t.lat, NS_DIR_FORWARD, ENGINE_RECV, 1, false, &err) < 0)
			goto fail;
		t.total++;
	}
	t.udp = calloc(t.total, sizeof(int));
	t.got = calloc(t.total, sizeof(bool));
	if (!t.udp || !t.got) {
		ns_err_code(&err, NS_E_NOMEM, "out of memory");
		goto fail;
	}
	if (getrandom(t.cookie, sizeof(t.cookie), 0) != (ssize_t)sizeof(t.cookie)) {
		ns_err_sys(&err, "getrandom");
		goto fail;
	}
	memcpy(ready->cookie, t.cookie, sizeof(t.cookie));
	if (t.p.proto == NS_PROTO_QUIC) { /* the QUIC server's certificate, this test's own */
		code = PROTO_E_BAD_REQUEST;
		if (quic_cert_new(&t.cert, &err) < 0)
			goto fail;
		code = PROTO_E_INTERNAL;
		ready->has_cert = true;
		quic_cert_sha256(t.cert, ready->cert_sha256);
	}
	if (open_data(&t, ready, &err) < 0)
		goto fail;
	struct proto_buf b;
	proto_buf_init(&b);
	proto_enc_ready(&b, ready);
	int rc = proto_send_buf(c->ctl, PROTO_READY, &b, proto_now() + 5, &err);
	proto_buf_free(&b);
	code = PROTO_E_TIMEOUT;
	if (rc < 0 || connect_phase(&t, &err) < 0)
		goto fail;
	/* every stream is in: nobody else gets queued on the data port (TCP_CRR keeps it for the
	 * transactions' connections) */
	if (t.dfd >= 0 && strcmp(t.p.rr, "crr")) {
		close(t.dfd);
		t.dfd = -1;
	}
	agent_log(c->a, "%s: %s %s test, %u stream(s), %g s", c->peer_name, ns_proto_name(t.p.proto),
	      ns_dir_name(t.p.dir), (unsigned)t.p.streams, t.p.duration_s);
	code = PROTO_E_BAD_REQUEST; /* --dont-fragment: the reverse datagrams must fit the path */
	for (uint32_t i = 0; i < t.n_ends; i++)
		if (t.ends[i].role == ENGINE_SEND && sockopt_check_mtu(t.ends[i].fds[0], &t.p, &err) < 0)
			goto fail;
	code = PROTO_E_INTERNAL;
	struct ns_err nerr = {0};
	if (niccount_begin(&t.nic, (struct sockaddr *)&c->peer, c->peer_len, &nerr) < 0)
		agent_log(c->a, "%s: %s", c->peer_name, nerr.msg);
	uint32_t threads = session_threads(&t.p);
	for (int pass = 0; pass < 2; pass++) /* receivers first */
		for (uint32_t i = 0; i < t.n_ends; i++) {
			struct session_end *e = &t.ends[i];
			if ((pass == 0) != (e->role == ENGINE_RECV))
				continue;
			if (e->role == ENGINE_RECV && NS_PROTO_DGRAM(t.p.proto)) {
				uint8_t junk[64]; /* late repeats of the greeting are not data */
				for (uint32_t k = 0; k < e->n; k++)
					while (recv(e->fds[k], junk, sizeof(junk), MSG_DONTWAIT) > 0)
						;
			}
			e->cookie = t.cookie;
			e->quic.server = true;
			e->quic.cert = t.cert;
			if (!strcmp(t.p.rr, "crr")) { /* the listener takes each transaction's connection */
				e->crr_fd = t.dfd;
				e->crr_addr = c->peer;
				e->crr_addr_len = c->peer_len;
			}
			e->budget = c->a->budget;
			if (session_end_start(e, &t.p, threads, cpus, n_cpus, &err) < 0)
				goto fail;
			if (e->xdp_refused[0])
				agent_log(c->a, "%s: %s: the socket engine runs instead", c->peer_name,
					  e->xdp_refused);
		}
	if (t.lat.n && start_lat(&t, &err) < 0)
		goto fail;
	if (proto_send(c->ctl, PROTO_START, NULL, 0, proto_now() + 5, &err) < 0)
		goto fail;
	code = PROTO_E_ABORT;
	if (measure(&t, &err) < 0)
		goto fail;
	for (int pass = 0; pass < 2; pass++) /* stop sending first, then drain what arrives */
		for (uint32_t i = 0; i < t.n_ends; i++)
			if ((pass == 0) == (t.ends[i].role == ENGINE_SEND))
				session_end_finish(&t.ends[i], AGENT_DRAIN_S);
	if (t.lat.n)
		session_end_finish(&t.lat, AGENT_DRAIN_S);
	if (send_results(&t, &err) < 0)
		goto fail;
	log_summary(&t);
	goto out;
fail:
	agent_refuse(c, code, err.msg[0] ? err.msg : "test failed");
out:
	for (uint32_t i = 0; i < 2; i++)
		session_end_destroy(&t.ends[i]);
	session_end_destroy(&t.lat);
	if (t.dfd >= 0)
		close(t.dfd);
	niccount_free(&t.nic);
	free(t.udp);
	free(t.got);
	quic_cert_free(t.cert);
	free(ready);
}
