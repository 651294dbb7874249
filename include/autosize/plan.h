/*
 * autosize: a sizing request and the plan computed for it.
 */
#ifndef AUTOSIZE_PLAN_H
#define AUTOSIZE_PLAN_H

#include "autosize/limits.h"
#include "autosize/model.h"
#include "autosize/policy.h"

typedef enum autosize_train_mode {
	AUTOSIZE_TRAIN_PRETRAIN = 0,
	AUTOSIZE_TRAIN_FINETUNE,
	AUTOSIZE_TRAIN_LORA,
	AUTOSIZE_TRAIN_QLORA
} autosize_train_mode;

typedef enum autosize_precision {
	AUTOSIZE_PREC_BF16 = 0,
	AUTOSIZE_PREC_FP16,
	AUTOSIZE_PREC_FP8,
	AUTOSIZE_PREC_NVFP4         /* Blackwell's 4-bit block-scaled GEMMs
				     * (Transformer Engine NVFP4BlockScaling,
				     * Megatron-Core --fp4-format e2m1) */
} autosize_precision;

typedef enum autosize_optimizer {
	AUTOSIZE_OPT_ADAMW = 0,
	AUTOSIZE_OPT_ADAMW_8BIT,
	AUTOSIZE_OPT_SGD
} autosize_optimizer;

typedef enum autosize_recompute {
	AUTOSIZE_RECOMPUTE_NONE = 0,
	AUTOSIZE_RECOMPUTE_SELECTIVE,
	AUTOSIZE_RECOMPUTE_FULL,
	AUTOSIZE_RECOMPUTE_SELECTIVE_MLP /* the attention core and the MLP */
} autosize_recompute;

/* How a MoE layer sends its tokens to the ranks of their experts and
 * back (--moe-dispatcher). */
typedef enum autosize_moe_dispatcher {
	AUTOSIZE_MOE_DISPATCH_DEFAULT = 0, /* not given: the stack's, else
					    * alltoall */
	AUTOSIZE_MOE_DISPATCH_ALLTOALL,    /* a copy of a token per routed
					    * expert (Megatron-Core's
					    * alltoall dispatcher, GShard) */
	AUTOSIZE_MOE_DISPATCH_DEEPEP,      /* a token once to each rank of
					    * its experts inside a node,
					    * once to each node across them
					    * (DeepEP) */
	AUTOSIZE_MOE_DISPATCH_HYBRIDEP     /* as DeepEP, with the whole
					    * NVLink domain as its node
					    * (HybridEP: multi-node NVLink) */
} autosize_moe_dispatcher;

/* Unset integer / enum fields of a request are AUTOSIZE_UNSET. */
#define AUTOSIZE_UNSET (-1)

#define AUTOSIZE_PATH_MAX 4096
/* A partition list as Slurm takes it ("gpu,small"). */
#define AUTOSIZE_PART_LIST_MAX 256
/* Candidates one plan may enumerate, over all its partitions and its
 * advice: node counts, TP, PP, CP and EP degrees, micro-batch lists,
 * memory evaluations, step times and speed bounds, one each: the work
 * of one plan is bounded whatever the request. In slurmctld
 * (autosize_decide), which holds its locks while it plans, the searches
 * also stop at AUTOSIZE_PLAN_MAX_SEARCH_MS of the thread's CPU time.
 * Past either, the plan is the best found so far and says so (warning
 * code search_budget), or the reason it has none says the search
 * stopped. */
#define AUTOSIZE_PLAN_MAX_LAYOUTS 100000L
#ifndef AUTOSIZE_PLAN_MAX_SEARCH_MS
#define AUTOSIZE_PLAN_MAX_SEARCH_MS 4.0   /* 0: no time limit (profiling) */
#endif

/* Per-job --autosize=...: the policy's mode, or explain (print the plan,
 * submit nothing). */
typedef enum autosize_job_mode {
	AUTOSIZE_JOB_POLICY = 0, /* not given: the policy decides */
	AUTOSIZE_JOB_REWRITE,
	AUTOSIZE_JOB_WARN,
	AUTOSIZE_JOB_OFF,
	AUTOSIZE_JOB_EXPLAIN
} autosize_job_mode;

/* A partition's own limits as the scheduler has them (slurmctld's
 * part_list), applied over the policy's: the smaller wins. */
typedef struct autosize_part_limit {
	char name[AUTOSIZE_PART_NAME_MAX];
	long max_nodes;      /* MaxNodes; 0 = unlimited */
	long total_nodes;    /* nodes in the partition; 0 = unknown */
	double max_time_s;   /* MaxTime; 0 = unlimited */
	long max_cpus_per_node; /* MaxCPUsPerNode; 0 = unlimited */
	char qos[AUTOSIZE_LIMITS_NAME_MAX]; /* the partition's QOS, "" none */
	/* The QOS and association limits on this job in this partition
	 * (limits.h; each value -1 when none), when have_caps: a size
	 * above them never starts. */
	int have_caps;
	autosize_caps caps;
} autosize_part_limit;

typedef struct autosize_part_limits {
	int n;               /* partitions the job may use */
	autosize_part_limit at[AUTOSIZE_MAX_PARTITIONS];
} autosize_part_limits;

typedef struct autosize_request {
	autosize_model model;       /* filled by autosize_request_finish */
	char model_spec[AUTOSIZE_PATH_MAX]; /* --model: preset, folder, file
					     * or Hugging Face id */
	int model_local;            /* 1: --model may name the user's files
				     * and hub cache, read here (sbatch,
				     * srun, salloc, the CLI); 0: presets
				     * only (slurmctld, slurmstepd: the
				     * submit host sends what it read) */
	double model_params;        /* --model-params; 0 = not given */
	int arch_given;             /* any of --layers, --hidden, ... */
	autosize_job_mode job_mode; /* --autosize */
	double tokens;              /* training tokens; 0 = unknown */
	double tokens_done;         /* --train-tokens-done: of them, trained
				     * already (a run resumed from its
				     * checkpoints); the plan trains the
				     * rest; 0 = none */
	double eval_tokens;         /* --eval-tokens: tokens the whole run
				     * evaluates, all evaluations together
				     * (forward passes only); 0 = none */
	double deadline_s;          /* 0 = policy default */
	autosize_train_mode train_mode;
	int lora_rank;              /* --lora-rank: adapter rank of LoRA and
				     * QLoRA on every linear layer; UNSET =
				     * 16 */
	int seq_len;                /* default 4096 (2048 for GELU models) */
	int global_batch;           /* sequences per step; UNSET = default */
	double batch_tokens;        /* --train-batch=NUMtok: tokens per step,
				     * made whole sequences by
				     * autosize_request_finish; 0 = not given */
	int deadline_bare_minutes;  /* --train-time was a bare number
				     * (minutes, as Slurm reads it) */
	autosize_precision precision;
	autosize_optimizer optimizer;
	autosize_framework framework; /* --train-framework; DEFAULT = policy */
	char stack[24];             /* --train-stack (perf.yaml stacks:);
				     * "" = the policy's, else none */
	int act_offload;            /* --activation-offload: 1 on, 2 off,
				     * 0 = the stack's */
	int opt_offload;            /* --optimizer-offload: 1 on, 2 or 0
				     * off */
	int param_offload;          /* --param-offload: 1 on (ZeRO-3
				     * shards, gradients and optimizer
				     * state in host memory), 2 or 0 off */
	int grad_reduce_b;          /* --grad-reduce: bytes per gradient
				     * reduced (4 fp32, 2 bf16); UNSET = the
				     * framework's */
	int moe_overlap;            /* --moe-overlap: 1 = expert all-to-all
				     * overlapped with another micro-batch
				     * and no host sync per MoE layer
				     * (DualPipe, Megatron EP overlap +
				     * DeepEP); 0 = off (the default) */
	autosize_moe_dispatcher moe_dispatcher; /* --moe-dispatcher */
	char partition[AUTOSIZE_PART_LIST_MAX]; /* a name or a comma list
					     * (each planned once); "" =
					     * policy default */
	char gpu[AUTOSIZE_GPU_NAME_MAX]; /* GPU type without a partition */
	int gpus_per_node;          /* with gpu; UNSET = 8 */
	int net_set;                /* 1: net/net_gbps_per_node override */
	autosize_net net;
	double net_gbps_per_node;
	int gpus;                   /* fixed size; UNSET = search */
	int nodes;                  /* fixed size; UNSET = search */
	int segment_nodes;          /* the job's own --segment (sbatch's,
				     * or job_desc.segment_size); UNSET or
				     * 0 = none (autosize_segment_nodes) */
	int tp, pp, dp, zero_stage, micro_batch; /* pins; UNSET = search */
	int recompute;              /* autosize_recompute or UNSET */
	int recompute_layers;       /* --recompute-layers: layers of each
				     * (virtual) pipeline stage Megatron's
				     * block method recomputes in full
				     * (--recompute-num-layers); UNSET = the
				     * search's count */
	int sequence_parallel;      /* 0/1 with tp > 1; UNSET = on */
	int interleave;             /* virtual pipeline stages; UNSET = 1 */
	int cp, ep;                 /* context / expert parallel pins */
	int etp;                    /* --etp: expert tensor parallel pin, 1
				     * or the TP size (Megatron); UNSET = the
				     * search's */
	int flash_attention;        /* 0/1; UNSET = on */
	int moe_balanced;           /* --moe-balanced: 1 = routing forced
				     * even over the experts (benchmarks);
				     * 0 = learned routing's imbalance */
	double mfu;                 /* > 0: plan at this fixed utilization */
	double memory_reserve;      /* < 0: policy default */
	double time_reserve;        /* < 0: policy default */
	/* The scheduler's live partition limits (only the partitions the job
	 * may use), or NULL (the CLI: the policy alone). Not owned. */
	const autosize_part_limits *live;
	/* What Slurm tells of its partitions and nodes (their CPUs and
	 * memory, DefCpuPerGPU, DefMemPerGPU), or NULL. Not owned. */
	const autosize_limits *slurm;
	char gpu_type[AUTOSIZE_GRES_TYPE_MAX]; /* a typed request
				     * (--gres=gpu:a100:8, -C a100): only
				     * partitions with that GPU; "" any */
	int exclusive;              /* --exclusive: whole nodes */
	int fewest_nodes;           /* GPUs per node given, nodes not: the
				     * fewest nodes whose GPUs hold the
				     * model, not more for speed */
	int cpus_per_gpu;           /* the job's --cpus-per-gpu (caps the
				     * GPUs per node); 0 none */
	double mem_per_gpu_bytes;   /* the job's --mem-per-gpu; 0 none */
	int host_fixed;             /* the job gave its memory (--mem,
				     * --mem-per-cpu): it is not raised */
	/* The site policy's rule for this job (policy.h `rules:`), NULL
	 * none: its default partition, framework and stack stand in for
	 * the defaults'. Its cap on the job's GPUs, when value > 0, with
	 * who naming it, bounds the plan beside Slurm's caps (the smaller
	 * wins). Not owned. */
	const autosize_rule *rule;
	autosize_cap rule_gpus;
	/* Chained jobs (doc/users.md "Long runs"): a run longer than the
	 * partition's MaxTime is planned as jobs that resume from
	 * checkpoints. */
	int chain;                  /* --autosize-chain: 1 on, 0 off,
				     * UNSET the policy's (defaults: chain) */
	int interactive;            /* salloc, srun: one allocation, never
				     * chained */
	int chain_index;            /* this job's place in its chain, from
				     * 1; 0 = the first (or none) */
	int chain_unmarked;         /* a batch job sbatch did not mark as a
				     * chain's (its script on standard input,
				     * --wait, an array, a client without the
				     * plugin): one job */
	int time_kept;              /* the job keeps its own -t: one job,
				     * never chained (the caller says
				     * whether -t holds the run) */
	double signal_s;            /* warning signal the job carries, this
				     * long before its limit (sbatch set
				     * it); 0 = plan's own lead; -1 = the
				     * user's own --signal */
} autosize_request;


typedef struct autosize_memory {
	double weights_bytes;
	double gradients_bytes;
	double optimizer_bytes;
	double activations_bytes;
	double other_bytes;
	double runtime_bytes; /* of other: CUDA context and NCCL buffers,
			       * outside PyTorch's caching allocator */
	double slack_bytes;   /* of other: the allocator's fragmentation,
			       * reserved but never active */
	double total_bytes;   /* what the job needs: planned against
			       * usable_bytes */
	double cache_bytes;   /* beyond total: what PyTorch's caching
			       * allocator keeps where the GPU has room and
			       * gives back before it runs out (0 under
			       * Megatron); a device peak measured with room
			       * to spare is total + cache */
	double usable_bytes;  /* GPU memory x (1 - memory reserve) */
	int last_stage;       /* 1: the last pipeline stage holds the most
			       * (the loss's logits), else the first */
} autosize_memory;

#define AUTOSIZE_MAX_WARNINGS 8
#define AUTOSIZE_WARNING_LEN 256

/* The site's correction a plan used (calibration.h), from its finished
 * jobs; applied = 0 when none (no file, or too little data for the
 * plan's partition and GPU). */
typedef struct autosize_plan_calibration {
	int applied;
	int jobs, users;           /* behind the correction */
	double speed_factor;       /* real / predicted speed, applied */
	double speed_low;          /* its spread (1st, 99th percentile): */
	double speed_high;         /* the interval and time limit use it */
	double memory_factor;      /* real / planned tensor memory; 1 none */
	char regime[AUTOSIZE_PART_NAME_MAX + AUTOSIZE_GPU_NAME_MAX + 40];
				   /* "partition/gpu/framework/scale" */
} autosize_plan_calibration;

/* Where a step's time goes (seconds per optimizer step, the busiest
 * pipeline rank): the parts sum to the plan's step_s. Compute is the
 * first micro-batch slots' own work; communication and bubble only what
 * the overlaps leave exposed. */
typedef struct autosize_step_parts {
	double gemm_s;        /* matrix multiplies (dense and experts) */
	double attention_s;   /* attention-score kernels */
	double elementwise_s; /* memory-bound kernels: norms, activations */
	double host_s;        /* launch gaps, host-issued expert kernels */
	double recompute_s;   /* the forward work recomputation repeats */
	double tp_comm_s;     /* exposed tensor-parallel collectives */
	double cp_comm_s;     /* exposed context-parallel ring transfers */
	double ep_comm_s;     /* exposed expert all-to-all */
	double pp_comm_s;     /* pipeline point-to-point transfers */
	double dp_comm_s;     /* exposed data-parallel / ZeRO traffic */
	double bubble_s;      /* pipeline fill and drain */
	double optimizer_s;   /* the optimizer's pass over its state */
	double offload_s;     /* --param-offload: shards copied in over
			       * PCIe each pass, gradients out */
	int fixed_mfu;        /* 1: --mfu set the step; parts in proportion */
} autosize_step_parts;

/* Multiply every part by f (a calibration's speed, fixed utilization). */
void autosize_step_parts_scale(autosize_step_parts *sp, double f);

/* Who set what a GPU gets of its node (CPUs, memory). */
typedef enum autosize_per_gpu_from {
	AUTOSIZE_PER_GPU_NONE = 0, /* not known: Slurm's defaults apply */
	AUTOSIZE_PER_GPU_JOB,      /* the job's own --cpus/--mem-per-gpu */
	AUTOSIZE_PER_GPU_POLICY,   /* the partition's cpus/mem_per_gpu */
	AUTOSIZE_PER_GPU_SLURM,    /* the partition's DefCpuPerGPU... */
	AUTOSIZE_PER_GPU_NODE,     /* the node's share: its CPUs or memory
				    * over its GPUs */
	AUTOSIZE_PER_GPU_HOST      /* raised for the offloaded states */
} autosize_per_gpu_from;

typedef struct autosize_plan {
	int feasible;               /* 1: fits and meets hard limits */
	int too_long;               /* not feasible: predicted past the
				     * policy's max_train_time */
	char reason[AUTOSIZE_MSG_LEN]; /* why not feasible; "" otherwise */
	autosize_partition part;    /* partition (or reference server) used */
	int nodes;
	int gpus_per_node;
	int gpus;
	int segment_nodes;          /* nodes per Slurm segment (sbatch
				     * --segment) the plan's NVLink domain
				     * share assumes, the job's own when
				     * given; 0 none (autosize_segment_nodes
				     * 0 or 1) */
	double gpus_min;            /* compute need before rounding */
	int tp, pp, dp, zero_stage, micro_batch, grad_accum;
	autosize_recompute recompute;
	int recompute_layers;       /* full: layers recomputed per pipeline
				     * rank (0: all; Megatron's block
				     * method, recompute_layers / vp per
				     * virtual stage) */
	int stage_layers[3];        /* layers on the first, each middle (the
				     * most, under a custom layout) and
				     * the last pipeline rank as priced and
				     * launched (Megatron with pp > 1: the
				     * output head balanced where memory
				     * allows); 0s otherwise */
	autosize_framework framework; /* what the layout runs under */
	autosize_moe_dispatcher moe_dispatcher; /* a MoE model's, resolved
						 * (never DEFAULT); DEFAULT
						 * for a dense one */
	char stack[24];             /* the stack it was priced for (the
				     * request's, else the site's); "" none */
	char model[AUTOSIZE_NAME_MAX]; /* the model's name (a preset's, a
				     * config's folder); "" none */
	autosize_train_mode train_mode;
	autosize_precision precision; /* what it trains in */
	int vp;                     /* interleaved pipeline stages per rank */
	int cp;                     /* context parallel (sequence split) */
	int ep;                     /* expert parallel (within dp x cp) */
	int etp;                    /* expert tensor parallel: the TP ranks
				     * a routed expert is split over (1: ep
				     * folded over TP x DP x CP); 0 for a
				     * dense model */
	int seq_len;
	int global_batch;
	double params;
	double params_active;
	double tokens;
	double eval_tokens;         /* evaluated, of what is planned */
	double flops_total;         /* model FLOPs for all tokens */
	autosize_memory mem;        /* per GPU, the most loaded one */
	double mfu;                 /* model FLOPs utilization */
	double hfu;                 /* hardware FLOPs utilization */
	double tflops_per_gpu;      /* achieved model TFLOP/s per GPU */
	double tokens_per_s;        /* whole job */
	double step_s;              /* one optimizer step */
	autosize_step_parts step;   /* where step_s goes */
	double goodput;             /* share of the run's wall time spent
				     * training: interruptions (policy
				     * gpu_mtbf_hours, restart_minutes) take
				     * the rest; 1 = none */
	double interruptions;       /* expected over the run */
	double run_efficiency;      /* share of the wall time beyond the
				     * interruptions its steps take (start-up,
				     * evaluation, checkpoint and data stalls
				     * take the rest; etc/perf.yaml
				     * whole_run:); train_hours includes it */
	double eval_hours;          /* of train_hours, before goodput: the
				     * evaluations (--eval-tokens) at the
				     * forward pass's rate; 0 = none */
	double train_hours;         /* predicted wall time */
	/* Interval of the wall time from the validation residuals of the
	 * plan's regime (GPU generation x framework x scale; etc/perf.yaml
	 * residuals:); the time limit covers its upper end. */
	double train_hours_low;
	double train_hours_high;
	char perf_generation[16];   /* performance data used (perf.yaml) */
	int interval_runs;          /* validation runs behind the interval */
	int interval_pooled;        /* 1: too few in the regime: all runs */
	long time_limit_min;        /* upper end + allowance, clamped */
	int chained_jobs;           /* jobs whose time limits cover the
				     * upper end (time_limit_min each), 1
				     * for a run one limit covers or one
				     * that cannot be chained */
	double tokens_done;         /* trained before this plan
				     * (--train-tokens-done); tokens is the
				     * rest, tokens_done + tokens the run */
	double chain_job_tokens;    /* tokens one whole job of the chain
				     * trains at the predicted speed
				     * (tokens when chained_jobs is 1) */
	int chain_index;            /* the job of the chain planned (from
				     * 1; its part is autosize_plan_part) */
	double chain_done_before;   /* of tokens, done before that job (<
				     * 0: as planned, chain_job_tokens by
				     * each job before it) */
	int chain_needed;           /* jobs the run needs when a limit on
				     * queued jobs cut chained_jobs (0:
				     * not cut) */
	char chain_cut_by[AUTOSIZE_CAP_WHO_MAX]; /* that limit ("QOS normal
				     * MaxSubmitJobsPerUser=4") */
	int signal_s;               /* SIGUSR1 this long before each
				     * chained job's limit: the
				     * checkpoint's write plus the
				     * policy's margin (0: not chained) */
	double gpu_hours;
	double cost;                /* price.total: what the schedule asks */
	autosize_cost price;        /* how cost came about (price.h) */
	autosize_checkpoint ckpt;   /* checkpoint size, bandwidth, storage */
	double memory_reserve;
	double time_reserve;
	long evaluated;             /* candidates the plan's searches
				     * enumerated (AUTOSIZE_PLAN_MAX_LAYOUTS) */
	/* When nothing fits (AUTOSIZE_ENOFIT), what would: */
	int advice_here_nodes;      /* this partition, without the pins */
	int advice_min_nodes;       /* this GPU, past the node limit */
	char advice_partition[AUTOSIZE_PART_NAME_MAX]; /* another one */
	int advice_partition_nodes;
	int advice_partition_gpn;
	autosize_plan_calibration calibration;
	/* What each GPU gets of its node (0 unknown) and who says so. */
	int cpus_per_gpu;
	double mem_per_gpu_bytes;
	autosize_per_gpu_from cpus_from, mem_from;
	double host_bytes_per_node; /* offloaded model states per node; 0
				     * without offload */
	double preemptions;         /* expected over the run (a preemptible
				     * partition) */
	char capped_by[AUTOSIZE_CAP_WHO_MAX]; /* Slurm's limit that made the
				     * partition smaller for this job ("QOS
				     * normal MaxTRESPerUser=gres/gpu=16"),
				     * "" none */
	int n_warnings;
	char warnings[AUTOSIZE_MAX_WARNINGS][AUTOSIZE_WARNING_LEN];
} autosize_plan;

/*
 * Size one job under policy p. Returns AUTOSIZE_OK with plan->feasible = 1
 * on success; AUTOSIZE_ENOFIT with the best attempt and plan->reason when
 * nothing fits (a pinned evaluation still fills every number);
 * AUTOSIZE_EINVAL / AUTOSIZE_ENOTFOUND for bad requests, with *e filled.
 * Allocates nothing.
 */
autosize_err autosize_plan_compute(const autosize_policy *p,
				   const autosize_request *r,
				   autosize_plan *plan, autosize_error *e);

/* The deadline a request is planned for: its own, else the policy's
 * deadline, else the policy's horizon (at most its max_train_time); 0:
 * none. */
double autosize_plan_deadline_s(const autosize_policy *p,
				const autosize_request *r);

/*
 * Tokens job `index` (from 1) of the plan's chain is planned to train,
 * having done_before of the plan's tokens already (< 0: as planned, the
 * jobs before it each trained chain_job_tokens): the rest of the run,
 * at most one job's share; 0 when nothing is left.
 */
double autosize_plan_part(const autosize_plan *plan, int index,
			  double done_before);

/* Of the plan's tokens, those done before job index: done_before, or as
 * planned when it is < 0; at most the plan's tokens. */
double autosize_plan_done_before(const autosize_plan *plan, int index,
				 double done_before);

/*
 * The warning for a job that keeps its own time limit (-t, minutes)
 * short of the plan's time: how much of the run it trains, and how the
 * run goes on. Nothing when limit_min covers the predicted time.
 */
void autosize_plan_warn_kept_time(autosize_plan *plan, long limit_min);

/*
 * The warning signal's lead (seconds) a chained job of this plan gets
 * under policy p: the plan's checkpoint written at the slowest storage
 * among p's partitions, plus the policy's checkpoint signal_margin, in
 * whole minutes (sbatch sets it before slurmctld picks the partition).
 */
int autosize_plan_signal_lead(const autosize_policy *p,
			      const autosize_plan *plan);

/* Add a warning to a plan (dropped silently past AUTOSIZE_MAX_WARNINGS). */
void autosize_plan_warn(autosize_plan *plan, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A warning's short code for the job record's warn= key and the admin's
 * report ("low_mfu", "chained", ...; doc/admins.md lists them): the
 * warning's words matched against a table; "other" for one the table
 * does not know. Never NULL.
 */
const char *autosize_warning_code(const char *warning);

/*
 * The codes of n warnings, each once, joined by '+' into out ("" for
 * none); a code that does not fit is left out. Returns the codes kept.
 */
int autosize_warning_codes(const char (*warnings)[AUTOSIZE_WARNING_LEN],
			   int n, char *out, size_t len);

/* The "schema_version" of the plan JSON, its error objects included
 * (doc/plan-json.md): changes when a field changes meaning or goes, not
 * when one is added. */
#define AUTOSIZE_PLAN_JSON_SCHEMA 1

/* Write the plan as one JSON object (no trailing newline) into buf: -1
 * when it does not fit len. Strings are valid UTF-8 (json_write.h). */
int autosize_plan_to_json(const autosize_plan *plan, char *buf, size_t len);

const char *autosize_train_mode_name(autosize_train_mode m);
const char *autosize_precision_name(autosize_precision p);
const char *autosize_optimizer_name(autosize_optimizer o);
const char *autosize_recompute_name(autosize_recompute r);
/* "alltoall", "deepep", "hybridep"; "default" for DEFAULT. */
const char *autosize_moe_dispatcher_name(autosize_moe_dispatcher d);
/* 1 for DeepEP and HybridEP: Megatron-Core's flex dispatcher backends,
 * which send a token once to each rank and node (or NVLink domain) of
 * its experts. */
static inline int autosize_moe_dispatcher_flex(autosize_moe_dispatcher d)
{
	return d == AUTOSIZE_MOE_DISPATCH_DEEPEP ||
	       d == AUTOSIZE_MOE_DISPATCH_HYBRIDEP;
}

#endif
