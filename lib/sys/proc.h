/* proc: a child process, the one way the project runs one — a command with /bin/sh -c (a
 * matrix's setup/teardown hooks), or a program and its arguments with no shell (kubectl for
 * Kubernetes pairs, ip and tc for the lab). The child gets a process group of its own so that
 * a Ctrl-C meant for the runner does not cut a teardown short, and so that its time limit ends
 * everything it started in the foreground. Library code: never prints, never exits. */
#ifndef NS_PROC_H
#define NS_PROC_H

#include <stdbool.h>
#include <stddef.h>

/* What proc_run keeps of each of stdout and stderr. */
#define PROC_OUTPUT_MAX (256 * 1024)
enum proc_status { PROC_OK, PROC_FAILED, PROC_TIMEOUT };
struct proc_exec {
	enum proc_status status;
	int exit_code;                     /* -1: ended by a signal or could not start */
	char *out, *errout;                /* NUL-terminated, never NULL after proc_run */
	char error[256];                   /* "" when ok */
};

/* Runs one command with /bin/sh -c in a process group of its own, with the environment envp,
 * stdin from /dev/null, stdout and stderr captured (up to PROC_OUTPUT_MAX each) and a time
 * limit, after which the group gets SIGTERM and, 5 s later, SIGKILL. */
void proc_run(const char *command, char *const envp[], double timeout_s, struct proc_exec *x);
/* The same for a program and its arguments, no shell (argv[0] without '/' looked up in
 * PATH), its stdout kept up to max_out bytes (a cut one: status PROC_OK with error set). */
void proc_run_argv(char *const argv[], char *const envp[], double timeout_s, size_t max_out,
		   struct proc_exec *x);
/* proc_run_argv in the folder dir (NULL: the caller's). */
void proc_run_in(const char *dir, char *const argv[], char *const envp[], double timeout_s,
		 size_t max_out, struct proc_exec *x);
/* The first line of what the command wrote to stderr, else x->error: why it failed, in a
 * few words, for an error message. */
const char *proc_why(const struct proc_exec *x, char *buf, size_t n);
void proc_exec_free(struct proc_exec *x);

#endif
