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

/* ---- learning it: autosize calibrate ---- */

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

/* ---- inputs: finished jobs (calibrate, report) ---- */

#define AUTOSIZE_JOB_ID_MAX 32
#define AUTOSIZE_JOB_NAME_MAX 128

/* The fields `--sacct` asks sacct for (-P, --delimiter): JobName last,
 * the one field a user chooses freely (it may hold the delimiter). */
#define AUTOSIZE_SACCT_FIELDS "JobID,User,Partition,State,Elapsed," \
	"NNodes,AllocTRES,Timelimit,Submit,Start,End,AdminComment,JobName"
#define AUTOSIZE_SACCT_NFIELDS 13

/* One finished job as accounting (or a JSON line) describes it. */
typedef struct autosize_finished_job {
	char job_id[AUTOSIZE_JOB_ID_MAX];
	char user[AUTOSIZE_CAL_USER_MAX];
	char name[AUTOSIZE_JOB_NAME_MAX]; /* the job's name, cut to fit:
				* the user's bytes (markup, control bytes):
				* escape it wherever it is shown */
	char partition[AUTOSIZE_PART_NAME_MAX]; /* it ran in; "" unknown */
	char state[AUTOSIZE_CAL_USER_MAX]; /* "COMPLETED", "CANCELLED" (the
				* first word of "CANCELLED by 0"); "" unknown */
	double elapsed_s;       /* <= 0 unknown */
	double time_limit_s;    /* its time limit; 0 unknown or unlimited */
	long nodes, gpus;       /* what it got; -1 unknown */
	long long submit_s, start_s, end_s; /* civil time as sacct prints
				* it (the cluster's local time), in seconds
				* since 1970-01-01T00:00:00; 0 unknown */
	const char *comment;    /* sacct: its AdminComment (points into the
				* line); NULL from a JSON line */
} autosize_finished_job;

void autosize_finished_job_init(autosize_finished_job *j);

/*
 * One line of `sacct -P -n -o AUTOSIZE_SACCT_FIELDS --delimiter=delim`:
 * fills *j (j->comment points into line, which is modified). Returns 0,
 * or -1 for a line of another form: a job step (JobID with a '.'), a
 * line without the 12 delimiters before JobName (the rest of a job name
 * that held a newline). JobName is the rest of the line, delimiters
 * included.
 */
int autosize_sacct_job_line(char *line, const char *delim,
			    autosize_finished_job *j);

/*
 * The plan record in a job's AdminComment (j->comment), decoded into *r:
 * 1, or 0 when there is none, -1 with *e when it is malformed.
 */
int autosize_finished_record(const autosize_finished_job *j,
			     autosize_record *r, autosize_error *e);

/*
 * One JSON line of a finished job: {"job_id":..,"user":"..","plan":{the
 * object `autosize plan --json` prints},"measured":{"tokens_per_s":..,
 * "step_s":..,"peak_memory_bytes":..},"state":"COMPLETED",
 * "elapsed_s":..} (measured, state, elapsed_s optional), and optionally
 * "job_name", "partition" (where it ran), "nodes", "gpus" (what it
 * got), "time_limit_min" (its limit), "submit", "start", "end" (sacct's
 * "2026-11-03T12:00:00" or seconds since 1970), "warn" (warning codes,
 * as the record's warn=), "asked_gpus", "asked_time_limit_min" (what the
 * user asked). Fills *r and *j.
 */
autosize_err autosize_finished_json_line(const char *line, size_t len,
					 const char *what, autosize_record *r,
					 autosize_finished_job *j,
					 autosize_error *e);

/* The same, for calibrate: user and state into buffers of
 * AUTOSIZE_CAL_USER_MAX bytes, *elapsed_s. */
autosize_err autosize_cal_json_line(const char *line, size_t len,
				    const char *what, autosize_record *r,
				    char *user, char *state,
				    double *elapsed_s, autosize_error *e);


#endif
