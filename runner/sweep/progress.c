#include "progress.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/textesc.h"

struct progress {
	FILE *out;
	enum progress_mode mode;
	pthread_mutex_t lock;
	size_t total, started, finished, failed;
	double t0;
	double est_total, est_finished; /* expected seconds: all, and of the finished ones */
	bool line_open;
	char current[200], last[120];
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void progress_format_secs(double s, char *buf, size_t len)
{
	if (s < 0)
		s = 0;
	long t = (long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

struct progress *progress_create(FILE *out, enum progress_mode mode, size_t total, double est_s)
{
	struct progress *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->out = out;
	p->mode = mode;
	p->total = total;
	p->est_total = est_s;
	p->t0 = now_s();
	pthread_mutex_init(&p->lock, NULL);
	return p;
}

void progress_destroy(struct progress *p)
{
	if (!p)
		return;
	pthread_mutex_destroy(&p->lock);
	free(p);
}

/* ETA: the expected seconds still to come, scaled by how the finished cases compared with
 * their own expectation (so setup time and cool-downs are counted once cases have run). */
static double eta(const struct progress *p, double elapsed)
{
	double left = p->est_total - p->est_finished;
	if (p->est_finished > 0)
		return left * (elapsed / p->est_finished);
	return left;
}

static void draw(struct progress *p)
{
	double el = now_s() - p->t0;
	char e[16], r[16];
	progress_format_secs(el, e, sizeof(e));
	progress_format_secs(eta(p, el), r, sizeof(r));
	fprintf(p->out, "\r\033[K[%zu/%zu] %s elapsed, eta %s  %.70s%s%.50s", p->started,
		p->total, e, r, p->current, p->last[0] ? "  last: " : "", p->last);
	fflush(p->out);
	p->line_open = true;
}

void progress_start(struct progress *p, const char *what, double est_s)
{
	if (!p || p->mode == PROGRESS_QUIET)
		return;
	pthread_mutex_lock(&p->lock);
	p->started++;
	textesc(p->current, sizeof(p->current), what); /* lib/textesc.h: no control bytes */
	if (p->mode == PROGRESS_LIVE)
		draw(p);
	pthread_mutex_unlock(&p->lock);
}

void progress_done(struct progress *p, const char *what, double est_s, bool ok,
		   const char *summary)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->finished++;
	p->failed += !ok;
	p->est_finished += est_s;
	char shown[sizeof(p->last)];
	textesc(shown, sizeof(shown), summary); /* a hook's output or a peer's text, say */
	snprintf(p->last, sizeof(p->last), "%s%.*s", ok ? "" : "FAILED ", (int)sizeof(p->last) - 8, shown);
	if (p->mode == PROGRESS_LIVE) {
		draw(p);
	} else if (p->mode == PROGRESS_LOG) {
		char e[16];
		progress_format_secs(now_s() - p->t0, e, sizeof(e));
		char name[sizeof(p->current)];
		textesc(name, sizeof(name), what);
		fprintf(p->out, "[%zu/%zu %s] %s %s: %s\n", p->finished, p->total, e,
			ok ? "ok" : "FAILED", name, shown);
		fflush(p->out);
	}
	pthread_mutex_unlock(&p->lock);
}

void progress_note(struct progress *p, const char *fmt, ...)
{
	if (!p || p->mode == PROGRESS_QUIET)
		return;
	pthread_mutex_lock(&p->lock);
	if (p->line_open)
		fprintf(p->out, "\r\033[K");
	/* notes carry hook errors, agents' words and other runners' names: escaped whole */
	char text[1024], shown[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	textesc(shown, sizeof(shown), text);
	fputs(shown, p->out);
	fputc('\n', p->out);
	if (p->mode == PROGRESS_LIVE && p->started)
		draw(p);
	fflush(p->out);
	pthread_mutex_unlock(&p->lock);
}

void progress_finish(struct progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	if (p->mode == PROGRESS_LIVE && p->line_open) {
		fputc('\n', p->out);
		fflush(p->out);
		p->line_open = false;
	}
	pthread_mutex_unlock(&p->lock);
}
