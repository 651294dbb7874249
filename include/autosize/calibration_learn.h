/*
 * autosize: learning a site's calibration from finished jobs (`autosize
 * calibrate`, offline/calibration_learn.c and calibration_result.c); the
 * rules that make it robust are in calibration.h's opening comment.
 */
#ifndef AUTOSIZE_CALIBRATION_LEARN_H
#define AUTOSIZE_CALIBRATION_LEARN_H

#include <stddef.h>
#include "autosize/calibration.h"
#include "autosize/catalog.h"
#include "autosize/jobrecord.h"

typedef struct autosize_cal_options {
	int min_jobs;          /* per correction */
	int min_users;
	double speed_min, speed_max;   /* plausibility of real / predicted */
	double memory_min, memory_max;
	double min_elapsed_s;  /* a job timed only by its elapsed time must
				* run this long (start-up is in it) */
	double min_run_s;      /* any job must have run this long, and as
				* long as the steps it reports (0: neither
				* checked: the probe's short runs) */
	int require_state;     /* 1: a job needs a usable Slurm state */
	const autosize_catalog *catalog; /* peak FLOPs for the MFU ceiling
				* (NULL: not checked); not owned */
	double max_mfu;        /* the ceiling, of dense BF16 peak */
	double shrink_users;   /* k of the narrow weight users/(users+k) */
	const autosize_calibration *previous; /* the last calibration (NULL:
				* none, the model's 1); not owned */
	double max_step;       /* a factor moves at most this ratio from
				* previous's (<= 1: unbounded) */
} autosize_cal_options;

void autosize_cal_options_init(autosize_cal_options *o);

typedef struct autosize_calibrator autosize_calibrator;

autosize_calibrator *autosize_calibrator_create(
	const autosize_cal_options *o);
void autosize_calibrator_destroy(autosize_calibrator *k);

/*
 * One finished job: its user, its record (decoded from AdminComment or
 * a JSON line), Slurm state ("COMPLETED", ...; NULL unknown) and elapsed
 * seconds (<= 0 unknown). Speed comes from the measured tokens per
 * second (COMPLETED, TIMEOUT, CANCELLED or PREEMPTED after min_run_s),
 * else from the elapsed time against the planned tokens: exact for a
 * COMPLETED job, an upper bound on its speed for one that hit its time
 * limit (TIMEOUT). Returns 1 when the job was used, 0 when skipped
 * (counted by reason).
 */
int autosize_calibrator_add(autosize_calibrator *k, const char *user,
			    const autosize_record *r, const char *state,
			    double elapsed_s);

/* Count a record that could not be read at all, under `why` (a short
 * fixed phrase: "bad JSON", "no autosize record"). */
void autosize_calibrator_skip(autosize_calibrator *k, const char *why);

/* The corrections the jobs support (entries under min_jobs/min_users are
 * left out and counted). NULL with *e on failure. */
autosize_calibration *autosize_calibrator_result(autosize_calibrator *k,
						 autosize_error *e);

/* What correction i of the last result changed, one line: "gpu/H100/
 * any/any: speed 1.000 -> 1.250 (wanted 2.950, bounded), memory 1.000 ->
 * 1.000; 9 jobs of 3 users: a 3, b 3, c 3"; NULL past the end. */
const char *autosize_calibrator_change(const autosize_calibrator *k, int i);

/* "read 40 jobs, used 35, skipped 5 (3 implausible speed, 2 bad JSON);
 * 2 corrections, 1 group with too few jobs or users" */
void autosize_calibrator_summary(const autosize_calibrator *k, char *buf,
				 size_t len);

#endif
