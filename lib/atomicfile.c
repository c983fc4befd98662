#include "atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Names tried before giving up: each is random, so a clash twice in a row means trouble. */
#define TMP_TRIES 100

static void tmp_name(char *buf, size_t len, const char *path, unsigned attempt)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t x = (uint64_t)ts.tv_nsec * 2654435761u ^ (uint64_t)getpid() << 20 ^ attempt;
	snprintf(buf, len, "%.*s.%s.%06llx", dirlen, path, slash ? slash + 1 : path,
		 (unsigned long long)(x & 0xffffff));
}

int atomicfile_open(struct atomicfile *a, const char *path, mode_t mode, unsigned flags,
		    struct ns_err *err)
{
	memset(a, 0, sizeof(*a));
	a->flags = flags;
	if (snprintf(a->path, sizeof(a->path), "%s", path) >= (int)sizeof(a->path) - 16)
		return ns_err_code(err, NS_E_USAGE, "%.200s...: path too long", path);
	int fd = -1;
	for (unsigned i = 0; fd < 0 && i < TMP_TRIES; i++) {
		tmp_name(a->tmp, sizeof(a->tmp), path, i);
		fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		ns_err_sys(err, "%s: cannot create a temporary file beside it", path);
		a->tmp[0] = '\0';
		return -1;
	}
	/* a private file must be exactly that, whatever the umask */
	if ((mode & 077) == 0 && fchmod(fd, mode) < 0)
		goto err;
	a->f = fdopen(fd, "w");
	if (!a->f)
		goto err;
	return 0;
err:
	ns_err_sys(err, "%s", a->tmp);
	close(fd);
	unlink(a->tmp);
	a->tmp[0] = '\0';
	return -1;
}

static void sync_dir(const char *path)
{
	char dir[ATOMICFILE_PATH_MAX];
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path) + (slash == path), path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd); /* durability of the rename; its failure changes nothing for the file */
		close(fd);
	}
}

int atomicfile_commit(struct atomicfile *a, struct ns_err *err)
{
	if (!a->f || !a->tmp[0]) {
		atomicfile_abort(a);
		return ns_err_code(err, NS_E_IO, "%s: not written", a->path);
	}
	const char *step = "write";
	FILE *f = a->f;
	a->f = NULL;
	int bad = ferror(f) ? EIO : 0; /* the errno of a failed buffered write is long gone */
	if (!bad && fflush(f) != 0)
		bad = errno;
	if (!bad && fsync(fileno(f)) != 0) {
		step = "fsync";
		bad = errno;
	}
	if (fclose(f) != 0 && !bad)
		bad = errno;
	if (!bad) {
		if (a->flags & ATOMICFILE_NO_REPLACE) {
			step = "create";
			if (link(a->tmp, a->path) != 0)
				bad = errno;
			unlink(a->tmp);
		} else if (rename(a->tmp, a->path) != 0) {
			step = "rename";
			bad = errno;
		}
	}
	if (bad) {
		unlink(a->tmp);
		a->tmp[0] = '\0';
		errno = bad;
		return ns_err_sys(err, "%s: %s", a->path, step);
	}
	a->tmp[0] = '\0';
	sync_dir(a->path);
	return 0;
}

void atomicfile_abort(struct atomicfile *a)
{
	int saved = errno;
	if (a->f)
		fclose(a->f);
	a->f = NULL;
	if (a->tmp[0])
		unlink(a->tmp);
	a->tmp[0] = '\0';
	errno = saved;
}

int atomicfile_write(const char *path, const void *buf, size_t len, mode_t mode, unsigned flags,
		     struct ns_err *err)
{
	struct atomicfile a;
	if (atomicfile_open(&a, path, mode, flags, err) < 0)
		return -1;
	if (len && fwrite(buf, 1, len, a.f) != len) {
		ns_err_sys(err, "%s: write", path);
		atomicfile_abort(&a);
		return -1;
	}
	return atomicfile_commit(&a, err);
}
