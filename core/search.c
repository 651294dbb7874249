/*
 * autosize: search node counts and parallel layouts for the best plan.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "search.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define SEARCH_MAX_PP 128
/* Throughputs within this share count as a tie (then fewer nodes win). */
#define SEARCH_TIE 0.005
/* dp x micro-batch x accumulation may differ this much from the global
 * batch the user asked for. */
#define SEARCH_BATCH_TOLERANCE 0.05

/* Pipeline depths tried past the shallowest that fits. */
#define SEARCH_PP_EXTRA 2
/* Growth of probed node counts, and counts tried past the first good. */
#define SEARCH_GROWTH 1.25
#define SEARCH_NEIGHBOURS 3
/* Node counts scanned one by one when the staged probes found nothing. */
#define SEARCH_SCAN_NODES 256

/* A layout under consideration: just what ranking needs. */
typedef struct search_cand {
	sizing_layout lay;
	int nodes;
	int gpn;
	double total_bytes;
	double tokens_per_s;
	double train_s;
} search_cand;

typedef struct search_state {
	const sizing_job *job;
	const autosize_request *req;
	double deadline_s;
	autosize_objective objective;
	int have_best;
	search_cand best;
	int have_ref;
	search_cand ref;     /* best tokens/s per GPU */
	int have_miss;
	search_cand miss;    /* closest miss: smallest total / usable */
	double miss_ratio;
	long evaluated;
	int n_step;          /* node counts probed are multiples of this */
	int wide_tp;         /* 1: TP may span nodes (nothing else fit) */
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

static int search_pinned(int v)
{
	return v != AUTOSIZE_UNSET;
}

static double search_tokens_step(const search_state *st,
				 const sizing_layout *lay)
{
	return (double)st->job->seq_len * lay->micro_batch * lay->grad_accum *
	       lay->dp;
}

/* 1 when candidate c is better than the current best b. */
static int search_better(const search_state *st, const search_cand *c,
			 const search_cand *b)
{
	double tc = c->train_s, tb = b->train_s, d = st->deadline_s;
	int gc = c->nodes * c->gpn, gb = b->nodes * b->gpn;

	if (st->job->tokens <= 0) {
		/* No token budget: the smallest size that fits. */
		if (gc != gb)
			return gc < gb;
		return c->tokens_per_s > b->tokens_per_s * (1 + SEARCH_TIE);
	}
	if (st->objective == AUTOSIZE_OBJECTIVE_COST) {
		int c_ok = d <= 0 || tc <= d, b_ok = d <= 0 || tb <= d;
		double gh_c = tc * gc, gh_b = tb * gb;

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
	return c->total_bytes < b->total_bytes;
}

/* Memory check of a layout; a miss is remembered when nothing fits yet.
 * Returns 1 when it fits. */
static int search_fits(search_state *st, const sizing_layout *lay,
		       int nodes, int gpn, double *total_bytes)
{
	autosize_memory mem;
	double ratio;

	sizing_memory(st->job, lay, &mem);
	st->evaluated++;
	*total_bytes = mem.total_bytes;
	if (mem.total_bytes <= mem.usable_bytes &&
	    nodes <= st->job->part->max_nodes_per_job)
		return 1;
	ratio = mem.total_bytes / mem.usable_bytes;
	if (!st->have_best && (!st->have_miss || ratio < st->miss_ratio)) {
		st->miss.lay = *lay;
		st->miss.nodes = nodes;
		st->miss.gpn = gpn;
		st->have_miss = 1;
		st->miss_ratio = ratio;
	}
	return 0;
}

/* Time a layout that fits and keep it if it is the best so far. */
static void search_time(search_state *st, const sizing_layout *lay,
			int nodes, int gpn, double total_bytes)
{
	search_cand c;
	sizing_time t;

	sizing_step_time(st->job, lay, &t);
	c.lay = *lay;
	c.nodes = nodes;
	c.gpn = gpn;
	c.total_bytes = total_bytes;
	c.tokens_per_s = t.step_s > 0 ? search_tokens_step(st, lay) / t.step_s
				      : 0;
	c.train_s = st->job->tokens > 0 && c.tokens_per_s > 0
		    ? st->job->tokens / c.tokens_per_s : 0;
	if (!st->have_best || search_better(st, &c, &st->best)) {
		st->best = c;
		st->have_best = 1;
	}
	if (c.tokens_per_s > 0 &&
	    (!st->have_ref || c.tokens_per_s / (nodes * gpn) >
	     st->ref.tokens_per_s / (st->ref.nodes * st->ref.gpn) *
	     (1 + SEARCH_TIE))) {
		st->ref = c;
		st->have_ref = 1;
	}
}

/* ZeRO stages worth trying, lowest first: the pinned one; none without
 * data parallelism; the distributed optimizer (1) with Megatron-style
 * TP/PP; 1-3 for plain data parallelism (FSDP / DeepSpeed). */
static int search_zero_stages(const autosize_request *r,
			      const sizing_layout *l, int *out)
{
	int n = 0, z;

	if (search_pinned(r->zero_stage)) {
		out[n++] = r->zero_stage;
		return n;
	}
	if (l->dp == 1) {
		out[n++] = 0;
		return n;
	}
	if (l->tp * l->pp > 1) {
		out[n++] = 1;
		return n;
	}
	for (z = 1; z <= 3; z++)
		out[n++] = z;
	return n;
}

/*
 * One recomputation setting of a (tp, pp, dp) shape: for each micro-batch
 * size the lowest ZeRO stage that fits, then the fitting sizes are timed.
 * Returns 1 when something fits.
 */
static int search_micro_batches(search_state *st, const sizing_layout *base,
				int nodes, int gpn)
{
	static const int free_mbs[] = {1, 2, 4, 8, 16};
	const autosize_request *r = st->req;
	double batch = st->job->global_batch;
	int pinned = search_pinned(r->micro_batch);
	int n = pinned ? 1 : (int)(sizeof(free_mbs) / sizeof(free_mbs[0]));
	int zs[4], nz = search_zero_stages(r, base, zs), i, j, found = 0;
	sizing_layout fit[5];
	double fit_bytes[5];

	for (i = 0; i < n; i++) {
		sizing_layout lay = *base;
		int mb = pinned ? r->micro_batch : free_mbs[i], ok = 0;
		double total = 0;
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
		for (j = 0; j < nz && !ok; j++) {
			lay.zero_stage = zs[j];
			ok = search_fits(st, &lay, nodes, gpn, &total);
		}
		if (!ok)
			break;      /* larger micro-batches need more memory */
		fit[found] = lay;
		fit_bytes[found++] = total;
	}
	/* Without a pipeline larger micro-batches only help: time the two
	 * largest; with one, the bubble grows as they do: time them all. */
	for (i = base->pp > 1 ? 0 : found - 2; i < found; i++)
		if (i >= 0)
			search_time(st, &fit[i], nodes, gpn, fit_bytes[i]);
	return found > 0;
}

/* Recomputation settings of a (tp, pp, dp) shape. */
static int search_shape(search_state *st, const sizing_layout *base,
			int nodes, int gpn)
{
	const autosize_request *r = st->req;
	sizing_layout lay = *base;
	int rc, any = 0;

	for (rc = 0; rc <= 2; rc++) {
		/* With FlashAttention selective saves nothing. */
		if (search_pinned(r->recompute)
		    ? rc != r->recompute
		    : (st->job->flash_attention &&
		       rc == AUTOSIZE_RECOMPUTE_SELECTIVE))
			continue;
		lay.recompute = (autosize_recompute)rc;
		any |= search_micro_batches(st, &lay, nodes, gpn);
	}
	return any;
}

/* 1 when tp is a candidate: pinned, or dividing the attention and
 * key/value heads inside a node (across nodes only when nothing fit
 * inside one: its collectives then cross the network). */
static int search_tp_ok(const search_state *st, int tp, int gpn)
{
	const autosize_model *m = st->job->model;
	int pin = st->req->tp;

	if (search_pinned(pin))
		return tp == pin;
	if (tp > gpn && !(st->wide_tp && tp % gpn == 0))
		return 0;
	return m->heads % tp == 0 && m->kv_heads % tp == 0;
}

/* 1 when pp is a candidate: pinned, or at least two layers a stage
 * (uneven stages are allowed; the time model charges the busiest). */
static int search_pp_ok(const search_state *st, int pp)
{
	int pin = st->req->pp;

	if (search_pinned(pin))
		return pp == pin;
	return pp == 1 || 2 * pp <= st->job->model->layers;
}

/*
 * The best layouts of nodes x gpn GPUs under the request's pins. Deeper
 * pipelines than SEARCH_PP_EXTRA past the shallowest that fits only add
 * bubble and are skipped. Returns 1 when something fits.
 */
static int search_at(search_state *st, int nodes, int gpn)
{
	const autosize_request *r = st->req;
	int gpus = nodes * gpn, tp, pp, any = 0;
	sizing_layout lay;

	memset(&lay, 0, sizeof(lay));
	lay.vp = search_pinned(r->interleave) ? r->interleave : 1;
	for (tp = 1; tp <= gpus; tp++) {
		int fitting_pps = 0;

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
			if (search_shape(st, &lay, nodes, gpn))
				fitting_pps++;
			if (fitting_pps > SEARCH_PP_EXTRA)
				break;
		}
	}
	return any | (st->have_best && st->best.nodes == nodes);
}

/* 1 when the best plan so far meets the deadline. */
static int search_met(const search_state *st)
{
	return st->have_best && st->best.train_s > 0 &&
	       st->best.train_s <= st->deadline_s;
}

/* n rounded up to the node step that pinned TP x PP allow. */
static int search_snap(const search_state *st, int n)
{
	return (n + st->n_step - 1) / st->n_step * st->n_step;
}

/* Probe about n nodes (snapped; beyond the partition's limit: skipped). */
static void search_probe(search_state *st, int n, int gpn)
{
	n = search_snap(st, n);
	if (n <= st->job->part->max_nodes_per_job)
		search_at(st, n, gpn);
}

/* Smallest node count in (lo, hi] for which probe() holds, given that it
 * holds at hi (a multiple of the node step). */
static int search_bisect(search_state *st, int lo, int hi, int gpn,
			 int (*probe)(const search_state *))
{
	int s = st->n_step, lo_u = lo / s, hi_u = hi / s;

	while (hi_u - lo_u > 1) {
		int mid_u = lo_u + (hi_u - lo_u) / 2;

		search_at(st, mid_u * s, gpn);
		if (probe(st) && st->best.nodes <= mid_u * s)
			hi_u = mid_u;
		else
			lo_u = mid_u;
	}
	return hi_u * s;
}

static int search_have_best(const search_state *st)
{
	return st->have_best;
}

/* Node counts after n: the few next ones, which divide the batch
 * differently. */
static void search_neighbours(search_state *st, int n, int gpn)
{
	int i, max_n = st->job->part->max_nodes_per_job;

	for (i = 1; i <= SEARCH_NEIGHBOURS && n + i * st->n_step <= max_n;
	     i++)
		search_at(st, n + i * st->n_step, gpn);
}

/* Cheapest meeting the deadline: skip sizes that cannot meet it even at
 * the best utilization the model allows, grow geometrically until one
 * meets it, then bisect back. */
static void search_cost_deadline(search_state *st, int gpn)
{
	const sizing_job *job = st->job;
	int max_n = job->part->max_nodes_per_job, n, prev;
	double flops = sizing_model_flops_per_token(job) * job->tokens;
	double g_lo = flops / (job->peak_flops * sizing_mfu_upper_bound() *
			       st->deadline_s);

	n = search_snap(st, (int)fmin(max_n, fmax(1, floor(g_lo / gpn))));
	prev = n - st->n_step;
	for (;;) {
		search_probe(st, n, gpn);
		if (search_met(st) || n >= max_n)
			break;
		prev = n;
		n = search_snap(st, (int)fmin(max_n, fmax(n + st->n_step,
						ceil(n * SEARCH_GROWTH))));
	}
	if (search_met(st)) {
		n = search_bisect(st, prev, st->best.nodes, gpn, search_met);
		search_neighbours(st, n, gpn);
		return;
	}
	/* Nothing meets it: the fastest, near the largest size. */
	for (n = (int)(max_n / SEARCH_GROWTH); n >= 1 &&
	     n > max_n / (SEARCH_GROWTH * SEARCH_GROWTH * SEARCH_GROWTH);
	     n = (int)(n / SEARCH_GROWTH))
		search_probe(st, n, gpn);
}

/* Fastest within the limits: the largest sizes, stepping down while
 * they keep getting faster. */
static void search_fastest(search_state *st, int gpn)
{
	int max_n = st->job->part->max_nodes_per_job, n, misses = 0;
	double best_t = 0;

	for (n = max_n; n >= 1 && misses < 3;
	     n = (int)fmin(n - 1, floor(n / SEARCH_GROWTH))) {
		search_probe(st, n, gpn);
		if (st->have_best && (best_t == 0 ||
				      st->best.train_s < best_t * 0.999)) {
			best_t = st->best.train_s;
			misses = 0;
		} else {
			misses++;
		}
	}
	if (st->have_best && st->best.nodes > 1)
		search_bisect(st, 0, st->best.nodes, gpn, search_have_best);
}

/* Smallest size that fits (no deadline, or no token budget). */
static void search_smallest(search_state *st, int gpn)
{
	int max_n = st->job->part->max_nodes_per_job, n = st->n_step, prev = 0;

	for (;;) {
		search_probe(st, n, gpn);
		if (st->have_best || n >= max_n)
			break;
		prev = n;
		n = search_snap(st, (int)fmin(max_n, fmax(n + st->n_step,
						ceil(n * SEARCH_GROWTH))));
	}
	if (!st->have_best)
		return;
	n = search_bisect(st, prev, st->best.nodes, gpn, search_have_best);
	search_neighbours(st, n, gpn);
}

/* With TP and PP pinned, only node counts whose GPUs they divide can
 * hold the layout: the smallest such step. */
static int search_node_step(const autosize_request *r, int gpn)
{
	long k, a, b, t;

	if (!search_pinned(r->tp) || !search_pinned(r->pp))
		return 1;
	k = (long)r->tp * r->pp;
	for (a = k, b = gpn; b; t = a % b, a = b, b = t)
		;
	return (int)(k / a > 65536 ? 65536 : k / a);
}

static autosize_err search_fixed(search_state *st, int gpn,
				 autosize_error *e)
{
	const autosize_request *r = st->req;
	int nodes = 1, g_node = r->gpus;

	if (r->gpus <= 0) {
		search_at(st, r->nodes, gpn);
		return AUTOSIZE_OK;
	}
	if (r->gpus > gpn) {
		if (r->gpus % gpn)
			return autosize_fail(e, AUTOSIZE_EINVAL,
					     "--gpus: %d is not a multiple of "
					     "%d GPUs per node", r->gpus, gpn);
		nodes = r->gpus / gpn;
		g_node = gpn;
	}
	if (r->nodes > 0 && r->nodes != nodes)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--gpus %d and --nodes %d disagree (%d "
				     "GPUs per node)", r->gpus, r->nodes, gpn);
	search_at(st, nodes, g_node);
	return AUTOSIZE_OK;
}

static void search_fill(const search_state *st, const search_cand *c,
			autosize_plan *plan)
{
	search_evaluate(st->job, &c->lay, c->nodes, c->gpn, plan);
}

/* A free size: the strategy of the objective. */
static void search_free(search_state *st, int gpn)
{
	const sizing_job *job = st->job;

	if (job->tokens > 0 && st->objective == AUTOSIZE_OBJECTIVE_TIME)
		search_fastest(st, gpn);
	else if (job->tokens > 0 && st->deadline_s > 0)
		search_cost_deadline(st, gpn);
	else
		search_smallest(st, gpn);
}

autosize_err search_run(const sizing_job *job, const autosize_request *r,
			double deadline_s, autosize_objective objective,
			search_result *res, autosize_error *e)
{
	search_state st;
	int gpn = job->part->gpus_per_node, g;
	autosize_err rc = AUTOSIZE_OK;

	memset(&st, 0, sizeof(st));
	st.job = job;
	st.req = r;
	st.deadline_s = deadline_s;
	st.objective = objective;
	if (r->gpus_per_node > 0)
		gpn = r->gpus_per_node;
	st.n_step = search_node_step(r, gpn);
	if (r->gpus > 0 || r->nodes > 0) {
		rc = search_fixed(&st, gpn, e);
	} else if (search_pinned(r->tp) && search_pinned(r->pp) &&
		   search_pinned(r->dp)) {
		/* The pins fix the size: tp x pp x dp GPUs. */
		autosize_request sized = *r;

		sized.gpus = r->tp * r->pp * r->dp;
		st.req = &sized;
		rc = search_fixed(&st, gpn, e);
		st.req = r;
	} else {
		/* Part of one node first: small jobs need not rent all. */
		if (r->gpus_per_node <= 0)
			for (g = 1; g < gpn; g *= 2)
				if (gpn % g == 0)
					search_at(&st, 1, g);
		search_free(&st, gpn);
	}
	if (rc)
		return rc;
	if (!st.have_best && !search_pinned(r->tp)) {
		/* Nothing fits with TP inside a node: let it span nodes. */
		st.wide_tp = 1;
		if (r->gpus > 0 || r->nodes > 0)
			rc = search_fixed(&st, gpn, e);
		else
			search_free(&st, gpn);
		if (rc)
			return rc;
	}
	/* Pins that the staged probes stepped over: every size up to a
	 * bound, one by one. */
	for (g = 1; !st.have_best && !st.have_miss &&
	     g <= job->part->max_nodes_per_job && g <= SEARCH_SCAN_NODES; g++)
		search_at(&st, g, gpn);
	if (!st.have_best && !st.have_miss)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "no layout matches the pinned values "
				     "(check --tp/--pp/--dp against the GPU "
				     "count and the model's heads and "
				     "layers)");
	memset(res, 0, sizeof(*res));
	search_fill(&st, st.have_best ? &st.best : &st.miss, &res->best);
	res->have_ref = st.have_ref;
	if (st.have_ref)
		search_fill(&st, &st.ref, &res->ref);
	res->evaluated = st.evaluated;
	return AUTOSIZE_OK;
}
