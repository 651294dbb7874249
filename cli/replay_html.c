/*
 * autosize replay --html: what a policy would change, as one
 * self-contained page (html.h: no script, font or network; every text
 * escaped). Charts: each job's GPU-hours held and time limit, before
 * (the current policy) against after (the candidate), one series per
 * partition in the same colour and marker on both (as the report's); a
 * table of the jobs that change, the refused ones marked. The figures
 * are `replay --json`'s, which tests/browser/check.py compares with the
 * page.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "chart.h"
#include "html.h"
#include "autosize/replay.h"

#define RP_ROWS 200
#define RP_TEXT_MAX 1024
#define RP_PARTS 256

/* Before against after of each job that holds something on both sides:
 * GPU-hours (hours = 0) or time limit in hours (hours = 1). */
static chart *rp_scatter(const autosize_replay *r, int hours)
{
	int series[RP_PARTS];
	const autosize_replay_job *k;
	char tip[256];
	chart *c = chart_create(hours ? "limits" : "gpu-hours", hours ?
				"Time limit: current policy against the one "
				"tried" : "GPU-hours held: current policy "
				"against the one tried");
	long n, i;
	int s;

	if (!c)
		return NULL;
	memset(series, -1, sizeof(series));
	if (chart_axis(c, CHART_X, "current policy", hours ?
		       CHART_UNIT_HOURS : CHART_UNIT_GPU_HOURS, NULL,
		       CHART_LOG) ||
	    chart_axis(c, CHART_Y, "policy tried", hours ?
		       CHART_UNIT_HOURS : CHART_UNIT_GPU_HOURS, NULL,
		       CHART_LOG))
		goto fail;
	chart_diagonal(c, 0);
	k = autosize_replay_jobs(r, &n);
	for (i = 0; i < n; i++) {
		double x = hours ? k[i].before.time_limit_min / 60.0
				 : k[i].before.gpu_hours;
		double y = hours ? k[i].after.time_limit_min / 60.0
				 : k[i].after.gpu_hours;
		if (!(x > 0 && y > 0))
			continue;
		s = chart_series_of(c, series, RP_PARTS, k[i].partition,
				    autosize_replay_partition(r,
							      k[i].partition),
				    CHART_SCATTER);
		snprintf(tip, sizeof(tip), "job %s of %s: %s", k[i].job_id,
			 k[i].user, k[i].name);
		if (s < 0 || chart_point(c, s, x, y, tip) < 0)
			goto fail;
	}
	return c;
fail:
	chart_destroy(c);
	return NULL;
}

/* The jobs that change, refused ones highlighted. */
static void rp_changed(html_page *p, const autosize_replay *r)
{
	static const char *const head[] = {"job", "user", "name",
		"current policy", "policy tried", "GPU-hours", "why"};
	const autosize_replay_job *k;
	long n, i, rows = 0;

	k = autosize_replay_jobs(r, &n);
	html_table_begin(p, "changed", "Jobs that change (refused under the "
			 "policy tried: marked)", "lllllrl", head, 7);
	for (i = 0; i < n && rows < RP_ROWS; i++) {
		char before[96], after[96], gpu_h[48];
		const char *cells[7];

		if (!k[i].changed)
			continue;
		rows++;
		autosize_replay_side_text(&k[i].before, before,
					  sizeof(before));
		autosize_replay_side_text(&k[i].after, after, sizeof(after));
		snprintf(gpu_h, sizeof(gpu_h), "%.0f -> %.0f",
			 k[i].before.gpu_hours, k[i].after.gpu_hours);
		cells[0] = k[i].job_id;
		cells[1] = k[i].user;
		cells[2] = k[i].name;
		cells[3] = before;
		cells[4] = after;
		cells[5] = gpu_h;
		cells[6] = k[i].changed & AUTOSIZE_REPLAY_REFUSED
			   ? k[i].after.message : "";
		html_table_row(p, cells, !!(k[i].changed &
					    AUTOSIZE_REPLAY_REFUSED));
	}
	html_table_end(p);
}

static void rp_summary(html_page *p, const autosize_replay *r,
		       const char *source)
{
	const autosize_replay_totals *t = autosize_replay_totals_of(r);
	char text[RP_TEXT_MAX];
	double d = t->gpu_hours_after - t->gpu_hours_before;

	snprintf(text, sizeof(text), "%ld jobs from %s, each decided again "
		 "as slurmctld would, under %s (the policy tried) and under "
		 "%s (the current one). %ld were sized by autosize; %ld of "
		 "them get their recorded plan again under the current policy "
		 "(a job whose record names no preset is rebuilt from its "
		 "parameter count: a config.json's shape, and records older "
		 "than model= and mode=, come out otherwise).", t->read,
		 source, autosize_replay_policy_name(r, 1),
		 autosize_replay_policy_name(r, 0), t->replayed,
		 t->reproduced);
	html_paragraph(p, text);
	snprintf(text, sizeof(text), "%ld of %ld jobs change: size %ld, time "
		 "limit %ld, partition %ld, sized otherwise %ld; %ld would be "
		 "refused (they held %.0f GPU-hours), %ld no longer refused. "
		 "GPU-hours held (GPUs x time limit): %.0f now, %.0f under "
		 "the policy tried (%+.0f%s%.0f%s); %.0f used by the jobs "
		 "that ran.", t->changed, t->replayed, t->size, t->limit,
		 t->partition, t->action, t->refused, t->gpu_hours_refused,
		 t->accepted, t->gpu_hours_before, t->gpu_hours_after, d,
		 t->gpu_hours_before > 0 ? ", " : "",
		 t->gpu_hours_before > 0 ? 100 * d / t->gpu_hours_before : 0,
		 t->gpu_hours_before > 0 ? "%" : "", t->gpu_hours_used);
	html_paragraph(p, text);
}

int cli_replay_html(const autosize_replay *r, const char *path,
		    const char *source)
{
	chart *charts[2] = {rp_scatter(r, 0), rp_scatter(r, 1)};
	html_page *p = NULL;
	FILE *f = NULL;
	int rv = -1;

	if (!charts[0] || !charts[1])
		goto out;
	if (!(f = fopen(path, "w"))) {
		fprintf(stderr, "autosize: replay: --html %.200s: %s (give a "
			"file in a writable folder)\n", path, strerror(errno));
		goto out;
	}
	if (!(p = html_page_create(f, "autosize replay")))
		goto out;
	errno = 0;
	rp_summary(p, r, source);
	html_heading(p, "GPU-hours");
	html_paragraph(p, "Each point is a job: the GPUs x time limit it "
		       "holds under the current policy against under the "
		       "policy tried. Below the line the tried policy holds "
		       "less.");
	html_chart(p, charts[0]);
	html_heading(p, "Time limits");
	html_chart(p, charts[1]);
	html_heading(p, "What changes");
	rp_changed(p, r);
	rv = html_page_finish(p);
out:
	html_page_destroy(p);
	if (f && fclose(f) != 0)
		rv = -1;
	if (rv && f)
		fprintf(stderr, "autosize: replay: --html %.200s: %s\n", path,
			errno ? strerror(errno) : "write error");
	chart_destroy(charts[0]);
	chart_destroy(charts[1]);
	return rv;
}
