/* Tests: model presets (core/presets.c, etc/models.yaml compiled in). */
#include "testutil.h"
#include <math.h>
#include <pthread.h>
#include <strings.h>
#include <sys/stat.h>
#include "autosize/model.h"

#define N_THREADS 8

static void *lookup_thread(void *arg)
{
	autosize_model m;
	autosize_error e;
	long ok = 0;
	int i;

	(void)arg;
	for (i = 0; i < 50; i++)
		if (autosize_model_preset("llama-2-7b", &m, &e) == AUTOSIZE_OK &&
		    m.layers == 32)
			ok++;
	return (void *)ok;
}

/* First use from many threads at once: the table is built exactly once. */
static void test_threads_first_use(void **state)
{
	pthread_t th[N_THREADS];
	void *ret;
	int i;

	(void)state;
	for (i = 0; i < N_THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, lookup_thread,
						NULL), 0);
	for (i = 0; i < N_THREADS; i++) {
		assert_int_equal(pthread_join(th[i], &ret), 0);
		assert_int_equal((long)ret, 50);
	}
}

static void test_names(void **state)
{
	int i, j, n = autosize_model_preset_count();

	(void)state;
	assert_true(n >= 15);
	for (i = 0; i < n; i++) {
		const char *name = autosize_model_preset_name(i);

		assert_non_null(name);
		assert_true(strlen(name) > 0);
		assert_true(strlen(name) < AUTOSIZE_NAME_MAX);
		for (j = 0; j < i; j++)
			assert_true(strcasecmp(name,
					autosize_model_preset_name(j)) != 0);
	}
	assert_null(autosize_model_preset_name(n));
	assert_null(autosize_model_preset_name(-1));
}

/* Every preset loads, and the computed count is within 3% of the
 * published one. */
static void test_every_preset_params(void **state)
{
	int i, n = autosize_model_preset_count();

	(void)state;
	for (i = 0; i < n; i++) {
		const char *name = autosize_model_preset_name(i);
		autosize_model m;
		autosize_error e;
		double ratio;

		autosize_error_clear(&e);
		if (autosize_model_preset(name, &m, &e) != AUTOSIZE_OK)
			fail_msg("preset %s: %s", name, e.msg);
		assert_string_equal(m.name, name);
		assert_int_equal(m.has_arch, 1);
		assert_true(m.layers > 0 && m.hidden > 0 && m.heads > 0);
		assert_true(m.kv_heads > 0 && m.heads % m.kv_heads == 0);
		assert_true(m.ffn > 0 && m.vocab > 0);
		assert_true(m.params_published > 0);
		assert_true(m.params_active > 0);
		assert_true(m.params_active <= m.params);
		/* every preset knows its positions (longer sequences
		 * warn, the default stays within them) */
		assert_true(m.max_positions >= 1024);
		ratio = m.params / m.params_published;
		if (fabs(ratio - 1) > 0.03)
			fail_msg("preset %s: computed %.4g parameters, published %.4g (%.1f%% off)",
				 name, m.params, m.params_published,
				 100 * (ratio - 1));
	}
}

static void test_known_values(void **state)
{
	autosize_model m;
	autosize_error e;

	(void)state;
	assert_int_equal(autosize_model_preset("LLaMA-2-7B", &m, &e),
			 AUTOSIZE_OK);
	assert_string_equal(m.name, "llama-2-7b"); /* the preset's spelling */
	assert_int_equal(m.layers, 32);
	assert_int_equal(m.hidden, 4096);
	assert_int_equal(m.heads, 32);
	assert_int_equal(m.kv_heads, 32);
	assert_int_equal(m.ffn, 11008);
	assert_int_equal(m.vocab, 32000);
	assert_int_equal(m.mlp, AUTOSIZE_MLP_SWIGLU);
	assert_int_equal(m.tied_embeddings, 0);
	assert_true(m.params_published == 6.74e9);

	assert_int_equal(autosize_model_preset("llama-2-70b", &m, &e),
			 AUTOSIZE_OK);
	assert_int_equal(m.kv_heads, 8);  /* grouped-query attention */

	assert_int_equal(autosize_model_preset("mixtral-8x7b", &m, &e),
			 AUTOSIZE_OK);
	assert_int_equal(m.experts, 8);
	assert_int_equal(m.experts_active, 2);
	assert_true(m.params_active < 0.5 * m.params);

	assert_int_equal(autosize_model_preset("gpt2", &m, &e), AUTOSIZE_OK);
	assert_int_equal(m.mlp, AUTOSIZE_MLP_GELU);
	assert_int_equal(m.tied_embeddings, 1);
	/* with its learned 1024 x 768 position table: the checkpoint's
	 * 124,439,808 exactly */
	assert_int_equal(m.max_positions, 1024);
	assert_int_equal(m.learned_positions, 1);
	assert_true(m.params == 124439808.0);
	assert_int_equal(autosize_model_preset("llama-3-8b", &m, &e),
			 AUTOSIZE_OK);
	assert_int_equal(m.max_positions, 8192);
	assert_int_equal(m.learned_positions, 0);
}

static void test_unknown(void **state)
{
	autosize_model m;
	autosize_error e;

	(void)state;
	autosize_error_clear(&e);
	assert_int_equal(autosize_model_preset("llama-9-7b", &m, &e),
			 AUTOSIZE_ENOTFOUND);
	assert_int_equal(e.code, AUTOSIZE_ENOTFOUND);
	assert_non_null(strstr(e.msg, "'llama-9-7b'"));
	assert_non_null(strstr(e.msg, "did you mean llama-2-7b?"));
	assert_non_null(strstr(e.msg, "config.json"));
	assert_null(strchr(e.msg, '\n'));
	assert_true(strlen(e.msg) < AUTOSIZE_MSG_LEN - 1);

	/* a name that only differs in '-' is not a preset, but is the one
	 * named: "did you mean" the one, not its cousins */
	assert_int_equal(autosize_model_preset("llama27b", &m, &e),
			 AUTOSIZE_ENOTFOUND);
	assert_non_null(strstr(e.msg, "did you mean llama-2-7b?"));
	assert_int_equal(autosize_model_preset("llama3-70b", &m, &e),
			 AUTOSIZE_ENOTFOUND);
	assert_non_null(strstr(e.msg, "did you mean llama-3-70b?"));
	assert_int_equal(autosize_model_preset("qwen-3-8b", &m, &e),
			 AUTOSIZE_ENOTFOUND);
	assert_non_null(strstr(e.msg, "did you mean qwen3-8b?"));
	/* nothing near: no guess, where the list is */
	assert_int_equal(autosize_model_preset("xyzzy", &m, &e),
			 AUTOSIZE_ENOTFOUND);
	assert_null(strstr(e.msg, "did you mean"));
	assert_non_null(strstr(e.msg, "autosize presets"));
	assert_int_equal(autosize_model_preset("", &m, &e),
			 AUTOSIZE_ENOTFOUND);
	assert_int_equal(autosize_model_preset(NULL, &m, &e),
			 AUTOSIZE_EINVAL);
	/* hostile input is echoed shortened and printable */
	assert_int_equal(autosize_model_preset(
		"\x1b[31mred\x1b[0m and a very long tail that goes on and on "
		"and on and on and on", &m, &e), AUTOSIZE_ENOTFOUND);
	assert_null(strchr(e.msg, '\x1b'));
	assert_null(strstr(e.msg, "goes on and on and on"));
	/* a NULL error pointer is fine */
	assert_int_equal(autosize_model_preset("nope", &m, NULL),
			 AUTOSIZE_ENOTFOUND);
}

/* The names people use: any case, the Hugging Face id with or without
 * its organisation, the chat / instruct / -it / -pt / -Base / dated
 * releases of the same shape. */
static void test_variants(void **state)
{
	static const char *const same[][2] = {
		{"Llama-3-70B", "llama-3-70b"},
		{"meta-llama/Llama-3.1-8B", "llama-3.1-8b"},
		{"Llama-3.1-8B-Instruct", "llama-3.1-8b"},
		{"meta-llama/Meta-Llama-3-70B-Instruct", "llama-3-70b"},
		{"Llama-2-7b-chat-hf", "llama-2-7b"},
		{"google/gemma-3-27b-it", "gemma-3-27b"},
		{"gemma-3-4b-pt", "gemma-3-4b"},
		{"Qwen/Qwen3-8B-Base", "qwen3-8b"},
		{"Qwen3-30B-A3B-Instruct-2507", "qwen3-30b-a3b"},
		{"mistralai/Mistral-Small-24B-Instruct-2501",
		 "mistral-small-24b"},
		{"DeepSeek-V3", "deepseek-v3"},
		{"microsoft/Phi-4-mini-instruct", "phi-4-mini"},
	};
	autosize_model m;
	autosize_error e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		if (autosize_model_preset(same[i][0], &m, &e) != AUTOSIZE_OK)
			fail_msg("%s: %s", same[i][0], e.msg);
		assert_string_equal(m.name, same[i][1]);
		assert_true(autosize_model_is_preset(same[i][0]));
	}
	/* another organisation's model of the same name is not the preset
	 * (a fine-tune may change the shape): the hub cache decides */
	assert_false(autosize_model_is_preset("myorg/Llama-3.1-8B"));
	/* a suffix is not stripped from the middle */
	assert_false(autosize_model_is_preset("llama-3-instruct-70b"));
}

/* Where a preset has the config.json its shape was checked against
 * (tests/data/configs, the keys of the Hugging Face file): read, it is
 * the same model, parameter for parameter. Every preset with an hf_id
 * has one, but those written before configs were kept here. */
static void test_presets_match_configs(void **state)
{
	static const char *const older[] = {
		"llama-2-13b", "llama-2-70b", "llama-3-70b", "llama-3.1-8b",
		"llama-3.1-70b", "llama-3.1-405b", "llama-3.2-1b",
		"llama-3.2-3b", "mistral-7b", "mixtral-8x22b", "qwen2.5-14b",
		"qwen2.5-32b", "qwen2.5-72b", NULL
	};
	static const char *const file_of[][2] = {
		{"llama-2-7b", "llama-2-7b"},
		{"gemma-3-4b", "gemma-3-4b-it"},
	};
	int i, n = autosize_model_preset_count(), checked = 0;
	size_t k;

	(void)state;
	for (i = 0; i < n; i++) {
		const char *name = autosize_model_preset_name(i);
		const char *id = autosize_model_preset_hf_id(i);
		const char *file = strchr(id, '/') ? strchr(id, '/') + 1 : id;
		autosize_model p, c;
		autosize_error e;
		char path[256];
		int old = 0;

		if (!id[0])
			continue;   /* a paper's model (GPT-3) */
		for (k = 0; older[k]; k++)
			old |= strcmp(older[k], name) == 0;
		for (k = 0; k < sizeof(file_of) / sizeof(file_of[0]); k++)
			if (strcmp(file_of[k][0], name) == 0)
				file = file_of[k][1];
		snprintf(path, sizeof(path), "%s/configs/%s.json", TEST_DATA,
			 file);
		if (access(path, R_OK) != 0) {
			if (!old)
				fail_msg("preset %s: no %s to check it "
					 "against", name, path);
			continue;
		}
		assert_int_equal(autosize_model_preset(name, &p, &e), 0);
		if (autosize_model_from_config_json(path, &c, &e))
			fail_msg("%s: %s", path, e.msg);
#define SAME(f) if (p.f != c.f) \
			fail_msg("preset %s: " #f " %d, %s says %d", name, \
				 p.f, path, c.f)
		SAME(layers); SAME(hidden); SAME(heads); SAME(kv_heads);
		SAME(head_dim); SAME(ffn); SAME(vocab); SAME(mlp);
		SAME(tied_embeddings); SAME(experts); SAME(experts_active);
		SAME(experts_shared); SAME(ffn_shared); SAME(dense_layers);
		SAME(ffn_dense); SAME(q_lora_rank); SAME(kv_lora_rank);
		SAME(qk_nope_head_dim); SAME(qk_rope_head_dim);
		SAME(v_head_dim); SAME(max_positions);
		SAME(attn_window); SAME(window_layers); SAME(attn_chunk);
		SAME(mamba_layers); SAME(attn_layers); SAME(mlp_layers);
		SAME(mamba_heads); SAME(mamba_head_dim); SAME(mamba_state);
		SAME(mamba_groups);
#undef SAME
		assert_true(p.params == c.params);
		assert_true(p.params_active == c.params_active);
		checked++;
	}
	assert_true(checked >= 20);
}

/* Published active parameters of the MoE presets, within 3%. */
static void test_moe_active(void **state)
{
	int i, n = autosize_model_preset_count(), moe = 0;

	(void)state;
	for (i = 0; i < n; i++) {
		autosize_model m;
		autosize_error e;

		assert_int_equal(autosize_model_preset(
			autosize_model_preset_name(i), &m, &e), 0);
		if (!(m.params_active_published > 0))
			continue;
		moe++;
		if (fabs(m.params_active / m.params_active_published - 1) >
		    0.03)
			fail_msg("preset %s: %.4g active, published %.4g",
				 m.name, m.params_active,
				 m.params_active_published);
	}
	assert_true(moe >= 6);
}

/* A small config.json of a model that is no preset. */
#define RESOLVE_CONFIG "{\"model_type\": \"llama\", \"hidden_size\": " \
	"1024, \"num_hidden_layers\": 4, \"num_attention_heads\": 8, " \
	"\"intermediate_size\": 2816, \"vocab_size\": 32000}"

static void put(const char *dir, const char *name, const char *text)
{
	char path[1100];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void mk(const char *dir, const char *name)
{
	char path[1100];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(mkdir(path, 0700), 0);
}

/* The environment variables the hub cache is found by, cleared and set
 * back after. */
static const char *const hub_vars[] = {"HF_HUB_CACHE",
	"HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME", "HOME", NULL};

static void hub_env(char saved[][512], int save)
{
	int i;

	for (i = 0; hub_vars[i]; i++) {
		if (save) {
			const char *v = getenv(hub_vars[i]);

			snprintf(saved[i], 512, "%s", v ? v : "");
			unsetenv(hub_vars[i]);
		} else if (saved[i][0]) {
			setenv(hub_vars[i], saved[i], 1);
		} else {
			unsetenv(hub_vars[i]);
		}
	}
}

/*
 * --model resolved as the user's sbatch and the CLI do (local) and as the
 * daemons do (presets only): a folder, a file, a Hugging Face id in the
 * hub cache (its real layout: refs/main, a snapshot whose config.json
 * links to a blob), the caches' environment variables in order, and the
 * one-line errors of each miss.
 */
static void test_resolve(void **state)
{
	char tmp[] = "/tmp/autosize-resolve-XXXXXX", saved[6][512];
	char dir[512], path[1100], repo[512];
	autosize_model m;
	autosize_error e;

	(void)state;
	assert_non_null(mkdtemp(tmp));
	hub_env(saved, 1);
	/* a folder with a config.json; its name is the folder's */
	snprintf(dir, sizeof(dir), "%s/my-model", tmp);
	mk(tmp, "my-model");
	put(dir, "config.json", RESOLVE_CONFIG);
	snprintf(path, sizeof(path), "%s/my-model/", tmp);
	assert_int_equal(autosize_model_resolve(path, 1, &m, &e), 0);
	assert_string_equal(m.name, "my-model");
	assert_int_equal(m.layers, 4);
	/* the file itself */
	snprintf(path, sizeof(path), "%s/my-model/config.json", tmp);
	assert_int_equal(autosize_model_resolve(path, 1, &m, &e), 0);
	assert_int_equal(m.hidden, 1024);
	/* a folder without one says so */
	mk(tmp, "empty");
	snprintf(path, sizeof(path), "%s/empty", tmp);
	assert_int_equal(autosize_model_resolve(path, 1, &m, &e),
			 AUTOSIZE_ENOTFOUND);
	assert_non_null(strstr(e.msg, "the folder has no config.json"));
	/* the daemons open none of them */
	snprintf(path, sizeof(path), "%s/my-model", tmp);
	assert_int_equal(autosize_model_resolve(path, 0, &m, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "read on the submit host only"));

	/* the hub cache: HF_HUB_CACHE/models--myorg--Tiny-1B */
	mk(tmp, "hub");
	snprintf(repo, sizeof(repo), "%s/hub/models--myorg--Tiny-1B", tmp);
	mk(tmp, "hub/models--myorg--Tiny-1B");
	mk(repo, "refs");
	mk(repo, "blobs");
	mk(repo, "snapshots");
	mk(repo, "snapshots/0123abcd");
	put(repo, "refs/main", "0123abcd\n");
	put(repo, "blobs/e3b0c442", RESOLVE_CONFIG);
	snprintf(path, sizeof(path), "%s/snapshots/0123abcd/config.json",
		 repo);
	assert_int_equal(symlink("../../blobs/e3b0c442", path), 0);
	snprintf(dir, sizeof(dir), "%s/hub", tmp);
	setenv("HF_HUB_CACHE", dir, 1);
	assert_int_equal(autosize_model_resolve("myorg/Tiny-1B", 1, &m, &e),
			 0);
	assert_string_equal(m.name, "Tiny-1B");
	assert_int_equal(m.layers, 4);
	/* not there: where it looked and how to get it, one line */
	assert_int_equal(autosize_model_resolve("myorg/Other-7B", 1, &m, &e),
			 AUTOSIZE_ENOTFOUND);
	assert_non_null(strstr(e.msg, dir));
	assert_non_null(strstr(e.msg, "huggingface-cli download "
			       "myorg/Other-7B config.json"));
	assert_null(strchr(e.msg, '\n'));
	/* the daemons never look */
	assert_int_equal(autosize_model_resolve("myorg/Tiny-1B", 0, &m, &e),
			 AUTOSIZE_EINVAL);
	/* HF_HOME/hub, then ~/.cache/huggingface/hub */
	unsetenv("HF_HUB_CACHE");
	setenv("HF_HOME", tmp, 1);
	assert_int_equal(autosize_model_resolve("myorg/Tiny-1B", 1, &m, &e),
			 0);
	unsetenv("HF_HOME");
	setenv("HOME", tmp, 1);
	assert_int_equal(autosize_model_resolve("myorg/Tiny-1B", 1, &m, &e),
			 AUTOSIZE_ENOTFOUND);
	mk(tmp, ".cache");
	mk(tmp, ".cache/huggingface");
	snprintf(path, sizeof(path), "%s/.cache/huggingface/hub", tmp);
	assert_int_equal(symlink(dir, path), 0);
	assert_int_equal(autosize_model_resolve("myorg/Tiny-1B", 1, &m, &e),
			 0);
	/* a refs/main that points outside its snapshots is not followed:
	 * the one snapshot with a config.json is used */
	put(repo, "refs/main", "../../../../etc\n");
	assert_int_equal(autosize_model_resolve("myorg/Tiny-1B", 1, &m, &e),
			 0);
	assert_int_equal(m.layers, 4);
	/* a preset's id needs no file, in any context */
	assert_int_equal(autosize_model_resolve("meta-llama/Llama-3.1-8B",
						0, &m, &e), 0);
	assert_string_equal(m.name, "llama-3.1-8b");
	/* typos: the nearest preset, locally and in the daemons */
	assert_int_equal(autosize_model_resolve("llama3-70b", 1, &m, &e),
			 AUTOSIZE_ENOTFOUND);
	assert_non_null(strstr(e.msg, "did you mean llama-3-70b?"));
	assert_int_equal(autosize_model_resolve("llama3-70b", 0, &m, &e),
			 AUTOSIZE_ENOTFOUND);
	assert_non_null(strstr(e.msg, "did you mean llama-3-70b?"));
	/* not an id: one '/' between two names, no ".." */
	assert_false(autosize_model_is_hf_id("org/../x"));
	assert_false(autosize_model_is_hf_id("/etc/passwd"));
	assert_false(autosize_model_is_hf_id("a/b/c"));
	assert_false(autosize_model_is_hf_id("..org/x"));
	assert_true(autosize_model_is_hf_id("Qwen/Qwen3-8B"));
	assert_int_equal(autosize_model_resolve("../../etc/shadow", 0, &m,
						&e), AUTOSIZE_EINVAL);
	hub_env(saved, 0);
	snprintf(path, sizeof(path), "rm -rf '%s'", tmp);
	assert_int_equal(system(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_first_use),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_every_preset_params),
		cmocka_unit_test(test_known_values),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_variants),
		cmocka_unit_test(test_presets_match_configs),
		cmocka_unit_test(test_moe_active),
		cmocka_unit_test(test_resolve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
