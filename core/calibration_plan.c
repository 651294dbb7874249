/*
 * autosize: applying the site's calibration to a plan (calibration_private.h). The
 * correction is what this cluster's finished jobs measured against their
 * plans (calibration_learn.c); a partition or GPU without one keeps the model's
 * prediction.
 */
#include <stdio.h>
#include "framework_private.h"
#include "calibration_private.h"

const autosize_cal_entry *plan_cal_find(const autosize_policy *p,
					const autosize_partition *part,
					autosize_framework fw, int gpus)
{
	const autosize_calibration *c = autosize_policy_calibration(p);

	if (!c || !part || !part->gpu)
		return NULL;
	return autosize_calibration_find(c, part->name, part->gpu->name,
		autosize_framework_name(framework_resolve(fw)), gpus);
}

double plan_cal_deadline(double deadline_s, const autosize_cal_entry *x)
{
	return x && deadline_s > 0 ? deadline_s * x->speed_factor : deadline_s;
}

double plan_cal_usable(double usable_bytes, const autosize_cal_entry *x)
{
	return x && x->memory_factor > 1 ? usable_bytes / x->memory_factor
					 : usable_bytes;
}

void plan_cal_scale_speed(autosize_plan *plan, double f)
{
	plan->tokens_per_s *= f;
	plan->tflops_per_gpu *= f;
	plan->mfu *= f;
	plan->hfu *= f;
	if (f > 0) {
		plan->step_s /= f;
		autosize_step_parts_scale(&plan->step, 1 / f);
	}
}

void plan_cal_apply(const autosize_policy *p, const autosize_cal_entry *before,
		    double usable_bytes, autosize_plan *plan)
{
	const autosize_cal_entry *x;
	autosize_plan_calibration *c = &plan->calibration;
	autosize_memory *m = &plan->mem;
	double mf;

	x = plan_cal_find(p, &plan->part, plan->framework, plan->gpus);
	if (!x)
		x = before;
	if (!x)
		return;
	c->applied = 1;
	c->jobs = x->jobs;
	c->users = x->users;
	c->speed_factor = x->speed_factor;
	c->speed_low = x->speed_low;
	c->speed_high = x->speed_high;
	c->memory_factor = x->memory_factor;
	snprintf(c->regime, sizeof(c->regime), "%s/%s/%s/%s", x->partition,
		 x->gpu, x->framework, x->scale);
	plan_cal_scale_speed(plan, x->speed_factor);
	/* memory: the tensors (what the job measured) by the factor; never
	 * below the model's estimate */
	mf = x->memory_factor > 1 ? x->memory_factor : 1;
	m->weights_bytes *= mf;
	m->gradients_bytes *= mf;
	m->optimizer_bytes *= mf;
	m->activations_bytes *= mf;
	/* the allocator's share of them grows with them */
	m->other_bytes += m->slack_bytes * (mf - 1);
	m->slack_bytes *= mf;
	m->cache_bytes *= mf;
	m->total_bytes = m->weights_bytes + m->gradients_bytes +
			 m->optimizer_bytes + m->activations_bytes +
			 m->other_bytes;
	m->usable_bytes = usable_bytes;
}

void plan_cal_interval(autosize_plan *plan)
{
	const autosize_plan_calibration *c = &plan->calibration;
	double raw_hours;

	if (!c->applied || plan->train_hours <= 0)
		return;
	/* the model's time, then the spread of real / predicted speed the
	 * site's jobs showed (1st..99th percentile) */
	raw_hours = plan->train_hours * c->speed_factor;
	plan->train_hours_low = raw_hours / c->speed_high;
	plan->train_hours_high = raw_hours / c->speed_low;
	plan->interval_runs = c->jobs;
	plan->interval_pooled = 0;
}
