/*
 * autosize: the corrections the kept jobs support (calibration.h).
 *
 * Each job gives log(real / predicted) of its speed and memory. A group
 * (partition x GPU, then x framework, then x scale class) gets a
 * correction when it has min_jobs jobs from min_users users:
 *
 * - its factor is the median over users of each user's median (a user
 *   is one vote however many jobs; Rousseeuw & Croux's breakdown
 *   argument for medians: under half of the users lying cannot move it
 *   past the honest users' range), its spread the 1st/99th percentiles
 *   with each user's jobs weighing 1 in all;
 * - a narrow group (framework, scale) shrinks toward the broader
 *   correction in log space with weight users / (users + shrink_users)
 *   (a James-Stein style partial pooling: 2 users move a narrow factor a
 *   fifth of the way from the broad one at k = 8, 24 users three
 *   quarters), so a handful of accounts cannot give a framework its own
 *   factor;
 * - the factor moves at most max_step (x or / 1.25) from what plans used
 *   until now: the previous calibration's most specific entry for the
 *   group, else the model's 1 (the first calibration too: a site 30%
 *   off gets there in two updates, daily from cron). Poisoning that gets
 *   past the rest still takes one update per 25%, and each update's
 *   change lines (old -> new, by whom) show it to the admin.
 */
#define _GNU_SOURCE /* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "calibration_learn_private.h"

#define CAL_LEVELS 3
/* Users named in a change line, the ones with the most jobs. */
#define CAL_TOP_USERS 5

typedef struct cal_stats {
	int jobs, users;
	double median, low, high;  /* as ratios */
	const char *top[CAL_TOP_USERS];
	int top_jobs[CAL_TOP_USERS];
} cal_stats;

static const char *cal_user(const autosize_calibrator *k,
			    const cal_sample *s)
{
	return k->slots[s->slot]->user;
}

static int cal_point_cmp_user(const void *a, const void *b)
{
	const cal_point *x = a, *y = b;
	int c = strcmp(x->user, y->user);

	if (c)
		return c;
	return (x->v > y->v) - (x->v < y->v);
}

static int cal_point_cmp_value(const void *a, const void *b)
{
	const cal_point *x = a, *y = b;

	return (x->v > y->v) - (x->v < y->v);
}

static double cal_median_sorted(const cal_point *p, int n)
{
	return n % 2 ? p[n / 2].v : (p[n / 2 - 1].v + p[n / 2].v) / 2;
}

/* Weighted quantile q of points sorted by value (weights sum to wsum). */
static double cal_quantile(const cal_point *p, int n, double wsum, double q)
{
	double acc = 0;
	int i;

	for (i = 0; i < n; i++) {
		acc += p[i].w;
		if (acc >= q * wsum)
			return p[i].v;
	}
	return p[n - 1].v;
}

/* Keep user (with jobs) among the CAL_TOP_USERS with most jobs. */
static void cal_top_user(cal_stats *st, const char *user, int jobs)
{
	int i, at = CAL_TOP_USERS;

	for (i = CAL_TOP_USERS - 1; i >= 0; i--)
		if (!st->top[i] || jobs > st->top_jobs[i])
			at = i;
	if (at == CAL_TOP_USERS)
		return;
	for (i = CAL_TOP_USERS - 1; i > at; i--) {
		st->top[i] = st->top[i - 1];
		st->top_jobs[i] = st->top_jobs[i - 1];
	}
	st->top[at] = user;
	st->top_jobs[at] = jobs;
}

/*
 * Statistics of value `which` over the samples all[from..to): each
 * user's median, the median of those; the spread from the median
 * absolute deviation with each user's jobs weighing 1 in all (a user
 * holds at most 1/users of it), scaled to the normal distribution's 1st
 * and 99th percentiles (1.4826 x MAD = sigma; +-2.326 sigma): the low
 * end sets the time limit, and a limit short of the run kills the job
 * (one in 20 at the 5th percentile), a generous one costs backfill slack.
 */
static void cal_group_stats(autosize_calibrator *k, size_t from, size_t to,
			    int which, cal_stats *st)
{
	cal_point *p = k->pts, *med = k->pts + k->n_all;
	double center, sigma;
	int n = 0, m = 0, i, j, t;
	size_t a;

	memset(st, 0, sizeof(*st));
	for (a = from; a < to; a++)
		if (!isnan(k->all[a]->v[which])) {
			p[n].user = cal_user(k, k->all[a]);
			p[n].v = k->all[a]->v[which];
			n++;
		}
	if (n == 0)
		return;
	qsort(p, (size_t)n, sizeof(*p), cal_point_cmp_user);
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && strcmp(p[j].user, p[i].user) == 0; j++)
			;
		med[m].user = p[i].user;
		med[m].v = cal_median_sorted(p + i, j - i);
		med[m].w = 1;
		m++;
		cal_top_user(st, p[i].user, j - i);
		for (t = i; t < j; t++)
			p[t].w = 1.0 / (j - i);
	}
	qsort(med, (size_t)m, sizeof(*med), cal_point_cmp_value);
	center = cal_median_sorted(med, m);
	for (i = 0; i < n; i++)
		p[i].v = fabs(p[i].v - center);
	qsort(p, (size_t)n, sizeof(*p), cal_point_cmp_value);
	sigma = 1.4826 * cal_quantile(p, n, m, 0.5);
	st->jobs = n;
	st->users = m;
	st->median = exp(center);
	st->low = exp(center - 2.326 * sigma);
	st->high = exp(center + 2.326 * sigma);
}

/* Order of samples at a level: partition, GPU, then framework, scale. */
static int cal_key_cmp(const autosize_calibrator *k, const cal_sample *a,
		       const cal_sample *b, int level)
{
	const cal_slot *x = k->slots[a->slot], *y = k->slots[b->slot];
	int c;

	if ((c = strcmp(x->partition, y->partition)) ||
	    (c = strcmp(x->gpu, y->gpu)))
		return c;
	if (level >= 1 && (c = strcmp(a->framework, b->framework)))
		return c;
	return level >= 2 ? strcmp(a->scale, b->scale) : 0;
}

/* What qsort_r passes the comparison. */
typedef struct cal_sort {
	const autosize_calibrator *k;
	int level;
} cal_sort;

static int cal_sample_cmp(const void *a, const void *b, void *ctx)
{
	const cal_sort *o = ctx;

	return cal_key_cmp(o->k, *(cal_sample *const *)a,
			   *(cal_sample *const *)b, o->level);
}

/* Move log factor f toward the parent's by the group's users. */
static double cal_shrink(double f, double parent, int users, double k)
{
	double w = users / (users + k);

	return exp(w * log(f) + (1 - w) * log(parent));
}

static double cal_clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The narrow entry x toward its broader parent (users: its own). */
static void cal_pool(const autosize_calibrator *k,
		     const autosize_cal_entry *up, autosize_cal_entry *x)
{
	double f = x->speed_factor, m = x->memory_factor, s = k->o.shrink_users;

	x->speed_factor = cal_shrink(f, up->speed_factor, x->users, s);
	x->speed_low = cal_shrink(x->speed_low, up->speed_low, x->users, s);
	x->speed_high = cal_shrink(x->speed_high, up->speed_high, x->users, s);
	if (x->memory_jobs > 0) {
		x->memory_factor = cal_shrink(m, up->memory_factor,
					      x->memory_users, s);
		x->memory_high = cal_shrink(x->memory_high, up->memory_high,
					    x->memory_users, s);
	} else {
		/* too few reports of memory: the broader one's holds */
		x->memory_jobs = up->memory_jobs;
		x->memory_users = up->memory_users;
		x->memory_factor = up->memory_factor;
		x->memory_high = up->memory_high;
	}
}

/* One part of a change line: "speed 1.000 -> 1.250 (wanted 2.950,
 * bounded)". */
static int cal_change_part(char *buf, size_t len, const char *what,
			   double old, double wanted, double now)
{
	if (fabs(wanted / now - 1) > 1e-9)
		return snprintf(buf, len, "%s %.3f -> %.3f (wanted %.3f, "
				"bounded by --max-step)", what, old, now,
				wanted);
	return snprintf(buf, len, "%s %.3f -> %.3f", what, old, now);
}

/* Bound x's move from what plans used before (the previous file's most
 * specific entry, else the model's 1); write its change line. 1 when
 * bounded. */
static int cal_bound(autosize_calibrator *k, autosize_cal_entry *x,
		      const cal_stats *st, char *line)
{
	const autosize_cal_entry *was = NULL;
	double step = k->o.max_step, s_old = 1, m_old = 1, s_want, m_want, r;
	size_t used;
	int i, n;

	if (k->o.previous)
		was = autosize_calibration_find_scale(k->o.previous,
			x->partition, x->gpu, x->framework,
			strcmp(x->scale, AUTOSIZE_CAL_ANY) ? x->scale : NULL);
	if (was) {
		s_old = was->speed_factor;
		m_old = was->memory_factor;
	}
	s_want = x->speed_factor;
	m_want = x->memory_factor;
	if (step > 1) {
		x->speed_factor = cal_clamp(s_want, s_old / step, s_old * step);
		r = x->speed_factor / s_want;
		x->speed_low = fmax(fmin(x->speed_low * r, x->speed_factor),
				    k->o.speed_min);
		x->speed_high = fmin(fmax(x->speed_high * r, x->speed_factor),
				     k->o.speed_max);
		if (x->memory_jobs > 0) {
			x->memory_factor = cal_clamp(m_want, m_old / step,
						     m_old * step);
			x->memory_high = fmin(fmax(x->memory_high *
				x->memory_factor / m_want, x->memory_factor),
				k->o.memory_max);
		}
	}
	n = snprintf(line, CAL_CHANGE_LEN, "%s/%s/%s/%s: ", x->partition,
		     x->gpu, x->framework, x->scale);
	used = (size_t)n < CAL_CHANGE_LEN ? (size_t)n : CAL_CHANGE_LEN;
	used += (size_t)cal_change_part(line + used, CAL_CHANGE_LEN - used,
					"speed", s_old, s_want,
					x->speed_factor);
	if (used < CAL_CHANGE_LEN && x->memory_jobs > 0)
		used += (size_t)cal_change_part(line + used,
			CAL_CHANGE_LEN - used, ", memory", m_old, m_want,
			x->memory_factor);
	if (used < CAL_CHANGE_LEN)
		used += (size_t)snprintf(line + used, CAL_CHANGE_LEN - used,
					 "; %d jobs of %d users:", x->jobs,
					 x->users);
	for (i = 0; i < CAL_TOP_USERS && st->top[i] && used < CAL_CHANGE_LEN;
	     i++)
		used += (size_t)snprintf(line + used, CAL_CHANGE_LEN - used,
					 "%s %s %d", i ? "," : "", st->top[i],
					 st->top_jobs[i]);
	if (used < CAL_CHANGE_LEN && st->users > CAL_TOP_USERS)
		snprintf(line + used, CAL_CHANGE_LEN - used, " (+%d more)",
			 st->users - CAL_TOP_USERS);
	return x->speed_factor != s_want || x->memory_factor != m_want;
}

/* The correction of the samples all[from..to) at level (NULL `up` at
 * level 0: no broader one), when the jobs support one. */
static int cal_make_entry(autosize_calibrator *k, size_t from, size_t to,
			  int level, const autosize_cal_entry *up,
			  autosize_cal_entry *x, cal_stats *sp)
{
	const cal_sample *s = k->all[from];
	const cal_slot *slot = k->slots[s->slot];
	cal_stats mem;

	cal_group_stats(k, from, to, 0, sp);
	if (sp->jobs < k->o.min_jobs || sp->users < k->o.min_users)
		return 0;
	if (level > 0 && !up)
		return 0;
	cal_group_stats(k, from, to, 1, &mem);
	memset(x, 0, sizeof(*x));
	snprintf(x->partition, sizeof(x->partition), "%s", slot->partition);
	snprintf(x->gpu, sizeof(x->gpu), "%s", slot->gpu);
	snprintf(x->framework, sizeof(x->framework), "%s",
		 level >= 1 ? s->framework : AUTOSIZE_CAL_ANY);
	snprintf(x->scale, sizeof(x->scale), "%s",
		 level >= 2 ? s->scale : AUTOSIZE_CAL_ANY);
	x->jobs = sp->jobs;
	x->users = sp->users;
	x->speed_factor = sp->median;
	x->speed_low = fmax(sp->low, k->o.speed_min);
	x->speed_high = fmin(sp->high, k->o.speed_max);
	x->memory_factor = x->memory_high = 1;
	if (mem.jobs >= k->o.min_jobs && mem.users >= k->o.min_users) {
		x->memory_jobs = mem.jobs;
		x->memory_users = mem.users;
		x->memory_factor = mem.median;
		x->memory_high = fmin(mem.high, k->o.memory_max);
	}
	if (up)
		cal_pool(k, up, x);
	return 1;
}

/* 1 when entry x says nothing the entry a plan would use without it
 * does not (within a percent): it is left out. */
static int cal_redundant(const autosize_calibration *c,
			 const autosize_cal_entry *x)
{
	const autosize_cal_entry *up;

	up = autosize_calibration_find_scale(c, x->partition, x->gpu,
		x->framework, strcmp(x->scale, AUTOSIZE_CAL_ANY) ? x->scale
								 : NULL);
	return up && fabs(up->speed_factor / x->speed_factor - 1) < 0.01 &&
	       fabs(up->speed_low / x->speed_low - 1) < 0.01 &&
	       fabs(up->speed_high / x->speed_high - 1) < 0.01 &&
	       fabs(up->memory_factor / x->memory_factor - 1) < 0.01;
}

/* Every kept sample into k->all, the scratch sized for them. */
static int cal_gather(autosize_calibrator *k)
{
	size_t n = 0;
	int i, j;

	for (i = 0; i < k->n_slots; i++)
		n += (size_t)k->slots[i]->n;
	free(k->all);
	free(k->pts);
	free(k->change);
	k->all = malloc((n + 1) * sizeof(*k->all));
	k->pts = malloc((2 * n + 1) * sizeof(*k->pts));
	k->change = calloc(AUTOSIZE_CAL_MAX_ENTRIES, sizeof(*k->change));
	if (!k->all || !k->pts || !k->change)
		return -1;
	k->n_all = 0;
	for (i = 0; i < k->n_slots; i++)
		for (j = 0; j < k->slots[i]->n; j++) {
			k->slots[i]->s[j].slot = i;
			k->all[k->n_all++] = &k->slots[i]->s[j];
		}
	return 0;
}

/* The broad correction a narrow group (its first sample s) shrinks
 * toward: its partition and GPU's. Not the framework's for a scale
 * group: the same users would pull it twice. */
static const autosize_cal_entry *cal_parent(const autosize_calibration *c,
					    const autosize_calibrator *k,
					    const cal_sample *s, int level)
{
	const cal_slot *slot = k->slots[s->slot];

	if (level == 0)
		return NULL;
	return autosize_calibration_find_scale(c, slot->partition, slot->gpu,
					       AUTOSIZE_CAL_ANY, NULL);
}

autosize_calibration *autosize_calibrator_result(autosize_calibrator *k,
						 autosize_error *e)
{
	autosize_calibration *c = autosize_calibration_empty();
	const autosize_cal_entry *up;
	autosize_cal_entry x;
	cal_stats st;
	cal_sort order;
	size_t i, j;
	int level, bounded;

	if (!c || cal_gather(k) != 0) {
		autosize_calibration_destroy(c);
		autosize_fail(e, AUTOSIZE_ENOMEM, "calibrate: out of memory "
			      "for %zu jobs", k->n_all);
		return NULL;
	}
	k->short_groups = k->made = k->bounded = 0;
	for (level = 0; level < CAL_LEVELS; level++) {
		order.k = k;
		order.level = level;
		qsort_r(k->all, k->n_all, sizeof(*k->all), cal_sample_cmp,
			&order);
		for (i = 0; i < k->n_all; i = j) {
			for (j = i + 1; j < k->n_all &&
			     cal_key_cmp(k, k->all[i], k->all[j], level) == 0;
			     j++)
				;
			up = cal_parent(c, k, k->all[i], level);
			if (!cal_make_entry(k, i, j, level, up, &x, &st)) {
				k->short_groups += level == 0;
				continue;
			}
			if (k->made >= AUTOSIZE_CAL_MAX_ENTRIES)
				break;
			bounded = cal_bound(k, &x, &st, k->change[k->made]);
			/* what the broad one says already: left out */
			if (cal_redundant(c, &x))
				continue;
			if (autosize_calibration_add_entry(c, &x) != 0)
				break;
			k->made++;
			k->bounded += bounded;
		}
	}
	return c;
}
