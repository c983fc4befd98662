/* run_pairs: a run's pairs before its first case — agents (the loopback one forked), the host
 * information of both ends, driver / instance-type checks, endpoint rows, the catalog snapshot. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cost.h"
#include "lib/sql/jsonr.h"
#include "lib/units.h"
#include "runner/client/client.h"
#include "lib/catalog/catalog.h"
#include "runner/host/hostinfo.h"
#include "hooks.h"
#include "runner/store/store_catalog.h"
#include "runner/pairs/loopback.h"
#include "run_int.h"

/* ---- run start: endpoints, host information, catalog --------------------------------------- */

/* A hostinfo's "$.interface.irq_cpus" array ([0,1,...,95]) as a compact CPU list ("0-95")
 * in buf, which then fits the probe's affinity. Returns 1 when set, 0 when absent or empty,
 * -1 when unusable (too long, not a CPU list): buf = "" and why says why; never a cut list. */
static int irq_cpulist(const char *info, char *buf, size_t len, char *why,
		       size_t wlen)
{
	enum { JSON_MAX = UNITS_MAX_CPUS * 5 + 2 }; /* "[0,...,4095]" */
	char *json = malloc(JSON_MAX), *list = malloc(JSON_MAX);
	int *cpus = malloc(UNITS_MAX_CPUS * sizeof(int));
	int rc = -1, got = json && list && cpus ? jsonr_get_once(info, "$.interface.irq_cpus",
								 json, JSON_MAX, NULL) : -2;
	buf[0] = '\0';
	if (got == -2 || got == 2) {
		snprintf(why, wlen, got == 2 ? "the list is too long" : "out of memory");
		goto out;
	}
	rc = 0;
	if (got != 1)
		goto out;
	size_t w = 0; /* "[0,1,2]" -> "0,1,2"; never longer than the JSON */
	for (const char *p = json; *p; p++)
		if ((*p >= '0' && *p <= '9') || (*p == ',' && w > 0))
			list[w++] = *p;
	list[w] = '\0';
	if (!list[0])
		goto out;
	size_t n;
	struct ns_err e = {0};
	rc = -1;
	if (units_parse_cpulist(list, cpus, UNITS_MAX_CPUS, &n, &e) < 0) {
		snprintf(why, wlen, "%s", e.msg);
		goto out;
	}
	units_format_cpulist(cpus, n, list, JSON_MAX);
	if (strlen(list) >= len) {
		snprintf(why, wlen, "the CPU list %.40s... is longer than %zu bytes", list, len - 1);
		goto out;
	}
	memcpy(buf, list, strlen(list) + 1);
	rc = 1;
out:
	free(json);
	free(list);
	free(cpus);
	return rc;
}

/* Appends "; "-separated text to a fixed buffer. */
void run_append(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	if (n && n + 2 < len) {
		memcpy(buf + n, "; ", 3);
		n += 2;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

static void check_pair(struct runner *R, const struct matrix_pair *mp, struct pair_rt *p,
		       struct jsonw *warnings)
{
	char drv[64], fam[64], itype[64];
	/* The agent's NIC is the one the matrix means; when the agent could not name it (no
	 * route back from its side), this host's NIC on the route to the agent stands in. */
	if (mp->expected_driver[0]) {
		const char *side = "agent", *info = p->agent_info;
		jsonr_get_once(info, "$.interface.driver", drv, sizeof(drv), NULL);
		if (!drv[0]) {
			side = "client";
			info = p->client_info;
			jsonr_get_once(info, "$.interface.driver", drv, sizeof(drv), NULL);
		}
		jsonr_get_once(info, "$.interface.driver_family", fam, sizeof(fam), NULL);
		if (!drv[0] && p->agent_info) {
			char msg[200];
			snprintf(msg, sizeof(msg), "pair '%s': the NIC driver is unknown, %s not checked",
				 mp->name, mp->expected_driver);
			run_append(p->warn, sizeof(p->warn), "%s", msg);
			jsonw_str(warnings, msg);
		} else if (drv[0] && strcmp(drv, mp->expected_driver) &&
			   strcmp(fam, mp->expected_driver)) {
			snprintf(p->fail, sizeof(p->fail),
				 "driver mismatch: pair '%s' expects %s, the %s's interface has %s (%s)",
				 mp->name, mp->expected_driver, side, drv, fam[0] ? fam : "no family");
		}
	}
	if (mp->instance_type[0] && p->agent_info &&
	    jsonr_get_once(p->agent_info, "$.cloud.instance_type", itype, sizeof(itype), NULL) == 1 &&
	    strcmp(itype, mp->instance_type) != 0) {
		char msg[300];
		snprintf(msg, sizeof(msg), "instance type mismatch: pair '%s' declares %s, the agent runs on %s",
			 mp->name, mp->instance_type, itype);
		if (R->m->strict)
			snprintf(p->fail, sizeof(p->fail), "%s", msg);
		else {
			run_append(p->warn, sizeof(p->warn), "%s", msg);
			jsonw_str(warnings, msg);
			progress_note(R->prog, "warning: %s", msg);
		}
	}
	if (p->fail[0]) {
		jsonw_str(warnings, p->fail);
		progress_note(R->prog, "warning: %s: its cases will fail", p->fail);
	}
}


/* One end's zone or region: the matrix's when it states one, else the end's hostinfo JSON
 * (its instance metadata) at path, else "". */
static void end_place(const char *declared, const char *info, const char *path, char *out,
		      size_t len)
{
	out[0] = '\0';
	if (declared && declared[0])
		snprintf(out, len, "%s", declared);
	else if (info && jsonr_get_once(info, path, out, len, NULL) != 1)
		out[0] = '\0';
}

int run_setup_pairs(struct runner *R, struct jsonw *warnings, struct ns_err *err)
{
	const struct matrix *m = R->m;
	for (size_t i = 0; i < m->n_pairs; i++) {
		const struct matrix_pair *mp = &m->pairs[i];
		struct pair_rt *p = &R->pairs[i];
		if (m->loopback) {
			if (loopback_start(R->o->loopback_child, &R->agent_pid, &p->port, err) < 0)
				return -1;
			snprintf(p->host, sizeof(p->host), "127.0.0.1");
		} else {
			snprintf(p->host, sizeof(p->host), "%s", mp->agent_host);
			p->port = mp->agent_port;
		}
		snprintf(p->addr, sizeof(p->addr), strchr(p->host, ':') ? "[%s]:%u" : "%s:%u",
			 p->host, p->port);
		if (hooks_pair_failure(R->hooks, i)) { /* not provisioned: no agent to ask */
			jsonw_str(warnings, strcpy(p->fail, hooks_pair_failure(R->hooks, i)));
			goto record;
		}

		struct hostinfo_opts ho;
		struct ns_err e;
		double hi_timeout = m->case_timeout_s > 0 && m->case_timeout_s < 5 ? m->case_timeout_s : 5;
		hostinfo_opts_init(&ho);
		ho.peer = p->host;
		ho.imds = ho.imds && mp->region[0]; /* only cloud pairs ask the metadata service */
		p->remote = mp->client_host[0] != 0;
		if (p->remote) {
			/* the client agent sends: its interface towards the target is the one to know */
			if (probe_hostinfo_peer(mp->client_host, mp->client_port, mp->psk_file, p->host, hi_timeout,
						&p->client_info, &e) < 0) {
				p->client_info = NULL;
				char msg[NS_ERR_MAX + 400];
				snprintf(msg, sizeof(msg), "pair %s: client agent %s: %s", mp->name,
					 mp->client, e.msg);
				jsonw_str(warnings, msg);
				progress_note(R->prog, "warning: %s", msg);
			}
		} else if (hostinfo_collect_json(&ho, &p->client_info, &e) < 0) {
			p->client_info = NULL;
			progress_note(R->prog, "warning: pair %s: this host's information: %s", mp->name,
				      e.msg);
		}
		if (probe_hostinfo(p->host, p->port, mp->psk_file, hi_timeout, &p->agent_info, &e) < 0) {
			p->agent_info = NULL;
			char msg[NS_ERR_MAX + 400];
			snprintf(msg, sizeof(msg), "pair %s: agent %s: %s", mp->name, p->addr, e.msg);
			jsonw_str(warnings, msg);
			progress_note(R->prog, "warning: %s", msg);
		}
		/* The sender's NIC interrupts are this host's; the agent's list stands in when this
		 * host has none to show (a virtual device). */
		const char *const infos[2] = {p->client_info, p->agent_info};
		for (int k = 0; k < 2 && !p->irq_cpus[0]; k++) {
			char why[NS_ERR_MAX];
			if (irq_cpulist(infos[k], p->irq_cpus, sizeof(p->irq_cpus), why,
					sizeof(why)) < 0) {
				char msg[NS_ERR_MAX + 400];
				snprintf(msg, sizeof(msg), "pair %s: %s IRQ CPUs unknown (affinity irq does not "
					 "pin): %s", mp->name, k ? "the agent's" : "this host's", why);
				jsonw_str(warnings, msg);
				progress_note(R->prog, "warning: %s", msg);
				break; /* a list this host has but cannot use: the agent's is no stand-in */
			}
		}
		check_pair(R, mp, p, warnings);
record:;
		/* --lab, or a setup that says what it emulates (netsweep lab up --hook) */
		char emulated[4096] = "";
		if (R->o->emulation && R->o->emulation[i])
			snprintf(emulated, sizeof(emulated), "%s", R->o->emulation[i]);
		else if (jsonr_get_once(hooks_setup_output(R->hooks, i), "$.emulation",
					emulated, sizeof(emulated), NULL) != 1 || emulated[0] != '{')
			emulated[0] = '\0';
		/* each end's placement: the matrix's, else what its instance metadata said */
		char cz[64], ca[64], cr[32], ar[32];
		end_place(mp->client_zone, p->client_info, "$.cloud.availability_zone", cz, sizeof(cz));
		end_place(mp->agent_zone, p->agent_info, "$.cloud.availability_zone", ca, sizeof(ca));
		end_place(mp->client_region[0] ? mp->client_region : mp->region, p->client_info,
			  "$.cloud.region", cr, sizeof(cr));
		end_place(mp->agent_region[0] ? mp->agent_region : mp->region, p->agent_info,
			  "$.cloud.region", ar, sizeof(ar));
		const char *rel = mp->relation[0] ? mp->relation : cost_relation(cr, cz, ar, ca);
		if (!strcmp(rel, "unknown") && mp->zone_rel != MX_ZONE_ANY)
			rel = mp->zone_rel == MX_ZONE_SAME ? "same-zone" : "cross-zone";
		/* a mesh pair's hosts by name and zone (endpoint_ends) */
		struct store_ends ends = {
			.mesh = mp->mesh,
			.client_name = mp->client_name,
			.agent_name = mp->agent_name,
			.client_zone = mp->client_zone[0] ? mp->client_zone : NULL,
			.agent_zone = mp->agent_zone[0] ? mp->agent_zone : NULL,
		};
		struct store_endpoint ep = {
			.name = mp->name,
			.instance_type = mp->instance_type[0] ? mp->instance_type : NULL,
			.region = mp->region[0] ? mp->region : NULL,
			.client_host = mp->client[0] ? mp->client : NULL,
			.agent_addr = p->addr,
			.expected_driver = mp->expected_driver[0] ? mp->expected_driver : NULL,
			.price_basis = mp->price_basis,
			.link_bps = mp->link_bps,
			.client_info = p->client_info,
			.agent_info = p->agent_info,
			.emulation = emulated[0] ? emulated : NULL,
			.zone = !strcmp(rel, "same-zone") ? "same"
				: !strcmp(rel, "cross-zone") || !strcmp(rel, "cross-region") ? "cross"
											   : NULL,
			.client_zone = cz[0] ? cz : NULL,
			.client_region = cr[0] ? cr : NULL,
			.agent_zone = ca[0] ? ca : NULL,
			.agent_region = ar[0] ? ar : NULL,
			.relation = rel,
			.ends = mp->mesh[0] ? &ends : NULL,
		};
		if (store_endpoint_put(R->st, R->run_id, &ep, &p->endpoint_id, err) < 0)
			return -1;
	}
	return 0;
}

/* The catalog as it stands now, for the instance types this run uses. A missing default
 * catalog is a warning (prices then show as unknown); --catalog files were checked already. */
int run_snapshot_catalog(struct runner *R, struct jsonw *warnings, struct ns_err *err)
{
	const struct matrix *m = R->m;
	struct catalog cat;
	struct ns_err e;
	int rc = -1;
	bool any = false;
	if (m->monthly_gb > 0 &&
	    store_put_transfer_volume(R->st, R->run_id, m->monthly_gb, err) < 0)
		return -1;
	for (size_t i = 0; i < m->n_pairs; i++)
		any |= m->pairs[i].instance_type[0] != 0;
	if (!any)
		return 0;
	catalog_init(&cat);
	if (catalog_load(&cat, catalog_default_path(), &e) < 0) {
		char msg[NS_ERR_MAX + 32];
		snprintf(msg, sizeof(msg), "catalog: %s", e.msg);
		jsonw_str(warnings, msg);
		progress_note(R->prog, "warning: %s", msg);
	}
	for (size_t i = 0; i < R->o->n_catalogs; i++)
		if (catalog_load(&cat, R->o->catalogs[i], err) < 0)
			goto out;
	for (size_t i = 0; i < cat.n_fx; i++)
		if (store_put_fx(R->st, R->run_id, &cat.fx[i], err) < 0)
			goto out;
	for (size_t i = 0; i < m->n_pairs; i++) {
		const struct matrix_pair *mp = &m->pairs[i];
		if (!mp->instance_type[0])
			continue;
		const struct catalog_instance *ci = catalog_instance(&cat, mp->instance_type);
		if (ci && store_put_instance_type(R->st, R->run_id, ci, err) < 0)
			goto out;
		/* every pricing model and currency of the pair's type and region */
		const struct catalog_price *cp = NULL;
		for (size_t k = 0; mp->region[0] && k < cat.n_prices; k++) {
			const struct catalog_price *q = &cat.prices[k];
			if (strcmp(q->type, mp->instance_type) || strcmp(q->region, mp->region))
				continue;
			if (store_put_price(R->st, R->run_id, q, err) < 0)
				goto out;
			cp = q;
		}
		/* the transfer rules of the type's provider from the pair's regions */
		const char *regions[] = {mp->region, mp->client_region, mp->agent_region};
		for (size_t k = 0; ci && ci->provider[0] && k < cat.ntransfers; k++) {
			const struct catalog_transfer *t = &cat.transfers[k];
			bool ours = false;
			for (int j = 0; j < 3; j++)
				ours |= regions[j][0] && !strcmp(t->region, regions[j]);
			if (ours && !strcmp(t->provider, ci->provider) &&
			    store_put_transfer(R->st, R->run_id, t, err) < 0)
				goto out;
		}
		if (!ci || (mp->region[0] && !cp)) {
			char msg[200];
			snprintf(msg, sizeof(msg), "catalog: no %s for %s%s%s", ci ? "price" : "entry",
				 mp->instance_type, mp->region[0] ? " in " : "", mp->region);
			jsonw_str(warnings, msg);
		}
	}
	rc = 0;
out:
	catalog_free(&cat);
	return rc;
}

