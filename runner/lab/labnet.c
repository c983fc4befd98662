#include "labnet.h"

#include "lib/sys/proc.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NETNS_DIR "/run/netns"     /* where `ip netns` keeps its names */
#define LAB_PEER_DEV "eth0"        /* the namespace's end: the name an instance's NIC has */
#define AGENT_START_S 5.0          /* an agent listens within this, or it failed */
#define PROC_END_S 2.0             /* TERM, then this long before KILL */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* ip and tc run under this limit: each is done in milliseconds; one that hangs is stopped. */
#define LABNET_CMD_TIMEOUT_S 60.0

int labnet_run(const char *const *argv, struct ns_err *err)
{
	struct proc_exec x;
	proc_run_argv((char *const *)argv, environ, LABNET_CMD_TIMEOUT_S, 0, &x);
	int ok = x.status == PROC_OK;
	char why[256], cmd[160] = "";
	if (!ok) {
		proc_why(&x, why, sizeof(why));
		for (size_t i = 0, o = 0; argv[i] && o < sizeof(cmd) - 1; i++)
			o += (size_t)snprintf(cmd + o, sizeof(cmd) - o, "%s%s", i ? " " : "", argv[i]);
	}
	proc_exec_free(&x);
	return ok ? 0 : ns_err_code(err, NS_E_FAIL, "%s: %s", cmd, why);
}

void labnet_link_init(struct lab_link *l, const char *prefix, unsigned slot)
{
	memset(l, 0, sizeof(*l));
	snprintf(l->ns, sizeof(l->ns), "%s-%u", prefix, slot);
	l->slot = slot;
	snprintf(l->host_addr, sizeof(l->host_addr), "198.18.%u.1", slot);
	snprintf(l->agent_addr, sizeof(l->agent_addr), "198.18.%u.2", slot);
}

static int shape(const char *ns, const char *dev, const struct lab_shape *s, struct ns_err *err)
{
	char rate[32], burst[32], limit[32], peak[32], mtu[32];
	snprintf(rate, sizeof(rate), "%" PRIu64 "bit", s->tbf_rate_bps);
	snprintf(burst, sizeof(burst), "%" PRIu64, s->burst_bytes);
	snprintf(limit, sizeof(limit), "%" PRIu64, s->limit_bytes);
	snprintf(peak, sizeof(peak), "%" PRIu64 "bit", s->tbf_peak_bps);
	snprintf(mtu, sizeof(mtu), "%" PRIu64, s->mtu_bytes);
	const char *argv[24];
	size_t n = 0;
	argv[n++] = "tc";
	if (ns) {
		argv[n++] = "-n";
		argv[n++] = ns;
	}
	const char *rest[] = {"qdisc", "replace", "dev", dev, "root", "tbf", "rate", rate,
			      "burst", burst, "limit", limit};
	for (size_t i = 0; i < sizeof(rest) / sizeof(rest[0]); i++)
		argv[n++] = rest[i];
	if (s->tbf_peak_bps) {
		argv[n++] = "peakrate";
		argv[n++] = peak;
		argv[n++] = "mtu";
		argv[n++] = mtu;
	}
	argv[n] = NULL;
	return labnet_run(argv, err);
}

/* The host's end answers IPv4 only: no IPv6 solicitations on a link whose counts we read. */
static void no_ipv6(const char *dev)
{
	char path[128];
	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6", dev);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "1", 1) < 0) {
			/* no IPv6 in this kernel: nothing to silence */
		}
		close(fd);
	}
}

int labnet_create(const struct lab_link *l, const struct lab_shape *s, struct ns_err *err)
{
	char host_cidr[40], agent_cidr[40];
	snprintf(host_cidr, sizeof(host_cidr), "%s/24", l->host_addr);
	snprintf(agent_cidr, sizeof(agent_cidr), "%s/24", l->agent_addr);
	const char *const add[] = {"ip", "netns", "add", l->ns, NULL};
	if (labnet_run(add, err) < 0)
		return -1;
	const char *const *steps[] = {
		(const char *const[]){"ip", "link", "add", l->ns, "type", "veth", "peer", "name",
				      LAB_PEER_DEV, "netns", l->ns, NULL},
		(const char *const[]){"ip", "addr", "add", host_cidr, "dev", l->ns, NULL},
		(const char *const[]){"ip", "-n", l->ns, "addr", "add", agent_cidr, "dev",
				      LAB_PEER_DEV, NULL},
		(const char *const[]){"ip", "-n", l->ns, "link", "set", "lo", "up", NULL},
		(const char *const[]){"ip", "-n", l->ns, "link", "set", LAB_PEER_DEV, "up", NULL},
		(const char *const[]){"ip", "link", "set", l->ns, "up", NULL},
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (i == 1)
			no_ipv6(l->ns);
		if (labnet_run(steps[i], err) < 0)
			goto err;
	}
	/* host -> namespace is the client's send direction; namespace -> host the reverse one */
	if (shape(NULL, l->ns, s, err) < 0 || shape(l->ns, LAB_PEER_DEV, s, err) < 0)
		goto err;
	return 0;
err:;
	struct ns_err ignored;
	labnet_destroy(l->ns, &ignored);
	return -1;
}

static void bridge_name(const char *ns, char *out, size_t cap)
{
	snprintf(out, cap, "%.14sb", ns);
}

int labnet_bridge(const struct lab_link *sv, struct ns_err *err)
{
	char br[LAB_NAME_MAX], cidr[40];
	bridge_name(sv->ns, br, sizeof(br));
	snprintf(cidr, sizeof(cidr), "%s/24", sv->host_addr);
	const char *const *steps[] = {
		(const char *const[]){"ip", "link", "add", br, "type", "bridge", NULL},
		(const char *const[]){"ip", "addr", "del", cidr, "dev", sv->ns, NULL},
		(const char *const[]){"ip", "link", "set", sv->ns, "master", br, NULL},
		(const char *const[]){"ip", "addr", "add", cidr, "dev", br, NULL},
		(const char *const[]){"ip", "link", "set", br, "up", NULL},
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (i == 1)
			no_ipv6(br);
		if (labnet_run(steps[i], err) < 0)
			return -1;
	}
	return 0;
}

int labnet_create_client(const struct lab_link *cl, const struct lab_link *sv,
			 struct ns_err *err)
{
	char br[LAB_NAME_MAX], cidr[40];
	bridge_name(sv->ns, br, sizeof(br));
	snprintf(cidr, sizeof(cidr), "%s/24", cl->agent_addr);
	const char *const add[] = {"ip", "netns", "add", cl->ns, NULL};
	if (labnet_run(add, err) < 0)
		return -1;
	const char *const *steps[] = {
		(const char *const[]){"ip", "link", "add", cl->ns, "type", "veth", "peer", "name",
				      LAB_PEER_DEV, "netns", cl->ns, NULL},
		(const char *const[]){"ip", "link", "set", cl->ns, "master", br, NULL},
		(const char *const[]){"ip", "-n", cl->ns, "addr", "add", cidr, "dev", LAB_PEER_DEV,
				      NULL},
		(const char *const[]){"ip", "-n", cl->ns, "link", "set", "lo", "up", NULL},
		(const char *const[]){"ip", "-n", cl->ns, "link", "set", LAB_PEER_DEV, "up", NULL},
		(const char *const[]){"ip", "link", "set", cl->ns, "up", NULL},
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (i == 1)
			no_ipv6(cl->ns);
		if (labnet_run(steps[i], err) < 0)
			goto err;
	}
	return 0;
err:;
	struct ns_err ignored;
	labnet_destroy(cl->ns, &ignored);
	return -1;
}

static int try_connect(const char *addr, uint16_t port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		return -1;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	int rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	return rc;
}

int labnet_start_agent(const struct lab_link *l, const char *self, const char *log,
		       const char *psk_file, bool delegate, pid_t *pid, struct ns_err *err)
{
	char listen[64];
	snprintf(listen, sizeof(listen), "%s:%d", l->agent_addr, LAB_AGENT_PORT);
	const char *argv[16] = {"ip", "netns", "exec", l->ns, self, "agent", "--listen", listen};
	size_t n = 8;
	if (psk_file && psk_file[0]) {
		argv[n++] = "--psk-file";
		argv[n++] = psk_file;
	}
	if (delegate)
		argv[n++] = "--delegate";
	argv[n] = NULL;
	int out = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0)
		return ns_err_sys(err, "%s", log);
	pid_t p = fork();
	if (p < 0) {
		int e = errno;
		close(out);
		errno = e;
		return ns_err_sys(err, "fork");
	}
	if (p == 0) {
		/* its own session: a Ctrl-C or a kill of whoever ran `lab up` does not reach it */
		setsid();
		setenv("NETSWEEP_IMDS", "0", 1); /* an emulated instance has no metadata service */
		int null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, STDIN_FILENO);
		dup2(out, STDOUT_FILENO);
		dup2(out, STDERR_FILENO);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(out);
	*pid = p;
	double deadline = now_s() + AGENT_START_S;
	while (try_connect(l->agent_addr, LAB_AGENT_PORT) < 0) {
		int status;
		if (waitpid(p, &status, WNOHANG) == p)
			return ns_err_code(err, NS_E_FAIL, "%s: the agent exited at start (log: %s)",
					   l->ns, log);
		if (now_s() > deadline) {
			kill(p, SIGKILL);
			waitpid(p, &status, 0);
			return ns_err_code(err, NS_E_TIMEOUT, "%s: the agent does not listen on %s "
					   "after %.0f s (log: %s)", l->ns, listen, AGENT_START_S, log);
		}
		sleep_ms(20);
	}
	return 0;
}

/* Pids whose network namespace is the file ns_path (what `ip netns pids` does). */
static size_t ns_pids(const char *ns_path, pid_t *pids, size_t cap)
{
	struct stat want;
	if (stat(ns_path, &want) < 0)
		return 0;
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < cap) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 1 || pid == getpid())
			continue;
		char path[64];
		struct stat st;
		snprintf(path, sizeof(path), "/proc/%ld/ns/net", pid);
		if (stat(path, &st) == 0 && st.st_ino == want.st_ino && st.st_dev == want.st_dev)
			pids[n++] = (pid_t)pid;
	}
	closedir(d);
	return n;
}

#define MAX_NS_PIDS 256

static int if_exists(const char *dev)
{
	char path[128];
	snprintf(path, sizeof(path), "/sys/class/net/%s", dev);
	return access(path, F_OK) == 0;
}

/* A process is gone once kill finds nothing or it is a zombie (its parent reaps it). */
static int proc_gone(pid_t pid)
{
	if (kill(pid, 0) < 0)
		return 1;
	char path[64], st[256];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 1;
	size_t n = fread(st, 1, sizeof(st) - 1, f);
	fclose(f);
	st[n] = '\0';
	const char *close = strrchr(st, ')'); /* the name may hold spaces and parentheses */
	return close && close[1] == ' ' && (close[2] == 'Z' || close[2] == 'X');
}

int labnet_destroy(const char *ns, struct ns_err *err)
{
	char path[128];
	snprintf(path, sizeof(path), NETNS_DIR "/%s", ns);
	/* Deleting the host's end is synchronous, deleting a namespace is not: the name would
	 * linger for a moment after `ip netns del`. */
	const char *const del_link[] = {"ip", "link", "del", ns, NULL};
	struct ns_err ignored;
	if (if_exists(ns))
		labnet_run(del_link, &ignored);
	char br[LAB_NAME_MAX];
	bridge_name(ns, br, sizeof(br));
	const char *const del_br[] = {"ip", "link", "del", br, NULL};
	if (if_exists(br)) /* an incast server's bridge */
		labnet_run(del_br, &ignored);
	pid_t pids[MAX_NS_PIDS], killed[MAX_NS_PIDS];
	size_t n_killed = 0;
	for (int sig = SIGTERM, round = 0; round < 2; round++, sig = SIGKILL) {
		size_t n = ns_pids(path, pids, MAX_NS_PIDS);
		if (!n)
			break;
		for (size_t i = 0; i < n; i++) {
			kill(pids[i], sig);
			if (round == 0)
				killed[n_killed++] = pids[i];
		}
		double deadline = now_s() + PROC_END_S;
		while (ns_pids(path, pids, MAX_NS_PIDS) && now_s() < deadline) {
			while (waitpid(-1, NULL, WNOHANG) > 0) {
				/* reap our own children (agents this process started) */
			}
			sleep_ms(20);
		}
	}
	if (ns_pids(path, pids, MAX_NS_PIDS))
		return ns_err_code(err, NS_E_FAIL, "%s: processes left in it after KILL", ns);
	/* A dying process leaves its namespace before it is done exiting (closing its sockets,
	 * freeing its memory: long on a busy host, seen under load as an agent still there
	 * after lab down returned). Return once each is gone, bounded like the rounds above. */
	double deadline = now_s() + PROC_END_S;
	for (size_t i = 0; i < n_killed; i++)
		while (!proc_gone(killed[i]) && now_s() < deadline) {
			while (waitpid(-1, NULL, WNOHANG) > 0) {
			}
			sleep_ms(20);
		}
	if (labnet_exists(ns)) {
		const char *const del_ns[] = {"ip", "netns", "del", ns, NULL};
		if (labnet_run(del_ns, err) < 0)
			return -1;
	}
	return 0;
}

int labnet_slot_in_use(unsigned slot)
{
	struct ifaddrs *ifa, *i;
	if (getifaddrs(&ifa) < 0)
		return 0;
	int used = 0;
	for (i = ifa; i && !used; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
			continue;
		uint32_t a = ntohl(((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr);
		used = (a >> 8) == ((198u << 16) | (18u << 8) | slot);
	}
	freeifaddrs(ifa);
	return used;
}

int labnet_exists(const char *ns)
{
	char path[128];
	snprintf(path, sizeof(path), NETNS_DIR "/%s", ns);
	return access(path, F_OK) == 0;
}

size_t labnet_list(const char *prefix, char (*names)[LAB_NAME_MAX], size_t cap)
{
	DIR *d = opendir(NETNS_DIR);
	if (!d)
		return 0;
	size_t plen = strlen(prefix), n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < cap) {
		const char *s = de->d_name;
		if (strncmp(s, prefix, plen) || s[plen] != '-' || !s[plen + 1] ||
		    strlen(s) >= LAB_NAME_MAX || strspn(s + plen + 1, "0123456789") != strlen(s + plen + 1))
			continue;
		snprintf(names[n++], LAB_NAME_MAX, "%s", s);
	}
	closedir(d);
	return n;
}
