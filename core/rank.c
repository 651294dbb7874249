/*
 * autosize: the one comparator of plans and layouts (rank.h).
 */
#include "rank.h"

void rank_key_of_plan(const autosize_plan *plan, rank_key *k)
{
	k->feasible = plan->feasible;
	k->train_s = plan->train_hours * 3600;
	k->nodes = plan->nodes;
	k->gpus = plan->gpus;
	k->gpu_hours = plan->gpu_hours;
	k->cost = plan->cost;
	k->total_bytes = plan->mem.total_bytes;
	k->tokens_per_s = plan->tokens_per_s;
	k->jobs = plan->chained_jobs > 1 ? plan->chained_jobs : 1;
	k->exotic = 0;
	k->unchecked = 0;
}

int rank_exotic(int layers, int pp, int vp)
{
	return pp > 1 && layers > 0 && layers % (pp * (vp > 1 ? vp : 1)) != 0;
}

/* -1, 0 or 1 as a is clearly below, within RANK_TIE of, or above b. */
static int rank_cmp_within(double a, double b, double tie)
{
	if (a < b * (1 - tie))
		return -1;
	if (a > b * (1 + tie))
		return 1;
	return 0;
}

static int rank_cmp(double a, double b)
{
	return rank_cmp_within(a, b, RANK_TIE);
}

static int rank_meets(const rank_key *k, double deadline_s)
{
	return deadline_s <= 0 || k->train_s <= deadline_s;
}

/* The tie-breaks: fewer nodes, fewer GPUs, less memory. */
static int rank_tie_break(const rank_key *c, const rank_key *b)
{
	if (c->nodes != b->nodes)
		return c->nodes < b->nodes;
	if (c->gpus != b->gpus)
		return c->gpus < b->gpus;
	return c->total_bytes < b->total_bytes;
}

int rank_better(const rank_key *c, const rank_key *b,
		autosize_objective objective, double deadline_s)
{
	int c_ok, b_ok, d;

	if (c->feasible != b->feasible)
		return c->feasible;
	if (c->train_s <= 0 || b->train_s <= 0) {
		/* No token budget: the smallest size that fits, then the
		 * fastest layout of that size. */
		if (c->gpus != b->gpus)
			return c->gpus < b->gpus;
		if (c->unchecked != b->unchecked)
			return !c->unchecked;
		d = rank_cmp(b->tokens_per_s, c->tokens_per_s);
		if (d)
			return d < 0;
		return rank_tie_break(c, b);
	}
	c_ok = rank_meets(c, deadline_s);
	b_ok = rank_meets(b, deadline_s);
	if (c_ok != b_ok)
		return c_ok;
	/* a layout whose prediction a published run checks before one
	 * whose prediction none does, when both meet the deadline or
	 * both miss it */
	if (c->unchecked != b->unchecked)
		return !c->unchecked;
	if (objective == AUTOSIZE_OBJECTIVE_COST && c_ok) {
		d = c->cost > 0 && b->cost > 0
		    ? rank_cmp_within(c->cost, b->cost, RANK_COST_TIE)
		    : rank_cmp_within(c->gpu_hours, b->gpu_hours,
				      RANK_COST_TIE);
		if (!d && c->jobs != b->jobs)
			return c->jobs < b->jobs;
		if (!d && c->exotic != b->exotic)
			return !c->exotic;
		/* the wide tie is between sizes; within one size the
		 * cheaper layout is the faster one */
		if (!d && c->nodes == b->nodes && c->gpus == b->gpus)
			d = c->cost > 0 && b->cost > 0
			    ? rank_cmp(c->cost, b->cost)
			    : rank_cmp(c->gpu_hours, b->gpu_hours);
	} else
		d = rank_cmp(c->train_s, b->train_s);
	if (d)
		return d < 0;
	return rank_tie_break(c, b);
}
