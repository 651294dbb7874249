/*
 * autosize: finished jobs as the command reads them (calibrate, report,
 * show, replay): sacct's lines and JSON lines
 * (offline/calibration_input.c).
 */
#ifndef AUTOSIZE_CALIBRATION_INPUT_H
#define AUTOSIZE_CALIBRATION_INPUT_H

#include <stddef.h>
#include "autosize/calibration.h"
#include "autosize/jobrecord.h"

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
