/*
 * autosize SPANK plugin, allocator context (sbatch, salloc) and local
 * context (srun creating a job): read the model on the submit host, show
 * the plan, pass the model to slurmctld, stop --autosize=explain.
 *
 * Nothing is planned or shown here for a submission: a SPANK plugin
 * cannot see or change the job's size, so slurmctld's job_submit.lua
 * plans the job as it will run and tells the user, once. Only
 * --autosize=explain plans here, by re-running sbatch/srun with
 * --test-only (slurmctld then shows its plan and Slurm submits nothing),
 * or, where that cannot be done (salloc, a script on standard input),
 * by printing the plan for the policy's partition and exiting 0.
 */
#define _GNU_SOURCE /* program_invocation_short_name */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
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
 * The partitions to plan for: those of the first submit environment
 * variable that names any the policy knows (the allocator cannot read the
 * job's --partition), as a comma list the plan chooses among as
 * slurmctld does (-p small,gpu: both, not small alone), else "" (the
 * policy's default).
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
			size_t used = strlen(out);

			if (autosize_policy_find_partition(p, name) &&
			    used + 1 + strlen(name) < len) {
				if (used)
					out[used++] = ',';
				memcpy(out + used, name, strlen(name) + 1);
			}
		}
		if (out[0])
			return;
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

/* Print the plan report (explain on the submit host). */
static void allocator_show(autosize_err rc)
{
	int i;

	if (autosize_launch_report(&context.req, &context.plan,
				   context.report,
				   sizeof(context.report)) < 0) {
		slurm_info("autosize: the plan report is longer than %d bytes",
			   ALLOCATOR_REPORT_MAX);
		return;
	}
	allocator_print(context.report);
	if (rc == AUTOSIZE_ENOFIT)
		return;    /* the report says why; warnings are in it */
	for (i = 0; i < context.plan.n_warnings &&
	     i < AUTOSIZE_MAX_WARNINGS; i++)
		if (!strstr(context.report, context.plan.warnings[i]))
			slurm_info("autosize: warning: %s",
				   context.plan.warnings[i]);
}

void (*autosize_spank_exit)(int status) = exit;
int (*autosize_spank_execv)(const char *path, char *const argv[]) = execv;
const char *autosize_spank_cmdline_path = "/proc/self/cmdline";

#define ALLOCATOR_CMDLINE_MAX 65536
#define ALLOCATOR_ARGS_MAX 1024

int autosize_spank_script_in_args(char *const argv[], int argc)
{
	struct stat st;
	int i;

	for (i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--wrap", 6) == 0)
			return 1;
		if (argv[i][0] != '-' && stat(argv[i], &st) == 0 &&
		    S_ISREG(st.st_mode))
			return 1;
	}
	return 0;
}

/*
 * --autosize=explain with sbatch or srun: run the same command line again
 * with --test-only, so that slurmctld plans the job as it would queue it
 * (its -N, -p, -t, GPUs) and says so, and Slurm submits nothing (exit 0).
 * Returns only when that cannot be done (then the plan is shown here).
 */
static char allocator_cmdline_buf[ALLOCATOR_CMDLINE_MAX];

/* This process's command line into allocator_cmdline_buf (NUL-separated
 * arguments); its length, or -1. */
static ssize_t allocator_cmdline(void)
{
	ssize_t n;
	int fd;

	fd = open(autosize_spank_cmdline_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, allocator_cmdline_buf, sizeof(allocator_cmdline_buf) - 1);
	close(fd);
	if (n <= 0 || (size_t)n >= sizeof(allocator_cmdline_buf) - 1)
		return -1;
	allocator_cmdline_buf[n] = '\0';
	return n;
}

/* 1 when the command line carries --test-only (the re-run of an
 * explain). slurmctld trusts nothing the client sends; this only keeps
 * the plugin from calling a real submission a test. */
static int allocator_has_test_only(void)
{
	ssize_t n = allocator_cmdline(), i;

	for (i = 0; i < n; i += (ssize_t)strlen(allocator_cmdline_buf + i) + 1)
		if (strcmp(allocator_cmdline_buf + i, "--test-only") == 0)
			return 1;
	return 0;
}

int autosize_spank_argv(char **argv, int max, const char *extra)
{
	char *cmdline = allocator_cmdline_buf;
	ssize_t n = allocator_cmdline();
	size_t i;
	int argc = 0;

	if (n < 0 || max < 3)
		return -1;
	argv[argc++] = cmdline;
	if (extra)
		argv[argc++] = (char *)extra;
	for (i = 0; i + 1 < (size_t)n && argc < max - 1; i++)
		if (cmdline[i] == '\0')
			argv[argc++] = cmdline + i + 1;
	if (i + 1 < (size_t)n)
		return -1;   /* more arguments than max */
	argv[argc] = NULL;
	return argc;
}

static void allocator_rerun_test_only(spank_context_t ctx)
{
	static char *argv[ALLOCATOR_ARGS_MAX + 2];
	const char *prog = program_invocation_short_name;
	int argc;

	if (strcmp(prog, "sbatch") != 0 && strcmp(prog, "srun") != 0)
		return;   /* salloc has no --test-only */
	if (getenv(AUTOSIZE_ENV_EXPLAIN_RERUN))
		return;
	argc = autosize_spank_argv(argv, ALLOCATOR_ARGS_MAX, "--test-only");
	if (argc < 0)
		return;
	if (ctx == S_CTX_ALLOCATOR &&
	    !autosize_spank_script_in_args(argv, argc))
		return;
	if (setenv(AUTOSIZE_ENV_EXPLAIN_RERUN, "1", 1) != 0)
		return;
	fflush(stdout);
	fflush(stderr);
	autosize_spank_execv("/proc/self/exe", argv);
	unsetenv(AUTOSIZE_ENV_EXPLAIN_RERUN);  /* exec failed */
}

/* End an explain on the submit host: the plan was printed, nothing is
 * submitted, status 0 (1 when the input itself was bad). */
static int allocator_explain_done(int status)
{
	slurm_info("autosize: --autosize=explain: nothing submitted");
	fflush(stdout);
	fflush(stderr);
	autosize_spank_exit(status);
	return -1;  /* only when the exit hook returns (tests) */
}

int autosize_spank_allocator_post_opt(spank_t sp, spank_context_t ctx)
{
	const autosize_spank_config *cfg = autosize_spank_config_get();
	autosize_policy *policy = NULL;
	autosize_error err;
	autosize_err rc;
	int explain, rv = 0;

	if (!autosize_spank_options_given())
		return 0;
	autosize_spank_options_request(&context.req);
	if (context.req.job_mode == AUTOSIZE_JOB_OFF)
		return 0;
	explain = context.req.job_mode == AUTOSIZE_JOB_EXPLAIN;
	if (cfg->disabled) {
		if (explain) {
			slurm_info("autosize: the autosize plugin is disabled "
				   "on this cluster: nothing to explain");
			return allocator_explain_done(0);
		}
		return 0;
	}
	/* srun inside a job: the step is laid out on the compute nodes
	 * (spank_remote.c); nothing is submitted here. */
	if (ctx == S_CTX_LOCAL && getenv("SLURM_JOB_ID")) {
		if (explain) {
			slurm_info("autosize: --autosize=explain applies when "
				   "submitting a job, not to srun inside one");
			return allocator_explain_done(0);
		}
		return 0;
	}
	/* The --test-only re-run of an explain: slurmctld shows the plan. */
	if (explain && getenv(AUTOSIZE_ENV_EXPLAIN_RERUN) &&
	    allocator_has_test_only())
		spank_job_control_setenv(sp, AUTOSIZE_ENV_EXPLAIN, "test-only",
					 1);
	autosize_error_clear(&err);
	context.req.model_local = 1;   /* the user's files, read as the user */
	rc = autosize_request_finish(&context.req, &err);
	if (rc != AUTOSIZE_OK) {
		/*
		 * Only this host reads a folder, a config.json or the hub
		 * cache: say what is wrong with them here. Other bad input is refused by slurmctld, once,
		 * with the same words (an optional plugin cannot stop sbatch
		 * from here).
		 */
		if (explain) {
			slurm_error("autosize: %s", err.msg);
			return allocator_explain_done(1);
		}
		if (autosize_err_classify(rc) == AUTOSIZE_CLASS_INTERNAL ||
		    (context.req.model_spec[0] &&
		     !autosize_model_is_preset(context.req.model_spec)))
			slurm_error("autosize: %s", err.msg);
		return 0;
	}
	allocator_send_model(sp);
	if (!explain && ctx == S_CTX_ALLOCATOR)
		autosize_spank_chain_post_opt(sp, &context.req);
	if (!explain || getenv(AUTOSIZE_ENV_EXPLAIN_RERUN))
		return 0;   /* slurmctld plans the job as it will run */
	policy = autosize_spank_policy_load(cfg->policy, &err);
	if (policy && autosize_policy_is_off(policy)) {
		slurm_info("autosize: autosize is off on this cluster (policy "
			   "mode: off): jobs are not sized");
		rv = allocator_explain_done(0);
		goto out;
	}
	allocator_rerun_test_only(ctx);
	/* No re-run (salloc, a script on standard input): the plan here,
	 * for the partition in the environment or the policy's default. */
	if (!policy || autosize_policy_partition_count(policy) == 0) {
		slurm_info("autosize: no site policy with partitions (%.200s): "
			   "nothing to explain", policy ? cfg->policy
							: err.msg);
		rv = allocator_explain_done(0);
		goto out;
	}
	allocator_partition(policy, context.req.partition,
			    sizeof(context.req.partition));
	/* salloc and srun hold one allocation: never a chain */
	context.req.interactive = strcmp(program_invocation_short_name,
					 "sbatch") != 0;
	rc = autosize_plan_compute(policy, &context.req, &context.plan, &err);
	if (rc == AUTOSIZE_OK || rc == AUTOSIZE_ENOFIT) {
		slurm_info("autosize: the sizes given on the command line "
			   "(-N, -p, -t, GPUs) are not seen here: "
			   "`sbatch --test-only` shows slurmctld's plan");
		allocator_show(rc);
		rv = allocator_explain_done(0);
	} else {
		slurm_error("autosize: %s", err.msg);
		rv = allocator_explain_done(1);
	}
out:
	autosize_policy_destroy(policy);
	return rv;
}
