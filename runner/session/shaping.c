#include "shaping.h"

#include <stdlib.h>
#include <string.h>

#include "lib/phases.h"

void shaping_from_intervals(const struct probe_interval *v, uint32_t n, struct probe_shaping *out)
{
	memset(out, 0, sizeof(*out));
	double *rate = calloc(n ? n : 1, sizeof(*rate));
	double *t0 = calloc(n ? n : 1, sizeof(*t0));
	double *t1 = calloc(n ? n : 1, sizeof(*t1));
	uint32_t k = 0;
	for (uint32_t i = 0; rate && t0 && t1 && i < n; i++) {
		if (v[i].stream != -1 || v[i].omitted)
			continue;
		rate[k] = v[i].bits_per_second;
		t0[k] = v[i].start_s;
		t1[k] = v[i].end_s;
		k++;
	}
	struct phases ph;
	if (rate && t0 && t1 && phases_detect(rate, t0, t1, k, &ph)) {
		out->found = true;
		out->burst_bps = ph.burst_bps;
		out->burst_s = ph.burst_s;
		out->sustained_bps = ph.sustained_bps;
	}
	free(rate);
	free(t0);
	free(t1);
}
