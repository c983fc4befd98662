/* labnet: the lab's links on this host — a namespace per emulated pair, a veth between this
 * host (the client instance) and the namespace (the agent instance), tbf on both ends, and
 * the agent inside. Everything runs `ip` and `tc` by fork/exec with an argument vector (no
 * shell), so a name can never become a command. */
#ifndef NS_LAB_LABNET_H
#define NS_LAB_LABNET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/err.h"
#include "shape.h"

#define LAB_NAME_MAX 16   /* interface names: 15 bytes and a NUL */
#define LAB_AGENT_PORT 5301

struct lab_link {
	char ns[LAB_NAME_MAX];       /* the namespace; the host's end of the veth has its name too */
	unsigned slot;               /* 198.18.SLOT.0/24 (RFC 2544's benchmarking range) */
	char host_addr[32];          /* 198.18.SLOT.1: this host's end */
	char agent_addr[32];         /* 198.18.SLOT.2: the namespace's end */
};

/* Runs argv[0] (found in PATH) and waits; its stderr's first line goes into err on failure. */
int labnet_run(const char *const *argv, struct ns_err *err);

void labnet_link_init(struct lab_link *l, const char *prefix, unsigned slot);
/* Creates namespace, veth and addresses, then shapes both directions. On failure it removes
 * what it made. */
int labnet_create(const struct lab_link *l, const struct lab_shape *s, struct ns_err *err);
/* Starts `SELF agent --listen AGENT_ADDR:PORT` in the namespace, detached (its own session,
 * output to log), and waits until it accepts a connection. psk_file "" = none; delegate: the
 * agent runs tests on a runner's behalf (a lab client's). */
int labnet_start_agent(const struct lab_link *l, const char *self, const char *log,
		       const char *psk_file, bool delegate, pid_t *pid, struct ns_err *err);

/* Incast: the server link's host end joins a bridge (named as the namespace with a "b"),
 * which takes over its address, so that client namespaces on the bridge share its subnet and
 * reach the server only through that end's tbf: the one shaped bottleneck in front of the
 * server. labnet_destroy of the server's namespace removes the bridge. */
int labnet_bridge(const struct lab_link *server, struct ns_err *err);
/* A client namespace cl->ns on the server's bridge, its eth0 at cl->agent_addr (an address of
 * the server's subnet), unshaped. On failure it removes what it made. */
int labnet_create_client(const struct lab_link *cl, const struct lab_link *server,
			 struct ns_err *err);
/* Removes the host's veth end (its peer goes with it), ends every process in the namespace
 * (TERM, then KILL) and deletes it. Whatever is already gone is not an error. */
int labnet_destroy(const char *ns, struct ns_err *err);
/* Namespaces named PREFIX-N (ip netns's /run/netns), up to cap; returns the count. */
size_t labnet_list(const char *prefix, char (*names)[LAB_NAME_MAX], size_t cap);
/* Whether this host has an address in 198.18.SLOT.0/24 (another lab's link, any prefix). */
int labnet_slot_in_use(unsigned slot);
/* Whether a namespace of that name exists. */
int labnet_exists(const char *ns);

#endif
