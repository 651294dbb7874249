/*
 * Fit the numbers of etc/perf.yaml on the FIT half of
 * tests/validation/runs.yaml (the half is fixed by FNV-1a of the run id,
 * as in tests/test_validation.c; the held-out half is never looked at
 * while fitting, only reported after).
 *
 *   make fit                           # hopper, its default constants
 *   make fit FIT=cdna3                 # runs.yaml's label of entry cdna
 *   make fit FIT="cdna3 gemm_eff_max ib_eff"   # only these constants
 *   make fit FIT="all stack.hf.elementwise_factor --runs=stack:hf"
 *   make fit FIT="all whole_run.efficiency --runs=metric:gpu_hours"
 *   make fit FIT=residuals             # the residuals: block
 *   make fit FIT="residuals --check"   # fails when perf.yaml's are stale
 *   make fit FIT=coverage              # time limits vs real runs
 *
 * The first word names the runs' GPU generation ("all": every one); the
 * next the constants: a key of that generation's entry (by default
 * gemm_eff_max, gemm_half_dim, layer_overhead_s, ib_eff with roce_eff
 * taken equal, fp8_gemm_speedup, tp_overlap, torch_eff,
 * elementwise_bytes_per_h, attn_share; GEN.KEY for another entry's),
 * stack.NAME.KEY of a stack (stack.NAME@GEN.KEY: its by_generation
 * number)
 * (kernel_eff, layer_overhead_s, dequant_eff, elementwise_factor) or
 * whole_run.efficiency; --runs=stack:NAME, --runs=engine (runs without a
 * stack or on one without constants of its own, whole runs left out)
 * or --runs=metric:NAME
 * narrows the runs. Coordinate descent over a grid around each
 * constant's value minimises the mean |log(predicted / published)| of
 * the chosen fit-half runs; it prints the values to write into
 * etc/perf.yaml with "fitted on the fit half" as their source. Not part
 * of make check.
 *
 * Runs are planned as tests/test_validation.c plans them: a run's
 * stack: is passed as --train-stack, and sealed runs (sealed: true,
 * tests/validation/README.md "The sealed part") belong to neither half:
 * they are never fitted on, so they are left out here.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autosize.h"
#include "perfdata.h"
#include "ytree.h"
#include "../validation_metric.h"

#define FIT_RUNS_FILE "tests/validation/runs.yaml"
#define FIT_MAX_RUNS 512
#define FIT_ROUNDS 4
#define FIT_MAX_SLOTS 16

typedef struct fit_run {
	char id[64];
	char generation[16];
	char metric[24];
	char stack[24];      /* stack: of runs.yaml, "" when none */
	int held_out;
	int known_miss;      /* known_miss: given: not fitted on */
	double published;
	autosize_request req;
	int ok;
} fit_run;

static fit_run fit_runs[FIT_MAX_RUNS];
static int fit_n;
static perfdata_table fit_table;


/*
 * The etc/perf.yaml entry a runs.yaml gpu_generation label uses: the
 * same name, except CDNA 3 (MI300X) runs, which use the cdna entry.
 */
static const char *fit_entry_name(const char *label)
{
	return strcmp(label, "cdna3") == 0 ? "cdna" : label;
}

static uint32_t fit_fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

/* Options as test_validation.c passes them (stack: the run's stack:,
 * "" when it has none); 0 when not expressible. */
static int fit_options(const autosize_ynode *opts, const char *stack,
		       autosize_request *req)
{
	const autosize_ynode *o;
	autosize_error e;

	autosize_request_init(req);
	req->model_local = 1;   /* config.json files, as test_validation.c */
	for (o = opts->child; o; o = o->next) {
		char key[64];

		if (o->key_len >= sizeof(key) || !o->value)
			return 0;
		memcpy(key, o->key, o->key_len);
		key[o->key_len] = '\0';
		if (strcmp(key, "vp") == 0)
			snprintf(key, sizeof(key), "interleave");
		if (autosize_request_set(req, key, o->value, &e))
			return 0;
	}
	if (stack[0] && autosize_request_set(req, "train-stack", stack, &e))
		return 0;
	return autosize_request_finish(req, &e) == AUTOSIZE_OK;
}

static void fit_load(void)
{
	autosize_error e;
	autosize_ytree *t = autosize_ytree_load_data(FIT_RUNS_FILE, &e);
	const autosize_ynode *seq, *item, *opts;
	int i, f;

	if (!t) {
		fprintf(stderr, "%s\n", e.msg);
		exit(1);
	}
	seq = autosize_ynode_get(autosize_ytree_root(t), "runs");
	for (item = seq->child; item && fit_n < FIT_MAX_RUNS;
	     item = item->next) {
		fit_run *r = &fit_runs[fit_n];
		char stack[24] = "";
		int sealed = 0;

		memset(r, 0, sizeof(*r));
		if (autosize_ytree_str(t, item, "id", 1, r->id,
				       sizeof(r->id), NULL, &e) ||
		    autosize_ytree_str(t, item, "gpu_generation", 1,
				       r->generation, sizeof(r->generation),
				       NULL, &e) ||
		    autosize_ytree_str(t, item, "stack", 0, stack,
				       sizeof(stack), NULL, &e) ||
		    autosize_ytree_bool(t, item, "sealed", 0, &sealed, NULL,
					&e))
			continue;
		if (sealed)
			continue;
		for (i = 0; vmetric_names[i]; i++) {
			f = 0;
			if (!autosize_ytree_double(t, item, vmetric_names[i], 0,
						   0, 1e12, &r->published, &f,
						   &e) && f)
				snprintf(r->metric, sizeof(r->metric), "%s",
					 vmetric_names[i]);
		}
		opts = autosize_ynode_get(item, "options");
		snprintf(r->stack, sizeof(r->stack), "%s", stack);
		r->ok = r->metric[0] && opts &&
			fit_options(opts, stack, &r->req);
		/* test_validation.c fails on such a run: say so here too
		 * rather than fit without it */
		if (!r->ok)
			fprintf(stderr, "fit_perf: %s: no metric or options "
				"that plan; left out\n", r->id);
		r->held_out = fit_fnv1a(r->id) % 2;
		r->known_miss = autosize_ynode_get(item, "known_miss") != NULL;
		fit_n++;
	}
	autosize_ytree_destroy(t);
}

/* Plan run r (with req) and its predicted figure; 0 when it has none. */
static double fit_predict(autosize_policy *pol, const fit_run *r,
			  const autosize_request *req, autosize_plan *plan)
{
	autosize_error e;
	autosize_err rc = autosize_plan_compute(pol, req, plan, &e);

	if (rc != AUTOSIZE_OK && rc != AUTOSIZE_ENOFIT)
		return 0;
	return vmetric_predicted(r->metric, plan);
}

/* log(real / predicted) run time of r for a predicted figure pred. */
static double fit_log_time(const fit_run *r, double pred)
{
	return vmetric_is_time(r->metric) ? log(r->published / pred)
					  : log(pred / r->published);
}

/* Which runs a score is over: a generation ("all": any), and where
 * given a stack (stack:NAME), the engine's own (engine: no stack, or
 * one with no constants of its own) or a metric (metric:NAME). */
static char fit_filter[64];

static int fit_stack_own(const char *name)
{
	const perfdata_stack *st = perfdata_stack_find(&fit_table, name);

	return st && (st->layer_overhead_s > 0 || st->kernel_eff != 1 ||
		      st->dequant_eff > 0 || st->elementwise_factor != 1);
}

static int fit_selected(const fit_run *r, const char *gen)
{
	if (strcmp(gen, "all") != 0 && strcmp(r->generation, gen) != 0)
		return 0;
	if (strncmp(fit_filter, "stack:", 6) == 0)
		return strcmp(r->stack, fit_filter + 6) == 0;
	if (strncmp(fit_filter, "metric:", 7) == 0)
		return strcmp(r->metric, fit_filter + 7) == 0;
	/* the engine's step model: whole runs depend on whole_run: too */
	if (strcmp(fit_filter, "engine") == 0)
		return (!r->stack[0] || !fit_stack_own(r->stack)) &&
		       strcmp(r->metric, "gpu_hours") != 0;
	return 1;
}

/* Mean |log(pred / pub)| of the selected runs of one half; known
 * misses (runs.yaml known_miss: what the model cannot follow, with the
 * reason) are left out, as they would pull the constants toward what
 * the model cannot represent (the residuals keep them). */
static double fit_score(autosize_policy *pol, const char *gen, int held_out,
			int verbose, int *count)
{
	double sum = 0;
	int i, n = 0;

	for (i = 0; i < fit_n; i++) {
		fit_run *r = &fit_runs[i];
		autosize_plan plan;
		double pred;

		if (!r->ok || r->known_miss || r->held_out != held_out ||
		    !fit_selected(r, gen))
			continue;
		pred = fit_predict(pol, r, &r->req, &plan);
		if (pred <= 0)
			continue;
		sum += fabs(log(pred / r->published));
		n++;
		if (verbose)
			printf("  %-44s %+6.1f%%  TP %d PP %d DP %d CP %d EP "
			       "%d z%d mb %d %s MFU %.2f\n", r->id,
			       100 * (pred / r->published - 1), plan.tp,
			       plan.pp, plan.dp, plan.cp, plan.ep,
			       plan.zero_stage, plan.micro_batch,
			       autosize_recompute_name(plan.recompute),
			       plan.mfu);
	}
	*count = n;
	return n ? sum / n : 0;
}

#define FIT_Q_LOW 0.01
#define FIT_Q_HIGH 0.99
#define FIT_MAX_REGIMES 64

static int fit_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Quantile q of n sorted values (linear between neighbours). */
static double fit_quantile(const double *v, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)pos;

	if (i >= n - 1)
		return v[n - 1];
	return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

typedef struct fit_regime {
	char key[3][PERFDATA_NAME_MAX];
	int n;
	double logs[FIT_MAX_RUNS];
} fit_regime;

/* One-sided 99% Student t quantile for df degrees of freedom (tables;
 * a bucket takes its smallest df's value, erring wide). */
static double fit_t99(int df)
{
	static const double t[] = {0, 31.821, 6.965, 4.541, 3.747, 3.365,
				   3.143, 2.998, 2.896, 2.821, 2.764};

	if (df < 1)
		return t[1];
	if (df <= 10)
		return t[df];
	return df <= 15 ? 2.718 : df <= 20 ? 2.602 : df <= 30 ? 2.528 :
	       df <= 60 ? 2.457 : 2.390;
}

/*
 * Bounds for the NEXT run of a regime, not for the n seen: a 98%
 * prediction interval of a normal sample, mean -/+ t(0.99, n-1) s
 * sqrt(1 + 1/n) (the sample 1%/99% quantiles of a handful of runs are
 * their extremes and cover a new run less often than they claim), never
 * narrower than those quantiles. 98%, not 90%: the upper end is the
 * time limit's, and a limit short of the run kills the job (one in 20
 * at a 95% upper end), while a generous one costs only backfill slack.
 * The spread is in-sample (the constants were fitted on these runs), so
 * it is narrower than a new run's: the wide quantile also covers that.
 */
static void fit_bounds(const double *v, int n, double *lo, double *hi)
{
	double mean = 0, ss = 0, half;
	int i;

	*lo = fit_quantile(v, n, FIT_Q_LOW);
	*hi = fit_quantile(v, n, FIT_Q_HIGH);
	if (n < 2)
		return;
	for (i = 0; i < n; i++)
		mean += v[i] / n;
	for (i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	half = fit_t99(n - 1) * sqrt(ss / (n - 1)) * sqrt(1.0 + 1.0 / n);
	if (mean - half < *lo)
		*lo = mean - half;
	if (mean + half > *hi)
		*hi = mean + half;
}

/* The 98% bounds of group g's logs. */
static void fit_group_bounds(const fit_regime *g, double *lo, double *hi)
{
	double v[FIT_MAX_RUNS];

	memcpy(v, g->logs, sizeof(double) * g->n);
	qsort(v, g->n, sizeof(double), fit_cmp);
	fit_bounds(v, g->n, lo, hi);
}

static void fit_print_regime(const char *indent, const fit_regime *g,
			     int named)
{
	double lo, hi;

	fit_group_bounds(g, &lo, &hi);
	if (named)
		printf("%s- {generation: %s, framework: %s, scale: %s, ",
		       indent, g->key[0], g->key[1], g->key[2]);
	else
		printf("%s{", indent);
	printf("runs: %d, q_low: %.3f, q_high: %.3f}\n", g->n, lo, hi);
}

/* Residuals as printed (3 decimals) differ from the shipped ones by
 * more than rounding. */
#define FIT_RESIDUAL_TOL 0.0015

/* 0 when the shipped bounds (runs, q_low, q_high) are group g's; else
 * one line naming what to rerun. */
static int fit_check_bounds(const char *what, const fit_regime *g,
			    int runs, double q_low, double q_high)
{
	double lo, hi;

	fit_group_bounds(g, &lo, &hi);
	if (runs == g->n && fabs(lo - q_low) <= FIT_RESIDUAL_TOL &&
	    fabs(hi - q_high) <= FIT_RESIDUAL_TOL)
		return 0;
	fprintf(stderr, "fit_perf: %s in etc/perf.yaml is stale: runs %d, "
		"q_low %.3f, q_high %.3f shipped; the fit half gives %d, "
		"%.3f, %.3f (make fit FIT=residuals, then copy them)\n",
		what, runs, q_low, q_high, g->n, lo, hi);
	return 1;
}

/* The regimes with enough runs, and the pooled and stacks' bounds,
 * against the shipped etc/perf.yaml: the number of stale ones. */
static int fit_check_residuals(const fit_regime *regimes, int n_regimes,
			       const fit_regime *pooled,
			       const fit_regime *stacks, int n_stacks)
{
	const perfdata_table *t = perfdata_default();
	char what[160];
	int i, j, bad = 0, used = 0;

	bad += fit_check_bounds("residuals: pooled", pooled, t->pooled.runs,
				t->pooled.q_low, t->pooled.q_high);
	for (i = 0; i < n_regimes; i++) {
		const fit_regime *g = &regimes[i];
		const perfdata_regime *r = NULL;

		if (g->n < PERFDATA_MIN_REGIME_RUNS)
			continue;
		used++;
		for (j = 0; j < t->n_regimes && !r; j++)
			if (!strcmp(t->regimes[j].generation, g->key[0]) &&
			    !strcmp(t->regimes[j].framework, g->key[1]) &&
			    !strcmp(t->regimes[j].scale, g->key[2]))
				r = &t->regimes[j];
		snprintf(what, sizeof(what), "residuals: regime %.40s %.40s %.40s",
			 g->key[0], g->key[1], g->key[2]);
		bad += r ? fit_check_bounds(what, g, r->runs, r->q_low,
					    r->q_high)
			 : fit_check_bounds(what, g, 0, 0, 0);
	}
	if (used != t->n_regimes) {
		fprintf(stderr, "fit_perf: etc/perf.yaml has %d residual "
			"regimes, the fit half %d (make fit FIT=residuals)\n",
			t->n_regimes, used);
		bad++;
	}
	for (i = 0; i < n_stacks; i++) {
		const perfdata_stack *st = perfdata_stack_find(t,
							       stacks[i].key[0]);

		snprintf(what, sizeof(what), "stacks: %.40s q_low/q_high",
			 stacks[i].key[0]);
		bad += st ? fit_check_bounds(what, &stacks[i], st->runs,
					     st->q_low, st->q_high)
			  : fit_check_bounds(what, &stacks[i], 0, 0, 0);
	}
	if (!bad)
		printf("residuals: etc/perf.yaml matches the fit half "
		       "(%d runs, %d regimes, %d stacks)\n", pooled->n, used,
		       n_stacks);
	return bad;
}

/*
 * Does a plan of run r on generation gen take its interval from the
 * residuals: regimes? Not when its stack carries its own spread, or is
 * validated on other generations only (core/plan.c plan_interval): those
 * runs are behind the stack's q_low/q_high, not a regime's.
 */
static int fit_uses_regime(const fit_run *r, const char *gen)
{
	const perfdata_stack *st = r->stack[0]
		? perfdata_stack_find(perfdata_default(), r->stack) : NULL;

	if (!st)
		return 1;
	if (st->validated && !perfdata_stack_validated(st, gen))
		return 0;
	return !(st->q_low < 0 || st->q_high > 0);
}

/*
 * Add log(real/predicted) lr to the group keyed k0/k1/k2 of groups (n
 * of them so far, at most FIT_MAX_REGIMES; a new key opens a group).
 */
static void fit_group_add(fit_regime *groups, int *n, const char *k0,
			  const char *k1, const char *k2, double lr)
{
	const char *key[3] = {k0, k1, k2};
	int j, k;

	for (j = 0; j < *n; j++)
		if (!strcmp(groups[j].key[0], k0) &&
		    !strcmp(groups[j].key[1], k1) &&
		    !strcmp(groups[j].key[2], k2))
			break;
	if (j == *n) {
		if (*n == FIT_MAX_REGIMES)
			return;
		for (k = 0; k < 3; k++)
			snprintf(groups[j].key[k], sizeof(groups[j].key[k]),
				 "%s", key[k]);
		(*n)++;
	}
	groups[j].logs[groups[j].n++] = lr;
}

/*
 * The residuals: block of etc/perf.yaml: quantiles of log(real time /
 * predicted time) over the FIT half, by regime (the plan's performance
 * generation, framework and scale bucket) and pooled: the spread is fitted
 * like every other number, so that the held-out half tests whether the
 * time limits cover real runs. Runs whose plans take their stack's
 * interval (fit_uses_regime) are left out: stacks: q_low/q_high hold
 * their spread.
 */
static int fit_residuals(autosize_policy *pol, int check)
{
	static fit_regime regimes[FIT_MAX_REGIMES], pooled;
	static fit_regime stacks[FIT_MAX_REGIMES];
	int i, j, n_regimes = 0, n_stacks = 0;

	for (i = 0; i < fit_n; i++) {
		fit_run *r = &fit_runs[i];
		autosize_plan plan;
		double pred, lr;

		if (!r->ok || r->held_out)
			continue;
		pred = fit_predict(pol, r, &r->req, &plan);
		if (pred <= 0)
			continue;
		lr = fit_log_time(r, pred);
		if (!fit_uses_regime(r, plan.perf_generation)) {
			/* planned with its stack's own spread: that
			 * stack's bounds, printed after the regimes */
			if (r->stack[0])
				fit_group_add(stacks, &n_stacks, r->stack, "",
					      "", lr);
			continue;
		}
		fit_group_add(regimes, &n_regimes, plan.perf_generation,
			      autosize_framework_name(plan.framework),
			      perfdata_scale(plan.gpus), lr);
		pooled.logs[pooled.n++] = lr;
	}
	if (!pooled.n)
		return 1;
	if (check)
		return fit_check_residuals(regimes, n_regimes, &pooled, stacks,
					   n_stacks) ? 1 : 0;
	printf("residuals:\n  note: \"fit half, %d runs, 98%% prediction "
	       "bounds of log(real/predicted) time (tests/fit/fit_perf.c "
	       "residuals); regimes under %d runs left out\"\n  pooled: ",
	       pooled.n, PERFDATA_MIN_REGIME_RUNS);
	fit_print_regime("", &pooled, 0);
	/* a regime of fewer runs is not used by plans (perfdata_interval),
	 * and its t quantile makes its bounds meaningless: left out */
	printf("  regimes:\n");
	for (j = 0; j < n_regimes; j++)
		if (regimes[j].n >= PERFDATA_MIN_REGIME_RUNS)
			fit_print_regime("    ", &regimes[j], 1);
	for (j = 0; j < n_stacks; j++) {
		printf("stack %s (its q_low/q_high under stacks:): ",
		       stacks[j].key[0]);
		fit_print_regime("", &stacks[j], 0);
	}
	return 0;
}

/*
 * Would the plan's time limit cover the real run? Runs without a token
 * count get 1e12 tokens (the limit then scales with the prediction; the
 * start-up allowance is negligible). Prints the share by half.
 */
static int fit_coverage(autosize_policy *pol)
{
	int i, half, n[2] = {0, 0}, ok[2] = {0, 0};

	for (i = 0; i < fit_n; i++) {
		fit_run *r = &fit_runs[i];
		autosize_request req = r->req;
		autosize_plan plan;
		double pred, real_h;

		if (!r->ok)
			continue;
		if (req.tokens <= 0)
			req.tokens = 1e12;
		pred = fit_predict(pol, r, &req, &plan);
		if (pred <= 0 || plan.train_hours <= 0 ||
		    plan.chained_jobs > 1)
			continue;
		real_h = plan.train_hours * exp(fit_log_time(r, pred));
		half = r->held_out;
		n[half]++;
		ok[half] += plan.time_limit_min / 60.0 >= real_h;
		if (plan.time_limit_min / 60.0 < real_h)
			printf("  not covered (%s): %s, real %.2fx the "
			       "prediction, limit %.2fx\n",
			       half ? "held-out" : "fit", r->id,
			       real_h / plan.train_hours,
			       plan.time_limit_min / 60.0 / plan.train_hours);
	}
	for (half = 0; half < 2; half++)
		printf("%s half: the time limit covers %d of %d runs\n",
		       half ? "held-out" : "fit", ok[half], n[half]);
	return 0;
}

/* A constant the fit may move: its name, where it is in fit_table,
 * its range. */
typedef struct fit_slot {
	char name[64];
	double *v;
	double lo, hi;
	int ib;               /* 1: ib_eff, with roce_eff taken equal */
	perf_params *pp;      /* its generation entry (ib_eff) */
} fit_slot;

/* The keys of a generation's entry the fit may move, and their ranges
 * (attn_share above 1: kernels faster than the large-GEMM rate). */
static const struct {
	const char *key;
	size_t off;
	double lo, hi;
} fit_gen_keys[] = {
	{"gemm_eff_max", offsetof(perf_params, gemm_eff_max), 0.3, 0.95},
	{"gemm_half_dim", offsetof(perf_params, gemm_half_dim), 20, 3000},
	{"layer_overhead_s", offsetof(perf_params, layer_overhead_s), 0, 1e-3},
	{"ib_eff", offsetof(perf_params, ib_eff), 0.3, 1},
	{"fp8_gemm_speedup", offsetof(perf_params, fp8_gemm_speedup), 1, 2},
	{"fp4_gemm_speedup", offsetof(perf_params, fp4_gemm_speedup), 1, 4},
	{"tp_overlap", offsetof(perf_params, tp_overlap), 0, 0.95},
	{"torch_eff", offsetof(perf_params, torch_eff), 0.5, 1},
	{"elementwise_bytes_per_h", offsetof(perf_params,
					     elementwise_bytes_per_h), 50, 600},
	{"attn_share", offsetof(perf_params, attn_share), 0.2, 1.5},
	{"attn_half_seq", offsetof(perf_params, attn_half_seq), 0, 4000},
	{"scores_bytes", offsetof(perf_params, scores_bytes), 10, 200},
	{"host_adam_gbs", offsetof(perf_params, host_adam_gbs), 0.5, 200},
	{"torch_attn_eff", offsetof(perf_params, torch_attn_eff), 0.2, 1},
	{"expert_host_s", offsetof(perf_params, expert_host_s), 0, 1e-3},
	{"expert_fp8_host_s", offsetof(perf_params, expert_fp8_host_s), 0,
	 1e-3},
	{"expert_flex_host_cut", offsetof(perf_params,
					    expert_flex_host_cut), 0, 1},
};
#define FIT_GEN_KEYS (sizeof(fit_gen_keys) / sizeof(fit_gen_keys[0]))
/* the default constants of a generation's fit: the first nine */
#define FIT_GEN_DEFAULT 9

/* Slot spec of name into sl; 0, or -1 with a message. */
static int fit_slot_of(const char *name, perf_params *pp, fit_slot *sl)
{
	size_t i;

	memset(sl, 0, sizeof(*sl));
	snprintf(sl->name, sizeof(sl->name), "%s", name);
	if (strcmp(name, "whole_run.efficiency") == 0) {
		sl->v = &fit_table.run_efficiency;
		sl->lo = 0.2;
		sl->hi = 1;
		return 0;
	}
	if (strncmp(name, "stack.", 6) == 0) {
		char st_name[32], gen_name[PERFDATA_NAME_MAX] = "";
		const char *dot = strchr(name + 6, '.');
		char *at;
		perfdata_stack *st = NULL;
		int k, g = -1;

		if (!dot || (size_t)(dot - name - 6) >= sizeof(st_name))
			goto bad;
		memcpy(st_name, name + 6, (size_t)(dot - name - 6));
		st_name[dot - name - 6] = '\0';
		/* stack.NAME@GEN.KEY: its by_generation numbers of GEN */
		if ((at = strchr(st_name, '@'))) {
			snprintf(gen_name, sizeof(gen_name), "%s", at + 1);
			*at = '\0';
		}
		for (k = 0; k < fit_table.n_stacks; k++)
			if (strcmp(fit_table.stacks[k].name, st_name) == 0)
				st = &fit_table.stacks[k];
		if (!st)
			goto bad;
		for (k = 0; gen_name[0] && k < st->n_by_gen; k++)
			if (strcmp(st->by_gen[k].generation, gen_name) == 0)
				g = k;
		if (gen_name[0] && g < 0) {
			if (st->n_by_gen == PERFDATA_MAX_ENTRIES)
				goto bad;
			g = st->n_by_gen++;
			snprintf(st->by_gen[g].generation, PERFDATA_NAME_MAX,
				 "%s", gen_name);
			st->by_gen[g].kernel_eff = st->kernel_eff;
			st->by_gen[g].layer_overhead_s = st->layer_overhead_s;
			st->by_gen[g].elementwise_factor =
				st->elementwise_factor;
		}
		sl->lo = 0;
		sl->hi = 1;
		if (strcmp(dot + 1, "kernel_eff") == 0) {
			sl->v = g >= 0 ? &st->by_gen[g].kernel_eff
				       : &st->kernel_eff;
			sl->lo = 0.2;
		} else if (strcmp(dot + 1, "layer_overhead_s") == 0) {
			sl->v = g >= 0 ? &st->by_gen[g].layer_overhead_s
				       : &st->layer_overhead_s;
			sl->hi = 0.05;
		} else if (strcmp(dot + 1, "dequant_eff") == 0 && g < 0) {
			sl->v = &st->dequant_eff;
			sl->lo = 0.05;
		} else if (strcmp(dot + 1, "elementwise_factor") == 0) {
			sl->v = g >= 0 ? &st->by_gen[g].elementwise_factor
				       : &st->elementwise_factor;
			sl->lo = 1;
			sl->hi = 20;
		} else {
			goto bad;
		}
		return 0;
	}
	{
		/* GEN.KEY: another generation's entry than the runs' */
		const char *dot = strchr(name, '.');
		int k;

		for (k = 0; dot && k < fit_table.n; k++)
			if (strncmp(fit_table.entries[k].p.generation, name,
				    (size_t)(dot - name)) == 0 &&
			    fit_table.entries[k].p.generation[dot - name] ==
			    '\0') {
				pp = &fit_table.entries[k].p;
				name = dot + 1;
			}
	}
	for (i = 0; pp && i < FIT_GEN_KEYS; i++)
		if (strcmp(name, fit_gen_keys[i].key) == 0) {
			sl->v = (double *)(void *)((char *)pp +
						   fit_gen_keys[i].off);
			sl->lo = fit_gen_keys[i].lo;
			sl->hi = fit_gen_keys[i].hi;
			sl->ib = strcmp(name, "ib_eff") == 0;
			sl->pp = pp;
			return 0;
		}
bad:
	fprintf(stderr, "fit_perf: unknown constant '%s' (a key of the "
		"generation's entry, stack.NAME.kernel_eff|layer_overhead_s|"
		"dequant_eff|elementwise_factor, whole_run.efficiency)\n",
		name);
	return -1;
}

static void fit_slot_set(fit_slot *sl, double v)
{
	*sl->v = v;
	if (sl->ib)
		sl->pp->roce_eff = v;
}

int main(int argc, char **argv)
{
	/* multiples of the current value tried for each constant */
	static const double steps[] = {0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95,
				       0.98, 1.02, 1.05, 1.1, 1.2, 1.35, 1.5,
				       1.75, 2.0, 2.5, 3.0};
	autosize_error e;
	autosize_policy *pol = autosize_policy_default(&e);
	perf_params *pp = NULL;
	fit_slot slots[FIT_MAX_SLOTS];
	double best;
	const char *gen = argc > 1 ? argv[1] : "hopper";
	int i, k, round, n, n_slots = 0;
	size_t j;

	fit_load();
	if (pol && (strcmp(gen, "residuals") == 0 ||
		    strcmp(gen, "coverage") == 0)) {
		i = gen[0] == 'r'
		    ? fit_residuals(pol, argc > 2 &&
					 strcmp(argv[2], "--check") == 0)
		    : fit_coverage(pol);
		autosize_policy_destroy(pol);
		return i;
	}
	fit_table = *perfdata_default();
	for (i = 0; i < fit_table.n; i++)
		if (strcmp(fit_table.entries[i].p.generation,
			   fit_entry_name(gen)) == 0)
			pp = &fit_table.entries[i].p;
	if ((!pp && strcmp(gen, "all") != 0) || !pol) {
		fprintf(stderr, "no entry %s in etc/perf.yaml\n", gen);
		autosize_policy_destroy(pol);
		return 1;
	}
	for (i = 2; i < argc; i++) {
		if (strncmp(argv[i], "--runs=", 7) == 0) {
			snprintf(fit_filter, sizeof(fit_filter), "%s",
				 argv[i] + 7);
			continue;
		}
		if (n_slots == FIT_MAX_SLOTS ||
		    fit_slot_of(argv[i], pp, &slots[n_slots])) {
			autosize_policy_destroy(pol);
			return 1;
		}
		n_slots++;
	}
	if (n_slots == 0)
		for (j = 0; pp && j < FIT_GEN_DEFAULT; j++)
			fit_slot_of(fit_gen_keys[j].key, pp,
				    &slots[n_slots++]);
	perfdata_use(&fit_table);
	best = fit_score(pol, gen, 0, 0, &n);
	printf("%s%s%s: %d fit-half runs, start mean |log err| %.4f\n", gen,
	       fit_filter[0] ? " --runs=" : "", fit_filter, n, best);
	for (round = 0; round < FIT_ROUNDS; round++)
		for (k = 0; k < n_slots; k++) {
			double keep = *slots[k].v, base = keep > 0 ? keep
								  : 1e-4;

			for (j = 0; j < sizeof(steps) / sizeof(steps[0]); j++) {
				double v = base * steps[j], sc;

				if (v < slots[k].lo || v > slots[k].hi)
					continue;
				fit_slot_set(&slots[k], v);
				sc = fit_score(pol, gen, 0, 0, &n);
				if (sc < best - 1e-6) {
					best = sc;
					keep = v;
				}
			}
			fit_slot_set(&slots[k], keep);
		}
	printf("fitted (mean |log err| %.4f):\n", best);
	for (k = 0; k < n_slots; k++)
		printf("  %s: %.4g\n", slots[k].name, *slots[k].v);
	printf("fit half:\n");
	fit_score(pol, gen, 0, 1, &n);
	printf("held-out half (not used to fit):\n");
	best = fit_score(pol, gen, 1, 1, &n);
	printf("held-out: %d runs, mean |log err| %.4f\n", n, best);
	autosize_policy_destroy(pol);
	return 0;
}
