/*
 * autosize: model metadata. A model is known by its total parameter count
 * alone, or by its architecture (from flags, a preset or a Hugging Face
 * config.json), from which parameter counts are computed.
 */
#ifndef AUTOSIZE_MODEL_H
#define AUTOSIZE_MODEL_H

#include <stddef.h>
#include "autosize/error.h"

#define AUTOSIZE_NAME_MAX 64
/* Cap on a config.json file (a real one is a few KiB). */
#define AUTOSIZE_CONFIG_JSON_MAX_BYTES (1024 * 1024)

typedef enum autosize_mlp {
	AUTOSIZE_MLP_SWIGLU = 0, /* three matrices gate/up/down (Llama) */
	AUTOSIZE_MLP_GELU        /* two matrices h->ffn->h (GPT), ffn 4h */
} autosize_mlp;

/* Upper bounds on architecture values accepted from any input. */
#define AUTOSIZE_MAX_LAYERS 4096
#define AUTOSIZE_MAX_HIDDEN 262144
#define AUTOSIZE_MAX_HEADS 4096
#define AUTOSIZE_MAX_FFN 4194304
#define AUTOSIZE_MAX_VOCAB 16777216
#define AUTOSIZE_MAX_EXPERTS 4096
#define AUTOSIZE_MAX_HEAD_DIM 65536
#define AUTOSIZE_MAX_LORA_RANK 262144
#define AUTOSIZE_MAX_POSITIONS 16777216

typedef struct autosize_model {
	char name[AUTOSIZE_NAME_MAX]; /* preset or file name; "" if none */
	int has_arch;       /* 1 when the fields below are known */
	int arch_synthetic; /* 1: shape guessed from params (memory only) */
	int layers;
	int hidden;
	int heads;
	int kv_heads;       /* == heads without GQA */
	int ffn;            /* MLP inner size (per routed expert for MoE) */
	int vocab;
	int experts;        /* 0 or 1: dense */
	int experts_active; /* experts per token (MoE) */
	int tied_embeddings;
	autosize_mlp mlp;
	/*
	 * Architecture details (0 = absent / the plain default). All are
	 * filled by autosize_model_finish_arch so the engine can read them
	 * without defaults of its own.
	 */
	int head_dim;       /* attention head width; 0 -> hidden / heads
			     * (Gemma: 256 with hidden 3584, 16 heads) */
	int experts_shared; /* always-active shared experts per MoE layer
			     * (DeepSeek n_shared_experts; Qwen2-MoE: 1) */
	int ffn_shared;     /* MLP width of ONE shared expert; 0 -> ffn */
	int dense_layers;   /* layers with a dense MLP instead of experts,
			     * leading (DeepSeek first_k_dense_replace) or
			     * interleaved (Llama 4 Maverick, Qwen2-MoE's
			     * decoder_sparse_step): counted, not placed */
	int ffn_dense;      /* MLP width of those dense layers; 0 -> ffn */
	/* Multi-head latent attention (DeepSeek-V2/V3); kv_lora_rank 0 =
	 * plain multi-head / grouped attention. With MLA the score width is
	 * qk_nope_head_dim + qk_rope_head_dim and the value width
	 * v_head_dim; head_dim is set to the score width. */
	int q_lora_rank;    /* 0: q projected directly from hidden */
	int kv_lora_rank;
	int qk_nope_head_dim;
	int qk_rope_head_dim;
	int v_head_dim;
	/* Sliding-window attention (Mistral 7B v0.1 on every layer, Gemma 2
	 * on every other, Gemma 3 on five of six, GPT-OSS on every other):
	 * those layers' queries see the last attn_window tokens only. */
	int attn_window;    /* the window in tokens; 0: none */
	int window_layers;  /* layers that use it (or attn_chunk); a span
			     * set and 0 here: all */
	/* Chunked local attention (Llama 4 on three layers of four): the
	 * sequence is cut into attn_chunk-token chunks and those layers'
	 * queries see the keys of their own chunk only. Exclusive with
	 * attn_window; window_layers counts its layers. */
	int attn_chunk;     /* the chunk in tokens; 0: none */
	/* Hybrid state-space models (Nemotron-H, Jamba, Granite 4.0-H): a
	 * block's token mixer is a Mamba-2 layer (Dao & Gu 2024,
	 * arXiv:2405.21060) or attention, and a block may hold an MLP or
	 * not (Nemotron-H's pattern gives each mixer and each MLP a block
	 * of its own: 52 blocks, 23 Mamba, 6 attention, 23 MoE in
	 * Nemotron 3 Nano). Counted, not placed. All 0: a transformer. */
	int mamba_layers;   /* blocks with a Mamba-2 mixer */
	int attn_layers;    /* blocks with attention; 0 -> those without a
			     * Mamba mixer (autosize_model_attn_layers) */
	int mlp_layers;     /* blocks with an MLP or experts; 0 -> all */
	int mamba_heads;    /* SSM heads; 0 -> 2 x hidden / head width */
	int mamba_head_dim; /* 0 -> 64 */
	int mamba_state;    /* ssm_state_size; 0 -> 128 */
	int mamba_groups;   /* n_groups sharing B and C; 0 -> 8 where they
			     * divide the heads, else 1 */
	int max_positions;  /* max_position_embeddings / n_positions; 0 =
			     * unknown. Sequences longer than this warn. */
	int learned_positions; /* 1: a learned max_positions x hidden
				* position table (GPT-2 wpe) */
	int vision_ignored; /* 1: the config has a vision tower
			     * (vision_config) that the plan does not size */
	double params;         /* total parameters */
	double params_active;  /* parameters used per token (MoE < total) */
	double params_published; /* preset's published size, 0 if none */
	double params_active_published; /* preset's published parameters
				   * per token (MoE), 0 if none */
} autosize_model;

/* Zero a model (no architecture, no parameters). */
void autosize_model_init(autosize_model *m);

/*
 * Validate the architecture fields (ranges, heads dividing hidden (also
 * with an explicit head_dim), kv_heads dividing heads, experts_active <=
 * experts,
 * dense_layers < layers, MLA dims together), fill defaults (kv_heads =
 * heads, head_dim = hidden / heads, ffn = 4h for GELU or the Llama rule
 * for SwiGLU, ffn_shared = ffn_dense = ffn, vocab 32000) and compute
 * params and params_active (active: attention, the routed experts a
 * token uses, shared experts, router, norms, both embeddings). Sets
 * has_arch.
 */
autosize_err autosize_model_finish_arch(autosize_model *m, autosize_error *e);

/*
 * Read a Hugging Face config.json (at most AUTOSIZE_CONFIG_JSON_MAX_BYTES,
 * nesting at most 32 deep) into *m and finish its architecture.
 */
autosize_err autosize_model_from_config_json(const char *path,
					     autosize_model *m,
					     autosize_error *e);

/* Same, from a buffer in memory (len bytes, need not be NUL-terminated). */
autosize_err autosize_model_from_json_text(const char *text, size_t len,
					  const char *what, autosize_model *m,
					  autosize_error *e);

/*
 * Look up a shipped preset (etc/models.yaml, compiled in) by its name or
 * the Hugging Face id it was checked against (with or without the
 * organisation), case-insensitively, then the same without a variant
 * suffix (-Instruct, -chat, -it, -Base, -Thinking, -hf, a -YYMM date):
 * Llama-3.1-8B-Instruct is llama-3.1-8b. Not found: AUTOSIZE_ENOTFOUND
 * naming the nearest presets ("did you mean llama-3-70b?").
 */
autosize_err autosize_model_preset(const char *name, autosize_model *m,
				   autosize_error *e);

/* Number of shipped presets, and the name of preset i (NULL past the end);
 * the Hugging Face id its shape was checked against ("" when it has
 * none: a paper's model). */
int autosize_model_preset_count(void);
const char *autosize_model_preset_name(int i);
const char *autosize_model_preset_hf_id(int i);

/* 1 when name is a preset as autosize_model_preset reads it. */
int autosize_model_is_preset(const char *name);

/*
 * The presets nearest to name (its letters and digits, variant suffix
 * and organisation left out, a few edits away) as "a", "a or b" or "a,
 * b or c" into buf; returns how many (0: none near, buf "").
 */
int autosize_model_preset_nearest(const char *name, char *buf, size_t len);

/*
 * What --model names, in this order: a preset (autosize_model_preset);
 * then, only when local is 1 (the user's own process: sbatch, srun,
 * salloc, the CLI), a folder with a config.json, a config.json file, or
 * a Hugging Face id ORG/NAME whose config.json is in the local hub cache
 * (HF_HUB_CACHE, HF_HOME/hub, XDG_CACHE_HOME/huggingface/hub or
 * ~/.cache/huggingface/hub: models--ORG--NAME/snapshots/REV/config.json,
 * REV from refs/main). Never the network. With local 0 (slurmctld,
 * slurmstepd) anything but a preset is refused: the submit host sends
 * the model it read (jobenv.h). Errors are one line naming the value and
 * the fix, with the nearest presets for a name that is none.
 */
autosize_err autosize_model_resolve(const char *spec, int local,
				    autosize_model *m, autosize_error *e);

/* 1 when spec has the form of a Hugging Face id: ORG/NAME. */
int autosize_model_is_hf_id(const char *spec);

/*
 * Give a model known only by m->params a Llama-like shape (hidden ~ 128 x
 * layers, SwiGLU, 128-wide heads) for activation memory estimates; params
 * stay as given. Sets has_arch and arch_synthetic.
 */
autosize_err autosize_model_synthesize(autosize_model *m, autosize_error *e);

/*
 * Parameters of one transformer layer (attention + MLP + norms), all
 * experts counted; and of the embedding (+ output head when untied).
 */
double autosize_model_layer_params(const autosize_model *m);
double autosize_model_embedding_params(const autosize_model *m);

/* Widths of the attention projections: the queries (heads x head_dim) and
 * the keys, or the values (kv_heads x head_dim: GQA). */
double autosize_model_q_width(const autosize_model *m);

/*
 * Blocks of each kind (model.h, hybrid state-space models): with
 * attention, with an MLP or experts, with routed experts (the MLP
 * blocks but the dense ones); a transformer's are all its layers (but
 * dense_layers for the experts). autosize_model_sublayer_share: the
 * sublayers (mixers and MLPs) per block against a transformer layer's
 * two, 1 for a transformer (26/52 x 2 = 0.5 for Nemotron-H's pattern).
 * Inline: the engine's hot paths read them for every layout.
 */
static inline int autosize_model_attn_layers(const autosize_model *m)
{
	if (m->mamba_layers <= 0)
		return m->layers;
	return m->attn_layers > 0 ? m->attn_layers
				  : m->layers - m->mamba_layers;
}

static inline int autosize_model_mlp_layers(const autosize_model *m)
{
	return m->mlp_layers > 0 ? m->mlp_layers : m->layers;
}

static inline int autosize_model_moe_layers(const autosize_model *m)
{
	return m->experts > 1 ? autosize_model_mlp_layers(m) - m->dense_layers
			      : 0;
}

static inline double autosize_model_sublayer_share(const autosize_model *m)
{
	if (m->layers <= 0 || m->mamba_layers <= 0)
		return 1;
	return (double)(m->mamba_layers + autosize_model_attn_layers(m) +
			autosize_model_mlp_layers(m)) / (2.0 * m->layers);
}

/* A Mamba-2 mixer's inner width (heads x head width), and its
 * parameters: in_proj to z, x, B, C and dt, the causal conv1d over x,
 * B and C with its bias, A, D and dt's bias, the gated norm, out_proj
 * (Megatron-Core ssm/mamba_mixer.py; Hugging Face's NemotronH mixer). */
double autosize_model_mamba_inner(const autosize_model *m);
double autosize_model_mamba_params(const autosize_model *m);
double autosize_model_kv_width(const autosize_model *m);

#endif
