/*
 * autosize internal: the parallel layout and the memory and time models
 * evaluated for it. Used by plan.c (search) and the unit tests.
 */
#ifndef AUTOSIZE_SIZING_H
#define AUTOSIZE_SIZING_H

#include "autosize/plan.h"
#include "perfdata.h"

typedef struct sizing_layout {
	int tp;          /* tensor parallel */
	int pp;          /* pipeline parallel */
	int dp;          /* data parallel */
	int vp;          /* interleaved virtual stages per pipeline rank */
	int zero_stage;  /* 0..3 over dp */
	int micro_batch; /* sequences per micro-batch */
	int grad_accum;  /* micro-batches per step per dp rank */
	int sp;          /* sequence parallel (with tp > 1) */
	autosize_recompute recompute;
	int cp;          /* context parallel: the sequence split over cp */
	int ep;          /* expert parallel: experts split over ep ranks
			  * carved out of dp x cp (Megatron MoE) */
	int recompute_layers; /* full recompute of this many layers per
			       * pipeline rank (all its virtual stages; a
			       * multiple of vp), the rest kept; 0: all */
	int etp_one;          /* 1: expert TP 1 where sizing_etp's rule
			       * gives TP (Megatron's
			       * --expert-tensor-parallel-size 1 with ep
			       * inside dp x cp, or at ep 1); 0: the rule */
} sizing_layout;

/* cp and ep of a layout, 1 when unset (0). */
#define SIZING_CP(lay) ((lay)->cp > 1 ? (lay)->cp : 1)
#define SIZING_EP(lay) ((lay)->ep > 1 ? (lay)->ep : 1)
/* GPUs of a layout: tp x pp x dp x cp */
#define SIZING_GPUS(lay) ((lay)->tp * (lay)->pp * (lay)->dp * SIZING_CP(lay))
/* Bytes per parameter of the model states before ZeRO sharding. */
typedef struct framework_state {
	double weight_b;   /* parameters as stored; sharded from
			    * weight_shard_stage on */
	int weight_shard_stage; /* 3 (ZeRO); 2 under FSDP, whose
				 * SHARD_GRAD_OP also shards the fp32
				 * parameters */
	double grad_b;     /* gradients kept; sharded at ZeRO-2+ */
	double opt_b;      /* optimizer state with any master copy; ZeRO-1+ */
	double copy_b;     /* unsharded 16-bit compute copy held between
			    * forward and backward below ZeRO-3 (FSDP) */
	double grad_wire_b;  /* bytes per gradient on the wire */
	double param_wire_b; /* bytes per parameter gathered (ZeRO-3) */
} framework_state;

/* Everything about a job that does not depend on the layout. */
typedef struct sizing_job {
	const autosize_model *model;
	const autosize_partition *part;
	int gpus_per_node;   /* GPUs per node of the size being evaluated
			      * (the search sets it per candidate: nodes x
			      * gpus_per_node); 0: the partition's. What
			      * shares a node, its NVLink and its NICs
			      * (sizing_gpn) */
	autosize_train_mode train_mode;
	autosize_precision precision;
	autosize_optimizer optimizer;
	autosize_framework framework; /* DEFAULT resolves to the built-in */
	autosize_framework framework_switched; /* DEFAULT, or the default
						* framework the pins moved
						* the job off (plan.c) */
	int grad_reduce_b;   /* bytes per gradient reduced (4, 2); 0: the
			      * framework's */
	int moe_overlap;     /* --moe-overlap (request) */
	autosize_moe_dispatcher moe_dispatcher; /* --moe-dispatcher (request);
						 * DEFAULT: the stack's
						 * (sizing_moe_dispatcher) */
	int moe_balanced;    /* --moe-balanced: no expert imbalance */
	int segment_user_nodes; /* the job's own sbatch --segment; 0 none
				 * (autosize_segment_nodes) */
	int seq_len;
	int global_batch;    /* sequences per step */
	int flash_attention; /* 1: no s x s score tensor is stored */
	int lora_rank;
	double tokens;
	double eval_tokens;  /* evaluated over what is planned of the run
			      * (--eval-tokens), forward passes only */
	double peak_flops;   /* dense peak of the GPU at this precision */
	double mfu_fixed;    /* > 0: back-of-envelope fixed utilization */
	double usable_bytes; /* GPU memory x (1 - reserve) */
	double min_scaling;  /* policy min_scaling_efficiency: the cost
			      * objective adds no GPUs below it; 0 = off */
	const perfdata_stack *stack; /* --train-stack; NULL: none (the
				      * framework's own conventions);
				      * plans point it at stack_gen */
	perfdata_stack stack_gen;    /* the stack with its numbers for the
				      * GPU's generation (by_generation) */
	int act_offload;     /* checkpointed activations in host memory */
	int opt_offload;     /* optimizer state in host memory, streamed
			      * over PCIe each step */
	int param_offload;   /* ZeRO-3 parameter shards, gradients and
			      * optimizer state in host memory, each
			      * shard copied in every pass */
	double chain_s;      /* training seconds one job of a chain holds
			      * at the upper end of the time interval
			      * (partition max time / the interval's
			      * widest factor); 0 = no max time */
	double lost_per_gpu; /* share of a run's wall time each GPU's
			      * interruptions cost: restart_minutes / 60 /
			      * gpu_mtbf_hours (policy); 0 = none */
	double run_efficiency; /* share of a whole run's wall time beyond
				* the interruptions that its steps take
				* (perf.yaml whole_run: efficiency); 0 or
				* 1: all of it */
	perf_params perf;    /* the GPU's performance data (perfdata.c);
			      * all zero: the A100 calibration */
	/* Per-model constants the layout loops read, filled once per plan
	 * by sizing_job_prepare (prepared = 0: computed on every call). */
	int prepared;
	double layer_params;        /* per layer, all experts */
	double expert_layer_params; /* routed experts per layer */
	double flops_token;         /* model FLOPs per token */
	double matmul_params;       /* parameters doing matmul work */
	double attn_flops_token;    /* attention-score FLOPs per token */
	double mlp_width;           /* MLP width a token's activations span */
	double swiglu_b;            /* SwiGLU bytes kept per MLP unit */
	double logit_b;             /* bytes per logit at the loss */
	framework_state fw;         /* the framework's bytes per parameter */
	double link_bw[2];          /* comm_link_intra / _net bytes/s */
	double link_lat[2];         /* and their step latencies */
	double gemm_kernel_f;       /* GEMM rate factor of the job's
				     * kernels (perf_kernel_factors) */
	double attn_kernel_f;       /* and of its attention kernels */
	int expert_issue;           /* framework_profile_job's */
} sizing_job;

/* Share of a whole run's wall time spent training on gpus GPUs: each
 * GPU's interruptions take lost_per_gpu of it (at most half in all),
 * and of the rest its steps take run_efficiency (start-up, evaluation,
 * checkpoint stalls, data stalls take the remainder). */
static inline double sizing_goodput(const sizing_job *job, double gpus)
{
	double lost = job->lost_per_gpu * gpus;
	double eff = job->run_efficiency > 0 ? job->run_efficiency : 1;

	return (lost < 0.5 ? 1 - lost : 0.5) * eff;
}

/* GPUs per node the job's layout runs on: the evaluated size's
 * (--gpus-per-node, a cap, a part of one node), else the partition's. A
 * job on fewer than a node's GPUs shares the node's link with no more
 * of its own ranks than that. */
static inline int sizing_gpn(const sizing_job *job)
{
	return job->gpus_per_node > 0 ? job->gpus_per_node
				      : job->part->gpus_per_node;
}

/* The job's MoE dispatcher: the one the request names, else its stack's
 * (perf.yaml deepep:), else Megatron-Core's alltoall. Never DEFAULT. */
static inline autosize_moe_dispatcher
sizing_moe_dispatcher(const sizing_job *job)
{
	if (job->moe_dispatcher != AUTOSIZE_MOE_DISPATCH_DEFAULT)
		return job->moe_dispatcher;
	return job->stack && job->stack->deepep
	       ? AUTOSIZE_MOE_DISPATCH_DEEPEP : AUTOSIZE_MOE_DISPATCH_ALLTOALL;
}

/* Fill the per-model constants of job the layout loops read (once per
 * plan; a job without them computes them on every call). */
void sizing_job_prepare(sizing_job *job);
/* perf.c's share of sizing_job_prepare. */
void sizing_perf_prepare(sizing_job *job);

/* job's performance parameters (never NULL): its generation's from the
 * policy, else the built-in Ampere ones. Inline so that comm.c and perf.c
 * both read them without depending on each other. */
static inline const perf_params *sizing_perf(const sizing_job *job)
{
	return job->perf.gemm_eff_max > 0 ? &job->perf
					  : perfdata_ampere_builtin();
}

/* Memory per GPU on the most loaded rank (first pipeline stage). */
void sizing_memory(const sizing_job *job, const sizing_layout *lay,
		   autosize_memory *mem);

/* Of the MLP's inner width per layer, the share Megatron's selective-mlp
 * (recompute module "mlp") leaves stored: the MoE layers' (memory.c). */
double sizing_mlp_kept_share(const autosize_model *m);
/* What selective-mlp recomputes: the MLP width per layer, averaged over
 * the layers, and the share of the layers (the dense ones; memory.c). */
double sizing_mlp_redone_width(const autosize_model *m);
double sizing_mlp_redone_layers(const autosize_model *m);
/* Activation bytes of one transformer layer for one micro-batch. */
double sizing_layer_activation_bytes(const sizing_job *job,
				     const sizing_layout *lay);

/* Routed expert parameters per layer (MoE; 0 for a dense model),
 * averaged over all layers. */
double sizing_expert_params_per_layer(const autosize_model *m);

/* Tensor parallelism of the expert layers (framework.c): 1 where the
 * layout says so (etp_one), else the TP size
 * while ep fits in dp x cp, else 1 (Megatron's expert_tensor_parallel_
 * size 1 lets ep span the TP ranks: "MoE parallel folding"); always 1
 * under FSDP as torchtitan runs it, whose expert mesh is ep x efsdp
 * over dp_shard x cp x tp (ParallelDims: efsdp = fsdp x tp / ep; no
 * expert TP). */
int sizing_etp(const sizing_job *job, const sizing_layout *lay);

/* The dispatcher lay runs (perf.c): sizing_moe_dispatcher, except that
 * DeepEP and HybridEP, flex backends that need expert TP x EP > 1
 * (Megatron-Core's token_dispatcher.py), leave a layout that exchanges
 * no tokens to alltoall. DEFAULT for a dense model. */
autosize_moe_dispatcher sizing_layout_dispatcher(const sizing_job *job,
						 const sizing_layout *lay);

/* The output head (vocabulary projection) of m in layers' work: its
 * matmul weights over one layer's (routed experts counted as a token
 * uses them). -1 (*work 0) for a model known only by its size
 * (perf.c). */
int sizing_head_layers(const autosize_model *m, double *work);

/* The pipeline split lay runs in under Megatron, as the plan records it
 * and its launch line sets it (layers on the first, each middle and the
 * last rank): the head balanced where the plan's memory allows
 * (stages_megatron_split_head, with sizing_middle_stage_cap), the
 * plain split under a block recomputation of part of each stage, for a
 * hybrid (Megatron-Core cuts its pattern by position) or a model known
 * only by its size. -1 (all 0) without a pipeline, under another
 * framework or where Megatron cannot split the layers (perf.c). */
int sizing_layout_stages(const sizing_job *job, const sizing_layout *lay,
			 int *first, int *middle, int *last);

/* The most layers a middle pipeline rank of lay may hold without
 * needing more memory than its first rank, which the plan sizes with
 * ceil(L / pp) layers and the embedding (memory.c): the second rank's
 * activations (its micro-batches in flight under lay's schedule) and
 * its model states (a layer's bytes against the embedding's) no more
 * than the first's. ceil(L / pp) with fewer than 3 ranks. */
double sizing_middle_stage_cap(const sizing_job *job,
			       const sizing_layout *lay);

/* The expert-TP ranks among which Megatron-Core's alltoall dispatcher
 * all-gathers every routed copy of their tokens after the all-to-all
 * and reduce-scatters them back before it (token_dispatcher.py,
 * MoEAlltoAllTokenDispatcher dispatch_postprocess / combine_preprocess,
 * over the expt_tp group: sizing_etp); the flex dispatchers send each
 * token to every expert-TP rank of its experts within their exchange
 * (MoEFlexTokenDispatcher: top-k x TP over TP x experts), the same
 * copies, priced alike. Its expert TP where that is above 1, else 1 (no
 * such exchange: expert TP 1, another framework, a dense model). perf.c
 * prices it, memory.c keeps the copies (perf.c). */
int sizing_etp_gather(const sizing_job *job, const sizing_layout *lay);

/* 1 when lay's DeepEP exchange crosses the nodes of a multi-node NVLink
 * domain over RDMA (DeepEP's NVLink part is one node: perf.c). */
int sizing_deepep_over_rdma(const sizing_job *job, const sizing_layout *lay);

/* Of those, the routed experts on one GPU of the first stage: split
 * over the expert TP x ep ranks (sizing_etp). */
double sizing_expert_params_gpu(const sizing_job *job,
				const sizing_layout *lay);

/* Parameters of one layer's key/value projections a GPU holds beyond
 * its tp-th share where tp exceeds the key/value heads and each head is
 * replicated (framework_kv_split); 0 otherwise. */
double sizing_kv_replica_params(const sizing_job *job,
				const sizing_layout *lay);

/* Parameters held by one GPU of the first stage before ZeRO sharding. */
double sizing_params_per_gpu(const sizing_job *job, const sizing_layout *lay);

/* Of those, the ones trained (all, or the LoRA adapters). */
double sizing_trained_params_per_gpu(const sizing_job *job,
				     const sizing_layout *lay);

/* Gradient bytes a GPU holds unsharded over a step's micro-batches
 * (framework_fsdp_grads_held: FSDP under a pipeline, or a no_sync
 * stack's accumulation), in the reduce dtype; 0 where none are held. */
double sizing_held_grad_bytes(const sizing_job *job, const sizing_layout *lay);

/* --param-offload: bytes of this rank's parameter shard kept in host
 * memory and copied in for every forward and backward, and of its
 * gradient shard copied out (both 0 without it). */
void sizing_param_host_bytes(const sizing_job *job, const sizing_layout *lay,
			     double *params_b, double *grads_b);
/* Bytes of this rank's model states in host memory: its offloaded
 * parameter and gradient shards and optimizer state (0 without
 * offload). */
double sizing_host_bytes(const sizing_job *job, const sizing_layout *lay);

typedef struct sizing_time {
	double step_s;         /* one optimizer step */
	double model_flops_step;
	double hw_flops_step;
	double mfu;
	double hfu;
	double compute_s;      /* parts of step_s, for reports and tests */
	double bubble_s;
	double tp_comm_s;
	double dp_comm_s;
	double pp_comm_s;
	double ep_comm_s;      /* expert all-to-all (inside tp_comm_s) */
	double cp_comm_s;      /* exposed ring attention (inside tp_comm_s) */
	double opt_s;          /* optimizer step */
	double offload_s;      /* --param-offload host <-> GPU copies */
} sizing_time;

/* Model FLOPs per token (6N + 12Lhs; 4N for frozen-base LoRA). */
double sizing_model_flops_per_token(const sizing_job *job);
/* Hardware FLOPs per token: model FLOPs plus recomputation. */
double sizing_hw_flops_per_token(const sizing_job *job,
				 autosize_recompute rc);

/* Share of a training step's hardware FLOPs per token that lay's
 * forward pass takes (2N + the attention's forward): an evaluation
 * token's time over a training token's. */
double sizing_forward_share(const sizing_job *job, const sizing_layout *lay);
/* Seconds of steps a run takes at tokens_per_s under lay: its training
 * tokens, and its evaluated tokens at the forward share of the step's
 * rate (before goodput and the whole-run efficiency). */
double sizing_steps_s(const sizing_job *job, const sizing_layout *lay,
		      double tokens_per_s);
/* Of them, the evaluations' seconds; 0 without --eval-tokens. */
double sizing_eval_s(const sizing_job *job, const sizing_layout *lay,
		     double tokens_per_s);

/* Highest model FLOPs utilization the time model can predict for job: a
 * bound for pruning sizes that cannot meet a deadline. */
double sizing_mfu_upper_bound(const sizing_job *job);
/* Share of the precision's dense peak that work at the BF16 peak's
 * efficiency reaches: 1 for BF16 and FP16; under FP8 or NVFP4 their
 * GEMMs' speedup over the peak's ratio (0.87 FP8, 0.57 NVFP4 on B200),
 * so that a utilization read against their own peak compares. */
double sizing_peak_reach(const sizing_job *job);

/* Layers on the busiest of pp pipeline stages: ceil(layers / pp), the
 * stages uneven where pp does not divide them (Megatron's uneven first
 * and last stages; Llama 3 405B ran 126 layers on 16 stages). */
int sizing_stage_layers(const autosize_model *m, int pp);

/* Share of a stage's layers lay recomputes in full: 0 without full
 * recomputation, else recompute_layers over the stage's layers (1 when
 * 0: all). */
double sizing_recompute_share(const sizing_job *job,
			      const sizing_layout *lay);

/* Layers per pipeline rank lay may keep whole (not recompute) under full
 * recomputation and still fit in the job's usable bytes: each stage's
 * memory is linear in them (fragmentation included), so this is the least
 * over the first and the last stage of slack / bytes per kept layer;
 * HUGE_VAL when keeping costs nothing, negative when lay does not fit
 * even with every layer recomputed. */
double sizing_recompute_keep_layers(const sizing_job *job,
				    const sizing_layout *lay);

/* A lower bound on the time of one micro-batch on one stage of lay: the
 * model FLOPs (no recomputation) at the dense GEMM rate of its shape,
 * the FP8 share faster; for pruning layouts that cannot win. */
double sizing_microbatch_bound_s(const sizing_job *job,
				 const sizing_layout *lay);

/* The compute time of one micro-batch on one stage of lay, recomputation
 * included, as sizing_step_time charges it (grad_accum times, and once
 * per bubble slot): a tighter bound than sizing_microbatch_bound_s, at
 * the cost of the compute model itself. */
double sizing_microbatch_compute_s(const sizing_job *job,
				   const sizing_layout *lay);

/* Time of one step of the layout on job->part. */
void sizing_step_time(const sizing_job *job, const sizing_layout *lay,
		      sizing_time *t);

/* sizing_step_time and its parts: the compute split into GEMM,
 * attention, element-wise, host and recomputation, the exposed
 * communication, bubble and optimizer; they sum to t->step_s. Once per
 * plan, not in the search's loops. */
void sizing_step_parts(const sizing_job *job, const sizing_layout *lay,
		       sizing_time *t, autosize_step_parts *sp);

#endif
