/*
 * autosize: the part of a chained run one job trains (plan.h), apart
 * from the planner so that the launch lines and the nodes read it
 * without depending on it.
 */
#include <math.h>
#include "autosize/plan.h"

double autosize_plan_done_before(const autosize_plan *plan, int index,
				 double done_before)
{
	if (!plan || !(plan->tokens > 0))
		return 0;
	if (done_before < 0)
		done_before = (index > 1 ? index - 1 : 0) *
			      plan->chain_job_tokens;
	return fmin(done_before, plan->tokens);
}

double autosize_plan_part(const autosize_plan *plan, int index,
			  double done_before)
{
	double left;

	if (!plan || !(plan->tokens > 0))
		return 0;
	left = plan->tokens - autosize_plan_done_before(plan, index,
							done_before);
	if (plan->chained_jobs > 1 && plan->chain_job_tokens > 0)
		left = fmin(left, plan->chain_job_tokens);
	return left > 0 ? left : 0;
}
