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
	int expert_issue;  /* 1: the host issues each local expert's MoE
			    * kernels one at a time after a host sync
			    * (perf.c PERF_MOE_EXPERT_HOST_S) */
} framework_profile;


/* 1 when the profile runs ZeRO stage z at all (with some layout). */
int framework_stage_ok(const framework_profile *fp, int z);
/* 1 when framework f refuses expert parallelism ep with ZeRO stage z
 * (DeepSpeed-MoE under ZeRO-3). */
int framework_ep_zero_refused(autosize_framework f, int ep, int z);

/* The profile of f (DEFAULT: the built-in default). Never NULL. */
const framework_profile *framework_profile_get(autosize_framework f);

/* The profile job runs under: its framework's, narrowed to data
 * parallel (+ ZeRO/FSDP sharding) where the training mode runs on a PEFT
 * stack (QLoRA anywhere, LoRA under FSDP or DeepSpeed). Never NULL. */
const framework_profile *framework_profile_job(const sizing_job *job);

/* 1 when job runs data parallel only (PEFT, above, or a stack that
 * shards by data parallel alone: perf.yaml stacks: dp_only). */
int framework_dp_only(const sizing_job *job);

/* 1 when job runs on a PyTorch-native stack (FSDP, DeepSpeed, or the
 * PEFT stack that QLoRA, and LoRA outside Megatron, run on): no
 * Transformer Engine kernels, F.cross_entropy on fp32 logits. */
int framework_torch_native(const sizing_job *job);

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

#endif
