/* data (model): see data.h. */
#include "report/model/data.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cost.h"

int rp_ep_usd(const struct rp_endpoint *e)
{
	return !e->currency || strcmp(e->currency, "USD") == 0;
}

void rp_data_recost(struct rp_data *d)
{
	d->run_cost_usd = NAN;
	d->results_without_price = 0;
	for (size_t i = 0; i < d->n_eps; i++) {
		const struct rp_endpoint *e = &d->eps[i];
		if (isnan(e->usd_per_hour) || !rp_ep_usd(e)) {
			d->results_without_price += e->ok_results;
			continue;
		}
		d->run_cost_usd = (isnan(d->run_cost_usd) ? 0 : d->run_cost_usd) +
				  cost_run_usd(e->usd_per_hour, e->measured_s);
	}
	rp_data_billed(d);
}

void rp_data_billed(struct rp_data *d)
{
	d->run_billed_usd = NAN;
	d->run_billed_s = 0;
	for (size_t i = 0; i < d->n_eps; i++) {
		const struct rp_endpoint *e = &d->eps[i];
		if (isnan(e->billed_s))
			continue;
		d->run_billed_s += e->billed_s;
		if (!isnan(e->usd_per_hour) && rp_ep_usd(e))
			d->run_billed_usd = (isnan(d->run_billed_usd) ? 0 : d->run_billed_usd) +
					    cost_run_usd(e->usd_per_hour, e->billed_s);
	}
}

static void host_free(struct rp_host *h)
{
	char *s[] = {h->hostname, h->kernel, h->os, h->cpu_model, h->ifname, h->driver,
		     h->driver_family, h->driver_version, h->qdisc, h->provider,
		     h->cloud_instance_type, h->cloud_region, h->cloud_az};
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		free(s[i]);
}

void rp_data_free(struct rp_data *d)
{
	struct rp_run *r = &d->run;
	char *s[] = {r->matrix_name, r->matrix_description, r->matrix_path, r->matrix_text,
		     r->matrix_hash, r->label, r->started_at, r->finished_at, r->netsweep_version,
		     r->runner_host, r->order_mode, r->status, r->warnings, r->rank_by};
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		free(s[i]);
	for (size_t i = 0; i < d->n_eps; i++) {
		struct rp_endpoint *e = &d->eps[i];
		char *es[] = {e->name, e->instance_type, e->region, e->agent_addr, e->client_host,
			      e->expected_driver, e->price_basis, e->price_as_of, e->price_source,
			      e->currency, e->pricing, e->price_window, e->provider, e->fx_currency};
		for (size_t j = 0; j < sizeof(es) / sizeof(es[0]); j++)
			free(es[j]);
		host_free(&e->client);
		host_free(&e->agent);
		free(e->lab_scale);
	}
	free(d->eps);
	for (size_t i = 0; i < d->n_cases; i++) {
		struct rp_case *c = &d->cases[i];
		free(c->case_key);
		free(c->protocol);
		free(c->direction);
		free(c->affinity);
		free(c->congestion);
		free(c->engine);
		free(c->family);
		free(c->bind_client);
		free(c->bind_agent);
		free(c->goodput);
		free(c->first_error);
		free(c->allowance_where);
		free(c->limit_cause);
		free(c->limited_by);
	}
	free(d->cases);
	memset(d, 0, sizeof(*d));
}

double rp_case_threads(const struct rp_data *d, const struct rp_case *c, int sender)
{
	if (c->threads > 0)
		return (double)c->threads;
	const struct rp_endpoint *e = &d->eps[c->ep];
	/* forward: the client sends; reverse: the agent does. */
	int client_sends = !c->direction || strcmp(c->direction, "reverse") != 0;
	const struct rp_host *h = (sender == client_sends) ? &e->client : &e->agent;
	long long t = c->streams;
	if (h->online_cpus > 0 && h->online_cpus < t)
		t = h->online_cpus;
	return t > 0 ? (double)t : 1;
}

void rp_trend_free(struct rp_trend *t)
{
	for (size_t i = 0; i < t->n_runs && t->run_started; i++)
		free(t->run_started[i]);
	for (size_t i = 0; i < t->n_runs && t->run_label; i++)
		free(t->run_label[i]);
	free(t->run_started);
	free(t->run_label);
	free(t->run_ids);
	free(t->vals);
	memset(t, 0, sizeof(*t));
}

void rp_series_free(struct rp_series *s)
{
	free(s->repeat);
	free(s->t_end);
	free(s->bps);
	memset(s, 0, sizeof(*s));
}
