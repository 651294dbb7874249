/*
 * Tests for util/json.c: Hugging Face config.json files read into models.
 */
#include "testutil.h"
#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include "autosize.h"
#include "autosize/jobenv.h"
#include "autosize/model.h"
#include "json.h"

#define CONFIGS TEST_DATA "/configs"
#define BIG_BYTES (2 * 1024 * 1024)

/* |got / want - 1| <= tol */
static void json_test_near(double got, double want, double tol)
{
	double rel = fabs(got / want - 1.0);

	if (rel > tol)
		fail_msg("got %.6g, want %.6g within %.1f%% (off by %.2f%%)",
			 got, want, tol * 100, rel * 100);
}

/* The message names the input, is one line and has no trailing newline. */
static void json_test_msg(const autosize_error *e, const char *what)
{
	size_t n = strlen(e->msg);

	assert_true(n > 0);
	if (strncmp(e->msg, what, strlen(what)) != 0)
		fail_msg("message does not start with \"%s\": %s", what,
			 e->msg);
	assert_null(strchr(e->msg, '\n'));
}

static void json_test_load(const char *file, autosize_model *m)
{
	char path[256];
	autosize_error e;
	autosize_err rc;

	snprintf(path, sizeof(path), "%s/%s", CONFIGS, file);
	autosize_error_clear(&e);
	rc = autosize_model_from_config_json(path, m, &e);
	if (rc != AUTOSIZE_OK)
		fail_msg("%s: rc %d: %s", path, rc, e.msg);
	assert_int_equal(e.code, AUTOSIZE_OK);
	assert_true(m->has_arch);
}

static void test_llama2_7b(void **state)
{
	autosize_model m;

	json_test_load("llama-2-7b.json", &m);
	assert_string_equal(m.name, "llama-2-7b");
	assert_int_equal(m.layers, 32);
	assert_int_equal(m.hidden, 4096);
	assert_int_equal(m.heads, 32);
	assert_int_equal(m.kv_heads, 32);
	assert_int_equal(m.ffn, 11008);
	assert_int_equal(m.vocab, 32000);
	assert_int_equal(m.tied_embeddings, 0);
	assert_int_equal(m.mlp, AUTOSIZE_MLP_SWIGLU);
	assert_true(m.experts <= 1);
	json_test_near(m.params, 6.74e9, 0.02);
	json_test_near(m.params_active, m.params, 1e-12);
	assert_int_equal(m.max_positions, 4096);
	assert_int_equal(m.learned_positions, 0);
	assert_true(m.params_published == 0);
}

static void test_llama3_8b(void **state)
{
	autosize_model m;

	json_test_load("Meta-Llama-3-8B.json", &m);
	assert_string_equal(m.name, "Meta-Llama-3-8B");
	assert_int_equal(m.layers, 32);
	assert_int_equal(m.hidden, 4096);
	assert_int_equal(m.heads, 32);
	assert_int_equal(m.kv_heads, 8);
	assert_int_equal(m.ffn, 14336);
	assert_int_equal(m.vocab, 128256);
	assert_int_equal(m.tied_embeddings, 0);
	assert_int_equal(m.mlp, AUTOSIZE_MLP_SWIGLU);
	json_test_near(m.params, 8.03e9, 0.02);
}

/* got rounds to a published figure: within half its last digit. */
static void json_test_published(double got, double published,
				double last_digit)
{
	if (fabs(got - published) > last_digit / 2)
		fail_msg("got %.5g, published %.4g (+-%.2g): off by %.3g",
			 got, published, last_digit / 2, got - published);
}

/*
 * Published totals and active counts (Mistral AI, "Mixtral of experts",
 * 2024: 46.7B / 12.9B; Qwen blog "Qwen1.5-MoE": 14.3B / 2.7B; DeepSeek-V2
 * paper, 2024: V2-Lite 15.7B / 2.4B; DeepSeek-V3 report: 671B / 37B).
 * Mixtral and Qwen count both embedding tables in the active count;
 * DeepSeek leaves the input embedding (a lookup) out, so its active
 * figure is compared with params_active less one table, within 3%
 * (2.4B is given to two digits).
 */
static void test_mixtral(void **state)
{
	autosize_model m;

	json_test_load("Mixtral-8x7B-v0.1.json", &m);
	assert_int_equal(m.layers, 32);
	assert_int_equal(m.kv_heads, 8);
	assert_int_equal(m.ffn, 14336);
	assert_int_equal(m.experts, 8);
	assert_int_equal(m.experts_active, 2);
	assert_int_equal(m.experts_shared, 0);
	assert_int_equal(m.mlp, AUTOSIZE_MLP_SWIGLU);
	json_test_published(m.params, 46.7e9, 0.1e9);
	json_test_published(m.params_active, 12.9e9, 0.1e9);
}

static void test_qwen15_moe(void **state)
{
	autosize_model m;

	json_test_load("Qwen1.5-MoE-A2.7B.json", &m);
	assert_int_equal(m.experts, 60);
	assert_int_equal(m.experts_active, 4);
	assert_int_equal(m.ffn, 1408);
	assert_int_equal(m.experts_shared, 1);
	assert_int_equal(m.ffn_shared, 5632);
	assert_int_equal(m.dense_layers, 0);
	assert_int_equal(m.kv_lora_rank, 0);
	assert_int_equal(m.max_positions, 8192);
	json_test_published(m.params, 14.3e9, 0.1e9);
	json_test_published(m.params_active, 2.7e9, 0.1e9);
}

static void test_deepseek_v2_lite(void **state)
{
	autosize_model m;
	double table;

	json_test_load("DeepSeek-V2-Lite.json", &m);
	assert_int_equal(m.experts, 64);
	assert_int_equal(m.experts_active, 6);
	assert_int_equal(m.experts_shared, 2);
	assert_int_equal(m.ffn, 1408);
	assert_int_equal(m.ffn_shared, 1408);
	assert_int_equal(m.dense_layers, 1);
	assert_int_equal(m.ffn_dense, 10944);
	assert_int_equal(m.q_lora_rank, 0);      /* null in the file */
	assert_int_equal(m.kv_lora_rank, 512);
	assert_int_equal(m.head_dim, 128 + 64);
	assert_int_equal(m.v_head_dim, 128);
	table = (double)m.vocab * m.hidden;
	json_test_published(m.params, 15.7e9, 0.1e9);
	json_test_near(m.params_active - table, 2.4e9, 0.03);
}

static void test_deepseek_v3(void **state)
{
	autosize_model m;
	double table;

	json_test_load("DeepSeek-V3.json", &m);
	assert_int_equal(m.experts, 256);
	assert_int_equal(m.experts_active, 8);
	assert_int_equal(m.experts_shared, 1);
	assert_int_equal(m.dense_layers, 3);
	assert_int_equal(m.ffn_dense, 18432);
	assert_int_equal(m.q_lora_rank, 1536);
	table = (double)m.vocab * m.hidden;
	json_test_published(m.params, 671e9, 1e9);
	json_test_published(m.params_active - table, 37e9, 1e9);
}

/* Gemma 2 report (2024), table 1: 917,504,000 embedding and
 * 8,324,201,984 non-embedding parameters for 9B; head_dim 256 is not
 * hidden / heads (224). */
static void test_gemma2_head_dim(void **state)
{
	autosize_model m;

	json_test_load("gemma-2-9b.json", &m);
	assert_int_equal(m.head_dim, 256);
	assert_int_equal(m.tied_embeddings, 1);
	assert_int_equal(m.mlp, AUTOSIZE_MLP_SWIGLU);
	json_test_published(m.params, 9.24e9, 0.01e9);
	json_test_near(m.params - autosize_model_embedding_params(&m),
		       8324201984.0, 0.001);
}

/* Falcon-7B: multi_query (one key/value head), 6.92B (the model card's
 * 6,921,720,704). */
static void test_falcon_multi_query(void **state)
{
	autosize_model m;

	json_test_load("falcon-7b.json", &m);
	assert_int_equal(m.heads, 71);
	assert_int_equal(m.kv_heads, 1);
	assert_int_equal(m.head_dim, 64);
	assert_int_equal(m.mlp, AUTOSIZE_MLP_GELU);
	assert_int_equal(m.tied_embeddings, 1);
	json_test_published(m.params, 6.92e9, 0.01e9);
}

/* Gemma 3 4B: the language model is in text_config, written sparse (heads,
 * head_dim, vocabulary at Gemma3TextConfig's defaults). Gemma 3 report,
 * table 1: 3,209M non-embedding parameters; the vision tower is not
 * counted. */
static void test_gemma3_text_config(void **state)
{
	autosize_model m;

	json_test_load("gemma-3-4b-it.json", &m);
	assert_int_equal(m.hidden, 2560);
	assert_int_equal(m.layers, 34);
	assert_int_equal(m.heads, 8);
	assert_int_equal(m.kv_heads, 4);
	assert_int_equal(m.head_dim, 256);
	assert_int_equal(m.vocab, 262208);
	assert_int_equal(m.tied_embeddings, 1);
	assert_int_equal(m.max_positions, 131072);
	json_test_published(m.params - autosize_model_embedding_params(&m),
			    3209e6, 1e6);
}

/* Sliding-window attention from config.json, by the types' rules: Gemma
 * 3 local on five of six layers (27B: 52 of 62, 1024 tokens), Gemma 2 on
 * every other (21 of 42), Gemma 3 1B at its own 512; Mixtral's null
 * window is none. */
static void test_sliding_window_files(void **state)
{
	static const struct {
		const char *file;
		int window, layers;
	} cases[] = {
		{"gemma-3-27b-pt.json", 1024, 52},
		{"gemma-3-12b-pt.json", 1024, 40},
		{"gemma-3-4b-it.json", 1024, 29},
		{"gemma-3-1b-pt.json", 512, 22},
		{"gemma-2-9b.json", 4096, 21},
		{"Mixtral-8x7B-v0.1.json", 0, 0},
		{"Qwen3-8B.json", 0, 0},
	};
	autosize_model m;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_test_load(cases[i].file, &m);
		if (m.attn_window != cases[i].window ||
		    m.window_layers != cases[i].layers)
			fail_msg("%s: window %d on %d layers, expected %d on "
				 "%d", cases[i].file, m.attn_window,
				 m.window_layers, cases[i].window,
				 cases[i].layers);
	}
}

#define WINDOW_TEST_ARCH \
	"\"num_hidden_layers\": 2, \"num_attention_heads\": 8, " \
	"\"hidden_size\": 64"

/* The keys that switch local attention: Qwen2/3's window only with
 * use_sliding_window (from max_window_layers on, 28 by default), an
 * explicit pattern, GPT-OSS alternating, Mistral on every layer; Llama
 * 4's chunks (attention_chunk_size) on all layers but every
 * no_rope_layer_interval-th, a text_config that leaves both out taking
 * Llama4TextConfig's 8192 and 4 (the Scout file: 36 of 48). */
static void test_local_attention_keys(void **state)
{
	static const struct {
		const char *json;
		int window, chunk, layers;
	} cases[] = {
		{"{\"model_type\": \"qwen2\", \"sliding_window\": 4096, "
		 WINDOW_TEST_ARCH "}", 0, 0, 0},
		{"{\"model_type\": \"qwen2\", \"sliding_window\": 4096, "
		 "\"use_sliding_window\": false, " WINDOW_TEST_ARCH "}",
		 0, 0, 0},
		{"{\"model_type\": \"qwen2\", \"sliding_window\": 4096, "
		 "\"use_sliding_window\": true, \"max_window_layers\": 1, "
		 WINDOW_TEST_ARCH "}", 4096, 0, 1},
		{"{\"model_type\": \"qwen2\", \"sliding_window\": 4096, "
		 "\"use_sliding_window\": true, \"max_window_layers\": 2, "
		 WINDOW_TEST_ARCH "}", 0, 0, 0},
		/* max_window_layers left out: Qwen2/Qwen3 take 28, Qwen3-MoE
		 * has none (every layer) */
		{"{\"model_type\": \"qwen3\", \"sliding_window\": 4096, "
		 "\"use_sliding_window\": true, \"num_hidden_layers\": 30, "
		 "\"num_attention_heads\": 8, \"hidden_size\": 64}",
		 4096, 0, 2},
		{"{\"model_type\": \"qwen3_moe\", \"sliding_window\": 4096, "
		 "\"use_sliding_window\": true, \"num_hidden_layers\": 30, "
		 "\"num_attention_heads\": 8, \"hidden_size\": 64}",
		 4096, 0, 30},
		/* Qwen3-MoE's files carry max_window_layers (30B-A3B: 48);
		 * its modeling code never reads it */
		{"{\"model_type\": \"qwen3_moe\", \"sliding_window\": 4096, "
		 "\"use_sliding_window\": true, \"max_window_layers\": 28, "
		 "\"num_hidden_layers\": 30, \"num_attention_heads\": 8, "
		 "\"hidden_size\": 64}", 4096, 0, 30},
		{"{\"model_type\": \"gpt_oss\", \"sliding_window\": 128, "
		 "\"num_hidden_layers\": 5, \"num_attention_heads\": 8, "
		 "\"hidden_size\": 64}", 128, 0, 3},
		{"{\"model_type\": \"mistral\", \"sliding_window\": 4096, "
		 WINDOW_TEST_ARCH "}", 4096, 0, 2},
		{"{\"model_type\": \"mistral\", \"sliding_window\": null, "
		 WINDOW_TEST_ARCH "}", 0, 0, 0},
		{"{\"sliding_window\": 512, \"sliding_window_pattern\": 2, "
		 "\"num_hidden_layers\": 7, \"num_attention_heads\": 8, "
		 "\"hidden_size\": 64}", 512, 0, 4},
		{"{\"model_type\": \"llama4_text\", "
		 "\"attention_chunk_size\": 4096, "
		 "\"no_rope_layer_interval\": 2, \"num_hidden_layers\": 8, "
		 "\"num_attention_heads\": 8, \"hidden_size\": 64}",
		 0, 4096, 4},
		{"{\"model_type\": \"llama4\", \"text_config\": "
		 "{\"model_type\": \"llama4_text\", \"num_hidden_layers\": 8, "
		 "\"num_attention_heads\": 8, \"hidden_size\": 64}}",
		 0, 8192, 6},
		/* an interval of 1: every layer NoPE, none chunked */
		{"{\"model_type\": \"llama4_text\", "
		 "\"attention_chunk_size\": 8192, "
		 "\"no_rope_layer_interval\": 1, \"num_hidden_layers\": 8, "
		 "\"num_attention_heads\": 8, \"hidden_size\": 64}",
		 0, 0, 0},
		{"{\"model_type\": \"llama\", " WINDOW_TEST_ARCH "}", 0, 0, 0},
	};
	autosize_model m;
	autosize_error e;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (autosize_model_from_json_text(cases[i].json,
						  strlen(cases[i].json),
						  "m.json", &m, &e))
			fail_msg("case %zu: %s", i, e.msg);
		if (m.attn_window != cases[i].window ||
		    m.attn_chunk != cases[i].chunk ||
		    m.window_layers != cases[i].layers)
			fail_msg("case %zu: window %d, chunk %d on %d layers, "
				 "expected %d, %d on %d", i, m.attn_window,
				 m.attn_chunk, m.window_layers,
				 cases[i].window, cases[i].chunk,
				 cases[i].layers);
	}
	json_test_load("Llama-4-Scout-17B-16E.json", &m);
	assert_int_equal(m.attn_chunk, 8192);
	assert_int_equal(m.window_layers, 36);
}

/* A model read from config.json on the submit host reaches slurmctld as
 * AUTOSIZE_MODEL: every new field must survive the trip. */
static void test_jobenv_round_trip(void **state)
{
	static const char *const files[] = {
		"DeepSeek-V3.json", "DeepSeek-V2-Lite.json",
		"Qwen1.5-MoE-A2.7B.json", "gemma-2-9b.json", "falcon-7b.json",
		"gemma-3-4b-it.json", "gpt2.json", "gemma-3-27b-pt.json",
		"Llama-4-Scout-17B-16E.json",
	};
	char line[AUTOSIZE_JOBENV_VALUE_MAX + 1];
	autosize_model m, back;
	autosize_error e;
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		json_test_load(files[i], &m);
		assert_true(autosize_model_encode(&m, line, sizeof(line)) > 0);
		if (autosize_model_decode(line, &back, &e) != AUTOSIZE_OK)
			fail_msg("%s: %s", files[i], e.msg);
		/* no window, no key: an older decoder reads the line */
		if ((strstr(line, "attn_window") != NULL) !=
		    (m.attn_window > 0) ||
		    (strstr(line, "attn_chunk") != NULL) != (m.attn_chunk > 0))
			fail_msg("%s: %s", files[i], line);
		if (back.params != m.params ||
		    back.params_active != m.params_active ||
		    back.max_positions != m.max_positions ||
		    back.attn_window != m.attn_window ||
		    back.window_layers != m.window_layers ||
		    back.attn_chunk != m.attn_chunk)
			fail_msg("%s: %.6g/%.6g after the trip, %.6g/%.6g "
				 "before", files[i], back.params,
				 back.params_active, m.params,
				 m.params_active);
	}
}

/* text_config wins over the top level; the top level fills the rest. */
static void test_text_config_merge(void **state)
{
	autosize_model m;
	autosize_error e;
	const char *t = "{\"hidden_size\": 64, \"num_hidden_layers\": 1, "
			"\"num_attention_heads\": 4, \"vocab_size\": 1000, "
			"\"text_config\": {\"hidden_size\": 128, "
			"\"num_hidden_layers\": 3}}";

	assert_int_equal(autosize_model_from_json_text(t, strlen(t), "m.json",
						       &m, &e), AUTOSIZE_OK);
	assert_int_equal(m.hidden, 128);
	assert_int_equal(m.layers, 3);
	assert_int_equal(m.heads, 4);
	assert_int_equal(m.vocab, 1000);
}

static void test_qwen25_7b(void **state)
{
	autosize_model m;

	json_test_load("Qwen2.5-7B.json", &m);
	assert_int_equal(m.layers, 28);
	assert_int_equal(m.hidden, 3584);
	assert_int_equal(m.heads, 28);
	assert_int_equal(m.kv_heads, 4);
	assert_int_equal(m.ffn, 18944);
	assert_int_equal(m.vocab, 152064);
	assert_int_equal(m.tied_embeddings, 0);
	json_test_near(m.params, 7.62e9, 0.02);
}

static void test_qwen25_05b(void **state)
{
	autosize_model m;

	json_test_load("Qwen2.5-0.5B.json", &m);
	assert_int_equal(m.layers, 24);
	assert_int_equal(m.hidden, 896);
	assert_int_equal(m.heads, 14);
	assert_int_equal(m.kv_heads, 2);
	assert_int_equal(m.ffn, 4864);
	assert_int_equal(m.vocab, 151936);
	assert_int_equal(m.tied_embeddings, 1);
	json_test_near(m.params, 0.494e9, 0.02);
}

/*
 * GPT-2 small: n_embd-style keys, no n_inner (so 4h), no
 * tie_word_embeddings (GPT-2 ties), a learned 1024 x 768 position table:
 * exactly the 124,439,808 parameters of the published checkpoint.
 */
static void test_gpt2(void **state)
{
	autosize_model m;

	json_test_load("gpt2.json", &m);
	assert_string_equal(m.name, "gpt2");
	assert_int_equal(m.layers, 12);
	assert_int_equal(m.hidden, 768);
	assert_int_equal(m.heads, 12);
	assert_int_equal(m.kv_heads, 12);
	assert_int_equal(m.ffn, 3072);
	assert_int_equal(m.vocab, 50257);
	assert_int_equal(m.tied_embeddings, 1);
	assert_int_equal(m.mlp, AUTOSIZE_MLP_GELU);
	assert_int_equal(m.max_positions, 1024);
	assert_int_equal(m.learned_positions, 1);
	assert_true(m.params == 124439808.0);
}

static void json_test_text_ok(const char *text, const char *what,
			      autosize_model *m)
{
	autosize_error e;
	autosize_err rc;

	rc = autosize_model_from_json_text(text, strlen(text), what, m, &e);
	if (rc != AUTOSIZE_OK)
		fail_msg("%s: rc %d: %s", what, rc, e.msg);
}

#define JSON_TEST_GPT "\"n_embd\": 1024, \"n_layer\": 24, \"n_head\": 16"

static void test_n_inner_null(void **state)
{
	autosize_model m;

	json_test_text_ok("{" JSON_TEST_GPT ", \"n_inner\": null, "
			  "\"vocab_size\": 50257}", "inner.json", &m);
	assert_int_equal(m.ffn, 4 * 1024);
	assert_int_equal(m.mlp, AUTOSIZE_MLP_GELU);
	json_test_text_ok("{" JSON_TEST_GPT ", \"n_inner\": 2048}",
			  "inner.json", &m);
	assert_int_equal(m.ffn, 2048);
}

static void test_mlp_choice(void **state)
{
	autosize_model m;

	/* hidden_act gelu without a known model_type: plain MLP */
	json_test_text_ok("{\"hidden_size\": 1024, \"num_hidden_layers\": 2,"
			  " \"num_attention_heads\": 8, \"hidden_act\": "
			  "\"gelu\"}", "act.json", &m);
	assert_int_equal(m.mlp, AUTOSIZE_MLP_GELU);
	/* silu: gated */
	json_test_text_ok("{\"hidden_size\": 1024, \"num_hidden_layers\": 2,"
			  " \"num_attention_heads\": 8, \"hidden_act\": "
			  "\"silu\", \"intermediate_size\": 2816}", "act.json",
			  &m);
	assert_int_equal(m.mlp, AUTOSIZE_MLP_SWIGLU);
	assert_int_equal(m.ffn, 2816);
	/* gpt_neox says gelu by model_type even without hidden_act */
	json_test_text_ok("{\"hidden_size\": 1024, \"num_hidden_layers\": 2,"
			  " \"num_attention_heads\": 8, \"model_type\": "
			  "\"gpt_neox\"}", "neox.json", &m);
	assert_int_equal(m.mlp, AUTOSIZE_MLP_GELU);
	assert_int_equal(m.tied_embeddings, 0);
	/* gemma: gated GeGLU, tied by default */
	json_test_text_ok("{\"hidden_size\": 2048, \"num_hidden_layers\": 2,"
			  " \"num_attention_heads\": 8, \"model_type\": "
			  "\"gemma\", \"hidden_act\": \"gelu_pytorch_tanh\"}",
			  "gemma.json", &m);
	assert_int_equal(m.mlp, AUTOSIZE_MLP_SWIGLU);
	assert_int_equal(m.tied_embeddings, 1);
}

static void test_names(void **state)
{
	autosize_model m;
	const char *arch = "{\"hidden_size\": 64, \"num_hidden_layers\": 1, "
			   "\"num_attention_heads\": 4}";

	json_test_text_ok(arch, "/models/Llama-2-7b-hf/config.json", &m);
	assert_string_equal(m.name, "Llama-2-7b-hf");
	json_test_text_ok(arch, "config.json", &m);
	assert_string_equal(m.name, "config");
	json_test_text_ok(arch, "dir/my model;rm.json", &m);
	assert_string_equal(m.name, "my_model_rm");
	json_test_text_ok(arch, NULL, &m);
	assert_string_equal(m.name, "config");
}

/* Valid but unusual JSON: all of it must be accepted. */
static void test_valid_json(void **state)
{
	static const char *const texts[] = {
		/* BOM, every whitespace, escapes, a surrogate pair, UTF-8 */
		"\xef\xbb\xbf{ \t\r\n\"hidden_size\" : 64 , "
		"\"num_hidden_layers\":1,\"num_attention_heads\":4,"
		"\"s\": \"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\uD83D\\uDE00\","
		"\"u\": \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}",
		/* numbers of every shape outside the wanted keys */
		"{\"hidden_size\":64,\"num_hidden_layers\":1,"
		"\"num_attention_heads\":4,\"n\":[0,-0,1.5,-2e-3,1E+2,1e400,"
		"123456789012345678901234567890],\"o\":{},\"l\":[],"
		"\"x\":[true,false,null,{\"a\":[{}]}]}",
		/* an escaped key still names the field */
		"{\"hidden\\u005fsize\":64,\"num_hidden_layers\":1,"
		"\"num_attention_heads\":4}",
		/* a wanted key in another nested object is not the model's */
		"{\"hidden_size\":64,\"num_hidden_layers\":1,"
		"\"num_attention_heads\":4,\"vision_config\":{\"hidden_size\""
		":-1, \"vocab_size\": 1.5},\"text_config\":{\"x\":{"
		"\"hidden_size\":-1}}}",
		/* the same value under both names is fine */
		"{\"hidden_size\":64,\"n_embd\":64,\"num_hidden_layers\":1,"
		"\"num_attention_heads\":4}",
		/* null means absent for optional keys */
		"{\"hidden_size\":64,\"num_hidden_layers\":1,"
		"\"num_attention_heads\":4,\"num_key_value_heads\":null,"
		"\"tie_word_embeddings\":null,\"vocab_size\":null}",
	};
	autosize_model m;
	size_t i;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		json_test_text_ok(texts[i], "valid.json", &m);
		assert_int_equal(m.hidden, 64);
	}
	assert_int_equal(m.kv_heads, 4);
}

/* Nesting: 32 levels are accepted, 33 are not. */
static char *json_test_nested(int levels)
{
	const char *head = "{\"hidden_size\":64,\"num_hidden_layers\":1,"
			   "\"num_attention_heads\":4,\"x\":";
	size_t n = strlen(head);
	char *s = malloc(n + 2 * (size_t)levels + 2);
	int i;

	assert_non_null(s);
	memcpy(s, head, n);
	for (i = 1; i < levels; i++)
		s[n++] = '[';
	for (i = 1; i < levels; i++)
		s[n++] = ']';
	s[n++] = '}';
	s[n] = '\0';
	return s;
}

static void test_depth(void **state)
{
	autosize_model m;
	autosize_error e;
	char *s;

	s = json_test_nested(32);
	json_test_text_ok(s, "deep.json", &m);
	free(s);
	s = json_test_nested(33);
	assert_int_equal(autosize_model_from_json_text(s, strlen(s),
						       "deep.json", &m, &e),
			 AUTOSIZE_ETOOBIG);
	assert_non_null(strstr(e.msg, "nested deeper than 32"));
	json_test_msg(&e, "deep.json");
	free(s);
}

static void test_line_column(void **state)
{
	const char *text = "{\n  \"hidden_size\": 64,\n  \"x\": tru\n}";
	autosize_model m;
	autosize_error e;

	assert_int_equal(autosize_model_from_json_text(text, strlen(text),
						       "lc.json", &m, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "line 3, column 8"));
	/* e may be NULL */
	assert_int_equal(autosize_model_from_json_text(text, strlen(text),
						       "lc.json", &m, NULL),
			 AUTOSIZE_EINVAL);
}

/* The text need not be NUL-terminated: only len bytes are read. */
static void test_not_terminated(void **state)
{
	const char *text = "{\"hidden_size\":64,\"num_hidden_layers\":1,"
			   "\"num_attention_heads\":4}GARBAGE";
	autosize_model m;
	autosize_error e;

	assert_int_equal(autosize_model_from_json_text(text,
						       strlen(text) - 7,
						       "len.json", &m, &e),
			 AUTOSIZE_OK);
	assert_int_equal(autosize_model_from_json_text(text, strlen(text),
						       "len.json", &m, &e),
			 AUTOSIZE_EINVAL);
	/* a cut-off text fails even though the byte after it is valid */
	assert_int_equal(autosize_model_from_json_text(text, 20, "len.json",
						       &m, &e),
			 AUTOSIZE_EINVAL);
}

#define JSON_TEST_ARCH "\"num_hidden_layers\": 2, \"num_attention_heads\": 8"

struct json_bad {
	const char *name;    /* also the `what` given */
	const char *text;
	size_t len;          /* 0: strlen(text) */
	autosize_err code;
	const char *needle;  /* part of the expected message */
};

static const struct json_bad json_bad_texts[] = {
	{ "empty", "", 0, AUTOSIZE_EINVAL, "end of text" },
	{ "only-space", " \n\t ", 0, AUTOSIZE_EINVAL, "end of text" },
	{ "truncated-key", "{\"hidden_size\": 4096, \"num_hidd", 0,
	  AUTOSIZE_EINVAL, "unterminated string" },
	{ "truncated-comma", "{\"hidden_size\": 4096,", 0, AUTOSIZE_EINVAL,
	  "a key in double quotes" },
	{ "truncated-open", "{\"hidden_size\": 4096", 0, AUTOSIZE_EINVAL,
	  "',' or '}'" },
	{ "truncated-literal", "{\"x\": tru", 0, AUTOSIZE_EINVAL,
	  "expected a value" },
	{ "not-json", "hidden_size = 4096\n", 0, AUTOSIZE_EINVAL,
	  "not an object" },
	{ "top-level-list", "[{\"hidden_size\": 4096}]", 0, AUTOSIZE_EINVAL,
	  "is a list" },
	{ "top-level-string", "\"config\"", 0, AUTOSIZE_EINVAL,
	  "not an object" },
	{ "top-level-number", "4096", 0, AUTOSIZE_EINVAL, "not an object" },
	{ "negative-hidden", "{\"hidden_size\": -4096, " JSON_TEST_ARCH "}",
	  0, AUTOSIZE_EINVAL, "hidden_size -4096 is out of range" },
	{ "zero-hidden", "{\"hidden_size\": 0, " JSON_TEST_ARCH "}", 0,
	  AUTOSIZE_EINVAL, "hidden_size 0 is out of range" },
	{ "huge-hidden", "{\"hidden_size\": 300000, " JSON_TEST_ARCH "}", 0,
	  AUTOSIZE_EINVAL, "hidden_size 300000 is out of range" },
	{ "enormous-hidden", "{\"hidden_size\": "
	  "123456789012345678901234567890123, " JSON_TEST_ARCH "}", 0,
	  AUTOSIZE_EINVAL, "hidden_size 123456789012345678901234... is out" },
	{ "1e400", "{\"hidden_size\": 1e400, " JSON_TEST_ARCH "}", 0,
	  AUTOSIZE_EINVAL, "hidden_size 1e400 is not an integer" },
	{ "float-layers", "{\"hidden_size\": 4096, \"num_hidden_layers\": "
	  "32.0, \"num_attention_heads\": 32}", 0, AUTOSIZE_EINVAL,
	  "num_hidden_layers 32.0 is not an integer" },
	{ "string-hidden", "{\"hidden_size\": \"4096\", " JSON_TEST_ARCH "}",
	  0, AUTOSIZE_EINVAL, "hidden_size is a string (expected an integer)" },
	{ "object-hidden", "{\"hidden_size\": {\"v\": 1}, " JSON_TEST_ARCH
	  "}", 0, AUTOSIZE_EINVAL, "hidden_size is an object" },
	{ "number-tied", "{\"hidden_size\": 64, \"tie_word_embeddings\": 1, "
	  JSON_TEST_ARCH "}", 0, AUTOSIZE_EINVAL,
	  "tie_word_embeddings is a number (expected true or false)" },
	{ "heads-not-dividing", "{\"hidden_size\": 4096, "
	  "\"num_hidden_layers\": 2, \"num_attention_heads\": 24}", 0,
	  AUTOSIZE_EINVAL, "do not divide hidden" },
	{ "kv-not-dividing", "{\"hidden_size\": 4096, \"num_key_value_heads\""
	  ": 5, \"num_hidden_layers\": 2, \"num_attention_heads\": 32}", 0,
	  AUTOSIZE_EINVAL, "kv-heads 5 must divide heads 32" },
	{ "missing-layers", "{\"hidden_size\": 4096, "
	  "\"num_attention_heads\": 32}", 0, AUTOSIZE_EINVAL,
	  "missing num_hidden_layers" },
	{ "missing-hidden", "{" JSON_TEST_ARCH "}", 0, AUTOSIZE_EINVAL,
	  "missing hidden_size" },
	{ "null-hidden", "{\"hidden_size\": null, " JSON_TEST_ARCH "}", 0,
	  AUTOSIZE_EINVAL, "missing hidden_size" },
	{ "missing-heads", "{\"hidden_size\": 64, \"num_hidden_layers\": 2}",
	  0, AUTOSIZE_EINVAL, "missing num_attention_heads" },
	{ "duplicate-key", "{\"hidden_size\": 64, \"hidden_size\": 64, "
	  JSON_TEST_ARCH "}", 0, AUTOSIZE_EINVAL, "duplicate key hidden_size" },
	{ "names-disagree", "{\"hidden_size\": 64, \"n_embd\": 128, "
	  JSON_TEST_ARCH "}", 0, AUTOSIZE_EINVAL,
	  "hidden_size 64 and n_embd 128 disagree" },
	{ "moe-without-experts", "{\"hidden_size\": 64, "
	  "\"moe_intermediate_size\": 1408, " JSON_TEST_ARCH "}", 0,
	  AUTOSIZE_EINVAL, "moe_intermediate_size given without experts" },
	{ "moe-without-active", "{\"hidden_size\": 64, "
	  "\"moe_intermediate_size\": 1408, \"num_experts\": 60, "
	  JSON_TEST_ARCH "}", 0, AUTOSIZE_EINVAL, "no experts-active" },
	{ "moe-step-past-the-layers", "{\"hidden_size\": 64, "
	  "\"num_experts\": 8, \"num_experts_per_tok\": 2, "
	  "\"decoder_sparse_step\": 9, " JSON_TEST_ARCH "}", 0,
	  AUTOSIZE_EINVAL, "leaves no expert layer" },
	{ "mla-without-dims", "{\"hidden_size\": 64, \"kv_lora_rank\": 16, "
	  JSON_TEST_ARCH "}", 0, AUTOSIZE_EINVAL, "kv-lora-rank 16 needs" },
	{ "dense-layers-all", "{\"hidden_size\": 64, \"num_experts\": 8, "
	  "\"num_experts_per_tok\": 2, \"first_k_dense_replace\": 2, "
	  JSON_TEST_ARCH "}", 0, AUTOSIZE_EINVAL, "leaves no expert layer" },
	{ "text-config-list", "{\"text_config\": [1], " JSON_TEST_ARCH "}", 0,
	  AUTOSIZE_EINVAL, "text_config is not an object" },
	{ "text-config-bad-value", "{\"hidden_size\": 64, \"text_config\": "
	  "{\"hidden_size\": -1}, " JSON_TEST_ARCH "}", 0, AUTOSIZE_EINVAL,
	  "text_config.hidden_size -1 is out of range" },
	{ "text-config-duplicate", "{\"text_config\": {\"head_dim\": 8, "
	  "\"head_dim\": 8}, \"hidden_size\": 64, " JSON_TEST_ARCH "}", 0,
	  AUTOSIZE_EINVAL, "duplicate key text_config.head_dim" },
	{ "multi-query-number", "{\"hidden_size\": 64, \"multi_query\": 1, "
	  JSON_TEST_ARCH "}", 0, AUTOSIZE_EINVAL,
	  "multi_query is a number (expected true or false)" },
	{ "control-char", "{\"model_type\": \"lla\tma\"}", 0, AUTOSIZE_EINVAL,
	  "control character in string" },
	{ "newline-in-string", "{\"model_type\": \"lla\nma\"}", 0,
	  AUTOSIZE_EINVAL, "control character in string" },
	{ "invalid-escape", "{\"model_type\": \"ll\\ama\"}", 0,
	  AUTOSIZE_EINVAL, "invalid escape" },
	{ "short-u-escape", "{\"model_type\": \"\\u12\"}", 0, AUTOSIZE_EINVAL,
	  "bad \\u escape" },
	{ "lone-high-surrogate", "{\"s\": \"\\ud800\"}", 0, AUTOSIZE_EINVAL,
	  "lone high surrogate" },
	{ "high-then-bmp", "{\"s\": \"\\ud800\\u0041\"}", 0, AUTOSIZE_EINVAL,
	  "lone high surrogate" },
	{ "lone-low-surrogate", "{\"s\": \"\\udc00\"}", 0, AUTOSIZE_EINVAL,
	  "lone low surrogate" },
	{ "bad-utf8-overlong", "{\"s\": \"\xc0\xaf\"}", 0, AUTOSIZE_EINVAL,
	  "invalid UTF-8" },
	{ "bad-utf8-surrogate", "{\"s\": \"\xed\xa0\x80\"}", 0,
	  AUTOSIZE_EINVAL, "invalid UTF-8" },
	{ "bad-utf8-cut", "{\"s\": \"\xe2\x82\"}", 0, AUTOSIZE_EINVAL,
	  "invalid UTF-8" },
	{ "trailing-junk", "{\"hidden_size\": 64, " JSON_TEST_ARCH "} x", 0,
	  AUTOSIZE_EINVAL, "nothing after the top-level object" },
	{ "two-objects", "{}{}", 0, AUTOSIZE_EINVAL, "nothing after" },
	{ "trailing-comma", "{\"a\": 1,}", 0, AUTOSIZE_EINVAL,
	  "a key in double quotes" },
	{ "list-trailing-comma", "{\"a\": [1,]}", 0, AUTOSIZE_EINVAL,
	  "expected a value" },
	{ "single-quotes", "{'hidden_size': 64}", 0, AUTOSIZE_EINVAL,
	  "a key in double quotes" },
	{ "bare-key", "{hidden_size: 64}", 0, AUTOSIZE_EINVAL,
	  "a key in double quotes" },
	{ "missing-colon", "{\"a\" 1}", 0, AUTOSIZE_EINVAL, "':'" },
	{ "leading-zero", "{\"a\": 0123}", 0, AUTOSIZE_EINVAL, "',' or '}'" },
	{ "bare-dot", "{\"a\": 1.}", 0, AUTOSIZE_EINVAL, "a digit after '.'" },
	{ "plus-sign", "{\"a\": +1}", 0, AUTOSIZE_EINVAL, "expected a value" },
	{ "nan", "{\"a\": NaN}", 0, AUTOSIZE_EINVAL, "expected a value" },
	{ "infinity", "{\"a\": -Infinity}", 0, AUTOSIZE_EINVAL, "a digit" },
	{ "bad-exponent", "{\"a\": 1e}", 0, AUTOSIZE_EINVAL, "exponent" },
	{ "mismatched", "{\"a\": [1}", 0, AUTOSIZE_EINVAL, "',' or ']'" },
	{ "unclosed-list", "{\"a\": [1, 2", 0, AUTOSIZE_EINVAL, "',' or ']'" },
	{ "comment", "{\"a\": 1 /* x */}", 0, AUTOSIZE_EINVAL, "',' or '}'" },
	{ "nul-byte", "{\"a\": 1\0}", 9, AUTOSIZE_EINVAL, "byte 0x00" },
	{ "nul-in-string", "{\"a\": \"x\0\"}", 11, AUTOSIZE_EINVAL,
	  "control character" },
};

static void test_bad_texts(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(json_bad_texts) / sizeof(json_bad_texts[0]);
	     i++) {
		const struct json_bad *b = &json_bad_texts[i];
		size_t len = b->len ? b->len : strlen(b->text);
		char what[64];
		autosize_model m;
		autosize_error e;
		autosize_err rc;

		snprintf(what, sizeof(what), "bad/%s.json", b->name);
		autosize_error_clear(&e);
		rc = autosize_model_from_json_text(b->text, len, what, &m, &e);
		if (rc != b->code)
			fail_msg("%s: rc %d, want %d: %s", b->name, rc,
				 b->code, e.msg);
		assert_int_equal(e.code, b->code);
		json_test_msg(&e, what);
		if (!strstr(e.msg, b->needle))
			fail_msg("%s: message lacks \"%s\": %s", b->name,
				 b->needle, e.msg);
	}
}

static void test_nesting_1000(void **state)
{
	size_t n = 1000, i;
	char *s = malloc(n + 8);
	autosize_model m;
	autosize_error e;

	assert_non_null(s);
	memcpy(s, "{\"a\":", 5);
	for (i = 5; i < n + 5; i++)
		s[i] = '[';
	assert_int_equal(autosize_model_from_json_text(s, n + 5, "deep.json",
						       &m, &e),
			 AUTOSIZE_ETOOBIG);
	json_test_msg(&e, "deep.json");
	assert_non_null(strstr(e.msg, "JSON nested deeper than 32 levels"));
	free(s);
}

/* 2 MiB of valid JSON: over the cap, in memory and as a file. */
static char *json_test_big(size_t *len)
{
	char *s = malloc(BIG_BYTES + 1);
	size_t i;

	assert_non_null(s);
	s[0] = '[';
	for (i = 1; i + 1 < BIG_BYTES; i++)
		s[i] = ' ';
	s[BIG_BYTES - 1] = ']';
	s[BIG_BYTES] = '\0';
	*len = BIG_BYTES;
	return s;
}

static void test_too_big(void **state)
{
	char path[64];
	autosize_model m;
	autosize_error e;
	size_t len;
	char *s = json_test_big(&len);

	assert_int_equal(autosize_model_from_json_text(s, len, "big.json", &m,
						       &e),
			 AUTOSIZE_ETOOBIG);
	json_test_msg(&e, "big.json");
	test_write_tmp(path, sizeof(path), s);
	assert_int_equal(autosize_model_from_config_json(path, &m, &e),
			 AUTOSIZE_ETOOBIG);
	json_test_msg(&e, path);
	assert_non_null(strstr(e.msg, "2097152 bytes"));
	unlink(path);
	free(s);
}

static void json_test_bad_path(const char *path, autosize_err code,
			       const char *needle)
{
	autosize_model m;
	autosize_error e;
	autosize_err rc;

	autosize_error_clear(&e);
	rc = autosize_model_from_config_json(path, &m, &e);
	if (rc != code)
		fail_msg("%s: rc %d, want %d: %s", path, rc, code, e.msg);
	json_test_msg(&e, path);
	if (!strstr(e.msg, needle))
		fail_msg("%s: message lacks \"%s\": %s", path, needle, e.msg);
}

static void test_bad_paths(void **state)
{
	char dir[] = "/tmp/autosize-test-XXXXXX";
	char fifo[64], path[64];

	json_test_bad_path(CONFIGS, AUTOSIZE_EIO, "is a directory");
	json_test_bad_path(CONFIGS "/no-such-model.json", AUTOSIZE_EIO,
			   "cannot open");
	json_test_bad_path("/dev/null", AUTOSIZE_EIO, "a device");
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/config.json", dir);
	if (mkfifo(fifo, 0600) != 0)
		fail_msg("mkfifo %s: %s", fifo, strerror(errno));
	/* O_NONBLOCK: opening a FIFO with no writer must not hang */
	json_test_bad_path(fifo, AUTOSIZE_EIO, "a FIFO");
	unlink(fifo);
	rmdir(dir);
	test_write_tmp(path, sizeof(path), "");
	json_test_bad_path(path, AUTOSIZE_EINVAL, "end of text");
	unlink(path);
	test_write_tmp(path, sizeof(path), "{\"hidden_size\": 4096,\n"
		       "\"num_attention_heads\": 32}\n");
	json_test_bad_path(path, AUTOSIZE_EINVAL, "missing "
			   "num_hidden_layers");
	unlink(path);
}

/* The plan JSON's keys the visitor found missing from the doc. */
typedef struct doc_check {
	const char *doc;
	int keys, missing;
	char first_missing[64];
} doc_check;

/* Every key at the top level and in "launch" and
 * "memory_per_gpu_bytes" is a `key` of doc/plan-json.md. */
static void doc_visit(void *ctx, const autosize_json_member *m)
{
	doc_check *c = ctx;
	char pat[80];

	if (m->parent[0] && strcmp(m->parent, "launch") != 0 &&
	    strcmp(m->parent, "memory_per_gpu_bytes") != 0 &&
	    strcmp(m->parent, "error") != 0)
		return;
	if (m->parent[0] && strcmp(m->parent, "launch") == 0 &&
	    strcmp(m->key, "deepspeed") != 0 && m->kind ==
	    AUTOSIZE_JSON_OBJECT)
		return;
	c->keys++;
	snprintf(pat, sizeof(pat), "`%s`", m->key);
	if (!strstr(c->doc, pat)) {
		if (!c->missing++)
			snprintf(c->first_missing, sizeof(c->first_missing),
				 "%s.%s", m->parent, m->key);
	}
}

/* The step's parts, in the plan and as printed, add up to step_s. */
static void step_parts_add_up(const autosize_plan *p, const char *json)
{
	static const char *const keys[] = {"gemm", "attention",
		"elementwise", "host", "recompute", "tp_comm", "cp_comm",
		"ep_comm", "pp_comm", "dp_comm", "bubble", "optimizer",
		"offload"};
	const autosize_step_parts *sp = &p->step;
	const char *o = strstr(json, "\"step_parts_s\":{");
	double sum = 0, printed = 0, step;
	size_t i;

	sum = sp->gemm_s + sp->attention_s + sp->elementwise_s + sp->host_s +
	      sp->recompute_s + sp->tp_comm_s + sp->cp_comm_s +
	      sp->ep_comm_s + sp->pp_comm_s + sp->dp_comm_s + sp->bubble_s +
	      sp->optimizer_s + sp->offload_s;
	assert_true(fabs(sum - p->step_s) <= 1e-9 * p->step_s);
	assert_non_null(o);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char k[32];
		const char *at;
		double v;

		snprintf(k, sizeof(k), "\"%s\":", keys[i]);
		at = strstr(o, k);
		assert_non_null(at);
		v = strtod(at + strlen(k), NULL);
		assert_true(v >= 0);
		printed += v;
	}
	step = strtod(strstr(json, "\"step_s\":") + 9, NULL);
	/* step_s has 4 decimals, each part 6 significant digits */
	assert_true(fabs(printed - step) <= 5e-5 + 1e-5 * step);
}

/* Plans of three frameworks (and a MoE model) as JSON: valid, every
 * field documented, schema_version first, counts as integers. */
/* r from a model, framework, GPU and "name", "value" pairs (NULL
 * ends them), finished. */
static void request_for(autosize_request *r, const char *model,
			const char *framework, const char *gpu,
			const char *const *more)
{
	autosize_error e;
	int k;

	autosize_request_init(r);
	assert_int_equal(autosize_request_set(r, "model", model, &e),
			 AUTOSIZE_OK);
	assert_int_equal(autosize_request_set(r, "train-framework", framework,
					      &e), AUTOSIZE_OK);
	assert_int_equal(autosize_request_set(r, "gpu", gpu, &e), AUTOSIZE_OK);
	for (k = 0; more && more[k]; k += 2)
		assert_int_equal(autosize_request_set(r, more[k], more[k + 1],
						      &e), AUTOSIZE_OK);
	assert_int_equal(autosize_request_finish(r, &e), AUTOSIZE_OK);
}

static void ignore_member(void *ctx, const autosize_json_member *m)
{
	(void)ctx;
	(void)m;
}

/* The published runs a plan cites: the compiled-in table is whole, the
 * nearest share the plan's generation, framework and dense/MoE kind,
 * nearest first, and the JSON member is valid and documented. */
static void test_plan_json_published(void **state)
{
	static const char *const reqs[][4] = {
		{"llama-3-70b", "megatron", "h100", "64"},
		{"mixtral-8x7b", "fsdp", "h100", "64"},
		{"llama-3-8b", "deepspeed", "a100-80gb", "16"},
	};
	static const char *const keys[] = {"published_runs", "id", "half",
		"generation", "framework", "stack", "moe", "peft", "gpus",
		"seq_len", "metric", "error", "known_miss", "distance",
		"matches", "source", NULL};
	autosize_published near[3];
	autosize_policy *pol;
	autosize_request r;
	autosize_plan p;
	autosize_error e;
	char json[8192], doc[65536], pat[40];
	size_t i;
	int k, n, len;
	FILE *f;

	f = fopen("doc/plan-json.md", "r");
	assert_non_null(f);
	len = (int)fread(doc, 1, sizeof(doc) - 1, f);
	fclose(f);
	doc[len] = '\0';
	assert_true(autosize_published_count() >= 200);
	pol = autosize_policy_load("etc/autosize.yaml", &e);
	assert_non_null(pol);
	for (i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		const char *const more[] = {"gpus", reqs[i][3],
					    "train-tokens", "1T", NULL};

		request_for(&r, reqs[i][0], reqs[i][1], reqs[i][2], more);
		assert_true(autosize_plan_compute(pol, &r, &p, &e) !=
			    AUTOSIZE_EINVAL);
		n = autosize_published_nearest(&r, &p, near, 3);
		assert_int_equal(n, 3);
		for (k = 0; k < n; k++) {
			assert_string_equal(near[k].generation,
					    p.perf_generation);
			assert_int_equal(near[k].moe, r.model.experts > 1);
			assert_true(near[k].matches &
				    AUTOSIZE_MATCH_FRAMEWORK);
			assert_true(k == 0 || near[k].distance >=
					      near[k - 1].distance);
			assert_true(near[k].gpus > 0 && near[k].params > 0);
		}
		json[0] = '{';
		len = autosize_plan_published_json(&r, &p, json + 1,
						   sizeof(json) - 2);
		assert_true(len > 20);
		json[1 + len] = '}';
		json[2 + len] = '\0';
		assert_int_equal(autosize_json_scan(json, strlen(json),
						    "published", ignore_member,
						    NULL, &e), AUTOSIZE_OK);
		assert_non_null(strstr(json, near[0].id));
	}
	for (k = 0; keys[k]; k++) {
		snprintf(pat, sizeof(pat), "`%s`", keys[k]);
		if (!strstr(doc, pat))
			fail_msg("%s is not in doc/plan-json.md", pat);
	}
	assert_int_equal(autosize_plan_published_json(&r, &p, json, 16), -1);
	autosize_policy_destroy(pol);
}

static void test_plan_json_documented(void **state)
{
	static const char *const reqs[][4] = {
		{"llama-3-70b", "megatron", "2T", "h100"},
		{"llama-3-8b", "deepspeed", "100B", "a100-80gb"},
		{"mixtral-8x7b", "fsdp", "1T", "h100"},
	};
	autosize_policy *pol;
	autosize_request r;
	autosize_plan p;
	autosize_error e;
	char *doc, *json;
	doc_check c;
	size_t i;
	FILE *f;
	long n;

	f = fopen("doc/plan-json.md", "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	doc = calloc(1, (size_t)n + 1);
	json = calloc(1, 32768);
	assert_non_null(doc);
	assert_non_null(json);
	assert_int_equal(fread(doc, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	pol = autosize_policy_load("etc/autosize.yaml", &e);
	assert_non_null(pol);
	for (i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		const char *const more[] = {"train-tokens", reqs[i][2], NULL};

		request_for(&r, reqs[i][0], reqs[i][1], reqs[i][3], more);
		assert_true(autosize_plan_compute(pol, &r, &p, &e) !=
			    AUTOSIZE_EINVAL);
		assert_true(autosize_launch_plan_json(&r, &p, json, 32768) > 0);
		assert_true(strncmp(json, "{\"schema_version\":1,", 20) == 0);
		step_parts_add_up(&p, json);
		/* counts as integers, not 7.06e+10 */
		assert_int_equal(strspn(strstr(json, "\"params\":") + 9,
					"0123456789"),
				 strcspn(strstr(json, "\"params\":") + 9, ","));
		assert_int_equal(strspn(strstr(json, "\"trained_params\":")
					+ 17, "0123456789"),
				 strcspn(strstr(json, "\"trained_params\":")
					 + 17, ","));
		memset(&c, 0, sizeof(c));
		c.doc = doc;
		assert_int_equal(autosize_json_scan(json, strlen(json),
						    "plan JSON", doc_visit, &c,
						    &e), AUTOSIZE_OK);
		assert_true(c.keys > 40);
		if (c.missing)
			fail_msg("%s plan: %d keys not in doc/plan-json.md, "
				 "first %s", reqs[i][1], c.missing,
				 c.first_missing);
		/* the launcher of the plan's framework, no other */
		assert_true((strstr(json, "\"megatron\":null") == NULL) ==
			    (i == 0));
		assert_true((strstr(json, "\"deepspeed\":null") == NULL) ==
			    (i == 1));
		assert_true((strstr(json, "\"torchtitan\":null") == NULL) ==
			    (p.framework == AUTOSIZE_FRAMEWORK_FSDP));
	}
	/* the error object too */
	memset(&c, 0, sizeof(c));
	c.doc = doc;
	snprintf(json, 32768, "{\"schema_version\":1,\"error\":{\"code\":"
		 "\"input\",\"message\":\"x\"}}");
	assert_int_equal(autosize_json_scan(json, strlen(json), "error",
					    doc_visit, &c, &e), AUTOSIZE_OK);
	assert_int_equal(c.missing, 0);
	autosize_policy_destroy(pol);
	free(json);
	free(doc);
}

/* GB200 NVL72 past one rack: the plan names its Slurm segment
 * (segment_nodes, sbatch --segment) and its node count is a multiple of
 * it, whether pinned (64 trays: 16) or searched for a deadline; the
 * job's own --segment is the plan's; 8-GPU H100 nodes have none. */
static void test_plan_json_segment(void **state)
{
	static const char *const pinned[] = {"train-tokens", "1T", "nodes",
					     "64", NULL};
	static const char *const free_[] = {"train-tokens", "2T",
					    "train-time", "30d", NULL};
	static const char *const own[] = {"train-tokens", "2T", "train-time",
					  "30d", "segment", "12", NULL};
	autosize_policy *pol;
	autosize_request r;
	autosize_plan p;
	autosize_error e;
	char *json = calloc(1, 32768);

	assert_non_null(json);
	pol = autosize_policy_default(&e);
	assert_non_null(pol);
	request_for(&r, "qwen3-235b-a22b", "megatron", "gb200", pinned);
	assert_int_equal(autosize_plan_compute(pol, &r, &p, &e), AUTOSIZE_OK);
	assert_int_equal(p.nodes, 64);
	assert_int_equal(p.segment_nodes, 16);
	assert_true(autosize_launch_plan_json(&r, &p, json, 32768) > 0);
	assert_non_null(strstr(json, "\"segment_nodes\":16,"));
	request_for(&r, "qwen3-235b-a22b", "megatron", "gb200", free_);
	assert_int_equal(autosize_plan_compute(pol, &r, &p, &e), AUTOSIZE_OK);
	assert_true(p.nodes > 18);
	assert_true(p.segment_nodes >= 2 && p.segment_nodes <= 18);
	assert_int_equal(p.nodes % p.segment_nodes, 0);
	request_for(&r, "qwen3-235b-a22b", "megatron", "gb200", own);
	assert_int_equal(autosize_plan_compute(pol, &r, &p, &e), AUTOSIZE_OK);
	assert_int_equal(p.segment_nodes, 12);
	assert_int_equal(p.nodes % 12, 0);
	request_for(&r, "qwen3-235b-a22b", "megatron", "h100", pinned);
	assert_int_equal(autosize_plan_compute(pol, &r, &p, &e), AUTOSIZE_OK);
	assert_int_equal(p.segment_nodes, 0);
	assert_true(autosize_launch_plan_json(&r, &p, json, 32768) > 0);
	assert_non_null(strstr(json, "\"segment_nodes\":0,"));
	autosize_policy_destroy(pol);
	free(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_llama2_7b),
		cmocka_unit_test(test_llama3_8b),
		cmocka_unit_test(test_mixtral),
		cmocka_unit_test(test_qwen15_moe),
		cmocka_unit_test(test_deepseek_v2_lite),
		cmocka_unit_test(test_deepseek_v3),
		cmocka_unit_test(test_gemma2_head_dim),
		cmocka_unit_test(test_falcon_multi_query),
		cmocka_unit_test(test_gemma3_text_config),
		cmocka_unit_test(test_sliding_window_files),
		cmocka_unit_test(test_local_attention_keys),
		cmocka_unit_test(test_text_config_merge),
		cmocka_unit_test(test_jobenv_round_trip),
		cmocka_unit_test(test_qwen25_7b),
		cmocka_unit_test(test_qwen25_05b),
		cmocka_unit_test(test_gpt2),
		cmocka_unit_test(test_n_inner_null),
		cmocka_unit_test(test_mlp_choice),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_valid_json),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_line_column),
		cmocka_unit_test(test_not_terminated),
		cmocka_unit_test(test_bad_texts),
		cmocka_unit_test(test_nesting_1000),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_bad_paths),
		cmocka_unit_test(test_plan_json_documented),
		cmocka_unit_test(test_plan_json_segment),
		cmocka_unit_test(test_plan_json_published),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
