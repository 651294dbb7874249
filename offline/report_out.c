/*
 * autosize: the admin's report as text for a terminal and as JSON
 * (report.h; doc/admins.md, doc/report-json.md).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autosize/parse.h"
#include "autosize/report.h"
#include "date.h"
#include "json_write.h"
#include "utf8.h"

/* Rows of a list shown on the terminal before "and N more". */
#define OUT_ROWS 8
#define OUT_NAME_COLS 24

/* ---- text ---- */

static const char *out_pct(double share, char *buf, size_t len)
{
	snprintf(buf, len, "%.0f%%", share * 100);
	return buf;
}

static void out_day(long long s, char *buf, size_t len)
{
	char t[32];

	date_time(s, t, sizeof(t));
	snprintf(buf, len, "%.10s", t[0] ? t : "?");
}

static void out_groups(const autosize_report *r, FILE *f)
{
	const autosize_report_totals *t = autosize_report_totals_of(r);
	const autosize_report_group *g;
	char band[16], pct[16];
	int n, i;

	g = autosize_report_groups(r, &n);
	snprintf(band, sizeof(band), "%.0f%%",
		 autosize_report_options_of(r)->band * 100);
	fprintf(f, "\nspeed, measured / predicted, per partition, GPU and "
		"framework (right: within %s):\n", band);
	fprintf(f, "  %-12s %-20s %-10s %6s %8s %7s %13s %8s\n", "partition",
		"gpu", "framework", "jobs", "measured", "median", "p10-p90",
		"right");
	for (i = 0; i < n && i < 2 * OUT_ROWS; i++) {
		char spread[32] = "-", med[16] = "-";

		if (g[i].measured) {
			snprintf(med, sizeof(med), "%.2f", g[i].median);
			snprintf(spread, sizeof(spread), "%.2f-%.2f",
				 g[i].p10, g[i].p90);
		}
		fprintf(f, "  %-12.12s %-20.20s %-10.10s %6ld %8ld %7s %13s "
			"%8s\n", g[i].partition, g[i].gpu, g[i].framework,
			g[i].jobs, g[i].measured, med, spread,
			g[i].measured ? out_pct((double)g[i].in_band /
						(double)g[i].measured, pct,
						sizeof(pct)) : "-");
	}
	if (n > 2 * OUT_ROWS)
		fprintf(f, "  ... and %d more groups (--json lists all)\n",
			n - 2 * OUT_ROWS);
	if (t->measured)
		fprintf(f, "  all: %ld jobs measured, median %.2f (p10 %.2f, "
			"p90 %.2f), %s right\n", t->measured, t->median,
			t->p10, t->p90, out_pct((double)t->in_band /
						(double)t->measured, pct,
						sizeof(pct)));
	else
		fprintf(f, "  no job reported its speed ($AUTOSIZE_REPORT, "
			"doc/closed-loop.md)\n");
}

static void out_timeouts(const autosize_report *r, FILE *f)
{
	const autosize_report_totals *t = autosize_report_totals_of(r);
	const autosize_report_job *k;
	char lim[32], dur[32], need[64], name[OUT_NAME_COLS + 1], user[24];
	long n, i, shown = 0;

	k = autosize_report_jobs(r, &n);
	fprintf(f, "\ntime limits:\n  hit (TIMEOUT): %ld of %ld jobs",
		t->timeouts, t->kept);
	if (t->timeouts_measured)
		fprintf(f, "; %ld with a measured speed needed x%.2f their "
			"limit (median), up to x%.2f", t->timeouts_measured,
			t->need_median, t->need_max);
	fprintf(f, "\n");
	for (i = 0; i < n && shown < OUT_ROWS; i++) {
		if (!k[i].timeout)
			continue;
		shown++;
		utf8_safe_text(k[i].name, name, sizeof(name));
		utf8_safe_text(k[i].user, user, sizeof(user));
		autosize_format_duration(k[i].limit_s, lim, sizeof(lim));
		if (k[i].need_s > 0 && k[i].limit_s > 0)
			snprintf(need, sizeof(need), "needed %s (x%.2f)",
				 autosize_format_duration(k[i].need_s, dur,
							  sizeof(dur)),
				 k[i].need_s / k[i].limit_s);
		else
			snprintf(need, sizeof(need), "needed more (no "
				 "measured speed)");
		fprintf(f, "    job %s %s \"%s\" %s: limit %s, %s\n",
			k[i].job_id, user, name,
			autosize_report_partition(r, k[i].partition), lim,
			need);
	}
	if (t->timeouts > shown)
		fprintf(f, "    ... and %ld more\n", t->timeouts - shown);
	fprintf(f, "  ran far under (COMPLETED in less than %.0f%% of the "
		"limit): %ld of %ld completed",
		autosize_report_options_of(r)->far_under * 100, t->far_under,
		t->completed);
	if (t->far_under)
		fprintf(f, ", median %.0f%% of the limit",
			t->far_under_median * 100);
	fprintf(f, "\n");
}

/* The runs another job's priority or a requeue ended: their time is
 * spent, their plan's prediction not tested. */
static void out_interrupted(const autosize_report *r, FILE *f)
{
	const autosize_report_totals *t = autosize_report_totals_of(r);
	const autosize_report_job *k;
	char dur[32], name[OUT_NAME_COLS + 1], user[24];
	long n, i, shown = 0;

	if (!t->preempted && !t->requeued)
		return;
	k = autosize_report_jobs(r, &n);
	fprintf(f, "\npreempted or requeued: %ld preempted, %ld run%s "
		"requeued\n", t->preempted, t->requeued,
		autosize_plural(t->requeued));
	for (i = 0; i < n && shown < OUT_ROWS; i++) {
		if (!k[i].preempted && !k[i].requeued)
			continue;
		shown++;
		utf8_safe_text(k[i].name, name, sizeof(name));
		utf8_safe_text(k[i].user, user, sizeof(user));
		autosize_format_duration(k[i].elapsed_s, dur, sizeof(dur));
		fprintf(f, "    job %s %s \"%s\" %s: %s after %s, %.0f "
			"GPU-hours\n", k[i].job_id, user, name,
			autosize_report_partition(r, k[i].partition),
			k[i].state, dur, k[i].gpus * k[i].elapsed_s / 3600);
	}
	if (t->preempted + t->requeued > shown)
		fprintf(f, "    ... and %ld more\n",
			t->preempted + t->requeued - shown);
}

static void out_gpu_hours(const autosize_report *r, FILE *f)
{
	const autosize_report_totals *t = autosize_report_totals_of(r);

	fprintf(f, "\nGPU-hours: planned %.0f (GPUs x time limit, the jobs "
		"that ran), used %.0f (GPUs x elapsed)", t->gpu_h_planned,
		t->gpu_h_used);
	if (t->gpu_h_planned > 0)
		fprintf(f, ", %.0f%% of planned",
			100 * t->gpu_h_used / t->gpu_h_planned);
	fprintf(f, "\n");
	if (t->never_ran)
		fprintf(f, "  %ld job%s cancelled before %s started: no "
			"GPU-hours\n", t->never_ran,
			autosize_plural(t->never_ran),
			t->never_ran == 1 ? "it" : "they");
	if (t->asked_jobs)
		fprintf(f, "  asked: %.0f by the %ld jobs that gave a size and "
			"a time limit (they used %.0f)\n", t->gpu_h_asked,
			t->asked_jobs, t->gpu_h_used_asked);
	else
		fprintf(f, "  asked: not known (no job gave both a size and a "
			"time limit, or the records predate ask_gpus=)\n");
}

static void out_calibration(const autosize_report *r, FILE *f)
{
	const autosize_report_group *g;
	char day[16];
	int n, i, s, any = 0;

	g = autosize_report_groups(r, &n);
	fprintf(f, "\ncalibration (speed factor the plans used, in submit "
		"order):\n");
	for (i = 0; i < n && i < OUT_ROWS; i++) {
		if (g[i].n_steps <= 1 && g[i].n_steps &&
		    fabs(g[i].step_factor[0] - 1) < 1e-9)
			continue;
		any = 1;
		fprintf(f, "  %s/%s/%s:", g[i].partition, g[i].gpu,
			g[i].framework);
		for (s = 0; s < g[i].n_steps; s++) {
			out_day(g[i].step_s[s], day, sizeof(day));
			fprintf(f, "%s %.3f (from %s)", s ? " ->" : "",
				g[i].step_factor[s], day);
		}
		if (g[i].changes >= g[i].n_steps)
			fprintf(f, " (%ld changes)", g[i].changes);
		fprintf(f, "\n");
	}
	if (!any)
		fprintf(f, "  none: every plan used the model's speed (policy "
			"calibration:, doc/closed-loop.md)\n");
}

static void out_weeks(const autosize_report *r, FILE *f)
{
	const autosize_report_week *w;
	long n, i, from;
	char err[16];

	w = autosize_report_weeks(r, &n);
	if (!n)
		return;
	fprintf(f, "\nweekly (partition, ISO week of submission): jobs, "
		"median |error|, limit hits, calibration\n");
	from = n > OUT_ROWS ? n - OUT_ROWS : 0;
	if (from)
		fprintf(f, "  ... %ld earlier weeks (--json, --html)\n", from);
	for (i = from; i < n; i++) {
		if (w[i].median_abs_error >= 0)
			snprintf(err, sizeof(err), "%.0f%%",
				 w[i].median_abs_error * 100);
		else
			snprintf(err, sizeof(err), "-");
		fprintf(f, "  %-12.12s %s: %5ld jobs, error %5s, limit hit "
			"%ld, cal %.3f\n", autosize_report_partition(r,
								w[i].partition),
			w[i].week, w[i].jobs, err, w[i].timeouts,
			w[i].median_cal);
	}
}

static void out_counts(FILE *f, const autosize_report_count *c, int n)
{
	int i;

	for (i = 0; i < n && i < OUT_ROWS; i++)
		fprintf(f, "%s%s %ld", i ? ", " : "", c[i].code, c[i].count);
	if (n > OUT_ROWS)
		fprintf(f, ", and %d more kinds", n - OUT_ROWS);
	fprintf(f, "\n");
}

/* Runs written in full, text and JSON; more are counted. */
#define RUNS_SHOWN 10
#define RUNS_KEPT 1000

static void out_runs(const autosize_report *r, FILE *f)
{
	char name[40], user[24], a[32], b[32];
	autosize_report_run *runs_buf = malloc(RUNS_KEPT * sizeof(*runs_buf));
	long n, i, kept;
	long planned = 0, ran = 0, fewer = 0, more = 0, done = 0;

	n = runs_buf ? autosize_report_runs(r, runs_buf, RUNS_KEPT) : 0;
	if (n == 0)
		goto out;
	kept = n < RUNS_KEPT ? n : RUNS_KEPT;
	for (i = 0; i < kept; i++) {
		const autosize_report_run *u = &runs_buf[i];

		planned += u->planned;
		ran += u->ran;
		done += u->done;
		fewer += u->done && u->ran < u->planned;
		more += u->ran > u->planned;
	}
	fprintf(f, "\nchained runs: %ld (%ld done), %ld jobs run of the %ld "
		"their plans queued; %ld took fewer, %ld more\n", n, done,
		ran, planned, fewer, more);
	for (i = 0; i < kept && i < RUNS_SHOWN; i++) {
		const autosize_report_run *u = &runs_buf[i];

		utf8_safe_text(u->name, name, sizeof(name));
		utf8_safe_text(u->user, user, sizeof(user));
		autosize_format_duration(u->elapsed_s, a, sizeof(a));
		autosize_format_duration(u->end_s > u->start_s
					 ? (double)(u->end_s - u->start_s) : 0,
					 b, sizeof(b));
		fprintf(f, "    run %.8s from job %s %s \"%s\": %d of %d jobs "
			"ran%s, %s of jobs over %s, %.0f GPU-hours; %s",
			u->chain, u->first_job[0] ? u->first_job : "?", user,
			name, u->ran, u->planned, u->unrun ? " (the rest "
			"cancelled unrun)" : "", a, b, u->gpu_h,
			u->done ? "done" : "not done");
		if (u->tokens > 0 && u->tokens_done > 0)
			fprintf(f, " (%.3g of %.3g tokens reported)",
				u->tokens_done, u->tokens);
		fputc('\n', f);
	}
	if (n > RUNS_SHOWN)
		fprintf(f, "    ... and %ld more\n", n - RUNS_SHOWN);
out:
	free(runs_buf);
}

static void out_json_runs(const autosize_report *r, FILE *f)
{
	autosize_report_run *runs_buf = malloc(RUNS_KEPT * sizeof(*runs_buf));
	long n, i;

	n = runs_buf ? autosize_report_runs(r, runs_buf, RUNS_KEPT) : 0;
	fprintf(f, ",\"runs_total\":%ld,\"runs\":[", n);
	for (i = 0; i < n && i < RUNS_KEPT; i++) {
		const autosize_report_run *u = &runs_buf[i];

		fputs(i ? ",{\"chain\":" : "{\"chain\":", f);
		autosize_report_json_str(f, u->chain);
		fputs(",\"first_job\":", f);
		autosize_report_json_str(f, u->first_job);
		fputs(",\"user\":", f);
		autosize_report_json_str(f, u->user);
		fputs(",\"name\":", f);
		autosize_report_json_str(f, u->name);
		fprintf(f, ",\"jobs_planned\":%d,\"jobs_ran\":%d,"
			"\"jobs_unrun\":%d,\"done\":%s,\"tokens\":%.6g,"
			"\"tokens_done\":%.6g,\"elapsed_s\":%.0f,"
			"\"span_s\":%lld,\"gpu_hours\":%.2f}", u->planned,
			u->ran, u->unrun, u->done ? "true" : "false",
			u->tokens, u->tokens_done, u->elapsed_s,
			u->end_s > u->start_s ? u->end_s - u->start_s : 0,
			u->gpu_h);
	}
	fputc(']', f);
	free(runs_buf);
}

int autosize_report_write_text(const autosize_report *r, FILE *f,
			       const char *source)
{
	const autosize_report_totals *t = autosize_report_totals_of(r);
	const autosize_report_count *c;
	char from[16], to[16];
	int n;

	out_day(t->first_submit_s, from, sizeof(from));
	out_day(t->last_submit_s, to, sizeof(to));
	fprintf(f, "autosize report: %ld jobs from %s, submitted %s .. %s\n",
		t->read, source, from, to);
	fprintf(f, "  %ld sized by autosize, %ld without a plan record (not "
		"autosize jobs)", t->sized, t->no_record);
	if (t->bad_record)
		fprintf(f, ", %ld with an unreadable record", t->bad_record);
	if (t->running)
		fprintf(f, ", %ld not finished", t->running);
	fprintf(f, "\n");
	if (t->over_cap)
		fprintf(f, "  only the first %ld sized jobs are in the figures: "
			"%ld more were counted, not kept (--max-jobs)\n",
			t->kept, t->over_cap);
	if (t->mismatched)
		fprintf(f, "  %ld moved or resized after planning (scontrol "
			"update): left out of the speed figures\n",
			t->mismatched);
	out_groups(r, f);
	out_timeouts(r, f);
	out_interrupted(r, f);
	out_runs(r, f);
	out_gpu_hours(r, f);
	out_calibration(r, f);
	out_weeks(r, f);
	c = autosize_report_warnings(r, &n);
	fprintf(f, "\nwarnings told at submission (jobs): ");
	if (n)
		out_counts(f, c, n);
	else
		fprintf(f, "none recorded\n");
	c = autosize_report_refusals(r, &n);
	if (n || t->log_missed) {
		fprintf(f, "refusals (slurmctld log, rate-limited to 60 lines "
			"a minute: lower bounds%s): ", t->log_missed ?
			", lines were dropped" : "");
		if (n)
			out_counts(f, c, n);
		else
			fprintf(f, "none logged\n");
		if (t->log_missed)
			fprintf(f, "  %ld log lines not written by the rate "
				"limit\n", t->log_missed);
	}
	return ferror(f) ? -1 : 0;
}

/* ---- JSON ---- */

/* A JSON string of text made safe (report.h). */
void autosize_report_json_str(FILE *f, const char *s)
{
	char clean[512];

	utf8_safe_text(s, clean, sizeof(clean));
	json_write_str_file(f, clean, JSON_WRITE_HTML);
}

void autosize_report_json_job(FILE *f, int first, const char *job_id,
			      const char *user, const char *name,
			      const char *state)
{
	fputs(first ? "{\"job_id\":" : ",{\"job_id\":", f);
	autosize_report_json_str(f, job_id);
	fputs(",\"user\":", f);
	autosize_report_json_str(f, user);
	fputs(",\"name\":", f);
	autosize_report_json_str(f, name);
	fputs(",\"state\":", f);
	autosize_report_json_str(f, state);
}

/* A number, or null when not known (negative, or 0 when zero_null). */
static void out_json_num(FILE *f, const char *key, double v, int zero_null)
{
	if (!isfinite(v) || v < 0 || (zero_null && v == 0))
		fprintf(f, "\"%s\":null", key);
	else
		fprintf(f, "\"%s\":%.6g", key, v);
}

static void out_json_time(FILE *f, const char *key, long long s)
{
	char t[32];

	date_time(s, t, sizeof(t));
	fprintf(f, "\"%s\":", key);
	if (t[0])
		autosize_report_json_str(f, t);
	else
		fputs("null", f);
}

static void out_json_totals(const autosize_report *r, FILE *f)
{
	const autosize_report_totals *t = autosize_report_totals_of(r);
	const autosize_report_options *o = autosize_report_options_of(r);

	fprintf(f, "\"band\":%.6g,\"far_under\":%.6g,\"max_jobs\":%ld,",
		o->band, o->far_under, o->max_jobs);
	fprintf(f, "\"totals\":{\"read\":%ld,\"running\":%ld,\"sized\":%ld,"
		"\"no_record\":%ld,\"bad_record\":%ld,\"kept\":%ld,"
		"\"over_cap\":%ld,\"measured\":%ld,\"mismatched\":%ld,"
		"\"completed\":%ld,\"timeouts\":%ld,"
		"\"timeouts_measured\":%ld,", t->read, t->running, t->sized,
		t->no_record, t->bad_record, t->kept, t->over_cap,
		t->measured, t->mismatched, t->completed, t->timeouts,
		t->timeouts_measured);
	out_json_num(f, "need_ratio_median", t->need_median, 1);
	fputc(',', f);
	out_json_num(f, "need_ratio_max", t->need_max, 1);
	fprintf(f, ",\"far_under\":%ld,\"preempted\":%ld,\"requeued\":%ld,"
		"\"never_ran\":%ld,", t->far_under, t->preempted, t->requeued,
		t->never_ran);
	out_json_num(f, "far_under_ratio_median", t->far_under_median, 1);
	fputc(',', f);
	out_json_time(f, "first_submit", t->first_submit_s);
	fputc(',', f);
	out_json_time(f, "last_submit", t->last_submit_s);
	fprintf(f, "},\"speed\":{\"measured\":%ld,\"in_band\":%ld,",
		t->measured, t->in_band);
	out_json_num(f, "median", t->median, 1);
	fputc(',', f);
	out_json_num(f, "p10", t->p10, 1);
	fputc(',', f);
	out_json_num(f, "p90", t->p90, 1);
	fprintf(f, "},\"gpu_hours\":{\"planned\":%.6g,\"used\":%.6g,"
		"\"asked_jobs\":%ld,", t->gpu_h_planned, t->gpu_h_used,
		t->asked_jobs);
	out_json_num(f, "asked", t->asked_jobs ? t->gpu_h_asked : -1, 0);
	fputc(',', f);
	out_json_num(f, "used_by_asked_jobs", t->asked_jobs ?
		     t->gpu_h_used_asked : -1, 0);
	fputs("},", f);
}

static void out_json_groups(const autosize_report *r, FILE *f)
{
	const autosize_report_group *g;
	int n, i, s;

	g = autosize_report_groups(r, &n);
	fputs("\"groups\":[", f);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s{\"partition\":", i ? "," : "");
		autosize_report_json_str(f, g[i].partition);
		fputs(",\"gpu\":", f);
		autosize_report_json_str(f, g[i].gpu);
		fputs(",\"framework\":", f);
		autosize_report_json_str(f, g[i].framework);
		fprintf(f, ",\"jobs\":%ld,\"measured\":%ld,\"in_band\":%ld,"
			"\"timeouts\":%ld,\"far_under\":%ld,\"mismatched\":%ld,",
			g[i].jobs, g[i].measured, g[i].in_band, g[i].timeouts,
			g[i].far_under, g[i].mismatched);
		out_json_num(f, "median", g[i].median, 1);
		fputc(',', f);
		out_json_num(f, "p10", g[i].p10, 1);
		fputc(',', f);
		out_json_num(f, "p90", g[i].p90, 1);
		fprintf(f, ",\"calibration\":{\"changes\":%ld,\"steps\":[",
			g[i].changes);
		for (s = 0; s < g[i].n_steps; s++) {
			fprintf(f, "%s{\"factor\":%.6g,", s ? "," : "",
				g[i].step_factor[s]);
			out_json_time(f, "since", g[i].step_s[s]);
			fputc('}', f);
		}
		fputs("]}}", f);
	}
	fputs("],", f);
}

static void out_json_weeks(const autosize_report *r, FILE *f)
{
	const autosize_report_week *w;
	long n, i;
	int p;

	fputs("\"partitions\":[", f);
	for (p = 0; p < autosize_report_partition_count(r); p++) {
		fputs(p ? "," : "", f);
		autosize_report_json_str(f, autosize_report_partition(r, p));
	}
	w = autosize_report_weeks(r, &n);
	fputs("],\"weeks\":[", f);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s{\"partition\":", i ? "," : "");
		autosize_report_json_str(f, autosize_report_partition(r, w[i].partition));
		fputs(",\"week\":", f);
		autosize_report_json_str(f, w[i].week);
		fputc(',', f);
		out_json_time(f, "monday", w[i].monday_s);
		fprintf(f, ",\"jobs\":%ld,\"measured\":%ld,\"timeouts\":%ld,",
			w[i].jobs, w[i].measured, w[i].timeouts);
		out_json_num(f, "median_abs_error", w[i].median_abs_error, 0);
		fprintf(f, ",\"median_calibration\":%.6g}", w[i].median_cal);
	}
	fputs("],", f);
}

static void out_json_counts(FILE *f, const char *name, const char *key,
			    const autosize_report_count *c, int n)
{
	int i;

	fprintf(f, "\"%s\":[", name);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s{\"%s\":", i ? "," : "", key);
		autosize_report_json_str(f, c[i].code);
		fprintf(f, ",\"count\":%ld}", c[i].count);
	}
	fputc(']', f);
}

static void out_json_jobs(const autosize_report *r, FILE *f)
{
	const autosize_report_group *g;
	const autosize_report_job *k;
	long n, i;
	int ng;

	k = autosize_report_jobs(r, &n);
	g = autosize_report_groups(r, &ng);
	fputs("\"jobs\":[", f);
	for (i = 0; i < n; i++) {
		const autosize_report_group *gr = k[i].group >= 0 ?
						  &g[k[i].group] : NULL;

		autosize_report_json_job(f, i == 0, k[i].job_id, k[i].user,
					 k[i].name, k[i].state);
		fputs(",\"partition\":", f);
		autosize_report_json_str(f, autosize_report_partition(r, k[i].partition));
		fputs(",\"gpu\":", f);
		autosize_report_json_str(f, gr ? gr->gpu : "");
		fputs(",\"framework\":", f);
		autosize_report_json_str(f, gr ? gr->framework : "");
		fprintf(f, ",\"group\":%d,", k[i].group);
		out_json_num(f, "predicted_tokens_per_s", k[i].predicted_tok_s,
			     0);
		fputc(',', f);
		out_json_num(f, "measured_tokens_per_s", k[i].measured_tok_s,
			     1);
		fputc(',', f);
		out_json_num(f, "ratio", k[i].ratio, 1);
		fprintf(f, ",\"calibration\":%.6g,", k[i].cal_speed);
		out_json_num(f, "time_limit_s", k[i].limit_s, 1);
		fprintf(f, ",\"elapsed_s\":%.6g,", k[i].elapsed_s);
		out_json_num(f, "need_s", k[i].need_s, 1);
		fprintf(f, ",\"gpus\":%.6g,", k[i].gpus);
		out_json_time(f, "submit", k[i].submit_s);
		fputc(',', f);
		out_json_time(f, "end", k[i].end_s);
		fprintf(f, ",\"timeout\":%s,\"far_under\":%s,\"mismatch\":%s,"
			"\"preempted\":%s,\"requeued\":%s,\"ran\":%s}",
			k[i].timeout ? "true" : "false",
			k[i].far_under ? "true" : "false",
			k[i].mismatch ? "true" : "false",
			k[i].preempted ? "true" : "false",
			k[i].requeued ? "true" : "false",
			k[i].ran ? "true" : "false");
	}
	fputs("]", f);
}

/* A label value: '\\', '"' and a newline escaped (the text format). */
static void out_label(FILE *f, const char *name, const char *v, int last)
{
	fprintf(f, "%s=\"", name);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(f, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
	fputs(last ? "\"}" : "\",", f);
}

static void out_gauge(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

/* One sample of metric per count, its code as label. */
static void out_metric_counts(FILE *f, const char *metric, const char *label,
			      const autosize_report_count *c, int n)
{
	int j;

	for (j = 0; j < n; j++) {
		fprintf(f, "%s{", metric);
		out_label(f, label, c[j].code, 1);
		fprintf(f, " %ld\n", c[j].count);
	}
}

int autosize_report_write_metrics(const autosize_report *r, FILE *f)
{
	const autosize_report_totals *t = autosize_report_totals_of(r);
	const autosize_report_group *g;
	const autosize_report_count *c;
	const struct {
		const char *kind;
		long v;
	} jobs[] = {
		{"read", t->read}, {"running", t->running},
		{"sized", t->sized}, {"no_record", t->no_record},
		{"bad_record", t->bad_record}, {"measured", t->measured},
		{"mismatched", t->mismatched}, {"completed", t->completed},
		{"timeout", t->timeouts}, {"far_under", t->far_under},
		{"preempted", t->preempted}, {"requeued", t->requeued},
		{"never_ran", t->never_ran},
	};
	const struct {
		const char *q;
		size_t off;
	} qs[] = {
		{"0.1", offsetof(autosize_report_group, p10)},
		{"0.5", offsetof(autosize_report_group, median)},
		{"0.9", offsetof(autosize_report_group, p90)},
	};
	size_t i, k;
	int n, j;

	out_gauge(f, "autosize_report_jobs", "Jobs of the period read, by "
		  "outcome (autosize report).");
	for (i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++)
		fprintf(f, "autosize_report_jobs{kind=\"%s\"} %ld\n",
			jobs[i].kind, jobs[i].v);
	out_gauge(f, "autosize_report_speed_ratio", "Measured / predicted "
		  "speed of the group's jobs, by quantile.");
	g = autosize_report_groups(r, &n);
	for (j = 0; j < n; j++) {
		if (!g[j].measured)
			continue;
		for (k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
			fputs("autosize_report_speed_ratio{", f);
			out_label(f, "partition", g[j].partition, 0);
			out_label(f, "gpu", g[j].gpu, 0);
			out_label(f, "framework", g[j].framework, 0);
			out_label(f, "q", qs[k].q, 1);
			fprintf(f, " %.6g\n", *(const double *)(const void *)
				((const char *)&g[j] + qs[k].off));
		}
	}
	out_gauge(f, "autosize_report_gpu_hours", "GPU-hours of the period: "
		  "planned (the jobs that ran), used, asked by the users.");
	fprintf(f, "autosize_report_gpu_hours{kind=\"planned\"} %.6g\n"
		"autosize_report_gpu_hours{kind=\"used\"} %.6g\n",
		t->gpu_h_planned, t->gpu_h_used);
	if (t->asked_jobs)
		fprintf(f, "autosize_report_gpu_hours{kind=\"asked\"} %.6g\n",
			t->gpu_h_asked);
	out_gauge(f, "autosize_report_warnings", "Jobs warned at submission, "
		  "by warning code.");
	c = autosize_report_warnings(r, &n);
	out_metric_counts(f, "autosize_report_warnings", "code", c, n);
	out_gauge(f, "autosize_report_refusals", "Refusal lines in the logs "
		  "read (slurmctld's; a submit host's syslog: kind starts "
		  "with sbatch, srun or salloc), by kind; lower bounds.");
	c = autosize_report_refusals(r, &n);
	out_metric_counts(f, "autosize_report_refusals", "kind", c, n);
	out_gauge(f, "autosize_report_log_lines_missed", "Refusal lines the "
		  "rate limit kept out of slurmctld's log.");
	fprintf(f, "autosize_report_log_lines_missed %ld\n", t->log_missed);
	return ferror(f) ? -1 : 0;
}

int autosize_report_write_json(const autosize_report *r, FILE *f,
			       const char *source)
{
	const autosize_report_totals *t = autosize_report_totals_of(r);
	const autosize_report_count *c;
	int n;

	fprintf(f, "{\"report_version\":%d,\"source\":",
		AUTOSIZE_REPORT_VERSION);
	autosize_report_json_str(f, source);
	fputc(',', f);
	out_json_totals(r, f);
	out_json_groups(r, f);
	out_json_weeks(r, f);
	c = autosize_report_warnings(r, &n);
	out_json_counts(f, "warnings", "code", c, n);
	c = autosize_report_refusals(r, &n);
	fprintf(f, ",\"refusals\":{\"lines\":%ld,\"missed\":%ld,"
		"\"rate_limited\":true,", t->refusals, t->log_missed);
	out_json_counts(f, "kinds", "kind", c, n);
	fputs("}", f);
	out_json_runs(r, f);
	fputc(',', f);
	out_json_jobs(r, f);
	fputs("}\n", f);
	return ferror(f) ? -1 : 0;
}
