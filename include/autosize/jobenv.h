/*
 * autosize: how a job's model options travel from the submit host to
 * slurmctld and the compute nodes.
 *
 * The SPANK plugin's option values reach slurmctld in the job's
 * spank_job_env as _SLURM_SPANK_OPTION_autosize_<option>=value (dashes as
 * underscores). A model read from a config.json on the submit host is sent
 * normalised in AUTOSIZE_MODEL, so slurmctld never opens user files.
 * Everything decoded here is untrusted and validated like user input.
 */
#ifndef AUTOSIZE_JOBENV_H
#define AUTOSIZE_JOBENV_H

#include <stddef.h>
#include "autosize/plan.h"

#define AUTOSIZE_SPANK_PLUGIN "autosize"
#define AUTOSIZE_SPANK_OPTION_PREFIX "_SLURM_SPANK_OPTION_autosize_"
#define AUTOSIZE_ENV_MODEL "AUTOSIZE_MODEL"
/* Cap on one encoded value and on the entries looked at. */
#define AUTOSIZE_JOBENV_VALUE_MAX 1024
#define AUTOSIZE_JOBENV_MAX_ENTRIES 4096

/*
 * Encode a model's architecture as one line of key=value pairs separated
 * by ';' ("name=..;layers=32;hidden=4096;..."). Returns the length, or -1
 * when it does not fit len bytes.
 */
int autosize_model_encode(const autosize_model *m, char *buf, size_t len);

/* Decode autosize_model_encode's line strictly and finish the model. */
autosize_err autosize_model_decode(const char *text, autosize_model *m,
				   autosize_error *e);

/*
 * Build a request from a job's environment entries ("NAME=value", n of
 * them, e.g. spank_job_env): the autosize plugin's SPANK options and
 * AUTOSIZE_MODEL. *found is 1 when any autosize option is present (a job
 * without them must be left alone). The request is finished (model
 * resolved) when *found and AUTOSIZE_OK. A --model that is a path is
 * refused unless AUTOSIZE_MODEL came with it.
 */
autosize_err autosize_request_from_env(const char *const *env, size_t n,
				       autosize_request *r, int *found,
				       autosize_error *e);

#endif
