/*
 * autosize internal: the calibration module's parts, one prefix and one
 * file set (calibration_*.c): calibration_learn.c judges each finished
 * job (plausibility), calibration_sample.c keeps a fair, bounded sample
 * of them per user, calibration_result.c turns the sample into
 * corrections, calibration_file.c reads and writes the file,
 * calibration_input.c reads sacct and JSON lines, and calibration_plan.c
 * corrects a plan with them (speed, memory, the interval the time limit
 * covers). The public API is include/autosize/calibration.h.
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

/* Jobs kept per user and partition/GPU (a uniform sample of all of
 * theirs, whatever the order), and slots (user x partition/GPU) at
 * most: whatever the input size, memory stays under 16384 slots of 2.2
 * KB (37 MB) plus the result's scratch of 56 bytes a kept job (29 MB),
 * 66 MB in all. */
#define CAL_SLOT_SAMPLES 32
#define CAL_MAX_SLOTS 16384
#define CAL_MAX_REASONS 16
/* A change line shown per correction. */
#define CAL_CHANGE_LEN 320

/* One job as the statistics see it. */
typedef struct cal_sample {
	double v[2];            /* log speed, log memory ratio; NAN: none */
	int censored;           /* v[0] is an upper bound (a TIMEOUT job) */
	int slot;               /* its user x partition/GPU */
	int group;              /* scratch: current group or -1 */
	char framework[AUTOSIZE_FRAMEWORK_NAME_MAX];
	char scale[AUTOSIZE_CAL_SCALE_MAX];
} cal_sample;

/* A user's jobs on one partition and GPU. */
typedef struct cal_slot {
	char user[AUTOSIZE_CAL_USER_MAX];
	char partition[AUTOSIZE_PART_NAME_MAX];
	char gpu[AUTOSIZE_GPU_NAME_MAX];
	long seen;              /* jobs offered, kept or not */
	uint64_t rng;           /* the reservoir's draws */
	int n;
	cal_sample s[CAL_SLOT_SAMPLES];
} cal_slot;

typedef struct cal_point {
	const char *user;
	double v;
	double w;
} cal_point;

struct autosize_calibrator {
	autosize_cal_options o;
	cal_slot **slots;       /* n_slots of them, allocated one by one */
	int n_slots, cap_slots;
	int *table;             /* hash of user x partition/GPU -> slot */
	cal_sample **all;       /* scratch for the result: every sample */
	size_t n_all;
	cal_point *pts;         /* scratch, 2 x n_all */
	long read, used, dropped;
	int n_reasons;
	const char *why[CAL_MAX_REASONS];
	long count[CAL_MAX_REASONS];
	int short_groups;
	int made, bounded;
	char (*change)[CAL_CHANGE_LEN];  /* one per correction made */
};

/* calibration_sample.c: keep job s of user on partition/gpu in the
 * reservoir. 1 kept or sampled over, 0 when no slot is left, -1 out of
 * memory. */
int cal_sample_offer(autosize_calibrator *k, const char *user,
		     const char *partition, const char *gpu,
		     const cal_sample *s);
/* Free the slots. */
void cal_sample_free(autosize_calibrator *k);

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
