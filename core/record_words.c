/*
 * autosize: a job's plan record in words (record_words.h): the
 * submit-time line slurmctld tells the user, and `autosize show`'s.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "autosize/launch.h"
#include "autosize/parse.h"
#include "autosize/record_words.h"

int autosize_time_words(double hours, double low, double high,
			long limit_min, int chained_jobs, int signal_s,
			char *buf, size_t len)
{
	char limit[32] = "";
	size_t used;
	int n;

	if (len)
		buf[0] = '\0';
	if (!(hours > 0))
		return 0;
	n = snprintf(buf, len, ", %.1f h predicted", hours);
	if (n < 0 || (size_t)n >= len)
		return -1;
	used = (size_t)n;
	n = high > low ? snprintf(buf + used, len - used, " (likely "
				  "%.1f-%.1f h)", low, high) : 0;
	if (n < 0 || (size_t)n >= len - used)
		return -1;
	used += (size_t)n;
	if (limit_min <= 0)
		return (int)used;
	autosize_format_duration(limit_min * 60.0, limit, sizeof(limit));
	/* a chain: its count follows from what the limits cover, the
	 * upper end */
	if (chained_jobs > 1)
		n = snprintf(buf + used, len - used, ", time limit %s per job "
			     "x %d chained jobs, which cover at least the "
			     "upper end", limit, chained_jobs);
	else
		n = snprintf(buf + used, len - used, ", time limit %s", limit);
	if (n < 0 || (size_t)n >= len - used)
		return -1;
	used += (size_t)n;
	if (signal_s > 0) {
		n = snprintf(buf + used, len - used, ", SIGUSR1 %d min before "
			     "%s limit", (signal_s + 59) / 60,
			     chained_jobs > 1 ? "each" : "the");
		if (n < 0 || (size_t)n >= len - used)
			return -1;
		used += (size_t)n;
	}
	return (int)used;
}

int autosize_record_summary(const autosize_record *r, const char *model,
			    char *buf, size_t len)
{
	char count[16], name[AUTOSIZE_NAME_MAX + 40];
	size_t used;
	int n;

	if (model && model[0])
		snprintf(name, sizeof(name), "%s", model);
	else
		snprintf(name, sizeof(name), "a model of %s parameters",
			 autosize_launch_count(r->params, count,
					       sizeof(count)));
	/* decide.c's summary, less its MFU (not in the record) */
	n = snprintf(buf, len, "%s on %s: %d node%s x %d GPU%s, TP %d x PP %d "
		     "x CP %d x DP %d, EP %d, VP %d, ZeRO-%d", name,
		     r->partition, r->nodes, autosize_plural(r->nodes),
		     r->gpus_per_node, autosize_plural(r->gpus_per_node), r->tp,
		     r->pp, r->cp > 1 ? r->cp : 1, r->dp, r->ep > 1 ? r->ep : 1,
		     r->vp > 1 ? r->vp : 1, r->zero_stage);
	if (n < 0 || (size_t)n >= len)
		return -1;
	used = (size_t)n;
	n = autosize_time_words(r->train_hours, r->train_hours_low,
				r->train_hours_high, r->time_limit_min,
				autosize_record_chain_jobs(r), r->signal_s,
				buf + used, len - used);
	return n < 0 ? -1 : (int)(used + (size_t)n);
}
