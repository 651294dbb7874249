/*
 * autosize: training framework profiles. Each framework runs its own set
 * of layouts and stores model states its own way; the memory model
 * (memory.c), the step time (perf.c) and the search ask here instead of
 * guessing the framework from the layout.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "framework_private.h"

/* 16-bit values (bf16/fp16 weights, activations on the wire). */
#define FRAMEWORK_HALF_B 2.0
/* fp32 values (master weights, main gradients, Adam moments). */
#define FRAMEWORK_FP32_B 4.0
/* NF4 with double quantization, bytes per weight (QLoRA paper section
 * 3: 4.127 bits). */
#define FRAMEWORK_NF4_B (4.127 / 8.0)
/* DeepSpeed ZeRO-1/2 default reduce and all-gather buckets, elements
 * each (DeepSpeed config docs: reduce_bucket_size and
 * allgather_bucket_size default 5e8), held in 16 bits. */
#define FRAMEWORK_DS_BUCKET_ELEMS 5e8
/* Megatron-Core's default gradient bucket: max(40M, 1M x the size of the
 * data-parallel group, context parallelism left out) parameters,
 * "larger DP sizes need larger buckets to ensure collectives do not
 * become latency-bound" (megatron/core/distributed/
 * distributed_data_parallel_config.py, bucket_size;
 * distributed_data_parallel.py sets it from the dp group, which
 * process_groups_config.py takes with_context_parallel=False). */
#define FRAMEWORK_MEG_BUCKET_PARAMS 40e6
#define FRAMEWORK_MEG_BUCKET_PARAMS_PER_RANK 1e6
/* PyTorch DDP's default gradient bucket (DistributedDataParallel
 * bucket_cap_mb=25). */
#define FRAMEWORK_DDP_BUCKET_BYTES (25.0 * 1024 * 1024)
/* Layers whose parameters are gathered at once under ZeRO-3 / FSDP: the
 * one running and the one prefetched (FSDP2 implicit prefetch, DeepSpeed
 * stage3_prefetch_bucket_size). */
#define FRAMEWORK_GATHERED_LAYERS 2.0

/* In enum order; a field left out is 0 (not offered). */
static const framework_profile framework_profiles[] = {
	/* Megatron-LM: TP/PP/VP/CP/EP; its distributed optimizer shards
	 * the optimizer state (ZeRO-1 like; dist_optimizer.md), and
	 * Megatron-FSDP (Megatron-Core 0.14+, --use-megatron-fsdp
	 * optim_grads_params) shards parameters too (ZeRO-3) with TP, CP
	 * and EP but no pipeline (Megatron Core user guide, Megatron
	 * FSDP). Its alltoall dispatcher syncs with the host every MoE
	 * layer and the grouped expert MLP issues its experts one by one
	 * (Megatron Core MoE report, arXiv:2603.07685, section 4.3). Its
	 * parameters stay on the GPU. Its block method recomputes the
	 * first --recompute-num-layers of each (virtual) stage in full
	 * and keeps the rest (arguments.py, --recompute-method). */
	{.id = AUTOSIZE_FRAMEWORK_MEGATRON, .tp_ok = 1, .pp_ok = 1,
	 .vp_ok = 1, .cp_ok = 1, .ep_ok = 1, .zero_max = 3,
	 .zero_max_pp = 1, .zero_skip_2 = 1, .ep_zero_max = 3,
	 .block_recompute = 1, .expert_issue = 1, .searched = 1},
	/* PyTorch FSDP2 as in torchtitan: FULL_SHARD (ZeRO-3), or
	 * reshard_after_forward=False (ZeRO-2 like), or plain DDP; 2-D/3-D
	 * with TP, PP (incl. interleaved schedules), CP and EP
	 * (torchtitan docs, composability and fsdp.md); its MoE runs all
	 * local experts in one grouped GEMM (torch._grouped_mm) with the
	 * token counts on the device. CPU offload of the parameter
	 * shards (CPUOffloadPolicy). */
	{.id = AUTOSIZE_FRAMEWORK_FSDP, .tp_ok = 1, .pp_ok = 1, .vp_ok = 1,
	 .cp_ok = 1, .ep_ok = 1, .zero_max = 3, .zero_max_pp = 3,
	 .zero_skip_1 = 1, .ep_zero_max = 3, .param_offload = 1,
	 .searched = 1},
	/* DeepSpeed: ZeRO 0-3; TP/PP only through Megatron-DeepSpeed, whose
	 * pipeline engine runs ZeRO-1 at most (DeepSpeed pipeline docs);
	 * DeepSpeed-Ulysses sequence parallelism (sequence_parallel_size:
	 * an all-to-all over the attention heads, arXiv:2309.14509; the
	 * Hugging Face integration ALST, arXiv:2506.13996, runs it with
	 * ZeRO-3); DeepSpeed-MoE expert parallelism (a module per local
	 * expert, called in turn), but not under ZeRO-3 ("Native DeepSpeed
	 * MoE is not supported with ZeRO Stage 3": runtime/engine.py,
	 * _validate_zero3_moe_compatibility; only its newer AutoEP layers
	 * run there); no interleaving. */
	{.id = AUTOSIZE_FRAMEWORK_DEEPSPEED, .tp_ok = 1, .pp_ok = 1,
	 .cp_ok = 1, .ep_ok = 1, .zero_max = 3, .zero_max_pp = 1,
	 .ep_zero_max = 2, .param_offload = 1, .expert_issue = 1,
	 .searched = 1},
};

#define FRAMEWORK_N (sizeof(framework_profiles) / \
		     sizeof(framework_profiles[0]))
_Static_assert(FRAMEWORK_N == AUTOSIZE_FRAMEWORK_DEEPSPEED -
	       AUTOSIZE_FRAMEWORK_MEGATRON + 1,
	       "a profile per framework, in enum order");

autosize_framework framework_resolve(autosize_framework f)
{
	if (f < AUTOSIZE_FRAMEWORK_MEGATRON || f > AUTOSIZE_FRAMEWORK_DEEPSPEED)
		return AUTOSIZE_FRAMEWORK_BUILTIN;
	return f;
}

const framework_profile *framework_profile_get(autosize_framework f)
{
	return &framework_profiles[framework_resolve(f) -
				   AUTOSIZE_FRAMEWORK_MEGATRON];
}

int framework_peft(const sizing_job *job)
{
	return job->train_mode == AUTOSIZE_TRAIN_LORA ||
	       job->train_mode == AUTOSIZE_TRAIN_QLORA;
}

int framework_torch_native(const sizing_job *job)
{
	return framework_resolve(job->framework) != AUTOSIZE_FRAMEWORK_MEGATRON;
}

int framework_torch_kernels(const sizing_job *job)
{
	return framework_torch_native(job) &&
	       !(job->stack && job->stack->te_kernels);
}

/* 1 when job runs under PyTorch FSDP (its data-parallel rules below). */
static int framework_is_fsdp(const sizing_job *job)
{
	return framework_resolve(job->framework) == AUTOSIZE_FRAMEWORK_FSDP;
}

int sizing_etp(const sizing_job *job, const sizing_layout *lay)
{
	if (lay->etp_one)
		return 1;
	if (SIZING_EP(lay) <= 1)
		return lay->tp;
	if (framework_is_fsdp(job))
		return 1;
	return (lay->dp * SIZING_CP(lay)) % SIZING_EP(lay) == 0 ? lay->tp : 1;
}

int framework_megatron_fp8(const sizing_job *job)
{
	return (job->precision == AUTOSIZE_PREC_FP8 ||
		job->precision == AUTOSIZE_PREC_NVFP4) &&
	       framework_resolve(job->framework) == AUTOSIZE_FRAMEWORK_MEGATRON;
}

int framework_fsdp_step_sync(const sizing_job *job, const sizing_layout *lay)
{
	return lay->zero_stage >= 2 && lay->pp > 1 && framework_is_fsdp(job);
}

int framework_fsdp_grads_held(const sizing_job *job, const sizing_layout *lay)
{
	/* one data-parallel rank has nothing to reduce (accelerate's
	 * no_sync is a null context without distribution) */
	if ((double)lay->dp * SIZING_CP(lay) <= 1)
		return 0;
	if (framework_fsdp_step_sync(job, lay))
		return 1;
	return job->stack && job->stack->accum_no_sync &&
	       lay->grad_accum > 1 && lay->zero_stage >= 2 &&
	       framework_is_fsdp(job);
}

int framework_gathers_experts(const sizing_job *job, const sizing_layout *lay)
{
	autosize_framework f = framework_resolve(job->framework);

	if (job->model->experts <= 1 || SIZING_EP(lay) > 1 ||
	    framework_peft(job) || (double)lay->dp * SIZING_CP(lay) <= 1)
		return 0;
	/* FSDP gathers at ZeRO-2 too (reshard_after_forward off);
	 * DeepSpeed and Megatron-FSDP at ZeRO-3 */
	return lay->zero_stage >= 3 ||
	       (f == AUTOSIZE_FRAMEWORK_FSDP && lay->zero_stage >= 2);
}

int framework_dp_reduce_each_microbatch(const sizing_job *job,
					const sizing_layout *lay)
{
	if (lay->zero_stage != 2)
		return 0;
	/* FSDP's ZeRO-2 (reshard_after_forward off) reduce-scatters in
	 * every backward unless gradient sync is off (a pipeline, a
	 * no_sync stack) */
	return framework_resolve(job->framework) ==
	       AUTOSIZE_FRAMEWORK_DEEPSPEED ||
	       (framework_is_fsdp(job) && !framework_fsdp_grads_held(job, lay));
}

int framework_dp_gather_each_microbatch(const sizing_job *job,
					const sizing_layout *lay)
{
	return lay->zero_stage == 2 && !framework_fsdp_step_sync(job, lay) &&
	       framework_is_fsdp(job);
}

double framework_dp_buckets(const sizing_job *job, const sizing_layout *lay,
			    double grad_bytes, double wire_b, double layers)
{
	double per_b;

	if (!(grad_bytes > 0) || !(wire_b > 0))
		return 0;
	switch (framework_resolve(job->framework)) {
	case AUTOSIZE_FRAMEWORK_MEGATRON: {
		double d = lay->dp;

		per_b = wire_b * (d * FRAMEWORK_MEG_BUCKET_PARAMS_PER_RANK >
				  FRAMEWORK_MEG_BUCKET_PARAMS
				  ? d * FRAMEWORK_MEG_BUCKET_PARAMS_PER_RANK
				  : FRAMEWORK_MEG_BUCKET_PARAMS);
		break;
	}
	case AUTOSIZE_FRAMEWORK_DEEPSPEED:
		per_b = wire_b * FRAMEWORK_DS_BUCKET_ELEMS;
		break;
	default:
		/* FSDP reduces (and gathers) one wrapped unit at a time,
		 * a transformer block each (torchtitan, accelerate's
		 * transformer-layer wrap); plain DDP in its buckets */
		if (lay->zero_stage >= 2 && layers >= 1)
			return ceil(layers);
		per_b = FRAMEWORK_DDP_BUCKET_BYTES;
		break;
	}
	return ceil(grad_bytes / per_b);
}

int framework_dp_overlaps(const sizing_job *job, const sizing_layout *lay)
{
	return !(lay->pp > 1 && framework_resolve(job->framework) ==
				AUTOSIZE_FRAMEWORK_DEEPSPEED);
}

int framework_cp_ulysses(autosize_framework f)
{
	return framework_resolve(f) == AUTOSIZE_FRAMEWORK_DEEPSPEED;
}

int framework_kv_split(const sizing_job *job, const sizing_layout *lay)
{
	int kv = job->model->kv_heads > 0 ? job->model->kv_heads
					  : job->model->heads;
	int ways = lay->tp;

	if (framework_cp_ulysses(job->framework))
		ways *= SIZING_CP(lay);
	return ways < kv ? ways : kv;
}

int framework_heads_ok(const sizing_job *job, int tp, int cp)
{
	const autosize_model *m = job->model;
	int kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
	int ways = tp * (framework_cp_ulysses(job->framework) && cp > 1
			 ? cp : 1);

	/* a hybrid's Mamba mixers under context parallelism: Megatron-Core
	 * exchanges their heads over the CP group (an all-to-all, not
	 * DeepSpeed's): the heads of a TP rank split cp ways, its groups
	 * split or replicated (ssm/mamba_context_parallel.py) */
	if (m->mamba_layers > 0 && cp > 1) {
		int g = tp > 0 ? m->mamba_groups / tp : 0;

		if (framework_cp_ulysses(job->framework) || tp < 1 ||
		    m->mamba_heads % (tp * cp) || g < 1 ||
		    (g % cp && cp % g))
			return 0;
	}
	if (ways <= 1)
		return 1;
	if (m->heads <= 0 || m->heads % ways)
		return 0;
	/* Megatron-Core's MambaMixer splits its heads and its B/C groups
	 * tensor-parallel ways ("ngroups must be divisible by tp"): whole
	 * groups a rank */
	if (m->mamba_layers > 0 && tp > 1 &&
	    (m->mamba_heads % tp || m->mamba_groups % tp))
		return 0;
	return kv % ways == 0 || ways % kv == 0;
}

int framework_moe_overlap_ok(int requested, autosize_framework f, int ep,
			     int pp, int vp, autosize_recompute rc)
{
	return requested == 1 && ep > 1 &&
	       framework_resolve(f) == AUTOSIZE_FRAMEWORK_MEGATRON &&
	       (pp <= 1 || vp > 1) && rc != AUTOSIZE_RECOMPUTE_FULL;
}

int framework_vp_group(autosize_framework f, int pp, int vp, int m)
{
	int g, rounds;

	if (pp <= 1 || vp <= 1)
		return pp > 1 ? pp : 1;
	if (m < pp)
		return 0;
	switch (framework_resolve(f)) {
	case AUTOSIZE_FRAMEWORK_MEGATRON:
		/* ends by g = m (m % m == 0); past m / 2, m % g = m - g,
		 * at least pp while g <= m - pp */
		for (g = pp; g <= m; g++)
			if (m % g == 0 || m % g >= pp)
				return g;
		return m;
	case AUTOSIZE_FRAMEWORK_FSDP:
		rounds = m / pp;
		return m % rounds ? 0 : m / rounds;
	default:
		return 0;
	}
}

int framework_op_sac(const sizing_job *job)
{
	return framework_is_fsdp(job) &&
	       !framework_peft(job) && !job->param_offload &&
	       !(job->stack && job->stack->splits != PERFDATA_SPLITS_ALL) &&
	       job->model->experts <= 1 && job->model->kv_lora_rank == 0 &&
	       !job->model->arch_synthetic;
}

/* No model split at all: data parallel (+ ZeRO/FSDP sharding) only. */
static void framework_dp_narrow(framework_profile *fp, int why)
{
	fp->tp_ok = fp->pp_ok = fp->vp_ok = fp->cp_ok = fp->ep_ok = 0;
	fp->why = why;
}

const framework_profile *framework_profile_job(const sizing_job *job,
					       framework_profile *buf)
{
	const perfdata_stack *st = job->stack;
	autosize_framework f = framework_resolve(job->framework);

	*buf = *framework_profile_get(f);
	/* Megatron-Core cuts a hybrid's layer pattern into pipeline stages
	 * by position, without virtual stages unless the pattern carries
	 * '|' marks, which no plan writes (hybrid_layer_allocation.py
	 * select_pipeline_segment) */
	if (job->model->mamba_layers > 0)
		buf->vp_ok = 0;
	if (st && st->expert_loop)
		buf->expert_issue = 1;   /* MoE blocks that loop over their
					  * experts in Python */
	if (st && st->grouped_experts)
		buf->expert_issue = 0;   /* the model's own grouped GEMM,
					  * not DeepSpeed-MoE's modules */
	/* offloaded parameters leave from data-parallel ZeRO-3 shards:
	 * FSDP CPU offload and DeepSpeed offload_param as the HF,
	 * accelerate and torchtune launchers run them (launch_dp.c) */
	if (job->param_offload) {
		framework_dp_narrow(buf, FRAMEWORK_WHY_OFFLOAD);
		return buf;
	}
	if (st && st->splits == PERFDATA_SPLITS_NONE) {
		framework_dp_narrow(buf, FRAMEWORK_WHY_STACK);
		return buf;
	}
	if (st && st->splits == PERFDATA_SPLITS_PINNED) {
		/* accelerate's ParallelismConfig (1.10+): tp_size with
		 * FSDP2, cp_size (ring attention, FSDP2), sp_size
		 * (DeepSpeed-Ulysses); no pipeline or expert split */
		buf->pp_ok = buf->vp_ok = buf->ep_ok = 0;
		buf->searched = 0;
		buf->why = FRAMEWORK_WHY_STACK;
	}
	/* adapters under FSDP2 split the model where the request pins it
	 * (torchtitan-style FSDP2 + TP, NeMo AutoModel's LoRA recipes at
	 * TP 2, PP 4); the search keeps to the data parallelism the PEFT
	 * stacks default to */
	if (framework_peft(job) && f == AUTOSIZE_FRAMEWORK_FSDP)
		buf->searched = 0;
	if (framework_peft(job) && f == AUTOSIZE_FRAMEWORK_DEEPSPEED) {
		buf->tp_ok = buf->pp_ok = buf->vp_ok = buf->ep_ok = 0;
		buf->why = FRAMEWORK_WHY_PEFT_DS;
	}
	if (job->train_mode == AUTOSIZE_TRAIN_QLORA &&
	    f == AUTOSIZE_FRAMEWORK_MEGATRON) {
		/* NeMo qlora.py: NF4 wrappers of TE's parallel linears,
		 * "Tensor Parallel is not supported" */
		buf->tp_ok = 0;
		buf->why = FRAMEWORK_WHY_QLORA_MEG;
	}
	return buf;
}

/* Optimizer moments per parameter: fp32 m and v for AdamW, 8-bit m and
 * v (Dettmers et al. 2021), fp32 momentum for SGD. */
double framework_moment_bytes(autosize_optimizer o)
{
	if (o == AUTOSIZE_OPT_ADAMW_8BIT)
		return 2;
	if (o == AUTOSIZE_OPT_SGD)
		return FRAMEWORK_FP32_B;
	return 2 * FRAMEWORK_FP32_B;
}

static void framework_state_compute(const sizing_job *job,
				    framework_state *st);

void framework_state_bytes(const sizing_job *job, framework_state *st)
{
	if (job->prepared)
		*st = job->fw;
	else
		framework_state_compute(job, st);
}

/* Bytes per parameter of the framework's own precisions, before a stated
 * reduction precision. */
static void framework_state_native(const sizing_job *job,
				   framework_state *st)
{
	double moments = framework_moment_bytes(job->optimizer);
	int fp16 = job->precision == AUTOSIZE_PREC_FP16;

	if (job->stack && job->stack->bf16_states) {
		/* torchtune, NeMo AutoModel: the model is built in bf16 and
		 * Adam(W) keeps its moments in the parameters' dtype: 2 + 2
		 * + moments / 2, no fp32 master copy */
		st->weight_b = FRAMEWORK_HALF_B;
		st->grad_b = FRAMEWORK_HALF_B;
		st->opt_b = moments / 2;
		st->copy_b = 0;
		st->weight_shard_stage = 3;
		st->grad_wire_b = FRAMEWORK_HALF_B;
		st->param_wire_b = FRAMEWORK_HALF_B;
		return;
	}
	st->copy_b = 0;
	st->weight_shard_stage = 3;
	st->param_wire_b = FRAMEWORK_HALF_B;
	switch (framework_resolve(job->framework)) {
	case AUTOSIZE_FRAMEWORK_FSDP:
		/* FSDP2 mixed precision (torchtitan defaults): sharded fp32
		 * parameters are the master copy, gathered and computed in
		 * bf16, gradients reduce-scattered and kept in fp32
		 * (MixedPrecisionPolicy reduce_dtype=float32). */
		st->weight_b = FRAMEWORK_FP32_B;
		st->grad_b = FRAMEWORK_FP32_B;
		st->opt_b = moments;
		st->copy_b = FRAMEWORK_HALF_B;
		st->weight_shard_stage = 2;
		st->grad_wire_b = FRAMEWORK_FP32_B;
		break;
	case AUTOSIZE_FRAMEWORK_DEEPSPEED:
		/* ZeRO paper (Rajbhandari et al. 2020) section 3.1: 2 + 2 +
		 * K, K = 12 for mixed-precision Adam (fp32 master, m, v). */
		st->weight_b = FRAMEWORK_HALF_B;
		st->grad_b = FRAMEWORK_HALF_B;
		st->opt_b = FRAMEWORK_FP32_B + moments;
		st->grad_wire_b = FRAMEWORK_HALF_B;
		break;
	default:
		/* Megatron-LM (dist_optimizer.md): bf16 parameters, fp32
		 * main gradients, fp32 master + moments: 2 + 4 + 12 = 18,
		 * 6 + 12/d with the distributed optimizer; fp16 keeps fp16
		 * gradients and an fp32 copy in the optimizer: 2 + 2 + 16.
		 * bf16 gradients are all-reduced in fp32
		 * (accumulate_allreduce_grads_in_fp32). */
		st->weight_b = FRAMEWORK_HALF_B;
		st->grad_b = fp16 ? FRAMEWORK_HALF_B : FRAMEWORK_FP32_B;
		st->opt_b = FRAMEWORK_FP32_B + moments +
			    (fp16 ? FRAMEWORK_FP32_B : 0);
		st->grad_wire_b = fp16 ? FRAMEWORK_HALF_B : FRAMEWORK_FP32_B;
		/* FP8 (NVFP4) parameters, as the launch line keeps them
		 * with the distributed optimizer (--fp8-param-gather,
		 * --fp4-param-gather): gathered in FP8, or 4 bits with an
		 * FP8 scale a 16-element block */
		if (job->precision == AUTOSIZE_PREC_FP8)
			st->param_wire_b = 1.0;
		else if (job->precision == AUTOSIZE_PREC_NVFP4)
			st->param_wire_b = 0.5 + 1.0 / 16;
		break;
	}
}

static void framework_state_compute(const sizing_job *job,
				    framework_state *st)
{
	int fp16 = job->precision == AUTOSIZE_PREC_FP16;

	framework_state_native(job, st);
	if (job->grad_reduce_b <= 0)
		return;
	/* a stated reduction precision (with bf16 states too: FSDP2's
	 * reduce_dtype is not the parameters' dtype): on the wire, and
	 * Megatron's gradient buffer is kept in it (megatron-core DDP: the
	 * buffer is fp32 only with grad_reduce_in_fp32; NeMo
	 * grad_sync_dtype bf16, Megatron-LM --grad-reduce-in-bf16); FSDP
	 * and DeepSpeed cast the reduced shard back to their own gradient
	 * precision */
	st->grad_wire_b = job->grad_reduce_b;
	if (framework_resolve(job->framework) == AUTOSIZE_FRAMEWORK_MEGATRON &&
	    !fp16)
		st->grad_b = job->grad_reduce_b;
}

double framework_buffer_bytes(const sizing_job *job, const sizing_layout *lay,
			      double layer_params_per_gpu,
			      double params_per_gpu)
{
	autosize_framework f = framework_resolve(job->framework);
	double bucket;

	/* nothing sharded on one GPU, except ZeRO-3 there (--param-offload:
	 * its layers come in from host memory as they would from peers) */
	if (lay->dp <= 1 && lay->zero_stage < 3)
		return 0;
	if (lay->zero_stage >= 3) {
		/* gathered layers as stored (16-bit; 4-bit NF4 with its
		 * constants under QLoRA: bitsandbytes Params4bit and
		 * torchao NF4Tensor shard and gather the packed data), and
		 * under FSDP one layer's unsharded gradients before the
		 * reduce-scatter (bf16 computed, fp32 reduced) of what is
		 * trained: the adapters alone under LoRA, whose frozen
		 * base has no gradients (requires_grad False) */
		int peft = job->train_mode == AUTOSIZE_TRAIN_LORA ||
			   job->train_mode == AUTOSIZE_TRAIN_QLORA;
		double b = FRAMEWORK_GATHERED_LAYERS *
			   (job->train_mode == AUTOSIZE_TRAIN_QLORA
			    ? FRAMEWORK_NF4_B : FRAMEWORK_HALF_B) *
			   layer_params_per_gpu;

		if (f == AUTOSIZE_FRAMEWORK_FSDP)
			b += (FRAMEWORK_HALF_B + FRAMEWORK_FP32_B) *
			     (peft ? params_per_gpu / job->model->layers
				   : layer_params_per_gpu);
		return b;
	}
	if (f == AUTOSIZE_FRAMEWORK_DEEPSPEED && lay->zero_stage >= 1) {
		/* one reduce and one all-gather bucket, never larger than
		 * the model share itself */
		bucket = FRAMEWORK_DS_BUCKET_ELEMS < params_per_gpu
			 ? FRAMEWORK_DS_BUCKET_ELEMS : params_per_gpu;
		return 2 * FRAMEWORK_HALF_B * bucket;
	}
	return 0;
}

static int framework_dims_ok(const framework_profile *fp,
			     const sizing_layout *lay)
{
	if (lay->tp > 1 && !fp->tp_ok)
		return 0;
	if (lay->pp > 1 && !fp->pp_ok)
		return 0;
	if (lay->vp > 1 && !fp->vp_ok)
		return 0;
	if (lay->cp > 1 && !fp->cp_ok)
		return 0;
	if (lay->ep > 1 && !fp->ep_ok)
		return 0;
	/* DeepSpeed-MoE: expert groups within the data-parallel ranks */
	if (lay->ep > 1 && fp->id == AUTOSIZE_FRAMEWORK_DEEPSPEED &&
	    lay->dp % lay->ep)
		return 0;
	return 1;
}

int framework_stage_ok(const framework_profile *fp, int z)
{
	return z >= 0 && z <= fp->zero_max && !(z == 1 && fp->zero_skip_1) &&
	       !(z == 2 && fp->zero_skip_2);
}

static int framework_zero_ok(const framework_profile *fp,
			     const sizing_layout *lay, int z)
{
	return framework_stage_ok(fp, z) &&
	       !(lay->pp > 1 && z > fp->zero_max_pp) &&
	       !framework_ep_zero_refused(fp->id, lay->ep, z);
}

int framework_ep_zero_refused(autosize_framework f, int ep, int z)
{
	return ep > 1 && z > framework_profile_get(f)->ep_zero_max;
}

/* 1 when fp offers cap (framework_offering). */
static int framework_has(const framework_profile *fp, framework_cap cap,
			 int arg)
{
	switch (cap) {
	case FRAMEWORK_CAP_TP:
		return fp->tp_ok;
	case FRAMEWORK_CAP_PP:
		return fp->pp_ok;
	case FRAMEWORK_CAP_VP:
		return fp->vp_ok;
	case FRAMEWORK_CAP_CP:
		return fp->cp_ok;
	case FRAMEWORK_CAP_EP:
		return fp->ep_ok;
	case FRAMEWORK_CAP_PARAM_OFFLOAD:
		return fp->param_offload;
	case FRAMEWORK_CAP_ZERO:
		return framework_stage_ok(fp, arg);
	case FRAMEWORK_CAP_EP_ZERO:
		return fp->ep_ok && arg <= fp->ep_zero_max;
	}
	return 0;
}

const char *framework_offering(framework_cap cap, int arg, char *buf,
			       size_t len)
{
	const char *names[FRAMEWORK_N];
	size_t i, n = 0, at = 0;

	for (i = 0; i < FRAMEWORK_N; i++)
		if (framework_has(&framework_profiles[i], cap, arg))
			names[n++] = autosize_framework_names[
				framework_profiles[i].id -
				AUTOSIZE_FRAMEWORK_MEGATRON];
	buf[0] = '\0';
	for (i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       i == 0 ? "" : i + 1 < n ? ", " : " or ",
				       names[i]);
	return buf;
}

/* --optimizer-offload under Megatron: its distributed optimizer's
 * HybridDeviceOptimizer steps on the CPU (--optimizer-cpu-offload,
 * which validate_args ties to --use-precision-aware-optimizer, and that
 * to the distributed optimizer: optimizer/__init__.py), so a ZeRO-1
 * layout, one rank included; Megatron-FSDP (ZeRO-3) is not offered with
 * it ("MFSDP v2 does not currently support optimizer CPU offload"). */
static int framework_megatron_offload(const sizing_job *job,
				      const framework_profile *fp)
{
	return job->opt_offload && !job->param_offload &&
	       fp->id == AUTOSIZE_FRAMEWORK_MEGATRON;
}

int framework_zero_stages(const sizing_job *job, const sizing_layout *lay,
			  int *out)
{
	framework_profile buf;
	const framework_profile *fp = framework_profile_job(job, &buf);
	int n = 0, z;

	/* the states shard over the data-parallel ranks of every context-
	 * parallel rank: Megatron's distributed optimizer over the DP x CP
	 * group, FSDP's mesh over dp_shard x cp, DeepSpeed over its
	 * sequence-data-parallel group under Ulysses */
	if (lay->dp * SIZING_CP(lay) <= 1) {
		/* nothing to shard over, but offloaded parameters leave
		 * from ZeRO-3 even on one GPU (FSDP CPU offload, DeepSpeed
		 * offload_param), and DeepSpeed offloads its optimizer from
		 * ZeRO-1 up only (config-json.md offload_optimizer; its
		 * ZeRO-Offload tutorial runs stage 2 on one GPU), where
		 * FSDP's paged optimizers need no ZeRO; Megatron's FP8 and
		 * NVFP4 parameters (--fp8-param-gather) come with its
		 * distributed optimizer, over one rank too, sparing
		 * Transformer Engine's 16-bit weights' FP8 cache
		 * (memory.c) */
		if (job->param_offload && framework_zero_ok(fp, lay, 3))
			out[n++] = 3;
		else if (job->opt_offload && fp->id ==
			 AUTOSIZE_FRAMEWORK_DEEPSPEED &&
			 framework_zero_ok(fp, lay, 2))
			out[n++] = 2;
		else if ((framework_megatron_offload(job, fp) ||
			  framework_megatron_fp8(job)) &&
			 framework_zero_ok(fp, lay, 1))
			out[n++] = 1;
		else
			out[n++] = 0;
		return n;
	}
	/* Sharding costs no extra traffic up to ZeRO-2 (reduce-scatter +
	 * all-gather = all-reduce, ZeRO paper section 7), so plain
	 * replication (0) is never worth searching over dp > 1; offloaded
	 * parameters leave from ZeRO-3 shards only. */
	for (z = 1; z <= 3; z++)
		if (framework_zero_ok(fp, lay, z) &&
		    (!job->param_offload || z == 3) &&
		    !(z == 3 && framework_megatron_offload(job, fp)))
			out[n++] = z;
	return n;
}

int framework_layout_ok(const sizing_job *job, const sizing_layout *lay)
{
	framework_profile buf;
	const framework_profile *fp = framework_profile_job(job, &buf);

	return framework_dims_ok(fp, lay) &&
	       framework_zero_ok(fp, lay, lay->zero_stage);
}

void framework_pins_layout(const autosize_request *r, sizing_layout *lay)
{
	memset(lay, 0, sizeof(*lay));
	lay->tp = r->tp != AUTOSIZE_UNSET && r->tp > 1 ? r->tp : 1;
	lay->pp = r->pp != AUTOSIZE_UNSET && r->pp > 1 ? r->pp : 1;
	lay->vp = r->interleave != AUTOSIZE_UNSET && r->interleave > 1
		  ? r->interleave : 1;
	lay->cp = r->cp != AUTOSIZE_UNSET && r->cp > 1 ? r->cp : 1;
	lay->ep = r->ep != AUTOSIZE_UNSET && r->ep > 1 ? r->ep : 1;
	/* dp is left to the search: any multiple of ep works for it */
	lay->dp = lay->ep;
	lay->zero_stage = r->zero_stage != AUTOSIZE_UNSET ? r->zero_stage
							  : -1;
	/* a flag here: only Megatron's block method runs a count */
	if (r->recompute_layers != AUTOSIZE_UNSET) {
		lay->recompute = AUTOSIZE_RECOMPUTE_FULL;
		lay->recompute_layers = r->recompute_layers;
	}
}

int framework_pins_ok(const sizing_job *job, autosize_framework f,
		      const sizing_layout *pins)
{
	sizing_job j = *job;
	framework_profile buf;
	const framework_profile *fp;

	j.framework = f;
	fp = framework_profile_job(&j, &buf);
	if (!framework_dims_ok(fp, pins) ||
	    !framework_heads_ok(&j, pins->tp, SIZING_CP(pins)) ||
	    (pins->recompute_layers > 0 && !fp->block_recompute))
		return 0;
	return pins->zero_stage < 0 ||
	       framework_zero_ok(fp, pins, pins->zero_stage);
}
