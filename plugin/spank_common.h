/*
 * autosize SPANK plugin: what the per-context files share. Internal to
 * spank_autosize.so (plugin/spank.map exports none of it).
 */
#ifndef AUTOSIZE_SPANK_COMMON_H
#define AUTOSIZE_SPANK_COMMON_H

#include <sys/types.h>
#include <slurm/spank.h>
#include "autosize.h"

/* make install's $(sysconfdir)/autosize/autosize.yaml (the Makefile
 * passes it), else Debian's. */
#ifdef AUTOSIZE_POLICY_PATH
#define AUTOSIZE_SPANK_DEFAULT_POLICY AUTOSIZE_POLICY_PATH
#else
#define AUTOSIZE_SPANK_DEFAULT_POLICY "/etc/slurm/autosize/autosize.yaml"
#endif
#define AUTOSIZE_SPANK_DEFAULT_TMPDIR "/tmp"
/* The node's spool of measured figures (autosize/spool.h): make
 * install's $(spooldir), else Debian's layout; and how long after its
 * last try an entry is tried again by a job epilog. */
#ifdef AUTOSIZE_SPOOL_DIR
#define AUTOSIZE_SPANK_DEFAULT_SPOOL AUTOSIZE_SPOOL_DIR
#else
#define AUTOSIZE_SPANK_DEFAULT_SPOOL "/var/spool/slurm-autosize"
#endif
#define AUTOSIZE_SPANK_DEFAULT_SPOOL_RETRY_S 60
/* Slurm's step id of a batch step (slurm.h, 22.05). */
#define AUTOSIZE_SPANK_STEP_BATCH 0xfffffffbU
/* Where slurm.conf is when SLURM_CONF is unset (Debian's packages). */
#define AUTOSIZE_SPANK_DEFAULT_SLURM_CONF "/etc/slurm/slurm.conf"

/* Plugstack arguments (plugstack.conf: policy= tmpdir= hwloc_xml=
 * spool= spool_retry= disabled=). */
typedef struct autosize_spank_config {
	char policy[AUTOSIZE_PATH_MAX];    /* site policy file */
	char tmpdir[AUTOSIZE_PATH_MAX];    /* node-local; job folders in it */
	char hwloc_xml[AUTOSIZE_PATH_MAX]; /* "" = the live machine */
	char spool[AUTOSIZE_PATH_MAX];     /* node-local, root's alone */
	int spool_retry_s;                 /* an entry's next try, after */
	int disabled;                      /* 1: options accepted, ignored */
} autosize_spank_config;

/* spank_common.c: parse the plugstack arguments (strict key=value; an
 * unknown key is an error naming it). 0, or -1 (logged) with the plugin
 * disabled (options still accepted, nothing done). */
int autosize_spank_config_parse(int ac, char **av);
/* The configuration parsed in slurm_spank_init (defaults before). */
const autosize_spank_config *autosize_spank_config_get(void);
void autosize_spank_config_reset(void);

/* spank_options.c: the user options, kept from their callbacks. */
int autosize_spank_options_register(spank_t sp);
/* 1 when any autosize option was given. */
int autosize_spank_options_given(void);
/* 1 when a value was refused in the remote context (ignored there). */
int autosize_spank_options_bad(void);
/* Copy of the request built from the option values (not finished). */
void autosize_spank_options_request(autosize_request *r);
void autosize_spank_options_reset(void);

/* spank_common.c: one line on the job's stderr (slurmstepd) or the
 * user's terminal, "autosize: warning: ...", not labelled "error:". */
void autosize_spank_warn(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/*
 * spank_common.c: load the policy file; a missing file gives the
 * built-in defaults. NULL with *e filled when the file is unreadable or
 * broken. The caller owns the result.
 */
autosize_policy *autosize_spank_policy_load(const char *path,
					    autosize_error *e);

/* spank_allocator.c: sbatch/salloc, and srun outside a job. */
int autosize_spank_allocator_post_opt(spank_t sp, spank_context_t ctx);
void autosize_spank_allocator_exit(void);

/* How --autosize=explain ends sbatch/salloc/srun on the submit host:
 * exit(0) after printing the plan, or re-running the same command line
 * with --test-only so that slurmctld shows the plan for the job as it
 * would be queued. Variables so that the unit tests can watch them. */
extern void (*autosize_spank_exit)(int status);
extern int (*autosize_spank_execv)(const char *path, char *const argv[]);
/* Where the allocator reads its own command line (tests point it at a
 * file). */
extern const char *autosize_spank_cmdline_path;
/* Set in the environment of the --test-only re-run (no second re-run). */
#define AUTOSIZE_ENV_EXPLAIN_RERUN "AUTOSIZE_EXPLAIN_RERUN"
/* Sent to slurmctld by that re-run: explain is a test-only request. */
#define AUTOSIZE_ENV_EXPLAIN "AUTOSIZE_EXPLAIN"

/* spank_allocator.c: this process's command line as argv (max slots,
 * NULL-ended; extra, when not NULL, goes right after argv[0]), the
 * strings in a buffer of this file's that the next call overwrites.
 * argc, or -1 when it cannot be read or has more than max - 2 words. */
int autosize_spank_argv(char **argv, int max, const char *extra);
/* 1 when sbatch/srun got the script in its arguments (a readable file
 * or --wrap), so that the command line can run again; 0 when the script
 * came on standard input (already read). */
int autosize_spank_script_in_args(char *const argv[], int argc);

/* spank_chain.c: sbatch queues a run longer than one time limit as
 * chained jobs (doc/users.md "Long runs: chained jobs"). post_opt marks
 * the submission (and may run sbatch again to give it the warning
 * signal: it returns only when it did not); exit queues the followers
 * once slurmctld planned the first. r is the finished request. */
void autosize_spank_chain_post_opt(spank_t sp, const autosize_request *r);
void autosize_spank_chain_exit(void);

/* spank_remote.c: slurmstepd. user_init never fails the step (the node
 * would be drained); a GPU mismatch under gpu_check: enforce makes
 * task_init fail, so each task exits 1 before it starts. */
int autosize_spank_remote_user_init(spank_t sp);
int autosize_spank_remote_task_init(spank_t sp);
void autosize_spank_remote_exit(void);

/*
 * spank_jobdir.c: the job's private folder on this node,
 * TMPDIR/autosize-JOBID-XXXXXX (mkdtemp, mode 0700, owned by the job's
 * user), made on first use or found where an earlier step of the job on
 * this node made it. For files handed to the job (the DeepSpeed JSON; an
 * AUTOSIZE_REPORT later). NULL, warned on the job's stderr, when there is
 * none: never a reason to fail the step. The string lives until
 * autosize_spank_job_dir_exit (the step's end, after the step removed its
 * own files). The folder lives as long as the job: every step of the job
 * on this node (a preparatory srun, the training step, the batch shell
 * after them) shares it, and the job's epilog removes it with all that
 * is in it (autosize_spank_job_dir_remove).
 */
const char *autosize_spank_job_dir(spank_t sp);
void autosize_spank_job_dir_exit(void);
/* The job's end on this node (job epilog, as root): remove the job's
 * folders here (autosize-JOBID-*, private to the job's user; one level of
 * content, never through a link). Warns nothing, fails nothing. */
void autosize_spank_job_dir_remove(spank_t sp);
/* Remove name from the job's folder when it is still the regular file
 * dev/ino: through the folder opened without following a link and
 * checked to be the very one made or found (slurm_spank_exit runs as
 * root; the job's user may have swapped the folder's name for a link). */
void autosize_spank_job_dir_unlink(const char *name, dev_t dev, ino_t ino);
/* open(2) of name in the job's folder, the same way: never through a
 * link nor onto another file system (a mount of the job's user), and
 * only a file on the folder's own device (one O_CREAT makes is mode
 * 0600); -1 when the folder is not that very one any more, or the file
 * is elsewhere. */
int autosize_spank_job_dir_openat(const char *name, int flags);

/* spank_report.c: the autosize command into buf: the one built beside
 * this plugin (a build folder: the same build, the same Slurm), else the
 * installed one (make's $(bindir)). 0, or -1. */
int autosize_spank_cli(char *buf, size_t len);

/* spank_progress.c: a chained job's follower, at its start: how much of
 * the run the job before it trained (its record's m_done, read with
 * `autosize show PREV --record` as the job's user, at most a few
 * seconds). 1 with *done the run's tokens trained, 0 when not known (why
 * says so in a few words). */
int autosize_spank_chain_progress(const char *chain, int index,
				  unsigned long prev, double *done,
				  char *why, size_t len);

/* spank_progress.c: a chained job's follower plans its part from the
 * run's progress (p->chain_done_before): the batch step reads it (and
 * says what it found, or that it plans as the chain was, once on the
 * job's stderr) and carries it into its own report; a step takes the
 * batch step's, done_env (AUTOSIZE_TRAIN_TOKENS_DONE it inherited; < 0
 * none). rec: the job's plan record. */
void autosize_spank_chain_start(spank_t sp, autosize_plan *p,
				const autosize_record *rec, int batch,
				double done_env);

/* spank_report.c: AUTOSIZE_REPORT for every task of an autosize job;
 * at the batch task's exit its measured figures into the node's spool
 * and on towards the job's AdminComment record, a few seconds at most;
 * in each job epilog, the spool's entries due. Never fail a step or an
 * epilog. */
void autosize_spank_report_user_init(spank_t sp);
int autosize_spank_report_task_exit(spank_t sp);
void autosize_spank_report_epilog(void);

/* spank_plugstack.c: how plugstack.conf loads this plugin. */
#define AUTOSIZE_PLUGSTACK_UNKNOWN (-1)
#define AUTOSIZE_PLUGSTACK_OPTIONAL 0
#define AUTOSIZE_PLUGSTACK_REQUIRED 1
/* The line of the plugstack file that slurm_conf names (PlugStackConfig=,
 * else plugstack.conf beside it; includes followed) whose plugin has the
 * file name of plugin: AUTOSIZE_PLUGSTACK_*, and "FILE:LINE" in where
 * (len > 0) when found. */
int autosize_spank_plugstack_mode(const char *slurm_conf, const char *plugin,
				  char *where, size_t len);
/* The same for this plugin's own file, in the slurm.conf of $SLURM_CONF
 * (slurmd exports it to slurmstepd) or the default. */
int autosize_spank_plugstack_self(char *where, size_t len);
/* slurmd's start: log when the policy says gpu_check: enforce and the
 * plugin is optional (its refusals would be ignored). */
void autosize_spank_plugstack_check(void);

#endif
