/*
 * Unit tests of core/launch.c: plan summary, launcher arguments, the
 * DeepSpeed JSON and the first host of a Slurm node list.
 */
#include <ctype.h>
#include "testutil.h"
#include "autosize.h"

static autosize_catalog *catalog;

static int setup(void **state)
{
	autosize_error e;

	catalog = autosize_catalog_default(&e);
	return catalog ? 0 : -1;
}

static int teardown(void **state)
{
	autosize_catalog_destroy(catalog);
	return 0;
}

/* 70B on 2 x 8 H100: TP 8, PP 2, ZeRO-1, full recompute. */
static void plan_70b(autosize_plan *p, autosize_request *r)
{
	autosize_request_init(r);
	memset(p, 0, sizeof(*p));
	p->feasible = 1;
	snprintf(p->part.name, sizeof(p->part.name), "h100");
	p->part.gpu = autosize_catalog_find(catalog, "h100");
	assert_non_null(p->part.gpu);
	p->nodes = 2;
	p->gpus_per_node = 8;
	p->gpus = 16;
	p->tp = 8;
	p->pp = 2;
	p->dp = 1;
	p->zero_stage = 1;
	p->micro_batch = 1;
	p->grad_accum = 1024;
	p->global_batch = 1024;
	p->seq_len = 4096;
	p->recompute = AUTOSIZE_RECOMPUTE_FULL;
	p->mfu = 0.317;
	p->train_hours = 24.9;
	p->time_limit_min = 1716;
	p->chained_jobs = 1;
}

/* 8B on one node: DP 8, ZeRO-0, no recompute, fp16. */
static void plan_8b(autosize_plan *p, autosize_request *r)
{
	plan_70b(p, r);
	p->nodes = 1;
	p->gpus = 8;
	p->tp = 1;
	p->pp = 1;
	p->dp = 8;
	p->zero_stage = 0;
	p->micro_batch = 2;
	p->grad_accum = 64;
	p->global_batch = 1024;
	p->recompute = AUTOSIZE_RECOMPUTE_NONE;
	p->mfu = 0;
	p->train_hours = 0;
	p->time_limit_min = 0;
	r->precision = AUTOSIZE_PREC_FP16;
}

static void test_summary(void **state)
{
	autosize_plan p;
	autosize_request r;
	char buf[512];

	plan_70b(&p, &r);
	assert_true(autosize_launch_summary(&p, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "2 nodes x 8 H100-SXM5-80GB, TP 8 PP 2 DP 1, "
			    "ZeRO-1, recompute full, micro-batch 1, grad "
			    "accum 1024, global batch 1024 x 4096 tokens, MFU "
			    "31.7%, 24.9 h, time limit 1-04:36:00");
	plan_8b(&p, &r);
	assert_true(autosize_launch_summary(&p, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "1 node x 8 H100-SXM5-80GB, TP 1 PP 1 DP 8, "
			    "ZeRO-0, recompute none, micro-batch 2, grad "
			    "accum 64, global batch 1024 x 4096 tokens");
	/* Too small a buffer: -1 and an empty string, never a cut line. */
	assert_int_equal(autosize_launch_summary(&p, buf, 20), -1);
	assert_string_equal(buf, "");
}

static void test_torchrun(void **state)
{
	autosize_plan p;
	autosize_request r;
	char buf[256];

	plan_70b(&p, &r);
	assert_true(autosize_launch_torchrun_args(&p, "gpu07", 29500, "1234",
						  buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "--nnodes=2 --nproc-per-node=8 "
			    "--rdzv-backend=c10d --rdzv-endpoint=gpu07:29500 "
			    "--rdzv-id=1234");
	/* Several nodes need a host; shell-unsafe names are refused. */
	assert_int_equal(autosize_launch_torchrun_args(&p, NULL, 29500, NULL,
						       buf, sizeof(buf)), -1);
	assert_int_equal(autosize_launch_torchrun_args(&p, "a;rm -rf", 29500,
						       NULL, buf,
						       sizeof(buf)), -1);
	assert_int_equal(autosize_launch_torchrun_args(&p, "gpu07", 0, NULL,
						       buf, sizeof(buf)), -1);
	plan_8b(&p, &r);
	assert_true(autosize_launch_torchrun_args(&p, NULL, 29500, NULL, buf,
						  sizeof(buf)) > 0);
	assert_string_equal(buf, "--nnodes=1 --nproc-per-node=8 --standalone");
}

static void test_megatron(void **state)
{
	autosize_plan p;
	autosize_request r;
	char buf[512];

	plan_70b(&p, &r);
	assert_true(autosize_launch_megatron_args(&p, &r, buf,
						  sizeof(buf)) > 0);
	assert_string_equal(buf, "--tensor-model-parallel-size 8 "
			    "--pipeline-model-parallel-size 2 "
			    "--micro-batch-size 1 --global-batch-size 1024 "
			    "--seq-length 4096 --sequence-parallel "
			    "--use-distributed-optimizer "
			    "--recompute-granularity full "
			    "--recompute-method uniform --bf16");
	r.sequence_parallel = 0;
	p.recompute = AUTOSIZE_RECOMPUTE_SELECTIVE;
	r.precision = AUTOSIZE_PREC_FP8;
	assert_true(autosize_launch_megatron_args(&p, &r, buf,
						  sizeof(buf)) > 0);
	assert_string_equal(buf, "--tensor-model-parallel-size 8 "
			    "--pipeline-model-parallel-size 2 "
			    "--micro-batch-size 1 --global-batch-size 1024 "
			    "--seq-length 4096 --use-distributed-optimizer "
			    "--recompute-granularity selective --bf16 "
			    "--fp8-format hybrid");
	plan_8b(&p, &r);
	assert_true(autosize_launch_megatron_args(&p, &r, buf,
						  sizeof(buf)) > 0);
	assert_string_equal(buf, "--tensor-model-parallel-size 1 "
			    "--pipeline-model-parallel-size 1 "
			    "--micro-batch-size 2 --global-batch-size 1024 "
			    "--seq-length 4096 --fp16");
}

/* A strict little JSON checker (RFC 8259 subset enough for our output:
 * objects, arrays, strings without escapes, numbers, literals). */
static const char *json_check_value(const char *s);

static const char *json_ws(const char *s)
{
	while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
		s++;
	return s;
}

static const char *json_check_string(const char *s)
{
	if (*s++ != '"')
		return NULL;
	while (*s && *s != '"') {
		if (*s == '\\' || (unsigned char)*s < 0x20)
			return NULL;
		s++;
	}
	return *s == '"' ? s + 1 : NULL;
}

static const char *json_check_value(const char *s)
{
	s = json_ws(s);
	if (*s == '{' || *s == '[') {
		char close = *s == '{' ? '}' : ']';
		int obj = *s == '{';

		s = json_ws(s + 1);
		if (*s == close)
			return s + 1;
		for (;;) {
			if (obj) {
				s = json_check_string(json_ws(s));
				if (!s)
					return NULL;
				s = json_ws(s);
				if (*s++ != ':')
					return NULL;
			}
			s = json_check_value(s);
			if (!s)
				return NULL;
			s = json_ws(s);
			if (*s == close)
				return s + 1;
			if (*s++ != ',')
				return NULL;
		}
	}
	if (*s == '"')
		return json_check_string(s);
	if (strncmp(s, "true", 4) == 0 || strncmp(s, "null", 4) == 0)
		return s + 4;
	if (strncmp(s, "false", 5) == 0)
		return s + 5;
	if (*s == '-' || isdigit((unsigned char)*s)) {
		const char *start = s;

		if (*s == '-')
			s++;
		if (!isdigit((unsigned char)*s))
			return NULL;
		if (*s == '0' && isdigit((unsigned char)s[1]))
			return NULL;
		while (isdigit((unsigned char)*s) || *s == '.' || *s == 'e' ||
		       *s == 'E' || *s == '+' || (*s == '-' && s != start))
			s++;
		return s;
	}
	return NULL;
}

static int json_valid(const char *text)
{
	const char *end = json_check_value(text);

	return end && *json_ws(end) == '\0';
}

static void test_json_checker(void **state)
{
	assert_true(json_valid("{\"a\": [1, 2.5, true, null], \"b\": {}}"));
	assert_false(json_valid("{\"a\": 1,}"));
	assert_false(json_valid("{\"a\" 1}"));
	assert_false(json_valid("{\"a\": 1} x"));
}

static void test_deepspeed(void **state)
{
	autosize_plan p;
	autosize_request r;
	char buf[2048];

	plan_70b(&p, &r);
	assert_true(autosize_launch_deepspeed_json(&p, &r, buf,
						   sizeof(buf)) > 0);
	assert_true(json_valid(buf));
	assert_string_equal(buf,
			    "{\n"
			    "  \"train_batch_size\": 1024,\n"
			    "  \"train_micro_batch_size_per_gpu\": 1,\n"
			    "  \"gradient_accumulation_steps\": 1024,\n"
			    "  \"zero_optimization\": {\n"
			    "    \"stage\": 1\n"
			    "  },\n"
			    "  \"bf16\": {\n"
			    "    \"enabled\": true\n"
			    "  },\n"
			    "  \"fp16\": {\n"
			    "    \"enabled\": false\n"
			    "  },\n"
			    "  \"activation_checkpointing\": {\n"
			    "    \"partition_activations\": false,\n"
			    "    \"contiguous_memory_optimization\": false,\n"
			    "    \"cpu_checkpointing\": false\n"
			    "  }\n"
			    "}\n");
	plan_8b(&p, &r);
	assert_true(autosize_launch_deepspeed_json(&p, &r, buf,
						   sizeof(buf)) > 0);
	assert_true(json_valid(buf));
	assert_non_null(strstr(buf, "\"train_micro_batch_size_per_gpu\": 2,"));
	assert_non_null(strstr(buf, "\"fp16\": {\n    \"enabled\": true"));
	assert_null(strstr(buf, "activation_checkpointing"));
	/* train_batch_size = micro batch x accumulation x DP (DeepSpeed). */
	assert_int_equal(p.global_batch, p.micro_batch * p.grad_accum * p.dp);
	assert_int_equal(autosize_launch_deepspeed_json(&p, &r, buf, 64), -1);
}

static void test_report(void **state)
{
	autosize_plan p;
	autosize_request r;
	char buf[4096];

	plan_70b(&p, &r);
	autosize_plan_warn(&p, "something to know");
	assert_true(autosize_launch_report(&r, &p, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "size: 2 nodes x 8 GPUs = 16 GPUs"));
	assert_non_null(strstr(buf, "layout: TP 8 x PP 2 x DP 1, ZeRO-1"));
	assert_non_null(strstr(buf, "time: 24.9 h; time limit 1-04:36:00"));
	assert_non_null(strstr(buf, "\nwarning: something to know\n"));
	assert_null(strstr(buf, "NOT FEASIBLE"));
	p.feasible = 0;
	snprintf(p.reason, sizeof(p.reason), "too big");
	assert_true(autosize_launch_report(&r, &p, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "NOT FEASIBLE: too big\n"));
}

/* A plan computed by the core gives consistent launcher arguments. */
static void test_computed_plan(void **state)
{
	autosize_policy *pol;
	autosize_request r;
	autosize_plan p;
	autosize_error e;
	char buf[2048], want[64];

	pol = autosize_policy_load("etc/autosize.yaml", &e);
	assert_non_null(pol);
	autosize_request_init(&r);
	assert_int_equal(autosize_request_set(&r, "model", "llama-3-8b", &e),
			 AUTOSIZE_OK);
	assert_int_equal(autosize_request_set(&r, "train-tokens", "1e9", &e),
			 AUTOSIZE_OK);
	assert_int_equal(autosize_request_finish(&r, &e), AUTOSIZE_OK);
	snprintf(r.partition, sizeof(r.partition), "h100");
	r.nodes = 2;
	r.gpus_per_node = 8;
	assert_int_equal(autosize_plan_compute(pol, &r, &p, &e), AUTOSIZE_OK);
	assert_int_equal(p.tp * p.pp * p.dp, 16);
	assert_true(autosize_launch_megatron_args(&p, &r, buf,
						  sizeof(buf)) > 0);
	snprintf(want, sizeof(want), "--tensor-model-parallel-size %d ",
		 p.tp);
	assert_true(strncmp(buf, want, strlen(want)) == 0);
	assert_true(autosize_launch_deepspeed_json(&p, &r, buf,
						   sizeof(buf)) > 0);
	assert_true(json_valid(buf));
	autosize_policy_destroy(pol);
}

static void test_first_host(void **state)
{
	static const struct {
		const char *list, *host;
	} ok[] = {
		{"n1", "n1"},
		{"gpu[07-08,11],login1", "gpu07"},
		{"gpu[07-08]", "gpu07"},
		{"a[1-2]-ib", "a1-ib"},
		{"rack[2-3]n[01-04]", "rack2n01"},
		{"node-1.cluster,node-2.cluster", "node-1.cluster"},
		{"x[5]", "x5"},
	};
	static const char *const bad[] = {"", "gpu[", "gpu[]", "gpu[a-b]",
					  "gpu 1", "gpu;1", ",n1", NULL};
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(autosize_launch_first_host(ok[i].list, buf,
							    sizeof(buf)),
				 (int)strlen(ok[i].host));
		assert_string_equal(buf, ok[i].host);
	}
	for (i = 0; bad[i]; i++) {
		assert_int_equal(autosize_launch_first_host(bad[i], buf,
							    sizeof(buf)), -1);
		assert_string_equal(buf, "");
	}
	/* Bounded: a name longer than the buffer is refused. */
	assert_int_equal(autosize_launch_first_host("verylonghostname", buf,
						    8), -1);
	assert_int_equal(autosize_launch_first_host(NULL, buf, sizeof(buf)),
			 -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_torchrun),
		cmocka_unit_test(test_megatron),
		cmocka_unit_test(test_json_checker),
		cmocka_unit_test(test_deepspeed),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_computed_plan),
		cmocka_unit_test(test_first_host),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
