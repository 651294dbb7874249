/*
 * autosize: the admin's report, chained runs (report.h): a run's jobs
 * taken together, by the chain id their records carry, so that a run
 * shows what it took (jobs, time, GPU-hours) against what its plan
 * queued.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autosize/parse.h"
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

/* Runs written in full, text and JSON; more are counted. */
#define RUNS_SHOWN 10
#define RUNS_KEPT 1000

void autosize_report_runs_text(const autosize_report *r, FILE *f)
{
	char name[40], user[24], a[32], b[32];
	autosize_report_run *runs_buf = malloc(RUNS_KEPT * sizeof(*runs_buf));
	long n, i, kept;
	long planned = 0, ran = 0, fewer = 0, more = 0, done = 0;

	n = runs_buf ? autosize_report_runs(r, runs_buf, RUNS_KEPT) : 0;
	if (n == 0)
		goto out;
	kept = n < RUNS_KEPT ? n : RUNS_KEPT;
	for (i = 0; i < kept; i++) {
		const autosize_report_run *u = &runs_buf[i];

		planned += u->planned;
		ran += u->ran;
		done += u->done;
		fewer += u->done && u->ran < u->planned;
		more += u->ran > u->planned;
	}
	fprintf(f, "\nchained runs: %ld (%ld done), %ld jobs run of the %ld "
		"their plans queued; %ld took fewer, %ld more\n", n, done,
		ran, planned, fewer, more);
	for (i = 0; i < kept && i < RUNS_SHOWN; i++) {
		const autosize_report_run *u = &runs_buf[i];

		autosize_report_safe_text(u->name, name, sizeof(name));
		autosize_report_safe_text(u->user, user, sizeof(user));
		autosize_format_duration(u->elapsed_s, a, sizeof(a));
		autosize_format_duration(u->end_s > u->start_s
					 ? (double)(u->end_s - u->start_s) : 0,
					 b, sizeof(b));
		fprintf(f, "    run %.8s from job %s %s \"%s\": %d of %d jobs "
			"ran%s, %s of jobs over %s, %.0f GPU-hours; %s",
			u->chain, u->first_job[0] ? u->first_job : "?", user,
			name, u->ran, u->planned, u->unrun ? " (the rest "
			"cancelled unrun)" : "", a, b, u->gpu_h,
			u->done ? "done" : "not done");
		if (u->tokens > 0 && u->tokens_done > 0)
			fprintf(f, " (%.3g of %.3g tokens reported)",
				u->tokens_done, u->tokens);
		fputc('\n', f);
	}
	if (n > RUNS_SHOWN)
		fprintf(f, "    ... and %ld more\n", n - RUNS_SHOWN);
out:
	free(runs_buf);
}

void autosize_report_runs_json(const autosize_report *r, FILE *f)
{
	autosize_report_run *runs_buf = malloc(RUNS_KEPT * sizeof(*runs_buf));
	long n, i;

	n = runs_buf ? autosize_report_runs(r, runs_buf, RUNS_KEPT) : 0;
	fprintf(f, ",\"runs_total\":%ld,\"runs\":[", n);
	for (i = 0; i < n && i < RUNS_KEPT; i++) {
		const autosize_report_run *u = &runs_buf[i];

		fputs(i ? ",{\"chain\":" : "{\"chain\":", f);
		autosize_report_json_str(f, u->chain);
		fputs(",\"first_job\":", f);
		autosize_report_json_str(f, u->first_job);
		fputs(",\"user\":", f);
		autosize_report_json_str(f, u->user);
		fputs(",\"name\":", f);
		autosize_report_json_str(f, u->name);
		fprintf(f, ",\"jobs_planned\":%d,\"jobs_ran\":%d,"
			"\"jobs_unrun\":%d,\"done\":%s,\"tokens\":%.6g,"
			"\"tokens_done\":%.6g,\"elapsed_s\":%.0f,"
			"\"span_s\":%lld,\"gpu_hours\":%.2f}", u->planned,
			u->ran, u->unrun, u->done ? "true" : "false",
			u->tokens, u->tokens_done, u->elapsed_s,
			u->end_s > u->start_s ? u->end_s - u->start_s : 0,
			u->gpu_h);
	}
	fputc(']', f);
	free(runs_buf);
}
