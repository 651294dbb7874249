/*
 * autosize: search node counts and parallel layouts for the best plan.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "search.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define SEARCH_MAX_NODE_CANDIDATES 256
#define SEARCH_MAX_PP 128
/* Throughputs within this share count as a tie (then fewer nodes win). */
#define SEARCH_TIE 0.005
/* dp x micro-batch x accumulation may differ this much from the global
 * batch the user asked for. */
#define SEARCH_BATCH_TOLERANCE 0.05

typedef struct search_state {
	const sizing_job *job;
	const autosize_request *req;
	double deadline_s;
	autosize_objective objective;
	search_result *res;
	int have_best;
	int have_miss;
	double miss_ratio;   /* closest miss: total / usable */
} search_state;

void search_evaluate(const sizing_job *job, const sizing_layout *lay,
		     int nodes, int gpus_per_node, autosize_plan *plan)
{
	sizing_time t;
	double tokens_step;

	memset(plan, 0, sizeof(*plan));
	plan->part = *job->part;
	plan->nodes = nodes;
	plan->gpus_per_node = gpus_per_node;
	plan->gpus = nodes * gpus_per_node;
	plan->tp = lay->tp;
	plan->pp = lay->pp;
	plan->dp = lay->dp;
	plan->zero_stage = lay->zero_stage;
	plan->micro_batch = lay->micro_batch;
	plan->grad_accum = lay->grad_accum;
	plan->recompute = lay->recompute;
	plan->seq_len = job->seq_len;
	plan->global_batch = lay->dp * lay->micro_batch * lay->grad_accum;
	plan->params = job->model->params;
	plan->params_active = job->model->params_active;
	plan->tokens = job->tokens;
	plan->flops_total = sizing_model_flops_per_token(job) * job->tokens;
	sizing_memory(job, lay, &plan->mem);
	sizing_step_time(job, lay, &t);
	tokens_step = (double)plan->global_batch * job->seq_len;
	plan->step_s = t.step_s;
	plan->mfu = t.mfu;
	plan->hfu = t.hfu;
	plan->tokens_per_s = t.step_s > 0 ? tokens_step / t.step_s : 0;
	plan->tflops_per_gpu = t.mfu * job->peak_flops / 1e12;
	plan->feasible = plan->mem.total_bytes <= plan->mem.usable_bytes &&
			 nodes <= job->part->max_nodes_per_job;
	if (nodes > job->part->max_nodes_per_job)
		snprintf(plan->reason, sizeof(plan->reason),
			 "%d nodes exceed partition %s's limit of %d per job",
			 nodes, job->part->name,
			 job->part->max_nodes_per_job);
	else if (!plan->feasible)
		snprintf(plan->reason, sizeof(plan->reason),
			 "needs %.1f GiB per GPU but %.1f GiB is usable on "
			 "%s (%.0f%% memory reserve)",
			 plan->mem.total_bytes / GIB,
			 plan->mem.usable_bytes / GIB, job->part->gpu->name,
			 100 * (1 - job->usable_bytes /
				job->part->gpu->mem_bytes));
}

static double search_train_s(const search_state *st, const autosize_plan *p)
{
	if (st->job->tokens <= 0 || p->tokens_per_s <= 0)
		return 0;
	return st->job->tokens / p->tokens_per_s;
}

/* 1 when candidate c is better than the current best b. */
static int search_better(const search_state *st, const autosize_plan *c,
			 const autosize_plan *b)
{
	double tc = search_train_s(st, c), tb = search_train_s(st, b);
	double d = st->deadline_s;

	if (st->job->tokens <= 0) {
		/* No token budget: the smallest size that fits. */
		if (c->gpus != b->gpus)
			return c->gpus < b->gpus;
		return c->tokens_per_s > b->tokens_per_s * (1 + SEARCH_TIE);
	}
	if (st->objective == AUTOSIZE_OBJECTIVE_COST) {
		int c_ok = d <= 0 || tc <= d, b_ok = d <= 0 || tb <= d;
		double gh_c = tc * c->gpus, gh_b = tb * b->gpus;

		if (c_ok != b_ok)
			return c_ok;
		if (!c_ok)     /* neither meets the deadline: fastest */
			return tc < tb * (1 - SEARCH_TIE) ||
			       (tc <= tb * (1 + SEARCH_TIE) &&
				c->nodes < b->nodes);
		if (gh_c < gh_b * (1 - SEARCH_TIE))
			return 1;
		if (gh_c > gh_b * (1 + SEARCH_TIE))
			return 0;
		if (c->nodes != b->nodes)
			return c->nodes < b->nodes;
		return tc < tb;
	}
	if (tc < tb * (1 - SEARCH_TIE))
		return 1;
	if (tc > tb * (1 + SEARCH_TIE))
		return 0;
	if (c->nodes != b->nodes)
		return c->nodes < b->nodes;
	return c->mem.total_bytes < b->mem.total_bytes;
}

static void search_consider(search_state *st, const sizing_layout *lay,
			    int nodes, int gpn)
{
	autosize_plan c;
	search_result *res = st->res;

	search_evaluate(st->job, lay, nodes, gpn, &c);
	res->evaluated++;
	if (!c.feasible) {
		double ratio = c.mem.total_bytes / c.mem.usable_bytes;

		if (!st->have_best && (!st->have_miss ||
				       ratio < st->miss_ratio)) {
			res->best = c;
			st->have_miss = 1;
			st->miss_ratio = ratio;
		}
		return;
	}
	if (!st->have_best || search_better(st, &c, &res->best)) {
		res->best = c;
		st->have_best = 1;
	}
	if (c.tokens_per_s > 0 &&
	    (!res->have_ref || c.tokens_per_s / c.gpus >
	     res->ref.tokens_per_s / res->ref.gpus * (1 + SEARCH_TIE))) {
		res->ref = c;
		res->have_ref = 1;
	}
}

static int search_pinned(int v)
{
	return v != AUTOSIZE_UNSET;
}

/* Micro-batch sizes for a layout base (tp, pp, dp, zero, recompute). */
static void search_micro_batches(search_state *st, const sizing_layout *base,
				 int nodes, int gpn)
{
	static const int free_mbs[] = {1, 2, 4, 8, 16};
	const autosize_request *r = st->req;
	double batch = st->job->global_batch;
	int pinned = search_pinned(r->micro_batch);
	int n = pinned ? 1 : (int)(sizeof(free_mbs) / sizeof(free_mbs[0]));
	int i;

	for (i = 0; i < n; i++) {
		sizing_layout lay = *base;
		int mb = pinned ? r->micro_batch : free_mbs[i];
		long ga;

		/* dp x mb sequences per micro-step must fit the global
		 * batch, and the steps must add up to it (within 5%). */
		if ((double)base->dp * mb > batch)
			break;
		ga = lround(batch / ((double)base->dp * mb));
		if (fabs((double)base->dp * mb * ga - batch) >
		    SEARCH_BATCH_TOLERANCE * batch)
			continue;
		lay.micro_batch = mb;
		lay.grad_accum = (int)ga;
		search_consider(st, &lay, nodes, gpn);
	}
}

/* 1 when ZeRO stage z is worth trying: pinned, or the sensible stage for
 * the family (none without data parallelism; distributed optimizer with
 * Megatron-style TP/PP; stages 1-3 for plain data parallelism). */
static int search_zero_ok(const autosize_request *r, const sizing_layout *l,
			  int z)
{
	if (search_pinned(r->zero_stage))
		return z == r->zero_stage;
	if (l->dp == 1)
		return z == 0;
	if (l->tp * l->pp > 1)
		return z == 1;
	return z >= 1;
}

/* ZeRO stages and recomputation for one (tp, pp, dp). */
static void search_stages(search_state *st, const sizing_layout *base,
			  int nodes, int gpn)
{
	const autosize_request *r = st->req;
	sizing_layout lay = *base;
	int z, rc;

	for (z = 0; z <= 3; z++) {
		if (!search_zero_ok(r, base, z))
			continue;
		for (rc = 0; rc <= 2; rc++) {
			/* With FlashAttention selective saves nothing. */
			if (search_pinned(r->recompute)
			    ? rc != r->recompute
			    : (st->job->flash_attention &&
			       rc == AUTOSIZE_RECOMPUTE_SELECTIVE))
				continue;
			lay.zero_stage = z;
			lay.recompute = (autosize_recompute)rc;
			search_micro_batches(st, &lay, nodes, gpn);
		}
	}
}

/* 1 when tp is a candidate: pinned, or inside the node and dividing the
 * attention and key/value heads. */
static int search_tp_ok(const search_state *st, int tp, int gpn)
{
	const autosize_model *m = st->job->model;
	int pin = st->req->tp;

	if (search_pinned(pin))
		return tp == pin;
	return tp <= gpn && m->heads % tp == 0 && m->kv_heads % tp == 0;
}

/* 1 when pp is a candidate: pinned, or dividing the layers. */
static int search_pp_ok(const search_state *st, int pp)
{
	int pin = st->req->pp;

	if (search_pinned(pin))
		return pp == pin;
	return st->job->model->layers % pp == 0;
}

/* All layouts of G = nodes x gpn GPUs under the request's pins. */
static void search_layouts(search_state *st, int nodes, int gpn)
{
	const autosize_request *r = st->req;
	int gpus = nodes * gpn, tp, pp;
	sizing_layout lay;

	memset(&lay, 0, sizeof(lay));
	lay.vp = search_pinned(r->interleave) ? r->interleave : 1;
	for (tp = 1; tp <= gpus; tp++) {
		if (gpus % tp || !search_tp_ok(st, tp, gpn))
			continue;
		for (pp = 1; pp <= SEARCH_MAX_PP && tp * pp <= gpus; pp++) {
			if ((gpus / tp) % pp || !search_pp_ok(st, pp))
				continue;
			lay.tp = tp;
			lay.pp = pp;
			lay.dp = gpus / (tp * pp);
			lay.sp = tp > 1 && r->sequence_parallel != 0;
			if (search_pinned(r->dp) && lay.dp != r->dp)
				continue;
			search_stages(st, &lay, nodes, gpn);
		}
	}
}

/* Node counts to try: every count up to 32, then ~6% steps. */
static int search_node_counts(int max_nodes, int *out)
{
	int n = 0, v;

	for (v = 1; v <= max_nodes && v <= 32; v++)
		out[n++] = v;
	while (v <= max_nodes && n < SEARCH_MAX_NODE_CANDIDATES - 1) {
		out[n++] = v;
		v = v + (v + 15) / 16;
	}
	if (out[n - 1] != max_nodes && max_nodes > 32)
		out[n++] = max_nodes;
	return n;
}

autosize_err search_run(const sizing_job *job, const autosize_request *r,
			double deadline_s, autosize_objective objective,
			search_result *res, autosize_error *e)
{
	search_state st;
	int counts[SEARCH_MAX_NODE_CANDIDATES], n_counts, i, g;
	int gpn = job->part->gpus_per_node;

	memset(res, 0, sizeof(*res));
	memset(&st, 0, sizeof(st));
	st.job = job;
	st.req = r;
	st.deadline_s = deadline_s;
	st.objective = objective;
	st.res = res;
	if (r->gpus_per_node > 0)
		gpn = r->gpus_per_node;
	if (r->gpus > 0) {
		int nodes = 1, g_node = r->gpus;

		if (r->gpus > gpn) {
			if (r->gpus % gpn)
				return autosize_fail(e, AUTOSIZE_EINVAL,
						     "--gpus: %d is not a "
						     "multiple of %d GPUs per "
						     "node", r->gpus, gpn);
			nodes = r->gpus / gpn;
			g_node = gpn;
		}
		if (r->nodes > 0 && r->nodes != nodes)
			return autosize_fail(e, AUTOSIZE_EINVAL,
					     "--gpus %d and --nodes %d "
					     "disagree (%d GPUs per node)",
					     r->gpus, r->nodes, gpn);
		search_layouts(&st, nodes, g_node);
	} else if (r->nodes > 0) {
		search_layouts(&st, r->nodes, gpn);
	} else {
		if (r->gpus_per_node <= 0)
			for (g = 1; g < gpn; g *= 2)
				if (gpn % g == 0)
					search_layouts(&st, 1, g);
		n_counts = search_node_counts(job->part->max_nodes_per_job,
					      counts);
		for (i = 0; i < n_counts; i++)
			search_layouts(&st, counts[i], gpn);
	}
	if (!st.have_best && !st.have_miss)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "no layout matches the pinned values "
				     "(check --tp/--pp/--dp against the GPU "
				     "count and the model's heads and "
				     "layers)");
	return AUTOSIZE_OK;
}
