/* proc: see proc.h. The runner stops reading when the command itself exits: an agent it leaves
 * running in the background may hold the pipes open for hours. */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* After the time limit: SIGTERM, then this long before SIGKILL. */
#define PROC_KILL_GRACE_S 5.0

struct capture {
	int fd;
	char *buf;
	size_t n;
	size_t max;
	bool truncated;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reads what is there; returns false at end of file or error. */
static bool drain(struct capture *c)
{
	char tmp[4096];
	for (;;) {
		ssize_t r = read(c->fd, tmp, sizeof(tmp));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno == EAGAIN;
		if (r == 0)
			return false;
		size_t room = c->max - c->n, take = (size_t)r < room ? (size_t)r : room;
		memcpy(c->buf + c->n, tmp, take);
		c->n += take;
		c->truncated |= take < (size_t)r;
	}
}

static void child(const char *dir, char *const argv[], char *const envp[], int out, int err)
{
	setpgid(0, 0);
	int null = open("/dev/null", O_RDONLY);
	if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(126);
	if (dir && chdir(dir) != 0)
		_exit(126);
	for (int fd = 3; fd < 1024; fd++) /* the runner's database and sockets are not the hook's */
		close(fd);
	execvpe(argv[0], argv, envp); /* a name without '/' is looked up in PATH */
	_exit(127);
}

void proc_run(const char *command, char *const envp[], double timeout_s, struct proc_exec *x)
{
	char *const argv[] = {"/bin/sh", "-c", (char *)command, NULL};
	proc_run_argv(argv, envp, timeout_s, PROC_OUTPUT_MAX, x);
}

void proc_run_argv(char *const argv[], char *const envp[], double timeout_s, size_t max_out,
		   struct proc_exec *x)
{
	proc_run_in(NULL, argv, envp, timeout_s, max_out, x);
}

void proc_run_in(const char *dir, char *const argv[], char *const envp[], double timeout_s,
		 size_t max_out, struct proc_exec *x)
{
	struct capture cap[2] = {{.fd = -1, .max = max_out}, {.fd = -1, .max = PROC_OUTPUT_MAX}};
	int po[2] = {-1, -1}, pe[2] = {-1, -1};
	memset(x, 0, sizeof(*x));
	x->status = PROC_FAILED;
	x->exit_code = -1;
	cap[0].buf = malloc(cap[0].max + 1);
	cap[1].buf = malloc(cap[1].max + 1);
	if (!cap[0].buf || !cap[1].buf || pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0) {
		snprintf(x->error, sizeof(x->error), "cannot start: %s", strerror(errno));
		goto out;
	}
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(x->error, sizeof(x->error), "cannot start: %s", strerror(errno));
		goto out;
	}
	if (pid == 0)
		child(dir, argv, envp, po[1], pe[1]);
	setpgid(pid, pid); /* also here: no race with the first kill below */
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = -1;
	cap[0].fd = po[0];
	cap[1].fd = pe[0];
	fcntl(po[0], F_SETFL, O_NONBLOCK);
	fcntl(pe[0], F_SETFL, O_NONBLOCK);

	double deadline = now_s() + timeout_s, kill_at = 0;
	bool open_fd[2] = {true, true};
	int wstatus = 0;
	for (;;) {
		struct pollfd pf[2];
		nfds_t n = 0;
		for (int i = 0; i < 2; i++)
			if (open_fd[i])
				pf[n++] = (struct pollfd){.fd = cap[i].fd, .events = POLLIN};
		if (n)
			poll(pf, n, 100);
		else
			usleep(100 * 1000);
		for (int i = 0; i < 2; i++)
			if (open_fd[i])
				open_fd[i] = drain(&cap[i]);
		pid_t w = waitpid(pid, &wstatus, WNOHANG);
		if (w == pid)
			break;
		double t = now_s();
		if (x->status != PROC_TIMEOUT && t > deadline) {
			x->status = PROC_TIMEOUT;
			kill(-pid, SIGTERM);
			kill_at = t + PROC_KILL_GRACE_S;
		} else if (kill_at > 0 && t > kill_at) {
			kill(-pid, SIGKILL);
			kill_at = 0;
		}
	}
	for (int i = 0; i < 2; i++) /* what the command wrote just before it ended */
		if (open_fd[i])
			drain(&cap[i]);
	if (x->status == PROC_TIMEOUT) {
		snprintf(x->error, sizeof(x->error), "time limit of %g s reached: stopped", timeout_s);
	} else if (WIFEXITED(wstatus)) {
		x->exit_code = WEXITSTATUS(wstatus);
		x->status = x->exit_code == 0 ? PROC_OK : PROC_FAILED;
		if (x->exit_code)
			snprintf(x->error, sizeof(x->error), "exit status %d", x->exit_code);
	} else if (WIFSIGNALED(wstatus)) {
		snprintf(x->error, sizeof(x->error), "ended by signal %d", WTERMSIG(wstatus));
	}
out:
	for (int i = 0; i < 2; i++) {
		if (cap[i].buf)
			cap[i].buf[cap[i].n] = '\0';
		if (cap[i].fd >= 0)
			close(cap[i].fd);
	}
	if (po[1] >= 0)
		close(po[1]);
	if (pe[1] >= 0)
		close(pe[1]);
	if (po[0] >= 0 && cap[0].fd < 0)
		close(po[0]);
	if (pe[0] >= 0 && cap[1].fd < 0)
		close(pe[0]);
	x->out = cap[0].buf ? cap[0].buf : strdup("");
	x->errout = cap[1].buf ? cap[1].buf : strdup("");
	if ((cap[0].truncated || cap[1].truncated) && x->status == PROC_OK)
		snprintf(x->error, sizeof(x->error), "output cut at %zu bytes",
			 cap[0].truncated ? cap[0].max : cap[1].max);
}

const char *proc_why(const struct proc_exec *x, char *buf, size_t n)
{
	const char *e = x->errout ? x->errout : "";
	while (*e == '\n' || *e == ' ')
		e++;
	size_t len = strcspn(e, "\n");
	if (len)
		snprintf(buf, n, "%.*s", (int)len, e);
	else
		snprintf(buf, n, "%s", x->error[0] ? x->error : "failed");
	return buf;
}

void proc_exec_free(struct proc_exec *x)
{
	free(x->out);
	free(x->errout);
	x->out = x->errout = NULL;
}
