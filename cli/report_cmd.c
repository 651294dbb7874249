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
#include "autosize/report.h"

/* Bad lines shown on stderr before only counting them. */
#define REPORT_SHOWN_ERRORS 3

typedef struct report_cli {
	autosize_report *r;
	int shown;
} report_cli;

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: autosize report [--json | --html FILE] [--sacct "
		"[--starttime T] [--endtime T]\n"
		"                       [--partition P] [--user U]] "
		"[--ctld-log FILE] [--max-jobs N]\n"
		"                       [FILE.jsonl...]\n\n"
		"Whether the plans are right on this cluster and what they "
		"saved or cost: measured\nvs predicted speed per partition, "
		"GPU and framework, time limits hit and far\nunder, GPU-hours "
		"asked, planned and used, the calibration over time, "
		"weekly\nerror, warnings and refusals. Jobs from accounting "
		"(--sacct; --starttime\ndefaults to now-30days) or JSON lines "
		"(as calibrate reads them); refusals from\nslurmctld's log "
		"(--ctld-log: rate-limited, counts are lower bounds). Text "
		"by\ndefault; --json: doc/report-json.md; --html FILE: one "
		"self-contained page.\n--max-jobs (%d): jobs kept for the "
		"figures; more are counted and said.\n",
		AUTOSIZE_REPORT_MAX_JOBS);
}

static void report_bad(report_cli *c, const char *msg)
{
	autosize_report_bad_record(c->r);
	if (c->shown++ < REPORT_SHOWN_ERRORS)
		fprintf(stderr, "autosize: warning: %s (skipped)\n", msg);
}

static void report_sacct_job(void *ctx, autosize_finished_job *j)
{
	report_cli *c = ctx;
	autosize_record rec;
	autosize_error e;
	int found = autosize_finished_record(j, &rec, &e);

	if (found < 0)
		report_bad(c, e.msg);
	else
		autosize_report_add(c->r, j, found ? &rec : NULL);
}

/* One JSON line, as calibrate reads them (cli_jsonl_read). */
static void report_json_line(void *ctx, const char *what, const char *line,
			     size_t len)
{
	autosize_finished_job j;
	autosize_record rec;
	autosize_error e;
	report_cli *c = ctx;

	if (autosize_finished_json_line(line, len, what, &rec, &j, &e))
		report_bad(c, e.msg);
	else
		autosize_report_add(c->r, &j, &rec);
}

static void report_too_long(void *ctx)
{
	report_bad(ctx, "line over 1 MiB");
}

/* job_submit.lua's refusal lines in slurmctld's log. */
static int report_ctld_log(report_cli *c, const char *path)
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
		autosize_report_ctld_line(c->r, line);
	free(line);
	fclose(f);
	return 0;
}

static int report_max_jobs(const char *v, long *out)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || *end || end == v || n < 1 || n > 10000000) {
		fprintf(stderr, "autosize: report: --max-jobs: '%.40s' is not "
			"a count from 1 to 10000000\n", v);
		return -1;
	}
	*out = n;
	return 0;
}

int cli_report(int argc, char **argv)
{
	const char *html = NULL, *ctld = NULL;
	char source[512], from[256] = "";
	autosize_report_options o;
	report_cli c = {NULL, 0};
	cli_sacct sa;
	int i, json = 0, files = 0, took, rv = CLI_EXIT_USAGE;

	cli_sacct_init(&sa);
	/* each run of a requeued job: what it spent is shown */
	sa.duplicates = 1;
	autosize_report_options_init(&o);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		int has_value = i + 1 < argc;

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			report_usage(stdout);
			return CLI_EXIT_OK;
		} else if ((took = cli_sacct_option(&sa, argc, argv, &i))) {
			if (took < 0)
				return CLI_EXIT_USAGE;
		} else if (strcmp(a, "--json") == 0) {
			json = 1;
		} else if (a[0] != '-') {
			files++;
		} else if (!has_value) {
			fprintf(stderr, "autosize: %s needs a value\n", a);
			return CLI_EXIT_USAGE;
		} else if (strcmp(a, "--html") == 0) {
			html = argv[++i];
		} else if (strcmp(a, "--ctld-log") == 0) {
			ctld = argv[++i];
		} else if (strcmp(a, "--max-jobs") == 0) {
			if (report_max_jobs(argv[++i], &o.max_jobs))
				return CLI_EXIT_USAGE;
		} else {
			fprintf(stderr, "autosize: report: unknown option "
				"'%.40s'\n", a);
			report_usage(stderr);
			return CLI_EXIT_USAGE;
		}
	}
	if (!sa.use && !files) {
		fprintf(stderr, "autosize: report: give --sacct or JSON-lines "
			"files of finished jobs\n");
		report_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (json && html) {
		fprintf(stderr, "autosize: report: --json and --html: give "
			"one (the page carries the figures --json prints)\n");
		return CLI_EXIT_USAGE;
	}
	if (!(c.r = autosize_report_create(&o))) {
		fprintf(stderr, "autosize: report: out of memory\n");
		return CLI_EXIT_USAGE;
	}
	if (sa.use) {
		if (cli_sacct_read(&sa, "report", report_sacct_job, &c) != 0)
			goto out;
		cli_sacct_describe(&sa, from, sizeof(from));
	}
	for (i = 1; i < argc; i++) {
		FILE *f;

		if (argv[i][0] == '-') {
			i += strcmp(argv[i], "--sacct") != 0 &&
			     strcmp(argv[i], "--json") != 0;
			continue;
		}
		if (!(f = fopen(argv[i], "r"))) {
			fprintf(stderr, "autosize: report: %s: %s\n", argv[i],
				strerror(errno));
			goto out;
		}
		cli_jsonl_read(f, argv[i], report_json_line, report_too_long,
			       &c);
		fclose(f);
	}
	if (ctld && report_ctld_log(&c, ctld) != 0)
		goto out;
	autosize_report_finish(c.r);
	snprintf(source, sizeof(source), "%s%s%s", from,
		 sa.use && files ? " and " : "", files ? "JSON-lines files" : "");
	if (html)
		rv = cli_report_html(c.r, html, source) == 0 ? CLI_EXIT_OK
							     : CLI_EXIT_USAGE;
	else if (json)
		rv = autosize_report_write_json(c.r, stdout, source) == 0
		     ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	else
		rv = autosize_report_write_text(c.r, stdout, source) == 0
		     ? CLI_EXIT_OK : CLI_EXIT_USAGE;
out:
	autosize_report_destroy(c.r);
	return rv;
}
