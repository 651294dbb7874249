/*
 * make bench: plan a corpus of varied job specs and report the time per
 * full search (median, p99), plans per second and heap allocations per
 * plan after the policy is loaded. Speed is measured here, never in tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "autosize.h"

#define BENCH_SPECS 10000
/* Passes over the corpus; each spec's time is its fastest pass. A shared
 * host's neighbours only ever add time to a plan, so the fastest of a
 * few spaced-out runs measures the search rather than them.
 * AUTOSIZE_BENCH_PASSES=n changes it (1 under callgrind). */
#define BENCH_PASSES 3
#define BENCH_PASSES_MAX 10

/* AUTOSIZE_BENCH_DUMP=path writes every plan's key fields there (one line
 * per spec, %a doubles) so a speed change can be checked byte-identical;
 * AUTOSIZE_BENCH_SPECS=n plans only the first n specs and
 * AUTOSIZE_BENCH_PASSES=1 one pass over them (callgrind). */
static void bench_dump(FILE *f, int i, const autosize_plan *p)
{
	fprintf(f, "%d f%d n%d g%d tp%d pp%d dp%d vp%d cp%d ep%d z%d mb%d "
		"ga%d rc%d rl%d %a %a %ld\n", i, p->feasible, p->nodes,
		p->gpus_per_node, p->tp, p->pp, p->dp, p->vp, p->cp, p->ep,
		p->zero_stage, p->micro_batch, p->grad_accum, (int)p->recompute,
		p->recompute_layers, p->tokens_per_s, p->train_hours,
		p->time_limit_min);
}

/* Heap allocations, counted through the linker's --wrap. */
static long bench_allocs;
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);

void *__wrap_malloc(size_t n)
{
	bench_allocs++;
	return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
	bench_allocs++;
	return __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
	bench_allocs++;
	return __real_realloc(p, n);
}

static double bench_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* A deterministic pseudo-random corpus: sizes 125M..1T, every GPU type,
 * every training mode, deadlines from a day to a quarter. */
static void bench_spec(unsigned i, const autosize_catalog *cat,
		       autosize_request *r)
{
	static const char *const presets[] = {"llama-2-7b", "llama-3-8b",
		"llama-2-70b", "llama-3.1-405b", "mixtral-8x7b", "qwen2.5-72b",
		"gpt3-175b", "qwen2.5-7b"};
	static const double params[] = {125e6, 350e6, 1.3e9, 3e9, 7e9, 13e9,
		34e9, 70e9, 180e9, 400e9, 1e12};
	unsigned h = i * 2654435761u;
	autosize_error e;
	char buf[32];
	const autosize_gpu *g = autosize_catalog_at(cat,
		(int)(h % (unsigned)autosize_catalog_count(cat)));

	autosize_request_init(r);
	if (h % 3 == 0) {
		autosize_request_set(r, "model", presets[(h >> 3) % 8], &e);
	} else {
		snprintf(buf, sizeof(buf), "%g", params[(h >> 5) % 11]);
		autosize_request_set(r, "model-params", buf, &e);
	}
	autosize_request_finish(r, &e);
	snprintf(r->gpu, sizeof(r->gpu), "%s", g->name);
	r->train_mode = (autosize_train_mode)((h >> 7) % 4);
	r->tokens = r->train_mode >= AUTOSIZE_TRAIN_FINETUNE ? 1e9 * (1 + h % 50)
							       : 2e10 * (1 + h % 100);
	r->deadline_s = 86400.0 * (1 + (h >> 11) % 90);
}

int main(void)
{
	autosize_error e;
	autosize_policy *pol = autosize_policy_default(&e);
	autosize_request *reqs = calloc(BENCH_SPECS, sizeof(*reqs));
	double *us = calloc(BENCH_SPECS, sizeof(double));
	double *layouts = calloc(BENCH_SPECS, sizeof(double));
	autosize_plan plan;
	double t0, total = 0;
	long allocs0, fits = 0;
	const char *dump_path = getenv("AUTOSIZE_BENCH_DUMP");
	const char *nspecs = getenv("AUTOSIZE_BENCH_SPECS");
	const char *npasses = getenv("AUTOSIZE_BENCH_PASSES");
	int n = nspecs ? atoi(nspecs) : BENCH_SPECS;
	int passes = npasses ? atoi(npasses) : BENCH_PASSES;
	FILE *dump = NULL;
	int i, pass;
	autosize_err rc;

	if (n < 1 || n > BENCH_SPECS)
		n = BENCH_SPECS;
	if (passes < 1 || passes > BENCH_PASSES_MAX)
		passes = BENCH_PASSES;
	if (dump_path && !(dump = fopen(dump_path, "w"))) {
		fprintf(stderr, "autosize: bench cannot write AUTOSIZE_BENCH_DUMP "
			"%s; name a writable file\n", dump_path);
		return 1;
	}
	if (!pol || !reqs || !us || !layouts) {
		fprintf(stderr, "autosize: bench setup failed\n");
		return 1;
	}
	for (i = 0; i < BENCH_SPECS; i++)
		bench_spec((unsigned)i, autosize_policy_catalog(pol), &reqs[i]);
	allocs0 = bench_allocs;
	for (pass = 0; pass < passes; pass++) {
		for (i = 0; i < n; i++) {
			double t;

			t0 = bench_now_us();
			rc = autosize_plan_compute(pol, &reqs[i], &plan, &e);
			t = bench_now_us() - t0;
			total += t;
			us[i] = pass == 0 || t < us[i] ? t : us[i];
			if (pass > 0)
				continue;
			fits += rc == AUTOSIZE_OK;
			layouts[i] = (double)plan.evaluated;
			if (dump)
				bench_dump(dump, i, &plan);
			if (getenv("AUTOSIZE_BENCH_DEBUG") &&
			    plan.feasible == 0)
				fprintf(stderr, "infeasible %d: %s %.3g "
					"params, %s, mode %d, %.3g tokens, "
					"%.0f d: %s\n", i, reqs[i].model.name,
					reqs[i].model.params, reqs[i].gpu,
					reqs[i].train_mode, reqs[i].tokens,
					reqs[i].deadline_s / 86400,
					plan.reason);
		}
	}
	if (dump)
		fclose(dump);
	qsort(us, (size_t)n, sizeof(double), bench_cmp);
	qsort(layouts, (size_t)n, sizeof(double), bench_cmp);
	printf("autosize bench: %d job specs (125M-1T params, %d GPU types, "
	       "4 modes), %ld feasible\n", n,
	       autosize_catalog_count(autosize_policy_catalog(pol)), fits);
	printf("  full search: median %.1f us, p99 %.1f us, max %.1f us "
	       "(each spec's fastest of %d passes)\n", us[n / 2],
	       us[n * 99 / 100], us[n - 1], passes);
	printf("  candidates per plan: median %.0f, p99 %.0f, max %.0f "
	       "(budget %ld)\n", layouts[n / 2], layouts[n * 99 / 100],
	       layouts[n - 1], AUTOSIZE_PLAN_MAX_LAYOUTS);
	printf("  plans per second: %.0f (all passes)\n",
	       n * passes / (total / 1e6));
	printf("  heap allocations per plan: %.3f\n",
	       (double)(bench_allocs - allocs0) / (n * passes));
	autosize_policy_destroy(pol);
	free(reqs);
	free(us);
	free(layouts);
	return 0;
}
