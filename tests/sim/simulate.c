/*
 * make simulate: does the closed loop converge on a cluster's
 * real speed, and can lying users stop it?
 *
 * A synthetic site: each partition of the example policy has a hidden
 * true speed (real / predicted tokens per second, drawn once) and memory
 * factor. A thousand finished jobs arrive: a model, tokens and partition
 * drawn at random, planned by the real core, run at the hidden speed
 * with log-normal noise, killed at its time limit when slower (TIMEOUT).
 * 30% of the jobs never report (only their elapsed time tells). 40
 * users; 4 of them lie (report 2.0-2.9x or 0.25-0.4x their real speed,
 * inside the ratio bounds, and submit 5x as many jobs). After every 25 jobs the calibrator (offline/calibration_learn.c)
 * learns from all finished jobs so far, bounded by its previous result
 * as cron's runs are (x or / 1.25 per update) and checking each report
 * against the GPU's MFU ceiling; the prediction error of 300 held-out
 * honest jobs is measured without and with the corrections.
 * Fails (exit 1) when the final corrections are off by more than 5% on
 * any partition or do not cut the error.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autosize.h"
#include "autosize/calibration_input.h"
#include "autosize/calibration_learn.h"

#define SIM_JOBS 1000
#define SIM_HELD_OUT 300
#define SIM_USERS 40
#define SIM_LIARS 4
#define SIM_STEP 25
#define SIM_NOISE 0.08      /* log-normal sigma of one job's speed */
#define SIM_TOLERANCE 0.05  /* converged: every factor within 5% */
#define SIM_MAX_PARTS 8
#define SIM_SILENT 0.3      /* jobs that do not report */

typedef struct sim_job {
	autosize_record rec;   /* plan + what the job reported */
	char user[16];
	double real_tok_s;     /* what it really ran at */
	double elapsed_s;      /* how long it ran */
	const char *state;     /* COMPLETED, or TIMEOUT at its limit */
	int part;
} sim_job;

static unsigned long long sim_state = 0x9e3779b97f4a7c15ULL;

/* xorshift64*: uniform in [0, 1). */
static double sim_uniform(void)
{
	sim_state ^= sim_state >> 12;
	sim_state ^= sim_state << 25;
	sim_state ^= sim_state >> 27;
	return (double)((sim_state * 2685821657736338717ULL) >> 11) /
	       9007199254740992.0;
}

static double sim_normal(void)
{
	double u = sim_uniform() + 1e-12, v = sim_uniform();

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* One job on a random partition, planned by the core (a draw that does
 * not fit, a 70B model on a small partition, is drawn again); 0 or -1. */
static int sim_plan_once(const autosize_policy *p, int n_parts, sim_job *j);
static int sim_plan(const autosize_policy *p, int n_parts, sim_job *j)
{
	int tries;

	for (tries = 0; tries < 100; tries++)
		if (sim_plan_once(p, n_parts, j) == 0)
			return 0;
	fprintf(stderr, "simulate: no job of the draws fits the policy\n");
	return -1;
}

static int sim_plan_once(const autosize_policy *p, int n_parts, sim_job *j)
{
	static const char *const params[] = {"1.3e9", "7e9", "13e9", "34e9",
					     "70e9"};
	static const char *const tokens[] = {"5e9", "2e10", "1e11", "3e11"};
	const autosize_partition *part;
	autosize_request r;
	autosize_plan plan;
	autosize_error e;

	j->part = (int)(sim_uniform() * n_parts);
	part = autosize_policy_partition_at(p, j->part);
	autosize_request_init(&r);
	if (autosize_request_set(&r, "model-params",
				 params[(int)(sim_uniform() * 5)], &e) ||
	    autosize_request_set(&r, "train-tokens",
				 tokens[(int)(sim_uniform() * 4)], &e) ||
	    autosize_request_set(&r, "partition", part->name, &e) ||
	    autosize_request_finish(&r, &e) ||
	    autosize_plan_compute(p, &r, &plan, &e) != AUTOSIZE_OK)
		return -1;
	autosize_record_from_plan(&plan, &j->rec);
	return 0;
}

/* Run the job at its partition's hidden factors; user u reports. */
static void sim_run(sim_job *j, const double *speed, const double *mem,
		    int u)
{
	double f = speed[j->part] * exp(SIM_NOISE * sim_normal());

	snprintf(j->user, sizeof(j->user), "user%02d", u);
	j->real_tok_s = j->rec.tokens_per_s * f;
	j->rec.has_measured = 1;
	j->rec.m_lines = 10;
	j->rec.m_tokens_per_s = j->real_tok_s;
	j->rec.m_mem_bytes = j->rec.alloc_bytes * mem[j->part] *
			     exp(0.02 * sim_normal());
	/* it runs the whole run its plan predicts (steps, whole-run
	 * efficiency, restarts) at its real speed, or is killed at its
	 * time limit; a share of the jobs never report (then only the
	 * elapsed time tells, an upper bound on the speed of a TIMEOUT) */
	j->elapsed_s = j->rec.train_hours * 3600 / f;
	j->state = "COMPLETED";
	if (j->rec.time_limit_min > 0 &&
	    j->elapsed_s > j->rec.time_limit_min * 60.0) {
		j->elapsed_s = j->rec.time_limit_min * 60.0;
		j->state = "TIMEOUT";
	}
	if (sim_uniform() < SIM_SILENT)
		j->rec.has_measured = 0;
	if (u < SIM_LIARS)  /* half inflate, half deflate */
		j->rec.m_tokens_per_s *= u % 2 ? 2.0 + 0.9 * sim_uniform()
					       : 0.25 + 0.15 * sim_uniform();
}

/* A user, liars 5x as often as the others. */
static int sim_user(void)
{
	double w = SIM_LIARS * 5.0 + (SIM_USERS - SIM_LIARS), x;

	x = sim_uniform() * w;
	if (x < SIM_LIARS * 5.0)
		return (int)(x / 5.0);
	return SIM_LIARS + (int)(x - SIM_LIARS * 5.0);
}

/* Median |log(predicted / real)| of the held-out jobs, with the
 * corrections of c (NULL: the model alone). */
static double sim_error(const sim_job *held, int n,
			const autosize_calibration *c)
{
	double *err = malloc((size_t)n * sizeof(*err)), med;
	int i, k, sorted;

	if (!err)
		return NAN;
	for (i = 0; i < n; i++) {
		const autosize_record *r = &held[i].rec;
		const autosize_cal_entry *x = autosize_calibration_find(c,
			r->partition, r->gpu, r->framework,
			r->nodes * r->gpus_per_node);
		double pred = r->tokens_per_s * (x ? x->speed_factor : 1);

		err[i] = fabs(log(pred / held[i].real_tok_s));
	}
	do {            /* n is small: a plain sort */
		sorted = 1;
		for (k = 0; k + 1 < n; k++)
			if (err[k] > err[k + 1]) {
				double t = err[k];

				err[k] = err[k + 1];
				err[k + 1] = t;
				sorted = 0;
			}
	} while (!sorted);
	med = err[n / 2];
	free(err);
	return med;
}

/* Largest |factor / truth - 1| over the partitions; 1 when one has no
 * correction yet. */
static double sim_factor_error(const autosize_policy *p, int n_parts,
			       const autosize_calibration *c,
			       const double *speed)
{
	double worst = 0;
	int i;

	for (i = 0; i < n_parts; i++) {
		const autosize_partition *part =
			autosize_policy_partition_at(p, i);
		const autosize_cal_entry *x = autosize_calibration_find(c,
			part->name, part->gpu->name, "any", 0);

		if (!x)
			return 1;
		worst = fmax(worst, fabs(x->speed_factor / speed[i] - 1));
	}
	return worst;
}

/* What a plain mean of every report would have learnt: the lying
 * users' pull, for comparison. */
static void sim_naive(int n_parts,
		      const sim_job *jobs, int n, const double *speed)
{
	double sum[SIM_MAX_PARTS] = {0}, worst = 0;
	int cnt[SIM_MAX_PARTS] = {0}, i;

	for (i = 0; i < n; i++) {
		if (!jobs[i].rec.has_measured)
			continue;
		sum[jobs[i].part] += jobs[i].rec.m_tokens_per_s /
				     jobs[i].rec.tokens_per_s;
		cnt[jobs[i].part]++;
	}
	for (i = 0; i < n_parts; i++)
		if (cnt[i])
			worst = fmax(worst, fabs(sum[i] / cnt[i] / speed[i] - 1));
	printf("  a plain mean of the reports would be off by up to %.0f%% "
	       "on a partition\n", worst * 100);
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "etc/autosize.yaml";
	double speed[SIM_MAX_PARTS], mem[SIM_MAX_PARTS];
	double before, after = NAN, worst = 1;
	autosize_calibration *prev = NULL;
	autosize_cal_options o;
	autosize_policy *p;
	autosize_error e;
	sim_job *jobs, *held;
	int n_parts, i, converged_at = -1, timeouts = 0, rv = 1;

	p = autosize_policy_load(path, &e);
	if (!p) {
		fprintf(stderr, "simulate: %s\n", e.msg);
		return 1;
	}
	n_parts = autosize_policy_partition_count(p);
	if (n_parts > SIM_MAX_PARTS)
		n_parts = SIM_MAX_PARTS;
	jobs = calloc(SIM_JOBS, sizeof(*jobs));
	held = calloc(SIM_HELD_OUT, sizeof(*held));
	if (!jobs || !held)
		goto out;
	printf("simulate: %d jobs, %d users (%d lying, 5x as many jobs), "
	       "noise %.0f%%, policy %s\n", SIM_JOBS, SIM_USERS, SIM_LIARS,
	       SIM_NOISE * 100, path);
	for (i = 0; i < n_parts; i++) {
		speed[i] = 0.55 + 0.7 * sim_uniform();
		mem[i] = 0.95 + 0.2 * sim_uniform();
		printf("  hidden truth: %-6s speed x %.3f, memory x %.3f\n",
		       autosize_policy_partition_at(p, i)->name, speed[i],
		       mem[i]);
	}
	for (i = 0; i < SIM_HELD_OUT; i++) {
		if (sim_plan(p, n_parts, &held[i]))
			goto out;
		sim_run(&held[i], speed, mem, SIM_LIARS + i % 10);
	}
	for (i = 0; i < SIM_JOBS; i++) {
		if (sim_plan(p, n_parts, &jobs[i]))
			goto out;
		sim_run(&jobs[i], speed, mem, sim_user());
	}
	for (i = 0; i < SIM_JOBS; i++)
		timeouts += strcmp(jobs[i].state, "TIMEOUT") == 0;
	printf("  %d jobs hit their time limit (TIMEOUT), %.0f%% report no "
	       "speed\n", timeouts, SIM_SILENT * 100);
	sim_naive(n_parts, jobs, SIM_JOBS, speed);
	before = sim_error(held, SIM_HELD_OUT, NULL);
	printf("  jobs  corrections  worst factor error  median |log err| "
	       "(uncalibrated %.3f)\n", before);
	for (i = SIM_STEP; i <= SIM_JOBS; i += SIM_STEP) {
		autosize_calibrator *k;
		autosize_calibration *c;
		int j;

		autosize_cal_options_init(&o);
		o.catalog = autosize_policy_catalog(p);
		o.previous = prev;
		if (!(k = autosize_calibrator_create(&o)))
			goto out;
		for (j = 0; j < i; j++)
			autosize_calibrator_add(k, jobs[j].user, &jobs[j].rec,
						jobs[j].state, jobs[j].elapsed_s);
		c = autosize_calibrator_result(k, &e);
		autosize_calibrator_destroy(k);
		if (!c)
			goto out;
		worst = sim_factor_error(p, n_parts, c, speed);
		after = sim_error(held, SIM_HELD_OUT, c);
		if (worst <= SIM_TOLERANCE && converged_at < 0)
			converged_at = i;
		else if (worst > SIM_TOLERANCE)
			converged_at = -1;
		if (i <= 200 || i % 100 == 0)
			printf("  %4d  %11d  %17.1f%%  %.3f\n", i,
			       autosize_calibration_count(c), worst * 100,
			       after);
		autosize_calibration_destroy(prev);
		prev = c;
	}
	printf("simulate: median error %.1f%% -> %.1f%% after calibration; "
	       "every partition within %.0f%% of its true speed from %d "
	       "jobs on\n", (exp(before) - 1) * 100, (exp(after) - 1) * 100,
	       SIM_TOLERANCE * 100, converged_at);
	rv = worst <= SIM_TOLERANCE && after < before && converged_at > 0
	     ? 0 : 1;
	if (rv)
		printf("simulate: FAILED (final worst factor error %.1f%%)\n",
		       worst * 100);
out:
	autosize_calibration_destroy(prev);
	free(jobs);
	free(held);
	autosize_policy_destroy(p);
	return rv;
}
