/*
 * autosize: a job's plan record in words, as slurmctld tells the user at
 * submission ("autosize: plan: ...") and `autosize show` repeats it.
 */
#ifndef AUTOSIZE_RECORD_WORDS_H
#define AUTOSIZE_RECORD_WORDS_H

#include <stddef.h>
#include "autosize/jobrecord.h"

/*
 * The plan of r as the submit-time line words it (decide.c's summary):
 * "MODEL on PART: N nodes x G GPUs, TP a x PP b x CP c x DP d, EP e, VP
 * v, ZeRO-z, H h predicted, time limit L" ("per job" when the run is
 * longer than its limit: a chain). The record keeps no utilization, so
 * the line has no MFU. model NULL: "a model of 70.6B parameters".
 * Returns the length, or -1 when it does not fit.
 */
int autosize_record_summary(const autosize_record *r, const char *model,
			    char *buf, size_t len);

/*
 * The time part of that line, the submit side's and show's alike:
 * ", H h predicted (likely LO-HI h), time limit L" and, for a chain,
 * "per job x K chained jobs, which cover at least the upper end", then
 * ", SIGUSR1 M min before each (the) limit" when the job carries
 * autosize's warning signal. "" without hours; the length, or -1 when
 * it does not fit len.
 */
int autosize_time_words(double hours, double low, double high,
			long limit_min, int chained_jobs, int signal_s,
			char *buf, size_t len);

#endif
