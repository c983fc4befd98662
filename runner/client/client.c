/* client: probe_run — the client side of the control protocol
 * (schemas/control-protocol.md). One test: HELLO, TEST_REQUEST, READY, data connections,
 * START both ways, the measured run, STOP, the agent's RESULTS, and the figures of both ends. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/units.h"
#include "client.h"
#include "client_lat.h"
#include "client_notes.h"
#include "ctl.h"
#include "longrun.h"
#include "runner/proto/probe.h"
#include "runner/proto/proto.h"
#include "runner/host/niccount.h"
#include "runner/session/amount.h"
#include "runner/session/limit.h"
#include "runner/session/session.h"
#include "runner/session/sockopt.h"
#include "runner/session/shaping.h"

#define CLIENT_DRAIN_S 2.0        /* receiver drain after the sender stopped, at most */
#define CLIENT_RESULTS_S 10.0     /* agent's drain + results, at most */
#define CLIENT_UDP_HELLO_EVERY_S 0.1

struct client {
	const struct probe_params *p;
	struct probe_result *res;
	int ctl;
	struct sockaddr_storage peer;     /* the agent's control address */
	socklen_t peer_len;
	double deadline;                  /* the whole test */
	double timeout_s;                 /* its length after the connect timeout */
	uint8_t *buf;                     /* PROTO_MAX_PAYLOAD */
	struct proto_ready ready;
	struct session_end ends[2];       /* this end: [i] for res->dirs[i] */
	uint32_t n_ends, n_load;          /* n_load: the load's data streams (n_ends x streams) */
	struct probe_params lp;           /* --latency-probe: its test, its requester on lat */
	struct session_end lat;           /* (lat.n 0: none); its stream is n_load */
	/* the agent's end, per direction index */
	struct proto_results agent;
	struct proto_stream_rec *agent_recs[2];
	struct probe_interval *agent_ivl[2];
	uint32_t agent_n_ivl[2];
	bool agent_done;
	client_interval_fn on_interval;
	void *on_interval_arg;
	uint32_t shown[2];                /* intervals of ends[i] already handed to on_interval */
	uint16_t hello_flags;             /* PROTO_HELLO_DELEGATED for a delegated run */
	int cancel_fd;                    /* readable: stop the test now (-1: none) */
	bool accepted;                    /* the agent answered READY */
	struct niccount nic;              /* this end's interface counters over the test */
	int zc_errno;                     /* why this end's sender fell back from -Z, 0 = none */
	struct longrun lr;                /* until sustained: the stop rule, live */
};

static double min_d(double a, double b) { return a < b ? a : b; }

/* Connects the control connection to host:port, trying each address until the deadline. */
static int connect_ctl(struct client *c, const char *host, uint16_t port, double deadline,
		       struct ns_err *err)
{
	c->peer_len = sizeof(c->peer);
	return client_ctl_connect_from(host, port, c->p, deadline, &c->peer, &c->peer_len, err);
}

static int hello(struct client *c, double deadline, struct ns_err *err)
{
	return client_ctl_hello(c->ctl, c->buf, c->hello_flags, c->p->psk_file, deadline, err);
}

/* Stream k of the data plane: forward streams first, then reverse ones. */
static int *stream_fd(struct client *c, uint32_t k)
{
	if (k >= c->n_load)
		return &c->lat.fds[0];
	struct session_end *e = &c->ends[0];
	if (k >= e->n) {
		k -= e->n;
		e = &c->ends[1];
	}
	return &e->fds[k];
}

/* Data stream k's source: -B's address, --cport + k (a latency probe's: any port). */
static struct client_src stream_src(const struct client *c, uint32_t k)
{
	return (struct client_src){.addr = c->p->bind,
				   .port = c->p->cport && k < c->n_load ? (uint16_t)(c->p->cport + k)
									 : 0};
}

/* The params stream k's socket takes: the load's, or its latency probe's. */
static const struct probe_params *stream_params(const struct client *c, uint32_t k)
{
	return k >= c->n_load ? &c->lp : c->p;
}

/* A data stream that did not come in time: which one, where, and which agent it was for. */
static int data_timed_out(const struct client *c, double after_s, const char *what,
			  uint32_t first, uint32_t total, uint32_t missing, uint16_t port,
			  struct ns_err *err)
{
	char stream[96], agent[PROTO_ADDR_NAME_LEN], where[PROTO_ADDR_NAME_LEN];
	struct sockaddr_storage sa = c->peer;
	client_sa_set_port(&sa, port);
	proto_missing_name(stream, sizeof(stream), what, first, total, missing);
	proto_sa_name((struct sockaddr *)&sa, c->peer_len, true, where, sizeof(where));
	proto_addr_name(c->ctl, false, agent, sizeof(agent));
	return ns_err_timeout(err, after_s, "%s %s %s (agent %s)", stream,
			      NS_PROTO_DGRAM(c->p->proto) ? "from" : "to be accepted by", where,
			      agent);
}

static int send_cookie(struct client *c, int fd, uint32_t k, struct ns_err *err)
{
	uint8_t h[PROTO_DATA_HELLO_LEN];
	client_data_hello(h, c->ready.cookie, k);
	client_set_nonblock(fd, false);
	struct timeval tv = {.tv_sec = 2};
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (send(fd, h, sizeof(h), MSG_NOSIGNAL) != (ssize_t)sizeof(h))
		return ns_err_sys(err, "sending the cookie");
	return 0;
}

/* Every data connection is started at once and all are polled together: one after another,
 * each cost a round trip against the one deadline, and over a WAN only connect_timeout / RTT
 * of them got through. */
static int open_tcp_streams(struct client *c, uint32_t first, uint32_t total, double after_s,
			    double deadline, struct ns_err *err)
{
	struct sockaddr_storage sa = c->peer;
	client_sa_set_port(&sa, c->ready.data_port);
	struct pollfd *pfd = calloc(total, sizeof(*pfd));
	uint32_t k = 0, left = 0;
	int rc = -1;
	if (!pfd)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	for (k = 0; k < total; k++, left++) {
		struct client_src src = stream_src(c, first + k);
		int fd = client_connect_start((struct sockaddr *)&sa, c->peer_len, SOCK_STREAM,
					      stream_params(c, first + k), &src, err);
		if (fd < 0)
			goto fail;
		*stream_fd(c, first + k) = fd; /* closed with the session on failure */
		pfd[k] = (struct pollfd){.fd = fd, .events = POLLOUT};
	}
	while (left > 0) {
		double wait = deadline - proto_now();
		if (wait <= 0) {
			for (k = 0; k < total && pfd[k].fd < 0; k++)
				;
			data_timed_out(c, after_s, "data connection", first + k, first + total, left,
				       c->ready.data_port, err);
			goto out;
		}
		int n = poll(pfd, total, (int)(wait * 1000) + 1);
		if (n < 0 && errno != EINTR) {
			ns_err_sys(err, "poll");
			goto out;
		}
		for (k = 0; n > 0 && k < total; k++) {
			if (pfd[k].fd < 0 || !pfd[k].revents)
				continue;
			if (client_connect_result(pfd[k].fd, err) < 0 ||
			    send_cookie(c, pfd[k].fd, first + k, err) < 0)
				goto fail;
			pfd[k].fd = -1; /* done: poll ignores it */
			left--;
		}
	}
	rc = 0;
	goto out;
fail:
	ns_err_prefix(err, "data connection %u", (unsigned)(first + k));
out:
	free(pfd);
	return rc;
}

/* UDP: each socket greets its agent port with cookie + index until the agent echoes it;
 * READY's ports are those of streams first.. in order. */
static int open_udp_streams(struct client *c, uint32_t first, uint32_t total, double after_s,
			    double deadline, struct ns_err *err)
{
	if (c->ready.n_udp != total)
		return ns_err_set(err, "agent offered %u UDP ports for %u streams",
				  (unsigned)c->ready.n_udp, (unsigned)total);
	bool *acked = calloc(total, sizeof(bool));
	struct pollfd *pfd = calloc(total, sizeof(*pfd));
	int rc = -1;
	if (!acked || !pfd) {
		ns_err_code(err, NS_E_NOMEM, "out of memory");
		goto out;
	}
	for (uint32_t k = 0; k < total; k++) {
		struct sockaddr_storage sa = c->peer;
		client_sa_set_port(&sa, c->ready.udp_ports[k]);
		struct client_src src = stream_src(c, first + k);
		int fd = client_connect_to((struct sockaddr *)&sa, c->peer_len, SOCK_DGRAM,
					   stream_params(c, first + k), &src, deadline, err);
		if (fd < 0)
			goto out;
		*stream_fd(c, first + k) = fd;
		pfd[k].fd = fd;
		pfd[k].events = POLLIN;
	}
	uint32_t left = total;
	while (left > 0) {
		if (proto_now() >= deadline) {
			uint32_t k = 0;
			while (k < total && acked[k])
				k++;
			data_timed_out(c, after_s, "the echo of UDP greeting", first + k,
				       first + total, left, c->ready.udp_ports[k], err);
			goto out;
		}
		uint8_t h[PROTO_DATA_HELLO_LEN], in[PROTO_DATA_HELLO_LEN + 1];
		for (uint32_t k = 0; k < total; k++) {
			if (acked[k])
				continue;
			client_data_hello(h, c->ready.cookie, first + k);
			send(pfd[k].fd, h, sizeof(h), MSG_DONTWAIT);
		}
		double until = proto_now() + CLIENT_UDP_HELLO_EVERY_S;
		while (left > 0 && proto_now() < until) {
			int n = poll(pfd, total, 20);
			for (uint32_t k = 0; n > 0 && k < total; k++) {
				if (!(pfd[k].revents & POLLIN))
					continue;
				ssize_t r = recv(pfd[k].fd, in, sizeof(in), MSG_DONTWAIT);
				client_data_hello(h, c->ready.cookie, first + k);
				if (r == (ssize_t)sizeof(h) && !memcmp(in, h, sizeof(h)) && !acked[k]) {
					acked[k] = true;
					pfd[k].fd = -pfd[k].fd - 1; /* poll ignores negative fds */
					left--;
				}
			}
		}
	}
	rc = 0;
out:
	free(acked);
	free(pfd);
	return rc;
}

static int send_empty(struct client *c, uint16_t type, struct ns_err *err)
{
	return proto_send(c->ctl, type, NULL, 0, min_d(c->deadline, proto_now() + 5), err);
}

/* Index of this end's session for a direction on the wire; n_ends when there is none. */
static uint32_t end_index(const struct client *c, uint8_t dir)
{
	for (uint32_t i = 0; i < c->n_ends; i++)
		if ((uint8_t)c->ends[i].dir == dir)
			return i;
	return c->n_ends;
}

/* The agent's results: RESULTS, then chunks, then DONE. */
static int collect_results(struct client *c, struct ns_err *err)
{
	double deadline = min_d(c->deadline, proto_now() + CLIENT_RESULTS_S);
	uint16_t type;
	uint32_t len;
	if (longrun_expect(&c->lr, c->ctl, c->buf, PROTO_RESULTS, &len, deadline, err) < 0)
		return client_ctl_waited(c->ctl, "the test's results (RESULTS)", err);
	if (proto_dec_results(c->buf, len, &c->agent, err) < 0)
		return -1;
	for (uint32_t i = 0; i < c->agent.n_dirs; i++) {
		uint32_t d = end_index(c, c->agent.dirs[i].dir);
		if (d >= c->n_ends || c->agent.dirs[i].n_streams != c->ends[d].n)
			return ns_err_set(err, "agent results do not match the test");
		if (c->agent_recs[d])
			return ns_err_set(err, "agent results list a direction twice");
		c->agent_recs[d] = calloc(c->ends[d].n, sizeof(struct proto_stream_rec));
		uint32_t ni = c->agent.dirs[i].n_intervals;
		if (ni)
			c->agent_ivl[d] = calloc(ni, sizeof(struct probe_interval));
		if (!c->agent_recs[d] || (ni && !c->agent_ivl[d]))
			return ns_err_code(err, NS_E_NOMEM, "out of memory for the agent's results");
		c->agent_n_ivl[d] = ni;
	}
	for (;;) {
		if (client_ctl_recv(c->ctl, c->buf, &type, &len, deadline, err) < 0)
			return client_ctl_waited(c->ctl, "the rest of the test's results "
						 "(RESULT_STREAMS, RESULT_INTERVALS, DONE)", err);
		uint8_t dir;
		uint32_t first, count;
		if (type == PROTO_DONE)
			break;
		if (type == PROTO_RESULT_STREAMS) {
			uint32_t d = end_index(c, len ? c->buf[0] : 0xff);
			if (d >= c->n_ends || !c->agent_recs[d])
				return ns_err_set(err, "unexpected RESULT_STREAMS");
			if (proto_dec_streams(c->buf, len, &dir, &first, &count, c->agent_recs[d],
					      c->ends[d].n, err) < 0)
				return -1;
		} else if (type == PROTO_RESULT_INTERVALS) {
			uint32_t d = end_index(c, len ? c->buf[0] : 0xff);
			if (d >= c->n_ends || !c->agent_ivl[d])
				return ns_err_set(err, "unexpected RESULT_INTERVALS");
			if (proto_dec_intervals(c->buf, len, &dir, &first, &count, c->agent_ivl[d],
						c->agent_n_ivl[d], err) < 0)
				return -1;
		} else {
			return ns_err_code(err, NS_E_PROTOCOL, "protocol error: unexpected %s in results",
					  proto_type_name(type));
		}
	}
	c->agent_done = true;
	return 0;
}

/* Waits for the agent's START, watching for it to refuse. */
static int start_exchange(struct client *c, struct ns_err *err)
{
	uint32_t len;
	if (send_empty(c, PROTO_START, err) < 0)
		return -1;
	return client_ctl_expect(c->ctl, c->buf, PROTO_START, &len,
		      min_d(c->deadline, proto_now() + c->p->connect_timeout_s + 5), err);
}

/* -n / -k: every end of this client is over. */
static bool amount_done(struct client *c, struct amount_watch *w, double now)
{
	uint64_t amount = probe_params_amount(c->p);
	uint32_t unit = c->p->length ? c->p->length : NS_UDP_DEFAULT_LEN;
	bool done = amount > 0;
	for (uint32_t i = 0; done && i < c->n_ends; i++)
		done = amount_end_done(&c->ends[i], &w[i], amount, unit, now);
	return done;
}

/* The intervals of end e recorded since *shown, to the live view: each interval's streams
 * (where they are recorded: per_stream) first, then its sum, as iperf3 prints them. */
static void show_intervals(struct client *c, const struct session_end *e, uint32_t *shown)
{
	for (; *shown < e->n_ivl; (*shown)++) {
		const struct probe_interval *v = &e->ivl[*shown];
		if (v->stream != -1)
			continue; /* handed over with its sum */
		for (uint32_t k = *shown + 1; k < e->n_ivl && e->ivl[k].stream >= 0; k++)
			c->on_interval(&e->ivl[k], e->dir, c->on_interval_arg);
		c->on_interval(v, e->dir, c->on_interval_arg);
	}
}

static int check_senders(struct client *c, const struct session_clock *clk, struct ns_err *err)
{
	for (uint32_t i = 0; i < c->n_ends && !clk->ended; i++)
		if (session_end_sender_error(&c->ends[i], c->p, err) < 0)
			return -1;
	return 0;
}

/* The measured run: interval boundaries until the end, watching the control connection.
 * Returns 0 at the normal end, -1 (err set) when the agent went away or time ran out. */
static int run_loop(struct client *c, struct ns_err *err)
{
	struct session_clock clk, lclk; /* lclk: a latency probe's omit mark and end */
	struct amount_watch aw[2] = {{0}};
	session_clock_init(&clk, proto_now(), c->p);
	session_clock_init(&lclk, clk.t0, &c->lp);
	double grace_until = 0;
	for (;;) {
		double now = proto_now();
		double next = session_tick(&clk, c->ends, c->n_ends, now);
		if (c->lat.eng)
			session_tick(&lclk, &c->lat, 1, now);
		if (check_senders(c, &clk, err) < 0)
			return -1;
		if (amount_done(c, aw, now) || longrun_reached(&c->lr, c->ends, c->n_ends))
			return 0;
		for (uint32_t i = 0; c->on_interval && i < c->n_ends; i++)
			show_intervals(c, &c->ends[i], &c->shown[i]);
		if (now >= c->deadline) {
			char agent[PROTO_ADDR_NAME_LEN];
			proto_addr_name(c->ctl, false, agent, sizeof(agent));
			return ns_err_timeout(err, c->timeout_s, "the test with %s to end", agent);
		}
		if (clk.ended) {
			/* the senders stop by themselves at omit + duration; give them a moment */
			bool done = true;
			for (uint32_t i = 0; i < c->n_ends; i++)
				done &= session_end_watch(&c->ends[i], now);
			if (!grace_until)
				grace_until = now + 2.0;
			if (done || now >= grace_until)
				return 0;
			next = now + 0.005;
		}
		double wait = min_d(next - now, 0.1);
		struct pollfd pfd[2] = {{.fd = c->ctl, .events = POLLIN},
					{.fd = c->cancel_fd, .events = POLLIN}};
		int n = poll(pfd, c->cancel_fd >= 0 ? 2 : 1, wait > 0 ? (int)(wait * 1000) + 1 : 0);
		if (n > 0 && c->cancel_fd >= 0 && pfd[1].revents)
			return ns_err_code(err, NS_E_STOPPED, "test stopped: its requester went away "
					   "or the agent is stopping");
		if (n > 0) {
			uint16_t type;
			uint32_t len;
			if (client_ctl_recv(c->ctl, c->buf, &type, &len, proto_now() + 1, err) < 0) {
				if (err->code != NS_E_PEER) /* else the agent said why it ended */
					ns_err_prefix(err, "agent went away mid-test");
				return -1;
			}
			if (type == PROTO_RESULT_INTERVALS) { /* long-run mode: the agent's, live */
				if (longrun_agent(&c->lr, c->ends, c->n_ends, c->buf, len, err) < 0)
					return -1;
				continue;
			}
			return ns_err_code(err, NS_E_PROTOCOL, "protocol error: unexpected %s during the test",
					  proto_type_name(type));
		}
	}
}

static void merge_agent_intervals(struct client *c, uint32_t d, struct probe_direction *pd)
{
	const struct probe_interval *a = c->agent_ivl[d];
	uint32_t k = 0;
	bool me_sender = c->ends[d].role == ENGINE_SEND;
	for (uint32_t i = 0; a && i < pd->n_intervals && k < c->agent_n_ivl[d]; i++) {
		struct probe_interval *v = &pd->intervals[i];
		if (v->stream != -1)
			continue;
		if (me_sender) {
			v->lost = a[k].lost;
			v->jitter_ms = a[k].jitter_ms;
		} else {
			v->retransmits = a[k].retransmits;
			v->cwnd_bytes = a[k].cwnd_bytes;
			v->rtt_ms = a[k].rtt_ms;
		}
		k++;
	}
}

/* Turns both ends' snapshots into res->dirs. */
static int compute(struct client *c, struct ns_err *err)
{
	struct probe_result *res = c->res;
	for (uint32_t d = 0; d < c->n_ends; d++) {
		struct session_end *me = &c->ends[d];
		struct probe_direction *pd = &res->dirs[d];
		const struct proto_dir_summary *as = NULL;
		for (uint32_t i = 0; c->agent_done && i < c->agent.n_dirs; i++)
			if (c->agent.dirs[i].dir == me->dir)
				as = &c->agent.dirs[i];
		struct engine_stream_snap *a0 = NULL, *a1 = NULL;
		if (as && c->agent_recs[d]) {
			a0 = calloc(me->n, sizeof(*a0));
			a1 = calloc(me->n, sizeof(*a1));
			if (!a0 || !a1) {
				free(a0);
				free(a1);
				return ns_err_code(err, NS_E_NOMEM, "out of memory");
			}
			for (uint32_t i = 0; i < me->n; i++) {
				a0[i] = c->agent_recs[d][i].omit;
				a1[i] = c->agent_recs[d][i].end;
			}
		}
		bool me_sender = me->role == ENGINE_SEND;
		/* the sender's own clock: from its baseline to its final snapshot, taken right after
		 * it stopped (a few ms past omit + duration, never clamped: an engine that overran
		 * would otherwise inflate the rate) */
		double dur = me->t_end - me->t_omit;
		if (!me_sender && as)
			dur = as->duration_s;
		pd->dir = me->dir;
		int rc = me_sender ? session_figures(me->omit, me->cur, a0, a1, me->n, dur,
						     c->p->proto, pd, err)
				   : session_figures(a0, a1, me->omit, me->cur, me->n, dur,
						     c->p->proto, pd, err);
		free(a0);
		free(a1);
		if (rc < 0)
			return -1;
		if (d == 0)
			res->duration_s = dur;
		if (d == 0 && me_sender && session_end_latency(me, dur, &res->latency, err) < 0)
			return -1;
		if (d == 0 && res->latency.present)
			client_latency_clock(res, me, as ? as->last_cpu : -1);
		double my_cpu = session_end_cpu_percent(me);
		uint64_t my_drops = me->drops_end > me->drops_omit ? me->drops_end - me->drops_omit : 0;
		struct probe_figures *mine = me_sender ? &pd->sender : &pd->receiver;
		struct probe_figures *theirs = me_sender ? &pd->receiver : &pd->sender;
		mine->cpu_percent = my_cpu;
		theirs->cpu_percent = as ? as->cpu_percent : 0;
		if (c->p->proto == NS_PROTO_UDP)
			pd->receiver.kernel_drops = me_sender ? (as ? as->kernel_drops : 0) : my_drops;
		for (uint32_t i = 0; i < me->n && me->eng; i++)
			pd->streams[i].cpu = engine_stream_cpu(me->eng, i);
		placement_note(res, d, me, as, dur);
		if (me->eng && me_sender && engine_gso_active(me->eng))
			res->gso_active = true;
		if (me->eng && me_sender && c->p->zerocopy)
			client_note_zerocopy(res, &c->zc_errno, me->eng);
		if (as && !me_sender && as->gso_active)
			res->gso_active = true;
		if (d == 0) {
			const char *mine_mode = session_end_mode(me);
			const char *their_mode = as && as->mode[0] ? as->mode : "socket";
			if (!strcmp(mine_mode, "socket") && !strcmp(their_mode, "socket"))
				snprintf(res->engine_mode, sizeof(res->engine_mode), "socket");
			else
				snprintf(res->engine_mode, sizeof(res->engine_mode),
					 "sender %s, receiver %s", me_sender ? mine_mode : their_mode,
					 me_sender ? their_mode : mine_mode);
		}
		if ((as && !me_sender && as->held_by_cap) ||
		    (me_sender && session_end_held_by_cap(me, c->p->rate_bps)))
			client_warn(res, "the agent's --max-rate, shared by the tests it runs at "
				    "once, held its sending below the asked rate");
		if (as && !me_sender && as->zc_active) {
			res->zerocopy_active = true;
			res->zerocopy_sends += as->zc_sends;
			res->zerocopy_completions += as->zc_completions;
			res->zerocopy_copied += as->zc_copied;
		}
		if (me->n_ivl) {
			pd->intervals = me->ivl;
			pd->n_intervals = me->n_ivl;
			me->ivl = NULL;
			me->n_ivl = me->cap_ivl = 0;
			merge_agent_intervals(c, d, pd);
		}
		/* the receiver's series: what the link delivered, where a shaper's knee shows */
		if (me_sender)
			shaping_from_intervals(c->agent_ivl[d], c->agent_n_ivl[d], &pd->shaping);
		else
			shaping_from_intervals(pd->intervals, pd->n_intervals, &pd->shaping);
		if (me->truncated)
			client_warn(res, "interval series truncated at its bound");
		session_limit(me, as, c->p->rate_bps, pd);
		char lw[NS_ERR_MAX];
		limit_warning(&pd->limit, ns_dir_name(pd->dir), lw, sizeof(lw));
		if (lw[0])
			client_warn(res, lw);
	}
	res->n_dirs = c->n_ends;
	if (c->p->gso && !res->gso_active)
		client_warn(res, "--gso requested but UDP_SEGMENT was not used");
	if (c->n_ends && c->ends[0].fds && c->ends[0].fds[0] >= 0)
		res->tos_applied = sockopt_tos_applied(c->ends[0].fds[0]);
	res->dscp_applied = res->tos_applied >= 0 ? res->tos_applied >> 2 : -1;
	client_zerocopy_warnings(c->p, c->zc_errno, res);
	return 0;
}

/* Both ends' interface counters over the test, and whether the provider shaped it. */
static void client_free(struct client *c)
{
	session_end_destroy(&c->lat);
	niccount_free(&c->nic);
	longrun_free(&c->lr);
	for (uint32_t i = 0; i < 2; i++) {
		session_end_destroy(&c->ends[i]);
		free(c->agent_recs[i]);
		free(c->agent_ivl[i]);
	}
	if (c->ctl >= 0)
		close(c->ctl);
	free(c->buf);
}

int probe_run(const struct probe_params *p, struct probe_result *res, struct ns_err *err)
{
	return client_run(p, res, NULL, NULL, err);
}

static int run(const struct probe_params *p, struct probe_result *res, client_interval_fn fn,
	       void *arg, uint16_t hello_flags, int cancel_fd, bool *accepted,
	       struct budget *budget, struct client_sync *sync, struct ns_err *err);

int client_run(const struct probe_params *p, struct probe_result *res, client_interval_fn fn,
	       void *arg, struct ns_err *err)
{
	return run(p, res, fn, arg, 0, -1, NULL, NULL, NULL, err);
}

int probe_run_synced(const struct probe_params *p, struct probe_result *res,
		     struct client_sync *sync, struct ns_err *err)
{
	return run(p, res, NULL, NULL, 0, -1, NULL, NULL, sync, err);
}

int client_run_delegated(const struct probe_params *p, int cancel_fd, struct probe_result *res,
			 bool *accepted, struct budget *budget, struct ns_err *err)
{
	*accepted = false;
	return run(p, res, NULL, NULL, PROTO_HELLO_DELEGATED, cancel_fd, accepted, budget, NULL, err);
}

static int run(const struct probe_params *p, struct probe_result *res, client_interval_fn fn,
	       void *arg, uint16_t hello_flags, int cancel_fd, bool *accepted,
	       struct budget *budget, struct client_sync *sync, struct ns_err *err)
{
	struct client c;
	struct ns_err e = {0}, e2;
	memset(&c, 0, sizeof(c));
	memset(res, 0, sizeof(*res));
	res->params = *p;
	res->status = -1;
	res->tos_applied = res->dscp_applied = -1;
	c.p = &res->params;
	c.res = res;
	c.ctl = -1;
	c.on_interval = fn;
	c.on_interval_arg = arg;
	c.hello_flags = hello_flags;
	c.cancel_fd = cancel_fd;
	int cpus[UNITS_MAX_CPUS];
	uint32_t n_cpus = 0;
	bool started = false;
	struct probe_latency idle = {.present = false}; /* a latency probe's idle test */
	double idle_s = 0;

	if (probe_params_check(p, &e) < 0)
		goto fail;
	if (!p->host[0]) {
		ns_err_set(&e, "no agent host given");
		goto fail;
	}
	if (sockopt_fd_room(p, &e) < 0 || longrun_init(&c.lr, p, &e) < 0)
		goto fail;
	if (p->lat_probe[0]) { /* the idle window: the probe alone, before the load */
		probe_lat_params(p, &c.lp);
		struct probe_params ip;
		struct probe_result ir;
		client_lat_idle_params(p, &ip);
		int irc = run(&ip, &ir, NULL, NULL, hello_flags, cancel_fd, NULL, NULL, NULL, &e);
		client_lat_idle_take(res, &ir, &idle.sum, &idle_s);
		if (irc < 0) {
			ns_err_prefix(&e, "the latency probe's idle test");
			goto fail;
		}
	}
	if (p->proto == NS_PROTO_UDP && p->fq_rate_bps)
		client_warn(res, "UDP pacing with --fq-rate needs the fq qdisc on the sending "
				 "interface; without it SO_MAX_PACING_RATE does not pace UDP");
	double timeout = p->timeout_s > 0 ? p->timeout_s : p->omit_s + p->duration_s + 15;
	double conn_deadline = proto_now() + p->connect_timeout_s;
	c.deadline = conn_deadline + timeout;
	c.timeout_s = timeout;
	c.buf = malloc(PROTO_MAX_PAYLOAD);
	if (!c.buf) {
		ns_err_code(&e, NS_E_NOMEM, "out of memory");
		goto fail;
	}
	c.ctl = connect_ctl(&c, p->host, p->port, conn_deadline, &e);
	if (c.ctl < 0 || hello(&c, conn_deadline, &e) < 0)
		goto fail;
	placement_resolve(&res->params, c.ctl, res->cpu_placement, sizeof(res->cpu_placement));
	if (session_cpus(c.p, false, cpus, UNITS_MAX_CPUS, &n_cpus, &e) < 0)
		goto fail;

	struct proto_buf b;
	uint32_t len;
	proto_buf_init(&b);
	proto_enc_params(&b, c.p);
	int rc = proto_send_buf(c.ctl, PROTO_TEST_REQUEST, &b, conn_deadline, &e);
	proto_buf_free(&b);
	double setup_deadline = min_d(c.deadline, proto_now() + p->connect_timeout_s + 5);
	if (rc < 0 || client_ctl_expect(c.ctl, c.buf, PROTO_READY, &len, setup_deadline, &e) < 0 ||
	    proto_dec_ready(c.buf, len, &c.ready, &e) < 0)
		goto fail;
	c.accepted = true;

	if (p->lat_probe[0] && session_end_init(&c.lat, NS_DIR_FORWARD, ENGINE_SEND, 1, false, &e) < 0)
		goto fail;
	bool per_stream =
		(uint64_t)p->streams * session_expected_intervals(p) <= PROTO_MAX_STREAM_RECORDS;
	if (p->dir != NS_DIR_REVERSE &&
	    session_end_init(&c.ends[c.n_ends++], NS_DIR_FORWARD, ENGINE_SEND, p->streams,
			     per_stream, &e) < 0)
		goto fail;
	if (p->dir != NS_DIR_FORWARD &&
	    session_end_init(&c.ends[c.n_ends++], NS_DIR_REVERSE, ENGINE_RECV, p->streams,
			     per_stream, &e) < 0)
		goto fail;
	c.n_load = c.n_ends * p->streams;
	struct client_lat_ranges dr;
	client_lat_ranges(p->proto, c.n_load, c.lat.n ? &c.lp : NULL, &dr);
	double t_data = proto_now();
	double data_deadline = min_d(c.deadline, t_data + p->connect_timeout_s);
	double data_s = data_deadline - t_data;
	if ((dr.n_tcp &&
	     open_tcp_streams(&c, dr.tcp_first, dr.n_tcp, data_s, data_deadline, &e) < 0) ||
	    (dr.n_udp &&
	     open_udp_streams(&c, dr.udp_first, dr.n_udp, data_s, data_deadline, &e) < 0))
		goto fail;
	for (uint32_t i = 0; i < c.n_ends; i++) /* --dont-fragment: over the path MTU is refused */
		if (c.ends[i].role == ENGINE_SEND && sockopt_check_mtu(c.ends[i].fds[0], c.p, &e) < 0)
			goto fail;
	/* late echoes of the UDP greeting must go before START: after it, data arrives */
	for (uint32_t i = 0; i < c.n_ends; i++)
		if (c.ends[i].role == ENGINE_RECV && NS_PROTO_DGRAM(p->proto))
			client_drain(c.ends[i].fds, c.ends[i].n);
	if (c.lat.n && c.lp.proto == NS_PROTO_UDP)
		client_drain(c.lat.fds, 1);
	if (niccount_begin(&c.nic, (struct sockaddr *)&c.peer, c.peer_len, &e2) < 0)
		client_warn(res, e2.msg);
	if (sync) /* a group's tests start together: wait for the others */
		sync->ready(sync->arg);
	client_wait_until(p->start_at); /* and a group's client agents at its common start */
	if (start_exchange(&c, &e) < 0)
		goto fail;
	res->started_unix = probe_wall_now();
	uint32_t threads = session_threads(p);
	for (int pass = 0; pass < 2; pass++) /* receivers first, so nothing waits unread */
		for (uint32_t i = 0; i < c.n_ends; i++) {
			struct session_end *se = &c.ends[i];
			if ((pass == 0) != (se->role == ENGINE_RECV))
				continue;
			se->cookie = c.ready.cookie;
			memcpy(se->quic.peer_sha256, c.ready.cert_sha256, QUIC_SHA256_LEN); /* zeros: none */
			if (!strcmp(c.p->rr, "crr")) { /* each transaction connects to the data port */
				se->crr_addr = c.peer;
				se->crr_addr_len = c.peer_len;
				client_sa_set_port(&se->crr_addr, c.ready.data_port);
			}
			se->budget = budget;
			if (session_end_start(se, c.p, threads, cpus, n_cpus, &e) < 0)
				goto fail;
			if (se->xdp_refused[0]) {
				char w[NS_ERR_MAX + 64];
				snprintf(w, sizeof(w), "this end runs the socket engine: %s",
					 se->xdp_refused);
				client_warn(res, w);
			}
		}
	c.lat.cookie = c.ready.cookie;
	if (c.lat.n && session_end_start(&c.lat, &c.lp, 1, NULL, 0, &e) < 0)
		goto fail;
	started = true;
	if (run_loop(&c, &e) < 0)
		goto fail;
	for (uint32_t i = 0; i < c.n_ends; i++)
		if (c.ends[i].role == ENGINE_SEND)
			session_end_finish(&c.ends[i], 0);
	session_end_finish(&c.lat, 0);
	if (send_empty(&c, PROTO_STOP, &e) < 0 || collect_results(&c, &e) < 0)
		goto fail;
	for (uint32_t i = 0; i < c.n_ends; i++)
		if (c.ends[i].role == ENGINE_RECV)
			session_end_finish(&c.ends[i], CLIENT_DRAIN_S);
	client_note_nics(c.res, &c.nic,
			 c.agent_done && c.agent.n_dirs > 0 ? &c.agent.dirs[0].nic : NULL);
	if (compute(&c, &e) < 0 ||
	    (c.lat.n && client_lat_result(res, &c.lp, &idle.sum, idle_s, &c.lat, &e) < 0))
		goto fail;
	longrun_ended(&c.lr, c.n_ends, res);
	res->status = 0;
	client_free(&c);
	return 0;

fail:
	/* whatever was measured stays in res; the error says why it is partial */
	if (started) {
		if (c.ctl >= 0)
			proto_send_error(c.ctl, PROTO_E_ABORT, e.msg);
		for (uint32_t i = 0; i < c.n_ends; i++)
			session_end_finish(&c.ends[i], 0);
		compute(&c, &e2);
	}
	res->status = -1;
	snprintf(res->error, sizeof(res->error), "%s", e.msg[0] ? e.msg : "probe failed");
	ns_err_code(err, e.code ? e.code : NS_E_FAIL, "%s", res->error); /* the runner acts on it */
	if (accepted)
		*accepted = c.accepted;
	client_free(&c);
	return -1;
}
