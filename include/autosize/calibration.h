/*
 * autosize: the closed loop. Finished jobs (their plan record and what
 * they measured, jobrecord.h) teach a site's real speed and memory per
 * partition and GPU; `autosize calibrate` writes the corrections to a
 * YAML file, the policy's `calibration:` key makes plans use them.
 *
 * Robust against bad or hostile reports (README "The closed loop"):
 * a job counts only when its figures are physically possible (MFU under
 * the GPU's ceiling, an elapsed time that covers the steps it reports),
 * it ran long enough and ended in a sane state; each user keeps a
 * uniform sample of at most 32 jobs per partition and GPU (whatever the
 * order of the input); a correction is the median over users of each
 * user's median (one user is one vote) and needs min_jobs jobs from
 * min_users users; narrow corrections shrink toward the broad one by
 * their users; and a correction moves at most max_step from the
 * previous calibration's (the model's 1 without one). A partition or GPU without one is left as
 * predicted.
 */
#ifndef AUTOSIZE_CALIBRATION_H
#define AUTOSIZE_CALIBRATION_H

#include <stdio.h>
#include "autosize/catalog.h"
#include "autosize/jobrecord.h"

#define AUTOSIZE_CAL_MAX_ENTRIES 256
#define AUTOSIZE_CAL_ANY "any"
#define AUTOSIZE_CAL_SCALE_MAX 16
#define AUTOSIZE_CAL_USER_MAX 64
/* Defaults of `autosize calibrate` (--min-jobs, --min-users). */
#define AUTOSIZE_CAL_MIN_JOBS 8
#define AUTOSIZE_CAL_MIN_USERS 3
/* Plausible real / predicted ratios; outside: a broken or lying report. */
#define AUTOSIZE_CAL_SPEED_MIN 0.2
#define AUTOSIZE_CAL_SPEED_MAX 3.0
#define AUTOSIZE_CAL_MEMORY_MIN 0.3
#define AUTOSIZE_CAL_MEMORY_MAX 3.0
/* Defaults of --min-run, --max-mfu, --shrink-users, --max-step. */
#define AUTOSIZE_CAL_MIN_RUN_S 300
#define AUTOSIZE_CAL_MAX_MFU 0.8
#define AUTOSIZE_CAL_SHRINK_USERS 8
#define AUTOSIZE_CAL_MAX_STEP 1.25

/* One correction: a partition and GPU, optionally narrowed to a
 * framework and a scale class (perfdata_scale: small, mid, large). */
typedef struct autosize_cal_entry {
	char partition[AUTOSIZE_PART_NAME_MAX];
	char gpu[AUTOSIZE_GPU_NAME_MAX];
	char framework[AUTOSIZE_FRAMEWORK_NAME_MAX]; /* or "any" */
	char scale[AUTOSIZE_CAL_SCALE_MAX];          /* or "any" */
	int jobs, users;
	double speed_factor;   /* real / predicted tokens per second */
	double speed_low;      /* 1st percentile (user-weighted) */
	double speed_high;     /* 99th */
	int memory_jobs, memory_users; /* 0: no memory correction */
	double memory_factor;  /* real / planned tensor memory */
	double memory_high;    /* 99th percentile */
} autosize_cal_entry;

typedef struct autosize_calibration autosize_calibration;

/* Read a calibration file (strict, like the policy: errors name the
 * file, line and key). The caller owns the result. */
autosize_calibration *autosize_calibration_load(const char *path,
						autosize_error *e);
autosize_calibration *autosize_calibration_parse(const char *text,
						 size_t len, const char *what,
						 autosize_error *e);
void autosize_calibration_destroy(autosize_calibration *c);

int autosize_calibration_count(const autosize_calibration *c);
const autosize_cal_entry *autosize_calibration_at(
	const autosize_calibration *c, int i);

/*
 * The most specific correction for a plan: partition and GPU must match;
 * then framework and scale (of gpus; gpus <= 0: any scale) when an entry
 * has them, else the broader one. NULL: none (the plan stays as
 * predicted).
 */
const autosize_cal_entry *autosize_calibration_find(
	const autosize_calibration *c, const char *partition,
	const char *gpu, const char *framework, int gpus);

/* Write c as YAML (the format autosize_calibration_load reads). */
int autosize_calibration_write(const autosize_calibration *c, FILE *f,
			       const char *source);

/* Learning it: autosize calibrate (calibration_learn.h); its inputs,
 * finished jobs from sacct or JSON lines (calibration_input.h). Both
 * are the command's side (doc/architecture.md); this header is what the
 * plans in slurmctld read. */

#endif
