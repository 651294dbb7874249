/*
 * autosize: search node counts and parallel layouts for the best plan.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "comm.h"
#include "rank.h"
#include "search.h"
#include "framework_private.h"
#include "stages.h"

#define GIB (1024.0 * 1024.0 * 1024.0)
#define SEARCH_MAX_PP 128
/* TP degrees tried at one size (divisors of the heads: at most 64 for
 * head counts up to AUTOSIZE_MAX_HEADS). */
#define SEARCH_MAX_TPS 64
/* dp x micro-batch x accumulation may differ this much from the global
 * batch the user asked for. */
#define SEARCH_BATCH_TOLERANCE 0.05
/* A default batch is a multiple of this many sequences where it can be. */
#define SEARCH_BATCH_ROUND 16
_Static_assert((SEARCH_BATCH_ROUND & (SEARCH_BATCH_ROUND - 1)) == 0,
	       "search_grad_accum takes the gcd of a power of two");

/* Pipeline depths tried past the last one that improved the best plan
 * (deeper pipelines add bubble unless interleaving or less data-parallel
 * traffic pays for it). */
#define SEARCH_PP_EXTRA 2
/* Growth of probed node counts, and counts tried past the first good. */
#define SEARCH_GROWTH 1.25
#define SEARCH_NEIGHBOURS 3
/* Context parallelism is tried from this sequence length (tokens) on, up
 * to SEARCH_MAX_CP ranks; expert parallelism up to SEARCH_MAX_EP. 8k:
 * NVIDIA's Llama 3.1 405B recipe on H100 runs CP 2 at 8192 tokens
 * (dgxc-benchmarking llama3.1: TP 8, PP 8, CP 2, VP 8), which halves the
 * activations that 1F1B keeps for a whole model's layers in flight. */
#define SEARCH_CP_MIN_SEQ 8192
/* ...keeping at least this many tokens on each CP rank (32k over 16
 * ranks; ring attention's exchanges hide behind the chunk's compute). */
#define SEARCH_CP_MIN_CHUNK 2048
#define SEARCH_MAX_CP 16
#define SEARCH_MAX_EP 256
/* Interleaved (virtual) pipeline stages: at most this many per rank, and
 * only tried when the 1F1B bubble (p - 1) / m is at least this share. */
#define SEARCH_MAX_VP 8
#define SEARCH_VP_MIN_BUBBLE 0.05
/* Node counts scanned one by one when the staged probes found nothing. */
#define SEARCH_SCAN_NODES 256
/* The budget's clock is read every this many candidates: a system call
 * (0.3 us on a 2-core VM) against 256 candidates' 10-50 us of work, and
 * the cut-off overshoots by at most that much. */
#define SEARCH_CLOCK_EVERY 256
/* Divisors kept of the experts (EP): a number up to 4096
 * (AUTOSIZE_MAX_EXPERTS) has at most 60. */
#define SEARCH_MAX_DIVS 64

/* Micro-batch sizes tried, ascending (SEARCH_MBS of them at most). */
static const int search_free_mbs[] = {1, 2, 4, 8, 16};
#define SEARCH_MBS ((int)(sizeof(search_free_mbs) / sizeof(int)))

/* The micro-batch sizes of a data-parallel degree whose steps add up to
 * the batch, ascending, with their accumulation. */
typedef struct search_mbs {
	int n;
	int mb[SEARCH_MBS];
	int ga[SEARCH_MBS];
	int short_first;     /* 1: dp sequences alone exceed the batch */
} search_mbs;

/* search_mb_list's answers kept per search (a power of two). */
#define SEARCH_MBS_CACHE 32

/* A layout under consideration: just what ranking needs. */
typedef struct search_cand {
	sizing_layout lay;
	int nodes;
	int gpn;
	double total_bytes;
	double tokens_per_s;
	double train_s;
} search_cand;

/* The ZeRO stages a pass of search_at offers: all, those a pipeline
 * could run too (the depth scan), or those the framework runs only
 * without a pipeline (the solo pass). */
typedef enum search_zero_pass {
	SEARCH_ZERO_ALL,
	SEARCH_ZERO_PIPELINED,
	SEARCH_ZERO_SOLO
} search_zero_pass;

typedef struct search_state {
	const sizing_job *job; /* &at */
	sizing_job at;       /* the plan's job, at the GPUs per node of the
			      * size being tried (search_size_job) */
	const autosize_request *req;
	double deadline_s;
	autosize_objective objective;
	int have_best;
	long best_updates;   /* times best was replaced */
	search_cand best;
	int have_ref;
	search_cand ref;     /* best tokens/s per GPU */
	int have_miss;
	search_cand miss;    /* closest miss: smallest total / usable */
	double miss_ratio;
	long evaluated;
	search_budget *budget; /* shared by every search of one plan */
	int over_budget;     /* 1: stopped at the work budget */
	int batch_short;     /* 1: a size's DP alone exceeded the batch */
	int vp_batch_skip;   /* 1: a pinned --interleave skipped a size
			      * (search_vp_batch_ok) */
	int n_step;          /* node counts probed are multiples of this */
	int wide_tp;         /* 1: TP may span nodes (nothing else fit) */
	int tight;           /* 1: prune with the compute time itself
			      * (search_tight) */
	search_zero_pass zero_pass; /* which ZeRO stages search_zero_stages
				     * offers (search_at) */
	int solo_needed;     /* 1: without a pipeline, some micro-batch
			      * size did not fit at the depth scan's
			      * stages (search_micro_batches) */
	/* search_dominated_at's answers against one best (what ranks it)
	 * at one size: tokens/s known dominated up to dom_yes, known not
	 * from dom_no */
	int dom_nodes, dom_gpn;
	search_cand dom_best;
	double dom_yes, dom_no;
	/* search_mb_list's answers, by dp (0: none) */
	int mbs_dp[SEARCH_MBS_CACHE];
	search_mbs mbs[SEARCH_MBS_CACHE];
	double size_fastest; /* tokens/s of the fastest layout of the size
			      * search_at is trying */
	const framework_profile *fp; /* the job's framework profile */
	framework_profile fp_buf;    /* (fp points here) */
	int have_best_key;   /* best_key is the rank key of best_key_of */
	search_cand best_key_of;
	rank_key best_key;
	/* Megatron stage splits seen: 1 exists, -1 none, 0 not asked */
	signed char split[SEARCH_MAX_PP + 1][SEARCH_MAX_VP + 1];
	/* the divisors of the routed experts from 2 to SEARCH_MAX_EP (EP
	 * degrees), ascending: listed once per search, not once per
	 * shape */
	int expert_divs[SEARCH_MAX_DIVS], n_expert_divs;
} search_state;

/* CPU time of this thread (s): what the search's own work took, whether
 * or not the host gave the thread the processor meanwhile. */
static double search_clock_s(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void search_budget_init(search_budget *b, long limit, double max_s)
{
	memset(b, 0, sizeof(*b));
	b->limit = limit;
	b->max_s = max_s;
	if (max_s > 0)
		b->start_s = search_clock_s();
}

const char *search_budget_said(const search_budget *b, char *buf,
			       size_t len)
{
	if (b->out_of_time)
		snprintf(buf, len, "%.0f ms of CPU time", b->max_s * 1000);
	else
		snprintf(buf, len, "%ld candidates", b->limit);
	return buf;
}

/* Charge n candidates to the plan's budget: 0 (and the search stops)
 * when it is spent, by count or by time. */
static int search_charge(search_state *st, long n)
{
	search_budget *b = st->budget;

	if (b->used >= b->limit) {
		st->over_budget = 1;
		return 0;
	}
	b->used += n < b->limit - b->used ? n : b->limit - b->used;
	if (b->max_s > 0 && b->used >= b->next_check) {
		b->next_check = b->used + SEARCH_CLOCK_EVERY;
		if (search_clock_s() - b->start_s > b->max_s) {
			b->out_of_time = 1;
			b->limit = b->used;
		}
	}
	return 1;
}

/* A fresh plan with what does not depend on the layout: the size, the
 * model and its FLOPs. */
static void search_plan_size(const sizing_job *job, int nodes, int gpn,
			     autosize_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
	plan->part = *job->part;
	plan->nodes = nodes;
	plan->gpus_per_node = gpn;
	plan->gpus = nodes * gpn;
	plan->segment_nodes = autosize_segment_nodes(job->part, nodes,
						     job->segment_user_nodes);
	if (plan->segment_nodes < 2)  /* --segment=1 asks Slurm nothing */
		plan->segment_nodes = 0;
	plan->seq_len = job->seq_len;
	plan->params = job->model->params;
	plan->params_active = job->model->params_active;
	plan->tokens = job->tokens;
	plan->flops_total = sizing_model_flops_per_token(job) * job->tokens;
}

void search_evaluate(const sizing_job *job, const sizing_layout *lay,
		     int nodes, int gpus_per_node, autosize_plan *plan)
{
	sizing_time t;
	double tokens_step;
	sizing_job at;

	if (sizing_gpn(job) != gpus_per_node) {
		/* priced on the GPUs per node it runs on */
		at = *job;
		at.gpus_per_node = gpus_per_node;
		job = &at;
	}

	search_plan_size(job, nodes, gpus_per_node, plan);
	plan->tp = lay->tp;
	plan->pp = lay->pp;
	plan->dp = lay->dp;
	plan->zero_stage = lay->zero_stage;
	plan->micro_batch = lay->micro_batch;
	plan->grad_accum = lay->grad_accum;
	plan->recompute = lay->recompute;
	plan->recompute_layers = lay->recompute == AUTOSIZE_RECOMPUTE_FULL
				 ? lay->recompute_layers : 0;
	sizing_layout_stages(job, lay, &plan->stage_layers[0],
			     &plan->stage_layers[1], &plan->stage_layers[2]);
	plan->framework = framework_resolve(job->framework);
	plan->moe_dispatcher = sizing_layout_dispatcher(job, lay);
	plan->vp = lay->vp > 1 ? lay->vp : 1;
	plan->cp = SIZING_CP(lay);
	plan->ep = SIZING_EP(lay);
	plan->etp = job->model->experts > 1 ? sizing_etp(job, lay) : 0;
	snprintf(plan->perf_generation, sizeof(plan->perf_generation), "%s",
		 sizing_perf(job)->generation);
	plan->global_batch = lay->dp * lay->micro_batch * lay->grad_accum;
	sizing_memory(job, lay, &plan->mem);
	sizing_step_parts(job, lay, &t, &plan->step);
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

static void search_key(const search_state *st, const search_cand *c,
		       rank_key *k)
{
	k->feasible = 1;
	k->train_s = c->train_s;
	k->nodes = c->nodes;
	k->gpus = c->nodes * c->gpn;
	k->gpu_hours = c->train_s * k->gpus / 3600;
	/* what the partition's price schedule asks for this size (a
	 * whole node may cost less per GPU than a part of one); no price:
	 * GPU-hours decide */
	k->cost = autosize_price_cost(st->job->part, c->nodes, c->gpn,
				      c->train_s / 3600, -1, NULL);
	k->total_bytes = c->total_bytes;
	k->tokens_per_s = c->tokens_per_s;
	k->jobs = st->job->chain_s > 0 && c->train_s > st->job->chain_s
		  ? (int)fmin(ceil(c->train_s / st->job->chain_s), 1e9) : 1;
	k->exotic = rank_exotic(st->job->model->layers, c->lay.pp,
				c->lay.vp);
	k->unchecked = framework_gathers_experts(st->job, &c->lay);
}

/* 1 when a and b are the same candidate: field by field (the struct's
 * padding is never written; sizing_layout has none). */
static int search_cand_same(const search_cand *a, const search_cand *b)
{
	return a->nodes == b->nodes && a->gpn == b->gpn &&
	       a->total_bytes == b->total_bytes &&
	       a->tokens_per_s == b->tokens_per_s &&
	       a->train_s == b->train_s &&
	       memcmp(&a->lay, &b->lay, sizeof(a->lay)) == 0;
}

/* 1 when candidate c is better than the current best b (rank.c). */
static int search_better(search_state *st, const search_cand *c,
			 const search_cand *b)
{
	rank_key kc;

	search_key(st, c, &kc);
	/* b is the best, compared with every timed layout: its key (a
	 * price look-up) is kept while b stays the same */
	if (!st->have_best_key || !search_cand_same(&st->best_key_of, b)) {
		search_key(st, b, &st->best_key);
		st->best_key_of = *b;
		st->have_best_key = 1;
	}
	return rank_better(&kc, &st->best_key, st->objective, st->deadline_s);
}

/* Memory check of a layout; a miss is remembered when nothing fits yet.
 * Returns 1 when it fits. */
static int search_fits(search_state *st, const sizing_layout *lay,
		       int nodes, int gpn, double *total_bytes)
{
	autosize_memory mem;
	double ratio;

	if (!search_charge(st, 1))
		return 0;      /* no more layouts: bounded work */
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

/* Time a layout that fits and keep it if it is the best so far; returns
 * its tokens/s. */
static double search_time(search_state *st, const sizing_layout *lay,
			int nodes, int gpn, double total_bytes)
{
	search_cand c;
	sizing_time t;

	if (!search_charge(st, 1))
		return 0;
	sizing_step_time(st->job, lay, &t);
	c.lay = *lay;
	c.nodes = nodes;
	c.gpn = gpn;
	c.total_bytes = total_bytes;
	c.tokens_per_s = t.step_s > 0 ? search_tokens_step(st, lay) / t.step_s
				      : 0;
	c.train_s = sizing_steps_s(st->job, lay, c.tokens_per_s) /
		    sizing_goodput(st->job, (double)nodes * gpn);
	if (c.tokens_per_s > st->size_fastest)
		st->size_fastest = c.tokens_per_s;
	/* A tie (within RANK_TIE) goes to less memory, but ties must not
	 * chain: each layout within 0.5% of the last, the best drifts to
	 * one well behind the fastest of its size (PP 4 for DP 4 on 4
	 * GPUs, and 4 -> 8 GPUs looks superlinear). */
	if (!st->have_best ||
	    (!(c.nodes == st->best.nodes && c.gpn == st->best.gpn &&
	       c.tokens_per_s < st->size_fastest * (1 - RANK_TIE)) &&
	     search_better(st, &c, &st->best))) {
		st->best = c;
		st->best_updates++;
		st->have_best = 1;
	}
	if (c.tokens_per_s > 0 &&
	    (!st->have_ref || c.tokens_per_s / (nodes * gpn) >
	     st->ref.tokens_per_s / (st->ref.nodes * st->ref.gpn) *
	     (1 + RANK_TIE))) {
		st->ref = c;
		st->have_ref = 1;
	}
	return c.tokens_per_s;
}

/*
 * Micro-batches per step per data-parallel rank for a step of batch
 * sequences taken per_step (dp x micro-batch) at a time; 0 when none
 * works. A batch the user gave is never changed: per_step must divide it.
 * The default batch may move within SEARCH_BATCH_TOLERANCE to the nearest
 * round count (a multiple of SEARCH_BATCH_ROUND) that per_step divides,
 * so the plan's batch is 1008 on 3 ranks, not 1023.
 */
static long search_grad_accum(double batch, long per_step, int exact)
{
	long step, total, a;

	if (per_step < 1 || batch < per_step)
		return 0;
	if (exact)
		return fmod(batch, (double)per_step) == 0
		       ? (long)(batch / per_step) : 0;
	/* lcm(per_step, SEARCH_BATCH_ROUND), a power of two: the gcd is
	 * per_step's lowest set bit capped at it (no division: this runs
	 * for every micro-batch of every shape) */
	a = per_step & -per_step;
	if (a > SEARCH_BATCH_ROUND)
		a = SEARCH_BATCH_ROUND;
	step = (per_step >> __builtin_ctzl((unsigned long)a)) *
	       SEARCH_BATCH_ROUND;
	total = (long)(batch / step + 0.5) * step;   /* positive: rounds */
	if (total < step)
		total = step;
	if (fabs((double)total - batch) > SEARCH_BATCH_TOLERANCE * batch) {
		/* no round count near: the nearest multiple of per_step */
		total = (long)(batch / per_step + 0.5) * per_step;
		if (fabs((double)total - batch) >
		    SEARCH_BATCH_TOLERANCE * batch)
			return 0;
	}
	return total / per_step;
}

/* ZeRO stages worth trying, lowest first: the pinned one when the
 * framework runs it on this shape, else the framework's own list
 * (framework.c). */
static int search_zero_stages(const search_state *st, const sizing_layout *l,
			      int *out)
{
	sizing_layout pinned = *l;

	if (!search_pinned(st->req->zero_stage)) {
		int all[4], n = framework_zero_stages(st->job, l, all), k, m = 0;
		int pipe_max = st->fp->zero_max_pp;

		/* the depth scan takes the stages a pipeline could run too,
		 * the solo pass the others (search_depths, search_solo) */
		for (k = 0; k < n; k++)
			if (st->zero_pass == SEARCH_ZERO_ALL ||
			    (st->zero_pass == SEARCH_ZERO_PIPELINED) ==
			    (all[k] <= pipe_max))
				out[m++] = all[k];
		return m;
	}
	if (st->zero_pass == SEARCH_ZERO_SOLO)
		return 0;   /* the pinned stage had its turn */
	pinned.zero_stage = st->req->zero_stage;
	/* with dp 1 too: a stage the framework cannot run with this
	 * pipeline is no plan, even with nothing to shard */
	if (!framework_layout_ok(st->job, &pinned))
		return 0;
	out[0] = st->req->zero_stage;
	return 1;
}

/* 1 when Megatron can split the model's layers over pp stages of vp
 * virtual stages each (other frameworks: always). */
static int search_split_ok(search_state *st, int pp, int vp)
{
	int first, middle, last, ok;

	if (pp <= 1 || framework_resolve(st->job->framework) !=
		       AUTOSIZE_FRAMEWORK_MEGATRON)
		return 1;
	if (pp <= SEARCH_MAX_PP && vp <= SEARCH_MAX_VP && st->split[pp][vp])
		return st->split[pp][vp] > 0;
	ok = stages_megatron_split(st->job->model->layers, pp, vp, &first,
				   &middle, &last) >= 0;
	if (pp <= SEARCH_MAX_PP && vp <= SEARCH_MAX_VP)
		st->split[pp][vp] = ok ? 1 : -1;
	return ok;
}

/* 1 when the framework's interleaved schedule can run lay's
 * micro-batches (framework_vp_group: Megatron refuses fewer than pp, or
 * a remainder no group size absorbs; torch's Interleaved1F1B a count its
 * rounds do not divide). */
static int search_vp_batch_ok(const search_state *st,
			      const sizing_layout *lay)
{
	return framework_vp_group(st->job->framework, lay->pp, lay->vp,
				  lay->grad_accum) > 0;
}

/*
 * Interleaved (virtual) pipeline stages per rank worth trying besides one:
 * the largest divisor of the layers on a stage up to SEARCH_MAX_VP
 * (Megatron: whole layers per virtual stage; interleaved 1F1B, Narayanan
 * et al. 2021 section 2.2.2: bubble (p - 1) / (m v) for v times the p2p
 * traffic and more activations in flight). 1 when pinned, without a
 * pipeline, or where the framework has no interleaved schedule.
 */
static int search_vp_max(const search_state *st, int pp)
{
	const framework_profile *fp = st->fp;
	int per = sizing_stage_layers(st->job->model, pp), v;

	if (search_pinned(st->req->interleave) || pp <= 1 || !fp->vp_ok)
		return 1;
	for (v = per < SEARCH_MAX_VP ? per : SEARCH_MAX_VP; v > 1; v--)
		if (per % v == 0)
			return v;
	return 1;
}

/* 1 when the search may recompute part of lay's layers: full
 * recomputation it chose itself, under a framework with Megatron's block
 * method, more layers on a stage than virtual stages. */
static int search_partial_ok(const search_state *st, const sizing_layout *lay)
{
	int vp = lay->vp > 1 ? lay->vp : 1;

	return lay->recompute == AUTOSIZE_RECOMPUTE_FULL &&
	       !search_pinned(st->req->recompute) &&
	       sizing_stage_layers(st->job->model, lay->pp) > vp &&
	       st->fp->block_recompute;
}

/* The layers per pipeline rank lay recomputes before the search counts
 * them (sizing_layout.recompute_layers): --recompute-layers of each
 * virtual stage where the framework runs Megatron's block method and
 * that is fewer than the stage holds, else 0 (all of them). */
static int search_layers_of(const search_state *st, const sizing_layout *lay)
{
	int vp = lay->vp > 1 ? lay->vp : 1;
	int per = sizing_stage_layers(st->job->model, lay->pp);
	int n = st->req->recompute_layers;

	if (lay->recompute != AUTOSIZE_RECOMPUTE_FULL ||
	    !search_pinned(n) || !st->fp->block_recompute ||
	    n >= (per + vp - 1) / vp)
		return 0;
	return n * vp;
}

/*
 * lay fits with every layer recomputed: the fewest layers per pipeline
 * rank (a multiple of vp) Megatron's block method must recompute for it
 * to fit, into lay and *total_bytes. Each stage's memory falls linearly
 * with each layer recomputed (sizing_recompute_keep_layers), so the count
 * is placed directly and checked (a layout or two).
 */
static void search_recompute_least(search_state *st, sizing_layout *lay,
				   int nodes, int gpn, double *total_bytes)
{
	int vp = lay->vp > 1 ? lay->vp : 1, r;
	int per = sizing_stage_layers(st->job->model, lay->pp);
	sizing_layout t = *lay;
	double keep, b = 0;

	lay->recompute_layers = search_layers_of(st, lay);
	if (!search_partial_ok(st, lay))
		return;
	keep = sizing_recompute_keep_layers(st->job, lay);
	if (keep < 1 || keep == HUGE_VAL)
		return;
	/* a hair over floor: keep is exact where a count just fits */
	r = keep < per ? per - (int)floor(keep + 1e-9) : vp;
	r = r < vp ? vp : (r + vp - 1) / vp * vp;
	for (; r < per && !st->over_budget; r += vp) {
		t.recompute_layers = r;
		if (search_fits(st, &t, nodes, gpn, &b)) {
			*lay = t;
			*total_bytes = b;
			return;
		}
	}
}

/* Tokens/s lay cannot beat: its step at the compute bound
 * (sizing_microbatch_bound_s, the bubble of vp_max interleaving, no
 * memory); 0 when there is none. */
static double search_bound_tps(const search_state *st,
			       const sizing_layout *lay, int vp_max)
{
	double slots = lay->grad_accum, step_lb;

	if (lay->pp > 1)
		slots += (lay->pp - 1.0) / vp_max;
	step_lb = slots * sizing_microbatch_bound_s(st->job, lay);
	return step_lb > 0 ? search_tokens_step(st, lay) / step_lb : 0;
}

/* 1 when a and b rank alike against any layout (search_key). */
static int search_same_rank(const search_cand *a, const search_cand *b)
{
	return a->tokens_per_s == b->tokens_per_s && a->train_s == b->train_s &&
	       a->total_bytes == b->total_bytes && a->nodes == b->nodes &&
	       a->gpn == b->gpn;
}

/*
 * 1 when a layout of nodes x gpn that runs at most tps tokens/s (a bound
 * of its speed, unmeasured) cannot become the best plan nor the best
 * speed per GPU: it is slower than the fastest of its size by more than
 * the tie when the best is of this size (search_time refuses those), or
 * ranks below the best (rank.c ranks faster and smaller never worse).
 */
static int search_dominated_at(search_state *st, const sizing_layout *lay,
			       int nodes, int gpn, double tps)
{
	search_cand c;

	if (!st->have_best || st->job->mfu_fixed > 0 || tps <= 0)
		return 0;
	c.tokens_per_s = tps;
	if (st->best.nodes == nodes && st->best.gpn == gpn)
		return c.tokens_per_s < st->size_fastest * (1 - RANK_TIE);
	if (!st->have_ref || c.tokens_per_s / (nodes * gpn) >
	    st->ref.tokens_per_s / (st->ref.nodes * st->ref.gpn))
		return 0;
	/* search_tight: the rank is monotone in tokens/s, so answers
	 * against the same best at the same size bracket the next (not
	 * with evaluations: their time follows the layout's forward share
	 * too, sizing_steps_s) */
	if (st->tight && !(st->job->eval_tokens > 0) &&
	    nodes == st->dom_nodes && gpn == st->dom_gpn &&
	    search_same_rank(&st->dom_best, &st->best)) {
		if (tps <= st->dom_yes)
			return 1;
		if (tps >= st->dom_no)
			return 0;
	} else {
		st->dom_nodes = nodes;
		st->dom_gpn = gpn;
		st->dom_best = st->best;
		st->dom_yes = 0;
		st->dom_no = HUGE_VAL;
	}
	c.lay = *lay;
	c.nodes = nodes;
	c.gpn = gpn;
	c.total_bytes = 0;
	c.train_s = sizing_steps_s(st->job, lay, c.tokens_per_s) /
		    sizing_goodput(st->job, (double)nodes * gpn);
	if (!search_better(st, &c, &st->best)) {
		st->dom_yes = fmax(st->dom_yes, tps);
		return 1;
	}
	st->dom_no = fmin(st->dom_no, tps);
	return 0;
}

/* 1 when lay, unmeasured, cannot win even at its compute bound with the
 * bubble of vp_max interleaving (search_bound_tps). */
static int search_dominated(search_state *st, const sizing_layout *lay,
			    int nodes, int gpn, int vp_max)
{
	if (!st->have_best)
		return 0;
	/* past the budget nothing more is timed */
	return !search_charge(st, 1) ||
	       search_dominated_at(st, lay, nodes, gpn,
				   search_bound_tps(st, lay, vp_max));
}

/* Time lay with the deepest interleaving up to vp_max that divides the
 * stage's vp_per layers and fits, where the 1F1B bubble is worth
 * shrinking. Under partial recomputation a shallower interleaving may
 * recompute fewer layers: shallower ones are timed too while they are
 * faster. */
static void search_interleave(search_state *st, const sizing_layout *lay,
			      int vp_max, int vp_per, int nodes, int gpn)
{
	sizing_layout il = *lay;
	double il_bytes, tps, last = 0;

	/* --moe-overlap under Megatron needs interleaving with a pipeline
	 * (framework_moe_overlap_ok): worth trying whatever the bubble */
	if ((il.pp - 1.0) / il.grad_accum < SEARCH_VP_MIN_BUBBLE &&
	    !(st->job->moe_overlap && SIZING_EP(&il) > 1))
		return;
	il.vp = vp_max;
	if (!search_vp_batch_ok(st, &il))
		return;
	for (il.vp = vp_max; il.vp > 1; il.vp--) {
		if (vp_per % il.vp || !search_split_ok(st, il.pp, il.vp))
			continue;
		il.recompute_layers = search_layers_of(st, &il);
		if (!search_fits(st, &il, nodes, gpn, &il_bytes))
			continue;
		if (search_dominated(st, &il, nodes, gpn, il.vp))
			return;
		search_recompute_least(st, &il, nodes, gpn, &il_bytes);
		tps = search_time(st, &il, nodes, gpn, il_bytes);
		if (il.recompute != AUTOSIZE_RECOMPUTE_FULL || tps < last)
			return;
		last = tps;
	}
}

/*
 * The micro-batch sizes tried at dp, into out: those where dp x mb
 * sequences per micro-step fit the global batch and the steps add up to
 * it (within 5%). A larger size past the batch is never tried.
 */
static void search_mb_list_of(const search_state *st, int dp,
			      search_mbs *out)
{
	const autosize_request *r = st->req;
	double batch = st->job->global_batch;
	int pinned = search_pinned(r->micro_batch);
	int n = pinned ? 1 : SEARCH_MBS, i, mb;
	long ga;

	out->n = 0;
	out->short_first = 0;
	for (i = 0; i < n; i++) {
		mb = pinned ? r->micro_batch : search_free_mbs[i];
		if ((double)dp * mb > batch) {
			out->short_first = i == 0;
			return;
		}
		ga = search_grad_accum(batch, (long)dp * mb,
				       search_pinned(r->global_batch) &&
				       r->global_batch > 0);
		if (ga < 1)
			continue;
		out->mb[out->n] = mb;
		out->ga[out->n++] = (int)ga;
	}
}

/* search_mb_list_of, kept by dp for the rest of the search (the same dp
 * recurs at many sizes and shapes). */
static void search_mb_list(search_state *st, int dp, search_mbs *out)
{
	int slot = dp & (SEARCH_MBS_CACHE - 1);

	if (st->mbs_dp[slot] != dp) {
		if (!search_charge(st, SEARCH_MBS)) {
			memset(out, 0, sizeof(*out));
			return;
		}
		search_mb_list_of(st, dp, &st->mbs[slot]);
		st->mbs_dp[slot] = dp;
	}
	*out = st->mbs[slot];
}

/* base at the i-th size of mbs. */
static void search_mb_layout(const sizing_layout *base, const search_mbs *mbs,
			     int i, sizing_layout *lay)
{
	*lay = *base;
	lay->micro_batch = mbs->mb[i];
	lay->grad_accum = mbs->ga[i];
}

/*
 * A speed no layout of setting (its shape, recomputation and layers
 * recomputed) beats at any micro-batch size of mbs, ZeRO stage or
 * interleaving up to vp_max, unmeasured (search_tight): sizing_step_time
 * charges the compute of a micro-batch (sizing_microbatch_compute_s)
 * grad_accum times plus once per bubble slot, every other term it adds
 * is >= 0, and the ZeRO stage does not change it. From the compute of
 * the largest size M alone: a micro-batch's compute per sequence never
 * grows with its size (GEMMs run at least as efficiently on more
 * tokens, the per-layer overheads are shared; test_compute_bound), so M
 * bounds every mb's from below by mb / M of its own, and the bubble's
 * share is least at the most micro-batches. A relative 1e-12 below it
 * keeps the bound under the step's own rounding.
 */
static double search_mbs_bound_tps(const search_state *st,
				   const sizing_layout *setting,
				   const search_mbs *mbs, int vp_max)
{
	sizing_layout lay;
	double mb_s, slots;
	int i, ga = 0;

	if (mbs->n < 1)
		return 0;
	for (i = 0; i < mbs->n; i++)
		if (mbs->ga[i] > ga)
			ga = mbs->ga[i];
	search_mb_layout(setting, mbs, mbs->n - 1, &lay);
	slots = ga + (lay.pp > 1 ? (lay.pp - 1.0) / vp_max : 0);
	mb_s = sizing_microbatch_compute_s(st->job, &lay) * (1 - 1e-12);
	return mb_s > 0 ? (double)st->job->seq_len * lay.micro_batch * ga *
			  lay.dp / (slots * mb_s) : 0;
}

/* What the recomputation settings of a shape share. */
typedef struct search_shape_ctx {
	const search_mbs *mbs;   /* its micro-batch sizes */
	int vp_max;              /* search_vp_max of its pp */
	int zs[4], nz;           /* its ZeRO stages (search_zero_stages) */
	double none_tps;         /* search_mbs_bound_tps without
				  * recomputation; < 0: not yet */
} search_shape_ctx;

/*
 * search_tight: 1 when no layout of one recomputation setting base of a
 * shape can win, before any memory: at the shape's bound without
 * recomputation (the least compute any setting has: recomputing only
 * adds work; test_compute_bound), else at the setting's own with the
 * fewest layers it may recompute (one of a stage where
 * search_recompute_least places a count, else all). Nothing that
 * setting would time could change the search (search_dominated_at),
 * provided ranking never prefers the slower of two layouts of one size:
 * not so under the cost objective with rental discounts (a longer rental
 * may cost less), nor where a pinned interleaving runs deeper than the
 * vp_max the bound assumes.
 */
static int search_mbs_dominated(search_state *st, const sizing_layout *base,
				search_shape_ctx *sh, int nodes, int gpn)
{
	sizing_layout lay = *base;

	if (!st->tight || !st->have_best)
		return 0;
	/* past the budget nothing more is timed */
	if (!search_charge(st, 2))
		return 1;
	if (sh->none_tps < 0) {
		lay.recompute = AUTOSIZE_RECOMPUTE_NONE;
		lay.recompute_layers = 0;
		sh->none_tps = search_mbs_bound_tps(st, &lay, sh->mbs,
						    sh->vp_max);
		lay = *base;
	}
	if (search_dominated_at(st, base, nodes, gpn, sh->none_tps))
		return 1;
	if (base->recompute == AUTOSIZE_RECOMPUTE_NONE)
		return 0;
	lay.recompute_layers = search_partial_ok(st, &lay)
			       ? 1 : search_layers_of(st, &lay);
	return search_dominated_at(st, base, nodes, gpn,
		search_mbs_bound_tps(st, &lay, sh->mbs, sh->vp_max));
}

/* 1 when micro-batch i of mbs may not fit where a larger one does: a
 * stack that accumulates under no_sync holds unsharded gradients only
 * while a step has several micro-batches (framework_fsdp_grads_held),
 * so memory drops where the largest size takes the batch in one. */
static int search_mbs_held_drop(const search_state *st,
				const search_mbs *mbs, int i)
{
	return st->job->stack && st->job->stack->accum_no_sync &&
	       framework_resolve(st->job->framework) ==
	       AUTOSIZE_FRAMEWORK_FSDP &&
	       mbs->ga[i] > 1 && mbs->ga[mbs->n - 1] == 1;
}

/* 1 when one recomputation setting of a shape fits at all, as
 * search_micro_batches finds it: its smallest micro-batch size fits at
 * one of the ZeRO stages (larger ones need more memory). */
static int search_mbs_fit(search_state *st, const sizing_layout *base,
			  const search_mbs *mbs, const int *zs, int nz,
			  int nodes, int gpn)
{
	sizing_layout lay;
	double total;
	int i, j, n_try, try_i[2];

	if (mbs->n < 1)
		return 0;
	/* the smallest, and the largest where held gradients go */
	try_i[0] = 0;
	try_i[1] = mbs->n - 1;
	n_try = search_mbs_held_drop(st, mbs, 0) ? 2 : 1;
	for (i = 0; i < n_try; i++) {
		search_mb_layout(base, mbs, try_i[i], &lay);
		for (j = 0; j < nz; j++) {
			lay.zero_stage = zs[j];
			if (search_fits(st, &lay, nodes, gpn, &total))
				return 1;
		}
	}
	return 0;
}

/*
 * One recomputation setting of a (tp, pp, dp) shape: for each micro-batch
 * size the lowest ZeRO stage that fits, then the fitting sizes are timed.
 * Returns 1 when something fits; where nothing can win, 0 unless need_fit
 * (whether it fits decides nothing more).
 */
static int search_micro_batches(search_state *st, const sizing_layout *base,
				search_shape_ctx *sh, int need_fit, int nodes,
				int gpn)
{
	const search_mbs *mbs = sh->mbs;
	int i, j, found = 0, nz = sh->nz, vp_max = sh->vp_max;
	const int *zs = sh->zs;
	int vp_per = sizing_stage_layers(st->job->model, base->pp);
	int best_i = -1;
	double best_tps = 0;
	sizing_layout fit[SEARCH_MBS];
	double fit_bytes[SEARCH_MBS];

	st->batch_short |= mbs->short_first;
	if (search_mbs_dominated(st, base, sh, nodes, gpn))
		return need_fit && search_mbs_fit(st, base, mbs, zs, nz, nodes,
						  gpn);
	for (i = 0; i < mbs->n; i++) {
		sizing_layout lay;
		int ok = 0;
		double total = 0;

		search_mb_layout(base, mbs, i, &lay);
		if (!search_vp_batch_ok(st, &lay)) {
			st->vp_batch_skip = 1;  /* a pinned --interleave */
			continue;
		}
		for (j = 0; j < nz && !ok; j++) {
			lay.zero_stage = zs[j];
			ok = search_fits(st, &lay, nodes, gpn, &total);
		}
		if (!ok && search_mbs_held_drop(st, mbs, i) &&
		    i < mbs->n - 1) {
			/* held gradients go only at one micro-batch a
			 * step: the largest size, next */
			i = mbs->n - 2;
			continue;
		}
		if (!ok)
			break;      /* larger micro-batches need more memory */
		fit[found] = lay;
		fit_bytes[found++] = total;
	}
	/* a stage the depth scan did not offer could fit what did not */
	if (found < mbs->n && base->pp == 1 &&
	    st->zero_pass == SEARCH_ZERO_PIPELINED)
		st->solo_needed = 1;
	/* Without a pipeline larger micro-batches only help: time the two
	 * largest; with one, the bubble grows as they do: time them all,
	 * then interleave the fastest and the largest (the largest bubble)
	 * where that fits. */
	for (i = base->pp > 1 ? 0 : found - 2; i < found; i++) {
		double tps;

		if (i < 0 || search_dominated(st, &fit[i], nodes, gpn, vp_max))
			continue;
		search_recompute_least(st, &fit[i], nodes, gpn, &fit_bytes[i]);
		tps = search_time(st, &fit[i], nodes, gpn, fit_bytes[i]);
		if (tps > best_tps) {
			best_tps = tps;
			best_i = i;
		}
	}
	if (best_i >= 0 && vp_max > 1) {
		search_interleave(st, &fit[best_i], vp_max, vp_per, nodes, gpn);
		if (best_i != found - 1)
			search_interleave(st, &fit[found - 1], vp_max, vp_per,
					  nodes, gpn);
	}
	return found > 0;
}

/* The recomputation the request pins (AUTOSIZE_UNSET: none pinned).
 * A stack that recomputes whole layers only (perf.yaml recompute: full:
 * the HF Trainer's gradient_checkpointing, torchtune's
 * enable_activation_checkpointing) runs a pinned selective setting as
 * full recomputation, and is priced so; selective-mlp is Megatron-Core's
 * recompute module "mlp", which the other frameworks run as their own
 * selective setting (torchtitan's op-level checkpointing: launch.c
 * launch_titan_recompute), planned so (plan.c says both). */
static int search_recompute_pin(const search_state *st)
{
	int pin = st->req->recompute;

	if (search_pinned(pin) && pin != AUTOSIZE_RECOMPUTE_NONE &&
	    st->job->stack && st->job->stack->recompute_whole)
		return AUTOSIZE_RECOMPUTE_FULL;
	if (pin == AUTOSIZE_RECOMPUTE_SELECTIVE_MLP &&
	    framework_resolve(st->job->framework) !=
	    AUTOSIZE_FRAMEWORK_MEGATRON)
		return AUTOSIZE_RECOMPUTE_SELECTIVE;
	return pin;
}

/* Recomputation settings of a (tp, pp, dp) shape, at the micro-batch
 * sizes mbs of its dp. */
static int search_shape(search_state *st, const sizing_layout *base,
			const search_mbs *mbs, int nodes, int gpn)
{
	static const autosize_recompute order[] = {
		AUTOSIZE_RECOMPUTE_NONE, AUTOSIZE_RECOMPUTE_SELECTIVE,
		AUTOSIZE_RECOMPUTE_FULL, AUTOSIZE_RECOMPUTE_SELECTIVE_MLP};
	sizing_layout lay = *base;
	int i, rc, any = 0, none_fits = 0, full_fits = 0;
	int pin = search_recompute_pin(st);
	int whole = st->job->stack && st->job->stack->recompute_whole;
	search_shape_ctx sh;

	sh.mbs = mbs;
	sh.vp_max = search_vp_max(st, base->pp);
	sh.nz = search_zero_stages(st, base, sh.zs);
	sh.none_tps = -1;

	for (i = 0; i < 4; i++) {
		rc = order[i];
		/* With FlashAttention selective saves nothing; the MLP too
		 * (Megatron's recompute modules) only where nothing fits
		 * without recomputation and something with it; a stack of
		 * whole layers runs neither. */
		if (search_pinned(pin)
		    ? rc != pin
		    : (whole && rc != AUTOSIZE_RECOMPUTE_NONE &&
		       rc != AUTOSIZE_RECOMPUTE_FULL) ||
		      (st->job->flash_attention &&
		       rc == AUTOSIZE_RECOMPUTE_SELECTIVE &&
		       !framework_op_sac(st->job)) ||
		      (rc == AUTOSIZE_RECOMPUTE_SELECTIVE_MLP &&
		       (none_fits || !full_fits ||
			framework_resolve(st->job->framework) !=
			AUTOSIZE_FRAMEWORK_MEGATRON)))
			continue;
		lay.recompute = (autosize_recompute)rc;
		lay.recompute_layers = search_layers_of(st, &lay);
		/* whether a setting fits counts towards any, and full
		 * recomputation's decides the MLP's where nothing fits
		 * without */
		if (rc == AUTOSIZE_RECOMPUTE_NONE)
			any |= none_fits = search_micro_batches(st, &lay, &sh,
								1, nodes, gpn);
		else if (rc == AUTOSIZE_RECOMPUTE_FULL)
			any |= full_fits = search_micro_batches(st, &lay, &sh,
								!none_fits,
								nodes, gpn);
		else
			any |= search_micro_batches(st, &lay, &sh, !any,
						    nodes, gpn);
	}
	return any;
}

/* The divisors of the routed experts from 2 to SEARCH_MAX_EP, ascending,
 * that search_eps picks from: listed once per search, not once per
 * shape. */
static void search_list_expert_divisors(search_state *st)
{
	const autosize_model *m = st->job->model;
	int d;

	for (d = 2; d <= m->experts && d <= SEARCH_MAX_EP &&
	     st->n_expert_divs < SEARCH_MAX_DIVS; d++)
		if (m->experts % d == 0)
			st->expert_divs[st->n_expert_divs++] = d;
}

/* The job priced on nodes of gpn of its GPUs: what shares a node, its
 * NVLink domain and its NICs (sizing_gpn) for every layout of the
 * size. */
static void search_size_job(search_state *st, int gpn)
{
	st->at.gpus_per_node = gpn;
}

/* 1 when a group of span consecutive ranks of gpus GPUs on nodes of
 * gpn (the size search_size_job set) talks on the node's own link:
 * inside a node, or inside the partition's multi-node NVLink domain
 * (comm_in_domain) */
static int search_on_link(const search_state *st, int span, int gpn,
			  int gpus)
{
	return span <= gpn || (st->job->part->domain_nodes > 1 &&
			       comm_in_domain(st->job, span, gpus));
}

/*
 * TP degrees worth trying on nodes x gpn GPUs, ascending, into out (at
 * most SEARCH_MAX_TPS): the pinned one, or the divisors of the attention
 * heads that split the key/value heads or replicate them
 * (framework_heads_ok) and divide the GPUs per node (collectives on the
 * node's own link), or span whole nodes of a multi-node NVLink domain
 * (search_on_link); degrees that span whole nodes past it only when
 * nothing fit inside (wide_tp). Iterating divisors keeps the work independent of
 * the GPU count.
 */
static int search_tp_candidates(const search_state *st, int gpus, int gpn,
				 int *out)
{
	const autosize_model *m = st->job->model;
	const autosize_partition *part = st->job->part;
	int d, top, n = 0, pin = st->req->tp;
	/* the GPUs on the node's own link: a multi-node NVLink domain
	 * (GB200 NVL72) holds several nodes */
	int dom = part->domain_nodes > 1 ? part->domain_nodes * gpn : gpn;

	if (search_pinned(pin)) {
		if (pin >= 1 && gpus % pin == 0)
			out[n++] = pin;
		return n;
	}
	if (!st->fp->tp_ok || !st->fp->searched) {
		out[n++] = 1;     /* data parallel only */
		return n;
	}
	/* int, not long: 32-bit divisions in the loop (heads and GPU
	 * counts are ints); past the node only whole nodes inside the
	 * NVLink domain (comm_in_domain), or where wide_tp allows */
	top = st->wide_tp || dom > m->heads ? m->heads : dom;
	for (d = 1; d <= top && n < SEARCH_MAX_TPS; d++) {
		if (m->heads % d || gpus % d ||
		    !framework_heads_ok(st->job, d, 1))
			continue;
		if (d <= gpn ? gpn % d == 0
			     : d % gpn == 0 &&
			       (st->wide_tp || search_on_link(st, d, gpn, gpus)))
			out[n++] = d;
	}
	return n;
}

/* 1 when pp is a candidate: pinned, or at least two layers a stage
 * (uneven stages are allowed; the time model charges the busiest). */
static int search_pp_ok(search_state *st, int pp)
{
	int pin = st->req->pp;

	if (search_pinned(pin))
		return pp == pin;
	if (!st->fp->pp_ok || !st->fp->searched)
		return pp == 1;
	return pp == 1 || (2 * pp <= st->job->model->layers &&
			   search_split_ok(st, pp, 1));
}

/* The deepest pipeline search_pp_ok may allow (the candidates are the
 * divisors up to it). */
static int search_pp_max(const search_state *st)
{
	int pin = st->req->pp, most = st->job->model->layers / 2;

	if (search_pinned(pin))
		most = pin;
	else if (!st->fp->pp_ok || !st->fp->searched)
		return 1;
	return most < 1 ? 1 : most < SEARCH_MAX_PP ? most : SEARCH_MAX_PP;
}

/*
 * Context-parallel sizes for a TP degree on `gpus` GPUs, into out (at most
 * 4): the pinned one; 1 for sequences below SEARCH_CP_MIN_SEQ or where
 * the framework has none; else 1 and the powers of two up to
 * SEARCH_MAX_CP that divide the GPUs left and keep 2 cp chunks of the
 * sequence whole (Megatron's load-balanced split), inside a node with TP
 * when they can; under DeepSpeed-Ulysses only sizes whose split of the
 * heads works (framework_heads_ok).
 */
static int search_cps(const search_state *st, int tp, int gpus, int *out)
{
	const framework_profile *fp = st->fp;
	int pin = st->req->cp, n = 0, cp;

	if (search_pinned(pin)) {
		if ((gpus / tp) % pin == 0)
			out[n++] = pin;
		return n;
	}
	out[n++] = 1;
	if (st->job->seq_len < SEARCH_CP_MIN_SEQ || !fp->cp_ok ||
	    !fp->searched)
		return n;
	for (cp = 2; cp <= SEARCH_MAX_CP && n < 4; cp *= 2)
		if ((gpus / tp) % cp == 0 && st->job->seq_len % (2 * cp) == 0 &&
		    st->job->seq_len / cp >= SEARCH_CP_MIN_CHUNK &&
		    framework_heads_ok(st->job, tp, cp))
			out[n++] = cp;
	return n;
}

/*
 * Expert-parallel sizes for a shape, into out (at most 4): the pinned
 * one; 1 for a dense model or where the framework has none; else 1, the
 * largest that keeps the EP group inside a node (or NVLink domain:
 * search_on_link) at the framework's expert TP and, under Megatron with
 * TP > 1, at expert TP 1 (search_etps), and the largest
 * overall: divisors of the experts that divide tp x dp x cp (with expert
 * TP 1 when ep does not fit in dp x cp).
 */
static int search_eps(const search_state *st, const sizing_layout *l,
		      int gpn, int *out)
{
	const framework_profile *fp = st->fp;
	int experts = st->job->model->experts, pin = st->req->ep;
	/* Megatron folds the experts over TP x DP x CP ranks; DeepSpeed-MoE
	 * splits only the data-parallel ranks into expert groups (its
	 * groups assert DP % EP == 0) */
	int d = fp->id == AUTOSIZE_FRAMEWORK_DEEPSPEED
		? l->dp : l->tp * l->dp * SIZING_CP(l);
	int n = 0, e, in_node = 1, in_node1 = 1, any = 1, i;
	int whole = l->tp > 1 && fp->id == AUTOSIZE_FRAMEWORK_MEGATRON;
	sizing_layout t = *l;

	if (search_pinned(pin)) {
		if (d % pin == 0)
			out[n++] = pin;
		return n;
	}
	out[n++] = 1;
	if (experts <= 1 || !fp->ep_ok || !fp->searched)
		return n;
	for (i = 0; i < st->n_expert_divs && st->expert_divs[i] <= d; i++) {
		e = st->expert_divs[i];
		if (d % e)
			continue;
		any = e;
		t.ep = e;
		if (search_on_link(st, e * sizing_etp(st->job, &t), gpn,
				   SIZING_GPUS(l)))
			in_node = e;
		/* whole experts: the EP group alone spans the link */
		if (whole && search_on_link(st, e, gpn, SIZING_GPUS(l)))
			in_node1 = e;
	}
	if (in_node > 1)
		out[n++] = in_node;
	if (in_node1 > in_node)
		out[n++] = in_node1;
	if (any > in_node1 && any > in_node)
		out[n++] = any;
	return n;
}

/*
 * Expert TP variants of l, as its etp_one values, into out (at most 2);
 * 0 when none. The framework's rule (sizing_etp: TP while ep fits in dp
 * x cp); under Megatron with TP > 1 and the rule's TP, expert TP 1 as
 * well (--expert-tensor-parallel-size 1, as Megatron-Bridge's MoE
 * recipes run it: whole experts, no gather of the routed tokens over the
 * TP ranks: sizing_etp_gather). A pinned --etp: 1, or the rule's where
 * it is the pin.
 */
static int search_etps(const search_state *st, const sizing_layout *l,
		       int *out)
{
	int pin = st->req->etp, rule;
	sizing_layout t = *l;

	t.etp_one = 0;
	out[0] = 0;
	/* a pinned expert TP above 1 is a TP of that size */
	if (search_pinned(pin) && pin > 1 && l->tp != pin)
		return 0;
	if (st->job->model->experts <= 1 || l->tp <= 1)
		return 1;
	rule = sizing_etp(st->job, &t);
	if (search_pinned(pin)) {
		out[0] = pin == 1;
		return pin == 1 || pin == rule;
	}
	if (rule > 1 && SIZING_EP(l) > 1 && st->fp->searched &&
	    st->fp->id == AUTOSIZE_FRAMEWORK_MEGATRON) {
		out[1] = 1;
		return 2;
	}
	return 1;
}

/* The divisors of q up to max, ascending (the pipeline depths a TP
 * degree leaves): trial division to sqrt(q) only. */
static int search_divisors(int q, int max, int *out)
{
	int hi[SEARCH_MAX_PP], n = 0, nh = 0, d;

	for (d = 1; d <= max && d * d <= q; d++)
		if (q % d == 0) {
			out[n++] = d;
			if (q / d != d && q / d <= max)
				hi[nh++] = q / d;
		}
	while (nh > 0)
		out[n++] = hi[--nh];
	return n;
}

/* 1 when the framework runs ZeRO stages without a pipeline that it
 * cannot run with one, and the request leaves the stage to the search. */
static int search_solo_stages(const search_state *st)
{
	int z;

	if (search_pinned(st->req->zero_stage))
		return 0;
	for (z = st->fp->zero_max_pp + 1; z <= st->fp->zero_max; z++)
		if (framework_stage_ok(st->fp, z))
			return 1;
	return 0;
}

/* One TP degree at one size, with the context-parallel degrees it
 * allows (search_cps). */
typedef struct search_size {
	int nodes;
	int gpn;
	int tp;
	int cps[4];
	int n_cp;
} search_size;

/* The shapes of one pipeline depth of sz: its context-, data- and
 * expert-parallel degrees, each through search_shape. 1 when one
 * fits. */
static int search_depth(search_state *st, const search_size *sz, int pp)
{
	const autosize_request *r = st->req;
	int gpus = sz->nodes * sz->gpn, c, k, fit = 0;
	sizing_layout lay;

	/* Megatron-Core's MoE layers refuse to train with TP and without
	 * sequence parallelism (moe_layer.py, MoELayer.forward) */
	if (sz->tp > 1 && r->sequence_parallel == 0 &&
	    st->job->model->experts > 1 &&
	    st->fp->id == AUTOSIZE_FRAMEWORK_MEGATRON)
		return 0;
	memset(&lay, 0, sizeof(lay));
	/* interleaving splits a pipeline: none at one stage (Megatron
	 * refuses virtual stages without one) */
	lay.vp = search_pinned(r->interleave) && pp > 1 ? r->interleave : 1;
	lay.tp = sz->tp;
	lay.pp = pp;
	lay.sp = sz->tp > 1 && r->sequence_parallel != 0;
	for (c = 0; c < sz->n_cp; c++) {
		int eps[4], n_ep;
		search_mbs mbs;

		if ((gpus / sz->tp / pp) % sz->cps[c])
			continue;
		if (!search_charge(st, 1))
			break;
		lay.cp = sz->cps[c];
		lay.dp = gpus / (sz->tp * pp * sz->cps[c]);
		if (search_pinned(r->dp) && lay.dp != r->dp)
			continue;
		/* the EP candidates at the framework's expert TP, not at
		 * the last shape's variant */
		lay.etp_one = 0;
		n_ep = search_eps(st, &lay, sz->gpn, eps);
		search_mb_list(st, lay.dp, &mbs);
		for (k = 0; k < n_ep && search_charge(st, 1); k++) {
			int etps[2], n_etp, x;

			lay.ep = eps[k];
			n_etp = search_etps(st, &lay, etps);
			for (x = 0; x < n_etp; x++) {
				lay.etp_one = etps[x];
				fit |= search_shape(st, &lay, &mbs, sz->nodes,
						    sz->gpn);
			}
		}
	}
	return fit;
}

/*
 * The depth scan of sz: the pipeline depths its TP degree leaves,
 * shallow first, at the ZeRO stages a pipeline could run too, stopping
 * SEARCH_PP_EXTRA fitting depths past the last one that improved (a
 * depth that speeds up this size counts as an improvement too: the best
 * of another size may beat this size's shallow pipelines and still lose
 * to a deeper one; 4 nodes of an 8B model: PP 8 is 3% cheaper than PP
 * 1-4, which lose to 3 nodes). 0 when the budget ran out.
 */
static int search_depths(search_state *st, const search_size *sz)
{
	int pps[SEARCH_MAX_PP], n_pp, j, fitting_pps = 0;

	n_pp = search_divisors(sz->nodes * sz->gpn / sz->tp,
			       search_pp_max(st), pps);
	st->zero_pass = SEARCH_ZERO_PIPELINED;
	for (j = 0; j < n_pp && fitting_pps <= SEARCH_PP_EXTRA; j++) {
		double fastest = st->size_fastest;
		long updates = st->best_updates;

		if (!search_pp_ok(st, pps[j]))
			continue;
		if (!search_charge(st, 1))
			return 0;
		if (search_depth(st, sz, pps[j]))
			fitting_pps = st->best_updates != updates ||
				      st->size_fastest > fastest *
				      (1 + RANK_TIE)
				      ? 0 : fitting_pps + 1;
	}
	return 1;
}

/* Past the depth scan, no pipeline again at the ZeRO stages the
 * framework runs only without one (Megatron-FSDP), where some
 * micro-batch size did not fit at the scan's: a mode of its own that
 * must neither stop the scan early nor be skipped by it. */
static void search_solo(search_state *st, const search_size *sz)
{
	if (!st->solo_needed || !search_solo_stages(st) ||
	    !search_pp_ok(st, 1))
		return;
	st->zero_pass = SEARCH_ZERO_SOLO;
	if (search_charge(st, 1))
		search_depth(st, sz, 1);
}

/* The best layouts of nodes x gpn GPUs under the request's pins: per TP
 * degree, the depth scan, then the solo pass. */
static void search_at(search_state *st, int nodes, int gpn)
{
	int tps[SEARCH_MAX_TPS], n_tp, i;
	search_size sz;

	if (!search_charge(st, 1))
		return;
	search_size_job(st, gpn);
	st->size_fastest = 0;
	sz.nodes = nodes;
	sz.gpn = gpn;
	n_tp = search_tp_candidates(st, nodes * gpn, gpn, tps);
	for (i = 0; i < n_tp && search_charge(st, 1); i++) {
		sz.tp = tps[i];
		sz.n_cp = search_cps(st, sz.tp, nodes * gpn, sz.cps);
		st->solo_needed = 0;
		if (search_depths(st, &sz))
			search_solo(st, &sz);
		st->zero_pass = SEARCH_ZERO_ALL;
	}
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

/*
 * The smallest node count >= n of the form m x 2^k, m in 4..7 (4, 5, 6,
 * 7, 8, 10, 12, 14, 16, 20, ...: steps of 14-25%). Probing such counts
 * keeps the GPUs divisible by TP x PP x CP and the batch: 2012 nodes
 * (4 x 503) hold few layouts where 2048 holds them all.
 */
static int search_round_up(int n)
{
	int k = 0;

	if (n <= 4)
		return n < 1 ? 1 : n;
	while ((n >> k) > 7)
		k++;
	return ((n + (1 << k) - 1) >> k) << k;
}

/* The place of such a count (>= 4) in that list: 4 is 0, 5 is 1, 8 is
 * 4; the count of place i is (4 + i % 4) << (i / 4). */
static int search_round_index(int n)
{
	int k = 0;

	while ((n >> k) > 7)
		k++;
	return 4 * k + (n >> k) - 4;
}

/* The largest count <= n of that form. */
static int search_round_down(int n)
{
	int k = 0;

	if (n <= 4)
		return n;
	while ((n >> k) > 7)
		k++;
	return (n >> k) << k;
}

/* Cheapest meeting the deadline: skip sizes that cannot meet it even at
 * the best utilization the model allows, grow by round counts until one
 * meets it, then bisect back. */
static void search_cost_deadline(search_state *st, int gpn)
{
	const sizing_job *job = st->job;
	int max_n = job->part->max_nodes_per_job, n, prev;
	double flops = sizing_model_flops_per_token(job) * job->tokens;
	double g_lo = flops / (job->peak_flops * sizing_mfu_upper_bound(job) *
			       st->deadline_s);

	n = search_snap(st, (int)fmin(max_n, search_round_down((int)fmin(
		max_n, fmax(1, floor(g_lo / gpn))))));
	prev = n - st->n_step;
	for (;;) {
		search_probe(st, n, gpn);
		if (search_met(st) || n >= max_n)
			break;
		prev = n;
		n = search_snap(st, (int)fmin(max_n, fmax(n + st->n_step,
						search_round_up(n + 1))));
	}
	if (search_met(st)) {
		int k;

		n = search_bisect(st, prev, st->best.nodes, gpn, search_met);
		search_neighbours(st, n, gpn);
		/* past the smallest size that meets it, a round count
		 * may divide the batch into a cheaper layout (13B on
		 * A100: 512 GPUs at TP 2 are 12% cheaper than 448 at PP 7
		 * with uneven virtual stages) */
		for (k = 0; k < SEARCH_NEIGHBOURS; k++) {
			n = search_round_up(n + 1);
			if (n > max_n)
				break;
			search_probe(st, n, gpn);
		}
		return;
	}
	/* Nothing meets it: the fastest, near the largest size. */
	for (n = search_round_down(max_n - 1); n >= 1 &&
	     n > max_n / (SEARCH_GROWTH * SEARCH_GROWTH * SEARCH_GROWTH);
	     n = search_round_down(n - 1))
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

static long search_gcd(long a, long b)
{
	long t;

	for (; b; t = a % b, a = b, b = t)
		;
	return a;
}

/* With TP and PP pinned, only node counts whose GPUs they divide can
 * hold the layout: the smallest such step. A job's own --segment on a
 * multi-node NVLink domain (topology/block): multiples of it too, which
 * Slurm can place (autosize_segment_nodes). */
static int search_node_step(const sizing_job *job,
			    const autosize_request *r, int gpn)
{
	long k = 1, seg = job->segment_user_nodes;

	if (search_pinned(r->tp) && search_pinned(r->pp)) {
		k = (long)r->tp * r->pp * (search_pinned(r->cp) ? r->cp : 1);
		k /= search_gcd(k, gpn);
	}
	if (seg > 1 && job->part->domain_nodes > 1)
		k = k / search_gcd(k, seg) * seg;
	return (int)(k > 65536 ? 65536 : k);
}

/* The size a request pins (--gpus, --nodes, or TP x PP x DP), as nodes
 * x GPUs per node; 0 when the size is free. */
static autosize_err search_pinned_size(const autosize_request *r, int gpn,
				       int *nodes, int *g_node,
				       autosize_error *e)
{
	long gpus = r->gpus;

	*nodes = 0;
	*g_node = gpn;
	if (gpus <= 0 && search_pinned(r->tp) && search_pinned(r->pp) &&
	    search_pinned(r->dp) && r->nodes <= 0)
		gpus = (long)r->tp * r->pp * r->dp *
		       (search_pinned(r->cp) ? r->cp : 1);
	if (gpus <= 0) {
		if (r->nodes > 0)
			*nodes = r->nodes;
		return AUTOSIZE_OK;
	}
	*nodes = 1;
	*g_node = (int)(gpus < gpn ? gpus : gpn);
	if (gpus > gpn) {
		if (gpus % gpn)
			return autosize_fail(e, AUTOSIZE_EINVAL,
					     "--gpus: %ld is not a multiple of "
					     "%d GPUs per node", gpus, gpn);
		*nodes = (int)(gpus / gpn);
	}
	if (r->nodes > 0 && r->nodes != *nodes)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--gpus %ld and --nodes %d disagree (%d "
				     "GPUs per node)", gpus, r->nodes, gpn);
	return AUTOSIZE_OK;
}

/*
 * A pinned size that nothing fits: the plan says that size and why, never
 * another size. A size past the partition's limit is refused before any
 * layout is tried (bounded work whatever the request).
 */
static void search_pinned_miss(const search_state *st, int nodes, int gpn,
			       autosize_plan *plan)
{
	const sizing_job *job = st->job;

	search_plan_size(job, nodes, gpn, plan);
	plan->global_batch = job->global_batch;
	plan->mem.usable_bytes = job->usable_bytes;
	if (nodes > job->part->max_nodes_per_job)
		snprintf(plan->reason, sizeof(plan->reason),
			 "the %d nodes asked for exceed partition %s's limit "
			 "of %d per job", nodes, job->part->name,
			 job->part->max_nodes_per_job);
	else if (st->vp_batch_skip)
		snprintf(plan->reason, sizeof(plan->reason),
			 "--interleave %d needs at least as many "
			 "micro-batches per step as pipeline stages on %d "
			 "GPUs (global batch %d): raise --train-batch or use "
			 "--interleave 1", st->req->interleave, nodes * gpn,
			 job->global_batch);
	else if (st->batch_short)
		snprintf(plan->reason, sizeof(plan->reason),
			 "%d GPUs cannot share a global batch of %d "
			 "sequences (each data-parallel rank needs at least "
			 "one): raise --train-batch or use fewer GPUs",
			 nodes * gpn, job->global_batch);
	else if (st->over_budget)
		snprintf(plan->reason, sizeof(plan->reason),
			 "no layout of %d x %d GPUs was found within the "
			 "search's work budget", nodes, gpn);
	else
		snprintf(plan->reason, sizeof(plan->reason),
			 "no layout of %d x %d GPUs matches the pinned values "
			 "(check --tp/--pp/--dp against the GPU count and the "
			 "model's heads and layers)", nodes, gpn);
}

/* Why a split the request pins cannot run under job's profile fp:
 * what narrowed it (framework_profile.why), or the framework. */
static autosize_err search_split_refusal(const sizing_job *job,
					 const framework_profile *fp,
					 const char *opt, framework_cap cap,
					 autosize_error *e)
{
	const char *name = autosize_framework_name(fp->id);
	char those[64];

	switch (fp->why) {
	case FRAMEWORK_WHY_OFFLOAD:
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--param-offload: parameters are "
				     "offloaded from data-parallel ZeRO-3 "
				     "shards (FSDP, DeepSpeed); leave "
				     "--tp/--pp/--cp/--ep at 1");
	case FRAMEWORK_WHY_STACK:
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: stack %s does not run it (%s); use "
				     "--train-stack=torchtitan or nemo, or "
				     "leave %s out", opt, job->stack->name,
				     job->stack->splits == PERFDATA_SPLITS_NONE
				     ? "data parallel only"
				     : "tensor and context parallelism only",
				     opt);
	case FRAMEWORK_WHY_PEFT_DS:
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: %s under deepspeed runs ZeRO and "
				     "Ulysses sequence parallelism (--cp) "
				     "only; use --train-framework=fsdp or "
				     "megatron", opt,
				     autosize_train_mode_name(job->train_mode));
	case FRAMEWORK_WHY_QLORA_MEG:
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: qlora under megatron runs without "
				     "tensor parallelism (NeMo's NF4 layers); "
				     "use --train-framework=fsdp, or --pp",
				     opt);
	default:
		break;
	}
	framework_offering(cap, 0, those, sizeof(those));
	if (cap == FRAMEWORK_CAP_CP)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--cp: %s has no context parallelism "
				     "(use --train-framework=%s)", name, those);
	if (cap == FRAMEWORK_CAP_VP)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--interleave: %s has no interleaved "
				     "pipeline schedule (use "
				     "--train-framework=%s)", name, those);
	return autosize_fail(e, AUTOSIZE_EINVAL, "%s: %s does not run it "
			     "(use --train-framework=%s)", opt, name, those);
}

/* --moe-dispatcher where nothing dispatches as it says: a dense model,
 * or a framework whose experts exchange tokens their own way. */
static autosize_err search_dispatcher_pin(const sizing_job *job,
					  const autosize_request *r,
					  const framework_profile *fp,
					  autosize_error *e)
{
	static const char stacks[] = "use --train-stack=megatron, nemo, "
				     "torchtitan or automodel, or ";
	const char *d = autosize_moe_dispatcher_name(r->moe_dispatcher);
	char who[40];

	if (r->moe_dispatcher == AUTOSIZE_MOE_DISPATCH_DEFAULT)
		return AUTOSIZE_OK;
	if (job->model->experts <= 1)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--moe-dispatcher %s: the model has no "
				     "routed experts; drop it", d);
	if (r->moe_dispatcher == AUTOSIZE_MOE_DISPATCH_ALLTOALL)
		return AUTOSIZE_OK;
	/* a stack or setting without expert parallelism exchanges no
	 * tokens; DeepSpeed-MoE runs its own all-to-all (a copy per routed
	 * expert). Under a stack, the fix is another stack (a framework
	 * would contradict it) */
	if (job->stack)
		snprintf(who, sizeof(who), "stack %s", job->stack->name);
	else
		snprintf(who, sizeof(who), "%s",
			 autosize_framework_name(fp->id));
	if (!fp->ep_ok)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--moe-dispatcher %s: %s runs no expert "
				     "parallelism here, so nothing is "
				     "dispatched (%sdrop --moe-dispatcher)", d,
				     who, job->stack ? stacks : "");
	if (fp->id == AUTOSIZE_FRAMEWORK_DEEPSPEED)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--moe-dispatcher %s: %s runs "
				     "DeepSpeed-MoE, which sends a copy per "
				     "routed expert (%s--moe-dispatcher="
				     "alltoall)", d, who,
				     job->stack ? stacks
				     : "use --train-framework=megatron or fsdp, "
				     "or ");
	return AUTOSIZE_OK;
}

/* Pins the job's framework cannot run: one error naming both. */
static autosize_err search_framework_pins(const sizing_job *job,
					  const autosize_request *r,
					  const framework_profile *fp,
					  autosize_error *e)
{
	const char *name = autosize_framework_name(fp->id);
	char those[64];

	if (job->param_offload && !fp->param_offload)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--param-offload: %s keeps its "
				     "parameters on the GPU (use "
				     "--train-framework=%s)", name,
				     framework_offering(
					FRAMEWORK_CAP_PARAM_OFFLOAD, 0, those,
					sizeof(those)));
	if (search_pinned(r->tp) && r->tp > 1 && !fp->tp_ok)
		return search_split_refusal(job, fp, "--tp", FRAMEWORK_CAP_TP,
					    e);
	if (search_pinned(r->pp) && r->pp > 1 && !fp->pp_ok)
		return search_split_refusal(job, fp, "--pp", FRAMEWORK_CAP_PP,
					    e);
	if (search_pinned(r->cp) && r->cp > 1 && !fp->cp_ok)
		return search_split_refusal(job, fp, "--cp", FRAMEWORK_CAP_CP,
					    e);
	if (search_pinned(r->ep) && r->ep > 1 && !fp->ep_ok)
		return search_split_refusal(job, fp, "--ep", FRAMEWORK_CAP_EP,
					    e);
	if (search_pinned(r->interleave) && r->interleave > 1 &&
	    job->model->mamba_layers > 0)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--interleave: Megatron-Core runs a "
				     "hybrid model's pipeline without virtual "
				     "stages unless its layer pattern carries "
				     "'|' stage marks; use --interleave=1");
	if (search_pinned(r->interleave) && r->interleave > 1 && !fp->vp_ok)
		return search_split_refusal(job, fp, "--interleave",
					    FRAMEWORK_CAP_VP, e);
	if (search_pinned(r->cp) && r->cp > 1 &&
	    job->model->mamba_layers > 0 &&
	    !framework_heads_ok(job, search_pinned(r->tp) ? r->tp : 1, r->cp))
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--cp: a hybrid's Mamba heads split "
				     "over TP x CP under Megatron-Core (no "
				     "DeepSpeed-Ulysses): %d x TP must divide "
				     "the model's %d Mamba heads, its %d groups "
				     "split or shared whole", r->cp,
				     job->model->mamba_heads,
				     job->model->mamba_groups);
	if (job->param_offload && search_pinned(r->zero_stage) &&
	    r->zero_stage != 3)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--param-offload: parameters are "
				     "offloaded from their ZeRO-3 shards (use "
				     "--zero 3, or leave --zero out)");
	if (search_pinned(r->zero_stage) &&
	    !framework_stage_ok(fp, r->zero_stage))
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--zero: %s does not run ZeRO-%d (use "
				     "--train-framework=%s)", name,
				     r->zero_stage, framework_offering(
					FRAMEWORK_CAP_ZERO, r->zero_stage,
					those, sizeof(those)));
	if (search_pinned(r->zero_stage) && search_pinned(r->pp) &&
	    r->pp > 1 && r->zero_stage > fp->zero_max_pp)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--zero: %s runs ZeRO-%d at most with "
				     "pipeline parallelism (--pp %d)", name,
				     fp->zero_max_pp, r->pp);
	if (search_pinned(r->cp) && r->cp > 1 &&
	    framework_cp_ulysses(fp->id) &&
	    !framework_heads_ok(job, search_pinned(r->tp) ? r->tp : 1, r->cp))
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--cp: DeepSpeed-Ulysses splits the "
				     "attention heads; %d x TP does not "
				     "divide the model's %d heads", r->cp,
				     job->model->heads);
	if (search_pinned(r->ep) && r->ep > 1 &&
	    (job->model->experts <= 1 || job->model->experts % r->ep))
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--ep: %d must divide the model's "
				     "routed experts (%d)", r->ep,
				     job->model->experts);
	if (r->sequence_parallel == 0 && search_pinned(r->tp) && r->tp > 1 &&
	    job->model->experts > 1 && fp->id == AUTOSIZE_FRAMEWORK_MEGATRON)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--sequence-parallel off: Megatron-Core's "
				     "MoE layers refuse TP %d without sequence "
				     "parallelism (leave it on, or use --tp 1)",
				     r->tp);
	if (search_pinned(r->etp) && job->model->experts <= 1)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--etp: the model has no routed experts "
				     "to split (leave --etp out)");
	if (search_pinned(r->etp) &&
	    fp->id != AUTOSIZE_FRAMEWORK_MEGATRON &&
	    (r->etp > 1 || fp->id != AUTOSIZE_FRAMEWORK_FSDP))
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--etp: expert tensor parallelism is "
				     "Megatron-LM's (%s keeps its experts "
				     "whole%s); leave --etp out, or use "
				     "--train-framework=megatron", name,
				     fp->id == AUTOSIZE_FRAMEWORK_FSDP
				     ? ": --etp 1" : "");
	if (search_pinned(r->etp) && r->etp > 1 && search_pinned(r->tp) &&
	    r->etp != r->tp)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--etp: %d must be 1 or the TP size "
				     "(--tp %d): the plan splits an expert "
				     "over all of the TP ranks or none",
				     r->etp, r->tp);
	if (search_pinned(r->ep) && search_pinned(r->zero_stage) &&
	    framework_ep_zero_refused(fp->id, r->ep, r->zero_stage))
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--ep: DeepSpeed-MoE does not run under "
				     "ZeRO-3 (use --zero 1 or 2, or "
				     "--train-framework=%s)",
				     framework_offering(FRAMEWORK_CAP_EP_ZERO,
							r->zero_stage, those,
							sizeof(those)));
	return search_dispatcher_pin(job, r, fp, e);
}

/* What a layout's step loses most to besides its compute. */
static search_loss search_loss_of(const sizing_job *job,
				  const sizing_layout *lay)
{
	sizing_time t;
	search_loss loss = SEARCH_LOSS_BUBBLE;
	double most;

	sizing_step_time(job, lay, &t);
	most = t.bubble_s;
	if (t.pp_comm_s > most) {
		most = t.pp_comm_s;
		loss = SEARCH_LOSS_PIPELINE;
	}
	if (t.dp_comm_s > most) {
		most = t.dp_comm_s;
		loss = SEARCH_LOSS_GRADIENTS;
	}
	if (t.tp_comm_s > most)
		loss = SEARCH_LOSS_MODEL;
	return loss;
}

/* Speed per GPU of c as a share of the best speed per GPU seen. */
static double search_eff(const search_state *st, const search_cand *c)
{
	double ref = st->have_ref ? st->ref.tokens_per_s /
				    (st->ref.nodes * st->ref.gpn) : 0;

	return ref > 0 ? c->tokens_per_s / (c->nodes * c->gpn) / ref : 1;
}

/*
 * The cost objective grows the size until the deadline is met; past the
 * size where each GPU runs below the job's min_scaling of the best speed
 * per GPU (the global batch cannot feed more: few micro-batches per
 * pipeline, the bubble, communication), more GPUs mostly wait. Keep the
 * largest size that scales, bisecting between the best-scaling size and
 * the chosen one, and say what was wanted in res.
 */
static void search_cap(search_state *st, int gpn, search_result *res)
{
	search_cand chosen = st->best, keep;
	int lo, hi, mid, n, k;

	if (st->job->min_scaling <= 0)
		return;
	/* the search started near the deadline's size: the speed per GPU
	 * of a few smaller sizes, where the batch feeds every GPU */
	for (k = 4; k <= 64; k *= 4)
		if (chosen.nodes / k >= 1)
			search_at(st, search_snap(st, search_round_down(
					      chosen.nodes / k)), gpn);
	st->best = chosen;
	if (!st->have_ref || search_eff(st, &chosen) >= st->job->min_scaling)
		return;
	/* bisect over the round counts between them (search_round_up) */
	keep = st->ref;
	lo = st->ref.gpn < gpn || st->ref.nodes < 4
	     ? -1 : search_round_index(search_round_down(st->ref.nodes));
	hi = search_round_index(search_round_up(chosen.nodes > 4
						? chosen.nodes : 4));
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		n = search_snap(st, (4 + mid % 4) << (mid / 4));
		st->have_best = 0;
		if (n < chosen.nodes)
			search_at(st, n, gpn);
		if (n < chosen.nodes && st->have_best &&
		    search_eff(st, &st->best) >= st->job->min_scaling) {
			keep = st->best;
			lo = mid;
		} else {
			hi = mid;
		}
	}
	st->best = keep;
	st->have_best = 1;
	res->capped_gpus = chosen.nodes * chosen.gpn;
	res->capped_eff = search_eff(st, &chosen);
	search_size_job(st, chosen.gpn);
	res->capped_loss = search_loss_of(st->job, &chosen.lay);
}

static void search_fill(search_state *st, const search_cand *c,
			autosize_plan *plan)
{
	search_size_job(st, c->gpn);
	search_evaluate(st->job, &c->lay, c->nodes, c->gpn, plan);
}

/* Nothing fitted before the budget ran out: the plan says so, not only
 * that the closest miss does not fit (a layout past what was tried
 * may). */
static void search_stopped(const search_state *st, autosize_plan *plan)
{
	char spent[64];
	size_t n = strlen(plan->reason);

	plan->feasible = 0;
	search_budget_said(st->budget, spent, sizeof(spent));
	if (n > 0)
		snprintf(plan->reason + n, sizeof(plan->reason) - n, "; the "
			 "search stopped at its work budget (%s) before trying "
			 "every layout", spent);
	else
		snprintf(plan->reason, sizeof(plan->reason), "the search "
			 "stopped at its work budget (%s) before any layout on "
			 "partition %s fitted: pin the size (--nodes, --gpus) "
			 "or the layout (--tp, --pp) to narrow it", spent,
			 st->job->part->name);
}

/* Doublings of the best size tried where it holds gradients for its
 * micro-batches: each halves the accumulation (16 to 1). */
#define SEARCH_HELD_DOUBLINGS 4

/* Held gradients (a no_sync stack under FSDP: framework_fsdp_grads_held)
 * go once a step is one micro-batch, which more data-parallel ranks
 * give: the cost jumps there, past the few neighbours the strategies
 * probe, so the sizes that halve the accumulation are tried too and
 * the ranking decides (70B under hf at TP 8 and 64 sequences a step:
 * 64 GPUs at one micro-batch cost 30% less than 32 at 16). */
static void search_held_sizes(search_state *st, int gpn)
{
	int k, n;

	if (!st->have_best ||
	    !framework_fsdp_grads_held(st->job, &st->best.lay))
		return;
	for (k = 1, n = st->best.nodes; k <= SEARCH_HELD_DOUBLINGS; k++) {
		n *= 2;
		if (n > st->job->part->max_nodes_per_job)
			break;
		search_probe(st, n, gpn);
	}
}

/* A free size: the strategy of the objective. */
static void search_free(search_state *st, int gpn)
{
	const sizing_job *job = st->job;

	if (job->tokens > 0 && st->objective == AUTOSIZE_OBJECTIVE_TIME) {
		search_fastest(st, gpn);
		return;
	}
	if (job->tokens > 0 && st->deadline_s > 0)
		search_cost_deadline(st, gpn);
	else
		search_smallest(st, gpn);
	search_held_sizes(st, gpn);
}

autosize_err search_run(const sizing_job *job, const autosize_request *r,
			double deadline_s, autosize_objective objective,
			search_budget *budget, search_result *res,
			autosize_error *e)
{
	search_state st;
	int gpn = job->part->gpus_per_node, g, nodes, g_node;
	autosize_err rc;

	memset(&st, 0, sizeof(st));
	memset(res, 0, sizeof(*res));
	st.at = *job;
	st.job = &st.at;
	st.fp = framework_profile_job(job, &st.fp_buf);
	st.req = r;
	st.deadline_s = deadline_s;
	st.objective = objective;
	st.budget = budget;
	if (r->gpus_per_node > 0)
		gpn = r->gpus_per_node;
	st.n_step = search_node_step(job, r, gpn);
	search_list_expert_divisors(&st);
	st.tight = !search_pinned(r->interleave) &&
		   !(objective == AUTOSIZE_OBJECTIVE_COST &&
		     job->part->pricing.n_rental > 0);
	if ((rc = search_framework_pins(job, r, st.fp, e)) ||
	    (rc = search_pinned_size(r, gpn, &nodes, &g_node, e)))
		return rc;
	if (!search_charge(&st, 1)) {
		/* an earlier partition spent the budget: say so at once */
		search_plan_size(job, nodes > 0 ? nodes : 1, g_node, &res->best);
		search_stopped(&st, &res->best);
		res->over_budget = 1;
		return AUTOSIZE_OK;
	}
	if (nodes > 0) {
		/* A pinned size: that size or nothing. */
		if (nodes <= job->part->max_nodes_per_job) {
			search_at(&st, nodes, g_node);
			if (!st.have_best && !search_pinned(r->tp)) {
				st.wide_tp = 1;
				search_at(&st, nodes, g_node);
			}
		}
		if (!st.have_best && !st.have_miss) {
			search_pinned_miss(&st, nodes, g_node, &res->best);
			res->evaluated = st.evaluated;
			return AUTOSIZE_OK;
		}
	} else {
		/* Part of one node first: small jobs need not rent all. */
		if (r->gpus_per_node <= 0)
			for (g = 1; g < gpn; g *= 2)
				if (gpn % g == 0)
					search_at(&st, 1, g);
		search_free(&st, gpn);
		if (!st.have_best && !search_pinned(r->tp)) {
			/* Nothing fits with TP inside a node: let it span
			 * nodes. When that fits nothing either, the closest
			 * miss shown stays one with TP inside a node (TP 512
			 * across 8-GPU nodes is no layout to show) */
			search_cand miss = st.miss;
			int have_miss = st.have_miss;
			double miss_ratio = st.miss_ratio;

			st.wide_tp = 1;
			search_free(&st, gpn);
			if (!st.have_best && have_miss) {
				st.miss = miss;
				st.miss_ratio = miss_ratio;
			}
		}
		/* Pins that the staged probes stepped over: every size up
		 * to a bound, one by one. */
		for (g = 1; !st.have_best && !st.have_miss && !st.over_budget &&
		     g <= job->part->max_nodes_per_job &&
		     g <= SEARCH_SCAN_NODES; g++)
			search_at(&st, g, gpn);
		if (st.have_best && job->tokens > 0 &&
		    objective == AUTOSIZE_OBJECTIVE_COST)
			search_cap(&st, gpn, res);
	}
	if (!st.have_best && !st.have_miss && !st.over_budget)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "no layout matches the pinned values "
				     "(check --tp/--pp/--dp against the GPU "
				     "count and the model's heads and "
				     "layers)");
	if (!st.have_best && !st.have_miss)
		search_plan_size(job, 1, gpn, &res->best);
	else
		search_fill(&st, st.have_best ? &st.best : &st.miss,
			    &res->best);
	if (!st.have_best && st.over_budget)
		search_stopped(&st, &res->best);
	res->have_ref = st.have_ref;
	if (st.have_ref)
		search_fill(&st, &st.ref, &res->ref);
	res->evaluated = st.evaluated;
	res->over_budget = st.over_budget;
	return AUTOSIZE_OK;
}
