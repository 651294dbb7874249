/*
 * autosize: what a policy would change (`autosize replay`). The jobs of a
 * period (finished, running or pending: each with its plan record) are
 * decided again as slurmctld decides a submission (autosize_decide),
 * under the current policy (the baseline) and under a candidate; the two
 * decisions are compared: size, time limit, partition, GPU-hours, a
 * refusal.
 *
 * The request is rebuilt from the record: the model (a preset's shape
 * when it names one, else its parameter count), tokens, sequence length,
 * batch, framework, train mode, stack, precision and what the user asked
 * (ask_gpus=, ask_min=); not a config.json's shape (sized from its
 * parameter count) or the options it does not keep (pins, offload):
 * both policies see the same rebuilt request, so what differs is the
 * policy's doing. Whether the baseline gives the job its recorded
 * plan again is counted (reproduced): where it does not, the rebuilt
 * request is not the job's, and the comparison is only as good.
 *
 * Bounded: at most max_jobs jobs kept (about 700 bytes each), more are
 * counted. Pure: no Slurm headers, no I/O but the writers' FILE.
 */
#ifndef AUTOSIZE_REPLAY_H
#define AUTOSIZE_REPLAY_H

#include <stdio.h>
#include "autosize/calibration_input.h"
#include "autosize/decide.h"
#include "autosize/report.h"

#define AUTOSIZE_REPLAY_VERSION 1
#define AUTOSIZE_REPLAY_MAX_JOBS 100000
#define AUTOSIZE_REPLAY_MESSAGE_MAX 200

/* What changed between the two decisions of a job (bits). */
#define AUTOSIZE_REPLAY_SIZE 1        /* nodes x GPUs per node */
#define AUTOSIZE_REPLAY_LIMIT 2       /* time limit */
#define AUTOSIZE_REPLAY_PARTITION 4
#define AUTOSIZE_REPLAY_REFUSED 8     /* refused under the candidate only */
#define AUTOSIZE_REPLAY_ACCEPTED 16   /* refused under the baseline only */
#define AUTOSIZE_REPLAY_ACTION 32     /* sized, warned or left otherwise */

/* One job under one policy. */
typedef struct autosize_replay_side {
	autosize_action action;
	char reason[16];             /* "input", "unfit", ... or "" */
	int sized;                   /* a plan: the fields below */
	char partition[AUTOSIZE_PART_NAME_MAX];
	int nodes, gpus_per_node;
	long time_limit_min;         /* the job's limit: the plan's when it
				      * sets it, else the user's */
	double gpu_hours;            /* GPUs x time limit it would hold; 0
				      * refused or not known */
	char message[AUTOSIZE_REPLAY_MESSAGE_MAX]; /* what the user is told
				      * (a refusal's reason), cut */
} autosize_replay_side;

typedef struct autosize_replay_job {
	char job_id[AUTOSIZE_JOB_ID_MAX];
	char user[AUTOSIZE_CAL_USER_MAX];
	char name[AUTOSIZE_REPORT_NAME_MAX];
	char state[16];
	int partition;               /* index of the recorded partition in
				      * autosize_replay_partition() */
	double used_gpu_hours;       /* GPUs x elapsed (0: not run yet) */
	int reproduced;              /* the baseline gives the recorded
				      * partition, size and limit again */
	unsigned changed;            /* AUTOSIZE_REPLAY_* bits */
	autosize_replay_side before, after;
} autosize_replay_job;

typedef struct autosize_replay_totals {
	long read;                   /* jobs given */
	long no_record;              /* not sized by autosize: left out */
	long bad_record;
	long replayed;               /* decided under both policies */
	long over_cap;               /* past max_jobs: counted only */
	long reproduced;
	long changed;                /* any bit */
	long size, limit, partition, refused, accepted, action;
	double gpu_hours_before;     /* held under the baseline, all jobs */
	double gpu_hours_after;      /* under the candidate (a refused job
				      * holds none) */
	double gpu_hours_refused;    /* held under the baseline by the jobs
				      * the candidate refuses */
	double gpu_hours_used;       /* GPUs x elapsed, the jobs that ran */
} autosize_replay_totals;

typedef struct autosize_replay autosize_replay;

/*
 * baseline and candidate are not owned (both must outlive the replay);
 * their names (files) are said in the output. NULL on out of memory.
 */
autosize_replay *autosize_replay_create(const autosize_policy *baseline,
					const char *baseline_name,
					const autosize_policy *candidate,
					const char *candidate_name,
					long max_jobs);
void autosize_replay_destroy(autosize_replay *r);

/* One job and its record (rec NULL: none, counted). */
void autosize_replay_add(autosize_replay *r, const autosize_finished_job *j,
			 const autosize_record *rec);
void autosize_replay_bad_record(autosize_replay *r);

const autosize_replay_totals *autosize_replay_totals_of(
	const autosize_replay *r);
const autosize_replay_job *autosize_replay_jobs(const autosize_replay *r,
						long *n);
/* Recorded partitions (autosize_replay_job.partition indexes them). */
const char *autosize_replay_partition(const autosize_replay *r, int i);
const char *autosize_replay_policy_name(const autosize_replay *r,
					int candidate);

/* "4 x 8 GPUs, 1-11:36:00" / "refused (unfit)" / "left as submitted". */
void autosize_replay_side_text(const autosize_replay_side *s, char *buf,
			       size_t len);

/* Text for a terminal; one JSON object (doc/admins.md "What would a
 * policy change"). 0, or -1 on a write error. */
int autosize_replay_write_text(const autosize_replay *r, FILE *f,
			       const char *source);
int autosize_replay_write_json(const autosize_replay *r, FILE *f,
			       const char *source);

#endif
