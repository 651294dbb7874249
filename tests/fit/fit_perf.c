/*
 * Fit the per-generation numbers of etc/perf.yaml on the FIT half of
 * tests/validation/runs.yaml (the half is fixed by FNV-1a of the run id,
 * as in tests/test_validation.c; the held-out half is never looked at
 * while fitting, only reported after).
 *
 *   make BUILD=build/x build/x/libautosize.a
 *   cc -std=gnu11 -O2 -Iinclude -Icore -o build/x/fit_perf \
 *      tests/fit/fit_perf.c build/x/libautosize.a -lyaml -lm
 *   build/x/fit_perf hopper            # from the repository root
 *
 * Coordinate descent over gemm_eff_max, gemm_half_dim, layer_overhead_s
 * and the network efficiency (ib_eff, roce_eff taken equal) of one
 * generation's entry (attn_share comes from the
 * FlashAttention papers, not from the fit), minimising the mean
 * |log(predicted / published)| of that generation's fit-half runs. It
 * prints the values to write into etc/perf.yaml with "fitted on the fit
 * half" as their source. Not part of make check.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autosize.h"
#include "perfdata.h"
#include "ytree.h"

#define FIT_RUNS_FILE "tests/validation/runs.yaml"
#define FIT_MAX_RUNS 512
#define FIT_ROUNDS 4

typedef struct fit_run {
	char id[64];
	char generation[16];
	char metric[24];
	int held_out;
	double published;
	autosize_request req;
	int ok;
} fit_run;

static fit_run fit_runs[FIT_MAX_RUNS];
static int fit_n;
static perfdata_table fit_table;

static const char *const fit_metrics[] = {"hfu_tflops", "mfu", "hfu",
					  "tokens_per_s_per_gpu", "step_s",
					  "gpu_hours", NULL};

static uint32_t fit_fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

/* Options as test_validation.c passes them; 0 when not expressible. */
static int fit_options(const autosize_ynode *opts, autosize_request *req)
{
	const autosize_ynode *o;
	autosize_error e;

	autosize_request_init(req);
	for (o = opts->child; o; o = o->next) {
		char key[64];

		if (o->key_len >= sizeof(key) || !o->value)
			return 0;
		memcpy(key, o->key, o->key_len);
		key[o->key_len] = '\0';
		if (strcmp(key, "vp") == 0)
			snprintf(key, sizeof(key), "interleave");
		if ((strcmp(key, "cp") == 0 || strcmp(key, "ep") == 0) &&
		    strcmp(o->value, "1") == 0)
			continue;
		if (autosize_request_set(req, key, o->value, &e))
			return 0;
	}
	return autosize_request_finish(req, &e) == AUTOSIZE_OK;
}

static void fit_load(void)
{
	autosize_error e;
	autosize_ytree *t = autosize_ytree_load(FIT_RUNS_FILE, &e);
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

		memset(r, 0, sizeof(*r));
		if (autosize_ytree_str(t, item, "id", 1, r->id,
				       sizeof(r->id), NULL, &e) ||
		    autosize_ytree_str(t, item, "gpu_generation", 1,
				       r->generation, sizeof(r->generation),
				       NULL, &e))
			continue;
		for (i = 0; fit_metrics[i]; i++) {
			f = 0;
			if (!autosize_ytree_double(t, item, fit_metrics[i], 0,
						   0, 1e12, &r->published, &f,
						   &e) && f)
				snprintf(r->metric, sizeof(r->metric), "%s",
					 fit_metrics[i]);
		}
		opts = autosize_ynode_get(item, "options");
		r->ok = r->metric[0] && opts && fit_options(opts, &r->req);
		r->held_out = fit_fnv1a(r->id) % 2;
		fit_n++;
	}
	autosize_ytree_destroy(t);
}

static double fit_metric(const fit_run *r, const autosize_plan *p)
{
	double peak = p->mfu > 0 ? p->tflops_per_gpu / p->mfu : 0;

	if (strcmp(r->metric, "hfu_tflops") == 0)
		return p->hfu * peak;
	if (strcmp(r->metric, "mfu") == 0)
		return p->mfu;
	if (strcmp(r->metric, "hfu") == 0)
		return p->hfu;
	if (strcmp(r->metric, "step_s") == 0)
		return p->step_s;
	if (strcmp(r->metric, "gpu_hours") == 0)
		return p->gpu_hours;
	return p->gpus > 0 ? p->tokens_per_s / p->gpus : 0;
}

/* Mean |log(pred / pub)| of one generation's runs of one half. */
static double fit_score(autosize_policy *pol, const char *gen, int held_out,
			int verbose, int *count)
{
	double sum = 0;
	int i, n = 0;

	for (i = 0; i < fit_n; i++) {
		fit_run *r = &fit_runs[i];
		autosize_plan plan;
		autosize_error e;
		autosize_err rc;
		double pred;

		if (!r->ok || r->held_out != held_out ||
		    strcmp(r->generation, gen) != 0)
			continue;
		rc = autosize_plan_compute(pol, &r->req, &plan, &e);
		if (rc != AUTOSIZE_OK && rc != AUTOSIZE_ENOFIT)
			continue;
		pred = fit_metric(r, &plan);
		if (pred <= 0)
			continue;
		sum += fabs(log(pred / r->published));
		n++;
		if (verbose)
			printf("  %-40s %+6.1f%%  TP %d PP %d DP %d z%d mb %d "
			       "%s MFU %.2f\n", r->id,
			       100 * (pred / r->published - 1), plan.tp,
			       plan.pp, plan.dp, plan.zero_stage,
			       plan.micro_batch,
			       autosize_recompute_name(plan.recompute),
			       plan.mfu);
	}
	*count = n;
	return n ? sum / n : 0;
}

int main(int argc, char **argv)
{
	static const double effs[] = {0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75,
				      0.8, 0.85, 0};
	static const double dims[] = {190, 300, 400, 500, 650, 800, 1000,
				      1300, 1700, 0};
	static const double overheads[] = {1e-12, 50e-6, 100e-6, 150e-6,
					   200e-6, 300e-6, 400e-6, 600e-6, 0};
	static const double nets[] = {0.6, 0.7, 0.8, 0.9, 0.95, 0};
	const double *grids[4] = {effs, dims, overheads, nets};
	autosize_error e;
	autosize_policy *pol = autosize_policy_default(&e);
	perf_params *pp = NULL;
	double *slots[4], best;
	const char *gen = argc > 1 ? argv[1] : "hopper";
	int i, k, round, n;

	fit_load();
	fit_table = *perfdata_default();
	for (i = 0; i < fit_table.n; i++)
		if (strcmp(fit_table.entries[i].p.generation, gen) == 0)
			pp = &fit_table.entries[i].p;
	if (!pp || !pol) {
		fprintf(stderr, "no entry %s in etc/perf.yaml\n", gen);
		return 1;
	}
	perfdata_use(&fit_table);
	slots[0] = &pp->gemm_eff_max;
	slots[1] = &pp->gemm_half_dim;
	slots[2] = &pp->layer_overhead_s;
	slots[3] = &pp->ib_eff;    /* RoCE follows: roce_eff = ib_eff */
	best = fit_score(pol, gen, 0, 0, &n);
	printf("%s: %d fit-half runs, start mean |log err| %.4f\n", gen, n,
	       best);
	for (round = 0; round < FIT_ROUNDS; round++)
		for (k = 0; k < 4; k++) {
			double keep = *slots[k];

			for (i = 0; grids[k][i] > 0; i++) {
				double s;

				*slots[k] = grids[k][i];
				pp->roce_eff = pp->ib_eff;
				s = fit_score(pol, gen, 0, 0, &n);
				if (s < best - 1e-6) {
					best = s;
					keep = *slots[k];
				}
			}
			*slots[k] = keep;
			pp->roce_eff = pp->ib_eff;
		}
	printf("fitted: gemm_eff_max %.3f gemm_half_dim %.0f "
	       "layer_overhead_s %.0fe-6 ib_eff = roce_eff %.2f (mean |log "
	       "err| %.4f)\nfit half:\n", pp->gemm_eff_max,
	       pp->gemm_half_dim, pp->layer_overhead_s * 1e6, pp->ib_eff,
	       best);
	fit_score(pol, gen, 0, 1, &n);
	printf("held-out half (not used to fit):\n");
	best = fit_score(pol, gen, 1, 1, &n);
	printf("held-out: %d runs, mean |log err| %.4f\n", n, best);
	autosize_policy_destroy(pol);
	return 0;
}
