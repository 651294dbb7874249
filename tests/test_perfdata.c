/*
 * Performance data (etc/perf.yaml via core/perfdata.c): the shipped file
 * parses, keeps the A100 calibration, every number has a source, a GPU
 * finds its entry or its generation's (and the plan says so).
 */
#include "testutil.h"
#include "autosize.h"
#include "perfdata.h"

static const char good_entry[] =
	"generations:\n"
	"  - name: ampere\n"
	"    measured_on: [A100-SXM4-80GB]\n"
	"    members: []\n"
	"    gemm_eff_max: 0.7\n    gemm_half_dim: 200\n"
	"    attn_share: 0.7\n    hbm_eff: 1\n"
	"    elementwise_bytes_per_h: 170\n    scores_bytes: 44\n"
	"    layer_overhead_s: 0\n    nvlink_eff: 0.7\n    pcie_eff: 0.6\n"
	"    ib_eff: 0.8\n    roce_eff: 0.7\n    ethernet_eff: 0.3\n"
	"    intra_latency_s: 5e-6\n    ib_latency_s: 8e-6\n"
	"    roce_latency_s: 1e-5\n    ethernet_latency_s: 6e-5\n"
	"    fp8_gemm_speedup: 1\n    fp8_gemm_share: 0\n    tp_overlap: 0\n"
	"    sources: {gemm_eff_max: a, gemm_half_dim: a, attn_share: a,\n"
	"      hbm_eff: a, elementwise_bytes_per_h: a, scores_bytes: a,\n"
	"      layer_overhead_s: a, nvlink_eff: a, pcie_eff: a, ib_eff: a,\n"
	"      roce_eff: a, ethernet_eff: a, intra_latency_s: a,\n"
	"      ib_latency_s: a, roce_latency_s: a, ethernet_latency_s: a,\n"
	"      fp8_gemm_speedup: a, fp8_gemm_share: a, tp_overlap: a}\n";

static void test_shipped_file(void **state)
{
	const perfdata_table *t = perfdata_default();
	const perf_params *a = perfdata_ampere_builtin();
	const char *gens[] = {"ampere", "ada", "ada-geforce", "hopper",
			      "blackwell", "cdna", NULL};
	int i, j, found;

	assert_true(t->n >= 4);
	for (i = 0; gens[i]; i++) {
		found = 0;
		for (j = 0; j < t->n; j++)
			found |= strcmp(t->entries[j].p.generation,
					gens[i]) == 0;
		assert_true(found);
	}
	/* The built-in fallback is the shipped ampere entry, number for
	 * number (A100 accuracy is guarded by tests/test_validation.c). */
	assert_string_equal(t->entries[0].p.generation, "ampere");
	assert_true(t->entries[0].p.gemm_eff_max == a->gemm_eff_max);
	assert_true(t->entries[0].p.gemm_half_dim == a->gemm_half_dim);
	assert_true(t->entries[0].p.attn_share == a->attn_share);
	assert_true(t->entries[0].p.elementwise_bytes_per_h ==
		    a->elementwise_bytes_per_h);
	assert_true(t->entries[0].p.nvlink_eff == a->nvlink_eff);
	assert_true(t->entries[0].p.intra_latency_s == a->intra_latency_s);
	assert_true(t->entries[0].p.pcie_latency_s == a->pcie_latency_s);
	assert_true(t->entries[0].p.layer_overhead_s == 0);
	/* whole-layer recomputation: the HF Trainer's stacks and
	 * torchtune, not torchtitan's selective checkpointing */
	assert_true(perfdata_stack_find(t, "hf")->recompute_whole);
	assert_true(perfdata_stack_find(t, "axolotl")->recompute_whole);
	assert_true(perfdata_stack_find(t, "torchtune")->recompute_whole);
	assert_false(perfdata_stack_find(t, "torchtitan")->recompute_whole);
}

/* A stack's recompute: any or full, with its source. */
static void test_stack_recompute(void **state)
{
	static const char stack[] =
		"stacks:\n  - name: s\n    framework: fsdp\n"
		"    recompute: %s\n    sources: {%s}\n";
	static perfdata_table t;
	char buf[sizeof(good_entry) + sizeof(stack) + 64];
	autosize_error e;

	snprintf(buf, sizeof(buf), "%s", good_entry);
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), stack, "full",
		 "recompute: a");
	assert_int_equal(perfdata_parse(buf, strlen(buf), "perf.yaml", &t, &e),
			 AUTOSIZE_OK);
	assert_true(perfdata_stack_find(&t, "s")->recompute_whole);
	snprintf(buf, sizeof(buf), "%s", good_entry);
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), stack,
		 "selective", "recompute: a");
	assert_int_not_equal(perfdata_parse(buf, strlen(buf), "perf.yaml", &t,
					    &e), AUTOSIZE_OK);
	assert_non_null(strstr(e.msg, "recompute"));
	snprintf(buf, sizeof(buf), "%s", good_entry);
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), stack, "full",
		 "q_low: a");
	assert_int_not_equal(perfdata_parse(buf, strlen(buf), "perf.yaml", &t,
					    &e), AUTOSIZE_OK);
	assert_non_null(strstr(e.msg, "recompute"));
}

static const autosize_gpu *gpu(const autosize_catalog *c, const char *n)
{
	const autosize_gpu *g = autosize_catalog_find(c, n);

	assert_non_null(g);
	return g;
}

static void test_resolve(void **state)
{
	const perfdata_table *t = perfdata_default();
	autosize_error e;
	autosize_catalog *c = autosize_catalog_default(&e);
	autosize_gpu odd;
	perf_params p;

	assert_non_null(c);
	perfdata_resolve(t, gpu(c, "a100-80gb"), AUTOSIZE_PREC_BF16, &p);
	assert_string_equal(p.generation, "ampere");
	assert_int_equal(p.fallback, 0);
	perfdata_resolve(t, gpu(c, "h800"), AUTOSIZE_PREC_FP8, &p);
	assert_string_equal(p.generation, "hopper");
	assert_int_equal(p.fallback, 0);
	assert_true(p.fp8_gemm_share > 0);
	/* FP8 numbers only for FP8 jobs */
	perfdata_resolve(t, gpu(c, "h800"), AUTOSIZE_PREC_BF16, &p);
	assert_true(p.fp8_gemm_share == 0);
	/* a member: its generation's numbers, flagged */
	perfdata_resolve(t, gpu(c, "H100-PCIe-80GB"), AUTOSIZE_PREC_BF16,
			 &p);
	assert_string_equal(p.generation, "hopper");
	assert_int_equal(p.fallback, 1);
	/* listed nowhere: the generation its figures suggest */
	odd = *gpu(c, "b200");
	snprintf(odd.name, sizeof(odd.name), "X-1000");
	perfdata_resolve(t, &odd, AUTOSIZE_PREC_BF16, &p);
	assert_string_equal(p.generation, "blackwell");
	assert_int_equal(p.fallback, 1);
	odd.fp8_tflops = 0;
	perfdata_resolve(t, &odd, AUTOSIZE_PREC_BF16, &p);
	assert_string_equal(p.generation, "ampere");
	odd.link = AUTOSIZE_LINK_XGMI;
	perfdata_resolve(t, &odd, AUTOSIZE_PREC_BF16, &p);
	assert_string_equal(p.generation, "cdna");
	autosize_catalog_destroy(c);
}

/* Replace the first occurrence of from by to in a copy of good_entry. */
static autosize_err parse_edited(const char *from, const char *to,
				 autosize_error *e)
{
	static perfdata_table t;
	char buf[sizeof(good_entry) + 256];
	const char *at = strstr(good_entry, from);

	assert_non_null(at);
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(at - good_entry),
		 good_entry, to, at + strlen(from));
	return perfdata_parse(buf, strlen(buf), "perf.yaml", &t, e);
}

static void test_strict(void **state)
{
	perfdata_table t;
	autosize_error e;

	assert_int_equal(perfdata_parse(good_entry, strlen(good_entry),
					"perf.yaml", &t, &e), AUTOSIZE_OK);
	assert_int_equal(t.n, 1);
	assert_true(t.entries[0].p.gemm_half_dim == 200);
	/* a number without its source */
	assert_int_not_equal(parse_edited("gemm_half_dim: a, ", "", &e),
			     AUTOSIZE_OK);
	assert_non_null(strstr(e.msg, "gemm_half_dim"));
	/* an empty source */
	assert_int_not_equal(parse_edited("hbm_eff: a", "hbm_eff: ''", &e),
			     AUTOSIZE_OK);
	assert_non_null(strstr(e.msg, "hbm_eff"));
	/* out of range, unknown key, missing number */
	assert_int_not_equal(parse_edited("gemm_eff_max: 0.7",
					  "gemm_eff_max: 1.7", &e),
			     AUTOSIZE_OK);
	assert_non_null(strstr(e.msg, "gemm_eff_max"));
	assert_int_not_equal(parse_edited("hbm_eff: 1\n",
					  "hbm_eff: 1\n    speed: 3\n", &e),
			     AUTOSIZE_OK);
	assert_non_null(strstr(e.msg, "speed"));
	assert_int_not_equal(parse_edited("    layer_overhead_s: 0\n", "",
					  &e), AUTOSIZE_OK);
	assert_non_null(strstr(e.msg, "layer_overhead_s"));
	/* torch_eff came later: a site's file without it still loads, at
	 * 1 (Megatron's rate); given, it needs a source and a range */
	assert_true(t.entries[0].p.torch_eff == 1);
	assert_int_equal(parse_edited("tp_overlap: 0\n",
				      "tp_overlap: 0\n    torch_eff: 0.8\n",
				      &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "torch_eff"));
	assert_int_equal(parse_edited("tp_overlap: a}",
				      "tp_overlap: a, torch_eff: a}", &e),
			 AUTOSIZE_OK);
	assert_int_not_equal(parse_edited("tp_overlap: 0\n",
					  "tp_overlap: 0\n    torch_eff: 0\n",
					  &e), AUTOSIZE_OK);
}

/* The shipped Hopper entry runs PyTorch-native stacks' attention below
 * Megatron's (SDPA's FlashAttention-2 against the cuDNN / FlashAttention-3
 * class kernels of Transformer Engine: torch_attn_eff) and their GEMMs
 * near it (torch_eff): at 8K tokens, where attention is a fifth of the
 * step, the same data-parallel layout on 8 H100s is much slower under
 * fsdp than under megatron; on A100 (FlashAttention-2 on both, no
 * torch_attn_eff) it is not. */
static void test_torch_eff(void **state)
{
	static const char *const opts[] = {"model", "llama-3.2-1b",
		"train-tokens", "1e10", "gpus", "8", "tp", "1", "pp", "1",
		"zero", "0", "micro-batch", "1", "recompute", "full",
		"grad-reduce", "bf16", "train-seq-len", "8192",
		"memory-reserve", "0", NULL};
	const perfdata_table *t = perfdata_default();
	autosize_policy *pol;
	autosize_request r;
	autosize_plan meg, fsdp;
	autosize_error e;
	int i, hopper = -1;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->entries[i].p.generation, "hopper") == 0)
			hopper = i;
	assert_true(hopper >= 0);
	assert_true(t->entries[hopper].p.torch_attn_eff < 0.9);
	assert_true(t->entries[hopper].p.torch_attn_eff >= 0.4);
	assert_true(t->entries[hopper].p.torch_eff <= 1);
	assert_true(t->entries[hopper].p.torch_eff >= 0.9);
	assert_true(t->entries[0].p.torch_attn_eff == 0);
	pol = autosize_policy_default(&e);
	assert_non_null(pol);
	autosize_request_init(&r);
	for (i = 0; opts[i]; i += 2)
		assert_int_equal(autosize_request_set(&r, opts[i], opts[i + 1],
						      &e), 0);
	assert_int_equal(autosize_request_set(&r, "gpu", "h100", &e), 0);
	assert_int_equal(autosize_request_finish(&r, &e), 0);
	assert_int_equal(autosize_request_set(&r, "train-framework",
					      "megatron", &e), 0);
	assert_int_equal(autosize_plan_compute(pol, &r, &meg, &e), 0);
	assert_int_equal(autosize_request_set(&r, "train-framework", "fsdp",
					      &e), 0);
	assert_int_equal(autosize_plan_compute(pol, &r, &fsdp, &e), 0);
	assert_true(fsdp.tokens_per_s < 0.9 * meg.tokens_per_s);
	assert_true(fsdp.step.attention_s > 1.5 * meg.step.attention_s);
	assert_int_equal(autosize_request_set(&r, "gpu", "a100-80gb", &e), 0);
	assert_int_equal(autosize_plan_compute(pol, &r, &fsdp, &e), 0);
	assert_int_equal(autosize_request_set(&r, "train-framework",
					      "megatron", &e), 0);
	assert_int_equal(autosize_plan_compute(pol, &r, &meg, &e), 0);
	assert_true(fsdp.tokens_per_s > 0.95 * meg.tokens_per_s);
	autosize_policy_destroy(pol);
}

/* Ada cards (L40S, RTX 4090, RTX 6000 Ada) use their own generation's
 * numbers with FP8 on, not Ampere's: FP8 plans run faster than BF16 at
 * the catalog's dense FP8/BF16 rates. */
static void test_ada(void **state)
{
	static const char *const ada[] = {"L40S", "RTX-4090", "RTX-6000-Ada"};
	const perfdata_table *t = perfdata_default();
	autosize_error e;
	autosize_catalog *c = autosize_catalog_default(&e);
	autosize_policy *pol = autosize_policy_default(&e);
	autosize_request r;
	autosize_plan bf16, fp8;
	perf_params p;
	size_t i;

	assert_non_null(c);
	assert_non_null(pol);
	for (i = 0; i < sizeof(ada) / sizeof(ada[0]); i++) {
		perfdata_resolve(t, gpu(c, ada[i]), AUTOSIZE_PREC_FP8, &p);
		/* the RTX 4090 has its own entry, ada-geforce */
		assert_int_equal(strncmp(p.generation, "ada", 3), 0);
		assert_int_equal(p.fallback, 1);
		assert_true(p.fp8_gemm_speedup >= 1.9 && p.fp8_gemm_share > 0);
		assert_true(gpu(c, ada[i])->fp8_tflops >=
			    1.9 * gpu(c, ada[i])->bf16_tflops);
		autosize_request_init(&r);
		assert_int_equal(autosize_request_set(&r, "model", "llama-3.2-3b",
						      &e), 0);
		assert_int_equal(autosize_request_set(&r, "gpu", ada[i], &e),
				 0);
		assert_int_equal(autosize_request_set(&r, "gpus", "8", &e), 0);
		assert_int_equal(autosize_request_set(&r, "train-tokens",
						      "10B", &e), 0);
		assert_int_equal(autosize_request_finish(&r, &e), 0);
		assert_int_equal(autosize_plan_compute(pol, &r, &bf16, &e),
				 AUTOSIZE_OK);
		assert_int_equal(autosize_request_set(&r, "train-precision",
						      "fp8", &e), 0);
		assert_int_equal(autosize_plan_compute(pol, &r, &fp8, &e),
				 AUTOSIZE_OK);
		printf("  %s: BF16 %.0f, FP8 %.0f tokens/s\n", ada[i],
		       bf16.tokens_per_s, fp8.tokens_per_s);
		assert_string_equal(fp8.perf_generation, p.generation);
		assert_true(fp8.tokens_per_s > 1.2 * bf16.tokens_per_s);
	}
	autosize_policy_destroy(pol);
	autosize_catalog_destroy(c);
}

/* A GPU without numbers of its own: the plan says whose it used. */
static void test_plan_says_fallback(void **state)
{
	autosize_request r;
	autosize_plan plan;
	autosize_error e;
	autosize_policy *p = autosize_policy_default(&e);
	int i, said = 0;

	assert_non_null(p);
	autosize_request_init(&r);
	assert_int_equal(autosize_request_set(&r, "model-params", "7e9", &e),
			 0);
	assert_int_equal(autosize_request_set(&r, "gpu", "h100-pcie", &e), 0);
	assert_int_equal(autosize_request_set(&r, "train-tokens", "10B", &e),
			 0);
	assert_int_equal(autosize_request_finish(&r, &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &plan, &e), AUTOSIZE_OK);
	for (i = 0; i < plan.n_warnings; i++)
		said |= strstr(plan.warnings[i], "hopper generation") != NULL;
	assert_true(said);
	autosize_request_set(&r, "gpu", "a100-80gb", &e);
	assert_int_equal(autosize_plan_compute(p, &r, &plan, &e), AUTOSIZE_OK);
	for (i = 0; i < plan.n_warnings; i++)
		assert_null(strstr(plan.warnings[i], "generation's"));
	autosize_policy_destroy(p);
}

/* Residual spread by regime: its own with enough runs, else pooled. */
static void test_interval_lookup(void **state)
{
	static const char yaml_tail[] =
		"residuals:\n"
		"  note: test\n"
		"  pooled: {runs: 40, q_low: -0.2, q_high: 0.3}\n"
		"  regimes:\n"
		"    - {generation: hopper, framework: fsdp, scale: small, "
		"runs: 6, q_low: -0.1, q_high: 0.4}\n"
		"    - {generation: hopper, framework: megatron, scale: "
		"small, runs: 2, q_low: -0.5, q_high: 0.9}\n";
	char buf[sizeof(good_entry) + sizeof(yaml_tail)];
	perfdata_table t;
	perfdata_regime g;
	autosize_error e;
	int pooled;

	assert_string_equal(perfdata_scale(8), "small");
	assert_string_equal(perfdata_scale(64), "small");
	assert_string_equal(perfdata_scale(65), "mid");
	assert_string_equal(perfdata_scale(1024), "mid");
	assert_string_equal(perfdata_scale(1025), "large");
	snprintf(buf, sizeof(buf), "%s%s", good_entry, yaml_tail);
	assert_int_equal(perfdata_parse(buf, strlen(buf), "perf.yaml", &t,
					&e), AUTOSIZE_OK);
	assert_int_equal(t.n_regimes, 2);
	assert_int_equal(perfdata_interval(&t, "hopper",
					   AUTOSIZE_FRAMEWORK_FSDP, 8, &g,
					   &pooled), 1);
	assert_int_equal(pooled, 0);
	assert_true(g.q_high == 0.4 && g.runs == 6);
	/* too few runs of its own, or another scale: pooled */
	perfdata_interval(&t, "hopper", AUTOSIZE_FRAMEWORK_MEGATRON, 8, &g,
			  &pooled);
	assert_int_equal(pooled, 1);
	assert_true(g.q_high == 0.3 && g.runs == 40);
	perfdata_interval(&t, "hopper", AUTOSIZE_FRAMEWORK_FSDP, 512, &g,
			  &pooled);
	assert_int_equal(pooled, 1);
	/* no residuals at all: no interval */
	assert_int_equal(perfdata_parse(good_entry, strlen(good_entry),
					"perf.yaml", &t, &e), AUTOSIZE_OK);
	assert_int_equal(perfdata_interval(&t, "hopper",
					   AUTOSIZE_FRAMEWORK_FSDP, 8, &g,
					   &pooled), 0);
	/* the shipped file has a pooled spread that says when and on what */
	assert_true(perfdata_default()->pooled.runs >= 20);
	assert_non_null(strstr(perfdata_default()->residuals_note, "runs"));
	/* q_high below q_low is refused */
	snprintf(buf, sizeof(buf), "%sresiduals:\n  note: x\n  pooled: "
		 "{runs: 3, q_low: 0.2, q_high: 0.1}\n", good_entry);
	assert_int_not_equal(perfdata_parse(buf, strlen(buf), "perf.yaml",
					    &t, &e), AUTOSIZE_OK);
}

/* The plan's interval holds the prediction, the time limit covers its
 * upper end plus the start-up allowance and the checkpoint writes, and
 * at least the time reserve;
 * a GPU with borrowed numbers gets a wider interval. */
static void test_plan_interval(void **state)
{
	autosize_request r;
	autosize_plan a, b;
	autosize_error e;
	autosize_policy *p = autosize_policy_default(&e);
	double lo_a, hi_a, lo_b, hi_b, allow_min;

	assert_non_null(p);
	autosize_request_init(&r);
	assert_int_equal(autosize_request_set(&r, "model-params", "7e9", &e),
			 0);
	assert_int_equal(autosize_request_set(&r, "gpu", "h100", &e), 0);
	assert_int_equal(autosize_request_set(&r, "gpus", "8", &e), 0);
	assert_int_equal(autosize_request_set(&r, "train-tokens", "100B",
					      &e), 0);
	/* Hopper FSDP runs came out both slower and faster than predicted */
	assert_int_equal(autosize_request_set(&r, "train-framework", "fsdp",
					      &e), 0);
	assert_int_equal(autosize_request_finish(&r, &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &a, &e), AUTOSIZE_OK);
	assert_true(a.train_hours_low < a.train_hours);
	assert_true(a.train_hours_high > a.train_hours);
	assert_true(a.interval_runs > 0);
	assert_string_equal(a.perf_generation, "hopper");
	allow_min = 15 + a.ckpt.job_write_s / 60;
	assert_true(a.ckpt.job_write_s > 0);
	assert_true(a.time_limit_min >=
		    a.train_hours_high * 60 + allow_min - 1e-9);
	assert_true(a.time_limit_min >=
		    a.train_hours * 60 * (1 + a.time_reserve) + allow_min -
		    1e-9);
	assert_true(a.time_limit_min <=
		    fmax(a.train_hours_high, a.train_hours *
			 (1 + a.time_reserve)) * 60 + allow_min + 1);
	assert_int_equal(autosize_request_set(&r, "gpu", "h100-pcie", &e),
			 0);
	assert_int_equal(autosize_plan_compute(p, &r, &b, &e), AUTOSIZE_OK);
	lo_a = log(a.train_hours_low / a.train_hours);
	hi_a = log(a.train_hours_high / a.train_hours);
	lo_b = log(b.train_hours_low / b.train_hours);
	hi_b = log(b.train_hours_high / b.train_hours);
	/* same regime, borrowed numbers: 1.5x the spread on both sides */
	assert_int_equal(b.interval_pooled, a.interval_pooled);
	assert_true(fabs(hi_b - 1.5 * hi_a) < 1e-3);
	assert_true(fabs(lo_b - 1.5 * lo_a) < 1e-3);
	/* a regime with too few runs of its own (DeepSpeed on A100): the
	 * pooled spread, widened 1.5x as well; a GPU borrowing its numbers
	 * there (A800) is widened once, not twice */
	assert_int_equal(autosize_request_set(&r, "train-framework",
					      "deepspeed", &e), 0);
	assert_int_equal(autosize_request_set(&r, "gpu", "a100-80gb", &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &a, &e), AUTOSIZE_OK);
	assert_int_equal(a.interval_pooled, 1);
	assert_true(fabs(log(a.train_hours_high / a.train_hours) -
			 1.5 * perfdata_default()->pooled.q_high) < 1e-3);
	assert_true(fabs(log(a.train_hours_low / a.train_hours) -
			 1.5 * perfdata_default()->pooled.q_low) < 1e-3);
	assert_int_equal(autosize_request_set(&r, "gpu", "a800", &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &b, &e), AUTOSIZE_OK);
	assert_int_equal(b.interval_pooled, 1);
	assert_true(fabs(log(b.train_hours_high / b.train_hours) -
			 log(a.train_hours_high / a.train_hours)) < 1e-3);
	autosize_policy_destroy(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped_file),
		cmocka_unit_test(test_stack_recompute),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_strict),
		cmocka_unit_test(test_plan_says_fallback),
		cmocka_unit_test(test_ada),
		cmocka_unit_test(test_torch_eff),
		cmocka_unit_test(test_interval_lookup),
		cmocka_unit_test(test_plan_interval),
	};

	return cmocka_run_group_tests_name("perfdata", tests, NULL, NULL);
}
