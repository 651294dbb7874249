/*
 * autosize report: is autosize right on this cluster, and what did it
 * save or cost? Finished jobs from accounting (sacct) or JSON lines, and
 * slurmctld's log for the refusals, into text, JSON or an HTML page
 * (report.h; doc/admins.md "Is it right on my cluster?").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "opts.h"
#include "autosize/metrics.h"
#include "autosize/report.h"

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: autosize report [--json | --html FILE | --metrics "
		"FILE|-] [--sacct [--starttime T]\n"
		"                       [--endtime T] [--partition P] "
		"[--user U]] [--ctld-log FILE]... [--max-jobs N]\n"
		"                       [FILE.jsonl...]\n\n"
		"Whether the plans are right on this cluster and what they "
		"saved or cost: measured\nvs predicted speed per partition, "
		"GPU and framework, time limits hit and far\nunder, GPU-hours "
		"asked, planned and used, the calibration over time, "
		"weekly\nerror, warnings and refusals. Jobs from accounting "
		"(--sacct; --starttime\ndefaults to now-30days) or JSON lines "
		"(as calibrate reads them); refusals from\nslurmctld's log "
		"(--ctld-log: rate-limited, counts are lower bounds; also a "
		"submit host's\nsyslog, where the plugin logs the submissions "
		"sbatch refused). Text by\ndefault; --json: doc/report-json.md; "
		"--html FILE: one self-contained page;\n--metrics FILE: "
		"Prometheus text for node exporter's textfile collector\n"
		"(replaced whole; - for standard output). --max-jobs (%d): jobs "
		"kept for the\nfigures; more are counted and said.\n",
		AUTOSIZE_REPORT_MAX_JOBS);
}

static void report_add(void *ctx, const autosize_finished_job *j,
		       const autosize_record *rec)
{
	autosize_report_add(ctx, j, rec);
}

static void report_bad(void *ctx)
{
	autosize_report_bad_record(ctx);
}

/* job_submit.lua's refusal lines in slurmctld's log. */
static int report_ctld_log(autosize_report *r, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;

	if (!f) {
		fprintf(stderr, "autosize: report: --ctld-log %s: %s (give "
			"slurmctld's log, SlurmctldLogFile in slurm.conf)\n",
			path, strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) >= 0)
		autosize_report_ctld_line(r, line);
	free(line);
	fclose(f);
	return 0;
}

/* A run of a requeued job, from sacct --duplicates: kept when it is one
 * (the job's other rows came in the plain listing). */
static void report_requeued_add(void *ctx, const autosize_finished_job *j,
				const autosize_record *rec)
{
	cli_jobs_sink *s = ctx;

	if (strcmp(j->state, "REQUEUED") == 0)
		s->add(s->ctx, j, rec);
}

/* A bad line of the second read was counted by the first. */
static void report_requeued_bad(void *ctx)
{
	(void)ctx;
}

/*
 * The earlier runs of requeued jobs: sacct lists a job once, as its
 * last run; with --duplicates each run, the earlier ones REQUEUED. Read
 * apart (a second listing with -D, its REQUEUED rows only: sacct's -s
 * REQUEUED selects none of them), so that the plain listing keeps the
 * comment accounting holds now (a --duplicates row may show an older
 * one: the integration closed loop saw 4 of 10 measured jobs so).
 */
static int report_requeued_runs(const cli_sacct *sa, cli_jobs_sink *sink)
{
	cli_jobs_sink runs = *sink;
	cli_sacct d = *sa;
	char ignored[64];

	d.duplicates = 1;
	runs.add = report_requeued_add;
	runs.bad = report_requeued_bad;
	runs.shown = 1 << 30;   /* said by the first read */
	runs.ctx = sink;
	return cli_jobs_read(&d, NULL, 0, &runs, ignored, sizeof(ignored));
}

static int report_metrics_cb(const void *ctx, FILE *f)
{
	return autosize_report_write_metrics(ctx, f);
}

/* --metrics FILE (replaced whole, for node exporter's textfile
 * collector) or - (standard output). */
static int report_metrics(const autosize_report *r, const char *path)
{
	if (strcmp(path, "-") == 0)
		return autosize_report_write_metrics(r, stdout) == 0
		       ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	if (autosize_write_file_atomic(path, report_metrics_cb, r) == 0)
		return CLI_EXIT_OK;
	fprintf(stderr, "autosize: report: --metrics %.200s: %s (give a file "
		"in a writable folder, e.g. node exporter's textfile "
		"folder)\n", path, strerror(errno));
	return CLI_EXIT_USAGE;
}

enum {
	REPORT_HELP = 1,
	REPORT_JSON,
	REPORT_HTML,
	REPORT_LOG,
	REPORT_METRICS,
	REPORT_MAX_JOBS
};

static const cli_opt report_opts[] = {
	{"help", 'h', 0, REPORT_HELP},
	{"json", 0, 0, REPORT_JSON},
	{"html", 0, 1, REPORT_HTML},
	{"ctld-log", 0, 1, REPORT_LOG},
	{"log", 0, 1, REPORT_LOG},
	{"metrics", 0, 1, REPORT_METRICS},
	{"max-jobs", 0, 1, REPORT_MAX_JOBS},
	CLI_SACCT_OPTS
};

int cli_report(int argc, char **argv)
{
	const char *html = NULL, *metrics = NULL;
	const char **files = calloc((size_t)argc + 1, sizeof(*files));
	const char **logs = calloc((size_t)argc + 1, sizeof(*logs));
	char source[512];
	autosize_report_options o;
	autosize_report *r = NULL;
	cli_jobs_sink sink = {report_add, report_bad, NULL, "report", 0};
	cli_sacct sa;
	cli_opts op;
	int i, json = 0, n = 0, nlogs = 0, k, rv = CLI_EXIT_USAGE;

	if (!files || !logs) {
		fprintf(stderr, "autosize: report: out of memory\n");
		return CLI_EXIT_USAGE;
	}

	cli_sacct_init(&sa);
	autosize_report_options_init(&o);
	cli_opts_init(&op, report_opts, CLI_N(report_opts), argc, argv);
	while ((k = cli_opts_next(&op)) != CLI_OPT_END) {
		switch (k) {
		case REPORT_HELP:
			report_usage(stdout);
			rv = CLI_EXIT_OK;
			goto out;
		case REPORT_JSON:
			json = 1;
			break;
		case REPORT_HTML:
			html = op.value;
			break;
		case REPORT_LOG:
			logs[nlogs++] = op.value;
			break;
		case REPORT_METRICS:
			metrics = op.value;
			break;
		case REPORT_MAX_JOBS:
			if (cli_count_arg("report: --max-jobs", op.value,
					  10000000, &o.max_jobs))
				goto out;
			break;
		case CLI_OPT_ARG:
			files[n++] = op.value;
			break;
		case CLI_OPT_DASHDASH:
			break;
		default:
			if (cli_sacct_take(&sa, k, op.value))
				break;
			cli_opts_said(&op, k, "report");
			if (k == CLI_OPT_UNKNOWN)
				report_usage(stderr);
			goto out;
		}
	}
	if (!sa.use && !n) {
		fprintf(stderr, "autosize: report: give --sacct or JSON-lines "
			"files of finished jobs\n");
		report_usage(stderr);
		goto out;
	}
	if (json + !!html + !!metrics > 1) {
		fprintf(stderr, "autosize: report: --json, --html and --metrics: "
			"give one\n");
		goto out;
	}
	if (!(r = autosize_report_create(&o))) {
		fprintf(stderr, "autosize: report: out of memory\n");
		goto out;
	}
	sink.ctx = r;
	if (cli_jobs_read(&sa, files, n, &sink, source, sizeof(source)) ||
	    (sa.use && report_requeued_runs(&sa, &sink) != 0))
		goto out;
	for (i = 0; i < nlogs; i++)
		if (report_ctld_log(r, logs[i]) != 0)
			goto out;
	autosize_report_finish(r);
	if (metrics)
		rv = report_metrics(r, metrics);
	else if (html)
		rv = cli_report_html(r, html, source) == 0 ? CLI_EXIT_OK
							   : CLI_EXIT_USAGE;
	else if (json)
		rv = autosize_report_write_json(r, stdout, source) == 0
		     ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	else
		rv = autosize_report_write_text(r, stdout, source) == 0
		     ? CLI_EXIT_OK : CLI_EXIT_USAGE;
out:
	autosize_report_destroy(r);
	free(files);
	free(logs);
	return rv;
}
