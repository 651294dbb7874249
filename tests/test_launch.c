/*
 * Unit tests of core/launch.c: plan summary, launcher arguments, the
 * DeepSpeed JSON and the first host of a Slurm node list.
 */
#include <ctype.h>
#include "testutil.h"
#include "autosize.h"
#include "catalog_fixture.h"

/* 70B on 2 x 8 H100: TP 8, PP 2, ZeRO-1, full recompute. */
static void plan_70b(autosize_plan *p, autosize_request *r)
{
	autosize_request_init(r);
	r->model.layers = 80;
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
			    "megatron, ZeRO-1, recompute full, micro-batch 1, grad "
			    "accum 1024, global batch 1024 x 4096 tokens, MFU "
			    "31.7%, 24.9 h, time limit 1-04:36:00");
	plan_8b(&p, &r);
	assert_true(autosize_launch_summary(&p, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "1 node x 8 H100-SXM5-80GB, TP 1 PP 1 DP 8, "
			    "megatron, ZeRO-0, recompute none, micro-batch 2, grad "
			    "accum 64, global batch 1024 x 4096 tokens");
	/* one GPU reads as one */
	{
		char rep[4096];

		p.gpus = p.gpus_per_node = 1;
		p.gpus_min = 1;
		assert_true(autosize_launch_report(&r, &p, rep,
						   sizeof(rep)) > 0);
		assert_non_null(strstr(rep, "1 node x 1 GPU = 1 GPU (least "
				       "that could do: 1 GPU,"));
		p.gpus = p.gpus_per_node = 8;
		assert_true(autosize_launch_summary(&p, buf,
						    sizeof(buf)) > 0);
	}
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
	assert_true(autosize_launch_torchrun_args(&p, "gpu07", 29612, "1234-0",
						  buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "--nnodes=2 --nproc_per_node=8 "
			    "--rdzv_backend=c10d --rdzv_endpoint=gpu07:29612 "
			    "--rdzv_id=1234-0");
	/* A plan not yet running: the words the job fills in. */
	assert_true(autosize_launch_torchrun_args(&p, NULL, 0, NULL, buf,
						  sizeof(buf)) > 0);
	assert_string_equal(buf, "--nnodes=2 --nproc_per_node=8 "
			    "--rdzv_backend=c10d "
			    "--rdzv_endpoint=FIRST_NODE:PORT --rdzv_id=RUN_ID");
	/* Several nodes need a host with a port; shell-unsafe names are
	 * refused; a port goes with a run id. */
	assert_int_equal(autosize_launch_torchrun_args(&p, NULL, 29500, "1-0",
						       buf, sizeof(buf)), -1);
	assert_int_equal(autosize_launch_torchrun_args(&p, "a;rm -rf", 29500,
						       "1-0", buf,
						       sizeof(buf)), -1);
	assert_int_equal(autosize_launch_torchrun_args(&p, "gpu07", 29500,
						       NULL, buf,
						       sizeof(buf)), -1);
	assert_int_equal(autosize_launch_torchrun_args(&p, "gpu07", 70000,
						       "1-0", buf,
						       sizeof(buf)), -1);
	/* One node: a store on the node itself, on the step's port (not
	 * --standalone's fixed 29400). */
	plan_8b(&p, &r);
	assert_true(autosize_launch_torchrun_args(&p, NULL, 29501, "7-batch",
						  buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "--nnodes=1 --nproc_per_node=8 "
			    "--rdzv_backend=c10d "
			    "--rdzv_endpoint=localhost:29501 "
			    "--rdzv_id=7-batch");
}

static void test_rdzv_port(void **state)
{
	unsigned long job, step;
	int seen[AUTOSIZE_LAUNCH_PORT_SLOTS], port, i;

	/* the batch step and numbered steps of one job: all different */
	for (job = 1; job < 3000; job += 37) {
		memset(seen, 0, sizeof(seen));
		port = autosize_launch_rdzv_port(job,
						 AUTOSIZE_LAUNCH_STEP_BATCH);
		seen[(port - AUTOSIZE_LAUNCH_PORT_BASE) %
		     AUTOSIZE_LAUNCH_PORT_SLOTS] = 1;
		for (step = 0; step < AUTOSIZE_LAUNCH_PORT_SLOTS - 1; step++) {
			port = autosize_launch_rdzv_port(job, step);
			assert_true(port >= 29500 && port < 32768);
			i = (port - AUTOSIZE_LAUNCH_PORT_BASE) %
			    AUTOSIZE_LAUNCH_PORT_SLOTS;
			assert_false(seen[i]);
			seen[i] = 1;
		}
		/* neighbouring jobs on the same first node differ */
		assert_int_not_equal(autosize_launch_rdzv_port(job, 0),
				     autosize_launch_rdzv_port(job + 1, 0));
	}
	assert_int_equal(autosize_launch_rdzv_port(0,
						   AUTOSIZE_LAUNCH_STEP_BATCH),
			 29500);
	assert_int_equal(autosize_launch_rdzv_port(4294967295UL, 4294967294UL),
			 29500 + 255 * 8);
	assert_int_equal(autosize_launch_rdzv_port(5, 0),
			 autosize_launch_rdzv_port(5 + 256, 0));
}

static void test_megatron(void **state)
{
	autosize_plan p;
	autosize_request r;
	char buf[512];

	plan_70b(&p, &r);
	assert_true(autosize_launch_megatron_args(&r, &p, buf,
						  sizeof(buf)) > 0);
	assert_string_equal(buf, "--tensor-model-parallel-size 8 "
			    "--pipeline-model-parallel-size 2 "
			    "--micro-batch-size 1 --global-batch-size 1024 "
			    "--seq-length 4096 --sequence-parallel "
			    "--use-distributed-optimizer "
			    "--tp-comm-overlap "
			    "--recompute-granularity full "
			    "--recompute-method uniform "
			    "--recompute-num-layers 1 --bf16");
	/* partial: the block method, the layers per virtual stage */
	p.recompute_layers = 8;
	p.vp = 2;
	assert_true(autosize_launch_megatron_args(&r, &p, buf,
						  sizeof(buf)) > 0);
	assert_non_null(strstr(buf, " --recompute-granularity full "
			       "--recompute-method block "
			       "--recompute-num-layers 4 "));
	p.recompute_layers = 0;
	p.vp = 1;
	p.recompute = AUTOSIZE_RECOMPUTE_SELECTIVE_MLP;
	assert_true(autosize_launch_megatron_args(&r, &p, buf,
						  sizeof(buf)) > 0);
	assert_non_null(strstr(buf, " --recompute-granularity selective "
			       "--recompute-modules core_attn mlp "));
	r.sequence_parallel = 0;
	p.recompute = AUTOSIZE_RECOMPUTE_SELECTIVE;
	r.precision = AUTOSIZE_PREC_FP8;
	assert_true(autosize_launch_megatron_args(&r, &p, buf,
						  sizeof(buf)) > 0);
	assert_string_equal(buf, "--tensor-model-parallel-size 8 "
			    "--pipeline-model-parallel-size 2 "
			    "--micro-batch-size 1 --global-batch-size 1024 "
			    "--seq-length 4096 --use-distributed-optimizer "
			    "--recompute-granularity selective --bf16 "
			    "--fp8-format hybrid --fp8-param-gather");
	/* without the distributed optimizer Megatron refuses FP8
	 * parameters: 16-bit ones, TE's FP8 copies beside (memory.c) */
	p.zero_stage = 0;
	assert_true(autosize_launch_megatron_args(&r, &p, buf,
						  sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "--fp8-format hybrid"));
	assert_null(strstr(buf, "param-gather"));
	r.precision = AUTOSIZE_PREC_NVFP4;
	p.zero_stage = 1;
	assert_true(autosize_launch_megatron_args(&r, &p, buf,
						  sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "--fp4-format e2m1 --fp4-param-gather"));
	plan_8b(&p, &r);
	assert_true(autosize_launch_megatron_args(&r, &p, buf,
						  sizeof(buf)) > 0);
	assert_string_equal(buf, "--tensor-model-parallel-size 1 "
			    "--pipeline-model-parallel-size 1 "
			    "--micro-batch-size 2 --global-batch-size 1024 "
			    "--seq-length 4096 --overlap-grad-reduce --fp16");
	/* what the step time prices (perf.c) is what Megatron runs: the
	 * sharded optimizer's gather under the forward too */
	p.zero_stage = 1;
	assert_true(autosize_launch_megatron_args(&r, &p, buf,
						  sizeof(buf)) > 0);
	assert_non_null(strstr(buf, " --use-distributed-optimizer "
			       "--overlap-grad-reduce "
			       "--overlap-param-gather "));
}

/*
 * Megatron-LM's rules for the layers on each stage, written from its
 * TransformerConfig checks (uneven pipelines) and arguments.py
 * (even ones): 1 when args describe a split Megatron accepts for layers
 * on pp stages with vp virtual stages, no stage above ceil(layers / pp).
 */
static int split_exists(int layers, int pp, int vp);

/* The same for --pipeline-model-parallel-layout (Megatron-Core's
 * pipeline_parallel_layout.md): pp x vp segments split by '|', E first,
 * L last, every layer once, at least one per virtual stage, no rank
 * above ceil(layers / pp), and only where the classic arguments cannot
 * split them. */
static int layout_accepts(const char *args, int layers, int pp, int vp)
{
	const char *s = strstr(args, "--pipeline-model-parallel-layout ");
	int most = (layers + pp - 1) / pp, seg = 0, n = 0, total = 0, r;
	int rank[1024] = {0};

	if (!s || pp > 1024 || split_exists(layers, pp, vp))
		return 0;
	s += strlen("--pipeline-model-parallel-layout ");
	if (*s != 'E' || strstr(s, "--num-virtual") ||
	    strstr(s, "--decoder-first"))
		return 0;
	for (s++;; s++) {
		if (*s == 't') {
			n++;
		} else if (*s == '|' || *s == 'L' || *s == ' ' || !*s) {
			if (*s == '|' || *s == 'L') {
				if (n < 1)
					return 0;
				rank[seg % pp] += n;
				total += n;
				seg++;
				n = 0;
			}
			if (*s == 'L') {
				s++;
				break;
			}
			if (*s != '|')
				return 0;
		} else {
			return 0;
		}
	}
	if ((*s != ' ' && *s) || seg != pp * vp || total != layers)
		return 0;
	for (r = 0; r < pp; r++)
		if (rank[r] > most)
			return 0;
	return 1;
}

static int megatron_accepts(const char *args, int layers, int pp, int vp)
{
	int first = arg_value(args, "--decoder-first-pipeline-num-layers");
	int last = arg_value(args, "--decoder-last-pipeline-num-layers");
	int per_vs = arg_value(args, "--num-layers-per-virtual-pipeline-stage");
	int vs = arg_value(args, "--num-virtual-stages-per-pipeline-rank");
	int most = (layers + pp - 1) / pp, middle_layers, middle_stages;

	if (strstr(args, "--pipeline-model-parallel-layout "))
		return layout_accepts(args, layers, pp, vp);
	if (first < 0 && last < 0) {
		if (layers % pp)
			return 0;
		if (vp > 1)
			return vs < 0 && per_vs > 0 &&
			       (layers / pp) % per_vs == 0 &&
			       layers / pp / per_vs == vp;
		return vs < 0 && per_vs < 0;
	}
	/* uneven: the layers-per-virtual-stage form is refused */
	if (first < 1 || last < 1 || per_vs >= 0 || first > most ||
	    last > most)
		return 0;
	if (vp > 1 && (vs != vp || first % vp || last % vp))
		return 0;
	if (vp == 1 && vs >= 0)
		return 0;
	middle_layers = layers - first - last;
	middle_stages = pp - 2;
	if ((middle_layers != 0) != (middle_stages != 0))
		return 0;
	if (middle_stages && (middle_layers % middle_stages ||
			      middle_layers / middle_stages > most ||
			      (middle_layers / middle_stages) % vp))
		return 0;
	return 1;
}

/* 1 when some split of layers over pp stages x vp obeys Megatron's rules
 * with no stage above ceil(layers / pp) (by trying them all). */
static int split_exists(int layers, int pp, int vp)
{
	int most = (layers + pp - 1) / pp, m, f, l;

	if (layers % pp == 0 && (layers / pp) % vp == 0)
		return 1;
	for (m = pp > 2 ? vp : 0; m <= (pp > 2 ? most : 0); m += vp ? vp : 1)
		for (f = vp; f <= most; f += vp) {
			l = layers - (pp - 2) * m - f;
			if (l >= vp && l <= most && l % vp == 0)
				return 1;
		}
	return 0;
}

static void test_megatron_uneven(void **state)
{
	autosize_plan p;
	autosize_request r;
	autosize_launch l;
	char buf[512];
	int layers, pp, vp, made = 0, refused = 0;

	/* 80 layers on 12 stages: 5 + 10 x 7 + 5 */
	plan_70b(&p, &r);
	p.pp = 12;
	p.recompute = AUTOSIZE_RECOMPUTE_NONE;
	assert_true(autosize_launch_megatron_args(&r, &p, buf,
						  sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "--pipeline-model-parallel-size 12 "));
	assert_non_null(strstr(buf, " --decoder-first-pipeline-num-layers 5 "
			       "--decoder-last-pipeline-num-layers 5 "));
	/* Llama 3 405B: 126 layers on 16 stages */
	r.model.layers = 126;
	p.pp = 16;
	assert_true(autosize_launch_megatron_args(&r, &p, buf,
						  sizeof(buf)) > 0);
	assert_int_equal(arg_value(buf, "--decoder-first-pipeline-num-layers"),
			 7);
	assert_int_equal(arg_value(buf, "--decoder-last-pipeline-num-layers"),
			 7);
	/* and with 4 virtual stages (Meta interleaved them): 7 layers on
	 * the end stages fit no multiple of 4, so one custom layout */
	p.vp = 4;
	assert_true(autosize_launch_megatron_args(&r, &p, buf,
						  sizeof(buf)) > 0);
	assert_non_null(strstr(buf, " --pipeline-model-parallel-layout Et|tt|"));
	assert_non_null(strstr(buf, "|tt|tL"));
	assert_true(megatron_accepts(buf, 126, 16, 4));
	p.vp = 1;
	/* even with interleaving: layers per virtual stage */
	r.model.layers = 80;
	p.pp = 4;
	p.vp = 5;
	assert_true(autosize_launch_megatron_args(&r, &p, buf,
						  sizeof(buf)) > 0);
	assert_int_equal(arg_value(buf,
				   "--num-layers-per-virtual-pipeline-stage"),
			 4);
	assert_null(strstr(buf, "decoder-first"));
	/* 80 on 12 with 7 virtual stages: a rank of 6 layers cannot hold
	 * 7 virtual stages, no split Megatron accepts */
	p.pp = 12;
	p.vp = 7;
	assert_int_equal(autosize_launch_megatron_args(&r, &p, buf,
						       sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_string_equal(l.megatron, "");
	assert_non_null(strstr(l.note, "cannot split 80 layers over 12"));
	/* a stack with no public code (DeepSeek's): the Megatron line,
	 * and for a MoE model a note that Megatron-Core issues its experts
	 * as the stack priced does not; a dense model runs alike */
	p.pp = 4;
	p.vp = 5;
	snprintf(p.stack, sizeof(p.stack), "hai-llm");
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_non_null(strstr(l.megatron, "--pipeline-model-parallel-size 4"));
	assert_null(strstr(l.note, "hai-llm"));
	r.model.experts = 8;
	r.model.experts_active = 2;
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_non_null(strstr(l.note, "stack hai-llm is DeepSeek's own"));
	r.model.experts = 0;
	r.model.experts_active = 0;
	p.stack[0] = '\0';
	p.pp = 12;
	p.vp = 7;
	/* Every depth the search can pick (2 pp <= layers, vp dividing
	 * the busiest stage, as search.c): the arguments Megatron's rules
	 * accept, or none. */
	for (layers = 2; layers <= 130; layers++)
		for (pp = 2; 2 * pp <= layers; pp++)
			for (vp = 1; vp <= 4; vp++) {
				int most = (layers + pp - 1) / pp;

				if (most % vp)
					continue;
				r.model.layers = layers;
				p.pp = pp;
				p.vp = vp;
				assert_true(autosize_launch_megatron_args(
					&r, &p, buf, sizeof(buf)) >= 0);
				if (!buf[0]) {
					if (split_exists(layers, pp, vp))
						fail_msg("%d layers, pp %d, vp "
							 "%d: a split exists",
							 layers, pp, vp);
					refused++;
					continue;
				}
				made++;
				if (!megatron_accepts(buf, layers, pp, vp))
					fail_msg("%d layers, pp %d, vp %d: %s",
						 layers, pp, vp, buf);
			}
	/* none refused that exists; a custom layout splits most of what
	 * the classic arguments cannot, not a rank with fewer layers than
	 * virtual stages */
	assert_true(made > 3000 && refused > 0);
	r.model.layers = 97;
	p.pp = 7;
	p.vp = 1;
	assert_true(autosize_launch_megatron_args(&r, &p, buf,
						  sizeof(buf)) > 0);
}

/* Megatron's interleaved schedule (schedules.py) runs the m micro-batches
 * of a step in groups of g (--microbatch-group-size-per-virtual-pipeline-
 * stage, pp by default): pp <= g <= m, and m % g is 0 or at least pp. The
 * arguments ask for a group only where the default would be refused. */
static void test_megatron_vp_group(void **state)
{
	static const int pps[] = {2, 4, 5, 8};
	autosize_plan p;
	autosize_request r;
	char buf[512];
	int i, vp, m, g, grouped = 0;

	plan_70b(&p, &r);
	p.recompute = AUTOSIZE_RECOMPUTE_NONE;
	for (i = 0; i < 4; i++)
		for (vp = 2; vp <= 4; vp += 2)
			for (m = pps[i]; m <= 3 * pps[i] + 3; m++) {
				if (80 / pps[i] % vp)
					continue;
				p.pp = pps[i];
				p.vp = vp;
				p.grad_accum = p.global_batch = m;
				assert_true(autosize_launch_megatron_args(
					&r, &p, buf, sizeof(buf)) > 0);
				g = arg_value(buf, "--microbatch-group-size-"
					      "per-virtual-pipeline-stage");
				if (m % p.pp == 0)
					assert_int_equal(g, -1);
				if (g < 0)
					g = p.pp;
				else
					grouped++;
				if (g < p.pp || g > m ||
				    (m % g != 0 && m % g < p.pp))
					fail_msg("pp %d vp %d, %d micro-batches: "
						 "%s", p.pp, vp, m, buf);
			}
	assert_true(grouped > 20);
	/* 6 micro-batches on 4 stages: only all six at once */
	p.pp = 4;
	p.vp = 5;
	p.grad_accum = p.global_batch = 6;
	assert_true(autosize_launch_megatron_args(&r, &p, buf,
						  sizeof(buf)) > 0);
	assert_int_equal(arg_value(buf, "--microbatch-group-size-per-"
				   "virtual-pipeline-stage"), 6);
}

/* Megatron's pipeline and expert arguments for uneven and interleaved
 * splits (Megatron's own parser and validate_args read them back in
 * test_launch_parsers). */
static void test_megatron_splits(void **state)
{
	autosize_plan p;
	autosize_request r;
	char buf[1024];

	plan_70b(&p, &r);
	p.cp = 2;
	p.ep = 8;
	p.dp = 2;
	p.pp = 12;
	assert_true(autosize_launch_megatron_args(&r, &p, buf,
						  sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "--expert-tensor-parallel-size 1"));
	assert_non_null(strstr(buf, "--decoder-last-pipeline-num-layers"));
	p.pp = 4;
	p.vp = 2;
	r.precision = AUTOSIZE_PREC_FP8;
	p.recompute = AUTOSIZE_RECOMPUTE_SELECTIVE;
	assert_true(autosize_launch_megatron_args(&r, &p, buf,
						  sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "--num-layers-per-virtual-pipeline"));
	p.pp = 12;
	p.vp = 1;
	r.model.layers = 60;  /* 60 on 12 x 1: even */
	p.vp = 1;
	r.precision = AUTOSIZE_PREC_FP16;
	assert_true(autosize_launch_megatron_args(&r, &p, buf,
						  sizeof(buf)) > 0);
	r.model.layers = 70;  /* uneven with 2 virtual stages */
	p.vp = 2;
	assert_true(autosize_launch_megatron_args(&r, &p, buf,
						  sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "--num-virtual-stages-per-pipeline-rank"));
}

/*
 * torchrun's own parser (torch.distributed.run.parse_args and
 * config_from_args), where torch is installed (Debian: python3-torch):
 * the nodes, processes per node, backend, endpoint and run id it reads
 * from our arguments.
 */
static void test_torchrun_parser(void **state)
{
	static const char *script =
		"import sys\n"
		"import torch.distributed.run as run\n"
		"args = run.parse_args(sys.argv[1].split() + ['train.py'])\n"
		"cfg, _, _ = run.config_from_args(args)\n"
		"print(cfg.min_nodes, cfg.max_nodes, cfg.nproc_per_node,\n"
		"      cfg.rdzv_backend, cfg.rdzv_endpoint, cfg.run_id)\n";
	const char *python = "/usr/bin/python3";
	autosize_plan p;
	autosize_request r;
	char args[256], cmd[1024], out[256], path[256];
	FILE *f;
	size_t i;
	static const struct {
		int nodes;
		const char *host, *want;
	} cases[] = {
		{2, "gpu07", "2 2 8 c10d gpu07:29612 1234-0\n"},
		{1, NULL, "1 1 8 c10d localhost:29612 1234-0\n"},
		{16, "rack2n01", "16 16 8 c10d rack2n01:29612 1234-0\n"},
	};

	if (system("/usr/bin/python3 -c 'import torch.distributed.run' "
		   ">/dev/null 2>&1") != 0) {
		print_message("torchrun not installed (apt-get install "
			      "python3-torch): its parser is not tried\n");
		skip();
	}
	assert_non_null(test_write_tmp(path, sizeof(path), script));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		plan_70b(&p, &r);
		p.nodes = cases[i].nodes;
		assert_true(autosize_launch_torchrun_args(&p, cases[i].host,
							  29612, "1234-0",
							  args,
							  sizeof(args)) > 0);
		snprintf(cmd, sizeof(cmd), "%s %s '%s' 2>/dev/null", python,
			 path, args);
		f = popen(cmd, "r");
		assert_non_null(f);
		out[0] = '\0';
		if (!fgets(out, sizeof(out), f))
			out[0] = '\0';
		pclose(f);
		assert_string_equal(out, cases[i].want);
	}
	unlink(path);
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
	assert_true(autosize_launch_deepspeed_json(&r, &p, buf,
						   sizeof(buf)) > 0);
	assert_true(json_valid(buf));
	assert_string_equal(buf,
			    "{\n"
			    "  \"train_batch_size\": 1024,\n"
			    "  \"train_micro_batch_size_per_gpu\": 1,\n"
			    "  \"gradient_accumulation_steps\": 1024,\n"
			    "  \"gradient_clipping\": 1.0,\n"
			    "  \"zero_optimization\": {\n"
			    "    \"stage\": 1,\n"
			    "    \"overlap_comm\": true\n"
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
	assert_true(autosize_launch_deepspeed_json(&r, &p, buf,
						   sizeof(buf)) > 0);
	assert_true(json_valid(buf));
	assert_non_null(strstr(buf, "\"train_micro_batch_size_per_gpu\": 2,"));
	assert_non_null(strstr(buf, "\"fp16\": {\n    \"enabled\": true"));
	assert_null(strstr(buf, "activation_checkpointing"));
	assert_int_equal(autosize_launch_deepspeed_json(&r, &p, buf, 64), -1);
	/* train_batch_size = micro batch x accumulation x DP (DeepSpeed's
	 * batch assertion): a plan breaking it gets no configuration. */
	p.global_batch = 1035;
	assert_int_equal(autosize_launch_deepspeed_json(&r, &p, buf,
							sizeof(buf)), -1);
	assert_string_equal(buf, "");
}

/* The offloads, inside zero_optimization (DeepSpeed's own config models
 * read them back in test_launch_parsers). */
static void test_deepspeed_offload(void **state)
{
	autosize_plan p;
	autosize_request r;
	char buf[2048];

	plan_8b(&p, &r);
	p.zero_stage = 3;
	r.param_offload = 1;
	assert_true(autosize_launch_deepspeed_json(&r, &p, buf,
						   sizeof(buf)) > 0);
	assert_true(json_valid(buf));
	assert_non_null(strstr(buf, "\"offload_param\": {\n"
			       "      \"device\": \"cpu\""));
	assert_non_null(strstr(buf, "\"offload_optimizer\": {\n"
			       "      \"device\": \"cpu\""));
	/* the optimizer alone at ZeRO-2; parameters only leave ZeRO-3 */
	p.zero_stage = 2;
	r.param_offload = 0;
	r.opt_offload = 1;
	assert_true(autosize_launch_deepspeed_json(&r, &p, buf,
						   sizeof(buf)) > 0);
	assert_true(json_valid(buf));
	assert_null(strstr(buf, "offload_param"));
	assert_non_null(strstr(buf, "offload_optimizer"));
	r.opt_offload = 0;
	assert_true(autosize_launch_deepspeed_json(&r, &p, buf,
						   sizeof(buf)) > 0);
	assert_null(strstr(buf, "offload"));
}

/* What the tasks get, as one set: torchrun always, Megatron for a
 * Megatron plan, DeepSpeed for a DeepSpeed plan; JSON with nulls. */
static void test_build(void **state)
{
	autosize_launch_where w = {"gpu07", 29612, "1234-0", 0, NULL, NULL};
	autosize_plan p;
	autosize_request r;
	autosize_launch l;
	char buf[4096];

	plan_70b(&p, &r);
	p.framework = AUTOSIZE_FRAMEWORK_MEGATRON;
	assert_int_equal(autosize_launch_build(&r, &p, &w, &l), 0);
	assert_non_null(strstr(l.torchrun, "gpu07:29612"));
	assert_true(strncmp(l.megatron, "--tensor-model-parallel-size 8", 30)
		    == 0);
	assert_string_equal(l.deepspeed, "");
	assert_true(autosize_launch_to_json(&l, buf, sizeof(buf)) > 0);
	assert_true(json_valid(buf));
	assert_non_null(strstr(buf, "\"deepspeed\":null"));
	assert_non_null(strstr(buf, "\"torchrun\":\"--nnodes=2 "));
	/* DeepSpeed: its configuration, no Megatron arguments */
	p.framework = AUTOSIZE_FRAMEWORK_DEEPSPEED;
	assert_int_equal(autosize_launch_build(&r, &p, &w, &l), 0);
	assert_string_equal(l.megatron, "");
	assert_non_null(strstr(l.deepspeed, "\"train_batch_size\": 1024"));
	assert_true(autosize_launch_to_json(&l, buf, sizeof(buf)) > 0);
	assert_true(json_valid(buf));
	assert_non_null(strstr(buf, "\"megatron\":null"));
	assert_non_null(strstr(buf, "\"deepspeed\":{\"train_batch_size\": "
			       "1024,"));
	/* FSDP: torchrun only */
	p.framework = AUTOSIZE_FRAMEWORK_FSDP;
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_string_equal(l.megatron, "");
	assert_string_equal(l.deepspeed, "");
	assert_non_null(strstr(l.torchrun, "FIRST_NODE:PORT"));
	/* a batch DeepSpeed refuses: said, not written */
	p.framework = AUTOSIZE_FRAMEWORK_DEEPSPEED;
	p.grad_accum = 1000;
	assert_int_equal(autosize_launch_build(&r, &p, &w, &l), 0);
	assert_string_equal(l.deepspeed, "");
	assert_non_null(strstr(l.note, "train_batch_size 1024 is not"));
	assert_int_equal(autosize_launch_to_json(&l, buf, 40), -1);
}

static void test_count(void **state)
{
	static const struct {
		double v;
		const char *text;
	} cases[] = {
		{70.56e9, "70.6B"}, {2e12, "2T"}, {405e9, "405B"},
		{1.5e6, "1.5M"}, {950, "950"}, {999.9e9, "1T"},
		{7.06e10, "70.6B"}, {15.6e12, "15.6T"}, {0, "0"},
	};
	char buf[16];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(autosize_launch_count(cases[i].v, buf,
							  sizeof(buf)),
				    cases[i].text);
}

static void test_report(void **state)
{
	autosize_plan p;
	autosize_request r;
	char buf[4096];

	plan_70b(&p, &r);
	autosize_plan_warn(&p, "something to know");
	assert_true(autosize_launch_report(&r, &p, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "  size       2 nodes x 8 GPUs = 16 GPUs "
			       "(least that could do: "));
	assert_non_null(strstr(buf, "  layout     TP 8 x PP 2 x DP 1, ZeRO-1"));
	assert_non_null(strstr(buf, "  time       24.9 h predicted; time "
			       "limit 1-04:36:00"));
	assert_non_null(strstr(buf, "\n  warning    something to know\n"));
	/* counts as people write them */
	p.params = 70.56e9;
	p.params_active = p.params;
	p.tokens = 2e12;
	assert_true(autosize_launch_report(&r, &p, buf, sizeof(buf)) > 0);
	assert_true(strncmp(buf, "model (70.6B params) x 2T tokens on ", 36)
		    == 0);
	/* a sliding window shorter than the sequence is said; one as
	 * long is none */
	r.model.attn_window = 1024;
	r.model.window_layers = 52;
	r.model.layers = 62;
	p.seq_len = 8192;
	assert_true(autosize_launch_report(&r, &p, buf, sizeof(buf)) > 0);
	assert_true(strncmp(buf, "model (70.6B params, a 1024-token window "
			    "on 52 of 62 layers) x 2T tokens on ", 70) == 0);
	p.seq_len = 1024;
	assert_true(autosize_launch_report(&r, &p, buf, sizeof(buf)) > 0);
	assert_true(strncmp(buf, "model (70.6B params) x 2T", 25) == 0);
	/* so are chunks (Llama 4) */
	r.model.attn_window = 0;
	r.model.attn_chunk = 8192;
	r.model.window_layers = 36;
	r.model.layers = 48;
	p.seq_len = 32768;
	assert_true(autosize_launch_report(&r, &p, buf, sizeof(buf)) > 0);
	assert_true(strncmp(buf, "model (70.6B params, 8192-token chunks "
			    "on 36 of 48 layers) x 2T tokens on ", 69) == 0);
	r.model.attn_chunk = 0;
	r.model.window_layers = 0;
	r.model.layers = 80;
	assert_null(strstr(buf, "e+"));
	assert_null(strstr(buf, "NOT FEASIBLE"));
	assert_null(strstr(buf, "\n  checkpoint "));
	/* what the CLI showed alone before: the price schedule's doing,
	 * the checkpoints, the calibration */
	p.cost = 100;
	snprintf(p.part.currency, sizeof(p.part.currency), "USD");
	p.price.total = 100;
	p.price.list = 120;
	p.price.fee = 5;
	p.ckpt.bytes = 988e9;
	p.ckpt.shard_bytes = 1e9;
	p.ckpt.bytes_per_param = 14;
	p.ckpt.trained_params = p.params;
	p.ckpt.interval_s = 3600;
	p.ckpt.need_write_gbs = 5.5;
	p.ckpt.keep = 3;
	p.ckpt.storage_bytes = 3e12;
	p.calibration.applied = 1;
	p.calibration.jobs = 12;
	p.calibration.users = 3;
	p.calibration.speed_factor = 0.9;
	snprintf(p.calibration.regime, sizeof(p.calibration.regime), "x");
	p.train_hours_low = 20;
	p.train_hours_high = 30;
	assert_true(autosize_launch_report(&r, &p, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "\n  cost       "));
	assert_non_null(strstr(buf, ", 100.00 USD; platform fee 5.00 (120.00 "
			       "at the plain price)\n"));
	assert_non_null(strstr(buf, "\n  checkpoint 988 GB each (14 bytes "
			       "per parameter, "));
	assert_non_null(strstr(buf, "; keep 3: 3.0 TB\n"));
	assert_non_null(strstr(buf, "likely 20.0-30.0 h (12 finished jobs"));
	assert_non_null(strstr(buf, "\n  calibrated speed x 0.90 "));
	p.feasible = 0;
	snprintf(p.reason, sizeof(p.reason), "too big");
	assert_true(autosize_launch_report(&r, &p, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "  NOT FEASIBLE: too big\n"));
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
	assert_true(autosize_launch_megatron_args(&r, &p, buf,
						  sizeof(buf)) > 0);
	snprintf(want, sizeof(want), "--tensor-model-parallel-size %d ",
		 p.tp);
	assert_true(strncmp(buf, want, strlen(want)) == 0);
	assert_true(autosize_launch_deepspeed_json(&r, &p, buf,
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

/* Plans of long sequences and MoE: every degree reaches the tasks and
 * every line that shows the layout, and their product is the GPUs (8B
 * at 128k under FSDP took CP 8 on 24 GPUs, shown and exported as DP 3
 * alone; Qwen-style MoE at 32k showed CP and EP only to Megatron). */
static void test_every_degree(void **state)
{
	static const char *const reqs[][10] = {
		{"model", "llama-3-8b", "train-seq-len", "128k",
		 "train-framework", "fsdp", "train-tokens", "2B", NULL},
		{"model", "mixtral-8x7b", "train-seq-len", "32k",
		 "train-framework", "megatron", "train-tokens", "20B", NULL},
		{"model", "mixtral-8x7b", "train-seq-len", "32k",
		 "train-framework", "fsdp", "train-tokens", "20B", NULL},
	};
	autosize_policy *pol;
	autosize_request r;
	autosize_plan p;
	autosize_launch l;
	autosize_error e;
	char line[512], rep[8192], want[32];
	size_t i;
	int j, seen_cp = 0, seen_ep = 0;

	pol = autosize_policy_default(&e);
	assert_non_null(pol);
	for (i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		autosize_request_init(&r);
		for (j = 0; reqs[i][j]; j += 2)
			assert_int_equal(autosize_request_set(&r, reqs[i][j],
					 reqs[i][j + 1], &e), 0);
		assert_int_equal(autosize_request_set(&r, "gpu", "h100", &e),
				 0);
		assert_int_equal(autosize_request_finish(&r, &e), 0);
		assert_int_equal(autosize_plan_compute(pol, &r, &p, &e),
				 AUTOSIZE_OK);
		assert_int_equal(p.tp * p.pp * p.dp * (p.cp > 1 ? p.cp : 1),
				 p.gpus);
		/* experts over DP x CP, or over TP x DP x CP with one
		 * expert TP rank (Megatron's parallel folding; torchtitan:
		 * "expert_parallel_degree must divide dp_shard * cp * tp") */
		assert_true(p.ep <= 1 || (p.tp * p.dp * (p.cp > 1 ? p.cp : 1)) %
			    p.ep == 0);
		seen_cp |= p.cp > 1;
		seen_ep |= p.ep > 1;
		assert_true(autosize_launch_summary(&p, line,
						    sizeof(line)) > 0);
		assert_true(autosize_launch_report(&r, &p, rep,
						   sizeof(rep)) > 0);
		if (p.cp > 1) {
			snprintf(want, sizeof(want), "CP %d", p.cp);
			assert_non_null(strstr(line, want));
			assert_non_null(strstr(rep, want));
		}
		if (p.ep > 1) {
			snprintf(want, sizeof(want), "EP %d", p.ep);
			assert_non_null(strstr(line, want));
			assert_non_null(strstr(rep, want));
		}
		assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
		if (p.framework != AUTOSIZE_FRAMEWORK_FSDP) {
			assert_string_equal(l.torchtitan, "");
			continue;
		}
		/* torchtitan's mesh: replicate x shard x CP x TP x PP */
		assert_int_equal(arg_value(l.torchtitan, "--parallelism."
			"data_parallel_replicate_degree") *
			arg_value(l.torchtitan, "--parallelism."
				  "data_parallel_shard_degree") *
			arg_value(l.torchtitan, "--parallelism."
				  "context_parallel_degree") *
			arg_value(l.torchtitan, "--parallelism."
				  "tensor_parallel_degree") *
			arg_value(l.torchtitan, "--parallelism."
				  "pipeline_parallel_degree"), p.gpus);
		assert_int_equal(arg_value(l.torchtitan, "--parallelism."
			"expert_parallel_degree"), p.ep > 1 ? p.ep : 1);
		assert_int_equal(arg_value(l.torchtitan,
			"--training.num_tokens_per_train_step"),
			p.global_batch * p.seq_len);
		assert_int_equal(arg_value(l.torchtitan_v1,
			"--training.global_batch_size"), p.global_batch);
	}
	assert_true(seen_cp);
	assert_true(seen_ep);
	autosize_policy_destroy(pol);
}

/* LoRA and QLoRA: a framework that trains adapters by default, and no
 * full-training line from a launcher that has none (Megatron-LM: a note
 * naming the recipes that run it; torchtitan has no QLoRA), no note
 * pointing at an empty variable. */
static void test_peft_launchers(void **state)
{
	static const char *const fws[] = {NULL, "megatron", "fsdp"};
	autosize_policy *pol;
	autosize_request r;
	autosize_plan p;
	autosize_launch l;
	autosize_error e;
	size_t i;

	pol = autosize_policy_default(&e);
	assert_non_null(pol);
	for (i = 0; i < sizeof(fws) / sizeof(fws[0]); i++) {
		autosize_request_init(&r);
		assert_int_equal(autosize_request_set(&r, "model",
						      "llama-3-70b", &e), 0);
		assert_int_equal(autosize_request_set(&r, "train-mode",
						      "qlora", &e), 0);
		assert_int_equal(autosize_request_set(&r, "train-tokens",
						      "100M", &e), 0);
		assert_int_equal(autosize_request_set(&r, "gpu", "h100", &e),
				 0);
		if (fws[i])
			assert_int_equal(autosize_request_set(&r,
					 "train-framework", fws[i], &e), 0);
		assert_int_equal(autosize_request_finish(&r, &e), 0);
		assert_int_equal(autosize_plan_compute(pol, &r, &p, &e),
				 AUTOSIZE_OK);
		if (!fws[i])
			assert_int_not_equal(p.framework,
					     AUTOSIZE_FRAMEWORK_MEGATRON);
		assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
		assert_string_equal(l.megatron, "");
		assert_string_equal(l.torchtitan, "");
		if (p.framework == AUTOSIZE_FRAMEWORK_MEGATRON) {
			assert_non_null(strstr(l.note, "no Megatron arguments "
					       "for qlora"));
			continue;
		}
		/* data parallel: the fine-tuning stacks run it, nothing
		 * to say */
		assert_non_null(strstr(l.accelerate, "--use_fsdp"));
		assert_string_equal(l.note, "");
	}
	autosize_policy_destroy(pol);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_every_degree),
		cmocka_unit_test(test_peft_launchers),
		cmocka_unit_test(test_torchrun),
		cmocka_unit_test(test_rdzv_port),
		cmocka_unit_test(test_torchrun_parser),
		cmocka_unit_test(test_megatron),
		cmocka_unit_test(test_megatron_uneven),
		cmocka_unit_test(test_megatron_vp_group),
		cmocka_unit_test(test_megatron_splits),
		cmocka_unit_test(test_json_checker),
		cmocka_unit_test(test_deepspeed),
		cmocka_unit_test(test_deepspeed_offload),
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_computed_plan),
		cmocka_unit_test(test_first_host),
	};

	return cmocka_run_group_tests(tests, catalog_setup,
				      catalog_teardown);
}
