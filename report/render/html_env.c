/* html_env: the "Environment" section (see html_sections.h). A declared attribute is what the
 * matrix said; a detected one is what the host reported (hostinfo). They sit in separate
 * columns so that a declared instance type is never shown as if the host had said it. */
#include <stdio.h>
#include <string.h>

#include "report/model/describe.h"
#include "report/render/hdoc.h"
#include "report/render/html_sections.h"

/* A declared/detected pair of cells; mismatch when both are known and differ. Returns 1 on a
 * mismatch. */
static int pair_cells(xmlNodePtr tr, const char *declared, const char *detected,
		      const char *unknown, int differs)
{
	hd_el(tr, "td", declared ? declared : "–");
	xmlNodePtr td = hd_el(tr, "td", detected ? detected : unknown);
	if (!detected)
		hd_attr(td, "class", "note");
	if (declared && detected && differs) {
		hd_attr(td, "class", "mismatch");
		hd_attr(td, "title", "differs from what the matrix declared");
		hd_text(td, " ≠");
		return 1;
	}
	return 0;
}

void rp_html_environment(const struct rp_report *r, const struct rp_section *sec,
			 xmlNodePtr main)
{
	const struct rp_data *d = r->d;
	xmlNodePtr s = hd_open(main, sec);
	static const char *const cols[] = {
		"Endpoint", "Side", "Instance type declared", "detected", "Region declared",
		"detected", "Driver expected", "detected", "Host", "Kernel", "CPU", "MTU", "qdisc",
		NULL};
	xmlNodePtr t = hd_scroll_table(s, "environment-table", cols);
	xmlNodePtr tb = hd_el(t, "tbody", NULL);
	char b[256];
	for (size_t i = 0; i < d->n_eps; i++) {
		const struct rp_endpoint *e = &d->eps[i];
		for (int side = 0; side < 2; side++) {
			const struct rp_host *h = side ? &e->agent : &e->client;
			const char *sname = side ? "agent" : "client";
			xmlNodePtr tr = hd_el(tb, "tr", NULL);
			hd_attr(tr, "data-endpoint", e->name ? e->name : "");
			hd_attr(tr, "data-side", sname);
			hd_el(tr, "td", e->name);
			hd_el(tr, "td", sname);
			int bad = 0;
			if (pair_cells(tr, e->instance_type, h->cloud_instance_type, "not reported",
				       e->instance_type && h->cloud_instance_type &&
				       strcmp(e->instance_type, h->cloud_instance_type))) {
				bad = 1;
			}
			if (pair_cells(tr, e->region, h->cloud_region, "not reported",
				       e->region && h->cloud_region &&
				       strcmp(e->region, h->cloud_region))) {
				bad = 1;
			}
			rp_host_driver_text(h, b, sizeof(b));
			/* The matrix's expected driver is about the agent's NIC (the runner checks
			 * it there); the client side shows its driver without an expectation. */
			const char *exp = side ? e->expected_driver : NULL;
			if (pair_cells(tr, exp, h->driver ? b : NULL, b,
				       exp && !rp_host_driver_matches(exp, h))) {
				bad = 1;
			}
			if (bad)
				hd_attr(tr, "class", "mismatch");
			hd_el(tr, "td", side ? (e->agent_addr ? e->agent_addr : "–")
				  : (h->hostname ? h->hostname : e->client_host ? e->client_host
				  : "runner host"));
			hd_el(tr, "td", h->kernel ? h->kernel : "–");
			xmlNodePtr cpu = hd_el(tr, "td", h->cpu_model ? h->cpu_model : "–");
			if (h->online_cpus) {
				snprintf(b, sizeof(b), " (%lld CPUs)", h->online_cpus);
				hd_text(cpu, b);
			}
			snprintf(b, sizeof(b), "%lld", h->mtu);
			hd_el_class(tr, "td", "num", h->mtu ? b : "–");
			hd_el(tr, "td", h->qdisc ? h->qdisc : "–");
		}
	}
	hd_close(s, sec);
}
