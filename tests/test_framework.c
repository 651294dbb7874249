/*
 * Framework profiles (core/framework.c): the layouts each framework runs,
 * its bytes per parameter, and the option and policy key that state it.
 */
#include "testutil.h"
#include "autosize.h"
#include "catalog_fixture.h"
#include "framework_private.h"
#include "comm.h"
#include "planwarn.h"
#define PLANTEST_WHAT "test_framework"
#include "plantest.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static void job_for(sizing_job *job, autosize_model *m,
		    autosize_partition *part, autosize_framework f)
{
	const autosize_gpu *g = autosize_catalog_find(catalog, "h100");
	autosize_error e;

	assert_non_null(g);
	autosize_model_init(m);
	m->params = 8e9;
	assert_int_equal(autosize_model_synthesize(m, &e), 0);
	autosize_partition_reference(part, g, 8);
	memset(job, 0, sizeof(*job));
	job->model = m;
	job->part = part;
	job->framework = f;
	job->seq_len = 4096;
	job->global_batch = 256;
	job->flash_attention = 1;
	job->tokens = 1e9;
	job->peak_flops = autosize_gpu_peak_flops(g, AUTOSIZE_PREC_BF16);
	job->usable_bytes = g->mem_bytes * 0.8;
}

static sizing_layout shape(int tp, int pp, int dp, int zero)
{
	sizing_layout l = {tp, pp, dp, 1, zero, 1, 1, tp > 1,
			   AUTOSIZE_RECOMPUTE_FULL, 1, 1, 0, 0};

	return l;
}

static double states_per_param(const sizing_job *job,
			       const sizing_layout *l)
{
	autosize_memory mem;

	sizing_memory(job, l, &mem);
	return (mem.weights_bytes + mem.gradients_bytes +
		mem.optimizer_bytes) / sizing_params_per_gpu(job, l);
}

/* The frameworks a hint offers for what the job's framework lacks,
 * generated from the profiles: the refusals in search.c print these. */
static void test_offering(void **state)
{
	char b[64];

	(void)state;
	assert_string_equal(framework_offering(FRAMEWORK_CAP_CP, 0, b,
					       sizeof(b)),
			    "megatron, fsdp or deepspeed");
	assert_string_equal(framework_offering(FRAMEWORK_CAP_VP, 0, b,
					       sizeof(b)), "megatron or fsdp");
	assert_string_equal(framework_offering(FRAMEWORK_CAP_PARAM_OFFLOAD, 0,
					       b, sizeof(b)),
			    "fsdp or deepspeed");
	assert_string_equal(framework_offering(FRAMEWORK_CAP_ZERO, 1, b,
					       sizeof(b)),
			    "megatron or deepspeed");
	assert_string_equal(framework_offering(FRAMEWORK_CAP_ZERO, 2, b,
					       sizeof(b)), "fsdp or deepspeed");
	assert_string_equal(framework_offering(FRAMEWORK_CAP_ZERO, 3, b,
					       sizeof(b)),
			    "megatron, fsdp or deepspeed");
	assert_string_equal(framework_offering(FRAMEWORK_CAP_ZERO, 4, b,
					       sizeof(b)), "");
	assert_string_equal(framework_offering(FRAMEWORK_CAP_EP_ZERO, 3, b,
					       sizeof(b)), "megatron or fsdp");
	assert_true(framework_ep_zero_refused(AUTOSIZE_FRAMEWORK_DEEPSPEED, 2,
					      3));
	assert_false(framework_ep_zero_refused(AUTOSIZE_FRAMEWORK_DEEPSPEED, 1,
					       3));
	assert_false(framework_ep_zero_refused(AUTOSIZE_FRAMEWORK_DEFAULT, 2,
					       3));
	/* a short buffer is cut, and ends */
	assert_string_equal(framework_offering(FRAMEWORK_CAP_CP, 0, b, 12),
			    "megatron, f");
}

/* Which ZeRO stages each framework searches over data parallel ranks. */
static void test_zero_stages(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	sizing_layout dp8 = shape(1, 1, 8, 0), pp2 = shape(1, 2, 4, 0);
	sizing_layout one = shape(8, 1, 1, 0);
	int z[4];

	job_for(&job, &m, &part, AUTOSIZE_FRAMEWORK_MEGATRON);
	/* the distributed optimizer, or Megatron-FSDP without a pipeline */
	assert_int_equal(framework_zero_stages(&job, &dp8, z), 2);
	assert_int_equal(z[0], 1);
	assert_int_equal(z[1], 3);
	assert_int_equal(framework_zero_stages(&job, &pp2, z), 1);
	assert_int_equal(z[0], 1);
	assert_int_equal(framework_zero_stages(&job, &one, z), 1);
	assert_int_equal(z[0], 0);
	dp8.zero_stage = 2;
	assert_false(framework_layout_ok(&job, &dp8));   /* no ZeRO-2 */
	dp8.zero_stage = 3;
	assert_true(framework_layout_ok(&job, &dp8));
	pp2.zero_stage = 3;
	assert_false(framework_layout_ok(&job, &pp2));
	pp2.zero_stage = 0;
	/* --optimizer-offload: the distributed optimizer's CPU offload,
	 * ZeRO-1 on one rank too, not Megatron-FSDP */
	job.opt_offload = 1;
	assert_int_equal(framework_zero_stages(&job, &dp8, z), 1);
	assert_int_equal(z[0], 1);
	assert_int_equal(framework_zero_stages(&job, &one, z), 1);
	assert_int_equal(z[0], 1);
	job.opt_offload = 0;

	job.framework = AUTOSIZE_FRAMEWORK_FSDP;
	assert_int_equal(framework_zero_stages(&job, &dp8, z), 2);
	assert_int_equal(z[0], 2);
	assert_int_equal(z[1], 3);
	assert_true(framework_layout_ok(&job, &dp8));
	assert_int_equal(framework_zero_stages(&job, &pp2, z), 2);

	job.framework = AUTOSIZE_FRAMEWORK_DEEPSPEED;
	assert_int_equal(framework_zero_stages(&job, &dp8, z), 3);
	/* the pipeline engine runs ZeRO-1 at most */
	assert_int_equal(framework_zero_stages(&job, &pp2, z), 1);
	assert_int_equal(z[0], 1);
	pp2.vp = 2;
	pp2.zero_stage = 1;
	assert_false(framework_layout_ok(&job, &pp2));   /* no interleave */
	job.framework = AUTOSIZE_FRAMEWORK_MEGATRON;
	assert_true(framework_layout_ok(&job, &pp2));
}

/* Bytes per parameter: Megatron 18 (6 + 12/d), FSDP2 16/d sharded plus
 * its bf16 copy at ZeRO-2, ZeRO paper 16 for DeepSpeed; the same layout
 * differs only by the framework stated. */
static void test_state_bytes(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	sizing_layout l = shape(1, 1, 8, 0);

	job_for(&job, &m, &part, AUTOSIZE_FRAMEWORK_MEGATRON);
	assert_true(fabs(states_per_param(&job, &l) - 18) < 1e-9);
	l.zero_stage = 1;
	assert_true(fabs(states_per_param(&job, &l) - (6 + 12.0 / 8)) < 1e-9);
	job.precision = AUTOSIZE_PREC_FP16;
	assert_true(fabs(states_per_param(&job, &l) - (4 + 16.0 / 8)) < 1e-9);
	job.precision = AUTOSIZE_PREC_BF16;

	job.framework = AUTOSIZE_FRAMEWORK_DEEPSPEED;
	l.zero_stage = 0;
	assert_true(fabs(states_per_param(&job, &l) - 16) < 1e-9);
	l.zero_stage = 3;
	assert_true(fabs(states_per_param(&job, &l) - 16.0 / 8) < 1e-9);

	job.framework = AUTOSIZE_FRAMEWORK_FSDP;
	assert_true(fabs(states_per_param(&job, &l) - 16.0 / 8) < 1e-9);
	l.zero_stage = 2;
	/* reshard_after_forward=False keeps the bf16 parameters */
	assert_true(fabs(states_per_param(&job, &l) - (4.0 / 8 + 2 +
							12.0 / 8)) < 1e-9);
}

/* What the distributed optimizer gathers a parameter in: 16 bits, FP8
 * (NVFP4 with its block scales) where the Megatron line keeps FP8
 * parameters (--fp8-param-gather); FSDP gathers bf16 whatever its GEMMs. */
static void test_param_wire(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	framework_state st;

	job_for(&job, &m, &part, AUTOSIZE_FRAMEWORK_MEGATRON);
	framework_state_bytes(&job, &st);
	assert_true(st.param_wire_b == 2);
	job.precision = AUTOSIZE_PREC_FP8;
	framework_state_bytes(&job, &st);
	assert_true(st.param_wire_b == 1);
	job.precision = AUTOSIZE_PREC_NVFP4;
	framework_state_bytes(&job, &st);
	assert_true(fabs(st.param_wire_b - 0.5625) < 1e-12);
	job.precision = AUTOSIZE_PREC_FP8;
	job.framework = AUTOSIZE_FRAMEWORK_FSDP;
	framework_state_bytes(&job, &st);
	assert_true(st.param_wire_b == 2);
}

/* ZeRO-3 buffers: FSDP holds gathered layers and one layer's unsharded
 * gradients; DeepSpeed ZeRO-1/2 its two 5e8-element buckets. */
static void test_buffers(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	sizing_layout l = shape(1, 1, 8, 3);
	double layer = 2e8;

	job_for(&job, &m, &part, AUTOSIZE_FRAMEWORK_FSDP);
	assert_true(fabs(framework_buffer_bytes(&job, &l, layer, 8e9) -
			 10 * layer) < 1);
	job.framework = AUTOSIZE_FRAMEWORK_DEEPSPEED;
	assert_true(fabs(framework_buffer_bytes(&job, &l, layer, 8e9) -
			 4 * layer) < 1);
	l.zero_stage = 1;
	assert_true(fabs(framework_buffer_bytes(&job, &l, layer, 8e9) -
			 2e9) < 1);
	/* never larger than the model itself */
	assert_true(fabs(framework_buffer_bytes(&job, &l, layer, 1e8) -
			 4e8) < 1);
	l.dp = 1;
	assert_true(framework_buffer_bytes(&job, &l, layer, 8e9) == 0);
}

/* --train-framework and the policy key: parsed, named, refused. */
static void test_option_and_policy(void **state)
{
	static const char yaml[] = "defaults:\n  framework: fsdp\n"
				   "partitions:\n  - {name: gpu, gpu: h100, "
				   "gpus_per_node: 8, nodes: 4, network: ib, "
				   "network_gbps_per_node: 3200}\n";
	static const char bad[] = "defaults:\n  framework: jax\n"
				  "partitions:\n  - {name: gpu, gpu: h100, "
				  "gpus_per_node: 8, nodes: 4, network: ib, "
				  "network_gbps_per_node: 3200}\n";
	autosize_request r;
	autosize_error e;
	autosize_policy *p;

	autosize_request_init(&r);
	assert_int_equal(r.framework, AUTOSIZE_FRAMEWORK_DEFAULT);
	assert_int_equal(autosize_request_set(&r, "train-framework",
					      "deepspeed", &e), 0);
	assert_int_equal(r.framework, AUTOSIZE_FRAMEWORK_DEEPSPEED);
	assert_int_not_equal(autosize_request_set(&r, "train-framework",
						  "jax", &e), 0);
	assert_non_null(strstr(e.msg, "--train-framework"));
	assert_non_null(strstr(e.msg, "megatron|fsdp|deepspeed"));
	assert_string_equal(autosize_framework_name(AUTOSIZE_FRAMEWORK_FSDP),
			    "fsdp");

	p = autosize_policy_default(&e);
	assert_non_null(p);
	assert_int_equal(autosize_policy_defaults(p)->framework,
			 AUTOSIZE_FRAMEWORK_MEGATRON);
	autosize_policy_destroy(p);
	p = autosize_policy_parse(yaml, sizeof(yaml) - 1, "test", ".", &e);
	if (!p)
		fail_msg("%s", e.msg);
	assert_int_equal(autosize_policy_defaults(p)->framework,
			 AUTOSIZE_FRAMEWORK_FSDP);
	autosize_policy_destroy(p);
	p = autosize_policy_parse(bad, sizeof(bad) - 1, "test", ".", &e);
	assert_null(p);
	assert_non_null(strstr(e.msg, "framework"));
}

/* No Megatron arguments for an FSDP or DeepSpeed plan. */
static void test_launch_args(void **state)
{
	autosize_plan p;
	autosize_request r;
	char buf[512];

	memset(&p, 0, sizeof(p));
	autosize_request_init(&r);
	p.tp = 1;
	p.pp = 1;
	p.dp = 8;
	p.zero_stage = 3;
	p.micro_batch = 1;
	p.global_batch = 8;
	p.seq_len = 4096;
	p.framework = AUTOSIZE_FRAMEWORK_FSDP;
	assert_int_equal(autosize_launch_megatron_args(&r, &p, buf,
						       sizeof(buf)), 0);
	assert_string_equal(buf, "");
	p.framework = AUTOSIZE_FRAMEWORK_MEGATRON;
	p.zero_stage = 1;
	assert_true(autosize_launch_megatron_args(&r, &p, buf,
						  sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "--use-distributed-optimizer"));
}

/* A plan states its framework; pins the framework cannot run are refused
 * with one line naming both. */
static void test_plan_pins(void **state)
{
	autosize_request r;
	autosize_plan plan;
	autosize_error e;
	char args[1024];
	autosize_policy *p = autosize_policy_default(&e);

	assert_non_null(p);
	autosize_request_init(&r);
	assert_int_equal(autosize_request_set(&r, "model-params", "7e9", &e),
			 0);
	assert_int_equal(autosize_request_set(&r, "gpu", "h100", &e), 0);
	assert_int_equal(autosize_request_set(&r, "gpus", "16", &e), 0);
	assert_int_equal(autosize_request_set(&r, "zero", "2", &e), 0);
	assert_int_equal(autosize_request_finish(&r, &e), 0);
	/* no framework named: the pins choose one that runs them */
	assert_int_equal(autosize_plan_compute(p, &r, &plan, &e), 0);
	assert_int_equal(plan.framework, AUTOSIZE_FRAMEWORK_FSDP);
	assert_int_equal(plan.zero_stage, 2);
	assert_true(has_warning(&plan, "megatron does not run the pinned "
				"layout"));
	assert_int_equal(autosize_request_set(&r, "train-framework",
					      "megatron", &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &plan, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "megatron does not run ZeRO-2"));
	/* ZeRO-3 under Megatron: Megatron-FSDP, no pipeline, and the
	 * launcher asks for it */
	assert_int_equal(autosize_request_set(&r, "zero", "3", &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &plan, &e), AUTOSIZE_OK);
	assert_int_equal(plan.framework, AUTOSIZE_FRAMEWORK_MEGATRON);
	assert_int_equal(plan.zero_stage, 3);
	assert_int_equal(plan.pp, 1);
	assert_true(autosize_launch_megatron_args(&r, &plan, args,
						  sizeof(args)) > 0);
	assert_non_null(strstr(args, " --use-megatron-fsdp "
			       "--data-parallel-sharding-strategy "
			       "optim_grads_params"));
	assert_int_equal(autosize_request_set(&r, "pp", "2", &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &plan, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "ZeRO-1 at most with pipeline"));
	r.pp = AUTOSIZE_UNSET;
	assert_int_equal(autosize_request_set(&r, "train-framework", "fsdp",
					      &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &plan, &e), AUTOSIZE_OK);
	assert_int_equal(plan.framework, AUTOSIZE_FRAMEWORK_FSDP);
	assert_int_equal(plan.zero_stage, 3);
	/* unpinned DeepSpeed with a pipeline: ZeRO-1 at most */
	autosize_request_init(&r);
	assert_int_equal(autosize_request_set(&r, "model-params", "70e9",
					      &e), 0);
	assert_int_equal(autosize_request_set(&r, "gpu", "a100-40gb", &e),
			 0);
	assert_int_equal(autosize_request_set(&r, "train-framework",
					      "deepspeed", &e), 0);
	assert_int_equal(autosize_request_set(&r, "pp", "4", &e), 0);
	assert_int_equal(autosize_request_finish(&r, &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &plan, &e), AUTOSIZE_OK);
	assert_true(plan.zero_stage <= 1);
	assert_int_equal(plan.framework, AUTOSIZE_FRAMEWORK_DEEPSPEED);
	autosize_policy_destroy(p);
}

/* Context and expert parallelism: what they divide, what they cost. */
static void test_cp_ep_terms(void **state)
{
	autosize_model m;
	autosize_partition part;
	autosize_error e;
	sizing_job job;
	sizing_layout l = shape(1, 1, 16, 1);
	sizing_time t1, t2;
	double a1, a2, p1, p8, dense;

	job_for(&job, &m, &part, AUTOSIZE_FRAMEWORK_MEGATRON);
	job.seq_len = 65536;
	/* CP halves each rank's share of the sequence: activations too */
	l.recompute = AUTOSIZE_RECOMPUTE_NONE;
	a1 = sizing_layer_activation_bytes(&job, &l);
	l.cp = 2;
	l.dp = 8;
	a2 = sizing_layer_activation_bytes(&job, &l);
	assert_true(fabs(a2 / a1 - 0.5) < 1e-9);
	/* ring attention traffic appears only with cp > 1 */
	sizing_step_time(&job, &l, &t2);
	assert_true(t2.cp_comm_s >= 0);
	l.cp = 1;
	l.dp = 16;
	sizing_step_time(&job, &l, &t1);
	assert_true(t1.cp_comm_s == 0);

	/* MoE: routed experts split over ep, the rest replicated */
	assert_int_equal(autosize_model_preset("mixtral-8x7b", &m, &e), 0);
	job.seq_len = 4096;
	l = shape(1, 1, 16, 1);
	p1 = sizing_params_per_gpu(&job, &l);
	l.ep = 8;
	p8 = sizing_params_per_gpu(&job, &l);
	dense = p1 - m.layers * sizing_expert_params_per_layer(&m);
	assert_true(sizing_expert_params_per_layer(&m) > 0);
	assert_true(fabs(p8 - (dense + (p1 - dense) / 8)) < 1e-6 * p1);
	/* all-to-all inside a node, then across two nodes: slower */
	sizing_step_time(&job, &l, &t1);
	assert_true(t1.ep_comm_s > 0);
	l.ep = 16;
	l.tp = 1;
	sizing_step_time(&job, &l, &t2);
	assert_true(t2.ep_comm_s > 2 * t1.ep_comm_s);
	l.ep = 1;
	sizing_step_time(&job, &l, &t1);
	assert_true(t1.ep_comm_s == 0);
}

/* Plan opts (finished) under p into plan; its Megatron arguments into
 * buf. */
static void plan_megatron_args(const autosize_policy *p,
			       const char *const *opts, autosize_request *r,
			       autosize_plan *plan, char *buf, size_t len)
{
	autosize_error e;

	plantest_request_set(opts, r);
	assert_int_equal(autosize_request_finish(r, &e), 0);
	assert_int_equal(autosize_plan_compute(p, r, plan, &e), AUTOSIZE_OK);
	assert_true(autosize_launch_megatron_args(r, plan, buf, len) > 0);
}

/* Expert tensor parallelism: Megatron splits the experts over TP while
 * ep fits in dp x cp and folds ep over the TP ranks (expert TP 1) where
 * it does not; torchtitan never splits them (its expert mesh is ep x
 * efsdp over dp_shard x cp x tp), so a rank holds twice the expert
 * weights of Megatron's at TP 2 x EP 2, and none of their TP traffic. */
static void test_expert_tp(void **state)
{
	autosize_model m;
	autosize_partition part;
	autosize_error e;
	sizing_job job;
	sizing_layout l = shape(2, 1, 4, 2);
	double meg, tt;

	(void)state;
	job_for(&job, &m, &part, AUTOSIZE_FRAMEWORK_MEGATRON);
	assert_int_equal(autosize_model_preset("mixtral-8x7b", &m, &e), 0);
	assert_int_equal(sizing_etp(&job, &l), 2);	/* ep 1: TP */
	l.ep = 2;
	assert_int_equal(sizing_etp(&job, &l), 2);
	meg = sizing_expert_params_gpu(&job, &l);
	l.ep = 8;	/* over dp 4: folded over TP */
	assert_int_equal(sizing_etp(&job, &l), 1);
	job.framework = AUTOSIZE_FRAMEWORK_FSDP;
	l.ep = 2;
	assert_int_equal(sizing_etp(&job, &l), 1);
	tt = sizing_expert_params_gpu(&job, &l);
	assert_true(fabs(tt / meg - 2) < 1e-9);
}

/* Megatron's alltoall dispatcher with expert TP > 1 gathers every
 * routed copy of the TP group's tokens over the expert TP ranks and
 * reduce-scatters them back: k all-reduce volumes of the layer's tokens
 * each way, exposed, and the gathered copies kept for the grouped GEMM;
 * the flex dispatchers deliver the same copies; none of it under expert
 * TP 1 or torchtitan. */
static void test_expert_tp_gather(void **state)
{
	autosize_model m;
	autosize_partition part;
	autosize_error e;
	sizing_job job;
	sizing_layout l = shape(4, 1, 8, 1);
	sizing_time k1, k2;
	comm_link link;
	double a_etp, a_one, s, h, want;

	(void)state;
	job_for(&job, &m, &part, AUTOSIZE_FRAMEWORK_MEGATRON);
	assert_int_equal(autosize_model_preset("mixtral-8x7b", &m, &e), 0);
	job.moe_balanced = 1;
	l.recompute = AUTOSIZE_RECOMPUTE_NONE;
	s = job.seq_len;
	h = m.hidden;
	assert_int_equal(sizing_etp_gather(&job, &l), 4);	/* ep 1 */
	/* time: linear in the routed copies, the dense part unchanged */
	m.experts_active = 1;
	sizing_step_time(&job, &l, &k1);
	m.experts_active = 2;
	sizing_step_time(&job, &l, &k2);
	comm_link_group(&job, 4, SIZING_GPUS(&l), 1, &link);
	want = 2.0 * m.layers * l.grad_accum *
	       (comm_allreduce_s(2.0 * 2 * s * h, 4, &link) -
		comm_allreduce_s(2.0 * s * h, 4, &link));
	assert_true(want > 0);
	assert_true(fabs((k2.tp_comm_s - k1.tp_comm_s) / want - 1) < 1e-9);
	/* memory: the grouped GEMM's input, k copies of the TP group's
	 * tokens on every rank, against its own share at expert TP 1 */
	l.ep = 8;	/* in dp 8: expert TP 4 */
	a_etp = sizing_layer_activation_bytes(&job, &l);
	l.ep = 32;	/* folded over TP: expert TP 1 */
	assert_int_equal(sizing_etp_gather(&job, &l), 1);
	a_one = sizing_layer_activation_bytes(&job, &l);
	assert_true(fabs((a_etp - a_one) / (2.0 * 2 * s * h * 3 / 4) - 1) <
		    1e-9);
	/* DeepEP sends the same copies to every expert-TP rank (its
	 * top-k x TP routing); FSDP splits no expert (expert TP 1) */
	l.ep = 8;
	job.moe_dispatcher = AUTOSIZE_MOE_DISPATCH_DEEPEP;
	assert_int_equal(sizing_etp_gather(&job, &l), 4);
	assert_true(fabs(sizing_layer_activation_bytes(&job, &l) - a_etp) <
		    1e-9 * a_etp);
	job.moe_dispatcher = AUTOSIZE_MOE_DISPATCH_DEFAULT;
	job.framework = AUTOSIZE_FRAMEWORK_FSDP;
	assert_int_equal(sizing_etp_gather(&job, &l), 1);
}

/* Expert TP is a layout choice under Megatron: TP 4 x EP 8 over DP 16
 * runs either way, the experts split over the TP ranks (the default)
 * or whole, EP folded over the TP ranks (--expert-tensor-parallel-size
 * 1). The search takes the faster, a pin either; the plan, its Megatron
 * line, its text and its record say which, and the nodes' re-plan keeps
 * it. --etp where it means nothing is refused, naming why. */
static void test_expert_tp_choice(void **state)
{
	static const char *const opts[] = {"model", "mixtral-8x7b", "gpu",
		"h100", "gpus", "128", "tp", "4", "pp", "2", "ep", "8",
		"train-framework", "megatron", "train-tokens", "1e10", NULL};
	autosize_policy *p;
	autosize_request r;
	autosize_plan one, four, back;
	autosize_record rec;
	autosize_error e;
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	sizing_layout l = shape(4, 2, 16, 1);
	char buf[2048];

	(void)state;
	job_for(&job, &m, &part, AUTOSIZE_FRAMEWORK_MEGATRON);
	assert_int_equal(autosize_model_preset("mixtral-8x7b", &m, &e), 0);
	l.ep = 8;
	assert_int_equal(sizing_etp(&job, &l), 4);
	assert_int_equal(sizing_etp_gather(&job, &l), 4);
	l.etp_one = 1;
	assert_int_equal(sizing_etp(&job, &l), 1);
	assert_int_equal(sizing_etp_gather(&job, &l), 1);

	p = autosize_policy_default(&e);
	assert_non_null(p);
	plantest_request_set(opts, &r);
	assert_int_equal(autosize_request_set(&r, "etp", "4", &e), 0);
	assert_int_equal(autosize_request_finish(&r, &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &four, &e), AUTOSIZE_OK);
	assert_int_equal(four.etp, 4);
	assert_true(autosize_launch_megatron_args(&r, &four, buf,
						  sizeof(buf)) > 0);
	assert_null(strstr(buf, "--expert-tensor-parallel-size"));
	assert_true(autosize_request_set(&r, "etp", "1", &e) == 0);
	assert_int_equal(autosize_plan_compute(p, &r, &one, &e), AUTOSIZE_OK);
	assert_int_equal(one.etp, 1);
	assert_int_equal(one.ep, 8);
	assert_true(autosize_launch_megatron_args(&r, &one, buf,
						  sizeof(buf)) > 0);
	assert_non_null(strstr(buf, " --expert-model-parallel-size 8 "
			       "--expert-tensor-parallel-size 1 "));
	assert_true(autosize_launch_summary(&one, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, " EP 8 ETP 1,"));
	/* whole experts: four times the expert weights a rank, none of
	 * the gather */
	assert_true(one.mem.weights_bytes > four.mem.weights_bytes);
	assert_true(one.step.tp_comm_s < four.step.tp_comm_s);
	/* unpinned: the faster of the two */
	r.etp = AUTOSIZE_UNSET;
	assert_int_equal(autosize_plan_compute(p, &r, &back, &e), AUTOSIZE_OK);
	assert_int_equal(back.etp, one.tokens_per_s > four.tokens_per_s
				   ? 1 : 4);
	/* the nodes' re-plan from slurmctld's record keeps it */
	autosize_record_from_plan(&one, &rec);
	assert_int_equal(rec.etp, 1);
	autosize_record_pin(&rec, &r);
	assert_int_equal(r.etp, 1);
	assert_int_equal(autosize_plan_compute(p, &r, &back, &e), AUTOSIZE_OK);
	assert_int_equal(back.etp, 1);
	/* refused: not 1 or TP, under FSDP above 1, a dense model */
	r.etp = 2;
	assert_int_equal(autosize_plan_compute(p, &r, &back, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "--etp: 2 must be 1 or the TP size "
			       "(--tp 4)"));
	plantest_request_set(opts, &r);
	assert_int_equal(autosize_request_set(&r, "train-framework", "fsdp",
					      &e), 0);
	assert_int_equal(autosize_request_set(&r, "etp", "4", &e), 0);
	assert_int_equal(autosize_request_finish(&r, &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &back, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "--etp: expert tensor parallelism is "
			       "Megatron-LM's"));
	plantest_request_set(opts, &r);
	assert_int_equal(autosize_request_set(&r, "model", "llama-3-8b", &e),
			 0);
	assert_int_equal(autosize_request_set(&r, "ep", "1", &e), 0);
	assert_int_equal(autosize_request_set(&r, "etp", "1", &e), 0);
	assert_int_equal(autosize_request_finish(&r, &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &back, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "--etp: the model has no routed "
			       "experts"));
	autosize_policy_destroy(p);
}

/* A middle pipeline rank may take layers off the last (the output
 * head's) only as far as its memory stays within the first rank's,
 * which the plan is sized for: its micro-batches in flight under
 * Megatron's schedule (schedules.py: (pp - r - 1) x 2 + (v - 1) x g
 * warm-up chunk passes, no more than the step's) and its model states.
 * Qwen3-30B-A3B on PP 4, 48 layers: 12 a rank sized. */
static void test_middle_stage_cap(void **state)
{
	autosize_model m;
	autosize_partition part;
	autosize_error e;
	sizing_job job;
	sizing_layout l = shape(1, 4, 8, 1);
	double in0, in1, cap;
	int g;

	(void)state;
	job_for(&job, &m, &part, AUTOSIZE_FRAMEWORK_MEGATRON);
	assert_int_equal(autosize_model_preset("qwen3-30b-a3b", &m, &e), 0);
	l.ep = 8;
	l.recompute = AUTOSIZE_RECOMPUTE_NONE;
	/* interleaved, 3 virtual stages: rank 1 holds 2/3 of a
	 * micro-batch less than rank 0, not one */
	l.vp = 3;
	l.grad_accum = 6;
	g = framework_vp_group(AUTOSIZE_FRAMEWORK_MEGATRON, 4, 3, 6);
	assert_true(g > 0);
	in0 = (2.0 * g + 1 + 2 * 3) / 3;
	in1 = (2.0 * g + 1 + 2 * 2) / 3;
	cap = sizing_middle_stage_cap(&job, &l);
	assert_true(cap >= 12 && cap <= 12 * in0 / in1 + 1e-9);
	/* without it, fewer micro-batches a step than ranks: both hold
	 * all of them, no room */
	l.vp = 1;
	l.grad_accum = 2;
	assert_true(fabs(sizing_middle_stage_cap(&job, &l) - 12) < 1e-9);
	/* and with enough: pp - 1 against pp at most (16), here less:
	 * the model states bind, a layer of 128 experts (8 on each rank)
	 * against the embedding's share of the first rank's */
	l.grad_accum = 16;
	cap = sizing_middle_stage_cap(&job, &l);
	assert_true(cap > 12 && cap < 16);
	/* a dense model's embedding weighs more of its layers
	 * (Llama-3-8B: 2.4 layers' parameters) */
	assert_int_equal(autosize_model_preset("llama-3-8b", &m, &e), 0);
	l = shape(1, 4, 8, 1);
	l.grad_accum = 16;
	assert_true(sizing_middle_stage_cap(&job, &l) - 8 > cap - 12);
	assert_true(sizing_middle_stage_cap(&job, &l) < 8 * 4.0 / 3);
}

/* MoE host issue: Megatron issues each local expert in turn after a
 * host sync (more local experts, more time; none under torchtitan's
 * grouped GEMM); --moe-overlap removes it and hides the all-to-all
 * behind the micro-batch's computation; the launcher asks for it. */
static void test_moe_overlap(void **state)
{
	static const char *const opts[] = {"model", "mixtral-8x7b", "gpu",
		"h100", "gpus", "64", "ep", "8", "tp", "1", "pp", "1",
		"recompute", "none", "train-tokens", "1e12",
		"memory-reserve", "0", NULL};
	autosize_model m;
	autosize_partition part;
	autosize_error e;
	autosize_request r;
	autosize_plan plan, over;
	autosize_policy *p = autosize_policy_default(&e);
	sizing_job job;
	sizing_layout l = shape(1, 1, 16, 1);
	sizing_time t8, t2, tf, to;
	char buf[1024];

	assert_non_null(p);
	job_for(&job, &m, &part, AUTOSIZE_FRAMEWORK_MEGATRON);
	/* one kernel rate for both frameworks: the host issue alone
	 * differs */
	job.perf = *perfdata_ampere_builtin();
	job.perf.torch_eff = 1;
	assert_int_equal(autosize_model_preset("mixtral-8x7b", &m, &e), 0);
	l.recompute = AUTOSIZE_RECOMPUTE_NONE;
	l.grad_accum = 16;
	l.ep = 8;	/* one local expert */
	sizing_step_time(&job, &l, &t8);
	l.ep = 2;	/* four: three more issued per layer and pass */
	sizing_step_time(&job, &l, &t2);
	assert_true(t2.compute_s - t8.compute_s >
		    16 * m.layers * 3 * 3 * 100e-6);
	job.framework = AUTOSIZE_FRAMEWORK_FSDP;
	sizing_step_time(&job, &l, &tf);
	assert_true(tf.compute_s < t2.compute_s - 16 * m.layers * 3 * 3 *
					       100e-6);
	/* the all-to-all overlap hides the exchange, not the issue: one
	 * host thread runs both micro-batches' grouped MLPs */
	job.framework = AUTOSIZE_FRAMEWORK_MEGATRON;
	job.moe_overlap = 1;
	sizing_step_time(&job, &l, &to);
	assert_true(fabs(to.compute_s - t2.compute_s) < 1e-9 * t2.compute_s);
	assert_true(to.ep_comm_s < t2.ep_comm_s);

	plan_megatron_args(p, opts, &r, &plan, buf, sizeof(buf));
	assert_null(strstr(buf, "--overlap-moe-expert-parallel-comm"));
	assert_int_equal(autosize_request_set(&r, "moe-overlap", "maybe",
					      &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "--moe-overlap"));
	assert_int_equal(autosize_request_set(&r, "moe-overlap", "on", &e),
			 0);
	assert_int_equal(autosize_plan_compute(p, &r, &over, &e), AUTOSIZE_OK);
	assert_true(over.tokens_per_s > plan.tokens_per_s);
	assert_true(autosize_launch_megatron_args(&r, &over, buf,
						  sizeof(buf)) > 0);
	assert_non_null(strstr(buf, " --moe-token-dispatcher-type alltoall "
			       "--moe-grouped-gemm "
			       "--overlap-moe-expert-parallel-comm "
			       "--delay-wgrad-compute"));
	assert_null(strstr(buf, "deepep"));
	autosize_policy_destroy(p);
}

/* Plan base plus more options (name, value pairs; NULL-terminated) under
 * p into r (finished) and plan: the planner's return code, its message in
 * e. */
static autosize_err plan_more(const autosize_policy *p,
			      const char *const *base,
			      const char *const *more, autosize_request *r,
			      autosize_plan *plan, autosize_error *e)
{
	int i;

	plantest_request_set(base, r);
	for (i = 0; more[i]; i += 2)
		assert_int_equal(autosize_request_set(r, more[i], more[i + 1],
						      e), 0);
	assert_int_equal(autosize_request_finish(r, e), 0);
	return autosize_plan_compute(p, r, plan, e);
}

/* The code of the plan's warning that contains text (it must have one). */
static const char *warning_code_of(const autosize_plan *plan,
				   const char *text)
{
	int i;

	for (i = 0; i < plan->n_warnings; i++)
		if (strstr(plan->warnings[i], text))
			return autosize_warning_code(plan->warnings[i]);
	fail_msg("no warning with '%s'", text);
	return NULL;
}

static const char *const moe_h100[] = {"model", "mixtral-8x7b", "gpu",
	"h100", "gpus", "16", "ep", "8", "tp", "2", "pp", "1",
	"train-tokens", "1e9", "memory-reserve", "0", NULL};
static const char *const moe_gb200[] = {"model", "qwen3-30b-a3b", "gpu",
	"gb200", "gpus", "32", "ep", "32", "tp", "1", "pp", "1",
	"train-tokens", "1e9", "memory-reserve", "0", NULL};

/* --moe-dispatcher: DeepEP sends a token once to each rank of its
 * experts (less than alltoall's copy per routed expert), over RDMA
 * between the trays of a GB200 domain where HybridEP stays on NVLink
 * (and the plan says so, expert TP or not); the Megatron line carries
 * the flex dispatcher's backend, alltoall where nothing is dispatched
 * (EP 1); a stack's default (NeMo AutoModel: deepep) needs no option. */
static void test_moe_dispatcher(void **state)
{
	static const char *const deepep[] = {"moe-dispatcher", "deepep",
					     NULL};
	static const char *const hybridep[] = {"moe-dispatcher", "hybridep",
					       NULL};
	static const char *const etp2[] = {"moe-dispatcher", "deepep", "ep",
					   "4", "tp", "2", "etp", "2", NULL};
	static const char *const ep1[] = {"moe-dispatcher", "hybridep", "ep",
					  "1", NULL};
	static const char *const automodel[] = {"train-stack", "automodel",
						NULL};
	static const char *const none[] = {NULL};
	static char json[65536];
	static autosize_launch launch;
	autosize_error e;
	autosize_request r;
	autosize_plan a2a, deep, hyb;
	autosize_policy *p = autosize_policy_default(&e);
	char buf[2048];

	(void)state;
	assert_non_null(p);
	plan_megatron_args(p, moe_h100, &r, &a2a, buf, sizeof(buf));
	assert_int_equal(a2a.moe_dispatcher, AUTOSIZE_MOE_DISPATCH_ALLTOALL);
	assert_non_null(strstr(buf, "--moe-token-dispatcher-type alltoall"));
	assert_int_equal(autosize_request_set(&r, "moe-dispatcher", "deepep",
					      &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &deep, &e), AUTOSIZE_OK);
	assert_true(autosize_launch_megatron_args(&r, &deep, buf,
						  sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "--moe-token-dispatcher-type flex "
			       "--moe-flex-dispatcher-backend deepep "
			       "--moe-router-dtype fp32"));
	assert_true(deep.step.ep_comm_s > 0);
	assert_true(deep.step.ep_comm_s < a2a.step.ep_comm_s);
	assert_true(autosize_plan_to_json(&deep, json, sizeof(json)) > 0);
	assert_non_null(strstr(json, "\"moe_dispatcher\":\"deepep\""));

	assert_int_equal(plan_more(p, moe_gb200, none, &r, &a2a, &e),
			 AUTOSIZE_OK);
	assert_int_equal(plan_more(p, moe_gb200, deepep, &r, &deep, &e),
			 AUTOSIZE_OK);
	assert_int_equal(plan_more(p, moe_gb200, hybridep, &r, &hyb, &e),
			 AUTOSIZE_OK);
	print_message("GB200 EP 32 exchange: alltoall %.3g s, deepep %.3g s, "
		      "hybridep %.3g s\n", a2a.step.ep_comm_s,
		      deep.step.ep_comm_s, hyb.step.ep_comm_s);
	assert_true(hyb.step.ep_comm_s < a2a.step.ep_comm_s);
	assert_true(deep.step.ep_comm_s > 2 * hyb.step.ep_comm_s);
	assert_string_equal(warning_code_of(&deep, "over RDMA"),
			    "deepep_rdma");
	assert_false(has_warning(&hyb, "over RDMA"));
	/* expert TP 2: four EP members, two a tray, over RDMA */
	assert_int_equal(plan_more(p, moe_gb200, etp2, &r, &deep, &e),
			 AUTOSIZE_OK);
	assert_int_equal(deep.ep, 4);
	assert_int_equal(deep.etp, 2);
	assert_true(has_warning(&deep, "over RDMA"));
	/* EP 1 and TP 1: nothing to dispatch, alltoall said and run */
	assert_int_equal(plan_more(p, moe_gb200, ep1, &r, &hyb, &e),
			 AUTOSIZE_OK);
	assert_int_equal(hyb.moe_dispatcher, AUTOSIZE_MOE_DISPATCH_ALLTOALL);
	assert_string_equal(warning_code_of(&hyb, "nothing to send"),
			    "dispatcher_unused");
	assert_true(autosize_launch_megatron_args(&r, &hyb, buf,
						  sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "--moe-token-dispatcher-type alltoall"));

	/* a stack's own dispatcher, not one torchtitan is told to take */
	assert_int_equal(plan_more(p, moe_h100, automodel, &r, &deep, &e),
			 AUTOSIZE_OK);
	assert_int_equal(deep.moe_dispatcher, AUTOSIZE_MOE_DISPATCH_DEEPEP);
	assert_int_equal(autosize_launch_build(&r, &deep, NULL, &launch), 0);
	assert_null(strstr(launch.note, "moe_comm_backend"));
	autosize_policy_destroy(p);
}

/* --moe-dispatcher where nothing dispatches as it says: refused with
 * the option named and a fix that works (a stack's, not a framework
 * that contradicts it). */
static void test_moe_dispatcher_refused(void **state)
{
	static const char *const ds[] = {"train-framework", "deepspeed",
		"moe-dispatcher", "deepep", NULL};
	static const char *const mds[] = {"train-stack", "megatron-deepspeed",
		"moe-dispatcher", "deepep", NULL};
	static const char *const hf[] = {"train-stack", "hf",
		"moe-dispatcher", "hybridep", NULL};
	static const char *const free16[] = {"model", "mixtral-8x7b", "gpu",
		"h100", "gpus", "16", NULL};
	static const char *const dense[] = {"model", "llama-3.1-8b", "gpu",
		"h100", NULL};
	static const char *const on_dense[] = {"moe-dispatcher", "hybridep",
					       NULL};
	autosize_error e;
	autosize_request r;
	autosize_plan plan;
	autosize_policy *p = autosize_policy_default(&e);

	(void)state;
	assert_non_null(p);
	assert_int_equal(plan_more(p, moe_h100, ds, &r, &plan, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "DeepSpeed-MoE"));
	assert_non_null(strstr(e.msg, "--train-framework=megatron or fsdp"));
	assert_int_equal(plan_more(p, moe_h100, mds, &r, &plan, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "stack megatron-deepspeed"));
	assert_non_null(strstr(e.msg, "--train-stack="));
	assert_int_equal(plan_more(p, free16, hf, &r, &plan, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "no expert parallelism"));
	assert_int_equal(plan_more(p, dense, on_dense, &r, &plan, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "--moe-dispatcher hybridep: the model "
			       "has no routed experts"));
	plantest_request_set(dense, &r);
	assert_int_equal(autosize_request_set(&r, "moe-dispatcher", "nccl",
					      &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "--moe-dispatcher"));
	autosize_policy_destroy(p);
}

/* The compiled-in numbers for catalog GPU name under FP8. */
static perf_params shipped_fp8(const char *name)
{
	const autosize_gpu *g = autosize_catalog_find(catalog, name);
	perf_params p;

	assert_non_null(g);
	perfdata_resolve(perfdata_default(), g, AUTOSIZE_PREC_FP8, &p);
	return p;
}

/* FP8 adds the generation's expert_fp8_host_s per local expert, layer and
 * pass to the experts' host issue (Hopper's per-tensor scaling: an amax
 * and a cast per expert GEMM input); BF16 issues without it, and a
 * generation that sets none (Blackwell's MXFP8) adds nothing. */
static void test_expert_fp8_issue(void **state)
{
	autosize_model m;
	autosize_partition part;
	autosize_error e;
	sizing_job job;
	sizing_layout l = shape(1, 1, 16, 1);
	sizing_time base, more, bf16, bf16_more;
	double local, want;

	job_for(&job, &m, &part, AUTOSIZE_FRAMEWORK_MEGATRON);
	assert_int_equal(autosize_model_preset("mixtral-8x7b", &m, &e), 0);
	job.perf = *perfdata_ampere_builtin();
	job.perf.expert_host_s = 100e-6;
	job.perf.expert_fp8_host_s = 0;
	job.perf.fp8_gemm_speedup = 1.5;
	job.perf.fp8_gemm_share = 0.8;
	l.recompute = AUTOSIZE_RECOMPUTE_NONE;
	l.grad_accum = 16;
	l.ep = 2;
	local = (double)m.experts / l.ep;
	job.precision = AUTOSIZE_PREC_FP8;
	sizing_step_time(&job, &l, &base);
	job.perf.expert_fp8_host_s = 250e-6;
	sizing_step_time(&job, &l, &more);
	want = 16 * (m.layers - m.dense_layers) * local * 3 * 250e-6;
	assert_true(fabs(more.compute_s - base.compute_s - want) <
		    1e-6 * want);
	job.precision = AUTOSIZE_PREC_BF16;
	job.perf.expert_fp8_host_s = 0;
	sizing_step_time(&job, &l, &bf16);
	job.perf.expert_fp8_host_s = 250e-6;
	sizing_step_time(&job, &l, &bf16_more);
	assert_true(bf16_more.compute_s == bf16.compute_s);
	/* the shipped generations: Hopper's FP8 adds to its base, Blackwell
	 * (MXFP8) adds nothing */
	assert_true(shipped_fp8("h100").expert_fp8_host_s > 0);
	assert_true(shipped_fp8("b200").expert_fp8_host_s == 0);
}

/* Under a flex dispatcher (DeepEP, HybridEP) the experts' host issue,
 * its FP8 part too, is the generation's expert_flex_host_cut less than
 * under alltoall, whose own host work the fitted constants absorb; a
 * layout without expert parallelism runs alltoall whatever was asked,
 * and keeps the whole issue. The shipped Hopper and Blackwell entries
 * cut some, never all. */
static void test_expert_flex_issue(void **state)
{
	autosize_model m;
	autosize_partition part;
	autosize_error e;
	sizing_job job;
	sizing_layout l = shape(1, 1, 16, 1), one;
	sizing_time a2a, flex, flex_uncut, deepep, a2a_one, flex_one;
	sizing_time f8_uncut, f8_cut;
	double issue, base_s = 100e-6, fp8_s = 300e-6;

	job_for(&job, &m, &part, AUTOSIZE_FRAMEWORK_MEGATRON);
	assert_int_equal(autosize_model_preset("mixtral-8x7b", &m, &e), 0);
	job.perf = *perfdata_ampere_builtin();
	job.perf.expert_host_s = base_s;
	job.perf.expert_flex_host_cut = 0;
	l.recompute = AUTOSIZE_RECOMPUTE_NONE;
	l.grad_accum = 16;
	l.ep = 2;
	job.moe_dispatcher = AUTOSIZE_MOE_DISPATCH_ALLTOALL;
	sizing_step_time(&job, &l, &a2a);
	job.moe_dispatcher = AUTOSIZE_MOE_DISPATCH_HYBRIDEP;
	sizing_step_time(&job, &l, &flex_uncut);
	job.perf.expert_flex_host_cut = 0.4;
	sizing_step_time(&job, &l, &flex);
	issue = 16 * (m.layers - m.dense_layers) * ((double)m.experts / l.ep) *
		3 * base_s;
	/* the cut takes 40% of the issue, and only that */
	assert_true(fabs(flex_uncut.compute_s - flex.compute_s - 0.4 * issue) <
		    1e-6 * issue);
	/* alltoall keeps it all: its compute is the uncut flex one's */
	assert_true(fabs(a2a.compute_s - flex_uncut.compute_s) <
		    1e-6 * issue);
	/* DeepEP takes the same cut as HybridEP */
	job.moe_dispatcher = AUTOSIZE_MOE_DISPATCH_DEEPEP;
	sizing_step_time(&job, &l, &deepep);
	assert_true(fabs(deepep.compute_s - flex.compute_s) < 1e-6 * issue);
	/* under FP8 the cut is a share of the base and the FP8 part */
	job.precision = AUTOSIZE_PREC_FP8;
	job.perf.fp8_gemm_speedup = 1.5;
	job.perf.fp8_gemm_share = 0.8;
	job.perf.expert_fp8_host_s = fp8_s;
	job.perf.expert_flex_host_cut = 0;
	sizing_step_time(&job, &l, &f8_uncut);
	job.perf.expert_flex_host_cut = 0.4;
	sizing_step_time(&job, &l, &f8_cut);
	assert_true(fabs(f8_uncut.compute_s - f8_cut.compute_s -
			 0.4 * issue * (base_s + fp8_s) / base_s) <
		    1e-6 * issue);
	job.precision = AUTOSIZE_PREC_BF16;
	job.perf.expert_fp8_host_s = 0;
	/* EP 1: no tokens exchanged, alltoall runs, the issue is whole */
	one = l;
	one.ep = 1;
	job.moe_dispatcher = AUTOSIZE_MOE_DISPATCH_ALLTOALL;
	sizing_step_time(&job, &one, &a2a_one);
	job.moe_dispatcher = AUTOSIZE_MOE_DISPATCH_DEEPEP;
	sizing_step_time(&job, &one, &flex_one);
	assert_true(flex_one.compute_s == a2a_one.compute_s);
	assert_true(shipped_fp8("h100").expert_flex_host_cut > 0);
	assert_true(shipped_fp8("h100").expert_flex_host_cut < 1);
	assert_true(shipped_fp8("b200").expert_flex_host_cut > 0);
	assert_true(shipped_fp8("b200").expert_flex_host_cut < 1);
}

/* "selective" under FSDP is torchtitan's op-level checkpointing: it keeps
 * less than Megatron's selective (the block input and every other
 * matmul's output) and recomputes wk, wo and w3; its loss holds 10 bytes
 * per logit (F.cross_entropy on logits.float()) to Megatron's 6. */
static void test_op_sac(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job meg, fsdp;
	sizing_layout l = shape(1, 1, 8, 3);
	double a_meg, a_fsdp, s, b, h, want;
	autosize_memory mm, mf;

	autosize_error e;

	job_for(&meg, &m, &part, AUTOSIZE_FRAMEWORK_MEGATRON);
	assert_int_equal(autosize_model_preset("llama-3-8b", &m, &e), 0);
	fsdp = meg;
	fsdp.framework = AUTOSIZE_FRAMEWORK_FSDP;
	l.recompute = AUTOSIZE_RECOMPUTE_SELECTIVE;
	l.micro_batch = 2;
	a_meg = sizing_layer_activation_bytes(&meg, &l);
	a_fsdp = sizing_layer_activation_bytes(&fsdp, &l);
	s = fsdp.seq_len;
	b = l.micro_batch;
	h = m.hidden;
	want = 2 * s * b * h + 2 * s * b * (2.0 * m.heads * m.head_dim +
					    (double)m.kv_heads * m.head_dim +
					    h + m.ffn);
	assert_true(fabs(a_fsdp - want) < 1e-6 * want);
	assert_true(a_fsdp < 0.7 * a_meg);
	/* recomputed matmuls cost FLOPs: more than none, less than full */
	assert_true(sizing_hw_flops_per_token(&fsdp,
		    AUTOSIZE_RECOMPUTE_SELECTIVE) >
		    1.05 * sizing_hw_flops_per_token(&fsdp,
						     AUTOSIZE_RECOMPUTE_NONE));
	assert_true(sizing_hw_flops_per_token(&fsdp,
		    AUTOSIZE_RECOMPUTE_SELECTIVE) <
		    sizing_hw_flops_per_token(&fsdp, AUTOSIZE_RECOMPUTE_FULL));
	/* Megatron's selective (core_attn) re-runs the attention core's
	 * forward with FlashAttention too: 4 L (heads x head_dim) s FLOPs
	 * a token, a third of the 12 L h s its forward and backward count */
	want = 4.0 * m.layers * m.heads * m.head_dim * meg.seq_len;
	assert_true(fabs(sizing_hw_flops_per_token(&meg,
		    AUTOSIZE_RECOMPUTE_SELECTIVE) -
		    sizing_hw_flops_per_token(&meg, AUTOSIZE_RECOMPUTE_NONE) -
		    want) < 1e-6 * want);
	/* the loss: 4 more bytes per logit under FSDP (pp 1, full
	 * recomputation: the same layers in both) */
	l.recompute = AUTOSIZE_RECOMPUTE_FULL;
	l.zero_stage = 1;
	sizing_memory(&meg, &l, &mm);
	fsdp.framework = AUTOSIZE_FRAMEWORK_FSDP;
	sizing_memory(&fsdp, &l, &mf);
	assert_true(mf.activations_bytes - mm.activations_bytes >
		    0.9 * (4 * s * b * m.vocab));
}

/* --moe-overlap where Megatron cannot run it (a pipeline without
 * interleaving, full recomputation): neither priced nor asked for. Where
 * it runs, the all-to-all and the pipeline transfers hide under one
 * compute, not twice: more compute never makes the step shorter. */
static void test_moe_overlap_limits(void **state)
{
	static const char *const opts[] = {"model", "mixtral-8x22b", "gpu",
		"h100", "gpus", "64", "ep", "8", "tp", "4", "pp", "8",
		"interleave", "1", "train-tokens", "5e11", "moe-overlap", "on",
		NULL};
	autosize_model m;
	autosize_partition part;
	autosize_error e;
	autosize_request r;
	autosize_plan plan;
	autosize_policy *p = autosize_policy_default(&e);
	sizing_job job;
	sizing_layout l = shape(1, 8, 8, 1);
	sizing_time on, off, more, tmp;
	autosize_step_parts parts;
	char buf[1024];

	assert_non_null(p);
	plan_megatron_args(p, opts, &r, &plan, buf, sizeof(buf));
	assert_null(strstr(buf, "--overlap-moe-expert-parallel-comm"));
	autosize_policy_destroy(p);

	job_for(&job, &m, &part, AUTOSIZE_FRAMEWORK_MEGATRON);
	assert_int_equal(autosize_model_preset("mixtral-8x7b", &m, &e), 0);
	/* one GPU a node on 25 Gb/s Ethernet: transfers beyond compute */
	part.gpus_per_node = 1;
	part.net = AUTOSIZE_NET_ETHERNET;
	part.net_gbps_per_node = 25;
	l.ep = 8;
	l.grad_accum = 32;
	l.recompute = AUTOSIZE_RECOMPUTE_NONE;
	sizing_step_time(&job, &l, &off);
	job.moe_overlap = 1;
	sizing_step_time(&job, &l, &on);
	/* vp 1 with a pipeline: no overlap */
	assert_true(fabs(on.step_s - off.step_s) < 1e-9 * off.step_s);
	l.vp = 4;
	sizing_step_time(&job, &l, &on);
	sizing_step_parts(&job, &l, &tmp, &parts);
	l.recompute = AUTOSIZE_RECOMPUTE_SELECTIVE_MLP;
	sizing_step_time(&job, &l, &more);
	/* Mixtral has no dense layer, and Megatron's "mlp" module
	 * recomputes the dense layers' MLP only: nothing more than the
	 * attention core's forward (module core_attn), a third of its
	 * forward and backward */
	assert_true(fabs(more.compute_s - on.compute_s -
			 parts.attention_s / 3) < 1e-9 * on.compute_s);
	/* with a dense first layer (DeepSeek's are) it recomputes that */
	m.dense_layers = 1;
	m.ffn_dense = m.ffn;
	l.recompute = AUTOSIZE_RECOMPUTE_NONE;
	sizing_step_time(&job, &l, &on);
	l.recompute = AUTOSIZE_RECOMPUTE_SELECTIVE_MLP;
	sizing_step_time(&job, &l, &more);
	assert_true(more.compute_s > on.compute_s);
	assert_true(more.step_s >= on.step_s * (1 - 1e-9));
	m.dense_layers = 0;
	/* full recomputation: no overlap either */
	l.recompute = AUTOSIZE_RECOMPUTE_FULL;
	sizing_step_time(&job, &l, &on);
	job.moe_overlap = 0;
	sizing_step_time(&job, &l, &off);
	assert_true(fabs(on.step_s - off.step_s) < 1e-9 * off.step_s);
}

/* Pipeline stage boundaries cross nodes once the job spans them
 * (Megatron's rank order puts the pipeline outermost): the same TP 1
 * PP 2 shape pays more p2p time on two nodes than on one. */
static void test_pp_link(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	sizing_layout one = shape(1, 2, 4, 1), two = shape(1, 2, 8, 1);
	sizing_time t1, t2;

	job_for(&job, &m, &part, AUTOSIZE_FRAMEWORK_MEGATRON);
	one.recompute = two.recompute = AUTOSIZE_RECOMPUTE_NONE;
	one.grad_accum = two.grad_accum = 8;
	sizing_step_time(&job, &one, &t1);
	sizing_step_time(&job, &two, &t2);
	assert_true(t1.pp_comm_s > 0);
	assert_true(t2.pp_comm_s > 2 * t1.pp_comm_s);
}

/* Pins: --ep must divide the experts, --cp needs a framework with it;
 * the plan and the Megatron arguments carry both. */
static void test_cp_ep_plan(void **state)
{
	autosize_request r;
	autosize_plan plan;
	autosize_error e;
	autosize_policy *p = autosize_policy_default(&e);
	char buf[AUTOSIZE_LAUNCH_MEGATRON_MAX];

	assert_non_null(p);
	autosize_request_init(&r);
	assert_int_equal(autosize_request_set(&r, "model", "mixtral-8x7b",
					      &e), 0);
	assert_int_equal(autosize_request_set(&r, "gpu", "h100", &e), 0);
	assert_int_equal(autosize_request_set(&r, "gpus", "32", &e), 0);
	assert_int_equal(autosize_request_set(&r, "ep", "3", &e), 0);
	assert_int_equal(autosize_request_finish(&r, &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &plan, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "--ep"));
	assert_int_equal(autosize_request_set(&r, "ep", "8", &e), 0);
	assert_int_equal(autosize_request_set(&r, "train-seq-len", "65536",
					      &e), 0);
	assert_int_equal(autosize_request_set(&r, "cp", "2", &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &plan, &e), AUTOSIZE_OK);
	assert_int_equal(plan.ep, 8);
	assert_int_equal(plan.cp, 2);
	assert_int_equal(plan.tp * plan.pp * plan.dp * plan.cp, 32);
	assert_true(autosize_launch_megatron_args(&r, &plan, buf,
						  sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "--context-parallel-size 2"));
	assert_non_null(strstr(buf, "--expert-model-parallel-size 8"));
	/* DeepSpeed's --cp is Ulysses: the heads split over cp ranks (32
	 * heads, 8 key/value heads: cp 2 runs, cp 64 does not) */
	assert_int_equal(autosize_request_set(&r, "train-framework",
					      "deepspeed", &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &plan, &e), AUTOSIZE_OK);
	assert_int_equal(plan.framework, AUTOSIZE_FRAMEWORK_DEEPSPEED);
	assert_int_equal(plan.cp, 2);
	assert_int_equal(plan.dp % plan.ep, 0);
	assert_true(plan.step.cp_comm_s > 0);
	assert_int_equal(autosize_request_set(&r, "cp", "64", &e), 0);
	assert_int_equal(autosize_request_set(&r, "gpus", "128", &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &plan, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "Ulysses"));
	autosize_policy_destroy(p);
}

/* Megatron's block method: Llama 3 405B on 8192 H100s (Meta's layout,
 * TP 8 PP 16, 8k sequences) fits with part of each stage recomputed, is
 * faster than with every layer recomputed, and the launcher says how
 * many layers per virtual stage. */
static void test_partial_recompute_plan(void **state)
{
	static const char *const opts[] = {"layers", "126", "hidden",
		"16384", "heads", "128", "kv-heads", "8", "ffn", "53248",
		"vocab", "128256", "gpu", "h100", "gpus", "8192", "tp", "8",
		"pp", "16", "cp", "1", "train-seq-len", "8192", "train-batch",
		"2048", "train-tokens", "1e12", "memory-reserve", "0", NULL};
	autosize_request r;
	autosize_plan plan, all;
	autosize_error e;
	autosize_policy *p = autosize_policy_default(&e);
	char buf[1024], want[64];

	assert_non_null(p);
	plantest_request_set(opts, &r);
	assert_int_equal(autosize_request_finish(&r, &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &plan, &e), AUTOSIZE_OK);
	assert_true(plan.feasible);
	assert_int_equal(plan.recompute, AUTOSIZE_RECOMPUTE_FULL);
	assert_true(plan.recompute_layers > 0);
	assert_true(plan.recompute_layers < (126 + 15) / 16);
	assert_int_equal(plan.recompute_layers % plan.vp, 0);
	assert_true(autosize_launch_megatron_args(&r, &plan, buf,
						  sizeof(buf)) > 0);
	snprintf(want, sizeof(want), "--recompute-method block "
		 "--recompute-num-layers %d ", plan.recompute_layers / plan.vp);
	assert_non_null(strstr(buf, want));
	/* --recompute full recomputes every layer: slower */
	assert_int_equal(autosize_request_set(&r, "recompute", "full", &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &all, &e), AUTOSIZE_OK);
	assert_int_equal(all.recompute_layers, 0);
	assert_true(plan.tokens_per_s > 1.05 * all.tokens_per_s);
	autosize_policy_destroy(p);
}

/* --recompute-layers pins Megatron's block method: the first N layers of
 * each virtual stage recomputed (the plan counts a pipeline rank's, N x
 * vp), priced between none and every layer, and the launcher asks for N.
 * It is full recomputation's: another --recompute is refused; a
 * framework without the method is left for Megatron where none is named
 * and recomputes every layer, said, where one is. */
static void test_recompute_layers_pin(void **state)
{
	static const char *const opts[] = {"layers", "80", "hidden", "8192",
		"heads", "64", "kv-heads", "8", "ffn", "28672", "vocab",
		"32000", "gpu", "mi300x", "gpus", "8", "tp", "1", "pp", "1",
		"micro-batch", "1", "train-seq-len", "8192", "train-batch", "8",
		"train-precision", "fp8", "train-mode", "lora", "train-tokens",
		"1e9", "memory-reserve", "0", "recompute-layers", "21", NULL};
	static const char *const deep[] = {"layers", "80", "hidden", "8192",
		"heads", "64", "kv-heads", "8", "ffn", "28672", "gpu", "h100",
		"gpus", "32", "tp", "4", "pp", "4", "interleave", "2",
		"train-framework", "megatron", "train-seq-len", "4096",
		"train-batch", "64", "train-tokens", "1e9", "memory-reserve",
		"0", "recompute-layers", "3", NULL};
	static const char *const zero2[] = {"model-params", "8e9", "gpu",
		"h100", "gpus", "8", "zero", "2", "train-tokens", "1e9",
		"recompute-layers", "4", NULL};
	autosize_request r;
	autosize_record rec;
	autosize_plan plan, all;
	autosize_error e;
	autosize_policy *p = autosize_policy_default(&e);
	char buf[2048];
	int i;

	assert_non_null(p);
	/* LoRA defaults to FSDP: the pin asks for Megatron (NeMo's LoRA;
	 * Megatron-LM's arguments train every weight) */
	plantest_request_set(opts, &r);
	assert_int_equal(autosize_request_finish(&r, &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &plan, &e), AUTOSIZE_OK);
	assert_int_equal(plan.framework, AUTOSIZE_FRAMEWORK_MEGATRON);
	assert_true(has_warning(&plan, "fsdp does not run the pinned layout"));
	assert_int_equal(plan.recompute, AUTOSIZE_RECOMPUTE_FULL);
	assert_int_equal(plan.recompute_layers, 21);
	assert_true(autosize_launch_summary(&plan, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "recompute full (21 layers of each "
			       "stage)"));
	assert_int_equal(autosize_launch_recompute_num_layers(&r, &plan), 21);
	/* every layer: less memory, more recomputed work */
	r.recompute_layers = AUTOSIZE_UNSET;
	r.framework = AUTOSIZE_FRAMEWORK_MEGATRON;
	assert_int_equal(autosize_plan_compute(p, &r, &all, &e), AUTOSIZE_OK);
	assert_int_equal(all.recompute_layers, 0);
	assert_true(plan.mem.total_bytes > all.mem.total_bytes + (1ULL << 30));
	assert_true(plan.tokens_per_s > 1.02 * all.tokens_per_s);
	/* every layer: the block method's count is all of a stage's (0
	 * would recompute none) */
	assert_int_equal(autosize_launch_recompute_num_layers(&r, &all), 80);
	/* a stage's every layer is all of them */
	r.recompute_layers = 80;
	assert_int_equal(autosize_plan_compute(p, &r, &plan, &e), AUTOSIZE_OK);
	assert_int_equal(plan.recompute_layers, 0);
	/* FSDP named: every layer, said */
	r.recompute_layers = 21;
	r.framework = AUTOSIZE_FRAMEWORK_FSDP;
	assert_int_equal(autosize_plan_compute(p, &r, &plan, &e), AUTOSIZE_OK);
	assert_int_equal(plan.recompute, AUTOSIZE_RECOMPUTE_FULL);
	assert_int_equal(plan.recompute_layers, 0);
	assert_true(has_warning(&plan, "--recompute-layers is Megatron's "
				"block method: fsdp recomputes every layer"));
	for (i = 0; i < plan.n_warnings; i++)
		if (strstr(plan.warnings[i], "--recompute-layers"))
			assert_string_equal(autosize_warning_code(
						plan.warnings[i]),
					    "recompute_layers_other");
	/* per virtual stage: 3 of each of 2 chunks, 6 of a rank's 20 */
	plan_megatron_args(p, deep, &r, &plan, buf, sizeof(buf));
	assert_int_equal(plan.vp, 2);
	assert_int_equal(plan.recompute_layers, 6);
	assert_non_null(strstr(buf, "--recompute-method block "
			       "--recompute-num-layers 3 "));
	assert_true(autosize_launch_summary(&plan, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "(3 layers of each virtual stage)"));
	/* the nodes' re-plan from slurmctld's record keeps the count */
	autosize_record_from_plan(&plan, &rec);
	plantest_request_set(deep, &r);
	r.recompute_layers = AUTOSIZE_UNSET;
	assert_int_equal(autosize_request_finish(&r, &e), 0);
	autosize_record_pin(&rec, &r);
	assert_int_equal(autosize_plan_compute(p, &r, &all, &e), AUTOSIZE_OK);
	assert_int_equal(all.recompute_layers, 6);
	assert_true(all.tokens_per_s == plan.tokens_per_s);
	/* too few recomputed to fit: the reason names the count */
	r.memory_reserve = 0.5;
	r.recompute_layers = 1;
	assert_int_equal(autosize_plan_compute(p, &r, &all, &e),
			 AUTOSIZE_ENOFIT);
	assert_non_null(strstr(all.reason, "at --recompute-layers 1 the "
			       "other layers' activations do not fit"));
	/* a pin Megatron cannot run (ZeRO-2) wins: FSDP, every layer */
	plantest_request_set(zero2, &r);
	assert_int_equal(autosize_request_finish(&r, &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &plan, &e), AUTOSIZE_OK);
	assert_int_equal(plan.framework, AUTOSIZE_FRAMEWORK_FSDP);
	assert_int_equal(plan.zero_stage, 2);
	assert_int_equal(plan.recompute_layers, 0);
	assert_true(has_warning(&plan, "--recompute-layers is Megatron's"));
	/* full recomputation's, not another setting's */
	plantest_request_set(opts, &r);
	assert_int_equal(autosize_request_set(&r, "recompute", "none", &e), 0);
	assert_int_equal(autosize_request_finish(&r, &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "--recompute-layers 21 recomputes "
			       "whole layers, not --recompute none"));
	assert_int_not_equal(autosize_request_set(&r, "recompute-layers", "0",
						  &e), 0);
	autosize_policy_destroy(p);
}

/* --grad-reduce: parsed and refused by name; bf16 halves Megatron's
 * gradient buffer and its data-parallel traffic (faster where that
 * traffic is exposed: on 800 Gb/s RoCE per node, not on 8 x 400 Gb/s
 * InfiniBand, where the backward hides either), and the launcher asks
 * Megatron-LM for it. */
static void test_grad_reduce(void **state)
{
	static const char *const opts[] = {"layers", "44", "hidden", "6144",
		"heads", "48", "vocab", "50304", "mlp", "gelu", "gpu", "h100",
		"gpus", "64", "tp", "2", "pp", "1", "micro-batch", "2",
		"train-seq-len", "2048", "train-batch", "256",
		"train-framework", "megatron", "recompute", "full",
		"memory-reserve", "0", "train-tokens", "1e12", NULL};
	autosize_request r;
	autosize_plan fp32, bf16;
	autosize_error e;
	autosize_policy *p = autosize_policy_default(&e);
	char buf[1024];

	assert_non_null(p);
	plantest_request_set(opts, &r);
	assert_int_not_equal(autosize_request_set(&r, "grad-reduce", "fp16",
						  &e), 0);
	assert_non_null(strstr(e.msg, "--grad-reduce"));
	assert_int_equal(autosize_request_finish(&r, &e), 0);
	assert_int_equal(autosize_plan_compute(p, &r, &fp32, &e), AUTOSIZE_OK);
	assert_true(autosize_launch_megatron_args(&r, &fp32, buf,
						  sizeof(buf)) > 0);
	assert_null(strstr(buf, "--grad-reduce-in-bf16"));
	assert_int_equal(autosize_request_set(&r, "grad-reduce", "bf16", &e),
			 0);
	assert_int_equal(autosize_plan_compute(p, &r, &bf16, &e), AUTOSIZE_OK);
	assert_true(fabs(bf16.mem.gradients_bytes -
			 fp32.mem.gradients_bytes / 2) <
		    1e-6 * fp32.mem.gradients_bytes);
	assert_true(bf16.tokens_per_s >= fp32.tokens_per_s);
	assert_true(autosize_launch_megatron_args(&r, &bf16, buf,
						  sizeof(buf)) > 0);
	assert_non_null(strstr(buf, " --grad-reduce-in-bf16"));
	assert_int_equal(autosize_request_set(&r, "network", "roce:800", &e),
			 0);
	assert_int_equal(autosize_plan_compute(p, &r, &bf16, &e), AUTOSIZE_OK);
	assert_int_equal(autosize_request_set(&r, "grad-reduce", "fp32", &e),
			 0);
	assert_int_equal(autosize_plan_compute(p, &r, &fp32, &e), AUTOSIZE_OK);
	assert_true(bf16.tokens_per_s > fp32.tokens_per_s);
	assert_int_equal(autosize_request_set(&r, "network", "ib:3200", &e),
			 0);
	/* fp32 stated is the Megatron default */
	assert_int_equal(autosize_request_set(&r, "grad-reduce", "fp32", &e),
			 0);
	assert_int_equal(autosize_plan_compute(p, &r, &bf16, &e), AUTOSIZE_OK);
	assert_true(bf16.mem.gradients_bytes == fp32.mem.gradients_bytes);
	autosize_policy_destroy(p);
}

/* Data-parallel buckets (framework_dp_buckets): each framework's own
 * default, Megatron's growing with the dp group so that a large
 * group stays bandwidth-bound, FSDP one per wrapped layer. */
static void test_dp_buckets(void **state)
{
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	sizing_layout small = shape(1, 1, 8, 1), big = shape(1, 1, 1024, 1);
	double grad_b = 4.0 * 7e9; /* a 7B model's fp32 gradients */

	(void)state;
	job_for(&job, &m, &part, AUTOSIZE_FRAMEWORK_MEGATRON);
	/* 40M parameters a bucket up to 40 ranks, 1M a rank above */
	assert_true(framework_dp_buckets(&job, &small, grad_b, 4, 32) ==
		    ceil(7e9 / 40e6));
	assert_true(framework_dp_buckets(&job, &big, grad_b, 4, 32) ==
		    ceil(7e9 / 1024e6));
	/* the dp group's size: context parallelism left out */
	big.cp = 2;
	assert_true(framework_dp_buckets(&job, &big, grad_b, 4, 32) ==
		    ceil(7e9 / 1024e6));
	job.framework = AUTOSIZE_FRAMEWORK_DEEPSPEED;
	assert_true(framework_dp_buckets(&job, &small, grad_b / 2, 2, 32) ==
		    ceil(7e9 / 5e8));
	job.framework = AUTOSIZE_FRAMEWORK_FSDP;
	small.zero_stage = 3;
	assert_true(framework_dp_buckets(&job, &small, grad_b, 4, 32) == 32);
	small.zero_stage = 0;
	assert_true(framework_dp_buckets(&job, &small, grad_b, 4, 32) ==
		    ceil(grad_b / (25.0 * 1024 * 1024)));
	assert_true(framework_dp_buckets(&job, &small, 0, 4, 32) == 0);
}

/* Interleaving's micro-batch groups (framework_vp_group): which counts
 * each framework's schedule runs, what a group holds in flight, and no
 * searched plan with virtual stages the schedule would refuse. */
static void test_vp_group(void **state)
{
	static const char *const models[] = {"llama-3.1-70b", "llama-3-8b"};
	static const char *const fws[] = {"megatron", "fsdp"};
	autosize_model m;
	autosize_partition part;
	sizing_job job;
	sizing_layout l = shape(1, 4, 2, 1);
	autosize_memory m8, m6;
	autosize_policy *p;
	autosize_error e;
	int i, batch, vp_plans = 0;

	/* Megatron: the least group in [pp, m] leaving no remainder, or one
	 * of at least pp; never fewer micro-batches than stages */
	assert_int_equal(framework_vp_group(AUTOSIZE_FRAMEWORK_MEGATRON, 4, 5,
					    8), 4);
	assert_int_equal(framework_vp_group(AUTOSIZE_FRAMEWORK_MEGATRON, 4, 5,
					    6), 6);
	assert_int_equal(framework_vp_group(AUTOSIZE_FRAMEWORK_MEGATRON, 4, 5,
					    3), 0);
	assert_int_equal(framework_vp_group(AUTOSIZE_FRAMEWORK_MEGATRON, 16,
					    2, 120), 20);
	/* torch's Interleaved1F1B: rounds of m / pp dividing m */
	assert_int_equal(framework_vp_group(AUTOSIZE_FRAMEWORK_FSDP, 4, 8, 12),
			 4);
	assert_int_equal(framework_vp_group(AUTOSIZE_FRAMEWORK_FSDP, 4, 8, 7),
			 7);
	assert_int_equal(framework_vp_group(AUTOSIZE_FRAMEWORK_FSDP, 4, 8, 14),
			 0);
	assert_int_equal(framework_vp_group(AUTOSIZE_FRAMEWORK_DEEPSPEED, 4, 2,
					    8), 0);
	assert_int_equal(framework_vp_group(AUTOSIZE_FRAMEWORK_DEEPSPEED, 4, 1,
					    8), 4);
	/* a group of 6 warms up two more chunk passes than one of 4: a
	 * sixth more of the first stage's layers in flight (5.5 -> 6.5) */
	job_for(&job, &m, &part, AUTOSIZE_FRAMEWORK_MEGATRON);
	l.vp = 2;
	l.recompute = AUTOSIZE_RECOMPUTE_NONE;
	l.grad_accum = 8;
	sizing_memory(&job, &l, &m8);
	l.grad_accum = 6;
	sizing_memory(&job, &l, &m6);
	assert_true(m6.activations_bytes > m8.activations_bytes * 1.05);
	/* every searched plan with virtual stages runs under its schedule */
	p = autosize_policy_default(&e);
	assert_non_null(p);
	for (i = 0; i < 2; i++)
		for (batch = 1; batch <= 40; batch++) {
			autosize_request r;
			autosize_plan plan;
			char b[16];
			const char *const opts[] = {"model", models[i],
				"train-framework", fws[i], "train-batch", b,
				"nodes", "4", "gpu", "h100", "train-tokens",
				"1e8", NULL};

			snprintf(b, sizeof(b), "%d", batch);
			plantest_request_set(opts, &r);
			assert_int_equal(autosize_request_finish(&r, &e), 0);
			if (autosize_plan_compute(p, &r, &plan, &e) !=
			    AUTOSIZE_OK || plan.vp <= 1)
				continue;
			vp_plans++;
			if (framework_vp_group(plan.framework, plan.pp,
					       plan.vp, plan.grad_accum) <= 0)
				fail_msg("%s, batch %d: pp %d vp %d with %d "
					 "micro-batches", models[i], batch,
					 plan.pp, plan.vp, plan.grad_accum);
		}
	assert_true(vp_plans > 10);
	autosize_policy_destroy(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offering),
		cmocka_unit_test(test_zero_stages),
		cmocka_unit_test(test_state_bytes),
		cmocka_unit_test(test_param_wire),
		cmocka_unit_test(test_buffers),
		cmocka_unit_test(test_option_and_policy),
		cmocka_unit_test(test_launch_args),
		cmocka_unit_test(test_plan_pins),
		cmocka_unit_test(test_cp_ep_terms),
		cmocka_unit_test(test_cp_ep_plan),
		cmocka_unit_test(test_partial_recompute_plan),
		cmocka_unit_test(test_recompute_layers_pin),
		cmocka_unit_test(test_grad_reduce),
		cmocka_unit_test(test_moe_overlap),
		cmocka_unit_test(test_moe_dispatcher),
		cmocka_unit_test(test_moe_dispatcher_refused),
		cmocka_unit_test(test_expert_flex_issue),
		cmocka_unit_test(test_expert_fp8_issue),
		cmocka_unit_test(test_expert_tp),
		cmocka_unit_test(test_expert_tp_gather),
		cmocka_unit_test(test_expert_tp_choice),
		cmocka_unit_test(test_middle_stage_cap),
		cmocka_unit_test(test_pp_link),
		cmocka_unit_test(test_moe_overlap_limits),
		cmocka_unit_test(test_op_sac),
		cmocka_unit_test(test_vp_group),
		cmocka_unit_test(test_dp_buckets),
	};

	return cmocka_run_group_tests_name("framework", tests,
					   catalog_setup,
					   catalog_teardown);
}
