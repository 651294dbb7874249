/*
 * autosize: the user options, shared by the CLI, the SPANK plugin and the
 * slurmctld module so that each name means the same everywhere.
 */
#ifndef AUTOSIZE_OPTIONS_H
#define AUTOSIZE_OPTIONS_H

#include "autosize/plan.h"

/* Where an option is offered. */
#define AUTOSIZE_OPT_CLI 1    /* autosize plan */
#define AUTOSIZE_OPT_SPANK 2  /* sbatch/salloc/srun (no Slurm clash) */

typedef struct autosize_option {
	const char *name;     /* without the leading "--" */
	const char *arg;      /* placeholder for help, e.g. "N" */
	const char *help;     /* one line */
	int where;            /* AUTOSIZE_OPT_* bits */
} autosize_option;

/* The option table, terminated by an entry with name NULL. Static. */
const autosize_option *autosize_options(void);

/*
 * Apply one option (name without "--") with its value to r. Validates the
 * value; on error *e names the option and the accepted form. Values are
 * copied; nothing is kept of name or value.
 */
autosize_err autosize_request_set(autosize_request *r, const char *name,
				  const char *value, autosize_error *e);

/*
 * After all options: resolve --model (a preset name, or a path to a
 * config.json when it contains '/' or ends in ".json"), the architecture
 * flags and --model-params into r->model, and check they agree.
 */
autosize_err autosize_request_finish(autosize_request *r, autosize_error *e);

#endif
