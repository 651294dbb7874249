/*
 * autosize: a job's plan record in words (show.h), for `autosize show`.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "autosize/jobstate.h"
#include "autosize/launch.h"
#include "autosize/parse.h"
#include "autosize/report.h"
#include "utf8.h"
#include "autosize/show.h"

#define SHOW_LINE_MAX 512

int autosize_show_live(const char *state)
{
	return autosize_job_state_live(state) || !state[0];
}

void autosize_show_limit_of(const autosize_finished_job *j,
			    const autosize_record *r, autosize_show_limit *l)
{
	double work_s = r->train_hours * 3600;

	memset(l, 0, sizeof(*l));
	l->finished = !autosize_show_live(j->state);
	l->hit = strcmp(j->state, "TIMEOUT") == 0;
	l->limit_s = j->time_limit_s > 0 ? j->time_limit_s
					 : r->time_limit_min * 60.0;
	l->elapsed_s = j->elapsed_s > 0 ? j->elapsed_s : 0;
	l->chained = r->time_limit_min > 0 &&
		     work_s > r->time_limit_min * 60.0;
	/* its part of the run (one chained job's limit) at the speed it
	 * measured: report.c's need of a TIMEOUT job */
	if (r->time_limit_min > 0 && work_s > r->time_limit_min * 60.0)
		work_s = r->time_limit_min * 60.0;
	if (r->has_measured && r->m_tokens_per_s > 0 && work_s > 0)
		l->need_s = work_s * r->tokens_per_s / r->m_tokens_per_s;
}

/* A byte count in GiB, as the plan report shows memory. */
static double show_gib(double bytes)
{
	return bytes / (1024.0 * 1024 * 1024);
}

static void show_limit_text(const autosize_show_limit *l, FILE *f)
{
	char a[32], b[32], c[32];

	autosize_format_duration(l->elapsed_s, a, sizeof(a));
	autosize_format_duration(l->limit_s, b, sizeof(b));
	if (l->hit)
		fprintf(f, "  limit      hit: TIMEOUT after %s", b);
	else if (l->finished)
		fprintf(f, "  limit      not hit: ran %s of %s (%.0f%%)", a, b,
			l->limit_s > 0 ? 100 * l->elapsed_s / l->limit_s : 0);
	else
		fprintf(f, "  limit      %s of %s so far", a, b);
	if (l->need_s > 0 && l->limit_s > 0) {
		autosize_format_duration(l->need_s, c, sizeof(c));
		fprintf(f, "; at its measured speed its part of the run needs "
			"%s (x%.2f the limit)", c, l->need_s / l->limit_s);
	}
	if (l->chained)
		fprintf(f, "; the plan is a chain of jobs, each ending at its "
			"limit");
	fputc('\n', f);
}

static void show_measured_text(const autosize_record *r, FILE *f)
{
	char a[16], b[16];

	if (!r->has_measured) {
		fprintf(f, "  measured   nothing yet (the job writes its figures "
			"when it ends, with AUTOSIZE_REPORT: "
			"doc/closed-loop.md)\n");
		return;
	}
	fprintf(f, "  measured   %s tokens/s", autosize_launch_count(
			r->m_tokens_per_s, a, sizeof(a)));
	if (r->tokens_per_s > 0)
		fprintf(f, " against %s planned (x%.2f)",
			autosize_launch_count(r->tokens_per_s, b, sizeof(b)),
			r->m_tokens_per_s / r->tokens_per_s);
	if (r->m_step_s > 0)
		fprintf(f, ", step %.3g s (planned %.3g)", r->m_step_s,
			r->step_s);
	if (r->m_mem_bytes > 0)
		fprintf(f, ", peak %.1f GiB per GPU (planned %.1f of "
			"tensors)", show_gib(r->m_mem_bytes),
			show_gib(r->alloc_bytes));
	fprintf(f, "; %d report line%s\n", r->m_lines,
		autosize_plural(r->m_lines));
}

/* A chained job's place in its run (doc/users.md "Long runs"). */
static void show_chain_text(const autosize_record *r, FILE *f)
{
	char a[16], b[16], c[16];

	if (!r->chain[0])
		return;
	fprintf(f, "  chain      job %d of %d of run %s, %s tokens a job",
		r->chain_index, r->chain_jobs, r->chain,
		autosize_launch_count(r->chain_job_tokens, a, sizeof(a)));
	if (r->signal_s > 0)
		fprintf(f, ", SIGUSR1 %d min before its limit",
			(r->signal_s + 59) / 60);
	if (r->m_tokens_done > 0)
		fprintf(f, "; the run had trained %s of %s tokens when it "
			"ended", autosize_launch_count(r->m_tokens_done, b,
						       sizeof(b)),
			autosize_launch_count(r->tokens + r->tokens_done, c,
					      sizeof(c)));
	if (r->done_at > 0)
		fprintf(f, "; not run: the run was complete when job %lu "
			"ended", r->done_at);
	fputc('\n', f);
}

int autosize_show_write_text(const autosize_finished_job *j,
			     const autosize_record *rec, const char *rec_error,
			     const char *source, FILE *f)
{
	char line[SHOW_LINE_MAX], name[96], user[64], why[128], a[32], b[32];
	autosize_show_limit l;

	utf8_safe_text(j->name, name, sizeof(name));
	utf8_safe_text(j->user, user, sizeof(user));
	fprintf(f, "autosize: job %s of %s (\"%s\"): %s%s%s, from %s\n",
		j->job_id, user[0] ? user : "?", name,
		j->state[0] ? j->state : "?",
		j->partition[0] ? " on " : "", j->partition, source);
	if (!rec) {
		fprintf(f, "  %s\n", rec_error ? rec_error
			: "no autosize plan: the job was not sized by autosize "
			  "(no autosize:v1 record in its AdminComment)");
		return ferror(f) ? -1 : 0;
	}
	if (autosize_record_summary(rec, rec->model, line, sizeof(line)) < 0)
		snprintf(line, sizeof(line), "(too long to show)");
	fprintf(f, "  plan       %s\n", line);
	fprintf(f, "  layout     %s, recompute %s, micro-batch %d, grad accum "
		"%d (global batch %d x %d), %s tokens/s, %.1f GiB per GPU "
		"at its planned peak\n", rec->framework,
		autosize_recompute_name((autosize_recompute)rec->recompute),
		rec->micro_batch, rec->grad_accum, rec->global_batch,
		rec->seq_len, autosize_launch_count(rec->tokens_per_s, a,
						    sizeof(a)),
		show_gib(rec->mem_bytes));
	if (rec->ask_gpus > 0 || rec->ask_min > 0) {
		autosize_format_duration(rec->ask_min * 60.0, b, sizeof(b));
		fprintf(f, "  asked      ");
		if (rec->ask_gpus > 0)
			fprintf(f, "%d GPU%s", rec->ask_gpus,
				autosize_plural(rec->ask_gpus));
		else
			fprintf(f, "no size");
		if (rec->ask_min > 0)
			fprintf(f, ", time limit %s", b);
		fputc('\n', f);
	}
	if (rec->cal_speed > 0)
		fprintf(f, "  calibrated speed x %.2f on %d jobs of this "
			"site\n", rec->cal_speed, rec->cal_jobs);
	if (rec->warn[0])
		fprintf(f, "  warned     %s (codes: doc/admins.md)\n",
			rec->warn);
	if (autosize_record_mismatch(rec, j->partition, j->nodes, j->gpus,
				     why, sizeof(why)))
		fprintf(f, "  changed    after planning: %s (scontrol update): "
			"the plan no longer describes the job\n", why);
	show_chain_text(rec, f);
	if (rec->done_at > 0)
		return ferror(f) ? -1 : 0;   /* it never ran: nothing more */
	show_measured_text(rec, f);
	autosize_show_limit_of(j, rec, &l);
	show_limit_text(&l, f);
	return ferror(f) ? -1 : 0;
}

/* ,"key":"s" (s JSON-escaped as the report writes it). */
static void show_json_str(FILE *f, const char *key, const char *s)
{
	fprintf(f, ",\"%s\":", key);
	autosize_report_json_str(f, s);
}

static void show_json_num(FILE *f, const char *key, double v)
{
	if (isfinite(v) && v > 0)
		fprintf(f, ",\"%s\":%.6g", key, v);
	else
		fprintf(f, ",\"%s\":null", key);
}

int autosize_show_write_json(const autosize_finished_job *j,
			     const autosize_record *rec, const char *rec_error,
			     const char *source, FILE *f)
{
	char line[SHOW_LINE_MAX], why[128];
	autosize_show_limit l;

	fputs("{\"show_version\":1,\"job_id\":", f);
	autosize_report_json_str(f, j->job_id);
	show_json_str(f, "source", source);
	show_json_str(f, "user", j->user);
	show_json_str(f, "name", j->name);
	show_json_str(f, "state", j->state);
	show_json_str(f, "partition", j->partition);
	show_json_num(f, "nodes", (double)j->nodes);   /* null: unknown */
	show_json_num(f, "gpus", (double)j->gpus);
	show_json_num(f, "elapsed_s", j->elapsed_s);
	show_json_num(f, "time_limit_s", j->time_limit_s);
	if (!rec) {
		fputs(",\"plan\":null,\"error\":", f);
		if (rec_error)
			autosize_report_json_str(f, rec_error);
		else
			fputs("null", f);
		fputs(",\"chain\":null}\n", f);
		return ferror(f) ? -1 : 0;
	}
	if (autosize_record_summary(rec, rec->model, line, sizeof(line)) < 0)
		line[0] = '\0';
	fputs(",\"plan\":{\"summary\":", f);
	autosize_report_json_str(f, line);
	show_json_str(f, "partition", rec->partition);
	show_json_str(f, "gpu", rec->gpu);
	show_json_str(f, "framework", rec->framework);
	fprintf(f, ",\"params\":%.6g,\"tokens\":%.6g,\"nodes\":%d,"
		"\"gpus_per_node\":%d,\"tp\":%d,\"pp\":%d,\"dp\":%d,\"cp\":%d,"
		"\"ep\":%d,\"vp\":%d,\"zero_stage\":%d,\"micro_batch\":%d,"
		"\"grad_accum\":%d,\"seq_len\":%d,\"global_batch\":%d,"
		"\"tokens_per_s\":%.6g,\"step_s\":%.6g,\"train_hours\":%.6g,"
		"\"mem_bytes\":%.6g,\"time_limit_min\":%ld,\"calibration\":%.6g,"
		"\"warn\":", rec->params, rec->tokens, rec->nodes,
		rec->gpus_per_node, rec->tp, rec->pp, rec->dp,
		rec->cp > 1 ? rec->cp : 1, rec->ep > 1 ? rec->ep : 1,
		rec->vp > 1 ? rec->vp : 1, rec->zero_stage, rec->micro_batch,
		rec->grad_accum, rec->seq_len, rec->global_batch,
		rec->tokens_per_s, rec->step_s, rec->train_hours,
		rec->mem_bytes, rec->time_limit_min,
		rec->cal_speed > 0 ? rec->cal_speed : 1);
	autosize_report_json_str(f, rec->warn);
	fprintf(f, ",\"asked_gpus\":%d,\"asked_time_limit_min\":%ld}",
		rec->ask_gpus, rec->ask_min);
	if (rec->has_measured)
		fprintf(f, ",\"measured\":{\"tokens_per_s\":%.6g,"
			"\"step_s\":%.6g,\"mem_bytes\":%.6g,\"lines\":%d,"
			"\"tokens_done\":%.6g}",
			rec->m_tokens_per_s, rec->m_step_s, rec->m_mem_bytes,
			rec->m_lines, rec->m_tokens_done);
	else
		fputs(",\"measured\":null", f);
	autosize_show_limit_of(j, rec, &l);
	fprintf(f, ",\"limit\":{\"finished\":%s,\"hit\":%s,\"chained\":%s",
		l.finished ? "true" : "false", l.hit ? "true" : "false",
		l.chained ? "true" : "false");
	show_json_num(f, "limit_s", l.limit_s);
	show_json_num(f, "elapsed_s", l.elapsed_s);
	show_json_num(f, "need_s", l.need_s);
	fputs("},\"changed\":", f);
	if (autosize_record_mismatch(rec, j->partition, j->nodes, j->gpus,
				     why, sizeof(why)))
		autosize_report_json_str(f, why);
	else
		fputs("null", f);
	fputs(",\"chain\":", f);
	if (rec->chain[0]) {
		fputs("{\"id\":", f);
		autosize_report_json_str(f, rec->chain);
		fprintf(f, ",\"index\":%d,\"jobs\":%d,\"job_tokens\":%.6g,"
			"\"tokens_done_before\":%.6g,\"signal_before_s\":%d,"
			"\"done_at\":", rec->chain_index, rec->chain_jobs,
			rec->chain_job_tokens, rec->tokens_done,
			rec->signal_s);
		if (rec->done_at > 0)
			fprintf(f, "\"%lu\"}", rec->done_at);
		else
			fputs("null}", f);
	} else {
		fputs("null", f);
	}
	fputs("}\n", f);
	return ferror(f) ? -1 : 0;
}
