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
} rank_key;

/* Key of a finished plan. */
void rank_key_of_plan(const autosize_plan *plan, rank_key *k);

/*
 * 1 when c is better than b: feasible first; without a token budget the
 * smallest size, then the fastest; then meeting deadline_s (0: none); then, for objective
 * cost and both meeting it, money (GPU-hours when either is unpriced),
 * else the shorter time; ties as above.
 */
int rank_better(const rank_key *c, const rank_key *b,
		autosize_objective objective, double deadline_s);

#endif
