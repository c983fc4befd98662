/* atomicfile: a file replaced whole or not at all. It is written under a temporary name in its
 * own directory (".NAME.XXXXXX", so the rename stays on one file system), flushed, fsync'd and
 * renamed over NAME: a failure at any step (a full disk, a write error, a crash) leaves the old
 * file byte for byte and no empty or partial one. Every file netsweep writes goes through it. */
#ifndef NS_ATOMICFILE_H
#define NS_ATOMICFILE_H

#include <stdio.h>
#include <sys/types.h>

#include "lib/err.h"

/* The commit fails (EEXIST, NS_E_IO) when NAME exists instead of replacing it: key files. */
#define ATOMICFILE_NO_REPLACE 1u

#define ATOMICFILE_PATH_MAX 4096

struct atomicfile {
	FILE *f;                        /* write here, or write tmp by name (the same file) */
	char tmp[ATOMICFILE_PATH_MAX];  /* the temporary file, until commit or abort */
	char path[ATOMICFILE_PATH_MAX]; /* the name it takes at commit */
	unsigned flags;
};

/* Creates the temporary file beside path with mode (less the umask; 0600 is kept exact).
 * -1 with err filled (NS_E_IO) when it cannot be created. */
int atomicfile_open(struct atomicfile *a, const char *path, mode_t mode, unsigned flags,
		    struct ns_err *err);

/* Flushes, fsyncs and closes the temporary file and renames it to path. Any failure, including
 * a write error since open, removes the temporary file and leaves path as it was: -1 with err
 * naming path and the reason. Either way a is done with. */
int atomicfile_commit(struct atomicfile *a, struct ns_err *err);

/* Closes and removes the temporary file; path is left as it was. Safe to call twice. */
void atomicfile_abort(struct atomicfile *a);

/* len bytes of buf as the whole of path, through open and commit. */
int atomicfile_write(const char *path, const void *buf, size_t len, mode_t mode, unsigned flags,
		     struct ns_err *err);

#endif
