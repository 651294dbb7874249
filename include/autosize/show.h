/*
 * autosize: what a job's plan record says, in words (`autosize show`):
 * the plan in the words slurmctld told the user at submission
 * ("autosize: plan: ..."), what the job measured, whether it hit its
 * time limit. Pure: the CLI reads the job from scontrol or sacct.
 */
#ifndef AUTOSIZE_SHOW_H
#define AUTOSIZE_SHOW_H

#include <stdio.h>
#include "autosize/calibration_input.h"
#include "autosize/jobrecord.h"
#include "autosize/record_words.h"

/* 1 for the state of a job that has not ended (PENDING, RUNNING, ...;
 * "" unknown), as scontrol and sacct spell them. */
int autosize_show_live(const char *state);

/* Whether the job hit its time limit, and what it would have needed. */
typedef struct autosize_show_limit {
	int finished;           /* the job has ended */
	int hit;                /* ended TIMEOUT */
	double limit_s;         /* its limit (accounting's, else the plan's) */
	double elapsed_s;
	double need_s;          /* at its measured speed, what its part of
				 * the run needed (0: not measured) */
	int chained;            /* the plan runs longer than one limit */
} autosize_show_limit;

void autosize_show_limit_of(const autosize_finished_job *j,
			    const autosize_record *r, autosize_show_limit *l);

/*
 * The job and its record (rec NULL: the job has none: not sized by
 * autosize; rec_error: why a record could not be read, else NULL),
 * from source ("scontrol", "sacct"), as text or one JSON object
 * (doc/users.md "What autosize decided for a job"). Job names and users
 * are written without control bytes, escaped in JSON. 0, or -1 on a
 * write error.
 */
int autosize_show_write_text(const autosize_finished_job *j,
			     const autosize_record *rec, const char *rec_error,
			     const char *source, FILE *f);
int autosize_show_write_json(const autosize_finished_job *j,
			     const autosize_record *rec, const char *rec_error,
			     const char *source, FILE *f);

#endif
