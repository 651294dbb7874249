/*
 * autosize: what the scheduler does with one submitted job: rewrite its
 * size, only warn, reject it, or leave it. Slurm-neutral (no Slurm
 * headers): the job_submit.lua module (plugin/lua_*.c) decodes job_desc
 * into an autosize_job and applies the decision.
 *
 * Order of rules (policy.h, etc/autosize.yaml):
 *   1. no autosize option in the job's environment: not our job; nor
 *      is a job of a user or account the policy exempts (`exempt:`);
 *   2. bad options: reject with the core's one-line message; never
 *      rewrite a job from input we could not read;
 *   3. partitions: a job that may run in a partition outside the policy
 *      is left as submitted (`other_partitions: leave`, said) or refused
 *      (`refuse`);
 *      mode: the site's mode for the partition (its `mode:`, else the
 *      defaults') is the site's switch, and `off` wins; else the job's
 *      --autosize overrides it (explain acts as warn). Before the plan
 *      the job is left alone when every partition it may use is off;
 *      after it, the planned partition's mode applies;
 *   4. a heterogeneous job is never resized nor refused for its size: its
 *      first component gets the suggestion, the others nothing;
 *   5. a GPU request that cannot be read (two GPU entries, a count out
 *      of range): not sized, said, passed as submitted; an
 *      explicit size (-N, --gpus-per-node/--gres=gpu:N, --gpus, -t) with
 *      explicit_size keep: kept, the rest planned around it (a size above
 *      the partition's limits is refused before any search); with rewrite
 *      replaced. GPUs per task or per socket are always kept;
 *   6. no plan fits: on_unfit (reject or warn), naming what would fit;
 *   7. the plugin itself fails (ENOMEM, EINTERNAL, no policy): on_error;
 *   8. guards, for every action that changes a job (rewrite, and explain,
 *      which a client can ask for as it likes): a job without a batch
 *      script (srun, salloc, or a libslurm client) whose task count is
 *      below the planned node count is not resized (slurmctld cannot
 *      create its first step: 22.05 dies in step_create); a batch job's
 *      task count follows its new node count (--ntasks-per-node x nodes,
 *      else at least one task per node).
 *   9. the policy's `rules:` (policy.h): the first rule matching the
 *      job's user, account and QOS (the account Slurm gives it, its
 *      default when it names none; the QOS it names, else its
 *      association's default, from slurmctld or the limits snapshot;
 *      a key whose name is not known matches nothing) sets the mode of
 *      the partitions without their own, the default partition(s), the
 *      framework and stack, and a cap on the job's GPUs; the rules
 *      apply after rules 1 and 2 and change none of the others;
 *  10. Slurm's QOS and association limits (read by slurmctld's module,
 *      `slurm_limits: read`): the job's caps in each partition bound the
 *      plan; a job whose QOS or association the snapshot does not know,
 *      or when it cannot be read, goes as submitted with one line; a
 *      kept -t past the partition's MaxTime or the QOS's MaxWall is
 *      refused naming it.
 * One decision makes at most one plan (autosize_plan_compute_work), so its
 * work is bounded by AUTOSIZE_PLAN_MAX_LAYOUTS whatever the input.
 */
#ifndef AUTOSIZE_DECIDE_H
#define AUTOSIZE_DECIDE_H

#include <stddef.h>
#include "autosize/gres.h"
#include "autosize/jobrecord.h"
#include "autosize/plan.h"
#include "autosize/policy.h"

/* autosize_job numbers: not given, a GPU request we cannot read
 * (AUTOSIZE_JOB_UNSET, _UNREADABLE: gres.h), or an unlimited time. */
#define AUTOSIZE_JOB_UNLIMITED (-3L)

/* What the job asked the scheduler for. */
typedef struct autosize_job {
	char partition[AUTOSIZE_PART_LIST_MAX]; /* "" = none; comma list */
	long min_nodes;       /* UNSET or a count (capped at 1e7) */
	long max_nodes;
	long time_limit_min;  /* UNSET, UNLIMITED or minutes */
	long num_tasks;       /* UNSET or a count */
	long gpus_per_node;   /* UNSET, UNREADABLE or a count (0 allowed) */
	long gpus_per_job;    /* --gpus */
	long gpus_per_task;   /* --gpus-per-task */
	long gpus_per_socket; /* --gpus-per-socket */
	long sockets_per_node; /* UNSET or a count */
	long ntasks_per_node; /* UNSET or a count */
	long segment_nodes;   /* sbatch --segment (job_desc.segment_size):
			       * UNSET, a count, or UNREADABLE where this
			       * Slurm's job_submit/lua does not expose it
			       * (before 25.11) */
	long het_offset;      /* UNSET: not heterogeneous; 0: first component */
	int batch;            /* 1: a batch script (sbatch); 0: srun or
			       * salloc, or a client that says nothing */
	char user[AUTOSIZE_EXEMPT_NAME_MAX];    /* "" = not known */
	char account[AUTOSIZE_EXEMPT_NAME_MAX]; /* "" = not known (the
						 * user's default) */
	char qos[AUTOSIZE_LIMITS_NAME_MAX];     /* --qos; "" = the
						 * association's default */
	char default_qos[AUTOSIZE_LIMITS_NAME_MAX]; /* that default as
						 * slurmctld tells it; "" */
	char gpu_type[AUTOSIZE_GRES_TYPE_MAX];  /* the GRES type of its GPU
						 * request; "" */
	char features[AUTOSIZE_GRES_TYPE_MAX];  /* -C when one word (a GPU
						 * type when a partition of
						 * the policy has it); "" */
	int exclusive;        /* --exclusive: whole nodes */
	long cpus_per_gpu;    /* --cpus-per-gpu: UNSET or a count */
	long mem_per_gpu_mb;  /* --mem-per-gpu: UNSET or megabytes */
	int cpus_given;       /* -c: no CPUs per GPU are written */
	int mem_given;        /* --mem, --mem-per-cpu: no memory per GPU */
	/* The partitions the job may use with the scheduler's own limits
	 * (slurmctld's part_list); have_live 0: not known. */
	int have_live;
	autosize_part_limits live;
	/* Slurm's QOS and association limits and its nodes (limits.h), as
	 * slurmctld's module last read them; limits_wanted: the module
	 * reads them (the CLI does not); limits_why: why they cannot be
	 * read now ("" when they can), and the job then goes as
	 * submitted. Not owned. */
	int limits_wanted;
	const autosize_limits *limits;
	char limits_why[AUTOSIZE_MSG_LEN];
} autosize_job;

void autosize_job_init(autosize_job *job);

typedef enum autosize_action {
	AUTOSIZE_ACTION_NONE = 0, /* leave the job (maybe with a message) */
	AUTOSIZE_ACTION_REWRITE,  /* write the fields marked in set_* */
	AUTOSIZE_ACTION_WARN,     /* leave the job, tell the user the plan */
	AUTOSIZE_ACTION_EXPLAIN,  /* --autosize=explain */
	AUTOSIZE_ACTION_REJECT    /* refuse the submission with message */
} autosize_action;

const char *autosize_action_name(autosize_action a);

#define AUTOSIZE_LINE_MAX 640

typedef struct autosize_decision {
	int has_options;     /* 0: not an autosize job, never touch it */
	autosize_action action;
	/* Why a job is rejected or warned about: "input" (bad options),
	 * "time" (a -t past what Slurm allows), "unfit" (no plan fits),
	 * "limit" (no plan fits within Slurm's QOS or association limits
	 * on this job), "internal" (the plugin failed); "". */
	const char *reason;
	char message[AUTOSIZE_LINE_MAX]; /* one line for the user */
	char summary[AUTOSIZE_LINE_MAX]; /* one-line plan, "" if none */
	char error[AUTOSIZE_MSG_LEN];    /* internal failure, "" if none */
	int has_plan;        /* the fields below hold a plan */
	char partition[AUTOSIZE_PART_NAME_MAX];
	int nodes;
	int gpus_per_node;
	long time_limit_min; /* 0 = no time known (no --train-tokens) */
	int chained_jobs;
	/* For AUTOSIZE_ACTION_REWRITE and EXPLAIN: which job fields to
	 * write. Every guard has already cleared them where the job could
	 * not run resized (autosize_decide): a caller writes exactly these,
	 * whatever path it takes. */
	int set_nodes, set_gpus, set_time, set_partition;
	int set_segment;     /* write segment_nodes as the job's segment
			      * size: the plan has one and the job none */
	int segment_nodes;   /* the plan's (autosize_plan); 0 none */
	int set_tasks;       /* write num_tasks (a batch job's task count
			      * kept consistent with its new node count) */
	long num_tasks;
	/* The GPU type written with the GPUs ("h100": the partition's
	 * entry planned for), "" to keep the job's own. */
	char gres_type[AUTOSIZE_GRES_TYPE_MAX];
	int set_cpus, set_mem; /* write CPUs / memory per GPU */
	int cpus_per_gpu;
	long mem_per_gpu_mb;
	int preemptible;     /* the planned partition is preemptible */
	/* A chained job (chain.h): its run's id and place, and for a
	 * follower the dependency slurmctld writes ("afterany:123": it
	 * starts when the job before it has ended, however; its plugin
	 * then plans its part or ends it). "" / 0 otherwise. */
	char chain_id[AUTOSIZE_CHAIN_ID_MAX];
	int chain_index;
	char dependency[32];
	int limits_unknown;  /* Slurm's limits as last read do not know the
			      * job's QOS or association: a newer read
			      * may (it was made since) */
	/* A guard stopped the resize (the message says why): nothing is
	 * written and no record travels with the job. */
	int guarded;
	/* The user's own size, when given (kept or replaced; GPUs only
	 * when their count is). */
	int explicit_nodes, explicit_gpus, explicit_time;
	/* The plan record for the job's AdminComment (jobrecord.h), "" when
	 * there is no plan or it cannot be written. */
	char record[AUTOSIZE_RECORD_MAX];
	long evaluated;      /* layouts evaluated (bounded) */
	int n_warnings;
	char warnings[AUTOSIZE_MAX_WARNINGS][AUTOSIZE_WARNING_LEN];
} autosize_decision;

/* Scratch space of one decision (tens of KiB: callers inside a daemon
 * keep it off the stack). Opaque; allocate autosize_decide_work_size()
 * bytes, suitably aligned (malloc, or a Lua userdata). */
typedef struct autosize_decide_work autosize_decide_work;
size_t autosize_decide_work_size(void);

/*
 * Decide what to do with one job: env are its environment entries as the
 * submit side sent them (n of them, at most AUTOSIZE_JOBENV_MAX_ENTRIES
 * looked at; only autosize's own are read), job what it asked for, p the
 * site policy (NULL: the plugin failed to build even the defaults).
 * Never fails: every outcome, internal errors included, is a decision.
 * Allocates nothing.
 */
void autosize_decide(const autosize_policy *p, const char *const *env,
		     size_t n, const autosize_job *job,
		     autosize_decide_work *w, autosize_decision *d);

/*
 * The policy's rule for a job of user in account under qos (each "" when
 * not known: policy.h autosize_policy_rule_for) into r: r->rule, and
 * its GPU cap in r->rule_gpus, named by the job's names ("autosize rule
 * for account lab max_gpus=16"). Returns the rule, or NULL (r then has
 * none). autosize_decide does this for slurmctld; `autosize plan` with
 * sbatch's -A and -q.
 */
const autosize_rule *autosize_rule_apply(const autosize_policy *p,
					 const char *user, const char *account,
					 const char *qos, autosize_request *r);

#endif
