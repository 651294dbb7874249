/*
 * Helpers for tests that load a policy from text and plan requests under
 * it (header-only, static). Define PLANTEST_WHAT (the name errors give
 * the policy) and include after testutil.h.
 */
#ifndef AUTOSIZE_PLANTEST_H
#define AUTOSIZE_PLANTEST_H

#include "autosize/options.h"
#include "autosize/plan.h"
#include "autosize/policy.h"

/* The policy in text, or NULL with *e filled. Caller destroys it. */
static inline autosize_policy *plantest_parse(const char *text,
					      autosize_error *e)
{
	return autosize_policy_parse(text, strlen(text), PLANTEST_WHAT,
				     "/nonexistent", e);
}

/* For ytest_run_broken. */
static inline void *plantest_parse_any(const char *text, autosize_error *e)
{
	return plantest_parse(text, e);
}

static inline void plantest_destroy_any(void *p)
{
	autosize_policy_destroy(p);
}

/* opts (name, value pairs, NULL-terminated) set on a new request *r,
 * not finished (the caller may set more); an option the request refuses
 * fails the test. */
static inline void plantest_request_set(const char *const *opts,
					autosize_request *r)
{
	autosize_error e;
	int i;

	autosize_request_init(r);
	for (i = 0; opts[i]; i += 2)
		assert_int_equal(autosize_request_set(r, opts[i], opts[i + 1],
						      &e), 0);
}

/* The same, finished. */
static inline void plantest_request(const char *const *opts,
				    autosize_request *r)
{
	autosize_error e;

	plantest_request_set(opts, r);
	assert_int_equal(autosize_request_finish(r, &e), 0);
}

/* Plan opts (name, value pairs, NULL-terminated) under p; a bad request
 * fails the test. Returns AUTOSIZE_OK or AUTOSIZE_ENOFIT. */
static inline autosize_err plantest_plan(const autosize_policy *p,
					 const char *const *opts,
					 autosize_plan *plan)
{
	autosize_request r;
	autosize_error e;
	autosize_err rc;

	plantest_request(opts, &r);
	rc = autosize_plan_compute(p, &r, plan, &e);
	if (rc != AUTOSIZE_OK && rc != AUTOSIZE_ENOFIT)
		fail_msg("%s", e.msg);
	return rc;
}

/* 1 when one of the plan's warnings contains needle. */
static inline int plantest_warned(const autosize_plan *p, const char *needle)
{
	int i;

	for (i = 0; i < p->n_warnings; i++)
		if (strstr(p->warnings[i], needle))
			return 1;
	return 0;
}

#endif
