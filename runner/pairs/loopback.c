#include "runner/pairs/loopback.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/agent/agent.h"

int loopback_start(void (*child_init)(struct agent *a), pid_t *pid, uint16_t *port,
		   struct ns_err *err)
{
	struct agent_opts ao;
	agent_opts_init(&ao);
	snprintf(ao.listen_addr, sizeof(ao.listen_addr), "127.0.0.1");
	ao.port = 0;
	ao.quiet = 1;
	struct agent *a = agent_create(&ao, err);
	if (!a) {
		ns_err_prefix(err, "starting the loopback agent");
		return -1;
	}
	*port = agent_port(a);
	fflush(NULL);
	pid_t child = fork();
	if (child < 0) {
		ns_err_sys(err, "starting the loopback agent: fork");
		agent_destroy(a);
		return -1;
	}
	if (child == 0) {
		/* A process group of its own: a SIGTERM or Ctrl-C to the runner's group (timeout,
		 * a service manager, the terminal) must not stop the agent under the case in
		 * flight; the runner stops it (loopback_stop) once that case is stored, and
		 * PDEATHSIG stops it should the runner die. */
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() == 1)
			_exit(0); /* the runner died before prctl took */
		if (child_init)
			child_init(a);
		struct ns_err e;
		_exit(agent_serve(a, &e) == 0 ? 0 : 1);
	}
	setpgid(child, child); /* as the child does: whichever runs first, no window */
	agent_destroy(a); /* the child holds the listening socket now */
	*pid = child;
	return 0;
}

void loopback_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	for (int i = 0; i < 200; i++) { /* up to 2 s for a clean stop */
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}
