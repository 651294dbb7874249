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

/* How an option's value is read and stored (core/options.c). */
struct autosize_option_setter;

typedef struct autosize_option {
	const char *name;     /* without the leading "--" */
	const char *arg;      /* placeholder for help, e.g. "N" */
	const char *help;     /* one line */
	int where;            /* AUTOSIZE_OPT_* bits */
	const struct autosize_option_setter *setter;
} autosize_option;

/* The option table, terminated by an entry with name NULL. Static. */
const autosize_option *autosize_options(void);

/* The option called name (without "--"), or NULL when there is none. */
const autosize_option *autosize_option_find(const char *name);

/* The spellings an option with a fixed set of values accepts, in the
 * core's order and NULL-terminated (on|off options: off, on, 0, 1, no,
 * yes, false, true), or NULL for a free-form value. Static. */
const char *const *autosize_option_choices(const autosize_option *o);

/* Fill a request with "unset" everywhere and the documented defaults. */
void autosize_request_init(autosize_request *r);

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

/* The sequence length planned: --train-seq-len, else 2048 for a GELU
 * (GPT-2-era) architecture, else 4096. */
int autosize_request_seq_len(const autosize_request *r);

/*
 * Warnings about how the inputs were read, added to a computed plan (its
 * seq_len, global_batch): a bare --train-time under an hour (minutes),
 * --train-tokens below one optimizer step, a sequence longer than the
 * model's positions, a token batch rounded to whole sequences. A warning
 * the plan has already is not added again.
 */
void autosize_request_warnings(const autosize_request *r,
			       autosize_plan *plan);

#endif
