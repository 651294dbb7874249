/*
 * autosize: the admin's report on finished jobs (`autosize report`,
 * doc/admins.md "Is it right on my cluster?"). Fed one finished job at a
 * time (its plan record, what accounting says it got and did), it
 * answers whether the plans are right on this cluster and what they
 * saved or cost: measured / predicted speed per partition, GPU and
 * framework (median and spread), jobs that hit their time limit and by
 * how much, jobs that ran far under it, GPU-hours asked, planned and
 * used, the calibration the plans used over time, a weekly series, the
 * warnings told at submission and the refusals slurmctld logged.
 *
 * Pure: no Slurm headers, no I/O but the writers' FILE. Bounded: at
 * most max_jobs jobs are kept for the figures (about 300 bytes each; the
 * ones after are counted and said), AUTOSIZE_REPORT_MAX_GROUPS groups,
 * AUTOSIZE_REPORT_MAX_CODES warning and refusal kinds.
 */
#ifndef AUTOSIZE_REPORT_H
#define AUTOSIZE_REPORT_H

#include <stdio.h>
#include "autosize/calibration_input.h"
#include "autosize/jobrecord.h"

/* `autosize report --json`'s report_version (doc/report-json.md). */
#define AUTOSIZE_REPORT_VERSION 1
#define AUTOSIZE_REPORT_MAX_JOBS 100000
#define AUTOSIZE_REPORT_MAX_GROUPS 256
#define AUTOSIZE_REPORT_MAX_CODES 64
#define AUTOSIZE_REPORT_CODE_MAX 48
/* Calibration changes kept per group (more are counted). */
#define AUTOSIZE_REPORT_MAX_STEPS 16
/* A job's name as kept (cut; the user's bytes, escape when shown). */
#define AUTOSIZE_REPORT_NAME_MAX 64
#define AUTOSIZE_REPORT_WEEK_MAX 12

typedef struct autosize_report_options {
	long max_jobs;      /* jobs kept for the figures */
	double band;        /* a speed within 1 -+ band of the plan is
			     * right (0.15: the plan's own likely spread) */
	double far_under;   /* a COMPLETED job that used less than this
			     * share of its time limit ran far under it */
} autosize_report_options;

void autosize_report_options_init(autosize_report_options *o);

/* One job kept: what the figures and charts are made of. */
typedef struct autosize_report_job {
	char job_id[AUTOSIZE_JOB_ID_MAX];
	char user[AUTOSIZE_CAL_USER_MAX];
	char name[AUTOSIZE_REPORT_NAME_MAX];
	char state[16];
	int group;              /* index of its group, -1: none kept */
	int partition;          /* index of its group's partition in the
				 * weekly series' list */
	double predicted_tok_s; /* the plan's (calibrated when it was) */
	double measured_tok_s;  /* its report's median; 0: none, or the job
				 * was moved after planning (mismatch) */
	double ratio;           /* measured / predicted; 0: none */
	double cal_speed;       /* calibration factor the plan used; 1: none */
	double limit_s;         /* its time limit (accounting's, else the
				 * plan's); 0 unknown */
	double elapsed_s;
	double need_s;          /* a TIMEOUT job with measured speed: what
				 * its part of the run needed at that speed
				 * (doc/admins.md); 0 unknown */
	double gpus;            /* what it got (else what was planned) */
	long long submit_s, end_s; /* civil seconds (calibration.h); 0 */
	int mismatch;           /* moved or resized after planning */
	int timeout;            /* ended TIMEOUT */
	int far_under;          /* COMPLETED under far_under of its limit */
	int preempted;          /* ended PREEMPTED (another job took its
				 * nodes) */
	int requeued;           /* a run that was requeued after it (sacct
				 * --duplicates: state REQUEUED) */
	int ran;                /* it started (elapsed or a start time);
				 * 0: cancelled while pending */
	/* a job of a chained run (doc/users.md "Long runs"): its run's
	 * id ("" none), its place, the jobs the run was planned, the run's
	 * tokens, the run's progress it reported (m_done), and for a
	 * follower cancelled unrun because the run was done, the job that
	 * finished it */
	char chain[AUTOSIZE_CHAIN_ID_MAX];
	int chain_index, chain_jobs;
	double run_tokens, tokens_done;
	unsigned long done_at;
	long long start_s;
} autosize_report_job;

/* A chained run: its jobs taken together (autosize_report_runs). */
typedef struct autosize_report_run {
	char chain[AUTOSIZE_CHAIN_ID_MAX];
	char user[AUTOSIZE_CAL_USER_MAX];
	char name[AUTOSIZE_REPORT_NAME_MAX]; /* its first job's */
	char first_job[AUTOSIZE_JOB_ID_MAX];
	int planned;            /* jobs the plan queued for it (ck=) */
	int ran;                /* of its jobs, those that started */
	int unrun;              /* cancelled before they started */
	int done;               /* it trained all its tokens (a job
				 * reported them, or a follower was
				 * cancelled for that) */
	double tokens;          /* the run's tokens */
	double tokens_done;     /* the most its jobs reported */
	double elapsed_s;       /* its jobs' run time, together */
	double gpu_h;           /* GPU-hours its jobs used */
	long long start_s, end_s; /* its first job's start, last end */
} autosize_report_run;

/* A partition x GPU x framework the plans ran on. */
typedef struct autosize_report_group {
	char partition[AUTOSIZE_PART_NAME_MAX];
	char gpu[AUTOSIZE_GPU_NAME_MAX];
	char framework[AUTOSIZE_FRAMEWORK_NAME_MAX];
	long jobs;              /* kept jobs of the group */
	long measured;          /* of them with a measured speed */
	double median, p10, p90; /* measured / predicted; 0: none measured */
	long in_band;           /* ratios within 1 -+ band */
	long timeouts, far_under, mismatched;
	/* the calibration factor plans used, in submit order: each change
	 * (the first job's factor first) */
	int n_steps;            /* kept, at most AUTOSIZE_REPORT_MAX_STEPS */
	long changes;           /* changes in all */
	double step_factor[AUTOSIZE_REPORT_MAX_STEPS];
	long long step_s[AUTOSIZE_REPORT_MAX_STEPS]; /* first job with it */
} autosize_report_group;

/* One partition's ISO week (by submit time). */
typedef struct autosize_report_week {
	int partition;          /* index into autosize_report_partition */
	char week[AUTOSIZE_REPORT_WEEK_MAX]; /* "2026-W45" */
	long long monday_s;     /* its Monday 00:00, civil seconds */
	long jobs, measured, timeouts;
	double median_abs_error; /* median |measured / predicted - 1|;
				  * -1: nothing measured */
	double median_cal;      /* median calibration factor used (1 none) */
} autosize_report_week;

/* A warning code or refusal kind and how often it was seen. */
typedef struct autosize_report_count {
	char code[AUTOSIZE_REPORT_CODE_MAX];
	long count;
} autosize_report_count;

typedef struct autosize_report_totals {
	long read;              /* jobs given (steps and other lines not) */
	long running;           /* of them not finished yet: left out */
	long sized;             /* with an autosize plan record */
	long no_record;         /* without one: not sized by autosize */
	long bad_record;        /* with one that could not be read */
	long kept;              /* sized jobs kept for the figures */
	long over_cap;          /* sized jobs past max_jobs, not kept */
	long measured;          /* kept jobs with a measured speed */
	long mismatched;        /* moved or resized after planning */
	long completed, timeouts, far_under;
	long preempted, requeued; /* kept runs that ended so */
	long never_ran;         /* kept jobs cancelled before they started:
				 * no GPU-hours planned, asked or used */
	long timeouts_measured; /* TIMEOUT jobs whose need is known */
	double need_max, need_median; /* of those: need / limit */
	double far_under_median; /* elapsed / limit of far-under jobs */
	double median, p10, p90; /* measured / predicted over all groups */
	long in_band;
	long asked_jobs;        /* jobs that ran and had asked a size and a
				 * limit */
	double gpu_h_asked;     /* GPUs x limit the user asked, those jobs */
	double gpu_h_planned;   /* planned GPUs x planned limit, the kept
				 * jobs that ran */
	double gpu_h_used;      /* GPUs x elapsed, all kept */
	double gpu_h_used_asked; /* GPUs x elapsed of the asked_jobs */
	long long first_submit_s, last_submit_s;
	long refusals;          /* refusal lines counted (rate-limited) */
	long log_missed;        /* lines the rate limit dropped, as the log
				 * says: refusal counts are lower bounds */
	long warned;            /* kept jobs with a warning code */
} autosize_report_totals;

typedef struct autosize_report autosize_report;

/* NULL when out of memory. The caller owns the result. */
autosize_report *autosize_report_create(const autosize_report_options *o);
void autosize_report_destroy(autosize_report *r);

/*
 * One finished job: what accounting says (j) and its plan record (rec,
 * NULL: it has none, not an autosize job). Jobs still running (no final
 * state) count as read only.
 */
void autosize_report_add(autosize_report *r, const autosize_finished_job *j,
			 const autosize_record *rec);

/* A job whose record could not be read (counted). */
void autosize_report_bad_record(autosize_report *r);

/*
 * One line of slurmctld's log: counts job_submit.lua's refusal lines
 * ("autosize: refused: reason=R what=W uid=U: message") by reason and
 * what, and its "autosize: N admin lines not logged" lines. Returns 1
 * when the line was one of those, 0 otherwise.
 */
int autosize_report_ctld_line(autosize_report *r, const char *line);

/*
 * The chained runs among the kept jobs (those whose records name a
 * chain), at most max into out, in the order of their first job;
 * returns how many there are (may exceed max).
 */
long autosize_report_runs(const autosize_report *r, autosize_report_run *out,
			  long max);

/* Sort and compute the figures (after the last add; again after more). */
void autosize_report_finish(autosize_report *r);

/* The figures (valid until the next add or destroy). */
const autosize_report_totals *autosize_report_totals_of(
	const autosize_report *r);
const autosize_report_job *autosize_report_jobs(const autosize_report *r,
						long *n);
const autosize_report_group *autosize_report_groups(const autosize_report *r,
						    int *n);
const autosize_report_week *autosize_report_weeks(const autosize_report *r,
						  long *n);
/* Partition names of the weekly series (index: week.partition). */
const char *autosize_report_partition(const autosize_report *r, int i);
int autosize_report_partition_count(const autosize_report *r);
/* Warning codes and refusal kinds ("input --model-params"), most
 * frequent first. */
const autosize_report_count *autosize_report_warnings(
	const autosize_report *r, int *n);
const autosize_report_count *autosize_report_refusals(
	const autosize_report *r, int *n);
const autosize_report_options *autosize_report_options_of(
	const autosize_report *r);

/*
 * The report for a terminal (one screen) or as JSON (doc/report-json.md:
 * one object, report_version AUTOSIZE_REPORT_VERSION). source says where
 * the jobs came from ("sacct -S now-30days"). Text that came from users
 * (job names, user names) is written without control bytes or invalid
 * UTF-8 in the text, escaped in the JSON. 0, or -1 on a write error.
 */
int autosize_report_write_text(const autosize_report *r, FILE *f,
			       const char *source);
int autosize_report_write_json(const autosize_report *r, FILE *f,
			       const char *source);

/*
 * The report's figures as Prometheus text (gauges over the period read:
 * jobs by outcome, speed ratios per group, GPU-hours, warnings and
 * refusals by kind), for node exporter's textfile collector
 * (`autosize report --metrics FILE`). 0, or -1 on a write error.
 */
int autosize_report_write_metrics(const autosize_report *r, FILE *f);

/* s as a JSON string: made safe text first (utf8_safe_text: control
 * and invalid bytes as '?', as the text output shows them), then
 * written by json_write_str_file with '<', '>', '&' escaped too (a page
 * may embed it). */
void autosize_report_json_str(FILE *f, const char *s);

/* A job's object opened with its names, the first four keys of the
 * report's and the replay's jobs: `{"job_id":..,"user":..,"name":..,
 * "state":..` after a comma unless first; the caller writes the rest
 * and the closing brace. */
void autosize_report_json_job(FILE *f, int first, const char *job_id,
			      const char *user, const char *name,
			      const char *state);

#endif
