/*
 * autosize: the admin's report, chained runs (report.h): a run's jobs
 * taken together, by the chain id their records carry, so that a run
 * shows what it took (jobs, time, GPU-hours) against what its plan
 * queued.
 */
#include <stdio.h>
#include <string.h>
#include "autosize/report.h"

/* Reported progress this close to the run's tokens is all of them. */
#define RUNS_DONE_TOLERANCE 1e-5

/* The run of chain among out[0..n), or -1. */
static long runs_find(const autosize_report_run *out, long n,
		      const char *chain)
{
	long i;

	for (i = 0; i < n; i++)
		if (strcmp(out[i].chain, chain) == 0)
			return i;
	return -1;
}

static void runs_add(autosize_report_run *u, const autosize_report_job *k)
{
	if (k->chain_jobs > u->planned)
		u->planned = k->chain_jobs;
	if (k->run_tokens > u->tokens)
		u->tokens = k->run_tokens;
	if (k->tokens_done > u->tokens_done)
		u->tokens_done = k->tokens_done;
	if (!k->ran) {
		u->unrun++;
		u->done |= k->done_at > 0;
		return;
	}
	u->ran++;
	u->elapsed_s += k->elapsed_s;
	u->gpu_h += k->gpus * k->elapsed_s / 3600;
	if (k->start_s > 0 && (!u->start_s || k->start_s < u->start_s))
		u->start_s = k->start_s;
	if (k->end_s > u->end_s)
		u->end_s = k->end_s;
	if (k->chain_index == 1 || !u->first_job[0]) {
		snprintf(u->first_job, sizeof(u->first_job), "%s", k->job_id);
		snprintf(u->name, sizeof(u->name), "%s", k->name);
	}
}

long autosize_report_runs(const autosize_report *r, autosize_report_run *out,
			  long max)
{
	const autosize_report_job *jobs;
	autosize_report_run scratch;
	long n_jobs, n = 0, i, at;

	jobs = autosize_report_jobs(r, &n_jobs);
	for (i = 0; i < n_jobs; i++) {
		const autosize_report_job *k = &jobs[i];
		autosize_report_run *u;

		if (!k->chain[0])
			continue;
		at = runs_find(out, n < max ? n : max, k->chain);
		if (at < 0) {
			/* a new run: counted past max, kept within it */
			u = n < max ? &out[n] : &scratch;
			memset(u, 0, sizeof(*u));
			snprintf(u->chain, sizeof(u->chain), "%s", k->chain);
			snprintf(u->user, sizeof(u->user), "%s", k->user);
			n++;
		} else {
			u = &out[at];
		}
		runs_add(u, k);
	}
	for (i = 0; i < n && i < max; i++)
		out[i].done |= out[i].tokens > 0 && out[i].tokens_done >=
			       out[i].tokens * (1 - RUNS_DONE_TOLERANCE);
	return n;
}
