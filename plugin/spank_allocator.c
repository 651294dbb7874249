/*
 * autosize SPANK plugin, allocator context (sbatch, salloc) and local
 * context (srun creating a job): read the model on the submit host, show
 * the plan, pass the model to slurmctld, stop --autosize=explain.
 *
 * The plan shown here is advice: a SPANK plugin cannot change a job's
 * size. slurmctld's job_submit.lua sizes the job with authority, for the
 * partition the job really gets.
 */
#include <stdlib.h>
#include <string.h>
#include "spank_common.h"

#define ALLOCATOR_REPORT_MAX 8192

static struct plugin_context {
	autosize_request req;
	autosize_plan plan;
	char report[ALLOCATOR_REPORT_MAX];
	char encoded[AUTOSIZE_JOBENV_VALUE_MAX + 1];
} context;

void autosize_spank_allocator_exit(void)
{
	memset(&context, 0, sizeof(context));
}

/* Print multi-line text one slurm_info line at a time. */
static void allocator_print(const char *text)
{
	const char *line = text, *nl;

	while (line && *line) {
		nl = strchr(line, '\n');
		if (nl) {
			slurm_info("autosize: %.*s", (int)(nl - line), line);
			line = nl + 1;
		} else {
			slurm_info("autosize: %s", line);
			break;
		}
	}
}

/*
 * The partition to plan for: the first one named in the submit
 * environment that the policy knows (the allocator cannot read the
 * job's --partition), else "" (the policy's default).
 */
static void allocator_partition(const autosize_policy *p, char *out,
				size_t len)
{
	static const char *const vars[] = {"SBATCH_PARTITION",
					   "SALLOC_PARTITION",
					   "SLURM_PARTITION",
					   "SLURM_JOB_PARTITION", NULL};
	char list[256], *save = NULL, *name;
	int i;

	out[0] = '\0';
	for (i = 0; vars[i]; i++) {
		const char *v = getenv(vars[i]);

		if (!v || !v[0] || strlen(v) >= sizeof(list))
			continue;
		memcpy(list, v, strlen(v) + 1);
		for (name = strtok_r(list, ",", &save); name;
		     name = strtok_r(NULL, ",", &save)) {
			if (autosize_policy_find_partition(p, name) &&
			    strlen(name) < len) {
				memcpy(out, name, strlen(name) + 1);
				return;
			}
		}
		slurm_verbose("autosize: %s=%.100s is not in the site "
			      "policy: planning for its default", vars[i], v);
	}
}

/* Send the model read on this host to slurmctld (AUTOSIZE_MODEL). */
static void allocator_send_model(spank_t sp)
{
	const autosize_model *m = &context.req.model;
	int rc;

	if (!m->has_arch || m->arch_synthetic)
		return;
	if (autosize_model_encode(m, context.encoded,
				  sizeof(context.encoded)) < 0) {
		slurm_error("autosize: warning: model %.64s does not fit in "
			    "%d bytes: slurmctld sizes the job without it",
			    m->name, AUTOSIZE_JOBENV_VALUE_MAX);
		return;
	}
	rc = spank_job_control_setenv(sp, AUTOSIZE_ENV_MODEL, context.encoded,
				      1);
	if (rc != ESPANK_SUCCESS)
		slurm_error("autosize: warning: cannot pass the model to "
			    "slurmctld: %s", spank_strerror(rc));
}

static void allocator_show(int explain, autosize_err rc)
{
	int i;

	if (explain) {
		if (autosize_launch_report(&context.req, &context.plan,
					   context.report,
					   sizeof(context.report)) < 0)
			slurm_error("autosize: warning: the plan report is "
				    "longer than %d bytes",
				    ALLOCATOR_REPORT_MAX);
		else
			allocator_print(context.report);
		return;
	}
	if (rc == AUTOSIZE_ENOFIT) {
		slurm_info("autosize: no feasible plan: %s",
			   context.plan.reason);
	} else if (autosize_launch_summary(&context.plan, context.report,
					   sizeof(context.report)) >= 0) {
		/* A suggestion: slurmctld applies it under the site's
		 * limits and the sizes the user gave, and says so. */
		slurm_info("autosize: suggested: %s", context.report);
	}
	for (i = 0; i < context.plan.n_warnings &&
	     i < AUTOSIZE_MAX_WARNINGS; i++)
		slurm_info("autosize: warning: %s", context.plan.warnings[i]);
}

int autosize_spank_allocator_post_opt(spank_t sp, spank_context_t ctx)
{
	const autosize_spank_config *cfg = autosize_spank_config_get();
	autosize_policy *policy = NULL;
	autosize_error err;
	autosize_err rc;
	int explain, rv = -1;

	if (!autosize_spank_options_given())
		return 0;
	autosize_spank_options_request(&context.req);
	if (context.req.job_mode == AUTOSIZE_JOB_OFF)
		return 0;
	explain = context.req.job_mode == AUTOSIZE_JOB_EXPLAIN;
	/* On failure: explain submits nothing (rv -1); otherwise the job
	 * goes through and slurmctld decides (rv 0). */
	rv = explain ? -1 : 0;
	if (cfg->disabled) {
		if (explain)
			slurm_error("autosize: the autosize plugin is disabled "
				    "on this cluster: nothing to explain, "
				    "nothing submitted");
		goto out;
	}
	/* srun inside a job: the step is laid out on the compute nodes
	 * (spank_remote.c); nothing is submitted here. */
	if (ctx == S_CTX_LOCAL && getenv("SLURM_JOB_ID")) {
		if (explain)
			slurm_error("autosize: --autosize=explain applies when "
				    "submitting a job, not to srun inside "
				    "one: nothing launched");
		goto out;
	}
	autosize_error_clear(&err);
	rc = autosize_request_finish(&context.req, &err);
	if (autosize_err_classify(rc) == AUTOSIZE_CLASS_INTERNAL) {
		slurm_error("autosize: warning: %s", err.msg);
		goto out;
	}
	if (rc != AUTOSIZE_OK) {
		/* Bad input: the user fixes the options; nothing is sent. */
		slurm_error("autosize: %s", err.msg);
		rv = -1;
		goto out;
	}
	if (!explain)
		allocator_send_model(sp);
	policy = autosize_spank_policy_load(cfg->policy, &err);
	if (!policy) {
		slurm_error("autosize: warning: %s: the job is not sized "
			    "here", err.msg);
		goto out;
	}
	if (autosize_policy_partition_count(policy) == 0) {
		slurm_error("autosize: warning: no partitions in the site "
			    "policy (%.200s, or the built-in defaults when it "
			    "is missing): the job cannot be sized here",
			    cfg->policy);
		goto out;
	}
	allocator_partition(policy, context.req.partition,
			    sizeof(context.req.partition));
	rc = autosize_plan_compute(policy, &context.req, &context.plan, &err);
	switch (rc) {
	case AUTOSIZE_OK:
	case AUTOSIZE_ENOFIT:
		/* No fit: slurmctld's policy rejects or warns. */
		allocator_show(explain, rc);
		if (explain)
			slurm_info("autosize: --autosize=explain: nothing "
				   "submitted");
		else
			/* slurmctld then reports only what it changes. */
			spank_job_control_setenv(sp, AUTOSIZE_ENV_SHOWN, "1",
						 1);
		break;
	case AUTOSIZE_EINVAL:
	case AUTOSIZE_ENOTFOUND:
		slurm_error("autosize: %s", err.msg);
		rv = -1;
		break;
	default:
		slurm_error("autosize: warning: %s", err.msg);
		break;
	}
out:
	autosize_policy_destroy(policy);
	return rv;
}
