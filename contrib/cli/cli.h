/* autosize CLI: subcommands. */
#ifndef AUTOSIZE_CLI_H
#define AUTOSIZE_CLI_H

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

#endif
