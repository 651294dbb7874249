/*
 * autosize: plan summaries and launcher arguments (torchrun, Megatron-LM,
 * DeepSpeed), as bounded strings.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "autosize/checkpoint.h"
#include "autosize/launch.h"
#include "autosize/parse.h"
#include "framework_private.h"
#include "json_write.h"
#include "launch_private.h"
#include "stages.h"

#define LAUNCH_GIB (1024.0 * 1024.0 * 1024.0)

static int launch_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

/* 1 when s is a non-empty word of host name characters. */
static int launch_is_name(const char *s)
{
	size_t i;

	if (!s || !s[0])
		return 0;
	for (i = 0; s[i]; i++)
		if (!launch_name_char(s[i]) || i >= AUTOSIZE_LAUNCH_HOST_MAX)
			return 0;
	return 1;
}

static const char *launch_gpu_name(const autosize_plan *p)
{
	return p->part.gpu ? p->part.gpu->name : "GPUs";
}

int autosize_launch_recompute_num_layers(const autosize_request *r,
					 const autosize_plan *p)
{
	int vp = p->vp > 1 ? p->vp : 1, stage;

	if (p->recompute != AUTOSIZE_RECOMPUTE_FULL)
		return 0;
	if (p->recompute_layers > 0)
		return (p->recompute_layers + vp - 1) / vp;
	if (!r || r->model.layers <= 0)
		return 0;
	stage = sizing_stage_layers(&r->model, p->pp);
	return (stage + vp - 1) / vp;
}

/* 1 when the plan's routed experts stay whole on each rank though its
 * TP is above 1 (expert TP 1: Megatron's --expert-tensor-parallel-size
 * 1, ep folded over TP x DP x CP); a plan without the field (etp 0) by
 * the rule it had before: ep past dp x cp. */
static int launch_etp_one(const autosize_plan *p)
{
	if (p->tp <= 1)
		return 0;
	if (p->etp > 0)
		return p->etp == 1;
	return p->ep > 1 && p->dp * (p->cp > 1 ? p->cp : 1) % p->ep != 0;
}

/* ", recompute full (N layers of each virtual stage)" where the plan
 * recomputes part of each stage: N is Megatron's --recompute-num-layers */
static void launch_recompute_part(launch_out *o, const autosize_plan *p)
{
	int n;

	if (p->recompute != AUTOSIZE_RECOMPUTE_FULL || p->recompute_layers <= 0)
		return;
	n = autosize_launch_recompute_num_layers(NULL, p);
	launch_put(o, " (%d layer%s of each %sstage)", n, n == 1 ? "" : "s",
		   p->vp > 1 ? "virtual " : "");
}

int autosize_launch_summary(const autosize_plan *p, char *buf, size_t len)
{
	launch_out o;
	char limit[32];

	launch_init(&o, buf, len);
	if (!p)
		return launch_fail(buf, len);
	launch_put(&o, "%d node%s x %d %s, TP %d PP %d", p->nodes,
		   p->nodes == 1 ? "" : "s", p->gpus_per_node,
		   launch_gpu_name(p), p->tp, p->pp);
	/* every degree of the layout: TP x PP x CP x DP is the GPUs */
	if (p->vp > 1)
		launch_put(&o, " VP %d", p->vp);
	if (p->cp > 1)
		launch_put(&o, " CP %d", p->cp);
	launch_put(&o, " DP %d", p->dp);
	if (p->ep > 1)
		launch_put(&o, " EP %d", p->ep);
	if (launch_etp_one(p))
		launch_put(&o, " ETP 1");
	launch_put(&o, ", %s, ZeRO-%d, recompute %s",
		   autosize_framework_name(framework_resolve(p->framework)),
		   p->zero_stage, autosize_recompute_name(p->recompute));
	launch_recompute_part(&o, p);
	launch_put(&o, ", micro-batch %d, grad accum %d, global batch %d x %d "
		   "tokens", p->micro_batch, p->grad_accum, p->global_batch,
		   p->seq_len);
	if (p->mfu > 0)
		launch_put(&o, ", MFU %.1f%%", p->mfu * 100);
	if (p->train_hours > 0)
		launch_put(&o, ", %.1f h", p->train_hours);
	if (p->time_limit_min > 0) {
		autosize_format_duration(p->time_limit_min * 60.0, limit,
					 sizeof(limit));
		launch_put(&o, ", time limit %s", limit);
		if (p->chained_jobs > 1)
			launch_put(&o, " x %d chained jobs", p->chained_jobs);
	}
	if (!p->feasible)
		launch_put(&o, " (NOT FEASIBLE)");
	return launch_done(&o);
}

char *autosize_launch_count(double v, char *buf, size_t len)
{
	static const struct {
		double scale;
		const char *unit;
	} units[] = {
		{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}, {1, ""},
	};
	size_t i;

	for (i = 0; i + 1 < sizeof(units) / sizeof(units[0]); i++)
		if (v >= units[i].scale * 0.9995)
			break;
	/* past 999T three digits are not enough: 1000T, not 1e+03T */
	snprintf(buf, len, v / units[i].scale >= 999.5 ? "%.0f%s" : "%.3g%s",
		 v / units[i].scale, units[i].unit);
	return buf;
}

/* Where: a partition, or a GPU's reference server. */
static void launch_report_where(launch_out *o, const autosize_plan *p)
{
	if (p->part.gpu && strcmp(p->part.name, p->part.gpu->name) == 0)
		launch_put(o, " on %s reference servers (%d GPUs, %s %.0f "
			   "Gb/s per node)\n", p->part.name,
			   p->part.gpus_per_node,
			   autosize_net_name(p->part.net),
			   p->part.net_gbps_per_node);
	else
		launch_put(o, " on partition %s (%s)\n", p->part.name,
			   p->part.gpu ? p->part.gpu->name : "?");
}

/* One part of the step: its seconds and share, when it is there. */
static void launch_step_part(launch_out *o, const char *name, double s,
			     double step_s, int *first)
{
	if (!(s >= 0.0005 || (s > 0 && s >= 0.005 * step_s)))
		return;
	launch_put(o, "%s%s %.3g s (%.0f%%)", *first ? "" : ", ", name, s,
		   100 * s / step_s);
	*first = 0;
}

/* Where the step's time goes (autosize_step_parts). */
static void launch_report_step(launch_out *o, const autosize_plan *p)
{
#define LAUNCH_PART(name, field) { name, offsetof(autosize_step_parts, field) }
	static const struct {
		const char *name;
		size_t off;
	} parts[] = {
		LAUNCH_PART("GEMM", gemm_s),
		LAUNCH_PART("attention", attention_s),
		LAUNCH_PART("element-wise", elementwise_s),
		LAUNCH_PART("host", host_s),
		LAUNCH_PART("recompute", recompute_s),
		LAUNCH_PART("TP", tp_comm_s),
		LAUNCH_PART("CP", cp_comm_s),
		LAUNCH_PART("EP all-to-all", ep_comm_s),
		LAUNCH_PART("PP", pp_comm_s),
		LAUNCH_PART("DP", dp_comm_s),
		LAUNCH_PART("bubble", bubble_s),
		LAUNCH_PART("optimizer", optimizer_s),
		LAUNCH_PART("offload", offload_s),
	};
#undef LAUNCH_PART
	int first = 1;
	size_t i;

	if (!(p->step_s > 0))
		return;
	launch_put(o, "  step       %.3g s: ", p->step_s);
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		launch_step_part(o, parts[i].name,
				 *(const double *)((const char *)&p->step +
						   parts[i].off),
				 p->step_s, &first);
	launch_put(o, "%s\n", p->step.fixed_mfu ? " (fixed MFU: in "
						     "proportion)" : "");
}

/* Layout, memory and speed lines of a plan that has a layout. */
static void launch_report_layout(launch_out *o, const autosize_plan *p)
{
	const autosize_memory *m = &p->mem;
	char n[16];

	launch_put(o, "  layout     TP %d x PP %d", p->tp, p->pp);
	if (p->vp > 1)
		launch_put(o, " (%d virtual stages per rank)", p->vp);
	if (p->cp > 1)
		launch_put(o, " x CP %d", p->cp);
	launch_put(o, " x DP %d", p->dp);
	/* with expert TP 1 Megatron folds EP over the TP ranks
	 * (launch_etp_one) */
	if (p->ep > 1)
		launch_put(o, ", EP %d (within %sDP x CP, %s)", p->ep,
			   launch_etp_one(p) ? "TP x " : "",
			   autosize_moe_dispatcher_name(p->moe_dispatcher));
	else if (launch_etp_one(p))
		launch_put(o, ", experts whole on every TP rank");
	launch_put(o, ", ZeRO-%d, %s, recompute %s", p->zero_stage,
		   autosize_framework_name(p->framework),
		   autosize_recompute_name(p->recompute));
	launch_recompute_part(o, p);
	launch_put(o, ", micro-batch %d, grad accum %d (global batch %d x "
		   "%d)\n", p->micro_batch, p->grad_accum, p->global_batch,
		   p->seq_len);
	launch_put(o, "  memory     %.1f GiB per GPU of %.1f GiB usable "
		   "(weights %.1f, gradients %.1f, optimizer %.1f, activations "
		   "%.1f, other %.1f)\n", m->total_bytes / LAUNCH_GIB,
		   m->usable_bytes / LAUNCH_GIB, m->weights_bytes / LAUNCH_GIB,
		   m->gradients_bytes / LAUNCH_GIB,
		   m->optimizer_bytes / LAUNCH_GIB,
		   m->activations_bytes / LAUNCH_GIB,
		   m->other_bytes / LAUNCH_GIB);
	if (m->cache_bytes >= 0.05 * LAUNCH_GIB)
		launch_put(o, "             and PyTorch's cache up to %.1f "
			   "GiB more while the GPU has room\n",
			   m->cache_bytes / LAUNCH_GIB);
	if (p->pp > 1 && m->last_stage)
		launch_put(o, "             on the last pipeline stage, which "
			   "holds the loss's logits\n");
	launch_put(o, "  speed      MFU %.1f%%, %.0f TFLOP/s per GPU, %s "
		   "tokens/s\n", p->mfu * 100, p->tflops_per_gpu,
		   autosize_launch_count(p->tokens_per_s, n, sizeof(n)));
	launch_report_step(o, p);
}

/* What the price schedule did to the plain price (price.h). */
static void launch_report_price(launch_out *o, const autosize_plan *p)
{
	const autosize_cost *c = &p->price;

	launch_put(o, ", %.2f %s", p->cost, p->part.currency);
	if (c->whole_nodes)
		launch_put(o, "; whole nodes at %.2f per GPU-hour",
			   c->rate_per_gpu_hour);
	else if (c->below_min)
		launch_put(o, "; under %d GPUs at %.2f per GPU-hour",
			   p->part.pricing.min_gpus, c->rate_per_gpu_hour);
	if (c->off_peak_share > 0)
		launch_put(o, "; %.0f%% of hours off-peak at -%.0f%%",
			   c->off_peak_share * 100,
			   p->part.pricing.off_peak_discount * 100);
	if (c->rental_discount > 0)
		launch_put(o, "; -%.0f%% for the rental length",
			   c->rental_discount * 100);
	if (c->fee > 0)
		launch_put(o, "; platform fee %.2f", c->fee);
	if (c->total != c->list)
		launch_put(o, " (%.2f at the plain price)", c->list);
}

/* What a whole run spends beyond its steps (perf.yaml whole_run:), so
 * that the time line agrees with the speed line: the steps' hours at
 * the planned speed, the stated evaluations' (--eval-tokens), and the
 * share the rest takes. */
static void launch_report_efficiency(launch_out *o, const autosize_plan *p)
{
	char n[16], e[16];
	double steps_h = p->tokens_per_s > 0
			 ? p->tokens / p->tokens_per_s / 3600 : 0;

	if (!(steps_h > 0))
		return;
	if (p->eval_hours > 0)
		launch_put(o, ": %.1f h of steps at %s tokens/s and %.1f h "
			   "evaluating %s tokens (forward only)", steps_h,
			   autosize_launch_count(p->tokens_per_s, n,
						 sizeof(n)),
			   p->eval_hours,
			   autosize_launch_count(p->eval_tokens, e,
						 sizeof(e)));
	if (!(p->run_efficiency > 0 && p->run_efficiency < 0.999))
		return;
	if (p->eval_hours > 0)
		launch_put(o, ", over a whole-run efficiency of %.0f%% "
			   "(start-up, checkpoint and data stalls, other "
			   "evaluation)", p->run_efficiency * 100);
	else
		launch_put(o, ": %.1f h of steps at %s tokens/s over a "
			   "whole-run efficiency of %.0f%% (start-up, "
			   "evaluation, checkpoint and data stalls)", steps_h,
			   autosize_launch_count(p->tokens_per_s, n,
						 sizeof(n)),
			   p->run_efficiency * 100);
}

/* The time limit, and the chain its limits make: what they cover. */
static void launch_report_limit(launch_out *o, const autosize_plan *p)
{
	char limit[32];

	autosize_format_duration(p->time_limit_min * 60.0, limit,
				 sizeof(limit));
	if (p->chained_jobs <= 1) {
		launch_put(o, "; time limit %s (upper end + start-up + "
			   "checkpoints, at least +%.0f%%)", limit,
			   p->time_reserve * 100);
		return;
	}
	launch_put(o, "\n  limit      %s per job x %d chained jobs: the "
		   "limits cover %.1f h (the upper end, at least +%.0f%%), "
		   "each job's start-up and checkpoints", limit,
		   p->chained_jobs, fmax(p->train_hours_high,
					 p->train_hours *
					 (1 + p->time_reserve)),
		   p->time_reserve * 100);
	if (p->chain_needed > p->chained_jobs)
		launch_put(o, " of %d (%s)", p->chain_needed,
			   p->chain_cut_by);
	if (p->signal_s > 0)
		launch_put(o, "; SIGUSR1 %d min before each limit: save a "
			   "checkpoint and exit", p->signal_s / 60);
}

/* Time, calibration and cost lines of a plan with a token budget. */
static void launch_report_time(launch_out *o, const autosize_plan *p)
{
	const autosize_plan_calibration *cal = &p->calibration;

	launch_put(o, "  time       %.1f h predicted", p->train_hours);
	launch_report_efficiency(o, p);
	if (p->train_hours_high > p->train_hours_low && cal->applied)
		launch_put(o, "; likely %.1f-%.1f h (%d finished jobs of this "
			   "site)", p->train_hours_low, p->train_hours_high,
			   cal->jobs);
	else if (p->train_hours_high > p->train_hours_low)
		launch_put(o, "; likely %.1f-%.1f h (%s, %d published runs%s)",
			   p->train_hours_low, p->train_hours_high,
			   p->perf_generation, p->interval_runs,
			   p->interval_pooled ? " of all regimes, widened: few "
						"of this one" : "");
	if (p->interruptions >= 0.5)
		launch_put(o, "; %.0f interruption%s expected, %.2g%% of the "
			   "run lost to restarts", p->interruptions,
			   p->interruptions < 1.5 ? "" : "s",
			   100 * (1 - p->goodput));
	launch_report_limit(o, p);
	if (cal->applied)
		launch_put(o, "\n  calibrated speed x %.2f (likely %.2f-%.2f) "
			   "and memory x %.2f from %d jobs of %d users on %s",
			   cal->speed_factor, cal->speed_low, cal->speed_high,
			   cal->memory_factor, cal->jobs, cal->users,
			   cal->regime);
	launch_put(o, "\n  cost       %.0f GPU-hours", p->gpu_hours);
	if (p->cost > 0)
		launch_report_price(o, p);
	launch_put(o, "\n");
}

/* One checkpoint, the bandwidth that keeps writing them under the
 * policy's share, the storage the kept ones take (checkpoint.h). */
static void launch_report_checkpoint(launch_out *o, const autosize_plan *p)
{
	const autosize_checkpoint *k = &p->ckpt;
	char one[32], rank[32], all[32];

	launch_put(o, "  checkpoint %s each (%.0f bytes per %sparameter, %s), "
		   "%s per rank\n", autosize_checkpoint_format_bytes(
			   k->bytes, one, sizeof(one)), k->bytes_per_param,
		   k->trained_params < p->params * 0.999 ? "trained " : "",
		   autosize_framework_name(p->framework),
		   autosize_checkpoint_format_bytes(k->shard_bytes, rank,
						    sizeof(rank)));
	launch_put(o, "             every %.1f h: %.1f GB/s keeps writing "
		   "under %.0f%% of the run", k->interval_s / 3600,
		   k->need_write_gbs, 100 * k->bytes /
		   (k->need_write_gbs * 1e9) / k->interval_s);
	if (k->count > 0)
		launch_put(o, "; %d writes of %.1f min, %.1f h", k->count,
			   k->write_s / 60, k->hours);
	launch_put(o, "; keep %d: %s\n", k->keep,
		   autosize_checkpoint_format_bytes(k->storage_bytes, all,
						    sizeof(all)));
}

int autosize_launch_report(const autosize_request *r, const autosize_plan *p,
			   char *buf, size_t len)
{
	char n1[16], n2[16];
	launch_out o;
	int i;

	launch_init(&o, buf, len);
	if (!r || !p)
		return launch_fail(buf, len);
	launch_put(&o, "%s (%s params", r->model.name[0] ? r->model.name
							 : "model",
		   autosize_launch_count(p->params, n1, sizeof(n1)));
	if (p->params_active > 0 && p->params_active < p->params * 0.999)
		launch_put(&o, ", %s active", autosize_launch_count(
				   p->params_active, n2, sizeof(n2)));
	/* the windows or chunks the attention was priced at, where they
	 * bite */
	if (r->model.attn_window > 0 && r->model.attn_window < p->seq_len)
		launch_put(&o, ", a %d-token window on %d of %d layers",
			   r->model.attn_window, r->model.window_layers,
			   r->model.layers);
	if (r->model.attn_chunk > 0 && r->model.attn_chunk < p->seq_len)
		launch_put(&o, ", %d-token chunks on %d of %d layers",
			   r->model.attn_chunk, r->model.window_layers,
			   r->model.layers);
	/* a hybrid's blocks, which its attention and Mamba terms follow */
	if (r->model.mamba_layers > 0)
		launch_put(&o, ", %d Mamba-2, %d attention and %d MLP of %d "
			   "blocks", r->model.mamba_layers,
			   autosize_model_attn_layers(&r->model),
			   autosize_model_mlp_layers(&r->model),
			   r->model.layers);
	launch_put(&o, ")");
	if (p->tokens > 0)
		launch_put(&o, " x %s tokens", autosize_launch_count(
				   p->tokens, n1, sizeof(n1)));
	if (p->tokens > 0 && p->tokens_done > 0)
		launch_put(&o, " left of %s (%s done)", autosize_launch_count(
				   p->tokens + p->tokens_done, n1, sizeof(n1)),
			   autosize_launch_count(p->tokens_done, n2,
						 sizeof(n2)));
	launch_report_where(&o, p);
	/* gpus_min: the most of what the deadline needs at the planned
	 * MFU and what the model states need in memory (plan.c) */
	launch_put(&o, "  size       %d node%s x %d GPU%s = %d GPU%s", p->nodes,
		   p->nodes == 1 ? "" : "s", p->gpus_per_node,
		   p->gpus_per_node == 1 ? "" : "s", p->gpus,
		   p->gpus == 1 ? "" : "s");
	if (p->segment_nodes > 0)
		launch_put(&o, " in segments of %d nodes (sbatch --segment=%d; ",
			   p->segment_nodes, p->segment_nodes);
	else
		launch_put(&o, " (");
	launch_put(&o, "least that could do: %.0f GPU%s, for the deadline at "
		   "the planned MFU and the model states in memory)\n",
		   p->gpus_min, p->gpus_min > 0 && p->gpus_min < 1.5 ? "" : "s");
	if (p->tp > 0) {
		launch_report_layout(&o, p);
		if (p->train_hours > 0)
			launch_report_time(&o, p);
		if (p->ckpt.bytes > 0 && p->ckpt.need_write_gbs > 0 &&
		    p->ckpt.interval_s > 0)
			launch_report_checkpoint(&o, p);
	}
	if (!p->feasible)
		launch_put(&o, "  NOT FEASIBLE: %s\n", p->reason);
	for (i = 0; i < p->n_warnings && i < AUTOSIZE_MAX_WARNINGS; i++)
		launch_put(&o, "  warning    %s\n", p->warnings[i]);
	return launch_done(&o);
}

int autosize_launch_rdzv_port(unsigned long job_id, unsigned long step_id)
{
	unsigned long slot = 0;

	/* the batch or interactive step (a job has one of them), extern
	 * and the other reserved ids: slot 0; numbered steps 1..7 */
	if (step_id < AUTOSIZE_LAUNCH_STEP_INTERACTIVE - 5)
		slot = 1 + step_id % (AUTOSIZE_LAUNCH_PORT_SLOTS - 1);
	return AUTOSIZE_LAUNCH_PORT_BASE +
	       (int)(job_id % AUTOSIZE_LAUNCH_PORT_JOBS) *
	       AUTOSIZE_LAUNCH_PORT_SLOTS + (int)slot;
}

int autosize_launch_torchrun_args(const autosize_plan *p, const char *host,
				  int port, const char *run_id, char *buf,
				  size_t len)
{
	launch_out o;

	launch_init(&o, buf, len);
	if (!p || p->nodes < 1 || p->gpus_per_node < 1)
		return launch_fail(buf, len);
	if ((run_id && !launch_is_name(run_id)) ||
	    (host && !launch_is_name(host)) || port < 0 || port > 65535)
		return launch_fail(buf, len);
	/* A real step has a port and a run id; a plan not yet running has
	 * none of the three. */
	if ((port > 0) != (run_id != NULL) ||
	    (p->nodes > 1 && (port > 0) != (host != NULL)))
		return launch_fail(buf, len);
	/* torch.distributed.run: the underscore spellings are the ones
	 * torch 1.x knows, and torch 2.x still accepts them. */
	launch_put(&o, "--nnodes=%d --nproc_per_node=%d --rdzv_backend=c10d",
		   p->nodes, p->gpus_per_node);
	/* One node: a store on this node (the agent whose host matches the
	 * endpoint serves it; c10d rendezvous backend). */
	if (p->nodes == 1)
		launch_put(&o, " --rdzv_endpoint=localhost:");
	else
		launch_put(&o, " --rdzv_endpoint=%s:", host ? host
							     : "FIRST_NODE");
	if (port > 0)
		launch_put(&o, "%d --rdzv_id=%s", port, run_id);
	else
		launch_put(&o, "PORT --rdzv_id=RUN_ID");
	return launch_done(&o);
}

/* Interleaving with micro-batches per step that are no multiple of pp:
 * the group size Megatron's schedule runs them in (framework_vp_group;
 * the default, pp, would be refused). */
static void launch_vp_group(launch_out *o, const autosize_plan *p, int vp)
{
	int g = framework_vp_group(AUTOSIZE_FRAMEWORK_MEGATRON, p->pp, vp,
				   p->grad_accum);

	if (vp > 1 && g > 0 && g != p->pp)
		launch_put(o, " --microbatch-group-size-per-virtual-pipeline-"
			   "stage %d", g);
}

/* The pipeline arguments: uneven stages, interleaving. 0, or -1 with
 * why when Megatron cannot split the model's layers so. */
static int launch_megatron_stages(launch_out *o, const autosize_plan *p,
				  const autosize_request *r, char *why,
				  size_t why_len)
{
	int layers = r->model.layers, vp = p->vp > 1 ? p->vp : 1;
	int first, middle, last, split;

	if (p->pp <= 1)
		return 0;
	split = stages_megatron_split(layers, p->pp, vp, &first, &middle,
				      &last);
	if (split >= 0 && p->stage_layers[0] > 0 &&
	    (p->stage_layers[0] != first || p->stage_layers[1] != middle ||
	     p->stage_layers[2] != last)) {
		/* the plan's split, the output head balanced
		 * (stages_megatron_split_head): first and last apart */
		first = p->stage_layers[0];
		middle = p->stage_layers[1];
		last = p->stage_layers[2];
		split = 1;
	}
	if (split < 0) {
		if (why)
			snprintf(why, why_len, "Megatron-LM cannot split %d "
				 "layers over %d pipeline stages%s%.0d: no "
				 "Megatron arguments", layers, p->pp,
				 vp > 1 ? " x virtual stages " : "",
				 vp > 1 ? vp : 0);
		return -1;
	}
	if (split == 2) {
		/* Megatron-Core 0.13+: the whole split as one layout */
		char layout[STAGES_LAYOUT_MAX];

		if (stages_megatron_layout(layers, p->pp, vp, layout,
					   sizeof(layout)) < 0)
			return -1;
		launch_put(o, " --pipeline-model-parallel-layout %s", layout);
		launch_vp_group(o, p, vp);
		return 0;
	}
	if (split)
		launch_put(o, " --decoder-first-pipeline-num-layers %d "
			   "--decoder-last-pipeline-num-layers %d", first,
			   last);
	/* interleaved 1F1B: layers per virtual stage with even stages
	 * (every Megatron since 2021); uneven ones need the count of
	 * virtual stages instead (arguments.py refuses the other) */
	if (vp > 1 && !split)
		launch_put(o, " --num-layers-per-virtual-pipeline-stage %d",
			   middle / vp);
	else if (vp > 1)
		launch_put(o, " --num-virtual-stages-per-pipeline-rank %d",
			   vp);
	launch_vp_group(o, p, vp);
	return 0;
}

/* --moe-overlap as Megatron runs it (framework_moe_overlap_ok). */
static int launch_moe_overlap(const autosize_plan *p,
			      const autosize_request *r)
{
	return framework_moe_overlap_ok(r->moe_overlap, p->framework, p->ep,
					p->pp, p->vp, p->recompute);
}

static int launch_is_megatron(const autosize_plan *p)
{
	return p->framework == AUTOSIZE_FRAMEWORK_MEGATRON ||
	       p->framework == AUTOSIZE_FRAMEWORK_DEFAULT;
}

/* Megatron arguments into o; why says what stopped them ("" when the
 * framework is another). */
static int launch_megatron(launch_out *o, const autosize_plan *p,
			   const autosize_request *r, char *why,
			   size_t why_len)
{
	/* An FSDP or DeepSpeed plan has no Megatron arguments (a ZeRO-3
	 * layout is not a Megatron layout). */
	if (!launch_is_megatron(p))
		return 0;
	/* Megatron-LM's arguments train every weight: a LoRA or QLoRA
	 * plan would run as full training, with other memory and speed */
	if (launch_peft(r)) {
		if (why)
			snprintf(why, why_len, "Megatron-LM trains every "
				 "weight: no Megatron arguments for %s (NeMo's "
				 "and Megatron-Bridge's PEFT recipes run it: "
				 "their tensor, pipeline and context parallel "
				 "sizes are AUTOSIZE_TP, AUTOSIZE_PP and "
				 "AUTOSIZE_CP, their block recomputation's "
				 "recompute_num_layers AUTOSIZE_RECOMPUTE_LAYERS)",
				 autosize_train_mode_name(r->train_mode));
		return -1;
	}
	launch_put(o, "--tensor-model-parallel-size %d "
		   "--pipeline-model-parallel-size %d --micro-batch-size %d "
		   "--global-batch-size %d --seq-length %d", p->tp, p->pp,
		   p->micro_batch, p->global_batch, p->seq_len);
	/* The search turns sequence parallelism on with TP > 1 unless the
	 * request pinned it off (search.c). */
	if (p->tp > 1 && r->sequence_parallel != 0)
		launch_put(o, " --sequence-parallel");
	if (p->cp > 1)
		launch_put(o, " --context-parallel-size %d", p->cp);
	if (p->ep > 1)
		launch_put(o, " --expert-model-parallel-size %d", p->ep);
	/* experts whole on each TP rank, EP folded over them (Megatron's
	 * default expert TP is TP) */
	if (launch_etp_one(p))
		launch_put(o, " --expert-tensor-parallel-size 1");
	/* the step time prices the tokens' exchange by the plan's
	 * dispatcher (perf.c): alltoall's copy per routed expert, DeepEP's
	 * and HybridEP's one per rank and node; Megatron's default
	 * dispatcher is allgather. --moe-overlap: the batch-level overlap
	 * of that exchange (combined 1F1B; transformer_config.py takes it
	 * with the alltoall or flex dispatcher), as Megatron-Bridge's Qwen3
	 * H100 recipes run it (moe_a2a_overlap, v0.2.0): no DeepEP build
	 * needed */
	if (r->model.experts > 1) {
		/* DeepEP and HybridEP are the flex dispatcher's backends
		 * (transformer_config.py moe_flex_dispatcher_backend; the
		 * plan leaves a layout without expert TP x EP > 1 to
		 * alltoall, sizing_layout_dispatcher); both take the
		 * router's probabilities in fp32 and warn every dispatch
		 * otherwise (token_dispatcher.py) */
		if (autosize_moe_dispatcher_flex(p->moe_dispatcher))
			launch_put(o, " --moe-token-dispatcher-type flex "
				   "--moe-flex-dispatcher-backend %s "
				   "--moe-router-dtype fp32",
				   autosize_moe_dispatcher_name(
					p->moe_dispatcher));
		else
			launch_put(o, " --moe-token-dispatcher-type "
				   "alltoall");
		/* the local experts in Transformer Engine's grouped GEMM, as
		 * the fit's Megatron-Bridge MoE recipes run them
		 * (moe_grouped_gemm, its model providers); without it
		 * Megatron loops over them one module at a time
		 * (SequentialMLP). validate_args wants compute capability
		 * 8.0 or more: the GPUs with BF16 tensor cores */
		if (p->part.gpu && p->part.gpu->bf16_tflops > 0)
			launch_put(o, " --moe-grouped-gemm");
	}
	if (launch_moe_overlap(p, r))
		launch_put(o, " --overlap-moe-expert-parallel-comm "
			   "--delay-wgrad-compute");
	if (launch_megatron_stages(o, p, r, why, why_len) < 0)
		return -1;
	/* Megatron's distributed optimizer shards optimizer state over
	 * data-parallel ranks: ZeRO stage 1 (Megatron-LM docs,
	 * dist_optimizer.md). */
	if (p->zero_stage >= 1)
		launch_put(o, " --use-distributed-optimizer");
	/* --optimizer-offload: the whole optimizer state steps on the CPU
	 * (HybridDeviceOptimizer; the fraction defaults to 0, nothing
	 * offloaded), which validate_args runs only with the precision-
	 * aware optimizer; framework_zero_stages keeps such plans at
	 * ZeRO-1 */
	if (r->opt_offload == 1 && p->zero_stage >= 1 && p->zero_stage < 3)
		launch_put(o, " --optimizer-cpu-offload "
			   "--use-precision-aware-optimizer "
			   "--optimizer-offload-fraction 1.0");
	/* the step time hides the gradient reduction under the last
	 * backward and, sharded, the parameter gather under the first
	 * forward (perf.c); Megatron-LM does neither unless asked */
	if (p->dp * (p->cp > 1 ? p->cp : 1) > 1)
		launch_put(o, " --overlap-grad-reduce%s", p->zero_stage >= 1
			   ? " --overlap-param-gather" : "");
	/* and the TP all-gathers / reduce-scatters under their GEMMs
	 * (Transformer Engine userbuffers), priced with sequence
	 * parallelism */
	if (p->tp > 1 && r->sequence_parallel != 0)
		launch_put(o, " --tp-comm-overlap");
	/* ZeRO-3: Megatron-FSDP shards the parameters too (Megatron Core
	 * user guide, Megatron FSDP: these four flags, and its DTensor
	 * checkpoints) */
	if (p->zero_stage >= 3)
		launch_put(o, " --use-megatron-fsdp "
			   "--data-parallel-sharding-strategy optim_grads_params "
			   "--no-gradient-accumulation-fusion "
			   "--ckpt-format fsdp_dtensor");
	/* full: every layer's input kept, the layer recomputed (uniform
	 * method, one layer per recompute unit; transformer_config.py
	 * recompute_num_layers); partial: the block method recomputes the
	 * first N layers of each virtual stage and keeps the rest whole
	 * (uniform would recompute every layer in groups of N) */
	if (p->recompute == AUTOSIZE_RECOMPUTE_FULL && p->recompute_layers > 0)
		launch_put(o, " --recompute-granularity full "
			   "--recompute-method block --recompute-num-layers "
			   "%d", autosize_launch_recompute_num_layers(NULL, p));
	else if (p->recompute == AUTOSIZE_RECOMPUTE_FULL)
		launch_put(o, " --recompute-granularity full "
			   "--recompute-method uniform --recompute-num-layers "
			   "1");
	else if (p->recompute == AUTOSIZE_RECOMPUTE_SELECTIVE)
		launch_put(o, " --recompute-granularity selective");
	else if (p->recompute == AUTOSIZE_RECOMPUTE_SELECTIVE_MLP)
		/* megatron-core recompute_modules: the MLP too */
		launch_put(o, " --recompute-granularity selective "
			   "--recompute-modules core_attn mlp");
	switch (r->precision) {
	case AUTOSIZE_PREC_FP16:
		launch_put(o, " --fp16");
		break;
	case AUTOSIZE_PREC_FP8:
		/* Transformer Engine FP8 on top of bf16 master weights; with
		 * the distributed optimizer (which validate_args asks for)
		 * the parameters kept in FP8, as Megatron-Bridge's FP8
		 * recipes keep them: memory.c counts no 16-bit copy beside
		 * TE's cached FP8 weights then */
		launch_put(o, " --bf16 --fp8-format hybrid%s",
			   p->zero_stage >= 1 ? " --fp8-param-gather" : "");
		break;
	case AUTOSIZE_PREC_NVFP4:
		/* Transformer Engine NVFP4BlockScaling (fp4_recipe's
		 * default, nvfp4) on bf16 master weights; TE >= 2.7
		 * (arguments.py validate_args); parameters in NVFP4 with
		 * the distributed optimizer, as Megatron-Bridge's
		 * bf16_with_nvfp4_mixed */
		launch_put(o, " --bf16 --fp4-format e2m1%s",
			   p->zero_stage >= 1 ? " --fp4-param-gather" : "");
		break;
	default:
		launch_put(o, " --bf16");
		break;
	}
	/* --grad-reduce bf16: Megatron-LM otherwise reduces bf16 runs'
	 * gradients in fp32 (arguments.py) */
	if (r->precision != AUTOSIZE_PREC_FP16 && r->grad_reduce_b == 2)
		launch_put(o, " --grad-reduce-in-bf16");
	/* the whole run's iterations (a resumed run counts on from its
	 * checkpoint's), and a chained job's stop: Megatron saves and
	 * exits after that many minutes (training.py, exit_duration_in_mins) */
	if (autosize_launch_steps(p) > 0)
		launch_put(o, " --train-iters %ld", autosize_launch_steps(p));
	if (autosize_launch_exit_minutes(p) > 0)
		launch_put(o, " --exit-duration-in-mins %ld",
			   autosize_launch_exit_minutes(p));
	return 0;
}

int autosize_launch_megatron_args(const autosize_request *r,
				  const autosize_plan *p, char *buf,
				  size_t len)
{
	launch_out o;

	launch_init(&o, buf, len);
	if (!p || !r)
		return launch_fail(buf, len);
	if (launch_megatron(&o, p, r, NULL, 0) < 0) {
		if (o.ok)
			buf[0] = '\0';
		return o.ok ? 0 : -1;
	}
	return launch_done(&o);
}

/* One DeepSpeed offload block (key) to pinned host memory, inside
 * zero_optimization. */
static void launch_deepspeed_to_cpu(launch_out *o, const char *key)
{
	launch_put(o, ",\n"
		   "    \"%s\": {\n"
		   "      \"device\": \"cpu\",\n"
		   "      \"pin_memory\": true\n"
		   "    }", key);
}

/* --optimizer-offload and --param-offload as DeepSpeed runs them
 * (docs/_pages/config-json.md: offload_optimizer for ZeRO 1-3, the
 * optimizer stepping on the CPU; offload_param for ZeRO-3 only). */
static void launch_deepspeed_offload(launch_out *o, const autosize_plan *p,
				     const autosize_request *r)
{
	int params = r->param_offload == 1 && p->zero_stage >= 3;

	if (params)
		launch_deepspeed_to_cpu(o, "offload_param");
	if ((params || r->opt_offload == 1) && p->zero_stage >= 1)
		launch_deepspeed_to_cpu(o, "offload_optimizer");
}

int autosize_launch_deepspeed_json(const autosize_request *r,
				   const autosize_plan *p, char *buf,
				   size_t len)
{
	launch_out o;
	int fp16;

	launch_init(&o, buf, len);
	if (!p || !r)
		return launch_fail(buf, len);
	/* DeepSpeed asserts train_batch_size = micro batch x gradient
	 * accumulation x data-parallel size (runtime/config.py,
	 * _batch_assertion): a plan that breaks it gets no config. */
	if ((long)p->micro_batch * p->grad_accum * p->dp != p->global_batch ||
	    p->micro_batch < 1)
		return launch_fail(buf, len);
	fp16 = r->precision == AUTOSIZE_PREC_FP16;
	/* gradient_clipping: the HF Trainer's max_grad_norm and Megatron's
	 * --clip-grad default (1.0), which the Trainer checks the JSON
	 * against; older DeepSpeed defaults to 0 (no clipping) */
	launch_put(&o, "{\n");
	/* --cp under DeepSpeed is Ulysses (framework_cp_ulysses): its
	 * ranks share a sample. DeepSpeed counts the data-parallel ranks
	 * as the world over sequence_parallel_size (runtime/config.py,
	 * where no mpu gives them) and derives train_batch_size from the
	 * other two; the HF Trainer checks a stated one against world x
	 * micro-batch x accumulation (integrations/deepspeed.py
	 * trainer_config_process), sequence_parallel_size times too many,
	 * and accelerate sets it itself (accelerator.py): left out */
	if (p->cp <= 1)
		launch_put(&o, "  \"train_batch_size\": %d,\n",
			   p->global_batch);
	launch_put(&o, "  \"train_micro_batch_size_per_gpu\": %d,\n"
		   "  \"gradient_accumulation_steps\": %d,\n"
		   "  \"gradient_clipping\": 1.0,\n",
		   p->micro_batch, p->grad_accum);
	if (p->cp > 1)
		launch_put(&o, "  \"sequence_parallel_size\": %d,\n", p->cp);
	launch_put(&o, "  \"zero_optimization\": {\n"
		   "    \"stage\": %d%s", p->zero_stage,
		   /* the reduction under the backward, as the step time
		    * assumes (perf.c); DeepSpeed's default is off */
		   p->zero_stage >= 1 ? ",\n    \"overlap_comm\": true" : "");
	launch_deepspeed_offload(&o, p, r);
	launch_put(&o, "\n"
		   "  },\n"
		   "  \"bf16\": {\n"
		   "    \"enabled\": %s\n"
		   "  },\n"
		   "  \"fp16\": {\n"
		   "    \"enabled\": %s\n"
		   "  }", fp16 ? "false" : "true", fp16 ? "true" : "false");
	if (p->recompute != AUTOSIZE_RECOMPUTE_NONE)
		launch_put(&o, ",\n"
			   "  \"activation_checkpointing\": {\n"
			   "    \"partition_activations\": false,\n"
			   "    \"contiguous_memory_optimization\": false,\n"
			   "    \"cpu_checkpointing\": false\n"
			   "  }");
	launch_put(&o, "\n}\n");
	return launch_done(&o);
}

/* torchtitan's degrees, sharding and pipeline schedule, the same
 * options in both releases. */
static void launch_titan_parallel(launch_out *o, const autosize_plan *p,
				  const autosize_request *r)
{
	int vp = p->vp > 1 ? p->vp : 1;
	/* torchtitan's mesh: replicate x shard x CP x TP x PP GPUs, EP
	 * borrowed from shard x CP (parallel_dims.py); a sharded model
	 * (ZeRO-2/3) is the shard dimension */
	int shard = p->zero_stage >= 2 || p->ep > 1;

	launch_put(o, "--parallelism.data_parallel_replicate_degree %d "
		   "--parallelism.data_parallel_shard_degree %d "
		   "--parallelism.tensor_parallel_degree %d "
		   "--parallelism.pipeline_parallel_degree %d "
		   "--parallelism.context_parallel_degree %d "
		   "--parallelism.expert_parallel_degree %d",
		   shard ? 1 : p->dp, shard ? p->dp : 1, p->tp, p->pp,
		   p->cp > 1 ? p->cp : 1, p->ep > 1 ? p->ep : 1);
	/* ZeRO-2: gradients and optimizer sharded, parameters kept
	 * gathered between forward and backward */
	if (shard && p->zero_stage == 2)
		launch_put(o, " --parallelism.fsdp_reshard_after_forward "
			   "never");
	if (p->pp > 1 && vp > 1 && r->model.layers % (p->pp * vp) == 0)
		launch_put(o, " --parallelism.pipeline_parallel_schedule "
			   "Interleaved1F1B --parallelism.pipeline_parallel_"
			   "layers_per_stage %d", r->model.layers /
			   (p->pp * vp));
}

static const char *launch_titan_recompute(const autosize_plan *p)
{
	/* torchtitan's selective mode keeps a subset of the ops, as the
	 * memory model's selective and selective-mlp do */
	return p->recompute == AUTOSIZE_RECOMPUTE_NONE ? "none"
	       : p->recompute == AUTOSIZE_RECOMPUTE_FULL ? "full"
	       : "selective";
}

/* torchtitan's options for its current release, or (v1) for the
 * releases with config/job_config.py (launch.h). */
static int launch_titan_line(const autosize_plan *p,
			     const autosize_request *r, int v1, char *buf,
			     size_t len)
{
	launch_out o;

	launch_init(&o, buf, len);
	if (!p || !r)
		return launch_fail(buf, len);
	/* adapters: the current release's LoRAConverter (components/
	 * lora.py: TP-sharded LoRA linears over 16-bit ones), a converter
	 * of the config function; no QLoRA, none in the job_config.py
	 * releases */
	if (p->framework != AUTOSIZE_FRAMEWORK_FSDP ||
	    (launch_peft(r) && (v1 || r->train_mode == AUTOSIZE_TRAIN_QLORA)))
		return 0;
	launch_titan_parallel(&o, p, r);
	if (v1) {
		/* a pipeline's rank takes its whole step as the local
		 * batch and splits it into micro-batches of this size
		 * (train.py) */
		if (p->pp > 1)
			launch_put(&o, " --parallelism.pipeline_parallel_"
				   "microbatch_size %d", p->micro_batch);
		launch_put(&o, " --training.local_batch_size %d "
			   "--training.global_batch_size %d "
			   "--training.seq_len %d", p->pp > 1 ?
			   p->micro_batch * p->grad_accum : p->micro_batch,
			   p->global_batch, p->seq_len);
	} else {
		/* a pipeline's micro-batches per step, each micro-batch's
		 * tokens, the step's tokens (trainer.py: accumulation =
		 * step tokens / (micro-batch tokens x pipeline
		 * micro-batches x DP)) */
		if (p->pp > 1)
			launch_put(&o, " --parallelism.num_pp_microbatches "
				   "%d", p->grad_accum);
		launch_put(&o, " --training.num_tokens_per_microbatch_per_"
			   "dp_rank %ld --training.num_tokens_per_train_step "
			   "%ld --training.max_context_length %d",
			   (long)p->micro_batch * p->seq_len,
			   (long)p->global_batch * p->seq_len, p->seq_len);
	}
	if (autosize_launch_steps(p) > 0)
		launch_put(&o, " --training.steps %ld",
			   autosize_launch_steps(p));
	/* --param-offload: FSDP's CPU offload */
	if (r->param_offload == 1 && p->zero_stage >= 3)
		launch_put(&o, " --training.enable_cpu_offload");
	if (v1) {
		/* Float8 linear layers (torchao), registered so */
		if (autosize_launch_precision(r, NULL, 0) ==
		    AUTOSIZE_PREC_FP8)
			launch_put(&o, " --model.converters "
				   "quantize.linear.float8");
		launch_put(&o, " --activation_checkpoint.mode %s",
			   launch_titan_recompute(p));
		return launch_done(&o);
	}
	/* CUDA graphs (on by default) refuse pipelines and the expert
	 * dispatchers that synchronize with the host (trainer.py
	 * _validate_cuda_graphs); the step time does not count them */
	if (p->pp > 1 || p->ep > 1)
		launch_put(&o, " --training.disable_cuda_graphs");
	/* a subcommand: last, nothing of the parent may follow it */
	launch_put(&o, " activation_checkpoint:%s",
		   launch_titan_recompute(p));
	return launch_done(&o);
}

int autosize_launch_torchtitan_args(const autosize_request *r,
				    const autosize_plan *p, char *buf,
				    size_t len)
{
	return launch_titan_line(p, r, 0, buf, len);
}

int autosize_launch_torchtitan_v1_args(const autosize_request *r,
				       const autosize_plan *p, char *buf,
				       size_t len)
{
	return launch_titan_line(p, r, 1, buf, len);
}

/* A string as JSON (json_write.h: valid UTF-8 whatever s holds). */
static void launch_json_string(launch_out *o, const char *s)
{
	size_t used = o->used;

	if (!o->ok)
		return;
	json_write_str(o->buf, o->len, &used, s, 0);
	if (used >= o->len) {
		o->ok = 0;
		o->buf[o->used] = '\0';
		return;
	}
	o->used = used;
}

/* ,"key":"s" or ,"key":null when s is "". */
static void launch_json_or_null(launch_out *o, const char *key,
				const char *s)
{
	launch_put(o, ",\"%s\":", key);
	if (s[0])
		launch_json_string(o, s);
	else
		launch_put(o, "null");
}

/* Add a sentence to a note ("; " between two). */
static void launch_note_add(char *note, size_t len, const char *text)
{
	size_t used = strlen(note);

	if (used && used + 2 < len) {
		memcpy(note + used, "; ", 3);
		used += 2;
	}
	snprintf(note + used, len - used, "%s", text);
}

/* Add a sentence to the launch's note and the tasks'. */
static void launch_note(autosize_launch *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void launch_note(autosize_launch *l, const char *fmt, ...)
{
	char text[AUTOSIZE_LAUNCH_NOTE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	launch_note_add(l->note, sizeof(l->note), text);
	launch_note_add(l->task_note, sizeof(l->task_note), text);
}

/* A sentence about torchtitan's lines: in the launch's note, and told
 * to the tasks only of a job that may run torchtitan (its stack, or the
 * site's, is torchtitan or none: not the HF Trainer's or torchtune's
 * jobs, whose every task got it). */
static void launch_note_torchtitan(autosize_launch *l,
				   const autosize_plan *p, const char *text)
{
	launch_note_add(l->note, sizeof(l->note), text);
	if (!p->stack[0] || strcmp(p->stack, "torchtitan") == 0)
		launch_note_add(l->task_note, sizeof(l->task_note), text);
}

/* Set an environment variable of the launch (a fixed, short value). */
static void launch_setenv(autosize_launch *l, const char *name,
			  const char *value)
{
	autosize_launch_var *v;

	if (l->n_env >= AUTOSIZE_LAUNCH_ENV_MAX)
		return;
	v = &l->env[l->n_env++];
	snprintf(v->name, sizeof(v->name), "%s", name);
	snprintf(v->value, sizeof(v->value), "%s", value);
}

/*
 * CUDA_DEVICE_MAX_CONNECTIONS as Megatron-LM's validate_args wants it
 * (arguments.py, GPUs before Blackwell): Megatron-FSDP asserts it is not
 * 1 (8: CUDA's default, over a 1 left in the job's environment); tensor
 * or context parallelism asserts it is 1 (the TP and SP collectives rely
 * on in-order kernels, tensor_parallel/layers.py), except beside the MoE
 * all-to-all overlap, which it only warns about and which wants more
 * queues (32, the value its warning names).
 */
static const char *launch_max_connections(const autosize_plan *p,
					  const autosize_request *r)
{
	if (p->zero_stage >= 3)
		return "8";
	if (p->tp <= 1 && p->cp <= 1)
		return NULL;
	return launch_moe_overlap(p, r) ? "32" : "1";
}

/* The launchers' lines of the fine-tuning stacks (launch_dp.c). */
static int launch_dp_lines(const autosize_request *r, const autosize_plan *p,
			   const autosize_launch_where *where,
			   autosize_launch *out)
{
	if (autosize_launch_accelerate_args(r, p, where, out->accelerate,
					    sizeof(out->accelerate)) < 0 ||
	    autosize_launch_accelerate_config(r, p, out->accelerate_config,
					      sizeof(out->accelerate_config))
	    < 0 ||
	    autosize_launch_hf_trainer_args(r, p, out->hf_trainer,
					    sizeof(out->hf_trainer)) < 0 ||
	    autosize_launch_axolotl_args(r, p, where, out->axolotl,
					 sizeof(out->axolotl)) < 0 ||
	    autosize_launch_torchtune_args(r, p, out->torchtune,
					   sizeof(out->torchtune)) < 0)
		return -1;
	if (!out->torchtune[0])
		return 0;
	snprintf(out->torchtune_recipe, sizeof(out->torchtune_recipe), "%s",
		 autosize_launch_torchtune_recipe(r, p));
	/* tune run refuses torchrun's options for a single-device recipe */
	if (strstr(out->torchtune_recipe, "_distributed"))
		memcpy(out->tune_run, out->torchrun, sizeof(out->tune_run));
	return 0;
}

/* The launcher lines a stack's job may run, for a note. */
static void launch_lines_set(const autosize_launch *l, char *buf,
			     size_t len)
{
	const struct {
		const char *value, *name;
	} lines[] = {
		{l->accelerate, "AUTOSIZE_ACCELERATE_ARGS"},
		{l->hf_trainer, "AUTOSIZE_HF_TRAINER_ARGS"},
		{l->axolotl, "AUTOSIZE_AXOLOTL_ARGS"},
		{l->torchtune, "AUTOSIZE_TORCHTUNE_ARGS"},
		{l->torchtitan, "AUTOSIZE_TORCHTITAN_ARGS"},
		{l->deepspeed, "AUTOSIZE_DEEPSPEED_CONFIG"},
	};
	launch_out o;
	size_t i;

	launch_init(&o, buf, len);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (lines[i].value[0])
			launch_put(&o, "%s%s", o.used ? ", " : "",
				   lines[i].name);
}

/* What no launcher, or not the named stack's, runs (one sentence). */
static void launch_gaps(const autosize_request *r, const autosize_plan *p,
			autosize_launch *out)
{
	char why[AUTOSIZE_LAUNCH_NOTE_MAX], set[AUTOSIZE_LAUNCH_NOTE_MAX];

	if (launch_dp_none(r, p, why, sizeof(why))) {
		launch_note(out, "%s", why);
		return;
	}
	/* a stack that states how published runs were trained, with no
	 * public code: the Megatron line runs Megatron-Core's experts */
	if (strcmp(p->stack, "hai-llm") == 0 && r->model.experts > 1) {
		launch_note(out, "stack hai-llm is DeepSeek's own trainer, not "
			    "public: the Megatron line here runs Megatron-"
			    "Core, which issues each local expert from the "
			    "host; plan with --train-stack=megatron for it");
		return;
	}
	if (!autosize_launch_stack_gap(r, p, why, sizeof(why)))
		return;
	launch_lines_set(out, set, sizeof(set));
	launch_note(out, "%s%s%s%s", why, set[0] ? " (set: " : "", set,
		    set[0] ? ")" : "");
}

int autosize_launch_build(const autosize_request *r, const autosize_plan *p,
			  const autosize_launch_where *where,
			  autosize_launch *out)
{
	autosize_launch_where none = {NULL, 0, NULL, 0, NULL, NULL};
	char why[AUTOSIZE_LAUNCH_NOTE_MAX] = "";
	const char *connections;
	launch_out o;

	if (!out)
		return -1;
	memset(out, 0, sizeof(*out));
	if (!r || !p)
		return -1;
	if (!where)
		where = &none;
	if (autosize_launch_torchrun_args(p, where->host, where->port,
					  where->run_id, out->torchrun,
					  sizeof(out->torchrun)) < 0)
		goto fail;
	out->steps = autosize_launch_steps(p);
	out->job_steps = autosize_launch_job_steps(p);
	launch_init(&o, out->megatron, sizeof(out->megatron));
	if (launch_megatron(&o, p, r, why, sizeof(why)) < 0) {
		out->megatron[0] = '\0';
		if (why[0])
			launch_note(out, "%s", why);
	} else if (launch_done(&o) < 0) {
		goto fail;
	}
	if (out->megatron[0] && (connections = launch_max_connections(p, r)))
		launch_setenv(out, "CUDA_DEVICE_MAX_CONNECTIONS", connections);
	if (autosize_launch_torchtitan_args(r, p, out->torchtitan,
					    sizeof(out->torchtitan)) < 0 ||
	    autosize_launch_torchtitan_v1_args(r, p, out->torchtitan_v1,
					       sizeof(out->torchtitan_v1)) < 0 ||
	    launch_dp_lines(r, p, where, out) < 0)
		goto fail;
	/* accelerate reads the backend back as an upper-case enum
	 * (Accelerator.fp8_backend, FP8BackendType) while its command line
	 * takes lower case: the variable, not --fp8_backend */
	if (out->accelerate[0] &&
	    autosize_launch_precision(r, NULL, 0) == AUTOSIZE_PREC_FP8)
		launch_setenv(out, "ACCELERATE_FP8_BACKEND", "TE");
	if (out->torchtitan[0] && launch_peft(r))
		launch_note_torchtitan(out, p, "torchtitan trains LoRA in its "
			"current release only, from a config function whose "
			"model_spec converters hold a LoRAConverter (as "
			"llama3_debugmodel_float8_emulate_lora), not from an "
			"option");
	if (out->torchtitan[0] && r->precision == AUTOSIZE_PREC_FP8)
		launch_note_torchtitan(out, p, "torchtitan's current release "
			"takes FP8 from its config function "
			"(Float8LinearConverter in the model_spec converters), "
			"not an option: pick or write a float8 config");
	/* only where the user named it: a stack's own (NeMo AutoModel's
	 * deepep) is not torchtitan's business */
	if (out->torchtitan[0] && r->moe_dispatcher == p->moe_dispatcher &&
	    autosize_moe_dispatcher_flex(p->moe_dispatcher)) {
		snprintf(why, sizeof(why), "torchtitan takes the MoE "
			 "dispatcher from its config function (the model "
			 "registry's moe_comm_backend=\"%s\"), not an option",
			 autosize_moe_dispatcher_name(p->moe_dispatcher));
		launch_note_torchtitan(out, p, why);
	}
	if (p->framework == AUTOSIZE_FRAMEWORK_DEEPSPEED &&
	    autosize_launch_deepspeed_json(r, p, out->deepspeed,
					   sizeof(out->deepspeed)) < 0) {
		launch_note(out, "train_batch_size %d is not micro-batch %d x "
			    "accumulation %d x DP %d: no DeepSpeed "
			    "configuration", p->global_batch, p->micro_batch,
			    p->grad_accum, p->dp);
		out->deepspeed[0] = '\0';
	}
	launch_gaps(r, p, out);
	return 0;
fail:
	memset(out, 0, sizeof(*out));
	return -1;
}

int autosize_launch_to_json(const autosize_launch *l, char *buf, size_t len)
{
	launch_out o;
	const char *s;
	int i;

	launch_init(&o, buf, len);
	if (!l)
		return launch_fail(buf, len);
	launch_put(&o, "{\"torchrun\":");
	launch_json_string(&o, l->torchrun);
	launch_json_or_null(&o, "megatron", l->megatron);
	/* the configuration as an object, on one line */
	launch_put(&o, ",\"deepspeed\":");
	if (!l->deepspeed[0])
		launch_put(&o, "null");
	for (s = l->deepspeed; *s; s++)
		if (*s != '\n' && !(*s == ' ' && (s[1] == ' ' ||
						   s == l->deepspeed ||
						   s[-1] == '\n' ||
						   s[-1] == ' ')))
			launch_put(&o, "%c", *s);
	launch_json_or_null(&o, "torchtitan", l->torchtitan);
	launch_json_or_null(&o, "torchtitan_v1", l->torchtitan_v1);
	launch_json_or_null(&o, "accelerate", l->accelerate);
	launch_json_or_null(&o, "accelerate_config", l->accelerate_config);
	launch_json_or_null(&o, "hf_trainer", l->hf_trainer);
	launch_json_or_null(&o, "axolotl", l->axolotl);
	launch_json_or_null(&o, "tune_run", l->tune_run);
	launch_json_or_null(&o, "torchtune_recipe", l->torchtune_recipe);
	launch_json_or_null(&o, "torchtune", l->torchtune);
	launch_put(&o, ",\"env\":{");
	for (i = 0; i < l->n_env && i < AUTOSIZE_LAUNCH_ENV_MAX; i++) {
		launch_put(&o, "%s", i ? "," : "");
		launch_json_string(&o, l->env[i].name);
		launch_put(&o, ":");
		launch_json_string(&o, l->env[i].value);
	}
	launch_put(&o, "},\"steps\":%ld,\"job_steps\":%ld,\"note\":",
		   l->steps, l->job_steps);
	launch_json_string(&o, l->note);
	launch_put(&o, "}");
	return launch_done(&o);
}

int autosize_launch_plan_json(const autosize_request *r,
			      const autosize_plan *p, char *buf, size_t len)
{
	autosize_launch l;
	launch_out o;
	int n;

	if (!r || !p || !buf || len < 2)
		return launch_fail(buf, len);
	n = autosize_plan_to_json(p, buf, len);
	if (n < 2 || buf[n - 1] != '}' || autosize_launch_build(r, p, NULL,
								 &l) < 0)
		return launch_fail(buf, len);
	/* the plan object, its closing brace replaced by the launch */
	o.buf = buf;
	o.len = len;
	o.used = (size_t)n - 1;
	o.ok = 1;
	launch_put(&o, ",\"launch\":");
	if (o.ok) {
		int m = autosize_launch_to_json(&l, buf + o.used,
						len - o.used);

		if (m < 0)
			return launch_fail(buf, len);
		o.used += (size_t)m;
	}
	launch_put(&o, "}");
	return launch_done(&o);
}

int autosize_launch_first_host(const char *nodelist, char *buf, size_t len)
{
	size_t n = 0;
	const char *s = nodelist;

	if (!s || !buf || len == 0)
		return launch_fail(buf, len);
	while (*s && *s != ',') {
		if (*s == '[') {
			size_t digits = 0;

			for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
				if (n + 1 >= len)
					return launch_fail(buf, len);
				buf[n++] = *s;
			}
			if (digits == 0)
				return launch_fail(buf, len);
			/* Skip the rest of the range list: "-08,11]". */
			while (*s && *s != ']') {
				if (!(*s >= '0' && *s <= '9') && *s != '-' &&
				    *s != ',')
					return launch_fail(buf, len);
				s++;
			}
			if (*s != ']')
				return launch_fail(buf, len);
			s++;
			continue;
		}
		if (!launch_name_char(*s) || n + 1 >= len)
			return launch_fail(buf, len);
		buf[n++] = *s++;
	}
	buf[n] = '\0';
	if (n == 0 || n > AUTOSIZE_LAUNCH_HOST_MAX)
		return launch_fail(buf, len);
	return (int)n;
}
