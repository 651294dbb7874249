/*
 * autosize internal: the layout and size search.
 */
#ifndef AUTOSIZE_SEARCH_H
#define AUTOSIZE_SEARCH_H

#include "sizing.h"

typedef struct search_result {
	autosize_plan best;  /* chosen plan, or the closest miss */
	int have_ref;
	autosize_plan ref;   /* feasible plan with the best per-GPU speed */
	long evaluated;      /* layouts evaluated */
} search_result;

/*
 * Search sizes and layouts for job under the request's pins and the
 * objective. res->best.feasible says whether anything fits; its reason
 * says why not. Errors only for contradictory pins (AUTOSIZE_EINVAL).
 */
autosize_err search_run(const sizing_job *job, const autosize_request *r,
			double deadline_s, autosize_objective objective,
			search_result *res, autosize_error *e);

/* Evaluate one layout on nodes x gpus_per_node into plan (all numbers,
 * feasible or not). */
void search_evaluate(const sizing_job *job, const sizing_layout *lay,
		     int nodes, int gpus_per_node, autosize_plan *plan);

#endif
