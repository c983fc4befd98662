/* engine_xdp_none: the XDP engine in a build without libxdp, libbpf or clang: every use says
 * why it is missing and how to get it, before any test starts. */
#include "runner/engine/engine_int.h"

#include <stdio.h>

#define XDP_MISSING "this netsweep was built without the AF_XDP engine: install libxdp-dev, " \
		    "libbpf-dev and clang, then rebuild"

bool engine_xdp_available(char *why, size_t n)
{
	if (why && n)
		snprintf(why, n, "%s", XDP_MISSING);
	return false;
}

static int xdp_missing(struct engine *e, struct e_stream *s, struct ns_err *err)
{
	(void)e;
	(void)s;
	return ns_err_code(err, NS_E_UNSUPPORTED, "%s", XDP_MISSING);
}

const struct engine_ops engine_xdp_send_ops = {.name = "xdp-send", .setup = xdp_missing};
const struct engine_ops engine_xdp_rx_ops = {.name = "xdp-rx", .setup = xdp_missing};
const struct engine_ops engine_xdp_count_ops = {.name = "xdp-count", .setup = xdp_missing};
