/*
 * autosize internal: a plan's checkpoints (core/checkpoint.c), filled
 * in two steps: the size once the layout is chosen, the times,
 * bandwidth and storage once the plan's training time is known.
 */
#ifndef AUTOSIZE_CHECKPOINT_PRIVATE_H
#define AUTOSIZE_CHECKPOINT_PRIVATE_H

#include "autosize/checkpoint.h"
#include "sizing.h"

/* plan->ckpt's size: trained parameters, bytes per parameter as job's
 * framework saves them, one checkpoint and the most one rank writes, for
 * plan's layout. Clears the rest of plan->ckpt. */
void checkpoint_size(const sizing_job *job, autosize_plan *plan);

/* The rest of plan->ckpt for a run of train_s under cp and plan->part's
 * storage (all but job_write_s, which the time limit sets); warns with
 * numbers when the storage is too slow or too small. */
void checkpoint_finish(autosize_plan *plan,
		       const autosize_checkpoint_policy *cp, double train_s);

#endif
