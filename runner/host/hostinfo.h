/* hostinfo: what a result needs to be interpreted — the NIC and its driver family, kernel, CPUs,
 * IRQ CPUs, qdisc, and on EC2 the instance type, region and AZ (IMDSv2).
 * The JSON it produces is stored per endpoint in the database; its keys are a contract
 * documented in schemas/hostinfo.md and read by the runner (driver check) and the report. */
#ifndef NS_HOSTINFO_H
#define NS_HOSTINFO_H

#include <stdbool.h>

#include "lib/err.h"

struct hostinfo_opts {
	const char *peer;          /* address whose route picks the interface; NULL = default route */
	bool imds;                 /* query the EC2 instance metadata service */
	const char *imds_addr;     /* "169.254.169.254:80" unless overridden (tests: loopback) */
	double imds_timeout_s;     /* whole metadata exchange, default 0.5 s */
};

void hostinfo_opts_init(struct hostinfo_opts *o);

/* Collects the host's information as a JSON object (malloc'd into *json). Missing facts are
 * null, never guessed; only a failure to produce any JSON at all returns -1. */
int hostinfo_collect_json(const struct hostinfo_opts *o, char **json, struct ns_err *err);

/* Whether the firmware says this is an EC2 instance (DMI vendor or "ec2" UUID). The default
 * metadata address is only contacted when it does; an explicit imds_addr always is. */
bool hostinfo_looks_like_ec2(void);

/* Whether UDP sent towards peer (NULL = default route) is paced by SO_MAX_PACING_RATE
 * (--fq-rate): 1 when that interface's root qdisc is fq (or mq/mqprio with fq leaves), 0 when
 * not — warn then —, -1 when it cannot be told (err says why). TCP paces without fq. */
int hostinfo_fq_paces(const char *peer, struct ns_err *err);

/* The same facts as a readable table (malloc'd into *text), for `netsweep hostinfo`. */
int hostinfo_collect_text(const struct hostinfo_opts *o, char **text, struct ns_err *err);

/* "ixgbevf" -> "ixgbevf", "xen_netfront"/"vif" -> "vif", "ena" -> "ena", others by name. */
const char *hostinfo_driver_family(const char *driver);

#endif
