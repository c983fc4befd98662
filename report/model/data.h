/* data (model): the report's picture of a run — its endpoints, cases with their per-repeat
 * figures reduced to medians and spread, the trend and interval series — and what follows from
 * it alone (costs at the prices in force, frees). report/load/data.h fills it from the store;
 * nothing here reads the database. */
#ifndef RP_MODEL_DATA_H
#define RP_MODEL_DATA_H

#include <stdbool.h>
#include <stddef.h>

#include "report/model/fmt.h"
#include "lib/cost.h"
#include "lib/err.h"

/* One side of an endpoint pair, from schemas/hostinfo.md. NULL / 0 = not known. */
struct rp_host {
	int present;
	char *hostname, *kernel, *os, *cpu_model;
	char *ifname, *driver, *driver_family, *driver_version, *qdisc;
	char *provider, *cloud_instance_type, *cloud_region, *cloud_az;
	long long online_cpus, mtu, speed_mbps;
};

/* A pair's transfer terms (store version 30): its relation and the run's rule for it, the
 * tiers in the pair's ranked currency (converted at the report's rate where the rule's is
 * another; a rule that cannot be converted counts as none known). */
#define RP_XFER_TIERS 8
struct rp_xfer {
	char relation[16];           /* same-zone, cross-zone, cross-region, internet, unknown */
	char client_zone[64], agent_zone[64], client_region[32], agent_region[32];
	int has_rule;                /* tiers, billed and included hold the rule */
	int unconvertible;           /* a rule in a currency the report has no rate for */
	char rule_currency[4];
	struct cost_tier tiers[RP_XFER_TIERS];
	size_t ntiers;
	enum cost_billed billed;
	double included_gb;          /* the sender's type's monthly allowance, 0 = none */
};

struct rp_endpoint {
	long long id;
	char *name, *instance_type, *region, *agent_addr, *client_host, *expected_driver;
	char *price_basis;
	long long link_bps;          /* 0 = not declared */
	double usd_per_hour;         /* of the pair or the sender, per price_basis; NAN = missing */
	double unit_usd_per_hour;    /* one instance; NAN = missing */
	double measured_s;           /* duration + warm-up of its successful results */
	long long ok_results;
	double billed_s;             /* its instances' billed time (v_endpoint_billed); NAN = unknown */
	int repriced;                /* its price comes from report --catalog */
	char *price_as_of, *price_source;
	struct rp_host client, agent;
	char *lab_scale;             /* emulated by `netsweep lab` at this scale; NULL = real */
	/* report/pricing.c: the ranked price's model and currency (usd_per_hour and
	 * unit_usd_per_hour are in that currency; NULL = USD), the pair's on-demand and spot
	 * prices beside it (NAN = none), the exchange rate applied (0 = none) and the currency
	 * it converted (NULL = none) */
	char *currency, *pricing, *price_window, *fx_currency;
	double od_per_hour, spot_per_hour, fx_rate;
	/* report/advertised.c: who sells the type and what bandwidth it advertises (Gbit/s, 0 =
	 * none; up_to: gbps is a burst, baseline_gbps what it sustains), the lab's scale */
	char *provider;
	double adv_gbps, adv_baseline_gbps, emu_scale;
	int adv_up_to;
	struct rp_xfer xfer;         /* report/load/pricing.c: what its traffic is billed by */
};

/* Median and spread of one figure over a case's successful repeats; NAN when no repeat had it. */
struct rp_stat {
	double med, min, max, q1, q3;
	int n;
};

enum rp_fig {
	RP_RCV_BPS, RP_SND_BPS, RP_RCV_PPS, RP_SND_PPS, RP_SND_CPU, RP_RCV_CPU,
	RP_RETRANS, RP_LOST, RP_LOST_PCT, RP_KDROPS, RP_JITTER, RP_RTT,
	RP_RET_BPS,                  /* bidir: the return direction's receiver goodput */
	/* group cases (v_group_fairness): Jain's index over the clients, the slowest client's
	 * rate over its fair share, when TCP's shares settled (s) */
	RP_JAIN, RP_MIN_FAIR, RP_CONVERGE,
	RP_SND_CPU_GB, RP_RCV_CPU_GB, /* each end's CPU seconds per 10^9 bytes (store version 29) */
	RP_NFIG
};

struct rp_case {
	long long id;
	char *case_key;
	int ordinal;
	size_t ep;                   /* index into rp_data.eps */
	char *protocol, *direction, *affinity, *congestion;
	char *engine;                  /* params.engine: "socket", "xdp", "xdp,socket" ... (NULL = socket) */
	long long streams, threads, length, rate_bps, fq_rate_bps, window, mss, nodelay, gso;
	double duration_s, omit_s;
	char *family, *bind_client, *bind_agent; /* "any"/"4"/"6"; a bind's addresses, or NULL */
	long long dscp, zerocopy, amount;        /* DSCP 0..63; bool; bytes (0 = by time) */
	double steady_s;           /* long-run case (until sustained): its steady time; 0 = not */
	bool rr;                   /* a request/response case (params.rr tcp, udp or crr): its
				    * figures are latencies (report/load/latency_rows.c), not goodput */
	int n_results, n_ok;
	struct rp_stat fig[RP_NFIG];
	double *goodput;             /* receiver bits/s of each ok repeat (n_ok entries) */
	long long series_result_id;  /* an ok result whose samples can be charted; 0 = none */
	long long group_result_id;   /* a group case's ok result whose clients can be charted */
	long long clients;           /* a group case's tests (0: not a group case) */
	int n_starved;               /* ok repeats v_group_fairness calls starved */
	char *first_error;           /* of the first failed repeat, or NULL */
	/* shaped on credits (report/phases.c): repeats whose series stepped down, and the means
	 * of their burst rate, burst length and sustained rate */
	int n_shaped;
	double burst_bps, burst_s, sustained_bps;
	double shaped_ran_s;       /* their mean measured time (a long-run case stops early) */
	/* shaped by the cloud provider (report/provider.c): ok repeats whose NIC allowance
	 * counters moved, those counters' deltas summed over them and both ends (bw_in, bw_out,
	 * pps, conntrack, linklocal), and where ("agent ens5", NULL = unknown); the packets
	 * and bytes those interfaces moved over those repeats, in and out (their own counters;
	 * nic_bytes -1 when a result from before store version 18 has none) */
	int n_provider_shaped;
	long long allowance_exceeded[5];
	char *allowance_where;
	long long nic_packets, nic_bytes;
	/* what limited it (report/limits.c, result_limits; store version 16): ok repeats whose
	 * sender offered less than asked by more than 3 %, their largest shortfall and commonest
	 * cause; the commonest limiting factor of all ok repeats and how many; the busiest
	 * sender thread and the largest CPU steal of either end over them */
	int n_sender_limited;
	double limit_shortfall_pct, limit_asked_bps, limit_offered_bps;
	char *limit_cause, *limited_by;
	int n_limited_by;
	double limit_snd_thread_cpu, limit_rcv_thread_cpu, limit_steal_pct;
};

struct rp_run {
	long long id;
	char *matrix_name, *matrix_description, *matrix_path, *matrix_text, *matrix_hash, *label;
	char *started_at, *finished_at, *netsweep_version, *runner_host, *order_mode, *status;
	char *warnings;              /* JSON array text */
	char *rank_by;               /* the matrix's rank-by rule (run_rank), NULL = best */
	long long seed, repeats;
	int has_seed;
};

struct rp_data {
	struct rp_run run;
	struct rp_endpoint *eps;
	size_t n_eps;
	struct rp_case *cases;       /* in ordinal order */
	size_t n_cases;
	double run_cost_usd;         /* NAN when no price was known */
	double run_billed_usd;       /* billed time at the prices; NAN when unknown */
	double run_billed_s;         /* billed seconds of all pairs' instances */
	struct rp_unit unit;         /* the page's throughput unit, from the largest median */
	long long results_without_price;
	double monthly_gb;           /* the tiers' monthly volume: report --monthly-transfer, else
	                                the matrix's (run_transfer_volume); 0 = each rate for 730 h */
	const char *monthly_from;    /* "--monthly-transfer" (report, site), "the matrix", NULL */
	int any_transfer;            /* a pair's transfer is known (a rule, or same-zone) */
};

/* run_billed_usd and run_billed_s from the endpoints' billed seconds and prices. */
void rp_data_billed(struct rp_data *d);
/* The run's cost and billed cost again at the endpoints' prices now in force (report
 * --catalog, --pricing, --fx): in US dollars, a pair priced in another currency counted as
 * without a price. */
void rp_data_recost(struct rp_data *d);
/* Whether the endpoint's price is in US dollars. */
int rp_ep_usd(const struct rp_endpoint *e);
void rp_data_free(struct rp_data *d);

/* Effective sender / receiver thread count of a case, for "% of one core per thread". */
double rp_case_threads(const struct rp_data *d, const struct rp_case *c, int sender);

/* The trend: receiver goodput medians of the given case keys over the last n runs of the
 * same matrix up to and including run_id, oldest first. vals is keys x runs, NAN = absent. */
struct rp_trend {
	size_t n_runs, n_keys;
	long long *run_ids;
	char **run_started;
	char **run_label;            /* NULL entries for runs without a label */
	double *vals;                /* vals[k * n_runs + r] */
};
void rp_trend_free(struct rp_trend *t);

/* Per-interval sums (stream -1, forward direction) of every ok repeat of a case:
 * repeat[i], t_end[i], bps[i], ordered by repeat then time. */
struct rp_series {
	size_t n;
	int *repeat;
	double *t_end, *bps;
};
void rp_series_free(struct rp_series *s);

#endif
