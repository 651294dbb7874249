/*
 * autosize: a plan's warnings (plan.h). Apart from plan.c because the
 * modules plan.c calls (options, checkpoint) add warnings too, and would
 * otherwise depend on the planner that depends on them.
 */
#include <stdarg.h>
#include <stdio.h>
#include "autosize/plan.h"

void autosize_plan_warn(autosize_plan *plan, const char *fmt, ...)
{
	va_list ap;

	if (plan->n_warnings >= AUTOSIZE_MAX_WARNINGS)
		return;
	va_start(ap, fmt);
	vsnprintf(plan->warnings[plan->n_warnings++], AUTOSIZE_WARNING_LEN,
		  fmt, ap);
	va_end(ap);
}
