/*
 * autosize report --html: the admin's report as one self-contained page
 * (html.h: no script, font or network; every text escaped by markup.h).
 * Charts: predicted against measured speed (log axes, the 15% band),
 * time limit against run time, and per partition the weekly median
 * error and time-limit hits; tables of the groups, the jobs that hit
 * their limit, the warnings and refusals. The figures are those of
 * `report --json` (doc/report-json.md), which tests/browser/check.py
 * compares with the page.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "chart.h"
#include "html.h"
#include "autosize/parse.h"
#include "autosize/report.h"

/* Rows of the TIMEOUT table at most (the JSON lists them all). */
#define RH_TIMEOUT_ROWS 50
#define RH_TEXT_MAX 512

/* The series of a partition, made when first needed (-1: none): its
 * colour and marker are the partition's on every chart of the page. */
static int rh_series(chart *c, int *series, const autosize_report *r,
		     int part, chart_kind kind)
{
	return chart_series_of(c, series, AUTOSIZE_REPORT_MAX_GROUPS, part,
			       autosize_report_partition(r, part), kind);
}

static void rh_tip(const autosize_report_job *k, char *buf, size_t len)
{
	snprintf(buf, len, "job %s of %s: %s (%s)", k->job_id, k->user,
		 k->name, k->state);
}

/* A job's point: predicted against measured tokens per second (speed
 * = 1), or its time limit against its run time in hours (0); 0 when the
 * job has none. */
static int rh_xy(const autosize_report_job *k, int speed, double *x,
		 double *y)
{
	if (speed) {
		*x = k->predicted_tok_s;
		*y = k->measured_tok_s;
	} else {
		*x = k->limit_s / 3600;
		*y = k->elapsed_s / 3600;
	}
	return *x > 0 && *y > 0;
}

/* Speed: measured against predicted, the band around y = x. Limits:
 * run time against time limit, on y = x the limit hits, far below the
 * jobs that waited for a longer slot than they needed. One series per
 * partition, log axes. */
static chart *rh_scatter(const autosize_report *r, int speed)
{
	int series[AUTOSIZE_REPORT_MAX_GROUPS];
	chart_unit unit = speed ? CHART_UNIT_TOKENS_S : CHART_UNIT_HOURS;
	const autosize_report_job *k;
	char tip[RH_TEXT_MAX];
	chart *c = chart_create(speed ? "speed" : "limits", speed ?
				"Measured against predicted speed" :
				"Run time against time limit");
	double x, y;
	long n, i;
	int s;

	if (!c)
		return NULL;
	memset(series, -1, sizeof(series));
	if (chart_axis(c, CHART_X, speed ? "predicted" : "time limit", unit,
		       NULL, CHART_LOG) ||
	    chart_axis(c, CHART_Y, speed ? "measured" : "run time", unit,
		       NULL, CHART_LOG))
		goto fail;
	chart_diagonal(c, speed ? autosize_report_options_of(r)->band : 0);
	k = autosize_report_jobs(r, &n);
	for (i = 0; i < n; i++) {
		if (!rh_xy(&k[i], speed, &x, &y))
			continue;
		rh_tip(&k[i], tip, sizeof(tip));
		s = rh_series(c, series, r, k[i].partition, CHART_SCATTER);
		if (s < 0 || chart_point(c, s, x, y, tip) < 0)
			goto fail;
	}
	return c;
fail:
	chart_destroy(c);
	return NULL;
}

/* Per partition and ISO week: the median |error| (errors = 1) or the
 * time-limit hits (errors = 0). */
static chart *rh_weekly(const autosize_report *r, int errors)
{
	int series[AUTOSIZE_REPORT_MAX_GROUPS];
	const autosize_report_week *w;
	chart *c = chart_create(errors ? "weekly-error" : "weekly-hits",
				errors ? "Median error per week, |measured / "
				"predicted - 1|" : "Time-limit hits per week");
	long n, i;
	int s;

	if (!c)
		return NULL;
	memset(series, -1, sizeof(series));
	if (chart_axis(c, CHART_X, "week", CHART_UNIT_DATE, NULL,
		       CHART_LINEAR) ||
	    chart_axis(c, CHART_Y, errors ? "median error" : "jobs",
		       errors ? CHART_UNIT_PERCENT : CHART_UNIT_NONE, NULL,
		       CHART_LINEAR))
		goto fail;
	w = autosize_report_weeks(r, &n);
	for (i = 0; i < n; i++) {
		double y = errors ? w[i].median_abs_error
				  : (double)w[i].timeouts;

		if (errors && y < 0)
			continue;
		s = rh_series(c, series, r, w[i].partition, CHART_LINE);
		if (s < 0 || chart_point(c, s, (double)w[i].monday_s, y,
					 w[i].week) < 0)
			goto fail;
	}
	return c;
fail:
	chart_destroy(c);
	return NULL;
}

static void rh_groups(html_page *p, const autosize_report *r)
{
	static const char *const head[] = {"partition", "GPU", "framework",
		"jobs", "measured", "median", "p10-p90", "right",
		"limit hits", "calibration"};
	const autosize_report_group *g;
	int n, i;

	g = autosize_report_groups(r, &n);
	html_table_begin(p, "groups", "Measured / predicted speed per "
			 "partition, GPU and framework", "lllrrrrrrl", head,
			 10);
	for (i = 0; i < n; i++) {
		char jobs[24], meas[24], med[24] = "-", spread[48] = "-";
		char right[24] = "-", hits[24], cal[64];
		const char *cells[10];

		snprintf(jobs, sizeof(jobs), "%ld", g[i].jobs);
		snprintf(meas, sizeof(meas), "%ld", g[i].measured);
		if (g[i].measured) {
			snprintf(med, sizeof(med), "%.2f", g[i].median);
			snprintf(spread, sizeof(spread), "%.2f-%.2f",
				 g[i].p10, g[i].p90);
			snprintf(right, sizeof(right), "%.0f%%", 100.0 *
				 (double)g[i].in_band / (double)g[i].measured);
		}
		snprintf(hits, sizeof(hits), "%ld", g[i].timeouts);
		snprintf(cal, sizeof(cal), "%.3f -> %.3f (%ld changes)",
			 g[i].n_steps ? g[i].step_factor[0] : 1.0,
			 g[i].n_steps ? g[i].step_factor[g[i].n_steps - 1]
				      : 1.0, g[i].changes);
		cells[0] = g[i].partition;
		cells[1] = g[i].gpu;
		cells[2] = g[i].framework;
		cells[3] = jobs;
		cells[4] = meas;
		cells[5] = med;
		cells[6] = spread;
		cells[7] = right;
		cells[8] = hits;
		cells[9] = cal;
		html_table_row(p, cells, 0);
	}
	html_table_end(p);
}

static void rh_timeouts(html_page *p, const autosize_report *r)
{
	static const char *const head[] = {"job", "user", "name",
		"partition", "time limit", "needed", "x limit"};
	const autosize_report_job *k;
	long n, i, rows = 0;

	k = autosize_report_jobs(r, &n);
	html_table_begin(p, "timeouts", "Jobs that hit their time limit "
			 "(needed: at their measured speed)", "lllllrr", head,
			 7);
	for (i = 0; i < n && rows < RH_TIMEOUT_ROWS; i++) {
		char lim[32], need[32] = "-", over[24] = "-";
		const char *cells[7];

		if (!k[i].timeout)
			continue;
		rows++;
		autosize_format_duration(k[i].limit_s, lim, sizeof(lim));
		if (k[i].need_s > 0 && k[i].limit_s > 0) {
			autosize_format_duration(k[i].need_s, need,
						 sizeof(need));
			snprintf(over, sizeof(over), "%.2f",
				 k[i].need_s / k[i].limit_s);
		}
		cells[0] = k[i].job_id;
		cells[1] = k[i].user;
		cells[2] = k[i].name;
		cells[3] = autosize_report_partition(r, k[i].partition);
		cells[4] = lim;
		cells[5] = need;
		cells[6] = over;
		html_table_row(p, cells, 0);
	}
	html_table_end(p);
}

/* The runs that ended PREEMPTED or REQUEUED: what they spent. */
static void rh_interrupted(html_page *p, const autosize_report *r)
{
	static const char *const head[] = {"job", "user", "name",
		"partition", "state", "ran", "GPU-hours"};
	const autosize_report_job *k;
	long n, i, rows = 0;

	k = autosize_report_jobs(r, &n);
	html_table_begin(p, "interrupted", "Preempted and requeued runs (their "
			 "time is spent, their prediction untested)",
			 "lllllrr", head, 7);
	for (i = 0; i < n && rows < RH_TIMEOUT_ROWS; i++) {
		char ran[32], gpu_h[32];
		const char *cells[7];

		if (!k[i].preempted && !k[i].requeued)
			continue;
		rows++;
		autosize_format_duration(k[i].elapsed_s, ran, sizeof(ran));
		snprintf(gpu_h, sizeof(gpu_h), "%.0f",
			 k[i].gpus * k[i].elapsed_s / 3600);
		cells[0] = k[i].job_id;
		cells[1] = k[i].user;
		cells[2] = k[i].name;
		cells[3] = autosize_report_partition(r, k[i].partition);
		cells[4] = k[i].state;
		cells[5] = ran;
		cells[6] = gpu_h;
		html_table_row(p, cells, 0);
	}
	html_table_end(p);
}

static void rh_counts(html_page *p, const char *id, const char *caption,
		      const char *what, const autosize_report_count *c, int n)
{
	const char *head[2] = {what, "count"};
	int i;

	html_table_begin(p, id, caption, "lr", head, 2);
	for (i = 0; i < n; i++) {
		char count[24];
		const char *cells[2];

		snprintf(count, sizeof(count), "%ld", c[i].count);
		cells[0] = c[i].code;
		cells[1] = count;
		html_table_row(p, cells, 0);
	}
	html_table_end(p);
}

/* The page's words: what came in, the totals, GPU-hours. */
static void rh_summary(html_page *p, const autosize_report *r,
		       const char *source)
{
	const autosize_report_totals *t = autosize_report_totals_of(r);
	char text[RH_TEXT_MAX * 2];

	snprintf(text, sizeof(text), "%ld jobs from %s: %ld sized by "
		 "autosize, %ld without a plan record, %ld with a measured "
		 "speed (median measured / predicted %.2f, p10 %.2f, p90 "
		 "%.2f), %ld moved or resized after planning (left out of "
		 "the speed figures).", t->read, source, t->sized,
		 t->no_record, t->measured, t->median, t->p10, t->p90,
		 t->mismatched);
	html_paragraph(p, text);
	if (t->over_cap) {
		snprintf(text, sizeof(text), "Only the first %ld sized jobs "
			 "are in the figures; %ld more were counted.",
			 t->kept, t->over_cap);
		html_paragraph(p, text);
	}
	snprintf(text, sizeof(text), "Time limits: %ld of %ld jobs hit "
		 "theirs; %ld of %ld completed in less than %.0f%% of it; "
		 "%ld preempted, %ld run(s) requeued. GPU-hours of the jobs "
		 "that ran: planned %.0f, used %.0f; asked %s; %ld job%s "
		 "cancelled before starting.",
		 t->timeouts, t->kept, t->far_under, t->completed,
		 autosize_report_options_of(r)->far_under * 100,
		 t->preempted, t->requeued,
		 t->gpu_h_planned, t->gpu_h_used, t->asked_jobs ?
		 "by the jobs that gave a size and a limit (see --json)" :
		 "not known", t->never_ran, t->never_ran == 1 ? "" : "s");
	html_paragraph(p, text);
}

static int rh_page(FILE *f, const autosize_report *r, const char *source,
		   chart *const *charts)
{
	const autosize_report_count *c;
	html_page *p = html_page_create(f, "autosize report");
	int n, rv;

	if (!p)
		return -1;
	rh_summary(p, r, source);
	html_heading(p, "Speed");
	html_paragraph(p, "Each point is a job that reported its speed: "
		       "what its plan predicted against what it measured. "
		       "The band is within 15% of the plan.");
	html_chart(p, charts[0]);
	rh_groups(p, r);
	html_heading(p, "Time limits");
	html_paragraph(p, "Each point is a job: its time limit against how "
		       "long it ran. On the line: it hit its limit; far "
		       "below: it waited for a longer slot than it needed.");
	html_chart(p, charts[1]);
	rh_timeouts(p, r);
	rh_interrupted(p, r);
	html_heading(p, "Week by week");
	html_chart(p, charts[2]);
	html_chart(p, charts[3]);
	html_heading(p, "Warnings and refusals");
	c = autosize_report_warnings(r, &n);
	rh_counts(p, "warnings", "Warnings told at submission (jobs)",
		  "code", c, n);
	c = autosize_report_refusals(r, &n);
	rh_counts(p, "refusals", "Refusals in slurmctld's log (rate-limited: "
		  "lower bounds)", "reason", c, n);
	rv = html_page_finish(p);
	html_page_destroy(p);
	return rv;
}

int cli_report_html(const autosize_report *r, const char *path,
		    const char *source)
{
	chart *charts[4] = {NULL, NULL, NULL, NULL};
	FILE *f = NULL;
	int i, rv = -1;

	charts[0] = rh_scatter(r, 1);
	charts[1] = rh_scatter(r, 0);
	charts[2] = rh_weekly(r, 1);
	charts[3] = rh_weekly(r, 0);
	for (i = 0; i < 4; i++)
		if (!charts[i])
			goto out;
	if (!(f = fopen(path, "w"))) {
		fprintf(stderr, "autosize: report: --html %.200s: %s (give a "
			"file in a writable folder)\n", path, strerror(errno));
		goto out;
	}
	errno = 0;
	rv = rh_page(f, r, source, charts);
	if (fclose(f) != 0)
		rv = -1;
	if (rv)
		fprintf(stderr, "autosize: report: --html %.200s: %s\n", path,
			errno ? strerror(errno) : "write error");
out:
	for (i = 0; i < 4; i++)
		chart_destroy(charts[i]);
	return rv;
}
