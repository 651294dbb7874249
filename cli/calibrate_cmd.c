/*
 * autosize calibrate: learn the site's real speed and memory from
 * finished jobs (accounting through sacct, or JSON lines) and write the
 * corrections plans use (calibration.h; README "The closed loop").
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"
#include "opts.h"
#include "autosize/calibration_learn.h"

/* Bad lines shown on stderr before only counting them. */
#define CAL_SHOWN_ERRORS 3

typedef struct cal_cli {
	autosize_calibrator *k;
	int shown;
} cal_cli;

static void cal_usage(FILE *f)
{
	fprintf(f,
		"usage: autosize calibrate [--sacct [--starttime T] "
		"[--endtime T] [--partition P] [--user U]]\n"
		"                          [--min-jobs N] [--min-users N] "
		"[--min-run S] [--max-mfu X]\n"
		"                          [--shrink-users N] [--previous "
		"FILE|none] [--max-step X]\n"
		"                          [-o FILE] [FILE.jsonl...]\n\n"
		"Reads finished jobs (sacct's AdminComment records, or JSON "
		"lines:\n{\"job_id\":..,\"user\":..,\"plan\":{autosize plan "
		"--json},\"measured\":{\"tokens_per_s\":..,\n"
		"\"peak_memory_bytes\":..},\"state\":..,\"elapsed_s\":..}) "
		"and writes the speed and memory\ncorrections per partition "
		"and GPU as YAML (policy key calibration:).\n"
		"--starttime defaults to now-30days. A job counts after "
		"--min-run seconds (%d)\nin state COMPLETED, TIMEOUT, "
		"CANCELLED or PREEMPTED, at most --max-mfu (%.2f) of\nits "
		"GPUs' dense peak. A correction needs --min-jobs (%d) jobs "
		"from --min-users\n(%d) users; narrow ones shrink toward "
		"the broad one (--shrink-users %d); each\nmoves at most "
		"--max-step (x%.2f, none: unbounded) from --previous "
		"(default: the -o FILE\nwhen it exists; else the model's "
		"1). Stderr shows each change (old -> new, by "
		"whom) and what was skipped.\n",
		AUTOSIZE_CAL_MIN_RUN_S, AUTOSIZE_CAL_MAX_MFU,
		AUTOSIZE_CAL_MIN_JOBS, AUTOSIZE_CAL_MIN_USERS,
		AUTOSIZE_CAL_SHRINK_USERS, AUTOSIZE_CAL_MAX_STEP);
}

static void cal_bad_line(cal_cli *c, const char *why, const char *msg)
{
	autosize_calibrator_skip(c->k, why);
	if (c->shown++ < CAL_SHOWN_ERRORS)
		fprintf(stderr, "autosize: warning: %s (skipped)\n", msg);
}

/* One job from sacct: the record in its AdminComment. */
static void cal_sacct_job(void *ctx, autosize_finished_job *j)
{
	cal_cli *c = ctx;
	char why[128];
	autosize_record r;
	autosize_error e;
	int found = autosize_finished_record(j, &r, &e);

	if (found == 0) {
		autosize_calibrator_skip(c->k, "no autosize record");
		return;
	}
	if (found < 0) {
		cal_bad_line(c, "bad record", e.msg);
		return;
	}
	/* moved or resized after it was planned (scontrol update of a
	 * pending job): its figures are another job's than the plan's */
	if (autosize_record_mismatch(&r, j->partition, j->nodes, j->gpus, why,
				     sizeof(why))) {
		autosize_calibrator_skip(c->k, strncmp(why, "partition", 9)
					 == 0 ? "ran in another partition "
					 "than planned" : "ran on another size "
					 "than planned");
		return;
	}
	/* accounting's spelling of the partition (the record may have
	 * been lowercased by sacctmgr) */
	if (j->partition[0])
		snprintf(r.partition, sizeof(r.partition), "%s", j->partition);
	autosize_calibrator_add(c->k, j->user, &r, j->state, j->elapsed_s);
}

/* One JSON line (cli_jsonl_read). */
static void cal_json_line(void *ctx, const char *what, const char *line,
			  size_t len)
{
	char user[AUTOSIZE_CAL_USER_MAX], state[AUTOSIZE_CAL_USER_MAX];
	cal_cli *c = ctx;
	autosize_record r;
	autosize_error e;
	double elapsed;

	if (autosize_cal_json_line(line, len, what, &r, user, state,
				   &elapsed, &e)) {
		cal_bad_line(c, "bad JSON line", e.msg);
		return;
	}
	autosize_calibrator_add(c->k, user, &r, state[0] ? state : NULL,
				elapsed);
}

static void cal_too_long(void *ctx)
{
	cal_bad_line(ctx, "line too long", "line over 1 MiB");
}

/* The folder of path into dir ("." when it has none); -1 too long. */
static int cal_dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');
	int n;

	if (!slash)
		n = snprintf(dir, len, ".");
	else if (slash == path)
		n = snprintf(dir, len, "/");
	else
		n = snprintf(dir, len, "%.*s", (int)(slash - path), path);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Write a private temporary file in the target's folder (mkstemp: a new
 * name no one else holds, so no link planted there is followed), make
 * it readable (slurmctld reads it as SlurmUser), then rename it into
 * place: slurmctld never reads half a file. */
static int cal_write(const autosize_calibration *cal, const char *out,
		     const char *source)
{
	char dir[AUTOSIZE_PATH_MAX], tmp[AUTOSIZE_PATH_MAX + 32];
	FILE *f = NULL;
	int fd = -1, rv = -1;

	if (!out)
		return autosize_calibration_write(cal, stdout, source);
	if (cal_dir_of(out, dir, sizeof(dir)) != 0 ||
	    snprintf(tmp, sizeof(tmp), "%s/.autosize-calibration.XXXXXX",
		     dir) >= (int)sizeof(tmp)) {
		fprintf(stderr, "autosize: -o: path too long\n");
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "autosize: -o %s: cannot create a temporary "
			"file in %s: %s\n", out, dir, strerror(errno));
		return -1;
	}
	if (fchmod(fd, 0644) != 0 || !(f = fdopen(fd, "w")))
		goto fail;
	fd = -1;
	if (autosize_calibration_write(cal, f, source) != 0 ||
	    fflush(f) != 0 || fsync(fileno(f)) != 0)
		goto fail;
	if (fclose(f) != 0) {
		f = NULL;
		goto fail;
	}
	f = NULL;
	if (rename(tmp, out) != 0)
		goto fail;
	return 0;
fail:
	fprintf(stderr, "autosize: -o %s: %s\n", out, strerror(errno));
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return rv;
}

/* The calibration the new one is bounded against: --previous FILE, else
 * the -o FILE when there is one; "none" or neither: unbounded. A file
 * named explicitly must load; an -o FILE that does not is said and
 * ignored (cron keeps running; the admin sees the line). */
static int cal_previous(const char *previous, const char *out,
			autosize_calibration **prev)
{
	const char *path = previous ? previous : out;
	autosize_error e;

	*prev = NULL;
	if (!path || strcmp(path, "none") == 0)
		return 0;
	if (!previous && access(path, F_OK) != 0)
		return 0;
	*prev = autosize_calibration_load(path, &e);
	if (*prev)
		return 0;
	if (previous) {
		fprintf(stderr, "autosize: calibrate: --previous: %s\n",
			e.msg);
		return -1;
	}
	fprintf(stderr, "autosize: calibrate: warning: the previous "
		"calibration is unreadable, not bounding by it: %s\n", e.msg);
	return 0;
}

/* A number in [lo, hi] for option name; -1 with a message when not. */
static int cal_num_arg(const char *name, const char *v, double lo,
		       double hi, double *out)
{
	char *end;
	double n;

	errno = 0;
	n = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(n) || n < lo || n > hi) {
		fprintf(stderr, "autosize: %s: '%.40s' is not a number from "
			"%g to %g\n", name, v, lo, hi);
		return -1;
	}
	*out = n;
	return 0;
}

static int cal_int_arg(const char *name, const char *v, int *out)
{
	long n;

	if (cli_count_arg(name, v, 1000000, &n))
		return -1;
	*out = (int)n;
	return 0;
}

enum {
	CAL_HELP = 1,
	CAL_OUT,
	CAL_MIN_JOBS,
	CAL_MIN_USERS,
	CAL_MIN_RUN,
	CAL_MAX_MFU,
	CAL_SHRINK_USERS,
	CAL_MAX_STEP,
	CAL_PREVIOUS
};

static const cli_opt cal_opts[] = {
	{"help", 'h', 0, CAL_HELP},
	{NULL, 'o', 1, CAL_OUT},
	{"min-jobs", 0, 1, CAL_MIN_JOBS},
	{"min-users", 0, 1, CAL_MIN_USERS},
	{"min-run", 0, 1, CAL_MIN_RUN},
	{"max-mfu", 0, 1, CAL_MAX_MFU},
	{"shrink-users", 0, 1, CAL_SHRINK_USERS},
	{"max-step", 0, 1, CAL_MAX_STEP},
	{"previous", 0, 1, CAL_PREVIOUS},
	CLI_SACCT_OPTS
};

/* One option of cal_opts (key, with the value v given as a) into o,
 * *out and *previous: 0, or -1 said. */
static int cal_option(int key, const char *a, const char *v,
		      autosize_cal_options *o, const char **out,
		      const char **previous)
{
	switch (key) {
	case CAL_OUT:
		*out = v;
		return 0;
	case CAL_MIN_JOBS:
		return cal_int_arg(a, v, &o->min_jobs);
	case CAL_MIN_USERS:
		return cal_int_arg(a, v, &o->min_users);
	case CAL_MIN_RUN:
		return cal_num_arg(a, v, 0, 86400 * 30, &o->min_run_s);
	case CAL_MAX_MFU:
		return cal_num_arg(a, v, 0.05, 1, &o->max_mfu);
	case CAL_SHRINK_USERS:
		return cal_num_arg(a, v, 0, 1000, &o->shrink_users);
	case CAL_MAX_STEP:
		if (strcmp(v, "none") == 0) {
			o->max_step = 0;
			return 0;
		}
		return cal_num_arg(a, v, 1.01, 3, &o->max_step);
	case CAL_PREVIOUS:
		*previous = v;
		return 0;
	}
	return -1;
}

int cli_calibrate(int argc, char **argv)
{
	const char *out = NULL, *previous = NULL;
	char summary[768], source[512], from[256] = "";
	autosize_cal_options o;
	autosize_calibration *cal = NULL, *prev = NULL;
	autosize_catalog *cat = NULL;
	autosize_error e;
	cal_cli c = {NULL, 0};
	cli_sacct sa;
	cli_opts op;
	const char **file = calloc((size_t)argc + 1, sizeof(*file));
	int i, files = 0, rv = CLI_EXIT_USAGE, k;

	if (!file) {
		fprintf(stderr, "autosize: calibrate: out of memory\n");
		return CLI_EXIT_USAGE;
	}
	cli_sacct_init(&sa);
	autosize_cal_options_init(&o);
	cli_opts_init(&op, cal_opts, CLI_N(cal_opts), argc, argv);
	while ((k = cli_opts_next(&op)) != CLI_OPT_END) {
		if (k == CAL_HELP) {
			cal_usage(stdout);
			rv = CLI_EXIT_OK;
			goto out;
		} else if (k == CLI_OPT_ARG) {
			file[files++] = op.value;
		} else if (k == CLI_OPT_UNKNOWN || k == CLI_OPT_NO_VALUE) {
			cli_opts_said(&op, k, "calibrate");
			if (k == CLI_OPT_UNKNOWN)
				cal_usage(stderr);
			goto out;
		} else if (k != CLI_OPT_DASHDASH &&
			   !cli_sacct_take(&sa, k, op.value) &&
			   cal_option(k, op.name, op.value, &o, &out,
				      &previous)) {
			goto out;
		}
	}
	if (!sa.use && !files) {
		fprintf(stderr, "autosize: calibrate: give --sacct or JSON-lines "
			"files of finished jobs\n");
		cal_usage(stderr);
		goto out;
	}
	if (cal_previous(previous, out, &prev) != 0)
		goto out;
	if (!(cat = autosize_catalog_default(&e))) {
		fprintf(stderr, "autosize: calibrate: %s\n", e.msg);
		goto out;
	}
	o.catalog = cat;
	o.previous = prev;
	if (!(c.k = autosize_calibrator_create(&o))) {
		fprintf(stderr, "autosize: calibrate: out of memory\n");
		goto out;
	}
	if (sa.use && cli_sacct_read(&sa, "calibrate", cal_sacct_job, &c) != 0)
		goto out;
	for (i = 0; i < files; i++) {
		FILE *f = fopen(file[i], "r");

		if (!f) {
			fprintf(stderr, "autosize: calibrate: %s: %s\n",
				file[i], strerror(errno));
			goto out;
		}
		cli_jsonl_read(f, file[i], cal_json_line, cal_too_long, &c);
		fclose(f);
	}
	if (!(cal = autosize_calibrator_result(c.k, &e))) {
		fprintf(stderr, "autosize: %s\n", e.msg);
		goto out;
	}
	if (sa.use)
		cli_sacct_describe(&sa, from, sizeof(from));
	snprintf(source, sizeof(source), "%s%s%s", from,
		 sa.use && files ? " and " : "", files ? "JSON-lines files" : "");
	if (cal_write(cal, out, source) != 0)
		goto out;
	for (i = 0; autosize_calibrator_change(c.k, i); i++)
		fprintf(stderr, "autosize: calibrate: %s\n",
			autosize_calibrator_change(c.k, i));
	autosize_calibrator_summary(c.k, summary, sizeof(summary));
	fprintf(stderr, "autosize: %s%s\n", summary, prev ? "" :
		" (no previous calibration: bounded from the model's 1)");
	rv = CLI_EXIT_OK;
out:
	autosize_calibration_destroy(cal);
	autosize_calibration_destroy(prev);
	autosize_catalog_destroy(cat);
	autosize_calibrator_destroy(c.k);
	free(file);
	return rv;
}
