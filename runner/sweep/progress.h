/* progress: what a sweep shows while it runs — on a terminal one live line (case i/N, elapsed,
 * ETA, the current parameters, the last result), otherwise one plain log line per finished
 * case, and nothing with --quiet. Safe to call from several runner threads. */
#ifndef NS_PROGRESS_H
#define NS_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum progress_mode { PROGRESS_QUIET, PROGRESS_LOG, PROGRESS_LIVE };

struct progress;

/* total: runs to do now; est_s: their expected seconds (for the ETA before any finished). */
struct progress *progress_create(FILE *out, enum progress_mode mode, size_t total, double est_s);
void progress_destroy(struct progress *p);

/* A case starts: its one-line description; est_s its expected seconds. */
void progress_start(struct progress *p, const char *what, double est_s);
/* It finished: ok or not, and a short summary ("9.41 Gbit/s" or the error). */
void progress_done(struct progress *p, const char *what, double est_s, bool ok,
		   const char *summary);
/* A note (warnings at run start): a line of its own, never lost under the live line. */
void progress_note(struct progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Ends the live line. */
void progress_finish(struct progress *p);

/* "1:02:03" / "2:03". */
void progress_format_secs(double s, char *buf, size_t len);

#endif
