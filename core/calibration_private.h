/*
 * autosize internal: the calibration module's parts, one prefix and one
 * file set (calibration_*.c): calibration_learn.c judges each finished
 * job (plausibility), calibration_sample.c keeps a fair, bounded sample
 * of them per user, calibration_result.c turns the sample into
 * corrections, calibration_file.c reads and writes the file,
 * calibration_input.c reads sacct and JSON lines, and calibration_plan.c
 * corrects a plan with them (speed, memory, the interval the time limit
 * covers). The public API is include/autosize/calibration.h; the
 * learning half (offline/) has its own parts in
 * offline/calibration_learn_private.h.
 */
#ifndef AUTOSIZE_CALIBRATION_PRIVATE_H
#define AUTOSIZE_CALIBRATION_PRIVATE_H

#include <stdint.h>
#include "autosize/calibration.h"

/* An empty calibration (NULL: out of memory). */
autosize_calibration *autosize_calibration_empty(void);
/* Append an entry; -1 when full. */
int autosize_calibration_add_entry(autosize_calibration *c,
				   const autosize_cal_entry *x);

/* autosize_calibration_find with the scale class by name (NULL any). */
const autosize_cal_entry *autosize_calibration_find_scale(
	const autosize_calibration *c, const char *partition,
	const char *gpu, const char *framework, const char *scale);

/* ---- a plan corrected by the site's calibration (calibration_plan.c) ---- */
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
