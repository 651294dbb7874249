/*
 * autosize internal: framework profiles (core/framework.c). What each
 * training framework can run and how it stores model states.
 */
#ifndef AUTOSIZE_FRAMEWORK_INTERNAL_H
#define AUTOSIZE_FRAMEWORK_INTERNAL_H

#include "sizing.h"

typedef struct framework_profile {
	autosize_framework id;
	int tp_ok;         /* tensor parallelism */
	int pp_ok;         /* pipeline parallelism */
	int vp_ok;         /* interleaved (virtual) pipeline stages */
	int cp_ok;         /* context parallelism */
	int ep_ok;         /* expert parallelism */
	int zero_max;      /* highest ZeRO stage over data parallel ranks */
	int zero_max_pp;   /* highest ZeRO stage with pp > 1 */
	int zero_skip_1;   /* 1: no ZeRO-1 (FSDP shards grads too) */
	int zero_skip_2;   /* 1: no ZeRO-2 offered (Megatron: its
			    * distributed optimizer, or Megatron-FSDP's
			    * full sharding) */
	int ep_zero_max;   /* highest ZeRO stage with ep > 1 */
	int param_offload; /* 1: parameters can live in host memory
			    * (--param-offload) */
	int block_recompute; /* 1: full recomputation of only the first
			    * layers of each (virtual) stage (Megatron's
			    * --recompute-method block); 0: every layer or
			    * none */
	int expert_issue;  /* 1: the host issues each local expert's MoE
			    * kernels one at a time after a host sync
			    * (perf.c PERF_MOE_EXPERT_HOST_S) */
	int searched;      /* 1: the search tries the splits above; 0:
			    * they run only where the request pins them
			    * (a stack whose recipes default to data
			    * parallel: perf.yaml stacks: splits pinned) */
	int why;           /* what narrowed the framework's splits
			    * (FRAMEWORK_WHY_*), for refusals */
} framework_profile;

/* framework_profile.why */
enum {
	FRAMEWORK_WHY_NONE = 0,
	FRAMEWORK_WHY_OFFLOAD,     /* --param-offload */
	FRAMEWORK_WHY_STACK,       /* the stack runs data parallel only */
	FRAMEWORK_WHY_PEFT_DS,     /* adapters under DeepSpeed */
	FRAMEWORK_WHY_QLORA_MEG    /* QLoRA under Megatron: no TP */
};


/* 1 under Megatron with FP8 or NVFP4 GEMMs: the jobs whose parameters
 * Transformer Engine can keep in FP8 (NVFP4) itself (--fp8-param-gather
 * with the distributed optimizer; a LoRA base under fp8_model_init) and
 * whose 16-bit weights it otherwise caches in FP8 (memory.c). */
int framework_megatron_fp8(const sizing_job *job);

/* 1 when the profile runs ZeRO stage z at all (with some layout). */
int framework_stage_ok(const framework_profile *fp, int z);
/* 1 when framework f refuses expert parallelism ep with ZeRO stage z
 * (DeepSpeed-MoE under ZeRO-3). */
int framework_ep_zero_refused(autosize_framework f, int ep, int z);

/* What framework_offering asks of each built-in profile. */
typedef enum framework_cap {
	FRAMEWORK_CAP_TP,
	FRAMEWORK_CAP_PP,
	FRAMEWORK_CAP_VP,
	FRAMEWORK_CAP_CP,
	FRAMEWORK_CAP_EP,
	FRAMEWORK_CAP_PARAM_OFFLOAD,
	FRAMEWORK_CAP_ZERO,        /* ZeRO stage arg */
	FRAMEWORK_CAP_EP_ZERO      /* expert parallelism at ZeRO stage arg */
} framework_cap;

/* The frameworks whose built-in profiles offer cap, in table order, as
 * a hint spells them ("megatron, fsdp or deepspeed"), into buf; buf. */
const char *framework_offering(framework_cap cap, int arg, char *buf,
			       size_t len);

/* The profile of f (DEFAULT: the built-in default). Never NULL. */
const framework_profile *framework_profile_get(autosize_framework f);

/* The profile job runs under, into buf (returned): its framework's,
 * narrowed where the job cannot split the model so: --param-offload
 * (data-parallel ZeRO-3 shards only), a stack's splits (perf.yaml
 * stacks: splits), LoRA and QLoRA adapters under DeepSpeed (ZeRO and
 * Ulysses sequence parallelism: its tensor and pipeline parallelism are
 * Megatron-DeepSpeed's, which trains no adapters), QLoRA under Megatron
 * (NeMo's NF4 layers run without tensor parallelism). LoRA and QLoRA
 * under FSDP2 keep every split where the request pins it
 * (torchtitan-style FSDP2 + TP/PP/CP, NeMo AutoModel's LoRA recipes);
 * the search keeps them data parallel. */
const framework_profile *framework_profile_job(const sizing_job *job,
					       framework_profile *buf);

/* 1 when job trains LoRA or QLoRA adapters on a frozen base. */
int framework_peft(const sizing_job *job);

/* 1 when job runs on a PyTorch-native stack (FSDP, DeepSpeed): no
 * Transformer Engine layers or fused loss, F.cross_entropy on fp32
 * logits, SwiGLU as written in PyTorch. */
int framework_torch_native(const sizing_job *job);

/* 1 when its GEMM and attention kernels are PyTorch's (a native stack
 * without Transformer Engine: perf.yaml stacks: te_kernels), at the
 * generation's torch_eff of Megatron-Core's rate. */
int framework_torch_kernels(const sizing_job *job);

/* 1 when job's FSDP runs under a pipeline schedule (torchtitan's
 * default reshard_after_forward is off with PP; torch pipelining turns
 * gradient sync and resharding off for every backward but the step's
 * last, _PipelineStageBase.backward_maybe_with_nosync, as NeMo
 * Automodel's patch of it does): the parameters are gathered once a
 * step and stay, the gradients stay unsharded and are reduced once. */
int framework_fsdp_step_sync(const sizing_job *job, const sizing_layout *lay);

/* 1 when every data-parallel rank gathers all of a MoE's routed experts
 * to train them (FSDP, which gathers at ZeRO-2 too, DeepSpeed or
 * Megatron-FSDP at ZeRO-3, without expert parallelism, over more than
 * one rank; adapters over a frozen MoE are not counted): a kind of
 * layout no fit-half or held-out published run checks; the full
 * training runs published since (sealed batches 5 and 8: KempnerForge,
 * BioNeMo Mixtral) took 1.2-3.9x the planned time, so the plan's time
 * interval is widened and the plan says why. */
int framework_gathers_experts(const sizing_job *job, const sizing_layout *lay);

/* 1 when job's FSDP keeps its gradients unsharded across a step's
 * micro-batches and reduces them once, under the last: under a pipeline
 * (framework_fsdp_step_sync), or a stack that accumulates under no_sync
 * (perf.yaml stacks: accum_no_sync, the HF Trainer) with more than one
 * micro-batch a step. FSDP's no_sync "will result in higher memory usage
 * because FSDP will accumulate the full model gradients (instead of
 * gradient shards) until the eventual sync" (PyTorch FSDP docs). */
int framework_fsdp_grads_held(const sizing_job *job, const sizing_layout *lay);

/* 1 when job reduces its gradients under every micro-batch's backward
 * rather than the step's last: DeepSpeed ZeRO-2 partitions gradients as
 * they are made ("ZeRO stage >= 2 communicates during non gradient
 * accumulation boundaries as well", runtime/engine.py
 * allreduce_gradients; stage_1_and_2.py
 * reduce_ready_partitions_and_remove_grads), and FSDP's ZeRO-2
 * reduce-scatters in every backward unless its gradients are held
 * (framework_fsdp_grads_held; torchtitan's loop runs each accumulation
 * step's backward with sync on). ZeRO-0/1 and Megatron's distributed
 * optimizer reduce at the step's boundary. */
int framework_dp_reduce_each_microbatch(const sizing_job *job,
					const sizing_layout *lay);

/* 1 when job gathers its 16-bit parameters for every micro-batch's
 * forward under a sharded optimizer: FSDP's ZeRO-2 keeps them gathered
 * from the forward to the backward only (reshard_after_forward off,
 * reshard_after_backward on: FSDP2 fully_shard defaults), except under a
 * pipeline (framework_fsdp_step_sync). */
int framework_dp_gather_each_microbatch(const sizing_job *job,
					const sizing_layout *lay);

/* Collectives the data-parallel gradient reduction of grad_bytes
 * (wire_b bytes a parameter, layers on the stage) is issued in, each
 * paying its ring's latency: the framework's default buckets (Megatron
 * max(40M, 1M x dp) parameters, DeepSpeed 5e8 elements, DDP 25 MiB)
 * or, under FSDP ZeRO-2/3, one per wrapped layer. */
double framework_dp_buckets(const sizing_job *job, const sizing_layout *lay,
			    double grad_bytes, double wire_b, double layers);

/* 1 when job's data-parallel gradient reduction (and a sharded
 * optimizer's parameter gather) runs under its backward (forward) pass;
 * 0 under DeepSpeed's pipeline engine, which turns the backward hooks'
 * all-reduce off and reduces after the pipeline flushes, before the
 * optimizer step (deepspeed/runtime/pipe/engine.py: "We schedule the
 * all-reduces", _exec_reduce_grads). */
int framework_dp_overlaps(const sizing_job *job, const sizing_layout *lay);

/* Ways the key/value heads are split by tp x cp (ulysses: cp is
 * DeepSpeed-Ulysses' head split, else cp splits the sequence): the
 * heads held by one rank are kv_heads / that, at least one; where tp (or
 * Ulysses' tp x cp) exceeds the key/value heads, each head is
 * replicated on tp / kv_heads ranks (Megatron-style GQA/MQA, as the
 * BigCode Megatron-LM fork ran StarCoder's one key/value head at TP 4). */
int framework_kv_split(const sizing_job *job, const sizing_layout *lay);

/* 1 when cp means DeepSpeed-Ulysses (all-to-all over attention heads)
 * for framework f rather than ring attention (Megatron, FSDP2). */
int framework_cp_ulysses(autosize_framework f);

/* 1 when the heads of job's model allow tensor parallelism tp with
 * (Ulysses) sequence parallelism cp: tp x cp divides the attention heads
 * under Ulysses, tp alone otherwise, and the key/value heads either
 * split evenly or are replicated (framework_kv_split). */
int framework_heads_ok(const sizing_job *job, int tp, int cp);

/* 1 when --moe-overlap (requested: 1) applies to a layout of framework
 * f with expert parallelism ep: Megatron-Core's
 * --overlap-moe-expert-parallel-comm needs interleaving with a pipeline
 * and no full recomputation (transformer_config.py); no other framework
 * offers it. perf.c prices it and launch.c asks for it by this one
 * test. */
int framework_moe_overlap_ok(int requested, autosize_framework f, int ep,
			     int pp, int vp, autosize_recompute rc);

/* Micro-batches an interleaved schedule of framework f runs at a time on
 * a virtual stage, with pp stages of vp virtual stages each and m
 * micro-batches per step; 0 when it cannot run them. Megatron
 * (schedules.py): a group size G in [pp, m], m % G zero or at least pp,
 * pp by default (--microbatch-group-size-per-virtual-pipeline-stage):
 * the smallest such G. torch's Interleaved1F1B (FSDP): rounds of
 * max(1, m / pp), so m / rounds when that divides m. A rank warms up
 * (vp - 1) x G + 2 (pp - rank - 1) chunk passes (memory.c). Without
 * interleaving: pp. */
int framework_vp_group(autosize_framework f, int pp, int vp, int m);

/* 1 when "selective" recomputation means torchtitan's op-level selective
 * checkpointing (FSDP, a dense transformer of known shape, not PEFT):
 * each block keeps its input and the outputs of its matmuls and of the
 * attention kernel, except every second matmul, which it recomputes
 * (torchtitan parallelize_llama.py, selective_ac_option "op": _save_list
 * and the mm count). In a Llama block the recomputed ones are wk, wo and
 * w3 (or a GELU MLP's second matmul). */
int framework_op_sac(const sizing_job *job);

/* f with DEFAULT resolved to the built-in default. */
autosize_framework framework_resolve(autosize_framework f);

/* Bytes per full-training parameter of job's framework, precision and
 * optimizer. */
void framework_state_bytes(const sizing_job *job, framework_state *st);

/* Optimizer moment bytes per trained parameter (AdamW m and v, 8-bit
 * Adam, SGD momentum), without any master copy. */
double framework_moment_bytes(autosize_optimizer o);

/* Extra bytes per GPU the framework allocates for communication on top
 * of the model states (gathered layers, gradient buckets);
 * layer_params_per_gpu: one layer's parameters on this GPU (after TP). */
double framework_buffer_bytes(const sizing_job *job,
			      const sizing_layout *lay,
			      double layer_params_per_gpu,
			      double params_per_gpu);

/* ZeRO stages the framework can run for lay's shape, lowest first, into
 * out[4]; returns how many. */
int framework_zero_stages(const sizing_job *job, const sizing_layout *lay,
			  int *out);

/* 1 when the framework can run lay (dimensions and ZeRO stage). */
int framework_layout_ok(const sizing_job *job, const sizing_layout *lay);

/* The pins of a request as a layout for framework_pins_ok: unpinned
 * dimensions 1, an unpinned ZeRO stage -1, a pinned --recompute-layers
 * count as full recomputation of that many layers. */
void framework_pins_layout(const autosize_request *r, sizing_layout *lay);

/* 1 when framework f, with job's training mode and stack, runs the
 * pinned layout pins (framework_pins_layout). */
int framework_pins_ok(const sizing_job *job, autosize_framework f,
		      const sizing_layout *pins);

#endif
