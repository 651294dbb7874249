/*
 * autosize internal: the scratch space of one decision and what
 * decide.c and decide_slurm.c share.
 */
#ifndef AUTOSIZE_DECIDE_PRIVATE_H
#define AUTOSIZE_DECIDE_PRIVATE_H

#include "autosize/chain.h"
#include "autosize/decide.h"
#include "plan_work.h"

struct autosize_decide_work {
	autosize_request req;
	autosize_chain_mark mark;   /* the job's AUTOSIZE_CHAIN, id "" none */
	autosize_plan plan;
	autosize_work plan_work;
	autosize_part_limits live;  /* the job's, with its caps */
};

/* A bounded line into buf (a longer one is cut: messages are best
 * effort, never an overflow), one line whatever the job's text. */
void decide_text(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- decide_slurm.c ---- */

/* Slurm's QOS and association limits of the job into w->live's caps
 * (w->req.live, w->req.slurm set). -1 with d saying why when they
 * cannot be read for it: the job goes as submitted. */
int decide_limits(const autosize_defaults *def, const autosize_job *job,
		  autosize_decide_work *w, autosize_decision *d);

/* The policy's rule for the job (NULL none), by its user, account and
 * QOS as Slurm holds it to them, into r (its rule and GPU cap). */
const autosize_rule *decide_rule(const autosize_policy *p,
				 const autosize_job *job, autosize_request *r);

/* The job's GPU type (its request's, else -C naming one of the
 * policy's), whole nodes, its CPUs and memory per GPU into r. */
void decide_request(const autosize_policy *p, const autosize_job *job,
		    autosize_request *r);

/* What the job gets of its nodes besides its size, into d: the GPU type
 * planned for, CPUs and memory per GPU to write, GPUs per node written
 * for --exclusive and an even split of --gpus. */
void decide_fill_node(const autosize_job *job, const autosize_plan *pl,
		      autosize_decision *d);

/* A kept -t past the planned partition's MaxTime or the job's MaxWall:
 * refused naming it (1), else 0. */
int decide_time_past_max(const autosize_job *job,
			 const autosize_decide_work *w,
			 autosize_decision *d);

/* ---- decide_chain.c ---- */

/* The job's chain mark (AUTOSIZE_CHAIN from sbatch) into w->mark and
 * the request (its place, the signal it carries); a job without a batch
 * script never chains. 0, or -1 with d refusing a mark that does not
 * read. */
int decide_chain_mark(const char *const *env, size_t n,
		      const autosize_job *job, autosize_decide_work *w,
		      autosize_decision *d);

/* A planned chained job's id and place into rec and d, and a follower's
 * dependency on the job before it. */
void decide_chain_fill(const autosize_chain_mark *mark,
		       const autosize_plan *pl, autosize_record *rec,
		       autosize_decision *d);

#endif
