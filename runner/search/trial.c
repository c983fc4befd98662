/* trial: see trial.h. */
#include "trial.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "runner/client/client.h"

/* An agent running all the tests its --max-tests allows answers busy (one of version 19 or
 * older, also while it closes the previous session): ask again every
 * TRIAL_BUSY_WAIT_S for at most TRIAL_BUSY_TRIES times (2 s). */
#define TRIAL_BUSY_TRIES 20
#define TRIAL_BUSY_WAIT_S 0.1

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
	nanosleep(&ts, NULL);
}

int search_probe_trial(void *ctx, double load, double duration_s, struct search_trial *t,
		       struct ns_err *err)
{
	struct search_probe *sp = ctx;
	struct probe_params p = sp->base;
	uint32_t len = p.length ? p.length : NS_UDP_DEFAULT_LEN;
	p.proto = NS_PROTO_UDP;
	p.length = len;
	p.dir = p.dir == NS_DIR_REVERSE ? NS_DIR_REVERSE : NS_DIR_FORWARD;
	p.rate_bps = load > 0 ? (uint64_t)llround(load * len * 8.0) : 0;
	if (load > 0 && p.rate_bps == 0)
		p.rate_bps = 1;
	p.duration_s = duration_s;
	p.omit_s = 0;
	p.interval_s = 0;
	p.timeout_s = 0; /* the trial's own: duration + 15 s */
	struct probe_result res;
	int rc = -1;
	for (int tries = 0; tries < TRIAL_BUSY_TRIES; tries++) {
		memset(&res, 0, sizeof(res));
		rc = sp->from_host ? probe_run_from(sp->from_host, sp->from_port, &p, &res, err)
				   : probe_run(&p, &res, err);
		if (rc == 0 || !err || err->code != NS_E_BUSY || res.n_dirs)
			break;
		probe_result_free(&res);
		sleep_s(TRIAL_BUSY_WAIT_S);
	}
	if (rc < 0) {
		ns_err_prefix(err, "trial at %.0f packets/s", load);
		probe_result_free(&res);
		return -1;
	}
	const struct probe_direction *d = &res.dirs[0];
	t->sent = d->sender.packets;
	t->received = d->receiver.packets;
	t->duration_s = duration_s;
	snprintf(t->cause, sizeof(t->cause), "%s", d->limit.cause);
	if (sp->on_trial) {
		/* the fields search_run derives, for the callback's eyes */
		t->load = load;
		search_trial_derive(t, sp->goal_width);
		sp->on_trial(t, &res, sp->arg);
	}
	probe_result_free(&res);
	return 0;
}
