/* Unit tests: number, duration, fraction and choice parsers, and how the
 * options read what people write. */
#include "testutil.h"
#include "autosize.h"

static void test_counts_good(void **state)
{
	static const struct { const char *text; double want; } cases[] = {
		{"70e9", 70e9}, {"70B", 70e9}, {"7.5b", 7.5e9}, {"2T", 2e12},
		{"2e12", 2e12}, {"1.5M", 1.5e6}, {"350k", 350e3},
		{"13000000000", 13e9}, {"1E3", 1e3}, {"2.5e+3", 2500},
		{"7G", 7e9},
	};
	size_t i;
	double v;
	autosize_error e;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(autosize_parse_count(cases[i].text, "--x", &v,
						      &e), AUTOSIZE_OK);
		assert_true(fabs(v - cases[i].want) <= 1e-9 * cases[i].want);
	}
}

static void test_counts_bad(void **state)
{
	static const char *const bad[] = {
		"", "-70e9", "0", "0.5", "nan", "inf", "1e400", "0x10",
		"70e9x", "70 B", "70BB", "B", ".", "1e", "1e+", "+5",
		"70e9\n", "7\x01", "1e19", "--1",
	};
	char digits[10001];
	size_t i;
	double v = 42;
	autosize_error e;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(autosize_parse_count(bad[i], "--model-params",
						      &v, &e), AUTOSIZE_EINVAL);
		/* The message names the option, is one line. */
		assert_non_null(strstr(e.msg, "--model-params"));
		assert_null(strchr(e.msg, '\n'));
	}
	memset(digits, '9', sizeof(digits) - 1);
	digits[sizeof(digits) - 1] = '\0';
	assert_int_equal(autosize_parse_count(digits, "--x", &v, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "longer than"));
	assert_int_equal(v, 42);   /* untouched on error */
}

static void test_ints(void **state)
{
	long v;
	autosize_error e;

	assert_int_equal(autosize_parse_int("8", "--tp", 1, 64, &v, &e), 0);
	assert_int_equal(v, 8);
	assert_int_equal(autosize_parse_int("4k", "--n", 1, 1e6, &v, &e), 0);
	assert_int_equal(v, 4000);
	assert_int_equal(autosize_parse_int("1.5", "--tp", 1, 64, &v, &e),
			 AUTOSIZE_EINVAL);
	assert_int_equal(autosize_parse_int("65", "--tp", 1, 64, &v, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "1..64"));
	assert_int_equal(autosize_parse_int("0", "--zero", 0, 3, &v, &e), 0);
	assert_int_equal(v, 0);
}

static void test_durations(void **state)
{
	static const struct { const char *text; double s; } good[] = {
		{"10d", 864000}, {"36h", 129600}, {"90m", 5400},
		{"45s", 45}, {"2w", 1209600}, {"1d12h", 129600},
		{"1.5d", 129600}, {"90", 5400}, {"90:30", 5430},
		{"1:30:00", 5400}, {"2-12", 216000},
		{"2-12:30", 217800}, {"2-12:00:00", 216000},
		{"0-00:00:01", 1},
	};
	static const char *const bad[] = {
		"", "0", "0d", "-1d", "10x", "d", "1:2:3:4", "1-", "-5",
		"1d-", "nan", "inf", "1e400d", "200000d", "1::2", "10 d",
		"2-12:00:00x", "1-2-3",
	};
	size_t i;
	double s;
	autosize_error e;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(autosize_parse_duration(good[i].text, "--t",
							 &s, &e), 0);
		assert_true(fabs(s - good[i].s) < 1e-6);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(autosize_parse_duration(bad[i], "--train-time",
							 &s, &e),
				 AUTOSIZE_EINVAL);
		assert_non_null(strstr(e.msg, "--train-time"));
	}
}

static void test_fraction_choice_format(void **state)
{
	static const char *const words[] = {"ib", "roce", "ethernet", NULL};
	double f;
	int k;
	char buf[32];
	autosize_error e;

	assert_int_equal(autosize_parse_fraction("0.2", "--r", 0, 0.9, &f, &e),
			 0);
	assert_true(fabs(f - 0.2) < 1e-12);
	assert_int_equal(autosize_parse_fraction("20%", "--r", 0, 0.9, &f, &e),
			 0);
	assert_true(fabs(f - 0.2) < 1e-12);
	assert_int_equal(autosize_parse_fraction("0.95", "--r", 0, 0.9, &f,
						 &e), AUTOSIZE_EINVAL);
	assert_int_equal(autosize_parse_choice("RoCE", "--net", words, &k, &e),
			 0);
	assert_int_equal(k, 1);
	assert_int_equal(autosize_parse_choice("tcp", "--net", words, &k, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "ib|roce|ethernet"));
	assert_string_equal(autosize_format_duration(216000, buf, sizeof(buf)),
			    "2-12:00:00");
	assert_string_equal(autosize_format_duration(5400, buf, sizeof(buf)),
			    "01:30:00");
}

/* Sequence lengths: k and M are powers of two ("8k context"). */
static void test_tokens(void **state)
{
	static const struct { const char *text; long want; } good[] = {
		{"4096", 4096}, {"8k", 8192}, {"128k", 131072},
		{"128K", 131072}, {"1M", 1048576}, {"2.5k", 2560},
	};
	static const char *const bad[] = {"8kb", "0.1k", "8", "4M", "k",
					  "8 k", "-8k"};
	size_t i;
	long v;
	autosize_error e;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(autosize_parse_tokens(good[i].text, "--s", 16,
						       4194304, &v, &e),
				 AUTOSIZE_OK);
		assert_int_equal(v, good[i].want);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(autosize_parse_tokens(bad[i], "--s", 16,
						       1048576, &v, &e),
				 AUTOSIZE_EINVAL);
		assert_non_null(strstr(e.msg, "--s: "));
	}
}

/* The batch rule: a plain number is sequences, a tok suffix is tokens,
 * a bare million is ambiguous. */
static void test_batch(void **state)
{
	long seqs;
	double tokens;
	autosize_error e;

	assert_int_equal(autosize_parse_batch("1024", "--b", &seqs, &tokens,
					      &e), AUTOSIZE_OK);
	assert_int_equal(seqs, 1024);
	assert_true(tokens == 0);
	assert_int_equal(autosize_parse_batch("1024seq", "--b", &seqs,
					      &tokens, &e), AUTOSIZE_OK);
	assert_int_equal(seqs, 1024);
	assert_int_equal(autosize_parse_batch("4Mtok", "--b", &seqs, &tokens,
					      &e), AUTOSIZE_OK);
	assert_int_equal(seqs, 0);
	assert_true(tokens == 4.0 * 1024 * 1024);
	assert_int_equal(autosize_parse_batch("524288tokens", "--b", &seqs,
					      &tokens, &e), AUTOSIZE_OK);
	assert_true(tokens == 524288);
	assert_int_equal(autosize_parse_batch("4M", "--b", &seqs, &tokens,
					      &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "ambiguous"));
	assert_non_null(strstr(e.msg, "4Mtok"));
	assert_int_equal(autosize_parse_batch("1.5", "--b", &seqs, &tokens,
					      &e), AUTOSIZE_EINVAL);
	assert_int_equal(autosize_parse_batch("0tok", "--b", &seqs, &tokens,
					      &e), AUTOSIZE_EINVAL);
	assert_int_equal(autosize_parse_batch("4Mbytes", "--b", &seqs,
					      &tokens, &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "4Mtok"));
}

static void test_bare_minutes(void **state)
{
	assert_true(autosize_duration_is_bare_minutes("30"));
	assert_false(autosize_duration_is_bare_minutes("30m"));
	assert_false(autosize_duration_is_bare_minutes("1:00:00"));
	assert_false(autosize_duration_is_bare_minutes("2d"));
	assert_false(autosize_duration_is_bare_minutes(""));
}

static autosize_err parse_set(autosize_request *r, const char *name,
			      const char *value, autosize_error *e)
{
	return autosize_request_set(r, name, value, e);
}

/* --model-params under a million is a unit slip, refused with the fix. */
static void test_model_params_floor(void **state)
{
	autosize_request r;
	autosize_error e;

	autosize_request_init(&r);
	assert_int_equal(parse_set(&r, "model-params", "70", &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "did you mean 70B?"));
	assert_int_equal(parse_set(&r, "model-params", "999999", &e),
			 AUTOSIZE_EINVAL);
	assert_int_equal(parse_set(&r, "model-params", "1M", &e),
			 AUTOSIZE_OK);
	assert_true(r.model_params == 1e6);
}

/* --partition and --gpu both: a conflict, not one silently ignored. */
static void test_partition_gpu_conflict(void **state)
{
	autosize_request r;
	autosize_error e;

	autosize_request_init(&r);
	assert_int_equal(parse_set(&r, "model-params", "7B", &e), 0);
	assert_int_equal(parse_set(&r, "partition", "h100", &e), 0);
	assert_int_equal(parse_set(&r, "gpu", "a100", &e), 0);
	assert_int_equal(autosize_request_finish(&r, &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "--partition h100 and --gpu a100"));
}

/* Tokens per step become whole sequences of the planned length. */
static void test_batch_tokens_to_sequences(void **state)
{
	autosize_request r;
	autosize_error e;

	autosize_request_init(&r);
	assert_int_equal(parse_set(&r, "model", "llama-3-8b", &e), 0);
	assert_int_equal(parse_set(&r, "train-batch", "4Mtok", &e), 0);
	assert_int_equal(parse_set(&r, "train-seq-len", "8k", &e), 0);
	assert_int_equal(autosize_request_finish(&r, &e), AUTOSIZE_OK);
	assert_int_equal(r.seq_len, 8192);
	assert_int_equal(r.global_batch, 512);
	/* a later plain number replaces the tokens */
	assert_int_equal(parse_set(&r, "train-batch", "1024", &e), 0);
	assert_true(r.batch_tokens == 0);
	assert_int_equal(r.global_batch, 1024);
}

/* The architecture and expert options reach the model. */
static void test_arch_options(void **state)
{
	static const char *const opts[] = {
		"layers", "27", "hidden", "2048", "heads", "16",
		"vocab", "102400", "ffn", "1408", "experts", "64",
		"experts-active", "6", "shared-experts", "2",
		"dense-layers", "1", "dense-ffn", "10944",
		"kv-lora-rank", "512", "qk-nope-head-dim", "128",
		"qk-rope-head-dim", "64", "v-head-dim", "128", NULL
	};
	autosize_request r;
	autosize_error e;
	size_t i;

	autosize_request_init(&r);
	for (i = 0; opts[i]; i += 2)
		assert_int_equal(parse_set(&r, opts[i], opts[i + 1], &e), 0);
	assert_int_equal(autosize_request_finish(&r, &e), AUTOSIZE_OK);
	/* DeepSeek-V2-Lite as flags: 15.7B */
	assert_true(fabs(r.model.params - 15.7e9) < 0.05e9);
	assert_int_equal(r.model.head_dim, 192);
	assert_non_null(autosize_option_find("shared-experts"));
	assert_true(autosize_option_find("experts")->where &
		    AUTOSIZE_OPT_SPANK);
	assert_null(autosize_option_find("jsn"));
	assert_int_equal(parse_set(&r, "q-lora-rank", "-1", &e),
			 AUTOSIZE_EINVAL);
}

/* sbatch's values reach slurmctld as _SLURM_SPANK_OPTION_autosize_*:
 * the architecture and expert options and the batch forms too. */
static void test_options_from_job_env(void **state)
{
	static const char *const env[] = {
		"_SLURM_SPANK_OPTION_autosize_layers=27",
		"_SLURM_SPANK_OPTION_autosize_hidden=2048",
		"_SLURM_SPANK_OPTION_autosize_heads=16",
		"_SLURM_SPANK_OPTION_autosize_vocab=102400",
		"_SLURM_SPANK_OPTION_autosize_ffn=1408",
		"_SLURM_SPANK_OPTION_autosize_experts=64",
		"_SLURM_SPANK_OPTION_autosize_experts_active=6",
		"_SLURM_SPANK_OPTION_autosize_shared_experts=2",
		"_SLURM_SPANK_OPTION_autosize_dense_layers=1",
		"_SLURM_SPANK_OPTION_autosize_dense_ffn=10944",
		"_SLURM_SPANK_OPTION_autosize_kv_lora_rank=512",
		"_SLURM_SPANK_OPTION_autosize_qk_nope_head_dim=128",
		"_SLURM_SPANK_OPTION_autosize_qk_rope_head_dim=64",
		"_SLURM_SPANK_OPTION_autosize_v_head_dim=128",
		"_SLURM_SPANK_OPTION_autosize_train_seq_len=8k",
		"_SLURM_SPANK_OPTION_autosize_train_batch=4Mtok",
	};
	autosize_request r;
	autosize_error e;
	int found = 0;

	assert_int_equal(autosize_request_from_env(env, sizeof(env) /
						   sizeof(env[0]), &r,
						   &found, &e), AUTOSIZE_OK);
	assert_int_equal(found, 1);
	assert_true(fabs(r.model.params - 15.7e9) < 0.05e9);
	assert_int_equal(r.model.experts_shared, 2);
	assert_int_equal(r.seq_len, 8192);
	assert_int_equal(r.global_batch, 512);
}

/* A config.json read on the submit host arrives as AUTOSIZE_MODEL; the
 * token batch and the default length are resolved there as here. */
static void test_model_line_from_job_env(void **state)
{
	char line[AUTOSIZE_JOBENV_VALUE_MAX + 1], model[1200];
	const char *env[2];
	autosize_request r;
	autosize_error e;
	int found = 0;

	assert_int_equal(autosize_model_preset("gpt2", &r.model, &e), 0);
	assert_true(autosize_model_encode(&r.model, line, sizeof(line)) > 0);
	snprintf(model, sizeof(model), AUTOSIZE_ENV_MODEL "=%s", line);
	env[0] = model;
	env[1] = "_SLURM_SPANK_OPTION_autosize_train_batch=1Mtok";
	assert_int_equal(autosize_request_from_env(env, 2, &r, &found, &e),
			 AUTOSIZE_OK);
	assert_int_equal(r.seq_len, 1024);       /* GPT-2's positions */
	assert_int_equal(r.global_batch, 1024);  /* 2^20 / 1024 */
}

/* Warnings about how inputs were read land in the plan, once. */
static void test_input_warnings(void **state)
{
	autosize_request r;
	autosize_plan p;
	autosize_error e;

	autosize_request_init(&r);
	assert_int_equal(parse_set(&r, "model", "gpt2", &e), 0);
	assert_int_equal(parse_set(&r, "train-time", "30", &e), 0);
	assert_int_equal(parse_set(&r, "train-tokens", "2000", &e), 0);
	assert_int_equal(parse_set(&r, "train-seq-len", "2048", &e), 0);
	assert_int_equal(autosize_request_finish(&r, &e), AUTOSIZE_OK);
	memset(&p, 0, sizeof(p));
	p.seq_len = 2048;
	p.global_batch = 512;
	r.model.max_positions = 1024;
	autosize_request_warnings(&r, &p);
	autosize_request_warnings(&r, &p);
	assert_int_equal(p.n_warnings, 3);
	assert_non_null(strstr(p.warnings[0], "30 minutes"));
	assert_non_null(strstr(p.warnings[1], "less than one optimizer "
			       "step"));
	assert_non_null(strstr(p.warnings[2], "1024 positions"));
	/* 30 minutes written as such is not a slip */
	autosize_request_init(&r);
	assert_int_equal(parse_set(&r, "train-time", "30m", &e), 0);
	memset(&p, 0, sizeof(p));
	autosize_request_warnings(&r, &p);
	assert_int_equal(p.n_warnings, 0);
}

/* No --train-seq-len: the default stays within the model's positions. */
static void test_default_seq_len_capped(void **state)
{
	autosize_request r;
	autosize_error e;
	char path[256];

	snprintf(path, sizeof(path), "%s/configs/gpt2.json", TEST_DATA);
	autosize_request_init(&r);
	r.model_local = 1;
	assert_int_equal(parse_set(&r, "model", path, &e), 0);
	assert_int_equal(autosize_request_finish(&r, &e), AUTOSIZE_OK);
	assert_int_equal(autosize_request_seq_len(&r), 1024);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_good),
		cmocka_unit_test(test_counts_bad),
		cmocka_unit_test(test_ints),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_fraction_choice_format),
		cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_bare_minutes),
		cmocka_unit_test(test_model_params_floor),
		cmocka_unit_test(test_partition_gpu_conflict),
		cmocka_unit_test(test_batch_tokens_to_sequences),
		cmocka_unit_test(test_arch_options),
		cmocka_unit_test(test_options_from_job_env),
		cmocka_unit_test(test_model_line_from_job_env),
		cmocka_unit_test(test_input_warnings),
		cmocka_unit_test(test_default_seq_len_capped),
	};

	return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}
