/*
 * The layout search and the plan-level decisions: quality against an
 * exhaustive scan of node counts, objectives, pins, limits and warnings.
 */
#include "testutil.h"
#include "autosize.h"
#include "perfdata.h"
#include "rank.h"
#include "stages.h"

static autosize_policy *site;   /* etc/autosize.yaml */
static autosize_policy *bare;   /* built-in defaults, no partitions */

static int setup(void **state)
{
	autosize_error e;

	site = autosize_policy_load("etc/autosize.yaml", &e);
	bare = autosize_policy_default(&e);
	return site && bare ? 0 : -1;
}

static int teardown(void **state)
{
	autosize_policy_destroy(site);
	autosize_policy_destroy(bare);
	return 0;
}

/*
 * The shipped constants with every step of a run training
 * (whole_run: efficiency 1): the scenarios below judge the search on its
 * step times and interruptions, sized on published runs' steps; the
 * whole-run share stretches every size's time alike (test_whole_run).
 */
static perfdata_table steps_only;

static int steps_only_setup(void **state)
{
	steps_only = *perfdata_default();
	steps_only.run_efficiency = 1;
	perfdata_use(&steps_only);
	return 0;
}

static int steps_only_teardown(void **state)
{
	perfdata_use(NULL);
	return 0;
}

/* Build a request from "name=value" pairs (NULL-terminated). */
static void req(autosize_request *r, const char *const *opts)
{
	autosize_error e;
	int i;

	autosize_request_init(r);
	r->model_local = 1;   /* config.json files, as the CLI */
	for (i = 0; opts[i]; i += 2)
		if (autosize_request_set(r, opts[i], opts[i + 1], &e))
			fail_msg("%s", e.msg);
	if (autosize_request_finish(r, &e))
		fail_msg("%s", e.msg);
}

static int contains_warning(const autosize_plan *p, const char *needle)
{
	int i;

	for (i = 0; i < p->n_warnings; i++)
		if (strstr(p->warnings[i], needle))
			return 1;
	return 0;
}

/* The staged search is never much worse than trying every node count of
 * the partition one by one with the same objective. */
static void test_search_vs_exhaustive(void **state)
{
	static const char *const specs[][12] = {
		{"model", "llama-3-8b", "train-tokens", "3e11", "train-time",
		 "10d", "partition", "h100", NULL},
		{"model", "llama-2-70b", "train-tokens", "2e11", "train-time",
		 "20d", "partition", "h100", NULL},
		{"model-params", "13e9", "train-tokens", "1e11", "train-time",
		 "5d", "partition", "a100", NULL},
		{"model", "mixtral-8x7b", "train-tokens", "1e11", "train-time",
		 "10d", "partition", "a100", NULL},
		{"model", "qwen2.5-7b", "train-tokens", "5e10", "partition",
		 "l40s", "train-time", "3d", NULL},
		{"model-params", "30e9", "train-tokens", "2e11", "train-time",
		 "30d", "partition", "h100", NULL},
	};
	size_t i;

	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		autosize_request r;
		autosize_plan best, p;
		autosize_error e;
		double best_gh = 0;
		int n, max_n;

		req(&r, specs[i]);
		assert_int_equal(autosize_plan_compute(site, &r, &best, &e), 0);
		max_n = best.part.max_nodes_per_job;
		for (n = 1; n <= max_n; n++) {
			r.nodes = n;
			if (autosize_plan_compute(site, &r, &p, &e) != 0)
				continue;
			if (p.train_hours * 3600 > r.deadline_s)
				continue;
			if (best_gh == 0 || p.gpu_hours < best_gh)
				best_gh = p.gpu_hours;
		}
		printf("  %s on %s: search %d nodes %.0f GPU-h, exhaustive "
		       "best %.0f GPU-h (0: nothing meets the deadline)\n",
		       specs[i][1], best.part.name, best.nodes,
		       best.gpu_hours, best_gh);
		if (best_gh > 0) {
			assert_true(best.train_hours * 3600 <= r.deadline_s);
			assert_true(best.gpu_hours <= best_gh * 1.03);
		}
	}
}

/* Hundreds of GPUs on plain Ethernet collapse in utilization (seed 000:
 * below 20% past 128 GPUs without InfiniBand/RoCE): at 25 Gb/s per node,
 * the common rented-cluster link; 100 Gb/s Ethernet still loses over
 * 40% of InfiniBand's utilization (a data-parallel group holding every
 * GPU of its nodes has the node's whole port, as it has all eight
 * InfiniBand rails). */
static void test_ethernet_collapse(void **state)
{
	const char *const ib[] = {"model", "llama-2-70b", "train-tokens",
		"1e11", "gpu", "h100", "gpus", "256", NULL};
	const char *const eth[] = {"model", "llama-2-70b", "train-tokens",
		"1e11", "gpu", "h100", "gpus", "256", "network",
		"ethernet:25", NULL};
	autosize_request r;
	autosize_plan a, b, c;
	autosize_error e;

	req(&r, ib);
	assert_int_equal(autosize_plan_compute(bare, &r, &a, &e), 0);
	req(&r, eth);
	assert_int_equal(autosize_plan_compute(bare, &r, &b, &e), 0);
	r.net_gbps_per_node = 100;
	assert_int_equal(autosize_plan_compute(bare, &r, &c, &e), 0);
	printf("  70B on 256 H100: IB MFU %.1f%%, Ethernet 25G %.1f%%, "
	       "100G %.1f%%\n", a.mfu * 100, b.mfu * 100, c.mfu * 100);
	assert_true(a.mfu > 0.35);
	assert_true(b.mfu < 0.20);
	assert_true(c.mfu < 0.6 * a.mfu);
	assert_true(contains_warning(&b, "Ethernet"));
	assert_true(contains_warning(&b, "below 35%"));
}

/* Issue 22: a data-parallel group holding all 8 GPUs of each node runs
 * one ring per rail on the node's eight NICs (comm_link_group), so
 * llama-3.1-8b FP8 on B200 (32 x 8192 per step) scales from 8 GPUs to 64
 * (it gave 214K and 240K tokens/s at one NIC's share, DP 86% of the
 * step; now 1.15M on 64). */
static void test_dp_per_rail(void **state)
{
	const char *const one[] = {"model", "llama-3.1-8b", "gpu", "b200",
		"tp", "1", "pp", "1", "train-precision", "fp8",
		"train-seq-len", "8192", "train-batch", "32", "gpus", "8",
		"train-tokens", "1e10", NULL};
	const char *const eight[] = {"model", "llama-3.1-8b", "gpu", "b200",
		"tp", "1", "pp", "1", "train-precision", "fp8",
		"train-seq-len", "8192", "train-batch", "32", "gpus", "64",
		"train-tokens", "1e10", NULL};
	autosize_request r;
	autosize_plan a, b;
	autosize_error e;

	req(&r, one);
	assert_int_equal(autosize_plan_compute(bare, &r, &a, &e), 0);
	req(&r, eight);
	assert_int_equal(autosize_plan_compute(bare, &r, &b, &e), 0);
	printf("  llama-3.1-8b FP8 on B200: 8 GPUs %.0f tokens/s, 64 GPUs "
	       "%.0f (DP %.0f%% of the step)\n", a.tokens_per_s,
	       b.tokens_per_s, 100 * b.step.dp_comm_s / b.step_s);
	assert_true(b.tokens_per_s > 4 * a.tokens_per_s);
	assert_true(b.step.dp_comm_s < 0.5 * b.step_s);
}

/* Issue 32: GB200 NVL72 plans with the rack's NVLink. On 64 GB200 (16
 * trays of 4, one rack) the search itself offers TP and EP wider than a
 * tray: Qwen3-235B-A22B takes EP 64 on NVLink, where on 64 B200 (8
 * nodes) EP stays inside a node; the published 256-GPU layout (PP 8 x
 * EP 8, Megatron-MoE-ModelZoo) is expressible and keeps its EP groups
 * of 8 (nine to a rack) on NVLink. */
static void test_gb200_domain(void **state)
{
	const char *const gb64[] = {"model", "qwen3-235b-a22b", "gpu",
		"gb200", "gpus", "64", "train-seq-len", "4096",
		"train-batch", "1024", "train-tokens", "1e11", NULL};
	const char *const b64[] = {"model", "qwen3-235b-a22b", "gpu",
		"b200", "gpus", "64", "train-seq-len", "4096",
		"train-batch", "1024", "train-tokens", "1e11", NULL};
	const char *const pub[] = {"model", "qwen3-235b-a22b", "gpu",
		"gb200-nvl72", "gpus", "256", "pp", "8", "ep", "8", "tp", "1",
		"train-seq-len", "4096", "train-batch", "1024",
		"train-tokens", "1e11", NULL};
	autosize_request r;
	autosize_plan a, b, c;
	autosize_error e;

	req(&r, gb64);
	assert_int_equal(autosize_plan_compute(bare, &r, &a, &e), 0);
	req(&r, b64);
	assert_int_equal(autosize_plan_compute(bare, &r, &b, &e), 0);
	printf("  qwen3-235b-a22b on 64 GB200: EP %d TP %d %.0f tokens/s; "
	       "on 64 B200: EP %d TP %d %.0f\n", a.ep, a.tp, a.tokens_per_s,
	       b.ep, b.tp, b.tokens_per_s);
	assert_int_equal(a.gpus_per_node, 4);
	assert_true(a.ep * a.tp > a.gpus_per_node);
	assert_true(b.ep * b.tp <= b.gpus_per_node);
	assert_true(a.tokens_per_s > b.tokens_per_s);
	req(&r, pub);
	assert_int_equal(autosize_plan_compute(bare, &r, &c, &e), 0);
	assert_int_equal(c.nodes, 64);
	assert_int_equal(c.pp, 8);
	assert_int_equal(c.ep, 8);
}

/* Cost objective: a generous deadline gives fewer GPUs than a tight one;
 * a deadline nothing meets gets the fastest plan and a warning. */
static void test_deadline_drives_size(void **state)
{
	const char *const loose[] = {"model", "llama-3-8b", "train-tokens",
		"2e11", "train-time", "30d", "gpu", "h100", NULL};
	const char *const tight[] = {"model", "llama-3-8b", "train-tokens",
		"2e11", "train-time", "2d", "gpu", "h100", NULL};
	const char *const never[] = {"model", "llama-3-8b", "train-tokens",
		"2e11", "train-time", "2d", "partition", "l40s", NULL};
	autosize_request r;
	autosize_plan a, b, c;
	autosize_error e;

	req(&r, loose);
	assert_int_equal(autosize_plan_compute(bare, &r, &a, &e), 0);
	req(&r, tight);
	assert_int_equal(autosize_plan_compute(bare, &r, &b, &e), 0);
	assert_true(a.train_hours <= 30 * 24);
	assert_true(b.train_hours <= 2 * 24);
	assert_true(b.gpus > a.gpus);
	/* time limit: the interval's upper end, at least wall time x 1.15,
	 * plus the 15 min start-up allowance and the checkpoint writes,
	 * rounded up to minutes */
	assert_true(b.train_hours_low <= b.train_hours &&
		    b.train_hours <= b.train_hours_high);
	assert_int_equal(b.time_limit_min,
			 (long)ceil(fmax(b.train_hours_high,
					 b.train_hours * 1.15) * 60 + 15 +
				    b.ckpt.job_write_s / 60 - 1e-9));
	/* out of reach on 4 nodes of L40S: the partition's most nodes, or
	 * fewer where more would scale below the site's floor (100 Gb/s
	 * Ethernet for 8 GPUs), and the plan names what they would lose
	 * their time to; the deadline is said missed either way */
	req(&r, never);
	assert_int_equal(autosize_plan_compute(site, &r, &c, &e), 0);
	assert_true(c.nodes == c.part.max_nodes_per_job ||
		    contains_warning(&c, "most of the rest lost to"));
	assert_true(contains_warning(&c, "cannot be met"));
}

/* Megatron-FSDP (ZeRO-3) runs only without a pipeline: finding such a
 * layout must not end the pipeline-depth scan before the deep pipelines
 * that win (GPT-3 175B on 4608 H100s: TP 4 PP 24 at ZeRO-1). Leaving the
 * stage to the search is never slower than pinning either stage. */
static void test_solo_zero_stages(void **state)
{
	const char *const free_zero[] = {"train-framework", "megatron",
		"model", "gpt3-175b", "gpu", "h100", "gpus", "4608",
		"train-seq-len", "2048", "train-batch", "1152",
		"memory-reserve", "0", "train-tokens", "1e12", NULL};
	const char *const small[] = {"train-framework", "megatron", "model",
		"llama-3-8b", "gpu", "h100", "gpus", "8", "train-tokens",
		"2e11", NULL};
	autosize_request r;
	autosize_plan any, z1, z3;
	autosize_error e;

	req(&r, free_zero);
	assert_int_equal(autosize_plan_compute(bare, &r, &any, &e), 0);
	assert_int_equal(autosize_request_set(&r, "zero", "1", &e), 0);
	assert_int_equal(autosize_plan_compute(bare, &r, &z1, &e), 0);
	assert_true(any.tokens_per_s >= z1.tokens_per_s * (1 - RANK_TIE));
	assert_true(any.pp > 1);
	/* 8B on one node of H100 at the default reserve: ZeRO-1 needs a
	 * pipeline, Megatron-FSDP does not; the search weighs both */
	req(&r, small);
	assert_int_equal(autosize_plan_compute(bare, &r, &any, &e), 0);
	assert_int_equal(autosize_request_set(&r, "zero", "1", &e), 0);
	assert_int_equal(autosize_plan_compute(bare, &r, &z1, &e), 0);
	assert_int_equal(autosize_request_set(&r, "zero", "3", &e), 0);
	assert_int_equal(autosize_plan_compute(bare, &r, &z3, &e), 0);
	assert_int_equal(z3.pp, 1);
	assert_true(any.tokens_per_s >= z1.tokens_per_s * (1 - RANK_TIE));
	assert_true(any.tokens_per_s >= z3.tokens_per_s * (1 - RANK_TIE));
}

/* Under FSDP "selective" is torchtitan's op-level checkpointing, which
 * does save memory with FlashAttention: the free search weighs it (70B
 * on 64 H100s at TP 8 x PP 8 and 12k: it fits where no recomputation
 * does not, and beats full recomputation). */
static void test_fsdp_selective_searched(void **state)
{
	const char *const opts[] = {"model", "llama-3-70b", "gpu", "h100",
		"gpus", "64", "train-seq-len", "12288", "train-framework",
		"fsdp", "tp", "8", "pp", "8", "train-tokens", "1e11",
		NULL};
	autosize_request r;
	autosize_plan free_rc, sel;
	autosize_error e;

	req(&r, opts);
	assert_int_equal(autosize_plan_compute(bare, &r, &free_rc, &e), 0);
	assert_int_equal(autosize_request_set(&r, "recompute", "selective",
					      &e), 0);
	assert_int_equal(autosize_plan_compute(bare, &r, &sel, &e), 0);
	assert_true(sel.feasible);
	assert_true(free_rc.tokens_per_s >= sel.tokens_per_s * (1 - RANK_TIE));
}

/* Partition max time: the time limit is clamped and the run chained,
 * told in the plan's words, not as a warning too. */
static void test_max_time_chained(void **state)
{
	const char *const opts[] = {"model", "llama-2-70b", "train-tokens",
		"1e11", "partition", "a100", NULL};
	autosize_request r;
	autosize_plan p;
	autosize_error e;

	req(&r, opts);
	assert_int_equal(autosize_plan_compute(site, &r, &p, &e), 0);
	assert_int_equal(p.time_limit_min, 2 * 24 * 60);
	assert_true(p.chained_jobs > 1);
	assert_true(p.chained_jobs * 2.0 * 24 >= p.train_hours * 1.15);
	assert_false(contains_warning(&p, "chained jobs"));
	assert_true(p.signal_s >= 300 && p.signal_s % 60 == 0);
}

/* No partition named: the policy's partitions are compared. */
static void test_partition_choice(void **state)
{
	const char *const small[] = {"model", "qwen2.5-0.5b", "train-tokens",
		"1e10", "train-time", "7d", NULL};
	autosize_request r;
	autosize_plan p, q;
	autosize_error e;
	int i;

	req(&r, small);
	assert_int_equal(autosize_plan_compute(site, &r, &p, &e), 0);
	/* cheapest: no other partition gives a lower cost */
	for (i = 0; i < autosize_policy_partition_count(site); i++) {
		snprintf(r.partition, sizeof(r.partition), "%s",
			 autosize_policy_partition_at(site, i)->name);
		if (autosize_plan_compute(site, &r, &q, &e) == 0)
			assert_true(p.cost <= q.cost * 1.0001);
	}
	printf("  0.5B: partition %s, %.2f %s\n", p.part.name, p.cost,
	       p.part.currency);
}

/* Too big for the partition: the reason says what would fit. */
static void test_unfit_advice(void **state)
{
	const char *const big[] = {"model", "llama-3.1-405b", "train-tokens",
		"1e11", "partition", "a100", NULL};
	const char *const huge[] = {"model-params", "5e12", "train-tokens",
		"1e11", "partition", "h100", NULL};
	autosize_request r;
	autosize_plan p;
	autosize_error e;

	req(&r, big);
	assert_int_equal(autosize_plan_compute(site, &r, &p, &e),
			 AUTOSIZE_ENOFIT);
	assert_false(p.feasible);
	printf("  405B on a100: %s\n", p.reason);
	assert_non_null(strstr(p.reason, "GiB per GPU"));
	assert_non_null(strstr(p.reason, "partition h100") ?
			strstr(p.reason, "partition h100") :
			strstr(p.reason, "at least"));
	req(&r, huge);
	assert_int_equal(autosize_plan_compute(site, &r, &p, &e),
			 AUTOSIZE_ENOFIT);
	assert_non_null(strstr(p.reason, "at least"));
}

/* Fixed sizes: the best layout for that size; too large gets a saving
 * warning; a full pin is evaluated as is. */
static void test_fixed_and_pinned(void **state)
{
	/* 16 nodes over 25 Gb/s Ethernet: most GPU-hours wasted. */
	const char *const big[] = {"model", "llama-3-8b", "train-tokens",
		"5e10", "partition", "h100", "nodes", "16", "network",
		"ethernet:25", NULL};
	/* 8 nodes on InfiniBand: under 10% to save, no advice (16 save
	 * 11% since the output head weighs on the last pipeline stage). */
	const char *const near[] = {"model", "llama-3-8b", "train-tokens",
		"5e10", "partition", "h100", "nodes", "8", NULL};
	const char *const pinned[] = {"model", "llama-2-70b", "train-tokens",
		"1e11", "gpu", "h100", "nodes", "4", "tp", "8", "pp", "2",
		"zero", "1", "recompute", "full", "micro-batch", "1", NULL};
	autosize_request r;
	autosize_plan p;
	autosize_error e;

	req(&r, big);
	assert_int_equal(autosize_plan_compute(site, &r, &p, &e), 0);
	assert_int_equal(p.nodes, 16);
	assert_int_equal(p.tp * p.pp * p.dp, 128);
	assert_true(contains_warning(&p, "would do"));
	req(&r, near);
	assert_int_equal(autosize_plan_compute(site, &r, &p, &e), 0);
	assert_false(contains_warning(&p, "would do"));
	req(&r, pinned);
	assert_int_equal(autosize_plan_compute(bare, &r, &p, &e), 0);
	assert_int_equal(p.tp, 8);
	assert_int_equal(p.pp, 2);
	assert_int_equal(p.dp, 2);
	assert_int_equal(p.zero_stage, 1);
	assert_int_equal(p.recompute, AUTOSIZE_RECOMPUTE_FULL);
	assert_int_equal(p.micro_batch, 1);
	assert_int_equal(p.grad_accum * p.dp * p.micro_batch,
			 p.global_batch);
}

/* A batch the user gave is the plan's batch; the default one is a round
 * count the layout divides. */
static void test_global_batch(void **state)
{
	const char *const pinned[] = {"model-params", "7e9", "gpu", "h100",
		"train-tokens", "1e10", "nodes", "3", "train-batch", "1000",
		NULL};
	const char *const dflt[] = {"model-params", "7e9", "gpu", "h100",
		"train-tokens", "1e10", "nodes", "3", NULL};
	autosize_request r;
	autosize_plan p;
	autosize_error e;

	req(&r, pinned);
	assert_int_equal(autosize_plan_compute(bare, &r, &p, &e), 0);
	assert_int_equal(p.global_batch, 1000);
	assert_int_equal(p.dp * p.micro_batch * p.grad_accum, 1000);
	req(&r, dflt);
	assert_int_equal(autosize_plan_compute(bare, &r, &p, &e), 0);
	assert_int_equal(p.global_batch % 16, 0);
	assert_true(fabs(p.global_batch - 1024.0) <= 0.05 * 1024);
	assert_int_equal(p.global_batch % (p.dp * p.micro_batch), 0);
}

/* A batch too small for the GPUs is said, with a batch that
 * would feed them (2T tokens: at 2 micro-batches on 16 stages nothing
 * interleaves, and 15.6T would pass the 180-day limit). */
static void test_batch_starved_pipeline(void **state)
{
	const char *const starved[] = {"model", "llama-3.1-405b", "gpu",
		"h100", "train-tokens", "2T", "train-seq-len", "8192",
		"nodes", "4096", "tp", "8", "pp", "16", "cp", "1", NULL};
	const char *const fed[] = {"model", "llama-3.1-405b", "gpu",
		"h100", "train-tokens", "2T", "train-seq-len", "8192",
		"nodes", "4096", "tp", "8", "pp", "16", "cp", "1",
		"train-batch", "8192", NULL};
	autosize_request r;
	autosize_plan p;
	autosize_error e;

	req(&r, starved);
	assert_int_equal(autosize_plan_compute(bare, &r, &p, &e), 0);
	assert_true(p.grad_accum <= 4);
	assert_true(contains_warning(&p, "pipeline bubble"));
	assert_true(contains_warning(&p, "raise --train-batch"));
	req(&r, fed);
	assert_int_equal(autosize_plan_compute(bare, &r, &p, &e), 0);
	assert_false(contains_warning(&p, "pipeline bubble"));
}

/* No deadline: the policy's horizon (30 days) sizes the job, not the
 * smallest size that fits whatever it takes; without a horizon the
 * smallest size comes back. */
static void test_horizon(void **state)
{
	const char *const none[] = {"model", "llama-3-8b", "train-tokens",
		"2e11", "gpu", "h100", NULL};
	const char *const month[] = {"model", "llama-3-8b", "train-tokens",
		"2e11", "gpu", "h100", "train-time", "30d", NULL};
	static const char unlimited[] = "defaults:\n  horizon: UNLIMITED\n"
		"partitions:\n  - name: p\n    gpu: h100\n    gpus_per_node: "
		"8\n    nodes: 64\n    network: ib\n    "
		"network_gbps_per_node: 3200\n";
	autosize_policy *open_ended;
	autosize_request r;
	autosize_plan a, b, c;
	autosize_error e;

	req(&r, none);
	assert_int_equal(autosize_plan_compute(bare, &r, &a, &e), 0);
	assert_true(a.train_hours <= 30 * 24);
	req(&r, month);
	assert_int_equal(autosize_plan_compute(bare, &r, &b, &e), 0);
	assert_int_equal(a.gpus, b.gpus);
	open_ended = autosize_policy_parse(unlimited, strlen(unlimited),
					   "t.yaml", ".", &e);
	assert_non_null(open_ended);
	req(&r, none);
	assert_int_equal(autosize_plan_compute(open_ended, &r, &c, &e), 0);
	printf("  8B x 200B: %d GPUs, %.0f days in the 30-day horizon; %d "
	       "GPUs, %.0f days without one\n", a.gpus, a.train_hours / 24,
	       c.gpus, c.train_hours / 24);
	assert_true(c.gpus < a.gpus);
	assert_true(c.train_hours > 30 * 24);
	autosize_policy_destroy(open_ended);
}

/* Half an 8-GPU H100 node per node (--gpus-per-node=4): the plan is
 * priced on the nodes it runs on. TP 8 pinned over 2 x 4 crosses the
 * network and is slower than on one node of 8; asking for the whole
 * node's 8 is the plan without the option, bit for bit; a cap that
 * leaves the job 4 GPUs per node (here its --cpus-per-gpu on 32-CPU
 * nodes) prices like asking for 4, each GPU with its own NIC. */
static void test_gpus_per_node_priced(void **state)
{
	static const char pol[] =
		"partitions:\n  - {name: p, gpu: h100, gpus_per_node: 8, "
		"nodes: 16, network: ib, network_gbps_per_node: 3200}\n";
	static const char snap[] = "autosize-limits 1\n"
		"part p - node_cpus=32 node_gpus=8\nend\n";
	const char *const one[] = {"model", "llama-3-8b", "train-tokens",
		"1e9", "tp", "8", "nodes", "1", "gpus-per-node", "8", NULL};
	const char *const two[] = {"model", "llama-3-8b", "train-tokens",
		"1e9", "tp", "8", "nodes", "2", "gpus-per-node", "4", NULL};
	const char *const bare_one[] = {"model", "llama-3-8b",
		"train-tokens", "1e9", "tp", "8", "nodes", "1", NULL};
	const char *const half[] = {"model", "llama-3-8b", "train-tokens",
		"1e9", "tp", "1", "pp", "1", "train-batch", "16",
		"micro-batch", "1", "nodes", "4", "gpus-per-node", "4",
		NULL};
	const char *const capped[] = {"model", "llama-3-8b", "train-tokens",
		"1e9", "tp", "1", "pp", "1", "train-batch", "16",
		"micro-batch", "1", "nodes", "4", NULL};
	autosize_policy *p;
	autosize_limits *lim;
	autosize_request r;
	autosize_plan a, b, c;
	autosize_error e;

	p = autosize_policy_parse(pol, strlen(pol), "t.yaml", ".", &e);
	assert_non_null(p);
	lim = autosize_limits_parse(snap, strlen(snap), &e);
	assert_non_null(lim);
	req(&r, one);
	assert_int_equal(autosize_plan_compute(p, &r, &a, &e), 0);
	req(&r, two);
	assert_int_equal(autosize_plan_compute(p, &r, &b, &e), 0);
	printf("  TP 8: 1 x 8 %.3f s a step, 2 x 4 %.3f s (TP %.3f s, %.3f "
	       "s)\n", a.step_s, b.step_s, a.step.tp_comm_s,
	       b.step.tp_comm_s);
	assert_int_equal(b.nodes, 2);
	assert_int_equal(b.gpus_per_node, 4);
	assert_int_equal(b.tp, 8);
	assert_true(b.step.tp_comm_s > a.step.tp_comm_s);
	assert_true(b.step_s > a.step_s);
	req(&r, bare_one);
	assert_int_equal(autosize_plan_compute(p, &r, &c, &e), 0);
	assert_memory_equal(&a.step, &c.step, sizeof(a.step));
	assert_true(a.step_s == c.step_s);
	/* 4 x 4 asked for, or capped to 4 per node by the CPUs */
	req(&r, half);
	assert_int_equal(autosize_plan_compute(p, &r, &a, &e), 0);
	req(&r, capped);
	r.cpus_per_gpu = 8;
	r.slurm = lim;
	assert_int_equal(autosize_plan_compute(p, &r, &b, &e), 0);
	assert_int_equal(b.gpus_per_node, 4);
	assert_int_equal(b.dp, 16);
	assert_true(a.step.dp_comm_s > 0);
	assert_true(a.step_s == b.step_s);
	assert_memory_equal(&a.step, &b.step, sizeof(a.step));
	autosize_limits_destroy(lim);
	autosize_policy_destroy(p);
}

/* The quickstart's 70B x 2T on the testbed's 4 nodes: 1.5 years is no
 * plan. Infeasible past max_train_time, saying the best time within the
 * partition and the GPUs the horizon needs. */
static void test_max_train_time(void **state)
{
	const char *const opts[] = {"model-params", "70e9", "train-tokens",
		"2e12", NULL};
	autosize_policy *testbed;
	autosize_request r;
	autosize_plan p;
	autosize_error e;

	testbed = autosize_policy_load("contrib/testbed/autosize.yaml", &e);
	assert_non_null(testbed);
	req(&r, opts);
	assert_int_equal(autosize_plan_compute(testbed, &r, &p, &e),
			 AUTOSIZE_ENOFIT);
	printf("  70B x 2T on 32 GPUs: %s\n", p.reason);
	assert_false(p.feasible);
	assert_true(p.too_long);
	assert_int_equal(p.gpus, 32);
	assert_true(p.train_hours > 180 * 24);
	assert_non_null(strstr(p.reason, "maximum training time of 180 "
				"days"));
	assert_true(p.gpus_min > 500);
	assert_true(contains_warning(&p, "cannot be met"));
	/* a deadline-free plan that fits the maximum stays feasible */
	r.tokens = 1e11;
	assert_int_equal(autosize_plan_compute(testbed, &r, &p, &e), 0);
	assert_true(p.feasible && !p.too_long);
	autosize_policy_destroy(testbed);
}

/* Whole runs lose time to interruptions: the share grows with the GPUs
 * (Llama 3's rate: ~10% at 16,384 H100, 466 in 54 days), the lost hours
 * with GPUs x days; the policy sets the rate and the cost, 0 turns it
 * off, and the text report says so. */
static void test_goodput(void **state)
{
	const char *const big[] = {"model", "llama-3.1-405b", "gpu", "h100",
		"train-tokens", "15.6T", "train-seq-len", "8192", "gpus",
		"16384", NULL};
	const char *const small[] = {"model", "llama-3.1-8b", "gpu", "h100",
		"train-tokens", "1T", "gpus", "64", NULL};
	static const char *const off =
		"defaults: {gpu_mtbf_hours: 0}\n"
		"partitions:\n  - {name: p, gpu: h100, gpus_per_node: 8, "
		"nodes: 4096, network: ib, network_gbps_per_node: 3200}\n";
	static const char *const twice =
		"defaults: {restart_minutes: 33.4}\n"
		"partitions:\n  - {name: p, gpu: h100, gpus_per_node: 8, "
		"nodes: 4096, network: ib, network_gbps_per_node: 3200}\n";
	autosize_policy *p_off, *p_twice;
	autosize_request r;
	autosize_plan a, b, c, d;
	autosize_error e;
	char text[8192];
	double lost_a, lost_b;

	req(&r, big);
	assert_int_equal(autosize_plan_compute(bare, &r, &a, &e), 0);
	req(&r, small);
	assert_int_equal(autosize_plan_compute(bare, &r, &b, &e), 0);
	printf("  405B on 16384: goodput %.3f, %.0f interruptions; 8B on 64: "
	       "%.4f, %.1f\n", a.goodput, a.interruptions, b.goodput,
	       b.interruptions);
	assert_true(fabs(a.goodput - 0.90) < 0.005);
	assert_true(b.goodput > 0.995 && b.goodput < 1);
	/* the lost share grows with the GPUs, the lost wall hours with
	 * GPUs x days */
	lost_a = (1 - a.goodput) * a.train_hours;
	lost_b = (1 - b.goodput) * b.train_hours;
	assert_true(fabs((1 - a.goodput) / (1 - b.goodput) - 16384.0 / 64) <
		    0.01 * 256);
	assert_true(fabs(lost_a / lost_b - (16384.0 * a.train_hours) /
			 (64.0 * b.train_hours)) < 0.01 * lost_a / lost_b);
	/* interruptions: GPUs x wall hours / MTBF */
	assert_true(fabs(a.interruptions - a.gpus * a.train_hours /
			 (16384.0 * 54 * 24 / 466)) < 1e-6 * a.interruptions);
	assert_int_equal(autosize_launch_report(&r, &b, text, sizeof(text)) >
			 0, 1);
	req(&r, big);
	assert_true(autosize_launch_report(&r, &a, text, sizeof(text)) > 0);
	assert_non_null(strstr(text, "interruptions expected, 10% of the run "
			       "lost"));
	p_off = autosize_policy_parse(off, strlen(off), "t.yaml", ".", &e);
	p_twice = autosize_policy_parse(twice, strlen(twice), "t.yaml", ".",
					&e);
	assert_non_null(p_off);
	assert_non_null(p_twice);
	assert_int_equal(autosize_plan_compute(p_off, &r, &c, &e), 0);
	assert_int_equal(autosize_plan_compute(p_twice, &r, &d, &e), 0);
	assert_true(c.goodput == 1 && c.interruptions == 0);
	assert_true(fabs(c.train_hours - a.train_hours * a.goodput) <
		    1e-9 * c.train_hours);
	assert_true(fabs(d.goodput - 0.80) < 0.01);
	autosize_policy_destroy(p_off);
	autosize_policy_destroy(p_twice);
}

/* The cost objective stops adding GPUs that no longer help: 405B x
 * 15.6T on H100 with the default 4M-token batch took all 32,768 GPUs
 * at 20% MFU for a 90-day deadline (and 32,768 with --train-batch=2048
 * where 1,664 nodes meet it for less). 110 days with the default batch
 * (its 512 sequences keep a 16-stage pipeline's bubble large): a run on
 * ~16k GPUs loses ~10% of its time to interruptions (Llama 3's rate,
 * policy gpu_mtbf_hours), so 90 days are out of its reach. */
static void test_no_gpus_past_scaling(void **state)
{
	const char *const d110[] = {"model", "llama-3.1-405b", "gpu", "h100",
		"train-tokens", "15.6T", "train-seq-len", "8192",
		"train-time", "110d", NULL};
	const char *const b2048[] = {"model", "llama-3.1-405b", "gpu", "h100",
		"train-tokens", "15.6T", "train-seq-len", "8192",
		"train-time", "90d", "train-batch", "2048", NULL};
	const char *const all2048[] = {"model", "llama-3.1-405b", "gpu",
		"h100", "train-tokens", "15.6T", "train-seq-len", "8192",
		"train-time", "90d", "train-batch", "2048", "nodes", "4096",
		NULL};
	const char *const d30[] = {"model", "llama-3.1-405b", "gpu", "h100",
		"train-tokens", "15.6T", "train-seq-len", "8192",
		"train-time", "30d", NULL};
	autosize_request r;
	autosize_plan p, all;
	autosize_error e;

	req(&r, d110);
	assert_int_equal(autosize_plan_compute(bare, &r, &p, &e), 0);
	printf("  405B, 110 days: %d GPUs, MFU %.0f%%, %.0f days\n", p.gpus,
	       100 * p.mfu, p.train_hours / 24);
	assert_true(p.gpus < 32768);
	assert_true(p.mfu > 0.30);
	assert_true(p.train_hours <= 110 * 24);
	assert_true(p.goodput < 0.95 && p.interruptions > 100);
	req(&r, b2048);
	assert_int_equal(autosize_plan_compute(bare, &r, &p, &e), 0);
	req(&r, all2048);
	assert_int_equal(autosize_plan_compute(bare, &r, &all, &e), 0);
	printf("  405B, batch 2048: %d GPUs, %.0f GPU-hours (all 32768: "
	       "%.0f)\n", p.gpus, p.gpu_hours, all.gpu_hours);
	assert_int_equal(p.global_batch, 2048);
	assert_true(p.train_hours <= 90 * 24);
	assert_true(p.gpu_hours < 0.95 * all.gpu_hours);
	/* 30 days cannot be met at a speed per GPU worth paying for: the
	 * plan stops where GPUs still scale and says why */
	req(&r, d30);
	assert_int_equal(autosize_plan_compute(bare, &r, &p, &e), 0);
	printf("  405B, 30 days: %d GPUs, MFU %.0f%%, %.0f days\n", p.gpus,
	       100 * p.mfu, p.train_hours / 24);
	assert_true(p.gpus < 32768);
	assert_true(contains_warning(&p, "more GPUs would not help"));
	assert_true(contains_warning(&p, "most of the rest lost to"));
	assert_true(contains_warning(&p, "cannot be met"));
}

/* A whole run spends a share of its wall time outside its steps
 * (perf.yaml whole_run: efficiency, from published runs' GPU-hours):
 * its hours, GPU-hours and time limit carry it; a fixed --mfu is a whole
 * run's utilization already. */
static void test_whole_run(void **state)
{
	const char *const o[] = {"model", "llama-3.1-8b", "gpu", "h100",
		"train-tokens", "1T", "gpus", "64", NULL};
	const char *const mfu[] = {"model", "llama-3.1-8b", "gpu", "h100",
		"train-tokens", "1T", "gpus", "64", "mfu", "0.4", NULL};
	double eff = perfdata_default()->run_efficiency;
	autosize_request r;
	autosize_plan whole, steps, fixed;
	autosize_error e;

	assert_true(eff > 0.3 && eff < 1);
	req(&r, o);
	assert_int_equal(autosize_plan_compute(bare, &r, &whole, &e), 0);
	assert_int_equal(steps_only_setup(state), 0);
	assert_int_equal(autosize_plan_compute(bare, &r, &steps, &e), 0);
	assert_int_equal(steps_only_teardown(state), 0);
	assert_true(whole.run_efficiency == eff);
	assert_true(steps.run_efficiency == 1);
	assert_int_equal(whole.tp * whole.pp * whole.micro_batch,
			 steps.tp * steps.pp * steps.micro_batch);
	assert_true(fabs(whole.tokens_per_s - steps.tokens_per_s) <
		    1e-9 * steps.tokens_per_s);
	assert_true(fabs(whole.train_hours * eff - steps.train_hours) <
		    1e-6 * steps.train_hours);
	assert_true(fabs(whole.gpu_hours * eff - steps.gpu_hours) <
		    1e-6 * steps.gpu_hours);
	assert_true(whole.time_limit_min >= whole.train_hours * 60);
	assert_true(whole.time_limit_min > steps.time_limit_min);
	req(&r, mfu);
	assert_int_equal(autosize_plan_compute(bare, &r, &fixed, &e), 0);
	assert_true(fixed.run_efficiency == 1);
}

/* Recomputation from the least to the most work per step. */
static int recompute_cost(autosize_recompute rc)
{
	switch (rc) {
	case AUTOSIZE_RECOMPUTE_NONE: return 0;
	case AUTOSIZE_RECOMPUTE_SELECTIVE: return 1;
	case AUTOSIZE_RECOMPUTE_SELECTIVE_MLP: return 2;
	case AUTOSIZE_RECOMPUTE_FULL: return 3;
	}
	return 3;
}

/* LoRA and QLoRA: a fine-tuning batch (128 sequences, not the 4M-token
 * pretraining one: 100M tokens were 24 steps); under FSDP the search
 * keeps them data parallel, as PEFT stacks run, and a pinned TP runs
 * (FSDP2 + TP); QLoRA under Megatron has no TP (NeMo's NF4 layers), and
 * adapters under DeepSpeed only ZeRO and Ulysses; 4 -> 8 GPUs is never
 * predicted faster than linear. */
static void test_lora_plans(void **state)
{
	const char *const qlora[] = {"model", "llama-2-70b", "gpu",
		"a100-80gb", "train-mode", "qlora", "train-tokens", "100M",
		NULL};
	const char *const qlora_tp[] = {"model", "llama-2-70b", "gpu",
		"a100-80gb", "train-mode", "qlora", "train-tokens", "100M",
		"tp", "2", NULL};
	const char *const qlora_meg_tp[] = {"model", "llama-2-70b", "gpu",
		"a100-80gb", "train-mode", "qlora", "train-tokens", "100M",
		"tp", "2", "train-framework", "megatron", NULL};
	const char *const lora_ds_tp[] = {"model", "llama-2-70b", "gpu",
		"a100-80gb", "train-mode", "lora", "train-tokens", "100M",
		"tp", "2", "train-framework", "deepspeed", NULL};
	const char *const lora_fsdp[] = {"model", "llama-2-70b", "gpu",
		"a100-80gb", "train-mode", "lora", "train-framework", "fsdp",
		"train-tokens", "100M", "gpus", "8", NULL};
	static const char *const gpus[] = {"4", "8"};
	/* the pretraining batch: where ties once drifted to PP 4 */
	static const char *const modes[][3] = {
		{"llama-3-8b", "h100", "1024"}, {"llama-2-70b", "a100-80gb",
		"128"}, {"llama-2-13b", "l40s", "128"}};
	autosize_request r;
	autosize_plan p, at[2];
	autosize_error e;
	size_t m, g;

	req(&r, qlora);
	assert_int_equal(autosize_plan_compute(bare, &r, &p, &e), 0);
	assert_int_equal(p.global_batch, 128);
	assert_true(p.tokens / (p.global_batch * p.seq_len) > 150);
	assert_true(p.tp == 1 && p.pp == 1 && p.cp == 1);
	req(&r, qlora_tp);
	assert_int_equal(autosize_plan_compute(bare, &r, &p, &e), 0);
	assert_int_equal(p.tp, 2);
	assert_int_equal(p.framework, AUTOSIZE_FRAMEWORK_FSDP);
	req(&r, qlora_meg_tp);
	assert_int_equal(autosize_plan_compute(bare, &r, &p, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "without tensor parallelism"));
	req(&r, lora_ds_tp);
	assert_int_equal(autosize_plan_compute(bare, &r, &p, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "Ulysses"));
	req(&r, lora_fsdp);
	assert_int_equal(autosize_plan_compute(bare, &r, &p, &e), 0);
	assert_true(p.tp == 1 && p.pp == 1 && p.dp == 8);
	assert_true(p.zero_stage >= 1);
	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		for (g = 0; g < 2; g++) {
			const char *const opts[] = {"model", modes[m][0],
				"gpu", modes[m][1], "train-mode", m ? "qlora"
				: "lora", "train-tokens", "100M",
				"train-batch", modes[m][2], "gpus", gpus[g],
				NULL};

			req(&r, opts);
			assert_int_equal(autosize_plan_compute(bare, &r,
							       &at[g], &e), 0);
		}
		printf("  %s on %s: 4 -> 8 GPUs x%.3f\n", modes[m][0],
		       modes[m][1], at[1].tokens_per_s / at[0].tokens_per_s);
		/* at most linear, unless the sharded states on 8 GPUs free
		 * the memory to recompute less (a real memory cliff: QLoRA
		 * 13B under ZeRO-3 on 48 GB cards) */
		assert_true(at[1].tokens_per_s <=
			    2 * at[0].tokens_per_s * 1.01 ||
			    recompute_cost(at[1].recompute) <
			    recompute_cost(at[0].recompute));
	}
}

/* A precision the GPU lacks is refused naming one it has (V100: no
 * bf16). */
static void test_precision_advice(void **state)
{
	const char *const v100[] = {"model-params", "7e9", "gpu",
		"v100-32gb", "train-tokens", "1e9", NULL};
	autosize_request r;
	autosize_plan p;
	autosize_error e;

	req(&r, v100);
	assert_int_equal(autosize_plan_compute(bare, &r, &p, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "(use fp16)"));
}

/* Megatron can run every pipeline the search picks: its stage split
 * exists for the layers, pp and interleaving (launch notes). */
static void test_megatron_split_exists(void **state)
{
	static const char *const layers[] = {"19", "23", "30", "61", "95",
					     "126"};
	size_t i;

	for (i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
		const char *const opts[] = {"layers", layers[i], "hidden",
			"12288", "heads", "96", "train-tokens", "1e11", "gpu",
			"h100", "train-framework", "megatron", NULL};
		autosize_request r;
		autosize_plan p;
		autosize_error e;
		int f, m, l;

		req(&r, opts);
		if (autosize_plan_compute(bare, &r, &p, &e) != AUTOSIZE_OK)
			continue;
		if (p.pp > 1)
			assert_true(stages_megatron_split(r.model.layers, p.pp,
							  p.vp > 1 ? p.vp : 1,
							  &f, &m, &l) >= 0);
	}
}

/* The last pipeline rank also runs the output head: the split moves
 * layers off it onto the middle ranks where that lightens the busiest
 * rank, in counts Megatron takes (first and last a multiple of vp, the
 * middle ranks equal and a multiple of vp), never past what the memory
 * is sized for (a first rank of ceil(L / pp), no middle rank with more
 * activations or weights); a plan records it and prices it. */
static void test_megatron_head_split(void **state)
{
	static const double heads[] = {0.5, 1.2, 2.4, 4.6};
	const char *const opts[] = {"model", "llama-3-8b", "gpu", "h100",
		"gpus", "32", "tp", "1", "pp", "4", "train-framework",
		"megatron", "train-tokens", "1e9", NULL};
	autosize_request r;
	autosize_plan p;
	autosize_error e;
	int layers, pp, vp, h, f, m, l, pf, pm, pl, moved = 0;

	(void)state;
	/* Llama-3-8B on PP 4: 8, 9, 9, 6 (busiest 9, not 8 + 2.4) */
	assert_int_equal(stages_megatron_split_head(32, 4, 1, 2.4, 10, &f, &m,
						    &l), 1);
	assert_int_equal(f, 8);
	assert_int_equal(m, 9);
	assert_int_equal(l, 6);
	/* no middle rank past what the memory allows (8: none moves), nor
	 * any on two ranks */
	assert_int_equal(stages_megatron_split_head(32, 4, 1, 2.4, 8, &f, &m,
						    &l), 0);
	assert_int_equal(l, 8);
	assert_int_equal(stages_megatron_split_head(32, 2, 1, 2.4, 20, &f, &m,
						    &l), 0);
	for (layers = 6; layers <= 130; layers++)
		for (pp = 3; 2 * pp <= layers && pp <= 16; pp++)
			for (vp = 1; vp <= 4; vp++)
				for (h = 0; h < 4; h++) {
					int most = (layers + pp - 1) / pp, s0;
					int cap = most + 1 + h;
					double b0, b1;

					s0 = stages_megatron_split(layers, pp,
								   vp, &pf, &pm,
								   &pl);
					if (stages_megatron_split_head(layers,
						pp, vp, heads[h], cap, &f, &m,
						&l) != 1 || s0 < 0 ||
					    (f == pf && m == pm && l == pl))
						continue;
					moved++;
					assert_int_equal(f + (pp - 2) * m + l,
							 layers);
					assert_true(f % vp == 0 && m % vp == 0 &&
						    l % vp == 0 && f >= vp &&
						    l >= vp);
					assert_true(f <= most && l < most);
					assert_true(m <= cap);
					b0 = fmax(fmax(pf, pm), pl + heads[h]);
					b1 = fmax(fmax(f, m), l + heads[h]);
					assert_true(b1 < b0);
				}
	assert_true(moved > 1000);
	/* the plan records the split it prices, the launch line sets it */
	req(&r, opts);
	assert_int_equal(autosize_plan_compute(bare, &r, &p, &e), AUTOSIZE_OK);
	assert_int_equal(p.pp, 4);
	assert_int_equal(p.stage_layers[0], 8);
	assert_int_equal(p.stage_layers[1], 9);
	assert_int_equal(p.stage_layers[2], 6);
}

/* A pinned TP that does not divide the GPUs per node or the heads, or
 * splits the key/value heads unevenly, is refused, naming why; one above
 * the key/value heads replicates them (StarCoder: 48 heads, one
 * key/value head, TP 4), in memory too. */
static void test_tp_pin_checked(void **state)
{
	const char *const three[] = {"model-params", "13e9", "gpu",
		"a100-80gb", "train-tokens", "1e10", "tp", "3", NULL};
	const char *const heads[] = {"layers", "32", "hidden", "4608",
		"heads", "48", "kv-heads", "12", "gpu", "h100", "train-tokens",
		"1e10", "tp", "8", NULL};
	const char *const mqa[] = {"layers", "40", "hidden", "6144",
		"heads", "48", "kv-heads", "1", "ffn", "24576", "mlp", "gelu",
		"vocab", "49152", "gpu", "a100-80gb", "gpus", "16",
		"train-tokens", "1e10", "train-framework", "megatron",
		"train-seq-len", "8192", "tp", "4", "pp", "4", "cp", "1",
		"zero", "1", "recompute", "full", NULL};
	const char *const good[] = {"model-params", "13e9", "gpu",
		"a100-80gb", "train-tokens", "1e10", "tp", "4", NULL};
	autosize_request r;
	autosize_plan p;
	autosize_error e;

	req(&r, three);
	assert_int_equal(autosize_plan_compute(bare, &r, &p, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "--tp: 3 does not divide"));
	req(&r, heads);
	assert_int_equal(autosize_plan_compute(bare, &r, &p, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "key/value heads"));
	req(&r, mqa);
	assert_int_equal(autosize_plan_compute(bare, &r, &p, &e), 0);
	assert_int_equal(p.tp, 4);
	{
		/* the one key/value head's projections are on every TP
		 * rank: more weight bytes than a quarter of the model, by
		 * 3/4 of 2 x 6144 x 128 per layer at 2 bytes */
		double quarter = 2.0 * r.model.params / (4 * 4);
		double kv_extra = 40 / 4 * 2.0 * 6144 * 128 * 0.75 * 2;

		assert_true(p.mem.weights_bytes > quarter + 0.9 * kv_extra);
	}
	req(&r, good);
	assert_int_equal(autosize_plan_compute(bare, &r, &p, &e), 0);
	assert_int_equal(p.tp, 4);
}

/* Memory reserve: no plan past (1 - reserve) of the GPU's memory. */
static void test_memory_reserve_holds(void **state)
{
	static const char *const reserves[] = {"0", "0.2", "0.5"};
	size_t i;

	for (i = 0; i < 3; i++) {
		const char *const opts[] = {"model", "llama-2-13b",
			"train-tokens", "1e11", "gpu", "a100-80gb",
			"memory-reserve", reserves[i], NULL};
		autosize_request r;
		autosize_plan p;
		autosize_error e;

		req(&r, opts);
		assert_int_equal(autosize_plan_compute(bare, &r, &p, &e), 0);
		assert_true(p.mem.total_bytes <= p.mem.usable_bytes);
		assert_true(fabs(p.mem.usable_bytes - 80.0 * (1 << 30) *
				 (1 - atof(reserves[i]))) < 1e6);
	}
}

/* Cost never rises as the deadline loosens (past the cost tie, which
 * may trade a little money for fewer GPUs): a looser deadline admits
 * every plan a tighter one did. */
static void test_cost_monotone_in_deadline(void **state)
{
	static const char *const days[] = {"6d", "7d", "8d", "9d", "12d",
					   "16d", "20d", "30d"};
	autosize_request r;
	autosize_plan plan;
	autosize_error e;
	double prev = 0;
	int prev_gpus = 0;
	size_t i;

	for (i = 0; i < sizeof(days) / sizeof(days[0]); i++) {
		const char *const o[] = {"model-params", "8e9", "train-tokens",
					 "200B", "gpu", "h100", "train-time",
					 days[i], NULL};

		req(&r, o);
		assert_int_equal(autosize_plan_compute(bare, &r, &plan, &e),
				 AUTOSIZE_OK);
		if (prev > 0 && plan.gpu_hours > prev * (1 + RANK_COST_TIE))
			fail_msg("%s: %.0f GPU-h after %.0f at a tighter "
				 "deadline", days[i], plan.gpu_hours, prev);
		/* nor does it take more GPUs (9 days took 40 GPUs where 8
		 * took 32) */
		if (prev_gpus > 0 && plan.gpus > prev_gpus)
			fail_msg("%s: %d GPUs after %d at a tighter deadline",
				 days[i], plan.gpus, prev_gpus);
		prev = plan.gpu_hours;
		prev_gpus = plan.gpus;
	}
}

/* The cheapest size past the smallest that meets the deadline, with
 * even stages: 13B x 2T on A100 in 30 days is 512 GPUs at TP 2 (256k
 * GPU-h), not 448 at PP 7 x VP 3 with a custom layout (292k). */
static void test_cheapest_past_smallest(void **state)
{
	const char *const o[] = {"model", "llama-2-13b", "gpu", "a100-80gb",
				 "train-tokens", "2T", "train-time", "30d",
				 "train-batch", "1024", "train-framework",
				 "megatron", NULL};
	autosize_request r;
	autosize_plan plan;
	autosize_error e;

	req(&r, o);
	assert_int_equal(autosize_plan_compute(bare, &r, &plan, &e),
			 AUTOSIZE_OK);
	assert_true(plan.gpu_hours < 260e3);
	assert_false(rank_exotic(r.model.layers, plan.pp, plan.vp));
}

/* A cost tie goes to one job over a chain, across partitions too:
 * testbed's small (12 h) and gpu (2 days) both run 8B x 5B under
 * DeepSpeed on 4 GPUs (424 USD, 2 jobs on gpu) or 8 (422 USD): 8 GPUs in
 * one job on gpu. */
static void test_cost_tie_fewer_jobs(void **state)
{
	const char *const o[] = {"model", "llama-3-8b", "train-tokens", "5B",
				 "train-framework", "deepspeed", "partition",
				 "small,gpu", NULL};
	autosize_policy *tb;
	autosize_request r;
	autosize_plan plan;
	autosize_error e;

	tb = autosize_policy_load("contrib/testbed/autosize.yaml", &e);
	assert_non_null(tb);
	req(&r, o);
	assert_int_equal(autosize_plan_compute(tb, &r, &plan, &e),
			 AUTOSIZE_OK);
	assert_string_equal(plan.part.name, "gpu");
	assert_int_equal(plan.chained_jobs, 1);
	assert_int_equal(plan.gpus, 8);
	autosize_policy_destroy(tb);
}

/* A deadline met by the prediction but not by the interval's upper end
 * says the odds: 70B x 2T on MI300X in 30 days predicts ~700 h against
 * 720 h, likely up to ~1,000 h. */
static void test_deadline_odds(void **state)
{
	const char *const o[] = {"model", "llama-3-70b", "gpu", "mi300x",
				 "train-tokens", "2T", "train-time", "30d",
				 NULL};
	autosize_request r;
	autosize_plan plan;
	autosize_error e;
	int i;

	req(&r, o);
	assert_int_equal(autosize_plan_compute(bare, &r, &plan, &e),
			 AUTOSIZE_OK);
	assert_true(plan.train_hours <= 720 && plan.train_hours_high > 720);
	assert_true(contains_warning(&plan, "chance of finishing later"));
	/* and the utilization warning never reads "35% ... below 35%" */
	for (i = 0; i < plan.n_warnings; i++)
		assert_null(strstr(plan.warnings[i], "35% of peak is below "
					"35%"));
	/* a short deadline reads in minutes, not "0.0208 days" */
	{
		const char *const o2[] = {"model-params", "8e9", "gpu", "h100",
					  "train-tokens", "20B", "train-time",
					  "30", NULL};

		req(&r, o2);
		assert_true(autosize_plan_compute(bare, &r, &plan, &e) !=
			    AUTOSIZE_EINVAL);
		assert_true(contains_warning(&plan, "deadline 30 min"));
		for (i = 0; i < plan.n_warnings; i++)
			assert_null(strstr(plan.warnings[i], "0.0208"));
	}
}

/* DeepSpeed-MoE splits the data-parallel ranks into expert groups: EP
 * divides DP (Mixtral-8x22B on 96 GPUs took DP 6 with EP 8). */
static void test_deepspeed_ep_in_dp(void **state)
{
	static const char *const gpus[] = {"80", "96", "160", "320"};
	autosize_request r;
	autosize_plan plan;
	autosize_error e;
	size_t i;

	for (i = 0; i < sizeof(gpus) / sizeof(gpus[0]); i++) {
		const char *const o[] = {"model", "mixtral-8x22b",
					 "train-framework", "deepspeed", "gpu",
					 "h100", "train-tokens", "100B",
					 "gpus", gpus[i], NULL};

		req(&r, o);
		assert_int_equal(autosize_plan_compute(bare, &r, &plan, &e),
				 AUTOSIZE_OK);
		if (plan.ep > 1 && plan.dp % plan.ep)
			fail_msg("%s GPUs: EP %d does not divide DP %d",
				 gpus[i], plan.ep, plan.dp);
	}
}

/* A model nothing holds shows its closest miss with TP inside a node
 * (1e15 parameters showed TP 512 across 8-GPU nodes), its size in
 * plain digits. */
static void test_unfit_miss_in_node(void **state)
{
	const char *const o[] = {"model-params", "1e15", "gpu", "h100", NULL};
	autosize_request r;
	autosize_plan plan;
	autosize_error e;
	char rep[4096];

	req(&r, o);
	assert_int_equal(autosize_plan_compute(bare, &r, &plan, &e),
			 AUTOSIZE_ENOFIT);
	assert_true(plan.tp >= 1 && plan.tp <= plan.gpus_per_node);
	assert_true(autosize_launch_report(&r, &plan, rep, sizeof(rep)) > 0);
	assert_non_null(strstr(rep, "1000T params"));
}

/* A multimodal config's vision tower is named in a warning, on the
 * submit host and after AUTOSIZE_MODEL carried the model to slurmctld. */
static void test_vision_tower_warned(void **state)
{
	const char *const o[] = {"model", "tests/data/configs/gemma-3-4b-it.json",
				 "gpu", "h100", "train-tokens", "1B", NULL};
	autosize_request r;
	autosize_plan plan;
	autosize_model back;
	autosize_error e;
	char line[1024];

	req(&r, o);
	assert_int_equal(r.model.vision_ignored, 1);
	assert_int_equal(autosize_plan_compute(bare, &r, &plan, &e),
			 AUTOSIZE_OK);
	assert_true(contains_warning(&plan, "vision tower"));
	assert_true(autosize_model_encode(&r.model, line, sizeof(line)) > 0);
	assert_int_equal(autosize_model_decode(line, &back, &e), AUTOSIZE_OK);
	assert_int_equal(back.vision_ignored, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_search_vs_exhaustive),
		cmocka_unit_test(test_ethernet_collapse),
		cmocka_unit_test(test_dp_per_rail),
		cmocka_unit_test(test_gb200_domain),
		cmocka_unit_test(test_deadline_drives_size),
		cmocka_unit_test(test_solo_zero_stages),
		cmocka_unit_test(test_fsdp_selective_searched),
		cmocka_unit_test(test_max_time_chained),
		cmocka_unit_test(test_partition_choice),
		cmocka_unit_test(test_unfit_advice),
		cmocka_unit_test(test_fixed_and_pinned),
		cmocka_unit_test(test_memory_reserve_holds),
		cmocka_unit_test(test_global_batch),
		cmocka_unit_test(test_precision_advice),
		cmocka_unit_test(test_tp_pin_checked),
		cmocka_unit_test(test_megatron_split_exists),
		cmocka_unit_test(test_megatron_head_split),
		cmocka_unit_test(test_horizon),
		cmocka_unit_test(test_max_train_time),
		cmocka_unit_test_setup_teardown(test_no_gpus_past_scaling, steps_only_setup,
						steps_only_teardown),
		cmocka_unit_test(test_goodput),
		cmocka_unit_test(test_whole_run),
		cmocka_unit_test(test_lora_plans),
		cmocka_unit_test(test_batch_starved_pipeline),
		cmocka_unit_test(test_cost_monotone_in_deadline),
		cmocka_unit_test_setup_teardown(test_cheapest_past_smallest, steps_only_setup,
						steps_only_teardown),
		cmocka_unit_test_setup_teardown(test_cost_tie_fewer_jobs, steps_only_setup,
						steps_only_teardown),
		cmocka_unit_test(test_deadline_odds),
		cmocka_unit_test(test_deepspeed_ep_in_dp),
		cmocka_unit_test(test_unfit_miss_in_node),
		cmocka_unit_test(test_vision_tower_warned),
		cmocka_unit_test(test_gpus_per_node_priced),
	};

	return cmocka_run_group_tests_name("search", tests, setup, teardown);
}
