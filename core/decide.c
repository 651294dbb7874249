/*
 * autosize: what the scheduler does with one job (decide.h). Plain C over
 * the core; plugin/lua_*.c decodes Slurm's job_desc and applies it.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "autosize/decide.h"
#include "autosize/jobenv.h"
#include "autosize/launch.h"
#include "autosize/parse.h"
#include "autosize/record_words.h"
#include "decide_private.h"

/* GPU counts above this are taken as this (the plan then names the
 * partition's limit). */
#define DECIDE_GPUS_MAX 10000000L


size_t autosize_decide_work_size(void)
{
	return sizeof(autosize_decide_work);
}

void autosize_job_init(autosize_job *job)
{
	memset(job, 0, sizeof(*job));
	job->min_nodes = job->max_nodes = AUTOSIZE_JOB_UNSET;
	job->time_limit_min = job->num_tasks = AUTOSIZE_JOB_UNSET;
	job->gpus_per_node = job->gpus_per_job = AUTOSIZE_JOB_UNSET;
	job->gpus_per_task = job->gpus_per_socket = AUTOSIZE_JOB_UNSET;
	job->sockets_per_node = job->het_offset = AUTOSIZE_JOB_UNSET;
	job->ntasks_per_node = job->segment_nodes = AUTOSIZE_JOB_UNSET;
	job->cpus_per_gpu = job->mem_per_gpu_mb = AUTOSIZE_JOB_UNSET;
}

const char *autosize_action_name(autosize_action a)
{
	switch (a) {
	case AUTOSIZE_ACTION_NONE: return "none";
	case AUTOSIZE_ACTION_REWRITE: return "rewrite";
	case AUTOSIZE_ACTION_WARN: return "warn";
	case AUTOSIZE_ACTION_EXPLAIN: return "explain";
	case AUTOSIZE_ACTION_REJECT: return "reject";
	}
	return "none";
}


/* The plugin failed, not the user: on_error decides. */
static void decide_internal(const autosize_policy *p, autosize_decision *d,
			    const char *what)
{
	int reject = p && autosize_policy_defaults(p)->on_error ==
			      AUTOSIZE_ON_ERROR_REJECT;

	d->action = reject ? AUTOSIZE_ACTION_REJECT : AUTOSIZE_ACTION_NONE;
	d->reason = "internal";
	d->has_plan = 0;
	snprintf(d->error, sizeof(d->error), "%s", what);
	decide_text(d->message, sizeof(d->message),
		 "internal error (%.200s): %s", what,
		 reject ? "submission refused by site policy, try again or "
			  "ask your admins"
			: "the job was not sized and goes through as "
			  "submitted");
}

/* The user's input is wrong: refuse with its one line. */
static void decide_reject_input(autosize_decision *d, const char *msg)
{
	d->action = AUTOSIZE_ACTION_REJECT;
	d->reason = "input";
	decide_text(d->message, sizeof(d->message), "%s", msg);
}

/* A core failure, by whose it is (error.c). */
static void decide_failed(const autosize_policy *p, autosize_decision *d,
			  autosize_err rc, const autosize_error *e)
{
	if (autosize_err_classify(rc) == AUTOSIZE_CLASS_USER)
		decide_reject_input(d, e->msg);
	else
		decide_internal(p, d, e->msg[0] ? e->msg
				: autosize_strerror(rc));
}

/* Effective mode of this job as an action (NONE for off), the site's
 * mode for its partition being site. */
static autosize_action decide_mode(autosize_mode site,
				   const autosize_request *r)
{
	if (site == AUTOSIZE_MODE_OFF)
		return AUTOSIZE_ACTION_NONE;
	switch (r->job_mode) {
	case AUTOSIZE_JOB_OFF: return AUTOSIZE_ACTION_NONE;
	case AUTOSIZE_JOB_WARN: return AUTOSIZE_ACTION_WARN;
	case AUTOSIZE_JOB_EXPLAIN: return AUTOSIZE_ACTION_EXPLAIN;
	case AUTOSIZE_JOB_REWRITE: return AUTOSIZE_ACTION_REWRITE;
	case AUTOSIZE_JOB_POLICY: break;
	}
	return site == AUTOSIZE_MODE_WARN ? AUTOSIZE_ACTION_WARN
					  : AUTOSIZE_ACTION_REWRITE;
}

/*
 * The partitions a job may use: the policy's least strict mode among them
 * for this job (its rule's where a partition has none of its own) into
 * *site (rewrite before warn before off); the first one outside the
 * policy into other (a job naming none may use the site's default
 * partitions, or any of the policy's). Returns 1 when a partition is
 * outside.
 */
static int decide_partitions(const autosize_policy *p,
			     const autosize_rule *rule,
			     const autosize_job *job, autosize_mode *site,
			     char *other, size_t other_len)
{
	const autosize_partition *part;
	char name[AUTOSIZE_PART_NAME_MAX];
	const char *at = job->partition, *comma;
	autosize_mode m;
	size_t n;
	int i;

	*site = AUTOSIZE_MODE_OFF;
	if (!at[0])
		at = autosize_policy_partition_for(p, rule);
	if (!at[0]) {
		for (i = 0; (part = autosize_policy_partition_at(p, i)); i++)
			if ((m = autosize_policy_mode_for(p, rule, part)) <
			    *site)
				*site = m;
		return 0;
	}
	while (*at) {
		comma = strchr(at, ',');
		n = comma ? (size_t)(comma - at) : strlen(at);
		if (n > 0) {
			snprintf(name, sizeof(name), "%.*s", (int)n, at);
			part = n < sizeof(name)
			       ? autosize_policy_find_partition(p, name) : NULL;
			if (!part) {
				snprintf(other, other_len, "%.*s", (int)n,
					 at);
				return 1;
			}
			if ((m = autosize_policy_mode_for(p, rule, part)) <
			    *site)
				*site = m;
		}
		at += n + (comma ? 1 : 0);
	}
	return 0;
}

static void decide_model_name(const autosize_request *r,
			      const autosize_plan *pl, char *buf, size_t len)
{
	char n[16];

	if (r->model.name[0])
		snprintf(buf, len, "%s", r->model.name);
	else
		snprintf(buf, len, "a model of %s parameters",
			 autosize_launch_count(pl->params, n, sizeof(n)));
}

static void decide_summary(const autosize_request *r,
			   const autosize_plan *pl, char *buf, size_t len)
{
	char model[AUTOSIZE_NAME_MAX + 32];
	size_t used;
	int n;

	decide_model_name(r, pl, model, sizeof(model));
	n = snprintf(buf, len, "%s on %s: %d node%s x %d GPU%s, TP %d x PP %d "
		     "x CP %d x DP %d, EP %d, VP %d, ZeRO-%d, MFU %.0f%%", model,
		     pl->part.name, pl->nodes, autosize_plural(pl->nodes),
		     pl->gpus_per_node, autosize_plural(pl->gpus_per_node),
		     pl->tp, pl->pp, pl->cp > 1 ? pl->cp : 1,
		     pl->dp, pl->ep > 1 ? pl->ep : 1, pl->vp > 1 ? pl->vp : 1,
		     pl->zero_stage, pl->mfu * 100);
	if (n < 0 || (size_t)n >= len)
		return;
	used = (size_t)n;
	if (pl->host_bytes_per_node > 0) {
		/* offloaded states: the host memory the plan needs */
		n = snprintf(buf + used, len - used, ", host memory %.0f GiB "
			     "per node", pl->host_bytes_per_node /
			     (1024.0 * 1024 * 1024));
		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
	}
	(void)autosize_time_words(pl->train_hours, pl->train_hours_low,
				  pl->train_hours_high, pl->time_limit_min,
				  pl->chained_jobs, pl->signal_s, buf + used,
				  len - used);
}

static int decide_has_explicit_size(const autosize_request *r)
{
	return r->nodes > 0 || r->gpus > 0 || r->gpus_per_node > 0;
}

/* No plan fits (the attempt and the core's advice are in w->plan):
 * on_unfit, and say what would fit. */
static void decide_unfit(const autosize_policy *p, const autosize_request *r,
			 autosize_decision *d, const autosize_plan *pl)
{
	const autosize_partition *part = &pl->part;
	const char *gpu = part->gpu ? part->gpu->name : "?";
	char model[AUTOSIZE_NAME_MAX + 32], where[160], head[480];
	int warn = autosize_policy_defaults(p)->on_unfit ==
		   AUTOSIZE_UNFIT_WARN;

	decide_model_name(r, pl, model, sizeof(model));
	if (pl->too_long) {
		/* it fits, but takes longer than the site accepts */
		decide_text(d->message, sizeof(d->message), "%s on partition "
			 "%s: %.400s%s", model, part->name, pl->reason,
			 warn ? " (submitted unchanged)" : "");
		d->action = warn ? AUTOSIZE_ACTION_WARN
				 : AUTOSIZE_ACTION_REJECT;
		d->reason = "unfit";
		d->has_plan = 0;
		return;
	}
	if (decide_has_explicit_size(r) && pl->advice_here_nodes > 0)
		decide_text(head, sizeof(head), "%s does not fit the size you "
			 "asked for on partition %s (%d node%s x %d GPU%s: "
			 "%.200s); it needs at least %d node%s of %s there",
			 model, part->name, pl->nodes,
			 autosize_plural(pl->nodes), pl->gpus_per_node,
			 autosize_plural(pl->gpus_per_node), pl->reason,
			 pl->advice_here_nodes,
			 autosize_plural(pl->advice_here_nodes), gpu);
	else if (decide_has_explicit_size(r))
		decide_text(head, sizeof(head), "%s does not fit the size you "
			 "asked for on partition %s (%d node%s x %d GPU%s: "
			 "%.200s)", model, part->name, pl->nodes,
			 autosize_plural(pl->nodes), pl->gpus_per_node,
			 autosize_plural(pl->gpus_per_node), pl->reason);
	else if (pl->advice_min_nodes > 0)
		decide_text(head, sizeof(head), "%s needs at least %d node%s "
			 "of %s (%d GPU%s each); partition %s allows %d per "
			 "job", model, pl->advice_min_nodes,
			 autosize_plural(pl->advice_min_nodes), gpu,
			 part->gpus_per_node,
			 autosize_plural(part->gpus_per_node), part->name,
			 part->max_nodes_per_job);
	else
		decide_text(head, sizeof(head), "%s does not fit partition %s: "
			 "%.300s", model, part->name, pl->reason);
	if (pl->advice_partition[0])
		decide_text(where, sizeof(where), "partition %s fits it with %d "
			 "node%s", pl->advice_partition,
			 pl->advice_partition_nodes,
			 pl->advice_partition_nodes == 1 ? "" : "s");
	else if (pl->advice_here_nodes > 0)
		where[0] = '\0';
	else
		decide_text(where, sizeof(where), "no partition in the site "
			 "policy fits it");
	d->reason = "unfit";
	if (pl->capped_by[0]) {
		/* what does not fit is Slurm's own limit on this job */
		d->reason = "limit";
		if (pl->advice_min_nodes > 0 && !decide_has_explicit_size(r))
			decide_text(head, sizeof(head), "%s needs at least %d "
				 "GPUs of %s; %.120s allows fewer to this job "
				 "on partition %s", model,
				 pl->advice_min_nodes * part->gpus_per_node,
				 gpu, pl->capped_by, part->name);
		else
			decide_text(head, sizeof(head), "%s does not fit what "
				 "%.120s allows this job on partition %s "
				 "(%.200s)", model, pl->capped_by, part->name,
				 pl->reason);
		if (!pl->advice_partition[0])
			where[0] = '\0';
	}
	decide_text(d->message, sizeof(d->message), "%.420s%s%.150s%s", head,
		 where[0] ? "; " : "", where, warn ? " (submitted unchanged: it will likely run out "
			       "of memory)" : "");
	d->action = warn ? AUTOSIZE_ACTION_WARN : AUTOSIZE_ACTION_REJECT;
	d->has_plan = 0;
}

/* GPUs per node that a per-socket request amounts to; UNSET when the
 * socket count is not given. */
static long decide_socket_gpus(const autosize_job *job)
{
	if (job->gpus_per_socket < 0 || job->sockets_per_node <= 0)
		return AUTOSIZE_JOB_UNSET;
	return job->gpus_per_socket * job->sockets_per_node;
}

/* 1 when a GPU request of the job cannot be read (two GPU entries, a
 * count out of range): no plan can be made around it, and none may
 * replace it. */
static int decide_gpus_unreadable(const autosize_job *job)
{
	return job->gpus_per_node == AUTOSIZE_JOB_UNREADABLE ||
	       job->gpus_per_job == AUTOSIZE_JOB_UNREADABLE ||
	       job->gpus_per_task == AUTOSIZE_JOB_UNREADABLE ||
	       job->gpus_per_socket == AUTOSIZE_JOB_UNREADABLE;
}

/*
 * The user's explicit size: recorded in d, and put into the request when
 * the policy keeps it. GPUs per task or per socket are kept whatever the
 * policy (rewriting them would change task and socket binding) and count
 * as explicit GPUs. Returns 0, or -1 with d filled (refused before any
 * search: a size that cannot be planned).
 */
static int decide_explicit(const autosize_defaults *def,
			   const autosize_job *job, autosize_request *r,
			   autosize_decision *d)
{
	int keep = def->explicit_size == AUTOSIZE_EXPLICIT_KEEP;
	long per_node = job->gpus_per_node, total = job->gpus_per_job;
	long socket = decide_socket_gpus(job);
	int other = job->gpus_per_task != AUTOSIZE_JOB_UNSET ||
		    job->gpus_per_socket != AUTOSIZE_JOB_UNSET;

	d->explicit_nodes = job->min_nodes > 0;
	d->explicit_gpus = per_node != AUTOSIZE_JOB_UNSET ||
			   total != AUTOSIZE_JOB_UNSET || other;
	d->explicit_time = job->time_limit_min != AUTOSIZE_JOB_UNSET;
	/* the job's own segment stays: planned around it */
	if (job->segment_nodes > 0)
		r->segment_nodes = (int)(job->segment_nodes < 65533
					 ? job->segment_nodes : 65533);
	/* a kept -t is the job's one limit: never chained */
	r->time_kept = keep && job->time_limit_min > 0;
	if (other) {
		keep = 1;   /* the GPU request stays as written */
		if (socket >= 0)
			per_node = socket;
		else if (job->gpus_per_task > 0 && job->num_tasks > 0)
			total = job->gpus_per_task * job->num_tasks;
	}
	if (job->exclusive)   /* all GPUs of each node (decide_request) */
		per_node = AUTOSIZE_JOB_UNSET;
	if (!keep)
		return 0;
	if (d->explicit_nodes)
		r->nodes = (int)job->min_nodes;
	else if (per_node > 0)
		r->fewest_nodes = 1;   /* one node unless memory needs more */
	if (per_node == 0 || total == 0) {
		decide_text(d->message, sizeof(d->message), "the job asks for "
			 "no GPUs (a GPU count of 0) but carries model "
			 "options: ask for GPUs, or drop the autosize "
			 "options");
		d->action = AUTOSIZE_ACTION_REJECT;
		d->reason = "input";
		return -1;
	}
	if (per_node > 0)
		r->gpus_per_node = (int)(per_node < DECIDE_GPUS_MAX
					 ? per_node : DECIDE_GPUS_MAX);
	if (total > 0)
		r->gpus = (int)(total < DECIDE_GPUS_MAX ? total
						       : DECIDE_GPUS_MAX);
	return 0;
}

/* The plan as it travels with the job (AdminComment), with what the
 * user asked for and the codes of the warnings told (the admin's report
 * counts them; refused jobs never reach accounting, job_submit.lua logs
 * those); "" when a name cannot be carried. */
static void decide_record(const autosize_plan *pl, const autosize_job *job,
			  const autosize_chain_mark *mark,
			  autosize_decision *d)
{
	autosize_record rec;
	long gpus = -1;

	autosize_record_from_plan(pl, &rec);
	decide_chain_fill(mark, pl, &rec, d);
	if (job->gpus_per_job > 0)
		gpus = job->gpus_per_job;
	else if (job->min_nodes > 0 && job->gpus_per_node > 0)
		gpus = job->min_nodes * job->gpus_per_node;
	rec.ask_gpus = gpus > 0 && gpus <= DECIDE_GPUS_MAX ? (int)gpus : 0;
	rec.ask_min = job->time_limit_min > 0 ? job->time_limit_min : 0;
	autosize_warning_codes((const char (*)[AUTOSIZE_WARNING_LEN])
			       d->warnings, d->n_warnings, rec.warn,
			       sizeof(rec.warn));
	/* the extras only where the measured figures still fit later
	 * (spank_report.c adds them); the warnings go first, then the ask */
	if (autosize_record_encode(&rec, d->record, sizeof(d->record) -
				   AUTOSIZE_RECORD_MEASURED_MAX) >= 0)
		return;
	rec.warn[0] = '\0';
	if (autosize_record_encode(&rec, d->record, sizeof(d->record) -
				   AUTOSIZE_RECORD_MEASURED_MAX) >= 0)
		return;
	rec.ask_gpus = 0;
	rec.ask_min = 0;
	if (autosize_record_encode(&rec, d->record, sizeof(d->record)) < 0)
		d->record[0] = '\0';
}

/* The summary says when the site's calibration corrected the plan. */
static void decide_calibrated(const autosize_plan *pl, autosize_decision *d)
{
	size_t used = strlen(d->summary);

	if (pl->calibration.applied && used < sizeof(d->summary))
		snprintf(d->summary + used, sizeof(d->summary) - used,
			 " (speed x %.2f calibrated on %d jobs of this site)",
			 pl->calibration.speed_factor, pl->calibration.jobs);
}

/* Fill the plan part of d from pl, and what rewrite would write. */
static void decide_fill(const autosize_request *r, const autosize_job *job,
			const autosize_defaults *def, const autosize_plan *pl,
			const autosize_chain_mark *mark, autosize_decision *d)
{
	int keep = def->explicit_size == AUTOSIZE_EXPLICIT_KEEP;
	int gpus_fixed = job->gpus_per_task != AUTOSIZE_JOB_UNSET ||
			 job->gpus_per_socket != AUTOSIZE_JOB_UNSET;
	int i;

	d->has_plan = 1;
	snprintf(d->partition, sizeof(d->partition), "%s", pl->part.name);
	d->nodes = pl->nodes;
	d->gpus_per_node = pl->gpus_per_node;
	d->time_limit_min = pl->time_limit_min;
	d->chained_jobs = pl->chained_jobs;
	decide_summary(r, pl, d->summary, sizeof(d->summary));
	decide_calibrated(pl, d);
	for (i = 0; i < pl->n_warnings && i < AUTOSIZE_MAX_WARNINGS; i++)
		snprintf(d->warnings[d->n_warnings++], AUTOSIZE_WARNING_LEN,
			 "%s", pl->warnings[i]);
	d->set_nodes = !(keep && d->explicit_nodes);
	d->set_gpus = !gpus_fixed && !(keep && d->explicit_gpus);
	d->set_time = pl->time_limit_min > 0 && !(keep && d->explicit_time);
	d->set_partition = strcmp(job->partition, pl->part.name) != 0;
	decide_fill_node(job, pl, d);
	decide_record(pl, job, mark, d);
}

static void decide_suggest(autosize_decision *d, const char *lead)
{
	char limit[32] = "";

	if (d->time_limit_min > 0)
		autosize_format_duration(d->time_limit_min * 60.0, limit,
					 sizeof(limit));
	decide_text(d->message, sizeof(d->message), "%ssuggested size: -p %s "
		 "-N %d --gpus-per-node=%d%s%s (%.400s)", lead, d->partition,
		 d->nodes, d->gpus_per_node, limit[0] ? " -t " : "", limit,
		 d->summary);
}

/* Partition names of the policy, for "not in the site policy". */
static void decide_partition_names(const autosize_policy *p, char *buf,
				   size_t len)
{
	const autosize_partition *part;
	size_t used = 0;
	int i, n;

	buf[0] = '\0';
	for (i = 0; (part = autosize_policy_partition_at(p, i)); i++) {
		n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
			     part->name);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
}

/* Plan the request; every outcome into d. Returns 1 when d holds a plan
 * to act on. */
static int decide_plan(const autosize_policy *p, const autosize_job *job,
		       autosize_decide_work *w, autosize_decision *d)
{
	const autosize_defaults *def = autosize_policy_defaults(p);
	const autosize_plan *pl = &w->plan;
	autosize_error e;
	char names[256];
	autosize_err rc;

	autosize_error_clear(&e);
	rc = autosize_plan_compute_work(p, &w->req, &w->plan, &w->plan_work,
					&e);
	d->evaluated = w->plan.evaluated;
	if (rc == AUTOSIZE_ENOFIT) {
		decide_unfit(p, &w->req, d, pl);
		return 0;
	}
	if (rc == AUTOSIZE_ENOTFOUND) {
		decide_partition_names(p, names, sizeof(names));
		decide_text(d->message, sizeof(d->message), "%s (autosize "
			 "partitions: %s)", e.msg, names);
		d->action = AUTOSIZE_ACTION_REJECT;
		d->reason = "input";
		return 0;
	}
	if (rc != AUTOSIZE_OK) {
		decide_failed(p, d, rc, &e);
		return 0;
	}
	/* the signal the job carries (sbatch's), told with its plan */
	if (w->mark.signal_s > 0)
		w->plan.signal_s = w->mark.signal_s;
	/* a kept -t short of the run: what this job holds of it */
	if (w->req.time_kept)
		autosize_plan_warn_kept_time(&w->plan, job->time_limit_min);
	decide_fill(&w->req, job, def, pl, &w->mark, d);
	if (d->nodes < 1 || d->gpus_per_node < 1 ||
	    d->nodes > pl->part.max_nodes_per_job ||
	    (pl->part.max_time_s > 0 &&
	     d->time_limit_min * 60.0 > pl->part.max_time_s)) {
		decide_internal(p, d, "plan outside the partition's limits");
		return 0;
	}
	return 1;
}

/*
 * A heterogeneous job (its first component; the others carry the same
 * options and get nothing): never resized and never refused for its size,
 * only told the plan for the first component. Bad input and internal
 * errors are handled as for any job.
 */
static void decide_het(const autosize_policy *p, const autosize_job *job,
		       autosize_decide_work *w, autosize_decision *d)
{
	char why[AUTOSIZE_LINE_MAX];

	if (decide_plan(p, job, w, d)) {
		/* Slurm puts each component's number before its lines
		 * ("sbatch: 0: autosize: ..."): the words say which */
		decide_suggest(d, "heterogeneous job, not resized; for "
			       "component 0, ");
	} else if (strcmp(d->reason, "unfit") == 0) {
		decide_text(why, sizeof(why), "%s", d->message);
		decide_text(d->message, sizeof(d->message), "heterogeneous job, "
			 "not resized: %.580s", why);
	} else {
		return;
	}
	d->action = AUTOSIZE_ACTION_NONE;
	d->reason = "";
	d->has_plan = 0;
}

/*
 * A batch job's task count with its new node count: --ntasks-per-node
 * makes it follow the nodes; a count below the nodes is raised to one
 * task per node (Slurm refuses fewer tasks than nodes).
 */
static void decide_tasks(const autosize_job *job, autosize_decision *d)
{
	long want = AUTOSIZE_JOB_UNSET;

	if (job->ntasks_per_node > 0)
		want = (long)d->nodes * job->ntasks_per_node;
	else if (job->num_tasks > 0 && job->num_tasks < d->nodes)
		want = d->nodes;
	if (want > 0 && want != job->num_tasks) {
		d->set_tasks = 1;
		d->num_tasks = want;
	}
}

/*
 * The guards every job change passes, whichever action asked for it.
 * A job without a batch script whose first step srun creates with its
 * own task count: fewer tasks than the new node count is a step Slurm
 * cannot lay out (slurmctld 22.05 dies of a division by zero in
 * step_create), so such a job is not resized at all.
 */
static void decide_guard(const autosize_job *job, autosize_decision *d)
{
	if (!d->set_nodes)
		return;
	if (job->batch) {
		decide_tasks(job, d);
		return;
	}
	if (job->num_tasks <= 0 || job->num_tasks >= d->nodes)
		return;
	d->guarded = 1;
	d->set_nodes = d->set_gpus = d->set_time = d->set_partition = 0;
	d->set_tasks = d->set_segment = 0;
	d->record[0] = '\0';
	decide_text(d->message, sizeof(d->message), "not resized: this "
		 "interactive job asks for %ld task%s, fewer than the %d "
		 "nodes planned, which Slurm cannot start; resubmit with "
		 "-N %d --ntasks-per-node=1 (or -n %d or more)",
		 job->num_tasks, job->num_tasks == 1 ? "" : "s", d->nodes,
		 d->nodes, d->nodes);
}

void autosize_decide(const autosize_policy *p, const char *const *env,
		     size_t n, const autosize_job *job,
		     autosize_decide_work *w, autosize_decision *d)
{
	const autosize_defaults *def;
	const autosize_rule *rule;
	char other[AUTOSIZE_PART_NAME_MAX], names[256];
	autosize_error e;
	autosize_action mode;
	autosize_mode site;
	int found = 0;
	autosize_err rc;

	memset(d, 0, sizeof(*d));
	d->reason = "";
	autosize_error_clear(&e);
	if (n > AUTOSIZE_JOBENV_MAX_ENTRIES)
		n = AUTOSIZE_JOBENV_MAX_ENTRIES;
	rc = autosize_request_from_env(env, n, &w->req, &found, &e);
	/* An error means an entry of ours was there (an unknown or
	 * oversized option is refused before *found is set). */
	if (!found && rc == AUTOSIZE_OK)
		return;
	d->has_options = 1;
	if (job->het_offset > 0)
		return;   /* a later het component: the first one speaks */
	if (!p) {
		decide_internal(p, d, "no site policy (out of memory)");
		return;
	}
	def = autosize_policy_defaults(p);
	if (autosize_policy_exempt(p, job->user, job->account))
		return;  /* the site's choice: not our job */
	if (rc != AUTOSIZE_OK) {
		decide_failed(p, d, rc, &e);
		return;
	}
	rule = decide_rule(p, job, &w->req);
	site = autosize_policy_mode_for(p, rule, NULL);
	if (autosize_policy_partition_count(p) == 0) {
		if (decide_mode(site, &w->req) != AUTOSIZE_ACTION_NONE)
			decide_internal(p, d, "the site policy has no "
					"partitions (was autosize.yaml "
					"loaded?)");
		return;
	}
	if (decide_partitions(p, rule, job, &site, other, sizeof(other))) {
		if (decide_mode(autosize_policy_mode_for(p, rule, NULL),
				&w->req) == AUTOSIZE_ACTION_NONE)
			return;
		decide_partition_names(p, names, sizeof(names));
		if (def->other_partitions == AUTOSIZE_OTHER_REFUSE) {
			decide_text(d->message, sizeof(d->message), "partition "
				 "'%s' is not sized by autosize on this cluster "
				 "(autosize partitions: %s): submit to one of "
				 "those, or drop the model options", other,
				 names);
			d->action = AUTOSIZE_ACTION_REJECT;
			d->reason = "input";
		} else {
			decide_text(d->message, sizeof(d->message), "partition "
				 "'%s' is not sized by autosize (autosize "
				 "partitions: %s): the job goes as submitted",
				 other, names);
		}
		return;
	}
	mode = decide_mode(site, &w->req);
	if (mode == AUTOSIZE_ACTION_NONE)
		return;  /* off: nothing to say */
	if (decide_limits(def, job, w, d) != 0 ||
	    decide_chain_mark(env, n, job, w, d) != 0)
		return;
	decide_request(p, job, &w->req);
	snprintf(w->req.partition, sizeof(w->req.partition), "%s",
		 job->partition);
	if (job->het_offset == 0) {
		decide_het(p, job, w, d);
		return;
	}
	if (decide_gpus_unreadable(job)) {
		/* Sized with a GPU count of the plan's choosing, the job
		 * would get the plan's nodes and time with its own GPUs. */
		decide_text(d->message, sizeof(d->message), "not sized: the "
			 "job's GPU request cannot be read (one GPU entry with "
			 "a count, e.g. --gpus-per-node=8, is sized); it goes "
			 "through as submitted");
		return;
	}
	if (decide_explicit(def, job, &w->req, d) != 0)
		return;
	if (!decide_plan(p, job, w, d) || decide_time_past_max(job, w, d))
		return;
	/* The planned partition's mode (a list may mix them). */
	mode = decide_mode(autosize_policy_mode_for(p, rule, &w->plan.part),
			   &w->req);
	if (mode == AUTOSIZE_ACTION_NONE) {
		memset(d, 0, sizeof(*d));
		d->has_options = 1;
		d->reason = "";
		return;
	}
	d->action = mode;
	if (mode == AUTOSIZE_ACTION_REWRITE || mode == AUTOSIZE_ACTION_EXPLAIN)
		decide_guard(job, d);
	if (d->guarded)
		return;
	if (mode == AUTOSIZE_ACTION_REWRITE) {
		decide_text(d->message, sizeof(d->message), "%s", d->summary);
		if (!d->set_nodes && !d->set_gpus && !d->set_time &&
		    !d->set_partition && !d->set_segment) {
			d->action = AUTOSIZE_ACTION_NONE;
			decide_text(d->message, sizeof(d->message), "keeping "
				 "your size and time: %.560s", d->summary);
		}
	} else {
		decide_suggest(d, "");
	}
}
