/*
 * Tests: judging the scaling probe (offline/probe.c) by the renter's rules:
 * 1.6x for a doubling (80% of linear at other ratios), 35% of peak per
 * GPU, an OOM or a silent probe said first; figures from a plan record.
 */
#include "testutil.h"
#include "autosize/catalog.h"
#include "autosize/probe.h"

/* A probe that measured tokens_per_s on gpus at mfu, planned at 1.1x. */
static void run_of(autosize_probe_run *r, int gpus, double tokens_per_s,
		   double mfu)
{
	memset(r, 0, sizeof(*r));
	r->job_id = 100 + gpus;
	snprintf(r->state, sizeof(r->state), "COMPLETED");
	r->has_record = 1;
	r->measured = 1;
	r->gpus = gpus;
	r->nodes = 1;
	r->tokens_per_s = tokens_per_s;
	r->pred_tokens_per_s = tokens_per_s * 1.1;
	r->mfu = mfu;
	r->pred_mfu = mfu * 1.1;
	r->mem_bytes = 30e9;
	r->pred_mem_bytes = 32e9;
}

static int advised(const autosize_probe_verdict *v, const char *needle)
{
	int i;

	for (i = 0; i < v->n_advice; i++)
		if (strstr(v->advice[i], needle))
			return 1;
	return 0;
}

static void test_min_speedup(void **state)
{
	(void)state;
	assert_float_equal(autosize_probe_min_speedup(4, 8), 1.6, 1e-12);
	assert_float_equal(autosize_probe_min_speedup(8, 16), 1.6, 1e-12);
	assert_float_equal(autosize_probe_min_speedup(4, 16), 3.2, 1e-12);
	assert_float_equal(autosize_probe_min_speedup(8, 8), 1, 0);
	assert_float_equal(autosize_probe_min_speedup(0, 8), 1, 0);
}

static void test_scaling_holds(void **state)
{
	autosize_probe_run a, b;
	autosize_probe_verdict v;

	(void)state;
	run_of(&a, 4, 48000, 0.51);
	run_of(&b, 8, 96000 * 0.9, 0.46);
	autosize_probe_assess(&a, &b, &v);
	assert_true(v.compared);
	assert_true(v.ok);
	assert_false(v.scales_badly);
	assert_float_equal(v.speedup, 1.8, 1e-12);
	assert_float_equal(v.gpu_ratio, 2, 0);
	assert_int_equal(v.n_advice, 1);
	assert_true(advised(&v, "scaling holds"));
}

/* 1.59x for a doubling fails; 1.6x passes (the rule's edge). */
static void test_scales_badly(void **state)
{
	autosize_probe_run a, b;
	autosize_probe_verdict v;

	(void)state;
	run_of(&a, 4, 10000, 0.5);
	run_of(&b, 8, 15900, 0.4);
	autosize_probe_assess(&a, &b, &v);
	assert_true(v.scales_badly);
	assert_false(v.ok);
	assert_true(advised(&v, "4 -> 8 GPUs gave 1.59x, below 1.60x"));
	run_of(&b, 8, 16000, 0.4);
	autosize_probe_assess(&a, &b, &v);
	assert_false(v.scales_badly);
	assert_true(v.ok);
	/* 1 -> 2 nodes of 8 GPUs is the same rule */
	run_of(&a, 8, 10000, 0.5);
	run_of(&b, 16, 14000, 0.35);
	autosize_probe_assess(&a, &b, &v);
	assert_true(v.scales_badly);
	assert_true(advised(&v, "8 -> 16 GPUs gave 1.40x"));
}

/* A GPU under 35% of peak: fix the code first, even when it scales. */
static void test_low_mfu(void **state)
{
	autosize_probe_run a, b;
	autosize_probe_verdict v;

	(void)state;
	run_of(&a, 4, 10000, 0.20);
	run_of(&b, 8, 20000, 0.20);
	autosize_probe_assess(&a, &b, &v);
	assert_false(v.scales_badly);
	assert_false(v.ok);
	assert_true(strstr(v.advice[0], "20% of peak per GPU on 4 GPUs is "
			   "below 35%: fix the code or the data loading") !=
		    NULL);
}

/* An OOM, a probe without figures or without a record: said first. */
static void test_failed_probes(void **state)
{
	autosize_probe_run a, b;
	autosize_probe_verdict v;

	(void)state;
	run_of(&a, 4, 48000, 0.5);
	run_of(&b, 8, 0, 0);
	b.measured = 0;
	b.oom = 1;
	snprintf(b.state, sizeof(b.state), "FAILED");
	autosize_probe_assess(&a, &b, &v);
	assert_false(v.compared);
	assert_false(v.ok);
	assert_true(strstr(v.advice[0], "the 8-GPU probe (job 108) ran out "
			   "of memory") != NULL);
	b.oom = 0;
	autosize_probe_assess(&a, &b, &v);
	assert_true(advised(&v, "reported no figures"));
	b.has_record = 0;
	autosize_probe_assess(&a, &b, &v);
	assert_true(advised(&v, "has no plan record"));
}

/* Slower than planned, or more memory: said with the numbers. */
static void test_against_plan(void **state)
{
	autosize_probe_run a, b;
	autosize_probe_verdict v;

	(void)state;
	run_of(&a, 4, 40000, 0.5);
	run_of(&b, 8, 80000, 0.5);
	b.pred_tokens_per_s = 160000;
	b.mem_bytes = 40e9;
	autosize_probe_assess(&a, &b, &v);
	assert_true(v.ok);
	assert_true(advised(&v, "ran at 0.50x the predicted speed"));
	assert_true(advised(&v, "25% over the planned"));
	assert_true(strstr(v.advice[0], "scaling holds") != NULL);
}

/* Figures from a record: whole-job speed, MFU by 6ND over the peak. */
static void test_from_record(void **state)
{
	autosize_record r;
	autosize_probe_run run;
	autosize_error e;
	autosize_catalog *c = autosize_catalog_default(&e);
	const autosize_gpu *h100;
	double peak;

	(void)state;
	assert_non_null(c);
	h100 = autosize_catalog_find(c, "h100");
	assert_non_null(h100);
	peak = autosize_gpu_peak_flops(h100, 0);
	autosize_record_init(&r);
	r.params = 7e9;
	r.nodes = 1;
	r.gpus_per_node = 4;
	r.tokens_per_s = 56720;
	r.mem_bytes = 55e9;
	r.alloc_bytes = 50e9;
	r.has_measured = 1;
	r.m_tokens_per_s = 48000;
	r.m_mem_bytes = 40e9;
	memset(&run, 0, sizeof(run));
	autosize_probe_from_record(&r, h100, &run);
	assert_int_equal(run.gpus, 4);
	assert_true(run.measured);
	assert_float_equal(run.mfu, 6 * 7e9 * 48000 / (4 * peak), 1e-12);
	assert_float_equal(run.pred_mfu, 6 * 7e9 * 56720 / (4 * peak), 1e-12);
	assert_float_equal(run.pred_mem_bytes, 50e9, 0);
	r.has_measured = 0;
	autosize_probe_from_record(&r, h100, &run);
	assert_false(run.measured);
	assert_float_equal(run.mfu, 0, 0);
	autosize_catalog_destroy(c);
}

static void test_output_oom(void **state)
{
	static const char torch[] = "step 3\ntorch.OutOfMemoryError: CUDA "
				    "out of memory. Tried to allocate 2 GiB";
	static const char fine[] = "step 100 loss 2.1\n";

	(void)state;
	assert_true(autosize_probe_output_oom(torch, sizeof(torch) - 1));
	assert_false(autosize_probe_output_oom(fine, sizeof(fine) - 1));
	assert_true(autosize_probe_output_oom("slurmstepd: oom-kill event",
					      26));
	assert_false(autosize_probe_output_oom("", 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_min_speedup),
		cmocka_unit_test(test_scaling_holds),
		cmocka_unit_test(test_scales_badly),
		cmocka_unit_test(test_low_mfu),
		cmocka_unit_test(test_failed_probes),
		cmocka_unit_test(test_against_plan),
		cmocka_unit_test(test_from_record),
		cmocka_unit_test(test_output_oom),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
