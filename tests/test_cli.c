/*
 * End to end: run build/autosize, parse its JSON back, check the numbers.
 */
#include <ctype.h>
#include <fcntl.h>
#include <locale.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "testutil.h"
#include "autosize.h"

#define OUT_MAX 65536

static char out[OUT_MAX], err[OUT_MAX];

/* Read a whole fd into buf (NUL-terminated). */
static void slurp(int fd, char *buf)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < OUT_MAX && (r = read(fd, buf + n, OUT_MAX - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
}

/* Run the CLI with args (NULL-terminated); returns its exit status. */
static int run_cli(const char *const *args)
{
	char path[256], *argv[64];
	int po[2], pe[2], status, i;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/autosize", test_build_dir());
	argv[0] = path;
	for (i = 0; args[i] && i < 62; i++)
		argv[i + 1] = (char *)args[i];
	argv[i + 1] = NULL;
	assert_int_equal(pipe(po), 0);
	assert_int_equal(pipe(pe), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(pe[0]);
		execv(path, argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	slurp(po[0], out);   /* outputs are small: no deadlock */
	slurp(pe[0], err);
	close(po[0]);
	close(pe[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* A small strict JSON checker: returns the end of the value or NULL. */
static const char *json_value(const char *p, int depth);

static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static const char *json_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p && *p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\')
			p++;
		if (*p)
			p++;
	}
	return *p == '"' ? p + 1 : NULL;
}

static const char *json_value(const char *p, int depth)
{
	char *end;

	p = json_ws(p);
	if (depth > 16)
		return NULL;
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		int obj = *p == '{';

		p = json_ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (obj) {
				p = json_string(json_ws(p));
				if (!p)
					return NULL;
				p = json_ws(p);
				if (*p++ != ':')
					return NULL;
			}
			p = json_value(p, depth + 1);
			if (!p)
				return NULL;
			p = json_ws(p);
			if (*p == close)
				return p + 1;
			if (*p++ != ',')
				return NULL;
		}
	}
	if (*p == '"')
		return json_string(p);
	if (strncmp(p, "true", 4) == 0 || strncmp(p, "null", 4) == 0)
		return p + 4;
	if (strncmp(p, "false", 5) == 0)
		return p + 5;
	strtod(p, &end);
	return end > p ? end : NULL;
}

/* The number after "key": in a JSON text (keys in this output are unique
 * except inside memory_per_gpu_bytes, which is looked up by its own
 * names). */
static double json_num(const char *json, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(json, pat);
	assert_non_null(p);
	return strtod(p + strlen(pat), NULL);
}

static void assert_json(const char *text)
{
	const char *end = json_value(text, 0);

	assert_non_null(end);
	assert_true(*json_ws(end) == '\0');
}

static void test_back_of_envelope_13b(void **state)
{
	const char *const args[] = {"plan", "--model-params=13e9",
		"--train-tokens=2e11", "--gpu=A100-SXM4-80GB", "--mfu=0.5",
		"--train-time=10d", "--time-reserve=0", "--policy=none",
		"--json", NULL};

	assert_int_equal(run_cli(args), 0);
	assert_json(out);
	/* 6 x 13e9 x 2e11 / (312e12 x 0.5 x 864000 s) = 115.7 -> 116 */
	assert_int_equal((int)json_num(out, "gpus_min"), 116);
	assert_true(json_num(out, "gpus") >= 116);
	assert_true(fabs(json_num(out, "flops_total") - 1.56e22) < 1e18);
	assert_true(json_num(out, "train_hours") <= 240.0);
}

static void test_back_of_envelope_7b(void **state)
{
	const char *const args[] = {"plan", "--model-params", "7e9",
		"--train-tokens", "2e11", "--gpu", "a100-80gb", "--mfu", "0.4",
		"--policy", "none", "--json", NULL};
	double gh;

	assert_int_equal(run_cli(args), 0);
	assert_json(out);
	/* 8.4e21 / (312e12 x 0.4) / 3600 = 18,697 (seed 003: ~18,667 at a
	 * rounded 125 TFLOP/s) */
	gh = json_num(out, "gpu_hours");
	assert_true(fabs(gh - 18697) < 20);
	assert_true(fabs(gh - 18667) / 18667 < 0.01);
}

static void test_json_fields(void **state)
{
	static const char *const keys[] = {"gpu", "nodes", "gpus_per_node",
		"gpus", "gpus_min", "tp", "pp", "dp", "zero_stage",
		"recompute", "micro_batch", "grad_accum", "params",
		"params_active", "tokens", "flops_total",
		"memory_per_gpu_bytes", "weights", "gradients", "optimizer",
		"activations", "other", "total", "cache", "usable",
		"memory_stage",
		"mfu", "hfu",
		"tflops_per_gpu", "tokens_per_s", "train_hours",
		"train_hours_low", "train_hours_high",
		"time_limit_min", "gpu_hours", "cost", "currency", "warnings"};
	const char *const args[] = {"plan", "--model=mixtral-8x7b",
		"--train-tokens=1T", "--gpu=h100", "--policy=none", "--json",
		NULL};
	char pat[64];
	size_t i;
	double total, sum, gpus;

	assert_int_equal(run_cli(args), 0);
	assert_json(out);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		snprintf(pat, sizeof(pat), "\"%s\":", keys[i]);
		assert_non_null(strstr(out, pat));
	}
	/* The parts add up, the plan fits, the layout covers the GPUs. */
	sum = json_num(out, "weights") + json_num(out, "gradients") +
	      json_num(out, "optimizer") + json_num(out, "activations") +
	      json_num(out, "other");
	total = json_num(out, "total");
	assert_true(fabs(sum - total) <= 8);
	assert_true(total <= json_num(out, "usable"));
	gpus = json_num(out, "gpus");
	assert_true(fabs(json_num(out, "tp") * json_num(out, "pp") *
			 json_num(out, "dp") - gpus) < 0.5);
	assert_true(json_num(out, "params_active") <
		    0.35 * json_num(out, "params"));
	/* the interval holds the prediction; the time limit covers its
	 * upper end (at least wall time x 1.15) plus the 15 min start-up
	 * allowance and the job's checkpoint writes, rounded up to
	 * minutes */
	assert_true(json_num(out, "train_hours_low") <=
		    json_num(out, "train_hours"));
	assert_true(json_num(out, "train_hours_high") >=
		    json_num(out, "train_hours"));
	assert_true(fabs(json_num(out, "time_limit_min") -
			 ceil(fmax(json_num(out, "train_hours_high"),
				   json_num(out, "train_hours") * 1.15) * 60 +
			      15 + json_num(out, "job_write_s") / 60)) <= 1);
	assert_true(json_num(out, "job_write_s") > 0);
}

static void test_bad_input_exit_2(void **state)
{
	static const char *const bad[][3] = {
		{"--model-params=-5", NULL, "--model-params"},
		{"--model-params=70e9x", NULL, "--model-params"},
		{"--train-time=10x", "--model-params=7e9", "--train-time"},
		{"--model=no-such-model", NULL, "no-such-model"},
		{"--gpu=Z9000", "--model-params=7e9", "Z9000"},
		{"--train-mode=rlhf", "--model-params=7e9", "--train-mode"},
		/* two options that ask for different things */
		{"--train-framework=megatron", "--train-stack=hf",
		 "--train-stack hf runs fsdp or deepspeed, not "
		 "--train-framework megatron"},
		{"--train-mode=lora", "--train-stack=megatron",
		 "trains every weight"},
		{"--optimizer-offload=off", "--param-offload=on",
		 "drop one of them"},
		{"--model=llama3-70b", NULL, "did you mean llama-3-70b?"},
		{"--bogus=1", NULL, "--bogus"},
		{"--model=/nonexistent/config.json", NULL, "/nonexistent"},
		/* inputs read the way people write them */
		{"--model-params=70", NULL, "did you mean 70B?"},
		{"--train-batch=4M", "--model-params=7e9", "4Mtok"},
		{"--partition=h100", "--model-params=7e9",
		 "--partition h100 and --gpu h100 both given"},
		{"--jsn", NULL, "unknown option '--jsn'"},
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		/* later options override earlier ones: the bad one last */
		const char *args[8] = {"plan", "--gpu=h100", "--policy=none",
				       bad[i][1] ? bad[i][1] : bad[i][0],
				       bad[i][1] ? bad[i][0] : NULL, NULL};
		char *nl;

		assert_int_equal(run_cli(args), 2);
		assert_non_null(strstr(err, bad[i][2]));
		assert_int_equal(strncmp(err, "autosize: ", 10), 0);
		/* exactly one line */
		nl = strchr(err, '\n');
		assert_non_null(nl);
		assert_true(nl[1] == '\0');
	}
}

/* One line on stderr, starting "autosize: " and holding what. */
static void assert_one_line(const char *what)
{
	const char *nl = strchr(err, '\n');

	assert_int_equal(strncmp(err, "autosize: ", 10), 0);
	if (!strstr(err, what))
		fail_msg("'%s' not in: %s", what, err);
	assert_non_null(nl);
	assert_true(nl[1] == '\0');
}

/*
 * The option forms the commands take (getopt_long from each table,
 * cli/opts.c): --opt=v, --opt v, -xv, -x v, sbatch's short forms, flags,
 * values that start with a dash; what is refused: abbreviations, short
 * flags run together, '--' in plan, a missing value, each in one line.
 */
static void test_option_forms(void **state)
{
	static const char *const eq[] = {"plan", "--model=llama-3-8b",
		"--train-tokens=1e11", "--gpu=h100", "--policy=none",
		"--nodes=2", "--tp=2", "--json", NULL};
	static const char *const split[] = {"plan", "--model", "llama-3-8b",
		"--train-tokens", "1e11", "-G", "h100:16", "--policy", "none",
		"-N2", "--tp", "2", "--json", NULL};
	static const char *const sbatch[] = {"plan", "--model=llama-3-8b",
		"--train-tokens=1e11", "--gpu=h100", "--policy=none",
		"-J", "-x-y", "-ofile", "--mem=4G", "--exclusive", "-N", "2-4",
		"-t", "2-00:00:00", NULL};
	static const char *const refused[][3] = {
		{"--mod=llama-3-8b", NULL,
		 "unknown option '--mod=llama-3-8b' (see autosize plan --help)"},
		{"-hx", NULL, "unexpected argument '-hx'"},
		{"-Z", NULL, "unexpected argument '-Z'"},
		{"script.sh", NULL, "unexpected argument 'script.sh'"},
		{"--", "-p", "unknown option '--'"},
		{"--exclusive=user", NULL, "unknown option '--exclusive=user'"},
		{"--json=1", NULL, "unknown option '--json=1'"},
		{"-p", NULL, "autosize: -p needs a value\n"},
		{"--gres", NULL, "autosize: --gres needs a value\n"},
		{"--tp", NULL, "--tp needs a value (--name=value)"},
	};
	const char *cal[] = {"calibrate", "--min-jobs=x", "f.jsonl", NULL};
	const char *rep[] = {"report", "--json", "--bogus", NULL};
	const char *rep_dd[] = {"report", "--max-jobs=3", "--",
				"tests/data/report-jobs.jsonl", NULL};
	const char *rep_nv[] = {"report", "tests/data/report-jobs.jsonl",
				"--max-jobs", NULL};
	char first[OUT_MAX];
	size_t i;

	(void)state;
	assert_int_equal(run_cli(eq), 0);
	snprintf(first, sizeof(first), "%s", out);
	assert_int_equal((int)json_num(first, "nodes"), 2);
	assert_int_equal((int)json_num(first, "tp"), 2);
	/* the same request spelled the other ways: the same plan */
	assert_int_equal(run_cli(split), 0);
	assert_string_equal(out, first);
	assert_int_equal(run_cli(sbatch), 0);
	assert_non_null(strstr(err, "not used for sizing (they do not "
				    "change the GPUs, nodes or time): -J -x-y "
				    "-ofile --mem=4G --exclusive\n"));
	assert_non_null(strstr(err, "-N MIN-MAX: planned at the minimum"));
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		const char *args[] = {"plan", "--model=llama-3-8b",
				      "--gpu=h100", "--policy=none",
				      refused[i][0], refused[i][1], NULL};

		assert_int_equal(run_cli(args), 2);
		assert_one_line(refused[i][2]);
	}
	assert_int_equal(run_cli(cal), 2);
	assert_one_line("--min-jobs: 'x' is not a count");
	assert_int_equal(run_cli(rep), 2);
	assert_int_equal(strncmp(err, "autosize: report: unknown option "
				 "'--bogus'\nusage: ", 49), 0);
	assert_int_equal(run_cli(rep_dd), 0);
	assert_non_null(strstr(out, "only the first 3 sized jobs"));
	assert_int_equal(run_cli(rep_nv), 2);
	assert_one_line("autosize: --max-jobs needs a value\n");
}

/* 8k is 8192, a token batch is whole sequences, a bare
 * --train-time under an hour and --train-tokens under one step warn. */
static void test_inputs_as_written(void **state)
{
	const char *const args[] = {"plan", "--model=llama-3-8b",
		"--train-tokens=2000", "--train-seq-len=8k",
		"--train-batch=4Mtok", "--train-time=30", "--gpu=h100",
		"--policy=none", "--json", NULL};
	const char *const text[] = {"plan", "--model=llama-3-8b",
		"--train-tokens=1e9", "--train-seq-len=128k", "--gpu=h100",
		"--policy=none", NULL};

	assert_int_equal(run_cli(args), 0);
	assert_json(out);
	assert_int_equal((int)json_num(out, "seq_len"), 8192);
	assert_int_equal((int)json_num(out, "global_batch"), 512);
	assert_non_null(strstr(out, "read as 30 minutes"));
	assert_non_null(strstr(out, "less than one optimizer step"));
	/* Llama 3 8B has 8192 positions: 128k warns */
	run_cli(text);
	assert_non_null(strstr(out, "global batch"));
	assert_non_null(strstr(out, "x 131072)"));
	assert_non_null(strstr(out, "above the model's 8192 positions"));
}

/* MoE and latent-attention config.json files plan, with active counts. */
static void test_moe_config_json(void **state)
{
	const char *const args[] = {"plan",
		"--model=" TEST_DATA "/configs/DeepSeek-V2-Lite.json",
		"--train-tokens=1e9", "--gpu=h100", "--policy=none", "--json",
		NULL};

	assert_int_equal(run_cli(args), 0);
	assert_json(out);
	assert_true(fabs(json_num(out, "params") - 15.7e9) < 0.05e9);
	assert_true(json_num(out, "params_active") < 3e9);
}

static void test_pinned_misfit_exit_1(void **state)
{
	/* 70B full training pinned onto 8 GPUs with no sharding: prints all
	 * numbers, says why, exits 1. */
	const char *const args[] = {"plan", "--model=llama-2-70b",
		"--train-tokens=1e9", "--gpu=h100", "--nodes=1", "--tp=1",
		"--pp=1", "--zero=0", "--recompute=full", "--micro-batch=1",
		"--policy=none", "--json", NULL};

	assert_int_equal(run_cli(args), 1);
	assert_json(out);
	assert_non_null(strstr(out, "\"feasible\":false"));
	assert_non_null(strstr(out, "GiB per GPU"));
	assert_true(json_num(out, "total") > json_num(out, "usable"));
	assert_true(json_num(out, "weights") > 130e9);
}

/* The quickstart's job on the testbed without a deadline: 1.5 years on
 * 4 nodes is no plan. Exit 1, saying the best time and what the 30-day
 * horizon needs. */
static void test_too_long_exit_1(void **state)
{
	const char *const args[] = {"plan", "--model-params=70e9",
		"--train-tokens=2e12",
		"--policy=contrib/testbed/autosize.yaml", NULL};

	assert_int_equal(run_cli(args), 1);
	assert_non_null(strstr(out, "NOT FEASIBLE"));
	assert_non_null(strstr(out, "maximum training time of 180 days"));
	assert_non_null(strstr(out, "finishing in 30 days needs about"));
	assert_non_null(strstr(out, "site's horizon"));
}

static void test_check_config(void **state)
{
	const char *const good[] = {"check-config", "etc/autosize.yaml", NULL};
	const char *const bad[] = {"check-config", "/nonexistent.yaml", NULL};

	assert_int_equal(run_cli(good), 0);
	assert_non_null(strstr(out, "is valid"));
	/* the framework jobs get when they name none */
	assert_non_null(strstr(out, ", framework megatron,"));
	assert_int_equal(run_cli(bad), 2);
	assert_non_null(strstr(err, "/nonexistent.yaml"));
}

/* The probe's sbatch gets the model, not the real run's token budget nor
 * its deadline: slurmctld warned a 30-min probe about a time limit ending
 * before the predicted 65.9 h and about chained jobs; nor the budget's
 * evaluations or what is done of it, which slurmctld refuses without
 * --train-tokens. A stand-in sbatch on PATH records its arguments and
 * fails. */
static void cli_probe_forwards(void)
{
	const char *const args[] = {"probe",
		"--policy=contrib/testbed/autosize.yaml", "--model-params=7e9",
		"--train-tokens=1e9", "--train-tokens-done=2e8",
		"--eval-tokens=1e8", "--train-time=2d", "--", "train.sh",
		NULL};
	char dir[] = "/tmp/autosize-probe-XXXXXX", file[128], log[4096];
	char path[4200], *old_path = getenv("PATH");
	FILE *f;
	size_t n;

	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/sbatch", dir);
	f = fopen(file, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\necho \"$@\" >>%s/log\nexit 1\n", dir);
	fclose(f);
	assert_int_equal(chmod(file, 0755), 0);
	snprintf(path, sizeof(path), "%s:%s", dir, old_path ? old_path : "");
	old_path = old_path ? strdup(old_path) : NULL;
	setenv("PATH", path, 1);
	assert_int_equal(run_cli(args), 2);
	if (old_path)
		setenv("PATH", old_path, 1);
	free(old_path);
	snprintf(file, sizeof(file), "%s/log", dir);
	f = fopen(file, "r");
	assert_non_null(f);
	n = fread(log, 1, sizeof(log) - 1, f);
	log[n] = '\0';
	fclose(f);
	unlink(file);
	snprintf(file, sizeof(file), "%s/sbatch", dir);
	unlink(file);
	rmdir(dir);
	assert_non_null(strstr(log, "--model-params=7e9"));
	assert_null(strstr(log, "--train-tokens"));
	assert_null(strstr(log, "--eval-tokens"));
	assert_null(strstr(log, "--train-time"));
}

/* check-config shows the checkpoint policy and a partition's price
 * schedule and storage; autosize probe refuses what it cannot run. */
static void test_renter_config(void **state)
{
	static const char policy[] =
		"checkpoint: {interval: 30m, max_share: 10%, keep: 2}\n"
		"partitions:\n"
		"  - name: rent\n"
		"    gpu: h100\n"
		"    gpus_per_node: 8\n"
		"    nodes: 4\n"
		"    network: ib\n"
		"    network_gbps_per_node: 3200\n"
		"    price_per_gpu_hour: 2.5\n"
		"    pricing:\n"
		"      price_per_node_hour: 17\n"
		"      off_peak: 22:00-06:00\n"
		"      off_peak_discount: 40%\n"
		"      rental_discounts: [{min_rental: 7d, discount: 10%}]\n"
		"      platform_fee: 5%\n"
		"    storage_write_gbs: 4\n"
		"    storage_tb: 2\n";
	char path[64];
	const char *args[] = {"check-config", NULL, NULL};
	const char *const no_script[] = {"probe", "--model-params=7e9",
		"--policy=none", NULL};
	const char *const one_id[] = {"probe", "--collect", "12",
		"--policy=none", NULL};
	/* --policy FILE, two words, as autosize plan takes it */
	const char *const policy_word[] = {"probe", "--model-params=7e9",
		"--policy", "none", NULL};
	const char *const bad_steps[] = {"probe", "--steps=0",
		"--policy=none", "--", "train.sh", NULL};

	(void)state;
	args[1] = test_write_tmp(path, sizeof(path), policy);
	assert_int_equal(run_cli(args), 0);
	unlink(path);
	assert_non_null(strstr(out, "checkpoints every 00:30:00, at most 10% "
			       "of the run writing them, 2 kept"));
	assert_non_null(strstr(out, "rent pricing: whole node 17.00/h (2.12 "
			       "per GPU-hour); off-peak 22:00-06:00 -40%; "
			       "from 168 h -10%; fee 5%; USD"));
	assert_non_null(strstr(out, "rent storage: 4.0 GB/s, 2.0 TB"));
	assert_int_equal(run_cli(no_script), 2);
	assert_non_null(strstr(err, "no script"));
	assert_int_equal(run_cli(policy_word), 2);
	assert_non_null(strstr(err, "no script"));
	cli_probe_forwards();
	assert_int_equal(run_cli(one_id), 2);
	assert_non_null(strstr(err, "expected 2 or 3 job ids"));
	assert_int_equal(run_cli(bad_steps), 2);
	assert_non_null(strstr(err, "--steps=0"));
}

/* check-config shows exempt: and the rules, in the order they apply. */
static void test_rules_config(void **state)
{
	static const char policy[] =
		"partitions:\n"
		"  - name: gpu\n"
		"    gpu: H100-SXM5-80GB\n"
		"    gpus_per_node: 8\n"
		"    nodes: 4\n"
		"    network: ib\n"
		"    network_gbps_per_node: 3200\n"
		"exempt: {users: [root, ops], accounts: [admin]}\n"
		"rules:\n"
		"  - accounts: [lab, teach]\n"
		"    qos: [normal]\n"
		"    mode: warn\n"
		"    max_gpus: 1\n"
		"  - users: [alice]\n"
		"    stack: torchtune\n";
	char path[64];
	const char *args[] = {"check-config", NULL, NULL};

	(void)state;
	args[1] = test_write_tmp(path, sizeof(path), policy);
	assert_int_equal(run_cli(args), 0);
	unlink(path);
	assert_non_null(strstr(out, "\n  exempt (never sized): users root, "
			       "ops\n  exempt (never sized): accounts admin\n"
			       "  rules (the first that matches a job "
			       "applies; the defaults above for the rest):\n"
			       "    line 10: account lab or teach, QOS normal: "
			       "mode warn, at most 1 GPU a job\n"
			       "    line 14: user alice: stack torchtune\n"));
}

static void test_lists(void **state)
{
	const char *const gpus[] = {"gpus", NULL};
	const char *const presets[] = {"presets", NULL};

	assert_int_equal(run_cli(gpus), 0);
	assert_non_null(strstr(out, "H200-SXM-141GB"));
	assert_non_null(strstr(out, "Ascend-910B"));
	/* the GPUs --train-precision=nvfp4 runs on */
	assert_non_null(strstr(out, " fp4 TF/s "));
	assert_non_null(strstr(out, "9000.0"));
	assert_int_equal(run_cli(presets), 0);
	assert_non_null(strstr(out, "llama-3.1-405b"));
	assert_non_null(strstr(out, "qwen2.5-72b"));
	/* each preset with the Hugging Face id its shape was checked
	 * against (what --model also takes), "-" where there is none */
	assert_non_null(strstr(out, "published  Hugging Face id\n"));
	assert_non_null(strstr(out, "B  meta-llama/Llama-3.1-405B\n"));
	assert_non_null(strstr(out, "B  Qwen/Qwen3-30B-A3B\n"));
}

/* With --json, errors are JSON on stdout with the same exit status; a
 * plan carries what its tasks get; --table is a list of plans in rising
 * GPU count. */
static void test_json_contract(void **state)
{
	const char *const bad[] = {"plan", "--json", "--model-params=70",
		"--policy=none", NULL};
	const char *const unknown[] = {"plan", "--bogus", "--json", NULL};
	const char *const plan[] = {"plan", "--model=llama-3-70b",
		"--train-tokens=200B", "--gpu=h100", "--pp=12", "--nodes=12",
		"--policy=none", "--json", NULL};
	const char *const table[] = {"plan", "--model=llama-3-8b",
		"--train-tokens=100B", "--gpu=h100", "--policy=none", "--table",
		"--json", NULL};
	const char *p;
	int last = 0, rows = 0;

	assert_int_equal(run_cli(bad), 2);
	assert_json(out);
	assert_non_null(strstr(out, "{\"schema_version\":1,\"error\":{"
			       "\"code\":\"input\",\"message\":"
			       "\"--model-params: 70 "));
	assert_non_null(strstr(out, "did you mean 70B?"));
	assert_string_equal(err, "");
	assert_int_equal(run_cli(unknown), 2);
	assert_json(out);
	assert_non_null(strstr(out, "\"code\":\"usage\""));
	assert_non_null(strstr(out, "unknown option '--bogus'"));
	/* 80 layers on 12 stages: Megatron's uneven split, counts as
	 * integers */
	assert_int_equal(run_cli(plan), 0);
	assert_json(out);
	assert_true(strncmp(out, "{\"schema_version\":1,", 20) == 0);
	assert_non_null(strstr(out, "\"params\":70553706496,"));
	assert_non_null(strstr(out, ",\"launch\":{\"torchrun\":\"--nnodes=12 "
			       "--nproc_per_node=8 --rdzv_backend=c10d "
			       "--rdzv_endpoint=FIRST_NODE:PORT "
			       "--rdzv_id=RUN_ID\",\"megatron\":\""
			       "--tensor-model-parallel-size "));
	assert_non_null(strstr(out, "--pipeline-model-parallel-size 12 "));
	assert_non_null(strstr(out, "--decoder-first-pipeline-num-layers 5 "
			       "--decoder-last-pipeline-num-layers 5"));
	assert_non_null(strstr(out, "\"deepspeed\":null"));
	/* the menu: plans, GPUs rising */
	assert_int_equal(run_cli(table), 0);
	assert_json(out);
	assert_int_equal(out[0], '[');
	for (p = strstr(out, "{\"schema_version\""); p;
	     p = strstr(p + 1, "{\"schema_version\"")) {
		const char *g = strstr(p, "\"gpus\":");
		int gpus;

		assert_non_null(g);
		gpus = atoi(g + 7);
		assert_true(gpus > last);
		last = gpus;
		rows++;
	}
	assert_true(rows >= 4 && rows <= 8);
}

/* The number after key (e.g. "\"cost\":" or " data-x=\"") at or after
 * p, NAN when absent. */
static double num_after(const char *p, const char *key)
{
	const char *q = p ? strstr(p, key) : NULL;

	return q ? strtod(q + strlen(key), NULL) : NAN;
}

/* a and b agree to the 6 significant figures of the chart's attributes
 * and the 2 or 3 decimals of the JSON (slack). */
static int near(double a, double b, double slack)
{
	return fabs(a - b) <= 1e-5 * fabs(b) + slack;
}

#define CHART_ROWS_MAX 64

/* plan --table --svg - draws one point per --table --json row at its
 * cost (GPU-hours without a price) and hours, rings the row marked
 * chosen and draws the deadline. */
static void chart_matches_json(const char *policy, const char *where,
			       const char *x_key, const char *x_title)
{
	const char *json_args[] = {"plan", "--model=llama-3-8b",
		"--train-tokens=100B", "--train-time=5d", policy, where,
		"--table", "--json", NULL};
	const char *svg_args[] = {"plan", "--model=llama-3-8b",
		"--train-tokens=100B", "--train-time=5d", policy, where,
		"--svg", "-", NULL};
	double x[CHART_ROWS_MAX], y[CHART_ROWS_MAX], cx = NAN, cy = NAN;
	int used[CHART_ROWS_MAX] = {0}, n = 0, i, points = 0, chosen = 0;
	const char *p, *hl;

	assert_int_equal(run_cli(json_args), 0);
	assert_json(out);
	for (p = strstr(out, "{\"schema_version\""); p;
	     p = strstr(p + 1, "{\"schema_version\"")) {
		const char *c = strstr(p, "\"chosen\":");

		assert_true(n < CHART_ROWS_MAX);
		assert_non_null(c);
		x[n] = num_after(p, x_key);
		y[n] = num_after(p, "\"train_hours\":");
		if (strncmp(c + 9, "true", 4) == 0) {
			cx = x[n];
			cy = y[n];
			chosen++;
		}
		n++;
	}
	assert_true(n >= 4);
	assert_int_equal(chosen, 1);
	assert_int_equal(run_cli(svg_args), 0);
	assert_true(strncmp(out, "<svg ", 5) == 0);
	assert_non_null(strstr(out, x_title));
	assert_int_equal(num_after(out, " data-points=\""), n);
	for (p = strstr(out, "class=\"pt\""); p;
	     p = strstr(p + 1, "class=\"pt\"")) {
		double px = num_after(p, " data-x=\""), py = num_after(
			p, " data-y=\"");

		for (i = 0; i < n; i++)
			if (!used[i] && near(px, x[i], 0.006) &&
			    near(py, y[i], 0.0006))
				break;
		if (i == n)
			fail_msg("point (%g, %g) is no row of the JSON", px,
				 py);
		used[i] = 1;
		points++;
	}
	assert_int_equal(points, n);
	hl = strstr(out, "class=\"hl\"");
	assert_non_null(hl);
	assert_true(near(num_after(hl, " data-x=\""), cx, 0.006));
	assert_true(near(num_after(hl, " data-y=\""), cy, 0.0006));
	assert_int_equal(num_after(strstr(out, "class=\"mark\""),
				   " data-value=\""), 120);
}

/*
 * Warnings only where the user can act on them: a low utilization only
 * with a size or layout they fixed (autosize's own pick is its best),
 * torchtitan's lack of LoRA not to a job of another stack, and no "train
 * with LoRA" to a LoRA job that does not fit.
 */
/* The note a job's tasks are told (spank_remote.c prints task_note). */
static void tasks_note(const char *stack, char *note, size_t len)
{
	autosize_policy *pol;
	autosize_request r;
	autosize_launch *l = malloc(sizeof(*l));
	autosize_plan p;
	autosize_error e;

	assert_non_null(l);
	pol = autosize_policy_default(&e);
	assert_non_null(pol);
	autosize_request_init(&r);
	assert_int_equal(autosize_request_set(&r, "model", "llama-3.1-8b",
					      &e), 0);
	assert_int_equal(autosize_request_set(&r, "train-mode", "lora", &e),
			 0);
	assert_int_equal(autosize_request_set(&r, "gpu", "h100", &e), 0);
	assert_int_equal(autosize_request_set(&r, "gpus", "8", &e), 0);
	if (stack)
		assert_int_equal(autosize_request_set(&r, "train-stack", stack,
						      &e), 0);
	assert_int_equal(autosize_request_finish(&r, &e), 0);
	assert_int_equal(autosize_plan_compute(pol, &r, &p, &e), 0);
	assert_int_equal(autosize_launch_build(&r, &p, NULL, l), 0);
	snprintf(note, len, "%s", l->task_note);
	free(l);
	autosize_policy_destroy(pol);
}

static void test_warnings_actionable(void **state)
{
	const char *own[] = {"plan", "--policy=none", "--json",
		"--model=llama-3.1-8b", "--gpu=h100", "--train-tokens=1e9", NULL,
		NULL, NULL};
	const char *lora128k[] = {"plan", "--policy=none",
		"--model=llama-3.1-8b", "--gpu=a100-40gb", "--train-mode=lora",
		"--train-seq-len=128k", "--train-tokens=1e8", NULL};
	char note[AUTOSIZE_LAUNCH_NOTE_MAX];

	(void)state;
	assert_int_equal(run_cli(own), 0);
	assert_null(strstr(out, "predicted utilization"));
	own[6] = "--tp=8";     /* 31% of peak pinned, 51% autosize's pick */
	own[7] = "--pp=8";
	assert_int_equal(run_cli(own), 0);
	assert_non_null(strstr(out, "predicted utilization"));
	assert_non_null(strstr(out, "with the size or layout given"));
	/* torchtitan's LoRA note: told to the tasks of a job that may run
	 * torchtitan, not to those of the HF Trainer's or torchtune's */
	tasks_note(NULL, note, sizeof(note));
	assert_non_null(strstr(note, "LoRAConverter"));
	tasks_note("hf", note, sizeof(note));
	assert_null(strstr(note, "torchtitan"));
	tasks_note("torchtune", note, sizeof(note));
	assert_null(strstr(note, "torchtitan"));
	assert_int_equal(run_cli(lora128k), 1);
	assert_null(strstr(out, "LoRA/QLoRA"));
	assert_non_null(strstr(out, "shorter --train-seq-len"));
}

/* The plan of an sbatch line as a renter pastes it (-p -N -G -t ...),
 * with sbatch's meanings: the same plan as autosize's own options. */
static void test_sbatch_forms(void **state)
{
	static const char *const same[][4] = {
		/* sbatch's forms, autosize's */
		{"-p", "gpu", "-N2", "--partition=gpu --nodes=2"},
		{"-pgpu", "-N", "2-4", "--partition=gpu --nodes=2"},
		{"-p", "gpu", "-G16", "--partition=gpu --gpus=16"},
		{"--partition=gpu", "--gres=gpu:4", "-N1",
		 "--partition=gpu --gpus-per-node=4 --nodes=1"},
		{"-p", "gpu", "--gpus-per-node=h100:2",
		 "--partition=gpu --gpus-per-node=2"},
		{"-G", "h100:16", "-N2", "--gpu=h100 --gpus=16 --nodes=2"},
	};
	const char *common[] = {"plan", "--json", "--policy="
		"contrib/testbed/autosize.yaml", "--model=llama-3.1-8b",
		"--train-tokens=1e9"};
	double gpus, nodes;
	size_t i, k, j;

	(void)state;
	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		const char *args[16];
		char own[128], *tok, *save = NULL;

		for (k = 0; k < 5; k++)
			args[k] = common[k];
		for (j = 0; j < 3 && same[i][j]; j++)
			args[k++] = same[i][j];
		args[k] = NULL;
		if (run_cli(args) != 0)
			fail_msg("%s %s %s: %s", same[i][0], same[i][1],
				 same[i][2], err);
		gpus = json_num(out, "gpus");
		nodes = json_num(out, "nodes");
		snprintf(own, sizeof(own), "%s", same[i][3]);
		for (k = 5, tok = strtok_r(own, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save))
			args[k++] = tok;
		args[k] = NULL;
		assert_int_equal(run_cli(args), 0);
		assert_true(json_num(out, "gpus") == gpus);
		assert_true(json_num(out, "nodes") == nodes);
	}
	/* -t is the job's time limit: too short, the plan says so; options
	 * that size nothing are taken and named on one line */
	{
		const char *args[] = {"plan", "--policy=none", "--gpu=h100",
			"--model=llama-3.1-8b", "--train-tokens=1e9", "-t",
			"30", "-J", "run", "--mem=100G", "--exclusive", "-n",
			"8", NULL};

		assert_int_equal(run_cli(args), 0);
		assert_non_null(strstr(out, "your time limit (-t 00:30:00) "
				       "ends before the predicted"));
		assert_non_null(strstr(err, "not used for sizing"));
		assert_non_null(strstr(err, "-J run --mem=100G --exclusive "
				       "-n 8"));
	}
	/* -A and -q choose the policy's rule, as in slurmctld (with the
	 * user running the command; its defaults are not known here) */
	{
		const char *lab[] = {"plan", "--policy="
			"contrib/testbed/autosize-realistic.yaml", "-A", "lab",
			"--qos=normal", "--model-params=7e9",
			"--train-tokens=2e10", NULL};
		const char *short_q[] = {"plan", "--policy="
			"contrib/testbed/autosize-realistic.yaml", "-q",
			"short", "-Aml", "--model-params=7e9",
			"--train-tokens=2e10", NULL};
		const char *none[] = {"plan", "--policy="
			"contrib/testbed/autosize-realistic.yaml",
			"--model-params=7e9", "--train-tokens=2e10", NULL};

		assert_int_equal(run_cli(lab), 0);
		assert_non_null(strstr(err, "the policy's rule at line 89 "
				       "(account lab, QOS normal) applies: at "
				       "most 16 GPUs a job, partition a100, "
				       "framework fsdp, stack hf\n"));
		assert_null(strstr(err, "not used for sizing"));
		assert_non_null(strstr(out, "on partition a100 "));
		assert_int_equal(run_cli(short_q), 0);
		assert_non_null(strstr(out, "autosize rule for account ml, QOS "
				       "short max_gpus=4: planned within 4 "
				       "GPUs"));
		assert_int_equal(run_cli(none), 0);
		assert_non_null(strstr(err, "give -A and -q as your sbatch "
				       "line does"));
	}
	/* a bad value names the option; the script is not an option */
	{
		const char *bad[] = {"plan", "--policy=none", "--gpu=h100",
			"--model=llama-3.1-8b", "-N", "two", NULL};

		assert_int_equal(run_cli(bad), 2);
		assert_non_null(strstr(err, "-N: 'two'"));
		bad[4] = "train.sh";
		bad[5] = NULL;
		assert_int_equal(run_cli(bad), 2);
		assert_non_null(strstr(err, "the script is not read"));
	}
}

/* Run a shell command; its exit status. */
static int cli_sh(const char *cmd)
{
	int rc = system(cmd);

	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/*
 * autosize show: a job slurmctld sized (autosize_decide on the testbed's
 * policy: its record and its submit-time line), read back from a fake
 * scontrol while live and from a fake sacct once scontrol forgot it: the
 * plan in the submit-time line's words (less its MFU, which the record
 * does not keep), what it measured, the limit hit; --json parses.
 */
static void test_show(void **state)
{
	const char *env[2] = {AUTOSIZE_SPANK_OPTION_PREFIX "model_params=70e9",
			      AUTOSIZE_SPANK_OPTION_PREFIX "train_tokens=1e9"};
	char dir[] = "/tmp/autosize-show-XXXXXX", cmd[8192], words[1024];
	char *mfu, path[512];
	autosize_policy *pol;
	autosize_decide_work *w = malloc(autosize_decide_work_size());
	autosize_decision d;
	autosize_job job;
	autosize_error e;
	FILE *f;

	(void)state;
	assert_non_null(w);
	pol = autosize_policy_load("contrib/testbed/autosize.yaml", &e);
	assert_non_null(pol);
	autosize_job_init(&job);
	autosize_decide(pol, env, 2, &job, w, &d);
	assert_true(d.has_plan && d.record[0]);
	/* the submit-time line without ", MFU 45%" */
	snprintf(words, sizeof(words), "%s", d.summary);
	mfu = strstr(words, ", MFU ");
	assert_non_null(mfu);
	memmove(mfu, mfu + strcspn(mfu + 1, ",") + 1,
		strlen(mfu + strcspn(mfu + 1, ",") + 1) + 1);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/scontrol", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n[ \"$3\" = 12 ] || exit 1\ncat <<'X'\n"
		"JobId=12 JobName=x\n   UserId=alice(1000) GroupId=a(1)\n"
		"   JobState=RUNNING Reason=None Dependency=(null)\n"
		"   RunTime=01:00:00 TimeLimit=%ld\n   Partition=%s "
		"AllocNode:Sid=h:1\n   NumNodes=%d NumCPUs=4\n"
		"   TRES=cpu=4,node=%d,gres/gpu=%d\n   WorkDir=/tmp\n"
		"   AdminComment=%s \n   Comment=AdminComment=forged\nX\n",
		d.time_limit_min, d.partition, d.nodes, d.nodes,
		d.nodes * d.gpus_per_node, d.record);
	fclose(f);
	/* accounting, after: the record with what the job measured */
	snprintf(path, sizeof(path), "%s/sacct", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\nfor a; do case $a in --delimiter=*) "
		"d=${a#--delimiter=};; esac; done\nprintf '13@alice@%s@TIMEOUT@"
		"%ld:00@%d@gres/gpu=%d@%ld@2026-12-01T10:00:00@"
		"2026-12-01T10:00:05@2026-12-02T10:00:05@%s,m_tok_s=1000,"
		"m_step_s=9,m_mem_b=5e+10,m_lines=12@big run\\n' | "
		"sed \"s/@/$d/g\"\n", d.partition, d.time_limit_min,
		d.nodes, d.nodes * d.gpus_per_node, d.time_limit_min,
		d.record);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "chmod +x %s/scontrol %s/sacct", dir, dir);
	assert_int_equal(cli_sh(cmd), 0);
	snprintf(cmd, sizeof(cmd), "PATH=%s:$PATH %s/autosize show 12 >%s/out "
		 "&& grep -qF '  plan       %s' %s/out && grep -q "
		 "'RUNNING on %s, from scontrol' %s/out && grep -q "
		 "'measured   nothing yet' %s/out && grep -q 'so far' %s/out",
		 dir, test_build_dir(), dir, words, dir, d.partition, dir, dir,
		 dir);
	if (cli_sh(cmd) != 0) {
		snprintf(cmd, sizeof(cmd), "cat %s/out; echo '%s'", dir,
			 words);
		cli_sh(cmd);
		fail_msg("autosize show 12 (scontrol)");
	}
	/* forgotten by slurmctld: sacct, the limit hit, what it needed */
	snprintf(cmd, sizeof(cmd), "PATH=%s:$PATH %s/autosize show 13 >%s/out "
		 "&& grep -qF '  plan       %s' %s/out && grep -q "
		 "'TIMEOUT on %s, from sacct' %s/out && grep -q "
		 "'measured   1K tokens/s' %s/out && grep -q 'limit      hit: "
		 "TIMEOUT' %s/out && grep -q 'needs' %s/out && "
		 "PATH=%s:$PATH %s/autosize show 13 --json >%s/json && "
		 "python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); "
		 "assert j[\"limit\"][\"hit\"] and j[\"measured\"]"
		 "[\"lines\"] == 12 and j[\"chain\"] is None' %s/json",
		 dir, test_build_dir(), dir, words, dir, d.partition, dir, dir,
		 dir, dir, dir, test_build_dir(), dir, dir);
	if (cli_sh(cmd) != 0) {
		snprintf(cmd, sizeof(cmd), "cat %s/out %s/json", dir, dir);
		cli_sh(cmd);
		fail_msg("autosize show 13 (sacct)");
	}
	/* neither knows it; not a job id */
	snprintf(cmd, sizeof(cmd), "PATH=%s:$PATH %s/autosize show 99 "
		 "2>%s/err; test $? = 1 && grep -q 'neither' %s/err && "
		 "%s/autosize show '12;rm' 2>%s/err; test $? = 2 && "
		 "grep -q 'not a job id' %s/err", dir, test_build_dir(), dir,
		 dir, test_build_dir(), dir, dir);
	assert_int_equal(cli_sh(cmd), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cli_sh(cmd);
	autosize_policy_destroy(pol);
	free(w);
}

/* autosize replay from the command line: text, JSON, usage errors. */
static void test_replay_cli(void **state)
{
	const char *text[] = {"replay", "--policy",
		"tests/data/replay-policy.yaml", "--baseline",
		"contrib/testbed/autosize.yaml", "tests/data/report-jobs.jsonl",
		NULL, NULL};
	const char *none[] = {"replay", "tests/data/report-jobs.jsonl", NULL};

	(void)state;
	assert_int_equal(run_cli(text), 0);
	assert_non_null(strstr(out, "decided again under "
			       "tests/data/replay-policy.yaml against "
			       "contrib/testbed/autosize.yaml"));
	assert_non_null(strstr(out, "refused 1,"));
	assert_non_null(strstr(out, "job 101 alice \"llama-7b-pretrain\": gpu "
			       "4 x 8 GPUs, 1-00:00:00 -> refused (unfit)"));
	text[6] = "--json";
	assert_int_equal(run_cli(text), 0);
	assert_json(out);
	assert_int_equal(run_cli(none), 2);
	assert_non_null(strstr(err, "--policy FILE"));
	text[1] = "--policy=x";
	assert_int_equal(run_cli(text), 2);
}

static void test_plan_chart(void **state)
{
	const char *const bad_file[] = {"plan", "--model=llama-3-8b",
		"--train-tokens=100B", "--policy=none", "--gpu=h100",
		"--html=/nonexistent/dir/plan.html", NULL};

	chart_matches_json("--policy=etc/autosize.yaml",
			   "--partition=h100,l40s,a100", "\"cost\":",
			   "Cost (USD)");
	chart_matches_json("--policy=none", "--gpu=h100", "\"gpu_hours\":",
			   "GPU-hours (no price known)");
	assert_int_equal(run_cli(bad_file), 2);
	assert_string_equal(err, "autosize: cannot write "
			    "/nonexistent/dir/plan.html: No such file or "
			    "directory\n");
}

/* A model name that is not UTF-8 (issue 34): the --json error is valid
 * JSON in valid UTF-8 (glibc's C.UTF-8 decoder judges), the bad byte
 * as U+FFFD, the rest of the message kept. */
static void test_json_error_not_utf8(void **state)
{
	const char *const bad[] = {"plan", "--model=llama\xff",
		"--train-tokens=1T", "--policy=none", "--json", NULL};
	const char *const text[] = {"plan", "--model=llama\xff",
		"--train-tokens=1T", "--policy=none", NULL};

	assert_int_equal(run_cli(bad), 2);
	assert_json(out);
	assert_non_null(setlocale(LC_CTYPE, "C.UTF-8"));
	assert_true(mbstowcs(NULL, out, 0) != (size_t)-1);
	setlocale(LC_CTYPE, "C");
	assert_non_null(strstr(out, "{\"schema_version\":1,\"error\":{"
			       "\"code\":\"input\",\"message\":\"unknown "
			       "model 'llama\xef\xbf\xbd'"));
	assert_string_equal(err, "");
	/* the text form is the user's bytes on stderr, as before */
	assert_int_equal(run_cli(text), 2);
	assert_non_null(strstr(err, "unknown model 'llama\xff'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_back_of_envelope_13b),
		cmocka_unit_test(test_json_error_not_utf8),
		cmocka_unit_test(test_back_of_envelope_7b),
		cmocka_unit_test(test_json_fields),
		cmocka_unit_test(test_bad_input_exit_2),
		cmocka_unit_test(test_option_forms),
		cmocka_unit_test(test_inputs_as_written),
		cmocka_unit_test(test_moe_config_json),
		cmocka_unit_test(test_pinned_misfit_exit_1),
		cmocka_unit_test(test_too_long_exit_1),
		cmocka_unit_test(test_check_config),
		cmocka_unit_test(test_renter_config),
		cmocka_unit_test(test_rules_config),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_json_contract),
		cmocka_unit_test(test_plan_chart),
		cmocka_unit_test(test_warnings_actionable),
		cmocka_unit_test(test_sbatch_forms),
		cmocka_unit_test(test_show),
		cmocka_unit_test(test_replay_cli),
	};

	return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
