/*
 * Unit tests of the SPANK plugin's callbacks (plugin/spank*.c), linked
 * with stand-ins for the spank_* and slurm_* functions that sbatch and
 * slurmstepd provide at run time.
 */
#include <stdarg.h>
#include <sys/stat.h>
#include "testutil.h"
#include <slurm/spank.h>
#include "autosize.h"

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
	char errors[STUB_MAX][STUB_LEN];
	int n_errors;
	char infos[STUB_MAX][STUB_LEN];
	int n_infos;
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

spank_err_t spank_option_register(spank_t sp, struct spank_option *opt)
{
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
		*va_arg(ap, uint32_t *) = 0xfffffffbU; /* batch */
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

static void stub_log(char lines[][STUB_LEN], int *n, const char *fmt,
		     va_list ap)
{
	if (*n >= STUB_MAX)
		return;
	vsnprintf(lines[*n], STUB_LEN, fmt, ap);
	(*n)++;
}

void slurm_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	stub_log(stub.errors, &stub.n_errors, fmt, ap);
	va_end(ap);
	printf("  [error] %s\n", stub.errors[stub.n_errors - 1]);
}

void slurm_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	stub_log(stub.infos, &stub.n_infos, fmt, ap);
	va_end(ap);
	printf("  [info] %s\n", stub.infos[stub.n_infos - 1]);
}

void slurm_verbose(const char *fmt, ...)
{
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

static int teardown(void **state)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/autosize-deepspeed-4242.batch.json",
		 tmpdir);
	unlink(path);
	rmdir(tmpdir);
	unlink(policy_off);
	unlink(policy_enforce);
	unlink(policy_warn);
	return 0;
}

/* Start one plugin lifetime: slurm_spank_init in ctx with args. */
static int start(spank_context_t ctx, const char *const *args)
{
	char *av[8];
	int ac = 0;

	slurm_spank_exit(SP, 0, NULL);
	memset(&stub, 0, sizeof(stub));
	stub.ctx = ctx;
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

static int infos_contain(const char *text)
{
	int i;

	for (i = 0; i < stub.n_infos; i++)
		if (strstr(stub.infos[i], text))
			return 1;
	return 0;
}

/* ---- option registration and validation -------------------------------- */

static void test_register(void **state)
{
	static const char *const names[] = {
		"model-params", "model", "train-tokens", "train-time",
		"train-mode", "train-seq-len", "train-batch",
		"train-precision", "train-optimizer", "autosize", NULL};
	int i;

	assert_int_equal(start(S_CTX_ALLOCATOR, NULL), 0);
	for (i = 0; names[i]; i++) {
		struct spank_option *o = find_opt(names[i]);

		assert_int_equal(o->has_arg, 1);
		assert_true(strncmp(o->usage, "[autosize] ", 11) == 0);
		assert_true(strlen(o->name) <= SPANK_OPTION_MAXLEN);
	}
	assert_int_equal(stub.n_opts, i);
	/* Not in the job-facing contexts: nothing registered. */
	assert_int_equal(start(S_CTX_SLURMD, NULL), 0);
	assert_int_equal(stub.n_opts, 0);
	assert_int_equal(start(S_CTX_REMOTE, NULL), 0);
	assert_int_equal(stub.n_opts, i);
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

static void test_plan_shown(void **state)
{
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(give("train-tokens", "100B"), 0);
	assert_int_equal(give("train-time", "7d"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(stub.n_errors, 0);
	assert_true(stub.n_infos >= 1);
	assert_true(strncmp(stub.infos[0], "autosize: suggested: ", 21) == 0);
	assert_non_null(strstr(stub.infos[0], ", TP "));
	assert_non_null(strstr(stub.infos[0], "time limit "));
	/* A bare parameter count has no architecture to send; slurmctld
	 * is told the plan was shown. */
	assert_int_equal(stub.n_jobctl, 1);
	assert_string_equal(stub_get(stub.jobctl, stub.n_jobctl,
				     AUTOSIZE_ENV_SHOWN), "1");
	assert_null(stub_get(stub.jobctl, stub.n_jobctl, AUTOSIZE_ENV_MODEL));
}

static void test_explain(void **state)
{
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(give("train-tokens", "1e9"), 0);
	assert_int_equal(give("autosize", "explain"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), -1);
	assert_true(infos_contain("autosize: layout: TP "));
	assert_true(infos_contain("autosize: memory: "));
	assert_true(infos_contain("nothing submitted"));
	assert_int_equal(stub.n_jobctl, 0);
	/* explain with a model that cannot fit anywhere still stops. */
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model-params", "5e12"), 0);
	assert_int_equal(give("autosize", "explain"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), -1);
	assert_true(infos_contain("NOT FEASIBLE"));
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
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(give("train-precision", "fp8"), 0);
	setenv("SBATCH_PARTITION", "a100", 1);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), -1);
	unsetenv("SBATCH_PARTITION");
	assert_int_equal(stub.n_errors, 1);
	assert_non_null(strstr(stub.errors[0], "fp8"));
}

static void test_nofit_passes(void **state)
{
	/* Too big for every partition: shown, then slurmctld decides. */
	assert_int_equal(start(S_CTX_ALLOCATOR, alloc_args), 0);
	assert_int_equal(give("model-params", "5e12"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_true(infos_contain("autosize: no feasible plan: "));
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

	/* No policy file: built-in defaults have no partition; the job
	 * goes through with a warning. */
	assert_int_equal(start(S_CTX_ALLOCATOR, missing), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(stub.n_errors, 1);
	assert_non_null(strstr(stub.errors[0], "warning"));
	/* A broken policy: warned, job goes through; explain stops. */
	test_write_tmp(broken, sizeof(broken), "defaults:\n  colour: red\n");
	snprintf(arg, sizeof(arg), "policy=%s", broken);
	broken_args[0] = arg;
	assert_int_equal(start(S_CTX_ALLOCATOR, broken_args), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), 0);
	assert_int_equal(stub.n_errors, 1);
	assert_int_equal(start(S_CTX_ALLOCATOR, broken_args), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(give("autosize", "explain"), 0);
	assert_int_equal(slurm_spank_init_post_opt(SP, 0, NULL), -1);
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
static char remote_policy_arg[160], remote_tmpdir_arg[96];
static char remote_xml_arg[600];

static int start_remote(const char *policy, const char *xml)
{
	int n = 0;

	snprintf(remote_policy_arg, sizeof(remote_policy_arg), "policy=%s",
		 policy);
	snprintf(remote_tmpdir_arg, sizeof(remote_tmpdir_arg), "tmpdir=%s",
		 tmpdir);
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

static void test_remote_export(void **state)
{
	char want_path[128], text[2048];
	const char *v;
	struct stat st;
	FILE *f;
	size_t n;
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
	assert_int_equal(set_int("AUTOSIZE_MICRO_BATCH") *
			 set_int("AUTOSIZE_GRAD_ACCUM") * dp,
			 set_int("AUTOSIZE_GLOBAL_BATCH"));
	v = set_var("AUTOSIZE_PLAN");
	assert_non_null(v);
	assert_true(strncmp(v, "2 nodes x 8 H100-SXM5-80GB, TP ", 31) == 0);
	v = set_var("AUTOSIZE_TORCHRUN_ARGS");
	assert_non_null(v);
	assert_string_equal(v, "--nnodes=2 --nproc-per-node=8 "
			    "--rdzv-backend=c10d --rdzv-endpoint=gpu07:29500 "
			    "--rdzv-id=4242");
	v = set_var("AUTOSIZE_MEGATRON_ARGS");
	assert_non_null(v);
	snprintf(text, sizeof(text), "--tensor-model-parallel-size %d "
		 "--pipeline-model-parallel-size %d ", tp, pp);
	assert_true(strncmp(v, text, strlen(text)) == 0);
	assert_non_null(strstr(v, "--seq-length 4096"));
	/* The DeepSpeed file: job and step in its name, user-only. */
	snprintf(want_path, sizeof(want_path),
		 "%s/autosize-deepspeed-4242.batch.json", tmpdir);
	v = set_var("AUTOSIZE_DEEPSPEED_CONFIG");
	assert_non_null(v);
	assert_string_equal(v, want_path);
	assert_int_equal(lstat(want_path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_uid, geteuid());
	f = fopen(want_path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	snprintf(want_path, sizeof(want_path), "\"train_batch_size\": %d,",
		 set_int("AUTOSIZE_GLOBAL_BATCH"));
	assert_non_null(strstr(text, want_path));
	/* The same step again (requeue): the file of ours is rewritten. */
	stub.n_set = 0;
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(stub.n_errors, 0);
	assert_non_null(set_var("AUTOSIZE_DEEPSPEED_CONFIG"));
	/* The end of the step removes it. */
	slurm_spank_exit(SP, 0, NULL);
	assert_int_equal(access(set_var("AUTOSIZE_DEEPSPEED_CONFIG"), F_OK),
			 -1);
}

static void test_remote_planted_link(void **state)
{
	char path[128], target[128];

	snprintf(path, sizeof(path), "%s/autosize-deepspeed-4242.batch.json",
		 tmpdir);
	snprintf(target, sizeof(target), "%s/elsewhere", tmpdir);
	unlink(path);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(start_remote(policy_off, NULL), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	/* Everything else is exported; the file is refused, the link not
	 * followed. */
	assert_non_null(set_var("AUTOSIZE_TP"));
	assert_null(set_var("AUTOSIZE_DEEPSPEED_CONFIG"));
	assert_true(stub.n_errors >= 1);
	assert_int_equal(access(target, F_OK), -1);
	unlink(path);
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

static void test_remote_failures(void **state)
{
	/* No GPUs allocated: said on stderr, the step runs. */
	assert_int_equal(start_remote(policy_off, NULL), 0);
	stub.n_env = 0;
	stub_put(stub.env, &stub.n_env, "SLURM_JOB_NUM_NODES", "1");
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(stub.n_errors, 1);
	assert_non_null(strstr(stub.errors[0], "SLURM_GPUS_ON_NODE"));
	assert_null(set_var("AUTOSIZE_TP"));
	/* A model too big for the allocation: no layout, the step runs. */
	assert_int_equal(start_remote(policy_off, NULL), 0);
	assert_int_equal(give("model-params", "2e12"), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(stub.n_errors, 1);
	assert_non_null(strstr(stub.errors[0], "no layout fits 2 nodes x 8"));
	assert_null(set_var("AUTOSIZE_TP"));
	/* One node: torchrun runs standalone. */
	assert_int_equal(start_remote(policy_off, NULL), 0);
	stub_put(stub.env, &stub.n_env, "SLURM_JOB_NUM_NODES", "1");
	assert_int_equal(give("model-params", "1e9"), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_string_equal(set_var("AUTOSIZE_TORCHRUN_ARGS"),
			    "--nnodes=1 --nproc-per-node=8 --standalone");
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
	assert_int_equal(stub.n_errors, 1);
	assert_string_equal(stub.errors[0],
			    "autosize: GPU check: partition h100 is sized for "
			    "H100-SXM5-80GB but this node has 8 x 10de:1eb8");
	assert_non_null(set_var("AUTOSIZE_TP"));
	/* enforce: the step fails. */
	assert_int_equal(start_remote(policy_enforce, xml), 0);
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), -1);
	assert_null(set_var("AUTOSIZE_TP"));
	/* enforce, and the node matches the count with no model known:
	 * partition not in the policy, T4 not in the catalog -> the
	 * policy's first partition is used for the layout. */
	assert_int_equal(start_remote(policy_enforce, xml), 0);
	stub_put(stub.env, &stub.n_env, "SLURM_JOB_PARTITION", "debug");
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), 0);
	assert_int_equal(stub.n_errors, 0);
	assert_non_null(set_var("AUTOSIZE_TP"));
	/* enforce and fewer GPUs than allocated. */
	assert_int_equal(start_remote(policy_enforce, xml), 0);
	stub_put(stub.env, &stub.n_env, "SLURM_JOB_PARTITION", "debug");
	stub_put(stub.env, &stub.n_env, "SLURM_GPUS_ON_NODE", "16");
	assert_int_equal(give("model-params", "7e9"), 0);
	assert_int_equal(slurm_spank_user_init(SP, 0, NULL), -1);
	assert_non_null(strstr(stub.errors[0], "found 8 GPUs"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_register),
		cmocka_unit_test(test_bad_value),
		cmocka_unit_test(test_plugstack_args),
		cmocka_unit_test(test_no_options),
		cmocka_unit_test(test_plan_shown),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_model_env),
		cmocka_unit_test(test_bad_model),
		cmocka_unit_test(test_nofit_passes),
		cmocka_unit_test(test_policy_problems),
		cmocka_unit_test(test_srun_inside_job),
		cmocka_unit_test(test_remote_export),
		cmocka_unit_test(test_remote_planted_link),
		cmocka_unit_test(test_remote_model_env),
		cmocka_unit_test(test_remote_off_and_none),
		cmocka_unit_test(test_remote_failures),
		cmocka_unit_test(test_remote_gpucheck),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
