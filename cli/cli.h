/* autosize CLI: subcommands. */
#ifndef AUTOSIZE_CLI_H
#define AUTOSIZE_CLI_H

#include <sys/types.h>
#include "autosize.h"

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

/* Run argv (no shell: argv[0] from PATH) with its standard output on a
 * pipe, *out_fd its read end (the caller closes it); stderr passes
 * through. Returns the child's pid, or -1. */
pid_t cli_spawn(char *const argv[], int *out_fd);
/* Wait for pid: its exit status, -1 when it did not exit normally. */
int cli_reap(pid_t pid);

#endif
