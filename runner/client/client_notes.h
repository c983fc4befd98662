/* client_notes: what a result says about how it was made, besides its figures — its warnings
 * ("; "-separated), what -Z really did, and where a request/response test's requester ran and
 * why its figures are round trips. Below client.c, which fills a result with them. */
#ifndef NS_CLIENT_NOTES_H
#define NS_CLIENT_NOTES_H

#include "runner/engine/engine.h"
#include "runner/host/niccount.h"
#include "runner/proto/probe.h"
#include "runner/session/session.h"

/* Appends w to res->warnings (bounded: a warning past the buffer is cut). */
void client_warn(struct probe_result *res, const char *w);

/* Adds this end's sending engine's zero-copy counters to res; *zc_errno keeps the first
 * reason it fell back from -Z. */
void client_note_zerocopy(struct probe_result *res, int *zc_errno, const struct engine *eng);
/* -Z fell back (or the kernel copied every send): the reason, as a warning. */
void client_zerocopy_warnings(const struct probe_params *p, int zc_errno, struct probe_result *res);

/* Both ends' interface counters over the test (this end's from nic, the agent's as it said
 * them; NULL = none) and whether the provider shaped either. */
void client_note_nics(struct probe_result *res, struct niccount *nic,
		      const struct probe_nic *agent);

/* Request/response: both ends' CPUs (the requester's, and agent_cpu the agent said its
 * answerer ran on), the clock state, and why the figures are round trips only (never a
 * one-way figure without a clock bound that allows it). */
void client_latency_clock(struct probe_result *res, const struct session_end *me,
			  int32_t agent_cpu);

#endif
