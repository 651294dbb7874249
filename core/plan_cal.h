/*
 * autosize internal: a plan corrected by the site's calibration
 * (calibration.h): speed, memory, and the interval the time limit covers.
 */
#ifndef AUTOSIZE_PLAN_CAL_H
#define AUTOSIZE_PLAN_CAL_H

#include "autosize/calibration.h"

/* The correction for a partition and framework (gpus <= 0: before the
 * size is known, any scale class), or NULL. */
const autosize_cal_entry *plan_cal_find(const autosize_policy *p,
					const autosize_partition *part,
					autosize_framework fw, int gpus);

/* The deadline the layout search aims at so that the corrected speed
 * meets deadline_s (0: none). */
double plan_cal_deadline(double deadline_s, const autosize_cal_entry *x);

/* GPU memory the search may plan for, leaving room for a memory factor
 * above 1 (a factor below 1 never lets a plan closer to the edge). */
double plan_cal_usable(double usable_bytes, const autosize_cal_entry *x);

/* Correct a searched plan: the entry for its size (else `before`, the
 * one the search used), speed and memory scaled, plan->calibration
 * filled; usable_bytes restored in the report. */
void plan_cal_apply(const autosize_policy *p, const autosize_cal_entry *before,
		    double usable_bytes, autosize_plan *plan);

/* Speed figures of a plan times f (no bookkeeping). */
void plan_cal_scale_speed(autosize_plan *plan, double f);

/* The wall-time interval from the calibrated spread (after the residual
 * interval was set): the time limit covers its upper end. */
void plan_cal_interval(autosize_plan *plan);

#endif
