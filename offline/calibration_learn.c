/*
 * autosize: learning corrections from finished jobs (calibration.h):
 * which jobs count. Reports come from users' jobs, so each figure must
 * be one a real job could have produced:
 *
 * - a sane end (COMPLETED, TIMEOUT, CANCELLED, PREEMPTED; a FAILED or
 *   OUT_OF_MEMORY job's speed is not the cluster's) after min_run_s (5
 *   minutes: start-up, compilation and the first steps are in it);
 * - an elapsed time that covers the steps reported: each report line
 *   measures at least one optimizer step of gbs x seq tokens (any rank
 *   may write one), so max(1, lines / GPUs) x step tokens / tokens per
 *   second (and x step_s) must fit in it;
 * - a model FLOPs utilization (6 x params x tokens/s over the GPUs'
 *   dense BF16 peak, the 6ND rule) at most max_mfu, 0.8: a training step
 *   is mostly GEMMs and no GEMM sustains more than ~80% of dense peak
 *   (cuBLAS on H100 SXM reaches ~750-800 of 989 TFLOP/s BF16 on large
 *   square shapes, NVIDIA's GEMM benchmarks), while the best published
 *   whole-job MFUs are 40-60% (PaLM 46%, MegaScale 55%, Llama 3 38-43%).
 *   The record carries neither the active parameters of an MoE nor an
 *   FP8 plan's precision, so a plan whose own 6ND MFU is already above
 *   the ceiling is not checked this way (its ratio bounds still hold);
 * - a ratio to the prediction inside speed_min..speed_max.
 *
 * A job without a report counts by its elapsed time against its planned
 * time: exactly when it COMPLETED, as an upper bound when it hit its
 * time limit (TIMEOUT: it would have needed at least that long). Left
 * out, the slow jobs that time out would make the site look faster than
 * it is; kept as a bound, the median is exact whenever the bounds fall
 * below it, as a slow job's do.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "autosize/jobstate.h"
#include "calibration_learn_private.h"
#include "perfdata.h"

/* Job states whose measured figures are the cluster's speed. */
static const char *const cal_states[] = {
	"COMPLETED", "TIMEOUT", "CANCELLED", "PREEMPTED", NULL
};

void autosize_cal_options_init(autosize_cal_options *o)
{
	memset(o, 0, sizeof(*o));
	o->min_jobs = AUTOSIZE_CAL_MIN_JOBS;
	o->min_users = AUTOSIZE_CAL_MIN_USERS;
	o->speed_min = AUTOSIZE_CAL_SPEED_MIN;
	o->speed_max = AUTOSIZE_CAL_SPEED_MAX;
	o->memory_min = AUTOSIZE_CAL_MEMORY_MIN;
	o->memory_max = AUTOSIZE_CAL_MEMORY_MAX;
	o->min_elapsed_s = 3600;
	o->min_run_s = AUTOSIZE_CAL_MIN_RUN_S;
	o->require_state = 1;
	o->max_mfu = AUTOSIZE_CAL_MAX_MFU;
	o->shrink_users = AUTOSIZE_CAL_SHRINK_USERS;
	o->max_step = AUTOSIZE_CAL_MAX_STEP;
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
	cal_sample_free(k);
	free(k->all);
	free(k->pts);
	free(k->change);
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

static int cal_state_ok(const char *state)
{
	int i;

	for (i = 0; state && cal_states[i]; i++)
		if (strcmp(state, cal_states[i]) == 0)
			return 1;
	return 0;
}

/* 6ND model FLOPs utilization of tok_s on the record's GPUs; 0 when the
 * GPU or the sizes are unknown. */
static double cal_mfu(const autosize_calibrator *k, const autosize_record *r,
		      double tok_s)
{
	const autosize_gpu *g;
	double peak;
	int gpus = r->nodes * r->gpus_per_node;

	if (!k->o.catalog || gpus <= 0 || r->params <= 0)
		return 0;
	g = autosize_catalog_find(k->o.catalog, r->gpu);
	peak = g ? autosize_gpu_peak_flops(g, AUTOSIZE_PREC_BF16) : 0;
	if (!(peak > 0))
		return 0;
	return 6 * r->params * tok_s / (gpus * peak);
}

/* Why a real speed of tok_s is impossible for the record's job, or NULL:
 * above the MFU ceiling (when the plan itself is under it). */
static const char *cal_physical(const autosize_calibrator *k,
				const autosize_record *r, double tok_s)
{
	double planned = cal_mfu(k, r, r->tokens_per_s);

	if (planned > 0 && planned <= k->o.max_mfu &&
	    cal_mfu(k, r, tok_s) > k->o.max_mfu)
		return "speed above the GPU's MFU ceiling";
	return NULL;
}

/* Why the report cannot come from a run of elapsed_s, or NULL. Each
 * line measures at least one optimizer step, and each rank may write
 * its own: the job ran at least max(1, lines / GPUs) steps. */
static const char *cal_covered(const autosize_record *r, double elapsed_s)
{
	double gpus = (double)r->nodes * r->gpus_per_node, steps, step_s = 0;
	double step_tokens = (double)r->global_batch * r->seq_len;

	if (elapsed_s <= 0)
		return NULL;
	steps = r->m_lines > 0 && gpus > 0 ? r->m_lines / gpus : 1;
	if (steps < 1)
		steps = 1;
	if (step_tokens > 0)
		step_s = step_tokens / r->m_tokens_per_s;
	if (r->m_step_s > step_s)
		step_s = r->m_step_s;
	return steps * step_s > elapsed_s ? "elapsed time shorter than the "
					    "steps reported" : NULL;
}

/*
 * log(real / predicted) of the job's speed into *v (NAN when it has
 * none; *censored when an upper bound). Returns why the job is not
 * usable, or NULL.
 */
static const char *cal_speed(const autosize_calibrator *k,
			     const autosize_record *r, const char *state,
			     double elapsed_s, double *v, int *censored)
{
	/* a calibrated plan: against the model's own prediction, so that
	 * calibrating again keeps the correction instead of undoing it */
	double used = r->cal_speed > 0 ? r->cal_speed : 1, ratio, tok_s;
	double planned = r->tokens_per_s;
	const char *why;
	int timeout = state && strcmp(state, "TIMEOUT") == 0;

	*v = NAN;
	*censored = 0;
	if (r->tokens_per_s <= 0)
		return NULL;
	if (r->has_measured && r->m_tokens_per_s > 0) {
		if (k->o.min_run_s > 0 && (why = cal_covered(r, elapsed_s)))
			return why;
		tok_s = r->m_tokens_per_s;
	} else if (state && (strcmp(state, "COMPLETED") == 0 || timeout) &&
		   elapsed_s >= k->o.min_elapsed_s && r->tokens > 0 &&
		   r->train_hours > 0 &&
		   (r->time_limit_min <= 0 ||
		    r->train_hours * 60 <= r->time_limit_min)) {
		/* a TIMEOUT job trained for elapsed_s and was not done:
		 * at most this fast */
		tok_s = r->tokens / elapsed_s;
		*censored = timeout;
		/* against the planned hours, which hold what the elapsed
		 * time holds beyond the steps (the whole-run efficiency,
		 * restarts, the evaluations of --eval-tokens): the steps'
		 * tokens/s alone would read a run on plan as 0.6x */
		planned = r->tokens / (r->train_hours * 3600);
	} else {
		return NULL;
	}
	ratio = tok_s / planned * used;
	if (!(ratio >= k->o.speed_min && ratio <= k->o.speed_max))
		return "implausible speed";
	if (!*censored && (why = cal_physical(k, r, tok_s)))
		return why;
	*v = log(ratio);
	return NULL;
}

/* log(real / planned) of the job's tensor memory into *v (NAN: none);
 * more than the GPU holds is impossible. */
static const char *cal_memory(const autosize_calibrator *k,
			      const autosize_record *r, double *v)
{
	const autosize_gpu *g;
	double ratio;

	*v = NAN;
	if (!r->has_measured || r->m_mem_bytes <= 0 || r->alloc_bytes <= 0)
		return NULL;
	g = k->o.catalog ? autosize_catalog_find(k->o.catalog, r->gpu) : NULL;
	if (g && g->mem_bytes > 0 && r->m_mem_bytes > g->mem_bytes)
		return "memory above the GPU's";
	ratio = r->m_mem_bytes / r->alloc_bytes *
		(r->cal_memory > 0 ? r->cal_memory : 1);
	if (!(ratio >= k->o.memory_min && ratio <= k->o.memory_max))
		return "implausible memory";
	*v = log(ratio);
	return NULL;
}

/* Why the job as a whole does not count (its state and run time), or
 * NULL. */
static const char *cal_job_ok(const autosize_calibrator *k,
			      const char *user, const char *state,
			      double elapsed_s)
{
	if (!user || !user[0] || strlen(user) >= AUTOSIZE_CAL_USER_MAX)
		return "no user";
	if (k->o.require_state && !cal_state_ok(state))
		return state && state[0] ? "job state not COMPLETED, TIMEOUT, "
					   "CANCELLED or PREEMPTED"
					 : "no job state";
	if (autosize_job_state_live(state))
		return "job has not ended";
	/* Slurm's 00:00:00 and a JSON line without elapsed_s alike */
	if (k->o.min_run_s > 0 && !(elapsed_s >= k->o.min_run_s))
		return "elapsed time under --min-run";
	return NULL;
}

int autosize_calibrator_add(autosize_calibrator *k, const char *user,
			    const autosize_record *r, const char *state,
			    double elapsed_s)
{
	const autosize_gpu *g;
	const char *why;
	cal_sample s;
	int rc;

	if (!r) {
		autosize_calibrator_skip(k, "no autosize record");
		return 0;
	}
	memset(&s, 0, sizeof(s));
	if ((why = cal_job_ok(k, user, state, elapsed_s)) ||
	    (why = cal_speed(k, r, state, elapsed_s, &s.v[0], &s.censored)) ||
	    (why = cal_memory(k, r, &s.v[1]))) {
		autosize_calibrator_skip(k, why);
		return 0;
	}
	if (isnan(s.v[0]) && isnan(s.v[1])) {
		autosize_calibrator_skip(k, "nothing measured");
		return 0;
	}
	snprintf(s.framework, sizeof(s.framework), "%s", r->framework);
	snprintf(s.scale, sizeof(s.scale), "%s",
		 perfdata_scale(r->nodes * r->gpus_per_node));
	/* the catalog's spelling: sacctmgr lowercases the records of jobs
	 * that ended before their script (the TIMEOUT and cancelled ones
	 * calibration needs most), which must land in the same group */
	g = autosize_catalog_find(k->o.catalog, r->gpu);
	rc = cal_sample_offer(k, user, r->partition, g ? g->name : r->gpu,
			      &s);
	if (rc <= 0) {
		autosize_calibrator_skip(k, rc < 0 ? "out of memory" :
			"over the user x partition limit (16384)");
		return 0;
	}
	k->read++;
	k->used++;
	return 1;
}

const char *autosize_calibrator_change(const autosize_calibrator *k, int i)
{
	return k && k->change && i >= 0 && i < k->made ? k->change[i] : NULL;
}

void autosize_calibrator_summary(const autosize_calibrator *k, char *buf,
				 size_t len)
{
	size_t used;
	int i, n;

	if (len == 0)
		return;
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
		snprintf(buf + used, len - used, "%s; %d correction%s (%d "
			 "bounded by --max-step), %d partition/GPU group%s "
			 "below --min-jobs/--min-users",
			 k->n_reasons ? ")" : "", k->made,
			 k->made == 1 ? "" : "s", k->bounded, k->short_groups,
			 k->short_groups == 1 ? "" : "s");
	used = strlen(buf);
	if (k->dropped > 0 && used < len)
		snprintf(buf + used, len - used, "; %ld jobs sampled over "
			 "(%d kept per user and partition/GPU)", k->dropped,
			 CAL_SLOT_SAMPLES);
}
