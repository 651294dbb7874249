/*
 * Validation against published runs (tests/validation/runs.yaml; the rules
 * are in tests/validation/README.md). Each run is planned with its
 * published layout pinned and the prediction compared with the one
 * published figure (and the peak memory where published). One set of
 * constants for all runs; nothing is fitted per run.
 *
 * The runs are split once, by a hash of the run id (FNV-1a, 32 bit): even
 * -> the fit half, odd -> the held-out half. The rule never looks at
 * errors, so a run never changes half.
 *
 * make check: the original A100 runs (regression_guard: true) keep their
 * accuracy. AUTOSIZE_VALIDATE_STRICT=1 (make validate) also gates the
 * held-out half (median error) and every run (worst error).
 * AUTOSIZE_REPORT=FILE writes the Markdown report.
 */
#include <math.h>
#include "testutil.h"
#include "autosize.h"
#include "autosize/options.h"
#include "embedded.h"
#include "ytree.h"
#include "validation_metric.h"

#define RUNS_FILE "tests/validation/runs.yaml"
/* tokens for runs that publish no count: only sets the plan's interval */
#define VALIDATION_TOKENS 1e12
#define MIN_RUNS 80
/* Close enough: the share of runs within this error is reported. */
#define CLOSE_ERR 0.15
/* make check: the original A100 runs as accurate as when they were the
 * whole set (20 of 21 within 15%, worst 25.4%). */
#define GUARD_RUNS 21
#define GUARD_CLOSE 20
#define GUARD_WORST 0.26
/* Every published run ran: the fit and held-out halves' layouts the
 * memory model fits in their GPU's memory, at least this share (the
 * runs it puts over are ones a plan would refuse or recompute). */
#define MEMORY_FIT_MIN 0.95
/* make validate (strict) fails unless the held-out half meets these
 * (never looser than before: median 10% until issue 32, then 9% / 65%
 * until the held-out half reached 7.4% / 75%) and every run
 * is within STRICT_WORST and expressible. */
typedef struct vgoals {
	double median;         /* the held-out half's median error, at most */
	double close;          /* its share within CLOSE_ERR, at least */
	double covered;        /* its share the time limit covers, at least */
} vgoals;
static const vgoals strict_gate = {0.08, 0.70, 0.95};
/* Issue 32's goals, reported against (REPORT.md "Gates"), not enforced
 * while the engine misses them. */
static const vgoals issue_target = {0.08, 0.70, 0.97};
#define STRICT_WORST 0.40

/* Sealed runs were added after the constants were frozen (the commit
 * before them): scored once, reported apart, never tuned on. Batch b
 * (sealed_batch:, 1 when absent) is half HALF_SEALED + b - 1. */
enum { HALF_FIT = 0, HALF_HELDOUT = 1, HALF_SEALED = 2 };
#define SEALED_BATCHES 13
/* 1 once the plan's model changed after the newest batch was scored (its
 * first score stays in the commit that added it); 0 when a batch is
 * added */
#define SEALED_NEWEST_RESCORED 1

typedef struct vrun {
	char id[64];
	char source[200];
	char framework[16];
	char stack[24];        /* the software stack: given, or from
				* framework */
	int stack_given;       /* stack: in runs.yaml (passed as
				* --train-stack where the engine has it) */
	char generation[16];
	char metric[24];
	int half;
	int guard;             /* regression_guard: one of the original runs */
	int expressible;
	char why[AUTOSIZE_MSG_LEN]; /* not expressible: the engine's reason */
	char remark[256];      /* notes: in runs.yaml */
	char notes[160];       /* options passed in a v1 form */
	char known_miss[320];  /* known_miss: why a run the model cannot
				* yet follow is left out of the 40% gate
				* (still in every statistic) */
	double published;
	double predicted;
	double error;          /* (predicted - published) / published */
	double time_ratio;     /* predicted / real run time */
	double limit_factor;   /* time limit / predicted time */
	int covered;           /* time limit >= real run time */
	double mem_pub_gib;    /* 0: not published */
	int mem_kind;          /* peak_memory_kind: what the figure counts */
	double mem_pred_gib;
	double mem_error;
	int over_memory;       /* the plan needs more than usable memory */
	char layout[160];
	int classes;           /* CLASS_* of the run */
	/* what etc/published-runs.tsv keeps of the plan */
	char perf[16];         /* its perf.yaml entry */
	const char *planned;   /* the framework it ran under */
	int gpus, seq_len;
	double params;
} vrun;

/* What kind of run: the report's classes (a run may be in several). */
enum { CLASS_DENSE = 1, CLASS_MOE = 2, CLASS_LONG = 4, CLASS_PEFT = 8,
       CLASS_WHOLE = 16 };
/* Long context: sequences of at least this many tokens. */
#define LONG_CONTEXT_TOKENS 32768
static const char *const classes[] = {"dense", "MoE", "long context",
				      "PEFT", "whole run", NULL};

static vrun *runs;
static int n_runs;

/* What a published peak memory counts: the device's (nvidia-smi; the
 * default, and where a source does not say), PyTorch's peak reserved
 * (no CUDA context or NCCL buffers), its peak active (no fragmentation
 * either). The prediction is compared in the same terms. */
enum { MEM_DEVICE = 0, MEM_RESERVED = 1, MEM_ACTIVE = 2 };
static const char *const mem_kinds[] = {"device", "reserved", "active",
					NULL};
static const char *const generations[] = {"ampere", "ada", "hopper",
					  "blackwell", "cdna3", NULL};
static const char *const frameworks[] = {"megatron", "nemo", "deepspeed",
					 "torchtitan", "llm-foundry", "fsdp",
					 "other", NULL};
/* Stacks the report groups by; a run without stack: takes its
 * framework's name (the runs before stacks existed). */
static const char *const stacks[] = {"megatron", "nemo", "deepspeed",
				     "torchtitan", "llm-foundry", "fsdp",
				     "megatron-deepspeed", "automodel", "hf",
				     "torchtune",
				     "unsloth", "axolotl", "llama-factory",
				     "hai-llm", "other", NULL};
static const char *const run_keys[] = {"id", "source", "framework",
				       "stack", "sealed", "sealed_batch",
				       "known_miss",
				       "gpu_generation", "options",
				       "regression_guard", "peak_memory_gib",
				       "peak_memory_kind",
				       "notes", "hfu_tflops", "mfu", "hfu",
				       "tokens_per_s_per_gpu", "step_s",
				       "gpu_hours", "step_gpu_hours", NULL};

/* FNV-1a, 32 bit (Fowler, Noll, Vo; the public-domain reference). */
static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

static int engine_offers(const char *name)
{
	const autosize_option *o;

	for (o = autosize_options(); o->name; o++)
		if (strcmp(o->name, name) == 0)
			return 1;
	return 0;
}

static void add_note(vrun *r, const char *text)
{
	size_t len = strlen(r->notes);

	snprintf(r->notes + len, sizeof(r->notes) - len, "%s%s",
		 len ? "; " : "", text);
}

/*
 * Newer options, for an engine under test that does not offer them: the
 * older spelling with the same meaning, or nothing where the older engine
 * already behaves so (framework from the layout; no context or expert
 * parallelism is the value 1). Anything else is not expressible.
 */
static int v1_option(vrun *r, const char **key, const char *value)
{
	if (strcmp(*key, "vp") == 0 && engine_offers("interleave")) {
		*key = "interleave";
		add_note(r, "vp as --interleave");
		return 1;
	}
	if (strcmp(*key, "train-framework") == 0) {
		char note[64];

		snprintf(note, sizeof(note), "framework %.16s inferred from "
			 "the layout", value);
		add_note(r, note);
		*key = NULL;
		return 1;
	}
	if ((strcmp(*key, "cp") == 0 || strcmp(*key, "ep") == 0) &&
	    strcmp(value, "1") == 0) {
		*key = NULL;
		return 1;
	}
	return 0;
}

/* Apply a run's options; 0, or -1 with r->why set. */
static int set_options(vrun *r, const autosize_ynode *opts,
		       autosize_request *req)
{
	const autosize_ynode *o;
	autosize_error e;

	for (o = opts->child; o; o = o->next) {
		char name[64];
		const char *key = name;

		if (o->key_len >= sizeof(name) || o->kind !=
		    AUTOSIZE_YNODE_SCALAR)
			fail_msg("%s: option %.*s is not a plain key: value",
				 r->id, (int)o->key_len, o->key);
		memcpy(name, o->key, o->key_len);
		name[o->key_len] = '\0';
		if (!engine_offers(name) && !v1_option(r, &key, o->value)) {
			snprintf(r->why, sizeof(r->why), "this engine has "
				 "no --%s", name);
			return -1;
		}
		if (!key)
			continue;
		if (autosize_request_set(req, key, o->value, &e)) {
			snprintf(r->why, sizeof(r->why), "%s", e.msg);
			return -1;
		}
	}
	if (r->stack_given && engine_offers("train-stack")) {
		if (autosize_request_set(req, "train-stack", r->stack, &e)) {
			snprintf(r->why, sizeof(r->why), "%s", e.msg);
			return -1;
		}
	} else if (r->stack_given) {
		add_note(r, "stack not passed (no --train-stack)");
	}
	if (autosize_request_finish(req, &e)) {
		snprintf(r->why, sizeof(r->why), "%s", e.msg);
		return -1;
	}
	return 0;
}

/* The classes of a run planned from req as plan. */
static int run_classes(const vrun *r, const autosize_request *req,
		       const autosize_plan *plan)
{
	int c = req->model.experts > 1 ? CLASS_MOE : CLASS_DENSE;

	if (plan->seq_len >= LONG_CONTEXT_TOKENS)
		c |= CLASS_LONG;
	if (req->train_mode == AUTOSIZE_TRAIN_LORA ||
	    req->train_mode == AUTOSIZE_TRAIN_QLORA)
		c |= CLASS_PEFT;
	if (strcmp(r->metric, "gpu_hours") == 0)
		c |= CLASS_WHOLE;
	return c;
}

/* The built-in policy every run is planned under, kept for the whole
 * test: a plan points into its catalog (plan.part.gpu), which the
 * figures read after planning. */
static autosize_policy *validation_policy;

/* Plan a run; 0, or -1 when the engine cannot express it (r->why). */
static int plan_run(vrun *r, const autosize_ynode *opts, autosize_plan *plan)
{
	autosize_request req;
	autosize_error e;
	autosize_policy *pol;
	autosize_err rc;
	int ret = -1;

	if (!validation_policy)
		validation_policy = autosize_policy_default(&e);
	pol = validation_policy;
	assert_non_null(pol);
	autosize_request_init(&req);
	req.model_local = 1;   /* config.json files, as the CLI */
	if (set_options(r, opts, &req))
		goto out;
	/* a token count gives every plan its time interval and limit; the
	 * layout and the rates do not depend on it (the GPUs are pinned) */
	if (req.tokens <= 0)
		req.tokens = VALIDATION_TOKENS;
	rc = autosize_plan_compute(pol, &req, plan, &e);
	if (rc != AUTOSIZE_OK && rc != AUTOSIZE_ENOFIT) {
		snprintf(r->why, sizeof(r->why), "%s", e.msg);
		goto out;
	}
	r->classes = run_classes(r, &req, plan);
	ret = 0;
out:
	return ret;
}

/*
 * Would the job's time limit cover the real run? Every run is planned
 * with a token count, so the plan carries its interval: the training
 * part of its limit is the upper end of the interval (train_hours_high),
 * at least the policy's floor over the prediction, as plan.c sets it;
 * the fixed start-up and checkpoint allowance is left out so a long or
 * a chained run is judged the same way as a short one. The real run time
 * relative to the prediction comes from the metric: a time (step,
 * GPU-hours) directly, a rate inversely.
 */
static void time_cover(vrun *r, const autosize_plan *p)
{
	int is_time = vmetric_is_time(r->metric);

	if (r->predicted <= 0 || p->train_hours <= 0) {
		r->time_ratio = 0;
		r->limit_factor = 0;
		r->covered = 0;
		return;
	}
	r->time_ratio = is_time ? r->predicted / r->published
				: r->published / r->predicted;
	r->limit_factor = fmax(p->train_hours_high / p->train_hours,
			       1 + p->time_reserve);
	r->covered = r->time_ratio * r->limit_factor >= 1 - 1e-9;
}

/* "fit", "held-out", "sealed 1", "sealed 2", ... */
static const char *half_name(int half)
{
	static const char *const names[] = {"fit", "held-out", "sealed 1",
					    "sealed 2", "sealed 3", "sealed 4",
					    "sealed 5", "sealed 6", "sealed 7",
					    "sealed 8", "sealed 9", "sealed 10",
					    "sealed 11", "sealed 12", "sealed 13"};

	_Static_assert(sizeof(names) / sizeof(names[0]) ==
		       HALF_SEALED + SEALED_BATCHES,
		       "a name for every half and sealed batch");
	return half >= 0 && half < HALF_SEALED + SEALED_BATCHES
		? names[half] : "?";
}

static void read_run(const autosize_ytree *t, const autosize_ynode *item,
		     vrun *r)
{
	autosize_error e;
	int i, found = 0, f = 0, sealed = 0, batch_given = 0;
	double batch = 1;

	if (autosize_ytree_check_keys(t, item, "run", run_keys, &e) ||
	    autosize_ytree_str(t, item, "id", AUTOSIZE_Y_REQUIRED, r->id,
			       sizeof(r->id), NULL, &e) ||
	    autosize_ytree_str(t, item, "source", AUTOSIZE_Y_REQUIRED,
			       r->source, sizeof(r->source), NULL, &e) ||
	    autosize_ytree_choice(t, item, "framework", AUTOSIZE_Y_REQUIRED,
				  frameworks, &i, NULL, &e) ||
	    autosize_ytree_bool(t, item, "regression_guard",
				AUTOSIZE_Y_OPTIONAL, &r->guard, NULL, &e) ||
	    autosize_ytree_double(t, item, "peak_memory_gib",
				  AUTOSIZE_Y_GT_MIN, 0, 1e4,
				  &r->mem_pub_gib, NULL, &e) ||
	    autosize_ytree_str(t, item, "notes", AUTOSIZE_Y_OPTIONAL,
			       r->remark, sizeof(r->remark), NULL, &e))
		fail_msg("%s", e.msg);
	snprintf(r->framework, sizeof(r->framework), "%s", frameworks[i]);
	snprintf(r->stack, sizeof(r->stack), "%s", frameworks[i]);
	if (autosize_ytree_choice(t, item, "stack", AUTOSIZE_Y_OPTIONAL,
				  stacks, &i, &r->stack_given, &e) ||
	    autosize_ytree_bool(t, item, "sealed", AUTOSIZE_Y_OPTIONAL,
				&sealed, NULL, &e) ||
	    autosize_ytree_double(t, item, "sealed_batch",
				  AUTOSIZE_Y_OPTIONAL, 1, SEALED_BATCHES,
				  &batch, &batch_given, &e) ||
	    autosize_ytree_str(t, item, "known_miss", AUTOSIZE_Y_OPTIONAL,
			       r->known_miss, sizeof(r->known_miss), NULL,
			       &e) ||
	    autosize_ytree_choice(t, item, "peak_memory_kind",
				  AUTOSIZE_Y_OPTIONAL, mem_kinds, &r->mem_kind,
				  NULL, &e))
		fail_msg("%s", e.msg);
	if (r->stack_given)
		snprintf(r->stack, sizeof(r->stack), "%s", stacks[i]);
	if (autosize_ytree_choice(t, item, "gpu_generation",
				  AUTOSIZE_Y_REQUIRED, generations, &i, NULL,
				  &e))
		fail_msg("%s", e.msg);
	snprintf(r->generation, sizeof(r->generation), "%s", generations[i]);
	for (i = 0; vmetric_names[i]; i++) {
		if (autosize_ytree_double(t, item, vmetric_names[i],
					  AUTOSIZE_Y_GT_MIN, 0, 1e12,
					  &r->published, &f, &e))
			fail_msg("%s", e.msg);
		if (f) {
			snprintf(r->metric, sizeof(r->metric), "%s",
				 vmetric_names[i]);
			found++;
		}
	}
	if (found != 1)
		fail_msg("%s: give exactly one published figure (%d given)",
			 r->id, found);
	if (batch_given && (!sealed || batch != floor(batch)))
		fail_msg("%s: sealed_batch needs sealed: true and a whole "
			 "number", r->id);
	r->half = sealed ? HALF_SEALED + (int)batch - 1
			 : fnv1a(r->id) % 2 ? HALF_HELDOUT : HALF_FIT;
}

static void evaluate_run(const autosize_ytree *t, const autosize_ynode *item,
			 vrun *r)
{
	const autosize_ynode *opts;
	autosize_error e;
	autosize_plan plan;

	if (autosize_ytree_map(t, item, "options", AUTOSIZE_Y_REQUIRED, &opts,
			       &e))
		fail_msg("%s", e.msg);
	memset(&plan, 0, sizeof(plan));
	r->expressible = plan_run(r, opts, &plan) == 0;
	if (!r->expressible)
		return;
	r->predicted = vmetric_predicted(r->metric, &plan);
	r->error = (r->predicted - r->published) / r->published;
	snprintf(r->perf, sizeof(r->perf), "%s", plan.perf_generation);
	r->planned = autosize_framework_name(plan.framework);
	r->gpus = plan.gpus;
	r->seq_len = plan.seq_len;
	r->params = plan.params;
	time_cover(r, &plan);
	if (r->mem_pub_gib > 0) {
		/* a measured peak: the allocator's cache held (the
		 * runs had room), less what the figure leaves out */
		double b = plan.mem.total_bytes + plan.mem.cache_bytes;

		if (r->mem_kind >= MEM_RESERVED)
			b -= plan.mem.runtime_bytes;
		if (r->mem_kind == MEM_ACTIVE)
			b -= plan.mem.slack_bytes + plan.mem.cache_bytes;
		r->mem_pred_gib = b / (1024.0 * 1024 * 1024);
		r->mem_error = (r->mem_pred_gib - r->mem_pub_gib) /
			       r->mem_pub_gib;
	}
	/* the GPU's whole memory: a run planned with the policy's reserve
	 * ran in all of it */
	r->over_memory = plan.part.gpu &&
			 plan.mem.total_bytes > plan.part.gpu->mem_bytes;
	snprintf(r->layout, sizeof(r->layout),
		 "%d GPUs: TP %d PP %d VP %d DP %d CP %d EP %d, ZeRO %d, "
		 "mb %d, %s%s, %s%s", plan.gpus, plan.tp, plan.pp,
		 plan.vp > 1 ? plan.vp : 1, plan.dp, plan.cp > 1 ? plan.cp : 1,
		 plan.ep > 1 ? plan.ep : 1, plan.zero_stage, plan.micro_batch,
		 autosize_recompute_name(plan.recompute),
		 plan.recompute_layers > 0 ? " (part)" : "", r->generation,
		 r->over_memory ? " (over memory)"
		 : plan.feasible ? "" : " (over a policy limit)");
}

static void load_runs(void)
{
	autosize_error e;
	autosize_ytree *t = autosize_ytree_load_data(RUNS_FILE, &e);
	const autosize_ynode *seq, *item;
	int i, j;

	if (!t)
		fail_msg("%s", e.msg);
	if (autosize_ytree_seq(t, autosize_ytree_root(t), "runs",
			       AUTOSIZE_Y_REQUIRED, 100000, &seq, &e))
		fail_msg("%s", e.msg);
	runs = calloc(seq->n_children ? seq->n_children : 1, sizeof(*runs));
	assert_non_null(runs);
	for (item = seq->child; item; item = item->next) {
		vrun *r = &runs[n_runs++];

		read_run(t, item, r);
		evaluate_run(t, item, r);
	}
	assert_int_equal(n_runs, seq->n_children);
	for (i = 0; i < n_runs; i++)
		for (j = i + 1; j < n_runs; j++)
			if (strcmp(runs[i].id, runs[j].id) == 0)
				fail_msg("run id %s appears twice", runs[i].id);
	autosize_ytree_destroy(t);
}

/* Which runs a statistic is over; NULL / -1 = any. */
typedef struct vfilter {
	int half;
	int guard_only;
	const char *generation;
	const char *framework;
	const char *stack;
	int cls;               /* CLASS_* the run must be in; 0: any */
} vfilter;

typedef struct vstats {
	int n;
	int close;
	int covered;
	double median;
	double p90;
	double worst;
} vstats;

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int in_filter(const vrun *r, const vfilter *f)
{
	return r->expressible && (f->half < 0 || r->half == f->half) &&
	       (!f->guard_only || r->guard) &&
	       (!f->generation || strcmp(r->generation, f->generation) == 0) &&
	       (!f->framework || strcmp(r->framework, f->framework) == 0) &&
	       (!f->stack || strcmp(r->stack, f->stack) == 0) &&
	       (!f->cls || (r->classes & f->cls)) &&
	       (f->half >= 0 || r->half < HALF_SEALED);
}

/* Absolute errors: nearest-rank median and 90th percentile, worst. */
static vstats stats_of(const vfilter *f, int memory)
{
	vstats s = {0};
	double *err = calloc(n_runs ? n_runs : 1, sizeof(*err));
	int i;

	assert_non_null(err);
	for (i = 0; i < n_runs; i++) {
		const vrun *r = &runs[i];

		if (!in_filter(r, f) || (memory && r->mem_pub_gib <= 0))
			continue;
		err[s.n] = fabs(memory ? r->mem_error : r->error);
		s.close += err[s.n] <= CLOSE_ERR;
		s.covered += r->covered;
		s.n++;
	}
	if (s.n) {
		qsort(err, s.n, sizeof(*err), cmp_double);
		s.median = s.n % 2 ? err[s.n / 2]
				   : (err[s.n / 2 - 1] + err[s.n / 2]) / 2;
		s.p90 = err[(int)ceil(0.9 * s.n) - 1];
		s.worst = err[s.n - 1];
	}
	free(err);
	return s;
}

static void stats_row(FILE *out, const char *label, const vstats *s,
		      int memory)
{
	if (!s->n) {
		fprintf(out, "| %s | 0 | | | | |%s\n", label,
			memory ? "" : " |");
		return;
	}
	fprintf(out, "| %s | %d | %d (%.0f%%) | %.1f%% | %.1f%% | %.1f%% |",
		label, s->n, s->close, 100.0 * s->close / s->n,
		100 * s->median, 100 * s->p90, 100 * s->worst);
	if (!memory)
		fprintf(out, " %d (%.0f%%) |", s->covered,
			100.0 * s->covered / s->n);
	fprintf(out, "\n");
}

static void stats_header(FILE *out, const char *first, int memory)
{
	fprintf(out, "| %s | runs | within 15%% | median | p90 | max |%s\n"
		"|---|---|---|---|---|---|%s\n", first,
		memory ? "" : " time limit covers |", memory ? "" : "---|");
}

/* One table of a half (or all, half < 0) grouped by a list of values. */
enum { BY_FRAMEWORK = 0, BY_GENERATION = 1, BY_STACK = 2, BY_CLASS = 3 };

static void group_table(FILE *out, int half, const char *title,
			const char *const *values, int by)
{
	static const char *const heads[] = {"framework", "GPU generation",
					    "stack", "class"};
	int i;

	fprintf(out, "%s\n\n", title);
	stats_header(out, heads[by], 0);
	for (i = 0; values[i]; i++) {
		vfilter f = {half, 0, NULL, NULL, NULL, 0};
		vstats s;

		if (by == BY_GENERATION)
			f.generation = values[i];
		else if (by == BY_STACK)
			f.stack = values[i];
		else if (by == BY_CLASS)
			f.cls = 1 << i;
		else
			f.framework = values[i];
		s = stats_of(&f, 0);
		if (s.n)
			stats_row(out, values[i], &s, 0);
	}
	fprintf(out, "\n");
}

static void run_rows(FILE *out, int half)
{
	int i;

	fprintf(out, "| run | generation | framework | stack | metric | "
		"published | predicted | error | limit covers | memory GiB "
		"pub/pred | layout | notes | source |\n"
		"|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (i = 0; i < n_runs; i++) {
		const vrun *r = &runs[i];
		char mem[48] = "";

		if (!r->expressible || r->half != half)
			continue;
		if (r->mem_pub_gib > 0)
			snprintf(mem, sizeof(mem), "%.1f / %.1f (%+.0f%%)",
				 r->mem_pub_gib, r->mem_pred_gib,
				 100 * r->mem_error);
		fprintf(out, "| %s%s | %s | %s | %s | %s | %.4g | %.4g | "
			"%+.1f%% | %s | %s | %s | %s%s%s | %s |\n", r->id,
			r->guard ? " (g)" : "", r->generation, r->framework,
			r->stack, r->metric, r->published, r->predicted,
			100 * r->error, r->covered ? "yes" : "**no**", mem,
			r->layout, r->remark,
			*r->remark && *r->notes ? "; " : "", r->notes,
			r->source);
	}
	fprintf(out, "\n");
}

static void summary_table(FILE *out, int memory)
{
	vfilter fit = {HALF_FIT, 0, NULL, NULL, NULL, 0};
	vfilter held = {HALF_HELDOUT, 0, NULL, NULL, NULL, 0};
	vfilter all = {-1, 0, NULL, NULL, NULL, 0};
	vfilter guard = {-1, 1, NULL, NULL, NULL, 0};
	vstats s;
	char title[64];
	int b;

	stats_header(out, "set", memory);
	s = stats_of(&fit, memory);
	stats_row(out, "in-sample (fit half)", &s, memory);
	s = stats_of(&held, memory);
	stats_row(out, "held-out half", &s, memory);
	for (b = 0; b < SEALED_BATCHES; b++) {
		vfilter sealed = {HALF_SEALED + b, 0, NULL, NULL, NULL, 0};

		/* the newest batch is scored once; every later change of
		 * the constants re-scores the earlier ones */
		snprintf(title, sizeof(title), "sealed batch %d (%s)", b + 1,
			 b == SEALED_BATCHES - 1 && !SEALED_NEWEST_RESCORED
			 ? "scored once" : "re-scored since");
		s = stats_of(&sealed, memory);
		stats_row(out, title, &s, memory);
	}
	s = stats_of(&all, memory);
	stats_row(out, "fit + held-out", &s, memory);
	if (!memory) {
		s = stats_of(&guard, 0);
		stats_row(out, "original A100 runs (g)", &s, 0);
	}
	fprintf(out, "\n");
}

/* Runs of half (-1: fit + held-out) and how many of them the memory
 * model fits in their GPU's memory. */
static void memory_fit_count(int half, int *n, int *fit)
{
	int i;

	*n = *fit = 0;
	for (i = 0; i < n_runs; i++) {
		const vrun *r = &runs[i];

		if (!r->expressible || (half < 0 ? r->half >= HALF_SEALED
					       : r->half != half))
			continue;
		(*n)++;
		*fit += !r->over_memory;
	}
}

static void memory_fit_row(FILE *out, const char *title, int half)
{
	int n, fit;

	memory_fit_count(half, &n, &fit);
	if (n > 0)
		fprintf(out, "| %s | %d | %d (%.0f%%) |\n", title, n, fit,
			100.0 * fit / n);
}

/* The published layouts the plan fits in memory, by set. */
static void memory_fit_table(FILE *out)
{
	char title[64];
	int b;

	fprintf(out, "## Published layouts the plan fits in memory\n\n"
		"Every run ran: one the memory model puts over its GPU's "
		"memory (\"(over memory)\" in the tables below; the plan's "
		"total without PyTorch's cache, against the whole memory) is "
		"one a plan would have refused or recomputed. Gate: at least "
		"%.0f%% of fit + held-out.\n\n| set | runs | fit in memory "
		"|\n|---|---|---|\n", 100 * MEMORY_FIT_MIN);
	memory_fit_row(out, "in-sample (fit half)", HALF_FIT);
	memory_fit_row(out, "held-out half", HALF_HELDOUT);
	for (b = 0; b < SEALED_BATCHES; b++) {
		snprintf(title, sizeof(title), "sealed batch %d", b + 1);
		memory_fit_row(out, title, HALF_SEALED + b);
	}
	memory_fit_row(out, "fit + held-out", -1);
	fprintf(out, "\n");
}

/* How many runs (expressible or not) each generation x framework has. */
static void count_table(FILE *out)
{
	int g, f, i;

	fprintf(out, "| generation |");
	for (f = 0; frameworks[f]; f++)
		fprintf(out, " %s |", frameworks[f]);
	fprintf(out, " all |\n|---|");
	for (f = 0; frameworks[f]; f++)
		fprintf(out, "---|");
	fprintf(out, "---|\n");
	for (g = 0; generations[g]; g++) {
		int row = 0;

		fprintf(out, "| %s |", generations[g]);
		for (f = 0; frameworks[f]; f++) {
			int n = 0;

			for (i = 0; i < n_runs; i++)
				n += strcmp(runs[i].generation,
					    generations[g]) == 0 &&
				     strcmp(runs[i].framework,
					    frameworks[f]) == 0;
			fprintf(out, " %d |", n);
			row += n;
		}
		fprintf(out, " %d |\n", row);
	}
	fprintf(out, "\n");
}

static int count_expressible(void)
{
	int i, n = 0;

	for (i = 0; i < n_runs; i++)
		n += runs[i].expressible;
	return n;
}

/* The held-out half against goals g; with runs_too, every run of both
 * halves against STRICT_WORST and expressibility too (the gates: sealed
 * runs are left out of them, tests/validation/README.md), without it
 * every run of every batch against expressibility (issue 32's goal: no
 * refused published layout). Prints each miss to out after prefix;
 * returns how many. */
static int strict_gates(FILE *out, const char *prefix, const vgoals *g,
			int runs_too)
{
	vfilter held = {HALF_HELDOUT, 0, NULL, NULL, NULL, 0};
	vstats s = stats_of(&held, 0);
	int i, bad = 0;

	if (s.n == 0 || s.median > g->median) {
		fprintf(out, "%sheld-out median error %.1f%% over %d runs "
			"exceeds %.0f%%\n", prefix, 100 * s.median, s.n,
			100 * g->median);
		bad++;
	}
	if (s.close < g->close * s.n) {
		fprintf(out, "%sheld-out: %d of %d runs within %.0f%%, under "
			"%.0f%%\n", prefix, s.close, s.n, 100 * CLOSE_ERR,
			100 * g->close);
		bad++;
	}
	if (s.covered < g->covered * s.n) {
		fprintf(out, "%sheld-out: the time limit covers %d of %d "
			"runs, under %.0f%%\n", prefix, s.covered, s.n,
			100 * g->covered);
		bad++;
	}
	for (i = 0; i < n_runs; i++) {
		const vrun *r = &runs[i];

		if (!r->expressible &&
		    (r->half < HALF_SEALED || !runs_too)) {
			fprintf(out, "%s%s (%s) is not expressible: %s\n",
				prefix, r->id, half_name(r->half), r->why);
			bad++;
		}
		if (runs_too && r->expressible && r->half < HALF_SEALED &&
		    !r->known_miss[0] && fabs(r->error) > STRICT_WORST) {
			fprintf(out, "%s%s (%s) error %+.1f%% exceeds %.0f%%\n",
				prefix, r->id, r->half ? "held-out" : "fit",
				100 * r->error, 100 * STRICT_WORST);
			bad++;
		}
	}
	return bad;
}

static void write_report(FILE *out)
{
	char title[64];
	int i, b;

	fprintf(out, "# Validation against published runs\n\n"
		"Generated by `make validate` from "
		"`tests/validation/runs.yaml` (rules: "
		"`tests/validation/README.md`). Each run is planned with its "
		"published layout pinned (unpublished parts searched); one set "
		"of model constants serves all. Error = (predicted - "
		"published) / published of the run's one published figure. "
		"The halves are fixed by a hash of the run id (FNV-1a: even = "
		"fit, odd = held-out), never by the errors. \"Time limit "
		"covers\": the training part of the limit the plan would set "
		"(the upper end of its predicted-time interval, at least "
		"the policy's floor; every run is planned with a token "
		"count, 1e12 where the source gives none) is at least the "
		"real run time.\n\n%d runs, %d expressible by this engine.\n\n"
		"## Runs by GPU generation and framework\n\n", n_runs,
		count_expressible());
	count_table(out);
	fprintf(out, "## Summary\n\n");
	summary_table(out, 0);
	group_table(out, HALF_HELDOUT, "## Held-out half by GPU generation",
		    generations, BY_GENERATION);
	group_table(out, HALF_HELDOUT, "## Held-out half by framework",
		    frameworks, BY_FRAMEWORK);
	group_table(out, HALF_HELDOUT, "## Held-out half by stack",
		    stacks, BY_STACK);
	group_table(out, HALF_FIT, "## In-sample half by GPU generation",
		    generations, BY_GENERATION);
	group_table(out, HALF_FIT, "## In-sample half by framework",
		    frameworks, BY_FRAMEWORK);
	group_table(out, HALF_FIT, "## In-sample half by stack", stacks,
		    BY_STACK);
	for (b = SEALED_BATCHES - 1; b >= 0; b--) {
		snprintf(title, sizeof(title), "## Sealed batch %d by stack",
			 b + 1);
		group_table(out, HALF_SEALED + b, title, stacks, BY_STACK);
		snprintf(title, sizeof(title), "## Sealed batch %d by GPU "
			 "generation", b + 1);
		group_table(out, HALF_SEALED + b, title, generations,
			    BY_GENERATION);
	}
	fprintf(out, "## By class\n\nA run is in every class it belongs "
		"to: dense or MoE; long context (sequences of %d tokens or "
		"more); PEFT (LoRA, QLoRA); whole run (GPU-hours of a whole "
		"run).\n\n", LONG_CONTEXT_TOKENS);
	group_table(out, HALF_HELDOUT, "### Held-out half by class", classes,
		    BY_CLASS);
	group_table(out, HALF_FIT, "### In-sample half by class", classes,
		    BY_CLASS);
	for (b = SEALED_BATCHES - 1; b >= 0; b--) {
		snprintf(title, sizeof(title), "### Sealed batch %d by class",
			 b + 1);
		group_table(out, HALF_SEALED + b, title, classes, BY_CLASS);
	}
	fprintf(out, "## Gates of `make validate`\n\nOn the held-out half: "
		"median error at most %.0f%%, at least %.0f%% of the runs "
		"within %.0f%%, the time limit covering at least %.0f%%; "
		"every run of both halves within %.0f%% and expressible. "
		"Misses:\n\n", 100 * strict_gate.median,
		100 * strict_gate.close, 100 * CLOSE_ERR,
		100 * strict_gate.covered, 100 * STRICT_WORST);
	if (!strict_gates(out, "- ", &strict_gate, 1))
		fprintf(out, "None.\n");
	fprintf(out, "\nIssue 32's goals on the held-out half (reported, "
		"not enforced): median error at most %.0f%%, at least %.0f%% "
		"within %.0f%%, the time limit covering at least %.0f%%; no "
		"published layout refused, sealed batches included. "
		"Misses:\n\n", 100 * issue_target.median,
		100 * issue_target.close, 100 * CLOSE_ERR,
		100 * issue_target.covered);
	if (!strict_gates(out, "- ", &issue_target, 0))
		fprintf(out, "None.\n");
	fprintf(out, "\nKnown misses (in every statistic above, left out "
		"of the 40%% gate with the reason the model cannot follow "
		"them yet):\n\n");
	for (i = 0; i < n_runs; i++)
		if (runs[i].expressible && runs[i].known_miss[0])
			fprintf(out, "- %s (%s): error %+.1f%%: %s\n",
				runs[i].id, half_name(runs[i].half),
				100 * runs[i].error, runs[i].known_miss);
	fprintf(out, "\n## Peak memory per GPU (runs that publish it)\n\n");
	summary_table(out, 1);
	memory_fit_table(out);
	fprintf(out, "## Held-out runs\n\n");
	run_rows(out, HALF_HELDOUT);
	fprintf(out, "## In-sample runs\n\n(g): original A100 run, guarded by "
		"`make check`.\n\n");
	run_rows(out, HALF_FIT);
	fprintf(out, "## Sealed runs\n\nAdded after the constants were "
		"frozen, scored once; the 40%% gate does not apply to them "
		"(a miss is reported, not tuned away).\n\n");
	for (b = SEALED_BATCHES - 1; b >= 0; b--) {
		fprintf(out, "### Batch %d%s\n\n", b + 1,
			b == SEALED_BATCHES - 1 && !SEALED_NEWEST_RESCORED
			? "" : " (scored once at its "
			"freeze, re-scored under every later change of the "
			"constants)");
		run_rows(out, HALF_SEALED + b);
	}
	fprintf(out, "## Not yet expressible\n\nExcluded from every "
		"statistic above.\n\n");
	for (i = 0; i < n_runs; i++)
		if (!runs[i].expressible)
			fprintf(out, "- %s (%s, %s): not yet expressible: %s\n",
				runs[i].id, runs[i].generation,
				runs[i].framework, runs[i].why);
	if (count_expressible() == n_runs)
		fprintf(out, "None.\n");
}

static void print_console(void)
{
	int i;

	for (i = 0; i < n_runs; i++) {
		const vrun *r = &runs[i];

		if (!r->expressible) {
			printf("  %-34s not yet expressible: %s\n", r->id,
			       r->why);
			continue;
		}
		printf("  %-34s %-8s %-20s %9.4g %9.4g %+6.1f%%%s  %s\n",
		       r->id, half_name(r->half), r->metric,
		       r->published, r->predicted, 100 * r->error,
		       r->covered ? "" : " (limit short)", r->layout);
	}
}

/*
 * etc/published-runs.tsv: every expressible run with what the plan
 * matched it on and its error, for plan --json's nearest published runs
 * (core/published.c). make validate writes it (AUTOSIZE_PUBLISHED);
 * make check fails while the compiled-in copy differs from what the
 * engine scores now.
 */
static void published_table(FILE *out)
{
	int i;

	fprintf(out, "# Generated by make validate (tests/test_validation.c) "
		"from tests/validation/runs.yaml: do not edit.\n# id\thalf\t"
		"perf\tframework\tstack\tmoe\tpeft\tgpus\tparams\tseq_len"
		"\tmetric\terror\tknown_miss\tsource\n");
	for (i = 0; i < n_runs; i++) {
		const vrun *r = &runs[i];

		if (!r->expressible)
			continue;
		fprintf(out, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%.4g\t%d\t%s\t"
			"%.3f\t%d\t%s\n", r->id, half_name(r->half), r->perf,
			r->planned, r->stack, !!(r->classes & CLASS_MOE),
			!!(r->classes & CLASS_PEFT), r->gpus, r->params,
			r->seq_len, r->metric, r->error, !!r->known_miss[0],
			r->source);
	}
}

/* The compiled-in etc/published-runs.tsv against the scores now. */
static void check_published_table(void)
{
	const char *path = getenv("AUTOSIZE_PUBLISHED");
	char *now = NULL;
	size_t len = 0;
	FILE *f;

	if (path) {
		f = fopen(path, "w");
		assert_non_null(f);
		published_table(f);
		assert_int_equal(fclose(f), 0);
		return;
	}
	f = open_memstream(&now, &len);
	assert_non_null(f);
	published_table(f);
	assert_int_equal(fclose(f), 0);
	if (len != autosize_embedded_published_runs_tsv_len ||
	    memcmp(now, autosize_embedded_published_runs_tsv, len) != 0)
		fail_msg("etc/published-runs.tsv is not what the engine scores "
			 "now: run make validate and commit it");
	free(now);
}

static void test_published_runs(void **state)
{
	vfilter guard = {-1, 1, NULL, NULL, NULL, 0};
	vstats g;
	int mem_n, mem_fit;
	const char *report = getenv("AUTOSIZE_REPORT");
	const char *strict = getenv("AUTOSIZE_VALIDATE_STRICT");

	load_runs();
	print_console();
	g = stats_of(&guard, 0);
	printf("  %d runs, %d expressible; original A100 runs: %d of %d "
	       "within %.0f%%, worst %.1f%%\n", n_runs, count_expressible(),
	       g.close, g.n, 100 * CLOSE_ERR, 100 * g.worst);
	if (report) {
		FILE *f = fopen(report, "w");

		assert_non_null(f);
		write_report(f);
		assert_int_equal(fclose(f), 0);
	}
	check_published_table();
	assert_true(n_runs >= MIN_RUNS);
	assert_int_equal(g.n, GUARD_RUNS);
	assert_true(g.close >= GUARD_CLOSE);
	assert_true(g.worst <= GUARD_WORST);
	memory_fit_count(-1, &mem_n, &mem_fit);
	printf("  fit + held-out layouts that fit in memory: %d of %d\n",
	       mem_fit, mem_n);
	assert_true(mem_fit >= MEMORY_FIT_MIN * mem_n);
	if (strict && strcmp(strict, "1") == 0)
		assert_int_equal(strict_gates(stdout, "  strict: ",
					      &strict_gate, 1), 0);
	free(runs);
	runs = NULL;
	n_runs = 0;
}

/* The split rule is the documented hash, not something fitted. */
static void test_split_rule(void **state)
{
	/* FNV-1a reference values (offset basis for "", "a" -> e40c292c). */
	assert_int_equal(fnv1a(""), 2166136261u);
	assert_int_equal(fnv1a("a"), 0xe40c292cu);
	assert_int_equal(fnv1a("foobar"), 0xbf9cf968u);
}

/* Unpinned search at the published GPU count: same family (TP inside the
 * node, PP across nodes), no worse than the published layout. */
static void check_search(const char *shape, int gpus, int batch,
			 int pub_tp, int pub_pp)
{
	autosize_request req;
	autosize_plan best, pub;
	autosize_error e;
	autosize_policy *pol = autosize_policy_default(&e);
	char n[16];

	autosize_request_init(&req);
	req.model_local = 1;
	assert_int_equal(autosize_request_set(&req, "model", shape, &e), 0);
	assert_int_equal(autosize_request_finish(&req, &e), 0);
	assert_int_equal(autosize_request_set(&req, "gpu", "a100-80gb", &e),
			 0);
	snprintf(n, sizeof(n), "%d", gpus);
	assert_int_equal(autosize_request_set(&req, "gpus", n, &e), 0);
	snprintf(n, sizeof(n), "%d", batch);
	assert_int_equal(autosize_request_set(&req, "train-batch", n, &e), 0);
	assert_int_equal(autosize_request_set(&req, "train-seq-len", "2048",
					      &e), 0);
	assert_int_equal(autosize_request_set(&req, "train-tokens", "300B",
					      &e), 0);
	assert_int_equal(autosize_plan_compute(pol, &req, &best, &e), 0);
	req.tp = pub_tp;
	req.pp = pub_pp;
	assert_int_equal(autosize_plan_compute(pol, &req, &pub, &e), 0);
	printf("  %s on %d: search TP %d PP %d DP %d %.0f tok/s; published "
	       "TP %d PP %d %.0f tok/s\n", shape, gpus, best.tp, best.pp,
	       best.dp, best.tokens_per_s, pub_tp, pub_pp, pub.tokens_per_s);
	assert_true(best.tp > 1 && best.tp <= 8);
	assert_true(best.pp > 1);
	assert_true(best.tokens_per_s >= pub.tokens_per_s * 0.999);
	autosize_policy_destroy(pol);
}

static void test_search_large_runs(void **state)
{
	/* GPT-3 175B on 1024 A100s, batch 1536 (Narayanan et al. 2021,
	 * section 5.1 estimate: TP 8 x PP 8); the 1T model on 3072. */
	check_search("gpt3-175b", 1024, 1536, 8, 8);
	check_search("tests/validation/gpt-1t.json", 3072, 3072, 8, 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_rule),
		cmocka_unit_test(test_published_runs),
		cmocka_unit_test(test_search_large_runs),
	};

	int rc = cmocka_run_group_tests_name("validation", tests, NULL, NULL);

	autosize_policy_destroy(validation_policy);
	return rc;
}
