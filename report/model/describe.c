/* describe: see describe.h. */
#include "report/model/describe.h"

#include <stdio.h>
#include <string.h>

const char *rp_ep_label(const struct rp_endpoint *e)
{
	if (e->instance_type && *e->instance_type)
		return e->instance_type;
	return e->name ? e->name : "?";
}

static void label(const struct rp_data *d, const struct rp_case *c, int streams, int with_ep,
		  struct rp_buf *b)
{
	char r[32];
	if (with_ep)
		rp_buf_printf(b, "%s ", rp_ep_label(&d->eps[c->ep]));
	rp_buf_printf(b, "%s %s", c->protocol ? c->protocol : "?", c->direction ? c->direction : "?");
	if (streams)
		rp_buf_printf(b, " %lld stream%s", c->streams, c->streams == 1 ? "" : "s");
	if (c->clients > 1 || (c->clients == 1 && streams))
		rp_buf_printf(b, "%s %lld client%s", streams ? " x" : "", c->clients,
			      c->clients == 1 ? "" : "s");
	if (c->threads)
		rp_buf_printf(b, " %lld thr", c->threads);
	if (c->length)
		rp_buf_printf(b, " %lld B", c->length);
	if (c->rate_bps) {
		rp_fmt_rate_opt(r, sizeof(r), c->rate_bps);
		rp_buf_printf(b, " rate %s", r);
	}
	if (c->fq_rate_bps) {
		rp_fmt_rate_opt(r, sizeof(r), c->fq_rate_bps);
		rp_buf_printf(b, " fq %s", r);
	}
	if (c->window)
		rp_buf_printf(b, " win %lld", c->window);
	if (c->gso)
		rp_buf_puts(b, " gso");
	if (c->engine && c->engine[0] && strcmp(c->engine, "socket")) {
		rp_buf_puts(b, " ");
		rp_buf_puts(b, c->engine);
	}
	if (c->affinity && strcmp(c->affinity, "none") != 0) {
		rp_buf_puts(b, " aff ");
		rp_buf_puts(b, c->affinity);
	}
}

void rp_case_label(const struct rp_data *d, const struct rp_case *c, struct rp_buf *b)
{
	label(d, c, 1, 1, b);
}

void rp_case_label_short(const struct rp_data *d, const struct rp_case *c, struct rp_buf *b)
{
	label(d, c, 1, 0, b);
}

void rp_case_label_series(const struct rp_data *d, const struct rp_case *c, struct rp_buf *b)
{
	label(d, c, 0, 1, b);
}

static void shell_arg(struct rp_buf *b, const char *s)
{
	rp_buf_add(b, " ", 1);
	if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:/,=+-")
		== strlen(s)) {
		rp_buf_puts(b, s);
		return;
	}
	rp_buf_add(b, "'", 1);
	for (; *s; s++) {
		if (*s == '\'')
			rp_buf_puts(b, "'\\''");
		else if ((unsigned char)*s >= 0x20)
			rp_buf_add(b, s, 1);
	}
	rp_buf_add(b, "'", 1);
}

static void opt_ll(struct rp_buf *b, const char *opt, long long v)
{
	rp_buf_printf(b, " %s %lld", opt, v);
}

void rp_case_probe_cmd(const struct rp_data *d, const struct rp_case *c, struct rp_buf *b)
{
	const struct rp_endpoint *e = &d->eps[c->ep];
	const char *a = e->agent_addr && *e->agent_addr ? e->agent_addr : "AGENT";
	char r[32];
	/* The agent address as stored (HOST:PORT or [V6]:PORT) is probe's own positional form. */
	rp_buf_puts(b, "netsweep probe");
	/* a bind: the agent address declared with it, from its client address */
	shell_arg(b, c->bind_agent && *c->bind_agent ? c->bind_agent : a);
	if (c->bind_client && *c->bind_client) {
		rp_buf_puts(b, " -B");
		shell_arg(b, c->bind_client);
	}
	/* A pair with a client: the runner had the agent there send (probe --from). */
	if (e->client_host && *e->client_host) {
		rp_buf_puts(b, " --from");
		shell_arg(b, e->client_host);
	}
	if (c->protocol && strcmp(c->protocol, "udp") == 0)
		rp_buf_puts(b, " -u");
	if (c->protocol && strcmp(c->protocol, "quic") == 0)
		rp_buf_puts(b, " --quic");
	opt_ll(b, "-P", c->streams);
	if (c->threads)
		opt_ll(b, "--threads", c->threads);
	if (c->length)
		opt_ll(b, "-l", c->length);
	if (c->rate_bps) {
		rp_fmt_rate_opt(r, sizeof(r), c->rate_bps);
		rp_buf_printf(b, " -b %s", r);
	}
	if (c->fq_rate_bps) {
		rp_fmt_rate_opt(r, sizeof(r), c->fq_rate_bps);
		rp_buf_printf(b, " --fq-rate %s", r);
	}
	rp_buf_printf(b, " -t %g", c->duration_s);
	if (c->omit_s > 0)
		rp_buf_printf(b, " -O %g", c->omit_s);
	if (c->direction && strcmp(c->direction, "reverse") == 0)
		rp_buf_puts(b, " -R");
	else if (c->direction && strcmp(c->direction, "bidir") == 0)
		rp_buf_puts(b, " --bidir");
	if (c->window)
		opt_ll(b, "-w", c->window);
	if (c->mss)
		opt_ll(b, "-M", c->mss);
	if (c->nodelay)
		rp_buf_puts(b, " -N");
	if (c->congestion && *c->congestion) {
		rp_buf_puts(b, " -C");
		shell_arg(b, c->congestion);
	}
	if (c->gso)
		rp_buf_puts(b, " --gso");
	if (c->engine && c->engine[0] && strcmp(c->engine, "socket")) {
		rp_buf_puts(b, " --engine");
		shell_arg(b, c->engine);
	}
	if (c->family && (!strcmp(c->family, "4") || !strcmp(c->family, "6")))
		rp_buf_printf(b, " -%s", c->family);
	if (c->dscp > 0 && c->dscp < 64)
		opt_ll(b, "--dscp", c->dscp);
	if (c->zerocopy)
		rp_buf_puts(b, " -Z");
	if (c->amount > 0)
		opt_ll(b, "-n", c->amount);
	if (c->steady_s > 0)
		rp_buf_printf(b, " --until sustained --steady %g", c->steady_s);
	const char *aff = c->affinity ? c->affinity : "none";
	if (strcmp(aff, "irq") == 0 || strcmp(aff, "spread") == 0) {
		rp_buf_printf(b, "  # affinity policy '%s': the runner chose the CPUs", aff);
	} else if (strcmp(aff, "none") != 0) {
		rp_buf_puts(b, " -A");
		shell_arg(b, aff);
	}
}

/* The detected driver: its family, with the module name when it differs. */
void rp_host_driver_text(const struct rp_host *h, char *b, size_t n)
{
	if (!h->driver) {
		snprintf(b, n, "%s", h->present ? "not reported" : "not recorded");
		return;
	}
	const char *fam = h->driver_family ? h->driver_family : h->driver;
	int named = strcmp(fam, h->driver) != 0;
	snprintf(b, n, "%s%s%s%s%s%s", fam, named ? " (" : "", named ? h->driver : "",
		 named ? ")" : "", h->driver_version ? " version " : "",
		 h->driver_version ? h->driver_version : "");
}

int rp_host_driver_matches(const char *expected, const struct rp_host *h)
{
	return (h->driver_family && !strcmp(expected, h->driver_family)) ||
	       (h->driver && !strcmp(expected, h->driver));
}
