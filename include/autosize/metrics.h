/*
 * autosize: slurmctld's decisions as metrics for monitoring: counters by
 * action and refusal reason, and a histogram of the time one decision
 * takes, in Prometheus' text exposition format (version 0.0.4), written
 * to a file that node exporter's textfile collector reads (the module in
 * slurmctld opens no socket). The file is replaced whole (a temporary
 * file in its folder, then rename) and at most once every few seconds:
 * the work per decision is a few counters.
 */
#ifndef AUTOSIZE_METRICS_H
#define AUTOSIZE_METRICS_H

#include <stddef.h>
#include <stdio.h>
#include "autosize/decide.h"

/* Upper bounds of the decision-time buckets, seconds (+Inf after). */
#define AUTOSIZE_METRICS_BUCKETS 12
/* Refusal reasons counted: input, unfit, limit, time, internal, other. */
#define AUTOSIZE_METRICS_REASONS 6
/* Seconds between two writes of the file at the least (default). */
#define AUTOSIZE_METRICS_EVERY_S 15.0

typedef struct autosize_metrics {
	unsigned long long decisions[AUTOSIZE_ACTION_REJECT + 1]; /* by
					   * autosize_action */
	unsigned long long refusals[AUTOSIZE_METRICS_REASONS]; /* by
					   * reason, as listed above */
	unsigned long long errors;        /* internal failures (on_error) */
	unsigned long long bucket[AUTOSIZE_METRICS_BUCKETS + 1]; /* per
					   * bucket, the last +Inf; not
					   * cumulative */
	double seconds_sum;
	unsigned long long layouts_sum;   /* layouts evaluated */
	double last_write_s;              /* when the file was last written
					   * (the caller's clock) */
} autosize_metrics;

void autosize_metrics_init(autosize_metrics *m);
/* One decision (one with autosize options) and the seconds it took. */
void autosize_metrics_add(autosize_metrics *m, const autosize_decision *d,
			  double seconds);
/* The metrics in the text format. 0, or -1 on a write error. */
int autosize_metrics_write(const autosize_metrics *m, FILE *f);
/*
 * Write them to path when at least every_s have passed since the last
 * write (now_s: the same clock): 1 written, 0 not due, -1 not written
 * (errno; the next call tries again).
 */
int autosize_metrics_flush(autosize_metrics *m, const char *path,
			   double now_s, double every_s);

/*
 * Replace path with what emit(ctx, f) writes, atomically: into
 * "path.tmp.PID" beside it (created new, never through a link) and
 * renamed over path, so that a reader sees the old file or the new one
 * whole. 0, or -1 (errno; nothing left behind).
 */
int autosize_write_file_atomic(const char *path,
			       int (*emit)(const void *ctx, FILE *f),
			       const void *ctx);

#endif
