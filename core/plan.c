/*
 * autosize: turn a request into a plan: resolve the partition and model,
 * search the layouts (search.c), then derive time limit, cost and the
 * warnings a user needs at submit time.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "autosize/launch.h"
#include "autosize/options.h"
#include "autosize/parse.h"
#include "sizing.h"
#include "rank.h"
#include "plan_work.h"
#include "plan_host.h"
#include "checkpoint_private.h"
#include "calibration_private.h"
#include "framework_private.h"

/* Tokens per optimizer step when the user gives no --train-batch:
 * ~4M tokens, as Llama 2 (Touvron et al. 2023, section 2.2). */
#define PLAN_DEFAULT_BATCH_TOKENS (4.0 * 1024 * 1024)
#define PLAN_DEFAULT_LORA_RANK 16
/* Sequences per step when a fine-tuning job (full, LoRA or QLoRA) gives
 * no --train-batch: 128, the batch of the LoRA paper's GPT-3 175B runs
 * (Hu et al. 2021, table 12) and of Stanford Alpaca's fine-tuning; the
 * pretraining batch (~4M tokens) would make a 100M-token fine-tune 24
 * optimizer steps. */
#define PLAN_DEFAULT_FINETUNE_BATCH 128
/* Warn below this share of linear scaling and this utilization. */
#define PLAN_WARN_SCALING 0.60
#define PLAN_WARN_MFU 0.35
/* Warn when the pipeline bubble takes more than this share of a step;
 * suggest the batch that brings the bubble to PLAN_BUBBLE_OK. */
#define PLAN_WARN_BUBBLE 0.20
#define PLAN_BUBBLE_OK 0.10
/* A fixed size is called larger than needed only when a smaller one
 * saves at least this share of the GPU-hours (and of the money). */
#define PLAN_OVERSIZE_SAVING 0.10

/* The policy's interruptions as the share of wall time one GPU costs. */
static double plan_lost_per_gpu(const autosize_defaults *d)
{
	return d->gpu_mtbf_hours > 0 ? d->restart_minutes / 60 /
				       d->gpu_mtbf_hours : 0;
}

/* The deadline of a request and who set it (for the plan's words). */
static double plan_deadline(const autosize_policy *p,
			    const autosize_request *r, const char **from)
{
	const autosize_defaults *d = autosize_policy_defaults(p);
	double h = d->horizon_s;

	*from = "--train-time";
	if (r->deadline_s > 0)
		return r->deadline_s;
	*from = "the site's default deadline";
	if (d->deadline_s > 0)
		return d->deadline_s;
	/* no deadline: a plan a person would wait for, not the smallest
	 * size that fits whatever it takes */
	*from = "the site's horizon for jobs without --train-time";
	if (d->max_train_s > 0 && h > d->max_train_s)
		h = d->max_train_s;
	return h;
}

double autosize_plan_deadline_s(const autosize_policy *p,
				const autosize_request *r)
{
	const char *from;

	return plan_deadline(p, r, &from);
}

static autosize_err plan_model(const autosize_request *r, autosize_model *m,
			       autosize_error *e)
{
	*m = r->model;
	if (m->has_arch)
		return AUTOSIZE_OK;
	if (!(m->params >= 1))
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "no model: give --model-params (e.g. "
				     "70e9), --model (preset or config.json) "
				     "or --layers/--hidden/--heads");
	return autosize_model_synthesize(m, e);
}

/* More GPUs would have met the deadline but scale below the site's
 * floor: say by how much and what they would lose their time to. */
static void plan_capped_warning(autosize_plan *plan, const search_result *res,
				double floor)
{
	char cause[160];

	switch (res->capped_loss) {
	case SEARCH_LOSS_PIPELINE:
		snprintf(cause, sizeof(cause), "pipeline transfers between "
			 "stages on other nodes");
		break;
	case SEARCH_LOSS_GRADIENTS:
		snprintf(cause, sizeof(cause), "gradient reduction over the "
			 "network");
		break;
	case SEARCH_LOSS_MODEL:
		snprintf(cause, sizeof(cause), "tensor, expert or context "
			 "parallel traffic");
		break;
	default:
		snprintf(cause, sizeof(cause), "the pipeline bubble: the "
			 "global batch of %d sequences cannot feed them",
			 plan->global_batch);
		break;
	}
	autosize_plan_warn(plan, "more GPUs would not help: %d GPUs would "
			   "each run at %.0f%% of the best speed per GPU (the "
			   "site's floor is %.0f%%, min_scaling_efficiency), "
			   "most of the rest lost to %s; planned on %d GPUs%s",
			   res->capped_gpus, 100 * res->capped_eff,
			   100 * floor, cause, plan->gpus,
			   res->capped_loss == SEARCH_LOSS_BUBBLE
			   ? ", or raise --train-batch" : "");
}

/*
 * With no framework named (neither --train-framework nor a stack), a
 * pinned layout the default framework cannot run is a request for one
 * that runs it: --zero 2 under a Megatron default, --zero 3 with --pp,
 * --cp with QLoRA's TP-less Megatron. Tried in the order megatron,
 * fsdp, deepspeed after the default; none: the default stays, and the
 * search refuses the pins with its reason. job->framework_switched says
 * so for the plan's warning.
 */
static int plan_framework_try(sizing_job *job, const sizing_layout *pins)
{
	static const autosize_framework order[] = {
		AUTOSIZE_FRAMEWORK_MEGATRON, AUTOSIZE_FRAMEWORK_FSDP,
		AUTOSIZE_FRAMEWORK_DEEPSPEED};
	autosize_framework was = framework_resolve(job->framework);
	size_t i;

	if (framework_pins_ok(job, was, pins))
		return 1;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (order[i] != was && framework_pins_ok(job, order[i], pins)) {
			job->framework = order[i];
			job->framework_switched = was;
			return 1;
		}
	return 0;
}

static void plan_framework_for_pins(sizing_job *job,
				    const autosize_request *r)
{
	sizing_layout pins;

	framework_pins_layout(r, &pins);
	if (plan_framework_try(job, &pins))
		return;
	/* --recompute-layers asks for Megatron only where no other pin
	 * rules it out: else every layer, said (plan_search_on) */
	pins.recompute_layers = 0;
	(void)plan_framework_try(job, &pins);
}

/* A pin's factor of the model split, 1 when the search picks it. */
static double plan_pin(int v)
{
	return v > 0 ? v : 1;
}

/*
 * The pretraining batch a request leaves free: ~4M tokens
 * (PLAN_DEFAULT_BATCH_TOKENS), but at least a sequence for every
 * data-parallel rank of a size the request fixes: 4M tokens of 4096 are
 * 1024 sequences, which 1920 GPUs share only with a model split that
 * 1920 / 1024 does not give (phi-4's 1920 H100 planned at TP 2 x PP 15,
 * its bubble most of a step). A pinned TP x PP x CP split keeps its
 * ranks: the batch it starves is said, not raised (plan_warn_batch).
 */
static int plan_default_batch(const autosize_request *r,
			      const autosize_partition *part, int seq_len)
{
	double batch = fmax(1, floor(PLAN_DEFAULT_BATCH_TOKENS / seq_len));
	double gpus = r->gpus > 0 ? r->gpus
		      : r->nodes > 0 ? (double)r->nodes *
				       (r->gpus_per_node > 0
					? r->gpus_per_node
					: part->gpus_per_node) : 0;
	double ranks = gpus / (plan_pin(r->tp) * plan_pin(r->pp) *
			       plan_pin(r->cp));

	return (int)fmin(fmax(batch, ceil(ranks)), 1e9);
}

/* What a plan's MoE dispatcher left unsaid: DeepEP between the trays of
 * an NVLink domain (over RDMA, perf.c), or a flex backend asked for on a
 * layout that exchanges no tokens (sizing_layout_dispatcher). */
static void plan_dispatcher_warnings(const autosize_request *r,
				     const sizing_job *job,
				     autosize_plan *plan,
				     const sizing_layout *lay)
{
	sizing_job at = *job;

	at.gpus_per_node = plan->gpus_per_node;   /* as search.c laid it */
	if (sizing_deepep_over_rdma(&at, lay))
		autosize_plan_warn(plan, "--moe-dispatcher deepep sends EP "
				   "%d's tokens between the nodes of an "
				   "NVLink domain over RDMA (Megatron-Core "
				   "runs multi-node NVLink with hybridep "
				   "only): --moe-dispatcher=hybridep keeps "
				   "them on NVLink", plan->ep);
	if (autosize_moe_dispatcher_flex(r->moe_dispatcher) &&
	    plan->moe_dispatcher == AUTOSIZE_MOE_DISPATCH_ALLTOALL)
		autosize_plan_warn(plan, "--moe-dispatcher %s: the layout "
				   "keeps every expert on its rank (EP 1), "
				   "where %s has nothing to send: planned and "
				   "exported with alltoall",
				   autosize_moe_dispatcher_name(
					r->moe_dispatcher),
				   autosize_moe_dispatcher_name(
					r->moe_dispatcher));
}

/* Fill the layout-independent part of a job. */
static void plan_job(const autosize_policy *p, const autosize_request *r,
		     const autosize_model *m, const autosize_partition *part,
		     sizing_job *job, double reserve)
{
	const char *stack = r->stack[0] ? r->stack
				 : autosize_policy_stack_for(p, r->rule);

	memset(job, 0, sizeof(*job));
	job->model = m;
	job->part = part;
	job->train_mode = r->train_mode;
	/* what the job's stack trains in (launch_run.c: torchtune's LoRA
	 * recipes and the HF Trainer under DeepSpeed have no FP8) */
	job->precision = autosize_launch_precision(r, NULL, 0);
	job->optimizer = r->optimizer;
	job->grad_reduce_b = r->grad_reduce_b > 0 ? r->grad_reduce_b : 0;
	job->moe_overlap = r->moe_overlap == 1;
	job->moe_balanced = r->moe_balanced == 1;
	job->segment_user_nodes = r->segment_nodes > 0 ? r->segment_nodes
						       : 0;
	/* the stack the user names, else the site's (perf.yaml stacks:),
	 * looked up in the site's table, else the compiled-in one */
	job->stack = stack[0] ? perfdata_stack_find(perfdata_for(p), stack)
			      : NULL;
	if (stack[0] && !job->stack)
		job->stack = perfdata_stack_find(perfdata_default(), stack);
	job->act_offload = r->act_offload ? r->act_offload == 1
					  : job->stack && job->stack->act_offload;
	job->param_offload = r->param_offload == 1;
	/* offloaded parameters take their optimizer state with them */
	job->opt_offload = r->opt_offload == 1 || job->param_offload;
	/* stated by the user, else the stack's engine, else the site's
	 * default: never inferred from the layout, except that LoRA and
	 * QLoRA with neither a framework nor a stack never default to
	 * Megatron-LM, which trains neither (PEFT adapters run under FSDP;
	 * NeMo's LoRA is the nemo stack), and neither does
	 * --param-offload (Megatron-LM keeps its parameters on the GPU) */
	job->framework = r->framework != AUTOSIZE_FRAMEWORK_DEFAULT
			 ? r->framework
			 : job->stack ? job->stack->framework
			 : autosize_policy_framework_for(p, r->rule);
	/* a stack's reduce precision under FSDP where none is stated
	 * (accelerate: reduce_dtype is the mixed-precision dtype; NeMo
	 * AutoModel: its MoE parallelizer's own policy) */
	if (!job->grad_reduce_b && job->stack &&
	    framework_resolve(job->framework) == AUTOSIZE_FRAMEWORK_FSDP) {
		double b = job->stack->grad_reduce_bytes;

		if (job->model->experts > 1 &&
		    job->stack->moe_grad_reduce_bytes > 0)
			b = job->stack->moe_grad_reduce_bytes;
		if (b > 0)
			job->grad_reduce_b = (int)b;
	}
	if (r->framework == AUTOSIZE_FRAMEWORK_DEFAULT && !job->stack &&
	    (r->train_mode == AUTOSIZE_TRAIN_LORA ||
	     r->train_mode == AUTOSIZE_TRAIN_QLORA ||
	     job->param_offload) &&
	    framework_resolve(job->framework) == AUTOSIZE_FRAMEWORK_MEGATRON)
		job->framework = AUTOSIZE_FRAMEWORK_FSDP;
	if (r->framework == AUTOSIZE_FRAMEWORK_DEFAULT && !job->stack)
		plan_framework_for_pins(job, r);
	/* the dispatcher stated; DEFAULT: the stack's
	 * (sizing_moe_dispatcher) */
	job->moe_dispatcher = r->moe_dispatcher;
	/* NVFP4 trains under Megatron-Core only (launch_run.c): a site's
	 * other default framework trains the job in bf16 */
	if (job->precision == AUTOSIZE_PREC_NVFP4 &&
	    framework_resolve(job->framework) != AUTOSIZE_FRAMEWORK_MEGATRON)
		job->precision = AUTOSIZE_PREC_BF16;
	job->seq_len = r->seq_len > 0 ? r->seq_len
		       : (m->mlp == AUTOSIZE_MLP_GELU && !m->arch_synthetic
			  ? 2048 : 4096);
	job->global_batch = r->global_batch > 0 ? r->global_batch
		: r->train_mode != AUTOSIZE_TRAIN_PRETRAIN
		? PLAN_DEFAULT_FINETUNE_BATCH
		: plan_default_batch(r, part, job->seq_len);
	job->flash_attention = r->flash_attention != AUTOSIZE_UNSET
			       ? r->flash_attention : 1;
	job->lora_rank = r->lora_rank != AUTOSIZE_UNSET ? r->lora_rank
						       : PLAN_DEFAULT_LORA_RANK;
	/* a resumed run plans what is left (--train-tokens-done) */
	job->tokens = r->tokens > 0 && r->tokens_done > 0
		      ? fmax(0, r->tokens - r->tokens_done) : r->tokens;
	/* evaluations recur through the run: what is left of them */
	job->eval_tokens = r->eval_tokens > 0 && r->tokens > 0
			   ? r->eval_tokens * job->tokens / r->tokens : 0;
	job->min_scaling = autosize_policy_defaults(p)->min_scaling;
	job->lost_per_gpu = plan_lost_per_gpu(autosize_policy_defaults(p));
	/* a fixed --mfu is the whole run's utilization (the seed
	 * articles' 40%, failures and all) */
	job->run_efficiency = r->mfu > 0 ? 1 : perfdata_for(p)->run_efficiency;
	job->peak_flops = autosize_gpu_peak_flops(part->gpu, job->precision);
	job->mfu_fixed = r->mfu;
	job->usable_bytes = part->gpu->mem_bytes * (1 - reserve);
	perfdata_resolve(perfdata_for(p), part->gpu, job->precision,
			 &job->perf);
	if (job->stack) {
		perfdata_stack_for(job->stack, job->perf.generation,
				   &job->stack_gen);
		job->stack = &job->stack_gen;
	}
	sizing_job_prepare(job);
}

/* The layout plan chose, as the sizing model takes it. */
static void plan_layout_of(const autosize_plan *plan, sizing_layout *lay)
{
	memset(lay, 0, sizeof(*lay));
	lay->tp = plan->tp;
	lay->pp = plan->pp;
	lay->dp = plan->dp;
	lay->cp = plan->cp;
	lay->ep = plan->ep;
	lay->etp_one = plan->etp == 1 && plan->tp > 1;
	lay->vp = plan->vp > 0 ? plan->vp : 1;
	lay->zero_stage = plan->zero_stage;
	lay->micro_batch = plan->micro_batch;
	lay->grad_accum = plan->grad_accum;
	lay->recompute = plan->recompute;
	lay->recompute_layers = plan->recompute_layers;
}

/*
 * GPUs the job needs before rounding to nodes and layouts: enough compute
 * to meet the deadline at the plan's utilization (or the fixed --mfu)
 * over the share of the run's wall time its steps get at that size
 * (sizing_goodput, settled in a few rounds), and enough memory for the
 * model states spread over every GPU.
 */
static double plan_gpus_min(const sizing_job *job, const autosize_plan *plan,
			    double deadline_s)
{
	double mfu = job->mfu_fixed > 0 ? job->mfu_fixed : plan->mfu;
	double need = 0, states, flops = plan->flops_total;
	sizing_layout one = {1, 1, 1, 1, 0, 1, 1, 0, AUTOSIZE_RECOMPUTE_FULL,
			     1, 1, 0, 0}, lay;
	autosize_memory mem;
	int i;

	/* evaluations (--eval-tokens): the forward pass alone, at the
	 * layout's share of a step's hardware FLOPs (sizing_steps_s), in
	 * the model FLOPs the utilization counts */
	plan_layout_of(plan, &lay);
	if (job->eval_tokens > 0)
		flops += job->eval_tokens * sizing_forward_share(job, &lay) *
			 sizing_model_flops_per_token(job);
	if (deadline_s > 0 && plan->flops_total > 0 && mfu > 0)
		for (i = 0; i < 4; i++)
			need = flops /
			       (job->peak_flops * mfu * deadline_s *
				sizing_goodput(job, fmax(need, 1)));
	/* offloaded states leave the GPU from ZeRO-3 even on one GPU */
	if (job->param_offload)
		one.zero_stage = 3;
	sizing_memory(job, &one, &mem);
	states = mem.weights_bytes + mem.gradients_bytes +
		 mem.optimizer_bytes;
	if (job->usable_bytes > 0 && states / job->usable_bytes > need)
		need = states / job->usable_bytes;
	/* ceil, tolerant of rounding noise in exact cases */
	return ceil(need - 1e-9);
}

#define PLAN_MAX_LIMIT_MIN (100.0 * 365 * 24 * 60)

/* Chained jobs counted at most (a max time barely above the start-up). */
#define PLAN_MAX_CHAINED 1e9
/* Where the interval stands on less than its own data, its residual
 * spread is widened by this factor (log scale): a GPU whose performance
 * data are its generation's, and a regime with too few validation runs
 * of its own, which takes the pooled spread of all regimes (the fit is
 * extrapolated there: the held-out runs such regimes missed were the
 * ones their time limits did not cover). */
#define PLAN_FALLBACK_WIDEN 1.5

/* A stack whose runs were checked on other GPU generations: real time
 * from half to four times the prediction (log bounds), the spread between
 * Hugging Face-class stacks and torchtitan on the same GPUs that the
 * validation's fine-tuning runs show (doc/stacks.md). */
#define PLAN_STACK_UNCHECKED_LO (-0.693)
#define PLAN_STACK_UNCHECKED_HI 1.386

/* Interval of the predicted time from the residuals of the plan's regime
 * (etc/perf.yaml residuals:, from make validate): prediction x
 * exp(quantiles of log(real / predicted)). */
static void plan_interval(const perfdata_table *tab, autosize_plan *plan,
			  int fallback, const perfdata_stack *st)
{
	perfdata_regime g;
	int pooled;
	double lo, hi;

	plan->train_hours_low = plan->train_hours;
	plan->train_hours_high = plan->train_hours;
	if (!perfdata_interval(tab, plan->perf_generation,
			       plan->framework, plan->gpus, &g, &pooled))
		return;
	lo = g.q_low;
	hi = g.q_high;
	if (st && !perfdata_stack_validated(st, plan->perf_generation) &&
	    st->validated) {
		/* a stack checked on other GPU generations only */
		lo = PLAN_STACK_UNCHECKED_LO;
		hi = PLAN_STACK_UNCHECKED_HI;
		pooled = 0;
		g.runs = 0;
	} else if (st && (st->q_low < 0 || st->q_high > 0)) {
		/* the stack's own spread (from its fit-half runs, or the
		 * wide one of a stack no published run has checked) */
		lo = st->q_low;
		hi = st->q_high;
		pooled = 0;
		g.runs = st->runs;
	}
	if (fallback || pooled) {
		lo *= PLAN_FALLBACK_WIDEN;
		hi *= PLAN_FALLBACK_WIDEN;
	}
	plan->interval_runs = g.runs;
	plan->interval_pooled = pooled;
	plan->train_hours_low = plan->train_hours * exp(lo < 0 ? lo : 0);
	plan->train_hours_high = plan->train_hours * exp(hi > 0 ? hi : 0);
}

/* A layout of a kind no fit-half or held-out run checks
 * (framework_gathers_experts): its interval takes at least an unchecked
 * stack's spread, whatever the regime's or the site's calibration says
 * (the calibration's finished jobs are not of this kind). */
static void plan_interval_unchecked(autosize_plan *plan)
{
	double t = plan->train_hours;

	if (!(t > 0))
		return;
	plan->train_hours_low = fmin(plan->train_hours_low,
				     t * exp(PLAN_STACK_UNCHECKED_LO));
	plan->train_hours_high = fmax(plan->train_hours_high,
				      t * exp(PLAN_STACK_UNCHECKED_HI));
	if (!plan->calibration.applied) {
		plan->interval_runs = 0;
		plan->interval_pooled = 0;
	}
}

/* Interruptions of the whole run (hardware failures, restarts): one per
 * gpu_mtbf_hours per GPU of wall time, each costing restart_minutes, so
 * a share gpus x restart / mtbf of the wall time is lost (at most half,
 * sizing_goodput) and the wall time w solves w = train + that share of
 * w. Grows with GPUs x days; the policy sets both (policy.c: Llama 3's).
 * The search sizes for deadlines with it too. */
static void plan_goodput(autosize_plan *plan, const autosize_defaults *d,
			 double run_efficiency)
{
	sizing_job one;

	memset(&one, 0, sizeof(one));
	one.lost_per_gpu = plan_lost_per_gpu(d);
	plan->goodput = 1;
	plan->interruptions = 0;
	/* what a whole run spends beyond its steps and restarts: start-up,
	 * evaluation, checkpoint stalls, data stalls (perf.yaml whole_run:
	 * efficiency, from published runs' GPU-hours) */
	plan->run_efficiency = run_efficiency > 0 ? run_efficiency : 1;
	if (!(plan->train_hours > 0))
		return;
	plan->train_hours /= plan->run_efficiency;
	if (!(one.lost_per_gpu > 0))
		return;
	plan->goodput = sizing_goodput(&one, plan->gpus);
	plan->train_hours /= plan->goodput;
	plan->interruptions = plan->gpus / d->gpu_mtbf_hours *
			      plan->train_hours;
}

/* A preemptible partition's jobs lose, each time they are preempted,
 * the restart and the work since their last checkpoint (half an
 * interval on average): a share lost / preempted_every of the wall
 * time, counted in the time and the cost like the interruptions above
 * (at most PLAN_PREEMPT_MAX_SHARE: past it the job barely moves). */
#define PLAN_PREEMPT_MAX_SHARE 0.9

static void plan_preempted(autosize_plan *plan, const autosize_defaults *d)
{
	double every_h = plan->part.preempt_every_s / 3600, lost_h, share;

	plan->preemptions = 0;
	if (!plan->part.preemptible || !(every_h > 0) ||
	    !(plan->train_hours > 0))
		return;
	lost_h = d->restart_minutes / 60 + d->checkpoint.interval_s / 7200;
	share = fmin(lost_h / every_h, PLAN_PREEMPT_MAX_SHARE);
	plan->train_hours /= 1 - share;
	plan->goodput *= 1 - share;
	plan->preemptions = plan->train_hours / every_h;
	autosize_plan_warn(plan, "partition %s is preemptible: other work "
			   "requeues its jobs, about every %.3g h, each time "
			   "losing %.0f min (restart, work since the last "
			   "checkpoint); counted: about %.0f; resume from "
			   "checkpoints", plan->part.name, every_h,
			   lost_h * 60, ceil(plan->preemptions));
}

/* Time limit, chained jobs, cost from the chosen layout's numbers: the
 * limit covers the upper end of the interval (at least the policy's
 * time reserve over the prediction) plus the allowance: start-up and
 * the job's checkpoint writes. Past the partition's max time the run is
 * a chain of jobs of that limit (plan_chain.c), each warned lead_s
 * before its limit. Cost follows the partition's price schedule
 * (price.c) for the predicted hours. */
static void plan_finish_time(const perfdata_table *tab, autosize_plan *plan,
			     const sizing_job *job, const autosize_request *r,
			     const autosize_defaults *d, int lead_s)
{
	int fallback = job->perf.fallback;
	const perfdata_stack *st = job->stack;
	const autosize_checkpoint_policy *cp = &d->checkpoint;
	double need_min, floor_min, max_min = plan->part.max_time_s / 60;
	double train_min, job_min;
	sizing_layout lay;

	plan_layout_of(plan, &lay);
	plan->train_hours = sizing_steps_s(job, &lay, plan->tokens_per_s) /
			    3600;
	plan->eval_hours = sizing_eval_s(job, &lay, plan->tokens_per_s) / 3600;
	plan->eval_tokens = job->eval_tokens;
	plan_goodput(plan, d, job->run_efficiency);
	plan_preempted(plan, d);
	plan->gpu_hours = plan->train_hours * plan->gpus;
	plan->cost = autosize_price_cost(&plan->part, plan->nodes,
					 plan->gpus_per_node, plan->train_hours,
					 -1, &plan->price);
	plan->chained_jobs = 1;
	plan->chain_job_tokens = plan->tokens;
	plan->signal_s = 0;
	plan->time_limit_min = 0;
	plan_interval(tab, plan, fallback, st);
	plan_cal_interval(plan);
	if (framework_gathers_experts(job, &lay))
		plan_interval_unchecked(plan);
	checkpoint_finish(plan, cp, plan->train_hours * 3600);
	if (plan->train_hours <= 0)
		return;
	need_min = plan->train_hours_high * 60;
	floor_min = plan->train_hours * 60 * (1 + plan->time_reserve);
	if (need_min < floor_min)
		need_min = floor_min;
	train_min = need_min;
	plan->ckpt.job_write_s = autosize_checkpoint_count(
		train_min * 60, cp->interval_s) * plan->ckpt.write_s;
	need_min = ceil(train_min + PLAN_STARTUP_ALLOWANCE_MIN +
			plan->ckpt.job_write_s / 60);
	/* 1e18 tokens on a few GPUs: keep the limit and the chained job
	 * count representable (100 years, as the longest --train-time) */
	if (!(need_min <= PLAN_MAX_LIMIT_MIN))
		need_min = PLAN_MAX_LIMIT_MIN;
	plan->time_limit_min = (long)need_min;
	if (!(max_min > 0 && need_min > max_min))
		return;
	plan->time_limit_min = (long)max_min;
	/* each job starts, trains, is warned and writes its checkpoint */
	job_min = plan_chain_job_min(plan, max_min,
				     PLAN_STARTUP_ALLOWANCE_MIN, cp, lead_s);
	if (!(job_min > 0))
		autosize_plan_warn(plan, "partition %s max time %.0f min holds "
				   "no more than the %.0f min start-up, one "
				   "%.1f min checkpoint and the warning "
				   "signal's margin", plan->part.name, max_min,
				   PLAN_STARTUP_ALLOWANCE_MIN,
				   plan->ckpt.write_s / 60);
	if (!plan_chain_wanted(r, d)) {
		plan_chain_one_job(plan, r, need_min, job_min);
		return;
	}
	plan_chain_count(plan, fmin(train_min, PLAN_MAX_LIMIT_MIN), job_min);
	plan->signal_s = lead_s;
}

/*
 * The global batch cannot feed this many GPUs: each pipeline gets few
 * micro-batches per step and the 1F1B bubble, (p - 1) / (m v) of the
 * compute (Narayanan et al. 2021, section 2.2), eats the step. Say so,
 * with the batch that would bring it under PLAN_BUBBLE_OK.
 */
static void plan_warn_batch(autosize_plan *plan)
{
	double vp = plan->vp > 1 ? plan->vp : 1, bubble, m_need;

	if (plan->pp < 2 || plan->grad_accum < 1)
		return;
	bubble = (plan->pp - 1.0) / (plan->grad_accum * vp);
	if (bubble / (1 + bubble) <= PLAN_WARN_BUBBLE)
		return;
	m_need = ceil((plan->pp - 1.0) / (PLAN_BUBBLE_OK * vp));
	autosize_plan_warn(plan, "the global batch of %d sequences gives each "
			   "pipeline only %d micro-batches: the pipeline "
			   "bubble takes %.0f%% of every step; raise "
			   "--train-batch to %.0f or more, or use fewer GPUs "
			   "and finish later", plan->global_batch,
			   plan->grad_accum, 100 * bubble / (1 + bubble),
			   m_need * plan->dp * plan->micro_batch);
}

/*
 * Nodes past one NVLink domain (GB200 NVL72 racks) share NVLink only in
 * Slurm segments (autosize_segment_nodes): say when the node count has
 * none (a prime count of trays), or when the job's own --segment does
 * not divide the nodes it pins, which topology/block never places.
 */
static void plan_warn_segment(const autosize_request *r,
			      autosize_plan *plan)
{
	int dom = plan->part.domain_nodes, user = r->segment_nodes;

	if (dom <= 1 || plan->nodes <= 1)
		return;
	if (user > 1 && plan->nodes > user && plan->nodes % user)
		autosize_plan_warn(plan, "your --segment=%d does not divide "
				   "the %d nodes: Slurm's topology/block "
				   "never places such a job; ask for a "
				   "multiple of %d nodes or another segment",
				   user, plan->nodes, user);
	else if (user <= 0 && plan->nodes > dom && !plan->segment_nodes)
		autosize_plan_warn(plan, "no segment of 2 to %d nodes divides "
				   "%d nodes: collectives across nodes take "
				   "the network, not NVLink; a node count "
				   "with such a divisor keeps groups inside "
				   "one NVLink domain", dom, plan->nodes);
}

/* A span as people say it: "30 days", "1.5 days", "12 h", "30 min". */
static const char *plan_span(double s, char *buf, size_t len)
{
	if (s >= 86400)
		snprintf(buf, len, "%.3g day%s", s / 86400,
			 s == 86400 ? "" : "s");
	else if (s >= 3600)
		snprintf(buf, len, "%.3g h", s / 3600);
	else
		snprintf(buf, len, "%.0f min", s / 60);
	return buf;
}

/*
 * A deadline the prediction meets but the interval's upper end does not:
 * the odds of finishing later, reading the interval as 98% bounds of a
 * log-normal time (etc/perf.yaml residuals), and the GPUs that would
 * hold it at the upper end (time falling as 1 / GPUs).
 */
static void plan_warn_deadline_odds(const plan_ctx *c, autosize_plan *plan)
{
	double d_h = c->deadline_s / 3600, sigma, p_late;
	char span[32];

	if (!(d_h > 0) || !(plan->train_hours > 0) ||
	    plan->train_hours > d_h || !(plan->train_hours_high > d_h))
		return;
	/* 2.326: the standard normal's 99th percentile */
	sigma = log(plan->train_hours_high / plan->train_hours) / 2.326;
	p_late = sigma > 0 ? 0.5 * erfc(log(d_h / plan->train_hours) /
				       (sigma * sqrt(2.0))) : 0;
	autosize_plan_warn(plan, "deadline %s (%s) holds only near the "
			   "prediction, %.1f h: likely up to %.1f h, about a "
			   "%.0f%% chance of finishing later; about %.0f GPUs "
			   "hold it at the upper end",
			   plan_span(c->deadline_s, span, sizeof(span)),
			   c->deadline_from,
			   plan->train_hours, plan->train_hours_high,
			   100 * p_late, ceil(plan->gpus *
					     plan->train_hours_high / d_h));
}

/* 1 when the request fixes the size or a layout value (what
 * plan_unpinned frees). */
static int plan_pinned(const autosize_request *r)
{
	return r->gpus > 0 || r->nodes > 0 || r->gpus_per_node > 0 ||
	       r->tp > 0 || r->pp > 0 ||
	       r->dp > 0 || r->zero_stage >= 0 || r->micro_batch > 0 ||
	       r->recompute >= 0 || r->interleave > 1 || r->cp > 0 ||
	       r->ep > 0;
}

static void plan_warnings(const plan_ctx *c, const sizing_job *job,
			  const autosize_plan *best_possible,
			  autosize_plan *plan)
{
	double deadline_s = c->deadline_s;
	/* FP8 and NVFP4 against their own peaks, which their GEMMs reach
	 * less of: NVFP4's best plans stand near 25% */
	double warn_mfu = PLAN_WARN_MFU * fmin(1, sizing_peak_reach(job));
	char span[32];

	if (plan->gpus > 1 && plan->nodes > 1 &&
	    plan->part.net == AUTOSIZE_NET_ETHERNET)
		autosize_plan_warn(plan, "plain Ethernet between nodes: "
				   "gradient traffic limits %d GPUs to %.0f%% "
				   "utilization; use InfiniBand or RoCE",
				   plan->gpus, plan->mfu * 100);
	/* only where the user can act on it: a size or layout they fixed
	 * (autosize's own pick is already its best; QLoRA's dequantizing
	 * is slow by nature) */
	if (plan->mfu > 0 && plan->mfu < warn_mfu &&
	    plan_pinned(c->r) && !(c->r->mfu > 0))
		autosize_plan_warn(plan, "predicted utilization %.1f%% of "
				   "peak is below %.0f%% with the size or "
				   "layout given: autosize's own pick, "
				   "without them, may do better",
				   plan->mfu * 100, warn_mfu * 100);
	plan_warn_batch(plan);
	plan_warn_segment(c->r, plan);
	if (best_possible && best_possible->tokens_per_s > 0 &&
	    plan->gpus > best_possible->gpus) {
		double per_gpu = plan->tokens_per_s / plan->gpus;
		double ref = best_possible->tokens_per_s /
			     best_possible->gpus;

		if (per_gpu < PLAN_WARN_SCALING * ref)
			autosize_plan_warn(plan, "scaling efficiency %.0f%% "
					   "of linear (%d GPUs vs %d): the "
					   "extra GPUs mostly wait on "
					   "communication", 100 * per_gpu / ref,
					   plan->gpus, best_possible->gpus);
	}
	plan_warn_deadline_odds(c, plan);
	if (c->model.vision_ignored)
		autosize_plan_warn(plan, "the config's vision tower "
				   "(vision_config) is ignored: the plan sizes "
				   "the language model only; an image encoder "
				   "trained with it needs more memory and time");
	if (deadline_s > 0 && plan->train_hours * 3600 > deadline_s)
		autosize_plan_warn(plan, "deadline %s (%s) cannot be "
				   "met within the limits: predicted %.1f days "
				   "on %d GPUs; it needs about %.0f GPUs "
				   "(partition %s has %d per job)",
				   plan_span(deadline_s, span, sizeof(span)),
				   c->deadline_from, plan->train_hours / 24,
				   plan->gpus, plan->gpus_min, plan->part.name,
				   plan->part.max_nodes_per_job *
				   plan->part.gpus_per_node);
}

/*
 * A plan predicted past the site's max_train_time is no plan (a cluster
 * is rented, hardware and code change, nobody waits two years):
 * infeasible, with the best time within the limits and the GPUs the
 * deadline needs. Returns 1 when it is.
 */
static int plan_too_long(const plan_ctx *c, autosize_plan *plan)
{
	double max_s = c->d->max_train_s;
	char a[32], b[32];

	if (max_s <= 0 || !(plan->train_hours * 3600 > max_s))
		return 0;
	plan->feasible = 0;
	plan->too_long = 1;
	snprintf(plan->reason, sizeof(plan->reason), "predicted %.0f days "
		 "on %d GPUs is longer than the site's maximum training time "
		 "of %s (max_train_time); finishing in %s needs "
		 "about %.0f GPUs: use a larger partition or train on fewer "
		 "tokens", plan->train_hours / 24, plan->gpus,
		 plan_span(max_s, a, sizeof(a)),
		 plan_span(c->deadline_s > 0 ? c->deadline_s : max_s, b,
			   sizeof(b)), plan->gpus_min);
	return 1;
}

/* A precision the GPU runs, for the refusal's advice (V100: fp16; FP8
 * where NVFP4 was asked and the GPU has it, H100). */
static const char *plan_supported_precision(const autosize_gpu *gpu,
					    autosize_precision asked)
{
	if (asked == AUTOSIZE_PREC_NVFP4 &&
	    autosize_gpu_peak_flops(gpu, AUTOSIZE_PREC_FP8) > 0)
		return "fp8";
	if (autosize_gpu_peak_flops(gpu, AUTOSIZE_PREC_BF16) > 0)
		return "bf16";
	if (autosize_gpu_peak_flops(gpu, AUTOSIZE_PREC_FP16) > 0)
		return "fp16";
	return "another GPU";
}

/* A pinned TP must split the heads, split the key/value heads or
 * replicate them (Megatron-style GQA/MQA: 48 heads and one key/value
 * head at TP 4, StarCoder), and keep each tensor-parallel group on one
 * node's link: it divides the GPUs per node (or, across nodes, is a
 * multiple of them). */
static autosize_err plan_check_tp(const autosize_request *r,
				  const autosize_model *m,
				  const autosize_partition *part,
				  autosize_error *e)
{
	int tp = r->tp, kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
	int gpn = r->gpus_per_node > 0 ? r->gpus_per_node
				       : part->gpus_per_node;

	if (tp == AUTOSIZE_UNSET || tp <= 1)
		return AUTOSIZE_OK;
	if (m->heads % tp)
		return autosize_fail(e, AUTOSIZE_EINVAL, "--tp: %d does not "
				     "divide the model's %d attention heads",
				     tp, m->heads);
	if (m->mamba_layers > 0 &&
	    (m->mamba_heads % tp || m->mamba_groups % tp))
		return autosize_fail(e, AUTOSIZE_EINVAL, "--tp: %d does not "
				     "divide the model's %d Mamba heads and "
				     "%d groups (each rank holds whole "
				     "groups)", tp, m->mamba_heads,
				     m->mamba_groups);
	/* key/value heads split evenly, or each replicated on tp / kv
	 * ranks (framework_kv_split) */
	if (kv % tp && tp % kv)
		return autosize_fail(e, AUTOSIZE_EINVAL, "--tp: %d neither "
				     "divides the model's %d key/value heads "
				     "nor is a multiple of them (each would "
				     "be split unevenly)", tp, kv);
	if (gpn > 0 && (tp <= gpn ? gpn % tp : tp % gpn))
		return autosize_fail(e, AUTOSIZE_EINVAL, "--tp: %d does not "
				     "divide the %d GPUs per node of %s (a "
				     "tensor-parallel group sits on one "
				     "node's link)", tp, gpn, part->name);
	return AUTOSIZE_OK;
}

/* Training seconds one job of a chain holds on part, for the search's
 * count of chained jobs: the max time less the start-up, over the
 * widest factor the time limit puts on a prediction (the reserve, or the
 * upper end of any scale's interval: plan_interval). 0: no max time. */
static double plan_chain_s(const perfdata_table *tab,
			   const autosize_partition *part,
			   const sizing_job *job, double reserve)
{
	static const int scale_gpus[] = {8, 512, 2048};
	double factor = 1 + reserve, hi;
	perfdata_regime g;
	int pooled;
	size_t i;

	if (part->max_time_s <= 0)
		return 0;
	for (i = 0; i < sizeof(scale_gpus) / sizeof(scale_gpus[0]); i++) {
		if (!perfdata_interval(tab, job->perf.generation,
				       job->framework, scale_gpus[i], &g,
				       &pooled))
			continue;
		hi = g.q_high * (job->perf.fallback || pooled
				 ? PLAN_FALLBACK_WIDEN : 1);
		factor = fmax(factor, exp(hi));
	}
	/* a named stack's own spread (plan_interval), at its widest */
	if (job->stack) {
		hi = perfdata_stack_validated(job->stack, job->perf.generation)
		     || !job->stack->validated ? job->stack->q_high
		     : PLAN_STACK_UNCHECKED_HI;
		factor = fmax(factor, exp(hi * PLAN_FALLBACK_WIDEN));
	}
	/* a MoE trained whole: layouts without EP may gather every
	 * expert on every rank (framework_gathers_experts), and this
	 * estimate, made before the layout, takes the widest */
	if (job->model->experts > 1 && !framework_peft(job))
		factor = fmax(factor, exp(PLAN_STACK_UNCHECKED_HI));
	return fmax(0, part->max_time_s - PLAN_STARTUP_ALLOWANCE_MIN * 60) /
	       factor;
}

/* Held gradients worth a warning: this share of the usable memory. */
#define PLAN_HELD_GRADS_SHARE 0.05

/* A stack that accumulates under no_sync holds the unsharded gradients
 * under FSDP for the step's micro-batches (framework_fsdp_grads_held):
 * say how much, and what avoids it. */
static void plan_held_grads_warning(const sizing_job *job,
				    autosize_plan *plan)
{
	sizing_layout lay;
	double b;

	plan_layout_of(plan, &lay);
	if (!job->stack || !job->stack->accum_no_sync || lay.tp <= 0 ||
	    lay.pp <= 0 || lay.dp <= 0)
		return;
	b = sizing_held_grad_bytes(job, &lay);
	/* a LoRA adapter's few MB are not worth a line */
	if (b < PLAN_HELD_GRADS_SHARE * plan->mem.usable_bytes)
		return;
	autosize_plan_warn(plan, "stack %s accumulates %d micro-batches a "
			   "step under no_sync: FSDP holds %.1f GiB of "
			   "unsharded gradients a GPU until the last (a "
			   "step of one micro-batch would not: more GPUs "
			   "or a smaller --train-batch)", job->stack->name,
			   lay.grad_accum, b / (1024.0 * 1024 * 1024));
}

/* Host memory and the rest of the node: the offloaded states per node
 * (host_bytes_per_node), what each GPU gets, the Slurm limit that capped
 * the partition. */
static void plan_host(const plan_ctx *c, const autosize_request *r,
		      const sizing_job *job, const autosize_partition *part,
		      autosize_plan *plan)
{
	sizing_layout lay;
	int i;

	plan_layout_of(plan, &lay);
	plan->host_bytes_per_node = 0;
	if ((job->param_offload || job->opt_offload) && lay.tp > 0 &&
	    lay.pp > 0 && lay.dp > 0)
		plan->host_bytes_per_node = sizing_host_bytes(job, &lay) *
					    plan->gpus_per_node;
	plan_host_per_gpu(r, plan_live_of(c, part->name), plan);
	for (i = 0; i < c->n_parts; i++)
		if (part == &c->parts[i])
			snprintf(plan->capped_by, sizeof(plan->capped_by),
				 "%s", c->capped[i]);
}

/* The signal's lead a chained job of this plan gets: the one sbatch set
 * (the job carries it), else the plan's own (plan_chain.c), which is
 * what sbatch computes; a carried lead short of this plan's checkpoint
 * is said. */
static int plan_lead_s(const autosize_policy *p, const autosize_request *r,
		       autosize_plan *plan,
		       const autosize_checkpoint_policy *cp)
{
	int own = plan_signal_lead_s(p, plan, cp);

	if (!(r->signal_s > 0) || r->signal_s >= own)
		return r->signal_s > 0 ? (int)r->signal_s : own;
	autosize_plan_warn(plan, "the job's warning signal comes %.0f min "
			   "before its limit, less than the %.0f min this "
			   "plan's checkpoint and margin need",
			   r->signal_s / 60, own / 60.0);
	return (int)r->signal_s;
}

/* Plan on one resolved partition, with the warnings; no cross-partition
 * advice. r is the request as plan_on made it for the partition. */
static autosize_err plan_search_on(plan_ctx *c, const autosize_request *r,
				   const autosize_partition *part,
				   autosize_plan *plan, autosize_error *e)
{
	sizing_job job;
	sizing_layout lay;
	search_result res;
	const autosize_cal_entry *cal;
	double reserve, usable;
	char spent[64];
	autosize_err rc;

	memset(plan, 0, sizeof(*plan));
	reserve = r->memory_reserve >= 0 ? r->memory_reserve
					 : c->d->memory_reserve;
	plan_job(c->p, r, &c->model, part, &job, reserve);
	if ((rc = plan_check_tp(r, &c->model, part, e)))
		return rc;
	/* the site's calibration: search for the corrected speed and
	 * memory (calibration_plan.c) */
	cal = plan_cal_find(c->p, part, job.framework, 0);
	usable = job.usable_bytes;
	job.usable_bytes = plan_cal_usable(usable, cal);
	if (job.peak_flops <= 0)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--train-precision: %s is not supported "
				     "by %s (use %s)",
				     autosize_precision_name(job.precision),
				     part->gpu->name,
				     plan_supported_precision(part->gpu,
							      job.precision));
	job.chain_s = plan_chain_s(perfdata_for(c->p), part, &job,
				   r->time_reserve >= 0 ? r->time_reserve
							: c->d->time_reserve);
	if ((rc = search_run(&job, r, plan_cal_deadline(c->deadline_s, cal),
			     c->d->objective, &c->budget, &res, e)))
		return rc;
	*plan = res.best;
	snprintf(plan->stack, sizeof(plan->stack), "%s",
		 job.stack ? job.stack->name : "");
	snprintf(plan->model, sizeof(plan->model), "%s", c->model.name);
	plan->train_mode = r->train_mode;
	plan->precision = job.precision;
	plan_cal_apply(c->p, cal, usable, plan);
	if (res.have_ref && plan->calibration.applied)
		plan_cal_scale_speed(&res.ref, plan->calibration.speed_factor);
	plan->gpus_min = plan_gpus_min(&job, plan, c->deadline_s);
	plan->memory_reserve = reserve;
	plan->time_reserve = r->time_reserve >= 0 ? r->time_reserve
						  : c->d->time_reserve;
	checkpoint_size(&job, plan);
	plan->tokens_done = r->tokens_done > 0 ? r->tokens_done : 0;
	plan->chain_index = r->chain_index > 0 ? r->chain_index : 1;
	plan->chain_done_before = -1;
	plan_finish_time(perfdata_for(c->p), plan, &job, r, c->d,
			 plan_lead_s(c->p, r, plan, &c->d->checkpoint));
	if (r->signal_s < 0)
		plan->signal_s = 0;   /* the job's own --signal */
	plan_host(c, r, &job, part, plan);
	plan_chain_cut(plan, plan_live_of(c, part->name));
	if (job.stack && !job.stack->validated)
		autosize_plan_warn(plan, "stack %s is not validated against "
				   "published runs: its step time is a "
				   "guess and the time limit covers up to "
				   "%.1fx the prediction (doc/stacks.md)",
				   job.stack->name, exp(job.stack->q_high));
	else if (job.stack && !perfdata_stack_validated(job.stack,
						       plan->perf_generation))
		autosize_plan_warn(plan, "stack %s is validated on other GPU "
				   "generations than %s: the time limit "
				   "covers up to %.1fx the prediction "
				   "(doc/stacks.md)", job.stack->name,
				   plan->perf_generation,
				   exp(PLAN_STACK_UNCHECKED_HI));
	plan_held_grads_warning(&job, plan);
	plan_layout_of(plan, &lay);
	if (framework_gathers_experts(&job, &lay) && plan->train_hours > 0)
		autosize_plan_warn(plan, "every rank gathers all %d experts "
				   "(%s, no expert parallelism): no run the "
				   "engine was fitted or checked on does, and "
				   "runs published since took up to 3.9x the "
				   "plan; the time limit covers %.1fx the "
				   "prediction (--ep splits them)",
				   job.model->experts,
				   autosize_framework_name(job.framework),
				   plan->train_hours_high / plan->train_hours);
	plan_dispatcher_warnings(r, &job, plan, &lay);
	/* a selective setting the stack runs as full (search.c) */
	if (job.stack && job.stack->recompute_whole &&
	    r->recompute != AUTOSIZE_UNSET &&
	    r->recompute != AUTOSIZE_RECOMPUTE_NONE &&
	    r->recompute != AUTOSIZE_RECOMPUTE_FULL)
		autosize_plan_warn(plan, "stack %s recomputes whole layers: "
				   "--recompute %s runs as full recomputation "
				   "and is planned so", job.stack->name,
				   autosize_recompute_name(r->recompute));
	else if (r->recompute == AUTOSIZE_RECOMPUTE_SELECTIVE_MLP &&
		 framework_resolve(job.framework) !=
		 AUTOSIZE_FRAMEWORK_MEGATRON)
		autosize_plan_warn(plan, "--recompute selective-mlp is "
				   "Megatron-Core's recompute module mlp: %s "
				   "runs its own selective recomputation, and "
				   "the plan is that",
				   autosize_framework_name(job.framework));
	if (r->recompute_layers > 0 &&
	    !framework_profile_get(job.framework)->block_recompute)
		autosize_plan_warn(plan, "--recompute-layers is Megatron's "
				   "block method: %s recomputes every layer "
				   "when it recomputes, and the plan is that",
				   autosize_framework_name(job.framework));
	if (job.framework_switched)
		autosize_plan_warn(plan, "planned under %s: %s does not run "
				   "the pinned layout (name "
				   "--train-framework to choose)",
				   autosize_framework_name(job.framework),
				   autosize_framework_name(
					   job.framework_switched));
	if (job.perf.fallback)
		autosize_plan_warn(plan, "no performance data measured on %s: "
				   "step time from the %s generation's "
				   "(etc/perf.yaml), less certain",
				   part->gpu->name, job.perf.generation);
	if (job.precision == AUTOSIZE_PREC_NVFP4 &&
	    !(job.perf.fp4_gemm_speedup > 0))
		autosize_plan_warn(plan, "the performance file's %s entry has "
				   "no fp4_gemm_speedup: NVFP4's GEMMs are "
				   "timed at its FP8 rate (%.2gx BF16), slower "
				   "than they run, and the time limit errs "
				   "long (etc/perf.yaml's blackwell: 2.94)",
				   job.perf.entry, job.perf.fp8_gemm_speedup);
	if (res.capped_gpus > 0)
		plan_capped_warning(plan, &res, job.min_scaling);
	if (res.over_budget && plan->feasible)
		autosize_plan_warn(plan, "the search stopped at its work "
				   "budget (%s): a cheaper layout may exist; "
				   "pin the size or the layout to narrow it",
				   search_budget_said(&c->budget, spent,
						      sizeof(spent)));
	if (!plan->feasible)
		return AUTOSIZE_ENOFIT;
	plan_warnings(c, &job, res.have_ref ? &res.ref : NULL, plan);
	return plan_too_long(c, plan) ? AUTOSIZE_ENOFIT : AUTOSIZE_OK;
}

/*
 * --gpus=N that is no multiple of a node's GPUs: the fewest nodes that
 * take the same share each (12 on nodes of 8: 2 x 6), as a layout needs
 * the same GPUs on every node. Returns 0 with v's size set, or fails
 * with the sizes around N that would split.
 */
static autosize_err plan_split_gpus(autosize_request *v, int gpn,
				    int max_nodes, autosize_error *e)
{
	int n, below = 0, above = 0, g;

	for (n = (v->gpus + gpn - 1) / gpn; n <= v->gpus && n <= max_nodes;
	     n++)
		if (v->gpus % n == 0 && v->gpus / n <= gpn) {
			v->nodes = n;
			v->gpus_per_node = v->gpus / n;
			v->gpus = AUTOSIZE_UNSET;
			return AUTOSIZE_OK;
		}
	for (g = v->gpus - 1; g > gpn && !below; g--)
		for (n = (g + gpn - 1) / gpn; n <= g && n <= max_nodes &&
					      !below; n++)
			if (g % n == 0 && g / n <= gpn)
				below = g;
	above = (v->gpus + gpn - 1) / gpn * gpn;
	return autosize_fail(e, AUTOSIZE_EINVAL, "--gpus: %d GPUs cannot take "
			     "the same share of each node of %d GPUs (a layout "
			     "needs the same GPUs on every node): ask for "
			     "--gpus=%d or --gpus=%d", v->gpus, gpn,
			     below ? below : gpn, above);
}

/*
 * Plan on one partition: the request made for it first (v): whole nodes
 * for --exclusive, an even split of --gpus, the fewest nodes that hold
 * the model when only GPUs per node were given (a smallest-size search
 * first), more nodes when the offloaded states need more host memory
 * than a node has. Every search shares the plan's one work budget.
 */
static autosize_err plan_on(plan_ctx *c, const autosize_request *r,
			    const autosize_partition *part,
			    autosize_plan *plan, autosize_error *e)
{
	autosize_request *v = &c->part_r;
	char why[AUTOSIZE_WARNING_LEN];
	autosize_err rc;
	int gpn = part->gpus_per_node, nodes;

	if (r != v)
		*v = *r;
	if (v->exclusive && v->gpus <= 0)
		v->gpus_per_node = gpn;
	if (v->gpus > gpn && v->gpus % gpn && v->nodes <= 0 &&
	    v->gpus <= gpn * part->max_nodes_per_job &&
	    (rc = plan_split_gpus(v, gpn, part->max_nodes_per_job, e)))
		return rc;
	if (v->fewest_nodes && v->nodes <= 0 && v->gpus <= 0) {
		v->fewest_nodes = 0;
		v->tokens = 0;
		rc = plan_search_on(c, v, part, plan, NULL);
		v->tokens = r->tokens;
		if (rc == AUTOSIZE_OK)
			v->nodes = plan->nodes;
	}
	rc = plan_search_on(c, v, part, plan, e);
	if (rc == AUTOSIZE_OK && v->nodes > 1 && r->fewest_nodes)
		autosize_plan_warn(plan, "%d nodes: the model does not fit "
				   "the memory of %d GPUs on one node",
				   v->nodes, v->gpus_per_node);
	if (rc != AUTOSIZE_OK)
		return rc;
	nodes = plan_host_memory(v, plan, why, sizeof(why));
	if (nodes <= plan->nodes)
		return rc;
	if (r->nodes > 0 || r->gpus > 0 || nodes > part->max_nodes_per_job) {
		plan->feasible = 0;
		snprintf(plan->reason, sizeof(plan->reason), "%.250s, %s",
			 why, nodes > part->max_nodes_per_job
			 ? "more than the partition allows a job"
			 : "and the job's size is fixed");
		return AUTOSIZE_ENOFIT;
	}
	/* the offloaded states do not fit a node's memory: spread */
	v->nodes = nodes;
	rc = plan_search_on(c, v, part, plan, e);
	if (rc == AUTOSIZE_OK)
		autosize_plan_warn(plan, "%d nodes: %s", nodes, why);
	return rc;
}

/* 1 when plan a is better than plan b (rank.c, across partitions). */
static int plan_better(const plan_ctx *c, const autosize_plan *a,
		       const autosize_plan *b)
{
	rank_key ka, kb;

	rank_key_of_plan(a, &ka);
	rank_key_of_plan(b, &kb);
	ka.exotic = rank_exotic(c->model.layers, a->pp, a->vp);
	kb.exotic = rank_exotic(c->model.layers, b->pp, b->vp);
	return rank_better(&ka, &kb, c->d->objective, c->deadline_s);
}

/* Plan on each candidate partition and keep the best; a partition that
 * cannot run the job at all (e.g. a precision its GPU lacks) is skipped
 * when there are several. */
static autosize_err plan_choose(plan_ctx *c, const autosize_request *r,
				autosize_plan *plan, autosize_plan *cand,
				autosize_error *e)
{
	autosize_err rc, best_rc = AUTOSIZE_EINVAL;
	int i, have = 0;

	if (c->n_parts == 1)
		return plan_on(c, r, &c->parts[0], plan, e);
	/* the partitions after the one that spent the budget are not
	 * planned: a plan that tried nothing is no candidate */
	for (i = 0; i < c->n_parts && !search_budget_spent(&c->budget); i++) {
		rc = plan_on(c, r, &c->parts[i], cand, e);
		if (rc != AUTOSIZE_OK && rc != AUTOSIZE_ENOFIT)
			continue;
		if (!have || plan_better(c, cand, plan)) {
			*plan = *cand;
			best_rc = rc;
			have = 1;
		}
	}
	if (!have) {
		char last[AUTOSIZE_MSG_LEN]; /* e->msg is the output too */

		snprintf(last, sizeof(last), "%s", e ? e->msg : "");
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "no partition of the site policy can run "
				     "this job (%s)", last);
	}
	return best_rc;
}

/* The request with the size and layout left to the search. */
static void plan_unpinned(const autosize_request *r, autosize_request *free_r)
{
	*free_r = *r;
	free_r->gpus = free_r->nodes = AUTOSIZE_UNSET;
	free_r->tp = free_r->pp = free_r->dp = AUTOSIZE_UNSET;
	free_r->zero_stage = free_r->micro_batch = AUTOSIZE_UNSET;
	free_r->recompute = free_r->recompute_layers = AUTOSIZE_UNSET;
	free_r->interleave = AUTOSIZE_UNSET;
	free_r->cp = free_r->ep = free_r->etp = AUTOSIZE_UNSET;
}

/*
 * What makes a job that no partition holds smaller, for what it trains:
 * full training can drop to adapters; adapters can quantize their base
 * (LoRA to QLoRA); when activations are most of the memory (long
 * sequences) a shorter sequence is what helps.
 */
static const char *plan_memory_advice(const autosize_request *r,
				      const autosize_plan *plan)
{
	int acts = plan->mem.activations_bytes > 0.5 * plan->mem.total_bytes;

	if (acts)
		return "its activations take most of the memory at this "
		       "sequence length: a shorter --train-seq-len, or GPUs "
		       "with more memory";
	switch (r->train_mode) {
	case AUTOSIZE_TRAIN_LORA:
		return "train with QLoRA (a 4-bit base), or use GPUs with "
		       "more memory";
	case AUTOSIZE_TRAIN_QLORA:
		return "use GPUs with more memory, or a smaller model";
	default:
		return "shard further, train with LoRA/QLoRA, or use GPUs "
		       "with more memory";
	}
}

/* Append text to an unfit plan's reason (bounded). */
static void plan_reason_add(autosize_plan *plan, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void plan_reason_add(autosize_plan *plan, const char *fmt, ...)
{
	size_t n = strlen(plan->reason);
	va_list ap;

	if (n + 1 >= sizeof(plan->reason))
		return;
	va_start(ap, fmt);
	vsnprintf(plan->reason + n, sizeof(plan->reason) - n, fmt, ap);
	va_end(ap);
}

/*
 * Nothing fits: find what would, for the user and for slurmctld's
 * message: the smallest size on this partition without the pins, the
 * fewest nodes of this GPU without the partition's node limit, and the
 * policy partition that holds it with the fewest GPUs. Smallest-size
 * searches (no token budget), under the plan's one work budget.
 */
static void plan_advise(plan_ctx *c, autosize_plan *plan,
			autosize_work *w)
{
	const autosize_policy *p = c->p;
	autosize_partition part = plan->part;
	autosize_plan *alt = &w->alt, *best = &w->best;
	int i, have = 0;

	if (c->r->recompute_layers > 0 && plan->recompute_layers > 0 &&
	    plan->mem.total_bytes > plan->mem.usable_bytes)
		plan_reason_add(plan, "; at --recompute-layers %d the other "
				"layers' activations do not fit: raise it, or "
				"drop it for the search's count",
				c->r->recompute_layers);
	plan_unpinned(c->r, &w->free_r);
	w->free_r.tokens = 0;
	if (plan_pinned(c->r) &&
	    plan_on(c, &w->free_r, &part, alt, NULL) == AUTOSIZE_OK) {
		plan->advice_here_nodes = alt->nodes;
		plan_reason_add(plan, "; on %s it fits as %d node%s x %d "
				"GPU%s, TP %d PP %d", part.name, alt->nodes,
				autosize_plural(alt->nodes),
				alt->gpus_per_node,
				autosize_plural(alt->gpus_per_node), alt->tp,
				alt->pp);
	}
	part.max_nodes_per_job = AUTOSIZE_REFERENCE_MAX_NODES;
	part.nodes = AUTOSIZE_REFERENCE_MAX_NODES;
	if (plan->part.max_nodes_per_job < AUTOSIZE_REFERENCE_MAX_NODES &&
	    plan_on(c, &w->free_r, &part, alt, NULL) == AUTOSIZE_OK &&
	    alt->nodes > plan->part.max_nodes_per_job)
		plan->advice_min_nodes = alt->nodes;
	for (i = 0; i < autosize_policy_partition_count(p); i++) {
		autosize_partition o = *autosize_policy_partition_at(p, i);
		char capped[AUTOSIZE_CAP_WHO_MAX];

		if (strcmp(o.name, plan->part.name) == 0 ||
		    (o.preemptible && !c->chosen) ||
		    (c->r->gpu_type[0] &&
		     !autosize_partition_has_type(p, &o, c->r->gpu_type)) ||
		    !plan_live_limits(c, &o, capped, sizeof(capped)) ||
		    plan_on(c, &w->free_r, &o, alt, NULL) != AUTOSIZE_OK)
			continue;
		if (!have || plan_better(c, alt, best)) {
			*best = *alt;
			have = 1;
		}
	}
	if (have) {
		snprintf(plan->advice_partition,
			 sizeof(plan->advice_partition), "%s",
			 best->part.name);
		plan->advice_partition_nodes = best->nodes;
		plan->advice_partition_gpn = best->gpus_per_node;
	}
	if (plan->advice_here_nodes > 0)
		return;
	if (have)
		plan_reason_add(plan, "; it fits on partition %s from %d node%s "
				"x %d GPU%s", best->part.name, best->nodes,
				autosize_plural(best->nodes),
				best->gpus_per_node,
				autosize_plural(best->gpus_per_node));
	else if (plan->advice_min_nodes > 0)
		plan_reason_add(plan, "; it needs at least %d node%s of %s (the "
				"limit is %d per job)", plan->advice_min_nodes,
				autosize_plural(plan->advice_min_nodes),
				plan->part.gpu->name,
				plan->part.max_nodes_per_job);
	else if (search_budget_spent(&c->budget)) {
		/* not searched to the end: no partition is ruled out */
		if (!strstr(plan->reason, "work budget"))
			plan_reason_add(plan, "; the search for where it fits "
					"stopped at its work budget");
	} else
		plan_reason_add(plan, "; no partition can hold it: %s",
				plan_memory_advice(c->r, plan));
}

/* A fixed size larger than the job needs: say what a smaller one would
 * cost and save. */
static void plan_check_oversize(plan_ctx *c, autosize_plan *plan,
				autosize_work *w)
{
	autosize_plan *alt = &w->alt;

	plan_unpinned(c->r, &w->free_r);
	if (plan_on(c, &w->free_r, &plan->part, alt, NULL) != AUTOSIZE_OK ||
	    alt->gpus >= plan->gpus || plan->gpu_hours <= 0)
		return;
	/* Advice must save something worth a resubmission. */
	if (alt->gpu_hours > plan->gpu_hours * (1 - PLAN_OVERSIZE_SAVING) ||
	    (plan->cost > 0 &&
	     alt->cost > plan->cost * (1 - PLAN_OVERSIZE_SAVING)))
		return;
	if (plan->cost > 0)
		autosize_plan_warn(plan, "%d GPUs asked for; %d would do (%d x "
				   "%d, %.1f h): %.0f GPU-hours instead of "
				   "%.0f, saving %.0f %s (%.0f%%)", plan->gpus,
				   alt->gpus, alt->nodes, alt->gpus_per_node,
				   alt->train_hours, alt->gpu_hours,
				   plan->gpu_hours, plan->cost - alt->cost,
				   plan->part.currency,
				   100 * (1 - alt->cost / plan->cost));
	else
		autosize_plan_warn(plan, "%d GPUs asked for; %d would do (%d x "
				   "%d, %.1f h): %.0f GPU-hours instead of "
				   "%.0f (%.0f%% less)", plan->gpus, alt->gpus,
				   alt->nodes, alt->gpus_per_node,
				   alt->train_hours, alt->gpu_hours,
				   plan->gpu_hours,
				   100 * (1 - alt->gpu_hours / plan->gpu_hours));
}

/* A plan whose searches stop at max_s seconds of CPU time (0: none) as
 * well as at AUTOSIZE_PLAN_MAX_LAYOUTS. */
static autosize_err plan_compute(const autosize_policy *p,
				 const autosize_request *r,
				 autosize_plan *plan, autosize_work *w,
				 double max_s, autosize_error *e)
{
	plan_ctx *c = &w->ctx;
	autosize_err rc;

	memset(plan, 0, sizeof(*plan));
	memset(c, 0, sizeof(*c));
	c->p = p;
	c->d = autosize_policy_defaults(p);
	c->r = r;
	c->deadline_s = plan_deadline(p, r, &c->deadline_from);
	search_budget_init(&c->budget, AUTOSIZE_PLAN_MAX_LAYOUTS, max_s);
	if ((rc = plan_model(r, &c->model, e)) ||
	    (rc = plan_partitions(c, e)))
		return rc;
	rc = plan_choose(c, r, plan, &w->cand, e);
	if (rc == AUTOSIZE_OK || rc == AUTOSIZE_ENOFIT)
		plan_tell_notes(c, plan);
	if (rc == AUTOSIZE_ENOFIT && !plan->too_long)
		plan_advise(c, plan, w);
	else if (rc == AUTOSIZE_OK && (r->gpus > 0 || r->nodes > 0))
		plan_check_oversize(c, plan, w);
	plan->evaluated = c->budget.used;
	/* what the user may have mistyped (--train-time 30, a token count
	 * under one step, a sequence past the model's positions): told by
	 * every front end, the CLI, sbatch and slurmctld alike */
	if (rc == AUTOSIZE_OK || rc == AUTOSIZE_ENOFIT) {
		char why[AUTOSIZE_WARNING_LEN];

		autosize_request_warnings(r, plan);
		/* a precision the stack cannot train in: priced as it runs */
		if (autosize_launch_precision(r, why, sizeof(why)) !=
		    r->precision)
			autosize_plan_warn(plan, "%s", why);
		else if (plan->precision != r->precision)
			/* the site's default framework, or FSDP where
			 * adapters take it (plan_job): NeMo's LoRA is the
			 * nemo stack, Megatron-LM trains no adapters */
			autosize_plan_warn(plan, "NVFP4 trains under "
					   "Megatron-Core (Transformer "
					   "Engine's NVFP4BlockScaling); %s, "
					   "the framework the job is planned "
					   "under, has no 4-bit recipe: "
					   "planned in bf16, as the job trains "
					   "(%s for NVFP4)",
					   autosize_framework_name(
						   plan->framework),
					   r->train_mode ==
						   AUTOSIZE_TRAIN_LORA ||
					   r->train_mode ==
						   AUTOSIZE_TRAIN_QLORA
					   ? "--train-stack=nemo"
					   : "--train-framework=megatron");
		/* a layout the named stack's launcher cannot express */
		if (autosize_launch_stack_gap(r, plan, why, sizeof(why)))
			autosize_plan_warn(plan, "%s", why);
	}
	return rc;
}

autosize_err autosize_plan_compute_work(const autosize_policy *p,
					const autosize_request *r,
					autosize_plan *plan, autosize_work *w,
					autosize_error *e)
{
	return plan_compute(p, r, plan, w,
			    AUTOSIZE_PLAN_MAX_SEARCH_MS / 1000.0, e);
}

autosize_err autosize_plan_compute(const autosize_policy *p,
				   const autosize_request *r,
				   autosize_plan *plan, autosize_error *e)
{
	autosize_work w;

	return plan_compute(p, r, plan, &w, 0, e);
}
