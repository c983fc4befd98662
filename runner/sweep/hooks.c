/* hooks: see hooks.h. One row per hook run in the store's hooks table, written when the
 * command starts (status running) and again when it ends, so that a runner killed at any
 * moment leaves a record of what it had provisioned: --resume reads it back to tear down
 * (the SQL: runner/store/store_hooks.c). */
#include "hooks.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/sql/jsonr.h"
#include "lib/units.h"
#include "runner/client/client.h"
#include "runner/matrix/pair_key.h"
#include "runner/store/store_hooks.h"

extern char **environ;

struct hooks {
	struct matrix m;                   /* a shallow copy of the run's matrix ... */
	struct matrix_pair *pairs;         /* ... with these pairs: the setups' addresses */
	struct hooks_opts o;
	int attempt;
	char uuid[64];
	char **fail;                       /* per pair: why its cases cannot run, or NULL */
	char **setup_out;                  /* per pair: its setup's JSON (teardown's env) */
	bool *owed;                        /* per pair: setup started, teardown owed */
	char *run_out;
	bool run_owed;
	pthread_mutex_t lock;
	size_t next;                       /* the next pair a parallel worker takes */
	int teardown_failures;
};

bool hooks_any(const struct matrix *m)
{
	if (m->setup.command[0] || m->teardown.command[0])
		return true;
	for (size_t i = 0; i < m->n_pairs; i++)
		if (m->pairs[i].setup.command[0] || m->pairs[i].teardown.command[0])
			return true;
	return false;
}

/* ---- the hooks table ------------------------------------------------------------------- */

/* The JSON object a setup printed: all of stdout, or else its last non-empty line (a
 * command that also logs to stdout). NULL when there is none. */
static char *setup_object(const char *out)
{
	const char *last = out, *p = out;
	while (*p) { /* start of the last non-empty line */
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len > 0)
			last = p;
		p = nl ? nl + 1 : p + len;
	}
	char *res = NULL;
	struct jsonr *r;
	if (jsonr_open(&r, NULL) < 0)
		return NULL;
	for (int k = 0; k < 2 && !res; k++) {
		const char *text = k == 0 ? out : last;
		if (jsonr_valid_object(r, text))
			jsonr_dup(r, text, "$", &res, NULL);
	}
	jsonr_close(r);
	return res;
}

/* ---- running one hook ------------------------------------------------------------------ */

struct env {
	char **v;
	size_t n, cap;
};

static void env_add(struct env *e, const char *name, const char *value)
{
	if (e->n + 2 > e->cap)
		return;
	size_t len = strlen(name) + strlen(value ? value : "") + 2;
	char *s = malloc(len);
	if (!s)
		return;
	snprintf(s, len, "%s=%s", name, value ? value : "");
	e->v[e->n++] = s;
}

static const char *const env_names[] = {
	"NETSWEEP_HOOK", "NETSWEEP_PAIR", "NETSWEEP_INSTANCE_TYPE", "NETSWEEP_REGION",
	"NETSWEEP_EXPECTED_DRIVER", "NETSWEEP_PAIRS", "NETSWEEP_RUN_ID", "NETSWEEP_RUN_UUID",
	"NETSWEEP_MATRIX", "NETSWEEP_ATTEMPT", "NETSWEEP_SETUP_OUTPUT",
};

/* The runner's environment with the hook's variables; a pair's hooks get its key file as
 * NETSWEEP_PSK_FILE (the run's --psk-file, or its own psk-file). */
static char **make_env(const struct hooks *H, const char *kind, const struct matrix_pair *p,
		       int attempt, const char *setup_output)
{
	size_t n_env = 0;
	while (environ[n_env])
		n_env++;
	struct env e = {.cap = n_env + 16};
	e.v = calloc(e.cap, sizeof(char *));
	if (!e.v)
		return NULL;
	const char *key = p && p->psk_file[0] ? p->psk_file : NULL;
	for (size_t i = 0; i < n_env; i++) {
		bool ours = key && !strncmp(environ[i], "NETSWEEP_PSK_FILE=", 18);
		for (size_t k = 0; k < sizeof(env_names) / sizeof(env_names[0]) && !ours; k++) {
			size_t l = strlen(env_names[k]);
			ours = strncmp(environ[i], env_names[k], l) == 0 && environ[i][l] == '=';
		}
		if (!ours && (e.v[e.n] = strdup(environ[i])))
			e.n++;
	}
	char num[32], names[4096] = "";
	env_add(&e, "NETSWEEP_HOOK", kind);
	env_add(&e, "NETSWEEP_MATRIX", H->m.name);
	snprintf(num, sizeof(num), "%lld", (long long)H->o.run_id);
	env_add(&e, "NETSWEEP_RUN_ID", num);
	env_add(&e, "NETSWEEP_RUN_UUID", H->uuid);
	snprintf(num, sizeof(num), "%d", attempt);
	env_add(&e, "NETSWEEP_ATTEMPT", num);
	if (p) {
		env_add(&e, "NETSWEEP_PAIR", p->name);
		env_add(&e, "NETSWEEP_INSTANCE_TYPE", p->instance_type);
		env_add(&e, "NETSWEEP_REGION", p->region);
		env_add(&e, "NETSWEEP_EXPECTED_DRIVER", p->expected_driver);
		if (key)
			env_add(&e, "NETSWEEP_PSK_FILE", key);
	} else {
		for (size_t i = 0; i < H->m.n_pairs; i++) {
			size_t l = strlen(names);
			snprintf(names + l, sizeof(names) - l, "%s%s", l ? " " : "", H->m.pairs[i].name);
		}
		env_add(&e, "NETSWEEP_PAIRS", names);
	}
	if (setup_output)
		env_add(&e, "NETSWEEP_SETUP_OUTPUT", setup_output);
	return e.v;
}

static void env_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* Runs one hook and records it. Returns 0 when it succeeded (*output: its JSON for a setup),
 * 1 when it failed (why says how), -1 when the store failed. */
static int hook_do(struct hooks *H, const struct matrix_hook *hk, const struct matrix_pair *p,
		   const char *kind, int attempt, const char *setup_output, char **output,
		   char *why, size_t wlen, struct ns_err *err)
{
	const char *pair = p ? p->name : "";
	struct proc_exec x;
	char *obj = NULL;
	char **envp = make_env(H, kind, p, attempt, setup_output);
	if (!envp)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	if (p)
		progress_note(H->o.prog, "pair %s: %s", pair, kind);
	else
		progress_note(H->o.prog, "run: %s", kind);
	const struct store_hook_key key = {H->o.run_id, pair, kind, attempt};
	if (store_hook_started(H->o.st, &key, hk->command, err) < 0) {
		env_free(envp);
		return -1;
	}
	proc_run(hk->command, envp, hk->timeout_s, &x);
	env_free(envp);
	if (x.status == PROC_OK && !strcmp(kind, "setup") && !(obj = setup_object(x.out))) {
		x.status = PROC_FAILED;
		snprintf(x.error, sizeof(x.error), "printed no JSON object on stdout");
	}
	static const char *const status[] = {"ok", "failed", "timeout"};
	const struct store_hook_end end = {status[x.status], x.exit_code, x.error[0] ? x.error : NULL,
					   x.out, x.errout, obj};
	int rc = store_hook_finished(H->o.st, &key, &end, err) < 0 ? -1 : x.status != PROC_OK;
	if (rc == 1) {
		/* the command's last words say more than its exit status */
		const char *e = x.errout, *last = e;
		for (const char *q = e; *q; q++)
			if (q[0] == '\n' && q[1])
				last = q + 1;
		snprintf(why, wlen, "%s%s %s: %s%s%.*s", p ? "pair " : "the run's ", pair, kind,
			 x.error, *last ? ": " : "", (int)strcspn(last, "\n"), last);
		progress_note(H->o.prog, "warning: %s", why);
	}
	if (output && rc == 0)
		*output = obj;
	else
		free(obj);
	proc_exec_free(&x);
	return rc;
}

/* ---- set up ---------------------------------------------------------------------------- */

static void fail_pair(struct hooks *H, size_t i, const char *why)
{
	pthread_mutex_lock(&H->lock);
	if (!H->fail[i])
		H->fail[i] = strdup(why);
	pthread_mutex_unlock(&H->lock);
}

/* Messages into a caller's fixed buffer, cut when too long (they are notes, not data). */
static void say(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* The pair's addresses from a setup's JSON at prefix ("$" or "$.pairs.\"NAME\""). */
static int take_addresses(struct hooks *H, size_t i, const char *json, const char *prefix,
			  char *why, size_t wlen)
{
	struct matrix_pair *p = &H->pairs[i];
	char path[MX_NAME_MAX + 32], addr[256];
	struct ns_err e = {0};
	snprintf(path, sizeof(path), "%s.agent", prefix);
	int got = jsonr_get_once(json, path, addr, sizeof(addr), NULL);
	if (got == 1 && units_parse_hostport(addr, NS_DEFAULT_PORT, p->agent_host,
					     sizeof(p->agent_host), &p->agent_port, &e) < 0)
		got = -1;
	if (got != 1 && !p->agent_host[0]) {
		say(why, wlen, "pair %s: the setup named no usable agent (%s): %.200s", p->name,
			 path, got == -1 ? e.msg : "missing");
		return -1;
	}
	snprintf(path, sizeof(path), "%s.client", prefix);
	if (jsonr_get_once(json, path, addr, sizeof(addr), NULL) == 1) {
		if (units_parse_hostport(addr, NS_DEFAULT_PORT, p->client_host, sizeof(p->client_host),
					 &p->client_port, &e) < 0) {
			say(why, wlen, "pair %s: the setup's client %s: %.200s", p->name, addr, e.msg);
			return -1;
		}
		snprintf(p->client, sizeof(p->client), "%s", addr);
	}
	/* a provisioner that made its agents' key (netsweep lab) names it */
	char key[sizeof(p->psk_file)];
	snprintf(path, sizeof(path), "%s.psk_file", prefix);
	if (jsonr_get_once(json, path, key, sizeof(key), NULL) == 1 && pair_key_set(p, key, &e) < 0) {
		say(why, wlen, "pair %s: the setup's psk_file: %.200s", p->name, e.msg);
		return -1;
	}
	return 0;
}

/* Until the agent answers the control protocol, or the pair's wait is over. */
static int wait_agent(struct hooks *H, const char *pair, const char *host, uint16_t port,
		      const char *psk_file, double wait_s, char *why, size_t wlen)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct ns_err e = {0};
	for (;;) {
		char *json = NULL;
		if (probe_hostinfo(host, port, psk_file, 2.0, &json, &e) == 0) {
			free(json);
			return 0;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		double spent = (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9;
		if (spent > wait_s || atomic_load(H->o.stop)) {
			say(why, wlen, "pair %s: agent %.255s:%u did not answer within %g s: %.200s",
				 pair, host, port, wait_s, e.msg);
			return -1;
		}
		usleep(200 * 1000);
	}
}

static int setup_pair(struct hooks *H, size_t i, struct ns_err *err)
{
	struct matrix_pair *p = &H->pairs[i];
	char why[NS_ERR_MAX] = "";
	if (p->setup.command[0]) {
		if (atomic_load(H->o.stop)) {
			fail_pair(H, i, "stopped before the pair's setup");
			return 0;
		}
		pthread_mutex_lock(&H->lock);
		H->owed[i] = true; /* from the start: a setup cut short may have made something */
		pthread_mutex_unlock(&H->lock);
		char *out = NULL;
		int rc = hook_do(H, &p->setup, p, "setup", H->attempt, NULL, &out, why, sizeof(why), err);
		if (rc < 0)
			return -1;
		H->setup_out[i] = out;
		if (rc == 0 && take_addresses(H, i, out, "$", why, sizeof(why)) < 0)
			rc = 1;
		if (rc == 1) {
			fail_pair(H, i, why);
			return 0;
		}
	} else if (H->run_out) {
		char prefix[MX_NAME_MAX + 16];
		snprintf(prefix, sizeof(prefix), "$.pairs.\"%s\"", p->name);
		if (take_addresses(H, i, H->run_out, prefix, why, sizeof(why)) < 0) {
			fail_pair(H, i, why);
			return 0;
		}
	} else {
		return 0; /* no setup for it: its agent is the matrix's */
	}
	double wait = p->setup.command[0] ? p->setup.wait_s : H->m.setup.wait_s;
	if (wait_agent(H, p->name, p->agent_host, p->agent_port, p->psk_file, wait, why, sizeof(why)) < 0 ||
	    (p->client_host[0] &&
	     wait_agent(H, p->name, p->client_host, p->client_port, p->psk_file, wait, why, sizeof(why)) < 0)) {
		progress_note(H->o.prog, "warning: %s", why);
		fail_pair(H, i, why);
	}
	return 0;
}

static int teardown_pair(struct hooks *H, size_t i, struct ns_err *err)
{
	const struct matrix_pair *p = &H->m.pairs[i];
	char why[NS_ERR_MAX];
	if (!H->owed[i] || !p->teardown.command[0])
		return 0;
	int rc = hook_do(H, &p->teardown, p, "teardown", H->attempt, H->setup_out[i], NULL, why,
			 sizeof(why), err);
	if (rc != 0) {
		pthread_mutex_lock(&H->lock);
		H->teardown_failures++;
		pthread_mutex_unlock(&H->lock);
	}
	return rc < 0 ? -1 : 0;
}

struct pool {
	struct hooks *H;
	int (*fn)(struct hooks *, size_t, struct ns_err *);
	struct ns_err err;
	bool failed;
};

static void *pool_worker(void *arg)
{
	struct pool *P = arg;
	struct hooks *H = P->H;
	for (;;) {
		pthread_mutex_lock(&H->lock);
		size_t i = H->next++;
		bool stop = P->failed;
		pthread_mutex_unlock(&H->lock);
		if (i >= H->m.n_pairs || stop)
			return NULL;
		struct ns_err e = {0};
		if (P->fn(H, i, &e) < 0) {
			pthread_mutex_lock(&H->lock);
			if (!P->failed)
				P->err = e;
			P->failed = true;
			pthread_mutex_unlock(&H->lock);
		}
	}
}

/* fn for every pair, up to --jobs at once. */
static int each_pair(struct hooks *H, int (*fn)(struct hooks *, size_t, struct ns_err *),
		     struct ns_err *err)
{
	struct pool P = {.H = H, .fn = fn};
	pthread_t th[64];
	unsigned n = H->o.jobs < 1 ? 1 : H->o.jobs > 64 ? 64 : H->o.jobs, started = 0;
	H->next = 0;
	for (; started < n && started < H->m.n_pairs; started++)
		if (pthread_create(&th[started], NULL, pool_worker, &P) != 0)
			break;
	if (started == 0)
		pool_worker(&P);
	for (unsigned k = 0; k < started; k++)
		pthread_join(th[k], NULL);
	if (P.failed)
		*err = P.err;
	return P.failed ? -1 : 0;
}

/* ---- resume: what a killed attempt left ------------------------------------------------ */

static int resume_teardowns(struct hooks *H, struct ns_err *err)
{
	struct store_hook_left *v;
	size_t n;
	if (store_hook_leftovers(H->o.st, H->o.run_id, H->attempt, &v, &n, err) < 0)
		return -1;
	int rc = 0;
	for (size_t k = 0; k < n && rc == 0; k++) {
		const struct matrix_pair *p = NULL;
		for (size_t i = 0; i < H->m.n_pairs && v[k].pair[0]; i++)
			if (!strcmp(H->m.pairs[i].name, v[k].pair))
				p = &H->m.pairs[i];
		const struct matrix_hook *td = p ? &p->teardown : &H->m.teardown;
		char why[NS_ERR_MAX];
		if ((v[k].pair[0] && !p) || !td->command[0])
			continue;
		progress_note(H->o.prog, "resume: tearing down what attempt %d left (%s%s)",
			      v[k].attempt, p ? "pair " : "the run", v[k].pair);
		int r = hook_do(H, td, p, "teardown", v[k].attempt, v[k].output, NULL, why, sizeof(why),
				err);
		if (r < 0)
			rc = -1;
		else if (r > 0)
			H->teardown_failures++;
	}
	store_hook_left_free(v, n);
	return rc;
}

int hooks_setup(const struct matrix *m, const struct hooks_opts *o, struct hooks **out,
		struct ns_err *err)
{
	*out = NULL;
	if (!hooks_any(m))
		return 0;
	struct hooks *H = calloc(1, sizeof(*H));
	if (!H)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	H->m = *m;
	H->o = *o;
	pthread_mutex_init(&H->lock, NULL);
	H->pairs = malloc(m->n_pairs * sizeof(*H->pairs));
	H->fail = calloc(m->n_pairs, sizeof(char *));
	H->setup_out = calloc(m->n_pairs, sizeof(char *));
	H->owed = calloc(m->n_pairs, sizeof(bool));
	if (!H->pairs || !H->fail || !H->setup_out || !H->owed) {
		hooks_teardown(&H, o->prog);
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	}
	memcpy(H->pairs, m->pairs, m->n_pairs * sizeof(*H->pairs));
	H->m.pairs = H->pairs;
	*out = H;
	if (store_hook_attempt(H->o.st, H->o.run_id, &H->attempt, H->uuid, sizeof(H->uuid), err) < 0 ||
	    (H->attempt > 1 && resume_teardowns(H, err) < 0))
		return -1;
	if (m->setup.command[0]) {
		char why[NS_ERR_MAX] = "";
		H->run_owed = true;
		int rc = atomic_load(o->stop) ? 1 : hook_do(H, &m->setup, NULL, "setup", H->attempt,
							    NULL, &H->run_out, why, sizeof(why), err);
		if (rc < 0)
			return -1;
		if (rc > 0) {
			for (size_t i = 0; i < m->n_pairs; i++)
				fail_pair(H, i, why[0] ? why : "stopped before the run's setup");
			return 0;
		}
	}
	return each_pair(H, setup_pair, err);
}

const struct matrix *hooks_matrix(const struct hooks *h, const struct matrix *m)
{
	return h ? &h->m : m;
}

const char *hooks_setup_output(const struct hooks *h, size_t i)
{
	return h && i < h->m.n_pairs ? h->setup_out[i] : NULL;
}

const char *hooks_pair_failure(const struct hooks *h, size_t i)
{
	return h && i < h->m.n_pairs ? h->fail[i] : NULL;
}

int hooks_teardown(struct hooks **hp, struct progress *prog)
{
	struct hooks *H = *hp;
	struct ns_err err = {0};
	if (!H)
		return 0;
	*hp = NULL;
	H->o.prog = prog;
	if (H->owed && each_pair(H, teardown_pair, &err) < 0)
		progress_note(H->o.prog, "warning: teardown: %s", err.msg);
	if (H->run_owed && H->m.teardown.command[0]) {
		char why[NS_ERR_MAX];
		int rc = hook_do(H, &H->m.teardown, NULL, "teardown", H->attempt, H->run_out, NULL, why,
				 sizeof(why), &err);
		if (rc != 0)
			H->teardown_failures++;
		if (rc < 0)
			progress_note(H->o.prog, "warning: teardown: %s", err.msg);
	}
	int failures = H->teardown_failures;
	if (failures)
		progress_note(H->o.prog, "warning: %d teardown%s failed: what they provisioned may "
			      "still run (and cost); the hooks table has their output", failures,
			      failures == 1 ? "" : "s");
	for (size_t i = 0; i < H->m.n_pairs; i++) {
		if (H->fail)
			free(H->fail[i]);
		if (H->setup_out)
			free(H->setup_out[i]);
	}
	free(H->fail);
	free(H->setup_out);
	free(H->owed);
	free(H->pairs);
	free(H->run_out);
	pthread_mutex_destroy(&H->lock);
	free(H);
	return failures;
}
