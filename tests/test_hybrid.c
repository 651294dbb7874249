/*
 * Hybrid state-space models (Nemotron-H): their blocks, parameters,
 * config.json, FLOPs, activations and tensor-parallel limits, on
 * hand-computed cases.
 */
#include "testutil.h"
#include "autosize.h"
#include "catalog_fixture.h"
#include "sizing.h"
#include "framework_private.h"
#define PLANTEST_WHAT "test_hybrid"
#include "plantest.h"

/* Nemotron 3 Nano's config.json (tests/data/configs has the file the
 * preset is checked against; this is its shape, inline). */
static const char nano_json[] =
	"{\"model_type\": \"nemotron_h\", \"hidden_size\": 2688,"
	" \"num_hidden_layers\": 52, \"hybrid_override_pattern\":"
	" \"MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME\","
	" \"num_attention_heads\": 32, \"num_key_value_heads\": 2,"
	" \"head_dim\": 128, \"intermediate_size\": 1856,"
	" \"mamba_num_heads\": 64, \"mamba_head_dim\": 64,"
	" \"ssm_state_size\": 128, \"n_groups\": 8,"
	" \"n_routed_experts\": 128, \"n_shared_experts\": 1,"
	" \"num_experts_per_tok\": 6, \"moe_intermediate_size\": 1856,"
	" \"moe_shared_expert_intermediate_size\": 3712,"
	" \"vocab_size\": 131072, \"tie_word_embeddings\": false}";

static void nano(autosize_model *m)
{
	autosize_error e;

	assert_int_equal(autosize_model_preset("nemotron-3-nano-30b-a3b", m,
					       &e), 0);
}

static void job_for(sizing_job *job, const autosize_model *m,
		    autosize_partition *part)
{
	const autosize_gpu *g = autosize_catalog_find(catalog,
						      "H100-SXM5-80GB");

	assert_non_null(g);
	autosize_partition_reference(part, g, 8);
	memset(job, 0, sizeof(*job));
	job->model = m;
	job->part = part;
	job->seq_len = 4096;
	job->global_batch = 512;
	job->flash_attention = 1;
	job->tokens = 1e9;
	job->peak_flops = autosize_gpu_peak_flops(g, AUTOSIZE_PREC_BF16);
	job->usable_bytes = g->mem_bytes * 0.8;
}

/* The parameters by hand: 23 Mamba-2 mixers (in_proj to z, x, B, C, dt;
 * the conv over x, B, C with its bias; A, D, dt bias; the gated norm;
 * out_proj), 6 attention blocks (two-matrix models carry GPT's biases and
 * LayerNorms in the engine), 23 MoE blocks (router, 128 experts and a
 * shared one of two matrices), both embeddings and the final norm: the
 * card's 31.6B total and about 3.6B active. */
static void test_nano_params(void **state)
{
	autosize_model m;
	double h = 2688, d = 64 * 64, gn = 8 * 128, nh = 64, q = 32 * 128;
	double kv = 2 * 128, v = 131072, norm = 2 * h;
	double mamba = h * (2 * d + 2 * gn + nh) + (d + 2 * gn) * 5 +
		       3 * nh + d + d * h;
	double attn = 2 * h * q + 2 * h * kv + q + h + 2 * kv;
	double mlp_e = 2 * h * 1856 + 1856 + h, mlp_s = 2 * h * 3712 + 3712 + h;
	double fixed = 23 * (mamba + norm) + 6 * (attn + norm) +
		       23 * (norm + h * 128 + mlp_s) + 2 * v * h + norm;

	(void)state;
	nano(&m);
	assert_int_equal(autosize_model_attn_layers(&m), 6);
	assert_int_equal(autosize_model_mlp_layers(&m), 23);
	assert_int_equal(autosize_model_moe_layers(&m), 23);
	assert_true(autosize_model_sublayer_share(&m) == 0.5);
	assert_true(fabs(m.params - (fixed + 23 * 128 * mlp_e)) <
		    1e-9 * m.params);
	assert_true(fabs(m.params_active - (fixed + 23 * 6 * mlp_e)) <
		    1e-9 * m.params);
	assert_true(fabs(m.params / 31.6e9 - 1) < 0.01);
	assert_true(fabs(m.params_active / 3.6e9 - 1) < 0.03);
	/* a transformer's blocks are all of each kind */
	assert_int_equal(autosize_model_preset("llama-3-8b", &m, NULL), 0);
	assert_int_equal(autosize_model_attn_layers(&m), 32);
	assert_int_equal(autosize_model_mlp_layers(&m), 32);
	assert_int_equal(autosize_model_moe_layers(&m), 0);
	assert_true(autosize_model_sublayer_share(&m) == 1);
}

/* Nemotron-H's config.json: the pattern's blocks and the Mamba sizes,
 * the same model as the preset; a bad pattern, one of another length and
 * recurrent types the engine does not read are refused, naming the key
 * or the options to give. */
static void test_hybrid_config(void **state)
{
	autosize_model m, p;
	autosize_error e;
	char bad[sizeof(nano_json)], more[sizeof(nano_json) + 64];
	char *at;

	(void)state;
	assert_int_equal(autosize_model_from_json_text(nano_json,
			 strlen(nano_json), "nano.json", &m, &e), 0);
	nano(&p);
	assert_int_equal(m.mamba_layers, 23);
	assert_int_equal(m.attn_layers, 6);
	assert_int_equal(m.mlp_layers, 23);
	assert_int_equal(m.dense_layers, 0);
	assert_int_equal(m.mamba_groups, 8);
	assert_int_equal(m.mlp, AUTOSIZE_MLP_GELU);
	assert_true(m.params == p.params);
	assert_true(m.params_active == p.params_active);

	memcpy(bad, nano_json, sizeof(bad));
	at = strstr(bad, "MEMEM*");
	at[2] = 'X';
	assert_int_equal(autosize_model_from_json_text(bad, strlen(bad),
			 "nano.json", &m, &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "hybrid_override_pattern has 'X' at "
				      "layer 2"));
	memcpy(bad, nano_json, sizeof(bad));
	at = strstr(bad, "\"num_hidden_layers\": 52");
	at[22] = '1';
	assert_int_equal(autosize_model_from_json_text(bad, strlen(bad),
			 "nano.json", &m, &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "has 52 layers, num_hidden_layers 51"));
	memcpy(bad, nano_json, sizeof(bad));
	at = strstr(bad, "\"nemotron_h\"");
	memcpy(at, "\"jamba\"     ", 12);
	assert_int_equal(autosize_model_from_json_text(bad, strlen(bad),
			 "nano.json", &m, &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "model_type jamba"));
	assert_non_null(strstr(e.msg, "--mamba-layers"));
	/* Nemotron 3 Super's latent experts; Qwen3.5's Gated DeltaNet, by
	 * its key whatever the type */
	snprintf(more, sizeof(more), "%.*s, \"moe_latent_size\": 1024}",
		 (int)strlen(nano_json) - 1, nano_json);
	assert_int_equal(autosize_model_from_json_text(more, strlen(more),
			 "nano.json", &m, &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "moe_latent_size 1024: experts that "
				      "run in a latent width"));
	snprintf(more, sizeof(more), "%.*s, \"linear_num_value_heads\": 32}",
		 (int)strlen(nano_json) - 1, nano_json);
	assert_int_equal(autosize_model_from_json_text(more, strlen(more),
			 "nano.json", &m, &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "state-space or recurrent layers"));
}

/* The counts hold together: every block holds a sublayer, attention
 * blocks need Mamba ones to differ from all, the groups divide the
 * heads. */
static void test_hybrid_checks(void **state)
{
	autosize_model m;
	autosize_error e;

	(void)state;
	nano(&m);
	m.mlp_layers = 20;
	assert_int_equal(autosize_model_finish_arch(&m, &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "leave blocks of layers 52 empty"));
	nano(&m);
	m.mamba_groups = 6;
	assert_int_equal(autosize_model_finish_arch(&m, &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "mamba-groups 6 must divide"));
	nano(&m);
	m.mamba_layers = 0;
	assert_int_equal(autosize_model_finish_arch(&m, &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "without mamba-layers"));
	/* Jamba's convention: each block a mixer and an MLP, attention on
	 * the blocks without Mamba, Megatron-Core's Mamba defaults (8
	 * groups where they divide the heads) */
	autosize_model_init(&m);
	m.layers = 32;
	m.hidden = 4096;
	m.heads = 32;
	m.mamba_layers = 28;
	assert_int_equal(autosize_model_finish_arch(&m, &e), 0);
	assert_int_equal(autosize_model_attn_layers(&m), 4);
	assert_int_equal(autosize_model_mlp_layers(&m), 32);
	assert_int_equal(m.mamba_heads, 2 * 4096 / 64);
	assert_int_equal(m.mamba_state, 128);
	assert_int_equal(m.mamba_groups, 8);
	assert_true(autosize_model_sublayer_share(&m) == 1);
}

/* FLOPs a token: 6 x the matmul parameters (the Mamba projections
 * among them), attention on the 6 attention blocks only, and the scan,
 * 7 x inner width x state a Mamba layer forward (Megatron-LM's count),
 * three times; full recomputation repeats the forward's share of both
 * and the layers' matmuls (not the output head's). */
static void test_hybrid_flops(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	double s = 4096, matmul, attn, ssm, f;

	(void)state;
	nano(&m);
	job_for(&job, &m, &part);
	matmul = m.params_active - 131072.0 * 2688;
	attn = 6.0 * 6 * s * 32 * (128 + 128);
	ssm = 3.0 * 7 * 23 * 4096 * 128;
	f = sizing_model_flops_per_token(&job);
	assert_true(fabs(f - (6 * matmul + attn + ssm)) < 1e-9 * f);
	/* the layers' matmuls, not the output head's */
	assert_true(fabs(sizing_hw_flops_per_token(&job,
			 AUTOSIZE_RECOMPUTE_FULL) -
			 (f + 2 * (matmul - 131072.0 * 2688) +
			  (attn + ssm) / 3)) < 1e-9 * f);
	/* no attention block at all, unfused attention asked for: a step
	 * time, not 0 / 0 */
	{
		sizing_layout l = {1, 1, 8, 1, 1, 1, 1, 0,
				   AUTOSIZE_RECOMPUTE_NONE, 1, 1, 0, 0};
		autosize_model pure;
		autosize_error e;
		sizing_time t;

		autosize_model_init(&pure);
		pure.layers = 48;
		pure.hidden = 2048;
		pure.heads = 16;
		pure.mamba_layers = 48;
		assert_int_equal(autosize_model_finish_arch(&pure, &e), 0);
		assert_int_equal(autosize_model_attn_layers(&pure), 0);
		job.model = &pure;
		job.flash_attention = 0;
		sizing_step_time(&job, &l, &t);
		assert_true(isfinite(t.step_s) && t.step_s > 0);
	}
}

/* Activations a block at micro-batch 1, tensor parallelism 1, BF16,
 * FlashAttention, averaged over the 52 blocks: attention blocks keep
 * their norm and QKV inputs and dropout mask (the engine's two-matrix
 * models have one), Q, K, V and the output at their own widths (32 x 128
 * query heads against a hidden of 2688); MoE blocks their norm and MLP
 * inputs and mask, their experts' inner tensors, router logits and
 * dispatched copies; Mamba blocks their norm and in_proj inputs and 10d
 * + 4GN + 2H + 4G bytes a token (Megatron-Core's training path: in_proj's
 * output, the scan's output, the gated norm's input, output and fp32
 * rstd). Full recomputation keeps the block input. */
static void test_hybrid_activations(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	sizing_layout l = {1, 1, 8, 1, 1, 1, 1, 0, AUTOSIZE_RECOMPUTE_NONE,
			   1, 1, 0, 0};
	double s = 4096, h = 2688, sbh = s * h, want, got;
	double attn = 5 * sbh + 2 * s * (32 * 128 + 2 * 256 + 32 * 128);
	double moe = 5 * sbh + s * 4 * (6 * 1856 + 3712) +
		     s * (4 * 128 + 2 * 6 * h);
	double mamba = 4 * sbh + s * (10 * 4096 + 4 * 1024 + 2 * 64 + 4 * 8);

	(void)state;
	nano(&m);
	job_for(&job, &m, &part);
	want = (6 * attn + 23 * moe + 23 * mamba) / 52;
	got = sizing_layer_activation_bytes(&job, &l);
	assert_true(fabs(got - want) < 1e-9 * want);
	l.recompute = AUTOSIZE_RECOMPUTE_FULL;
	assert_true(sizing_layer_activation_bytes(&job, &l) == 2 * sbh);
}

/* Tensor parallelism splits the Mamba heads and their B/C groups:
 * Nemotron 3 Nano's 8 groups take TP 8, not 16 (its 32 attention heads
 * would); a model of one group takes none. */
static void test_hybrid_tp(void **state)
{
	autosize_model m;
	autosize_partition part;
	autosize_error e;
	sizing_job job;

	(void)state;
	nano(&m);
	job_for(&job, &m, &part);
	assert_true(framework_heads_ok(&job, 8, 1));
	assert_false(framework_heads_ok(&job, 16, 1));
	/* context parallelism splits a TP rank's Mamba heads cp ways and
	 * its groups split or shared whole, under Megatron-Core only (not
	 * DeepSpeed-Ulysses): 64 heads, 8 groups */
	assert_true(framework_heads_ok(&job, 1, 8));
	assert_true(framework_heads_ok(&job, 2, 4));
	assert_false(framework_heads_ok(&job, 8, 16));
	assert_false(framework_heads_ok(&job, 4, 32));
	job.framework = AUTOSIZE_FRAMEWORK_DEEPSPEED;
	assert_false(framework_heads_ok(&job, 1, 2));
	job.framework = AUTOSIZE_FRAMEWORK_MEGATRON;
	m.mamba_groups = 1;
	assert_int_equal(autosize_model_finish_arch(&m, &e), 0);
	assert_false(framework_heads_ok(&job, 2, 1));
}

/* The error a plan of Nemotron 3 Nano (found by its Hugging Face id
 * with the weights' precision as a suffix) on gpus H100 with opt = value
 * and opt2 = value2 gives. */
static const char *nano_plan_error(const autosize_policy *p, const char *gpus,
				   const char *opt, const char *value,
				   const char *opt2, const char *value2,
				   autosize_error *e)
{
	const char *const opts[] = {
		"model", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
		"gpu", "h100", "gpus", gpus, "train-tokens", "1e10",
		opt, value, opt2, value2, NULL};
	autosize_request r;
	autosize_plan plan;

	plantest_request(opts, &r);
	assert_int_equal(autosize_plan_compute(p, &r, &plan, e),
			 AUTOSIZE_EINVAL);
	return e->msg;
}

/* Pinned splits a hybrid cannot take are refused in one line naming
 * why, before any search: a --tp the Mamba groups cannot take, virtual
 * pipeline stages (Megatron-Core cuts the pattern without them), a --cp
 * the Mamba heads cannot take. */
static void test_hybrid_tp_refused(void **state)
{
	autosize_policy *p;
	autosize_error e;

	(void)state;
	p = autosize_policy_default(&e);
	assert_non_null(p);
	assert_non_null(strstr(nano_plan_error(p, "32", "tp", "16", "pp", "1",
					       &e),
			       "--tp: 16 does not divide the model's 64 Mamba "
			       "heads and 8 groups"));
	assert_non_null(strstr(nano_plan_error(p, "32", "pp", "2",
					       "interleave", "2", &e),
			       "--interleave: Megatron-Core runs a hybrid"));
	/* 64 heads over TP 8 x CP 16 */
	assert_non_null(strstr(nano_plan_error(p, "128", "tp", "8", "cp", "16",
					       &e),
			       "--cp: a hybrid's Mamba heads split over TP x "
			       "CP"));
	autosize_policy_destroy(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nano_params),
		cmocka_unit_test(test_hybrid_config),
		cmocka_unit_test(test_hybrid_checks),
		cmocka_unit_test(test_hybrid_flops),
		cmocka_unit_test(test_hybrid_activations),
		cmocka_unit_test(test_hybrid_tp),
		cmocka_unit_test(test_hybrid_tp_refused),
	};

	return cmocka_run_group_tests(tests, catalog_setup, catalog_teardown);
}
