/*
 * autosize: a chained job in slurmctld (decide.h). sbatch queues the
 * run's jobs and marks each (chain.h); here each is planned as the job
 * of the chain it is, recorded with the run's id and its place, and a
 * follower is made to wait for the job before it.
 */
#include <stdio.h>
#include <string.h>
#include "decide_private.h"

int decide_chain_mark(const char *const *env, size_t n,
		      const autosize_job *job, autosize_decide_work *w,
		      autosize_decision *d)
{
	autosize_error e;

	autosize_error_clear(&e);
	w->req.interactive = !job->batch;
	if (autosize_chain_from_env(env, n, &w->mark, &e) != AUTOSIZE_OK) {
		d->action = AUTOSIZE_ACTION_REJECT;
		d->reason = "input";
		decide_text(d->message, sizeof(d->message), "%s", e.msg);
		return -1;
	}
	if (!w->mark.id[0] || !job->batch) {
		/* a batch job without the mark: nothing will follow it (an
		 * explain queues nothing: it is told the chain it would be) */
		w->req.chain_unmarked = job->batch &&
					w->req.job_mode != AUTOSIZE_JOB_EXPLAIN;
		memset(&w->mark, 0, sizeof(w->mark));
		return 0;
	}
	w->req.chain_index = w->mark.index;
	/* the lead sbatch gave the job's signal; the user's own (0): the
	 * plan's, for its training time, and none of autosize's */
	w->req.signal_s = w->mark.signal_s > 0 ? w->mark.signal_s : -1;
	return 0;
}

void decide_chain_fill(const autosize_chain_mark *mark,
		       const autosize_plan *pl, autosize_record *rec,
		       autosize_decision *d)
{
	/* the signal sbatch gave every job it marked, chained or not: its
	 * steps' tasks start with it ignored (spank_remote.c) */
	rec->signal_s = mark->signal_s;
	if (!mark->id[0] || (pl->chained_jobs <= 1 && mark->index <= 1))
		return;
	snprintf(rec->chain, sizeof(rec->chain), "%s", mark->id);
	snprintf(d->chain_id, sizeof(d->chain_id), "%s", mark->id);
	rec->chain_index = d->chain_index = mark->index;
	rec->chain_jobs = pl->chained_jobs > mark->index ? pl->chained_jobs
							 : mark->index;
	if (mark->index > 1)
		snprintf(d->dependency, sizeof(d->dependency), "afterany:%lu",
			 mark->prev);
}
