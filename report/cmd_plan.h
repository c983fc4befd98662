/* cmd_plan: `netsweep plan`, a purchasing plan from a run's measured results
 * (report/analyze/plan.h); main.c's command table calls it. */
#ifndef RP_CMD_PLAN_H
#define RP_CMD_PLAN_H

int cmd_plan(int argc, char **argv);

#endif
