/* hostinfo: gathers the host facts (uname, os-release, CPUs, NUMA), the routing interface's
 * NIC facts (nic.c) and the EC2 identity (imds.c) into the JSON documented in
 * schemas/hostinfo.md. Missing facts are null with a warning; nothing is guessed. */
#include "hostinfo.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lib/jsonw.h"
#include "lib/units.h"
#include "imds.h"
#include "nic.h"
#include "lib/settings.h"

void hostinfo_opts_init(struct hostinfo_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->peer = NULL;
	o->imds = true;
	o->imds_addr = IMDS_DEFAULT_ADDR;
	o->imds_timeout_s = 0.5;
	/* Environment switches, so that tests and agents started by others can be redirected to a
	 * fake metadata server or keep away from the real one without new options everywhere. */
	if (settings_get()->imds_addr)
		o->imds_addr = settings_get()->imds_addr;
	if (settings_get()->imds_off)
		o->imds = false;
}

const char *hostinfo_driver_family(const char *driver)
{
	static const struct {
		const char *driver, *family;
	} map[] = {
		{"ixgbevf", "ixgbevf"},     {"vif", "vif"},          {"xen_netfront", "vif"},
		{"xen-netfront", "vif"},    {"netfront", "vif"},     {"ena", "ena"},
		{"virtio_net", "virtio"},   {"virtio-net", "virtio"}, {"mlx5_core", "mlx5"},
		{"mlx4_en", "mlx4"},        {"veth", "veth"},        {"loopback", "loopback"},
		{"lo", "loopback"},
	};
	if (!driver || !*driver)
		return NULL;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(driver, map[i].driver) == 0)
			return map[i].family;
	return driver; /* others by name: ixgbe, i40e, gve, hv_netvsc, ... */
}

static bool file_starts_with(const char *path, const char *prefix)
{
	char buf[128];
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	bool ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	return ok && strncasecmp(buf, prefix, strlen(prefix)) == 0;
}

bool hostinfo_looks_like_ec2(void)
{
	/* What AWS documents for telling an instance apart without the network: the DMI vendor
	 * on Nitro, the "ec2" prefix of the system/hypervisor UUID on Xen. */
	return file_starts_with("/sys/devices/virtual/dmi/id/sys_vendor", "Amazon EC2") ||
	       file_starts_with("/sys/devices/virtual/dmi/id/board_vendor", "Amazon EC2") ||
	       file_starts_with("/sys/devices/virtual/dmi/id/bios_vendor", "Amazon EC2") ||
	       file_starts_with("/sys/devices/virtual/dmi/id/product_uuid", "ec2") ||
	       file_starts_with("/sys/hypervisor/uuid", "ec2");
}

/* First line of a file starting with key (e.g. "model name"), the text after its ':'. */
static int file_field(const char *path, const char *key, char sep, char *out, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	char line[512];
	int rc = -1;
	size_t klen = strlen(key);
	while (rc < 0 && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) != 0)
			continue;
		char *p = line + klen;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != sep)
			continue;
		p++;
		while (*p == ' ' || *p == '\t' || *p == '"')
			p++;
		p[strcspn(p, "\n")] = '\0';
		size_t n = strlen(p);
		while (n > 0 && (p[n - 1] == '"' || p[n - 1] == ' '))
			p[--n] = '\0';
		if (n > 0) {
			snprintf(out, len, "%s", p);
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

static int numa_nodes(void)
{
	char text[256];
	FILE *f = fopen("/sys/devices/system/node/online", "re");
	if (!f)
		return 1; /* kernels without NUMA support have one node */
	bool ok = fgets(text, sizeof(text), f) != NULL;
	fclose(f);
	if (!ok)
		return 1;
	text[strcspn(text, "\n")] = '\0';
	int nodes[1024];
	size_t n;
	if (units_parse_cpulist(text, nodes, 1024, &n, NULL) < 0 || n == 0)
		return 1;
	return (int)n;
}

static void kv_str_or_null(struct jsonw *w, const char *key, const char *s)
{
	jsonw_kv_str(w, key, s && *s ? s : NULL);
}

static void kv_int_or_null(struct jsonw *w, const char *key, int v)
{
	if (v < 0) {
		jsonw_key(w, key);
		jsonw_null(w);
	} else {
		jsonw_kv_int(w, key, v);
	}
}

static void kv_flag(struct jsonw *w, const char *key, int v)
{
	if (v < 0) {
		jsonw_key(w, key);
		jsonw_null(w);
	} else {
		jsonw_kv_bool(w, key, v != 0);
	}
}

static void write_interface(struct jsonw *w, const struct nic_info *ni)
{
	jsonw_key(w, "interface");
	jsonw_obj_open(w);
	jsonw_kv_str(w, "name", ni->name);
	kv_str_or_null(w, "driver", ni->driver);
	kv_str_or_null(w, "driver_family", hostinfo_driver_family(ni->driver));
	kv_str_or_null(w, "driver_version", ni->driver_version);
	kv_str_or_null(w, "firmware", ni->firmware);
	kv_str_or_null(w, "bus_info", ni->bus_info);
	kv_int_or_null(w, "speed_mbps", ni->speed_mbps);
	kv_str_or_null(w, "duplex", ni->duplex == 1 ? "full" : ni->duplex == 0 ? "half" : NULL);
	kv_int_or_null(w, "mtu", ni->mtu);
	kv_int_or_null(w, "rx_queues", ni->rx_queues);
	kv_int_or_null(w, "tx_queues", ni->tx_queues);
	kv_int_or_null(w, "combined_queues", ni->combined_queues);
	jsonw_key(w, "offloads");
	jsonw_obj_open(w);
	kv_flag(w, "gso", ni->gso);
	kv_flag(w, "gro", ni->gro);
	kv_flag(w, "tso", ni->tso);
	jsonw_obj_close(w);
	kv_str_or_null(w, "qdisc", ni->qdisc);
	jsonw_key(w, "irq_cpus");
	jsonw_arr_open(w);
	for (size_t i = 0; i < ni->n_irq_cpus; i++)
		jsonw_int(w, ni->irq_cpus[i]);
	jsonw_arr_close(w);
	jsonw_obj_close(w);
}

int hostinfo_fq_paces(const char *peer, struct ns_err *err)
{
	struct nic_route r;
	if (nic_route_lookup(peer, &r, err) < 0)
		return -1;
	return nic_fq_paces(r.ifname, err);
}

/* Everything hostinfo knows, gathered once and then written as JSON or as a table. */
struct facts {
	struct utsname u;
	char os[128], cpu[128];
	long cpus;
	int numa;
	bool have_route, have_nic, have_cloud;
	struct nic_route route;
	struct nic_info nic;
	struct imds_info cloud;
	struct nic_notes notes;
};

static int gather(const struct hostinfo_opts *o, struct facts *f, struct ns_err *err)
{
	struct nic_notes *notes = &f->notes;
	if (uname(&f->u) < 0)
		return ns_err_sys(err, "hostinfo: uname");
	if (file_field("/etc/os-release", "PRETTY_NAME", '=', f->os, sizeof(f->os)) < 0)
		nic_note(notes, "os: /etc/os-release has no PRETTY_NAME");
	if (file_field("/proc/cpuinfo", "model name", ':', f->cpu, sizeof(f->cpu)) < 0 &&
	    file_field("/proc/cpuinfo", "cpu model", ':', f->cpu, sizeof(f->cpu)) < 0 &&
	    file_field("/proc/cpuinfo", "Processor", ':', f->cpu, sizeof(f->cpu)) < 0)
		nic_note(notes, "cpu_model: not in /proc/cpuinfo");
	f->cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (f->cpus < 1)
		f->cpus = 1;
	f->numa = numa_nodes();

	struct ns_err e;
	f->have_route = nic_route_lookup(o->peer, &f->route, &e) == 0;
	if (!f->have_route)
		nic_note(notes, "route: %s", e.msg);
	else if (nic_query(f->route.ifname, &f->nic, notes, &e) == 0)
		f->have_nic = true;
	else
		nic_note(notes, "interface: %s", e.msg);

	/* The default metadata address is only asked on a host whose firmware says EC2: anywhere
	 * else it would cost the timeout, and that link-local address may belong to someone else.
	 * An address given explicitly (tests, proxies) is always asked. */
	bool default_addr = !o->imds_addr || strcmp(o->imds_addr, IMDS_DEFAULT_ADDR) == 0;
	if (o->imds && (!default_addr || hostinfo_looks_like_ec2())) {
		if (imds_query(o->imds_addr, o->imds_timeout_s, &f->cloud, &e) == 0)
			f->have_cloud = true;
		else
			nic_note(notes, "imds (%s): %s", o->imds_addr ? o->imds_addr : IMDS_DEFAULT_ADDR,
				 e.msg);
	}
	return 0;
}

static void write_json(struct jsonw *w, const struct hostinfo_opts *o, const struct facts *f)
{
	jsonw_obj_open(w);
	jsonw_kv_str(w, "hostname", f->u.nodename);
	jsonw_kv_str(w, "kernel", f->u.release);
	kv_str_or_null(w, "os", f->os);
	kv_str_or_null(w, "cpu_model", f->cpu);
	jsonw_kv_int(w, "online_cpus", f->cpus);
	jsonw_kv_int(w, "numa_nodes", f->numa);
	if (f->have_nic) {
		write_interface(w, &f->nic);
	} else {
		jsonw_key(w, "interface");
		jsonw_null(w);
	}
	jsonw_key(w, "route");
	jsonw_obj_open(w);
	kv_str_or_null(w, "peer", o->peer);
	kv_str_or_null(w, "source", f->have_route ? f->route.source : NULL);
	kv_str_or_null(w, "gateway", f->have_route ? f->route.gateway : NULL);
	jsonw_obj_close(w);
	jsonw_key(w, "cloud");
	if (f->have_cloud) {
		jsonw_obj_open(w);
		jsonw_kv_str(w, "provider", "aws");
		jsonw_kv_str(w, "instance_type", f->cloud.instance_type);
		jsonw_kv_str(w, "region", f->cloud.region);
		jsonw_kv_str(w, "availability_zone", f->cloud.availability_zone);
		jsonw_obj_close(w);
	} else {
		jsonw_null(w);
	}
	jsonw_key(w, "warnings");
	jsonw_arr_open(w);
	for (int i = 0; i < f->notes.n; i++)
		jsonw_str(w, f->notes.text[i]);
	jsonw_arr_close(w);
	jsonw_obj_close(w);
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

static void int_or_dash(char *buf, size_t len, int v, const char *unit)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%d%s", v, unit);
}

static const char *flag_text(int v)
{
	return v < 0 ? "?" : v ? "on" : "off";
}

static void write_text(FILE *out, const struct hostinfo_opts *o, const struct facts *f)
{
	fprintf(out, "%-16s %s\n", "host", f->u.nodename);
	fprintf(out, "%-16s %s\n", "kernel", f->u.release);
	fprintf(out, "%-16s %s\n", "os", or_dash(f->os));
	fprintf(out, "%-16s %s\n", "cpu", or_dash(f->cpu));
	fprintf(out, "%-16s %ld online, %d NUMA node%s\n", "cpus", f->cpus, f->numa,
		f->numa == 1 ? "" : "s");
	fprintf(out, "%-16s %s via %s, source %s%s%s\n", "route", o->peer ? o->peer : "default",
		f->have_route ? f->route.ifname : "-", f->have_route ? or_dash(f->route.source) : "-",
		f->have_route && f->route.gateway[0] ? ", gateway " : "",
		f->have_route ? f->route.gateway : "");
	if (f->have_nic) {
		const struct nic_info *n = &f->nic;
		char speed[32], mtu[32], rx[16], tx[16], comb[16], cpus[256];
		int_or_dash(speed, sizeof(speed), n->speed_mbps, " Mbit/s");
		int_or_dash(mtu, sizeof(mtu), n->mtu, "");
		int_or_dash(rx, sizeof(rx), n->rx_queues, "");
		int_or_dash(tx, sizeof(tx), n->tx_queues, "");
		int_or_dash(comb, sizeof(comb), n->combined_queues, "");
		units_format_cpulist(n->irq_cpus, n->n_irq_cpus, cpus, sizeof(cpus));
		fprintf(out, "%-16s %s\n", "interface", n->name);
		fprintf(out, "%-16s %s (family %s)\n", "driver", or_dash(n->driver),
			or_dash(hostinfo_driver_family(n->driver)));
		fprintf(out, "%-16s %s, firmware %s, bus %s\n", "driver version",
			or_dash(n->driver_version), or_dash(n->firmware), or_dash(n->bus_info));
		fprintf(out, "%-16s %s, %s duplex, MTU %s\n", "link", speed,
			n->duplex == 1 ? "full" : n->duplex == 0 ? "half" : "unknown", mtu);
		fprintf(out, "%-16s rx %s, tx %s, combined %s\n", "queues", rx, tx, comb);
		fprintf(out, "%-16s gso %s, gro %s, tso %s\n", "offloads", flag_text(n->gso),
			flag_text(n->gro), flag_text(n->tso));
		fprintf(out, "%-16s %s%s\n", "qdisc", or_dash(n->qdisc),
			n->fq_paces == 1   ? " (paces UDP --fq-rate)"
			: n->fq_paces == 0 ? " (no fq: UDP --fq-rate would not pace)"
					   : "");
		fprintf(out, "%-16s %s\n", "irq cpus", n->n_irq_cpus ? cpus : "-");
	} else {
		fprintf(out, "%-16s -\n", "interface");
	}
	if (f->have_cloud)
		fprintf(out, "%-16s aws %s, %s (%s)\n", "cloud", f->cloud.instance_type,
			f->cloud.region, f->cloud.availability_zone);
	else
		fprintf(out, "%-16s -\n", "cloud");
	for (int i = 0; i < f->notes.n; i++)
		fprintf(out, "%-16s %s\n", i == 0 ? "warnings" : "", f->notes.text[i]);
}

/* Collects and renders as JSON (json = true) or as the readable table. */
static int collect(const struct hostinfo_opts *o, bool json, char **out, struct ns_err *err)
{
	struct hostinfo_opts defaults;
	if (!o) {
		hostinfo_opts_init(&defaults);
		o = &defaults;
	}
	*out = NULL;
	struct facts *f = calloc(1, sizeof(*f)); /* ~16 KiB of IRQ CPUs: not on the stack */
	if (!f)
		return ns_err_set(err, "hostinfo: out of memory");
	if (gather(o, f, err) < 0)
		goto err;
	if (json) {
		struct jsonw w;
		jsonw_init(&w, false);
		write_json(&w, o, f);
		*out = jsonw_steal(&w);
		jsonw_free(&w);
	} else {
		size_t len;
		FILE *m = open_memstream(out, &len);
		if (m) {
			write_text(m, o, f);
			if (fclose(m) != 0) {
				free(*out);
				*out = NULL;
			}
		}
	}
	if (!*out) {
		ns_err_set(err, "hostinfo: out of memory");
		goto err;
	}
	free(f);
	return 0;
err:
	free(f);
	return -1;
}

int hostinfo_collect_json(const struct hostinfo_opts *o, char **json, struct ns_err *err)
{
	return collect(o, true, json, err);
}

int hostinfo_collect_text(const struct hostinfo_opts *o, char **text, struct ns_err *err)
{
	return collect(o, false, text, err);
}
