/* shaping: the burst and sustained phases of one direction, from its receiver's interval
 * series (the sums over streams, omit left out) through lib/phases. */
#ifndef NS_SHAPING_H
#define NS_SHAPING_H

#include <stdint.h>

#include "runner/proto/probe.h"

/* out->found = false when the series is too short or shows no sustained step down. */
void shaping_from_intervals(const struct probe_interval *v, uint32_t n, struct probe_shaping *out);

#endif
