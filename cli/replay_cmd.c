/*
 * autosize replay: what a site policy would change. The jobs of a period
 * (accounting or JSON lines, as report reads them; pending and running
 * ones too, each with its plan record) decided again as slurmctld would
 * under the candidate policy (--policy) and under the current one
 * (--baseline, default the one `autosize plan` reads), compared (replay.h):
 * text, JSON or one HTML page (replay_html.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "opts.h"
#include "autosize/replay.h"

static void replay_usage(FILE *f)
{
	fprintf(f,
		"usage: autosize replay --policy FILE [--baseline FILE|none] "
		"[--json | --html FILE]\n"
		"                       [--sacct [--starttime T] [--endtime T] "
		"[--partition P] [--user U]]\n"
		"                       [--max-jobs N] [FILE.jsonl...]\n\n"
		"What a policy would change: each job of the period (from "
		"accounting, --sacct,\n--starttime defaulting to now-30days, "
		"pending and running ones too; or JSON\nlines) is decided "
		"again as slurmctld would under --policy and under the\n"
		"current policy (--baseline, default $AUTOSIZE_POLICY or the "
		"installed one):\nsizes, time limits, partitions, GPU-hours "
		"held, refusals. The request is\nrebuilt from each job's plan "
		"record (parameters, tokens, batch, framework,\nwhat the user "
		"asked); how many jobs get their recorded plan again is "
		"said.\nText by default; --json: one object; --html FILE: one "
		"self-contained page.\n");
}

static void replay_add(void *ctx, const autosize_finished_job *j,
		       const autosize_record *rec)
{
	autosize_replay_add(ctx, j, rec);
}

static void replay_bad(void *ctx)
{
	autosize_replay_bad_record(ctx);
}

enum {
	REPLAY_HELP = 1,
	REPLAY_JSON,
	REPLAY_HTML,
	REPLAY_POLICY,
	REPLAY_BASELINE,
	REPLAY_MAX_JOBS
};

static const cli_opt replay_opts[] = {
	{"help", 'h', 0, REPLAY_HELP},
	{"json", 0, 0, REPLAY_JSON},
	{"html", 0, 1, REPLAY_HTML},
	{"policy", 0, 1, REPLAY_POLICY},
	{"baseline", 0, 1, REPLAY_BASELINE},
	{"max-jobs", 0, 1, REPLAY_MAX_JOBS},
	CLI_SACCT_OPTS
};

int cli_replay(int argc, char **argv)
{
	const char *html = NULL, *cand_file = NULL, *base_file = NULL;
	const char **files = calloc((size_t)argc + 1, sizeof(*files));
	char source[512], base_name[AUTOSIZE_PATH_MAX + 16];
	autosize_policy *cand = NULL, *base = NULL;
	autosize_replay *r = NULL;
	cli_jobs_sink sink = {replay_add, replay_bad, NULL, "replay", 0};
	long max_jobs = AUTOSIZE_REPLAY_MAX_JOBS;
	cli_sacct sa;
	cli_opts op;
	int json = 0, n = 0, k, rv = CLI_EXIT_USAGE;

	if (!files)
		return CLI_EXIT_USAGE;
	cli_sacct_init(&sa);
	cli_opts_init(&op, replay_opts, CLI_N(replay_opts), argc, argv);
	while ((k = cli_opts_next(&op)) != CLI_OPT_END) {
		switch (k) {
		case REPLAY_HELP:
			replay_usage(stdout);
			rv = CLI_EXIT_OK;
			goto out;
		case REPLAY_JSON:
			json = 1;
			break;
		case REPLAY_HTML:
			html = op.value;
			break;
		case REPLAY_POLICY:
			cand_file = op.value;
			break;
		case REPLAY_BASELINE:
			base_file = op.value;
			break;
		case REPLAY_MAX_JOBS:
			if (cli_count_arg("replay: --max-jobs", op.value,
					  AUTOSIZE_REPLAY_MAX_JOBS, &max_jobs))
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
			cli_opts_said(&op, k, "replay");
			if (k == CLI_OPT_UNKNOWN)
				replay_usage(stderr);
			goto out;
		}
	}
	if (!cand_file || (!sa.use && !n) || (json && html)) {
		fprintf(stderr, "autosize: replay: %s\n", !cand_file
			? "give the policy to try (--policy FILE)"
			: json && html ? "--json and --html: give one"
			: "give --sacct or JSON-lines files of jobs");
		replay_usage(stderr);
		goto out;
	}
	if (!(cand = cli_load_policy(cand_file)) ||
	    !(base = cli_load_policy(base_file)))
		goto out;
	snprintf(base_name, sizeof(base_name), "%s",
		 cli_policy_file(base_file) ? cli_policy_file(base_file)
					    : "the built-in defaults");
	r = autosize_replay_create(base, base_name, cand,
				   cli_policy_file(cand_file), max_jobs);
	if (!r) {
		fprintf(stderr, "autosize: replay: out of memory\n");
		goto out;
	}
	sink.ctx = r;
	if (cli_jobs_read(&sa, files, n, &sink, source, sizeof(source)))
		goto out;
	if (html)
		rv = cli_replay_html(r, html, source);
	else if (json)
		rv = autosize_replay_write_json(r, stdout, source);
	else
		rv = autosize_replay_write_text(r, stdout, source);
	rv = rv == 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
out:
	autosize_replay_destroy(r);
	autosize_policy_destroy(cand);
	autosize_policy_destroy(base);
	free(files);
	return rv;
}
