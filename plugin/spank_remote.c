/*
 * autosize SPANK plugin, remote context (slurmstepd, user_init: runs as
 * the job's user): check the node's GPUs, lay the training out on the
 * allocation the job really got, and hand the layout to every task as
 * AUTOSIZE_* variables and a DeepSpeed JSON file.
 *
 * Nothing here may drain a node: a failing user_init makes slurmstepd
 * report a launch failure, and slurmctld drains the node of a batch step
 * that fails that way ("batch job complete failure", seen on Slurm
 * 22.05). So user_init always returns 0. The one refusal, a real GPU
 * mismatch under gpu_check: enforce, happens in task_init, in each task's
 * process after the fork: its failure makes that task exit 1 (Slurm's
 * exec_task) and the step ends as failed, the node stays up. Slurm obeys
 * it only for a `required` plugstack line. Everything else (no GPUs
 * asked for, no layout, a file that cannot be written) is a warning on
 * the job's stderr.
 *
 * The allocation: SLURM_STEP_NUM_NODES (the batch step: SLURM_JOB_NUM_NODES
 * or SLURM_NNODES) x
 * SLURM_GPUS_ON_NODE from the job environment (S_JOB_NNODES reads 0 in the
 * batch step), on SLURM_JOB_PARTITION when the policy lists it, else on
 * the GPU model hwloc identified, else on the policy's default partition.
 *
 * Exported to every task: AUTOSIZE_TP, _PP, _DP, _CP, _EP, _VP (TP x PP x
 * CP x DP = the step's GPUs), _FRAMEWORK, _ZERO_STAGE, _RECOMPUTE,
 * _MICRO_BATCH, _GRAD_ACCUM, _GLOBAL_BATCH, _PLAN (one line),
 * _TORCHRUN_ARGS, _TRAIN_STEPS (with a token count), and _MEGATRON_ARGS,
 * _TORCHTITAN_ARGS and _TORCHTITAN_V1_ARGS or _DEEPSPEED_CONFIG as the
 * plan's framework runs, for a layout the fine-tuning stacks run
 * _ACCELERATE_ARGS (and _ACCELERATE_CONFIG for DeepSpeed-Ulysses),
 * _HF_TRAINER_ARGS, _AXOLOTL_ARGS, _TUNE_RUN_ARGS, _TORCHTUNE_RECIPE and
 * _TORCHTUNE_ARGS, and the variables the launchers' start-up checks
 * read (CUDA_DEVICE_MAX_CONNECTIONS for Megatron-LM,
 * ACCELERATE_FP8_BACKEND): autosize_launch_build, as `autosize plan
 * --json` shows them (doc/launch.md).
 *  - The layout is for the STEP: SLURM_STEP_NUM_NODES nodes (srun -N1 in
 *    a 3-node job is one node), the whole job in the batch step.
 *  - torchrun's rendezvous host is the first node of the step
 *    (SLURM_STEP_NODELIST; the job's in the batch step), the same string
 *    on every node of the step; the port comes from the job and step ids
 *    (autosize_launch_rdzv_port), --rdzv_id is JOB-STEP. That name must
 *    resolve on the nodes (Slurm NodeName = host name, as on most
 *    clusters). One node: localhost.
 *  - The DeepSpeed JSON is deepspeed-STEP.json (STEP: "batch" or the step
 *    number), accelerate's config for DeepSpeed-Ulysses
 *    accelerate-STEP.yaml, in the job's private folder (spank_jobdir.c),
 *    mode 0600, created by the job's user with O_CREAT|O_EXCL|O_NOFOLLOW
 *    and removed when the step ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "gpucheck.h"
#include "spank_common.h"

#define REMOTE_VALUE_MAX 4096
#define REMOTE_NODELIST_MAX 65536
/* Slurm's other reserved step ids (slurm.h, 22.05). */
#define REMOTE_STEP_EXTERN 0xfffffffcU
#define REMOTE_STEP_INTERACTIVE 0xfffffffaU

/* A file of the launch in the job's private folder. */
typedef struct remote_file {
	char path[AUTOSIZE_PATH_MAX]; /* "" when the plan has none */
	int written;                  /* path is a file we wrote */
	dev_t dev;
	ino_t ino;
} remote_file;

/* The DeepSpeed JSON and accelerate's config for DeepSpeed-Ulysses. */
enum { REMOTE_DEEPSPEED, REMOTE_ACCELERATE, REMOTE_FILES };

static struct plugin_context {
	autosize_request req;
	autosize_plan plan;
	autosize_gpucheck_scan scan;
	int have_scan;
	int refuse;                  /* task_init fails: GPU mismatch */
	char value[REMOTE_VALUE_MAX];
	autosize_launch launch;
	char nodelist[REMOTE_NODELIST_MAX];
	remote_file files[REMOTE_FILES];
	int have_record;             /* record: slurmctld's plan */
	autosize_record record;
	double done_env;             /* AUTOSIZE_TRAIN_TOKENS_DONE the step
				      * inherited from the batch step; -1 */
} context;

/* At the end of the step (as root), remove the files this step wrote
 * (only when each is still that very file, in that very folder:
 * spank_jobdir.c), then the job's folder when nothing else is in it (or
 * the job ends). */
void autosize_spank_remote_exit(void)
{
	int i;

	for (i = 0; i < REMOTE_FILES; i++) {
		const remote_file *f = &context.files[i];
		const char *name = strrchr(f->path, '/');

		if (f->written && name)
			autosize_spank_job_dir_unlink(name + 1, f->dev, f->ino);
	}
	autosize_spank_job_dir_exit();
	memset(&context, 0, sizeof(context));
}

/* A job environment variable into buf; 0, or -1 when unset or too long. */
static int remote_getenv(spank_t sp, const char *name, char *buf, int len)
{
	if (spank_getenv(sp, name, buf, len) != ESPANK_SUCCESS) {
		buf[0] = '\0';
		return -1;
	}
	return buf[0] ? 0 : -1;
}

/* A positive count from the job environment, or -1. */
static int remote_getint(spank_t sp, const char *name, long max)
{
	char buf[64];
	long v;

	if (remote_getenv(sp, name, buf, sizeof(buf)) != 0 ||
	    autosize_parse_int(buf, name, 1, max, &v, NULL) != AUTOSIZE_OK)
		return -1;
	return (int)v;
}

static int remote_setenv(spank_t sp, const char *name, const char *value)
{
	int rc = spank_setenv(sp, name, value, 1);

	if (rc != ESPANK_SUCCESS) {
		autosize_spank_warn("cannot set %s: %s", name,
				    spank_strerror(rc));
		return -1;
	}
	return 0;
}

static int remote_setint(spank_t sp, const char *name, int value)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d", value);
	return remote_setenv(sp, name, buf);
}

/* The model: AUTOSIZE_MODEL from the submit host when it read a
 * config.json, else the options (preset or parameter count). */
static int remote_model(spank_t sp)
{
	autosize_error err;
	autosize_model m;

	if (remote_getenv(sp, "SLURM_SPANK_" AUTOSIZE_ENV_MODEL, context.value,
			  sizeof(context.value)) == 0 ||
	    remote_getenv(sp, AUTOSIZE_ENV_MODEL, context.value,
			  sizeof(context.value)) == 0) {
		if (autosize_model_decode(context.value, &m, &err)) {
			autosize_spank_warn("%s", err.msg);
			return -1;
		}
		context.req.model = m;
		context.req.model_spec[0] = '\0';
		/* --train-batch=NUMtok and the default length within the
		 * model's positions: as on the submit host and slurmctld */
		if (autosize_request_finish(&context.req, &err)) {
			autosize_spank_warn("%s", err.msg);
			return -1;
		}
		return 0;
	}
	if (autosize_request_finish(&context.req, &err)) {
		autosize_spank_warn("%s", err.msg);
		return -1;
	}
	return 0;
}

/* "batch", "extern", "interactive" or the step number. */
static void remote_step_name(uint32_t step, char *buf, size_t len)
{
	if (step == AUTOSIZE_SPANK_STEP_BATCH)
		snprintf(buf, len, "batch");
	else if (step == REMOTE_STEP_EXTERN)
		snprintf(buf, len, "extern");
	else if (step == REMOTE_STEP_INTERACTIVE)
		snprintf(buf, len, "interactive");
	else
		snprintf(buf, len, "%u", step);
}

/*
 * Write text to f's path, readable by the job's user only. A new file is
 * created with O_EXCL|O_NOFOLLOW (never through a link another user
 * planted). An existing file is reused only when it is a regular file
 * of ours with one link (the same step started again); anything else is
 * refused.
 */
static int remote_write_file(spank_t sp, remote_file *f, const char *text)
{
	const char *path = f->path;
	size_t n = strlen(text), done = 0;
	struct stat st;
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int fd, ours = 0, rv = -1;

	/* user_init runs as the user; should it ever run as root, the file
	 * is still handed to the job's user. */
	if (uid == 0) {
		if (spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
		    spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS) {
			autosize_spank_warn("cannot tell the job's user");
			return -1;
		}
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		autosize_spank_warn("cannot write %.200s: %s", path,
				    strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    (st.st_uid != geteuid() && st.st_uid != uid)) {
		autosize_spank_warn("%.200s exists and is not a file of this "
				    "job's user: not using it", path);
		goto fail;
	}
	ours = 1;
	if ((geteuid() == 0 && fchown(fd, uid, gid) != 0) ||
	    fchmod(fd, 0600) != 0 || ftruncate(fd, 0) != 0) {
		autosize_spank_warn("cannot set up %.200s: %s", path,
				    strerror(errno));
		goto fail;
	}
	while (done < n) {
		ssize_t w = write(fd, text + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			autosize_spank_warn("cannot write %.200s: %s", path,
					    w < 0 ? strerror(errno)
					    : "short write");
			goto fail;
		}
		done += (size_t)w;
	}
	rv = 0;
fail:
	if (close(fd) != 0 && rv == 0) {
		autosize_spank_warn("cannot write %.200s: %s", path,
				    strerror(errno));
		rv = -1;
	}
	if (rv == 0) {
		f->written = 1;
		f->dev = st.st_dev;
		f->ino = st.st_ino;
	} else if (ours) {
		/* No half-written configuration left behind. */
		(void)unlink(path);
	}
	return rv;
}

/* 1 for the batch step. */
static int remote_batch_step(spank_t sp)
{
	uint32_t step = 0;

	return spank_get_item(sp, S_JOB_STEPID, &step) == ESPANK_SUCCESS &&
	       step == AUTOSIZE_SPANK_STEP_BATCH;
}

/* 1 for the batch step and the interactive step: they plan for the
 * job's nodes (the sruns they start span them), not their own one. */
static int remote_whole_job(spank_t sp)
{
	uint32_t step = 0;

	if (spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS)
		return 0;
	return step == AUTOSIZE_SPANK_STEP_BATCH ||
	       step == REMOTE_STEP_INTERACTIVE;
}

/* The path of one of the launch's files, or NULL when it has none. */
static const char *remote_file_path(int which)
{
	return context.files[which].path[0] ? context.files[which].path
					     : NULL;
}

/* Where the step runs, for torchrun: its first node (more than one node),
 * the port and run id from the job and step ids. */
static int remote_where_step(spank_t sp, uint32_t job_id, uint32_t step_id,
			     autosize_launch_where *w, char *host,
			     size_t host_len, char *run_id, size_t id_len)
{
	uint32_t node_id = 0;
	char step[16];

	remote_step_name(step_id, step, sizeof(step));
	snprintf(run_id, id_len, "%u-%s", job_id, step);
	w->run_id = run_id;
	w->port = autosize_launch_rdzv_port(job_id, step_id);
	w->host = NULL;
	w->node_rank = 0;
	w->deepspeed_config = remote_file_path(REMOTE_DEEPSPEED);
	w->accelerate_config = remote_file_path(REMOTE_ACCELERATE);
	if (context.plan.nodes <= 1)
		return 0;
	if ((remote_whole_job(sp) ||
	     remote_getenv(sp, "SLURM_STEP_NODELIST", context.nodelist,
			   sizeof(context.nodelist)) != 0) &&
	    remote_getenv(sp, "SLURM_JOB_NODELIST", context.nodelist,
			  sizeof(context.nodelist)) != 0 &&
	    remote_getenv(sp, "SLURM_NODELIST", context.nodelist,
			  sizeof(context.nodelist)) != 0) {
		autosize_spank_warn("SLURM_STEP_NODELIST unset or too long: "
				    "AUTOSIZE_TORCHRUN_ARGS not set");
		return -1;
	}
	if (autosize_launch_first_host(context.nodelist, host,
				       host_len) < 0) {
		autosize_spank_warn("cannot read the first node of '%.100s': "
				    "AUTOSIZE_TORCHRUN_ARGS not set",
				    context.nodelist);
		return -1;
	}
	if (spank_get_item(sp, S_JOB_NODEID, &node_id) != ESPANK_SUCCESS) {
		autosize_spank_warn("cannot read this node's index in the "
				    "step: AUTOSIZE_TORCHRUN_ARGS not set");
		return -1;
	}
	w->node_rank = (int)node_id;
	w->host = host;
	return 0;
}

/* Where the files of a DeepSpeed plan go, in the job's private folder:
 * the JSON (deepspeed-STEP.json) and accelerate's config for
 * DeepSpeed-Ulysses (accelerate-STEP.yaml), written when the plan has
 * them; "" when there is no folder (warned). */
static void remote_file_paths(spank_t sp, uint32_t step_id)
{
	static const char *const names[REMOTE_FILES][2] = {
		{"deepspeed-", ".json"}, {"accelerate-", ".yaml"},
	};
	const char *dir;
	char step[16];
	int i, n;

	for (i = 0; i < REMOTE_FILES; i++)
		context.files[i].path[0] = '\0';
	if (context.plan.framework != AUTOSIZE_FRAMEWORK_DEEPSPEED)
		return;
	dir = autosize_spank_job_dir(sp);
	if (!dir) {
		autosize_spank_warn("no private job folder: "
				    "AUTOSIZE_DEEPSPEED_CONFIG not set");
		return;
	}
	remote_step_name(step_id, step, sizeof(step));
	for (i = 0; i < REMOTE_FILES; i++) {
		n = snprintf(context.files[i].path,
			     sizeof(context.files[i].path), "%s/%s%s%s", dir,
			     names[i][0], step, names[i][1]);
		if (n < 0 || (size_t)n >= sizeof(context.files[i].path)) {
			autosize_spank_warn("tmpdir path too long: "
					    "AUTOSIZE_DEEPSPEED_CONFIG not set");
			context.files[0].path[0] = '\0';
			context.files[1].path[0] = '\0';
			return;
		}
	}
}

/* One of the launch's files in the job's folder, and its variable. */
static int remote_file_out(spank_t sp, int which, const char *var,
			   const char *text)
{
	remote_file *f = &context.files[which];

	if (!f->path[0] || remote_write_file(sp, f, text) != 0)
		return -1;
	return remote_setenv(sp, var, f->path);
}

/* torchrun, Megatron, DeepSpeed and the fine-tuning stacks: what
 * autosize_launch_build makes of the plan for this step. */
static int remote_launchers(spank_t sp, uint32_t job_id, uint32_t step_id)
{
	/* the values live in context.launch, filled below */
	const struct {
		const char *name, *value;
	} lines[] = {
		{"AUTOSIZE_TORCHRUN_ARGS", context.launch.torchrun},
		{"AUTOSIZE_MEGATRON_ARGS", context.launch.megatron},
		{"AUTOSIZE_TORCHTITAN_ARGS", context.launch.torchtitan},
		{"AUTOSIZE_TORCHTITAN_V1_ARGS", context.launch.torchtitan_v1},
		{"AUTOSIZE_ACCELERATE_ARGS", context.launch.accelerate},
		{"AUTOSIZE_HF_TRAINER_ARGS", context.launch.hf_trainer},
		{"AUTOSIZE_AXOLOTL_ARGS", context.launch.axolotl},
		{"AUTOSIZE_TUNE_RUN_ARGS", context.launch.tune_run},
		{"AUTOSIZE_TORCHTUNE_RECIPE", context.launch.torchtune_recipe},
		{"AUTOSIZE_TORCHTUNE_ARGS", context.launch.torchtune},
	};
	char host[AUTOSIZE_LAUNCH_HOST_MAX + 1], run_id[48], steps[24];
	autosize_launch_where w;
	size_t i;
	int rv = 0;

	remote_file_paths(sp, step_id);
	if (remote_where_step(sp, job_id, step_id, &w, host, sizeof(host),
			      run_id, sizeof(run_id)) != 0)
		return -1;
	if (autosize_launch_build(&context.req, &context.plan, &w,
				  &context.launch) != 0) {
		autosize_spank_warn("cannot format the launcher arguments");
		return -1;
	}
	/* a launcher the plan gives nothing is left unset */
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (lines[i].value[0])
			rv |= remote_setenv(sp, lines[i].name,
					    lines[i].value);
	if (context.launch.steps > 0) {
		snprintf(steps, sizeof(steps), "%ld", context.launch.steps);
		rv |= remote_setenv(sp, "AUTOSIZE_TRAIN_STEPS", steps);
	}
	/* what the launchers' start-up checks read, over the job's own
	 * value (a Megatron script's habitual CUDA_DEVICE_MAX_CONNECTIONS=1
	 * would stop a Megatron-FSDP plan) */
	for (i = 0; i < (size_t)context.launch.n_env; i++)
		rv |= remote_setenv(sp, context.launch.env[i].name,
				    context.launch.env[i].value);
	if (context.launch.deepspeed[0])
		rv |= remote_file_out(sp, REMOTE_DEEPSPEED,
				      "AUTOSIZE_DEEPSPEED_CONFIG",
				      context.launch.deepspeed);
	if (context.launch.accelerate_config[0])
		rv |= remote_file_out(sp, REMOTE_ACCELERATE,
				      "AUTOSIZE_ACCELERATE_CONFIG",
				      context.launch.accelerate_config);
	if (context.launch.task_note[0])
		autosize_spank_warn("%s", context.launch.task_note);
	return rv ? -1 : 0;
}

/* The variables a step exports. */
static const char *const remote_vars[] = {
	"AUTOSIZE_TP", "AUTOSIZE_PP", "AUTOSIZE_DP", "AUTOSIZE_CP",
	"AUTOSIZE_EP", "AUTOSIZE_ETP", "AUTOSIZE_VP", "AUTOSIZE_FRAMEWORK",
	"AUTOSIZE_MOE_DISPATCHER",
	"AUTOSIZE_TORCHTITAN_ARGS", "AUTOSIZE_ZERO_STAGE",
	"AUTOSIZE_RECOMPUTE", "AUTOSIZE_RECOMPUTE_LAYERS",
	"AUTOSIZE_MICRO_BATCH", "AUTOSIZE_GRAD_ACCUM",
	"AUTOSIZE_GLOBAL_BATCH", "AUTOSIZE_PLAN", "AUTOSIZE_TORCHRUN_ARGS",
	"AUTOSIZE_MEGATRON_ARGS", "AUTOSIZE_DEEPSPEED_CONFIG",
	"AUTOSIZE_ACCELERATE_ARGS", "AUTOSIZE_HF_TRAINER_ARGS",
	"AUTOSIZE_TORCHTUNE_ARGS", "AUTOSIZE_TORCHTITAN_V1_ARGS",
	"AUTOSIZE_AXOLOTL_ARGS", "AUTOSIZE_TUNE_RUN_ARGS",
	"AUTOSIZE_TORCHTUNE_RECIPE", "AUTOSIZE_TRAIN_STEPS",
	"AUTOSIZE_ACCELERATE_CONFIG", "AUTOSIZE_CHAIN_ID",
	"AUTOSIZE_CHAIN_INDEX", "AUTOSIZE_CHAIN_COUNT",
	"AUTOSIZE_TRAIN_TOKENS", "AUTOSIZE_TRAIN_TOKENS_DONE",
	"AUTOSIZE_JOB_TRAIN_TOKENS", "AUTOSIZE_JOB_TRAIN_STEPS",
	"AUTOSIZE_SIGNAL", "AUTOSIZE_SIGNAL_BEFORE_S", NULL,
};

/* A step inherits the batch step's values through srun's environment:
 * unset them first, so that a step this plugin cannot lay out (srun -N1
 * of a model that needs more nodes) runs without them rather than with
 * another step's torchrun arguments. */
static void remote_clear(spank_t sp)
{
	int i;

	for (i = 0; remote_vars[i]; i++)
		(void)spank_unsetenv(sp, remote_vars[i]);
}

/* Where the job stands in its run (doc/launch.md "Chained jobs"): its
 * place in the chain, the run's tokens and steps, this job's part, and
 * the warning signal autosize gave it. */
static int remote_chain(spank_t sp)
{
	const autosize_plan *p = &context.plan;
	char buf[64];
	int rv = 0;

	rv |= remote_setint(sp, "AUTOSIZE_CHAIN_INDEX", p->chain_index > 0
			    ? p->chain_index : 1);
	rv |= remote_setint(sp, "AUTOSIZE_CHAIN_COUNT", p->chained_jobs > 0
			    ? p->chained_jobs : 1);
	if (context.have_record && context.record.chain[0])
		rv |= remote_setenv(sp, "AUTOSIZE_CHAIN_ID",
				    context.record.chain);
	if (p->signal_s > 0) {
		rv |= remote_setenv(sp, "AUTOSIZE_SIGNAL", "USR1");
		rv |= remote_setint(sp, "AUTOSIZE_SIGNAL_BEFORE_S",
				    p->signal_s);
	}
	if (!(p->tokens > 0))
		return rv ? -1 : 0;
	snprintf(buf, sizeof(buf), "%.0f", p->tokens + p->tokens_done);
	rv |= remote_setenv(sp, "AUTOSIZE_TRAIN_TOKENS", buf);
	snprintf(buf, sizeof(buf), "%.0f", p->tokens_done +
		 autosize_plan_done_before(p, p->chain_index,
					   p->chain_done_before));
	rv |= remote_setenv(sp, "AUTOSIZE_TRAIN_TOKENS_DONE", buf);
	snprintf(buf, sizeof(buf), "%.0f",
		 autosize_plan_part(p, p->chain_index, p->chain_done_before));
	rv |= remote_setenv(sp, "AUTOSIZE_JOB_TRAIN_TOKENS", buf);
	snprintf(buf, sizeof(buf), "%ld", autosize_launch_job_steps(p));
	rv |= remote_setenv(sp, "AUTOSIZE_JOB_TRAIN_STEPS", buf);
	return rv ? -1 : 0;
}

/* Every AUTOSIZE_* variable of a computed plan. -1 when any failed. */
static int remote_export(spank_t sp)
{
	const autosize_plan *p = &context.plan;
	uint32_t job_id = 0, step_id = 0;
	int rv = 0;

	if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step_id) != ESPANK_SUCCESS) {
		autosize_spank_warn("cannot read the job and step ids");
		return -1;
	}
	rv |= remote_setint(sp, "AUTOSIZE_TP", p->tp);
	rv |= remote_setint(sp, "AUTOSIZE_PP", p->pp);
	rv |= remote_setint(sp, "AUTOSIZE_DP", p->dp);
	rv |= remote_setint(sp, "AUTOSIZE_CP", p->cp > 1 ? p->cp : 1);
	rv |= remote_setint(sp, "AUTOSIZE_EP", p->ep > 1 ? p->ep : 1);
	/* a MoE plan's expert TP (NeMo's expert_tensor_parallel_size) */
	if (p->etp > 0)
		rv |= remote_setint(sp, "AUTOSIZE_ETP", p->etp);
	rv |= remote_setint(sp, "AUTOSIZE_VP", p->vp > 1 ? p->vp : 1);
	rv |= remote_setenv(sp, "AUTOSIZE_FRAMEWORK",
			    autosize_framework_name(p->framework));
	/* a MoE plan's dispatcher, for recipes that take it by name
	 * (NeMo's moe_token_dispatcher_type, torchtitan's
	 * moe_comm_backend) */
	if (p->moe_dispatcher != AUTOSIZE_MOE_DISPATCH_DEFAULT)
		rv |= remote_setenv(sp, "AUTOSIZE_MOE_DISPATCHER",
				    autosize_moe_dispatcher_name(
					p->moe_dispatcher));
	rv |= remote_setint(sp, "AUTOSIZE_ZERO_STAGE", p->zero_stage);
	rv |= remote_setenv(sp, "AUTOSIZE_RECOMPUTE",
			    autosize_recompute_name(p->recompute));
	rv |= remote_setint(sp, "AUTOSIZE_RECOMPUTE_LAYERS",
			    autosize_launch_recompute_num_layers(&context.req,
								 p));
	rv |= remote_setint(sp, "AUTOSIZE_MICRO_BATCH", p->micro_batch);
	rv |= remote_setint(sp, "AUTOSIZE_GRAD_ACCUM", p->grad_accum);
	rv |= remote_setint(sp, "AUTOSIZE_GLOBAL_BATCH", p->global_batch);
	if (autosize_launch_summary(p, context.value,
				    sizeof(context.value)) < 0)
		rv = -1;
	else
		rv |= remote_setenv(sp, "AUTOSIZE_PLAN", context.value);
	rv |= remote_launchers(sp, job_id, step_id);
	rv |= remote_chain(sp);
	return rv ? -1 : 0;
}

/* slurmctld's plan for a batch job (AUTOSIZE_RECORD, which job_submit.lua
 * puts in the batch job's environment, and srun steps inherit): 0 when
 * there is one that reads. */
static int remote_record(spank_t sp)
{
	char what[] = "AUTOSIZE_RECORD";
	autosize_error e;

	if (remote_getenv(sp, what, context.value, sizeof(context.value)) ||
	    strncmp(context.value, AUTOSIZE_RECORD_PREFIX,
		    strlen(AUTOSIZE_RECORD_PREFIX)) != 0 ||
	    autosize_record_decode(context.value, strlen(context.value), what,
				   &context.record, &e) != AUTOSIZE_OK)
		return -1;
	context.have_record = 1;
	return 0;
}

/* Where the plan runs: the job's partition when the policy knows it,
 * else the GPU hwloc identified, else the GPU of slurmctld's plan, else
 * the policy's default. */
static int remote_where(spank_t sp, const autosize_policy *policy)
{
	char part[AUTOSIZE_PART_NAME_MAX];
	int i;

	if (remote_getenv(sp, "SLURM_JOB_PARTITION", part, sizeof(part)) == 0
	    && autosize_policy_find_partition(policy, part)) {
		memcpy(context.req.partition, part, sizeof(part));
		return 0;
	}
	for (i = 0; context.have_scan && i < context.scan.n_listed; i++) {
		const autosize_gpu *g = context.scan.gpus[i].model;

		if (g && strlen(g->name) < sizeof(context.req.gpu)) {
			snprintf(context.req.gpu, sizeof(context.req.gpu),
				 "%s", g->name);
			return 0;
		}
	}
	if (context.have_record && context.record.gpu[0]) {
		snprintf(context.req.gpu, sizeof(context.req.gpu), "%s",
			 context.record.gpu);
		return 0;
	}
	if (autosize_policy_partition_count(policy) > 0)
		return 0;
	autosize_spank_warn("partition '%s' is not in the site policy and "
			    "the GPU model is unknown: no layout", part);
	return -1;
}

/* The time limit a step's tasks are told is the job's (slurmctld's
 * plan), whatever size the step lays out, and so is its place in a
 * chain: the jobs it was planned as, this one's index, one job's tokens
 * and the warning signal it carries; GPUs per node other than planned
 * (an --exclusive job given the whole node, a job changed since) are
 * said once. */
static void remote_job_limit(int gpn)
{
	const autosize_record *rec = &context.record;

	if (!context.have_record || rec->time_limit_min <= 0)
		return;
	if (gpn != rec->gpus_per_node)
		autosize_spank_warn("the allocation has %d GPUs per node, "
				    "slurmctld planned %d: laid out for the "
				    "allocation; the time limit is the job's",
				    gpn, rec->gpus_per_node);
	context.plan.time_limit_min = rec->time_limit_min;
	context.plan.chained_jobs = rec->chain_jobs > 0 ? rec->chain_jobs : 1;
	context.plan.chain_index = rec->chain_index > 0 ? rec->chain_index
							: 1;
	context.plan.signal_s = rec->signal_s;
	if (rec->chain_job_tokens > 0)
		context.plan.chain_job_tokens = rec->chain_job_tokens;
}

/* Plan for this allocation and export it. */
static int remote_layout(spank_t sp, const autosize_policy *policy, int gpn)
{
	autosize_error err;
	autosize_err rc;
	int nodes;

	/* the step's nodes (srun -N1 in a 3-node job: 1); the batch step
	 * and salloc's interactive step (LaunchParameters=
	 * use_interactive_step: a shell on the first node) plan for the
	 * whole job, where the sruns they start run */
	nodes = remote_whole_job(sp) ? -1
		: remote_getint(sp, "SLURM_STEP_NUM_NODES", 100000);
	if (nodes < 0)
		nodes = remote_getint(sp, "SLURM_JOB_NUM_NODES", 100000);
	if (nodes < 0)
		nodes = remote_getint(sp, "SLURM_NNODES", 100000);
	if (nodes < 0) {
		autosize_spank_warn("SLURM_JOB_NUM_NODES unset: no layout "
				    "exported");
		return -1;
	}
	if (remote_model(sp) != 0 || remote_where(sp, policy) != 0)
		return -1;
	/* The allocation slurmctld planned: its layout, whatever policy
	 * this node holds. */
	if (context.have_record && nodes == context.record.nodes &&
	    gpn == context.record.gpus_per_node)
		autosize_record_pin(&context.record, &context.req);
	/* The allocation is fixed: search only the layout on it. */
	context.req.nodes = nodes;
	context.req.gpus_per_node = gpn;
	context.req.gpus = AUTOSIZE_UNSET;
	rc = autosize_plan_compute(policy, &context.req, &context.plan, &err);
	if (rc == AUTOSIZE_ENOFIT) {
		autosize_spank_warn("no layout fits %d node%s x %d GPU%s: %s",
				    nodes, autosize_plural(nodes), gpn,
				    autosize_plural(gpn), context.plan.reason);
		return -1;
	}
	if (rc != AUTOSIZE_OK) {
		autosize_spank_warn("%s", err.msg);
		return -1;
	}
	remote_job_limit(gpn);
	if (context.have_record)
		autosize_spank_chain_start(sp, &context.plan, &context.record,
					   remote_batch_step(sp),
					   context.done_env);
	return remote_export(sp);
}

/* The hwloc check against the GPUs allocated on this node: 1 when the
 * node does not match (msg says how), 0 when it does, -1 when the node
 * cannot be read (warned: that is no mismatch). */
static int remote_gpucheck(spank_t sp, const autosize_policy *policy,
			   int allocated, char *msg, size_t len)
{
	const autosize_spank_config *cfg = autosize_spank_config_get();
	const autosize_partition *part = NULL;
	char name[AUTOSIZE_PART_NAME_MAX];
	autosize_error err;

	if (autosize_gpucheck_run(cfg->hwloc_xml,
				  autosize_policy_catalog(policy),
				  &context.scan, &err) != AUTOSIZE_OK) {
		autosize_spank_warn("GPU check: %s: GPUs not checked",
				    err.msg);
		return -1;
	}
	context.have_scan = 1;
	if (remote_getenv(sp, "SLURM_JOB_PARTITION", name, sizeof(name)) == 0)
		part = autosize_policy_find_partition(policy, name);
	return autosize_gpucheck_compare(&context.scan, allocated,
					 part ? part->name : name,
					 part ? part->gpu : NULL, msg, len);
}

/* A real mismatch: a warning, or under gpu_check: enforce the refusal
 * that task_init carries out, said once per node. */
static void remote_mismatch(autosize_gpu_check check, const char *msg)
{
	char where[AUTOSIZE_PATH_MAX + 16];

	if (check != AUTOSIZE_GPU_CHECK_ENFORCE) {
		autosize_spank_warn("GPU check: %s", msg);
		return;
	}
	context.refuse = 1;
	if (autosize_spank_plugstack_self(where, sizeof(where)) ==
	    AUTOSIZE_PLUGSTACK_OPTIONAL) {
		autosize_spank_warn("GPU check: %s; gpu_check is enforce but "
				    "%s loads the plugin as optional, so Slurm "
				    "starts the step anyway (write required "
				    "there)", msg, where);
		return;
	}
	slurm_error("autosize: GPU check: %s: step refused (gpu_check: "
		    "enforce)", msg);
}

int autosize_spank_remote_user_init(spank_t sp)
{
	const autosize_spank_config *cfg = autosize_spank_config_get();
	autosize_policy *policy = NULL;
	autosize_gpu_check check;
	char msg[AUTOSIZE_MSG_LEN];
	autosize_error err;
	int allocated;

	context.refuse = 0;
	if (cfg->disabled || !autosize_spank_options_given())
		return 0;
	autosize_spank_options_request(&context.req);
	if (context.req.job_mode == AUTOSIZE_JOB_OFF)
		return 0;
	if (autosize_spank_options_bad()) {
		autosize_spank_warn("an option was refused (above): no "
				    "layout exported");
		return 0;
	}
	/* what the batch step found of the run's progress, before the
	 * step's own values are cleared */
	context.done_env = -1;
	if (remote_getenv(sp, "AUTOSIZE_TRAIN_TOKENS_DONE", context.value,
			  sizeof(context.value)) != 0 ||
	    autosize_parse_count(context.value, "", &context.done_env,
				 NULL) != AUTOSIZE_OK)
		context.done_env = -1;
	remote_clear(sp);
	context.have_record = remote_record(sp) == 0;
	policy = autosize_spank_policy_load(cfg->policy, &err);
	if (!policy && context.have_record) {
		/* slurmctld decided with the policy it had: lay out its
		 * plan with the built-in defaults. */
		autosize_spank_warn("%s: no GPU check; the layout is "
				    "slurmctld's plan", err.msg);
		policy = autosize_policy_default(&err);
		if (policy) {
			allocated = remote_getint(sp, "SLURM_GPUS_ON_NODE",
						  64);
			if (allocated > 0)
				(void)remote_layout(sp, policy, allocated);
			goto out;
		}
	}
	if (!policy) {
		autosize_spank_warn("%s: no GPU check, no layout", err.msg);
		return 0;
	}
	allocated = remote_getint(sp, "SLURM_GPUS_ON_NODE", 64);
	if (allocated < 0) {
		autosize_spank_warn("the job has no GPUs on this node: no GPU "
				    "check, no layout exported");
		goto out;
	}
	check = autosize_policy_defaults(policy)->gpu_check;
	if (check != AUTOSIZE_GPU_CHECK_OFF &&
	    remote_gpucheck(sp, policy, allocated, msg, sizeof(msg)) == 1) {
		remote_mismatch(check, msg);
		if (context.refuse)
			goto out;
	}
	/* Warnings only: a step without a layout still runs. */
	(void)remote_layout(sp, policy, allocated);
out:
	autosize_policy_destroy(policy);
	return 0;
}

/* In each task's process before it execs: failing here makes the task
 * exit 1 (a required plugin), never slurmstepd's launch.
 * A chained job's warning signal (SIGUSR1 to every process of its steps,
 * Slurm's --signal without B:) must not end a process that does not
 * catch it: torchrun's agent, a shell that execs the training, a data
 * loader. Each task of a step starts with it ignored (kept across exec);
 * a training process that installs a handler gets it. The batch shell
 * is not signalled and keeps its default. */
int autosize_spank_remote_task_init(spank_t sp)
{
	struct sigaction ign;
	uint32_t step = 0;

	if (context.refuse)
		return -1;
	if (context.have_record && context.record.signal_s > 0 &&
	    spank_get_item(sp, S_JOB_STEPID, &step) == ESPANK_SUCCESS &&
	    step != AUTOSIZE_SPANK_STEP_BATCH) {
		memset(&ign, 0, sizeof(ign));
		ign.sa_handler = SIG_IGN;
		(void)sigaction(SIGUSR1, &ign, NULL);
	}
	return 0;
}
