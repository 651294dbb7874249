/*
 * autosize: FLOPs and step time of a layout on a partition.
 *
 * The step is built from its parts: matmul time at a shape-dependent
 * efficiency, memory-bound element-wise work at HBM speed, tensor-parallel
 * collectives on the intra-node link, pipeline bubble and p2p transfers,
 * and data-parallel gradient reduction over the network, partly hidden
 * behind the backward pass. The numbers are per GPU generation and
 * precision (etc/perf.yaml via perfdata.c); collectives are priced in
 * comm.c, bytes per parameter come from the framework (framework.c).
 */
#include <math.h>
#include <stddef.h>
#include <string.h>
#include "comm.h"
#include "framework_private.h"
#include "stages.h"

/* Generation-independent constants (the rest is per GPU generation in
 * etc/perf.yaml, read through sizing_perf()).
 *
 * Share of the last backward pass that overlaps gradient reduction
 * (fitted once on the 21 original A100 runs). */
#define PERF_DP_OVERLAP 0.72
/* Share of each pass that hides ZeRO-3 / FSDP parameter gathers and
 * gradient reduce-scatters, prefetched a layer ahead. */
#define PERF_FSDP_OVERLAP 0.85
/* Optimizer step reads and writes its state once: bytes per parameter
 * of state moved, on HBM. */
#define PERF_OPT_PASSES 2.0
/* MoE token permutation: each token's top-k copies of the hidden vector
 * pass four gather/scatter kernels forward (permute, sort the received
 * chunks by local expert, unsort, unpermute with the routing weights)
 * and four backward, each reading and writing 16-bit values: 8 x 2 x 2
 * bytes per hidden unit (Megatron-Core MoE alltoall token dispatcher). */
#define PERF_MOE_PERMUTE_BYTES_PER_H 32.0
/* Router: fp32 logits over the experts written, softmax and top-k read
 * and write them, and the backward once more: ~6 passes of 4 bytes per
 * expert per token (Megatron-Core MoE router; HBM-bound). */
#define PERF_MOE_ROUTER_BYTES_PER_EXPERT 24.0
/* Expert load imbalance: with expert parallelism the rank whose experts
 * receive the most tokens sets the pace of the grouped GEMMs and of the
 * all-to-all. Capacity factor 1.25: the busiest expert's load over the
 * mean that Switch Transformer trains with (Fedus et al. 2022, JMLR,
 * section 2.2 and Table 1); dropless routers (Megatron, DeepSeek-V3)
 * run near it once the balancing loss or bias has converged. */
#define PERF_MOE_CAPACITY 1.25
/* The busiest expert-parallel rank's load over the mean: PERF_MOE_CAPACITY
 * as learned routing leaves it, 1 where the request says routing is
 * forced even (--moe-balanced: throughput benchmarks). */
static double perf_moe_capacity(const sizing_job *job)
{
	return job->moe_balanced ? 1.0 : PERF_MOE_CAPACITY;
}

/* Dense peak the GEMMs run against: BF16/FP16 tensor cores; FP8 and
 * NVFP4 GEMMs are a speedup on top (perf.yaml fp8_gemm_*,
 * fp4_gemm_speedup), the rest stays 16-bit. */
static double perf_base_peak(const sizing_job *job)
{
	if (job->precision == AUTOSIZE_PREC_FP8 ||
	    job->precision == AUTOSIZE_PREC_NVFP4)
		return autosize_gpu_peak_flops(job->part->gpu,
					       AUTOSIZE_PREC_BF16);
	return job->peak_flops;
}

/* fp4_gemm_speedup, a speedup over BF16, is measured on parts whose
 * dense NVFP4 peak is four times their BF16 one (B200, GB200: 9 and
 * 2.25, 10 and 2.5 PFLOP/s); Blackwell Ultra's is six times (B300 13.5
 * and 2.25, GB300 15 and 2.5, etc/gpus.yaml), and its NVFP4 GEMMs keep
 * the measured share of that larger ratio. */
#define PERF_FP4_BF16_REF_RATIO 4.0

/* NVFP4's GEMM speedup over BF16 on job's GPU: fp4_gemm_speedup scaled
 * by the part's FP4:BF16 peak ratio over the measured parts'. */
static double perf_fp4_speedup(const sizing_job *job, const perf_params *pp)
{
	const autosize_gpu *g = job->part ? job->part->gpu : NULL;

	if (!g || !(g->fp4_tflops > 0) || !(g->bf16_tflops > 0))
		return pp->fp4_gemm_speedup;
	return pp->fp4_gemm_speedup * g->fp4_tflops / g->bf16_tflops /
	       PERF_FP4_BF16_REF_RATIO;
}

/* Time factor of GEMM work given its low-precision share: Amdahl over
 * the share (the linear layers) that runs at fp8_gemm_speedup, or at
 * NVFP4's (perf_fp4_speedup; perfdata_resolve zeroes the share where
 * the GPU has no such tensor cores). A performance file without
 * fp4_gemm_speedup times NVFP4 at its FP8 rate, a bound NVFP4 beats
 * (the plan says so). */
static double perf_fp8_factor(const sizing_job *job, const perf_params *pp)
{
	double speedup = job->precision == AUTOSIZE_PREC_NVFP4 &&
			 pp->fp4_gemm_speedup > 0
			 ? perf_fp4_speedup(job, pp) : pp->fp8_gemm_speedup;

	if (!(pp->fp8_gemm_share > 0) || !(speedup > 0))
		return 1.0;
	return 1.0 - pp->fp8_gemm_share + pp->fp8_gemm_share / speedup;
}

double sizing_peak_reach(const sizing_job *job)
{
	return perf_base_peak(job) /
	       (job->peak_flops * perf_fp8_factor(job, sizing_perf(job)));
}

double sizing_mfu_upper_bound(const sizing_job *job)
{
	return sizing_perf(job)->gemm_eff_max * sizing_peak_reach(job);
}

static int perf_is_lora(const sizing_job *job)
{
	return job->train_mode == AUTOSIZE_TRAIN_LORA ||
	       job->train_mode == AUTOSIZE_TRAIN_QLORA;
}

/* Parameters that do matmul work per token: all but the input embedding
 * lookup when the head is untied (Narayanan et al. 2021, eq. 3). */
static double perf_matmul_params(const autosize_model *m)
{
	double p = m->params_active;

	if (!m->tied_embeddings && !m->arch_synthetic)
		p -= (double)m->vocab * m->hidden;
	return p > 0 ? p : 0;
}

/* The span in tokens of the local layers' attention: the sliding
 * window or the chunk (model.c keeps them exclusive); 0: none. */
static double perf_local_span(const autosize_model *m)
{
	return m->attn_window > 0 ? m->attn_window : m->attn_chunk;
}

/* Layers' worth of whole-sequence attention: the layers without local
 * attention, and each local one at the keys its queries see against the
 * causal whole square's counting, which the counting below takes as
 * s / 2 a query (the full square, halved by causal kernels:
 * PERF_ATTN_CAUSAL_WORK). A windowed query at position i sees min(i +
 * 1, w) keys: over s positions w - w(w - 1) / 2s on average where s > w,
 * so a windowed layer counts (2w - w^2 / s) / s of a full one (1 at w =
 * s; Beltagy et al. 2020, Longformer, section 3: sliding-window
 * attention is O(s w)). A chunked one runs a causal square per chunk:
 * q whole chunks of c and a last one of r = s - qc tokens, (q c^2 +
 * r^2) / s^2 of a full layer (c / s where c divides s; transformers'
 * create_chunked_causal_mask for Llama 4). */
static double perf_attn_layers(const autosize_model *m, double s)
{
	double w = perf_local_span(m), share;
	int all = autosize_model_attn_layers(m);

	if (m->window_layers <= 0 || w <= 0 || w >= s)
		return all;
	if (m->attn_window > 0) {
		share = (2.0 * w - w * w / s) / s;
	} else {
		double q = floor(s / w), r = s - q * w;

		share = (q * w * w + r * r) / (s * s);
	}
	return all - m->window_layers + m->window_layers * share;
}

/* Attention-score FLOPs per token, 12 L h s (PaLM, Chowdhery et al.
 * 2022, appendix B; Megatron eq. 3) where h is the attention width:
 * Q K^T spans heads x the query/key head width, scores x V heads x the
 * value width, so 6 L s heads (d_qk + d_v) (wider heads in Qwen3, MLA's
 * 192-wide queries and 128-wide values in DeepSeek-V2/V3), windowed
 * layers at their share (perf_attn_layers); unknown (0) for a model
 * known only by its parameter count, sized by 6ND alone. */
static double perf_attn_flops(const sizing_job *job)
{
	const autosize_model *m = job->model;
	double d_qk, d_v, layers;

	if (m->arch_synthetic)
		return 0;
	layers = perf_attn_layers(m, job->seq_len);
	if (m->heads <= 0 || m->head_dim <= 0)
		return 12.0 * layers * m->hidden * job->seq_len;
	d_qk = m->head_dim;
	d_v = m->v_head_dim > 0 ? m->v_head_dim : m->head_dim;
	return 6.0 * layers * job->seq_len * m->heads * (d_qk + d_v);
}

/* FLOPs per token of the Mamba-2 mixers' scan beyond their projections
 * (in_proj and out_proj are matmul parameters, counted in 6N): 7 d_inner
 * x state a layer forward, Megatron-LM's count (training.py
 * mamba_layer_flops: "scan"), three times for forward and backward;
 * 0 without Mamba layers. */
static double perf_ssm_flops(const sizing_job *job)
{
	const autosize_model *m = job->model;

	if (m->mamba_layers <= 0 || m->arch_synthetic)
		return 0;
	return 3.0 * 7.0 * m->mamba_layers * autosize_model_mamba_inner(m) *
	       m->mamba_state;
}

/* Share of the blocks with attention: a stage's attention exchanges
 * (context parallelism, key/value replicas) count those blocks only; 1
 * for a transformer (a hybrid's Mamba mixers exchange their heads under
 * context parallelism apart: perf_mamba_cp_s). */
static double perf_attn_block_share(const autosize_model *m)
{
	return m->layers > 0 ? (double)autosize_model_attn_layers(m) /
			       m->layers : 1;
}

/* Cached per-model numbers when the job is prepared. */
static double perf_matmul_of(const sizing_job *job)
{
	return job->prepared ? job->matmul_params
			     : perf_matmul_params(job->model);
}

static double perf_attn_of(const sizing_job *job)
{
	return job->prepared ? job->attn_flops_token : perf_attn_flops(job);
}

static double perf_model_flops(const sizing_job *job);

/* Matmul parameters a full recomputation repeats: the layers', not the
 * output head's (Megatron's TransformerBlock checkpoints the decoder
 * layers, Hugging Face's gradient checkpointing and torchtitan's the
 * blocks; the head and the loss run once). */
static double perf_recomputed_matmul(const sizing_job *job)
{
	const autosize_model *m = job->model;
	double p = perf_matmul_of(job);

	if (!m->arch_synthetic)
		p -= (double)m->vocab * m->hidden;
	return p > 0 ? p : 0;
}

double sizing_model_flops_per_token(const sizing_job *job)
{
	return job->prepared ? job->flops_token : perf_model_flops(job);
}

static double perf_model_flops(const sizing_job *job)
{
	/* 6N for forward + backward plus attention. A frozen base (LoRA)
	 * skips the weight gradients: 4N. */
	const autosize_model *m = job->model;
	double attn = perf_attn_flops(job);

	if (perf_is_lora(job))
		return 4.0 * perf_matmul_params(m) + attn + perf_ssm_flops(job);
	return 6.0 * perf_matmul_params(m) + attn + perf_ssm_flops(job);
}

double sizing_hw_flops_per_token(const sizing_job *job,
				 autosize_recompute rc)
{
	double f = sizing_model_flops_per_token(job);
	double attn = perf_attn_of(job);

	/* Full recomputation repeats the layers' forward pass (2N less the
	 * output head: perf_recomputed_matmul, + 4Lhs);
	 * selective repeats the attention core (Korthikanti et al. 2022,
	 * eq. 8: 1 + s/3h instead of 1 + s/6h). */
	if (rc == AUTOSIZE_RECOMPUTE_FULL)
		return f + 2.0 * perf_recomputed_matmul(job) +
		       (attn + perf_ssm_flops(job)) / 3.0;
	if (rc == AUTOSIZE_RECOMPUTE_SELECTIVE_MLP)
		/* the attention core's forward again (Megatron's modules
		 * core_attn and mlp: launch.c), and the MLP forward again:
		 * 2 FLOPs per MLP parameter a token passes (its width x
		 * hidden x 2 or 3 matrices per layer), the dense layers'
		 * only (Megatron's "mlp" module leaves the MoE layers alone:
		 * sizing_mlp_redone_width) */
		return f + (job->flash_attention ? attn / 3.0 : attn) +
		       2.0 * job->model->layers * job->model->hidden *
		       sizing_mlp_redone_width(job->model) *
		       (job->model->mlp == AUTOSIZE_MLP_SWIGLU ? 3 : 2);
	if (rc == AUTOSIZE_RECOMPUTE_SELECTIVE && framework_op_sac(job)) {
		/* torchtitan's op-level selective checkpointing recomputes
		 * wk, wo and w3 (framework_op_sac): 2 FLOPs per weight */
		const autosize_model *m = job->model;
		double q = autosize_model_q_width(m);
		double kv = autosize_model_kv_width(m);

		return f + 2.0 * (autosize_model_attn_layers(m) *
				  ((double)m->hidden * kv + q * m->hidden) +
				  autosize_model_mlp_layers(m) *
				  (double)m->hidden * m->ffn);
	}
	/* Megatron's selective setting (recompute module core_attn,
	 * Attention._checkpointed_attention_forward) re-runs the attention
	 * core's forward under FlashAttention too: one forward of the
	 * attention term (a third of its forward and backward). */
	if (rc == AUTOSIZE_RECOMPUTE_SELECTIVE)
		return f + (job->flash_attention ? attn / 3.0 : attn);
	return f;
}

int sizing_stage_layers(const autosize_model *m, int pp)
{
	return pp > 1 ? (m->layers + pp - 1) / pp : m->layers;
}

/* sizing_stage_layers of lay, as a double for the time terms. */
static double perf_stage_layers(const autosize_model *m,
				const sizing_layout *lay)
{
	return sizing_stage_layers(m, lay->pp);
}

/* Megatron's block method recomputes recompute_layers of a stage's
 * layers and keeps the rest (--recompute-method block,
 * --recompute-num-layers; Korthikanti et al. 2022, section 5: "only
 * checkpoint some of the layers"): the forward is repeated for that
 * share of the stage's work. */
double sizing_recompute_share(const sizing_job *job,
			      const sizing_layout *lay)
{
	double per;

	if (lay->recompute != AUTOSIZE_RECOMPUTE_FULL)
		return 0;
	if (lay->recompute_layers <= 0)
		return 1;
	per = perf_stage_layers(job->model, lay);
	return lay->recompute_layers < per ? lay->recompute_layers / per : 1;
}

/* Hardware FLOPs per token of a layout: the model's, plus the share of
 * the forward (2N + 4Lhs) a partial or full recomputation repeats. */
static double perf_hw_flops(const sizing_job *job, const sizing_layout *lay,
			    double share)
{
	if (lay->recompute == AUTOSIZE_RECOMPUTE_FULL)
		return sizing_model_flops_per_token(job) +
		       share * (2.0 * perf_recomputed_matmul(job) +
				(perf_attn_of(job) + perf_ssm_flops(job)) /
				3.0);
	return sizing_hw_flops_per_token(job, lay->recompute);
}

/* FLOPs per token of the forward pass alone, what an evaluated token
 * costs: its matmuls (2N) and the attention's forward (a third of the
 * attention's forward + backward, as recomputation counts it above).
 * sizing_forward_share sets it against all that a training step
 * computes per token under lay (backward, recomputed forward). */
static double perf_forward_flops(const sizing_job *job)
{
	return 2.0 * perf_matmul_of(job) + perf_attn_of(job) / 3.0;
}

double sizing_forward_share(const sizing_job *job, const sizing_layout *lay)
{
	double hw = perf_hw_flops(job, lay, sizing_recompute_share(job, lay));
	double fwd = perf_forward_flops(job);

	return hw > 0 && fwd < hw ? fwd / hw : 1;
}

double sizing_eval_s(const sizing_job *job, const sizing_layout *lay,
		     double tokens_per_s)
{
	if (!(tokens_per_s > 0) || !(job->tokens > 0) ||
	    !(job->eval_tokens > 0))
		return 0;
	return job->eval_tokens / tokens_per_s * sizing_forward_share(job, lay);
}

double sizing_steps_s(const sizing_job *job, const sizing_layout *lay,
		      double tokens_per_s)
{
	if (!(tokens_per_s > 0) || !(job->tokens > 0))
		return 0;
	return job->tokens / tokens_per_s +
	       sizing_eval_s(job, lay, tokens_per_s);
}

/* Share of peak a GEMM reaches: rises with its smallest dimension and
 * saturates (roofline of a tiled GEMM: small tiles waste the tensor
 * cores; faster GPUs need larger shapes, hence a larger half_dim). */
static double perf_gemm_eff(const perf_params *pp, double dim)
{
	return pp->gemm_eff_max * dim / (dim + pp->gemm_half_dim);
}

/*
 * FLOP/s of the attention-score kernels on one GPU. FlashAttention-class
 * kernels tile the s x s scores themselves: their rate does not follow
 * the GEMM shapes of the layer (hidden / tp, tokens per micro-batch), so
 * they run at the generation's attn_share of the large-GEMM rate
 * (gemm_eff_max; the FlashAttention-2/-3 papers compare them with large
 * GEMMs). It rises with the sequence each kernel sees (s / cp under
 * context parallelism) as s / (s + attn_half_seq): Shah et al. 2024,
 * arXiv:2407.08608, Figs. 5-6, head dim 128 on H100 (forward and
 * backward rates of FlashAttention-2 and cuDNN from 512 to 16k); 0
 * where no curve is set; over the causal share of the counted FLOPs
 * (PERF_ATTN_CAUSAL_WORK). Unfused attention (--flash-attention off)
 * runs batched GEMMs at the same share over the whole square, without
 * the length term. PyTorch's own attention (SDPA's FlashAttention-2
 * against the cuDNN / FlashAttention-3 class kernels Transformer Engine
 * runs on Hopper) reaches the generation's torch_attn_eff of it, a named
 * stack its kernel_eff.
 */
/* Share of the counted attention FLOPs (12 L h s a token: the full s x s
 * square, as MFU counts them, PaLM appendix B) a causal FlashAttention
 * kernel computes: it skips the score blocks above the diagonal, half of
 * them (Dao 2023, FlashAttention-2, section 3.1.1 "Causal masking"; the
 * FlashAttention-2/-3 papers' causal rates count that half). Unfused
 * attention computes the whole square and masks it. */
#define PERF_ATTN_CAUSAL_WORK 0.5

/* The attention rate at its fastest, in counted FLOPs: the large-GEMM
 * rate times attn_share, over the causal share of the work (the factors
 * perf_attn_rate adds are at most 1). */
static double perf_attn_peak_rate(const sizing_job *job)
{
	const perf_params *pp = sizing_perf(job);

	return perf_base_peak(job) * pp->gemm_eff_max * pp->attn_share /
	       (job->flash_attention ? PERF_ATTN_CAUSAL_WORK : 1.0);
}

/*
 * The rate factors of the job's kernels against the engine's: PyTorch's
 * own (a native stack without Transformer Engine: torch_eff for its
 * GEMMs, torch_attn_eff for its attention) and a named stack's
 * kernel_eff. Constant over a job's layouts: sizing_perf_prepare keeps
 * them.
 */
static void perf_kernel_factors(const sizing_job *job, double *gemm,
				double *attn)
{
	const perf_params *pp = sizing_perf(job);
	double stack = job->stack ? job->stack->kernel_eff : 1;

	*gemm = *attn = stack;
	if (framework_torch_kernels(job)) {
		*gemm *= pp->torch_eff;
		*attn *= pp->torch_attn_eff > 0 ? pp->torch_attn_eff
						: pp->torch_eff;
	}
}

static double perf_gemm_kernel_f(const sizing_job *job)
{
	double g, a;

	if (job->prepared)
		return job->gemm_kernel_f;
	perf_kernel_factors(job, &g, &a);
	return g;
}

static double perf_attn_kernel_f(const sizing_job *job)
{
	double g, a;

	if (job->prepared)
		return job->attn_kernel_f;
	perf_kernel_factors(job, &g, &a);
	return a;
}

/* The length term of the attention rate, s / (s + attn_half_seq) for
 * the keys a query block walks through: the sequence a kernel sees, or
 * the window or chunk of a local layer (a 128-token window leaves each
 * query block one or two key blocks, far below the kernel's rate on
 * long rows); over a model with both kinds, their FLOPs-weighted
 * harmonic mean (perf_attn_layers' shares). */
static double perf_attn_length_f(const sizing_job *job, const perf_params *pp,
				 double s_seq)
{
	const autosize_model *m = job->model;
	double half = pp->attn_half_seq, w = perf_local_span(m), all, win, f_s;

	f_s = s_seq / (s_seq + half);
	all = perf_attn_layers(m, job->seq_len);
	if (w <= 0 || w >= job->seq_len || all <= 0)
		return f_s;
	win = all - (autosize_model_attn_layers(m) - m->window_layers);
	if (w > s_seq)
		w = s_seq;
	return all / ((all - win) / f_s + win * (w + half) / w);
}

static double perf_attn_rate(const sizing_job *job, const sizing_layout *lay)
{
	const perf_params *pp = sizing_perf(job);
	double rate = perf_attn_peak_rate(job);
	/* ring attention's chunk; DeepSpeed-Ulysses runs the whole
	 * sequence of a rank's heads */
	double s_seq = (double)job->seq_len /
		       (SIZING_CP(lay) > 1 &&
			!framework_cp_ulysses(job->framework)
			? SIZING_CP(lay) : 1);

	rate *= perf_attn_kernel_f(job);
	if (job->flash_attention && pp->attn_half_seq > 0)
		rate *= perf_attn_length_f(job, pp, s_seq);
	/* unfused attention computes the whole square and masks it, the
	 * windowed layers' too (eager sliding-window masks): the counted
	 * FLOPs take the time of the layers without windows */
	if (!job->flash_attention &&
	    autosize_model_attn_layers(job->model) > 0)
		rate *= perf_attn_layers(job->model, job->seq_len) /
			autosize_model_attn_layers(job->model);
	return rate;
}

/* FLOP/s of the Mamba-2 scan (perf_ssm_flops): the chunked SSD
 * algorithm runs as batched matmuls within 128-token chunks and a scan
 * over the chunks' states (Dao & Gu 2024, arXiv:2405.21060, section 6),
 * benchmarked there against FlashAttention-2 (section 9.3, Fig. 10):
 * taken at the attention kernels' rate (attn_share of the large-GEMM
 * rate, the stack's attention kernel factor), without the causal or
 * length terms, which its fixed chunk does not follow. */
static double perf_ssm_rate(const sizing_job *job)
{
	const perf_params *pp = sizing_perf(job);

	return perf_base_peak(job) * pp->gemm_eff_max * pp->attn_share *
	       perf_attn_kernel_f(job);
}

/* Share of the matmul FLOPs in routed experts (MoE), 0 for dense. */
static double perf_expert_share(const autosize_model *m)
{
	double mult = m->mlp == AUTOSIZE_MLP_SWIGLU ? 3 : 2;
	double routed, all;

	if (m->experts <= 1)
		return 0;
	all = perf_matmul_params(m);
	if (all <= 0)
		return 0;
	routed = (double)autosize_model_moe_layers(m) * m->experts_active *
		 m->ffn * m->hidden * mult;
	return routed < all ? routed / all : 1;
}

/* GEMM dimension of a routed expert: the tokens it receives per
 * micro-batch (its rank's experts get tokens from all ep ranks: tokens x
 * ep x top-k / experts), its width per TP rank, the hidden size. */
static double perf_expert_dim(const sizing_job *job, const sizing_layout *lay,
			      double tokens)
{
	const autosize_model *m = job->model;
	double dim = tokens * SIZING_EP(lay) * m->experts_active / m->experts;
	double width = (double)m->ffn / sizing_etp(job, lay);

	if (dim > width)
		dim = width;
	return dim < m->hidden ? dim : m->hidden;
}

double sizing_microbatch_bound_s(const sizing_job *job,
				 const sizing_layout *lay)
{
	const autosize_model *m = job->model;
	const perf_params *pp = sizing_perf(job);
	double tokens = (double)job->seq_len * lay->micro_batch /
			SIZING_CP(lay);
	double dim = (double)m->hidden / lay->tp, eff, attn;

	if (tokens < dim)
		dim = tokens;
	/* routed experts may run wider GEMMs than the dense ones */
	eff = m->experts > 1 ? pp->gemm_eff_max : perf_gemm_eff(pp, dim);
	/* attention at its fastest (perf_attn_rate without the factors
	 * of at most 1: length, torch_eff, a stack's kernel_eff) */
	attn = perf_attn_of(job);
	return perf_stage_layers(m, lay) / m->layers / lay->tp * tokens *
	       ((sizing_model_flops_per_token(job) - attn) *
		perf_fp8_factor(job, pp) / (perf_base_peak(job) * eff) +
		attn / perf_attn_peak_rate(job));
}

/* 1 when --moe-overlap applies to lay (framework_moe_overlap_ok). */
static int perf_moe_overlap(const sizing_job *job, const sizing_layout *lay)
{
	return framework_moe_overlap_ok(job->moe_overlap, job->framework,
					SIZING_EP(lay), lay->pp, lay->vp,
					lay->recompute);
}

/* Exposed host issue time of the routed experts of one micro-batch on
 * one stage: each MoE layer issues its local experts one at a time
 * where the framework does (framework_profile.expert_issue: Megatron-
 * Core's alltoall dispatcher copies the tokens per expert to the host
 * every MoE layer and its grouped MLP launches each expert's GEMMs and
 * FP8 casts; Megatron Core MoE report, arXiv:2603.07685, section 4.3),
 * so the GPU cannot run ahead: the generation's expert_host_s per local
 * expert and pass unit (the forward one, the backward two, a
 * recomputed forward one more), and under FP8 its expert_fp8_host_s
 * more where the generation's FP8 recipe scales per tensor (Hopper's
 * delayed and current scaling: an amax reduction and a cast of each
 * expert GEMM's inputs; Blackwell's MXFP8 computes its block scales
 * inside the cast, 0 there). The all-to-all overlap (--moe-overlap)
 * keeps it: Megatron's combined 1F1B runs the same grouped MLP from the
 * one host thread (models/gpt/fine_grained_callables.py), so what it
 * hides is the exchange, not the issue. Under the flex dispatchers
 * (DeepEP, HybridEP) the whole of it, the FP8 part too, is the
 * generation's expert_flex_host_cut less: the constants were fitted on
 * runs of the alltoall dispatcher, and absorb its own host work every
 * MoE layer (the all-to-all's split lists copied to the host, the
 * permutes and the chunk sorts around it: Megatron-LM
 * token_dispatcher.py, MoEAlltoAllTokenDispatcher), work the flex path
 * does without split lists or chunk sorts, HybridEP with the permutes
 * fused into its dispatch and combine (_HybridEPManager; DeepEP permutes
 * apart, _DeepepManager); both still bring the token counts to the
 * host. Where the fit put that work, in the base or the FP8 part, no run
 * tells apart: the cut is a share of the sum. */
static double perf_moe_host_s(const sizing_job *job, const sizing_layout *lay,
			      double layers, double share)
{
	const autosize_model *m = job->model;
	const perf_params *pp = sizing_perf(job);
	framework_profile fp;
	double local, per_s;

	if (m->experts <= 1 || m->layers <= 0 ||
	    !(job->prepared ? job->expert_issue
			    : framework_profile_job(job, &fp)->expert_issue))
		return 0;
	local = (double)m->experts / SIZING_EP(lay);
	per_s = pp->expert_host_s;
	if (job->precision == AUTOSIZE_PREC_FP8)
		per_s += pp->expert_fp8_host_s;
	if (pp->expert_flex_host_cut > 0 &&
	    autosize_moe_dispatcher_flex(sizing_layout_dispatcher(job, lay)))
		per_s *= 1 - pp->expert_flex_host_cut;
	return layers * autosize_model_moe_layers(m) / m->layers * local *
	       (3.0 + share) * per_s;
}

/* Bytes per 4-bit base weight (MEMORY_NF4_BYTES in memory.c: 4.127
 * bits, QLoRA paper section 3). */
#define PERF_NF4_BYTES (4.127 / 8.0)
/* 4-bit base weight bytes a QLoRA matmul dequantizes per pass: NF4
 * read, its 16-bit copy written and read back by the GEMM. */
#define PERF_DEQUANT_BYTES (PERF_NF4_BYTES + 2.0 + 2.0)

/* Time a named stack adds to one micro-batch on one stage beyond the
 * engine's kernels: host overhead per layer and pass (eager Python
 * modeling code and adapter layers: stacks: layer_overhead_s, forward
 * and backward, again when recomputed), and under QLoRA the
 * dequantization of each layer's 4-bit base weights before every matmul
 * pass (forward, backward, recomputed forward; QLoRA paper section 3:
 * "dequantize the storage data type to the computation data type"), at
 * the stack's share of HBM bandwidth. */
static double perf_stack_host_s(const sizing_job *job,
				const sizing_layout *lay, double layers,
				double passes)
{
	const perfdata_stack *st = job->stack;
	double t, deq_passes;

	if (!st)
		return 0;
	t = layers * autosize_model_sublayer_share(job->model) *
	    st->layer_overhead_s * passes;
	if (job->train_mode == AUTOSIZE_TRAIN_QLORA && st->dequant_eff > 0) {
		deq_passes = 2.0 + sizing_recompute_share(job, lay);
		t += layers * (job->prepared ? job->layer_params
			       : sizing_params_per_gpu(job, lay) /
				 job->model->layers) / lay->tp *
		     PERF_DEQUANT_BYTES * deq_passes /
		     (job->part->gpu->hbm_gbs * 1e9 * st->dequant_eff);
	}
	return t;
}

/* The output head in layers (sizing.h). */
int sizing_head_layers(const autosize_model *m, double *work)
{
	double head = (double)m->vocab * m->hidden, body;

	*work = 0;
	if (m->arch_synthetic || m->layers <= 0)
		return -1;
	body = perf_matmul_params(m) - head;
	if (body <= 0)
		return -1;
	*work = head / (body / m->layers);
	return 0;
}

/* The last pipeline splits of this thread (sizing_layout_stages), by
 * what they depend on: the search times every layout of a few shapes.
 * Forgotten when a job is (re)prepared (sizing_perf_prepare). */
#define PERF_SPLIT_MEMO 16

typedef struct perf_split_key {
	const sizing_job *job;
	int pp, vp, plain, cap;
} perf_split_key;

static __thread struct {
	perf_split_key key[PERF_SPLIT_MEMO];
	int split[PERF_SPLIT_MEMO][4];
	int valid[PERF_SPLIT_MEMO];
} perf_split_memo;

/* The pipeline split lay runs in (sizing.h). */
int sizing_layout_stages(const sizing_job *job, const sizing_layout *lay,
			 int *first, int *middle, int *last)
{
	const autosize_model *m = job->model;
	int vp = lay->vp > 1 ? lay->vp : 1, i, rv;
	double work = 0;
	perf_split_key k;
	int *c;

	*first = *middle = *last = 0;
	if (lay->pp <= 1 ||
	    framework_resolve(job->framework) != AUTOSIZE_FRAMEWORK_MEGATRON)
		return -1;
	memset(&k, 0, sizeof(k));
	k.job = job;
	k.pp = lay->pp;
	k.vp = vp;
	k.plain = (lay->recompute == AUTOSIZE_RECOMPUTE_FULL &&
		   lay->recompute_layers > 0) || m->mamba_layers > 0 ||
		  sizing_head_layers(m, &work) < 0;
	/* a middle stage may hold up to cap layers (its activations and
	 * model states against the first's): all the split depends on */
	k.cap = k.plain ? 0 : (int)floor(sizing_middle_stage_cap(job, lay) +
					 1e-9);
	i = (k.pp * 7 + k.vp * 3 + k.cap) & (PERF_SPLIT_MEMO - 1);
	c = perf_split_memo.split[i];
	if (job->prepared && perf_split_memo.valid[i] &&
	    !memcmp(&perf_split_memo.key[i], &k, sizeof(k))) {
		*first = c[0];
		*middle = c[1];
		*last = c[2];
		return c[3];
	}
	rv = k.plain ? stages_megatron_split(m->layers, lay->pp, vp, first,
					     middle, last)
		     : stages_megatron_split_head(m->layers, lay->pp, vp,
						  work, k.cap, first, middle,
						  last);
	if (job->prepared) {
		perf_split_memo.key[i] = k;
		c[0] = *first;
		c[1] = *middle;
		c[2] = *last;
		c[3] = rv;
		perf_split_memo.valid[i] = 1;
	}
	return rv;
}

/*
 * Layers' worth of work the output head adds to the busiest pipeline
 * stage. The head's matmul (V x h) runs on the last stage (Narayanan et
 * al. 2021, section 3.2). Under Megatron the stages are the ones its
 * launch line sets (sizing_layout_stages: the head balanced by moving
 * layers off the last stage where the plan's memory allows): the
 * busiest of max(first, middle, last + head). Elsewhere the last stage
 * takes x layers and the head, the other pp - 1 stages the rest: the
 * busiest is min over x of max(ceil((L - x) / (pp - 1)), x + head)
 * (DeepSpeed's pipeline partitions by parameters, the head counted).
 * Against ceil(L / pp) without the head; 0 without a pipeline or for a
 * model known only by its size.
 */
static double perf_head_extra_layers(const sizing_job *job,
				     const sizing_layout *lay)
{
	const autosize_model *m = job->model;
	double head, best, per;
	int x, rest, first, middle, last;

	if (lay->pp <= 1 || sizing_head_layers(m, &head) < 0)
		return 0;
	per = perf_stage_layers(m, lay);
	if (sizing_layout_stages(job, lay, &first, &middle, &last) >= 0) {
		best = first > middle ? first : middle;
		if (last + head > best)
			best = last + head;
		return best > per ? best - per : 0;
	}
	best = per + head;
	for (x = 0; x <= (int)per; x++) {
		double b;

		rest = (m->layers - x + lay->pp - 2) / (lay->pp - 1);
		b = rest > x + head ? rest : x + head;
		if (b < best)
			best = b;
	}
	return best > per ? best - per : 0;
}

/* Compute time of one micro-batch on one pipeline stage; parts (NULL
 * or PERF_PARTS values) gets its GEMM, attention, element-wise and host
 * shares. */
enum { PERF_GEMM, PERF_ATTN, PERF_EW, PERF_HOST, PERF_PARTS };

static double perf_microbatch_compute_s(const sizing_job *job,
					const sizing_layout *lay, double hw,
					double *parts)
{
	const autosize_model *m = job->model;
	const perf_params *pp = sizing_perf(job);
	/* context parallelism: each rank holds s / cp of the sequence and
	 * its share of the attention (load-balanced ring attention) */
	double s = job->seq_len;
	double tokens = s * lay->micro_batch / SIZING_CP(lay);
	double layers = perf_stage_layers(m, lay);
	double exp_frac = perf_expert_share(m), eff_exp;
	double peak = perf_base_peak(job);
	double hbm = job->part->gpu->hbm_gbs * 1e9 * pp->hbm_eff;
	double attn_model = perf_attn_of(job);
	double attn_hw = attn_model;
	double ssm_hw = perf_ssm_flops(job);
	double share = sizing_recompute_share(job, lay);
	double sub = autosize_model_sublayer_share(m);
	double dense_hw, dim, eff, t, ew, passes, t_gemm, t_attn, host;

	if (lay->recompute == AUTOSIZE_RECOMPUTE_FULL) {
		attn_hw += share * attn_model / 3.0;
		ssm_hw *= 1.0 + share / 3.0;
	} else if ((lay->recompute == AUTOSIZE_RECOMPUTE_SELECTIVE &&
		    !framework_op_sac(job)) ||
		   lay->recompute == AUTOSIZE_RECOMPUTE_SELECTIVE_MLP) {
		/* sizing_hw_flops_per_token: the attention core's forward
		 * again (its whole forward and backward unfused), at the
		 * attention rate */
		attn_hw += job->flash_attention ? attn_model / 3.0
						: attn_model;
	}
	dense_hw = hw - attn_hw - ssm_hw;
	/* Per-GPU share of the work of this stage. */
	dense_hw = dense_hw * tokens * layers / m->layers / lay->tp;
	attn_hw = attn_hw * tokens * layers / m->layers / lay->tp;
	ssm_hw = ssm_hw * tokens * layers / m->layers / lay->tp;
	/* The smaller of the tokens and the per-rank width bounds GEMM
	 * efficiency. */
	dim = (double)m->hidden / lay->tp;
	if (tokens < dim)
		dim = tokens;
	eff = perf_gemm_eff(pp, dim);
	eff_exp = exp_frac > 0 ? perf_gemm_eff(pp, perf_expert_dim(job, lay,
								 tokens))
			       : eff;
	/* PyTorch-native stacks (FSDP as torchtitan and llm-foundry run it,
	 * DeepSpeed) without Transformer Engine's fused kernels: the
	 * generation's torch_eff of Megatron-Core's rate; a named stack's
	 * kernels against the engine's (perf.yaml stacks: kernel_eff) */
	eff *= perf_gemm_kernel_f(job);
	eff_exp *= perf_gemm_kernel_f(job);
	/* the busiest expert-parallel rank does capacity x the mean */
	if (exp_frac > 0 && SIZING_EP(lay) > 1)
		eff_exp /= perf_moe_capacity(job);
	/* GEMMs (the FP8 share faster; routed experts at their own, smaller
	 * shapes), attention at its own rate (perf_attn_rate), both 16-bit
	 * based. Key/value projections replicated over tp / kv_heads ranks
	 * (sizing_kv_replica_params) are computed on each of them: their
	 * FLOPs beyond the tp-th share, 2 a weight forward, 4 backward (2
	 * with a frozen base), 2 more when recomputed. */
	t_gemm = perf_fp8_factor(job, pp) *
		 (dense_hw * ((1 - exp_frac) / eff + exp_frac / eff_exp) +
		  tokens * layers * sizing_kv_replica_params(job, lay) *
		  ((perf_is_lora(job) ? 4.0 : 6.0) + 2.0 * share) / eff) /
		 peak;
	/* attention, and the Mamba scan reported with it, its kin */
	t_attn = attn_hw / perf_attn_rate(job, lay) +
		 (ssm_hw > 0 ? ssm_hw / perf_ssm_rate(job) : 0);
	t = t_gemm + t_attn;
	/* The output head sits on the last pipeline stage (Narayanan et
	 * al. 2021, section 3.2), not spread over the stages as above: the
	 * busiest stage carries what whole layers cannot balance away
	 * (perf_head_extra_layers) at this stage's GEMM rate */
	if (lay->pp > 1)
		t += perf_head_extra_layers(job, lay) / layers * t_gemm;
	/* Element-wise kernels are bound by HBM bandwidth; a stack's eager
	 * modeling code moves more bytes (perf.yaml stacks:
	 * elementwise_factor). */
	passes = 1.0 + share / 3.0;
	ew = tokens * layers * sub * pp->elementwise_bytes_per_h * m->hidden *
	     passes / (lay->sp ? lay->tp : 1) *
	     (job->stack ? job->stack->elementwise_factor : 1);
	if (!job->flash_attention)
		ew += tokens * layers * autosize_model_attn_layers(m) /
		      m->layers * pp->scores_bytes * m->heads * s / lay->tp;
	if (m->experts > 1)
		ew += tokens * layers * autosize_model_moe_layers(m) /
		      m->layers * (PERF_MOE_PERMUTE_BYTES_PER_H *
				   m->experts_active * m->hidden +
				   PERF_MOE_ROUTER_BYTES_PER_EXPERT *
				   m->experts) * passes /
		      (lay->sp ? lay->tp : 1);
	/* Kernel launches and synchronisation per layer: a fixed cost that
	 * does not shrink with peak FLOP/s (tens of kernels per layer,
	 * forward and backward, a few us each). */
	host = layers * sub * pp->layer_overhead_s * passes +
	       perf_moe_host_s(job, lay, layers, share) +
	       perf_stack_host_s(job, lay, layers, passes);
	if (parts) {
		parts[PERF_ATTN] = t_attn;
		parts[PERF_GEMM] = t - parts[PERF_ATTN];
		parts[PERF_EW] = ew / hbm;
		parts[PERF_HOST] = host;
	}
	return t + ew / hbm + host;
}

/* Tensor-parallel collectives of one micro-batch on one stage. */
static double perf_tp_comm_s(const sizing_job *job, const sizing_layout *lay)
{
	const autosize_model *m = job->model;
	double bytes, n_coll, t, rs, moe_share;
	int megatron;
	comm_link link;

	if (lay->tp <= 1)
		return 0;
	/* Megatron: 2 all-reduces (or all-gather + reduce-scatter pairs
	 * with sequence parallelism, same volume) of s b h 16-bit values
	 * forward and 2 backward per layer; +2 when recomputing forward
	 * (Narayanan et al. 2021, section 3.3): one each way per sublayer,
	 * a Mamba mixer's as an attention's (Megatron-Core's MambaMixer
	 * splits its heads as attention does) */
	bytes = 2.0 * job->seq_len * lay->micro_batch * m->hidden /
		SIZING_CP(lay);
	/* selective-mlp: the dense layers' MLP forward again, its
	 * collective with it (an MoE layer's MLP is not recomputed) */
	rs = sizing_recompute_share(job, lay);
	n_coll = (4 + 2 * rs) * autosize_model_sublayer_share(m) +
		 (lay->recompute == AUTOSIZE_RECOMPUTE_SELECTIVE_MLP
		  ? sizing_mlp_redone_layers(m) : 0);
	megatron = framework_resolve(job->framework) ==
		   AUTOSIZE_FRAMEWORK_MEGATRON;
	moe_share = m->layers > 0 ? (double)autosize_model_moe_layers(m) /
				    m->layers : 0;
	/* Megatron's MoE layer keeps its tokens split over the TP ranks
	 * into the router and out of the combine: no MLP collective of
	 * its own, but its shared experts' (Megatron-Core moe_layer.py,
	 * SharedExpertMLP) */
	if (megatron && m->experts_shared <= 0)
		n_coll -= (2 + rs) * moe_share;
	n_coll *= perf_stage_layers(m, lay);
	/* a TP group wider than a node holds all of each node's GPUs: one
	 * ring per rail, the node's NICs together (comm_link_group) */
	comm_link_group(job, lay->tp, SIZING_GPUS(lay), 1, &link);
	t = n_coll * comm_allreduce_s(bytes, lay->tp, &link);
	/* Megatron with sequence parallelism splits each all-gather /
	 * reduce-scatter into chunks overlapped with the GEMM that consumes
	 * or produces them (Transformer Engine userbuffers, NeMo
	 * tp_comm_overlap; Wang et al. 2023, ASPLOS, "Overlap communication
	 * with dependent computation via decomposition"): the generation's
	 * tp_overlap share is hidden. */
	if (lay->sp && megatron)
		t *= 1.0 - sizing_perf(job)->tp_overlap;
	/* the alltoall dispatcher's gather of every routed copy over the
	 * expert TP ranks and its reduce-scatter back, each way and again
	 * in a recomputed forward: top-k times a dense MLP's, at the
	 * busiest rank's load, plain NCCL calls no GEMM hides, in the
	 * expert computation the all-to-all overlap leaves on the compute
	 * stream (routed_experts_compute; sizing_etp_gather) */
	if (sizing_etp_gather(job, lay) > 1)
		t += (2 + rs) * moe_share * perf_stage_layers(m, lay) *
		     comm_allreduce_s(bytes * m->experts_active *
				      perf_moe_capacity(job), lay->tp, &link);
	return t;
}

typedef double (*perf_coll_fn)(double bytes, int n, const comm_link *l);

/*
 * Bandwidth time of one data-parallel collective f: b_dense bytes over
 * the dp x cp group, b_exp bytes of routed experts over the expert
 * data-parallel group. Megatron's rank order is tp-cp-ep-dp-pp (experts
 * etp-ep-edp-pp, parallel_state.py), the pipeline outermost: both groups
 * span the same tp x dp x cp consecutive ranks. The dense group's
 * members are strided by tp, so the job's GPUs per node / tp of them
 * share a node (all 8 with TP 1 on a whole 8-GPU node: its eight NICs,
 * comm_link_group; 4 on half of one); the expert
 * group's, edp = tp x dp x cp / (etp x ep) ranks, by etp x ep, so once
 * ep fills a node it has one member per node and one NIC. On a
 * multi-node NVLink domain (GB200 NVL72) the node is the job's share of
 * the domain: a DP group of TP 1 on 64 of a rack's GPUs drives 64 NICs,
 * up to the NVLink rate (comm_link_group).
 */
static double perf_dp_coll_s(const sizing_job *job, const sizing_layout *lay,
			     perf_coll_fn f, double b_dense, double b_exp)
{
	int d = lay->dp * SIZING_CP(lay);
	int span = lay->tp * d, stride_e = sizing_etp(job, lay) * SIZING_EP(lay);
	int de = span / stride_e;
	comm_link l;
	double t;

	comm_link_group(job, span, SIZING_GPUS(lay), lay->tp, &l);
	l.latency_s = 0;
	t = f(b_dense, d, &l);
	if (b_exp > 0 && de > 1) {
		comm_link_group(job, span, SIZING_GPUS(lay), stride_e, &l);
		l.latency_s = 0;
		t += f(b_exp, de, &l);
	}
	return t;
}

/*
 * Data-parallel communication left exposed per step. Gradients are
 * reduced (all-reduce, or reduce-scatter + all-gather with a sharded
 * optimizer: the same volume) under the backward pass of the last
 * micro-batch, or of every one where the framework does so (ZeRO-2:
 * framework_dp_reduce_each_microbatch), in the framework's wire
 * precision (framework.c). ZeRO-3 / FSDP gathers the parameters for the
 * forward and the backward of every micro-batch and reduce-scatters its
 * gradients (ZeRO paper section 7.2), prefetched under that
 * micro-batch's compute, except where the gradients are held for the
 * step (framework_fsdp_grads_held). t_mb: the compute of a micro-batch
 * that other overlapped transfers left free.
 */
static double perf_dp_exposed_s(const sizing_job *job,
				const sizing_layout *lay, double t_mb,
				double p)
{
	double grad_bytes, grad_exp, param_exp;
	double param_bytes, t, window, lat, pe;
	int hidden;
	/* context-parallel ranks hold the same weights: gradients are
	 * reduced over dp x cp (Megatron-LM) */
	int d = lay->dp * SIZING_CP(lay);
	framework_state st;

	if (d <= 1)
		return 0;
	framework_state_bytes(job, &st);
	grad_bytes = st.grad_wire_b * p;
	param_bytes = st.param_wire_b * p;
	/* routed experts, split over ep, reduce over their own group
	 * (perf_dp_coll_s); adapters (LoRA) have none */
	pe = SIZING_EP(lay) > 1 && !perf_is_lora(job)
	     ? sizing_expert_params_gpu(job, lay) : 0;
	if (pe > p)
		pe = p;
	grad_exp = st.grad_wire_b * pe;
	param_exp = st.param_wire_b * pe;
	/* ZeRO-3 / FSDP shards a frozen base too (LoRA under FSDP: the
	 * whole model is wrapped, PyTorch FSDP paper section 3.3; torchtune
	 * lora_finetune_distributed): every forward and backward gathers
	 * it, 16-bit or 4-bit, while only the adapters' gradients are
	 * reduced */
	if (lay->zero_stage >= 3 && perf_is_lora(job)) {
		double frozen = sizing_params_per_gpu(job, lay) - p;

		if (frozen > 0)
			param_bytes += frozen *
				(job->train_mode == AUTOSIZE_TRAIN_QLORA ?
				 PERF_NF4_BYTES : st.param_wire_b);
	}
	/* The pipeline is the outermost dimension (Megatron's rank order
	 * tp-cp-ep-dp-pp; torchtitan's mesh and DeepSpeed's pipe/data/model
	 * topology also put it first): a DP group spans tp x dp x cp
	 * consecutive ranks, not the whole job, so TP 4 x DP 2 stays inside
	 * an 8-GPU node at any pipeline depth. */
	/* one ring's latency, d - 1 steps of which only the node
	 * crossings take the network's (comm_ring_latency_s), per bucket:
	 * the buckets are reduced one after another on one communicator */
	lat = framework_dp_buckets(job, lay, grad_bytes, st.grad_wire_b,
				   perf_stage_layers(job->model, lay));
	lat = (lat > 1 ? lat : 1) *
	      comm_ring_latency_s(job, lay->tp * d, SIZING_GPUS(lay), lay->tp);
	if (lay->zero_stage >= 3) {
		/* each phase hides its own traffic: the forward the
		 * parameter gathers of the next layers, the backward (with
		 * any recomputed forward: 2 + share of 3 + share parts) the
		 * gathers and the gradient reduce-scatters (FSDP
		 * forward/backward prefetch; Zhao et al. 2023, PyTorch FSDP,
		 * section 3.3) */
		double share = sizing_recompute_share(job, lay);
		double ag = perf_dp_coll_s(job, lay, comm_allgather_s,
					   param_bytes - param_exp, param_exp);
		double rs = perf_dp_coll_s(job, lay, comm_reduce_scatter_s,
					   grad_bytes - grad_exp, grad_exp);
		double fwd = PERF_FSDP_OVERLAP * t_mb / (3.0 + share);
		double bwd = PERF_FSDP_OVERLAP * t_mb * (2.0 + share) /
			     (3.0 + share);
		double e_fwd = ag + 0.5 * lat - fwd, e_bwd = ag + rs + lat - bwd;

		if (framework_fsdp_step_sync(job, lay)) {
			/* under a pipeline: gathered under the step's first
			 * forward, kept, reduced under its last backward */
			e_bwd = rs + 0.5 * lat - bwd;
			return (e_fwd > 0 ? e_fwd : 0) +
			       (e_bwd > 0 ? e_bwd : 0);
		}
		if (framework_fsdp_grads_held(job, lay)) {
			/* no_sync: every micro-batch gathers, only the
			 * step's last reduce-scatters */
			double e_keep = ag + 0.5 * lat - bwd;

			return lay->grad_accum * (e_fwd > 0 ? e_fwd : 0) +
			       (lay->grad_accum - 1) *
			       (e_keep > 0 ? e_keep : 0) +
			       (e_bwd > 0 ? e_bwd : 0);
		}
		return lay->grad_accum * ((e_fwd > 0 ? e_fwd : 0) +
					  (e_bwd > 0 ? e_bwd : 0));
	}
	hidden = framework_dp_overlaps(job, lay);
	window = hidden * PERF_DP_OVERLAP * t_mb * 2.0 / 3.0;
	if (lay->zero_stage >= 1) {
		/* sharded optimizer: reduce-scatter the gradients under the
		 * last backward, all-gather the updated 16-bit parameters
		 * under the next step's first forward (Megatron
		 * dist_optimizer.md: overlap_grad_reduce and
		 * overlap_param_gather); DeepSpeed's and FSDP's ZeRO-2
		 * reduce under every micro-batch's backward
		 * (framework_dp_reduce_each_microbatch), and FSDP's gathers
		 * again for every forward, having resharded after the
		 * backward (framework_dp_gather_each_microbatch) */
		double ag = perf_dp_coll_s(job, lay, comm_allgather_s,
					   param_bytes - param_exp, param_exp);
		double ag_window = hidden * PERF_DP_OVERLAP * t_mb / 3.0;

		t = perf_dp_coll_s(job, lay, comm_reduce_scatter_s,
				   grad_bytes - grad_exp, grad_exp) + lat;
		return (t > window ? t - window : 0) *
		       (framework_dp_reduce_each_microbatch(job, lay)
			? lay->grad_accum : 1) +
		       (ag > ag_window ? ag - ag_window : 0) *
		       (framework_dp_gather_each_microbatch(job, lay)
			? lay->grad_accum : 1);
	}
	/* a ring all-reduce is two passes, reduce-scatter then all-gather:
	 * 2 (n - 1) steps, 2 (nNodes - 1) of them across nodes (NCCL's
	 * ring model) */
	t = perf_dp_coll_s(job, lay, comm_allreduce_s,
			   grad_bytes - grad_exp, grad_exp) + 2 * lat;
	return t > window ? t - window : 0;
}

/* The dispatcher lay runs (sizing.h). */
autosize_moe_dispatcher sizing_layout_dispatcher(const sizing_job *job,
						 const sizing_layout *lay)
{
	autosize_moe_dispatcher d = sizing_moe_dispatcher(job);

	if (job->model->experts <= 1)
		return AUTOSIZE_MOE_DISPATCH_DEFAULT;
	if (autosize_moe_dispatcher_flex(d) &&
	    sizing_etp(job, lay) * SIZING_EP(lay) <= 1)
		return AUTOSIZE_MOE_DISPATCH_ALLTOALL;
	return d;
}

/* Expert TP of the alltoall dispatcher's token gather (sizing.h). */
int sizing_etp_gather(const sizing_job *job, const sizing_layout *lay)
{
	if (job->model->experts <= 1 || lay->tp <= 1 ||
	    framework_resolve(job->framework) != AUTOSIZE_FRAMEWORK_MEGATRON)
		return 1;
	return sizing_etp(job, lay);
}

/* Members of lay's EP group that share NVLink with a rank: its share of
 * the NVLink domain (comm_group_peers), for DeepEP at most one node's. */
static int perf_ep_local(const sizing_job *job, const sizing_layout *lay,
			 autosize_moe_dispatcher d)
{
	int etp = sizing_etp(job, lay), ep = SIZING_EP(lay);
	int local = comm_group_peers(job, etp, ep, SIZING_GPUS(lay));
	int node = sizing_gpn(job) / etp;

	if (d == AUTOSIZE_MOE_DISPATCH_DEEPEP && local > node)
		local = node > 1 ? node : 1;
	return local;
}

/* DeepEP's exchange between trays over RDMA (sizing.h). */
int sizing_deepep_over_rdma(const sizing_job *job, const sizing_layout *lay)
{
	int etp = sizing_etp(job, lay), ep = SIZING_EP(lay);

	return ep > 1 && sizing_layout_dispatcher(job, lay) ==
			 AUTOSIZE_MOE_DISPATCH_DEEPEP &&
	       perf_ep_local(job, lay, AUTOSIZE_MOE_DISPATCH_DEEPEP) <
	       comm_group_peers(job, etp, ep, SIZING_GPUS(lay));
}

/*
 * Expert-parallel all-to-all of one micro-batch on one stage: dispatch
 * and combine of each token's hidden vector to the ranks of its top-k
 * experts, forward and backward (and again when the forward is
 * recomputed), per MoE layer (Megatron MoE alltoall dispatcher; GShard).
 * The EP group spans tp x ep consecutive ranks, so a node holds gpn / tp
 * of its members. Megatron's alltoall dispatcher sends a copy per routed
 * expert (top-k of them). DeepEP (--moe-dispatcher deepep, a stack's
 * deepep: DeepSeek-V3, arXiv:2412.19437 section 3.2.2; NeMo AutoModel's
 * dispatcher) sends a token once to each rank that holds any of its
 * experts, and across nodes once to each node, forwarding over NVLink
 * inside it: with k of E experts spread evenly over n ranks (or nodes),
 * a token reaches (n - 1)(1 - (1 - 1/n)^k) others of them, not
 * k (n - 1) / n. DeepEP's NVLink part is one node's GPUs: across the
 * trays of a multi-node NVLink domain it goes over RDMA (Megatron-Core:
 * "only hybridep backend supports the MNNVL case",
 * transformer_config.py moe_flex_dispatcher_backend). HybridEP
 * (--moe-dispatcher hybridep) deduplicates the same way with the whole
 * NVLink domain as its node.
 */
static double perf_ep_comm_s(const sizing_job *job, const sizing_layout *lay)
{
	const autosize_model *m = job->model;
	int ep = SIZING_EP(lay), local;
	autosize_moe_dispatcher d;
	double tokens, vec, n_coll, moe_share, k, in, net, nodes;

	if (ep <= 1 || m->experts <= 1 || m->layers <= 0)
		return 0;
	tokens = (double)job->seq_len * lay->micro_batch / SIZING_CP(lay) /
		 (lay->sp ? lay->tp : 1);
	/* one 16-bit hidden vector of every token, at the busiest rank's
	 * load */
	vec = 2.0 * tokens * m->hidden * perf_moe_capacity(job);
	k = m->experts_active;
	d = sizing_layout_dispatcher(job, lay);
	local = perf_ep_local(job, lay, d);
	nodes = (double)ep / local;
	if (autosize_moe_dispatcher_flex(d)) {
		net = nodes > 1 ? (nodes - 1) * (1 - pow(1 - 1 / nodes, k))
				: 0;
		/* the local peers it reaches, and the forwarding of what
		 * arrives from other nodes over NVLink */
		in = (local - 1) * (1 - pow(1 - 1.0 / ep, k)) + net;
	} else {
		in = k * (local - 1) / ep;
		net = k * (ep - local) / ep;
	}
	moe_share = (double)autosize_model_moe_layers(m) / m->layers;
	n_coll = 4 + 2 * sizing_recompute_share(job, lay);
	return n_coll * perf_stage_layers(m, lay) * moe_share *
	       comm_alltoall_parts_s(job, vec * in, vec * net);
}

/*
 * Context-parallel ring attention of one micro-batch on one stage: each
 * rank passes its K and V chunk around the ring, cp - 1 steps forward and
 * twice that backward (K, V and their gradients; Liu et al. 2023, Ring
 * Attention; Megatron-LM context parallelism), overlapped with the
 * attention it feeds: only the excess is exposed.
 */
static double perf_attn_s(const sizing_job *job, const sizing_layout *lay);

/*
 * DeepSpeed-Ulysses sequence parallelism of one micro-batch on one stage
 * (Jacobs et al. 2023, arXiv:2309.14509, section 3): before attention an
 * all-to-all turns each rank's s / cp tokens of every head into the whole
 * sequence of heads / cp heads (q, k and v), after it another turns the
 * output back; the backward pass runs both on the gradients, and a
 * recomputed forward again. What a rank receives is its post-exchange
 * q, k, v and output, (cp - 1) / cp of it from peers; key/value heads
 * fewer than tp x cp are replicated to one a rank (ALST,
 * arXiv:2506.13996). Not overlapped with compute: exposed in full.
 */
static double perf_ulysses_s(const sizing_job *job, const sizing_layout *lay)
{
	const autosize_model *m = job->model;
	int cp = SIZING_CP(lay);
	double head_dim = m->head_dim > 0 ? m->head_dim
					  : (double)m->hidden / m->heads;
	double ways = (double)lay->tp * cp, kv_rank, bytes;
	int members = comm_group_peers(job, lay->tp, cp, SIZING_GPUS(lay));

	kv_rank = head_dim * m->kv_heads / ways;
	if (kv_rank < head_dim)
		kv_rank = head_dim;
	bytes = 2.0 * job->seq_len * lay->micro_batch *
		(2.0 * autosize_model_q_width(m) / ways + 2.0 * kv_rank);
	return (2.0 + sizing_recompute_share(job, lay)) *
	       perf_stage_layers(m, lay) * perf_attn_block_share(m) *
	       comm_alltoall_s(job, bytes, cp, members);
}

/*
 * A hybrid's Mamba mixers under Megatron-Core's context parallelism
 * (ssm/mamba_context_parallel.py): before the conv and scan an
 * all-to-all turns each rank's s / cp tokens of in_proj's output (z, x,
 * B, C, dt: 2d + 2GN + H wide over TP) into the whole sequence of its
 * heads / cp, after the scan another turns the output (d) back; the
 * backward pass runs both on the gradients, a recomputed forward again.
 * What a rank holds after the exchange, as perf_ulysses_s counts it;
 * not overlapped: exposed in full. 0 without Mamba layers.
 */
static double perf_mamba_cp_s(const sizing_job *job, const sizing_layout *lay)
{
	const autosize_model *m = job->model;
	int cp = SIZING_CP(lay);
	double d = autosize_model_mamba_inner(m), bytes;
	int members;

	if (cp <= 1 || m->mamba_layers <= 0 || m->layers <= 0)
		return 0;
	members = comm_group_peers(job, lay->tp, cp, SIZING_GPUS(lay));
	bytes = 2.0 * job->seq_len * lay->micro_batch *
		(3.0 * d + 2.0 * m->mamba_groups * m->mamba_state +
		 m->mamba_heads) / ((double)lay->tp * cp);
	return (2.0 + sizing_recompute_share(job, lay)) *
	       perf_stage_layers(m, lay) * m->mamba_layers / m->layers *
	       comm_alltoall_s(job, bytes, cp, members);
}

static double perf_cp_comm_s(const sizing_job *job, const sizing_layout *lay)
{
	const autosize_model *m = job->model;
	int cp = SIZING_CP(lay);
	double head_dim = m->head_dim > 0 ? m->head_dim
					  : (double)m->hidden / m->heads;
	double kv_bytes, t;
	comm_link link;

	if (cp <= 1)
		return 0;
	if (framework_cp_ulysses(job->framework))
		return perf_ulysses_s(job, lay);
	kv_bytes = 2.0 * 2.0 * job->seq_len / cp * lay->micro_batch *
		   m->kv_heads * head_dim / lay->tp;
	/* each ring step is one send to the next rank: where it crosses
	 * nodes, one GPU's transfer on its own NIC while the node's other
	 * boundary GPUs send theirs on theirs, so one rail (one GPU's share
	 * of the node) whatever the group's members per node, as pipeline
	 * point-to-point */
	comm_link_for(job, lay->tp * cp, SIZING_GPUS(lay), &link);
	t = 3.0 * (cp - 1) * perf_stage_layers(m, lay) *
	    perf_attn_block_share(m) * comm_p2p_s(kv_bytes, &link) -
	    perf_attn_s(job, lay);
	return (t > 0 ? t : 0) + perf_mamba_cp_s(job, lay);
}

/* Attention compute of one micro-batch on one stage (what CP overlaps). */
static double perf_attn_s(const sizing_job *job, const sizing_layout *lay)
{
	double tokens = (double)job->seq_len * lay->micro_batch /
			SIZING_CP(lay);

	return perf_attn_of(job) * tokens *
	       perf_stage_layers(job->model, lay) / job->model->layers /
	       lay->tp / perf_attn_rate(job, lay);
}

/*
 * Key/value heads replicated over tp / kv_heads ranks (framework_kv_split)
 * get different weight gradients on each replica (each serves its own
 * query heads): one all-reduce per step over the replicas, inside the
 * tensor-parallel group, after the backward pass (the BigCode
 * Megatron-LM fork all-reduces them so; exposed). Nothing for a frozen
 * base (LoRA).
 */
static double perf_kv_replica_sync_s(const sizing_job *job,
				     const sizing_layout *lay)
{
	const autosize_model *m = job->model;
	int split, reps;
	double bytes;
	framework_state st;
	comm_link link;

	if (lay->tp <= 1)
		return 0;
	split = framework_kv_split(job, lay);
	reps = lay->tp / split;
	if (reps <= 1 || perf_is_lora(job) || m->kv_lora_rank > 0 ||
	    sizing_kv_replica_params(job, lay) <= 0)
		return 0;
	framework_state_bytes(job, &st);
	bytes = perf_stage_layers(m, lay) * perf_attn_block_share(m) * 2.0 *
		m->hidden * autosize_model_kv_width(m) / split *
		st.grad_wire_b;
	/* the replicas of a head are reps consecutive TP ranks */
	comm_link_group(job, reps, SIZING_GPUS(lay), 1, &link);
	return comm_allreduce_s(bytes, reps, &link);
}

/* PCIe host link of a GPU whose catalog link is NVLink (or xGMI, HCCS):
 * Gen4 x16, both directions, GB/s (A100 SXM4; H100 SXM5 boards have
 * Gen5, so this errs slow there). */
#define PERF_HOST_LINK_GBS 64.0

/*
 * --optimizer-offload: the optimizer state sits in host memory and the
 * step moves this rank's share of it in and back out over the GPU's
 * PCIe link (bitsandbytes paged optimizers page it between CPU and GPU
 * under memory pressure, Dettmers et al. 2023, QLoRA, section 3 "Paged
 * Optimizers"; DeepSpeed ZeRO-Offload moves gradients out and
 * parameters back, Ren et al. 2021, arXiv:2101.06840, section 4), one
 * way at a time, at the generation's pcie_eff of the one-way rate.
 */
/* Bytes per second one way between host memory and a GPU over its PCIe
 * link, at the generation's pcie_eff. */
static double perf_host_oneway_bps(const sizing_job *job)
{
	const autosize_gpu *g = job->part->gpu;
	double host_gbs = g->link == AUTOSIZE_LINK_PCIE ? g->link_gbs
							 : PERF_HOST_LINK_GBS;

	return host_gbs * 1e9 / 2 * sizing_perf(job)->pcie_eff;
}

/* Bytes of host memory a CPU Adam step moves per parameter: the fp32
 * master weight read and written, the fp32 gradient read, both moments
 * read and written, the 16-bit copy for the GPU written (4 + 4 + 4 + 16
 * + 2; ZeRO-Offload, Ren et al. 2021, arXiv:2101.06840, section 4.1:
 * the update runs on the CPU over the offloaded fp32 state). */
#define PERF_HOST_ADAM_BYTES 30.0

static double perf_offload_opt_s(const sizing_job *job,
				 const sizing_layout *lay, double trained)
{
	const perf_params *pp = sizing_perf(job);
	double opt_b, bytes, shard, t;
	framework_state st;
	int gpus = SIZING_GPUS(lay);
	int gpn = sizing_gpn(job), node = gpus < gpn ? gpus : gpn;

	framework_state_bytes(job, &st);
	opt_b = st.opt_b;
	if (perf_is_lora(job))
		/* the adapters' state (memory.c): fp32 master and moments,
		 * or bf16 moments where the stack keeps no master */
		opt_b = job->stack && job->stack->bf16_states ? 2 : 12;
	shard = trained / (lay->zero_stage >= 1 ? lay->dp * SIZING_CP(lay) : 1);
	bytes = opt_b * shard;
	t = 2.0 * bytes / perf_host_oneway_bps(job);
	/* a CPU optimizer (DeepSpeed CPU Adam; FSDP CPU offload's torch
	 * Adam) steps the shards of every rank the job has on the node with the
	 * node's host memory bandwidth; bitsandbytes' paged optimizers
	 * step on the GPU (above alone) */
	if ((framework_resolve(job->framework) == AUTOSIZE_FRAMEWORK_DEEPSPEED ||
	     job->param_offload) && pp->host_adam_gbs > 0)
		t += shard * node * PERF_HOST_ADAM_BYTES /
		     (pp->host_adam_gbs * 1e9);
	return t;
}

/*
 * --param-offload: every micro-batch copies this rank's parameter shard
 * in for the forward and again for the backward (FSDP unshards each unit
 * from its CPU shard per pass; DeepSpeed ZeRO-3 offload_param fetches
 * each use), and its gradient shard out (accelerate's
 * --fsdp_offload_params "offload parameters and gradients to CPU"), one
 * way at a time over PCIe. Priced exposed: FSDP's prefetch can hide part
 * of it behind the previous unit's compute, so this errs long. The
 * optimizer then steps in host memory, priced as --optimizer-offload's
 * round trip of its state (perf_offload_opt_s; a CPU Adam at host
 * memory speed is faster, so that errs long too).
 */
static double perf_offload_param_s(const sizing_job *job,
				   const sizing_layout *lay)
{
	double w, g;

	sizing_param_host_bytes(job, lay, &w, &g);
	if (!(w > 0))
		return 0;
	return lay->grad_accum * (2 * w + g) / perf_host_oneway_bps(job);
}

void sizing_step_time(const sizing_job *job, const sizing_layout *lay,
		      sizing_time *out)
{
	const autosize_model *m = job->model;
	double tokens_step = (double)job->seq_len * lay->micro_batch *
			     lay->grad_accum * lay->dp;
	double gpus = SIZING_GPUS(lay);
	double t_mb, tp_mb, pp_mb = 0, steps, bubble, hide;
	double opt_s, trained;
	double hw = perf_hw_flops(job, lay, sizing_recompute_share(job, lay));
	comm_link link;

	t_mb = perf_microbatch_compute_s(job, lay, hw, NULL);
	tp_mb = perf_tp_comm_s(job, lay);
	out->ep_comm_s = perf_ep_comm_s(job, lay);
	/* the micro-batch's compute that transfers can still hide under */
	hide = t_mb;
	/* --moe-overlap: one micro-batch's all-to-all runs under another's
	 * computation (DeepSeek-V3 DualPipe, arXiv:2412.19437 section
	 * 3.2.1; Megatron-Core --overlap-moe-expert-parallel-comm): only
	 * the excess over the computation is exposed */
	if (perf_moe_overlap(job, lay)) {
		double a2a = out->ep_comm_s;

		out->ep_comm_s = a2a > hide ? a2a - hide : 0;
		hide = a2a > hide ? 0 : hide - a2a;
	}
	out->ep_comm_s *= lay->grad_accum;
	out->cp_comm_s = lay->grad_accum * perf_cp_comm_s(job, lay);
	/* both ride along with each micro-batch slot, bubble included */
	tp_mb += (out->ep_comm_s + out->cp_comm_s) / lay->grad_accum;
	if (lay->pp > 1) {
		/* p2p activations s b h 16-bit, forward and backward */
		double bytes = 2.0 * job->seq_len / SIZING_CP(lay) *
			       lay->micro_batch *
			       m->hidden / (lay->sp ? lay->tp : 1);

		/* forward activations and backward gradients at each of
		 * the v virtual stage boundaries of a rank; the pipeline
		 * is the outermost dimension of Megatron's rank order
		 * (tp-cp-ep-dp-pp, parallel_state.py), so once the job
		 * spans nodes its stage boundaries cross them */
		comm_link_for(job, SIZING_GPUS(lay), SIZING_GPUS(lay), &link);
		double p2p = comm_p2p_s(bytes, &link);

		/* Megatron's interleaved schedule sends while the next
		 * chunk computes (on unless --no-overlap-p2p-communication):
		 * each of the 2v transfers hides under one of the 2v chunk
		 * passes, so a micro-batch takes max(compute, transfers);
		 * what the all-to-all took of the compute is not there
		 * twice */
		if (lay->vp > 1 && framework_resolve(job->framework) ==
				   AUTOSIZE_FRAMEWORK_MEGATRON) {
			double chunk = hide / (2.0 * lay->vp);
			double under = p2p < chunk ? p2p : chunk;

			hide -= 2.0 * lay->vp * under;
			p2p -= under;
		}
		pp_mb = 2.0 * (lay->vp > 1 ? lay->vp : 1) * p2p;
	}
	/* 1F1B: (m + (p - 1) / v) micro-batch slots per step. */
	steps = lay->grad_accum;
	bubble = lay->pp > 1 ? (lay->pp - 1.0) / (lay->vp > 1 ? lay->vp : 1)
			     : 0;
	out->compute_s = steps * t_mb;
	out->tp_comm_s = steps * tp_mb;
	out->pp_comm_s = steps * pp_mb;
	out->bubble_s = bubble * (t_mb + tp_mb + pp_mb);
	/* trained parameters on this rank (before ZeRO sharding) */
	trained = sizing_trained_params_per_gpu(job, lay);
	/* gradient reduction hides under what compute the last
	 * micro-batch has left over the transfers above */
	out->dp_comm_s = perf_dp_exposed_s(job, lay, hide, trained) +
			 perf_kv_replica_sync_s(job, lay);
	/* Optimizer step: a memory-bound pass over this rank's share of the
	 * 16 bytes per trained parameter (ZeRO paper: 2 + 2 + 12). */
	out->opt_s = opt_s = trained * 16 * PERF_OPT_PASSES /
		(lay->zero_stage >= 1 ? lay->dp * SIZING_CP(lay) : 1) /
		(job->part->gpu->hbm_gbs * 1e9);
	if (job->opt_offload)
		out->opt_s = opt_s = perf_offload_opt_s(job, lay, trained);
	out->offload_s = perf_offload_param_s(job, lay);
	out->step_s = out->compute_s + out->tp_comm_s + out->pp_comm_s +
		      out->bubble_s + out->dp_comm_s + opt_s + out->offload_s;
	out->model_flops_step = sizing_model_flops_per_token(job) *
				tokens_step;
	out->hw_flops_step = hw * tokens_step;
	if (job->mfu_fixed > 0) {
		/* Back-of-envelope: a fixed share of peak. */
		out->step_s = out->model_flops_step /
			      (gpus * job->peak_flops * job->mfu_fixed);
	}
	out->mfu = out->model_flops_step / (out->step_s * gpus *
					    job->peak_flops);
	out->hfu = out->hw_flops_step / (out->step_s * gpus *
					 job->peak_flops);
}

void sizing_perf_prepare(sizing_job *job)
{
	framework_profile fp;
	comm_link l;

	memset(&perf_split_memo, 0, sizeof(perf_split_memo));
	comm_link_intra(job, &l);
	job->link_bw[0] = l.bw_bytes_s;
	job->link_lat[0] = l.latency_s;
	comm_link_net(job, &l);
	job->link_bw[1] = l.bw_bytes_s;
	job->link_lat[1] = l.latency_s;
	perf_kernel_factors(job, &job->gemm_kernel_f, &job->attn_kernel_f);
	job->expert_issue = framework_profile_job(job, &fp)->expert_issue;
	job->matmul_params = perf_matmul_params(job->model);
	job->attn_flops_token = perf_attn_flops(job);
	job->flops_token = perf_model_flops(job);
}

/* The micro-batch compute of sizing_step_time as it charges it
 * (perf_microbatch_compute_s at lay's recomputation), grad_accum times
 * plus once per bubble slot: with every other term of a step >= 0, a
 * lower bound that follows any change to the compute itself. */
double sizing_microbatch_compute_s(const sizing_job *job,
				   const sizing_layout *lay)
{
	return perf_microbatch_compute_s(job, lay, perf_hw_flops(job, lay,
		sizing_recompute_share(job, lay)), NULL);
}

void sizing_step_parts(const sizing_job *job, const sizing_layout *lay,
		       sizing_time *t, autosize_step_parts *sp)
{
	sizing_layout none = *lay;
	double parts[PERF_PARTS], t_mb, t_none, sum, f;
	int i;

	sizing_step_time(job, lay, t);
	t_mb = sizing_microbatch_compute_s(job, lay);
	/* the same micro-batch without recomputation: the rest of its
	 * compute is the recomputation's */
	none.recompute = AUTOSIZE_RECOMPUTE_NONE;
	none.recompute_layers = 0;
	t_none = perf_microbatch_compute_s(job, &none,
					   perf_hw_flops(job, &none, 0), parts);
	for (i = 0; i < PERF_PARTS; i++)
		parts[i] *= lay->grad_accum;
	sp->gemm_s = parts[PERF_GEMM];
	sp->attention_s = parts[PERF_ATTN];
	sp->elementwise_s = parts[PERF_EW];
	sp->host_s = parts[PERF_HOST];
	sp->recompute_s = lay->grad_accum * (t_mb - t_none);
	sp->tp_comm_s = t->tp_comm_s - t->ep_comm_s - t->cp_comm_s;
	sp->cp_comm_s = t->cp_comm_s;
	sp->ep_comm_s = t->ep_comm_s;
	sp->pp_comm_s = t->pp_comm_s;
	sp->dp_comm_s = t->dp_comm_s;
	sp->bubble_s = t->bubble_s;
	sp->optimizer_s = t->opt_s;
	sp->offload_s = t->offload_s;
	sp->fixed_mfu = job->mfu_fixed > 0;
	/* a fixed utilization sets the step alone: the parts keep their
	 * proportions */
	sum = sp->gemm_s + sp->attention_s + sp->elementwise_s + sp->host_s +
	      sp->recompute_s + sp->tp_comm_s + sp->cp_comm_s + sp->ep_comm_s +
	      sp->pp_comm_s + sp->dp_comm_s + sp->bubble_s + sp->optimizer_s +
	      sp->offload_s;
	f = sum > 0 ? t->step_s / sum : 0;
	if (sp->fixed_mfu)
		autosize_step_parts_scale(sp, f);
}

void autosize_step_parts_scale(autosize_step_parts *sp, double f)
{
	static const size_t off[] = {
		offsetof(autosize_step_parts, gemm_s),
		offsetof(autosize_step_parts, attention_s),
		offsetof(autosize_step_parts, elementwise_s),
		offsetof(autosize_step_parts, host_s),
		offsetof(autosize_step_parts, recompute_s),
		offsetof(autosize_step_parts, tp_comm_s),
		offsetof(autosize_step_parts, cp_comm_s),
		offsetof(autosize_step_parts, ep_comm_s),
		offsetof(autosize_step_parts, pp_comm_s),
		offsetof(autosize_step_parts, dp_comm_s),
		offsetof(autosize_step_parts, bubble_s),
		offsetof(autosize_step_parts, optimizer_s),
		offsetof(autosize_step_parts, offload_s),
	};
	size_t i;

	for (i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		*(double *)((char *)sp + off[i]) *= f;
}
