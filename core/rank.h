/*
 * autosize internal: the one comparator of plans and layouts, used by the
 * layout search (one partition) and by the choice among partitions.
 */
#ifndef AUTOSIZE_RANK_H
#define AUTOSIZE_RANK_H

#include "autosize/plan.h"

/* Relative difference under which two times or costs are a tie; ties go
 * to fewer nodes, then fewer GPUs, then less memory. */
#define RANK_TIE 0.005
/* Cost (money or GPU-hours) within this share is a tie under the cost
 * objective: a plan 1-2% dearer in one job, on fewer GPUs or with even
 * stages is the one people run (QLoRA 70B: 1 GPU at 11.99 GPU-h, not 16
 * at 11.89). Cost ties go to fewer chained jobs, then the plainer
 * layout, then the tie-breaks above. */
#define RANK_COST_TIE 0.02

/* What ranking looks at. */
typedef struct rank_key {
	int feasible;
	double train_s;      /* predicted time; 0 = no token budget */
	int nodes;
	int gpus;
	double gpu_hours;
	double cost;         /* money; 0 = the partition has no price */
	double total_bytes;  /* memory per GPU */
	double tokens_per_s; /* speed: decides same-size plans without a
			      * token budget */
	int jobs;            /* chained jobs the time takes (1: one) */
	int exotic;          /* 1: uneven pipeline stages or a custom
			      * pipeline layout; 0: even splits */
	int unchecked;       /* 1: a kind of layout no fit-half or
			      * held-out published run checks (every rank
			      * gathering a MoE's experts) */
} rank_key;

/* Key of a finished plan (exotic and unchecked 0: the caller knows the
 * layers and the layout's kind). */
void rank_key_of_plan(const autosize_plan *plan, rank_key *k);

/* 1 when layers split over pp stages x vp virtual stages unevenly (a
 * custom or uneven pipeline layout). */
int rank_exotic(int layers, int pp, int vp);

/*
 * 1 when c is better than b: feasible first; without a token budget the
 * smallest size, a checked kind of layout, then the fastest; then meeting
 * deadline_s (0: none), a checked kind of layout; then, for objective
 * cost and both meeting it, money (GPU-hours when either is unpriced)
 * within RANK_COST_TIE, fewer chained jobs, the plainer layout, else the
 * shorter time; ties as above.
 */
int rank_better(const rank_key *c, const rank_key *b,
		autosize_objective objective, double deadline_s);

#endif
