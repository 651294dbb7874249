/*
 * A published run's figure as its plan predicts it (tests/validation/
 * README.md, "Metrics and conventions"): shared by tests/test_validation.c
 * and tests/fit/fit_perf.c, so that the constants are fitted on the
 * figure the validation scores (header-only, static).
 */
#ifndef AUTOSIZE_TEST_VALIDATION_METRIC_H
#define AUTOSIZE_TEST_VALIDATION_METRIC_H

#include <string.h>
#include "autosize/catalog.h"
#include "autosize/plan.h"

/* The figures a run may publish, one per run. */
static const char *const vmetric_names[] = {"hfu_tflops", "mfu", "hfu",
					    "tokens_per_s_per_gpu", "step_s",
					    "gpu_hours", "step_gpu_hours",
					    NULL};

/* 1 for a time (step, GPU-hours), 0 for a rate or a utilization. */
static inline int vmetric_is_time(const char *metric)
{
	return strcmp(metric, "step_s") == 0 ||
	       strcmp(metric, "gpu_hours") == 0 ||
	       strcmp(metric, "step_gpu_hours") == 0;
}

/* A plan's utilization over the dense BF16/FP16 peak, the convention
 * the metrics use (an FP8 or NVFP4 plan's own is over its peak). */
static inline double vmetric_bf16_share(const autosize_plan *p)
{
	double peak = p->mfu > 0 ? p->tflops_per_gpu * 1e12 / p->mfu : 0;
	double bf16 = p->part.gpu ? autosize_gpu_peak_flops(p->part.gpu,
							     AUTOSIZE_PREC_BF16)
				  : 0;

	return bf16 > 0 && peak > 0 ? peak / bf16 : 1;
}

/* The plan's figure for metric; 0 where it has none. */
static inline double vmetric_predicted(const char *metric,
				       const autosize_plan *p)
{
	double peak = p->mfu > 0 ? p->tflops_per_gpu / p->mfu : 0;

	if (strcmp(metric, "hfu_tflops") == 0)
		return p->hfu * peak;
	if (strcmp(metric, "mfu") == 0)
		return p->mfu * vmetric_bf16_share(p);
	if (strcmp(metric, "hfu") == 0)
		return p->hfu * vmetric_bf16_share(p);
	if (strcmp(metric, "step_s") == 0)
		return p->step_s;
	if (strcmp(metric, "gpu_hours") == 0)
		return p->gpu_hours;
	if (strcmp(metric, "step_gpu_hours") == 0)
		return p->tokens_per_s > 0 ? (p->tokens / p->tokens_per_s +
					      p->eval_hours * 3600) *
					     p->gpus / 3600 : 0;
	/* a run that states its evaluations (eval-tokens) published its
	 * rate over the time they took too */
	if (p->eval_hours > 0 && p->tokens_per_s > 0 && p->gpus > 0)
		return p->tokens / (p->tokens / p->tokens_per_s +
				    p->eval_hours * 3600) / p->gpus;
	return p->gpus > 0 ? p->tokens_per_s / p->gpus : 0;
}

#endif
