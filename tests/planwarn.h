/*
 * Whether a plan warns: shared by the tests that check a plan's
 * warnings (header-only, static).
 */
#ifndef AUTOSIZE_TEST_PLANWARN_H
#define AUTOSIZE_TEST_PLANWARN_H

#include <string.h>
#include "autosize/plan.h"

/* 1 when one of the plan's warnings contains text. */
static inline int has_warning(const autosize_plan *plan, const char *text)
{
	int i;

	for (i = 0; i < plan->n_warnings; i++)
		if (strstr(plan->warnings[i], text))
			return 1;
	return 0;
}

#endif
