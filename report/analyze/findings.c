/* findings: see findings.h. Each finding is one sentence a reader can check against the
 * tables: it names the case and quotes the figures it rests on. */
#include "report/analyze/findings.h"
#include "report/load/price/pricing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/model/describe.h"
#include "report/model/fmt.h"
#include "report/analyze/news.h"
#include "report/load/phase_rows.h"
#include "report/load/limits.h"
#include "report/load/provider.h"
#include "lib/cli.h"

#define MAX_EXAMPLES 4

int rp_findings_add(struct rp_findings *f, enum rp_finding_kind kind, const char *text)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 16;
		struct rp_finding *n = realloc(f->items, cap * sizeof(*n));
		if (!n)
			return -1;
		f->items = n;
		f->cap = cap;
	}
	f->items[f->n].kind = kind;
	f->items[f->n].text = strdup(text);
	if (!f->items[f->n].text)
		return -1;
	f->n++;
	return 0;
}

static int add_kind(struct rp_findings *f, enum rp_finding_kind kind, struct rp_buf *b)
{
	if (b->oom || rp_findings_add(f, kind, rp_buf_str(b)) < 0)
		return -1;
	rp_buf_reset(b);
	return 0;
}

void rp_findings_sort(struct rp_findings *f)
{
	/* Insertion sort: stable, and a report has tens of findings. */
	for (size_t i = 1; i < f->n; i++) {
		struct rp_finding x = f->items[i];
		size_t j = i;
		for (; j > 0 && f->items[j - 1].kind > x.kind; j--)
			f->items[j] = f->items[j - 1];
		f->items[j] = x;
	}
}

const char *rp_finding_kind_name(enum rp_finding_kind k)
{
	static const char *const names[RP_FIND_NKINDS] = {
		[RP_FIND_CHANGE] = "change", [RP_FIND_COST_CHANGE] = "cost-change",
		[RP_FIND_STEP] = "step", [RP_FIND_AB] = "ab", [RP_FIND_COST] = "cost", [RP_FIND_BURST] = "burst",
		[RP_FIND_ADVERTISED] = "advertised",
		[RP_FIND_FAILURE] = "failure", [RP_FIND_SATURATION] = "saturation",
		[RP_FIND_LOSS] = "loss", [RP_FIND_SCALING] = "scaling", [RP_FIND_SHARING] = "sharing",
		[RP_FIND_UNSTABLE] = "unstable", [RP_FIND_PRICE] = "price",
	};
	return k < RP_FIND_NKINDS && names[k] ? names[k] : "other";
}

static void case_label(const struct rp_data *d, size_t i, struct rp_buf *b)
{
	rp_case_label(d, &d->cases[i], b);
}

static int find_cost(const struct rp_data *d, const struct rp_cost_row *cost, size_t n,
		     struct rp_findings *f, struct rp_buf *b)
{
	size_t ranked = 0, fastest = n;
	for (size_t i = 0; i < n; i++) {
		if (cost[i].rank)
			ranked++;
		if (!isnan(cost[i].mbps) && (fastest == n || cost[i].mbps > cost[fastest].mbps))
			fastest = i;
	}
	size_t missing = 0;
	for (size_t i = 0; i < n; i++)
		missing += isnan(cost[i].usd_per_hour);
	if (missing)
		rp_buf_printf(b, "No price was known for %zu of %zu endpoint pairs; they are left out "
			      "of the per-dollar ranking rather than guessed.", missing, n);
	if (missing && add_kind(f, RP_FIND_PRICE, b) < 0)
		return -1;
	if (!ranked)
		return 0;
	char t_fast[32];
	/* each currency on its own (the rows are grouped by currency, US dollars first):
	 * figures of two currencies are never compared */
	size_t n_cur = 0;
	for (size_t i = 0; i < n; i++)
		n_cur += cost[i].rank == 1 && (i == 0 || !rp_money_same(cost[i].currency,
								      cost[i - 1].currency));
	for (size_t g = 0; g < n; g++) {
		if (cost[g].rank != 1 || (g > 0 && cost[g - 1].rank &&
					  rp_money_same(cost[g].currency, cost[g - 1].currency)))
			continue;
		const struct rp_cost_row *best = &cost[g], *worst = best;
		size_t in_cur = 0;
		for (size_t i = g; i < n && cost[i].rank &&
		     rp_money_same(cost[i].currency, best->currency); i++) {
			worst = &cost[i];
			in_cur++;
		}
		const char *m = rp_money(best->currency);
		const struct rp_endpoint *be = &d->eps[best->ep];
		char t[32], price[48];
		rp_fmt_in(t, sizeof(t), best->mbps * 1e6, d->unit);
		rp_fmt_money(price, sizeof(price), "%.4g", best->usd_per_hour, best->currency);
		rp_buf_printf(b, "%s gives the most throughput per %s", rp_ep_label(be),
			      rp_money_word(best->currency));
		if (n_cur > 1)
			rp_buf_printf(b, " of the pairs priced in %s (each currency ranks on its own)",
				      rp_money_code(best->currency));
		rp_buf_printf(b, ": %.0f Mbit/s per %s/hour (%s at %s/hour%s).",
			      best->mbps_per_usd_hour, m, t, price, best->sustained ?
			      ", its sustained rate" : best->inside_burst ? ", inside its burst "
			      "window: on credit, not what it sustains" : "");
		if (be->fx_rate > 0 && be->fx_currency)
			rp_buf_printf(b, " Its %s price is converted at %g US dollars each.",
				      be->fx_currency, be->fx_rate);
		if (in_cur > 1 && worst->mbps_per_usd_hour > 0)
			rp_buf_printf(b, " That is %.2f times the least cost-effective, %s "
				      "(%.0f Mbit/s per %s/hour).", best->mbps_per_usd_hour /
				      worst->mbps_per_usd_hour, rp_ep_label(&d->eps[worst->ep]),
				      worst->mbps_per_usd_hour, m);
		if (add_kind(f, RP_FIND_COST, b) < 0)
			return -1;
	}
	if (fastest < n && fastest != 0 && cost[fastest].rank > 1) {
		rp_fmt_in(t_fast, sizeof(t_fast), cost[fastest].mbps * 1e6, d->unit);
		rp_buf_printf(b, "The fastest, %s (%s), ranks %d per %s: spreading the load over "
			      "more, smaller instances may beat scaling up.",
			      rp_ep_label(&d->eps[cost[fastest].ep]), t_fast, cost[fastest].rank,
			      rp_money_word(cost[fastest].currency));
		if (add_kind(f, RP_FIND_COST, b) < 0)
			return -1;
	}
	return 0;
}

/* Cases that differ only in stream count (and automatic threads) form one scaling series. */
static int same_but_streams(const struct rp_case *a, const struct rp_case *b)
{
	return a->ep == b->ep && a->length == b->length && a->rate_bps == b->rate_bps &&
	       a->fq_rate_bps == b->fq_rate_bps && a->window == b->window && a->mss == b->mss &&
	       a->gso == b->gso && a->nodelay == b->nodelay &&
	       (a->threads == b->threads || (a->threads == a->streams && b->threads == b->streams)) &&
	       !strcmp(a->protocol ? a->protocol : "", b->protocol ? b->protocol : "") &&
	       !strcmp(a->direction ? a->direction : "", b->direction ? b->direction : "") &&
	       !strcmp(a->affinity ? a->affinity : "", b->affinity ? b->affinity : "") &&
	       !strcmp(a->congestion ? a->congestion : "", b->congestion ? b->congestion : "");
}

static int cmp_streams(const void *x, const void *y)
{
	const struct rp_case *const *a = x, *const *b = y;
	return ((*a)->streams > (*b)->streams) - ((*a)->streams < (*b)->streams);
}

static int find_scaling(const struct rp_data *d, struct rp_findings *f, struct rp_buf *b)
{
	char *done = calloc(d->n_cases + 1, 1);
	const struct rp_case **grp = malloc((d->n_cases + 1) * sizeof(*grp));
	size_t said = 0, more = 0;
	int rc = -1;
	if (!done || !grp)
		goto out;
	for (size_t i = 0; i < d->n_cases; i++) {
		if (done[i] || isnan(d->cases[i].fig[RP_RCV_BPS].med))
			continue;
		size_t n = 0;
		for (size_t j = i; j < d->n_cases; j++)
			if (!done[j] && !isnan(d->cases[j].fig[RP_RCV_BPS].med) &&
			    same_but_streams(&d->cases[i], &d->cases[j])) {
				done[j] = 1;
				grp[n++] = &d->cases[j];
			}
		if (n < 2)
			continue;
		qsort(grp, n, sizeof(*grp), cmp_streams);
		/* A rate caps the total, so more streams cannot add throughput there. */
		if (grp[0]->streams == grp[n - 1]->streams || grp[0]->rate_bps > 0)
			continue;
		if (said >= MAX_EXAMPLES) {
			more++;
			continue;
		}
		size_t k = 1;
		for (; k < n; k++) {
			double gain = (grp[k]->fig[RP_RCV_BPS].med / grp[k - 1]->fig[RP_RCV_BPS].med - 1) * 100;
			if (grp[k]->streams > grp[k - 1]->streams && gain < RP_SCALING_GAIN_PCT)
				break;
		}
		char t0[32], t1[32];
		rp_case_label_series(d, grp[0], b);
		rp_buf_puts(b, ": ");
		if (k < n) {
			rp_fmt_in(t0, sizeof(t0), grp[k - 1]->fig[RP_RCV_BPS].med, d->unit);
			rp_fmt_in(t1, sizeof(t1), grp[k]->fig[RP_RCV_BPS].med, d->unit);
			rp_buf_printf(b, "throughput stops scaling with streams at %lld: going to %lld "
				      "streams changes it by %+.1f %% (%s to %s).", grp[k - 1]->streams,
				      grp[k]->streams, (grp[k]->fig[RP_RCV_BPS].med /
				      grp[k - 1]->fig[RP_RCV_BPS].med - 1) * 100, t0, t1);
		} else {
			rp_fmt_in(t0, sizeof(t0), grp[0]->fig[RP_RCV_BPS].med, d->unit);
			rp_fmt_in(t1, sizeof(t1), grp[n - 1]->fig[RP_RCV_BPS].med, d->unit);
			rp_buf_printf(b, "throughput still rises by at least %.0f %% per step up to %lld "
				      "streams (%s at %lld to %s).", RP_SCALING_GAIN_PCT,
				      grp[n - 1]->streams, t0, grp[0]->streams, t1);
		}
		said++;
		if (add_kind(f, RP_FIND_SCALING, b) < 0)
			goto out;
	}
	if (more) {
		rp_buf_printf(b, "%zu more stream-count series are charted but not described here.", more);
		if (add_kind(f, RP_FIND_SCALING, b) < 0)
			goto out;
	}
	rc = 0;
out:
	free(done);
	free(grp);
	return rc;
}

static int find_cpu(const struct rp_data *d, int sender, struct rp_findings *f, struct rp_buf *b)
{
	enum rp_fig fig = sender ? RP_SND_CPU : RP_RCV_CPU;
	size_t hits = 0, tested = 0, ex = 0;
	double ex_pct = 0;
	for (size_t i = 0; i < d->n_cases; i++) {
		const struct rp_case *c = &d->cases[i];
		if (isnan(c->fig[fig].med))
			continue;
		tested++;
		double per = c->fig[fig].med / rp_case_threads(d, c, sender);
		if (per > RP_CPU_SATURATED_PCT) {
			if (!hits || per > ex_pct) {
				ex = i;
				ex_pct = per;
			}
			hits++;
		}
	}
	if (!hits)
		return 0;
	char t[32];
	rp_fmt_in(t, sizeof(t), d->cases[ex].fig[RP_RCV_BPS].med, d->unit);
	rp_buf_printf(b, "The %s's CPU was saturated (above %.0f %% of one core per thread) in %zu "
		      "of %zu case%s, most in ", sender ? "sender" : "receiver",
		      RP_CPU_SATURATED_PCT, hits, tested, NS_PLURAL(tested));
	case_label(d, ex, b);
	rp_buf_printf(b, " (%.0f %% per thread at %s): there the %s's CPU, not the network, "
		      "limits throughput; more threads or processes (and IRQ affinity) are the lever.",
		      ex_pct, t, sender ? "sender" : "receiver");
	return add_kind(f, RP_FIND_SATURATION, b);
}

static int find_udp_loss(const struct rp_data *d, struct rp_findings *f, struct rp_buf *b)
{
	size_t buf_n = 0, net_n = 0, mixed_n = 0, buf_ex = 0, net_ex = 0;
	for (size_t i = 0; i < d->n_cases; i++) {
		const struct rp_case *c = &d->cases[i];
		double lost = c->fig[RP_LOST].med, kd = c->fig[RP_KDROPS].med;
		if (!c->protocol || strcmp(c->protocol, "udp") != 0 || isnan(lost) || lost <= 0)
			continue;
		if (isnan(kd)) {
			mixed_n++;
			continue;
		}
		double share = kd / lost;
		if (share >= 0.8) {
			if (!buf_n++)
				buf_ex = i;
		} else if (share <= 0.2) {
			if (!net_n++)
				net_ex = i;
		} else {
			mixed_n++;
		}
	}
	if (buf_n) {
		const struct rp_case *c = &d->cases[buf_ex];
		rp_buf_printf(b, "UDP loss came from the receiver's socket buffer in %zu case%s: the "
			      "receiving kernel counted about as many buffer drops as datagrams were "
			      "lost (e.g. ", buf_n, buf_n == 1 ? "" : "s");
		case_label(d, buf_ex, b);
		rp_buf_printf(b, ": %.0f lost, %.0f kernel drops, %.3g %% loss). A larger receive "
			      "buffer (-w) or pacing the sender would recover it; the network did not "
			      "drop these.", c->fig[RP_LOST].med, c->fig[RP_KDROPS].med,
			      c->fig[RP_LOST_PCT].med);
		if (add_kind(f, RP_FIND_LOSS, b) < 0)
			return -1;
	}
	if (net_n) {
		const struct rp_case *c = &d->cases[net_ex];
		rp_buf_printf(b, "UDP loss happened before the receiver's socket in %zu case%s "
			      "(network or sender side; few or no kernel buffer drops), e.g. ", net_n,
			      net_n == 1 ? "" : "s");
		case_label(d, net_ex, b);
		rp_buf_printf(b, ": %.0f lost, %.0f kernel drops, %.3g %% loss.", c->fig[RP_LOST].med,
			      c->fig[RP_KDROPS].med, c->fig[RP_LOST_PCT].med);
		if (add_kind(f, RP_FIND_LOSS, b) < 0)
			return -1;
	}
	if (mixed_n) {
		rp_buf_printf(b, "In %zu UDP case%s with loss, the receiver's buffer drops account for "
			      "only part of it (or were not measured).", mixed_n, mixed_n == 1 ? "" : "s");
		if (add_kind(f, RP_FIND_LOSS, b) < 0)
			return -1;
	}
	return 0;
}

/* Group cases where a repeat starved a client: v_group_fairness.starved, the store's word
 * (a client under half its fair share), read by load_results. */
static int find_sharing(const struct rp_data *d, struct rp_findings *f, struct rp_buf *b)
{
	for (size_t i = 0; i < d->n_cases; i++) {
		const struct rp_case *c = &d->cases[i];
		const struct rp_stat *m = &c->fig[RP_MIN_FAIR];
		if (!m->n || !c->n_starved)
			continue;
		rp_buf_puts(b, "A client got less than half its fair share in ");
		case_label(d, i, b);
		rp_buf_printf(b, ": the slowest of its %lld clients moved %.0f %% of the total / "
			      "clients (worst repeat; Jain's index %.3f, median of %d). The path "
			      "was not shared evenly: a queue that drops one flow's packets more "
			      "than the others' (tail drop at a shallow buffer), or one client "
			      "limited by itself (its row in v_group_clients says which).",
			      c->clients, m->min * 100, c->fig[RP_JAIN].med, c->fig[RP_JAIN].n);
		if (add_kind(f, RP_FIND_SHARING, b) < 0)
			return -1;
	}
	return 0;
}

static int find_stability_failures(const struct rp_data *d, struct rp_findings *f,
				   struct rp_buf *b)
{
	size_t unstable = 0, failed = 0, ex_u = 0, ex_f = 0;
	double worst = 0;
	for (size_t i = 0; i < d->n_cases; i++) {
		const struct rp_case *c = &d->cases[i];
		if (c->n_ok < c->n_results || c->n_results == 0) {
			if (!failed++)
				ex_f = i;
		}
		if (c->fig[RP_RCV_BPS].n >= 2 && c->fig[RP_RCV_BPS].med > 0) {
			double m = 0, v = 0;
			int n = c->fig[RP_RCV_BPS].n;
			for (int k = 0; k < n; k++)
				m += c->goodput[k] / n;
			for (int k = 0; k < n; k++)
				v += (c->goodput[k] - m) * (c->goodput[k] - m) / (n - 1);
			double cv = sqrt(v) / m * 100;
			if (cv > RP_UNSTABLE_CV_PCT) {
				if (!unstable++ || cv > worst) {
					worst = cv;
					ex_u = i;
				}
			}
		}
	}
	if (unstable) {
		rp_buf_printf(b, "Repeats disagreed by more than %.0f %% (coefficient of variation) in "
			      "%zu case%s, most in ", RP_UNSTABLE_CV_PCT, unstable,
			      unstable == 1 ? "" : "s");
		case_label(d, ex_u, b);
		rp_buf_printf(b, " (%.0f %%): read their medians with care.", worst);
		if (add_kind(f, RP_FIND_UNSTABLE, b) < 0)
			return -1;
	}
	if (failed) {
		const struct rp_case *c = &d->cases[ex_f];
		rp_buf_printf(b, "%zu of %zu case%s %s failed or missing repeats, e.g. ", failed,
			      d->n_cases, NS_PLURAL(d->n_cases), failed == 1 ? "has" : "have");
		case_label(d, ex_f, b);
		rp_buf_printf(b, ": %s.", c->first_error ? c->first_error : "no result stored");
		if (add_kind(f, RP_FIND_FAILURE, b) < 0)
			return -1;
	}
	return 0;
}

static void cost_change(const struct rp_data *d, const struct rp_cmp *cmp,
			const struct rp_cost_row *cost, const struct rp_cost_change *c,
			struct rp_buf *b)
{
	const char *cur = cost[c->cur].currency;
	rp_buf_printf(b, "Per %s, %s ", rp_money_word(cur), rp_ep_label(&d->eps[cost[c->cur].ep]));
	if (!isnan(c->change_pct))
		rp_buf_printf(b, "went from %.0f to %.0f Mbit/s per %s/hour (%+.1f %%)", c->base_mpd,
			      c->cur_mpd, rp_money(cur), c->change_pct);
	else
		rp_buf_puts(b, "is no longer comparable");
	if (c->base_rank != c->cur_rank)
		rp_buf_printf(b, "; rank %d to %d", c->base_rank, c->cur_rank);
	if (c->cmp_row >= 0 && c->same_case) {
		const struct rp_cmp_row *w = &cmp->rows[c->cmp_row];
		if (w->verdict == RP_UNTESTABLE || w->verdict == RP_NEW)
			rp_buf_puts(b, " (its ranked case could not be tested)");
		else
			rp_buf_printf(b, " (its ranked case: %s, p = %.3g)", rp_verdict_name(w->verdict),
				      w->test.p);
	} else {
		rp_buf_puts(b, " (the ranked case changed)");
	}
	rp_buf_puts(b, ".");
}

/* One sentence per significant change, worst regression first (news order), then the
 * per-dollar figures and ranks that moved. */
static int find_compare(const struct rp_data *d, const struct rp_cmp *cmp,
			const struct rp_data *base, const struct rp_news *news,
			const struct rp_cost_row *cost, struct rp_findings *f, struct rp_buf *b)
{
	size_t matched = cmp->n - cmp->n_new;
	if (!cmp->n_regressions && !cmp->n_improvements) {
		rp_buf_printf(b, "Against baseline run %lld, none of the %zu matched case%s changed "
			      "significantly (Welch's t-test, p < %g, and more than %g %%).",
			      base->run.id, matched, NS_PLURAL(matched), cmp->alpha,
			      cmp->min_change_pct);
		if (add_kind(f, RP_FIND_CHANGE, b) < 0)
			return -1;
	}
	for (size_t k = 0; news && k < news->n_changed; k++) {
		const struct rp_cmp_row *r = &cmp->rows[news->changed[k]];
		char t0[32], t1[32];
		rp_fmt_in(t0, sizeof(t0), r->base_med, d->unit);
		rp_fmt_in(t1, sizeof(t1), r->cur_med, d->unit);
		rp_buf_puts(b, r->verdict == RP_REGRESSION ? "Regression: " : "Improvement: ");
		case_label(d, r->cur, b);
		rp_buf_printf(b, " %s %.1f %% against run %lld (%s to %s, Welch's p = %.3g).",
			      r->verdict == RP_REGRESSION ? "fell" : "rose", fabs(r->change_pct),
			      base->run.id, t0, t1, r->test.p);
		if (d->cases[r->cur].n_sender_limited ||
		    (r->base >= 0 && base->cases[r->base].n_sender_limited))
			rp_buf_puts(b, " The sender fell short of its rate in one of the runs "
				       "(sender-limited): the change is the sender's, not the path's, "
				       "and --fail-on-regression does not gate it.");
		if (add_kind(f, RP_FIND_CHANGE, b) < 0)
			return -1;
	}
	/* Pairs whose per-dollar figure moved first, then those that only changed rank. */
	for (int pass = 0; news && pass < 2; pass++) {
		for (size_t k = 0; k < news->n_cost; k++) {
			const struct rp_cost_change *c = &news->cost[k];
			int moved = !isnan(c->change_pct) && fabs(c->change_pct) > cmp->min_change_pct;
			if (c->base < 0 || moved != (pass == 0) || (!moved && c->base_rank == c->cur_rank))
				continue;
			cost_change(d, cmp, cost, c, b);
			if (add_kind(f, RP_FIND_COST_CHANGE, b) < 0)
				return -1;
		}
	}
	return 0;
}

int rp_findings_build(const struct rp_data *d, const struct rp_cost_row *cost, size_t n_cost,
		      const struct rp_cmp *cmp, const struct rp_data *base,
		      const struct rp_news *news, struct rp_findings *f, struct ns_err *err)
{
	memset(f, 0, sizeof(*f));
	struct rp_buf b;
	rp_buf_init(&b);
	rp_phases_finding(d, &b); /* shaped on credits: burst, sustained, ranked on sustained */
	if (b.len && add_kind(f, RP_FIND_COST, &b) < 0)
		goto err;
	char dis[1024]; /* the transfer changes who is first per dollar */
	if (rp_cost_disagree(d, cost, n_cost, dis, sizeof(dis)) &&
	    rp_findings_add(f, RP_FIND_COST, dis) < 0)
		goto err;
	for (size_t i = 0; i < d->n_cases; i++) /* an allowance counter moved: the provider's limit */
		if (rp_provider_finding(d, i, &b) && add_kind(f, RP_FIND_COST, &b) < 0)
			goto err;
	for (size_t i = 0; i < d->n_cases; i++) /* what set each figure: sender, core, steal */
		if (rp_limits_finding(d, i, &b) && add_kind(f, RP_FIND_SATURATION, &b) < 0)
			goto err;
	if (find_cost(d, cost, n_cost, f, &b) < 0 || find_scaling(d, f, &b) < 0 ||
	    find_cpu(d, 1, f, &b) < 0 || find_cpu(d, 0, f, &b) < 0 ||
	    find_udp_loss(d, f, &b) < 0 || find_stability_failures(d, f, &b) < 0 ||
	    find_sharing(d, f, &b) < 0 ||
	    (cmp && base && find_compare(d, cmp, base, news, cost, f, &b) < 0))
		goto err;
	rp_findings_sort(f);
	rp_buf_free(&b);
	return 0;
err:
	rp_buf_free(&b);
	rp_findings_free(f);
	return ns_err_code(err, NS_E_NOMEM, "out of memory");
}

void rp_findings_free(struct rp_findings *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->items[i].text);
	free(f->items);
	memset(f, 0, sizeof(*f));
}

void rp_headline(const struct rp_data *d, const struct rp_cost_row *cost, size_t n_cost,
		 const struct rp_cmp *cmp, const struct rp_data *base, const struct rp_news *news,
		 struct rp_buf *b)
{
	long fastest = -1;
	size_t ok = 0, results = 0;
	for (size_t i = 0; i < d->n_cases; i++) {
		const struct rp_case *c = &d->cases[i];
		ok += (size_t)c->n_ok;
		results += (size_t)c->n_results;
		if (!isnan(c->fig[RP_RCV_BPS].med) &&
		    (fastest < 0 || c->fig[RP_RCV_BPS].med > d->cases[fastest].fig[RP_RCV_BPS].med))
			fastest = (long)i;
	}
	if (cmp && base) {
		rp_buf_printf(b, "Against run %lld: %zu regression%s, %zu improvement%s.", base->run.id,
			      cmp->n_regressions, NS_PLURAL(cmp->n_regressions), cmp->n_improvements,
			      NS_PLURAL(cmp->n_improvements));
		if (news && news->n_changed) {
			const struct rp_cmp_row *r = &cmp->rows[news->changed[0]];
			rp_buf_puts(b, r->verdict == RP_REGRESSION ? " Worst: " : " Largest: ");
			rp_case_label(d, &d->cases[r->cur], b);
			rp_buf_printf(b, " %+.1f %% (p = %.3g).", r->change_pct, r->test.p);
		}
		if (news && news->n_rank_moves)
			rp_buf_printf(b, " %zu per-dollar rank%s changed.", news->n_rank_moves,
				      NS_PLURAL(news->n_rank_moves));
		rp_buf_puts(b, " ");
	}
	/* the best of each currency (the rows come grouped by currency, US dollars first) */
	size_t said = 0;
	for (size_t i = 0; i < n_cost; i++) {
		if (cost[i].rank != 1 || (i > 0 && cost[i - 1].rank &&
					  rp_money_same(cost[i].currency, cost[i - 1].currency)))
			continue;
		const struct rp_endpoint *e = &d->eps[cost[i].ep];
		rp_buf_printf(b, "%s %s: %s, %.0f Mbit/s per %s/hour", said ? "; per" : "Best per",
			      rp_money_word(cost[i].currency), rp_ep_label(e),
			      cost[i].mbps_per_usd_hour, rp_money(cost[i].currency));
		if (e->fx_rate > 0 && e->fx_currency)
			rp_buf_printf(b, " (%s at %g US dollars each)", e->fx_currency, e->fx_rate);
		if (cost[i].inside_burst)
			rp_buf_puts(b, " (inside its burst window: on credit)");
		/* another first once the transfer is priced, in this currency */
		for (size_t j = 0; cost[i].total_rank != 1 && j < n_cost; j++)
			if (cost[j].total_rank == 1 &&
			    rp_money_same(cost[j].currency, cost[i].currency)) {
				rp_buf_printf(b, "; with transfer: %s %s, %.0f Mbit/s per %s/hour of "
					      "instances and transfer", d->eps[cost[j].ep].xfer.relation,
					      rp_ep_label(&d->eps[cost[j].ep]),
					      cost[j].mbps_per_total_hour, rp_money(cost[j].currency));
				break;
			}
		said++;
	}
	if (said)
		rp_buf_puts(b, ". ");
	rp_buf_printf(b, "%zu case%s on %zu endpoint pair%s, %zu of %zu result%s successful.",
		      d->n_cases, NS_PLURAL(d->n_cases), d->n_eps, NS_PLURAL(d->n_eps), ok, results,
		      NS_PLURAL(results));
	if (fastest >= 0) {
		char t[32];
		rp_fmt_in(t, sizeof(t), d->cases[fastest].fig[RP_RCV_BPS].med, d->unit);
		rp_buf_printf(b, " Fastest: %s (", t);
		rp_case_label(d, &d->cases[fastest], b);
		rp_buf_puts(b, ").");
	}
}
