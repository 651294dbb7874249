/*
 * autosize CLI: the finished (or queued) jobs that report and replay
 * read: accounting (sacct, cli/sacct.c) and JSON-lines files, each job
 * with its plan record, or counted as one that could not be read (the
 * first few said on stderr).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"

/* Bad lines shown on stderr before only counting them. */
#define JOBS_SHOWN_ERRORS 3

static void jobs_bad(cli_jobs_sink *s, const char *msg)
{
	s->bad(s->ctx);
	if (s->shown++ < JOBS_SHOWN_ERRORS)
		fprintf(stderr, "autosize: warning: %s (skipped)\n", msg);
}

static void jobs_sacct(void *ctx, autosize_finished_job *j)
{
	cli_jobs_sink *s = ctx;
	autosize_record rec;
	autosize_error e;
	int found = autosize_finished_record(j, &rec, &e);

	if (found < 0)
		jobs_bad(s, e.msg);
	else
		s->add(s->ctx, j, found ? &rec : NULL);
}

static void jobs_json_line(void *ctx, const char *what, const char *line,
			   size_t len)
{
	cli_jobs_sink *s = ctx;
	autosize_finished_job j;
	autosize_record rec;
	autosize_error e;

	if (autosize_finished_json_line(line, len, what, &rec, &j, &e))
		jobs_bad(s, e.msg);
	else
		s->add(s->ctx, &j, &rec);
}

static void jobs_too_long(void *ctx)
{
	jobs_bad(ctx, "line over 1 MiB");
}

int cli_jobs_read(const cli_sacct *sa, const char *const *files, int n,
		  cli_jobs_sink *s, char *source, size_t len)
{
	char from[256] = "";
	int i;

	if (sa->use) {
		if (cli_sacct_read(sa, s->cmd, jobs_sacct, s) != 0)
			return -1;
		cli_sacct_describe(sa, from, sizeof(from));
	}
	for (i = 0; i < n; i++) {
		FILE *f = fopen(files[i], "r");

		if (!f) {
			fprintf(stderr, "autosize: %s: %s: %s\n", s->cmd,
				files[i], strerror(errno));
			return -1;
		}
		cli_jsonl_read(f, files[i], jobs_json_line, jobs_too_long, s);
		fclose(f);
	}
	snprintf(source, len, "%s%s%s", from, sa->use && n ? " and " : "",
		 n ? "JSON-lines files" : "");
	return 0;
}
