/* gate: every accepted connection goes through here before it may take a test slot —
 * an address check, HELLO (a version this agent speaks), with a key the HMAC challenge-response
 * of auth.h proven both ways, then one request. Nothing about the host is sent, and no test
 * request is read, before the key is proven. All connections are served together by one poll:
 * reads are non-blocking and byte-exact (a header, then its payload), and each connection has
 * AGENT_AUTH_S to prove the key, then AGENT_REQUEST_S to send its request. Until the key is
 * proven a connection owns a few hundred bytes; the request buffer comes after. Slots are
 * shared fairly between source addresses and networks (find_slot), proven or not. */
#include "gate.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/session/sockopt.h"

enum pend_state { P_FREE, P_HELLO, P_AUTH, P_REQUEST };

struct pend {
	enum pend_state state;
	int fd;
	double deadline;
	uint8_t hdr[PROTO_HDR_LEN];
	uint32_t hdr_have;
	bool have_hdr;
	uint16_t type;
	uint32_t len, have;
	uint8_t small[AUTH_RESPONSE_LEN];   /* the payload before the key is proven */
	uint8_t *buf;                       /* the request's, once proven */
	uint8_t na[AUTH_NONCE_LEN];
	uint16_t hello_flags;
	struct sockaddr_storage peer;
	socklen_t peer_len;
	char name[INET6_ADDRSTRLEN];
	uint8_t addr[16];                   /* the peer's address (IPv4 as ::ffff:a.b.c.d) */
	uint8_t pfx[16];                    /* ... its /24 (IPv4) or /64 (IPv6) */
};

struct gate {
	struct agent *a;
	gate_ready_fn ready;
	struct pend *p;                     /* AGENT_MAX_PENDING */
	int map[AGENT_MAX_PENDING];         /* pollfd index -> slot */
	int n_map;
};

struct gate *gate_create(struct agent *a, gate_ready_fn ready, struct ns_err *err)
{
	struct gate *g = calloc(1, sizeof(*g));
	if (g)
		g->p = calloc(AGENT_MAX_PENDING, sizeof(*g->p));
	if (!g || !g->p) {
		free(g);
		ns_err_code(err, NS_E_NOMEM, "out of memory");
		return NULL;
	}
	g->a = a;
	g->ready = ready;
	for (int i = 0; i < AGENT_MAX_PENDING; i++)
		g->p[i].fd = -1;
	return g;
}

static void drop(struct pend *p)
{
	if (p->fd >= 0)
		close(p->fd);
	free(p->buf);
	memset(p, 0, sizeof(*p));
	p->fd = -1;
	p->state = P_FREE;
}

void gate_destroy(struct gate *g)
{
	if (!g)
		return;
	for (int i = 0; i < AGENT_MAX_PENDING; i++)
		drop(&g->p[i]);
	free(g->p);
	free(g);
}

static void peer_name(const struct sockaddr_storage *ss, socklen_t len, char *out, size_t cap)
{
	if (getnameinfo((const struct sockaddr *)ss, len, out, (socklen_t)cap, NULL, 0,
			NI_NUMERICHOST) != 0)
		snprintf(out, cap, "?");
	/* an IPv4 client of the dual-stack socket: its plain address */
	if (!strncmp(out, "::ffff:", 7) && strchr(out, '.'))
		memmove(out, out + 7, strlen(out + 7) + 1);
}

/* The keys a connection is counted under: its address, and its /24 or /64. */
static void addr_key(const struct sockaddr_storage *ss, uint8_t addr[16], uint8_t pfx[16])
{
	memset(addr, 0, 16);
	if (ss->ss_family == AF_INET) {
		addr[10] = addr[11] = 0xff;
		memcpy(addr + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	} else {
		memcpy(addr, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
	}
	bool v4 = !memcmp(addr, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12);
	memcpy(pfx, addr, 16);
	memset(pfx + (v4 ? 15 : 8), 0, v4 ? 1 : 8);
}

static int cmp_pfx(const void *x, const void *y)
{
	const struct pend *const *a = x, *const *b = y;
	return memcmp((*a)->pfx, (*b)->pfx, 16);
}

/* The slot the newcomer from addr (in pfx) takes: its own address's oldest once that holds
 * AGENT_PENDING_PER_ADDR, its network's oldest once that holds AGENT_PENDING_PER_PREFIX, else a
 * free one, else the oldest of the network that holds the most. So a flood from one place
 * churns only its own slots, and a client elsewhere keeps its slot for its whole deadline
 * (AGENT_AUTH_S, then AGENT_REQUEST_S), whatever arrives after it. */
static struct pend *find_slot(struct gate *g, const uint8_t addr[16], const uint8_t pfx[16],
			      int per_addr, int per_prefix)
{
	struct pend *free_slot = NULL, *own = NULL, *net = NULL;
	int n_own = 0, n_net = 0;
	for (int i = 0; i < AGENT_MAX_PENDING; i++) {
		struct pend *p = &g->p[i];
		if (p->state == P_FREE) {
			if (!free_slot)
				free_slot = p;
			continue;
		}
		if (memcmp(p->pfx, pfx, 16))
			continue;
		n_net++;
		if (!net || p->deadline < net->deadline)
			net = p;
		if (memcmp(p->addr, addr, 16))
			continue;
		n_own++;
		if (!own || p->deadline < own->deadline)
			own = p;
	}
	if (n_own >= per_addr)
		return own;
	if (n_net >= per_prefix)
		return net;
	if (free_slot)
		return free_slot;
	/* full, from many networks: the biggest gives way (sorted by network: runs are groups) */
	struct pend *by[AGENT_MAX_PENDING], *victim = NULL;
	int best = 0;
	for (int i = 0; i < AGENT_MAX_PENDING; i++)
		by[i] = &g->p[i];
	qsort(by, AGENT_MAX_PENDING, sizeof(by[0]), cmp_pfx);
	for (int i = 0, j; i < AGENT_MAX_PENDING; i = j) {
		struct pend *old = by[i];
		for (j = i + 1; j < AGENT_MAX_PENDING && !cmp_pfx(&by[i], &by[j]); j++)
			if (by[j]->deadline < old->deadline)
				old = by[j];
		if (j - i > best) {
			best = j - i;
			victim = old;
		}
	}
	return victim;
}

/* The last message of a connection: ERROR with its reason, sent without waiting and kept
 * until the client read it (agent_linger); closed at once when it does not fit. The reasons
 * name what the agent checked — an address, a share, a wait — never anything of the key. */
static void tell(struct agent *a, int fd, uint16_t code, const char *why)
{
	struct proto_buf b, out;
	uint8_t hdr[PROTO_HDR_LEN];
	proto_buf_init(&b);
	proto_buf_init(&out);
	proto_enc_error(&b, code, why);
	proto_header_pack(hdr, PROTO_ERROR, (uint32_t)b.len);
	proto_put_bytes(&out, hdr, sizeof(hdr));
	proto_put_bytes(&out, b.p, b.len);
	if (!out.oom && send(fd, out.p, out.len, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)out.len)
		agent_linger(a, fd);
	else
		close(fd);
	proto_buf_free(&b);
	proto_buf_free(&out);
}

static void tell_and_drop(struct gate *g, struct pend *p, uint16_t code, const char *why)
{
	if (p->fd >= 0)
		tell(g->a, p->fd, code, why);
	p->fd = -1;
	drop(p);
}

/* The handshake share of an address: a --trust block's, else AGENT_PENDING_PER_ADDR. */
static int share_of(const struct agent *a, const struct sockaddr_storage *ss)
{
	for (unsigned i = 0; i < a->n_trust; i++)
		if (cidr_match(&a->trust[i], (const struct sockaddr *)ss))
			return (int)a->trust_n[i];
	return AGENT_PENDING_PER_ADDR;
}

int gate_parse_trust(struct agent *a, const char *s, struct ns_err *err)
{
	char item[128];
	a->n_trust = 0;
	for (const char *p = s; *p;) {
		size_t len = strcspn(p, ",");
		if (len == 0 || len >= sizeof(item))
			return ns_err_code(err, NS_E_USAGE, "--trust: '%.*s' is not CIDR[:N]",
					   (int)len, p);
		if (a->n_trust >= AGENT_MAX_TRUST)
			return ns_err_code(err, NS_E_USAGE, "--trust: at most %d blocks",
					   AGENT_MAX_TRUST);
		memcpy(item, p, len);
		item[len] = '\0';
		unsigned n = AGENT_TRUST_DEFAULT;
		char *slash = strchr(item, '/'), *colon = slash ? strchr(slash, ':') : NULL;
		if (!slash && strchr(item, '.') && strchr(item, ':'))
			colon = strchr(item, ':'); /* 192.0.2.7:100 */
		if (colon) {
			char *end;
			unsigned long v = strtoul(colon + 1, &end, 10);
			if (*end || colon[1] == '\0' || v < 1 || v > AGENT_MAX_PENDING)
				return ns_err_code(err, NS_E_USAGE, "--trust %s: the share after ':' is "
						   "1..%d connections in their handshake", item,
						   AGENT_MAX_PENDING);
			n = (unsigned)v;
			*colon = '\0';
		}
		if (cidr_parse(item, &a->trust[a->n_trust], err) < 0) {
			ns_err_prefix(err, "--trust");
			return -1;
		}
		a->trust_n[a->n_trust++] = n;
		p += len + (p[len] == ',');
	}
	return 0;
}

void gate_accept(struct gate *g, int fd)
{
	struct agent *a = g->a;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char name[INET6_ADDRSTRLEN];
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) < 0) {
		close(fd);
		return;
	}
	peer_name(&ss, sl, name, sizeof(name));
	char why[256];
	if (a->allow.n && !cidr_match(&a->allow, (struct sockaddr *)&ss)) {
		agent_log_limited(a, "%s: refused: not in --allow", name);
		snprintf(why, sizeof(why), "this agent serves only the address blocks of "
			 "its --allow, and %s is not in them", name);
		tell(a, fd, PROTO_E_ADDRESS, why);
		return;
	}
	if (!a->key.len && !cidr_is_loopback((struct sockaddr *)&ss)) {
		agent_log_limited(a, "%s: refused: without --psk-file only loopback clients are served",
				  name);
		tell(a, fd, PROTO_E_ADDRESS, "this agent has no key (--psk-file) and serves "
		     "loopback clients only");
		return;
	}
	uint8_t addr[16], pfx[16];
	addr_key(&ss, addr, pfx);
	int share = share_of(a, &ss);
	struct pend *slot = find_slot(g, addr, pfx, share,
				      share > AGENT_PENDING_PER_PREFIX ? share
								       : AGENT_PENDING_PER_PREFIX);
	if (slot->state != P_FREE) {
		bool own = !memcmp(slot->addr, addr, 16);
		agent_log_limited(a, "%s: dropped: too many connections in their handshake from %s",
				  slot->name, own ? "it" : "its network");
		snprintf(why, sizeof(why), "too many connections in their handshake from %s "
			 "(at most %d at once from one address, %d from one network); try again "
			 "later, or ask the agent's operator to --trust your network", own
			 ? "your address" : slot->addr[10] == 0xff ? "your /24" : "your /64",
			 share, share > AGENT_PENDING_PER_PREFIX ? share : AGENT_PENDING_PER_PREFIX);
		tell_and_drop(g, slot, PROTO_E_FULL, why);
	}
	memcpy(slot->addr, addr, 16);
	memcpy(slot->pfx, pfx, 16);
	slot->fd = fd;
	slot->state = P_HELLO;
	slot->deadline = proto_now() + AGENT_AUTH_S;
	slot->peer = ss;
	slot->peer_len = sl;
	snprintf(slot->name, sizeof(slot->name), "%s", name);
	sockopt_nodelay(fd, NULL);
}

int gate_pollfds(struct gate *g, struct pollfd *pfd)
{
	g->n_map = 0;
	for (int i = 0; i < AGENT_MAX_PENDING; i++)
		if (g->p[i].state != P_FREE) {
			pfd[g->n_map] = (struct pollfd){.fd = g->p[i].fd, .events = POLLIN};
			g->map[g->n_map++] = i;
		}
	return g->n_map;
}

/* Sends frames a fresh connection's empty socket buffer takes whole; anything less is a
 * client not reading, dropped. */
static int send_now(int fd, const uint8_t *p, size_t n)
{
	ssize_t w = send(fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
	return w == (ssize_t)n ? 0 : -1;
}

static void frame(struct proto_buf *out, uint16_t type, const struct proto_buf *body)
{
	uint8_t hdr[PROTO_HDR_LEN];
	proto_header_pack(hdr, type, body ? (uint32_t)body->len : 0);
	proto_put_bytes(out, hdr, sizeof(hdr));
	if (body)
		proto_put_bytes(out, body->p, body->len);
}

/* The connection's last message: ERROR, kept until the client read it. */
static void refuse(struct gate *g, struct pend *p, uint16_t code, const char *why)
{
	struct proto_buf b, out;
	proto_buf_init(&b);
	proto_buf_init(&out);
	proto_enc_error(&b, code, why);
	frame(&out, PROTO_ERROR, &b);
	agent_log_limited(g->a, "%s: refused: %s", p->name, why);
	if (!out.oom && send_now(p->fd, out.p, out.len) == 0) {
		agent_linger(g->a, p->fd);
		p->fd = -1;
	}
	proto_buf_free(&b);
	proto_buf_free(&out);
	drop(p);
}

static int to_request(struct pend *p)
{
	if (!(p->buf = malloc(PROTO_MAX_PAYLOAD + 1)))
		return -1;
	p->state = P_REQUEST;
	p->deadline = proto_now() + AGENT_REQUEST_S;
	return 0;
}

static void on_hello(struct gate *g, struct pend *p)
{
	struct proto_hello h;
	struct ns_err err = {0};
	if (p->type != PROTO_HELLO) {
		refuse(g, p, PROTO_E_UNEXPECTED, "expected HELLO");
		return;
	}
	if (proto_dec_hello(p->small, p->len, &h, &err) < 0) {
		char why[160];
		if (err.code == NS_E_PROTOCOL) /* the magic is right, the version another */
			snprintf(why, sizeof(why), "the client speaks control protocol version %u, "
				 "this agent %d: both ends need the same netsweep release",
				 (unsigned)h.version, PROTO_VERSION);
		refuse(g, p, PROTO_E_VERSION, err.code == NS_E_PROTOCOL ? why : err.msg);
		return;
	}
	p->hello_flags = h.flags;
	struct proto_buf b, out;
	proto_buf_init(&b);
	proto_buf_init(&out);
	h.version = PROTO_VERSION;
	h.flags = g->a->key.len ? PROTO_HELLO_AUTH : 0;
	proto_enc_hello(&b, &h);
	frame(&out, PROTO_HELLO, &b);
	int rc = 0;
	if (g->a->key.len) {
		struct proto_buf c;
		proto_buf_init(&c);
		rc = auth_random(p->na, sizeof(p->na), &err);
		auth_enc_challenge(&c, p->na);
		frame(&out, PROTO_AUTH_CHALLENGE, &c);
		proto_buf_free(&c);
		p->state = P_AUTH;
	} else {
		rc = to_request(p);
	}
	if (rc < 0 || out.oom || send_now(p->fd, out.p, out.len) < 0)
		drop(p);
	proto_buf_free(&b);
	proto_buf_free(&out);
}

static void on_auth(struct gate *g, struct pend *p)
{
	struct ns_err err = {0};
	uint8_t proof[AUTH_MAC_LEN];
	if (p->type != PROTO_AUTH_RESPONSE) {
		refuse(g, p, PROTO_E_AUTH, "authentication failed");
		return;
	}
	if (auth_agent_check(&g->a->key, p->na, p->small, p->len, proof, &err) < 0) {
		refuse(g, p, PROTO_E_AUTH, "authentication failed");
		return;
	}
	struct proto_buf b, out;
	proto_buf_init(&b);
	proto_buf_init(&out);
	proto_put_bytes(&b, proof, sizeof(proof));
	frame(&out, PROTO_AUTH_RESPONSE, &b);
	if (out.oom || send_now(p->fd, out.p, out.len) < 0 || to_request(p) < 0)
		drop(p);
	proto_buf_free(&b);
	proto_buf_free(&out);
}

static void on_request(struct gate *g, struct pend *p)
{
	struct conn *c = calloc(1, sizeof(*c));
	if (!c) {
		drop(p);
		return;
	}
	c->a = g->a;
	c->ctl = p->fd;
	c->buf = p->buf;
	c->req_type = p->type;
	c->req_len = p->len;
	c->hello_flags = p->hello_flags;
	c->peer = p->peer;
	c->peer_len = p->peer_len;
	c->local_len = sizeof(c->local);
	getsockname(p->fd, (struct sockaddr *)&c->local, &c->local_len);
	snprintf(c->peer_name, sizeof(c->peer_name), "%s", p->name);
	int fl = fcntl(p->fd, F_GETFL); /* the session's waits poll, then block */
	if (fl >= 0)
		fcntl(p->fd, F_SETFL, fl & ~O_NONBLOCK);
	p->fd = -1;
	p->buf = NULL;
	drop(p);
	g->ready(g->a, c);
}

/* The bound of the frame expected in this state: before the key is proven, only the few
 * bytes of HELLO and AUTH_RESPONSE are read. */
static uint32_t max_len(const struct pend *p)
{
	return p->state == P_REQUEST ? PROTO_MAX_PAYLOAD : sizeof(p->small);
}

/* Reads what is there; on a whole frame, acts on it. */
static void on_readable(struct gate *g, struct pend *p)
{
	struct ns_err err = {0};
	for (;;) {
		uint8_t *dst;
		size_t want;
		if (!p->have_hdr) {
			dst = p->hdr + p->hdr_have;
			want = sizeof(p->hdr) - p->hdr_have;
		} else {
			dst = (p->state == P_REQUEST ? p->buf : p->small) + p->have;
			want = p->len - p->have;
		}
		ssize_t got = want ? recv(p->fd, dst, want, MSG_DONTWAIT) : 0;
		if (want && got == 0) {
			if (p->state != P_REQUEST)
				agent_log_limited(g->a, "%s: closed during the handshake", p->name);
			drop(p);
			return;
		}
		if (got < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				drop(p);
			return;
		}
		if (!p->have_hdr) {
			p->hdr_have += (uint32_t)got;
			if (p->hdr_have < sizeof(p->hdr))
				continue;
			if (proto_header_parse(p->hdr, &p->type, &p->len, &err) < 0) {
				refuse(g, p, PROTO_E_BAD_REQUEST, err.msg);
				return;
			}
			if (p->len > max_len(p)) {
				refuse(g, p, p->state == P_AUTH ? PROTO_E_AUTH : PROTO_E_BAD_REQUEST,
				       p->state == P_AUTH ? "authentication failed"
							  : "expected HELLO");
				return;
			}
			p->have_hdr = true;
			p->have = 0;
		} else {
			p->have += (uint32_t)got;
		}
		if (p->have < p->len)
			continue;
		/* a whole frame */
		p->have_hdr = false;
		p->hdr_have = 0;
		switch (p->state) {
		case P_HELLO:
			on_hello(g, p);
			break;
		case P_AUTH:
			on_auth(g, p);
			break;
		case P_REQUEST:
			on_request(g, p);
			return;
		case P_FREE:
			return;
		}
		if (p->state == P_FREE || p->state == P_REQUEST)
			return; /* the client sends its request once it read our answer */
	}
}

int gate_step(struct gate *g, const struct pollfd *pfd, int n)
{
	for (int k = 0; k < n && k < g->n_map; k++) {
		struct pend *p = &g->p[g->map[k]];
		if (p->state != P_FREE && pfd[k].revents)
			on_readable(g, p);
	}
	double now = proto_now(), next = now + 1.0;
	for (int i = 0; i < AGENT_MAX_PENDING; i++) {
		struct pend *p = &g->p[i];
		if (p->state == P_FREE)
			continue;
		if (now >= p->deadline) {
			static const char *const awaited[] = {
				[P_HELLO] = "HELLO", [P_AUTH] = "AUTH_RESPONSE",
				[P_REQUEST] = "a request (TEST_REQUEST, HOSTINFO_REQUEST, "
					      "STATUS_REQUEST or DELEGATE_REQUEST)"};
			char from[PROTO_ADDR_NAME_LEN], agent[PROTO_ADDR_NAME_LEN];
			proto_sa_name((struct sockaddr *)&p->peer, p->peer_len, true, from,
				      sizeof(from));
			proto_addr_name(p->fd, true, agent, sizeof(agent));
			double waited = p->state == P_REQUEST ? AGENT_REQUEST_S : AGENT_AUTH_S;
			agent_log_limited(g->a, "%s: dropped: timed out after %g s waiting for %s "
					  "from %s (agent %s)", p->name, waited, awaited[p->state],
					  from, agent);
			char why[200];
			snprintf(why, sizeof(why), "the agent waited %g s for %s from you",
				 waited, awaited[p->state]);
			tell_and_drop(g, p, PROTO_E_TIMEOUT, why);
		} else if (p->deadline < next) {
			next = p->deadline;
		}
	}
	int ms = (int)((next - now) * 1000) + 1;
	return ms < 1 ? 1 : ms;
}
