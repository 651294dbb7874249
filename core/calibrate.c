/*
 * autosize: learning corrections from finished jobs (calibration.h).
 *
 * Each job gives log(real / predicted) of its speed and memory. A
 * group (partition x GPU, then x framework, then x scale class) gets a
 * correction when it has min_jobs jobs from min_users users: the median
 * over users of each user's median (a user flooding reports is still one
 * vote; Rousseeuw & Croux's breakdown argument for medians: under half
 * of the users lying cannot move it past the honest users' range), and
 * the 5th/95th percentiles with each user's jobs weighing 1 in all.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "calibrate.h"
#include "perfdata.h"

/* Jobs one run reads at most (a bounded memory footprint). */
#define CAL_MAX_SAMPLES 2000000
#define CAL_MAX_REASONS 16
#define CAL_LEVELS 3
#define CAL_Q_LOW 0.05
#define CAL_Q_HIGH 0.95

typedef struct cal_sample {
	char user[AUTOSIZE_CAL_USER_MAX];
	char partition[AUTOSIZE_PART_NAME_MAX];
	char gpu[AUTOSIZE_GPU_NAME_MAX];
	char framework[AUTOSIZE_FRAMEWORK_NAME_MAX];
	char scale[AUTOSIZE_CAL_SCALE_MAX];
	double v[2];            /* log speed, log memory ratio; NAN: none */
	int group;              /* scratch: current group or -1 */
} cal_sample;

/* One value of a group, for the statistics. */
typedef struct cal_point {
	const char *user;
	double v;
	double w;
} cal_point;

typedef struct cal_stats {
	int jobs, users;
	double median, low, high;  /* as ratios */
} cal_stats;

struct autosize_calibrator {
	autosize_cal_options o;
	cal_sample *s;
	size_t n, cap;
	cal_point *pts;           /* scratch, n of them */
	long read, used;
	int n_reasons;
	const char *why[CAL_MAX_REASONS];
	long count[CAL_MAX_REASONS];
	int short_groups;
	int made;
};

void autosize_cal_options_init(autosize_cal_options *o)
{
	o->min_jobs = AUTOSIZE_CAL_MIN_JOBS;
	o->min_users = AUTOSIZE_CAL_MIN_USERS;
	o->speed_min = AUTOSIZE_CAL_SPEED_MIN;
	o->speed_max = AUTOSIZE_CAL_SPEED_MAX;
	o->memory_min = AUTOSIZE_CAL_MEMORY_MIN;
	o->memory_max = AUTOSIZE_CAL_MEMORY_MAX;
	o->min_elapsed_s = 3600;
}

autosize_calibrator *autosize_calibrator_create(
	const autosize_cal_options *o)
{
	autosize_calibrator *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	if (o)
		k->o = *o;
	else
		autosize_cal_options_init(&k->o);
	return k;
}

void autosize_calibrator_destroy(autosize_calibrator *k)
{
	if (!k)
		return;
	free(k->s);
	free(k->pts);
	free(k);
}

void autosize_calibrator_skip(autosize_calibrator *k, const char *why)
{
	int i;

	k->read++;
	for (i = 0; i < k->n_reasons; i++)
		if (strcmp(k->why[i], why) == 0)
			break;
	if (i == k->n_reasons) {
		if (k->n_reasons == CAL_MAX_REASONS)
			i = CAL_MAX_REASONS - 1;  /* folded into the last */
		else
			k->why[k->n_reasons++] = why;
	}
	k->count[i]++;
}

static cal_sample *cal_new_sample(autosize_calibrator *k)
{
	cal_sample *grown;
	size_t cap;

	if (k->n == k->cap) {
		if (k->cap >= CAL_MAX_SAMPLES)
			return NULL;
		cap = k->cap ? k->cap * 2 : 256;
		grown = realloc(k->s, cap * sizeof(*grown));
		if (!grown)
			return NULL;
		k->s = grown;
		k->cap = cap;
	}
	return memset(&k->s[k->n], 0, sizeof(k->s[0]));
}

/* log(real / predicted) of the job's speed, NAN when it has none; -INF
 * for an implausible one. */
static double cal_speed(const autosize_calibrator *k,
			const autosize_record *r, const char *state,
			double elapsed_s)
{
	/* a calibrated plan: against the model's own prediction, so that
	 * calibrating again keeps the correction instead of undoing it */
	double used = r->cal_speed > 0 ? r->cal_speed : 1, ratio;

	if (r->tokens_per_s <= 0)
		return NAN;
	if (r->has_measured && r->m_tokens_per_s > 0)
		ratio = r->m_tokens_per_s / r->tokens_per_s * used;
	else if (state && strcmp(state, "COMPLETED") == 0 &&
		 elapsed_s >= k->o.min_elapsed_s && r->tokens > 0 &&
		 r->train_hours > 0 &&
		 (r->time_limit_min <= 0 ||
		  r->train_hours * 60 <= r->time_limit_min))
		ratio = r->train_hours * 3600 / elapsed_s * used;
	else
		return NAN;
	if (!(ratio >= k->o.speed_min && ratio <= k->o.speed_max))
		return -INFINITY;
	return log(ratio);
}

static double cal_memory(const autosize_calibrator *k,
			 const autosize_record *r)
{
	double ratio;

	if (!r->has_measured || r->m_mem_bytes <= 0 || r->alloc_bytes <= 0)
		return NAN;
	ratio = r->m_mem_bytes / r->alloc_bytes *
		(r->cal_memory > 0 ? r->cal_memory : 1);
	if (!(ratio >= k->o.memory_min && ratio <= k->o.memory_max))
		return -INFINITY;
	return log(ratio);
}

int autosize_calibrator_add(autosize_calibrator *k, const char *user,
			    const autosize_record *r, const char *state,
			    double elapsed_s)
{
	double speed, mem;
	cal_sample *s;

	if (!r) {
		autosize_calibrator_skip(k, "no autosize record");
		return 0;
	}
	if (!user || !user[0] || strlen(user) >= AUTOSIZE_CAL_USER_MAX) {
		autosize_calibrator_skip(k, "no user");
		return 0;
	}
	speed = cal_speed(k, r, state, elapsed_s);
	mem = cal_memory(k, r);
	if (speed == -INFINITY) {
		autosize_calibrator_skip(k, "implausible speed");
		return 0;
	}
	if (mem == -INFINITY) {
		autosize_calibrator_skip(k, "implausible memory");
		return 0;
	}
	if (isnan(speed) && isnan(mem)) {
		autosize_calibrator_skip(k, "nothing measured");
		return 0;
	}
	if (!(s = cal_new_sample(k))) {
		autosize_calibrator_skip(k, "over the job limit or out of "
					 "memory");
		return 0;
	}
	k->n++;
	k->read++;
	k->used++;
	snprintf(s->user, sizeof(s->user), "%s", user);
	snprintf(s->partition, sizeof(s->partition), "%s", r->partition);
	snprintf(s->gpu, sizeof(s->gpu), "%s", r->gpu);
	snprintf(s->framework, sizeof(s->framework), "%s", r->framework);
	snprintf(s->scale, sizeof(s->scale), "%s",
		 perfdata_scale(r->nodes * r->gpus_per_node));
	s->v[0] = speed;
	s->v[1] = mem;
	return 1;
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

/*
 * Statistics of value `which` over the samples of group g: each user's
 * median, the median of those; the spread from the median absolute
 * deviation with each user's jobs weighing 1 in all (a user holds at
 * most 1/users of it), scaled to the normal distribution's 5th and 95th
 * percentiles (1.4826 x MAD = sigma; +-1.645 sigma).
 */
static void cal_group_stats(autosize_calibrator *k, int g, int which,
			    cal_stats *st)
{
	cal_point *p = k->pts, *med = k->pts + k->n;
	double center, sigma;
	int n = 0, m = 0, i, j, t;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < (int)k->n; i++)
		if (k->s[i].group == g && !isnan(k->s[i].v[which])) {
			p[n].user = k->s[i].user;
			p[n].v = k->s[i].v[which];
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
	st->low = exp(center - 1.645 * sigma);
	st->high = exp(center + 1.645 * sigma);
}

/* Key of a sample at a level: partition/gpu, + framework, + scale. */
static int cal_same_group(const cal_sample *a, const cal_sample *b,
			  int level)
{
	if (strcmp(a->partition, b->partition) || strcmp(a->gpu, b->gpu))
		return 0;
	if (level >= 1 && strcmp(a->framework, b->framework))
		return 0;
	return level < 2 || strcmp(a->scale, b->scale) == 0;
}

/* The correction of group g (its first sample is s) at level, when the
 * jobs support one. */
static int cal_make_entry(autosize_calibrator *k, int g, int level,
			  const cal_sample *s, autosize_cal_entry *x)
{
	cal_stats sp, mem;

	cal_group_stats(k, g, 0, &sp);
	if (sp.jobs < k->o.min_jobs || sp.users < k->o.min_users)
		return 0;
	cal_group_stats(k, g, 1, &mem);
	memset(x, 0, sizeof(*x));
	snprintf(x->partition, sizeof(x->partition), "%s", s->partition);
	snprintf(x->gpu, sizeof(x->gpu), "%s", s->gpu);
	snprintf(x->framework, sizeof(x->framework), "%s",
		 level >= 1 ? s->framework : AUTOSIZE_CAL_ANY);
	snprintf(x->scale, sizeof(x->scale), "%s",
		 level >= 2 ? s->scale : AUTOSIZE_CAL_ANY);
	x->jobs = sp.jobs;
	x->users = sp.users;
	x->speed_factor = sp.median;
	x->speed_low = fmax(sp.low, k->o.speed_min);
	x->speed_high = fmin(sp.high, k->o.speed_max);
	x->memory_factor = x->memory_high = 1;
	if (mem.jobs >= k->o.min_jobs && mem.users >= k->o.min_users) {
		x->memory_jobs = mem.jobs;
		x->memory_users = mem.users;
		x->memory_factor = mem.median;
		x->memory_high = fmin(mem.high, k->o.memory_max);
	}
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

autosize_calibration *autosize_calibrator_result(autosize_calibrator *k,
						 autosize_error *e)
{
	autosize_calibration *c = autosize_calibration_empty();
	autosize_cal_entry x;
	int level, groups;
	size_t i, j;

	free(k->pts);
	k->pts = malloc((2 * k->n + 1) * sizeof(*k->pts));
	if (!c || !k->pts) {
		autosize_calibration_destroy(c);
		autosize_fail(e, AUTOSIZE_ENOMEM, "calibrate: out of memory "
			      "for %zu jobs", k->n);
		return NULL;
	}
	k->short_groups = k->made = 0;
	for (level = 0; level < CAL_LEVELS; level++) {
		for (i = 0; i < k->n; i++)
			k->s[i].group = -1;
		groups = 0;
		for (i = 0; i < k->n; i++) {
			if (k->s[i].group >= 0)
				continue;
			for (j = i; j < k->n; j++)
				if (k->s[j].group < 0 &&
				    cal_same_group(&k->s[i], &k->s[j], level))
					k->s[j].group = groups;
			if (!cal_make_entry(k, groups, level, &k->s[i], &x)) {
				k->short_groups += level == 0;
			} else if (!cal_redundant(c, &x)) {
				if (autosize_calibration_add_entry(c, &x) != 0)
					break;
				k->made++;
			}
			groups++;
		}
	}
	return c;
}

void autosize_calibrator_summary(const autosize_calibrator *k, char *buf,
				 size_t len)
{
	size_t used;
	int i, n;

	n = snprintf(buf, len, "calibrate: read %ld jobs, used %ld, skipped "
		     "%ld", k->read, k->used, k->read - k->used);
	used = n > 0 && (size_t)n < len ? (size_t)n : len;
	for (i = 0; i < k->n_reasons && used < len; i++) {
		n = snprintf(buf + used, len - used, "%s%ld %s",
			     i ? ", " : " (", k->count[i], k->why[i]);
		used = n > 0 && (size_t)n < len - used ? used + (size_t)n
							: len;
	}
	if (used < len)
		snprintf(buf + used, len - used, "%s; %d correction%s, %d "
			 "partition/GPU group%s below --min-jobs/--min-users",
			 k->n_reasons ? ")" : "", k->made,
			 k->made == 1 ? "" : "s", k->short_groups,
			 k->short_groups == 1 ? "" : "s");
}
