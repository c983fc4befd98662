/* retry: the agent-wait's pauses (growing, bounded, within the budget) and which failures
 * mean the agent was not there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "runner/sweep/retry.h"

/* Agent-wait: pauses grow from 0.25 s to at most 2 s and stop once the budget (tries
 * included) is spent; only a connection refused or unreachable before any figure counts. */
static void agent_wait_is_bounded(void **state)
{
	(void)state;
	struct retry_wait w;
	retry_wait_init(&w, 5, 100);
	double t = 100, want[] = {0.25, 0.5, 1, 2, 1.25};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		double pause = retry_next_pause(&w, t);
		assert_true(pause > want[i] - 1e-9 && pause < want[i] + 1e-9);
		t += pause;
	}
	assert_true(retry_next_pause(&w, t) < 0);
	retry_wait_init(&w, 0, 0);
	assert_true(retry_next_pause(&w, 0) < 0);
	retry_wait_init(&w, 10, 0);
	assert_true(retry_next_pause(&w, 9.9) <= 0.1 + 1e-9);

	struct probe_result res;
	memset(&res, 0, sizeof(res));
	struct ns_err e = {.code = NS_E_UNREACHABLE};
	assert_true(retry_agent_lost(&e, &res));
	e.code = NS_E_REFUSED;
	assert_true(retry_agent_lost(&e, &res));
	e.code = NS_E_TIMEOUT;
	assert_false(retry_agent_lost(&e, &res));
	e.code = NS_E_PROTOCOL;
	assert_false(retry_agent_lost(&e, &res));
	e.code = NS_E_UNREACHABLE;
	res.n_dirs = 1; /* figures measured: the case ran, it is not retried */
	assert_false(retry_agent_lost(&e, &res));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(agent_wait_is_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
