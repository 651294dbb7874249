/*
 * A site's own performance file (policy key `perf:`): a new GPU is a
 * catalog entry and a perf.yaml entry next to the policy, no rebuild;
 * the file is read as strictly as the shipped etc/perf.yaml.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testutil.h"
#include "planwarn.h"
#include "autosize.h"

static const char site_catalog[] =
	"gpus:\n"
	"  - name: Site-GPU\n"
	"    bf16_tflops: 1200\n"
	"    fp16_tflops: 1200\n"
	"    fp8_tflops: 2400\n"
	"    fp4_tflops: 4800\n"
	"    memory_gib: 96\n"
	"    hbm_gbs: 4000\n"
	"    link: nvlink\n"
	"    link_gbs: 900\n"
	"    net_gbps_per_gpu: 400\n";

/* One generation measured on the site's GPU, every number with its
 * source (%s: the GEMM efficiency, so that two files can differ). */
static const char site_perf_fmt[] =
	"generations:\n"
	"  - name: sitegen\n"
	"    measured_on: [Site-GPU]\n"
	"    members: []\n"
	"    gemm_eff_max: %s\n    gemm_half_dim: 190\n"
	"    attn_share: 0.5\n    hbm_eff: 1\n"
	"    elementwise_bytes_per_h: 170\n    scores_bytes: 44\n"
	"    layer_overhead_s: 0\n    nvlink_eff: 0.8\n    pcie_eff: 0.6\n"
	"    ib_eff: 0.9\n    roce_eff: 0.9\n    ethernet_eff: 0.35\n"
	"    intra_latency_s: 5e-6\n    ib_latency_s: 8e-6\n"
	"    roce_latency_s: 1.2e-5\n    ethernet_latency_s: 6e-5\n"
	"    fp8_gemm_speedup: 2\n    fp8_gemm_share: 0.85\n"
	"    tp_overlap: 0.5\n"
	"    sources: {gemm_eff_max: site, gemm_half_dim: site,\n"
	"      attn_share: site, hbm_eff: site, elementwise_bytes_per_h: site,\n"
	"      scores_bytes: site, layer_overhead_s: site, nvlink_eff: site,\n"
	"      pcie_eff: site, ib_eff: site, roce_eff: site,\n"
	"      ethernet_eff: site, intra_latency_s: site, ib_latency_s: site,\n"
	"      roce_latency_s: site, ethernet_latency_s: site,\n"
	"      fp8_gemm_speedup: site, fp8_gemm_share: site,\n"
	"      tp_overlap: site}\n";

static char dir[64];

static void write_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void write_perf(const char *eff)
{
	char text[sizeof(site_perf_fmt) + 32];

	snprintf(text, sizeof(text), site_perf_fmt, eff);
	write_file("site-perf.yaml", text);
}

/* The policy: the site catalog, and perf: when perf is not NULL. */
static autosize_policy *load_policy(const char *perf, autosize_error *e)
{
	char text[512], path[256];

	snprintf(text, sizeof(text),
		 "catalog: site-gpus.yaml\n"
		 "%s%s%s"
		 "partitions:\n"
		 "  - {name: site, gpu: site_gpu, gpus_per_node: 8, "
		 "nodes: 16,\n"
		 "     network: ib, network_gbps_per_node: 3200}\n",
		 perf ? "perf: " : "", perf ? perf : "", perf ? "\n" : "");
	write_file("autosize.yaml", text);
	snprintf(path, sizeof(path), "%s/autosize.yaml", dir);
	return autosize_policy_load(path, e);
}

/* The site's 8B on 8 GPUs at TP 1 x PP 1; framework and prec when not
 * NULL. */
static void plan_8b_as(const autosize_policy *p, const char *framework,
		       const char *prec, autosize_plan *plan)
{
	const char *opt[] = {"model", "llama-3-8b", "gpus", "8", "tp", "1",
			     "pp", "1", "train-tokens", "1e11",
			     "train-framework", framework,
			     "train-precision", prec, NULL};
	autosize_request r;
	autosize_error e;
	int i;

	autosize_request_init(&r);
	for (i = 0; opt[i]; i += 2)
		if (opt[i + 1])
			assert_int_equal(autosize_request_set(&r, opt[i],
							      opt[i + 1], &e),
					 AUTOSIZE_OK);
	assert_int_equal(autosize_request_finish(&r, &e), AUTOSIZE_OK);
	if (autosize_plan_compute(p, &r, plan, &e) != AUTOSIZE_OK)
		fail_msg("%s", e.msg);
}

static void plan_8b(const autosize_policy *p, autosize_plan *plan)
{
	plan_8b_as(p, NULL, NULL, plan);
}

/* Without perf: the new GPU borrows a generation's numbers and says
 * so; with it, its own entry is used, and the numbers in the file are
 * what the plan runs on. */
static void test_site_perf_file(void **state)
{
	autosize_plan a, b, c;
	autosize_error e;
	autosize_policy *p;

	(void)state;
	p = load_policy(NULL, &e);
	if (!p)
		fail_msg("%s", e.msg);
	plan_8b(p, &a);
	assert_true(a.perf_generation[0] != '\0');
	assert_string_not_equal(a.perf_generation, "sitegen");
	assert_true(has_warning(&a, "no performance data measured on"));
	autosize_policy_destroy(p);

	write_perf("0.7");
	p = load_policy("site-perf.yaml", &e);
	if (!p)
		fail_msg("%s", e.msg);
	plan_8b(p, &b);
	assert_string_equal(b.perf_generation, "sitegen");
	assert_false(has_warning(&b, "no performance data measured on"));
	assert_true(b.tokens_per_s > 0);
	autosize_policy_destroy(p);

	/* half the GEMM efficiency: a slower plan, from the file alone */
	write_perf("0.35");
	p = load_policy("site-perf.yaml", &e);
	if (!p)
		fail_msg("%s", e.msg);
	plan_8b(p, &c);
	assert_string_equal(c.perf_generation, "sitegen");
	assert_true(c.tokens_per_s < 0.8 * b.tokens_per_s);
	autosize_policy_destroy(p);
}

/* what inserted into buf (of len bytes) before the first where */
static void insert_before(char *buf, size_t len, const char *where,
			  const char *what)
{
	char *at = strstr(buf, where);
	size_t n = strlen(what);

	assert_non_null(at);
	assert_true(strlen(buf) + n < len);
	memmove(at + n, at, strlen(at) + 1);
	memcpy(at, what, n);
}

/* A site's file written before NVFP4 (no fp4_gemm_speedup) times an
 * NVFP4 job at its FP8 rate, never at BF16's, and says so; with the
 * key, NVFP4 runs faster than FP8 and says nothing. */
static void test_site_perf_without_fp4(void **state)
{
	char text[sizeof(site_perf_fmt) + 128];
	autosize_plan fp8, fp4, fp4_keyed;
	autosize_error e;
	autosize_policy *p;

	(void)state;
	write_perf("0.7");
	p = load_policy("site-perf.yaml", &e);
	if (!p)
		fail_msg("%s", e.msg);
	plan_8b_as(p, "megatron", "fp8", &fp8);
	plan_8b_as(p, "megatron", "nvfp4", &fp4);
	autosize_policy_destroy(p);
	assert_int_equal(fp4.precision, AUTOSIZE_PREC_NVFP4);
	if (!(fp4.tokens_per_s >= fp8.tokens_per_s * (1 - 1e-9)))
		fail_msg("NVFP4 %.0f tokens/s, FP8 %.0f", fp4.tokens_per_s,
			 fp8.tokens_per_s);
	assert_true(has_warning(&fp4, "no fp4_gemm_speedup"));
	assert_false(has_warning(&fp8, "fp4_gemm_speedup"));

	snprintf(text, sizeof(text), site_perf_fmt, "0.7");
	insert_before(text, sizeof(text), "    tp_overlap: 0.5",
		      "    fp4_gemm_speedup: 3\n");
	insert_before(text, sizeof(text), "tp_overlap: site}",
		      "fp4_gemm_speedup: site, ");
	write_file("site-perf.yaml", text);
	p = load_policy("site-perf.yaml", &e);
	if (!p)
		fail_msg("%s", e.msg);
	plan_8b_as(p, "megatron", "nvfp4", &fp4_keyed);
	autosize_policy_destroy(p);
	assert_true(fp4_keyed.tokens_per_s > 1.05 * fp8.tokens_per_s);
	assert_false(has_warning(&fp4_keyed, "fp4_gemm_speedup"));
}

/* Strict: an unknown key, a number out of range, a missing file are
 * errors naming the policy's file and line, its key and the fix. */
static void test_site_perf_strict(void **state)
{
	char text[sizeof(site_perf_fmt) + 64];
	autosize_error e;

	(void)state;
	snprintf(text, sizeof(text), site_perf_fmt, "0.7");
	memcpy(strstr(text, "hbm_eff: 1"), "hbm_xff: 1", 10);
	write_file("site-perf.yaml", text);
	assert_null(load_policy("site-perf.yaml", &e));
	assert_non_null(strstr(e.msg, "autosize.yaml:2: key 'perf'"));
	assert_non_null(strstr(e.msg, "site-perf.yaml:8:"));
	assert_non_null(strstr(e.msg, "hbm_xff"));
	assert_non_null(strstr(e.msg, "etc/perf.yaml"));

	write_perf("7");
	assert_null(load_policy("site-perf.yaml", &e));
	assert_non_null(strstr(e.msg, "gemm_eff_max"));

	assert_null(load_policy("no-such-perf.yaml", &e));
	assert_non_null(strstr(e.msg, "'perf'"));
	assert_non_null(strstr(e.msg, "no-such-perf.yaml"));
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/autosize-test-perf-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	write_file("site-gpus.yaml", site_catalog);
	return 0;
}

static int teardown(void **state)
{
	char path[256];
	const char *names[] = {"site-gpus.yaml", "site-perf.yaml",
			       "autosize.yaml", NULL};
	int i;

	(void)state;
	for (i = 0; names[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_site_perf_file),
		cmocka_unit_test(test_site_perf_strict),
		cmocka_unit_test(test_site_perf_without_fp4),
	};

	return cmocka_run_group_tests_name("perf_policy", tests, setup,
					   teardown);
}
