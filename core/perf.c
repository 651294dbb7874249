/*
 * autosize: FLOPs and step time of a layout on a partition.
 *
 * The step is built from its parts: matmul time at a shape-dependent
 * efficiency, memory-bound element-wise work at HBM speed, tensor-parallel
 * collectives on the intra-node link, pipeline bubble and p2p transfers,
 * and data-parallel gradient reduction over the network, partly hidden
 * behind the backward pass. One set of constants serves every GPU and run.
 */
#include <math.h>
#include "sizing.h"

/*
 * Constants: physical quantities whose values were calibrated once, for all
 * runs together, against tests/validation/runs.yaml (make validate; the
 * table is tests/validation/REPORT.md). None is fitted to a single run.
 *
 * Dense-GEMM share of peak sustained inside a training step on large
 * shapes (isolated cuBLAS GEMMs reach ~0.85; launch gaps and cache
 * effects take the rest). */
#ifndef PERF_GEMM_EFF_MAX
#define PERF_GEMM_EFF_MAX 0.75
#endif
/* GEMM dimension at which efficiency is half of PERF_GEMM_EFF_MAX. */
#ifndef PERF_GEMM_HALF_DIM
#define PERF_GEMM_HALF_DIM 190.0
#endif
/* FlashAttention kernels reach a lower share of peak than plain GEMMs
 * (FlashAttention-2 paper: 50-73% of A100 peak forward+backward). */
#ifndef PERF_ATTN_EFF_SHARE
#define PERF_ATTN_EFF_SHARE 0.72
#endif
/* HBM bytes moved per token, per layer, per hidden unit, by the
 * element-wise kernels (norms, residuals, activation, dropout, rotary,
 * cast) over forward and backward. */
#ifndef PERF_ELEMWISE_BYTES_PER_H
#define PERF_ELEMWISE_BYTES_PER_H 170.0
#endif
/* HBM bytes per token per layer per (head x seq) for unfused softmax,
 * masking and dropout on the s x s scores (no FlashAttention). */
#ifndef PERF_SCORES_BYTES
#define PERF_SCORES_BYTES 44.0
#endif
/* Share of a link's nominal one-way bandwidth NCCL reaches (bus bw). */
#ifndef PERF_NVLINK_EFF
#define PERF_NVLINK_EFF 0.73
#endif
#ifndef PERF_PCIE_EFF
#define PERF_PCIE_EFF 0.60
#endif
/* Network efficiency by kind (NCCL over IB verbs, RoCE, TCP sockets)
 * and latency per collective step. */
#ifndef PERF_IB_EFF
#define PERF_IB_EFF 0.80
#endif
#ifndef PERF_ROCE_EFF
#define PERF_ROCE_EFF 0.70
#endif
#ifndef PERF_ETH_EFF
#define PERF_ETH_EFF 0.35
#endif
#ifndef PERF_IB_LATENCY_S
#define PERF_IB_LATENCY_S 8e-6
#endif
#ifndef PERF_ROCE_LATENCY_S
#define PERF_ROCE_LATENCY_S 12e-6
#endif
#ifndef PERF_ETH_LATENCY_S
#define PERF_ETH_LATENCY_S 60e-6
#endif
/* Gradient bucket (PyTorch DDP / Megatron default ~25-40 MB). */
#ifndef PERF_BUCKET_BYTES
#define PERF_BUCKET_BYTES 40e6
#endif
/* Share of the last backward pass that overlaps gradient reduction. */
#ifndef PERF_DP_OVERLAP
#define PERF_DP_OVERLAP 0.72
#endif
/* Optimizer step reads and writes its state once: bytes per parameter
 * of state moved, on HBM. */
#ifndef PERF_OPT_PASSES
#define PERF_OPT_PASSES 2.0
#endif

double sizing_mfu_upper_bound(void)
{
	return PERF_GEMM_EFF_MAX;
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

/* Attention-score FLOPs per token, 12 L h s (PaLM, Chowdhery et al.
 * 2022, appendix B; Megatron eq. 3); unknown (0) for a model known only
 * by its parameter count, which is then sized by 6ND alone. */
static double perf_attn_flops(const sizing_job *job)
{
	const autosize_model *m = job->model;

	if (m->arch_synthetic)
		return 0;
	return 12.0 * m->layers * m->hidden * job->seq_len;
}

double sizing_model_flops_per_token(const sizing_job *job)
{
	/* 6N for forward + backward plus attention. A frozen base (LoRA)
	 * skips the weight gradients: 4N. */
	const autosize_model *m = job->model;
	double attn = perf_attn_flops(job);

	if (perf_is_lora(job))
		return 4.0 * perf_matmul_params(m) + attn;
	return 6.0 * perf_matmul_params(m) + attn;
}

double sizing_hw_flops_per_token(const sizing_job *job,
				 autosize_recompute rc)
{
	const autosize_model *m = job->model;
	double f = sizing_model_flops_per_token(job);
	double attn = perf_attn_flops(job);

	/* Full recomputation repeats the forward pass (2N + 4Lhs);
	 * selective repeats the attention core (Korthikanti et al. 2022,
	 * eq. 8: 1 + s/3h instead of 1 + s/6h). */
	if (rc == AUTOSIZE_RECOMPUTE_FULL)
		return f + 2.0 * perf_matmul_params(m) + attn / 3.0;
	if (rc == AUTOSIZE_RECOMPUTE_SELECTIVE && !job->flash_attention)
		return f + attn;
	return f;
}

/* Layers on the busiest pipeline stage: stages may be uneven when pp does
 * not divide the layers (Megatron's uneven first/last stages; Llama 3
 * 405B ran 126 layers on 16 stages). */
static double perf_stage_layers(const autosize_model *m,
				const sizing_layout *lay)
{
	return (double)((m->layers + lay->pp - 1) / lay->pp);
}

static double perf_gemm_eff(double dim)
{
	return PERF_GEMM_EFF_MAX * dim / (dim + PERF_GEMM_HALF_DIM);
}

/* Intra-node GPU-to-GPU bandwidth NCCL reaches, bytes/s one way. */
static double perf_intra_bw(const autosize_partition *part)
{
	double eff = part->intra_link == AUTOSIZE_LINK_PCIE ? PERF_PCIE_EFF
							     : PERF_NVLINK_EFF;

	return part->intra_gbs * 1e9 / 2 * eff;
}

static void perf_net(const autosize_partition *part, double *bw_per_gpu,
		     double *latency_s)
{
	double eff = PERF_IB_EFF;

	*latency_s = PERF_IB_LATENCY_S;
	if (part->net == AUTOSIZE_NET_ROCE) {
		eff = PERF_ROCE_EFF;
		*latency_s = PERF_ROCE_LATENCY_S;
	} else if (part->net == AUTOSIZE_NET_ETHERNET) {
		eff = PERF_ETH_EFF;
		*latency_s = PERF_ETH_LATENCY_S;
	}
	*bw_per_gpu = part->net_gbps_per_node * 1e9 / 8 * eff /
		      part->gpus_per_node;
}

/* Ring all-reduce (or reduce-scatter + all-gather) of bytes over n
 * ranks: 2 (n - 1) / n x bytes at bandwidth bw, plus latency. */
static double perf_allreduce_s(double bytes, int n, double bw, double lat)
{
	if (n <= 1 || bytes <= 0)
		return 0;
	return 2.0 * (n - 1) / n * bytes / bw + 2.0 * (n - 1) * lat;
}

/* Compute time of one micro-batch on one pipeline stage. */
static double perf_microbatch_compute_s(const sizing_job *job,
					const sizing_layout *lay)
{
	const autosize_model *m = job->model;
	double s = job->seq_len, tokens = s * lay->micro_batch;
	double layers = perf_stage_layers(m, lay);
	double peak = job->peak_flops, hbm = job->part->gpu->hbm_gbs * 1e9;
	double attn_model = perf_attn_flops(job);
	double hw = sizing_hw_flops_per_token(job, lay->recompute);
	double attn_hw = attn_model;
	double dense_hw, dim, eff, t, ew, passes;

	if (lay->recompute == AUTOSIZE_RECOMPUTE_FULL)
		attn_hw += attn_model / 3.0;
	else if (lay->recompute == AUTOSIZE_RECOMPUTE_SELECTIVE &&
		 !job->flash_attention)
		attn_hw += attn_model;
	dense_hw = hw - attn_hw;
	/* Per-GPU share of the work of this stage. */
	dense_hw = dense_hw * tokens * layers / m->layers / lay->tp;
	attn_hw = attn_hw * tokens * layers / m->layers / lay->tp;
	/* The smaller of the tokens and the per-rank width bounds GEMM
	 * efficiency. */
	dim = (double)m->hidden / lay->tp;
	if (tokens < dim)
		dim = tokens;
	eff = perf_gemm_eff(dim);
	t = dense_hw / (peak * eff) +
	    attn_hw / (peak * eff * PERF_ATTN_EFF_SHARE);
	/* Element-wise kernels are bound by HBM bandwidth. */
	passes = lay->recompute == AUTOSIZE_RECOMPUTE_FULL ? 4.0 / 3.0 : 1.0;
	ew = tokens * layers * PERF_ELEMWISE_BYTES_PER_H * m->hidden *
	     passes / (lay->sp ? lay->tp : 1);
	if (!job->flash_attention)
		ew += tokens * layers * PERF_SCORES_BYTES * m->heads * s /
		      lay->tp;
	return t + ew / hbm;
}

/* Tensor-parallel collectives of one micro-batch on one stage. */
static double perf_tp_comm_s(const sizing_job *job, const sizing_layout *lay)
{
	const autosize_model *m = job->model;
	double bytes, n_coll, bw, lat, net_bw;
	int gpn = job->part->gpus_per_node;

	if (lay->tp <= 1)
		return 0;
	/* Megatron: 2 all-reduces (or all-gather + reduce-scatter pairs
	 * with sequence parallelism, same volume) of s b h 16-bit values
	 * forward and 2 backward per layer; +2 when recomputing forward
	 * (Narayanan et al. 2021, section 3.3). */
	bytes = 2.0 * job->seq_len * lay->micro_batch * m->hidden;
	n_coll = 4 + (lay->recompute == AUTOSIZE_RECOMPUTE_FULL ? 2 : 0);
	n_coll *= perf_stage_layers(m, lay);
	bw = perf_intra_bw(job->part);
	lat = 5e-6;
	if (lay->tp > gpn) {
		perf_net(job->part, &net_bw, &lat);
		bw = net_bw;
	}
	return n_coll * perf_allreduce_s(bytes, lay->tp, bw, lat);
}

/*
 * Data-parallel communication left exposed per step. Gradients are
 * reduced once per step (all-reduce, or reduce-scatter + all-gather with a
 * sharded optimizer: the same volume), under the backward pass of the last
 * micro-batch. ZeRO-3 / FSDP gathers the parameters for the forward and
 * the backward of every micro-batch and reduce-scatters its gradients
 * (1.5x the volume, ZeRO paper section 7.2), prefetched under that
 * micro-batch's compute.
 */
static double perf_dp_exposed_s(const sizing_job *job,
				const sizing_layout *lay, double t_mb)
{
	double p = sizing_trained_params_per_gpu(job, lay), bytes, bw, lat;
	double t, window;
	int gpn = job->part->gpus_per_node, d = lay->dp;

	if (d <= 1)
		return 0;
	bytes = 2.0 * p;        /* 16-bit gradients and parameters */
	if (lay->tp * lay->pp * d <= gpn) {
		bw = perf_intra_bw(job->part);
		lat = 5e-6;
	} else {
		perf_net(job->part, &bw, &lat);
	}
	/* one latency per bucket and ring step, pipelined 8 deep */
	lat = ceil(bytes / PERF_BUCKET_BYTES) * (d - 1) * lat / 8;
	if (lay->zero_stage >= 3) {
		t = 3.0 * (d - 1) / d * bytes / bw + 1.5 * lat;
		window = PERF_DP_OVERLAP * t_mb;
		return lay->grad_accum * (t > window ? t - window : 0);
	}
	t = perf_allreduce_s(bytes, d, bw, 0) + lat;
	window = PERF_DP_OVERLAP * t_mb * 2.0 / 3.0;
	return t > window ? t - window : 0;
}

void sizing_step_time(const sizing_job *job, const sizing_layout *lay,
		      sizing_time *out)
{
	const autosize_model *m = job->model;
	double tokens_step = (double)job->seq_len * lay->micro_batch *
			     lay->grad_accum * lay->dp;
	double gpus = (double)lay->tp * lay->pp * lay->dp;
	double t_mb, tp_mb, pp_mb = 0, steps, bubble;
	double net_bw, lat, opt_s, trained;
	int gpn = job->part->gpus_per_node;

	t_mb = perf_microbatch_compute_s(job, lay);
	tp_mb = perf_tp_comm_s(job, lay);
	if (lay->pp > 1) {
		/* p2p activations s b h 16-bit, forward and backward */
		double bytes = 2.0 * job->seq_len * lay->micro_batch *
			       m->hidden / (lay->sp ? lay->tp : 1);

		perf_net(job->part, &net_bw, &lat);
		if (lay->tp * lay->pp <= gpn)
			net_bw = perf_intra_bw(job->part);
		pp_mb = 2.0 * (bytes / net_bw + lat);
	}
	/* 1F1B: (m + (p - 1) / v) micro-batch slots per step. */
	steps = lay->grad_accum;
	bubble = lay->pp > 1 ? (lay->pp - 1.0) / (lay->vp > 1 ? lay->vp : 1)
			     : 0;
	out->compute_s = steps * t_mb;
	out->tp_comm_s = steps * tp_mb;
	out->pp_comm_s = steps * pp_mb;
	out->bubble_s = bubble * (t_mb + tp_mb + pp_mb);
	out->dp_comm_s = perf_dp_exposed_s(job, lay, t_mb);
	/* Optimizer step: a memory-bound pass over this rank's share of the
	 * 16 bytes per trained parameter (ZeRO paper: 2 + 2 + 12). */
	trained = sizing_trained_params_per_gpu(job, lay);
	opt_s = trained * 16 * PERF_OPT_PASSES /
		(lay->zero_stage >= 1 ? lay->dp : 1) /
		(job->part->gpu->hbm_gbs * 1e9);
	out->step_s = out->compute_s + out->tp_comm_s + out->pp_comm_s +
		      out->bubble_s + out->dp_comm_s + opt_s;
	out->model_flops_step = sizing_model_flops_per_token(job) *
				tokens_step;
	out->hw_flops_step = sizing_hw_flops_per_token(job, lay->recompute) *
			     tokens_step;
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
