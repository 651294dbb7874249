/*
 * autosize: performance parameters as data (etc/perf.yaml): parsing,
 * the compiled-in table, and the choice of entry for a GPU.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "perfdata.h"
#include "framework_private.h"
#include "embedded.h"
#include "ytree.h"

/* One number of an entry: its key, where it goes, its range; an
 * optional one (added after sites wrote their own files) takes def when
 * absent, and needs a source only when given. */
typedef struct perfdata_key {
	const char *key;
	size_t offset;
	double min;
	double max;
	int optional;
	double def;
} perfdata_key;

#define PERFDATA_KEY(name, lo, hi) \
	{ #name, offsetof(perf_params, name), lo, hi, 0, 0 }
#define PERFDATA_KEY_OPT(name, lo, hi, d) \
	{ #name, offsetof(perf_params, name), lo, hi, 1, d }

static const perfdata_key perfdata_keys[] = {
	PERFDATA_KEY(gemm_eff_max, 0.05, 1),
	PERFDATA_KEY(gemm_half_dim, 0, 100000),
	PERFDATA_KEY(attn_share, 0.05, 2),
	PERFDATA_KEY(hbm_eff, 0.05, 1),
	PERFDATA_KEY(elementwise_bytes_per_h, 0, 10000),
	PERFDATA_KEY(scores_bytes, 0, 10000),
	PERFDATA_KEY(layer_overhead_s, 0, 1),
	PERFDATA_KEY(nvlink_eff, 0.01, 1),
	PERFDATA_KEY(pcie_eff, 0.01, 1),
	PERFDATA_KEY(ib_eff, 0.01, 1),
	PERFDATA_KEY(roce_eff, 0.01, 1),
	PERFDATA_KEY(ethernet_eff, 0.01, 1),
	PERFDATA_KEY(intra_latency_s, 0, 1),
	PERFDATA_KEY_OPT(pcie_latency_s, 0, 1, 5.7e-6),
	PERFDATA_KEY(ib_latency_s, 0, 1),
	PERFDATA_KEY(roce_latency_s, 0, 1),
	PERFDATA_KEY(ethernet_latency_s, 0, 1),
	PERFDATA_KEY(fp8_gemm_speedup, 1, 4),
	PERFDATA_KEY(fp8_gemm_share, 0, 1),
	PERFDATA_KEY_OPT(fp4_gemm_speedup, 0, 8, 0),
	PERFDATA_KEY(tp_overlap, 0, 1),
	PERFDATA_KEY_OPT(torch_eff, 0.05, 1, 1),
	PERFDATA_KEY_OPT(attn_half_seq, 0, 1e6, 0),
	PERFDATA_KEY_OPT(host_adam_gbs, 0, 10000, 0),
	PERFDATA_KEY_OPT(torch_attn_eff, 0, 1, 0),
	PERFDATA_KEY_OPT(expert_host_s, 0, 1e-2, 200e-6),
	PERFDATA_KEY_OPT(expert_fp8_host_s, 0, 1e-2, 0),
	PERFDATA_KEY_OPT(expert_flex_host_cut, 0, 1, 0),
	{ NULL, 0, 0, 0, 0, 0 }
};

#define PERFDATA_N_KEYS \
	(sizeof(perfdata_keys) / sizeof(perfdata_keys[0]) - 1)

static const char *const perfdata_top_keys[] = {"generations", "residuals",
						"stacks", "whole_run", NULL};
static const char *const perfdata_whole_run_keys[] = {"efficiency", "runs",
						      "sources", NULL};
static const char *const perfdata_stack_keys[] = {
	"name", "framework", "validated", "kernel_eff", "layer_overhead_s",
	"dequant_eff", "logit_bytes", "bf16_states", "act_offload", "q_low",
	"q_high", "runs", "dp_only", "splits", "recompute", "expert_loop",
	"te_kernels", "elementwise_factor", "deepep", "accum_no_sync",
	"grad_reduce_bytes", "moe_grad_reduce_bytes", "experts_outside_fsdp",
	"grouped_experts",
	"by_generation",
	"validated_on", "sources", NULL
};
static const char *const perfdata_by_gen_keys[] = {
	"generation", "kernel_eff", "layer_overhead_s", "elementwise_factor",
	"sources", NULL
};
static const char *const perfdata_regime_keys[] = {
	"generation", "framework", "scale", "runs", "q_low", "q_high", NULL
};
static const char *const perfdata_residual_keys[] = {"note", "pooled",
						     "regimes", NULL};

/* The A100 calibration: what perf.c used as #defines before this file
 * existed, refitted on the fit half since (engine v4: causal attention);
 * the same numbers as etc/perf.yaml's ampere entry (tests/test_perfdata.c
 * checks). */
static const perf_params perfdata_ampere = {
	.entry = "ampere", .generation = "ampere",
	.gemm_eff_max = 0.74, .gemm_half_dim = 20, .attn_share = 0.4351,
	.hbm_eff = 1.0, .elementwise_bytes_per_h = 185.6, .scores_bytes = 44,
	.nvlink_eff = 0.73, .pcie_eff = 0.60, .ib_eff = 0.80, .roce_eff = 0.70,
	.ethernet_eff = 0.35, .intra_latency_s = 3.4e-6,
	.pcie_latency_s = 5.7e-6, .ib_latency_s = 8e-6,
	.roce_latency_s = 12e-6, .ethernet_latency_s = 60e-6,
	.fp8_gemm_speedup = 1.0, .torch_eff = 0.98, .expert_host_s = 200e-6
};

const perf_params *perfdata_ampere_builtin(void)
{
	return &perfdata_ampere;
}

static double *perfdata_slot(perf_params *p, const perfdata_key *k)
{
	return (double *)(void *)((char *)p + k->offset);
}

/* A list of GPU names into out (at most PERFDATA_MAX_GPUS). */
static autosize_err perfdata_names(const autosize_ytree *t,
				   const autosize_ynode *map, const char *key,
				   char (*out)[AUTOSIZE_GPU_NAME_MAX], int *n,
				   autosize_error *e)
{
	const autosize_ynode *seq, *it;
	autosize_err rc;

	*n = 0;
	rc = autosize_ytree_seq(t, map, key, AUTOSIZE_Y_REQUIRED,
				PERFDATA_MAX_GPUS, &seq, e);
	if (rc)
		return rc;
	for (it = seq->child; it; it = it->next) {
		rc = autosize_ynode_str(t, it, key, out[*n],
					AUTOSIZE_GPU_NAME_MAX, e);
		if (rc)
			return rc;
		(*n)++;
	}
	return AUTOSIZE_OK;
}

/* Every number of an entry, each with a non-empty source. */
static autosize_err perfdata_numbers(const autosize_ytree *t,
				     const autosize_ynode *m, perf_params *p,
				     autosize_error *e)
{
	const autosize_ynode *src, *n;
	const char *src_keys[PERFDATA_N_KEYS + 1];
	const perfdata_key *k;
	autosize_err rc;
	size_t i;

	rc = autosize_ytree_map(t, m, "sources", AUTOSIZE_Y_REQUIRED, &src, e);
	for (i = 0; i < PERFDATA_N_KEYS; i++)
		src_keys[i] = perfdata_keys[i].key;
	src_keys[PERFDATA_N_KEYS] = NULL;
	if (!rc)
		rc = autosize_ytree_check_keys(t, src, "sources", src_keys, e);
	for (k = perfdata_keys; !rc && k->key; k++) {
		int found = 1;

		*perfdata_slot(p, k) = k->def;
		rc = autosize_ytree_double(t, m, k->key,
					   k->optional ? AUTOSIZE_Y_OPTIONAL
						       : AUTOSIZE_Y_REQUIRED,
					   k->min, k->max,
					   perfdata_slot(p, k), &found, e);
		if (!rc && !found)
			continue;
		if (!rc)
			rc = autosize_ytree_text(t, src, k->key, e);
		n = rc ? NULL : autosize_ynode_get(src, k->key);
		if (!rc && (!n || autosize_ynode_is_null(n) ||
			    n->kind != AUTOSIZE_YNODE_SCALAR || n->len == 0))
			rc = autosize_ytree_fail(t, src->line, e,
						 AUTOSIZE_EINVAL,
						 "key 'sources': '%s' has no "
						 "source (a paper, a "
						 "measurement, or \"fitted on "
						 "the fit half\")", k->key);
	}
	return rc;
}

static autosize_err perfdata_entry_parse(const autosize_ytree *t,
					 const autosize_ynode *m,
					 perfdata_entry *en, autosize_error *e)
{
	static const char *known[PERFDATA_N_KEYS + 5];
	autosize_err rc;
	size_t i;

	known[0] = "name";
	known[1] = "measured_on";
	known[2] = "members";
	known[3] = "sources";
	for (i = 0; i < PERFDATA_N_KEYS; i++)
		known[4 + i] = perfdata_keys[i].key;
	known[4 + PERFDATA_N_KEYS] = NULL;
	memset(en, 0, sizeof(*en));
	rc = autosize_ytree_check_keys(t, m, "generations", known, e);
	if (!rc)
		rc = autosize_ytree_str(t, m, "name", AUTOSIZE_Y_REQUIRED,
					en->p.entry, sizeof(en->p.entry), NULL,
					e);
	if (!rc)
		rc = perfdata_names(t, m, "measured_on", en->measured_on,
				    &en->n_measured, e);
	if (!rc)
		rc = perfdata_names(t, m, "members", en->members,
				    &en->n_members, e);
	if (!rc)
		rc = perfdata_numbers(t, m, &en->p, e);
	memcpy(en->p.generation, en->p.entry, sizeof(en->p.generation));
	return rc;
}

static autosize_err perfdata_regime_parse(const autosize_ytree *t,
					  const autosize_ynode *m,
					  perfdata_regime *g, int need_names,
					  autosize_error *e)
{
	autosize_err rc;

	memset(g, 0, sizeof(*g));
	rc = autosize_ytree_check_keys(t, m, "regimes", perfdata_regime_keys,
				       e);
	if (!rc && need_names)
		rc = autosize_ytree_str(t, m, "generation",
					AUTOSIZE_Y_REQUIRED, g->generation,
					sizeof(g->generation), NULL, e);
	if (!rc && need_names)
		rc = autosize_ytree_str(t, m, "framework", AUTOSIZE_Y_REQUIRED,
					g->framework, sizeof(g->framework),
					NULL, e);
	if (!rc && need_names)
		rc = autosize_ytree_str(t, m, "scale", AUTOSIZE_Y_REQUIRED,
					g->scale, sizeof(g->scale), NULL, e);
	if (!rc)
		rc = autosize_ytree_int(t, m, "runs", AUTOSIZE_Y_REQUIRED, 0,
					100000, &g->runs, NULL, e);
	if (!rc)
		rc = autosize_ytree_double(t, m, "q_low", AUTOSIZE_Y_REQUIRED,
					   -3, 3, &g->q_low, NULL, e);
	if (!rc)
		rc = autosize_ytree_double(t, m, "q_high", AUTOSIZE_Y_REQUIRED,
					   -3, 3, &g->q_high, NULL, e);
	if (!rc && g->q_high < g->q_low)
		rc = autosize_ytree_fail(t, m->line, e, AUTOSIZE_EINVAL,
					 "q_high is below q_low");
	return rc;
}

static autosize_err perfdata_residuals(const autosize_ytree *t,
				       const autosize_ynode *root,
				       perfdata_table *tab, autosize_error *e)
{
	const autosize_ynode *m, *pooled, *seq, *it;
	autosize_err rc;

	rc = autosize_ytree_map(t, root, "residuals", AUTOSIZE_Y_OPTIONAL, &m,
				e);
	if (rc || !m)
		return rc;
	rc = autosize_ytree_check_keys(t, m, "residuals",
				       perfdata_residual_keys, e);
	if (!rc)
		rc = autosize_ytree_str(t, m, "note", AUTOSIZE_Y_REQUIRED,
					tab->residuals_note,
					sizeof(tab->residuals_note), NULL, e);
	if (!rc)
		rc = autosize_ytree_map(t, m, "pooled", AUTOSIZE_Y_REQUIRED,
					&pooled, e);
	if (!rc)
		rc = perfdata_regime_parse(t, pooled, &tab->pooled, 0, e);
	if (!rc)
		rc = autosize_ytree_seq(t, m, "regimes", AUTOSIZE_Y_OPTIONAL,
					PERFDATA_MAX_REGIMES, &seq, e);
	for (it = !rc && seq ? seq->child : NULL; it && !rc; it = it->next)
		rc = perfdata_regime_parse(t, it,
					   &tab->regimes[tab->n_regimes++], 1,
					   e);
	return rc;
}

/* The source of a stack key given in the stack's map. */
static autosize_err perfdata_stack_src(const autosize_ytree *t,
				       const autosize_ynode *src,
				       const char *key, autosize_error *e)
{
	const autosize_ynode *n = autosize_ynode_get(src, key);

	if (!n || autosize_ynode_is_null(n) ||
	    n->kind != AUTOSIZE_YNODE_SCALAR || n->len == 0)
		return autosize_ytree_fail(t, src->line, e, AUTOSIZE_EINVAL,
					   "stack sources: '%s' has no "
					   "source", key);
	return AUTOSIZE_OK;
}

/* One number of a stack and its source. */
static autosize_err perfdata_stack_num(const autosize_ytree *t,
				       const autosize_ynode *m,
				       const autosize_ynode *src,
				       const char *key, double lo, double hi,
				       double *out, autosize_error *e)
{
	autosize_err rc;
	int found = 0;

	*out = 0;
	rc = autosize_ytree_double(t, m, key, AUTOSIZE_Y_OPTIONAL, lo, hi,
				   out, &found, e);
	if (rc || !found)
		return rc;
	return perfdata_stack_src(t, src, key, e);
}

/* A 0/1 key of a stack (validated, bf16_states, ...) into *flag. */
static autosize_err perfdata_stack_flag(const autosize_ytree *t,
					const autosize_ynode *m,
					const autosize_ynode *src,
					const char *key, int *flag,
					autosize_error *e)
{
	double v;
	autosize_err rc = perfdata_stack_num(t, m, src, key, 0, 1, &v, e);

	*flag = v > 0;
	return rc;
}

/* validated_on: the generations a stack's runs were measured on. */
static autosize_err perfdata_stack_gens(const autosize_ytree *t,
					const autosize_ynode *m,
					perfdata_stack *st, autosize_error *e)
{
	const autosize_ynode *seq, *it;
	autosize_err rc;

	rc = autosize_ytree_seq(t, m, "validated_on", AUTOSIZE_Y_OPTIONAL,
				PERFDATA_MAX_ENTRIES, &seq, e);
	for (it = !rc && seq ? seq->child : NULL; it && !rc; it = it->next)
		rc = autosize_ynode_str(t, it, "validated_on",
					st->validated_on[st->n_validated_on++],
					PERFDATA_NAME_MAX, e);
	return rc;
}

/* A key of a stack that names one of names (splits: all|pinned|none,
 * recompute: any|full) into *which, with its source; *which is left
 * alone when the key is absent. */
static autosize_err perfdata_stack_choice(const autosize_ytree *t,
					  const autosize_ynode *m,
					  const autosize_ynode *src,
					  const char *key,
					  const char *const *names,
					  int *which, autosize_error *e)
{
	int v = 0, given = 0;
	autosize_err rc;

	rc = autosize_ytree_choice(t, m, key, AUTOSIZE_Y_OPTIONAL, names, &v,
				   &given, e);
	if (rc || !given)
		return rc;
	*which = v;
	return perfdata_stack_src(t, src, key, e);
}

/* by_generation: [{generation, kernel_eff, layer_overhead_s,
 * elementwise_factor, sources}], each number with its source. */
static autosize_err perfdata_stack_by_gen(const autosize_ytree *t,
					  const autosize_ynode *m,
					  perfdata_stack *st,
					  autosize_error *e)
{
	const autosize_ynode *seq, *it, *src;
	autosize_err rc;

	rc = autosize_ytree_seq(t, m, "by_generation", AUTOSIZE_Y_OPTIONAL,
				PERFDATA_MAX_ENTRIES, &seq, e);
	for (it = !rc && seq ? seq->child : NULL; it && !rc; it = it->next) {
		int k = st->n_by_gen++;
		int found = 0;
		double *v[3] = {&st->by_gen[k].kernel_eff,
				&st->by_gen[k].layer_overhead_s,
				&st->by_gen[k].elementwise_factor};
		static const char *const keys[3] = {"kernel_eff",
			"layer_overhead_s", "elementwise_factor"};
		static const double lo[3] = {0.05, 0, 1}, hi[3] = {1, 1, 20};
		int j;

		rc = autosize_ytree_check_keys(t, it, "by_generation",
					       perfdata_by_gen_keys, e);
		if (!rc)
			rc = autosize_ytree_str(t, it, "generation",
						AUTOSIZE_Y_REQUIRED,
						st->by_gen[k].generation,
						PERFDATA_NAME_MAX, NULL, e);
		if (!rc)
			rc = autosize_ytree_map(t, it, "sources",
						AUTOSIZE_Y_REQUIRED, &src, e);
		for (j = 0; j < 3 && !rc; j++) {
			rc = perfdata_stack_num(t, it, src, keys[j], lo[j],
						hi[j], v[j], e);
			if (!rc && !autosize_ynode_get(it, keys[j]))
				*v[j] = -1;
			found |= *v[j] >= 0;
		}
		if (!rc && !found)
			rc = autosize_ytree_fail(t, it->line, e,
						 AUTOSIZE_EINVAL,
						 "by_generation: %s states no "
						 "number",
						 st->by_gen[k].generation);
	}
	return rc;
}

void perfdata_stack_for(const perfdata_stack *st, const char *gen,
			perfdata_stack *out)
{
	int k;

	*out = *st;
	for (k = 0; gen && k < st->n_by_gen; k++) {
		if (strcmp(st->by_gen[k].generation, gen) != 0)
			continue;
		if (st->by_gen[k].kernel_eff >= 0)
			out->kernel_eff = st->by_gen[k].kernel_eff;
		if (st->by_gen[k].layer_overhead_s >= 0)
			out->layer_overhead_s = st->by_gen[k].layer_overhead_s;
		if (st->by_gen[k].elementwise_factor >= 0)
			out->elementwise_factor =
				st->by_gen[k].elementwise_factor;
	}
}

static autosize_err perfdata_stack_parse(const autosize_ytree *t,
					 const autosize_ynode *m,
					 perfdata_stack *st, autosize_error *e)
{
	static const char *const splits[] = {"all", "pinned", "none", NULL};
	static const char *const recompute[] = {"any", "full", NULL};
	const autosize_ynode *src = NULL;
	double v = 0;
	int fw = 0, dp_only = 0;
	autosize_err rc;

	memset(st, 0, sizeof(*st));
	st->kernel_eff = 1;
	rc = autosize_ytree_check_keys(t, m, "stacks", perfdata_stack_keys,
				       e);
	if (!rc)
		rc = autosize_ytree_str(t, m, "name", AUTOSIZE_Y_REQUIRED,
					st->name, sizeof(st->name), NULL, e);
	if (!rc)
		rc = autosize_ytree_choice(t, m, "framework",
					   AUTOSIZE_Y_REQUIRED,
					   autosize_framework_names, &fw,
					   NULL, e);
	st->framework = (autosize_framework)(fw + AUTOSIZE_FRAMEWORK_MEGATRON);
	if (!rc)
		rc = autosize_ytree_map(t, m, "sources", AUTOSIZE_Y_REQUIRED,
					&src, e);
	if (!rc)
		rc = perfdata_stack_flag(t, m, src, "validated", &st->validated,
					 e);
	if (!rc)
		rc = perfdata_stack_num(t, m, src, "kernel_eff", 0.05, 1,
					&st->kernel_eff, e);
	if (!rc && st->kernel_eff <= 0)
		st->kernel_eff = 1;
	if (!rc)
		rc = perfdata_stack_num(t, m, src, "layer_overhead_s", 0, 1,
					&st->layer_overhead_s, e);
	if (!rc)
		rc = perfdata_stack_num(t, m, src, "dequant_eff", 0, 1,
					&st->dequant_eff, e);
	if (!rc)
		rc = perfdata_stack_num(t, m, src, "logit_bytes", 0, 16,
					&st->logit_bytes, e);
	if (!rc)
		rc = perfdata_stack_flag(t, m, src, "bf16_states",
					 &st->bf16_states, e);
	if (!rc)
		rc = perfdata_stack_flag(t, m, src, "act_offload",
					 &st->act_offload, e);
	if (!rc)
		rc = perfdata_stack_flag(t, m, src, "dp_only", &dp_only, e);
	if (dp_only)
		st->splits = PERFDATA_SPLITS_NONE;   /* the older key */
	if (!rc)
		rc = perfdata_stack_choice(t, m, src, "splits", splits,
					   &st->splits, e);
	if (!rc)
		rc = perfdata_stack_choice(t, m, src, "recompute", recompute,
					   &st->recompute_whole, e);
	if (!rc)
		rc = perfdata_stack_flag(t, m, src, "expert_loop",
					 &st->expert_loop, e);
	if (!rc)
		rc = perfdata_stack_flag(t, m, src, "te_kernels",
					 &st->te_kernels, e);
	if (!rc)
		rc = perfdata_stack_flag(t, m, src, "deepep", &st->deepep, e);
	if (!rc)
		rc = perfdata_stack_flag(t, m, src, "experts_outside_fsdp",
					 &st->experts_outside_fsdp, e);
	if (!rc)
		rc = perfdata_stack_flag(t, m, src, "grouped_experts",
					 &st->grouped_experts, e);
	if (!rc && st->grouped_experts && st->expert_loop)
		rc = autosize_ytree_fail(t, m->line, e, AUTOSIZE_EINVAL,
					 "stack %s: expert_loop and "
					 "grouped_experts say opposite things: "
					 "keep one", st->name);
	if (!rc)
		rc = perfdata_stack_flag(t, m, src, "accum_no_sync",
					 &st->accum_no_sync, e);
	if (!rc)
		rc = perfdata_stack_num(t, m, src, "grad_reduce_bytes", 0, 4,
					&st->grad_reduce_bytes, e);
	if (!rc)
		rc = perfdata_stack_num(t, m, src, "moe_grad_reduce_bytes", 0,
					4, &st->moe_grad_reduce_bytes, e);
	/* the precisions --grad-reduce offers: bf16 or fp32 */
	if (!rc && ((st->grad_reduce_bytes != 0 &&
		     st->grad_reduce_bytes != 2 &&
		     st->grad_reduce_bytes != 4) ||
		    (st->moe_grad_reduce_bytes != 0 &&
		     st->moe_grad_reduce_bytes != 2 &&
		     st->moe_grad_reduce_bytes != 4)))
		rc = autosize_ytree_fail(t, m->line, e, AUTOSIZE_EINVAL,
					 "stack %s: grad_reduce_bytes and "
					 "moe_grad_reduce_bytes must be 2 "
					 "(bf16) or 4 (fp32)", st->name);
	if (!rc)
		rc = perfdata_stack_num(t, m, src, "elementwise_factor", 1, 20,
					&st->elementwise_factor, e);
	if (!rc && st->elementwise_factor <= 0)
		st->elementwise_factor = 1;
	if (!rc)
		rc = perfdata_stack_num(t, m, src, "q_low", -3, 0, &st->q_low,
					e);
	if (!rc)
		rc = perfdata_stack_num(t, m, src, "q_high", 0, 3,
					&st->q_high, e);
	if (!rc)
		rc = perfdata_stack_num(t, m, src, "runs", 0, 100000, &v, e);
	st->runs = (int)v;
	if (!rc)
		rc = perfdata_stack_gens(t, m, st, e);
	if (!rc)
		rc = perfdata_stack_by_gen(t, m, st, e);
	return rc;
}

int perfdata_stack_validated(const perfdata_stack *st, const char *gen)
{
	int i;

	if (!st->validated)
		return 0;
	for (i = 0; i < st->n_validated_on; i++)
		if (strcmp(st->validated_on[i], gen) == 0)
			return 1;
	return st->n_validated_on == 0;
}

static autosize_err perfdata_stacks(const autosize_ytree *t,
				    const autosize_ynode *root,
				    perfdata_table *tab, autosize_error *e)
{
	const autosize_ynode *seq, *it;
	autosize_err rc;

	rc = autosize_ytree_seq(t, root, "stacks", AUTOSIZE_Y_OPTIONAL,
				PERFDATA_MAX_STACKS, &seq, e);
	for (it = !rc && seq ? seq->child : NULL; it && !rc; it = it->next)
		rc = perfdata_stack_parse(t, it,
					  &tab->stacks[tab->n_stacks++], e);
	return rc;
}

const perfdata_stack *perfdata_stack_find(const perfdata_table *t,
					  const char *name)
{
	int i;

	for (i = 0; t && name && i < t->n_stacks; i++)
		if (strcasecmp(t->stacks[i].name, name) == 0)
			return &t->stacks[i];
	return NULL;
}

void perfdata_stack_names(const perfdata_table *t, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < t->n_stacks && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? "|" : "", t->stacks[i].name);
}
/* whole_run: the share of a whole run's wall time its steps take beyond
 * the interruptions (policy gpu_mtbf_hours), with its source; 1 when
 * absent. */
static autosize_err perfdata_whole_run(const autosize_ytree *t,
				       const autosize_ynode *root,
				       perfdata_table *tab, autosize_error *e)
{
	const autosize_ynode *m, *src = NULL;
	double v = 0;
	autosize_err rc;

	tab->run_efficiency = 1;
	rc = autosize_ytree_map(t, root, "whole_run", AUTOSIZE_Y_OPTIONAL, &m,
				e);
	if (rc || !m)
		return rc;
	rc = autosize_ytree_check_keys(t, m, "whole_run",
				       perfdata_whole_run_keys, e);
	if (!rc)
		rc = autosize_ytree_map(t, m, "sources", AUTOSIZE_Y_REQUIRED,
					&src, e);
	if (!rc)
		rc = perfdata_stack_num(t, m, src, "efficiency", 0.1, 1,
					&tab->run_efficiency, e);
	if (!rc && tab->run_efficiency <= 0)
		tab->run_efficiency = 1;
	if (!rc)
		rc = perfdata_stack_num(t, m, src, "runs", 0, 100000, &v, e);
	tab->run_efficiency_runs = (int)v;
	return rc;
}

autosize_err perfdata_parse(const char *text, size_t len, const char *what,
			    perfdata_table *tab, autosize_error *e)
{
	autosize_ytree *t;
	const autosize_ynode *root, *seq, *it;
	autosize_err rc;

	memset(tab, 0, sizeof(*tab));
	t = autosize_ytree_parse(text, len, what, e);
	if (!t)
		return e ? e->code : AUTOSIZE_EINVAL;
	root = autosize_ytree_root(t);
	rc = autosize_ytree_check_keys(t, root, "perf", perfdata_top_keys, e);
	if (!rc)
		rc = autosize_ytree_seq(t, root, "generations",
					AUTOSIZE_Y_REQUIRED,
					PERFDATA_MAX_ENTRIES, &seq, e);
	for (it = rc ? NULL : seq->child; it && !rc; it = it->next)
		rc = perfdata_entry_parse(t, it, &tab->entries[tab->n++], e);
	if (!rc)
		rc = perfdata_residuals(t, root, tab, e);
	if (!rc)
		rc = perfdata_stacks(t, root, tab, e);
	if (!rc)
		rc = perfdata_whole_run(t, root, tab, e);
	autosize_ytree_destroy(t);
	return rc;
}

static perfdata_table perfdata_embedded;
static const perfdata_table *perfdata_active;
static pthread_once_t perfdata_once = PTHREAD_ONCE_INIT;

static void perfdata_load_embedded(void)
{
	autosize_error e;

	autosize_error_clear(&e);
	if (perfdata_parse(autosize_embedded_perf_yaml,
			   autosize_embedded_perf_yaml_len, "etc/perf.yaml",
			   &perfdata_embedded, &e) != AUTOSIZE_OK) {
		/* test_perfdata guards the shipped file; never fail a plan */
		memset(&perfdata_embedded, 0, sizeof(perfdata_embedded));
		perfdata_embedded.run_efficiency = 1;
		perfdata_embedded.n = 1;
		perfdata_embedded.entries[0].p = perfdata_ampere;
	}
}

const perfdata_table *perfdata_default(void)
{
	pthread_once(&perfdata_once, perfdata_load_embedded);
	return perfdata_active ? perfdata_active : &perfdata_embedded;
}

void perfdata_use(const perfdata_table *t)
{
	perfdata_active = t;
}

/* Generation from the catalog's figures, for a GPU listed nowhere. */
static const char *perfdata_guess(const autosize_gpu *gpu)
{
	if (gpu->link == AUTOSIZE_LINK_XGMI)
		return "cdna";
	if (gpu->fp8_tflops <= 0)
		return "ampere";
	if (gpu->bf16_tflops >= 1500)
		return "blackwell";
	return "hopper";
}

static int perfdata_listed(const char (*names)[AUTOSIZE_GPU_NAME_MAX], int n,
			   const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return 1;
	return 0;
}

void perfdata_resolve(const perfdata_table *t, const autosize_gpu *gpu,
		      autosize_precision prec, perf_params *out)
{
	const perfdata_entry *found = NULL;
	const char *gen = perfdata_guess(gpu);
	int i, fallback = 1;

	for (i = 0; i < t->n && !found; i++)
		if (perfdata_listed(t->entries[i].measured_on,
				    t->entries[i].n_measured, gpu->name)) {
			found = &t->entries[i];
			fallback = 0;
		}
	for (i = 0; i < t->n && !found; i++)
		if (perfdata_listed(t->entries[i].members,
				    t->entries[i].n_members, gpu->name))
			found = &t->entries[i];
	for (i = 0; i < t->n && !found; i++)
		if (strcmp(t->entries[i].p.generation, gen) == 0)
			found = &t->entries[i];
	*out = found ? found->p : perfdata_ampere;
	out->fallback = fallback;
	/* NVFP4 without the entry's fp4_gemm_speedup (a site's file older
	 * than it) runs at its FP8 rate (perf.c), never at BF16's */
	if (!(prec == AUTOSIZE_PREC_FP8 && gpu->fp8_tflops > 0) &&
	    !(prec == AUTOSIZE_PREC_NVFP4 && gpu->fp4_tflops > 0))
		out->fp8_gemm_share = 0;
}

const char *perfdata_scale(int gpus)
{
	if (gpus <= 64)
		return "small";
	return gpus <= 1024 ? "mid" : "large";
}

int perfdata_interval(const perfdata_table *t, const char *generation,
		      autosize_framework framework, int gpus,
		      perfdata_regime *out, int *pooled)
{
	const char *fw = autosize_framework_name(framework_resolve(framework));
	const char *scale = perfdata_scale(gpus);
	int i;

	memset(out, 0, sizeof(*out));
	*pooled = 1;
	if (t->pooled.runs <= 0)
		return 0;
	*out = t->pooled;
	for (i = 0; i < t->n_regimes; i++) {
		const perfdata_regime *g = &t->regimes[i];

		if (g->runs >= PERFDATA_MIN_REGIME_RUNS &&
		    strcmp(g->generation, generation) == 0 &&
		    strcmp(g->framework, fw) == 0 &&
		    strcmp(g->scale, scale) == 0) {
			*out = *g;
			*pooled = 0;
			break;
		}
	}
	return 1;
}
