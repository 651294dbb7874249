/*
 * Unit tests of the memory and time terms on hand-computed cases.
 */
#include "testutil.h"
#include "autosize.h"
#include "catalog_fixture.h"
#include "sizing.h"
#include "framework_private.h"
#include "perfdata.h"
#include "comm.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static void job_for(sizing_job *job, const autosize_model *m,
		    autosize_partition *part, const char *gpu)
{
	const autosize_gpu *g = autosize_catalog_find(catalog, gpu);

	assert_non_null(g);
	autosize_partition_reference(part, g, 8);
	memset(job, 0, sizeof(*job));
	job->model = m;
	job->part = part;
	job->seq_len = 2048;
	job->global_batch = 512;
	job->flash_attention = 0;
	job->lora_rank = 16;
	job->tokens = 1e9;
	job->peak_flops = autosize_gpu_peak_flops(g, AUTOSIZE_PREC_BF16);
	job->usable_bytes = g->mem_bytes * 0.8;
}

static sizing_layout layout(int tp, int pp, int dp, int zero, int mb,
			    autosize_recompute rc)
{
	sizing_layout l = {tp, pp, dp, 1, zero, mb, 1, tp > 1, rc, 1, 1, 0, 0};

	return l;
}

/* ZeRO paper (Rajbhandari et al. 2020) section 5: 7.5B parameters, 64-way
 * data parallelism, mixed-precision Adam: 120 / 31.4 / 16.6 / 1.9 GB of
 * model states (decimal GB) for stages 0-3. */
static void test_zero_paper_model_states(void **state)
{
	static const double want_gb[4] = {120, 31.4, 16.6, 1.9};
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	autosize_error e;
	int z;

	autosize_model_init(&m);
	m.params = 7.5e9;
	assert_int_equal(autosize_model_synthesize(&m, &e), 0);
	job_for(&job, &m, &part, "A100-SXM4-80GB");
	job.framework = AUTOSIZE_FRAMEWORK_DEEPSPEED;  /* the ZeRO paper's */
	for (z = 0; z <= 3; z++) {
		sizing_layout l = layout(1, 1, 64, z, 1,
					 AUTOSIZE_RECOMPUTE_FULL);
		autosize_memory mem;
		double states_gb;

		sizing_memory(&job, &l, &mem);
		states_gb = (mem.weights_bytes + mem.gradients_bytes +
			     mem.optimizer_bytes) / 1e9;
		printf("  ZeRO-%d: %.2f GB (paper %.1f)\n", z, states_gb,
		       want_gb[z]);
		/* the paper rounds to 3 significant digits */
		assert_true(fabs(states_gb - want_gb[z]) <=
			    0.03 * want_gb[z]);
	}
}

/* Megatron distributed optimizer (dist_optimizer.md): bf16 params with
 * fp32 main grads: 18 bytes/param, 6 + 12/d with the distributed one. */
static void test_megatron_bytes_per_param(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	autosize_memory mem;
	autosize_error e;
	sizing_layout l = layout(2, 1, 8, 0, 1, AUTOSIZE_RECOMPUTE_FULL);
	double p;

	autosize_model_init(&m);
	m.params = 10e9;
	assert_int_equal(autosize_model_synthesize(&m, &e), 0);
	job_for(&job, &m, &part, "H100");
	p = sizing_params_per_gpu(&job, &l);
	sizing_memory(&job, &l, &mem);
	assert_true(fabs((mem.weights_bytes + mem.gradients_bytes +
			  mem.optimizer_bytes) / p - 18) < 1e-9);
	l.zero_stage = 1;
	sizing_memory(&job, &l, &mem);
	assert_true(fabs((mem.weights_bytes + mem.gradients_bytes +
			  mem.optimizer_bytes) / p - (6 + 12.0 / 8)) < 1e-9);
}

/* Megatron's recompute module "mlp" recomputes the MLP of dense layers
 * only (transformer_layer.py: "if not self.is_moe_layer"): selective-mlp
 * stores a dense model's MLP inner tensors no more, an MoE model's
 * experts' still; a DeepSeek-like model with dense leading layers drops
 * theirs. */
static void test_selective_mlp_moe(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	autosize_error e;
	sizing_layout l = layout(1, 1, 8, 1, 1, AUTOSIZE_RECOMPUTE_SELECTIVE);
	double sel, mlp;

	assert_int_equal(autosize_model_preset("llama-3-8b", &m, &e), 0);
	job_for(&job, &m, &part, "H100");
	job.framework = AUTOSIZE_FRAMEWORK_MEGATRON;
	job.flash_attention = 1;
	sel = sizing_layer_activation_bytes(&job, &l);
	l.recompute = AUTOSIZE_RECOMPUTE_SELECTIVE_MLP;
	mlp = sizing_layer_activation_bytes(&job, &l);
	assert_true(mlp < 0.7 * sel);
	assert_true(sizing_mlp_kept_share(&m) == 0);

	assert_int_equal(autosize_model_preset("mixtral-8x7b", &m, &e), 0);
	l.recompute = AUTOSIZE_RECOMPUTE_SELECTIVE;
	sel = sizing_layer_activation_bytes(&job, &l);
	l.recompute = AUTOSIZE_RECOMPUTE_SELECTIVE_MLP;
	mlp = sizing_layer_activation_bytes(&job, &l);
	assert_true(fabs(mlp - sel) < 1e-9 * sel);
	/* no dense MLP to repeat: the attention core's forward only
	 * (module core_attn), 4 L heads head_dim s a token */
	assert_true(fabs(sizing_hw_flops_per_token(&job,
		    AUTOSIZE_RECOMPUTE_SELECTIVE_MLP) -
		    sizing_hw_flops_per_token(&job, AUTOSIZE_RECOMPUTE_NONE) -
		    4.0 * 32 * 32 * 128 * 2048) < 1e-9 *
		    sizing_hw_flops_per_token(&job, AUTOSIZE_RECOMPUTE_NONE));

	/* a dense first layer of 4 x the experts' width among 32 */
	m.dense_layers = 1;
	m.ffn_dense = 4 * m.ffn;
	assert_true(sizing_mlp_kept_share(&m) > 0.8);
	assert_true(sizing_mlp_kept_share(&m) < 1);
	mlp = sizing_layer_activation_bytes(&job, &l);
	l.recompute = AUTOSIZE_RECOMPUTE_SELECTIVE;
	assert_true(mlp < sizing_layer_activation_bytes(&job, &l));
	assert_true(sizing_hw_flops_per_token(&job,
		    AUTOSIZE_RECOMPUTE_SELECTIVE_MLP) >
		    sizing_hw_flops_per_token(&job, AUTOSIZE_RECOMPUTE_NONE));
}

/* What selective-mlp repeats, the dense layers' MLP only, is what the
 * step pays for, prepared or not: one dense layer of 4 x the experts'
 * width among Mixtral's 32 is 2 x h x 4 ffn x 3 FLOPs a token more (an
 * unprepared job had it at 1/63 of one expert's width: the kept share
 * applied to ffn, not to the MLP width), and on Mixtral itself, with
 * no dense layer, TP 2 pays no collective for an MLP recompute that
 * does not run (it paid one a layer). */
static void test_selective_mlp_redone(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	autosize_error e;
	sizing_layout l = layout(2, 1, 4, 1, 1, AUTOSIZE_RECOMPUTE_NONE);
	sizing_time none, mlp;
	double want, got;

	assert_int_equal(autosize_model_preset("mixtral-8x7b", &m, &e), 0);
	job_for(&job, &m, &part, "H100");
	job.framework = AUTOSIZE_FRAMEWORK_MEGATRON;
	job.flash_attention = 1;
	sizing_step_time(&job, &l, &none);
	l.recompute = AUTOSIZE_RECOMPUTE_SELECTIVE_MLP;
	sizing_step_time(&job, &l, &mlp);
	assert_true(none.tp_comm_s > 0);
	assert_true(fabs(mlp.tp_comm_s - none.tp_comm_s) <
		    1e-9 * none.tp_comm_s);

	m.dense_layers = 1;
	m.ffn_dense = 4 * m.ffn;
	/* and the attention core's forward (4 L heads head_dim s) */
	want = 2.0 * m.hidden * m.ffn_dense * 3 + 4.0 * 32 * 32 * 128 * 2048;
	got = sizing_hw_flops_per_token(&job,
					AUTOSIZE_RECOMPUTE_SELECTIVE_MLP) -
	      sizing_hw_flops_per_token(&job, AUTOSIZE_RECOMPUTE_NONE);
	assert_true(fabs(got - want) < 1e-9 * want);
	sizing_job_prepare(&job);
	got = sizing_hw_flops_per_token(&job,
					AUTOSIZE_RECOMPUTE_SELECTIVE_MLP) -
	      sizing_hw_flops_per_token(&job, AUTOSIZE_RECOMPUTE_NONE);
	assert_true(fabs(got - want) < 1e-9 * want);
	/* the dense layer's collective, 1/32 of one a layer */
	l.recompute = AUTOSIZE_RECOMPUTE_NONE;
	sizing_step_time(&job, &l, &none);
	l.recompute = AUTOSIZE_RECOMPUTE_SELECTIVE_MLP;
	sizing_step_time(&job, &l, &mlp);
	assert_true(mlp.tp_comm_s > none.tp_comm_s);
	assert_true(mlp.tp_comm_s < none.tp_comm_s * (1 + 1.0 / 4 / 16));
}

/* FP8 under Megatron: Transformer Engine keeps an FP8 copy of each
 * linear weight and its transpose across micro-batches (TELinear's
 * is_first_microbatch), 2 bytes of every block parameter beside the
 * 16-bit weights; with the distributed optimizer the launch line keeps
 * the parameters in FP8 (--fp8-param-gather), no 16-bit copy: the same
 * 2 bytes. Not under FSDP (torchao casts in each forward). */
static void test_fp8_weight_cache(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	autosize_memory bf, f8;
	autosize_error e;
	sizing_layout l = layout(2, 2, 8, 0, 1, AUTOSIZE_RECOMPUTE_FULL);
	double emb, blocks;

	assert_int_equal(autosize_model_preset("llama-3-8b", &m, &e), 0);
	job_for(&job, &m, &part, "H100");
	job.framework = AUTOSIZE_FRAMEWORK_MEGATRON;
	sizing_memory(&job, &l, &bf);
	job.precision = AUTOSIZE_PREC_FP8;
	sizing_memory(&job, &l, &f8);
	/* a stage of 16 layers on 2 TP ranks: the embedding (or head)
	 * split 2 ways is not a block's */
	emb = (double)m.vocab * m.hidden / 2;
	blocks = sizing_params_per_gpu(&job, &l) - emb;
	assert_true(fabs(f8.weights_bytes - bf.weights_bytes -
			 2 * blocks) < 1e-6 * blocks);
	/* the distributed optimizer: FP8 parameters, no copy counted */
	l.zero_stage = 1;
	job.precision = AUTOSIZE_PREC_BF16;
	sizing_memory(&job, &l, &bf);
	job.precision = AUTOSIZE_PREC_FP8;
	sizing_memory(&job, &l, &f8);
	assert_true(f8.weights_bytes == bf.weights_bytes);
	/* FSDP: torchao's float8 casts in each forward */
	l.zero_stage = 0;
	job.framework = AUTOSIZE_FRAMEWORK_FSDP;
	job.precision = AUTOSIZE_PREC_BF16;
	sizing_memory(&job, &l, &bf);
	job.precision = AUTOSIZE_PREC_FP8;
	sizing_memory(&job, &l, &f8);
	assert_true(f8.weights_bytes == bf.weights_bytes);
}

/* Korthikanti et al. 2022, Table 2, for a GPT-3 175B layer (s 2048,
 * b 1, h 12288, a 96, t 8), in GiB: TP 0.539, TP+SP 0.334, TP+selective
 * 0.305, TP+SP+selective 0.1, full 0.047 (2sbh). */
static void test_korthikanti_per_layer(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	autosize_error e;
	sizing_layout l = layout(8, 1, 1, 0, 1, AUTOSIZE_RECOMPUTE_NONE);

	autosize_model_init(&m);
	m.layers = 96;
	m.hidden = 12288;
	m.heads = 96;
	m.vocab = 51200;
	m.mlp = AUTOSIZE_MLP_GELU;
	assert_int_equal(autosize_model_finish_arch(&m, &e), 0);
	job_for(&job, &m, &part, "A100-SXM4-80GB");
	l.sp = 0;
	assert_true(fabs(sizing_layer_activation_bytes(&job, &l) / GIB -
			 0.539) < 0.001);
	l.sp = 1;
	assert_true(fabs(sizing_layer_activation_bytes(&job, &l) / GIB -
			 0.334) < 0.001);
	l.recompute = AUTOSIZE_RECOMPUTE_SELECTIVE;
	assert_true(fabs(sizing_layer_activation_bytes(&job, &l) / GIB -
			 0.100) < 0.001);
	l.sp = 0;
	assert_true(fabs(sizing_layer_activation_bytes(&job, &l) / GIB -
			 0.305) < 0.001);
	/* FlashAttention drops the s x s scores like selective does. */
	l.recompute = AUTOSIZE_RECOMPUTE_NONE;
	job.flash_attention = 1;
	assert_true(fabs(sizing_layer_activation_bytes(&job, &l) / GIB -
			 0.305) < 0.001);
	l.recompute = AUTOSIZE_RECOMPUTE_FULL;
	l.tp = 1;
	assert_true(fabs(sizing_layer_activation_bytes(&job, &l) / GIB -
			 0.047) < 0.001);
}

/* Pipeline 1F1B: the first stage holds p micro-batches of L/p layers,
 * i.e. L layers' worth whatever p is (Korthikanti et al. 2022, 4.2.3). */
static void test_pipeline_first_stage(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	autosize_memory m1, m4;
	autosize_error e;
	sizing_layout l1 = layout(8, 2, 1, 0, 1, AUTOSIZE_RECOMPUTE_NONE);
	sizing_layout l4 = layout(8, 8, 1, 0, 1, AUTOSIZE_RECOMPUTE_NONE);

	assert_int_equal(autosize_model_preset("gpt3-175b", &m, &e), 0);
	job_for(&job, &m, &part, "A100-SXM4-80GB");
	l1.grad_accum = l4.grad_accum = 64;
	sizing_memory(&job, &l1, &m1);
	sizing_memory(&job, &l4, &m4);
	assert_true(fabs(m1.activations_bytes - m4.activations_bytes) <
		    0.02 * m1.activations_bytes);
	/* With fewer micro-batches than stages only those are in flight. */
	l4.grad_accum = 2;
	sizing_memory(&job, &l4, &m4);
	assert_true(m4.activations_bytes < 0.3 * m1.activations_bytes);
	/* Weights shrink with the pipeline. */
	assert_true(m4.weights_bytes < m1.weights_bytes / 3);
}

/* The last pipeline stage holds one micro-batch in flight (1F1B), or
 * pp - (pp - 1) / v with v interleaved chunks, and the loss's logits: a
 * large vocabulary's logits make it the stage that binds. */
static void test_pipeline_last_stage(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	autosize_memory m1, m4, m4v;
	autosize_error e;
	sizing_layout l1 = layout(1, 1, 8, 0, 1, AUTOSIZE_RECOMPUTE_FULL);
	sizing_layout l4 = layout(1, 4, 2, 0, 1, AUTOSIZE_RECOMPUTE_FULL);
	double logits_bytes, first_share;

	assert_int_equal(autosize_model_preset("llama-3-8b", &m, &e), 0);
	job_for(&job, &m, &part, "H100");
	job.framework = AUTOSIZE_FRAMEWORK_FSDP;  /* 10 bytes per logit */
	job.flash_attention = 1;
	job.seq_len = 8192;
	l1.grad_accum = l4.grad_accum = 8;
	sizing_memory(&job, &l1, &m1);
	sizing_memory(&job, &l4, &m4);
	logits_bytes = 10.0 * 8192 * m.vocab;
	/* without a pipeline the one stage is both; with one the last
	 * stage keeps all the logits, so a quarter of the layers does not
	 * shrink the activations below them */
	assert_int_equal(m1.last_stage, 0);
	assert_int_equal(m4.last_stage, 1);
	assert_true(m4.activations_bytes > logits_bytes);
	assert_true(m1.activations_bytes - m4.activations_bytes <
		    0.25 * m1.activations_bytes);
	/* interleaving: the last stage now holds almost pp micro-batches;
	 * what it adds over 1F1B is its layers' (pp - 1 - (pp - 1) / v)
	 * micro-batches of checkpointed inputs */
	l4.vp = 2;
	sizing_memory(&job, &l4, &m4v);
	assert_int_equal(m4v.last_stage, 1);
	first_share = m4v.activations_bytes - m4.activations_bytes;
	assert_true(first_share > 0);
	assert_true(fabs(first_share / (1.5 * 8 * 2.0 * 8192 * m.hidden) -
			 1) < 1e-9);
	/* a small vocabulary: the first stage binds again */
	m.vocab = 1024;
	l4.vp = 1;
	sizing_memory(&job, &l4, &m4);
	assert_int_equal(m4.last_stage, 0);
}

/* LoRA and QLoRA: frozen base in 16 or ~4 bits, tiny trainable state. */
static void test_lora_memory(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	autosize_memory full, lora, qlora;
	autosize_error e;
	sizing_layout l = layout(1, 1, 1, 0, 1, AUTOSIZE_RECOMPUTE_FULL);

	assert_int_equal(autosize_model_preset("llama-2-70b", &m, &e), 0);
	job_for(&job, &m, &part, "RTX-4090");
	sizing_memory(&job, &l, &full);
	job.train_mode = AUTOSIZE_TRAIN_LORA;
	sizing_memory(&job, &l, &lora);
	job.train_mode = AUTOSIZE_TRAIN_QLORA;
	sizing_memory(&job, &l, &qlora);
	/* 70B in bf16 is ~138 GB; in NF4 ~36 GB (QLoRA paper: a 65B model
	 * fine-tunes on one 48 GB GPU). */
	assert_true(lora.weights_bytes > 130e9 && lora.weights_bytes < 145e9);
	assert_true(qlora.weights_bytes > 33e9 && qlora.weights_bytes < 40e9);
	assert_true(lora.optimizer_bytes < 0.02 * full.optimizer_bytes);
	assert_true(lora.gradients_bytes < 0.02 * full.gradients_bytes);
}

/* FLOPs: 6N + 12 L h s per token; LoRA 4N; full recompute adds the
 * layers' forward pass, the output head's not (HFU/MFU just under 4/3
 * for the dense part). */
static void test_flops(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	autosize_error e;
	double n, f, attn;

	assert_int_equal(autosize_model_preset("llama-2-7b", &m, &e), 0);
	job_for(&job, &m, &part, "A100-SXM4-80GB");
	job.seq_len = 4096;
	n = m.params - (double)m.vocab * m.hidden;  /* input lookup free */
	attn = 12.0 * m.layers * m.hidden * 4096;
	f = sizing_model_flops_per_token(&job);
	assert_true(fabs(f - (6 * n + attn)) < 1e-6 * f);
	/* the layers' forward again, not the output head's (V h) */
	assert_true(fabs(sizing_hw_flops_per_token(&job,
			  AUTOSIZE_RECOMPUTE_FULL) -
			 (8 * n - 2.0 * m.vocab * m.hidden + attn * 4 / 3))
		    < 1e-6 * f);
	job.train_mode = AUTOSIZE_TRAIN_LORA;
	assert_true(fabs(sizing_model_flops_per_token(&job) - (4 * n + attn))
		    < 1e-6 * f);
}

/* Partial recomputation (Megatron's block method): recomputing half a
 * stage's layers lands between none and all, in memory and in time, and
 * its recomputed work is half of full recomputation's. */
static void test_partial_recompute(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	autosize_memory mem_none, mem_half, mem_all;
	sizing_time t_none, t_half, t_all;
	autosize_error e;
	sizing_layout l = layout(8, 8, 8, 1, 1, AUTOSIZE_RECOMPUTE_NONE);

	assert_int_equal(autosize_model_preset("llama-2-70b", &m, &e), 0);
	job_for(&job, &m, &part, "H100");
	job.flash_attention = 1;
	job.seq_len = 4096;
	l.grad_accum = 16;          /* 8 micro-batches in flight, 10 layers */
	sizing_memory(&job, &l, &mem_none);
	sizing_step_time(&job, &l, &t_none);
	l.recompute = AUTOSIZE_RECOMPUTE_FULL;
	sizing_memory(&job, &l, &mem_all);
	sizing_step_time(&job, &l, &t_all);
	l.recompute_layers = 5;
	assert_true(fabs(sizing_recompute_share(&job, &l) - 0.5) < 1e-12);
	sizing_memory(&job, &l, &mem_half);
	sizing_step_time(&job, &l, &t_half);
	assert_true(mem_half.activations_bytes < mem_none.activations_bytes);
	assert_true(mem_half.activations_bytes > mem_all.activations_bytes);
	/* the 5 layers kept hold what no recomputation holds for them */
	assert_true(fabs(mem_half.activations_bytes -
			 (mem_none.activations_bytes +
			  mem_all.activations_bytes) / 2) <
		    0.05 * mem_none.activations_bytes);
	assert_true(t_half.step_s > t_none.step_s);
	assert_true(t_half.step_s < t_all.step_s);
	assert_true(fabs((t_half.hw_flops_step - t_none.hw_flops_step) /
			 (t_all.hw_flops_step - t_none.hw_flops_step) - 0.5) <
		    1e-9);
	/* memory is linear in the layers recomputed: where 6 of 10 just
	 * fit, the search is told it may keep 4 whole */
	l.recompute_layers = 6;
	sizing_memory(&job, &l, &mem_all);
	assert_true(mem_half.total_bytes > mem_all.total_bytes);
	job.usable_bytes = mem_all.total_bytes;
	assert_true(fabs(sizing_recompute_keep_layers(&job, &l) - 4) < 1e-6);
	job.usable_bytes = mem_half.total_bytes;
	assert_true(fabs(sizing_recompute_keep_layers(&job, &l) - 5) < 1e-6);
	/* the pruning bound never exceeds the modelled compute */
	assert_true(l.grad_accum * sizing_microbatch_bound_s(&job, &l) <=
		    t_half.compute_s);
	assert_true(l.grad_accum * sizing_microbatch_bound_s(&job, &l) >
		    0.3 * t_none.compute_s);
	/* selective-mlp: the MLP rebuilt from its input lands between none
	 * and full recomputation too */
	l.recompute = AUTOSIZE_RECOMPUTE_SELECTIVE_MLP;
	l.recompute_layers = 0;
	sizing_memory(&job, &l, &mem_half);
	sizing_step_time(&job, &l, &t_half);
	assert_true(mem_half.activations_bytes < 0.6 *
		    mem_none.activations_bytes);
	assert_true(t_half.step_s > t_none.step_s);
	assert_true(t_half.hw_flops_step < t_all.hw_flops_step);
	l.recompute = AUTOSIZE_RECOMPUTE_FULL;
	/* as many layers as the stage has, or 0, is all of them */
	l.recompute_layers = 10;
	assert_true(sizing_recompute_share(&job, &l) == 1);
	l.recompute_layers = 0;
	assert_true(sizing_recompute_share(&job, &l) == 1);
	l.recompute = AUTOSIZE_RECOMPUTE_NONE;
	l.recompute_layers = 5;
	assert_true(sizing_recompute_share(&job, &l) == 0);
}

/* The search prunes layouts with the compute of one micro-batch: it is
 * what the step charges grad_accum times and once per bubble slot, for
 * every recomputation setting, dense and MoE; recomputing never makes it
 * faster, nor does a larger micro-batch per sequence. */
static void test_compute_bound(void **state)
{
	static const char *const models[] = {"llama-2-70b", "mixtral-8x7b"};
	static const autosize_recompute rcs[] = {AUTOSIZE_RECOMPUTE_NONE,
		AUTOSIZE_RECOMPUTE_SELECTIVE, AUTOSIZE_RECOMPUTE_FULL,
		AUTOSIZE_RECOMPUTE_SELECTIVE_MLP};
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	sizing_time t;
	autosize_error e;
	int i, k;

	for (i = 0; i < 2; i++) {
		assert_int_equal(autosize_model_preset(models[i], &m, &e), 0);
		job_for(&job, &m, &part, "H100");
		for (k = 0; k < 5; k++) {
			sizing_layout l = layout(2, 4, 4, 1, 2,
						 rcs[k < 4 ? k : 2]);
			double mb_s, slots;

			l.vp = 2;
			l.grad_accum = 16;
			l.ep = i ? 2 : 1;
			l.recompute_layers = k == 4 ? 2 : 0;  /* partial */
			mb_s = sizing_microbatch_compute_s(&job, &l);
			sizing_step_time(&job, &l, &t);
			slots = l.grad_accum + (l.pp - 1.0) / l.vp;
			assert_true(fabs(l.grad_accum * mb_s - t.compute_s) <=
				    1e-12 * t.compute_s);
			assert_true(slots * mb_s < t.step_s);
			assert_true(sizing_microbatch_bound_s(&job, &l) <=
				    mb_s);
			/* per sequence, a larger micro-batch is no slower */
			for (l.micro_batch = 1; l.micro_batch < 32;
			     l.micro_batch *= 2) {
				double one = sizing_microbatch_compute_s(&job,
									 &l);

				l.micro_batch *= 2;
				assert_true(sizing_microbatch_compute_s(&job,
					&l) <= 2 * one);
				l.micro_batch /= 2;
			}
			l.micro_batch = 2;
			/* fewer layers recomputed, or none, is no slower */
			if (l.recompute == AUTOSIZE_RECOMPUTE_FULL) {
				l.recompute_layers = 1;
				assert_true(sizing_microbatch_compute_s(&job,
					&l) <= mb_s);
			}
			l.recompute = AUTOSIZE_RECOMPUTE_NONE;
			assert_true(sizing_microbatch_compute_s(&job, &l) <=
				    mb_s);
		}
	}
}

/* FSDP / ZeRO-3: the forward hides only the gathers of the next layers,
 * the backward the gathers and the gradient reduce-scatters; what each
 * pass cannot hide is exposed, even when the whole step's compute could
 * have hidden the whole traffic. */
static void test_fsdp_phases(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	sizing_time t, t_fast;
	comm_link net;
	autosize_error e;
	sizing_layout l = layout(1, 1, 64, 3, 1, AUTOSIZE_RECOMPUTE_FULL);
	double p, ag, rs, t_mb;

	assert_int_equal(autosize_model_preset("llama-2-7b", &m, &e), 0);
	job_for(&job, &m, &part, "H100");
	job.framework = AUTOSIZE_FRAMEWORK_FSDP;
	job.flash_attention = 1;
	part.net = AUTOSIZE_NET_ETHERNET;
	part.net_gbps_per_node = 800;
	l.grad_accum = 2;
	sizing_step_time(&job, &l, &t);
	/* TP 1: the DP group holds all 8 GPUs of each node, one ring per
	 * rail on the node's whole network */
	comm_link_group(&job, 64, 64, 1, &net);
	net.latency_s = 0;
	p = sizing_params_per_gpu(&job, &l);
	ag = comm_allgather_s(2 * p, 64, &net);       /* bf16 parameters */
	rs = comm_reduce_scatter_s(4 * p, 64, &net);  /* fp32 gradients */
	t_mb = t.compute_s / l.grad_accum;
	/* forward: a quarter of a fully recomputed micro-batch */
	assert_true(ag > t_mb / 4);
	assert_true(t.dp_comm_s >= l.grad_accum * (ag - t_mb / 4) +
		    l.grad_accum * (ag + rs > 0.75 * t_mb
				    ? ag + rs - 0.75 * t_mb : 0) - 1e-9);
	/* a network four times faster exposes less than half as much */
	part.net_gbps_per_node = 3200;
	sizing_step_time(&job, &l, &t_fast);
	assert_true(t_fast.dp_comm_s < t.dp_comm_s / 2);
}

/* The exposed data-parallel time of job on l at accum micro-batches a
 * step. */
static double dp_comm_at(const sizing_job *job, sizing_layout l, int accum)
{
	sizing_time t;

	l.grad_accum = accum;
	sizing_step_time(job, &l, &t);
	return t.dp_comm_s;
}

/* FSDP under a pipeline schedule gathers the stage's parameters once a
 * step and reduces its gradients once (framework_fsdp_step_sync), as its
 * memory keeps them for the step: more micro-batches add no data-parallel
 * traffic; without the pipeline every micro-batch gathers again. */
static void test_fsdp_pipeline_sync(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	autosize_error e;
	sizing_layout l = layout(1, 4, 16, 3, 1, AUTOSIZE_RECOMPUTE_FULL);
	double a;

	assert_int_equal(autosize_model_preset("llama-2-70b", &m, &e), 0);
	job_for(&job, &m, &part, "H100");
	job.framework = AUTOSIZE_FRAMEWORK_FSDP;
	job.flash_attention = 1;
	part.net = AUTOSIZE_NET_ETHERNET;
	part.net_gbps_per_node = 100;
	a = dp_comm_at(&job, l, 8);
	assert_true(a > 0);
	assert_true(fabs(dp_comm_at(&job, l, 32) - a) < 1e-9 * a);
	/* the same layout without the pipeline pays per micro-batch */
	l.pp = 1;
	assert_true(dp_comm_at(&job, l, 32) > 3.9 * dp_comm_at(&job, l, 8));
	/* the HF Trainer's no_sync: every micro-batch gathers, only the
	 * step's last reduce-scatters */
	job.stack = perfdata_stack_find(perfdata_default(), "hf");
	assert_non_null(job.stack);
	a = dp_comm_at(&job, l, 8);
	job.stack = NULL;
	assert_true(a > 0 && a < dp_comm_at(&job, l, 8));
	/* Megatron's distributed optimizer is unchanged by it */
	job.framework = AUTOSIZE_FRAMEWORK_MEGATRON;
	l.pp = 4;
	l.zero_stage = 1;
	assert_int_equal(framework_fsdp_step_sync(&job, &l), 0);
}

/* NeMo AutoModel (stack bf16_states): bf16 parameters, gradients and
 * Adam moments, 8 bytes a parameter where FSDP's mixed precision keeps
 * 16; a stated fp32 reduction still goes on the wire in fp32; and the
 * unsharded gradients FSDP holds under a pipeline are those of what it
 * shards: routed experts split by EP over all of dp x cp are not. */
static void test_automodel_bf16_states(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	autosize_error e;
	autosize_memory mem;
	framework_state st;
	sizing_layout l = layout(1, 1, 8, 3, 4, AUTOSIZE_RECOMPUTE_FULL);
	double p, pe, shard, states;

	(void)state;
	/* Qwen3-30B-A3B (config.json) */
	autosize_model_init(&m);
	m.layers = 48;
	m.hidden = 2048;
	m.heads = 32;
	m.kv_heads = 4;
	m.head_dim = 128;
	m.ffn = 768;
	m.vocab = 151936;
	m.experts = 128;
	m.experts_active = 8;
	assert_int_equal(autosize_model_finish_arch(&m, &e), 0);
	job_for(&job, &m, &part, "H100");
	job.framework = AUTOSIZE_FRAMEWORK_FSDP;
	job.seq_len = 4096;
	l.ep = 8;
	p = sizing_params_per_gpu(&job, &l);
	pe = sizing_expert_params_gpu(&job, &l);
	assert_true(pe > 0.6 * p);
	/* what a rank keeps: the dense part sharded 8 ways, its experts */
	shard = (p - pe) / 8 + pe;
	sizing_memory(&job, &l, &mem);
	states = mem.weights_bytes + mem.gradients_bytes +
		 mem.optimizer_bytes;
	assert_true(states > 15.9 * shard && states < 16.1 * shard);
	job.stack = perfdata_stack_find(perfdata_default(), "automodel");
	assert_non_null(job.stack);
	sizing_memory(&job, &l, &mem);
	states = mem.weights_bytes + mem.gradients_bytes +
		 mem.optimizer_bytes;
	assert_true(states > 7.9 * shard && states < 8.1 * shard);
	framework_state_bytes(&job, &st);
	assert_true(st.grad_wire_b == 2 && st.grad_b == 2);
	job.grad_reduce_b = 4;
	framework_state_bytes(&job, &st);
	assert_true(st.grad_wire_b == 4 && st.grad_b == 2);
	/* under a pipeline FSDP holds the step's gradients unsharded, in
	 * the reduction's precision: the dense part only while EP splits
	 * the experts over all 8 data-parallel ranks ... */
	l.pp = 4;
	l.grad_accum = 8;
	p = sizing_params_per_gpu(&job, &l);
	pe = sizing_expert_params_gpu(&job, &l);
	assert_true(fabs(sizing_held_grad_bytes(&job, &l) - 4 * (p - pe)) <
		    1e-6 * p);
	/* ... the experts too where FSDP shards them over 2 */
	l.dp = 16;
	assert_true(fabs(sizing_held_grad_bytes(&job, &l) -
			 4 * sizing_params_per_gpu(&job, &l)) < 1e-6 * p);
	/* torchtitan wraps the experts in FSDP over one rank all the
	 * same: held too */
	l.dp = 8;
	job.stack = perfdata_stack_find(perfdata_default(), "torchtitan");
	assert_non_null(job.stack);
	assert_true(fabs(sizing_held_grad_bytes(&job, &l) - 4 * p) <
		    1e-6 * p);
}

/* DeepSpeed's and FSDP's ZeRO-2 reduce their gradients under every
 * micro-batch's backward, ZeRO-1 and a no_sync stack's FSDP at the
 * step's boundary (framework_dp_reduce_each_microbatch): on a network
 * too slow for one backward to hide the reduction, more micro-batches
 * expose more under ZeRO-2 only. */
static void test_deepspeed_zero2_reduce(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	autosize_error e;
	sizing_layout l = layout(1, 1, 16, 2, 1, AUTOSIZE_RECOMPUTE_NONE);
	double a;

	assert_int_equal(autosize_model_preset("llama-2-7b", &m, &e), 0);
	job_for(&job, &m, &part, "H100");
	job.framework = AUTOSIZE_FRAMEWORK_DEEPSPEED;
	part.net = AUTOSIZE_NET_ETHERNET;
	part.net_gbps_per_node = 25;
	a = dp_comm_at(&job, l, 2);
	assert_true(a > 0);
	assert_true(dp_comm_at(&job, l, 8) > 2 * a);
	/* FSDP's ZeRO-2 too (torchtitan's loop keeps sync on), not where
	 * a no_sync stack holds the gradients */
	job.framework = AUTOSIZE_FRAMEWORK_FSDP;
	a = dp_comm_at(&job, l, 2);
	assert_true(dp_comm_at(&job, l, 8) > 2 * a);
	a = dp_comm_at(&job, l, 8);
	job.stack = perfdata_stack_find(perfdata_default(), "hf");
	assert_non_null(job.stack);
	l.grad_accum = 8;
	assert_int_equal(framework_dp_reduce_each_microbatch(&job, &l), 0);
	assert_true(dp_comm_at(&job, l, 8) < a);
	job.stack = NULL;
	job.framework = AUTOSIZE_FRAMEWORK_DEEPSPEED;
	l.zero_stage = 1;
	a = dp_comm_at(&job, l, 2);
	assert_true(fabs(dp_comm_at(&job, l, 8) - a) < 1e-9 * a);
}

/* Time terms move the right way: a slower network, a deeper pipeline
 * with few micro-batches, tensor parallelism across nodes. */
static void test_time_terms(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	sizing_time t_ib, t_eth, t;
	autosize_error e;
	sizing_layout l = layout(8, 1, 64, 1, 1, AUTOSIZE_RECOMPUTE_NONE);

	assert_int_equal(autosize_model_preset("llama-2-70b", &m, &e), 0);
	job_for(&job, &m, &part, "H100");
	job.flash_attention = 1;
	job.seq_len = 4096;
	l.grad_accum = 16;
	sizing_step_time(&job, &l, &t_ib);
	part.net = AUTOSIZE_NET_ETHERNET;
	part.net_gbps_per_node = 100;
	sizing_step_time(&job, &l, &t_eth);
	assert_true(t_eth.dp_comm_s > 10 * t_ib.dp_comm_s);
	assert_true(t_eth.mfu < 0.6 * t_ib.mfu);
	part.net = AUTOSIZE_NET_IB;
	part.net_gbps_per_node = 3200;
	/* bubble (p - 1) / m */
	l = layout(8, 8, 8, 1, 1, AUTOSIZE_RECOMPUTE_NONE);
	l.grad_accum = 8;
	sizing_step_time(&job, &l, &t);
	assert_true(fabs(t.bubble_s / (t.compute_s + t.tp_comm_s +
				       t.pp_comm_s) - 7.0 / 8) < 0.01);
	/* TP 16 spans two nodes: its rings run one per rail, all eight
	 * NICs of each node (comm_link_group), so on 8 x 400 Gb/s it is
	 * about as fast as NVLink inside one node; on a thin network (one
	 * 100 Gb/s port per node) its collectives slow down a lot. */
	l = layout(8, 1, 8, 1, 1, AUTOSIZE_RECOMPUTE_NONE);
	sizing_step_time(&job, &l, &t_ib);
	l.tp = 16;
	l.dp = 4;
	sizing_step_time(&job, &l, &t);
	assert_true(t.tp_comm_s > t_ib.tp_comm_s);
	assert_true(t.tp_comm_s < 2 * t_ib.tp_comm_s);
	part.net_gbps_per_node = 100;
	sizing_step_time(&job, &l, &t_eth);
	assert_true(t_eth.tp_comm_s > 4 * t_ib.tp_comm_s);
	part.net_gbps_per_node = 3200;
	/* a fixed utilization is honoured exactly */
	job.mfu_fixed = 0.4;
	sizing_step_time(&job, &l, &t);
	assert_true(fabs(t.mfu - 0.4) < 1e-12);
}

/* GB200 NVL72: an expert-parallel group of 16 spans four trays of a rack
 * and exchanges its tokens on NVLink; on 8-GPU B200 nodes the same group
 * spans two nodes and half its peers are across the network. Tensor
 * parallelism of 8 spans two trays on NVLink as it spans one B200 node.
 * A 256-GPU job in segments of 16 trays keeps every group of 16 in one
 * rack; past whole racks (EP 16 in a 288-GPU job: the fifth group
 * straddles two racks, 8 ranks in each) the all-to-all waits on the
 * network as on B200, where each group has 8 of 16 ranks on a node. */
static void test_nvlink_domain_time(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	sizing_time gb, b, gb_wide;
	autosize_error e;
	sizing_layout l = layout(1, 1, 64, 1, 1, AUTOSIZE_RECOMPUTE_NONE);

	assert_int_equal(autosize_model_preset("qwen3-235b-a22b", &m, &e), 0);
	job_for(&job, &m, &part, "b200");
	job.flash_attention = 1;
	l.ep = 16;
	l.grad_accum = 4;
	sizing_step_time(&job, &l, &b);
	job_for(&job, &m, &part, "gb200");
	job.flash_attention = 1;
	autosize_partition_reference(&part, part.gpu, 4);
	sizing_step_time(&job, &l, &gb);
	/* same NVLink rate and NIC per GPU: the network share is all of
	 * the difference */
	assert_true(b.ep_comm_s > 0 && gb.ep_comm_s > 0);
	assert_true(gb.ep_comm_s < b.ep_comm_s / 2);
	/* 256 GPUs, 64 trays in segments of 16 (sbatch --segment=16):
	 * every group of 16 inside one rack, as in the 64-GPU job */
	l.dp = 256;
	sizing_step_time(&job, &l, &gb_wide);
	assert_true(fabs(gb_wide.ep_comm_s - gb.ep_comm_s) <
		    1e-9 * gb.ep_comm_s);
	/* 288 GPUs, 72 trays in segments of 18 (whole racks): ranks 64-79
	 * straddle two racks, 8 in each, as on 8-GPU B200 nodes */
	l.dp = 288;
	sizing_step_time(&job, &l, &gb_wide);
	assert_true(gb_wide.ep_comm_s > 2 * gb.ep_comm_s);
	assert_true(fabs(gb_wide.ep_comm_s - b.ep_comm_s) <
		    1e-9 * b.ep_comm_s);
	/* TP 8 across two trays: the same NVLink collectives as inside
	 * one 8-GPU B200 node */
	l = layout(8, 1, 8, 1, 1, AUTOSIZE_RECOMPUTE_NONE);
	l.grad_accum = 4;
	sizing_step_time(&job, &l, &gb);
	job_for(&job, &m, &part, "b200");
	job.flash_attention = 1;
	sizing_step_time(&job, &l, &b);
	assert_true(fabs(gb.tp_comm_s - b.tp_comm_s) < 1e-9 * b.tp_comm_s);
}

/* A Megatron job of model m on nodes of node_gpus GPUs of gpu. */
static void gpn_job(sizing_job *job, const autosize_model *m,
		    autosize_partition *part, const char *gpu, int node_gpus)
{
	job_for(job, m, part, gpu);
	autosize_partition_reference(part, part->gpu, node_gpus);
	job->flash_attention = 1;
	job->framework = AUTOSIZE_FRAMEWORK_MEGATRON;
}

/* l's step on job with gpus_per_node a (into ta), then b (tb). */
static void gpn_times(sizing_job *job, const sizing_layout *l, int a,
		      sizing_time *ta, int b, sizing_time *tb)
{
	job->gpus_per_node = a;
	sizing_step_time(job, l, ta);
	job->gpus_per_node = b;
	sizing_step_time(job, l, tb);
}

/* A job on fewer GPUs per node than its partition's nodes have (half an
 * 8-GPU H100 node: --gpus-per-node=4, a QOS cap) is priced on the nodes
 * it runs on: TP 8 over 2 x 4 crosses the network where 1 x 8 stays on
 * NVLink, a DP ring over 2 x 4 pays the network, each node's 4 GPUs
 * drive their own 4 NICs (as on a 4-GPU server with its 4 NICs), and a
 * job at the partition's GPUs per node is priced as before, bit for
 * bit. */
static void test_gpus_per_node_time(void **state)
{
	autosize_model m;
	autosize_partition part, part4;
	sizing_job job, job4;
	sizing_time full, whole, half, four;
	autosize_error e;
	sizing_layout l = layout(8, 1, 1, 0, 1, AUTOSIZE_RECOMPUTE_NONE);

	assert_int_equal(autosize_model_preset("llama-3-8b", &m, &e), 0);
	gpn_job(&job, &m, &part, "H100", 8);
	l.grad_accum = 8;
	gpn_times(&job, &l, 0, &full, 8, &whole);
	assert_memory_equal(&full, &whole, sizeof(full));
	job.gpus_per_node = 4;
	sizing_step_time(&job, &l, &half);
	printf("  TP 8: 1 x 8 %.3f s (TP %.3f s), 2 x 4 %.3f s (TP %.3f s)\n",
	       full.step_s, full.tp_comm_s, half.step_s, half.tp_comm_s);
	assert_true(half.tp_comm_s > 1.5 * full.tp_comm_s);
	assert_true(half.step_s > full.step_s);
	/* the same as nodes of 4 GPUs with their 4 NICs */
	gpn_job(&job4, &m, &part4, "H100", 4);
	sizing_step_time(&job4, &l, &four);
	assert_memory_equal(&half, &four, sizeof(half));
	/* DP 8: one node's NVLink, or a ring over two nodes' networks */
	l = layout(1, 1, 8, 1, 1, AUTOSIZE_RECOMPUTE_NONE);
	gpn_times(&job, &l, 0, &full, 4, &half);
	printf("  DP 8: 1 x 8 %.3f s exposed, 2 x 4 %.3f s\n",
	       full.dp_comm_s, half.dp_comm_s);
	assert_true(half.dp_comm_s > full.dp_comm_s);
	assert_true(half.step_s > full.step_s);
	/* a job within one node: the same either way */
	l = layout(4, 1, 1, 0, 1, AUTOSIZE_RECOMPUTE_NONE);
	gpn_times(&job, &l, 0, &full, 4, &half);
	assert_memory_equal(&full, &half, sizeof(full));
}

/* GB200 NVL72: 36 trays of 2 of the job's GPUs are two racks, 36 GPUs
 * of the job in each, not one rack of 72: a DP ring over all 72 crosses
 * the network where 18 trays of 4 keep it on NVLink, and TP 8 (ranks
 * 32-39 straddle the racks) leaves NVLink too. */
static void test_gpus_per_node_domain(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	sizing_time rack, two;
	autosize_error e;
	sizing_layout l = layout(1, 1, 72, 1, 1, AUTOSIZE_RECOMPUTE_NONE);

	assert_int_equal(autosize_model_preset("llama-3-8b", &m, &e), 0);
	gpn_job(&job, &m, &part, "gb200", 4);
	assert_int_equal(part.domain_nodes, 18);
	gpn_times(&job, &l, 0, &rack, 2, &two);
	printf("  DP 72 on GB200: 18 x 4 %.3f s exposed, 36 x 2 %.3f s\n",
	       rack.dp_comm_s, two.dp_comm_s);
	assert_true(two.dp_comm_s > rack.dp_comm_s);
	assert_true(two.step_s > rack.step_s);
	l = layout(8, 1, 9, 1, 1, AUTOSIZE_RECOMPUTE_NONE);
	l.grad_accum = 4;
	gpn_times(&job, &l, 0, &rack, 2, &two);
	assert_true(two.tp_comm_s > 1.5 * rack.tp_comm_s);
}

/* The pipeline is the outermost dimension (Megatron's tp-cp-ep-dp-pp):
 * TP 4 x DP 2 keeps each DP group inside an 8-GPU node at any pipeline
 * depth, so its gradient reduction never waits on the network; TP 8 x
 * DP 2 puts the group's two members on two nodes. */
static void test_dp_group_inside_node(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	sizing_time fat, thin;
	autosize_error e;
	sizing_layout l = layout(4, 8, 2, 0, 1, AUTOSIZE_RECOMPUTE_NONE);

	assert_int_equal(autosize_model_preset("llama-2-70b", &m, &e), 0);
	job_for(&job, &m, &part, "H100");
	job.framework = AUTOSIZE_FRAMEWORK_MEGATRON;
	l.grad_accum = 1;
	sizing_step_time(&job, &l, &fat);
	part.net_gbps_per_node = 100;
	sizing_step_time(&job, &l, &thin);
	assert_true(fat.dp_comm_s > 0);
	assert_true(fabs(thin.dp_comm_s - fat.dp_comm_s) < 1e-12);
	l = layout(8, 8, 2, 0, 1, AUTOSIZE_RECOMPUTE_NONE);
	l.grad_accum = 1;
	sizing_step_time(&job, &l, &thin);
	part.net_gbps_per_node = 3200;
	sizing_step_time(&job, &l, &fat);
	assert_true(thin.dp_comm_s > fat.dp_comm_s);
}

/* The step's parts (sizing_step_parts) are never negative and add up to
 * the step, for dense and MoE models, every parallel dimension, each
 * recomputation, with and without a fixed utilization. */
static void test_step_parts_sum(void **state)
{
	static const char *const models[] = {"llama-2-7b", "llama-2-70b",
					      "mixtral-8x7b"};
	static const int shapes[][7] = {
		/* tp pp dp zero vp cp ep */
		{1, 1, 8, 3, 1, 1, 1}, {2, 1, 32, 1, 1, 1, 1},
		{8, 4, 4, 1, 2, 1, 1}, {4, 2, 8, 1, 1, 2, 1},
		{8, 8, 2, 0, 1, 1, 1}, {1, 4, 16, 1, 1, 1, 8},
		{2, 2, 16, 1, 1, 1, 4}, {16, 1, 4, 1, 1, 1, 1},
	};
	static const autosize_recompute rcs[] = {
		AUTOSIZE_RECOMPUTE_NONE, AUTOSIZE_RECOMPUTE_SELECTIVE,
		AUTOSIZE_RECOMPUTE_FULL, AUTOSIZE_RECOMPUTE_SELECTIVE_MLP};
	size_t mi, si, ri;
	int checked = 0, fixed;

	for (mi = 0; mi < sizeof(models) / sizeof(models[0]); mi++)
	for (si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++)
	for (ri = 0; ri < sizeof(rcs) / sizeof(rcs[0]); ri++)
	for (fixed = 0; fixed < 2; fixed++) {
		const int *sh = shapes[si];
		autosize_model m;
		autosize_partition part;
		sizing_job job;
		sizing_time t;
		autosize_step_parts sp;
		autosize_error e;
		sizing_layout l = layout(sh[0], sh[1], sh[2], sh[3], 2,
					 rcs[ri]);
		const double *v = &sp.gemm_s;
		double sum = 0;
		int i;

		assert_int_equal(autosize_model_preset(models[mi], &m, &e), 0);
		if (sh[6] > 1 && m.experts <= 1)
			continue;
		job_for(&job, &m, &part, ri % 2 ? "H100" : "A100-SXM4-80GB");
		job.flash_attention = ri != 1;
		job.mfu_fixed = fixed ? 0.4 : 0;
		l.vp = sh[4];
		l.cp = sh[5];
		l.ep = sh[6];
		l.grad_accum = 8;
		if (rcs[ri] == AUTOSIZE_RECOMPUTE_FULL && si % 2)
			l.recompute_layers = 1;
		sizing_step_parts(&job, &l, &t, &sp);
		for (i = 0; i < 12; i++) {
			assert_true(v[i] >= 0);
			sum += v[i];
		}
		assert_true(fabs(sum - t.step_s) <= 1e-9 * t.step_s);
		assert_int_equal(sp.fixed_mfu, fixed);
		if (rcs[ri] == AUTOSIZE_RECOMPUTE_FULL && !fixed)
			assert_true(sp.recompute_s > 0);
		if (rcs[ri] == AUTOSIZE_RECOMPUTE_NONE)
			assert_true(sp.recompute_s == 0);
		if (sh[1] > 1 && !fixed)
			assert_true(sp.bubble_s > 0);
		checked++;
	}
	assert_true(checked > 100);
}

/* A dense model of the given shape on H100 at s tokens for the local
 * attention tests: its FLOPs per token; *attn, their whole-sequence
 * attention part (6 L s heads 2 head_dim). */
static double attn_setup(sizing_job *job, autosize_model *m,
			 autosize_partition *part, const int shape[6],
			 double s, double *attn)
{
	autosize_error e;

	autosize_model_init(m);
	m->layers = shape[0];
	m->hidden = shape[1];
	m->heads = shape[2];
	m->kv_heads = shape[3];
	m->head_dim = shape[4];
	m->ffn = shape[5];
	assert_int_equal(autosize_model_finish_arch(m, &e), 0);
	job_for(job, m, part, "H100-SXM5-80GB");
	job->seq_len = (int)s;
	*attn = 6.0 * m->layers * s * m->heads * 2 * m->head_dim;
	return sizing_model_flops_per_token(job);
}

/* Sliding-window attention: a windowed layer counts (2w - w^2 / s) / s
 * of a whole causal one in the attention FLOPs (each query sees min(i +
 * 1, w) keys), the others whole; a window as long as the sequence is no
 * window; the matmuls do not change. Mistral 7B's shape at 32K with its
 * 4096 window on every layer, then on half of them. */
static void test_sliding_window_flops(void **state)
{
	autosize_model m;
	autosize_partition part;
	autosize_error e;
	sizing_job job;
	double whole, all, half, s = 32768, w = 4096, share, attn, dense;
	const int mistral[6] = {32, 4096, 32, 8, 0, 14336};

	whole = attn_setup(&job, &m, &part, mistral, s, &attn);
	dense = whole - attn;
	m.attn_window = (int)w;
	assert_int_equal(autosize_model_finish_arch(&m, &e), 0);
	assert_int_equal(m.window_layers, 32);
	all = sizing_model_flops_per_token(&job);
	share = (2 * w - w * w / s) / s;
	assert_true(fabs(all - (dense + attn * share)) < 1e-9 * whole);
	m.window_layers = 16;
	half = sizing_model_flops_per_token(&job);
	assert_true(fabs(half - (dense + attn * (1 + share) / 2)) <
		    1e-9 * whole);
	/* a short window leaves each query block few key blocks: its
	 * layers run at the length term of the window, not the sequence,
	 * so their time falls less than their FLOPs (Hopper: half rate at
	 * 350 keys) */
	{
		sizing_layout l = layout(1, 1, 8, 1, 1,
					 AUTOSIZE_RECOMPUTE_NONE);
		autosize_step_parts full, win;
		sizing_time t;
		double f_s, f_w;

		job.perf = *perfdata_ampere_builtin();
		job.perf.attn_half_seq = 350;
		job.flash_attention = 1;
		m.attn_window = 128;
		m.window_layers = 32;
		sizing_step_parts(&job, &l, &t, &win);
		m.attn_window = 0;
		m.window_layers = 0;
		sizing_step_parts(&job, &l, &t, &full);
		share = (2 * 128.0 - 128.0 * 128.0 / s) / s;
		f_s = s / (s + 350);
		f_w = 128.0 / (128 + 350);
		assert_true(fabs(win.attention_s / full.attention_s -
				 share * f_s / f_w) < 1e-6);
		/* unfused attention masks the whole square: no faster */
		job.flash_attention = 0;
		sizing_step_parts(&job, &l, &t, &full);
		m.attn_window = 128;
		m.window_layers = 32;
		sizing_step_parts(&job, &l, &t, &win);
		assert_true(fabs(win.attention_s / full.attention_s - 1) <
			    1e-9);
		m.attn_window = (int)w;
		m.window_layers = 16;
	}
	/* no shorter than the sequence: no window at all */
	m.attn_window = (int)s;
	assert_true(sizing_model_flops_per_token(&job) == whole);
	m.attn_window = 0;
	m.window_layers = 0;
	assert_int_equal(autosize_model_finish_arch(&m, &e), 0);
	m.window_layers = 3;
	assert_int_equal(autosize_model_finish_arch(&m, &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "attn-window"));
	m.attn_window = 1024;
	m.window_layers = 33;
	assert_int_equal(autosize_model_finish_arch(&m, &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "exceeds layers 32"));
}

/* NVFP4's GEMM speedup over BF16 keeps the share of the FP4:BF16 peak
 * ratio it was measured at (4 on B200): Blackwell Ultra's ratio of 6
 * (B300: 13.5 and 2.25 PFLOP/s) makes it 1.5 times B200's; FP8 does not
 * change. */
static void test_fp4_speedup_by_part(void **state)
{
	autosize_model m;
	autosize_partition part;
	autosize_error e;
	sizing_job job;
	double s, share, f_b200, f_b300;
	const char *const gpus[] = {"B200", "B300"};
	double *f[] = {&f_b200, &f_b300};
	int i;

	autosize_model_init(&m);
	m.layers = 32;
	m.hidden = 4096;
	m.heads = 32;
	m.ffn = 14336;
	assert_int_equal(autosize_model_finish_arch(&m, &e), 0);
	for (i = 0; i < 2; i++) {
		job_for(&job, &m, &part, gpus[i]);
		job.precision = AUTOSIZE_PREC_NVFP4;
		perfdata_resolve(perfdata_default(), part.gpu,
				 AUTOSIZE_PREC_NVFP4, &job.perf);
		*f[i] = 1 / sizing_peak_reach(&job);
	}
	s = job.perf.fp4_gemm_speedup;
	share = job.perf.fp8_gemm_share;
	assert_true(s > 1 && share > 0);
	assert_true(fabs(f_b200 - (1 - share + share / s)) < 1e-12);
	assert_true(fabs(f_b300 - (1 - share + share / (1.5 * s))) < 1e-12);
	job.precision = AUTOSIZE_PREC_FP8;
	perfdata_resolve(perfdata_default(), part.gpu, AUTOSIZE_PREC_FP8,
			 &job.perf);
	assert_true(fabs(1 / sizing_peak_reach(&job) -
			 (1 - share + share / job.perf.fp8_gemm_speedup)) <
		    1e-12);
}

/* Chunked local attention (Llama 4): a chunked layer runs a causal
 * square per chunk, (q c^2 + r^2) / s^2 of a whole causal layer for q
 * whole chunks of c and a last one of r tokens; c / s where c divides s.
 * A window and a chunk on one model are refused. */
static void test_chunked_attention_flops(void **state)
{
	autosize_model m;
	autosize_partition part;
	autosize_error e;
	sizing_job job;
	double whole, dense, attn, got, s = 32768, c = 8192;
	const int scout[6] = {48, 5120, 40, 8, 128, 8192};

	whole = attn_setup(&job, &m, &part, scout, s, &attn);
	dense = whole - attn;
	m.attn_chunk = (int)c;
	m.window_layers = 36;
	assert_int_equal(autosize_model_finish_arch(&m, &e), 0);
	got = sizing_model_flops_per_token(&job);
	assert_true(fabs(got - (dense + attn * (12 + 36 * c / s) / 48)) <
		    1e-9 * whole);
	/* 20000 tokens: two chunks of 8192 and one of 3616 */
	job.seq_len = 20000;
	m.attn_chunk = 0;
	m.window_layers = 0;
	assert_int_equal(autosize_model_finish_arch(&m, &e), 0);
	{
		double full = sizing_model_flops_per_token(&job), a20;
		double share = (2 * c * c + 3616.0 * 3616.0) / (20000.0 *
								 20000.0);

		a20 = 6.0 * m.layers * 20000 * m.heads * 2 * m.head_dim;
		m.attn_chunk = (int)c;
		m.window_layers = 48;
		got = sizing_model_flops_per_token(&job);
		assert_true(fabs(got - (full - a20 + a20 * share)) <
			    1e-9 * full);
		/* a chunk as long as the sequence is no chunk */
		job.seq_len = (int)c;
		m.attn_chunk = 0;
		full = sizing_model_flops_per_token(&job);
		m.attn_chunk = (int)c;
		assert_true(sizing_model_flops_per_token(&job) == full);
	}
	/* one kind of local attention a model */
	m.attn_window = 4096;
	assert_int_equal(autosize_model_finish_arch(&m, &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "attn-chunk"));
	m.attn_window = 0;
	m.attn_chunk = 0;
	m.window_layers = 36;
	assert_int_equal(autosize_model_finish_arch(&m, &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "attn-chunk 8192"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero_paper_model_states),
		cmocka_unit_test(test_sliding_window_flops),
		cmocka_unit_test(test_chunked_attention_flops),
		cmocka_unit_test(test_fp4_speedup_by_part),
		cmocka_unit_test(test_megatron_bytes_per_param),
		cmocka_unit_test(test_fp8_weight_cache),
		cmocka_unit_test(test_selective_mlp_moe),
		cmocka_unit_test(test_selective_mlp_redone),
		cmocka_unit_test(test_korthikanti_per_layer),
		cmocka_unit_test(test_pipeline_first_stage),
		cmocka_unit_test(test_pipeline_last_stage),
		cmocka_unit_test(test_lora_memory),
		cmocka_unit_test(test_flops),
		cmocka_unit_test(test_partial_recompute),
		cmocka_unit_test(test_compute_bound),
		cmocka_unit_test(test_fsdp_phases),
		cmocka_unit_test(test_fsdp_pipeline_sync),
		cmocka_unit_test(test_automodel_bf16_states),
		cmocka_unit_test(test_deepspeed_zero2_reduce),
		cmocka_unit_test(test_time_terms),
		cmocka_unit_test(test_nvlink_domain_time),
		cmocka_unit_test(test_dp_group_inside_node),
		cmocka_unit_test(test_gpus_per_node_time),
		cmocka_unit_test(test_gpus_per_node_domain),
		cmocka_unit_test(test_step_parts_sum),
	};

	return cmocka_run_group_tests_name("sizing", tests, catalog_setup,
					   catalog_teardown);
}
