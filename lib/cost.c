#include "cost.h"

#include <math.h>
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
