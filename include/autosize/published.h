/*
 * autosize: the published training runs nearest to a plan, with the
 * engine's error on each (tests/validation: etc/published-runs.tsv,
 * compiled in), so a user sees how far to trust a plan's numbers. For
 * the CLI and JSON; never on slurmctld's path.
 */
#ifndef AUTOSIZE_PUBLISHED_H
#define AUTOSIZE_PUBLISHED_H

#include <stddef.h>
#include "autosize/options.h"
#include "autosize/plan.h"

/* What a plan and a published run share (autosize_published.matches). */
enum {
	AUTOSIZE_MATCH_GENERATION = 1, /* the same perf.yaml entry */
	AUTOSIZE_MATCH_FRAMEWORK = 2,  /* planned under the same framework */
	AUTOSIZE_MATCH_STACK = 4,      /* the stack the request names */
	AUTOSIZE_MATCH_MOE = 8,        /* both dense or both MoE */
	AUTOSIZE_MATCH_PEFT = 16       /* both LoRA/QLoRA or neither */
};

/* One published run, as the validation planned it. Strings point into
 * the compiled-in table (static). */
typedef struct autosize_published {
	const char *id;          /* tests/validation/runs.yaml id */
	const char *half;        /* fit, held-out, sealed N */
	const char *generation;  /* perf.yaml entry it ran on */
	const char *framework;   /* the framework it was planned under */
	const char *stack;       /* its stack (or framework label) */
	const char *metric;      /* what the source published */
	const char *source;      /* where, in the project's words */
	int moe, peft, known_miss;
	int gpus, seq_len;
	double params;
	double error;            /* (predicted - published) / published */
	int matches;             /* AUTOSIZE_MATCH_* shared with the plan */
	double distance;         /* 0: the same kind and size; larger:
				  * less alike */
} autosize_published;

/* The compiled-in runs (static; parsed once). */
int autosize_published_count(void);

/*
 * Up to n runs nearest to plan p of request r into out, nearest first:
 * the same GPU generation, framework (and stack where r names one),
 * dense or MoE, PEFT or not weigh most, then the GPU count, the
 * parameters and the sequence length on a log scale. Returns how many.
 * Allocates nothing.
 */
int autosize_published_nearest(const autosize_request *r,
			       const autosize_plan *p, autosize_published *out,
			       int n);

/* The nearest runs as the JSON member "published_runs":[...] (no
 * braces around it; doc/plan-json.md). Returns its length, or -1 when
 * buf is too small. */
int autosize_plan_published_json(const autosize_request *r,
				 const autosize_plan *p, char *buf,
				 size_t len);

#endif
