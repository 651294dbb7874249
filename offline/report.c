/*
 * autosize: the admin's report on finished jobs: aggregation (report.h).
 * The writers are in report_out.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "autosize/jobstate.h"
#include "autosize/report.h"
#include "date.h"
#include "utf8.h"

struct autosize_report {
	autosize_report_options o;
	autosize_report_totals t;
	autosize_report_job *jobs;
	long n_jobs, cap_jobs;
	autosize_report_group groups[AUTOSIZE_REPORT_MAX_GROUPS];
	int n_groups;
	char partitions[AUTOSIZE_REPORT_MAX_GROUPS][AUTOSIZE_PART_NAME_MAX];
	int n_partitions;
	autosize_report_week *weeks;
	long n_weeks;
	autosize_report_count warnings[AUTOSIZE_REPORT_MAX_CODES];
	int n_warnings;
	autosize_report_count refusals[AUTOSIZE_REPORT_MAX_CODES];
	int n_refusals;
};

void autosize_report_options_init(autosize_report_options *o)
{
	o->max_jobs = AUTOSIZE_REPORT_MAX_JOBS;
	o->band = 0.15;
	o->far_under = 0.5;
}

autosize_report *autosize_report_create(const autosize_report_options *o)
{
	autosize_report *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	if (o)
		r->o = *o;
	else
		autosize_report_options_init(&r->o);
	if (r->o.max_jobs < 0)
		r->o.max_jobs = 0;
	return r;
}

void autosize_report_destroy(autosize_report *r)
{
	if (!r)
		return;
	free(r->jobs);
	free(r->weeks);
	free(r);
}

/* A row of a job that has not ended (jobstate.h). REQUEUED is not one
 * here: sacct --duplicates shows each run of a requeued job, the
 * earlier ones in that state, each ended. */
static int report_unfinished(const char *state)
{
	return strcmp(state, "REQUEUED") != 0 &&
	       autosize_job_state_live(state);
}

/* Count code in counts (at most MAX_CODES kinds; the rest as "other"). */
static void report_count(autosize_report_count *counts, int *n,
			 const char *code)
{
	int i;

	for (i = 0; i < *n; i++)
		if (strcmp(counts[i].code, code) == 0) {
			counts[i].count++;
			return;
		}
	if (*n == AUTOSIZE_REPORT_MAX_CODES) {
		code = "other";
		for (i = 0; i < *n; i++)
			if (strcmp(counts[i].code, code) == 0) {
				counts[i].count++;
				return;
			}
		i = *n - 1;     /* the last kind makes room for "other" */
	} else {
		i = (*n)++;
	}
	snprintf(counts[i].code, sizeof(counts[i].code), "%s", code);
	counts[i].count = 1;
}

/* 1 when s has an upper-case letter. */
static int report_has_upper(const char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			return 1;
	return 0;
}

/* kept becomes seen when it is the same name in another case and kept
 * is the lowercased one: sacctmgr only ever lowercases, so the spelling
 * with capitals is the catalog's and the policy's. */
static void report_spelling(char *kept, size_t len, const char *seen)
{
	if (!report_has_upper(kept) && report_has_upper(seen))
		snprintf(kept, len, "%s", seen);
}

static int report_group(autosize_report *r, const autosize_record *rec)
{
	autosize_report_group *g;
	int i;

	/* any case: sacctmgr lowercases the record it writes for a job
	 * that ended before its script (h100-sxm5-80gb) */
	for (i = 0; i < r->n_groups; i++) {
		g = &r->groups[i];
		if (strcasecmp(g->partition, rec->partition) == 0 &&
		    strcasecmp(g->gpu, rec->gpu) == 0 &&
		    strcasecmp(g->framework, rec->framework) == 0) {
			report_spelling(g->partition, sizeof(g->partition),
					rec->partition);
			report_spelling(g->gpu, sizeof(g->gpu), rec->gpu);
			return i;
		}
	}
	if (r->n_groups == AUTOSIZE_REPORT_MAX_GROUPS)
		return -1;
	g = &r->groups[r->n_groups];
	memset(g, 0, sizeof(*g));
	snprintf(g->partition, sizeof(g->partition), "%s", rec->partition);
	snprintf(g->gpu, sizeof(g->gpu), "%s", rec->gpu);
	snprintf(g->framework, sizeof(g->framework), "%s", rec->framework);
	return r->n_groups++;
}

static int report_partition(autosize_report *r, const char *name)
{
	int i;

	for (i = 0; i < r->n_partitions; i++)
		if (strcasecmp(r->partitions[i], name) == 0) {
			report_spelling(r->partitions[i],
					sizeof(r->partitions[0]), name);
			return i;
		}
	if (r->n_partitions == AUTOSIZE_REPORT_MAX_GROUPS)
		return -1;
	snprintf(r->partitions[r->n_partitions],
		 sizeof(r->partitions[0]), "%s", name);
	return r->n_partitions++;
}

static void report_warn_codes(autosize_report *r, const char *warn)
{
	char code[AUTOSIZE_REPORT_CODE_MAX];
	const char *s = warn;

	while (*s) {
		size_t n = strcspn(s, "+");

		snprintf(code, sizeof(code), "%.*s", (int)n, s);
		if (code[0])
			report_count(r->warnings, &r->n_warnings, code);
		s += n + (s[n] == '+');
	}
}

/* Room for one more job (doubling, up to max_jobs). */
static autosize_report_job *report_slot(autosize_report *r)
{
	if (r->n_jobs >= r->o.max_jobs)
		return NULL;
	if (r->n_jobs == r->cap_jobs) {
		long cap = r->cap_jobs ? r->cap_jobs * 2 : 256;
		autosize_report_job *j;

		if (cap > r->o.max_jobs)
			cap = r->o.max_jobs;
		j = realloc(r->jobs, (size_t)cap * sizeof(*j));
		if (!j)
			return NULL;
		r->jobs = j;
		r->cap_jobs = cap;
	}
	return &r->jobs[r->n_jobs++];
}

/*
 * What a TIMEOUT job's part of the run needed at its measured speed:
 * the plan's time for it (the whole run, or one chained job's limit)
 * scaled by predicted / measured speed.
 */
static double report_need_s(const autosize_record *rec, double measured)
{
	double work_s = rec->train_hours * 3600;

	if (rec->time_limit_min > 0 && work_s > rec->time_limit_min * 60.0)
		work_s = rec->time_limit_min * 60.0;
	if (!(measured > 0) || !(work_s > 0))
		return 0;
	return work_s * rec->tokens_per_s / measured;
}

void autosize_report_add(autosize_report *r, const autosize_finished_job *j,
			 const autosize_record *rec)
{
	autosize_report_totals *t = &r->t;
	autosize_report_job *k;
	double planned_gpus, used_h;
	char why[128];

	t->read++;
	if (report_unfinished(j->state)) {
		t->running++;
		return;
	}
	if (!rec) {
		t->no_record++;
		return;
	}
	t->sized++;
	if (!(k = report_slot(r))) {
		t->over_cap++;
		return;
	}
	memset(k, 0, sizeof(*k));
	snprintf(k->job_id, sizeof(k->job_id), "%s", j->job_id);
	snprintf(k->user, sizeof(k->user), "%s", j->user);
	snprintf(k->name, sizeof(k->name), "%.*s", (int)sizeof(k->name) - 1,
		 j->name);
	snprintf(k->state, sizeof(k->state), "%.*s", (int)sizeof(k->state) - 1,
		 j->state);
	k->group = report_group(r, rec);
	k->partition = report_partition(r, rec->partition);
	k->mismatch = autosize_record_mismatch(rec, j->partition, j->nodes,
					       j->gpus, why, sizeof(why));
	k->predicted_tok_s = rec->tokens_per_s;
	if (rec->has_measured && rec->m_tokens_per_s > 0 && !k->mismatch &&
	    rec->tokens_per_s > 0) {
		k->measured_tok_s = rec->m_tokens_per_s;
		k->ratio = rec->m_tokens_per_s / rec->tokens_per_s;
	}
	k->cal_speed = rec->cal_speed > 0 ? rec->cal_speed : 1;
	k->limit_s = j->time_limit_s > 0 ? j->time_limit_s
					 : rec->time_limit_min * 60.0;
	k->elapsed_s = j->elapsed_s > 0 ? j->elapsed_s : 0;
	planned_gpus = (double)rec->nodes * rec->gpus_per_node;
	k->gpus = j->gpus >= 0 ? (double)j->gpus : planned_gpus;
	k->submit_s = j->submit_s;
	k->end_s = j->end_s;
	k->timeout = strcmp(j->state, "TIMEOUT") == 0;
	k->preempted = strcmp(j->state, "PREEMPTED") == 0;
	k->requeued = strcmp(j->state, "REQUEUED") == 0;
	k->ran = k->elapsed_s > 0 || j->start_s > 0;
	k->far_under = strcmp(j->state, "COMPLETED") == 0 && k->limit_s > 0 &&
		       k->elapsed_s > 0 &&
		       k->elapsed_s < r->o.far_under * k->limit_s;
	if (k->timeout)
		k->need_s = report_need_s(rec, k->measured_tok_s);
	snprintf(k->chain, sizeof(k->chain), "%s", rec->chain);
	k->chain_index = rec->chain_index;
	k->chain_jobs = rec->chain_jobs;
	k->run_tokens = rec->tokens + rec->tokens_done;
	k->tokens_done = rec->m_tokens_done;
	k->done_at = rec->done_at;
	k->start_s = j->start_s;
	/* GPU-hours: the user's ask, the plan's reservation, the use; of
	 * the jobs that ran (one cancelled while pending reserved nothing) */
	used_h = k->gpus * k->elapsed_s / 3600;
	if (k->ran)
		t->gpu_h_planned += planned_gpus * rec->time_limit_min / 60.0;
	t->gpu_h_used += used_h;
	if (k->ran && rec->ask_gpus > 0 && rec->ask_min > 0) {
		t->asked_jobs++;
		t->gpu_h_asked += (double)rec->ask_gpus * rec->ask_min / 60.0;
		t->gpu_h_used_asked += used_h;
	}
	if (rec->warn[0]) {
		t->warned++;
		report_warn_codes(r, rec->warn);
	}
	if (k->submit_s > 0 && (!t->first_submit_s ||
				k->submit_s < t->first_submit_s))
		t->first_submit_s = k->submit_s;
	if (k->submit_s > t->last_submit_s)
		t->last_submit_s = k->submit_s;
}

void autosize_report_bad_record(autosize_report *r)
{
	r->t.read++;
	r->t.bad_record++;
}

/* A word of the log line after key ("reason="): [A-Za-z0-9._-]+. */
static void report_log_word(const char *line, const char *key, char *out,
			    size_t len)
{
	const char *at = strstr(line, key);
	size_t n = 0;

	if (at) {
		at += strlen(key);
		n = strspn(at, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
			   "QRSTUVWXYZ0123456789._-");
	}
	if (!n || n >= len)
		snprintf(out, len, "?");
	else
		snprintf(out, len, "%.*s", (int)n, at);
}

int autosize_report_ctld_line(autosize_report *r, const char *line)
{
	char reason[16], what[AUTOSIZE_REPORT_CODE_MAX - 25], where[8];
	char key[AUTOSIZE_REPORT_CODE_MAX];
	const char *at = strstr(line, "autosize: refused: ");
	long missed;
	int n = 0;

	if (at) {
		/* only the words before the user's message */
		const char *colon = strstr(at + 19, ": ");
		char head[160];

		snprintf(head, sizeof(head), "%.*s", colon ?
			 (int)(colon - at) : (int)strlen(at), at);
		report_log_word(head, " reason=", reason, sizeof(reason));
		report_log_word(head, " what=", what, sizeof(what));
		/* the SPANK plugin's line on a submit host's syslog names
		 * its command (where=sbatch); slurmctld's has none */
		report_log_word(head, " where=", where, sizeof(where));
		if (strcmp(where, "?") == 0)
			where[0] = '\0';
		snprintf(key, sizeof(key), "%s%s%s%s%s", where,
			 where[0] ? " " : "", reason,
			 strcmp(what, "-") && strcmp(what, "?") ? " " : "",
			 strcmp(what, "-") && strcmp(what, "?") ? what : "");
		report_count(r->refusals, &r->n_refusals, key);
		r->t.refusals++;
		return 1;
	}
	at = strstr(line, "autosize: ");
	if (at && sscanf(at, "autosize: %ld %*[a-z-] lines not logged%n",
			 &missed, &n) == 1 && n > 0 && missed > 0) {
		r->t.log_missed += missed;
		return 1;
	}
	return 0;
}

/* ---- figures ---- */

static int report_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The q-quantile of n sorted values, linear between neighbours
 * (Hyndman & Fan type 7, numpy's default). */
static double report_quantile(const double *v, long n, double q)
{
	double pos, frac;
	long i;

	if (n <= 0)
		return 0;
	pos = q * (double)(n - 1);
	i = (long)floor(pos);
	frac = pos - (double)i;
	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + frac * (v[i + 1] - v[i]);
}

/* Jobs ordered by one key pair (qsort has no context: the keys are
 * copied beside each index). */
typedef struct report_order {
	long long a, b;
	long i;
} report_order;

static int report_cmp_order(const void *x, const void *y)
{
	const report_order *p = x, *q = y;

	if (p->a != q->a)
		return (p->a > q->a) - (p->a < q->a);
	if (p->b != q->b)
		return (p->b > q->b) - (p->b < q->b);
	return (p->i > q->i) - (p->i < q->i);
}

/* Median, p10 and p90 of the ratios in v (n, sorted here). */
static void report_spread(double *v, long n, double *median, double *p10,
			  double *p90)
{
	qsort(v, (size_t)n, sizeof(*v), report_cmp_double);
	*median = report_quantile(v, n, 0.5);
	*p10 = report_quantile(v, n, 0.1);
	*p90 = report_quantile(v, n, 0.9);
}

static long report_in_band(const autosize_report *r, double ratio)
{
	return ratio > 0 && fabs(ratio - 1) <= r->o.band + 1e-12;
}

static void report_group_figures(autosize_report *r, double *v)
{
	autosize_report_totals *t = &r->t;
	long i, n;
	int g;

	for (g = 0; g < r->n_groups; g++) {
		autosize_report_group *gr = &r->groups[g];
		double p10 = 0, p90 = 0, med = 0;

		gr->jobs = gr->measured = gr->in_band = 0;
		gr->timeouts = gr->far_under = gr->mismatched = 0;
		for (i = n = 0; i < r->n_jobs; i++) {
			const autosize_report_job *k = &r->jobs[i];

			if (k->group != g)
				continue;
			gr->jobs++;
			gr->timeouts += k->timeout;
			gr->far_under += k->far_under;
			gr->mismatched += k->mismatch;
			if (k->ratio > 0) {
				v[n++] = k->ratio;
				gr->in_band += report_in_band(r, k->ratio);
			}
		}
		gr->measured = n;
		if (n)
			report_spread(v, n, &med, &p10, &p90);
		gr->median = med;
		gr->p10 = p10;
		gr->p90 = p90;
	}
	for (i = n = 0; i < r->n_jobs; i++)
		if (r->jobs[i].ratio > 0)
			v[n++] = r->jobs[i].ratio;
	t->measured = n;
	t->median = t->p10 = t->p90 = 0;
	if (n)
		report_spread(v, n, &t->median, &t->p10, &t->p90);
	for (i = 0; i < n; i++)
		t->in_band += report_in_band(r, v[i]);
}

static void report_limit_figures(autosize_report *r, double *v)
{
	autosize_report_totals *t = &r->t;
	double lo, hi;
	long i, n;

	t->completed = t->timeouts = t->far_under = t->mismatched = 0;
	t->preempted = t->requeued = t->never_ran = 0;
	for (i = n = 0; i < r->n_jobs; i++) {
		const autosize_report_job *k = &r->jobs[i];

		t->completed += strcmp(k->state, "COMPLETED") == 0;
		t->preempted += k->preempted;
		t->requeued += k->requeued;
		t->never_ran += !k->ran;
		t->timeouts += k->timeout;
		t->mismatched += k->mismatch;
		if (k->timeout && k->need_s > 0 && k->limit_s > 0)
			v[n++] = k->need_s / k->limit_s;
	}
	t->timeouts_measured = n;
	t->need_median = t->need_max = 0;
	if (n) {
		report_spread(v, n, &t->need_median, &lo, &hi);
		t->need_max = v[n - 1];
	}
	for (i = n = 0; i < r->n_jobs; i++)
		if (r->jobs[i].far_under)
			v[n++] = r->jobs[i].elapsed_s / r->jobs[i].limit_s;
	t->far_under = n;
	t->far_under_median = 0;
	if (n)
		report_spread(v, n, &t->far_under_median, &lo, &hi);
}

/* Each group's calibration factor in submit order: its changes. */
static void report_steps(autosize_report *r, report_order *o)
{
	long i, n = 0;
	int g;

	for (i = 0; i < r->n_jobs; i++) {
		if (r->jobs[i].group < 0)
			continue;
		o[n].a = r->jobs[i].group;
		o[n].b = r->jobs[i].submit_s;
		o[n].i = i;
		n++;
	}
	qsort(o, (size_t)n, sizeof(*o), report_cmp_order);
	for (g = 0; g < r->n_groups; g++)
		r->groups[g].n_steps = 0, r->groups[g].changes = 0;
	for (i = 0; i < n; i++) {
		const autosize_report_job *k = &r->jobs[o[i].i];
		autosize_report_group *gr = &r->groups[k->group];
		int first = i == 0 || o[i - 1].a != o[i].a;

		if (!first && fabs(k->cal_speed -
				   r->jobs[o[i - 1].i].cal_speed) < 1e-9)
			continue;
		gr->changes += !first;
		if (gr->n_steps < AUTOSIZE_REPORT_MAX_STEPS) {
			gr->step_factor[gr->n_steps] = k->cal_speed;
			gr->step_s[gr->n_steps] = k->submit_s;
			gr->n_steps++;
		}
	}
}

/* Partition x ISO week: jobs, median |error|, limit hits, calibration. */
static int report_weeks(autosize_report *r, report_order *o, double *v,
			double *c)
{
	long i, n = 0, w;
	char week[AUTOSIZE_REPORT_WEEK_MAX];
	long long monday;

	for (i = 0; i < r->n_jobs; i++) {
		if (r->jobs[i].partition < 0 || r->jobs[i].submit_s <= 0)
			continue;
		date_iso_week(r->jobs[i].submit_s, week,
					 sizeof(week), &monday);
		o[n].a = r->jobs[i].partition;
		o[n].b = monday;
		o[n].i = i;
		n++;
	}
	qsort(o, (size_t)n, sizeof(*o), report_cmp_order);
	free(r->weeks);
	r->weeks = NULL;
	r->n_weeks = 0;
	for (i = w = 0; i < n; i++)
		w += i == 0 || o[i].a != o[i - 1].a || o[i].b != o[i - 1].b;
	if (w && !(r->weeks = calloc((size_t)w, sizeof(*r->weeks))))
		return -1;
	for (i = 0; i < n;) {
		autosize_report_week *wk = &r->weeks[r->n_weeks++];
		long j, nv = 0, nc = 0;
		double lo, hi;

		wk->partition = (int)o[i].a;
		wk->monday_s = o[i].b;
		date_iso_week(o[i].b, wk->week, sizeof(wk->week),
					 &monday);
		for (j = i; j < n && o[j].a == o[i].a && o[j].b == o[i].b;
		     j++) {
			const autosize_report_job *k = &r->jobs[o[j].i];

			wk->jobs++;
			wk->timeouts += k->timeout;
			if (k->ratio > 0)
				v[nv++] = fabs(k->ratio - 1);
			c[nc++] = k->cal_speed;
		}
		wk->measured = nv;
		wk->median_abs_error = -1;
		if (nv)
			report_spread(v, nv, &wk->median_abs_error, &lo, &hi);
		report_spread(c, nc, &wk->median_cal, &lo, &hi);
		i = j;
	}
	return 0;
}

static int report_cmp_count(const void *a, const void *b)
{
	const autosize_report_count *x = a, *y = b;

	if (x->count != y->count)
		return (x->count < y->count) - (x->count > y->count);
	return strcmp(x->code, y->code);
}

void autosize_report_finish(autosize_report *r)
{
	size_t n = r->n_jobs ? (size_t)r->n_jobs : 1;
	double *v = malloc(n * sizeof(*v)), *c = malloc(n * sizeof(*c));
	report_order *o = malloc(n * sizeof(*o));

	r->t.kept = r->n_jobs;
	r->t.in_band = 0;
	if (v && c && o) {
		report_group_figures(r, v);
		report_limit_figures(r, v);
		report_steps(r, o);
		report_weeks(r, o, v, c);
	}
	qsort(r->warnings, (size_t)r->n_warnings, sizeof(r->warnings[0]),
	      report_cmp_count);
	qsort(r->refusals, (size_t)r->n_refusals, sizeof(r->refusals[0]),
	      report_cmp_count);
	free(v);
	free(c);
	free(o);
}

/* ---- access ---- */

const autosize_report_totals *autosize_report_totals_of(
	const autosize_report *r)
{
	return &r->t;
}

const autosize_report_job *autosize_report_jobs(const autosize_report *r,
						long *n)
{
	*n = r->n_jobs;
	return r->jobs;
}

const autosize_report_group *autosize_report_groups(const autosize_report *r,
						    int *n)
{
	*n = r->n_groups;
	return r->groups;
}

const autosize_report_week *autosize_report_weeks(const autosize_report *r,
						  long *n)
{
	*n = r->n_weeks;
	return r->weeks;
}

const char *autosize_report_partition(const autosize_report *r, int i)
{
	return i >= 0 && i < r->n_partitions ? r->partitions[i] : "";
}

int autosize_report_partition_count(const autosize_report *r)
{
	return r->n_partitions;
}

const autosize_report_count *autosize_report_warnings(
	const autosize_report *r, int *n)
{
	*n = r->n_warnings;
	return r->warnings;
}

const autosize_report_count *autosize_report_refusals(
	const autosize_report *r, int *n)
{
	*n = r->n_refusals;
	return r->refusals;
}

const autosize_report_options *autosize_report_options_of(
	const autosize_report *r)
{
	return &r->o;
}

/* ---- text helpers ---- */
