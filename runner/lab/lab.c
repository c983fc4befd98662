#include "lab.h"

#include "lib/atomicfile.h"
#include "lib/sql/jsonr.h"
#include "runner/proto/auth.h"
#include "lib/settings.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define STATE_MAX (64 * 1024) /* a state file is one pair object of a few hundred bytes */

int lab_open(struct lab *lab, const char *dir, const char *prefix, struct ns_err *err)
{
	memset(lab, 0, sizeof(*lab));
	lab->lock_fd = -1;
	if (!dir || !*dir)
		dir = settings_get()->lab_dir;
	if (!dir || !*dir)
		dir = LAB_DEFAULT_DIR;
	size_t plen = strlen(prefix);
	if (!plen || plen > LAB_PREFIX_MAX || strspn(prefix, "abcdefghijklmnopqrstuvwxyz0123456789") != plen)
		return ns_err_code(err, NS_E_USAGE, "--prefix '%s': 1 to %d lower-case letters and "
				   "digits", prefix, LAB_PREFIX_MAX);
	if (strlen(dir) >= sizeof(lab->dir) - 32)
		return ns_err_code(err, NS_E_USAGE, "state directory name too long");
	snprintf(lab->dir, sizeof(lab->dir), "%s", dir);
	snprintf(lab->prefix, sizeof(lab->prefix), "%s", prefix);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return ns_err_sys(err, "%s", dir);
	char path[300];
	snprintf(path, sizeof(path), "%s/lock", dir);
	lab->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lab->lock_fd < 0)
		return ns_err_sys(err, "%s", path);
	if (flock(lab->lock_fd, LOCK_EX) < 0) {
		ns_err_sys(err, "locking %s", path);
		lab_close(lab);
		return -1;
	}
	return 0;
}

void lab_close(struct lab *lab)
{
	if (lab->lock_fd >= 0)
		close(lab->lock_fd); /* releases the flock */
	lab->lock_fd = -1;
}

static void state_path(const struct lab *lab, const char *ns, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s.json", lab->dir, ns);
}

/* A slot no state file of any prefix holds: the 198.18.SLOT.0/24 routes of two prefixes'
 * links would otherwise collide on this host. */
static unsigned free_slot(const struct lab *lab)
{
	bool used[LAB_MAX_SLOTS + 1] = {false};
	DIR *d = opendir(lab->dir);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d))) {
			const char *dash = strrchr(de->d_name, '-');
			char *end;
			unsigned long s = dash ? strtoul(dash + 1, &end, 10) : 0;
			if (dash && !strcmp(end, ".json") && s >= 1 && s <= LAB_MAX_SLOTS)
				used[s] = true;
		}
		closedir(d);
	}
	for (unsigned s = 1; s <= LAB_MAX_SLOTS; s++) {
		char ns[LAB_NAME_MAX];
		snprintf(ns, sizeof(ns), "%s-%u", lab->prefix, s);
		if (!used[s] && !labnet_exists(ns) && !labnet_slot_in_use(s))
			return s;
	}
	return 0;
}

void lab_pair_json(struct jsonw *w, const struct lab_pair *p)
{
	char agent[64];
	snprintf(agent, sizeof(agent), "%s:%d", p->link.agent_addr, LAB_AGENT_PORT);
	const struct lab_shape *s = &p->shape;
	jsonw_obj_open(w);
	jsonw_kv_str(w, "pair", p->pair);
	jsonw_kv_str(w, "instance_type", p->type);
	jsonw_kv_str(w, "agent", agent);
	jsonw_kv_str(w, "client", NULL);
	jsonw_kv_str(w, "namespace", p->link.ns);
	jsonw_kv_int(w, "agent_pid", p->agent_pid);
	jsonw_kv_str(w, "psk_file", p->psk_file[0] ? p->psk_file : NULL);
	const char *const place[][2] = {{"client_zone", p->client_zone}, {"agent_zone", p->agent_zone},
					{"client_region", p->client_region},
					{"agent_region", p->agent_region}};
	for (size_t k = 0; k < sizeof(place) / sizeof(place[0]); k++)
		if (place[k][1][0])
			jsonw_kv_str(w, place[k][0], place[k][1]);
	if (p->n_clients) {
		jsonw_key(w, "clients");
		jsonw_arr_open(w);
		for (size_t i = 0; i < p->n_clients; i++) {
			char a[64];
			snprintf(a, sizeof(a), "%s:%d", p->clients[i].link.agent_addr, LAB_AGENT_PORT);
			jsonw_str(w, a);
		}
		jsonw_arr_close(w);
	}
	jsonw_key(w, "emulation");
	jsonw_obj_open(w);
	jsonw_kv_str(w, "lab", "netns");
	jsonw_kv_double(w, "scale", s->scale);
	jsonw_kv_str(w, "scale_text", p->scale_text);
	jsonw_kv_str(w, "source", s->source);
	jsonw_kv_uint(w, "goodput_bps", s->goodput_bps);
	jsonw_kv_uint(w, "peak_goodput_bps", s->peak_goodput_bps);
	jsonw_kv_double(w, "credit_s", s->credit_s);
	jsonw_key(w, "tbf");
	jsonw_obj_open(w);
	jsonw_kv_uint(w, "rate_bps", s->tbf_rate_bps);
	jsonw_kv_uint(w, "peak_bps", s->tbf_peak_bps);
	jsonw_kv_uint(w, "burst_bytes", s->burst_bytes);
	jsonw_kv_uint(w, "limit_bytes", s->limit_bytes);
	jsonw_kv_uint(w, "mtu_bytes", s->mtu_bytes);
	jsonw_obj_close(w);
	jsonw_obj_close(w);
	jsonw_obj_close(w);
}

/* A client namespace's state: the pair it belongs to, so lab down --pair finds it. */
static void client_json(struct jsonw *w, const struct lab_pair *p, const struct lab_client *c)
{
	char a[64];
	snprintf(a, sizeof(a), "%s:%d", c->link.agent_addr, LAB_AGENT_PORT);
	jsonw_obj_open(w);
	jsonw_kv_str(w, "pair", p->pair);
	jsonw_kv_str(w, "role", "client");
	jsonw_kv_str(w, "client", a);
	jsonw_kv_str(w, "namespace", c->link.ns);
	jsonw_kv_int(w, "agent_pid", c->agent_pid);
	jsonw_obj_close(w);
}

static int write_state(const struct lab *lab, const struct lab_pair *p,
		       const struct lab_client *c, bool create, struct ns_err *err)
{
	char path[300];
	state_path(lab, c ? c->link.ns : p->link.ns, path, sizeof(path));
	struct jsonw w;
	jsonw_init(&w, false);
	if (c)
		client_json(&w, p, c);
	else
		lab_pair_json(&w, p);
	const char *text = jsonw_finish(&w);
	int rc = -1;
	if (!text) {
		ns_err_code(err, NS_E_NOMEM, "out of memory");
		goto out;
	}
	/* created exclusively (the reservation), then replaced whole (never half written) */
	struct atomicfile af;
	if (atomicfile_open(&af, path, 0600, create ? ATOMICFILE_NO_REPLACE : 0, err) < 0)
		goto out;
	fputs(text, af.f);
	fputc('\n', af.f);
	if (atomicfile_commit(&af, err) < 0)
		goto out;
	rc = 0;
out:
	jsonw_free(&w);
	return rc;
}

static void key_path(const struct lab *lab, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s.psk", lab->dir, lab->prefix);
}

/* The lab's own key, made when missing; under the lab's lock, so that the pairs of one prefix,
 * each set up by its own `lab up --hook`, share it. */
static int own_key(const struct lab *lab, char *out, size_t cap, struct ns_err *err)
{
	char path[300];
	key_path(lab, path, sizeof(path));
	if (strlen(path) >= cap)
		return ns_err_code(err, NS_E_USAGE, "state directory name too long");
	struct stat sb;
	if (lstat(path, &sb) < 0 && errno == ENOENT && auth_key_create(path, err) < 0)
		return -1;
	struct auth_key k;
	int rc = auth_key_load(path, &k, err);
	auth_key_clear(&k);
	memcpy(out, path, strlen(path) + 1);
	return rc;
}

static void drop_key_if_idle(const struct lab *lab);

/* Client k of an incast pair: a slot of its own (its namespace's name), an address on the
 * server's subnet, an agent that delegates. */
static int client_up(struct lab *lab, const struct lab_pair *p, struct lab_client *c, size_t k,
		     const char *self, struct ns_err *err)
{
	unsigned slot = free_slot(lab);
	if (!slot)
		return ns_err_code(err, NS_E_LIMIT, "no free lab slot for client %zu", k + 1);
	labnet_link_init(&c->link, lab->prefix, slot);
	snprintf(c->link.host_addr, sizeof(c->link.host_addr), "%s", p->link.host_addr);
	snprintf(c->link.agent_addr, sizeof(c->link.agent_addr), "198.18.%u.%zu", p->link.slot,
		 LAB_CLIENT_HOST0 + k);
	c->agent_pid = 0;
	char path[300], log[300];
	state_path(lab, c->link.ns, path, sizeof(path));
	snprintf(log, sizeof(log), "%s/%s.log", lab->dir, c->link.ns);
	if (write_state(lab, p, c, true, err) < 0)
		return -1;
	if (labnet_create_client(&c->link, &p->link, err) < 0) {
		unlink(path);
		return -1;
	}
	if (labnet_start_agent(&c->link, self, log, p->psk_file, true, &c->agent_pid, err) < 0 ||
	    write_state(lab, p, c, false, err) < 0)
		return -1; /* the caller takes the pair down, this client with it */
	return 0;
}

int lab_pair_up(struct lab *lab, struct lab_pair *p, const char *self, const char *psk_file,
		struct ns_err *err)
{
	if (psk_file && psk_file[0]) {
		if (strlen(psk_file) >= sizeof(p->psk_file))
			return ns_err_code(err, NS_E_USAGE, "key file path '%.64s...' is too long", psk_file);
		snprintf(p->psk_file, sizeof(p->psk_file), "%s", psk_file);
	} else if (own_key(lab, p->psk_file, sizeof(p->psk_file), err) < 0) {
		return -1;
	}
	unsigned slot = free_slot(lab);
	if (!slot) {
		drop_key_if_idle(lab);
		return ns_err_code(err, NS_E_LIMIT, "no free lab slot (%d in use)", LAB_MAX_SLOTS);
	}
	labnet_link_init(&p->link, lab->prefix, slot);
	p->agent_pid = 0;
	char path[300], log[300];
	state_path(lab, p->link.ns, path, sizeof(path));
	snprintf(log, sizeof(log), "%s/%s.log", lab->dir, p->link.ns);
	if (write_state(lab, p, NULL, true, err) < 0) { /* not ours to unlink: it may be another's */
		drop_key_if_idle(lab);
		return -1;
	}
	if (labnet_create(&p->link, &p->shape, err) < 0)
		goto err;
	if (labnet_start_agent(&p->link, self, log, p->psk_file, false, &p->agent_pid, err) < 0 ||
	    (p->n_clients && labnet_bridge(&p->link, err) < 0) ||
	    write_state(lab, p, NULL, false, err) < 0) {
		struct ns_err ignored;
		labnet_destroy(p->link.ns, &ignored);
		goto err;
	}
	for (size_t i = 0; i < p->n_clients; i++)
		if (client_up(lab, p, &p->clients[i], i, self, err) < 0) {
			struct ns_err ignored;
			lab_down(lab, p->pair, &ignored);
			return -1;
		}
	if (p->n_clients && write_state(lab, p, NULL, false, err) < 0) { /* with the clients */
		struct ns_err ignored;
		lab_down(lab, p->pair, &ignored);
		return -1;
	}
	return 0;
err:;
	int e = errno;
	unlink(path);
	drop_key_if_idle(lab);
	errno = e;
	return -1;
}

static char *read_small(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	char *buf = malloc(STATE_MAX + 1);
	size_t n = buf ? fread(buf, 1, STATE_MAX, f) : 0;
	fclose(f);
	if (buf)
		buf[n] = '\0';
	return buf;
}

/* Whether a state file is JSON and (pair not NULL) names that pair. */
static bool state_names_pair(const char *text, const char *pair)
{
	struct jsonr *r;
	char name[LAB_NAME_MAX];
	if (jsonr_open(&r, NULL) < 0)
		return false;
	bool match = jsonr_valid(r, text) &&
		     (!pair || (jsonr_get(r, text, "$.pair", name, sizeof(name), NULL) == 1 &&
				jsonr_type(r, text, "$.pair") == JSONR_TEXT && !strcmp(name, pair)));
	jsonr_close(r);
	return match;
}

#define MAX_FOUND LAB_MAX_SLOTS

/* Namespaces of this prefix: the state files' and any left without one. */
static size_t our_namespaces(const struct lab *lab, char (*ns)[LAB_NAME_MAX], size_t cap)
{
	size_t n = labnet_list(lab->prefix, ns, cap), plen = strlen(lab->prefix);
	DIR *d = opendir(lab->dir);
	if (!d)
		return n;
	struct dirent *de;
	while ((de = readdir(d)) && n < cap) {
		size_t len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".json") || len - 5 >= LAB_NAME_MAX ||
		    strncmp(de->d_name, lab->prefix, plen) || de->d_name[plen] != '-')
			continue;
		char name[LAB_NAME_MAX];
		snprintf(name, sizeof(name), "%.*s", (int)(len - 5), de->d_name);
		if (strspn(name + plen + 1, "0123456789") != strlen(name + plen + 1))
			continue;
		bool dup = false;
		for (size_t i = 0; i < n && !dup; i++)
			dup = !strcmp(ns[i], name);
		if (!dup)
			snprintf(ns[n++], LAB_NAME_MAX, "%s", name);
	}
	closedir(d);
	return n;
}

static void drop_key_if_idle(const struct lab *lab)
{
	char (*ns)[LAB_NAME_MAX] = calloc(MAX_FOUND, LAB_NAME_MAX);
	if (!ns)
		return;
	if (our_namespaces(lab, ns, MAX_FOUND) == 0) {
		char path[300];
		key_path(lab, path, sizeof(path));
		unlink(path);
	}
	free(ns);
}

static bool ns_is_pair(const struct lab *lab, const char *ns, const char *pair)
{
	char path[300];
	state_path(lab, ns, path, sizeof(path));
	char *text = read_small(path);
	bool yes = text && state_names_pair(text, pair);
	free(text);
	return yes;
}

bool lab_has_pair(struct lab *lab, const char *pair)
{
	char (*ns)[LAB_NAME_MAX] = calloc(MAX_FOUND, LAB_NAME_MAX);
	if (!ns)
		return false;
	size_t n = our_namespaces(lab, ns, MAX_FOUND);
	bool found = false;
	for (size_t i = 0; i < n && !found; i++)
		found = ns_is_pair(lab, ns[i], pair);
	free(ns);
	return found;
}

int lab_down(struct lab *lab, const char *pair, struct ns_err *err)
{
	char (*ns)[LAB_NAME_MAX] = calloc(MAX_FOUND, LAB_NAME_MAX);
	if (!ns)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	size_t n = our_namespaces(lab, ns, MAX_FOUND);
	int removed = 0, rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (pair && !ns_is_pair(lab, ns[i], pair))
			continue;
		struct ns_err e = {0};
		if (labnet_destroy(ns[i], &e) < 0) {
			if (!rc)
				*err = e;
			rc = -1;
			continue;
		}
		char path[300];
		state_path(lab, ns[i], path, sizeof(path));
		unlink(path);
		snprintf(path, sizeof(path), "%s/%s.log", lab->dir, ns[i]);
		unlink(path);
		removed++;
	}
	free(ns);
	drop_key_if_idle(lab);
	return rc < 0 ? -1 : removed;
}

int lab_status(struct lab *lab, struct jsonw *w, struct ns_err *err)
{
	char (*ns)[LAB_NAME_MAX] = calloc(MAX_FOUND, LAB_NAME_MAX);
	if (!ns)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	size_t n = our_namespaces(lab, ns, MAX_FOUND);
	jsonw_arr_open(w);
	for (size_t i = 0; i < n; i++) {
		char path[300];
		state_path(lab, ns[i], path, sizeof(path));
		char *text = read_small(path);
		if (text && state_names_pair(text, NULL)) {
			text[strcspn(text, "\n")] = '\0';
			jsonw_raw(w, text);
		}
		free(text);
	}
	jsonw_arr_close(w);
	free(ns);
	return 0;
}
