/*
 * autosize CLI: options read with getopt_long, its struct option and
 * short-option string generated from a subcommand's table (cli/opts.c).
 * Every option form the commands took keeps its meaning: --name=value,
 * --name value, -xvalue, -x value; a long name is matched whole (no
 * abbreviations), a short flag stands alone (no -ab clusters), and
 * arguments are read in order.
 */
#ifndef AUTOSIZE_CLI_OPTS_H
#define AUTOSIZE_CLI_OPTS_H

#include <getopt.h>

/* Options one command reads at most. */
#define CLI_OPTS_MAX 160

/* One option of a command. */
typedef struct cli_opt {
	const char *name;  /* long name without "--"; NULL: short only */
	char letter;       /* short name (-o), 0: none */
	char has_value;    /* 1: takes a value */
	int key;           /* what cli_opts_next returns for it (> 0) */
} cli_opt;

/* What cli_opts_next returns besides an option's key. */
enum {
	CLI_OPT_END = 0,       /* no more arguments */
	CLI_OPT_ARG = -1,      /* an operand (a file, a job id): value */
	CLI_OPT_UNKNOWN = -2,  /* not an option of the table: text */
	CLI_OPT_NO_VALUE = -3, /* opt's value is missing: text */
	CLI_OPT_DASHDASH = -4  /* "--": what follows are operands */
};

typedef struct cli_opts {
	int argc;
	char **argv;       /* argv[0]: the command's name */
	const char *text;  /* the argument as given (argv element) */
	const char *value; /* the option's value, or the operand */
	const cli_opt *opt; /* the option read (KEY, NO_VALUE), else NULL */
	int used;          /* argv elements it took: 2 for "-o FILE" */
	char name[48];     /* the option without its value: "--name",
			    * "-o" */
	int rest;          /* after "--": the next operand's index */
	const cli_opt *table;
	int n;
	struct option longs[CLI_OPTS_MAX + 1];
	char shorts[3 + 2 * CLI_OPTS_MAX + 1];
} cli_opts;

/* Read argv (argc of them, argv[0] the command's name) with the n
 * options of table. */
void cli_opts_init(cli_opts *o, const cli_opt *table, int n, int argc,
		   char **argv);
/* The next argument: an option's key, or a CLI_OPT_* value. */
int cli_opts_next(cli_opts *o);

/* Why cli_opts_next stopped with rc (CLI_OPT_UNKNOWN, _NO_VALUE), in
 * one line on stderr: "autosize: CMD: unknown option 'X'", "autosize:
 * X needs a value". */
void cli_opts_said(const cli_opts *o, int rc, const char *cmd);

/* An option's value as a count from 1 to max into *out; else one line
 * on stderr, "autosize: WHAT: 'V' is not a count from 1 to MAX", and
 * -1 (what: "report: --max-jobs"). */
int cli_count_arg(const char *what, const char *v, long max, long *out);

/* cli_opts_next's key for each of sbatch's options (cli_sbatch_opts,
 * plan_sbatch.c). */
#define CLI_SBATCH_OPT 0x7e00

/* The options of cli_sacct (cli.h): --sacct, --starttime, --endtime,
 * --partition, --user, as calibrate, report and replay take them. */
enum {
	CLI_SACCT_USE = 0x7f00,
	CLI_SACCT_START,
	CLI_SACCT_END,
	CLI_SACCT_PARTITION,
	CLI_SACCT_USER
};
#define CLI_SACCT_OPTS \
	{"sacct", 0, 0, CLI_SACCT_USE}, \
	{"starttime", 0, 1, CLI_SACCT_START}, \
	{"endtime", 0, 1, CLI_SACCT_END}, \
	{"partition", 0, 1, CLI_SACCT_PARTITION}, \
	{"user", 0, 1, CLI_SACCT_USER}

/* Array length. */
#define CLI_N(a) ((int)(sizeof(a) / sizeof((a)[0])))

#endif
