/* lab: emulated instance pairs on this host and the state that lets `lab down` find them
 * again after any crash — one JSON file per namespace in the state directory, written before
 * the namespace exists, and namespaces named PREFIX-SLOT. Uses labnet for the links. */
#ifndef NS_LAB_LAB_H
#define NS_LAB_LAB_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/err.h"
#include "lib/jsonw.h"
#include "labnet.h"
#include "shape.h"

#define LAB_DEFAULT_PREFIX "nslab"
#define LAB_DEFAULT_DIR "/run/netsweep-lab"
#define LAB_MAX_SLOTS 250
#define LAB_PREFIX_MAX 10  /* PREFIX-SLOT fits an interface name */

struct lab {
	char dir[256];      /* state directory */
	char prefix[LAB_PREFIX_MAX + 1];
	int lock_fd;        /* flock on DIR/lock while up or down works */
};

/* Client namespaces an incast pair may have (lab up --clients). */
#define LAB_MAX_CLIENTS 16
/* Clients' addresses on the server's subnet: 198.18.SLOT.(LAB_CLIENT_HOST0 + k). */
#define LAB_CLIENT_HOST0 11

struct lab_client {
	struct lab_link link;       /* its namespace; agent_addr is its address on the bridge */
	pid_t agent_pid;
};

struct lab_pair {
	char pair[64];
	char type[64];
	/* where the instances it stands for would run (lab up --matrix: the pair's client-zone,
	 * agent-zone, client-region, agent-region; "" = not said): the pair JSON carries them to
	 * run --lab, whose transfer pricing needs the pair's relation (v_cost_total) */
	char client_zone[64], agent_zone[64], client_region[32], agent_region[32];
	struct lab_shape shape;
	const char *scale_text;   /* as the user wrote it ("1/100") */
	char psk_file[256];       /* the key its agent proves: the caller's, else the lab's own */
	struct lab_link link;
	pid_t agent_pid;
	/* incast: client namespaces on a bridge in front of the shaped server link, each with
	 * an agent that sends on a runner's behalf (the JSON's "clients") */
	size_t n_clients;
	struct lab_client clients[LAB_MAX_CLIENTS];
};

/* Opens (creating) the state directory and takes its lock. dir NULL: $NETSWEEP_LAB_DIR, else
 * LAB_DEFAULT_DIR. */
int lab_open(struct lab *lab, const char *dir, const char *prefix, struct ns_err *err);
void lab_close(struct lab *lab);

/* Brings one pair up: a free slot, its state file, the link, the agent, and with n_clients
 * its bridge and client namespaces (each a slot and state file of the pair's name, so that
 * lab down --pair removes them with it). On failure nothing of it is left. self is the netsweep binary the agent runs. psk_file NULL or "": the lab's own
 * key, DIR/PREFIX.psk (mode 0600), made by the first pair that needs it and removed with the
 * prefix's last pair; p->psk_file says which key the agent has. */
int lab_pair_up(struct lab *lab, struct lab_pair *p, const char *self, const char *psk_file,
		struct ns_err *err);
/* The pair as `lab up` prints it (also its state file's content). */
void lab_pair_json(struct jsonw *w, const struct lab_pair *p);

/* Removes every namespace of the prefix (state file or not) or, with pair, only that pair's,
 * and the lab's own key once no pair of the prefix is left. Returns how many were removed,
 * -1 when one could not be. */
int lab_down(struct lab *lab, const char *pair, struct ns_err *err);
/* Whether a pair of that name is up under this prefix. */
bool lab_has_pair(struct lab *lab, const char *pair);
/* Writes the state files of this prefix as a JSON array of pair objects. */
int lab_status(struct lab *lab, struct jsonw *w, struct ns_err *err);

#endif
