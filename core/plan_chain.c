/*
 * autosize: a run longer than its partition's MaxTime (plan.h): chained
 * jobs whose time limits cover the upper end of the likely time, each
 * warned by SIGUSR1 a checkpoint's write plus a margin before its limit;
 * or one job where the run cannot chain (salloc, srun, --autosize-chain
 * off), told how much of the run it holds. doc/users.md "Long runs".
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "autosize/chain.h"
#include "autosize/launch.h"
#include "autosize/options.h"
#include "autosize/parse.h"
#include "plan_work.h"
#include "checkpoint_private.h"

/* Slurm's --signal lead is 16 bits of seconds. */
#define CHAIN_SIGNAL_MAX_S 65535.0

int plan_chain_wanted(const autosize_request *r, const autosize_defaults *d)
{
	if (r->interactive || r->time_kept || r->chain_unmarked)
		return 0;
	return r->chain == AUTOSIZE_UNSET ? d->chain : r->chain == 1;
}

/* One checkpoint of bytes written on q's storage (checkpoint.c's rule:
 * at its stated speed, else within the policy's share of an interval). */
static double chain_write_s(double bytes, const autosize_partition *q,
			    const autosize_checkpoint_policy *cp)
{
	return q->storage_write_gbs > 0 ? bytes / (q->storage_write_gbs * 1e9)
					: cp->max_share * cp->interval_s;
}

int plan_signal_lead_s(const autosize_policy *p, const autosize_plan *plan,
		       const autosize_checkpoint_policy *cp)
{
	const autosize_partition *q;
	double write_s = chain_write_s(plan->ckpt.bytes, &plan->part, cp);
	double lead;
	int i;

	/* sbatch sets the signal before slurmctld picks the partition:
	 * the slowest storage the policy names for this checkpoint */
	for (i = 0; p && (q = autosize_policy_partition_at(p, i)); i++)
		write_s = fmax(write_s, chain_write_s(plan->ckpt.bytes, q, cp));
	lead = ceil((write_s + cp->signal_margin_s) / 60) * 60;
	return (int)fmin(lead, CHAIN_SIGNAL_MAX_S);
}

int autosize_plan_signal_lead(const autosize_policy *p,
			      const autosize_plan *plan)
{
	return plan_signal_lead_s(p, plan,
				  &autosize_policy_defaults(p)->checkpoint);
}

double plan_chain_job_min(autosize_plan *plan, double max_min,
			  double startup_min,
			  const autosize_checkpoint_policy *cp, double lead_s)
{
	/* the last checkpoint is written after the signal: what the lead
	 * holds beyond it is idle margin, not training */
	double margin_s = fmax(0, lead_s - plan->ckpt.write_s);
	double job_s = autosize_checkpoint_job_train_s(
		max_min * 60 - margin_s, startup_min * 60, cp->interval_s,
		plan->ckpt.write_s);

	plan->ckpt.job_write_s = autosize_checkpoint_count(job_s,
							   cp->interval_s) *
				 plan->ckpt.write_s;
	return job_s / 60;
}

/* Why this run is one job whatever its length. */
static const char *chain_why_not(const autosize_request *r)
{
	if (r->interactive)
		return "an interactive allocation (salloc, srun) is never "
		       "chained";
	if (r->chain == 0)
		return "--autosize-chain=off";
	if (r->chain_unmarked)
		return "sbatch did not queue it as a chain (a script on "
		       "standard input, --wait, a job array or a "
		       "heterogeneous job; sbatch -v says which)";
	return "the site's policy does not chain jobs (chain: off)";
}

void plan_chain_one_job(autosize_plan *plan, const autosize_request *r,
			double need_min, double job_min)
{
	double share = plan->train_hours > 0 && job_min > 0
		       ? fmin(1, job_min / (plan->train_hours * 60)) : 0;
	char n[16];

	plan->chained_jobs = 1;
	plan->chain_job_tokens = plan->tokens * share;
	if (r->time_kept)
		return;   /* the job's own -t says it (decide.c) */
	autosize_plan_warn(plan, "the time limits must cover %.1f h (the "
			   "upper end, start-up, checkpoints) and partition "
			   "%s allows %.0f h a job; %s: this job trains about "
			   "%s tokens (%.0f%%) at the prediction, then "
			   "resubmit with --train-tokens-done",
			   need_min / 60, plan->part.name,
			   plan->part.max_time_s / 3600, chain_why_not(r),
			   autosize_launch_count(plan->chain_job_tokens, n,
						 sizeof(n)),
			   share * 100);
}

/* The chain cut to at most jobs (who: the limit), said once. */
static void chain_cut_to(autosize_plan *plan, long jobs, const char *who)
{
	char n[16];
	double held;

	if (jobs < 1 || plan->chained_jobs <= jobs)
		return;
	if (!plan->chain_needed)
		plan->chain_needed = plan->chained_jobs;
	plan->chained_jobs = (int)jobs;
	snprintf(plan->chain_cut_by, sizeof(plan->chain_cut_by), "%s", who);
	held = fmin(plan->tokens, plan->chained_jobs *
				  plan->chain_job_tokens);
	autosize_plan_warn(plan, "the run needs %d chained jobs; %s: the "
			   "chain is cut to %d, about %s tokens at the "
			   "prediction; then resubmit with "
			   "--train-tokens-done", plan->chain_needed, who,
			   plan->chained_jobs,
			   autosize_launch_count(held, n, sizeof(n)));
}

void plan_chain_count(autosize_plan *plan, double train_min, double job_min)
{
	double chains;

	chains = job_min > 0 ? ceil(train_min / job_min - 1e-9) : 1;
	/* a max time barely above the start-up: counted, not looped */
	plan->chained_jobs = (int)fmax(1, fmin(chains, 1e9));
	plan->chain_needed = 0;
	plan->chain_cut_by[0] = '\0';
	plan->chain_job_tokens = plan->train_hours > 0 && job_min > 0
		? fmin(plan->tokens, plan->tokens * job_min /
					  (plan->train_hours * 60))
		: plan->tokens;
	chain_cut_to(plan, AUTOSIZE_CHAIN_MAX_JOBS, "a chain is at most "
		     "1000 jobs");
}

void plan_chain_cut(autosize_plan *plan, const autosize_part_limit *live)
{
	char who[AUTOSIZE_CAP_WHO_MAX + 32];
	const autosize_cap *cap;

	if (!live || !live->have_caps || plan->chained_jobs <= 1)
		return;
	cap = &live->caps.submit_jobs;
	if (cap->value < 1 || plan->chained_jobs <= cap->value)
		return;
	snprintf(who, sizeof(who), "%.110s lets you queue %ld", cap->who,
		 cap->value);
	chain_cut_to(plan, cap->value, who);
}

void autosize_plan_warn_kept_time(autosize_plan *plan, long limit_min)
{
	char limit[32], n[16];
	double job_s;

	if (!(plan->train_hours > 0) || limit_min <= 0 ||
	    limit_min >= plan->train_hours * 60)
		return;
	job_s = autosize_checkpoint_job_train_s(
		limit_min * 60.0, PLAN_STARTUP_ALLOWANCE_MIN * 60,
		plan->ckpt.interval_s, plan->ckpt.write_s);
	autosize_format_duration(limit_min * 60.0, limit, sizeof(limit));
	autosize_plan_warn(plan, "your time limit (-t %s) ends before the "
			   "predicted %.1f h: this job trains about %s "
			   "tokens of them (autosize chains jobs only at its "
			   "own time limit: drop -t), then resubmit with "
			   "--train-tokens-done", limit, plan->train_hours,
			   autosize_launch_count(plan->tokens *
						 fmin(1, job_s / 3600 /
						      plan->train_hours),
						 n, sizeof(n)));
}
