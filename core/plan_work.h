/*
 * autosize internal: the scratch space of one plan (large; callers that
 * run inside a daemon keep it off the stack) and the plan entry point
 * that uses it.
 */
#ifndef AUTOSIZE_PLAN_WORK_H
#define AUTOSIZE_PLAN_WORK_H

#include "autosize/plan.h"
#include "search.h"

/* Everything one autosize_plan_compute resolves once and its searches
 * share: the policy's defaults, the model, the effective deadline, the
 * candidate partitions and the work budget. */
typedef struct plan_ctx {
	const autosize_policy *p;
	const autosize_defaults *d;
	const autosize_request *r;
	autosize_model model;
	double deadline_s;
	const char *deadline_from; /* who set it: "--train-time", ... */
	search_budget budget;
	int n_parts;
	int named;            /* the partitions were named by the job */
	int chosen;           /* named by the job or the site's default:
			       * preemptible ones are planned too */
	int type_skipped;     /* entries left out: not the job's GPU type */
	/* What the scheduler's limits changed, told with the plan. */
	int n_notes;
	char notes[8][AUTOSIZE_WARNING_LEN];
	int note_size[8];     /* a cap on the size: told only when the
			       * plan reaches it */
	/* Why the last entry allows fewer GPUs per node than it has (the
	 * job's CPUs or memory per GPU, a QOS), "" when it does not. */
	char gpn_why[AUTOSIZE_WARNING_LEN];
	/* Why the last entry cannot take the GPUs the job fixed (a cap on
	 * its GPUs below them, Slurm's or the site rule's), "" when it can. */
	char gpus_why[AUTOSIZE_WARNING_LEN];
	autosize_partition parts[AUTOSIZE_MAX_PARTITIONS];
	/* The limit that made each candidate smaller for this job ("" none). */
	char capped[AUTOSIZE_MAX_PARTITIONS][AUTOSIZE_CAP_WHO_MAX];
	/* The request as one partition plans it (plan_on: whole nodes,
	 * an even split of --gpus, the fewest nodes, host memory). */
	autosize_request part_r;
} plan_ctx;

typedef struct autosize_work autosize_work;

struct autosize_work {
	plan_ctx ctx;
	autosize_request free_r;  /* the request without its pins */
	autosize_plan cand;       /* one partition's plan */
	autosize_plan alt;        /* advice */
	autosize_plan best;
};

/* ---- plan_parts.c: where a job may run ---- */

/* The candidates of c->r into c->parts (a named list, the GPU's
 * reference server, the policy's default, or every partition but the
 * preemptible ones), each within Slurm's limits and the job's caps. */
autosize_err plan_partitions(plan_ctx *c, autosize_error *e);

/* part (a copy of a policy entry) within the scheduler's limits, the
 * job's caps and its own CPUs and memory per GPU; capped the limit that
 * made it smaller. 0 when the scheduler does not let the job use it. */
int plan_live_limits(plan_ctx *c, autosize_partition *part, char *capped,
		     size_t len);

/* The Slurm limits of partition name for this job, or NULL. */
const autosize_part_limit *plan_live_of(const plan_ctx *c, const char *name);

/* What the limits changed on the plan's partition, as its warnings (a
 * cap on the size only when the plan reaches it). */
void plan_tell_notes(const plan_ctx *c, autosize_plan *plan);

/* Start-up, added to every time limit with the checkpoint writes of the
 * job (checkpoint.c): scheduling to first step (container, NCCL
 * initialisation, model build, data loader warm-up, loading the last
 * checkpoint: minutes at scale), which the step-time model does not
 * count. */
#define PLAN_STARTUP_ALLOWANCE_MIN 15.0

/* ---- plan_chain.c: a run longer than one job ---- */

/* 1 when the job may be chained: a batch job, neither it
 * (--autosize-chain=off) nor the site (chain: off) saying no. */
int plan_chain_wanted(const autosize_request *r, const autosize_defaults *d);

/* The warning signal's lead before a chained job's limit: plan's
 * checkpoint written at the slowest storage among p's partitions (sbatch
 * sets it before slurmctld picks one) plus cp's margin, in whole
 * minutes, within Slurm's 65535 s. */
int plan_signal_lead_s(const autosize_policy *p, const autosize_plan *plan,
		       const autosize_checkpoint_policy *cp);

/* Training minutes of one job of a chain whose limit is max_min: less
 * the start-up, the checkpoint writes in it and what the signal's lead
 * holds beyond the last write; sets plan->ckpt.job_write_s. 0 when the
 * limit holds no more than that. */
double plan_chain_job_min(autosize_plan *plan, double max_min,
			  double startup_min,
			  const autosize_checkpoint_policy *cp, double lead_s);

/* The chain that covers train_min (wall minutes to the upper end) in
 * jobs of job_min: chained_jobs, chain_job_tokens. */
void plan_chain_count(autosize_plan *plan, double train_min, double job_min);

/* A run longer than a limit that may not chain: one job, and the
 * warning of how much of the run it holds (need_min: what the limits
 * must cover). */
void plan_chain_one_job(autosize_plan *plan, const autosize_request *r,
			double need_min, double job_min);

/* The chain within the jobs the job's QOS or association lets a user
 * queue (live's MaxSubmitJobs caps): cut, warned. */
void plan_chain_cut(autosize_plan *plan, const autosize_part_limit *live);

/* autosize_plan_compute with the caller's scratch space w, for
 * slurmctld's decisions (autosize_decide): its searches also stop at
 * AUTOSIZE_PLAN_MAX_SEARCH_MS of the thread's CPU time. The CLI, sbatch
 * and the nodes plan by the candidate budget alone, the same plan on
 * any machine. */
autosize_err autosize_plan_compute_work(const autosize_policy *p,
					const autosize_request *r,
					autosize_plan *plan, autosize_work *w,
					autosize_error *e);

#endif
