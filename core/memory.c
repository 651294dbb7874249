/*
 * autosize: memory per GPU for a layout (weights, gradients, optimizer
 * state, activations, other).
 */
#include <math.h>
#include <string.h>
#include "framework_private.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* CUDA context, cuBLAS/cuDNN workspaces: ~0.5-0.8 GiB as reported by
 * nvidia-smi for an idle PyTorch process on A100/H100. */
#define MEMORY_CUDA_CONTEXT_BYTES (0.8 * GIB)
/* NCCL communicator buffers (NCCL_BUFFSIZE 4 MiB x channels x peers),
 * measured ~0.3-0.6 GiB per process on 8-GPU NVSwitch nodes. */
#define MEMORY_NCCL_BYTES (0.5 * GIB)
/* PyTorch caching-allocator slack: what the allocator reserves beyond what
 * the job allocates (block rounding, cached blocks of freed temporaries,
 * split blocks that cannot be reused), as a share of what it allocates.
 * Megatron keeps parameters and gradients in contiguous buffers
 * (megatron/core/distributed/param_and_grad_buffer.py) and fuses its
 * temporaries: 5-10% (torch.cuda.memory_stats reports), 0.07 kept for
 * it. PyTorch-native stacks (FSDP2's per-parameter shards, all-gathered
 * and freed layer by layer; DeepSpeed; Hugging Face's eager temporaries)
 * go through the allocator tensor by tensor: 0.07 underpredicted 20 of
 * the fit half's 24 published peaks, all of them PyTorch-native (median
 * error 13.3%); 0.20 is the argmin of their median |error| (5.0%;
 * tests/validation/README.md; a grid of 0.005-0.01 steps from 0.07 to
 * 0.30, refitted after the rows' pinned pipeline micro-batches).
 *
 * Those peaks are what the allocator holds where the GPU has room. Out
 * of room, it gives its unused cached segments back and retries before
 * it raises out-of-memory (c10/cuda/CUDACachingAllocator.cpp, malloc:
 * release_available_cached_blocks, then release_cached_blocks); what it
 * cannot give back are blocks split inside segments that still hold
 * live tensors. So a PyTorch-native job needs the floor below, and
 * caches up to MEMORY_CACHE_TORCH where memory is free: the plan fits
 * the floor into the usable memory and reports the rest (cache_bytes).
 * The floor: 0.07, the share Megatron's jobs show (above), which
 * the fit half's PyTorch-native runs allow: every one of the 55 fits its
 * GPU with its published layout at 0.07 (the tightest, llm-foundry's
 * MPT-30B at 8K on 8 A100-80GB, up to 0.078; MPT-7B on 8 H100 at
 * micro-batch 6 0.095, torchtitan's Llama 3.1 405B 0.098), where at
 * 0.20 16 of them did not: runs that ran. Left out, the runs that do not
 * fit at 0 (their model states or activations, not the allocator):
 * llm-foundry's MPT-1B on 128 A100-40GB at micro-batch 10, DeepSeek-V3's
 * own run. The allocator's free-and-retry near the limit costs time the
 * step model does not count. */
#define MEMORY_FRAGMENTATION_MEGATRON 0.07
#define MEMORY_FRAGMENTATION_TORCH 0.07
#define MEMORY_CACHE_TORCH 0.20
/* QLoRA NF4 with double quantization: 4.127 bits per base weight
 * (Dettmers et al. 2023, QLoRA, section 3). */
#define MEMORY_NF4_BYTES (4.127 / 8.0)
/* Transformer Engine's FP8 copy of a linear layer's weight and its
 * transpose, kept from a step's first micro-batch to the next step
 * (is_first_microbatch: the weight workspaces of te.Linear and
 * GroupedLinear), one byte each per weight, beside the 16-bit weight.
 * Megatron-Core passes it unless --disable-parameter-transpose-cache
 * (extensions/transformer_engine.py, TELinear.forward). NVFP4's
 * half-byte copies with their block scales are counted at FP8's: an
 * upper bound. */
#define MEMORY_FP8_WEIGHT_CACHE_BYTES 2.0
/* Slots of the per-thread memos of model states (one per ZeRO stage)
 * and activations (one per recomputation setting); a power of two. */
#define MEMORY_MEMO 4

static int memory_is_lora(const sizing_job *job)
{
	return job->train_mode == AUTOSIZE_TRAIN_LORA ||
	       job->train_mode == AUTOSIZE_TRAIN_QLORA;
}

static int memory_layers_per_stage(const sizing_job *job,
				   const sizing_layout *lay)
{
	return sizing_stage_layers(job->model, lay->pp);
}

/* Parameters in one layer, derived from the total so that a model given
 * by its parameter count alone keeps that count exactly. */
static double memory_layer_params(const autosize_model *m)
{
	double p = (m->params - autosize_model_embedding_params(m)) /
		   m->layers;

	return p > 0 ? p : 0;
}

static double memory_layer_params_of(const sizing_job *job)
{
	return job->prepared ? job->layer_params
			     : memory_layer_params(job->model);
}

static double memory_expert_layer_params(const sizing_job *job)
{
	return job->prepared ? job->expert_layer_params
			     : sizing_expert_params_per_layer(job->model);
}

double sizing_expert_params_per_layer(const autosize_model *m)
{
	double mult = m->mlp == AUTOSIZE_MLP_SWIGLU ? 3 : 2;
	int moe_layers = autosize_model_moe_layers(m);

	if (m->experts <= 1 || m->layers <= 0 || moe_layers <= 0)
		return 0;
	/* routed experts of the MoE layers, spread over all layers */
	return (double)moe_layers * m->experts * m->ffn * m->hidden * mult /
	       m->layers;
}

double sizing_expert_params_gpu(const sizing_job *job,
				 const sizing_layout *lay)
{
	double e = memory_expert_layer_params(job), layer;

	if (e <= 0)
		return 0;
	layer = memory_layer_params_of(job);

	if (e > layer)
		e = layer;
	return memory_layers_per_stage(job, lay) * e /
	       ((double)sizing_etp(job, lay) * SIZING_EP(lay));
}

double sizing_kv_replica_params(const sizing_job *job,
				const sizing_layout *lay)
{
	const autosize_model *m = job->model;
	int kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
	int split = lay->tp < kv ? lay->tp : kv;

	if (lay->tp <= 1 || split >= lay->tp || m->kv_lora_rank > 0)
		return 0;
	/* the k and v projections of a layer (hidden x kv width each),
	 * held by tp / kv ranks each instead of split tp ways, averaged
	 * over the blocks (a hybrid's attention blocks hold them) */
	return 2.0 * m->hidden * autosize_model_kv_width(m) *
	       (1.0 / split - 1.0 / lay->tp) *
	       autosize_model_attn_layers(m) / m->layers;
}

double sizing_params_per_gpu(const sizing_job *job, const sizing_layout *lay)
{
	const autosize_model *m = job->model;
	double emb = (double)m->vocab * m->hidden;
	double layers = memory_layers_per_stage(job, lay);
	double p = layers * memory_layer_params_of(job);
	double e = layers * memory_expert_layer_params(job);

	if (e > p)
		e = p;
	p -= e;                    /* routed experts: split over ep too */
	p += emb;                  /* input embedding on the first stage */
	if (lay->pp == 1 && !m->tied_embeddings)
		p += emb;          /* output head on the same (only) stage */
	return p / lay->tp + sizing_expert_params_gpu(job, lay) +
	       layers * sizing_kv_replica_params(job, lay);
}

/* One layer's parameters on one GPU: the dense part split tp ways (key
 * and value projections replicated where tp exceeds their heads), the
 * routed experts etp x ep ways (what ZeRO-3 / FSDP gathers per layer:
 * each expert-parallel rank gathers its own experts only); *experts (or
 * NULL) gets the routed experts' part. */
static double memory_layer_params_gpu(const sizing_job *job,
				      const sizing_layout *lay,
				      double *experts)
{
	double layer = memory_layer_params_of(job);
	double e = memory_expert_layer_params(job), e_gpu;

	if (e > layer)
		e = layer;
	e_gpu = e / ((double)sizing_etp(job, lay) * SIZING_EP(lay));
	if (experts)
		*experts = e_gpu;
	return (layer - e) / lay->tp + e_gpu +
	       sizing_kv_replica_params(job, lay);
}

/* LoRA adapter parameters on one GPU: rank r on every linear layer. */
static double memory_lora_params(const sizing_job *job,
				 const sizing_layout *lay)
{
	const autosize_model *m = job->model;
	double h = m->hidden, f = m->ffn, r = job->lora_rank;
	double q = autosize_model_q_width(m), kv = autosize_model_kv_width(m);
	/* wq h -> q, wo q -> h, wk and wv h -> kv; on the blocks that
	 * hold attention and an MLP (a hybrid's Mamba projections carry
	 * none: not counted) */
	double attn = r * (2 * (h + q) + 2 * (h + kv));
	double mlp = r * (h + f) * (m->mlp == AUTOSIZE_MLP_SWIGLU ? 3 : 2);
	int e = m->experts > 1 ? m->experts : 1;

	return memory_layers_per_stage(job, lay) *
	       (attn * autosize_model_attn_layers(m) +
		e * mlp * autosize_model_mlp_layers(m)) / m->layers / lay->tp;
}

double sizing_trained_params_per_gpu(const sizing_job *job,
				     const sizing_layout *lay)
{
	if (memory_is_lora(job))
		return memory_lora_params(job, lay);
	return sizing_params_per_gpu(job, lay);
}

/* Ranks of the expert data-parallel group, over which routed experts
 * are sharded and reduced: tp x dp x cp / (etp x ep). */
static double memory_expert_dp(const sizing_job *job,
				const sizing_layout *lay)
{
	return (double)lay->tp * lay->dp * SIZING_CP(lay) /
	       ((double)sizing_etp(job, lay) * SIZING_EP(lay));
}

double sizing_held_grad_bytes(const sizing_job *job, const sizing_layout *lay)
{
	framework_state st;
	double p;

	if (!framework_fsdp_grads_held(job, lay))
		return 0;
	framework_state_bytes(job, &st);
	p = sizing_trained_params_per_gpu(job, lay);
	/* FSDP holds unsharded gradients only of what it shards: where a
	 * stack leaves routed experts that EP splits over all of dp x cp
	 * (an expert data-parallel group of one rank) outside FSDP (NeMo
	 * AutoModel's MoE parallelizer passes them as ignored_params),
	 * they keep their ordinary gradients, counted with the states;
	 * torchtitan wraps them in FSDP over that one rank all the same */
	if (!memory_is_lora(job) && SIZING_EP(lay) > 1 &&
	    memory_expert_dp(job, lay) <= 1 &&
	    job->stack && job->stack->experts_outside_fsdp)
		p -= sizing_expert_params_gpu(job, lay);
	return st.grad_wire_b * (p > 0 ? p : 0);
}

/* Bytes per token per MLP unit a SwiGLU MLP keeps for the backward pass:
 * gate and up outputs, the activation and the product (4 x 2 bytes) as
 * written in PyTorch (torchtitan, Hugging Face, the PEFT stack QLoRA runs
 * on); Megatron's fused bias-SwiGLU keeps the first GEMM's output and
 * recomputes the activation (3 x 2 bytes; Megatron-LM fused_bias_swiglu). */
static double memory_swiglu_bytes(const sizing_job *job)
{
	return framework_torch_native(job) ? 8 : 6;
}

/* Bytes per logit at the loss: Megatron's vocab-parallel cross entropy
 * turns the 16-bit logits the model still holds into an fp32 copy and
 * works on it in place, keeping it as exp_logits for the backward, whose
 * fp32 gradient is cast to 16 bits beside it (2 + 4: Megatron-Core
 * tensor_parallel/cross_entropy.py; its fused native path,
 * --cross-entropy-loss-fusion, keeps the same fp32 exp_logits); PyTorch-
 * native stacks call F.cross_entropy on logits.float() (torchtitan,
 * Hugging Face models): the 16-bit logits, their fp32 copy and the fp32
 * log-softmax kept for the backward (2 + 4 + 4). */
static double memory_logit_bytes(const sizing_job *job)
{
	/* a stack's own loss (torchtune's chunked cross-entropy: perf.yaml
	 * stacks: logit_bytes) */
	if (job->stack && job->stack->logit_bytes > 0)
		return job->stack->logit_bytes;
	return framework_torch_native(job) ? 10 : 6;
}

/* The MLP width an MoE layer's token passes, averaged over the layers:
 * its routed and shared experts' in the MoE layers' share. */
static double memory_moe_mlp_width(const autosize_model *m)
{
	return (double)autosize_model_moe_layers(m) / m->layers *
	       ((double)m->experts_active * m->ffn +
		(double)m->experts_shared *
		(m->ffn_shared > 0 ? m->ffn_shared : m->ffn));
}

/* MLP width a token's activations span: its top-k routed experts and
 * the shared ones for MoE (averaged over dense leading layers), else the
 * dense width; averaged over the blocks (a hybrid's MLP blocks hold
 * it). */
static double memory_mlp_width(const autosize_model *m)
{
	double mlp;

	if (m->layers <= 0)
		return m->ffn;
	mlp = (double)autosize_model_mlp_layers(m) / m->layers;
	if (m->experts <= 1)
		return mlp * m->ffn;
	return memory_moe_mlp_width(m) + (double)m->dense_layers / m->layers *
	       (m->ffn_dense > 0 ? m->ffn_dense : m->ffn);
}

/* Of memory_mlp_width, the share that selective-mlp (Megatron's
 * recompute module "mlp") still stores: "mlp" recomputes the MLP of the
 * dense layers only ("if not self.is_moe_layer: self.recompute_mlp",
 * transformer_layer.py); an MoE layer's experts, shared ones included,
 * keep theirs. 0 for a dense model. */
double sizing_mlp_kept_share(const autosize_model *m)
{
	double width = memory_mlp_width(m);

	if (m->experts <= 1 || m->layers <= 0 || width <= 0)
		return 0;
	return memory_moe_mlp_width(m) / width;
}

/* The MLP width per layer (averaged over the layers) whose forward
 * selective-mlp repeats: the rest of memory_mlp_width, the dense
 * layers' MLP. */
double sizing_mlp_redone_width(const autosize_model *m)
{
	return memory_mlp_width(m) * (1 - sizing_mlp_kept_share(m));
}

/* The share of the layers whose MLP selective-mlp recomputes: the dense
 * ones (all of a dense model's). */
double sizing_mlp_redone_layers(const autosize_model *m)
{
	if (m->layers <= 0)
		return 1;
	if (m->experts <= 1)
		return (double)autosize_model_mlp_layers(m) / m->layers;
	return (double)m->dense_layers / m->layers;
}

/*
 * A Mamba-2 block's activations per layer, averaged over the blocks (0
 * without Mamba layers), as Megatron-Core's MambaMixer keeps them for
 * the backward pass on its training path (ssm/mamba_mixer.py
 * _ssm_training: mamba_ssm's mamba_split_conv1d_scan_combined saves
 * in_proj's output and the scan's output, and recomputes the conv
 * output, dA_cumsum and the chunk states; then its own gated norm and
 * out_proj): the norm and in_proj inputs (2h each, not split under
 * tensor parallelism without sequence parallelism), and split over the
 * mixer's heads: in_proj's output z, x, B, C, dt (2d + 2GN + H, 16-bit),
 * the scan's output (d), the norm's input and output (d each; out_proj's
 * input) and its rstd in fp32 (a group each): 10d + 4GN + 2H + 4G bytes
 * a token (d inner width, G groups, N state, H heads). FP8 keeps
 * in_proj's and out_proj's inputs in one byte. Under context
 * parallelism a rank holds s / cp tokens of it.
 */
static double memory_mamba_bytes(const sizing_job *job,
				 const sizing_layout *lay)
{
	const autosize_model *m = job->model;
	double s = (double)job->seq_len / SIZING_CP(lay);
	double sb = s * lay->micro_batch, t = lay->tp;
	double d = autosize_model_mamba_inner(m);
	double gn = (double)m->mamba_groups * m->mamba_state;
	double nh = m->mamba_heads, rep, split;
	int fp8 = job->precision == AUTOSIZE_PREC_FP8 ||
		  job->precision == AUTOSIZE_PREC_NVFP4;

	if (m->mamba_layers <= 0 || m->layers <= 0)
		return 0;
	if (lay->recompute == AUTOSIZE_RECOMPUTE_FULL)
		return 0;     /* its block input, counted with the others' */
	rep = sb * m->hidden * (fp8 ? 3 : 4);
	split = sb * (10 * d + 4 * gn + 2 * nh + 4.0 * m->mamba_groups -
		      (fp8 ? d : 0));
	return (double)m->mamba_layers / m->layers *
	       (rep / (lay->sp ? t : 1) + split / t);
}

double sizing_layer_activation_bytes(const sizing_job *job,
				     const sizing_layout *lay)
{
	/* Korthikanti et al. 2022, Table 2 (sbh(34 + 5as/h) for GPT),
	 * generalised: GQA shrinks K and V, SwiGLU stores 4 tensors of
	 * width ffn instead of 2, Llama-style models have no dropout. */
	const autosize_model *m = job->model;
	/* context parallelism splits the sequence over cp ranks */
	double s = (double)job->seq_len / SIZING_CP(lay);
	double b = lay->micro_batch, h = m->hidden;
	/* K and V: split tp ways, or over fewer ranks where the key/value
	 * heads are replicated (framework_kv_split; under Ulysses a rank
	 * holds the whole sequence of its heads: tp x cp ways), in units
	 * of the split that divides everything else (tp) */
	double kv_rep = (double)lay->tp *
			(framework_cp_ulysses(job->framework)
			 ? SIZING_CP(lay) : 1) / framework_kv_split(job, lay);
	double sbh = s * b * h;
	/* query, key + value (per key/value head, replicated kv_rep
	 * ways) and output widths */
	double v_dim = m->v_head_dim > 0 ? m->v_head_dim : m->head_dim;
	double qw = autosize_model_q_width(m), ow = (double)m->heads * v_dim;
	double kvw = (double)m->kv_heads * (m->head_dim + v_dim);
	int gelu = m->mlp == AUTOSIZE_MLP_GELU;
	double t = lay->tp, rep_div = lay->sp ? t : 1;
	double rep, split, scores = 0;
	/* selective-mlp: the MLP is recomputed from its input (kept with
	 * the norm inputs), so its inner tensors are not stored, but for
	 * the MoE layers' (sizing_mlp_kept_share) */
	double mlp_kept = lay->recompute != AUTOSIZE_RECOMPUTE_SELECTIVE_MLP
			  ? 1 : sizing_mlp_kept_share(m);

	/* a hybrid's blocks: the shares holding attention, an MLP, a
	 * Mamba mixer (1, 1, 0 for a transformer) */
	double a_sh = (double)autosize_model_attn_layers(m) / m->layers;
	double p_sh = (double)autosize_model_mlp_layers(m) / m->layers;
	double moe_sh = (double)autosize_model_moe_layers(m) / m->layers;
	int g = gelu ? 1 : 0;

	if (lay->recompute == AUTOSIZE_RECOMPUTE_FULL)
		return 2 * sbh / rep_div;      /* layer input only */
	if (lay->recompute == AUTOSIZE_RECOMPUTE_SELECTIVE &&
	    framework_op_sac(job)) {
		/* 16-bit: the block input; wq, wv, attention and w1
		 * outputs; SwiGLU's w2 output (its 7th matmul), which under
		 * TP with sequence parallelism is the full-width partial
		 * sum before its reduce-scatter, and the outputs of the
		 * two reduce-scatters (in the save list too); a GELU MLP's
		 * second matmul is the 6th: recomputed (framework_private.h,
		 * framework_op_sac) */
		double q = autosize_model_q_width(m);
		double kv = autosize_model_kv_width(m);
		double w2 = gelu ? 0 : 2 * sbh / (lay->sp ? 1 : t);

		/* a hybrid's Mamba blocks keep what they keep without
		 * (torchtitan runs no hybrid: an estimate) */
		return (2 * sbh / rep_div + w2 +
			(t > 1 && lay->sp ? 4 * sbh / t : 0) +
			2 * s * b * (2 * q + kv * kv_rep + m->ffn) / t) *
		       (a_sh + p_sh) / 2 + memory_mamba_bytes(job, lay);
	}
	/* Norm input and QKV input of the attention, norm input and MLP
	 * input of the MLP, dropout masks (GPT). */
	rep = sbh * (a_sh * (4 + g) + p_sh * (4 + g));
	/* Q, K, V and the attention output at their own widths (heads x
	 * head width; Qwen3's, GPT-OSS's and MLA's differ from hidden:
	 * Megatron-Core's attention and multi_latent_attention.py build
	 * them whole); MLP inner tensors. */
	split = a_sh * 2 * s * b * (qw + kvw * kv_rep + ow) + mlp_kept *
		s * b * (job->prepared ? job->mlp_width : memory_mlp_width(m)) *
		(gelu ? 4 : job->prepared ? job->swiglu_b
					  : memory_swiglu_bytes(job));
	if (m->experts > 1)
		/* MoE: router logits and the permuted (dispatched) copy of
		 * each token's top-k inputs, 16-bit (Megatron MoE token
		 * dispatcher) */
		split += moe_sh * s * b * (4.0 * m->experts +
					   2.0 * m->experts_active * h);
	if (sizing_etp_gather(job, lay) > 1)
		/* gathered over the expert TP ranks, each keeps every copy
		 * of its group's tokens: the grouped GEMM's input, t times
		 * the copy above (sizing_etp_gather) */
		split += moe_sh * s * b * 2.0 * m->experts_active * h *
			 (t - 1);
	if (job->precision == AUTOSIZE_PREC_FP8 ||
	    job->precision == AUTOSIZE_PREC_NVFP4) {
		/* FP8 GEMMs keep their inputs for the backward pass in FP8,
		 * one byte instead of two (Transformer Engine, torchao
		 * float8): QKV and MLP inputs, the attention output
		 * projection's and the second MLP GEMM's inputs. NVFP4's
		 * 4-bit copies with their block scales (TE
		 * NVFP4BlockScaling) are counted at FP8's byte: an upper
		 * bound. */
		rep -= sbh * (a_sh + p_sh);
		split -= a_sh * s * b * ow + p_sh * mlp_kept * s * b * m->ffn;
	}
	if (!job->flash_attention &&
	    lay->recompute == AUTOSIZE_RECOMPUTE_NONE)
		/* softmax output 2as^2b, + dropout mask and output 3as^2b */
		scores = a_sh * (gelu ? 5.0 : 2.0) * m->heads * s *
			 job->seq_len * b;
	return rep / rep_div + (split + scores) / t +
	       memory_mamba_bytes(job, lay);
}

/* Per-layer activation bytes of a layout at micro-batch 1 (every term is
 * linear in the micro-batch), of one layer rebuilt in full under full
 * recomputation, and of a layer that recomputation leaves alone (partial
 * recomputation); the last few of this thread are kept for prepared
 * jobs, like the model states. */
typedef struct memory_act_key {
	const sizing_job *job;
	int tp, cp, sp, recompute, etp_gather;
} memory_act_key;

static __thread struct {
	memory_act_key key[MEMORY_MEMO];
	double per_layer[MEMORY_MEMO], rebuilt[MEMORY_MEMO];
	double kept[MEMORY_MEMO];
	int valid[MEMORY_MEMO];
} memory_act_memo;

static void memory_layer_bytes(const sizing_job *job,
			       const sizing_layout *lay, double *per_layer,
			       double *rebuilt, double *kept)
{
	sizing_layout one = *lay;
	memory_act_key k;
	int i;

	k.job = job;
	k.tp = lay->tp;
	k.cp = SIZING_CP(lay);
	k.sp = lay->sp;
	k.recompute = lay->recompute;
	k.etp_gather = sizing_etp_gather(job, lay);
	i = (int)k.recompute & (MEMORY_MEMO - 1);
	if (job->prepared && memory_act_memo.valid[i]) {
		const memory_act_key *c = &memory_act_memo.key[i];

		if (c->job == k.job && c->tp == k.tp && c->cp == k.cp &&
		    c->sp == k.sp && c->recompute == k.recompute &&
		    c->etp_gather == k.etp_gather) {
			*per_layer = memory_act_memo.per_layer[i] *
				     lay->micro_batch;
			*rebuilt = memory_act_memo.rebuilt[i] *
				   lay->micro_batch;
			*kept = memory_act_memo.kept[i] * lay->micro_batch;
			return;
		}
	}
	one.micro_batch = 1;
	*per_layer = sizing_layer_activation_bytes(job, &one);
	*rebuilt = 0;
	*kept = *per_layer;
	if (lay->recompute == AUTOSIZE_RECOMPUTE_FULL) {
		/* the layer being recomputed holds all it stores without
		 * recomputation, but attention scores (FlashAttention or
		 * Megatron's selective); torchtitan's selective stores less
		 * than that, so its rebuilt layer is the whole one */
		one.recompute = framework_op_sac(job)
				? AUTOSIZE_RECOMPUTE_NONE
				: AUTOSIZE_RECOMPUTE_SELECTIVE;
		*rebuilt = sizing_layer_activation_bytes(job, &one);
		one.recompute = AUTOSIZE_RECOMPUTE_NONE;
		*kept = sizing_layer_activation_bytes(job, &one);
	}
	if (job->prepared) {
		memory_act_memo.key[i] = k;
		memory_act_memo.per_layer[i] = *per_layer;
		memory_act_memo.rebuilt[i] = *rebuilt;
		memory_act_memo.kept[i] = *kept;
		memory_act_memo.valid[i] = 1;
	}
	*per_layer *= lay->micro_batch;
	*rebuilt *= lay->micro_batch;
	*kept *= lay->micro_batch;
}

/* Which pipeline stage's activations: the first holds the embedding and
 * the most micro-batches in flight, the last the loss's logits. A layout
 * without a pipeline has one stage, both at once. */
enum { MEMORY_STAGE_FIRST = 1, MEMORY_STAGE_LAST = 2,
       MEMORY_STAGE_ONLY = MEMORY_STAGE_FIRST | MEMORY_STAGE_LAST };

/* Micro-batches the first stage holds under 1F1B: up to pp, fewer when
 * the step has fewer (1 without a pipeline). */
static double memory_first_inflight(const sizing_layout *lay)
{
	if (lay->pp <= 1)
		return 1;
	return lay->pp < lay->grad_accum ? lay->pp : lay->grad_accum;
}

/* Micro-batches a stage holds in flight, in units of its layers x one
 * micro-batch. 1F1B keeps up to pp on the first stage and one on the
 * last, which runs each backward right after its forward (Narayanan et
 * al. 2021, section 2.2.1). Interleaving v chunks, g micro-batches at a
 * time (framework_vp_group), warms a rank up by (pp - rank - 1) x 2 +
 * (v - 1) x g chunk passes and holds one more (Megatron's schedules.py):
 * over v, pp + (pp - 1) / v on the first (Korthikanti et al. 2022,
 * section 4.2.3) and pp - (pp - 1) / v on the last where g = pp. Of
 * rank r: pp - r without interleaving, (v - 1) g + 1 + 2 (pp - 1 - r)
 * chunk passes of v with it, capped at the step's micro-batches. */
static double memory_rank_inflight(const sizing_layout *lay, int group,
				   int r)
{
	double warm;

	if (lay->pp <= 1)
		return 1;
	if (lay->vp <= 1)
		return lay->pp - r < lay->grad_accum ? lay->pp - r
						     : lay->grad_accum;
	if (group <= 0)
		group = lay->pp;
	warm = (lay->vp - 1.0) * group + 1 + 2.0 * (lay->pp - 1 - r);
	if (warm > (double)lay->grad_accum * lay->vp)
		warm = (double)lay->grad_accum * lay->vp;
	return warm / lay->vp;
}

/* The same of a stage (MEMORY_STAGE_FIRST or the last). */
static double memory_inflight(const sizing_layout *lay, int group,
			      int stage)
{
	return memory_rank_inflight(lay, group, stage == MEMORY_STAGE_FIRST
						? 0 : lay->pp - 1);
}

/* The parts of a stage's activations (memory_stage_acts): its layers
 * per micro-batch in flight (the share recomputed under Megatron's block
 * method keeps only its input), the embedding output the first stage
 * holds, the loss the last stage holds, and the layer full recomputation
 * rebuilds. */
typedef struct memory_acts {
	double body, embedding, loss, rebuilt;
	double per_layer, kept;      /* memory_layer_bytes */
	int group;                   /* framework_vp_group */
} memory_acts;

static void memory_acts_parts(const sizing_job *job, const sizing_layout *lay,
			      memory_acts *a)
{
	const autosize_model *m = job->model;
	double s = (double)job->seq_len / SIZING_CP(lay);
	double sbh = s * lay->micro_batch * m->hidden;
	double t = lay->tp, rep_div = lay->sp ? t : 1;
	double layers = memory_layers_per_stage(job, lay);
	double redone = sizing_recompute_share(job, lay) * layers;

	memory_layer_bytes(job, lay, &a->per_layer, &a->rebuilt, &a->kept);
	a->group = framework_vp_group(job->framework, lay->pp, lay->vp,
				      lay->grad_accum);
	a->body = a->per_layer * redone + a->kept * (layers - redone);
	if (job->act_offload && lay->recompute == AUTOSIZE_RECOMPUTE_FULL &&
	    layers > 2)
		/* checkpointed layer inputs go to host memory as they are
		 * written and come back one layer ahead of the backward:
		 * about two layers' inputs stay on the GPU */
		a->body = a->per_layer * 2;
	/* embedding output (in flight, without the interleaving factor) */
	a->embedding = sbh * memory_first_inflight(lay) / rep_div;
	/* logits (memory_logit_bytes) of the one micro-batch at the loss,
	 * final norm and head input 4sbh/t */
	a->loss = (job->prepared ? job->logit_b : memory_logit_bytes(job)) *
		  s * lay->micro_batch * m->vocab / t + 4 * sbh / t;
}

static double memory_stage_acts(const sizing_layout *lay,
				const memory_acts *a, int stage)
{
	return a->body * memory_inflight(lay, a->group, stage) + a->rebuilt +
	       (stage & MEMORY_STAGE_FIRST ? a->embedding : 0) +
	       (stage & MEMORY_STAGE_LAST ? a->loss : 0);
}

/* Activations of the stage that holds the most: with a pipeline the
 * first (more micro-batches in flight) or the last (a large vocabulary's
 * logits); *last says which. The stages' model states are the same
 * (sizing_params_per_gpu: the embedding on the first, the output head or
 * Megatron's copy of tied embeddings on the last), so this stage's total
 * is the GPU's peak. */
static double memory_activations(const sizing_job *job,
				 const sizing_layout *lay, int *last)
{
	memory_acts a;
	double first_b, last_b;

	memory_acts_parts(job, lay, &a);
	*last = 0;
	if (lay->pp <= 1)
		return memory_stage_acts(lay, &a, MEMORY_STAGE_ONLY);
	first_b = memory_stage_acts(lay, &a, MEMORY_STAGE_FIRST);
	last_b = memory_stage_acts(lay, &a, MEMORY_STAGE_LAST);
	*last = last_b > first_b;
	return *last ? last_b : first_b;
}

/* Bytes of one kind of model state on a GPU: b bytes per parameter, the
 * dense part sharded over d ranks and the expert part over d / ep (the
 * expert data-parallel group) when sharded. */
static double memory_state(const sizing_job *job, double b, double p,
			   double p_exp, const sizing_layout *lay, int sharded)
{
	double d = (double)lay->dp * SIZING_CP(lay);
	double d_exp = memory_expert_dp(job, lay);

	if (!sharded)
		return b * p;
	return b * ((p - p_exp) / d + p_exp / (d_exp > 1 ? d_exp : 1));
}

/* Weights (with the 16-bit compute copy), gradients and optimizer state
 * of p parameters on one GPU of a full training, p_exp of them routed
 * experts: bytes per parameter from the framework's profile, sharded as
 * the ZeRO stage says (dense over dp x cp, experts over their own data-
 * parallel group). */
static void memory_full_states(const sizing_job *job, double p,
			       double p_exp, const sizing_layout *lay,
			       double *w, double *g, double *o)
{
	framework_state st;
	int z = lay->zero_stage;

	framework_state_bytes(job, &st);
	*w = memory_state(job, st.weight_b, p, p_exp, lay,
			  z >= st.weight_shard_stage);
	*g = memory_state(job, st.grad_b, p, p_exp, lay, z >= 2);
	*o = memory_state(job, st.opt_b, p, p_exp, lay, z >= 1);
	/* the compute copy below ZeRO-3; under a pipeline the 16-bit
	 * parameters stay gathered for the whole step */
	if (z < 3 || framework_fsdp_step_sync(job, lay))
		*w += st.copy_b * p;
}

/* The model-state part of a layout's memory: it depends on the sharding
 * (tp, pp, dp, cp, ep, ZeRO stage) and on whether a step has more than
 * one micro-batch (gradients held unsharded under FSDP's no_sync), not
 * on the micro-batch, recomputation or interleaving the search varies
 * most. */
typedef struct memory_states {
	double w, g, o;     /* weights (with any compute copy), grads, opt */
	double buffer;      /* the framework's communication buffers */
	double host_w;      /* --param-offload: this rank's weight shard in
			     * host memory, copied in every pass */
	double host_g;      /* and its gradient shard, copied out */
	double host_o;      /* --optimizer-offload: its optimizer state */
} memory_states;

/* MEMORY_FP8_WEIGHT_CACHE_BYTES of every linear weight of the GPU's
 * layers under Megatron with FP8 or NVFP4 GEMMs and no distributed
 * optimizer. With it the launch line keeps the parameters themselves in
 * FP8 (NVFP4), --fp8-param-gather (--fp4-param-gather) as Megatron-
 * Bridge's recipes do (mixed_precision.py): no 16-bit copy beside them,
 * the 2 bytes a weight counted. Megatron-FSDP gathers and frees its
 * layers in turn; the PyTorch-native stacks cast in each forward
 * (torchao float8; accelerate's TE backend passes no
 * is_first_microbatch). */
static double memory_fp8_weight_cache(const sizing_job *job,
				      const sizing_layout *lay)
{
	if (!framework_megatron_fp8(job) || lay->zero_stage != 0 ||
	    memory_is_lora(job))
		return 0;
	return MEMORY_FP8_WEIGHT_CACHE_BYTES *
	       memory_layers_per_stage(job, lay) *
	       memory_layer_params_gpu(job, lay, NULL);
}

double sizing_middle_stage_cap(const sizing_job *job, const sizing_layout *lay)
{
	double most = memory_layers_per_stage(job, lay);
	double e, layer = memory_layer_params_gpu(job, lay, &e), emb, cap_w;
	double in0, in1;
	int group;

	if (lay->pp < 3 || layer <= 0)
		return most;
	/* activations: rank 1 holds the most in flight of the middle
	 * ranks; the first is sized with most layers */
	group = framework_vp_group(job->framework, lay->pp, lay->vp,
				   lay->grad_accum);
	in0 = memory_rank_inflight(lay, group, 0);
	in1 = memory_rank_inflight(lay, group, 1);
	/* weights, gradients and optimizer state: the embedding's bytes
	 * on the first rank against a layer's on a middle one, the
	 * routed experts sharded over their own group, Transformer
	 * Engine's FP8 copies on the layers only; adapters over a frozen
	 * base: an embedding parameter (16-bit) weighs at least a block
	 * one (16-bit, FP8 or NF4) */
	emb = (double)job->model->vocab * job->model->hidden / lay->tp;
	if (memory_is_lora(job)) {
		cap_w = most + emb / layer;
	} else {
		double lw, lg, lo, ew, eg, eo;

		memory_full_states(job, layer, e, lay, &lw, &lg, &lo);
		memory_full_states(job, emb, 0, lay, &ew, &eg, &eo);
		cap_w = most + (ew + eg + eo) /
			(lw + lg + lo + memory_fp8_weight_cache(job, lay) /
					most);
	}
	return in1 > 0 && most * in0 / in1 < cap_w ? most * in0 / in1 : cap_w;
}

static void memory_states_compute(const sizing_job *job,
				  const sizing_layout *lay, memory_states *ms)
{
	double p = sizing_params_per_gpu(job, lay);
	double p_exp = sizing_expert_params_gpu(job, lay);
	double d = (double)lay->dp * SIZING_CP(lay), w, g, o;
	double lora = 0;
	framework_state st;

	framework_state_bytes(job, &st);
	if (memory_is_lora(job)) {
		double a = memory_lora_params(job, lay);
		int q = job->train_mode == AUTOSIZE_TRAIN_QLORA;
		/* a frozen base of FP8 parameters under Megatron with FP8
		 * (or NVFP4) GEMMs: the PEFT recipes that run it build the
		 * model under Transformer Engine's fp8_model_init
		 * (Megatron-Bridge: fp8_param follows fp8_param_gather,
		 * which its FP8 presets set, training/mixed_precision.py;
		 * NVIDIA's MLPerf Llama 2 70B LoRA, custom_llama.py; AMD's,
		 * fp8_params, MLPerf Training v5.1) and turn Megatron's
		 * cached FP8 transpose off (disable_parameter_transpose_
		 * cache: NeMo's finetune performance scripts, scripts/
		 * performance/llm/finetune_llama3_70b.py @8cfedd7, and both
		 * MLPerf LoRA codes): one byte a block weight, no 16-bit
		 * copy and no cached transpose beside it
		 * (memory_fp8_weight_cache counts none for LoRA). With
		 * Megatron's default (the cache on) a Hopper run holds a
		 * second byte, as full training's FP8 parameters are
		 * counted. Without it 70B LoRA at TP 1 would not fit the
		 * 192 GB MI300X it ran on. NVFP4 is counted at FP8's byte,
		 * an upper bound. */
		int f8 = !q && framework_megatron_fp8(job);
		double base_b = q ? MEMORY_NF4_BYTES : f8 ? 1 : 2;
		/* QLoRA quantizes the blocks' linear layers only: the
		 * embedding (nn.Embedding) and the output head (left out by
		 * transformers' bitsandbytes integration,
		 * get_keys_to_not_convert; torchtune's NF4 linears) stay
		 * 16-bit; so do they beside FP8 base weights (Megatron's
		 * embedding and output layer are not Transformer Engine
		 * modules) */
		double emb = q || f8 ? (double)job->model->vocab *
				 job->model->hidden *
				 (lay->pp == 1 && !job->model->tied_embeddings
				  ? 2 : 1) / lay->tp : 0;

		if (emb > p)
			emb = p;
		lora = a;
		/* frozen base: no gradients, no optimizer state; the
		 * adapters in 16 bits with fp32 Adam state and master (12),
		 * or all bf16 where the stack keeps no master (4) */
		w = (p - emb) * base_b + emb * 2 + 2 * a;
		g = 2 * a;
		o = (job->stack && job->stack->bf16_states ? 4 : 12) * a;
		/* ZeRO paper section 5: stage 1 shards optimizer state,
		 * stage 2 also gradients, stage 3 also parameters. */
		if (lay->zero_stage >= 1)
			o /= d;
		if (lay->zero_stage >= 2)
			g /= d;
		if (lay->zero_stage >= 3)
			w /= d;
	} else {
		memory_full_states(job, p, p_exp, lay, &w, &g, &o);
	}
	ms->w = w + memory_fp8_weight_cache(job, lay);
	ms->g = g;
	/* --optimizer-offload: the state lives in host memory */
	ms->o = job->opt_offload ? 0 : o;
	ms->host_o = job->opt_offload ? o : 0;
	ms->host_w = ms->host_g = 0;
	if (job->param_offload && lay->zero_stage >= 3) {
		/* --param-offload: the sharded parameters, their gradients
		 * and the optimizer state live in host memory (FSDP
		 * CPUOffload "offload parameters and gradients to CPU";
		 * DeepSpeed offload_param, ZeRO-3 only); the GPU holds the
		 * gathered layers in flight (buffer) */
		ms->host_w = ms->w;
		ms->host_g = ms->g;
		ms->w = ms->g = ms->o = 0;
	}
	/* the trained parameters' gradients held unsharded until the
	 * step's last micro-batch reduces them stay on the GPU, offloaded
	 * or not: "the gradients will not be offloaded to CPU when inside
	 * the context manager. Instead, they will only be offloaded right
	 * after the eventual sync" (FSDP no_sync docstring) */
	ms->g += sizing_held_grad_bytes(job, lay);
	ms->buffer = framework_buffer_bytes(job, lay,
		memory_layer_params_gpu(job, lay, NULL),
		memory_is_lora(job) ? lora : p);
}

/* What the model states of a prepared job depend on: the job (its
 * per-model constants are fixed by sizing_job_prepare, which empties
 * the memo) and the sharding of the layout. */
typedef struct memory_key {
	const sizing_job *job;
	int tp, pp, dp, cp, ep, etp, zero;
	int framework, train_mode;
	int accum;     /* more than one micro-batch a step
			* (framework_fsdp_grads_held) */
} memory_key;

/* The last model states of this thread per ZeRO stage: the search
 * tries each sharding with up to five micro-batches and three
 * recomputation settings, so most calls repeat one (no allocation, no
 * locking). */
static __thread struct {
	memory_key key[MEMORY_MEMO];
	memory_states val[MEMORY_MEMO];
	int valid[MEMORY_MEMO];
} memory_memo;

static int memory_key_eq(const memory_key *a, const memory_key *b)
{
	return a->job == b->job && a->tp == b->tp && a->pp == b->pp &&
	       a->dp == b->dp && a->cp == b->cp && a->ep == b->ep &&
	       a->etp == b->etp &&
	       a->zero == b->zero && a->framework == b->framework &&
	       a->train_mode == b->train_mode && a->accum == b->accum;
}

static void memory_states_of(const sizing_job *job, const sizing_layout *lay,
			     memory_states *ms)
{
	memory_key k;
	int i;

	if (!job->prepared) {
		memory_states_compute(job, lay, ms);
		return;
	}
	k.job = job;
	k.tp = lay->tp;
	k.pp = lay->pp;
	k.dp = lay->dp;
	k.cp = SIZING_CP(lay);
	k.ep = SIZING_EP(lay);
	k.etp = sizing_etp(job, lay);
	k.zero = lay->zero_stage;
	k.framework = job->framework;
	k.train_mode = job->train_mode;
	k.accum = lay->grad_accum > 1;
	i = k.zero & (MEMORY_MEMO - 1);
	if (memory_memo.valid[i] && memory_key_eq(&memory_memo.key[i], &k)) {
		*ms = memory_memo.val[i];
		return;
	}
	memory_states_compute(job, lay, ms);
	memory_memo.key[i] = k;
	memory_memo.val[i] = *ms;
	memory_memo.valid[i] = 1;
}

void sizing_param_host_bytes(const sizing_job *job, const sizing_layout *lay,
			     double *params_b, double *grads_b)
{
	memory_states ms;

	memory_states_of(job, lay, &ms);
	*params_b = ms.host_w;
	*grads_b = ms.host_g;
}

double sizing_host_bytes(const sizing_job *job, const sizing_layout *lay)
{
	memory_states ms;

	memory_states_of(job, lay, &ms);
	return ms.host_w + ms.host_g + ms.host_o;
}

/* What PyTorch's allocator never sees: the CUDA context, and NCCL's
 * buffers when there are peers. */
static double memory_runtime(const sizing_layout *lay)
{
	double gpus = SIZING_GPUS(lay);

	return MEMORY_CUDA_CONTEXT_BYTES + (gpus > 1 ? MEMORY_NCCL_BYTES : 0);
}

/* What the allocator reserves but never uses, even out of room:
 * fragmentation of what the job allocates. */
static double memory_fragmentation(const sizing_job *job)
{
	return framework_torch_native(job) ? MEMORY_FRAGMENTATION_TORCH
					   : MEMORY_FRAGMENTATION_MEGATRON;
}

static double memory_slack(const sizing_job *job, const memory_states *ms,
			   double acts)
{
	return memory_fragmentation(job) * (ms->w + ms->g + ms->o + acts);
}

/* What a PyTorch-native job's allocator caches beyond that where the
 * GPU has room, and gives back before it runs out. */
static double memory_cache(const sizing_job *job, const memory_states *ms,
			   double acts)
{
	if (!framework_torch_native(job))
		return 0;
	return (MEMORY_CACHE_TORCH - MEMORY_FRAGMENTATION_TORCH) *
	       (ms->w + ms->g + ms->o + acts);
}

/* Bytes beside the model states and activations: the runtime, the
 * framework's communication buffers and the slack. */
static double memory_other(const sizing_job *job, const sizing_layout *lay,
			   const memory_states *ms, double acts)
{
	return memory_runtime(lay) + memory_slack(job, ms, acts) + ms->buffer;
}

void sizing_memory(const sizing_job *job, const sizing_layout *lay,
		   autosize_memory *mem)
{
	memory_states ms;

	memory_states_of(job, lay, &ms);
	mem->weights_bytes = ms.w;
	mem->gradients_bytes = ms.g;
	mem->optimizer_bytes = ms.o;
	mem->activations_bytes = memory_activations(job, lay,
						    &mem->last_stage);
	mem->runtime_bytes = memory_runtime(lay);
	mem->slack_bytes = memory_slack(job, &ms, mem->activations_bytes);
	mem->other_bytes = mem->runtime_bytes + mem->slack_bytes + ms.buffer;
	mem->total_bytes = ms.w + ms.g + ms.o + mem->activations_bytes +
			   mem->other_bytes;
	mem->cache_bytes = memory_cache(job, &ms, mem->activations_bytes);
	mem->usable_bytes = job->usable_bytes;
}

double sizing_recompute_keep_layers(const sizing_job *job,
				    const sizing_layout *lay)
{
	sizing_layout all = *lay;
	memory_states ms;
	memory_acts a;
	double keep = HUGE_VAL;
	int stage;

	all.recompute = AUTOSIZE_RECOMPUTE_FULL;
	all.recompute_layers = 0;
	memory_states_of(job, &all, &ms);
	memory_acts_parts(job, &all, &a);
	for (stage = MEMORY_STAGE_FIRST; stage <= MEMORY_STAGE_LAST;
	     stage++) {
		int which = all.pp > 1 ? stage : MEMORY_STAGE_ONLY;
		double acts = memory_stage_acts(&all, &a, which);
		double slack = job->usable_bytes - ms.w - ms.g - ms.o - acts -
			       memory_other(job, &all, &ms, acts);
		/* each layer kept whole adds (kept - input) per micro-batch
		 * in flight, and its fragmentation */
		double save = (a.kept - a.per_layer) *
			      memory_inflight(&all, a.group, which) *
			      (1 + memory_fragmentation(job));

		if (save > 0 && slack / save < keep)
			keep = slack / save;
		else if (save <= 0 && slack < 0)
			keep = -HUGE_VAL;
		if (which == MEMORY_STAGE_ONLY)
			break;
	}
	return keep;
}

void sizing_job_prepare(sizing_job *job)
{
	/* a job (re)prepared, perhaps where another was: forget the
	 * model states and activations of this thread's earlier jobs */
	memset(&memory_memo, 0, sizeof(memory_memo));
	memset(&memory_act_memo, 0, sizeof(memory_act_memo));
	job->prepared = 0;
	job->layer_params = memory_layer_params(job->model);
	job->expert_layer_params = sizing_expert_params_per_layer(job->model);
	job->mlp_width = memory_mlp_width(job->model);
	job->swiglu_b = memory_swiglu_bytes(job);
	job->logit_b = memory_logit_bytes(job);
	framework_state_bytes(job, &job->fw);
	sizing_perf_prepare(job);
	job->prepared = 1;
}
