/*
 * autosize: Hugging Face config.json -> model architecture.
 *
 * The JSON itself is validated by json.c; this file maps the keys that
 * transformers' configuration classes use onto autosize_model: Llama-style
 * names and their GPT-2 spellings, Mixtral / Qwen2-MoE / DeepSeek-V2/V3
 * experts, DeepSeek's multi-head latent attention, explicit head_dim
 * (Gemma), Falcon's multi_query, learned position tables (GPT-2) and the
 * language model nested in a multimodal config ("text_config": Gemma-3,
 * LLaVA, Mistral-3), and Nemotron-H's hybrid Mamba-2 layer pattern.
 * Nothing is allocated but the file's buffer.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "autosize/model.h"
#include "autosize/parse.h"
#include "json.h"
#include "readfile.h"

#define HF_SHOW_MAX 24                 /* bytes of a bad number quoted */
#define HF_INT_HUGE 1000000000000L     /* stop accumulating digits here */
#define HF_STR_MAX 64                  /* a kept string value, with NUL */
#define HF_TEXT_CONFIG "text_config"
#define HF_VISION_CONFIG "vision_config"

enum hf_kind { HF_INT, HF_BOOL, HF_STR };

enum hf_field {
	HF_HIDDEN = 0,
	HF_LAYERS,
	HF_HEADS,
	HF_KV_HEADS,
	HF_FFN,
	HF_VOCAB,
	HF_TIED,
	HF_EXPERTS,
	HF_EXPERTS_ACTIVE,
	HF_MOE_FFN,
	HF_SHARED_FFN,      /* Qwen2-MoE: one shared expert of this width */
	HF_SHARED_EXPERTS,  /* DeepSeek: this many of moe_intermediate_size */
	HF_DENSE_LAYERS,
	HF_MOE_EVERY,       /* MoE in every k-th layer only */
	HF_DENSE_FFN,       /* Llama 4: the dense layers' MLP width */
	HF_HEAD_DIM,
	HF_MULTI_QUERY,
	HF_Q_LORA,
	HF_KV_LORA,
	HF_QK_NOPE,
	HF_QK_ROPE,
	HF_V_HEAD,
	HF_POSITIONS,
	HF_WINDOW,          /* sliding_window: the local layers' span */
	HF_WINDOW_EVERY,    /* Gemma 3: every k-th layer global */
	HF_USE_WINDOW,      /* Qwen2/3: the window is off unless true */
	HF_FULL_LAYERS,     /* Qwen2/3: the leading layers without it */
	HF_CHUNK,           /* Llama 4: attention_chunk_size */
	HF_NOPE_EVERY,      /* Llama 4: every k-th layer global (NoPE) */
	HF_ACT,
	HF_TYPE,
	HF_PATTERN,         /* Nemotron-H: hybrid_override_pattern's length */
	HF_PAT_MAMBA,       /* ... its 'M' (Mamba-2 mixer) blocks; these
			     * four in hf_take_pattern's order "M*-E" */
	HF_PAT_ATTN,        /* ... '*' (attention) */
	HF_PAT_DENSE,       /* ... '-' (dense MLP) */
	HF_PAT_MOE,         /* ... 'E' (experts) */
	HF_MAMBA_HEADS,
	HF_MAMBA_HEAD_DIM,
	HF_MAMBA_STATE,
	HF_MAMBA_GROUPS,
	HF_LATENT_MOE,      /* Nemotron 3 Super: experts in a latent width */
	HF_LINEAR_HEADS,    /* Gated DeltaNet (Qwen3-Next, Qwen3.5) */
	HF_FIELD_COUNT
};

struct hf_key {
	const char *name;
	enum hf_field field;
	enum hf_kind kind;
	long min;
	long max;
};

/* The keys read, each with the spellings that configuration classes use
 * (transformers' Llama, GPT-2, Mixtral, Qwen2-MoE, DeepSeek-V2/V3,
 * Falcon and Gemma configs). */
static const struct hf_key hf_keys[] = {
	{ "hidden_size", HF_HIDDEN, HF_INT, 1, AUTOSIZE_MAX_HIDDEN },
	{ "n_embd", HF_HIDDEN, HF_INT, 1, AUTOSIZE_MAX_HIDDEN },
	{ "num_hidden_layers", HF_LAYERS, HF_INT, 1, AUTOSIZE_MAX_LAYERS },
	{ "n_layer", HF_LAYERS, HF_INT, 1, AUTOSIZE_MAX_LAYERS },
	{ "num_attention_heads", HF_HEADS, HF_INT, 1, AUTOSIZE_MAX_HEADS },
	{ "n_head", HF_HEADS, HF_INT, 1, AUTOSIZE_MAX_HEADS },
	{ "num_key_value_heads", HF_KV_HEADS, HF_INT, 1, AUTOSIZE_MAX_HEADS },
	{ "num_kv_heads", HF_KV_HEADS, HF_INT, 1, AUTOSIZE_MAX_HEADS },
	{ "intermediate_size", HF_FFN, HF_INT, 1, AUTOSIZE_MAX_FFN },
	{ "n_inner", HF_FFN, HF_INT, 1, AUTOSIZE_MAX_FFN },
	{ "vocab_size", HF_VOCAB, HF_INT, 1, AUTOSIZE_MAX_VOCAB },
	{ "tie_word_embeddings", HF_TIED, HF_BOOL, 0, 1 },
	{ "num_local_experts", HF_EXPERTS, HF_INT, 0, AUTOSIZE_MAX_EXPERTS },
	{ "num_experts", HF_EXPERTS, HF_INT, 0, AUTOSIZE_MAX_EXPERTS },
	{ "n_routed_experts", HF_EXPERTS, HF_INT, 0, AUTOSIZE_MAX_EXPERTS },
	{ "num_experts_per_tok", HF_EXPERTS_ACTIVE, HF_INT, 0,
	  AUTOSIZE_MAX_EXPERTS },
	{ "moe_intermediate_size", HF_MOE_FFN, HF_INT, 0, AUTOSIZE_MAX_FFN },
	{ "shared_expert_intermediate_size", HF_SHARED_FFN, HF_INT, 0,
	  AUTOSIZE_MAX_FFN },
	{ "n_shared_experts", HF_SHARED_EXPERTS, HF_INT, 0,
	  AUTOSIZE_MAX_EXPERTS },
	{ "first_k_dense_replace", HF_DENSE_LAYERS, HF_INT, 0,
	  AUTOSIZE_MAX_LAYERS },
	{ "decoder_sparse_step", HF_MOE_EVERY, HF_INT, 0, AUTOSIZE_MAX_LAYERS },
	{ "moe_layer_freq", HF_MOE_EVERY, HF_INT, 0, AUTOSIZE_MAX_LAYERS },
	{ "interleave_moe_layer_step", HF_MOE_EVERY, HF_INT, 0,
	  AUTOSIZE_MAX_LAYERS },
	{ "intermediate_size_mlp", HF_DENSE_FFN, HF_INT, 1, AUTOSIZE_MAX_FFN },
	{ "head_dim", HF_HEAD_DIM, HF_INT, 1, AUTOSIZE_MAX_HEAD_DIM },
	{ "multi_query", HF_MULTI_QUERY, HF_BOOL, 0, 1 },
	{ "q_lora_rank", HF_Q_LORA, HF_INT, 0, AUTOSIZE_MAX_LORA_RANK },
	{ "kv_lora_rank", HF_KV_LORA, HF_INT, 0, AUTOSIZE_MAX_LORA_RANK },
	{ "qk_nope_head_dim", HF_QK_NOPE, HF_INT, 0, AUTOSIZE_MAX_HEAD_DIM },
	{ "qk_rope_head_dim", HF_QK_ROPE, HF_INT, 0, AUTOSIZE_MAX_HEAD_DIM },
	{ "v_head_dim", HF_V_HEAD, HF_INT, 0, AUTOSIZE_MAX_HEAD_DIM },
	{ "max_position_embeddings", HF_POSITIONS, HF_INT, 1,
	  AUTOSIZE_MAX_POSITIONS },
	{ "n_positions", HF_POSITIONS, HF_INT, 1, AUTOSIZE_MAX_POSITIONS },
	{ "sliding_window", HF_WINDOW, HF_INT, 0, AUTOSIZE_MAX_POSITIONS },
	{ "sliding_window_pattern", HF_WINDOW_EVERY, HF_INT, 1,
	  AUTOSIZE_MAX_LAYERS },
	{ "use_sliding_window", HF_USE_WINDOW, HF_BOOL, 0, 1 },
	{ "max_window_layers", HF_FULL_LAYERS, HF_INT, 0, AUTOSIZE_MAX_LAYERS },
	{ "attention_chunk_size", HF_CHUNK, HF_INT, 0, AUTOSIZE_MAX_POSITIONS },
	{ "no_rope_layer_interval", HF_NOPE_EVERY, HF_INT, 1,
	  AUTOSIZE_MAX_LAYERS },
	{ "hidden_act", HF_ACT, HF_STR, 0, 0 },
	{ "hidden_activation", HF_ACT, HF_STR, 0, 0 },
	{ "activation_function", HF_ACT, HF_STR, 0, 0 },
	{ "model_type", HF_TYPE, HF_STR, 0, 0 },
	{ "hybrid_override_pattern", HF_PATTERN, HF_STR, 0, 0 },
	{ "mamba_num_heads", HF_MAMBA_HEADS, HF_INT, 1, AUTOSIZE_MAX_HEADS },
	{ "mamba_head_dim", HF_MAMBA_HEAD_DIM, HF_INT, 1,
	  AUTOSIZE_MAX_HEAD_DIM },
	{ "ssm_state_size", HF_MAMBA_STATE, HF_INT, 1, AUTOSIZE_MAX_HEAD_DIM },
	{ "n_groups", HF_MAMBA_GROUPS, HF_INT, 1, AUTOSIZE_MAX_HEADS },
	{ "moe_shared_expert_intermediate_size", HF_SHARED_FFN, HF_INT, 0,
	  AUTOSIZE_MAX_FFN },
	{ "moe_latent_size", HF_LATENT_MOE, HF_INT, 0, AUTOSIZE_MAX_HIDDEN },
	{ "linear_num_value_heads", HF_LINEAR_HEADS, HF_INT, 0,
	  AUTOSIZE_MAX_HEADS },
};

#define HF_N_KEYS (sizeof(hf_keys) / sizeof(hf_keys[0]))

/* Where a key is read: the top level, or inside "text_config". */
enum hf_scope { HF_TOP = 0, HF_TEXT, HF_SCOPES };

/*
 * model_type values with a plain two-matrix MLP (GPT-style), and with a
 * gated three-matrix one (SwiGLU, or GeGLU for Gemma: same count), from
 * each model's Hugging Face modeling code.
 */
static const char *const hf_plain_mlp_types[] = {
	"gpt2", "gpt_neo", "gpt_neox", "gptj", "gpt_bigcode", "opt", "bloom",
	"falcon", "RefinedWeb", "RefinedWebModel", "phi", "starcoder2",
	"codegen", "nemotron_h", NULL
};
/* Types whose layers hybrid_override_pattern states (NemotronHConfig):
 * without it a file's layers cannot be read. */
static const char *const hf_pattern_types[] = { "nemotron_h", NULL };
/*
 * State-space and other recurrent mixers the engine does not read from a
 * config.json: Mamba-1 (its selective scan is not Mamba-2's), hybrids
 * that state their layers another way than Nemotron-H's pattern (Jamba,
 * Zamba, Bamba, Granite 4.0-H, Falcon-H1), linear attention (Qwen3-Next's
 * Gated DeltaNet, Kimi Linear, MiniMax), RWKV, xLSTM, Griffin. Their
 * layers would be sized as attention: refused, naming what to give.
 */
static const char *const hf_recurrent_types[] = {
	"mamba", "mamba2", "falcon_mamba", "jamba", "zamba", "zamba2",
	"bamba", "granitemoehybrid", "falcon_h1", "qwen3_next", "kimi_linear",
	"minimax", "minimax_m1", "lfm2", "lfm2_moe", "plamo2",
	"recurrent_gemma", "rwkv", "rwkv5", "rwkv6", "rwkv7", "xlstm",
	"hymba", "qwen3_5", "qwen3_5_moe", "qwen3_5_text", "qwen3_5_moe_text",
	NULL
};
static const char *const hf_gated_mlp_types[] = {
	"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3",
	"qwen3_moe", "gemma", "gemma2", "gemma3", "gemma3_text", "phi3",
	"olmo", "olmo2", "olmoe", "internlm2", "cohere", "granite",
	"granitemoe", "stablelm", "yi", "deepseek_v2", "deepseek_v3", "llama4",
	"llama4_text", NULL
};
/* Types whose MoE layers add one always-active expert of
 * intermediate_size (transformers' Llama4TextMoe.shared_expert). */
static const char *const hf_one_shared_expert_types[] = {
	"llama4", "llama4_text", NULL
};
/*
 * Types whose configuration class ties embeddings when the file does not
 * say (transformers' PretrainedConfig default is true; Llama, Mistral,
 * Qwen2, GPT-NeoX, ... override it to false).
 */
static const char *const hf_tied_types[] = {
	"gpt2", "gpt_neo", "gpt_bigcode", "opt", "bloom", "falcon",
	"RefinedWeb", "RefinedWebModel", "gemma", "gemma2", "gemma3",
	"gemma3_text", "starcoder2", NULL
};
/* Types with a learned max_positions x hidden position table (GPT-2's
 * wpe, OPT, GPT-Neo, GPT-BigCode) rather than rotary or ALiBi. */
static const char *const hf_learned_pos_types[] = {
	"gpt2", "gpt_neo", "gpt_bigcode", "opt", NULL
};
/* Types whose sliding_window applies only with use_sliding_window true
 * (transformers' Qwen2Config and its descendants default it to false). */
static const char *const hf_window_opt_in_types[] = {
	"qwen2", "qwen2_moe", "qwen3", "qwen3_moe", NULL
};
/* Types that alternate windowed and whole-sequence layers, the first
 * windowed (Gemma 2: even layers; GPT-OSS: layer_types "sliding_attention",
 * "full_attention", ...). */
static const char *const hf_window_alternate_types[] = {
	"gemma2", "gpt_oss", NULL
};
/* Types with every sliding_window_pattern-th layer global, 6 when the
 * file does not say (Gemma3TextConfig). */
static const char *const hf_window_pattern_types[] = {
	"gemma3", "gemma3_text", NULL
};
#define HF_GEMMA3_WINDOW_EVERY 6
/* Types whose max_window_layers defaults to 28 when the file leaves it
 * out (Qwen2Config, Qwen2MoeConfig, Qwen3Config; Qwen3MoeConfig has no
 * such key: every layer). */
static const char *const hf_window_full28_types[] = {
	"qwen2", "qwen2_moe", "qwen3", NULL
};
/* Opt-in types whose modeling code windows every layer and never reads
 * max_window_layers, though their files carry it (Qwen3MoeAttention
 * takes config.sliding_window on every layer; Qwen3-30B-A3B's file says
 * 48). */
static const char *const hf_window_all_layers_types[] = {
	"qwen3_moe", NULL
};
#define HF_QWEN_FULL_LAYERS 28
#define HF_LLAMA4_NOPE_EVERY 4

/*
 * A nested config (text_config) is written by transformers as the
 * difference from its class's defaults, so keys at their default are
 * absent: the defaults of the classes met there. Values from each
 * class's __init__ in transformers (Gemma3TextConfig, Llama4TextConfig,
 * LlamaConfig).
 */
struct hf_class_defaults {
	const char *type;
	long values[HF_FIELD_COUNT]; /* 0 = no default */
};

static const struct hf_class_defaults hf_nested_defaults[] = {
	{ "gemma3_text", {
		[HF_HIDDEN] = 2304, [HF_LAYERS] = 26, [HF_HEADS] = 8,
		[HF_KV_HEADS] = 4, [HF_HEAD_DIM] = 256, [HF_FFN] = 9216,
		[HF_VOCAB] = 262208, [HF_POSITIONS] = 131072,
		[HF_WINDOW] = 4096 } },
	{ "llama4_text", {
		[HF_CHUNK] = 8192, [HF_NOPE_EVERY] = 4 } },
	{ "llama", {
		[HF_HIDDEN] = 4096, [HF_LAYERS] = 32, [HF_HEADS] = 32,
		[HF_FFN] = 11008, [HF_VOCAB] = 32000,
		[HF_POSITIONS] = 2048 } },
};

struct hf_value {
	int set;                     /* a key gave a non-null value */
	long num;                    /* integer, or 0/1 for a boolean */
	char str[HF_STR_MAX];        /* string value ("" when too long) */
	const struct hf_key *key;    /* the key that gave it */
};

struct hf_reader {
	const char *what;
	unsigned char key_seen[HF_SCOPES][HF_N_KEYS];
	struct hf_value vals[HF_SCOPES][HF_FIELD_COUNT];
	int has_text_config;
	int has_vision;              /* a vision_config object */
	autosize_error sem;          /* first error in a value, reported once
					the syntax is known to be good */
};

/* Record the first error found in a value (not in the syntax). */
static void hf_sem(struct hf_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void hf_sem(struct hf_reader *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->sem.code != AUTOSIZE_OK)
		return;
	r->sem.code = AUTOSIZE_EINVAL;
	n = snprintf(r->sem.msg, sizeof(r->sem.msg), "%s: ", r->what);
	if (n < 0 || (size_t)n >= sizeof(r->sem.msg))
		return;
	va_start(ap, fmt);
	vsnprintf(r->sem.msg + n, sizeof(r->sem.msg) - n, fmt, ap);
	va_end(ap);
}

static void hf_wrong_type(struct hf_reader *r, const char *prefix,
			  const struct hf_key *k, const char *got)
{
	static const char *const expected[] = {
		[HF_INT] = "an integer",
		[HF_BOOL] = "true or false",
		[HF_STR] = "a string",
	};

	hf_sem(r, "%s%s is %s (expected %s)", prefix, k->name, got,
	       expected[k->kind]);
}

/* Keep the integer value of a member (number text num, n bytes). */
static void hf_take_int(struct hf_reader *r, const char *prefix,
			const struct hf_key *k, struct hf_value *v,
			const char *s, size_t n)
{
	int shown = n > HF_SHOW_MAX ? HF_SHOW_MAX : (int)n;
	const char *more = n > HF_SHOW_MAX ? "..." : "";
	size_t i = 0;
	int neg = 0;
	long num = 0;

	if (memchr(s, '.', n) || memchr(s, 'e', n) || memchr(s, 'E', n)) {
		hf_sem(r, "%s%s %.*s%s is not an integer (expected a whole "
		       "number %ld..%ld)", prefix, k->name, shown, s, more,
		       k->min, k->max);
		return;
	}
	if (s[0] == '-') {
		neg = 1;
		i = 1;
	}
	for (; i < n && num <= HF_INT_HUGE; i++)
		num = num * 10 + (s[i] - '0');
	if (neg)
		num = -num;
	if (num < k->min || num > k->max) {
		hf_sem(r, "%s%s %.*s%s is out of range (expected an integer "
		       "%ld..%ld)", prefix, k->name, shown, s, more, k->min,
		       k->max);
		return;
	}
	if (v->set && v->key != k && v->num != num) {
		hf_sem(r, "%s%s %ld and %s %ld disagree (expected one value)",
		       prefix, v->key->name, v->num, k->name, num);
		return;
	}
	v->set = 1;
	v->num = num;
	v->key = k;
}

/* Nemotron-H's hybrid_override_pattern, a character a layer: 'M' a
 * Mamba-2 mixer, '*' attention, '-' a dense MLP, 'E' experts
 * (transformers' NemotronHConfig, Megatron-Core's hybrid layer
 * allocation). Kept as its length and its counts of each kind in the
 * scope's values vals. */
static void hf_take_pattern(struct hf_reader *r, const char *prefix,
			    const struct hf_key *k, struct hf_value *vals,
			    const char *pat)
{
	static const char kinds[] = "M*-E";
	struct hf_value *v = &vals[HF_PATTERN];
	struct hf_value *count = &vals[HF_PAT_MAMBA]; /* .. HF_PAT_MOE */
	const char *c, *at;
	size_t i;

	if (!pat || !pat[0]) {
		hf_sem(r, "%s%s is %s (expected a character a layer, at most "
		       "%d: M Mamba-2, * attention, - MLP, E experts)",
		       prefix, k->name, pat ? "empty" : "too long",
		       AUTOSIZE_JSON_STR_MAX - 1);
		return;
	}
	for (i = 0; i < 4; i++)
		count[i].num = 0;
	for (c = pat; *c; c++) {
		at = strchr(kinds, *c);
		if (!at) {
			hf_sem(r, "%s%s has '%c' at layer %d (expected M "
			       "Mamba-2, * attention, - MLP or E experts)",
			       prefix, k->name, *c, (int)(c - pat));
			return;
		}
		count[at - kinds].num++;
	}
	for (i = 0; i < 4; i++) {
		count[i].set = 1;
		count[i].key = k;
	}
	v->set = 1;
	v->num = (long)strlen(pat);
	v->key = k;
}

/* json.c's visitor: keep the wanted members of the top level and of
 * text_config. */
static void hf_visit(void *ctx, const autosize_json_member *m)
{
	struct hf_reader *r = ctx;
	enum hf_scope scope;
	const char *prefix;
	const struct hf_key *k = NULL;
	struct hf_value *v;
	size_t i;

	if (m->parent[0] == '\0') {
		scope = HF_TOP;
		prefix = "";
		/* a multimodal config's image encoder: only the language
		 * model is sized, which the plan says */
		if (m->key_fits && strcmp(m->key, HF_VISION_CONFIG) == 0 &&
		    m->kind == AUTOSIZE_JSON_OBJECT)
			r->has_vision = 1;
		if (m->key_fits && strcmp(m->key, HF_TEXT_CONFIG) == 0) {
			if (m->kind == AUTOSIZE_JSON_OBJECT)
				r->has_text_config = 1;
			else if (m->kind != AUTOSIZE_JSON_NULL)
				hf_sem(r, "%s is not an object (expected the "
				       "language model's settings {...})",
				       HF_TEXT_CONFIG);
			return;
		}
	} else if (strcmp(m->parent, HF_TEXT_CONFIG) == 0) {
		scope = HF_TEXT;
		prefix = HF_TEXT_CONFIG ".";
	} else {
		return;
	}
	for (i = 0; m->key_fits && i < HF_N_KEYS; i++) {
		if (strcmp(m->key, hf_keys[i].name) == 0) {
			k = &hf_keys[i];
			break;
		}
	}
	if (!k)
		return;
	if (r->key_seen[scope][i])
		hf_sem(r, "duplicate key %s%s (expected each key once)",
		       prefix, k->name);
	r->key_seen[scope][i] = 1;
	v = &r->vals[scope][k->field];
	switch (m->kind) {
	case AUTOSIZE_JSON_NULL:
		return;         /* as if the key were absent */
	case AUTOSIZE_JSON_OBJECT:
		hf_wrong_type(r, prefix, k, "an object");
		return;
	case AUTOSIZE_JSON_ARRAY:
		hf_wrong_type(r, prefix, k, "a list");
		return;
	case AUTOSIZE_JSON_STRING:
		if (k->kind != HF_STR) {
			hf_wrong_type(r, prefix, k, "a string");
			return;
		}
		if (k->field == HF_PATTERN) {
			hf_take_pattern(r, prefix, k, r->vals[scope],
					m->str_fits ? m->str : NULL);
			return;
		}
		snprintf(v->str, sizeof(v->str), "%s",
			 m->str_fits && strlen(m->str) < sizeof(v->str)
			 ? m->str : "");
		v->set = 1;
		v->key = k;
		return;
	case AUTOSIZE_JSON_NUMBER:
		if (k->kind != HF_INT)
			hf_wrong_type(r, prefix, k, "a number");
		else
			hf_take_int(r, prefix, k, v, m->num, m->num_len);
		return;
	case AUTOSIZE_JSON_TRUE:
	case AUTOSIZE_JSON_FALSE:
		if (k->kind != HF_BOOL) {
			hf_wrong_type(r, prefix, k, m->kind ==
				      AUTOSIZE_JSON_TRUE ? "true" : "false");
			return;
		}
		v->set = 1;
		v->num = m->kind == AUTOSIZE_JSON_TRUE;
		v->key = k;
		return;
	}
}

/*
 * The values the model is built from: text_config's over the top level's
 * (a multimodal config describes its language model there), then the
 * nested class's defaults for keys neither gives.
 */
static void hf_merge(const struct hf_reader *r, struct hf_value *out)
{
	const struct hf_value *text = r->vals[HF_TEXT];
	const struct hf_class_defaults *d = NULL;
	size_t i;
	int f;

	for (f = 0; f < HF_FIELD_COUNT; f++)
		out[f] = text[f].set ? text[f] : r->vals[HF_TOP][f];
	if (!r->has_text_config || !text[HF_TYPE].set)
		return;
	for (i = 0; i < sizeof(hf_nested_defaults) /
	     sizeof(hf_nested_defaults[0]); i++)
		if (strcmp(text[HF_TYPE].str, hf_nested_defaults[i].type) == 0)
			d = &hf_nested_defaults[i];
	for (f = 0; d && f < HF_FIELD_COUNT; f++) {
		if (out[f].set || !d->values[f])
			continue;
		out[f].set = 1;
		out[f].num = d->values[f];
		out[f].key = NULL;
	}
}

static const char *hf_key_name(const struct hf_value *v, const char *dflt)
{
	return v->key ? v->key->name : dflt;
}

/* 1 when the file names its model_type and it is one of types. */
static int hf_type_in(const struct hf_value *v, const char *const *types)
{
	return v[HF_TYPE].set && autosize_word_in(v[HF_TYPE].str, types);
}

/* Plain two-matrix MLP (GPT) or gated three-matrix one (Llama)? */
static autosize_mlp hf_pick_mlp(const struct hf_value *v)
{
	const struct hf_value *act = &v[HF_ACT];

	if (hf_type_in(v, hf_plain_mlp_types))
		return AUTOSIZE_MLP_GELU;
	if (hf_type_in(v, hf_gated_mlp_types))
		return AUTOSIZE_MLP_SWIGLU;
	if (act->set && act->str[0])
		return strncasecmp(act->str, "gelu", 4) == 0 ||
		       strcasecmp(act->str, "relu") == 0 ?
		       AUTOSIZE_MLP_GELU : AUTOSIZE_MLP_SWIGLU;
	if (strcmp(hf_key_name(&v[HF_HIDDEN], ""), "n_embd") == 0)
		return AUTOSIZE_MLP_GELU;
	return AUTOSIZE_MLP_SWIGLU;
}

/*
 * Name the model after the file: its base name without ".json", or, for
 * the usual ".../Model-Name/config.json", the folder's name. Bytes other
 * than letters, digits and "._+-" become "_".
 */
static void hf_set_name(autosize_model *m, const char *what)
{
	const char *base = strrchr(what, '/');
	const char *dir = NULL;
	size_t n, i;

	base = base ? base + 1 : what;
	n = strlen(base);
	if (n > 5 && strcmp(base + n - 5, ".json") == 0)
		n -= 5;
	if (n == 6 && strncmp(base, "config", 6) == 0 && base != what) {
		dir = base - 1;
		while (dir > what && dir[-1] != '/')
			dir--;
		if (dir < base - 1) {
			n = (size_t)(base - 1 - dir);
			base = dir;
		}
	}
	if (n >= sizeof(m->name))
		n = sizeof(m->name) - 1;
	for (i = 0; i < n; i++) {
		char c = base[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '.' || c == '_' ||
			 c == '+' || c == '-';

		m->name[i] = ok ? c : '_';
	}
	m->name[n] = '\0';
}

static int hf_int(const struct hf_value *v, enum hf_field f)
{
	return v[f].set ? (int)v[f].num : 0;
}

static autosize_err hf_missing(const char *what, const char *key,
			       const char *expected, autosize_error *e)
{
	return autosize_fail(e, AUTOSIZE_EINVAL, "%s: missing %s (expected %s)",
			     what, key, expected);
}

/*
 * MoE layers of layers when every k-th has experts after dense_first
 * leading dense ones. transformers' Qwen2-MoE (decoder_sparse_step) and
 * Llama 4 (interleave_moe_layer_step) put experts in layer i when
 * (i + 1) % k == 0; DeepSeek (moe_layer_freq) when i >= dense_first and
 * i % k == 0.
 */
static int hf_moe_layers(const char *key, int layers, int dense_first, int k)
{
	int i, n = 0;

	if (k <= 1)
		return layers - dense_first;
	for (i = dense_first; i < layers; i++)
		if (strcmp(key, "moe_layer_freq") == 0 ? i % k == 0
						       : (i + 1) % k == 0)
			n++;
	return n;
}

/* Experts: Mixtral (num_local_experts, intermediate_size per expert),
 * Qwen2/3-MoE (num_experts, moe_intermediate_size, one shared expert of
 * shared_expert_intermediate_size, MoE every decoder_sparse_step-th
 * layer), DeepSeek-V2/V3 (n_routed_experts, n_shared_experts of
 * moe_intermediate_size, first_k_dense_replace leading dense layers of
 * intermediate_size), Llama 4 (num_local_experts of intermediate_size
 * and a shared one, every interleave_moe_layer_step-th layer, the others
 * dense of intermediate_size_mlp). The dense layers are counted, where
 * they are does not change the sizes. */
static autosize_err hf_experts(const char *what, const struct hf_value *v,
			       autosize_model *m, autosize_error *e)
{
	int moe_ffn = hf_int(v, HF_MOE_FFN), every = hf_int(v, HF_MOE_EVERY);
	int moe_layers;

	if (hf_int(v, HF_EXPERTS) <= 1) {
		if (moe_ffn > 0 || hf_int(v, HF_SHARED_FFN) > 0)
			return autosize_fail(e, AUTOSIZE_EINVAL,
					     "%s: %s given without experts "
					     "(expected num_experts, "
					     "num_local_experts or "
					     "n_routed_experts above 1)", what,
					     moe_ffn > 0 ? "moe_intermediate_"
					     "size" : "shared_expert_"
					     "intermediate_size");
		return AUTOSIZE_OK;
	}
	m->experts = hf_int(v, HF_EXPERTS);
	m->experts_active = hf_int(v, HF_EXPERTS_ACTIVE);
	m->ffn_dense = hf_int(v, HF_DENSE_FFN) > 0 ? hf_int(v, HF_DENSE_FFN)
						   : m->ffn;
	if (moe_ffn > 0)
		m->ffn = moe_ffn;
	if (hf_int(v, HF_SHARED_FFN) > 0) {
		m->experts_shared = 1;
		m->ffn_shared = hf_int(v, HF_SHARED_FFN);
	} else if (hf_int(v, HF_SHARED_EXPERTS) > 0) {
		m->experts_shared = hf_int(v, HF_SHARED_EXPERTS);
		m->ffn_shared = m->ffn;
	} else if (hf_type_in(v, hf_one_shared_expert_types)) {
		m->experts_shared = 1;
		m->ffn_shared = m->ffn;
	}
	moe_layers = hf_moe_layers(hf_key_name(&v[HF_MOE_EVERY], ""),
				   m->layers, hf_int(v, HF_DENSE_LAYERS) <
				   m->layers ? hf_int(v, HF_DENSE_LAYERS)
					     : m->layers, every);
	/* none left: autosize_model_finish_arch says so */
	m->dense_layers = m->layers - moe_layers;
	if (m->dense_layers == 0)
		m->ffn_dense = 0;
	return AUTOSIZE_OK;
}

/* Sliding-window attention: the window and how many layers use it.
 * transformers' modeling code: Mistral, Mixtral, Phi-3, Starcoder2 on
 * every layer (a null window: none); Qwen2/3 only with
 * use_sliding_window, on the layers from max_window_layers on (28 where
 * the file leaves it out, Qwen3-MoE every layer); Gemma 2
 * and GPT-OSS on every other layer; Gemma 3 on all but every
 * sliding_window_pattern-th. A layer_types list is not read: the types'
 * rules give the same counts for the configs published. */
static void hf_window(const struct hf_value *v, autosize_model *m)
{
	int w = hf_int(v, HF_WINDOW), every = hf_int(v, HF_WINDOW_EVERY);

	if (w <= 0)
		return;
	if (v[HF_USE_WINDOW].set ? !hf_int(v, HF_USE_WINDOW)
	    : hf_type_in(v, hf_window_opt_in_types))
		return;
	/* every layer where the modeling code ignores max_window_layers:
	 * window_layers 0 reads as all */
	if (!hf_type_in(v, hf_window_all_layers_types) &&
	    v[HF_USE_WINDOW].set && (v[HF_FULL_LAYERS].set ||
	    hf_type_in(v, hf_window_full28_types))) {
		int full = v[HF_FULL_LAYERS].set ? hf_int(v, HF_FULL_LAYERS)
						 : HF_QWEN_FULL_LAYERS;

		if (full >= m->layers)
			return;
		m->window_layers = m->layers - full;
	} else if (every == 0 && hf_type_in(v, hf_window_pattern_types)) {
		every = HF_GEMMA3_WINDOW_EVERY;
	} else if (every == 0 && hf_type_in(v, hf_window_alternate_types)) {
		m->window_layers = (m->layers + 1) / 2;
	}
	if (every > 1)
		m->window_layers = m->layers - m->layers / every;
	m->attn_window = w;
}

/* Chunked local attention (Llama4TextConfig): attention_chunk_size on
 * every layer but each no_rope_layer_interval-th (4 when the file does
 * not say), whose NoPE layers attend to the whole sequence. A
 * no_rope_layers list is not read: the published configs leave it empty
 * (the interval's pattern) or spell the same pattern. */
static void hf_chunk(const struct hf_value *v, autosize_model *m)
{
	int c = hf_int(v, HF_CHUNK), every = hf_int(v, HF_NOPE_EVERY);

	if (c <= 0 || m->attn_window > 0)
		return;
	if (every <= 0)
		every = HF_LLAMA4_NOPE_EVERY;
	/* an interval of 1: every layer NoPE and whole-sequence */
	if (m->layers / every >= m->layers)
		return;
	m->attn_chunk = c;
	m->window_layers = m->layers - m->layers / every;
}

/* Nemotron-H: the blocks of hybrid_override_pattern (hf_take_pattern)
 * and the Mamba-2 sizes. Its '-' blocks are dense MLPs of
 * intermediate_size beside 'E' expert blocks of moe_intermediate_size
 * (transformers' NemotronHMLP and NemotronHMoE). */
static autosize_err hf_hybrid(const char *what, const struct hf_value *v,
			      autosize_model *m, autosize_error *e)
{
	int n_m = hf_int(v, HF_PAT_MAMBA), n_a = hf_int(v, HF_PAT_ATTN);
	int n_d = hf_int(v, HF_PAT_DENSE), n_e = hf_int(v, HF_PAT_MOE);

	if (!v[HF_PATTERN].set) {
		if (v[HF_MAMBA_HEADS].set || v[HF_MAMBA_STATE].set ||
		    v[HF_MAMBA_HEAD_DIM].set ||
		    hf_type_in(v, hf_pattern_types))
			return autosize_fail(e, AUTOSIZE_EINVAL,
					     "%s: Mamba sizes without "
					     "hybrid_override_pattern (expected "
					     "its layer pattern, or give the "
					     "blocks as --mamba-layers, "
					     "--attn-layers and --mlp-layers)",
					     what);
		return AUTOSIZE_OK;
	}
	if (hf_int(v, HF_PATTERN) != m->layers)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: hybrid_override_pattern has %d "
				     "layers, num_hidden_layers %d (expected "
				     "a character a layer)", what,
				     hf_int(v, HF_PATTERN), m->layers);
	if (n_m == 0 || n_a == 0)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: hybrid_override_pattern has %s "
				     "(expected Mamba 'M' and attention '*' "
				     "blocks both: a pure transformer or "
				     "state-space stack is not read this way)",
				     what, n_m ? "no attention '*'"
				     : "no Mamba 'M'");
	if (n_e > 0 && m->experts <= 1)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: hybrid_override_pattern has %d "
				     "expert 'E' layers but no experts "
				     "(expected n_routed_experts above 1)",
				     what, n_e);
	if (n_e == 0 && m->experts > 1)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: n_routed_experts %d but no expert "
				     "'E' layer in hybrid_override_pattern",
				     what, m->experts);
	m->mamba_layers = n_m;
	m->attn_layers = n_a;
	m->mlp_layers = n_d + n_e;
	if (m->experts > 1) {
		m->dense_layers = n_d;
		if (n_d == 0)
			m->ffn_dense = 0;
	}
	m->mamba_heads = hf_int(v, HF_MAMBA_HEADS);
	m->mamba_head_dim = hf_int(v, HF_MAMBA_HEAD_DIM);
	m->mamba_state = hf_int(v, HF_MAMBA_STATE);
	m->mamba_groups = hf_int(v, HF_MAMBA_GROUPS);
	return AUTOSIZE_OK;
}

/* Turn the kept values into a model and finish its architecture. */
static autosize_err hf_to_model(const char *what, const struct hf_value *v,
				autosize_model *m, autosize_error *e)
{
	const struct hf_value *type = &v[HF_TYPE];
	char inner[AUTOSIZE_MSG_LEN];
	autosize_err rc;

	if (hf_int(v, HF_LATENT_MOE) > 0)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: moe_latent_size %d: experts that run "
				     "in a latent width (Nemotron 3 Super's "
				     "LatentMoE) are not modelled; give "
				     "--model-params=N for a plan from the "
				     "parameter count", what,
				     hf_int(v, HF_LATENT_MOE));
	if (hf_type_in(v, hf_recurrent_types) || v[HF_LINEAR_HEADS].set)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: model_type %s has state-space or "
				     "recurrent layers this file does not "
				     "state as the engine reads them (it "
				     "reads Nemotron-H's pattern); give the "
				     "blocks as --mamba-layers, --attn-layers "
				     "and --mlp-layers with the model's sizes "
				     "(Mamba-2 mixers), or --model-params=N "
				     "for a plan from the parameter count",
				     what, v[HF_TYPE].set && v[HF_TYPE].str[0]
				     ? v[HF_TYPE].str : "(linear attention)");
	if (!v[HF_HIDDEN].set)
		return hf_missing(what, "hidden_size", "the model width as "
				  "hidden_size or n_embd", e);
	if (!v[HF_LAYERS].set)
		return hf_missing(what, "num_hidden_layers", "the layer count "
				  "as num_hidden_layers or n_layer", e);
	if (!v[HF_HEADS].set)
		return hf_missing(what, "num_attention_heads", "the head "
				  "count as num_attention_heads or n_head", e);
	m->hidden = hf_int(v, HF_HIDDEN);
	m->layers = hf_int(v, HF_LAYERS);
	m->heads = hf_int(v, HF_HEADS);
	m->kv_heads = hf_int(v, HF_KV_HEADS);
	/* Falcon-7B, SantaCoder: one key/value head shared by all. */
	if (!m->kv_heads && hf_int(v, HF_MULTI_QUERY))
		m->kv_heads = 1;
	m->head_dim = hf_int(v, HF_HEAD_DIM);
	m->ffn = hf_int(v, HF_FFN);
	m->vocab = hf_int(v, HF_VOCAB);
	m->mlp = hf_pick_mlp(v);
	if (v[HF_TIED].set)
		m->tied_embeddings = hf_int(v, HF_TIED);
	else
		m->tied_embeddings = hf_type_in(v, hf_tied_types);
	m->q_lora_rank = hf_int(v, HF_Q_LORA);
	m->kv_lora_rank = hf_int(v, HF_KV_LORA);
	if (m->kv_lora_rank > 0) {
		m->qk_nope_head_dim = hf_int(v, HF_QK_NOPE);
		m->qk_rope_head_dim = hf_int(v, HF_QK_ROPE);
		m->v_head_dim = hf_int(v, HF_V_HEAD);
	}
	m->max_positions = hf_int(v, HF_POSITIONS);
	m->learned_positions = m->max_positions > 0 &&
		(type->set ? autosize_word_in(type->str, hf_learned_pos_types)
			   : strcmp(hf_key_name(&v[HF_POSITIONS], ""),
				    "n_positions") == 0);
	hf_window(v, m);
	hf_chunk(v, m);
	rc = hf_experts(what, v, m, e);
	if (rc == AUTOSIZE_OK)
		rc = hf_hybrid(what, v, m, e);
	if (rc == AUTOSIZE_OK)
		rc = autosize_model_finish_arch(m, e);
	if (rc != AUTOSIZE_OK && e && strncmp(e->msg, what, strlen(what))) {
		snprintf(inner, sizeof(inner), "%s", e->msg);
		autosize_fail(e, rc, "%s: %s", what, inner);
	}
	return rc;
}

autosize_err autosize_model_from_json_text(const char *text, size_t len,
					  const char *what, autosize_model *m,
					  autosize_error *e)
{
	struct hf_reader r;
	struct hf_value vals[HF_FIELD_COUNT];
	autosize_err rc;

	if (!what)
		what = "config.json";
	if (!m || (!text && len > 0))
		return autosize_fail(e, AUTOSIZE_EINTERNAL,
				     "%s: no model or text given", what);
	autosize_model_init(m);
	if (len > AUTOSIZE_CONFIG_JSON_MAX_BYTES)
		return autosize_fail(e, AUTOSIZE_ETOOBIG,
				     "%s: %zu bytes is over the %d-byte limit "
				     "for a config.json (expected a few KiB)",
				     what, len, AUTOSIZE_CONFIG_JSON_MAX_BYTES);
	memset(&r, 0, sizeof(r));
	r.what = what;
	rc = autosize_json_scan(text, len, what, hf_visit, &r, e);
	if (rc != AUTOSIZE_OK)
		return rc;
	if (r.sem.code != AUTOSIZE_OK)
		return autosize_fail(e, r.sem.code, "%s", r.sem.msg);
	hf_merge(&r, vals);
	hf_set_name(m, what);
	rc = hf_to_model(what, vals, m, e);
	m->vision_ignored = r.has_vision;
	if (rc == AUTOSIZE_OK)
		autosize_error_clear(e);
	return rc;
}

autosize_err autosize_model_from_config_json(const char *path,
					     autosize_model *m,
					     autosize_error *e)
{
	autosize_err rc;
	char *text = NULL;
	size_t len = 0;

	if (!path || !m)
		return autosize_fail(e, AUTOSIZE_EINTERNAL,
				     "config.json: no path or model given");
	autosize_model_init(m);
	/* before quoting it whole in messages (they would lose the end) */
	if (strnlen(path, PATH_MAX) >= PATH_MAX)
		return autosize_fail(e, AUTOSIZE_EIO, "%.40s...: path longer "
				     "than %d bytes (expected a readable "
				     "config.json file)", path, PATH_MAX - 1);
	rc = autosize_read_regular_file(path, AUTOSIZE_CONFIG_JSON_MAX_BYTES,
					"config.json file", &text, &len, e);
	if (rc == AUTOSIZE_OK)
		rc = autosize_model_from_json_text(text, len, path, m, e);
	free(text);
	return rc;
}
