#include "cost.h"

#include <math.h>
#include <stdlib.h>
#include <strings.h>
#include <stdbool.h>
#include <string.h>

int cost_basis_parse(const char *s, enum cost_basis *basis, struct ns_err *err)
{
	if (s && strcmp(s, "pair") == 0)
		*basis = COST_PAIR;
	else if (s && strcmp(s, "sender") == 0)
		*basis = COST_SENDER;
	else
		return ns_err_set(err, "price basis '%s': want pair or sender", s ? s : "");
	return 0;
}

const char *cost_basis_name(enum cost_basis basis)
{
	return basis == COST_SENDER ? "sender" : "pair";
}

static bool valid_price(double usd)
{
	return isfinite(usd) && usd > 0;
}

double cost_usd_per_hour(double unit_usd_per_hour, enum cost_basis basis)
{
	if (!valid_price(unit_usd_per_hour))
		return NAN;
	return basis == COST_PAIR ? 2 * unit_usd_per_hour : unit_usd_per_hour;
}

double cost_mbps_per_usd_hour(double bps, double usd_per_hour)
{
	if (!valid_price(usd_per_hour) || !isfinite(bps) || bps < 0)
		return NAN;
	return bps / 1e6 / usd_per_hour;
}

double cost_usd_per_gbps_hour(double bps, double usd_per_hour)
{
	if (!valid_price(usd_per_hour) || !isfinite(bps) || bps <= 0)
		return NAN;
	return usd_per_hour / (bps / 1e9);
}

double cost_run_usd(double usd_per_hour, double seconds)
{
	if (!valid_price(usd_per_hour) || !isfinite(seconds) || seconds < 0)
		return NAN;
	return usd_per_hour * seconds / 3600.0;
}

double cost_usd_per_million(double per_second, double usd_per_hour)
{
	if (!valid_price(usd_per_hour) || !isfinite(per_second) || per_second <= 0)
		return NAN;
	return usd_per_hour / (per_second * 3600.0) * 1e6;
}

int cost_billed_parse(const char *s, enum cost_billed *b)
{
	static const char *const names[] = {"sender", "receiver", "both"};
	for (int i = 0; s && i < 3; i++)
		if (strcmp(s, names[i]) == 0) {
			*b = (enum cost_billed)i;
			return 0;
		}
	return -1;
}

const char *cost_billed_name(enum cost_billed b)
{
	return b == COST_BILLED_BOTH ? "both" : b == COST_BILLED_RECEIVER ? "receiver" : "sender";
}

double cost_gb_per_hour(double bps)
{
	if (!isfinite(bps) || bps < 0)
		return NAN;
	return bps * 3600.0 / 8e9;
}

double cost_transfer_month(const struct cost_transfer_rule *r, double monthly_gb)
{
	if (!r || r->ntiers == 0 || !isfinite(monthly_gb) || monthly_gb < 0)
		return NAN;
	double billable = monthly_gb - (r->included_gb > 0 ? r->included_gb : 0);
	double sum = 0, lower = 0;
	for (size_t i = 0; i < r->ntiers && billable > lower; i++) {
		double upper = r->tiers[i].upto_gb, per = r->tiers[i].per_gb;
		if (!(per >= 0) || !isfinite(per))
			return NAN;
		double top = billable < upper ? billable : upper;
		sum += (top - lower) * per;
		lower = upper;
	}
	return sum;
}

static int billed_sides(enum cost_billed b)
{
	return b == COST_BILLED_BOTH ? 2 : 1;
}

void cost_total_figures(double bps, double scale, double instance_per_hour,
			const struct cost_transfer_rule *rule, const char *relation, double monthly_gb,
			struct cost_total *out)
{
	out->gb_per_hour = cost_gb_per_hour(scale > 0 ? bps / scale : bps);
	out->monthly_gb = isfinite(monthly_gb) && monthly_gb > 0
				  ? monthly_gb : out->gb_per_hour * COST_HOURS_PER_MONTH;
	if (rule) {
		double month = cost_transfer_month(rule, out->monthly_gb);
		out->transfer_per_hour = out->monthly_gb > 0
			? billed_sides(rule->billed) * month / out->monthly_gb * out->gb_per_hour
			: 0 * month;
	} else if (relation && strcmp(relation, "same-zone") == 0) {
		out->transfer_per_hour = isfinite(out->gb_per_hour) ? 0 : NAN;
	} else {
		out->transfer_per_hour = NAN;
	}
	out->total_per_hour = valid_price(instance_per_hour)
				      ? instance_per_hour + out->transfer_per_hour : NAN;
	out->mbps_per_instance_hour = cost_mbps_per_usd_hour(bps, instance_per_hour);
	out->mbps_per_total_hour = cost_mbps_per_usd_hour(bps, out->total_per_hour);
	double tb_per_hour = out->gb_per_hour / 1000.0;
	out->transfer_per_tb = tb_per_hour > 0 ? out->transfer_per_hour / tb_per_hour : NAN;
	out->total_per_tb = tb_per_hour > 0 ? out->total_per_hour / tb_per_hour : NAN;
}

static bool known(const char *s)
{
	return s && s[0];
}

const char *cost_relation(const char *client_region, const char *client_zone,
			  const char *agent_region, const char *agent_zone)
{
	if (known(client_region) && known(agent_region) && strcmp(client_region, agent_region))
		return "cross-region";
	if (known(client_zone) && known(agent_zone))
		return strcmp(client_zone, agent_zone) ? "cross-zone" : "same-zone";
	return "unknown";
}

int cost_relation_valid(const char *s)
{
	static const char *const names[] = {"same-zone", "cross-zone", "cross-region", "internet",
					    "unknown"};
	for (int i = 0; s && i < 5; i++)
		if (strcmp(s, names[i]) == 0)
			return 1;
	return 0;
}

int cost_volume_parse(const char *s, double *gb, struct ns_err *err)
{
	static const struct { const char *unit; double gb; } units[] = {
		{"", 1}, {"GB", 1}, {"TB", 1e3}, {"PB", 1e6},
	};
	char *end = NULL;
	double v = s ? strtod(s, &end) : NAN;
	if (!s || end == s || !isfinite(v) || v <= 0)
		return ns_err_code(err, NS_E_INPUT, "monthly volume '%s': want a number above 0 "
				   "with GB, TB or PB (50TB)", s ? s : "");
	while (*end == ' ')
		end++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strcasecmp(end, units[i].unit) == 0) {
			*gb = v * units[i].gb;
			return 0;
		}
	return ns_err_code(err, NS_E_INPUT, "monthly volume '%s': unit '%s' is not GB, TB or PB "
			   "(decimal: 1 TB = 1000 GB)", s, end);
}
