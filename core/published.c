/*
 * autosize: the published runs nearest to a plan. The table is
 * etc/published-runs.tsv, which make validate writes from the
 * validation's own plans (tests/test_validation.c) and the library
 * compiles in; make check fails while it differs from what the engine
 * scores. Parsed once, into a static table: nothing is allocated.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "autosize/published.h"
#include "embedded.h"

/* Rows the compiled-in table may hold, and the bytes of their text. */
#define PUBLISHED_MAX_RUNS 1024
#define PUBLISHED_TEXT_MAX (512 * 1024)
#define PUBLISHED_FIELDS 14

/* Distance a mismatch adds: a run on another GPU generation or of the
 * other dense/MoE kind tells least about a plan's accuracy, another
 * framework less, another stack or PEFT mode a little; sizes add
 * |log10| of their ratios (10x the GPUs or parameters: 1). */
#define PUBLISHED_GENERATION 4.0
#define PUBLISHED_MOE 3.0
#define PUBLISHED_FRAMEWORK 2.0
#define PUBLISHED_STACK 1.0
#define PUBLISHED_PEFT 1.0
#define PUBLISHED_SEQ_WEIGHT 0.5

static autosize_published published_runs[PUBLISHED_MAX_RUNS];
static int published_n;
static char published_text[PUBLISHED_TEXT_MAX];
static pthread_once_t published_once = PTHREAD_ONCE_INIT;

/* Split line (NUL-terminated, writable) at tabs into f; returns the
 * count. */
static int published_split(char *line, char **f, int max)
{
	int n = 0;

	while (n < max) {
		f[n++] = line;
		line = strchr(line, '\t');
		if (!line)
			break;
		*line++ = '\0';
	}
	return n;
}

/* One data line into *run; 0 when it is one. */
static int published_row(char *line, autosize_published *run)
{
	char *f[PUBLISHED_FIELDS];

	if (line[0] == '#' || line[0] == '\0' ||
	    published_split(line, f, PUBLISHED_FIELDS) != PUBLISHED_FIELDS)
		return -1;
	memset(run, 0, sizeof(*run));
	run->id = f[0];
	run->half = f[1];
	run->generation = f[2];
	run->framework = f[3];
	run->stack = f[4];
	run->moe = atoi(f[5]);
	run->peft = atoi(f[6]);
	run->gpus = atoi(f[7]);
	run->params = strtod(f[8], NULL);
	run->seq_len = atoi(f[9]);
	run->metric = f[10];
	run->error = strtod(f[11], NULL);
	run->known_miss = atoi(f[12]);
	run->source = f[13];
	return run->gpus > 0 && run->params > 0 && run->seq_len > 0 ? 0 : -1;
}

static void published_load(void)
{
	size_t len = autosize_embedded_published_runs_tsv_len;
	char *line, *next;

	if (len >= sizeof(published_text))
		len = sizeof(published_text) - 1;
	memcpy(published_text, autosize_embedded_published_runs_tsv, len);
	published_text[len] = '\0';
	for (line = published_text; line && published_n < PUBLISHED_MAX_RUNS;
	     line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (published_row(line, &published_runs[published_n]) == 0)
			published_n++;
	}
}

int autosize_published_count(void)
{
	pthread_once(&published_once, published_load);
	return published_n;
}

static double published_log_ratio(double a, double b)
{
	return a > 0 && b > 0 ? fabs(log10(a / b)) : 0;
}

/* How alike run is to the plan: its matches and distance. */
static void published_score(const autosize_request *r,
			    const autosize_plan *p, autosize_published *run)
{
	int moe = r->model.experts > 1;
	int peft = r->train_mode == AUTOSIZE_TRAIN_LORA ||
		   r->train_mode == AUTOSIZE_TRAIN_QLORA;
	double d = 0;

	run->matches = 0;
	if (strcmp(run->generation, p->perf_generation) == 0)
		run->matches |= AUTOSIZE_MATCH_GENERATION;
	else
		d += PUBLISHED_GENERATION;
	if (strcmp(run->framework, autosize_framework_name(p->framework)) == 0)
		run->matches |= AUTOSIZE_MATCH_FRAMEWORK;
	else
		d += PUBLISHED_FRAMEWORK;
	if (r->stack[0] && strcmp(run->stack, r->stack) == 0)
		run->matches |= AUTOSIZE_MATCH_STACK;
	else if (r->stack[0])
		d += PUBLISHED_STACK;
	if (run->moe == moe)
		run->matches |= AUTOSIZE_MATCH_MOE;
	else
		d += PUBLISHED_MOE;
	if (run->peft == peft)
		run->matches |= AUTOSIZE_MATCH_PEFT;
	else
		d += PUBLISHED_PEFT;
	d += published_log_ratio(run->gpus, p->gpus) +
	     published_log_ratio(run->params, p->params) +
	     PUBLISHED_SEQ_WEIGHT * published_log_ratio(run->seq_len,
							p->seq_len);
	run->distance = d;
}

int autosize_published_nearest(const autosize_request *r,
			       const autosize_plan *p, autosize_published *out,
			       int n)
{
	int i, j, have = 0;

	if (!r || !p || !out || n <= 0)
		return 0;
	pthread_once(&published_once, published_load);
	for (i = 0; i < published_n; i++) {
		autosize_published run = published_runs[i];

		published_score(r, p, &run);
		/* insertion into the n best so far, nearest first (ties:
		 * the table's order) */
		if (have == n && run.distance >= out[n - 1].distance)
			continue;
		j = have < n ? have++ : n - 1;
		for (; j > 0 && out[j - 1].distance > run.distance; j--)
			out[j] = out[j - 1];
		out[j] = run;
	}
	return have;
}
