/*
 * autosize: site policy (etc/autosize.yaml): partitions and defaults.
 */
#ifndef AUTOSIZE_POLICY_H
#define AUTOSIZE_POLICY_H

#include "autosize/catalog.h"
#include "autosize/checkpoint.h"
#include "autosize/error.h"
#include "autosize/framework.h"
#include "autosize/price.h"

#define AUTOSIZE_MAX_PARTITIONS 32
#define AUTOSIZE_PART_NAME_MAX 64
/* A GRES type as gres.conf names it ("h100"). */
#define AUTOSIZE_GRES_TYPE_MAX 32
#define AUTOSIZE_CURRENCY_MAX 8
#define AUTOSIZE_POLICY_WARNING_LEN 320
/* Node limit of a GPU's reference server (no partition). */
#define AUTOSIZE_REFERENCE_MAX_NODES 4096

typedef enum autosize_mode {
	AUTOSIZE_MODE_REWRITE = 0, /* rewrite the job's size and time */
	AUTOSIZE_MODE_WARN,        /* only warn */
	AUTOSIZE_MODE_OFF          /* do nothing */
} autosize_mode;

typedef enum autosize_objective {
	AUTOSIZE_OBJECTIVE_COST = 0, /* cheapest plan meeting the deadline */
	AUTOSIZE_OBJECTIVE_TIME      /* fastest plan within the limits */
} autosize_objective;

typedef enum autosize_net {
	AUTOSIZE_NET_IB = 0,   /* InfiniBand */
	AUTOSIZE_NET_ROCE,     /* RDMA over converged Ethernet */
	AUTOSIZE_NET_ETHERNET  /* plain TCP Ethernet */
} autosize_net;

typedef struct autosize_partition {
	char name[AUTOSIZE_PART_NAME_MAX];
	const autosize_gpu *gpu;    /* owned by the policy's catalog */
	int gpus_per_node;
	int nodes;                  /* nodes in the partition */
	int max_nodes_per_job;      /* <= nodes */
	double max_time_s;          /* 0 = unlimited */
	autosize_link intra_link;   /* GPU-to-GPU link inside a node */
	double intra_gbs;           /* its bandwidth per GPU, GB/s bidir. */
	int domain_nodes;           /* nodes whose GPUs share that link (an
				     * NVLink switch domain: GB200 NVL72,
				     * 18); 1: the node alone */
	autosize_net net;           /* network between nodes */
	double net_gbps_per_node;   /* Gb/s per node, all ports */
	int nvlink_sharp;           /* 1: NVSwitch reduces (NVLS) */
	int ib_sharp;               /* 1: the IB switches reduce (SHARP) */
	double price_per_gpu_hour;  /* 0 = free / unknown */
	char currency[AUTOSIZE_CURRENCY_MAX];
	autosize_price_schedule pricing; /* `pricing:`; zero = none */
	double storage_write_gbs;   /* shared storage, GB/s all nodes
				     * together; 0 = unknown */
	double storage_tb;          /* its space for checkpoints, TB (1e12
				     * bytes); 0 = unknown */
	autosize_mode mode;         /* `mode:`, else the defaults' */
	int mode_own;               /* 1: its own `mode:` (a rule's mode
				     * does not replace it) */
	char gres_type[AUTOSIZE_GRES_TYPE_MAX]; /* `gres_type:`, the GRES
				     * type of its GPUs in Slurm ("h100");
				     * "" untyped. A partition of several
				     * GPU types is one entry per type. */
	int cpus_per_gpu;           /* `cpus_per_gpu:`; 0 = Slurm's
				     * DefCpuPerGPU, else the node's share */
	double mem_per_gpu_bytes;   /* `mem_per_gpu:`; 0 likewise */
	int preemptible;            /* `preemptible:`: planned only for jobs
				     * that name it */
	double preempt_every_s;     /* `preempted_every:`, the mean run
				     * time between preemptions (4 h) */
} autosize_partition;

/* What slurmctld does with a job whose explicit size (--nodes, --gpus...)
 * the user gave alongside model options. */
typedef enum autosize_explicit {
	AUTOSIZE_EXPLICIT_KEEP = 0, /* keep the user's size, warn if unfit */
	AUTOSIZE_EXPLICIT_REWRITE   /* replace it with the plan's size */
} autosize_explicit;

/* What happens to a job that cannot fit (model too big, size too small). */
typedef enum autosize_unfit {
	AUTOSIZE_UNFIT_REJECT = 0,  /* refuse the submission, say why */
	AUTOSIZE_UNFIT_WARN         /* let it through unchanged, warn */
} autosize_unfit;

/* What happens when the plugin itself fails (a bug, out of memory). */
typedef enum autosize_on_error {
	AUTOSIZE_ON_ERROR_PASS = 0, /* job goes through unchanged, warned */
	AUTOSIZE_ON_ERROR_REJECT
} autosize_on_error;

/* The compute-node check of the GPUs a job got (hwloc). */
typedef enum autosize_gpu_check {
	AUTOSIZE_GPU_CHECK_WARN = 0, /* warning on the job's stderr */
	AUTOSIZE_GPU_CHECK_ENFORCE,  /* fail the step */
	AUTOSIZE_GPU_CHECK_OFF
} autosize_gpu_check;

typedef enum autosize_other_partitions {
	AUTOSIZE_OTHER_LEAVE = 0,   /* not autosize's: submitted as is */
	AUTOSIZE_OTHER_REFUSE       /* refused, naming autosize's partitions */
} autosize_other_partitions;

typedef struct autosize_defaults {
	autosize_mode mode;
	double memory_reserve;  /* fraction of GPU memory kept free, 0..0.9 */
	double time_reserve;    /* fraction added to wall time, 0..10 */
	autosize_objective objective;
	double deadline_s;      /* default deadline, 0 = none */
	double horizon_s;       /* a job with no deadline is planned to
				 * finish within this; 0 = none (30 days) */
	double max_train_s;     /* a plan predicted to train longer is
				 * infeasible; 0 = none (180 days) */
	double min_scaling;     /* the cost objective adds no GPUs whose
				 * speed per GPU is below this share of the
				 * best size's; 0 = off (0.60) */
	double gpu_mtbf_hours;  /* hours between a run's interruptions, per
				 * GPU (45,560: Llama 3); 0 = none */
	double restart_minutes; /* run time each interruption costs (16.7) */
	char partition[AUTOSIZE_PART_NAME_MAX]; /* default partition */
	autosize_explicit explicit_size; /* default keep */
	autosize_unfit on_unfit;         /* default reject */
	autosize_on_error on_error;      /* default pass */
	autosize_gpu_check gpu_check;    /* default warn */
	autosize_framework framework;    /* default megatron */
	char stack[24];                  /* default --train-stack; "" none */
	autosize_checkpoint_policy checkpoint; /* top-level `checkpoint:` */
	/* A job whose partitions are all outside the policy: passed as
	 * submitted (leave, the default) or refused. */
	autosize_other_partitions other_partitions;
	/* `slurm_limits: read` (the default): slurmctld's module plans
	 * within the QOS and association limits Slurm enforces; off: it
	 * does not read them. */
	int slurm_limits;
	/* `chain: on` (the default): a batch job longer than its
	 * partition's MaxTime is queued as chained jobs; off: one job. */
	int chain;
} autosize_defaults;


typedef struct autosize_policy autosize_policy;

/* Users and accounts whose jobs autosize never touches (`exempt:`). */
#define AUTOSIZE_EXEMPT_MAX 64
#define AUTOSIZE_EXEMPT_NAME_MAX 64
/* 1 when no partition is sized (every partition's mode, its own or the
 * defaults', is off; a policy without partitions: the defaults'). */
int autosize_policy_is_off(const autosize_policy *p);
/* 1 when user (a name, or a numeric uid as text) or account is exempt;
 * NULL or "" never is. */
int autosize_policy_exempt(const autosize_policy *p, const char *user,
			   const char *account);

/*
 * `rules:`: what the site sets per group of jobs, matched on the job's
 * account, QOS and user (any of the names listed under each key given,
 * every key given); the first rule that matches applies, after
 * `exempt:`. A rule sets the mode (in place of the defaults' for
 * partitions without their own `mode:`), a cap on the GPUs of one job
 * (with Slurm's own caps: the smaller wins), the default partition(s)
 * of a job that names none, and the default framework and stack. It
 * changes nothing else: every guard of decide.h applies whatever rule.
 */
#define AUTOSIZE_RULES_MAX 64
#define AUTOSIZE_RULE_NAMES_MAX 64

typedef struct autosize_rule {
	int line;                /* its line in the policy file */
	/* the names matched (n_* of each; 0: the key is absent, any name) */
	int n_users, n_accounts, n_qos;
	const char (*users)[AUTOSIZE_EXEMPT_NAME_MAX];
	const char (*accounts)[AUTOSIZE_EXEMPT_NAME_MAX];
	const char (*qos)[AUTOSIZE_EXEMPT_NAME_MAX];
	int mode_set;            /* `mode:` given */
	autosize_mode mode;
	long max_gpus;           /* `max_gpus:`, GPUs of one job; 0 none */
	char partition[AUTOSIZE_PART_NAME_MAX * 4]; /* `partition:`, a
				  * comma list of the policy's; "" none */
	autosize_framework framework; /* DEFAULT: the defaults' */
	char stack[24];          /* "" the defaults' */
} autosize_rule;

int autosize_policy_rule_count(const autosize_policy *p);
/* Rule i (from 0), or NULL. Owned by the policy. */
const autosize_rule *autosize_policy_rule_at(const autosize_policy *p, int i);
/*
 * The first rule matching a job of user in account under qos (each ""
 * when not known: a rule naming that key does not match it), or NULL.
 * Names are compared exactly, as Slurm stores them.
 */
const autosize_rule *autosize_policy_rule_for(const autosize_policy *p,
					      const char *user,
					      const char *account,
					      const char *qos);
/* What the rule keys on, in words ("account lab or lab2, QOS normal"),
 * into buf (len bytes); buf. */
const char *autosize_rule_match_text(const autosize_rule *rule, char *buf,
				     size_t len);
/* What the rule sets, in words ("mode warn, at most 16 GPUs a job,
 * partition a100, stack hf"), into buf; buf. */
const char *autosize_rule_set_text(const autosize_rule *rule, char *buf,
				   size_t len);

/* The site's settings for a job that rule matches (NULL: none): the
 * mode on partition part (its own, else the rule's, else the
 * defaults'), the default partition(s) ("" none: the best of the
 * policy's), framework and stack ("" none). */
autosize_mode autosize_policy_mode_for(const autosize_policy *p,
				       const autosize_rule *rule,
				       const autosize_partition *part);
const char *autosize_policy_partition_for(const autosize_policy *p,
					  const autosize_rule *rule);
autosize_framework autosize_policy_framework_for(const autosize_policy *p,
						 const autosize_rule *rule);
const char *autosize_policy_stack_for(const autosize_policy *p,
				      const autosize_rule *rule);

/* `exempt:`: user i / account i (from 0), or NULL past the last. */
const char *autosize_policy_exempt_user_at(const autosize_policy *p, int i);
const char *autosize_policy_exempt_account_at(const autosize_policy *p,
					      int i);

/*
 * Load a policy file. GPU names are resolved in the catalog given by the
 * file's `catalog:` key (relative to the file's folder) or, without it,
 * in the compiled-in catalog. Strict: errors name file, line and key.
 * The caller owns the result (autosize_policy_destroy).
 */
autosize_policy *autosize_policy_load(const char *path, autosize_error *e);

/* Parse from memory; `what` names it in errors, `dir` resolves `catalog:`. */
autosize_policy *autosize_policy_parse(const char *text, size_t len,
				       const char *what, const char *dir,
				       autosize_error *e);

/*
 * A policy with no partitions and the documented defaults (mode rewrite,
 * memory reserve 0.20, time reserve 0.15, objective cost, no deadline),
 * over the compiled-in catalog. Caller owns it.
 */
autosize_policy *autosize_policy_default(autosize_error *e);

/* Free a policy; NULL is allowed. */
void autosize_policy_destroy(autosize_policy *p);

const autosize_defaults *autosize_policy_defaults(const autosize_policy *p);
const autosize_catalog *autosize_policy_catalog(const autosize_policy *p);
int autosize_policy_partition_count(const autosize_policy *p);
/* Warnings about a policy that loaded ("site.yaml:12: key 'gpu': a100 is
 * ambiguous: ..."), for check-config and logs; the core prints nothing.
 * Warning i, or NULL. Owned by the policy. */
int autosize_policy_warning_count(const autosize_policy *p);
const char *autosize_policy_warning_at(const autosize_policy *p, int i);
/* Partition i, or NULL. Owned by the policy. */
const autosize_partition *autosize_policy_partition_at(const autosize_policy *p,
							int i);
/* The site's calibration (`calibration:` key, calibration.h), or NULL.
 * Owned by the policy. */
typedef struct autosize_calibration autosize_calibration;
const autosize_calibration *autosize_policy_calibration(
	const autosize_policy *p);
/* Its path as the policy named it ("" none). */
const char *autosize_policy_calibration_path(const autosize_policy *p);
/* The i-th file (from 0) the policy reads besides its own: `catalog:`,
 * `perf:`, `calibration:` as named (the calibration even before it
 * exists); NULL past the last. Owned by p. A new version of any of them
 * is a new version of the policy (slurmctld reloads it). */
#define AUTOSIZE_POLICY_MAX_FILES 3
const char *autosize_policy_file_at(const autosize_policy *p, int i);
/* Replace the calibration (autosize plan --calibration): p takes c
 * (NULL: none) and frees the one it had. */
void autosize_policy_set_calibration(autosize_policy *p,
				     autosize_calibration *c);
/* Partition by exact name, or NULL (its first entry when it has one per
 * GPU type). */
const autosize_partition *autosize_policy_find_partition(
	const autosize_policy *p, const char *name);

/* 1 when the partition entry holds GPUs of type (a GRES type as a job
 * asks for it: "a100", "h100"): its gres_type, else its GPU's catalog
 * name or alias; any case. */
int autosize_partition_has_type(const autosize_policy *p,
				const autosize_partition *part,
				const char *type);

/*
 * Fill *part with the reference server of gpu: gpus_per_node GPUs on the
 * GPU's own link, one InfiniBand port per GPU at the catalog's rate,
 * up to AUTOSIZE_REFERENCE_MAX_NODES nodes, no time limit, no price.
 */
void autosize_partition_reference(autosize_partition *part,
				  const autosize_gpu *gpu, int gpus_per_node);

/* Names for enums, for reports ("rewrite", "ib", "nvlink", ...). */
const char *autosize_mode_name(autosize_mode m);
const char *autosize_net_name(autosize_net n);
const char *autosize_link_name(autosize_link l);
const char *autosize_objective_name(autosize_objective o);
const char *autosize_explicit_name(autosize_explicit x);
const char *autosize_unfit_name(autosize_unfit u);
const char *autosize_on_error_name(autosize_on_error o);
const char *autosize_gpu_check_name(autosize_gpu_check g);

#endif
