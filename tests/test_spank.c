/*
 * Unit tests of the SPANK plugin's callbacks (plugin/spank*.c), linked
 * with stand-ins for the spank_* and slurm_* functions that sbatch and
 * slurmstepd provide at run time.
 */
#define _GNU_SOURCE /* nftw's FTW_PHYS, FTW_DEPTH */
#include <stdarg.h>
#include <fcntl.h>
#include <errno.h>
#include <ftw.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include "testutil.h"
#include <slurm/slurm.h>
#include <slurm/spank.h>
#include "autosize.h"
#include "spank_common.h"

#define STUB_MAX 64
#define STUB_LEN 8192

/* ---- stand-ins for Slurm ---------------------------------------------- */

typedef struct stub_var {
	char name[64];
	char value[STUB_LEN];
} stub_var;

static struct stub_state {
	spank_context_t ctx;
	struct spank_option *opts[STUB_MAX];
	int n_opts;
	stub_var env[STUB_MAX];        /* the job's environment (getenv) */
	int n_env;
	stub_var set[STUB_MAX];        /* spank_setenv */
	int n_set;
	stub_var jobctl[STUB_MAX];     /* spank_job_control_setenv */
	int n_jobctl;
	int exit_status;     /* what the plugin exited sbatch with; -1 */
	char exec_arg1[64];  /* argv[1] of a re-run; "" */
	char errors[STUB_MAX][STUB_LEN];
	int n_errors;
	char infos[STUB_MAX][STUB_LEN];
	int n_infos;
	char warns[STUB_MAX][STUB_LEN]; /* slurm_spank_log */
	int n_warns;
	uint32_t step_id;              /* S_JOB_STEPID; 0 = the batch step */
	uint32_t node_id;              /* S_JOB_NODEID */
} stub;

static char stub_handle;
#define SP ((spank_t)(void *)&stub_handle)

static void stub_put(stub_var *vars, int *n, const char *name,
		     const char *value)
{
	int i;

	for (i = 0; i < *n; i++)
		if (strcmp(vars[i].name, name) == 0)
			break;
	assert_true(i < STUB_MAX);
	if (i == *n)
		(*n)++;
	snprintf(vars[i].name, sizeof(vars[i].name), "%s", name);
	snprintf(vars[i].value, sizeof(vars[i].value), "%s", value);
}

static const char *stub_get(const stub_var *vars, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(vars[i].name, name) == 0)
			return vars[i].value;
	return NULL;
}

spank_context_t spank_context(void)
{
	return stub.ctx;
}

const char *spank_strerror(spank_err_t err)
{
	return "stub error";
}

/* What spank_option_register answers (Slurm: ESPANK_BAD_ARG for an
 * option name another plugin of the node registered first). */
static spank_err_t stub_register_rc = ESPANK_SUCCESS;

spank_err_t spank_option_register(spank_t sp, struct spank_option *opt)
{
	if (stub_register_rc != ESPANK_SUCCESS)
		return stub_register_rc;
	assert_true(stub.n_opts < STUB_MAX);
	stub.opts[stub.n_opts++] = opt;
	return ESPANK_SUCCESS;
}

spank_err_t spank_getenv(spank_t sp, const char *var, char *buf, int len)
{
	const char *v = stub_get(stub.env, stub.n_env, var);

	if (!v)
		return ESPANK_ENV_NOEXIST;
	if (strlen(v) >= (size_t)len)
		return ESPANK_NOSPACE;
	memcpy(buf, v, strlen(v) + 1);
	return ESPANK_SUCCESS;
}

spank_err_t spank_setenv(spank_t sp, const char *var, const char *val,
			 int overwrite)
{
	stub_put(stub.set, &stub.n_set, var, val);
	return ESPANK_SUCCESS;
}

/* Unset in the task environment: gone from what the job had and from what
 * the plugin set. */
spank_err_t spank_unsetenv(spank_t sp, const char *var)
{
	stub_var *lists[] = {stub.env, stub.set};
	int *counts[] = {&stub.n_env, &stub.n_set}, i, j;

	for (j = 0; j < 2; j++)
		for (i = 0; i < *counts[j]; i++)
			if (strcmp(lists[j][i].name, var) == 0) {
				lists[j][i] = lists[j][--*counts[j]];
				break;
			}
	return ESPANK_SUCCESS;
}

spank_err_t spank_job_control_setenv(spank_t sp, const char *name,
				     const char *value, int overwrite)
{
	assert_true(stub.ctx == S_CTX_ALLOCATOR || stub.ctx == S_CTX_LOCAL);
	stub_put(stub.jobctl, &stub.n_jobctl, name, value);
	return ESPANK_SUCCESS;
}

spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...)
{
	va_list ap;
	spank_err_t rc = ESPANK_SUCCESS;

	va_start(ap, item);
	switch (item) {
	case S_JOB_ID:
		*va_arg(ap, uint32_t *) = 4242;
		break;
	case S_JOB_STEPID:
		*va_arg(ap, uint32_t *) = stub.step_id ? stub.step_id - 1
					  : 0xfffffffbU; /* batch */
		break;
	case S_JOB_NODEID:
		*va_arg(ap, uint32_t *) = stub.node_id;
		break;
	case S_JOB_UID:
		*va_arg(ap, uid_t *) = getuid();
		break;
	case S_JOB_GID:
		*va_arg(ap, gid_t *) = getgid();
		break;
	default:
		rc = ESPANK_BAD_ARG;
		break;
	}
	va_end(ap);
	return rc;
}

/* Keep (and show) one logged line; the last one is kept when full. */
static void stub_log(char lines[][STUB_LEN], int *n, const char *tag,
		     const char *fmt, va_list ap)
{
	int i = *n < STUB_MAX ? (*n)++ : STUB_MAX - 1;

	vsnprintf(lines[i], STUB_LEN, fmt, ap);
	printf("  [%s] %s\n", tag, lines[i]);
}

#define STUB_LOGGER(name, lines, n, tag)                                \
	void name(const char *fmt, ...)                                 \
	{                                                               \
		va_list ap;                                             \
		va_start(ap, fmt);                                      \
		stub_log(stub.lines, &stub.n, tag, fmt, ap);            \
		va_end(ap);                                             \
	}

STUB_LOGGER(slurm_error, errors, n_errors, "error")
STUB_LOGGER(slurm_info, infos, n_infos, "info")
/* Error level without "error: " (what the job's stderr shows). */
STUB_LOGGER(slurm_spank_log, warns, n_warns, "log")

void slurm_verbose(const char *fmt, ...)
{
}

/* sbatch's libslurm: the user's jobs as slurmctld shows them (the
 * chain's first job, found by its record; spank_chain.c). */
static job_info_t stub_jobs[4];
static int stub_n_jobs;

int slurm_load_job_user(job_info_msg_t **msg, uint32_t uid,
			uint16_t show_flags)
{
	*msg = calloc(1, sizeof(**msg));
	assert_non_null(*msg);
	(*msg)->record_count = (uint32_t)stub_n_jobs;
	(*msg)->job_array = stub_jobs;
	return 0;
}

void slurm_free_job_info_msg(job_info_msg_t *msg)
{
	free(msg);
}

/* ---- helpers ------------------------------------------------------------ */

static char tmpdir[64];
static char policy_off[128], policy_enforce[128], policy_warn[128];

/* etc/autosize.yaml with another gpu_check. */
static void write_policy(char *path, size_t len, const char *check)
{
	char *text, *at;
	FILE *f = fopen("etc/autosize.yaml", "r");
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)n + 64);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	at = strstr(text, "gpu_check: warn");
	assert_non_null(at);
	memmove(at + strlen("gpu_check: ") + strlen(check),
		at + strlen("gpu_check: warn"),
		strlen(at + strlen("gpu_check: warn")) + 1);
	memcpy(at + strlen("gpu_check: "), check, strlen(check));
	test_write_tmp(path, len, text);
	free(text);
}

static int setup(void **state)
{
	static const char *const outside[] = {
		"SLURM_JOB_ID", "SBATCH_PARTITION", "SALLOC_PARTITION",
		"SLURM_PARTITION", "SLURM_JOB_PARTITION", NULL};
	int i;

	for (i = 0; outside[i]; i++)
		unsetenv(outside[i]);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/autosize-spank-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	write_policy(policy_off, sizeof(policy_off), "off");
	write_policy(policy_enforce, sizeof(policy_enforce), "enforce");
	write_policy(policy_warn, sizeof(policy_warn), "warn");
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)remove(path);
	return 0;
}

/* Remove a folder and all in it, links not followed. */
static void rm_tree(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int teardown(void **state)
{
	rm_tree(tmpdir);
	unlink(policy_off);
	unlink(policy_enforce);
	unlink(policy_warn);
	return 0;
}

/* sbatch's exit and re-run, watched instead of done. */
static void stub_exit(int status)
{
	stub.exit_status = status;
}

static int stub_execv(const char *path, char *const argv[])
{
	snprintf(stub.exec_arg1, sizeof(stub.exec_arg1), "%s",
		 argv[1] ? argv[1] : "");
	return -1;
}

/* Start one plugin lifetime: slurm_spank_init in ctx with args. */
static int start(spank_context_t ctx, const char *const *args)
{
	char *av[8];
	int ac = 0;

	slurm_spank_exit(SP, 0, NULL);
	memset(&stub, 0, sizeof(stub));
	stub.ctx = ctx;
	stub.exit_status = -1;
	autosize_spank_exit = stub_exit;
	autosize_spank_execv = stub_execv;
	while (args && args[ac] && ac < 8) {
		av[ac] = (char *)args[ac];
		ac++;
	}
	return slurm_spank_init(SP, ac, av);
}

static struct spank_option *find_opt(const char *name)
{
	int i;

	for (i = 0; i < stub.n_opts; i++)
		if (strcmp(stub.opts[i]->name, name) == 0)
			return stub.opts[i];
	fail_msg("option --%s not registered", name);
	return NULL;
}

/* What sbatch does for --name=value: the option's callback. */
static int give(const char *name, const char *value)
{
	struct spank_option *o = find_opt(name);

	return o->cb(o->val, value, stub.ctx == S_CTX_REMOTE);
}

/* 1 when one of the n lines logged holds text. */
static int logged(char lines[][STUB_LEN], int n, const char *text)
{
	int i;

	for (i = 0; i < n; i++)
		if (strstr(lines[i], text))
			return 1;
	return 0;
}

static int infos_contain(const char *text)
{
	return logged(stub.infos, stub.n_infos, text);
}

static int errors_contain(const char *text)
{
	return logged(stub.errors, stub.n_errors, text);
}

/* ---- option registration and validation -------------------------------- */

/* The options the core's table offers to sbatch: each one registered
 * (the architecture and expert options too); their count. */
static int table_spank_options(void)
{
	const autosize_option *t;
	int n = 0;

	for (t = autosize_options(); t->name; t++) {
		if (!(t->where & AUTOSIZE_OPT_SPANK))
			continue;
		assert_non_null(find_opt(t->name));
		n++;
	}
	assert_non_null(find_opt("experts"));
	assert_non_null(find_opt("shared-experts"));
	assert_non_null(find_opt("kv-lora-rank"));
	return n;
}

static void test_register(void **state)
{
	static const char *const names[] = {
		"model-params", "model", "train-tokens", "train-time",
		"train-mode", "train-seq-len", "train-batch",
		"train-precision", "train-optimizer", "train-framework",
		"grad-reduce", "moe-overlap", "autosize", NULL};
	int i;

	assert_int_equal(start(S_CTX_ALLOCATOR, NULL), 0);
	for (i = 0; names[i]; i++) {
		struct spank_option *o = find_opt(names[i]);

		assert_int_equal(o->has_arg, 1);
		assert_true(strncmp(o->usage, "[autosize] ", 11) == 0);
		assert_true(strlen(o->name) <= SPANK_OPTION_MAXLEN);
	}
	assert_int_equal(stub.n_opts, table_spank_options());
	/* Not in the job-facing contexts: nothing registered. */
	assert_int_equal(start(S_CTX_SLURMD, NULL), 0);
	assert_int_equal(stub.n_opts, 0);
	assert_int_equal(start(S_CTX_REMOTE, NULL), 0);
	assert_int_equal(stub.n_opts, table_spank_options());
}

static void test_bad_value(void **state)
{
	static const struct {
		const char *name, *value;
	} bad[] = {
		{"model-params", "abc"}, {"train-tokens", "-5"},
		{"train-time", "soon"}, {"train-mode", "rlhf"},
		{"train-seq-len", "0"}, {"train-precision", "fp4"},
		{"autosize", "maybe"}, {"model", ""},
	};
	size_t i;

	assert_int_equal(start(S_CTX_ALLOCATOR, NULL), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[64];

		stub.n_errors = 0;
		assert_int_equal(give(bad[i].name, bad[i].value), -1);
		assert_int_equal(stub.n_errors, 1);
		snprintf(want, sizeof(want), "--%s", bad[i].name);
		assert_true(strncmp(stub.errors[0], "autosize: ", 10) == 0);
		assert_non_null(strstr(stub.errors[0], want));
	}
	/* Good values, each twice (Slurm may call a callback again). */
	stub.n_errors = 0;
	assert_int_equal(give("model-params", "70e9"), 0);
	assert_int_equal(give("model-params", "70e9"), 0);
	assert_int_equal(give("train-time", "2-00:00:00"), 0);
	assert_int_equal(give("autosize", "warn"), 0);
	assert_int_equal(stub.n_errors, 0);
	/* A refused value in slurmstepd never fails the step. */
	assert_int_equal(start(S_CTX_REMOTE, NULL), 0);
	assert_int_equal(give("model-params", "abc"), 0);
	assert_int_equal(stub.n_errors, 1);
}

static void test_plugstack_args(void **state)
{
	static const char *const unknown[] = {"policy=/x.yaml", "color=red",
					      NULL};
	static const char *const noeq[] = {"disabled", NULL};
	static const char *const badbool[] = {"disabled=yes", NULL};
	static const char *const reltmp[] = {"tmpdir=tmp", NULL};
	static const char *const good[] = {"policy=etc/autosize.yaml",
					   "tmpdir=/tmp", "hwloc_xml=/x.xml",
					   "disabled=0", NULL};

	assert_int_equal(start(S_CTX_ALLOCATOR, unknown), -1);
	assert_int_equal(stub.n_errors, 1);
	assert_non_null(strstr(stub.errors[0], "'color'"));
	assert_int_equal(start(S_CTX_ALLOCATOR, noeq), -1);
	assert_int_equal(start(S_CTX_ALLOCATOR, badbool), -1);
	assert_int_equal(start(S_CTX_ALLOCATOR, reltmp), -1);
	assert_int_equal(start(S_CTX_ALLOCATOR, good), 0);
	assert_int_equal(stub.n_errors, 0);
}

/* ---- allocator ------------------------------------------------------------ */

static const char *const alloc_args[] = {"policy=etc/autosize.yaml", NULL};

static void test_no_options(void **state)
{
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(stub.n_infos + stub.n_errors + stub.n_jobctl, 0);
}

/* A submission: nothing planned or printed on the submit host (slurmctld
 * tells the plan for the job as it will run); the model travels. */
static void test_submit_silent(void **state)
{
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(give("train-tokens", "100B"), 0);
	assert_int_equal(give("train-time", "7d"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(stub.n_errors + stub.n_infos, 0);
	assert_int_equal(stub.exit_status, -1);
	/* a bare parameter count has no architecture to send */
	assert_null(stub_get(stub.jobctl, stub.n_jobctl, AUTOSIZE_ENV_MODEL));
	/* bad combinations are refused by slurmctld, once */
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("train-tokens", "2T"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(stub.n_errors + stub.n_infos, 0);
}

/* --autosize=explain: the plan, "nothing submitted", exit 0, no error
 * line; srun re-runs itself with --test-only (slurmctld's plan). */
static void test_explain(void **state)
{
	const char *saved = program_invocation_short_name;

	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(give("train-tokens", "1e9"), 0);
	assert_int_equal(give("autosize", "explain"), 0);
	slurm_spank_init_post_opt(SP, 0, NULL);
	assert_int_equal(stub.exit_status, 0);
	assert_int_equal(stub.n_errors, 0);
	assert_true(infos_contain("autosize:   layout     TP "));
	assert_true(infos_contain("autosize:   memory     "));
	assert_true(infos_contain("nothing submitted"));
	assert_string_equal(stub.exec_arg1, "");
	/* -p l40s,h100: the plan chooses among both, as slurmctld does
	 * (it planned for l40s alone: another size and time) */
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(give("train-tokens", "1e11"), 0);
	assert_int_equal(give("autosize", "explain"), 0);
	setenv("SBATCH_PARTITION", "l40s,h100", 1);
	slurm_spank_init_post_opt(SP, 0, NULL);
	unsetenv("SBATCH_PARTITION");
	assert_true(infos_contain("on partition h100"));
	/* a model that cannot fit anywhere: said, still exit 0 */
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model-params", "5e12"), 0);
	assert_int_equal(give("autosize", "explain"), 0);
	slurm_spank_init_post_opt(SP, 0, NULL);
	assert_int_equal(stub.exit_status, 0);
	assert_true(infos_contain("NOT FEASIBLE"));
	/* bad input: one error line, exit 1 */
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("train-tokens", "1e9"), 0);
	assert_int_equal(give("autosize", "explain"), 0);
	slurm_spank_init_post_opt(SP, 0, NULL);
	assert_int_equal(stub.exit_status, 1);
	assert_int_equal(stub.n_errors, 1);
	/* srun: the same command line again with --test-only */
	program_invocation_short_name = (char *)"srun";
	assert_int_equal(start(S_CTX_LOCAL, alloc_args), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(give("autosize", "explain"), 0);
	slurm_spank_init_post_opt(SP, 0, NULL);
	program_invocation_short_name = (char *)saved;
	unsetenv(AUTOSIZE_ENV_EXPLAIN_RERUN);
	assert_string_equal(stub.exec_arg1, "--test-only");
	/* the re-run itself (--test-only on its command line) tells
	 * slurmctld and prints nothing */
	{
		static const char line[] = "srun\0--test-only\0hostname";
		char path[] = "/tmp/autosize-cmdline.XXXXXX";
		int fd = mkstemp(path);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, line, sizeof(line)),
				 (ssize_t)sizeof(line));
		close(fd);
		autosize_spank_cmdline_path = path;
		setenv(AUTOSIZE_ENV_EXPLAIN_RERUN, "1", 1);
		assert_int_equal(start(S_CTX_LOCAL, alloc_args), 0);
		assert_int_equal(give("model-params", "7e9"), 0);
		assert_int_equal(give("autosize", "explain"), 0);
		assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
		assert_string_equal(stub_get(stub.jobctl, stub.n_jobctl,
					     AUTOSIZE_ENV_EXPLAIN),
				    "test-only");
		assert_int_equal(stub.n_infos + stub.n_errors, 0);
		/* the re-run's variable without --test-only (set by hand
		 * for a real submission): no marker */
		autosize_spank_cmdline_path = "/proc/self/cmdline";
		assert_int_equal(start(S_CTX_LOCAL, alloc_args), 0);
		assert_int_equal(give("model-params", "7e9"), 0);
		assert_int_equal(give("autosize", "explain"), 0);
		assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
		assert_null(stub_get(stub.jobctl, stub.n_jobctl,
				     AUTOSIZE_ENV_EXPLAIN));
		unsetenv(AUTOSIZE_ENV_EXPLAIN_RERUN);
		unlink(path);
	}
}

/* A command line of sbatch's into a file the allocator reads as its own
 * (autosize_spank_cmdline_path); the script is a real file. */
static void chain_cmdline(char *path, const char *const *words)
{
	int fd, i;

	strcpy(path, "/tmp/autosize-cmdline.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	for (i = 0; words[i]; i++)
		assert_int_equal(write(fd, words[i], strlen(words[i]) + 1),
				 (ssize_t)strlen(words[i]) + 1);
	close(fd);
	autosize_spank_cmdline_path = path;
}

/* sbatch, chained (spank_chain.c): the first submission runs itself again
 * with SBATCH_SIGNAL and the mark; that run marks the job and keeps
 * neither in the job's environment; a --signal of the user's own is kept
 * (no re-run, the mark says 0); a heterogeneous job, --wait and a
 * script on standard input are not chained; salloc is never. */
static void test_chain_sbatch(void **state)
{
	const char *saved = program_invocation_short_name;
	const char *words[] = {"sbatch", "-p", "small", TEST_DATA
		"/configs/Meta-Llama-3-8B.json", NULL, NULL};
	char path[] = "/tmp/autosize-cmdline.XXXXXX";
	const char *mark;
	autosize_chain_mark m;
	autosize_error e;
	char run[64];

	program_invocation_short_name = (char *)"sbatch";
	unsetenv("SBATCH_SIGNAL");
	chain_cmdline(path, words);
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(give("train-tokens", "1e10"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	/* the stand-in execv returned: chained without the signal, said */
	assert_string_equal(stub.exec_arg1, "-p");
	assert_true(errors_contain("cannot run sbatch again"));
	assert_null(getenv("SBATCH_SIGNAL"));
	assert_null(getenv("AUTOSIZE_CHAIN_RUN"));
	mark = stub_get(stub.jobctl, stub.n_jobctl, "AUTOSIZE_CHAIN");
	assert_non_null(mark);
	assert_int_equal(autosize_chain_mark_decode(mark, &m, &e), 0);
	assert_int_equal(m.index, 1);
	assert_int_equal(m.signal_s, 0);
	/* post_opt again (sbatch calls it for each heterogeneous
	 * component): decided once, no second run */
	stub.exec_arg1[0] = '\0';
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_string_equal(stub.exec_arg1, "");
	/* the re-run: the mark it was given, nothing left in the job's
	 * environment */
	snprintf(run, sizeof(run), "%s:1:0:480", m.id);
	setenv("AUTOSIZE_CHAIN_RUN", run, 1);
	setenv("SBATCH_SIGNAL", "USR1@480", 1);
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_string_equal(stub_get(stub.jobctl, stub.n_jobctl,
				     "AUTOSIZE_CHAIN"), run);
	assert_null(getenv("AUTOSIZE_CHAIN_RUN"));
	assert_null(getenv("SBATCH_SIGNAL"));
	assert_string_equal(stub.exec_arg1, "");
	/* the user's own signal: kept, no re-run, the mark says 0 */
	setenv("SBATCH_SIGNAL", "B:USR2@60", 1);
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_string_equal(stub.exec_arg1, "");
	assert_string_equal(getenv("SBATCH_SIGNAL"), "B:USR2@60");
	mark = stub_get(stub.jobctl, stub.n_jobctl, "AUTOSIZE_CHAIN");
	assert_non_null(mark);
	assert_non_null(strstr(mark, ":1:0:0"));
	unsetenv("SBATCH_SIGNAL");
	unlink(path);
	/* a heterogeneous job: one, said */
	words[4] = ":";
	chain_cmdline(path, words);
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_null(stub_get(stub.jobctl, stub.n_jobctl, "AUTOSIZE_CHAIN"));
	unlink(path);
	/* --wait: one job, said */
	words[4] = "--wait";
	chain_cmdline(path, words);
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_null(stub_get(stub.jobctl, stub.n_jobctl, "AUTOSIZE_CHAIN"));
	unlink(path);
	/* a script on standard input */
	words[3] = NULL;
	chain_cmdline(path, words);
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_null(stub_get(stub.jobctl, stub.n_jobctl, "AUTOSIZE_CHAIN"));
	unlink(path);
	/* --autosize-chain=off, and salloc: nothing, nothing said */
	words[3] = TEST_DATA "/configs/Meta-Llama-3-8B.json";
	words[4] = NULL;
	chain_cmdline(path, words);
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(give("autosize-chain", "off"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_null(stub_get(stub.jobctl, stub.n_jobctl, "AUTOSIZE_CHAIN"));
	program_invocation_short_name = (char *)"salloc";
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_null(stub_get(stub.jobctl, stub.n_jobctl, "AUTOSIZE_CHAIN"));
	assert_int_equal(stub.n_infos + stub.n_errors, 0);
	program_invocation_short_name = (char *)saved;
	autosize_spank_cmdline_path = "/proc/self/cmdline";
	unlink(path);
}

static void test_off(void **state)
{
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model",
			      TEST_DATA "/configs/Meta-Llama-3-8B.json"), 0);
	assert_int_equal(give("autosize", "off"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(stub.n_jobctl, 0);
	assert_int_equal(stub.n_infos + stub.n_errors, 0);
}

static void test_model_env(void **state)
{
	autosize_model want, got;
	autosize_error e;
	const char *sent;

	assert_int_equal(autosize_model_from_config_json(
				 TEST_DATA "/configs/Meta-Llama-3-8B.json",
				 &want, &e), AUTOSIZE_OK);
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model",
			      TEST_DATA "/configs/Meta-Llama-3-8B.json"), 0);
	assert_int_equal(give("train-tokens", "15T"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	sent = stub_get(stub.jobctl, stub.n_jobctl, AUTOSIZE_ENV_MODEL);
	assert_non_null(sent);
	assert_int_equal(autosize_model_decode(sent, &got, &e), AUTOSIZE_OK);
	assert_int_equal(got.layers, want.layers);
	assert_int_equal(got.hidden, want.hidden);
	assert_int_equal(got.kv_heads, want.kv_heads);
	assert_int_equal(got.vocab, want.vocab);
	assert_true(fabs(got.params - want.params) < 1);
	/* srun outside a job sends it too. */
	assert_int_equal(start(S_CTX_LOCAL, alloc_args), 0);
	assert_int_equal(give("model",
			      TEST_DATA "/configs/Qwen2.5-7B.json"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_non_null(stub_get(stub.jobctl, stub.n_jobctl,
				 AUTOSIZE_ENV_MODEL));
}

static void test_bad_model(void **state)
{
	/* Refused by the option callback itself (sbatch stops there even
	 * for an optional plugin), with one line naming the file. */
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model", TEST_DATA "/configs/missing.json"), -1);
	assert_int_equal(stub.n_errors, 1);
	assert_non_null(strstr(stub.errors[0], "missing.json"));
	assert_int_equal(stub.n_jobctl, 0);
	/* An unknown preset, and a precision the partition lacks. */
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model", "llama-99-1t"), -1);
	assert_non_null(strstr(stub.errors[0], "llama-99-1t"));
	/* A precision the partition lacks: slurmctld refuses it. */
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(give("train-precision", "fp8"), 0);
	setenv("SBATCH_PARTITION", "a100", 1);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	unsetenv("SBATCH_PARTITION");
	assert_int_equal(stub.n_errors, 0);
}

static void test_nofit_passes(void **state)
{
	/* Too big for every partition: slurmctld decides and says. */
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model-params", "5e12"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(stub.n_infos + stub.n_errors, 0);
}

static void test_policy_problems(void **state)
{
	static const char *const missing[] = {"policy=/nonexistent/a.yaml",
					      NULL};
	static const char *const disabled[] = {"policy=etc/autosize.yaml",
					       "disabled=1", NULL};
	char broken[64];
	const char *broken_args[2] = {NULL, NULL};
	char arg[96];

	/* No policy file: the job goes through (slurmctld decides);
	 * explain says there is nothing to explain, exit 0. */
	assert_int_equal(start(S_CTX_ALLOCATOR, missing), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(stub.n_errors, 0);
	assert_int_equal(start(S_CTX_ALLOCATOR, missing), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(give("autosize", "explain"), 0);
	slurm_spank_init_post_opt(SP, 0, NULL);
	assert_int_equal(stub.exit_status, 0);
	assert_true(infos_contain("nothing to explain"));
	/* A broken policy: explain stops with the reason. */
	test_write_tmp(broken, sizeof(broken), "defaults:\n  colour: red\n");
	snprintf(arg, sizeof(arg), "policy=%s", broken);
	broken_args[0] = arg;
	assert_int_equal(start(S_CTX_ALLOCATOR, broken_args), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(give("autosize", "explain"), 0);
	slurm_spank_init_post_opt(SP, 0, NULL);
	assert_int_equal(stub.exit_status, 0);
	assert_true(infos_contain("colour"));
	unlink(broken);
	/* disabled=1: options accepted, nothing done. */
	assert_int_equal(start(S_CTX_ALLOCATOR, disabled), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(stub.n_infos + stub.n_errors + stub.n_jobctl, 0);
}

static void test_srun_inside_job(void **state)
{
	assert_int_equal(start(S_CTX_LOCAL, alloc_args), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	setenv("SLURM_JOB_ID", "99", 1);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	unsetenv("SLURM_JOB_ID");
	assert_int_equal(stub.n_infos + stub.n_errors + stub.n_jobctl, 0);
}

/* ---- remote (slurmstepd) ------------------------------------------------- */

static const char *remote_args[4];
static char remote_policy_arg[160], remote_tmpdir_arg[160];
static const char *remote_tmpdir; /* tmpdir= when not NULL */
static char remote_xml_arg[600];

static int start_remote(const char *policy, const char *xml)
{
	int n = 0;

	snprintf(remote_policy_arg, sizeof(remote_policy_arg), "policy=%s",
		 policy);
	snprintf(remote_tmpdir_arg, sizeof(remote_tmpdir_arg), "tmpdir=%s",
		 remote_tmpdir ? remote_tmpdir : tmpdir);
	remote_args[n++] = remote_policy_arg;
	remote_args[n++] = remote_tmpdir_arg;
	if (xml) {
		snprintf(remote_xml_arg, sizeof(remote_xml_arg),
			 "hwloc_xml=%s", xml);
		remote_args[n++] = remote_xml_arg;
	}
	remote_args[n] = NULL;
	if (start(S_CTX_REMOTE, remote_args) != 0)
		return -1;
	stub_put(stub.env, &stub.n_env, "SLURM_JOB_NUM_NODES", "2");
	stub_put(stub.env, &stub.n_env, "SLURM_GPUS_ON_NODE", "8");
	stub_put(stub.env, &stub.n_env, "SLURM_JOB_PARTITION", "h100");
	stub_put(stub.env, &stub.n_env, "SLURM_JOB_NODELIST", "gpu[07-08]");
	return 0;
}

/* The job's epilog on this node (slurmd's job script context), with
 * the plugstack arguments start_remote gave. */
static void run_job_epilog(void)
{
	int ac = 0;

	stub.ctx = S_CTX_JOB_SCRIPT;
	while (remote_args[ac])
		ac++;
	assert_int_equal(slurm_spank_job_epilog(SP, ac, (char **)remote_args),
			 0);
	stub.ctx = S_CTX_REMOTE;
}

static const char *set_var(const char *name)
{
	return stub_get(stub.set, stub.n_set, name);
}

static int set_int(const char *name)
{
	const char *v = set_var(name);

	if (!v)
		fail_msg("%s not set", name);
	return atoi(v);
}

/* One remote step of a DeepSpeed job (only those get a DeepSpeed
 * configuration file) with --model-params: user_init never fails;
 * task_init's result. */
static int run_step(const char *params)
{
	assert_int_equal(give("train-framework", "deepspeed"), 0);
	assert_int_equal(give("model-params", params), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	return slurm_spank_task_init(SP, 0, NULL);
}

static void test_touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);

	assert_true(fd >= 0);
	close(fd);
}

/* file exists, mode 0600, owned by the job's user, in a folder (dir
 * when given) of mode 0700 owned by the job's user, inside tmpdir. */
static void assert_private(const char *dir, const char *file)
{
	char parent[256];
	struct stat st;

	snprintf(parent, sizeof(parent), "%.*s",
		 (int)(strrchr(file, '/') - file), file);
	if (dir)
		assert_string_equal(parent, dir);
	assert_true(strncmp(parent, tmpdir, strlen(tmpdir)) == 0);
	assert_int_equal(strchr(parent + strlen(tmpdir) + 1, '/'), NULL);
	assert_int_equal(lstat(parent, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(st.st_uid, getuid());
	assert_int_equal(lstat(file, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_uid, getuid());
	assert_int_equal(st.st_nlink, 1);
}

/* A file the plugin wrote for a step: its folder into dir (private to
 * the job's user, as the file), its text into text. */
static void read_private(const char *path, char *dir, size_t dir_len,
			 char *text, size_t text_len)
{
	FILE *f;
	size_t n;

	snprintf(dir, dir_len, "%.*s", (int)(strrchr(path, '/') - path),
		 path);
	assert_private(dir, path);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, text_len - 1, f);
	text[n] = '\0';
	fclose(f);
}

static int warns_contain(const char *text);

/* Step step of a 3-node job on nodes of nodelist (its environment). */
static void start_step_of_3(int step, const char *nodes, const char *nodelist)
{
	assert_int_equal(start_remote(policy_off, NULL), 0);
	stub.n_env = 0;
	stub_put(stub.env, &stub.n_env, "SLURM_JOB_NUM_NODES", "3");
	stub_put(stub.env, &stub.n_env, "SLURM_NNODES", nodes);
	stub_put(stub.env, &stub.n_env, "SLURM_STEP_NUM_NODES", nodes);
	stub_put(stub.env, &stub.n_env, "SLURM_GPUS_ON_NODE", "8");
	stub_put(stub.env, &stub.n_env, "SLURM_JOB_PARTITION", "h100");
	stub_put(stub.env, &stub.n_env, "SLURM_JOB_NODELIST", "gpu[07-09]");
	stub_put(stub.env, &stub.n_env, "SLURM_STEP_NODELIST", nodelist);
	stub.step_id = 1 + (uint32_t)step;
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(stub.n_errors + stub.n_warns, 0);
}

/* srun -N1 (step 3) inside a 3-node job: the layout and torchrun are
 * for the step's one node; srun -N2 on the job's last two nodes: their
 * first node is the rendezvous host. */
static void test_remote_step_nodes(void **state)
{
	start_step_of_3(3, "1", "gpu08");
	assert_string_equal(set_var("AUTOSIZE_TORCHRUN_ARGS"),
			    "--nnodes=1 --nproc_per_node=8 --rdzv_backend=c10d "
			    "--rdzv_endpoint=localhost:30672 --rdzv_id=4242-3");
	assert_int_equal(set_int("AUTOSIZE_TP") * set_int("AUTOSIZE_PP") *
			 set_int("AUTOSIZE_DP"), 8);
	slurm_spank_exit(SP, 0, NULL);
	/* a step with no layout (a model too big for one node) does not
	 * keep the batch step's values it inherited */
	assert_int_equal(start_remote(policy_off, NULL), 0);
	stub.n_env = 0;
	stub_put(stub.env, &stub.n_env, "SLURM_JOB_NUM_NODES", "3");
	stub_put(stub.env, &stub.n_env, "SLURM_STEP_NUM_NODES", "1");
	stub_put(stub.env, &stub.n_env, "SLURM_GPUS_ON_NODE", "8");
	stub_put(stub.env, &stub.n_env, "SLURM_JOB_PARTITION", "h100");
	stub_put(stub.env, &stub.n_env, "AUTOSIZE_TORCHRUN_ARGS",
		 "--nnodes=3 --nproc_per_node=8");
	stub_put(stub.env, &stub.n_env, "AUTOSIZE_TP", "8");
	stub.step_id = 1 + 5;
	assert_int_equal(give("model-params", "200e9"), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_true(warns_contain("no layout fits 1 node"));
	assert_null(stub_get(stub.env, stub.n_env, "AUTOSIZE_TORCHRUN_ARGS"));
	assert_null(stub_get(stub.env, stub.n_env, "AUTOSIZE_TP"));
	assert_null(set_var("AUTOSIZE_TORCHRUN_ARGS"));
	slurm_spank_exit(SP, 0, NULL);
	/* salloc's interactive step (a shell on the first node): the
	 * whole job, the job's first node, slot 0 */
	start_step_of_3((int)(0xfffffffaU), "1", "gpu07");
	assert_string_equal(set_var("AUTOSIZE_TORCHRUN_ARGS"),
			    "--nnodes=3 --nproc_per_node=8 --rdzv_backend=c10d "
			    "--rdzv_endpoint=gpu07:30668 "
			    "--rdzv_id=4242-interactive");
	slurm_spank_exit(SP, 0, NULL);
	start_step_of_3(4, "2", "gpu[08-09]");
	assert_string_equal(set_var("AUTOSIZE_TORCHRUN_ARGS"),
			    "--nnodes=2 --nproc_per_node=8 --rdzv_backend=c10d "
			    "--rdzv_endpoint=gpu08:30673 --rdzv_id=4242-4");
	assert_int_equal(set_int("AUTOSIZE_TP") * set_int("AUTOSIZE_PP") *
			 set_int("AUTOSIZE_DP"), 16);
	slurm_spank_exit(SP, 0, NULL);
}

/* A LoRA job under the hf stack on two nodes: the second node's tasks
 * get accelerate's rank 1, the step's first node and port, and the
 * Trainer's, axolotl's and torchtune's values and the step count; no
 * torchtitan line, no Megatron variable. */
static void test_remote_finetune_stacks(void **state)
{
	const char *v;

	assert_int_equal(start_remote(policy_off, NULL), 0);
	stub.n_env = 0;
	stub_put(stub.env, &stub.n_env, "SLURM_JOB_NUM_NODES", "2");
	stub_put(stub.env, &stub.n_env, "SLURM_STEP_NUM_NODES", "2");
	stub_put(stub.env, &stub.n_env, "SLURM_GPUS_ON_NODE", "8");
	stub_put(stub.env, &stub.n_env, "SLURM_JOB_PARTITION", "h100");
	stub_put(stub.env, &stub.n_env, "SLURM_JOB_NODELIST", "gpu[07-08]");
	stub_put(stub.env, &stub.n_env, "SLURM_STEP_NODELIST", "gpu[07-08]");
	stub.step_id = 1 + 2;
	stub.node_id = 1;
	assert_int_equal(give("model", "llama-3.1-8b"), 0);
	assert_int_equal(give("train-mode", "lora"), 0);
	assert_int_equal(give("train-stack", "hf"), 0);
	assert_int_equal(give("train-tokens", "1e9"), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(set_int("AUTOSIZE_DP"), 16);
	v = set_var("AUTOSIZE_ACCELERATE_ARGS");
	assert_non_null(v);
	/* step 2 of job 4242: 29500 + 4242 mod 256 x 8 + 1 + 2 */
	assert_non_null(strstr(v, "--num_machines 2 --num_processes 16 "
			       "--machine_rank 1 --main_process_ip gpu07 "
			       "--rdzv_backend c10d "
			       "--main_process_port 30671 "));
	assert_non_null(set_var("AUTOSIZE_HF_TRAINER_ARGS"));
	assert_non_null(set_var("AUTOSIZE_AXOLOTL_ARGS"));
	assert_non_null(set_var("AUTOSIZE_TORCHTUNE_ARGS"));
	/* two nodes: torchtune's distributed recipe, under torchrun's
	 * options for this step */
	assert_string_equal(set_var("AUTOSIZE_TORCHTUNE_RECIPE"),
			    "lora_finetune_distributed");
	assert_string_equal(set_var("AUTOSIZE_TUNE_RUN_ARGS"),
			    set_var("AUTOSIZE_TORCHRUN_ARGS"));
	assert_true(set_int("AUTOSIZE_TRAIN_STEPS") > 0);
	/* LoRA: torchtitan's current release only (its LoRAConverter) */
	assert_non_null(set_var("AUTOSIZE_TORCHTITAN_ARGS"));
	assert_null(set_var("AUTOSIZE_TORCHTITAN_V1_ARGS"));
	assert_null(set_var("AUTOSIZE_ACCELERATE_CONFIG"));
	assert_null(set_var("CUDA_DEVICE_MAX_CONNECTIONS"));
	stub.node_id = 0;
	slurm_spank_exit(SP, 0, NULL);
}

static void test_remote_export(void **state)
{
	char want_path[128], text[2048], dir[128];
	const char *v;
	int tp, pp, dp;

	assert_int_equal(start_remote(policy_off, NULL), 0);
	assert_int_equal(give("model", "llama-3-8b"), 0);
	assert_int_equal(give("train-tokens", "1e9"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(stub.n_errors, 0);
	tp = set_int("AUTOSIZE_TP");
	pp = set_int("AUTOSIZE_PP");
	dp = set_int("AUTOSIZE_DP");
	assert_int_equal(tp * pp * dp, 16);
	assert_true(set_int("AUTOSIZE_ZERO_STAGE") >= 0);
	assert_non_null(set_var("AUTOSIZE_RECOMPUTE"));
	/* a count of layers exactly where whole layers are recomputed (the
	 * block method reads 0 as none) */
	assert_int_equal(set_int("AUTOSIZE_RECOMPUTE_LAYERS") > 0,
			 strcmp(set_var("AUTOSIZE_RECOMPUTE"), "full") == 0);
	assert_int_equal(set_int("AUTOSIZE_MICRO_BATCH") *
			 set_int("AUTOSIZE_GRAD_ACCUM") * dp,
			 set_int("AUTOSIZE_GLOBAL_BATCH"));
	v = set_var("AUTOSIZE_PLAN");
	assert_non_null(v);
	assert_true(strncmp(v, "2 nodes x 8 H100-SXM5-80GB, TP ", 31) == 0);
	/* the batch step: the job's first node, the port of job 4242's
	 * batch step (29500 + 4242 mod 256 x 8) */
	v = set_var("AUTOSIZE_TORCHRUN_ARGS");
	assert_non_null(v);
	assert_string_equal(v, "--nnodes=2 --nproc_per_node=8 "
			    "--rdzv_backend=c10d --rdzv_endpoint=gpu07:30668 "
			    "--rdzv_id=4242-batch");
	v = set_var("AUTOSIZE_MEGATRON_ARGS");
	assert_non_null(v);
	snprintf(text, sizeof(text), "--tensor-model-parallel-size %d "
		 "--pipeline-model-parallel-size %d ", tp, pp);
	assert_true(strncmp(v, text, strlen(text)) == 0);
	assert_non_null(strstr(v, "--seq-length 4096"));
	/* what Megatron's validate_args asserts of the environment: 1
	 * under TP, not 1 under Megatron-FSDP (ZeRO-3) */
	v = set_var("CUDA_DEVICE_MAX_CONNECTIONS");
	if (set_int("AUTOSIZE_ZERO_STAGE") >= 3)
		assert_string_equal(v, "8");
	else if (tp > 1)
		assert_string_equal(v, "1");
	else
		assert_null(v);
	/* a Megatron plan: no DeepSpeed configuration */
	assert_null(set_var("AUTOSIZE_DEEPSPEED_CONFIG"));
	/* The DeepSpeed file of a DeepSpeed plan: in the job's private
	 * folder, user-only; no Megatron arguments. */
	slurm_spank_exit(SP, 0, NULL);
	assert_int_equal(start_remote(policy_off, NULL), 0);
	assert_int_equal(give("model", "llama-3-8b"), 0);
	assert_int_equal(give("train-tokens", "1e9"), 0);
	assert_int_equal(give("train-framework", "deepspeed"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(stub.n_errors + stub.n_warns, 0);
	assert_null(set_var("AUTOSIZE_MEGATRON_ARGS"));
	v = set_var("AUTOSIZE_DEEPSPEED_CONFIG");
	assert_non_null(v);
	snprintf(want_path, sizeof(want_path), "%s/autosize-4242-", tmpdir);
	assert_true(strncmp(v, want_path, strlen(want_path)) == 0);
	assert_string_equal(v + strlen(want_path) + 6,
			    "/deepspeed-batch.json");
	read_private(v, dir, sizeof(dir), text, sizeof(text));
	snprintf(want_path, sizeof(want_path), "\"train_batch_size\": %d,",
		 set_int("AUTOSIZE_GLOBAL_BATCH"));
	assert_non_null(strstr(text, want_path));
	/* DeepSpeed's batch rule for the plan's DP */
	assert_int_equal(set_int("AUTOSIZE_MICRO_BATCH") *
			 set_int("AUTOSIZE_GRAD_ACCUM") *
			 set_int("AUTOSIZE_DP"),
			 set_int("AUTOSIZE_GLOBAL_BATCH"));
	/* The same step again (requeue): the file of ours is rewritten. */
	stub.n_set = 0;
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(stub.n_errors + stub.n_warns, 0);
	assert_non_null(set_var("AUTOSIZE_DEEPSPEED_CONFIG"));
	/* The end of the step removes its file; the job's end (epilog)
	 * the folder. */
	slurm_spank_exit(SP, 0, NULL);
	assert_int_equal(access(set_var("AUTOSIZE_DEEPSPEED_CONFIG"), F_OK),
			 -1);
	assert_int_equal(access(dir, F_OK), 0);
	run_job_epilog();
	assert_int_equal(access(dir, F_OK), -1);
}

/* DeepSpeed-Ulysses (the search's CP under DeepSpeed for long
 * sequences): accelerate's config file beside the JSON, user-only,
 * named first on accelerate's line, removed with it. */
static void test_remote_ulysses(void **state)
{
	char want_path[128], text[2048], dir[128];
	const char *v;

	assert_int_equal(start_remote(policy_off, NULL), 0);
	assert_int_equal(give("model", "llama-3-8b"), 0);
	assert_int_equal(give("train-tokens", "1e9"), 0);
	assert_int_equal(give("train-framework", "deepspeed"), 0);
	assert_int_equal(give("train-seq-len", "32768"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(stub.n_errors + stub.n_warns, 0);
	assert_int_equal(set_int("AUTOSIZE_TP"), 1);
	assert_true(set_int("AUTOSIZE_CP") > 1);
	v = set_var("AUTOSIZE_ACCELERATE_CONFIG");
	assert_non_null(v);
	snprintf(want_path, sizeof(want_path), "%.*s/accelerate-batch.yaml",
		 (int)(strrchr(set_var("AUTOSIZE_DEEPSPEED_CONFIG"), '/') -
		       set_var("AUTOSIZE_DEEPSPEED_CONFIG")),
		 set_var("AUTOSIZE_DEEPSPEED_CONFIG"));
	assert_string_equal(v, want_path);
	read_private(v, dir, sizeof(dir), text, sizeof(text));
	snprintf(want_path, sizeof(want_path),
		 "  parallelism_config_sp_size: %d\n", set_int("AUTOSIZE_CP"));
	assert_non_null(strstr(text, want_path));
	snprintf(want_path, sizeof(want_path), "%.*s",
		 (int)sizeof(want_path) - 1, v);
	assert_string_equal(want_path, v);
	snprintf(text, sizeof(text), "--config_file %s ", want_path);
	assert_true(strncmp(set_var("AUTOSIZE_ACCELERATE_ARGS"), text,
			    strlen(text)) == 0);
	slurm_spank_exit(SP, 0, NULL);
	assert_int_equal(access(want_path, F_OK), -1);
	run_job_epilog();
	assert_int_equal(access(dir, F_OK), -1);
}

/* What another user can plant in the shared tmpdir ahead of the job:
 * the old predictable file name as a file, a folder and a link, and
 * job folders that are not private to the job's user. */
static void test_remote_planted(void **state)
{
	static const char *const kinds[] = {"file", "dir", "link"};
	char old[128], target[128], fake[4][128];
	const char *v;
	struct stat st;
	size_t k;

	snprintf(old, sizeof(old), "%s/autosize-deepspeed-4242.batch.json",
		 tmpdir);
	snprintf(target, sizeof(target), "%s/elsewhere", tmpdir);
	for (k = 0; k < 4; k++)
		snprintf(fake[k], sizeof(fake[k]), "%s/autosize-4242-fake%c%c",
			 tmpdir, 'A' + (int)k, 'A' + (int)k);
	/* A link to a private folder, a folder others may write, a file,
	 * and (as root) a private folder of another user. */
	assert_int_equal(mkdir(target, 0700), 0);
	assert_int_equal(symlink(target, fake[0]), 0);
	assert_int_equal(mkdir(fake[1], 0700), 0);
	assert_int_equal(chmod(fake[1], 0777), 0);
	test_touch(fake[2]);
	assert_int_equal(mkdir(fake[3], 0700), 0);
	if (geteuid() == 0)
		assert_int_equal(chown(fake[3], 65534, 65534), 0);
	else
		assert_int_equal(rmdir(fake[3]), 0);
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		if (k == 0)
			test_touch(old);
		else if (k == 1)
			assert_int_equal(mkdir(old, 0777), 0);
		else
			assert_int_equal(symlink(target, old), 0);
		assert_int_equal(start_remote(policy_off, NULL), 0);
		assert_int_equal(run_step("7e9"), 0);
		assert_int_equal(stub.n_errors + stub.n_warns, 0);
		v = set_var("AUTOSIZE_DEEPSPEED_CONFIG");
		if (!v)
			fail_msg("planted %s: no AUTOSIZE_DEEPSPEED_CONFIG",
				 kinds[k]);
		assert_private(NULL, v);
		assert_non_null(set_var("AUTOSIZE_TP"));
		/* None of the planted things is used or changed. */
		assert_true(strncmp(v, target, strlen(target)) != 0);
		assert_true(strncmp(v, fake[0], strlen(fake[0])) != 0);
		assert_true(strncmp(v, fake[1], strlen(fake[1])) != 0);
		assert_true(strncmp(v, fake[3], strlen(fake[3])) != 0);
		assert_int_equal(lstat(fake[1], &st), 0);
		assert_int_equal(st.st_mode & 07777, 0777);
		slurm_spank_exit(SP, 0, NULL);
		assert_int_equal(access(v, F_OK), -1);
		assert_int_equal(lstat(old, &st), 0);
		assert_int_equal(remove(old), 0);
	}
	assert_int_equal(lstat(target, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	for (k = 0; k < 4; k++)
		rm_tree(fake[k]);
	rm_tree(target);
}

/* Step 0 of the job on a node where it has no folder; its folder in dir. */
static void start_step0(char *dir, size_t len)
{
	const char *v;

	assert_int_equal(start_remote(policy_off, NULL), 0);
	stub.step_id = 1 + 0;
	assert_int_equal(run_step("7e9"), 0);
	v = set_var("AUTOSIZE_DEEPSPEED_CONFIG");
	assert_non_null(v);
	assert_private(NULL, v);
	snprintf(dir, len, "%.*s", (int)(strrchr(v, '/') - v), v);
}

/* An srun step on the node of the batch step finds the job's folder
 * and leaves it (and the batch step's file) when it ends; so does the
 * batch step (the shell may write after its sruns); a step on a node
 * without one makes its own and leaves it too; the job's epilog removes
 * the job's folders with what is in them, and nothing planted beside
 * them. */
static void test_remote_job_dir_reused(void **state)
{
	char dir[128], file[160], batch[160];
	const char *v;

	/* A node where job 4242 has not run yet (earlier tests ran it). */
	assert_int_equal(start_remote(policy_off, NULL), 0);
	run_job_epilog();
	snprintf(dir, sizeof(dir), "%s/autosize-4242-XXXXXX", tmpdir);
	assert_non_null(mkdtemp(dir));
	snprintf(batch, sizeof(batch), "%s/deepspeed-batch.json", dir);
	test_touch(batch);
	assert_int_equal(start_remote(policy_off, NULL), 0);
	stub.step_id = 1 + 3;
	assert_int_equal(run_step("7e9"), 0);
	assert_int_equal(stub.n_errors + stub.n_warns, 0);
	v = set_var("AUTOSIZE_DEEPSPEED_CONFIG");
	assert_non_null(v);
	snprintf(file, sizeof(file), "%s/deepspeed-3.json", dir);
	assert_string_equal(v, file);
	assert_private(dir, v);
	slurm_spank_exit(SP, 0, NULL);
	assert_int_equal(access(file, F_OK), -1);
	assert_int_equal(access(batch, F_OK), 0);
	/* The batch step's end: the folder stays for the job. */
	assert_int_equal(start_remote(policy_off, NULL), 0);
	assert_int_equal(run_step("7e9"), 0);
	assert_string_equal(set_var("AUTOSIZE_DEEPSPEED_CONFIG"), batch);
	snprintf(file, sizeof(file), "%s/report.jsonl", dir);
	test_touch(file);
	slurm_spank_exit(SP, 0, NULL);
	assert_int_equal(access(file, F_OK), 0);
	/* The job's end: all of it goes, another job's folder stays. */
	{
		char other[128];

		snprintf(other, sizeof(other), "%s/autosize-4243-XXXXXX",
			 tmpdir);
		assert_non_null(mkdtemp(other));
		run_job_epilog();
		assert_int_equal(access(dir, F_OK), -1);
		assert_int_equal(access(other, F_OK), 0);
		rm_tree(other);
	}
	/* Step 0 on another node: its own folder, kept after the step,
	 * gone with the job. */
	start_step0(dir, sizeof(dir));
	snprintf(file, sizeof(file), "%s/deepspeed-1.json", dir);
	test_touch(file);
	slurm_spank_exit(SP, 0, NULL);
	assert_int_equal(access(file, F_OK), 0);
	run_job_epilog();
	assert_int_equal(access(dir, F_OK), -1);
}

/* slurm_spank_exit runs as root: the step's file is removed through its
 * folder, never through the folder's name once the job's user has moved
 * the folder away and put a link to another folder in its place (here
 * one holding a hard link to that very file). */
static void test_remote_exit_swapped_dir(void **state)
{
	char dir[128], moved[160], other[160], link_file[192];
	const char *v;

	assert_int_equal(start_remote(policy_off, NULL), 0);
	stub.step_id = 1 + 3;
	assert_int_equal(run_step("7e9"), 0);
	v = set_var("AUTOSIZE_DEEPSPEED_CONFIG");
	assert_non_null(v);
	snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(v, '/') - v), v);
	snprintf(moved, sizeof(moved), "%s.moved", dir);
	snprintf(other, sizeof(other), "%s/other", tmpdir);
	snprintf(link_file, sizeof(link_file), "%s/deepspeed-3.json", other);
	assert_int_equal(mkdir(other, 0700), 0);
	assert_int_equal(link(v, link_file), 0);
	assert_int_equal(rename(dir, moved), 0);
	assert_int_equal(symlink(other, dir), 0);
	slurm_spank_exit(SP, 0, NULL);
	assert_int_equal(access(link_file, F_OK), 0);
	assert_int_equal(unlink(dir), 0);
	rm_tree(moved);
	rm_tree(other);
}

/* The report is read as root: a file system the job's user mounts over
 * a name in the job's folder (FUSE, which may never answer) is never
 * entered: the open is refused (openat2 RESOLVE_NO_XDEV, else the
 * folder's device check). A bind mount stands in for it. */
static void test_remote_report_not_through_mount(void **state)
{
	char report[192], elsewhere[192];
	const char *v;
	int fd;

	assert_int_equal(start_remote(policy_off, NULL), 0);
	stub.step_id = 1 + 3;
	assert_int_equal(run_step("7e9"), 0);
	v = set_var("AUTOSIZE_DEEPSPEED_CONFIG");
	assert_non_null(v);
	snprintf(report, sizeof(report), "%.*s/report.jsonl",
		 (int)(strrchr(v, '/') - v), v);
	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere.jsonl", tmpdir);
	test_touch(report);
	test_touch(elsewhere);
	fd = autosize_spank_job_dir_openat("report.jsonl", O_RDONLY);
	assert_true(fd >= 0);
	close(fd);
	if (mount(elsewhere, report, NULL, MS_BIND, NULL) != 0) {
		printf("skip: cannot bind-mount (%s): not root, or no "
		       "mount rights here\n", strerror(errno));
	} else {
		fd = autosize_spank_job_dir_openat("report.jsonl", O_RDONLY);
		if (fd >= 0)
			close(fd);
		assert_int_equal(umount(report), 0);
		assert_int_equal(fd, -1);
		assert_int_equal(errno, EXDEV);
	}
	unlink(elsewhere);
	slurm_spank_exit(SP, 0, NULL);
	run_job_epilog();
}

static void test_remote_model_env(void **state)
{
	autosize_model m;
	autosize_error e;
	char enc[AUTOSIZE_JOBENV_VALUE_MAX + 1];

	/* --model is a path only the submit host could read; the model
	 * comes with the job as SLURM_SPANK_AUTOSIZE_MODEL. */
	assert_int_equal(autosize_model_preset("llama-3-8b", &m, &e),
			 AUTOSIZE_OK);
	assert_true(autosize_model_encode(&m, enc, sizeof(enc)) > 0);
	assert_int_equal(start_remote(policy_off, NULL), 0);
	stub_put(stub.env, &stub.n_env, "SLURM_SPANK_AUTOSIZE_MODEL", enc);
	assert_int_equal(give("model", "/home/alice/llama8b/config.json"), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(stub.n_errors, 0);
	assert_non_null(set_var("AUTOSIZE_TP"));
	assert_non_null(strstr(set_var("AUTOSIZE_PLAN"), "2 nodes x 8 "));
}

static void test_remote_off_and_none(void **state)
{
	assert_int_equal(start_remote(policy_off, NULL), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(stub.n_set + stub.n_errors, 0);
	assert_int_equal(start_remote(policy_off, NULL), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(give("autosize", "off"), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(stub.n_set + stub.n_errors, 0);
}

/* 1 when some warning contains text; every warning reads "autosize: "
 * and none is labelled as an error. */
static int warns_contain(const char *text)
{
	int i, found = 0;

	for (i = 0; i < stub.n_warns; i++) {
		assert_true(strncmp(stub.warns[i], "autosize: warning: ",
				    19) == 0);
		assert_null(strstr(stub.warns[i], "error:"));
		if (strstr(stub.warns[i], text))
			found = 1;
	}
	return found;
}

static void test_remote_failures(void **state)
{
	/* No GPUs allocated: said on stderr, the step runs. */
	assert_int_equal(start_remote(policy_off, NULL), 0);
	stub.n_env = 0;
	stub_put(stub.env, &stub.n_env, "SLURM_JOB_NUM_NODES", "1");
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(stub.n_errors, 0);
	assert_int_equal(stub.n_warns, 1);
	assert_true(warns_contain("no GPUs on this node"));
	assert_null(set_var("AUTOSIZE_TP"));
	/* A model too big for the allocation: no layout, the step runs. */
	assert_int_equal(start_remote(policy_off, NULL), 0);
	assert_int_equal(give("model-params", "2e12"), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(stub.n_errors, 0);
	assert_int_equal(stub.n_warns, 1);
	assert_true(warns_contain("no layout fits 2 nodes x 8"));
	assert_null(set_var("AUTOSIZE_TP"));
	/* One node: torchrun runs standalone. */
	assert_int_equal(start_remote(policy_off, NULL), 0);
	stub_put(stub.env, &stub.n_env, "SLURM_JOB_NUM_NODES", "1");
	assert_int_equal(give("model-params", "1e9"), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_string_equal(set_var("AUTOSIZE_TORCHRUN_ARGS"),
			    "--nnodes=1 --nproc_per_node=8 --rdzv_backend=c10d "
			    "--rdzv_endpoint=localhost:30668 "
			    "--rdzv_id=4242-batch");
}

static void test_remote_gpucheck(void **state)
{
	const char *shared = test_shared_dir();
	char xml[512];

	if (!shared)
		skip();
	snprintf(xml, sizeof(xml), "%s/fixtures/hwloc/g4dnmetal.xml", shared);
	/* 8 T4 on a node of partition h100: a warning, the step runs. */
	assert_int_equal(start_remote(policy_warn, xml), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_task_init(SP, 0, NULL), 0);
	assert_int_equal(stub.n_errors, 0);
	assert_int_equal(stub.n_warns, 1);
	assert_string_equal(stub.warns[0],
			    "autosize: warning: GPU check: partition h100 is "
			    "sized for H100-SXM5-80GB but this node has 8 x "
			    "10de:1eb8");
	assert_non_null(set_var("AUTOSIZE_TP"));
	/* enforce: the tasks are refused, slurmstepd's launch is not. */
	assert_int_equal(start_remote(policy_enforce, xml), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_task_init(SP, 0, NULL), -1);
	assert_int_equal(stub.n_errors, 1);
	assert_non_null(strstr(stub.errors[0], "step refused"));
	assert_null(set_var("AUTOSIZE_TP"));
	/* enforce, and the node matches the count with no model known:
	 * partition not in the policy, T4 not in the catalog -> the
	 * policy's first partition is used for the layout. */
	assert_int_equal(start_remote(policy_enforce, xml), 0);
	stub_put(stub.env, &stub.n_env, "SLURM_JOB_PARTITION", "debug");
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_task_init(SP, 0, NULL), 0);
	assert_int_equal(stub.n_errors + stub.n_warns, 0);
	assert_non_null(set_var("AUTOSIZE_TP"));
	/* enforce and fewer GPUs than allocated. */
	assert_int_equal(start_remote(policy_enforce, xml), 0);
	stub_put(stub.env, &stub.n_env, "SLURM_JOB_PARTITION", "debug");
	stub_put(stub.env, &stub.n_env, "SLURM_GPUS_ON_NODE", "16");
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_task_init(SP, 0, NULL), -1);
	assert_non_null(strstr(stub.errors[0], "found 8 GPUs"));
}

/* A node with no GPU at all (hwloc XML v2: one NUMA node, one core). */
static const char no_gpu_xml[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
	"<topology version=\"2.0\">\n"
	" <object type=\"Machine\" os_index=\"0\" cpuset=\"0x1\" "
	"complete_cpuset=\"0x1\" allowed_cpuset=\"0x1\" nodeset=\"0x1\" "
	"complete_nodeset=\"0x1\" allowed_nodeset=\"0x1\" gp_index=\"1\">\n"
	"  <object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x1\" "
	"complete_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\" "
	"gp_index=\"2\" local_memory=\"1073741824\"/>\n"
	"  <object type=\"PU\" os_index=\"0\" cpuset=\"0x1\" "
	"complete_cpuset=\"0x1\" nodeset=\"0x1\" complete_nodeset=\"0x1\" "
	"gp_index=\"3\"/>\n"
	" </object>\n"
	"</topology>\n";

/* gpu_check: enforce refuses only a real mismatch, and only from
 * task_init (the task exits; slurmstepd's launch, and so the node, is
 * not failed): user_init returns 0 whatever happens. */
static void test_remote_enforce(void **state)
{
	char xml[64], missing[128];

	test_write_tmp(xml, sizeof(xml), no_gpu_xml);
	/* 8 GPUs allocated, none on the node: refused, every task. */
	assert_int_equal(start_remote(policy_enforce, xml), 0);
	assert_int_equal(run_step("7e9"), -1);
	assert_int_equal(slurm_spank_task_init(SP, 0, NULL), -1);
	assert_int_equal(stub.n_errors, 1);
	assert_string_equal(stub.errors[0], "autosize: GPU check: found 0 "
			    "GPUs on this node but the job was allocated 8: "
			    "step refused (gpu_check: enforce)");
	assert_null(set_var("AUTOSIZE_TP"));
	assert_null(set_var("AUTOSIZE_DEEPSPEED_CONFIG"));
	/* The next step of the plugin's life starts afresh. */
	assert_int_equal(start_remote(policy_off, xml), 0);
	assert_int_equal(run_step("7e9"), 0);
	/* A job that asked for no GPUs: a warning, the tasks start. */
	assert_int_equal(start_remote(policy_enforce, xml), 0);
	stub.n_env = 0;
	stub_put(stub.env, &stub.n_env, "SLURM_JOB_NUM_NODES", "1");
	assert_int_equal(run_step("7e9"), 0);
	assert_int_equal(stub.n_errors, 0);
	assert_true(warns_contain("no GPUs on this node"));
	/* A topology hwloc cannot read is no mismatch. */
	assert_int_equal(start_remote(policy_enforce, "/nonexistent.xml"), 0);
	assert_int_equal(run_step("7e9"), 0);
	assert_int_equal(stub.n_errors, 0);
	assert_true(warns_contain("GPUs not checked"));
	/* No folder for the DeepSpeed file (tmpdir missing): a warning,
	 * the rest exported, the tasks start. */
	snprintf(missing, sizeof(missing), "%s/missing", tmpdir);
	remote_tmpdir = missing;
	assert_int_equal(start_remote(policy_enforce, "/nonexistent.xml"), 0);
	remote_tmpdir = NULL;
	assert_int_equal(run_step("7e9"), 0);
	assert_int_equal(stub.n_errors, 0);
	assert_true(warns_contain("AUTOSIZE_DEEPSPEED_CONFIG not set"));
	assert_non_null(set_var("AUTOSIZE_TP"));
	assert_null(set_var("AUTOSIZE_DEEPSPEED_CONFIG"));
	/* No layout fits: a warning, the tasks start. */
	assert_int_equal(start_remote(policy_enforce, "/nonexistent.xml"), 0);
	assert_int_equal(run_step("2e12"), 0);
	assert_true(warns_contain("no layout fits"));
	unlink(xml);
}

/* A bad plugstack line: sbatch stops; slurmstepd and slurmd go on
 * with the plugin disabled (a failing required plugin there fails the
 * launch, or slurmd). */
static void test_remote_bad_plugstack_line(void **state)
{
	static const char *const bad[] = {"colour=red", NULL};

	assert_int_equal(start(S_CTX_ALLOCATOR, bad), -1);
	assert_int_equal(start(S_CTX_SLURMD, bad), 0);
	assert_int_equal(start(S_CTX_REMOTE, bad), 0);
	assert_int_equal(stub.n_errors, 1);
	stub_put(stub.env, &stub.n_env, "SLURM_JOB_NUM_NODES", "2");
	stub_put(stub.env, &stub.n_env, "SLURM_GPUS_ON_NODE", "8");
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_task_init(SP, 0, NULL), 0);
	assert_int_equal(stub.n_set + stub.n_warns, 0);
}

/* Options that cannot be registered stop sbatch, never a step: a
 * required plugin whose init fails in slurmstepd fails the launch and
 * drains the node. */
static void test_remote_register_fails(void **state)
{
	stub_register_rc = ESPANK_BAD_ARG;
	assert_int_equal(start(S_CTX_ALLOCATOR, NULL), -1);
	assert_int_equal(start(S_CTX_REMOTE, NULL), 0);
	assert_true(stub.n_errors >= 1);
	stub_register_rc = ESPANK_SUCCESS;
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_task_init(SP, 0, NULL), 0);
	assert_int_equal(slurm_spank_task_exit(SP, 0, NULL), 0);
	assert_int_equal(stub.n_set, 0);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Is the plugin required or optional: slurm.conf's PlugStackConfig, or
 * plugstack.conf beside it, includes followed. */
static void test_plugstack_mode(void **state)
{
	char dir[128], conf[192], stack[192], inc[192], frag[224];
	char where[256], text[512];

	snprintf(dir, sizeof(dir), "%s/etc", tmpdir);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(conf, sizeof(conf), "%s/slurm.conf", dir);
	snprintf(stack, sizeof(stack), "%s/plugstack.conf", dir);
	snprintf(inc, sizeof(inc), "%s/plugstack.conf.d", dir);
	snprintf(frag, sizeof(frag), "%s/autosize.conf", inc);
	assert_int_equal(mkdir(inc, 0755), 0);
	/* Default file beside slurm.conf; a relative include glob. */
	write_file(conf, "ClusterName=t\n");
	write_file(stack, "# site\nrequired /x/other.so\n"
		   "include plugstack.conf.d/*.conf\n");
	write_file(frag, "optional /usr/lib/slurm/spank_autosize.so "
		   "policy=/etc/a.yaml # as installed\n");
	assert_int_equal(autosize_spank_plugstack_mode(
				 conf, "/build/spank_autosize.so", where,
				 sizeof(where)), AUTOSIZE_PLUGSTACK_OPTIONAL);
	snprintf(text, sizeof(text), "%s:1", frag);
	assert_string_equal(where, text);
	write_file(frag, "  required\t/usr/lib/slurm/spank_autosize.so\n");
	assert_int_equal(autosize_spank_plugstack_mode(
				 conf, "spank_autosize.so", where,
				 sizeof(where)), AUTOSIZE_PLUGSTACK_REQUIRED);
	/* Not listed; commented out; no such file. */
	assert_int_equal(autosize_spank_plugstack_mode(
				 conf, "spank_other.so", where, sizeof(where)),
			 AUTOSIZE_PLUGSTACK_UNKNOWN);
	write_file(frag, "#optional /usr/lib/slurm/spank_autosize.so\n");
	assert_int_equal(autosize_spank_plugstack_mode(
				 conf, "spank_autosize.so", where,
				 sizeof(where)), AUTOSIZE_PLUGSTACK_UNKNOWN);
	assert_int_equal(autosize_spank_plugstack_mode(
				 "/nonexistent/slurm.conf", "spank_autosize.so",
				 where, sizeof(where)),
			 AUTOSIZE_PLUGSTACK_UNKNOWN);
	/* PlugStackConfig= names another file. */
	snprintf(text, sizeof(text), "ClusterName=t\n  plugstackconfig=%s "
		 "# ours\n", frag);
	write_file(conf, text);
	write_file(frag, "optional spank_autosize.so\n");
	assert_int_equal(autosize_spank_plugstack_mode(
				 conf, "/a/spank_autosize.so", where,
				 sizeof(where)), AUTOSIZE_PLUGSTACK_OPTIONAL);
	rm_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_register),
		cmocka_unit_test(test_bad_value),
		cmocka_unit_test(test_plugstack_args),
		cmocka_unit_test(test_no_options),
		cmocka_unit_test(test_submit_silent),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_chain_sbatch),
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_model_env),
		cmocka_unit_test(test_bad_model),
		cmocka_unit_test(test_nofit_passes),
		cmocka_unit_test(test_policy_problems),
		cmocka_unit_test(test_srun_inside_job),
		cmocka_unit_test(test_remote_export),
		cmocka_unit_test(test_remote_ulysses),
		cmocka_unit_test(test_remote_finetune_stacks),
		cmocka_unit_test(test_remote_step_nodes),
		cmocka_unit_test(test_remote_planted),
		cmocka_unit_test(test_remote_job_dir_reused),
		cmocka_unit_test(test_remote_exit_swapped_dir),
		cmocka_unit_test(test_remote_report_not_through_mount),
		cmocka_unit_test(test_remote_model_env),
		cmocka_unit_test(test_remote_off_and_none),
		cmocka_unit_test(test_remote_failures),
		cmocka_unit_test(test_remote_gpucheck),
		cmocka_unit_test(test_remote_enforce),
		cmocka_unit_test(test_remote_bad_plugstack_line),
		cmocka_unit_test(test_remote_register_fails),
		cmocka_unit_test(test_plugstack_mode),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
