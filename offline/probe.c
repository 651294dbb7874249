/*
 * autosize: judging the scaling probe (probe.h) by the renter's rules of
 * thumb, as GPU rental guides state them: 4 GPUs then 8, below 1.6x
 * the communication dominates; below 35% of peak per GPU, fix the code or
 * the data loading first; an OOM costs more than any margin.
 */
#define _GNU_SOURCE /* memmem */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "autosize/probe.h"

#define PROBE_GIB (1024.0 * 1024.0 * 1024.0)
/* The 1.6x for a doubling is 80% of linear: other ratios keep the
 * share. */
#define PROBE_MIN_SCALING (AUTOSIZE_PROBE_MIN_SPEEDUP_2X / 2)

/* Model FLOPs utilization of tokens/s on gpus by the 6ND rule (6 FLOPs
 * per parameter per token, forward and backward; RULES.md "Compute"). */
static double probe_mfu(double params, double tokens_per_s, int gpus,
			const autosize_gpu *gpu)
{
	double peak = gpu ? autosize_gpu_peak_flops(gpu, 0) : 0;

	if (!(peak > 0) || gpus <= 0)
		return 0;
	return 6 * params * tokens_per_s / (gpus * peak);
}

void autosize_probe_from_record(const autosize_record *r,
				const autosize_gpu *gpu,
				autosize_probe_run *run)
{
	run->has_record = 1;
	run->nodes = r->nodes;
	run->gpus = r->nodes * r->gpus_per_node;
	run->pred_tokens_per_s = r->tokens_per_s;
	/* the job measures what torch.cuda.max_memory_allocated counts:
	 * the planned tensors, not the context and buffers around them */
	run->pred_mem_bytes = r->alloc_bytes > 0 ? r->alloc_bytes
						  : r->mem_bytes;
	run->pred_mfu = probe_mfu(r->params, r->tokens_per_s, run->gpus, gpu);
	run->measured = r->has_measured && r->m_tokens_per_s > 0;
	run->tokens_per_s = run->measured ? r->m_tokens_per_s : 0;
	run->mem_bytes = r->has_measured ? r->m_mem_bytes : 0;
	run->mfu = probe_mfu(r->params, run->tokens_per_s, run->gpus, gpu);
}

double autosize_probe_min_speedup(int small, int large)
{
	if (small <= 0 || large <= small)
		return 1;
	return PROBE_MIN_SCALING * large / small;
}

static void probe_say(autosize_probe_verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void probe_say(autosize_probe_verdict *v, const char *fmt, ...)
{
	va_list ap;

	if (v->n_advice >= AUTOSIZE_PROBE_ADVICE_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(v->advice[v->n_advice++], AUTOSIZE_PROBE_ADVICE_LEN, fmt,
		  ap);
	va_end(ap);
}

/* A probe that gave no speed: why, and what to do. */
static void probe_failed(const autosize_probe_run *p,
			 autosize_probe_verdict *v)
{
	if (p->oom)
		probe_say(v, "the %d-GPU probe (job %ld) ran out of memory "
			  "(planned %.1f GiB of tensors per GPU): shard "
			  "further (--zero 3, more --tp/--pp) or recompute "
			  "(--recompute full) before renting", p->gpus,
			  p->job_id, p->pred_mem_bytes / PROBE_GIB);
	else if (!p->has_record)
		probe_say(v, "the %d-GPU probe (job %ld, %s) has no plan "
			  "record: was it submitted with the model options "
			  "and the autosize plugins loaded?", p->gpus,
			  p->job_id, p->state);
	else
		probe_say(v, "the %d-GPU probe (job %ld, %s) reported no "
			  "figures: append {\"tokens_per_s\": ...} lines to "
			  "$AUTOSIZE_REPORT from the training loop and stop "
			  "after $AUTOSIZE_PROBE_STEPS steps", p->gpus,
			  p->job_id, p->state);
}

/* Speed and memory against the plan, for each probe that measured. */
static void probe_against_plan(const autosize_probe_run *p,
			       autosize_probe_verdict *v)
{
	double ratio;

	if (p->pred_mem_bytes > 0 && p->mem_bytes > p->pred_mem_bytes * 1.1)
		probe_say(v, "the %d-GPU probe used %.1f GiB per GPU, %.0f%% "
			  "over the planned %.1f GiB: the real job may not fit "
			  "(raise memory_reserve or recompute)", p->gpus,
			  p->mem_bytes / PROBE_GIB,
			  100 * (p->mem_bytes / p->pred_mem_bytes - 1),
			  p->pred_mem_bytes / PROBE_GIB);
	if (!(p->pred_tokens_per_s > 0))
		return;
	ratio = p->tokens_per_s / p->pred_tokens_per_s;
	if (ratio < AUTOSIZE_PROBE_OFF_RATIO)
		probe_say(v, "the %d-GPU probe ran at %.2fx the predicted "
			  "speed (%.0f of %.0f tokens/s): size the real job "
			  "from the measurement (the calibration file)",
			  p->gpus, ratio, p->tokens_per_s,
			  p->pred_tokens_per_s);
}

void autosize_probe_assess(const autosize_probe_run *small,
			   const autosize_probe_run *large,
			   autosize_probe_verdict *v)
{
	memset(v, 0, sizeof(*v));
	if (small->gpus > 0 && large->gpus > 0)
		v->gpu_ratio = (double)large->gpus / small->gpus;
	v->min_speedup = autosize_probe_min_speedup(small->gpus, large->gpus);
	/* 1. what failed outright */
	if (!small->measured)
		probe_failed(small, v);
	if (!large->measured)
		probe_failed(large, v);
	/* 2. a slow GPU is fixed before adding GPUs */
	if (small->measured && small->mfu > 0 &&
	    small->mfu < AUTOSIZE_PROBE_MIN_MFU)
		probe_say(v, "%.0f%% of peak per GPU on %d GPUs is below "
			  "%.0f%%: fix the code or the data loading before "
			  "adding GPUs", small->mfu * 100, small->gpus,
			  AUTOSIZE_PROBE_MIN_MFU * 100);
	/* 3. scaling */
	if (small->measured && large->measured && small->tokens_per_s > 0) {
		v->compared = 1;
		v->speedup = large->tokens_per_s / small->tokens_per_s;
		v->scales_badly = v->speedup < v->min_speedup - 1e-9;
		if (v->scales_badly)
			probe_say(v, "%d -> %d GPUs gave %.2fx, below %.2fx: "
				  "communication dominates and more GPUs "
				  "only cost more (check the network, a "
				  "larger micro-batch, less data-parallel "
				  "traffic)", small->gpus, large->gpus,
				  v->speedup, v->min_speedup);
	}
	/* the rules hold: say so first, then how the plan compares */
	v->ok = v->n_advice == 0 && v->compared;
	if (v->ok)
		probe_say(v, "%d -> %d GPUs gave %.2fx at %.0f%% of peak: "
			  "scaling holds, rent the planned size", small->gpus,
			  large->gpus, v->speedup, large->mfu * 100);
	/* 4. the plan against the measurement */
	if (small->measured)
		probe_against_plan(small, v);
	if (large->measured)
		probe_against_plan(large, v);
}

int autosize_probe_output_oom(const char *text, size_t len)
{
	static const char *const marks[] = {
		"CUDA out of memory", "OutOfMemoryError", "HIP out of memory",
		"oom-kill", "out-of-memory", NULL,
	};
	int i;

	for (i = 0; marks[i]; i++)
		if (memmem(text, len, marks[i], strlen(marks[i])))
			return 1;
	return 0;
}
