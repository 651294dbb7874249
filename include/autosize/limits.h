/*
 * autosize: the limits Slurm enforces on a job, as `autosize limits
 * --raw` reads them from slurmctld (its association manager, its
 * partitions and nodes): QOS and association limits on GPUs, nodes and
 * wall time, and each partition's CPUs and memory per GPU. Plain text,
 * one record a line, so that slurmctld's Lua module reads a snapshot a
 * helper process wrote and never asks slurmctld or slurmdbd itself
 * (job_submit.lua runs inside slurmctld's locks):
 *
 *   autosize-limits 1
 *   enforce limits|none
 *   qos NAME [flags=deny,over_part] [job_gpus=N] [job_nodes=N]
 *       [user_gpus=N] [user_nodes=N] [account_gpus=N] [account_nodes=N]
 *       [grp_gpus=N] [grp_nodes=N] [node_gpus=N] [wall_min=N]
 *       [user_submit=N] [account_submit=N] [grp_submit=N]
 *   assoc ID PARENT_ID ACCOUNT USER|- PARTITION|- [job_gpus=N]
 *       [job_nodes=N] [grp_gpus=N] [grp_nodes=N] [node_gpus=N]
 *       [wall_min=N] [user_submit=N] [grp_submit=N] [def_qos=NAME]
 *       [qos=NAME,NAME...]
 *   user NAME [default_account=ACCOUNT]
 *   part NAME TYPE|- [qos=NAME] [def_cpus_per_gpu=N] [def_mem_per_gpu_mb=N]
 *       [max_cpus_per_node=N] [node_cpus=N] [node_mem_mb=N] [node_gpus=N]
 *   end
 *
 * Each GPU key (job_gpus, user_gpus, account_gpus, grp_gpus, node_gpus)
 * may also come typed, KEY:TYPE=N ("user_gpus:h100=8"), for a limit on
 * one GPU type's TRES (MaxTRESPerUser=gres/gpu:h100=8).
 * Numbers absent: no limit (*_submit: jobs queued at once, pending or
 * running: MaxSubmitJobs*, GrpSubmitJobs). `end` says the snapshot is whole. A `part`
 * line of TYPE `-` describes all the partition's nodes, one of a GPU
 * type (the GRES type, "h100") only the nodes of that type; node_cpus,
 * node_mem_mb and node_gpus are the smallest node's.
 */
#ifndef AUTOSIZE_LIMITS_H
#define AUTOSIZE_LIMITS_H

#include <stddef.h>
#include "autosize/error.h"

#define AUTOSIZE_LIMITS_NAME_MAX 64
/* GPU types (gres/gpu:TYPE TRES) a snapshot has limits for, at most:
 * what `autosize limits --raw` writes and what the reader keeps. */
#define AUTOSIZE_LIMITS_TYPES_MAX 16
/* How many GPU types (GRES types) a job's caps keep. */
#define AUTOSIZE_CAPS_TYPED_MAX 4
/* One cap of a job and the Slurm limit it comes from. */
#define AUTOSIZE_CAP_WHO_MAX 160

/* The largest size Slurm starts for this job under one kind of limit:
 * value -1 when nothing limits it; who names the limit ("QOS normal
 * MaxTRESPerUser=gres/gpu=16"). */
typedef struct autosize_cap {
	long value;
	char who[AUTOSIZE_CAP_WHO_MAX];
} autosize_cap;

typedef struct autosize_caps {
	autosize_cap gpus;          /* GPUs of one job */
	autosize_cap nodes;         /* nodes of one job */
	autosize_cap gpus_per_node;
	autosize_cap wall_min;      /* minutes */
	autosize_cap submit_jobs;   /* jobs a user may queue at once (the
				     * smallest per-user, per-account and
				     * group MaxSubmitJobs: a chain never
				     * queues more) */
	char qos[AUTOSIZE_LIMITS_NAME_MAX];     /* the QOS applied */
	char account[AUTOSIZE_LIMITS_NAME_MAX]; /* the account applied */
	/* Limits on one GPU type (gres/gpu:h100), for the types this job's
	 * QOS and associations limit: they bound a plan on that type only
	 * (autosize_caps_of_type). At most AUTOSIZE_CAPS_TYPED_MAX types;
	 * a snapshot's types past them are not planned within. */
	int n_typed;
	struct autosize_typed_cap {
		char type[AUTOSIZE_LIMITS_NAME_MAX]; /* "h100" */
		autosize_cap gpus;
		autosize_cap gpus_per_node;
	} typed[AUTOSIZE_CAPS_TYPED_MAX];
} autosize_caps;


/* What Slurm gives a partition's jobs per GPU and what its nodes have;
 * -1 where unknown or not set. */
typedef struct autosize_slurm_part {
	char name[AUTOSIZE_LIMITS_NAME_MAX];
	char type[AUTOSIZE_LIMITS_NAME_MAX];    /* GPU type, "" all nodes */
	char qos[AUTOSIZE_LIMITS_NAME_MAX];     /* partition QOS, "" none */
	long def_cpus_per_gpu;      /* DefCpuPerGPU */
	long def_mem_per_gpu_mb;    /* DefMemPerGPU */
	long max_cpus_per_node;     /* MaxCPUsPerNode */
	long node_cpus;             /* CPUs of its smallest node */
	long node_mem_mb;           /* RealMemory of its smallest node */
	long node_gpus;             /* GPUs of its smallest GPU node */
} autosize_slurm_part;

typedef struct autosize_limits autosize_limits;

/* caps with nothing limited (each value -1, no typed caps). */
void autosize_caps_none(autosize_caps *caps);

/* caps of a job in partition with its limits on GPU type folded in,
 * into out (the smaller of the typed and untyped cap, by kind; the
 * untyped on a tie): those on type, or with type NULL or "" (the job
 * may land on any of the partition's nodes) those on every GPU type of
 * the partition's nodes as snapshot l has them. */
void autosize_caps_of_type(const autosize_limits *l,
			   const autosize_caps *caps, const char *partition,
			   const char *type, autosize_caps *out);

/*
 * Read a snapshot (len bytes of text, not NUL-terminated). Strict: a
 * line that cannot be read, a missing `end` or more than the caps are
 * an error naming the line. The caller owns the result
 * (autosize_limits_destroy).
 */
autosize_limits *autosize_limits_parse(const char *text, size_t len,
				       autosize_error *e);

/* Free a snapshot; NULL is allowed. */
void autosize_limits_destroy(autosize_limits *l);

/* 1 when slurmctld enforces QOS and association limits
 * (AccountingStorageEnforce has limits). */
int autosize_limits_enforced(const autosize_limits *l);

/* Counts, for reports: QOS, associations. */
int autosize_limits_qos_count(const autosize_limits *l);
int autosize_limits_assoc_count(const autosize_limits *l);

/*
 * The caps Slurm puts on one job of user (a name) in account ("": the
 * user's default account) under qos ("": the association's default) in
 * partition, whose partition QOS is part_qos ("" or NULL: the
 * snapshot's). Each kind of limit is taken where Slurm first defines it
 * (partition QOS, job QOS, then the association and its parents: Slurm's
 * resource_limits order; OverPartQOS puts the job's QOS first), and a
 * job's GPU cap is the smallest of the per-job, per-user, per-account
 * and group limits: a job above any of them never starts. A user's
 * running jobs are not subtracted. Returns 0 with *caps filled (no caps
 * when limits are not enforced), or -1 with why (one line naming the
 * user, account or QOS) when the snapshot does not know the job's
 * association or QOS.
 */
int autosize_limits_caps(const autosize_limits *l, const char *user,
			 const char *account, const char *qos,
			 const char *partition, const char *part_qos,
			 autosize_caps *caps, char *why, size_t len);

/*
 * The account and QOS Slurm holds a job of user to when it names account
 * ("": the user's default) and qos ("": the association's default) in
 * partition ("": any), as autosize_limits_caps picks them, into
 * account_out and qos_out (AUTOSIZE_LIMITS_NAME_MAX bytes each). 0, or
 * -1 with both "" when the snapshot does not know the association (or
 * Slurm enforces no limits: the snapshot then has none).
 */
int autosize_limits_job_names(const autosize_limits *l, const char *user,
			      const char *account, const char *qos,
			      const char *partition, char *account_out,
			      char *qos_out);

/* 1 when the snapshot has an association of account / the QOS / user
 * name (for check-config --live). */
int autosize_limits_has_account(const autosize_limits *l, const char *name);
int autosize_limits_has_qos(const autosize_limits *l, const char *name);
int autosize_limits_has_user(const autosize_limits *l, const char *name);

/* The snapshot's record of partition for GPU type (the whole partition's
 * when type is NULL, "" or has none of its own); NULL when unknown.
 * Owned by l. */
const autosize_slurm_part *autosize_limits_partition(const autosize_limits *l,
						     const char *partition,
						     const char *type);

/* QOS i (from 0), as one line of text ("normal: MaxTRESPerUser
 * gres/gpu=16"; "normal: no limit on GPUs, nodes or time"), into buf;
 * NULL past the last. For check-config --live and inventory. */
const char *autosize_limits_qos_line(const autosize_limits *l, int i,
				     char *buf, size_t len);

/* Association i likewise ("account lab: GrpTRES gres/gpu=8"), only those
 * with a limit on GPUs, nodes or time counted: NULL past the last. */
const char *autosize_limits_assoc_line(const autosize_limits *l, int i,
				       char *buf, size_t len);

#endif
