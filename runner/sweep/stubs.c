/* Stand-ins for modules that colleagues are still landing (probe, agent, hostinfo, catalog),
 * so that the runner links and its own tests run in the meantime. mk/sweep.mk compiles each
 * section only while the real source is missing from its area's .mk list, and every symbol is
 * weak, so a real definition always wins. Delete this file once all of them have landed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/err.h"
#include "../host/catalog.h"
#include "../host/hostinfo.h"
#include "../net/agent.h"
#include "../net/probe.h"

#define WEAK __attribute__((weak))

#if STUB_PARAMS
WEAK const char *ns_proto_name(enum ns_proto p) { return p == NS_PROTO_UDP ? "udp" : "tcp"; }
WEAK const char *ns_dir_name(enum ns_dir d)
{
	return d == NS_DIR_REVERSE ? "reverse" : d == NS_DIR_BIDIR ? "bidir" : "forward";
}
WEAK void probe_params_init(struct probe_params *p)
{
	memset(p, 0, sizeof(*p));
	p->port = NS_DEFAULT_PORT;
	p->streams = 1;
	p->duration_s = 10;
	p->connect_timeout_s = 5;
}
WEAK int probe_params_check(const struct probe_params *p, struct ns_err *err)
{
	if (p->proto == NS_PROTO_UDP && p->length && (p->length < NS_UDP_MIN_LEN ||
						    p->length > NS_UDP_MAX_LEN))
		return ns_err_set(err, "UDP length %u is outside %d..%d", p->length,
				  NS_UDP_MIN_LEN, NS_UDP_MAX_LEN);
	if (p->duration_s <= 0)
		return ns_err_set(err, "duration must be above zero");
	return 0;
}
#endif

#if STUB_PROBE
WEAK int probe_run(const struct probe_params *p, struct probe_result *res, struct ns_err *err)
{
	memset(res, 0, sizeof(*res));
	res->params = *p;
	res->status = -1;
	snprintf(res->error, sizeof(res->error), "probe is not built yet");
	return ns_err_set(err, "probe is not built yet");
}
WEAK int probe_hostinfo(const char *host, uint16_t port, double timeout_s, char **json,
			struct ns_err *err)
{
	*json = NULL;
	return ns_err_set(err, "probe is not built yet");
}
WEAK void probe_result_free(struct probe_result *res)
{
	free(res->agent_hostinfo);
	res->agent_hostinfo = NULL;
}
#endif

#if STUB_RESULT_JSON
WEAK char *probe_result_json(const struct probe_result *res, bool pretty)
{
	return strdup("{}");
}
#endif

#if STUB_AGENT
WEAK void agent_opts_init(struct agent_opts *o) { memset(o, 0, sizeof(*o)); }
WEAK struct agent *agent_create(const struct agent_opts *o, struct ns_err *err)
{
	ns_err_set(err, "agent is not built yet");
	return NULL;
}
WEAK uint16_t agent_port(const struct agent *a) { return 0; }
WEAK int agent_serve(struct agent *a, struct ns_err *err) { return -1; }
WEAK void agent_stop(struct agent *a) {}
WEAK void agent_destroy(struct agent *a) {}
#endif

#if STUB_HOSTINFO
WEAK void hostinfo_opts_init(struct hostinfo_opts *o) { memset(o, 0, sizeof(*o)); }
WEAK int hostinfo_collect_json(const struct hostinfo_opts *o, char **json, struct ns_err *err)
{
	*json = strdup("{\"interface\":null,\"cloud\":null,\"warnings\":[\"hostinfo not built\"]}");
	return *json ? 0 : ns_err_set(err, "out of memory");
}
WEAK const char *hostinfo_driver_family(const char *driver) { return driver; }
#endif

#if STUB_CATALOG
WEAK const char *catalog_default_path(void) { return NETSWEEP_DATADIR "/catalog/aws.xml"; }
WEAK void catalog_init(struct catalog *c) { memset(c, 0, sizeof(*c)); }
WEAK int catalog_load(struct catalog *c, const char *path, struct ns_err *err)
{
	return ns_err_set(err, "%s: catalog is not built yet", path);
}
WEAK const struct catalog_instance *catalog_instance(const struct catalog *c, const char *type)
{
	return NULL;
}
WEAK const struct catalog_price *catalog_price(const struct catalog *c, const char *type,
					       const char *region)
{
	return NULL;
}
WEAK void catalog_free(struct catalog *c) {}
#endif

/* ISO C wants a translation unit to declare something even when every section is off. */
typedef int stubs_translation_unit_not_empty;
