/*
 * autosize: what Slurm enforces on a sized job and where it places it
 * (decide_private.h): the QOS and association caps of each partition the
 * job may use (or why they cannot be read), the GPU type, CPUs and
 * memory per GPU written with the plan, GPUs per node where the job's own
 * cannot be kept as Slurm would place them, a -t past what Slurm allows.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "autosize/parse.h"
#include "decide_private.h"

/* decide_private.h: every message of a decision goes through it. */
void decide_text(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	/* messages quote the job's own text (partition names, model
	 * names): one line in slurmctld's log and on the user's terminal */
	autosize_one_line(buf);
}

/* 1 when what the plan gets per GPU is autosize's to write: the
 * policy's, the node's share, or raised for offloaded states (the job's
 * own and Slurm's default are Slurm's). */
static int decide_per_gpu_ours(autosize_per_gpu_from from)
{
	return from == AUTOSIZE_PER_GPU_POLICY ||
	       from == AUTOSIZE_PER_GPU_NODE || from == AUTOSIZE_PER_GPU_HOST;
}

/*
 * The plan's Slurm segment (autosize_segment_nodes: past one NVLink
 * rack, the nodes of each segment share one rack's NVLink). Written
 * where the job set none and Slurm's job_submit/lua exposes
 * segment_size (25.11 and later, readable and writable alike); where it
 * does not (before 25.11, the field reads nil), the user is told to
 * pass it. The job's own is kept (the plan was made around it).
 */
static void decide_fill_segment(const autosize_job *job,
				const autosize_plan *pl, autosize_decision *d)
{
	d->segment_nodes = pl->segment_nodes;
	if (pl->segment_nodes <= 0 || job->segment_nodes > 0)
		return;
	if (job->segment_nodes == AUTOSIZE_JOB_UNSET) {
		d->set_segment = 1;
		return;
	}
	if (d->n_warnings < AUTOSIZE_MAX_WARNINGS)
		snprintf(d->warnings[d->n_warnings++], AUTOSIZE_WARNING_LEN,
			 "this Slurm's job_submit cannot set --segment (it "
			 "can from 25.11): the plan puts each %d nodes of "
			 "the job inside one NVLink rack; unless you passed "
			 "it, submit with sbatch --segment=%d (24.11 and "
			 "later)", pl->segment_nodes, pl->segment_nodes);
}

/*
 * What the job gets of the node besides its size: the GPU type planned
 * for (a partition of several types runs the job where its time limit
 * holds), CPUs and memory per GPU, and GPUs per node written where the
 * job's own cannot be kept as Slurm would place them: --exclusive (the
 * whole node) and --gpus=N split evenly over nodes.
 */
void decide_fill_node(const autosize_job *job, const autosize_plan *pl,
			     autosize_decision *d)
{
	long per_node = job->gpus_per_node;

	decide_fill_segment(job, pl, d);
	d->preemptible = pl->part.preemptible;
	if (pl->part.gres_type[0] && !job->gpu_type[0]) {
		snprintf(d->gres_type, sizeof(d->gres_type), "%s",
			 pl->part.gres_type);
		d->set_gpus = job->gpus_per_task == AUTOSIZE_JOB_UNSET &&
			      job->gpus_per_socket == AUTOSIZE_JOB_UNSET;
	}
	/* the job's own count with a type added is not replaced */
	if (per_node == pl->gpus_per_node)
		d->explicit_gpus = 0;
	if (job->exclusive && per_node != pl->gpus_per_node) {
		d->set_gpus = 1;
		if (d->n_warnings < AUTOSIZE_MAX_WARNINGS)
			snprintf(d->warnings[d->n_warnings++],
				 AUTOSIZE_WARNING_LEN, "--exclusive: Slurm "
				 "gives the job all %d GPUs of each node: "
				 "planned for all of them", pl->gpus_per_node);
	}
	if (job->gpus_per_job > 0 && per_node == AUTOSIZE_JOB_UNSET &&
	    job->gpus_per_job % pl->gpus_per_node == 0 &&
	    job->gpus_per_job / pl->gpus_per_node == pl->nodes &&
	    pl->nodes > 1 && pl->gpus_per_node < pl->part.gpus_per_node) {
		/* --gpus=12 on nodes of 8: 2 x 6, as the layout needs */
		d->set_gpus = d->set_nodes = 1;
		if (d->n_warnings < AUTOSIZE_MAX_WARNINGS)
			snprintf(d->warnings[d->n_warnings++],
				 AUTOSIZE_WARNING_LEN, "--gpus=%ld on nodes "
				 "of %d GPUs: %d nodes x %d GPUs, the same "
				 "on each node as the layout needs",
				 job->gpus_per_job, pl->part.gpus_per_node,
				 pl->nodes, pl->gpus_per_node);
	}
	d->cpus_per_gpu = pl->cpus_per_gpu;
	d->mem_per_gpu_mb = (long)(pl->mem_per_gpu_bytes / (1024.0 * 1024));
	if (job->gpus_per_task != AUTOSIZE_JOB_UNSET ||
	    job->gpus_per_socket != AUTOSIZE_JOB_UNSET)
		return;  /* bound to tasks or sockets: Slurm's to place */
	d->set_cpus = d->cpus_per_gpu > 0 && !job->cpus_given &&
		      job->cpus_per_gpu == AUTOSIZE_JOB_UNSET &&
		      decide_per_gpu_ours(pl->cpus_from);
	d->set_mem = d->mem_per_gpu_mb > 0 && !job->mem_given &&
		     job->mem_per_gpu_mb == AUTOSIZE_JOB_UNSET &&
		     decide_per_gpu_ours(pl->mem_from);
}

/*
 * Slurm's QOS and association limits, when slurmctld's module reads
 * them: this job's caps in each partition it may use go with its Slurm
 * limits (w->live). Returns -1 with d saying why when they cannot be
 * read for it: the job then goes as submitted (never refused for
 * autosize's own failure), 0 otherwise.
 */
int decide_limits(const autosize_defaults *def,
			 const autosize_job *job, autosize_decide_work *w,
			 autosize_decision *d)
{
	char why[AUTOSIZE_MSG_LEN];
	autosize_part_limit *l;
	int i;

	w->live = job->live;
	w->req.live = job->have_live ? &w->live : NULL;
	w->req.slurm = NULL;
	if (!def->slurm_limits || !job->limits_wanted)
		return 0;
	if (!job->limits || job->limits_why[0]) {
		decide_text(d->message, sizeof(d->message), "not sized: "
			 "Slurm's QOS and association limits cannot be read "
			 "(%.300s): the job goes as submitted",
			 job->limits_why[0] ? job->limits_why : "not read yet");
		return -1;
	}
	w->req.slurm = job->limits;
	for (i = 0; job->have_live && i < w->live.n &&
		    i < AUTOSIZE_MAX_PARTITIONS; i++) {
		l = &w->live.at[i];
		if (autosize_limits_caps(job->limits, job->user, job->account,
					 job->qos, l->name,
					 l->qos[0] ? l->qos : NULL, &l->caps,
					 why, sizeof(why)) != 0) {
			decide_text(d->message, sizeof(d->message), "not "
				 "sized: %.300s as autosize last read them (one "
				 "made since is read within seconds): the job "
				 "goes as submitted", why);
			d->limits_unknown = 1;
			return -1;
		}
		l->have_caps = 1;
	}
	return 0;
}

const autosize_rule *autosize_rule_apply(const autosize_policy *p,
					 const char *user, const char *account,
					 const char *qos, autosize_request *r)
{
	const autosize_rule *rule;
	char names[AUTOSIZE_CAP_WHO_MAX];
	size_t used = 0;

	rule = autosize_policy_rule_for(p, user, account, qos);
	r->rule = rule;
	r->rule_gpus.value = rule ? rule->max_gpus : 0;
	r->rule_gpus.who[0] = '\0';
	if (!rule || rule->max_gpus <= 0)
		return rule;
	/* named by the job's own names: "account lab, QOS normal" */
	names[0] = '\0';
	if (rule->n_accounts)
		used += (size_t)snprintf(names, sizeof(names), "account %.40s",
					 account);
	if (rule->n_qos && used < sizeof(names))
		used += (size_t)snprintf(names + used, sizeof(names) - used,
					 "%sQOS %.40s", used ? ", " : "", qos);
	if (rule->n_users && used < sizeof(names))
		snprintf(names + used, sizeof(names) - used, "%suser %.40s",
			 used ? ", " : "", user);
	snprintf(r->rule_gpus.who, sizeof(r->rule_gpus.who),
		 "autosize rule for %.90s max_gpus=%ld", names,
		 rule->max_gpus);
	return rule;
}

/*
 * The policy's rule for this job: its account (the one it names, else
 * its user's default as slurmctld tells it) and QOS (the one it names,
 * else its association's default as slurmctld tells it), each completed
 * from Slurm's limits as last read where slurmctld said nothing (a QOS
 * defaulted to the association's only one, or normal).
 */
const autosize_rule *decide_rule(const autosize_policy *p,
				 const autosize_job *job, autosize_request *r)
{
	char account[AUTOSIZE_LIMITS_NAME_MAX], qos[AUTOSIZE_LIMITS_NAME_MAX];
	char a[AUTOSIZE_LIMITS_NAME_MAX], q[AUTOSIZE_LIMITS_NAME_MAX];

	snprintf(account, sizeof(account), "%s", job->account);
	snprintf(qos, sizeof(qos), "%s", job->qos[0] ? job->qos
					       : job->default_qos);
	if ((!account[0] || !qos[0]) && autosize_policy_rule_count(p) &&
	    job->limits && !job->limits_why[0] &&
	    autosize_limits_job_names(job->limits, job->user, account, qos,
				      "", a, q) == 0) {
		if (!account[0])
			snprintf(account, sizeof(account), "%s", a);
		if (!qos[0])
			snprintf(qos, sizeof(qos), "%s", q);
	}
	return autosize_rule_apply(p, job->user, account, qos, r);
}

/* What the job tells the plan besides its size: its GPU type (the
 * request's, else -C naming a type of the policy's partitions), whole
 * nodes, its CPUs and memory per GPU. */
void decide_request(const autosize_policy *p, const autosize_job *job,
			   autosize_request *r)
{
	const autosize_partition *part;
	int i;

	snprintf(r->gpu_type, sizeof(r->gpu_type), "%s", job->gpu_type);
	r->exclusive = job->exclusive;
	r->cpus_per_gpu = job->cpus_per_gpu > 0 && job->cpus_per_gpu < 100000
			  ? (int)job->cpus_per_gpu : 0;
	r->mem_per_gpu_bytes = job->mem_per_gpu_mb > 0
			       ? job->mem_per_gpu_mb * 1024.0 * 1024 : 0;
	r->host_fixed = job->mem_given;
	if (r->gpu_type[0])
		return;
	for (i = 0; job->features[0] &&
		    (part = autosize_policy_partition_at(p, i)); i++)
		if (autosize_partition_has_type(p, part, job->features)) {
			snprintf(r->gpu_type, sizeof(r->gpu_type), "%s",
				 job->features);
			return;
		}
}

/* The limit of the planned partition's time: the QOS's or association's
 * MaxWall when it is the smaller, else the partition's MaxTime. */
static void decide_time_limit_name(const autosize_decide_work *w,
				   char *buf, size_t len)
{
	const autosize_plan *pl = &w->plan;
	char limit[32];
	int i;

	for (i = 0; w->req.live && i < w->live.n; i++)
		if (strcmp(w->live.at[i].name, pl->part.name) == 0 &&
		    w->live.at[i].have_caps &&
		    w->live.at[i].caps.wall_min.value > 0 &&
		    w->live.at[i].caps.wall_min.value * 60.0 <=
		    pl->part.max_time_s) {
			snprintf(buf, len, "%s",
				 w->live.at[i].caps.wall_min.who);
			return;
		}
	autosize_format_duration(pl->part.max_time_s, limit, sizeof(limit));
	snprintf(buf, len, "partition %s's MaxTime=%s", pl->part.name, limit);
}

/* A -t the job keeps past what Slurm lets it run: Slurm refuses the job
 * or never starts it, so it is refused here, naming the -t. Returns 1
 * when refused. */
int decide_time_past_max(const autosize_job *job,
				const autosize_decide_work *w,
				autosize_decision *d)
{
	double max_s = w->plan.part.max_time_s;
	char asked[32], limit[32], who[AUTOSIZE_CAP_WHO_MAX + 40];

	if (d->set_time || !d->explicit_time || !(max_s > 0) ||
	    (job->time_limit_min != AUTOSIZE_JOB_UNLIMITED &&
	     !(job->time_limit_min * 60.0 > max_s)))
		return 0;
	if (job->time_limit_min == AUTOSIZE_JOB_UNLIMITED)
		snprintf(asked, sizeof(asked), "UNLIMITED");
	else
		autosize_format_duration(job->time_limit_min * 60.0, asked,
					 sizeof(asked));
	autosize_format_duration(max_s, limit, sizeof(limit));
	decide_time_limit_name(w, who, sizeof(who));
	decide_text(d->message, sizeof(d->message), "your -t %s is past %s: "
		 "Slurm refuses the job or never starts it; ask for -t %s or "
		 "less, or leave -t out and autosize plans chained jobs "
		 "within it", asked, who, limit);
	d->action = AUTOSIZE_ACTION_REJECT;
	d->reason = "time";
	d->has_plan = 0;
	return 1;
}

