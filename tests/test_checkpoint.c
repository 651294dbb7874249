/*
 * Tests: checkpoints (core/checkpoint.c): the size of one as each
 * framework saves it, the write bandwidth the policy's share asks for,
 * the storage kept checkpoints take, warnings against a partition's
 * storage, the time limit's allowance and chained jobs; the policy's
 * `checkpoint:` and storage keys read strictly.
 */
#include "testutil.h"
#include "autosize/checkpoint.h"
#include "autosize/plan.h"
#include "autosize/policy.h"
#include "ytest.h"

#define PLANTEST_WHAT "ckpt.yaml"
#include "plantest.h"

static const char *const ckpt_policy =
	"checkpoint:\n"                        /* 1 */
	"  interval: 30m\n"                    /* 2 */
	"  max_share: 10%\n"                   /* 3 */
	"  keep: 2\n"                          /* 4 */
	"partitions:\n"                        /* 5 */
	"  - name: fast\n"                     /* 6 */
	"    gpu: h100\n"                      /* 7 */
	"    gpus_per_node: 8\n"               /* 8 */
	"    nodes: 64\n"                      /* 9 */
	"    network: ib\n"                    /* 10 */
	"    network_gbps_per_node: 3200\n"    /* 11 */
	"    storage_write_gbs: 100\n"         /* 12 */
	"    storage_tb: 1000\n"               /* 13 */
	"  - name: slow\n"                     /* 14 */
	"    gpu: h100\n"                      /* 15 */
	"    gpus_per_node: 8\n"               /* 16 */
	"    nodes: 64\n"                      /* 17 */
	"    max_time: 4:00:00\n"              /* 18 */
	"    network: ib\n"                    /* 19 */
	"    network_gbps_per_node: 3200\n"    /* 20 */
	"    storage_write_gbs: 2\n"           /* 21 */
	"    storage_tb: 1\n";                 /* 22 */

/* 70B on 64 H100s, without a token budget: the size, shard and need. */
static void plan_70b(const autosize_policy *p, const char *framework,
		     const char *optimizer, autosize_plan *plan)
{
	const char *const opts[] = {"model-params", "70e9", "gpu", "h100",
		"gpus", "64", "train-framework", framework,
		"train-optimizer", optimizer, NULL};

	assert_int_equal(plantest_plan(p, opts, plan), AUTOSIZE_OK);
}

/* Bytes per parameter as each framework saves them: Megatron and
 * DeepSpeed 16-bit weights + fp32 master + moments, FSDP2 fp32 weights
 * + moments; gradients never. */
static void test_bytes_per_framework(void **state)
{
	static const struct {
		const char *fw, *opt;
		double bpp;
	} cases[] = {
		{"megatron", "adamw", 14}, {"fsdp", "adamw", 12},
		{"deepspeed", "adamw", 14}, {"megatron", "adamw-8bit", 8},
		{"megatron", "sgd", 10}, {"fsdp", "sgd", 8},
	};
	autosize_error e;
	autosize_policy *p = autosize_policy_default(&e);
	autosize_plan plan;
	const autosize_checkpoint *k = &plan.ckpt;
	size_t i;

	(void)state;
	assert_non_null(p);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		plan_70b(p, cases[i].fw, cases[i].opt, &plan);
		assert_float_equal(k->bytes_per_param, cases[i].bpp, 0);
		assert_float_equal(k->trained_params, plan.params, 0);
		assert_float_equal(k->bytes, plan.params * cases[i].bpp,
				   1e-6 * k->bytes);
		/* the documented defaults: every hour, 5%, keep 3 */
		assert_float_equal(k->interval_s, 3600, 0);
		assert_float_equal(k->need_write_gbs,
				   k->bytes / (0.05 * 3600) / 1e9, 1e-9);
		assert_int_equal(k->keep, 3);
		assert_float_equal(k->storage_bytes, 3 * k->bytes, 1);
		/* no token budget: nothing written yet, no allowance */
		assert_int_equal(k->count, 0);
		assert_float_equal(k->job_write_s, 0, 0);
	}
	/* 70B with Megatron: 980 GB, 5.4 GB/s to write in 3 of 60 min */
	plan_70b(p, "megatron", "adamw", &plan);
	assert_float_equal(k->bytes, 980e9, 1e-6 * 980e9);
	assert_float_equal(k->need_write_gbs, 980.0 / 180, 1e-3);
	/* every rank writes its share */
	assert_float_equal(k->shard_bytes, k->bytes / plan.gpus, 1);
	/* DeepSpeed: rank 0 of each model-parallel group also writes the
	 * 16-bit module */
	plan_70b(p, "deepspeed", "adamw", &plan);
	assert_true(plan.zero_stage >= 1);
	assert_float_equal(k->shard_bytes,
			   2 * plan.params / (plan.zero_stage >= 3
				? plan.gpus : plan.tp * plan.pp) +
			   12 * plan.params / plan.gpus, 1);
	assert_true(k->shard_bytes > k->bytes / plan.gpus);
	autosize_policy_destroy(p);
}

/* LoRA saves the adapters and their optimizer state, not the base. */
static void test_lora(void **state)
{
	const char *const opts[] = {"model", "llama-2-70b", "gpu", "h100",
		"train-mode", "lora", "train-tokens", "100M", NULL};
	autosize_error e;
	autosize_policy *p = autosize_policy_default(&e);
	autosize_plan plan;

	(void)state;
	assert_int_equal(plantest_plan(p, opts, &plan), AUTOSIZE_OK);
	assert_true(plan.ckpt.trained_params > 1e6);
	assert_true(plan.ckpt.trained_params < 0.01 * plan.params);
	/* LoRA defaults to FSDP (Megatron-LM trains no adapters):
	 * fp32 weights + moments */
	assert_int_equal(plan.framework, AUTOSIZE_FRAMEWORK_FSDP);
	assert_float_equal(plan.ckpt.bytes,
			   plan.ckpt.trained_params * 12, 1);
	autosize_policy_destroy(p);
}

static void test_policy_keys(void **state)
{
	autosize_error e;
	autosize_policy *p = plantest_parse(ckpt_policy, &e);
	const autosize_checkpoint_policy *cp;
	const autosize_partition *part;

	(void)state;
	if (!p)
		fail_msg("%s", e.msg);
	cp = &autosize_policy_defaults(p)->checkpoint;
	assert_float_equal(cp->interval_s, 1800, 0);
	assert_float_equal(cp->max_share, 0.1, 1e-12);
	assert_int_equal(cp->keep, 2);
	part = autosize_policy_find_partition(p, "slow");
	assert_float_equal(part->storage_write_gbs, 2, 0);
	assert_float_equal(part->storage_tb, 1, 0);
	autosize_policy_destroy(p);
	/* the documented defaults without the key */
	p = plantest_parse(strstr(ckpt_policy, "partitions:"), &e);
	assert_non_null(p);
	cp = &autosize_policy_defaults(p)->checkpoint;
	assert_float_equal(cp->interval_s, AUTOSIZE_CHECKPOINT_INTERVAL_S, 0);
	assert_float_equal(cp->interval_s, 3600, 0);
	assert_float_equal(cp->max_share, 0.05, 0);
	assert_int_equal(cp->keep, 3);
	autosize_policy_destroy(p);
}

static const ytest_case broken_cases[] = {
	{2, "  interval: 0\n", AUTOSIZE_EINVAL, 2,
	 "key 'interval': '0' must be longer than zero"},
	{2, "  interval: often\n", AUTOSIZE_EINVAL, 2, "interval"},
	{2, "  every: 1h\n", AUTOSIZE_EINVAL, 2,
	 "unknown key 'every' in checkpoint"},
	{3, "  max_share: 0\n", AUTOSIZE_EINVAL, 3, "key 'max_share': 0"},
	{3, "  max_share: 150%\n", AUTOSIZE_EINVAL, 3, "max_share"},
	{4, "  keep: 0\n", AUTOSIZE_EINVAL, 4, "keep"},
	{4, "  keep: 2.5\n", AUTOSIZE_EINVAL, 4, "keep"},
	{12, "    storage_write_gbs: 0\n", AUTOSIZE_EINVAL, 12,
	 "storage_write_gbs"},
	{12, "    storage_write_gbps: 100\n", AUTOSIZE_EINVAL, 12,
	 "unknown key 'storage_write_gbps'"},
	{13, "    storage_tb: -1\n", AUTOSIZE_EINVAL, 13, "storage_tb"},
};

static void test_broken_policies(void **state)
{
	static const ytest_case not_a_map = {1, "checkpoint: hourly\n",
		AUTOSIZE_EINVAL, 1, "key 'checkpoint'"};
	char text[4096];

	(void)state;
	ytest_run_broken(ckpt_policy, PLANTEST_WHAT, broken_cases,
			 sizeof(broken_cases) / sizeof(broken_cases[0]),
			 plantest_parse_any, plantest_destroy_any);
	snprintf(text, sizeof(text), "checkpoint: {}\n%s",
		 strstr(ckpt_policy, "partitions:"));
	ytest_run_broken(text, PLANTEST_WHAT, &not_a_map, 1,
			 plantest_parse_any, plantest_destroy_any);
}

static const char *const run_70b[] = {"model-params", "70e9",
	"train-tokens", "10B", "gpus", "64", "partition", NULL, NULL};

/* Slow, small storage: warned with numbers; the fast one is quiet. The
 * time limit's allowance is the job's checkpoint writes at the
 * storage's speed. */
static void test_storage(void **state)
{
	const char *opts[sizeof(run_70b) / sizeof(run_70b[0])];
	autosize_error e;
	autosize_policy *p = plantest_parse(ckpt_policy, &e);
	autosize_plan fast, slow;
	double train_min;

	(void)state;
	assert_non_null(p);
	memcpy(opts, run_70b, sizeof(opts));
	opts[7] = "fast";
	assert_int_equal(plantest_plan(p, opts, &fast), AUTOSIZE_OK);
	/* 980 GB within 10% of 30 min: 5.4 GB/s; at 100 GB/s, 9.8 s */
	assert_float_equal(fast.ckpt.need_write_gbs, 980.0 / 180, 1e-3);
	assert_float_equal(fast.ckpt.write_s, 9.8, 1e-3);
	assert_false(plantest_warned(&fast, "storage"));
	assert_int_equal(fast.ckpt.count,
			 (int)ceil(fast.train_hours * 2 - 1e-9));
	assert_float_equal(fast.ckpt.hours,
			   fast.ckpt.count * 9.8 / 3600, 1e-9);

	opts[7] = "slow";
	assert_int_equal(plantest_plan(p, opts, &slow), AUTOSIZE_OK);
	assert_int_equal(slow.gpus, fast.gpus);
	assert_float_equal(slow.ckpt.write_s, 490, 1e-6);
	assert_true(plantest_warned(&slow, "checkpoints of 980 GB need 5.4 GB/s "
				"to take 10% of each 0.5 h; partition slow's "
				"storage writes 2.0 GB/s: 8.2 min each, 27% "
				"of the run (checkpoint every 1.4 h"));
	assert_true(plantest_warned(&slow, "keeping 2 checkpoints of 980 GB "
				"needs 2.0 TB; partition slow's storage "
				"holds 1.0 TB: keep fewer"));
	/* one job's limit (fast has no max time): its training, the
	 * start-up and its writes */
	assert_int_equal(fast.chained_jobs, 1);
	train_min = fmax(fast.train_hours_high,
			 fast.train_hours * (1 + fast.time_reserve)) * 60;
	assert_float_equal(fast.ckpt.job_write_s,
			   autosize_checkpoint_count(train_min * 60, 1800) *
			   9.8, 1e-6);
	assert_int_equal(fast.time_limit_min,
			 (long)ceil(train_min + 15 +
				    fast.ckpt.job_write_s / 60));
	autosize_policy_destroy(p);
}

/* The slow partition's 4 h max time: every job of the chain holds its
 * start-up, its training, its writes and the warning signal's margin
 * after its last write. */
static void test_chained(void **state)
{
	const char *opts[sizeof(run_70b) / sizeof(run_70b[0])];
	autosize_error e;
	autosize_policy *p = plantest_parse(ckpt_policy, &e);
	autosize_plan plan;
	double job_s, train_min;

	(void)state;
	assert_non_null(p);
	memcpy(opts, run_70b, sizeof(opts));
	opts[7] = "slow";
	assert_int_equal(plantest_plan(p, opts, &plan), AUTOSIZE_OK);
	assert_int_equal(plan.time_limit_min, 240);
	/* SIGUSR1 the slowest write (490 s, this partition's) plus the
	 * 5 min margin before the limit, in whole minutes: 14 min */
	assert_int_equal(plan.signal_s, 840);
	job_s = autosize_checkpoint_job_train_s(240 * 60 - (840 - 490),
						15 * 60, 1800, 490);
	/* 219.2 min less 8.2 min per written checkpoint: 170 min of
	 * training write 6 */
	assert_float_equal(job_s, 240 * 60 - 350 - 15 * 60 - 6 * 490, 1e-6);
	train_min = fmax(plan.train_hours_high,
			 plan.train_hours * (1 + plan.time_reserve)) * 60;
	assert_int_equal(plan.chained_jobs, (int)ceil(train_min * 60 / job_s));
	assert_float_equal(plan.ckpt.job_write_s, 6 * 490.0, 1e-6);
	/* told once, in the plan's own words, not again as a warning */
	assert_false(plantest_warned(&plan, "chained jobs"));
	autosize_policy_destroy(p);
}

/* Training a job holds, against a search minute by minute. */
static void test_job_train_s(void **state)
{
	static const double limits_min[] = {20, 60, 240, 2880};
	static const double intervals_min[] = {10, 30, 60, 600};
	static const double writes_min[] = {0, 1, 3, 9};
	size_t i, j, k;
	double got, best, t;

	(void)state;
	/* 48 h, 15 min start-up, 3 min every hour: 2727 min of training
	 * write 46 checkpoints, 2727 + 15 + 46 x 3 = 2880 */
	assert_float_equal(autosize_checkpoint_job_train_s(2880 * 60, 900,
							   3600, 180),
			   2727 * 60, 1e-6);
	assert_float_equal(autosize_checkpoint_job_train_s(900, 900, 3600,
							   180), 0, 0);
	assert_float_equal(autosize_checkpoint_job_train_s(3600, 900, 0, 1),
			   0, 0);
	for (i = 0; i < sizeof(limits_min) / sizeof(limits_min[0]); i++)
		for (j = 0; j < sizeof(intervals_min) /
			     sizeof(intervals_min[0]); j++)
			for (k = 0; k < sizeof(writes_min) /
				     sizeof(writes_min[0]); k++) {
				double lim = limits_min[i] * 60;
				double iv = intervals_min[j] * 60;
				double w = writes_min[k] * 60;

				best = 0;
				for (t = 60; t <= lim; t += 60)
					if (t + 900 + autosize_checkpoint_count(
						    t, iv) * w <= lim)
						best = t;
				got = autosize_checkpoint_job_train_s(lim, 900,
								      iv, w);
				/* whole minutes of the exact answer */
				assert_float_equal(floor(got / 60 + 1e-9) * 60,
						   best, 1e-9);
				if (got > 0)
					assert_true(got + 900 +
						    autosize_checkpoint_count(
							    got, iv) * w <=
						    lim + 1e-6);
			}
}

static void test_count(void **state)
{
	(void)state;
	assert_int_equal(autosize_checkpoint_count(0, 3600), 0);
	assert_int_equal(autosize_checkpoint_count(1, 3600), 1);
	assert_int_equal(autosize_checkpoint_count(3600, 3600), 1);
	assert_int_equal(autosize_checkpoint_count(9000, 3600), 3);
	assert_int_equal(autosize_checkpoint_count(3600, 0), 0);
	assert_int_equal(autosize_checkpoint_count(1e30, 1), 2147483647);
}

/* A run shorter than the interval writes one checkpoint, at its end,
 * within the same share of the run. */
static void test_short_run(void **state)
{
	const char *const opts[] = {"model-params", "1e9", "gpu", "h100",
		"gpus", "8", "train-tokens", "100M", NULL};
	autosize_error e;
	autosize_policy *p = autosize_policy_default(&e);
	autosize_plan plan;

	(void)state;
	assert_int_equal(plantest_plan(p, opts, &plan), AUTOSIZE_OK);
	assert_true(plan.train_hours < 1);
	assert_int_equal(plan.ckpt.count, 1);
	assert_float_equal(plan.ckpt.interval_s, plan.train_hours * 3600,
			   1e-6);
	assert_float_equal(plan.ckpt.write_s, 0.05 * plan.ckpt.interval_s,
			   1e-9);
	autosize_policy_destroy(p);
}

static void test_format(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(autosize_checkpoint_format_bytes(980e9, buf,
							     sizeof(buf)),
			    "980 GB");
	assert_string_equal(autosize_checkpoint_format_bytes(2.94e12, buf,
							     sizeof(buf)),
			    "2.9 TB");
	assert_string_equal(autosize_checkpoint_format_bytes(35e6, buf,
							     sizeof(buf)),
			    "35 MB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes_per_framework),
		cmocka_unit_test(test_lora),
		cmocka_unit_test(test_policy_keys),
		cmocka_unit_test(test_broken_policies),
		cmocka_unit_test(test_storage),
		cmocka_unit_test(test_chained),
		cmocka_unit_test(test_job_train_s),
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_short_run),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
