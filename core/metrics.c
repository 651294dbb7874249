/*
 * autosize: slurmctld's decisions as Prometheus text (metrics.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "autosize/metrics.h"

/* Decision times, seconds: a plain decision takes tens of microseconds,
 * the worst hostile one about 12 ms (make bench); the top buckets are
 * for a loaded slurmctld. */
static const double metrics_le[AUTOSIZE_METRICS_BUCKETS] = {
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
	0.1, 0.25, 1.0
};
/* decide.h's reasons, then any other */
static const char *const metrics_reasons[AUTOSIZE_METRICS_REASONS] = {
	"input", "unfit", "limit", "time", "internal", "other"
};

void autosize_metrics_init(autosize_metrics *m)
{
	memset(m, 0, sizeof(*m));
}

void autosize_metrics_add(autosize_metrics *m, const autosize_decision *d,
			  double seconds)
{
	int i;

	if ((unsigned)d->action <= AUTOSIZE_ACTION_REJECT)
		m->decisions[d->action]++;
	if (d->action == AUTOSIZE_ACTION_REJECT) {
		for (i = 0; i < AUTOSIZE_METRICS_REASONS - 1; i++)
			if (d->reason && strcmp(d->reason,
						metrics_reasons[i]) == 0)
				break;
		m->refusals[i]++;
	}
	if (d->error[0])
		m->errors++;
	if (!(seconds >= 0))
		seconds = 0;
	for (i = 0; i < AUTOSIZE_METRICS_BUCKETS && seconds > metrics_le[i];
	     i++)
		;
	m->bucket[i]++;
	m->seconds_sum += seconds;
	m->layouts_sum += d->evaluated > 0 ? (unsigned long long)d->evaluated
					   : 0;
}

int autosize_metrics_write(const autosize_metrics *m, FILE *f)
{
	unsigned long long n = 0;
	int i;

	fputs("# HELP autosize_decisions_total Jobs with autosize options "
	      "that slurmctld decided, by action.\n"
	      "# TYPE autosize_decisions_total counter\n", f);
	for (i = 0; i <= AUTOSIZE_ACTION_REJECT; i++)
		fprintf(f, "autosize_decisions_total{action=\"%s\"} %llu\n",
			autosize_action_name((autosize_action)i),
			m->decisions[i]);
	fputs("# HELP autosize_refusals_total Submissions slurmctld refused, "
	      "by reason (input: bad options; unfit: no plan fits; limit: "
	      "none within Slurm's or the site rule's caps; time: a -t past "
	      "what Slurm allows; internal: on_error reject).\n"
	      "# TYPE autosize_refusals_total counter\n", f);
	for (i = 0; i < AUTOSIZE_METRICS_REASONS; i++)
		fprintf(f, "autosize_refusals_total{reason=\"%s\"} %llu\n",
			metrics_reasons[i], m->refusals[i]);
	fputs("# HELP autosize_errors_total Decisions the plugin could not "
	      "make (on_error applied).\n"
	      "# TYPE autosize_errors_total counter\n", f);
	fprintf(f, "autosize_errors_total %llu\n", m->errors);
	fputs("# HELP autosize_decision_seconds Time of one decision in "
	      "slurmctld (job_submit.lua's call into the module).\n"
	      "# TYPE autosize_decision_seconds histogram\n", f);
	for (i = 0; i <= AUTOSIZE_METRICS_BUCKETS; i++) {
		n += m->bucket[i];
		if (i < AUTOSIZE_METRICS_BUCKETS)
			fprintf(f, "autosize_decision_seconds_bucket{le=\"%g\"} "
				"%llu\n", metrics_le[i], n);
		else
			fprintf(f, "autosize_decision_seconds_bucket{le=\"+Inf\"}"
				" %llu\n", n);
	}
	fprintf(f, "autosize_decision_seconds_sum %.9g\n"
		"autosize_decision_seconds_count %llu\n", m->seconds_sum, n);
	fputs("# HELP autosize_layouts_evaluated_total Layouts the decisions "
	      "evaluated (each bounded by the plan's work budget).\n"
	      "# TYPE autosize_layouts_evaluated_total counter\n", f);
	fprintf(f, "autosize_layouts_evaluated_total %llu\n", m->layouts_sum);
	return ferror(f) ? -1 : 0;
}

static int metrics_write_cb(const void *ctx, FILE *f)
{
	return autosize_metrics_write(ctx, f);
}

int autosize_metrics_flush(autosize_metrics *m, const char *path,
			   double now_s, double every_s)
{
	if (!path || !path[0])
		return 0;
	if (m->last_write_s > 0 && now_s - m->last_write_s < every_s &&
	    now_s >= m->last_write_s)
		return 0;
	m->last_write_s = now_s;
	return autosize_write_file_atomic(path, metrics_write_cb, m) == 0
	       ? 1 : -1;
}

int autosize_write_file_atomic(const char *path,
			       int (*emit)(const void *ctx, FILE *f),
			       const void *ctx)
{
	char tmp[4096];
	FILE *f;
	int fd, err, bad;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >=
	    (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			  O_CLOEXEC, 0644);   /* one left by a crash */
	if (fd < 0)
		return -1;
	if (!(f = fdopen(fd, "w"))) {
		err = errno;
		close(fd);
		unlink(tmp);
		errno = err;
		return -1;
	}
	bad = emit(ctx, f) != 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) != 0) {
		err = bad && !errno ? EIO : errno;
		unlink(tmp);
		errno = err;
		return -1;
	}
	return 0;
}
