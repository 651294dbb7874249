/* autosize CLI: subcommands. */
#ifndef AUTOSIZE_CLI_H
#define AUTOSIZE_CLI_H

#include <stdio.h>
#include <sys/types.h>
#include "autosize.h"
#include "autosize/calibration.h"
#include "autosize/replay.h"
#include "autosize/report.h"

/* Exit codes: a plan; no feasible plan; bad input. */
#define CLI_EXIT_OK 0
#define CLI_EXIT_NOFIT 1
#define CLI_EXIT_USAGE 2

int cli_plan(int argc, char **argv);
int cli_check_config(int argc, char **argv);
int cli_list_gpus(int argc, char **argv);
int cli_list_presets(int argc, char **argv);
int cli_calibrate(int argc, char **argv);
int cli_probe(int argc, char **argv);
int cli_report(int argc, char **argv);
int cli_spool(int argc, char **argv);
int cli_show(int argc, char **argv);
int cli_replay(int argc, char **argv);
/* autosize replay --html: r as one page into path (replay_html.c). 0,
 * or -1 said on stderr. */
int cli_replay_html(const autosize_replay *r, const char *path,
		    const char *source);
/* autosize report --html: r (finished) as one page into path
 * (report_html.c). 0, or -1 said on stderr. */
int cli_report_html(const autosize_report *r, const char *path,
		    const char *source);

/*
 * Load the policy: FILE, "none" (built-in defaults), or without one
 * $AUTOSIZE_POLICY, else the installed one if present, else defaults.
 * Prints the error and returns NULL on failure.
 */
autosize_policy *cli_load_policy(const char *file);
/* The file cli_load_policy reads for file; NULL: the built-in defaults. */
const char *cli_policy_file(const char *file);
/* The installed policy's path (the Makefile's sysconfdir). */
const char *cli_installed_policy(void);
/* The shipped example policy (the Makefile's pkgdatadir). */
const char *cli_example_policy(void);

/* One size of `plan --table`: a plan, and 1 on the one autosize picks. */
typedef struct cli_table_row {
	autosize_plan plan;
	int chosen;
} cli_table_row;

/* The words of a menu row the text and HTML tables share. */
typedef struct cli_table_text {
	char layout[48];    /* "TP 2 PP 1 DP 16", " +" when CP or EP */
	char limit[32];     /* the time limit, " x N" for N chained jobs;
			     * "-" without a prediction */
	char cost[48];      /* "8154 USD", else "2812 GPU-h" */
} cli_table_text;

/* plan_chart.c: the text of row t. */
void cli_table_text_of(const cli_table_row *t, cli_table_text *out);
/*
 * plan_chart.c: the menu of n rows as a chart of time against cost to
 * file ("-": standard output): SVG, or with html an HTML page with the
 * chart and the table. 0, or -1 after one line on stderr naming file.
 */
int cli_plan_chart(const char *file, int html, const autosize_request *req,
		   const cli_table_row *rows, int n);

/* autosize plan: sbatch's own options (plan_sbatch.c), read with
 * sbatch's meanings. */
typedef struct cli_sbatch {
	long time_limit_min;   /* -t: the job's time limit; 0 none */
	long ntasks;           /* -n; 0 none */
	long gpus_per_task;    /* --gpus-per-task; 0 none */
	int node_range;        /* -N MIN-MAX: planned at MIN */
	char gpu_type[AUTOSIZE_GPU_NAME_MAX]; /* TYPE of [TYPE:]N */
	char value[32];        /* a value rewritten (the N of [TYPE:]N) */
	char ntasks_arg[64];   /* -n as given */
	char unused[512];      /* options taken, not used, as given */
	char account[AUTOSIZE_LIMITS_NAME_MAX]; /* -A: "" none */
	char qos[AUTOSIZE_LIMITS_NAME_MAX];     /* -q: "" none */
} cli_sbatch;

void cli_sbatch_init(cli_sbatch *sb);
struct cli_opt;
/* sbatch's options (-p, -N, -G, --gres, -n, -t, --gpus-per-task, -J,
 * --exclusive ...) appended to the option table t of n entries (at most
 * max): the new count. */
int cli_sbatch_opts(struct cli_opt *t, int n, int max);
/*
 * The sbatch option opt (a cli_sbatch_opts entry: -p gpu, -pgpu, -N 2-4, -G h100:8, --gres=gpu:4,
 * ...) given as a with value v (NULL for a flag), over used arguments:
 * into *name and *value what autosize_request sets ("" name: read into
 * sb, or not used for sizing). 0, or -1 for a bad value (*e says which).
 */
int cli_sbatch_take(cli_sbatch *sb, const struct cli_opt *opt,
		    const char *a, const char *v, int used, char *name,
		    size_t len, const char **value, autosize_error *e);
/* What sb read that the request takes as a whole (GPUs of -n x
 * --gpus-per-task, a GPU type without -p). */
int cli_sbatch_finish(const cli_sbatch *sb, autosize_request *r,
		      autosize_error *e);
/* A -t that ends before the prediction: the plan's warning. */
void cli_sbatch_warn(const cli_sbatch *sb, autosize_plan *p);
/* One line each: what was not used for sizing, a -N range. */
void cli_sbatch_notes(const cli_sbatch *sb, FILE *f);
/* The policy's rule for this user under -A and -q into r (decide.h
 * autosize_rule_apply), said in one line on f; or one line saying -A
 * and -q choose one when the policy has rules on accounts or QOS. */
void cli_sbatch_rule(const cli_sbatch *sb, const autosize_policy *p,
		     autosize_request *r, FILE *f);

/* Finished jobs from accounting (cli/sacct.c): calibrate's and report's
 * --sacct, --starttime, --endtime, --partition, --user. */
typedef struct cli_sacct {
	int use;              /* --sacct given */
	const char *start;    /* -S (default now-30days) */
	const char *end;      /* -E, or NULL */
	const char *partition; /* -r, or NULL */
	const char *user;     /* -u, or NULL: every user's (-a) */
	const char *jobs;     /* -j (then no -S: every time), or NULL */
	int duplicates;       /* -D: each run of a requeued job */
} cli_sacct;

void cli_sacct_init(cli_sacct *s);
/* The option of key (opts.h CLI_SACCT_*, its value) into s: 1; 0 when
 * key is not one of them. */
int cli_sacct_take(cli_sacct *s, int key, const char *value);
/* "sacct -S now-30days -r gpu" into buf, for a source line. */
void cli_sacct_describe(const cli_sacct *s, char *buf, size_t len);
/* Run sacct (no shell) for s and call each with every job line read
 * (autosize_sacct_job_line); cmd names the command in messages. 0, or
 * -1 when sacct could not run or failed (said on stderr). */
typedef void (*cli_sacct_each)(void *ctx, autosize_finished_job *j);
int cli_sacct_read(const cli_sacct *s, const char *cmd, cli_sacct_each each,
		   void *ctx);

/* Where report and replay send each job read (cli/jobs_input.c): add
 * gets a job with its record (NULL: it has none), bad counts one whose
 * record or line could not be read (the first few are said on stderr). */
typedef struct cli_jobs_sink {
	void (*add)(void *ctx, const autosize_finished_job *j,
		    const autosize_record *rec);
	void (*bad)(void *ctx);
	void *ctx;
	const char *cmd;      /* names the command in messages */
	int shown;            /* errors said so far */
} cli_jobs_sink;
/* The jobs of sa (when sa->use) and of the n JSON-lines files into s;
 * where they came from into source ("sacct -S now-30days and JSON-lines
 * files"). 0, or -1 when one could not be read (said). */
int cli_jobs_read(const cli_sacct *sa, const char *const *files, int n,
		  cli_jobs_sink *s, char *source, size_t len);

/* Longest JSON line of a finished job read (cli_jsonl_read). */
#define CLI_JSONL_MAX (1024 * 1024)
/* Every line of f, the JSON lines of finished jobs calibrate and report
 * read: each gets a line without its CR/LF (empty ones skipped) and
 * "name:lineno" as what; a line over CLI_JSONL_MAX bytes goes to
 * too_long instead. */
typedef void (*cli_jsonl_each)(void *ctx, const char *what,
			       const char *line, size_t len);
void cli_jsonl_read(FILE *f, const char *name, cli_jsonl_each each,
		    void (*too_long)(void *ctx), void *ctx);

#endif
