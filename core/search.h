/*
 * autosize internal: the layout and size search.
 */
#ifndef AUTOSIZE_SEARCH_H
#define AUTOSIZE_SEARCH_H

#include "sizing.h"

/* The work one plan may do, shared by all its searches (partitions,
 * advice): every candidate the search enumerates (node count, TP, PP,
 * CP and EP degree, micro-batch list, memory evaluation, step time,
 * speed bound) costs one, and the searches stop at limit or once they
 * have taken max_s seconds of the thread's CPU time: bounded work
 * whatever the request. */
typedef struct search_budget {
	long limit;
	long used;
	double max_s;        /* 0: no time limit */
	double start_s;      /* the thread's CPU time at the start */
	long next_check;     /* used at which the clock is read next */
	int out_of_time;     /* 1: stopped by max_s */
} search_budget;

/* A budget of limit candidates and max_s seconds from now. */
void search_budget_init(search_budget *b, long limit, double max_s);
/* 1 when the budget is spent: a search started now would try nothing. */
static inline int search_budget_spent(const search_budget *b)
{
	return b->used >= b->limit;
}

/* What stopped the searches, in a few words ("100000 candidates", "4 ms
 * of CPU time"), into buf; buf. */
const char *search_budget_said(const search_budget *b, char *buf,
			       size_t len);

/* The largest part of a step besides the compute, for saying why more
 * GPUs would not help. */
typedef enum search_loss {
	SEARCH_LOSS_BUBBLE,   /* pipeline bubble: too few micro-batches */
	SEARCH_LOSS_PIPELINE, /* pipeline transfers between stages */
	SEARCH_LOSS_GRADIENTS,/* data-parallel gradient reduction */
	SEARCH_LOSS_MODEL     /* tensor, expert or context parallel traffic */
} search_loss;

typedef struct search_result {
	autosize_plan best;  /* chosen plan, or the closest miss */
	int have_ref;
	autosize_plan ref;   /* feasible plan with the best per-GPU speed */
	long evaluated;      /* layouts evaluated */
	int over_budget;     /* 1: stopped at the budget (best so far) */
	/* The size the deadline wanted, when it scaled below the job's
	 * min_scaling (best is then the largest size that scales): */
	int capped_gpus;     /* 0: not capped */
	double capped_eff;   /* its speed per GPU / the best size's */
	search_loss capped_loss; /* what that size's step loses most to */
} search_result;

/*
 * Search sizes and layouts for job under the request's pins and the
 * objective, evaluating at most budget->limit - budget->used layouts.
 * res->best.feasible says whether anything fits; its reason says why not.
 * A pinned size (--gpus, --nodes, TP x PP x DP) is that size or a miss
 * of that size, never another. Errors only for contradictory pins (AUTOSIZE_EINVAL).
 */
autosize_err search_run(const sizing_job *job, const autosize_request *r,
			double deadline_s, autosize_objective objective,
			search_budget *budget, search_result *res,
			autosize_error *e);

/* Evaluate one layout on nodes x gpus_per_node into plan (all numbers,
 * feasible or not). */
void search_evaluate(const sizing_job *job, const sizing_layout *lay,
		     int nodes, int gpus_per_node, autosize_plan *plan);

#endif
