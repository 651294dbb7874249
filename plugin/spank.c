/*
 * autosize SPANK plugin: entry points. Each hands off to the file of the
 * context it runs in: spank_allocator.c (sbatch, salloc, srun outside a
 * job), spank_remote.c (slurmstepd on the compute nodes), the plugstack
 * check at slurmd's start (spank_plugstack.c).
 *
 * plugstack.conf: optional|required spank_autosize.so [policy=PATH]
 *                 [tmpdir=PATH] [hwloc_xml=PATH] [disabled=0|1]
 *
 * Only the allocator contexts ever return -1 (sbatch stops, nothing
 * queued). In slurmd and slurmstepd a failure of a required plugin fails
 * the launch and can drain the node: there the plugin warns instead, and
 * refuses a step only from task_init (spank_remote.c).
 */
#include "spank_common.h"

SPANK_PLUGIN(autosize, 1)

static int spank_options_matter(spank_context_t ctx)
{
	return ctx == S_CTX_ALLOCATOR || ctx == S_CTX_LOCAL ||
	       ctx == S_CTX_REMOTE;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();
	int rc;

	/* A bad plugstack line disables the plugin (logged); only sbatch,
	 * salloc and srun are stopped by it. */
	if (autosize_spank_config_parse(ac, av) != 0 &&
	    (ctx == S_CTX_ALLOCATOR || ctx == S_CTX_LOCAL))
		return -1;
	if (ctx == S_CTX_SLURMD)
		autosize_spank_plugstack_check();
	/* With disabled=1 the options are still accepted, so job scripts
	 * that use them keep working. */
	if (!spank_options_matter(ctx))
		return 0;
	rc = autosize_spank_options_register(sp);
	/* Logged; in slurmstepd a failed init of a required plugin fails
	 * every step's launch and drains the node: there the options are
	 * simply not seen (the job goes without a layout). */
	return ctx == S_CTX_REMOTE ? 0 : rc;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();

	if (ctx == S_CTX_ALLOCATOR || ctx == S_CTX_LOCAL)
		return autosize_spank_allocator_post_opt(sp, ctx);
	return 0;
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	int rc;

	if (spank_context() != S_CTX_REMOTE)
		return 0;
	rc = autosize_spank_remote_user_init(sp);
	autosize_spank_report_user_init(sp);
	return rc;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	if (spank_context() != S_CTX_REMOTE)
		return 0;
	return autosize_spank_remote_task_init(sp);
}

/* The batch script's end: what the job measured into its accounting
 * record (spank_report.c). */
int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
	if (spank_context() != S_CTX_REMOTE)
		return 0;
	return autosize_spank_report_task_exit(sp);
}

/* The job's end on each of its nodes (slurmd's epilog, as root): its
 * folder goes (spank_jobdir.c), and the node's spool of measured
 * figures gets a try (spank_report.c, a few seconds at most). Never
 * fails: a failing epilog drains the node. */
int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
	/* The plugstack arguments (tmpdir=, spool=) as this process has
	 * them: slurm_spank_init is not called before a job script's
	 * callback. */
	if (spank_context() == S_CTX_JOB_SCRIPT &&
	    autosize_spank_config_parse(ac, av) == 0) {
		autosize_spank_job_dir_remove(sp);
		autosize_spank_report_epilog();
	}
	return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	autosize_spank_chain_exit();
	autosize_spank_allocator_exit();
	autosize_spank_remote_exit();
	autosize_spank_options_reset();
	autosize_spank_config_reset();
	return 0;
}
