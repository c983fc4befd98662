#include "datadir.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef NETSWEEP_DATADIR
#define NETSWEEP_DATADIR "/usr/share/netsweep"
#endif

static char datadir[PATH_MAX];
static pthread_once_t datadir_once = PTHREAD_ONCE_INIT;

int ns_datadir_for(const char *exe_path, char *buf, size_t len)
{
	char dir[PATH_MAX], cand[PATH_MAX + 32], real[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", exe_path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return -1;
	*slash = '\0'; /* PREFIX/bin */
	snprintf(cand, sizeof(cand), "%s/../share/netsweep", dir);
	struct stat st;
	if (!realpath(cand, real) || stat(real, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    strlen(real) >= len)
		return -1;
	memcpy(buf, real, strlen(real) + 1);
	return 0;
}

static void find_datadir(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if (ns_datadir_for(exe, datadir, sizeof(datadir)) == 0)
			return;
	}
	snprintf(datadir, sizeof(datadir), "%s", NETSWEEP_DATADIR);
}

const char *ns_datadir(void)
{
	pthread_once(&datadir_once, find_datadir);
	return datadir;
}
