/*
 * autosize internal: the calibrator's parts (calibration_learn.c judges
 * each finished job, calibration_sample.c keeps a fair, bounded sample of
 * them per user, calibration_result.c turns the sample into
 * corrections). The public API is include/autosize/calibration_learn.h.
 */
#ifndef AUTOSIZE_CALIBRATION_LEARN_PRIVATE_H
#define AUTOSIZE_CALIBRATION_LEARN_PRIVATE_H

#include <stdint.h>
#include "autosize/calibration_learn.h"
#include "calibration_private.h"

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

#endif
