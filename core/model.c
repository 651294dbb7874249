/*
 * autosize: model architecture checks and parameter counts.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "autosize/model.h"

/* Llama's SwiGLU width: 2/3 of 4h rounded up to a multiple of 256
 * (Touvron et al. 2023, "LLaMA", section 2; Meta's reference code). */
#define MODEL_SWIGLU_MULTIPLE 256
#define MODEL_DEFAULT_VOCAB 32000

void autosize_model_init(autosize_model *m)
{
	memset(m, 0, sizeof(*m));
}

/* One MLP of inner width f: gate/up/down, or fc1/fc2 and their biases. */
static double model_mlp_params(const autosize_model *m, double f)
{
	double h = m->hidden;

	if (m->mlp == AUTOSIZE_MLP_SWIGLU)
		return 3.0 * h * f;
	return 2.0 * h * f + f + h;
}

/*
 * Multi-head latent attention (DeepSeek-V2, Liu et al. 2024, section
 * 2.1.2): q from hidden directly or through a rank-q_lora_rank bottleneck
 * with its norm; k/v through kv_lora_rank (+ the shared rope key) with a
 * norm and an up-projection to nope keys and values; o from the values.
 */
static double model_mla_params(const autosize_model *m)
{
	double h = m->hidden, n = m->heads, qr = m->q_lora_rank;
	double kvr = m->kv_lora_rank, nope = m->qk_nope_head_dim;
	double rope = m->qk_rope_head_dim, v = m->v_head_dim;
	double q = qr > 0 ? h * qr + qr + qr * n * (nope + rope)
			  : h * n * (nope + rope);

	return q + h * (kvr + rope) + kvr + kvr * n * (nope + v) +
	       n * v * h;
}

double autosize_model_q_width(const autosize_model *m)
{
	return (double)m->heads * m->head_dim;
}

double autosize_model_kv_width(const autosize_model *m)
{
	return (double)m->kv_heads * m->head_dim;
}

static double model_attn_params(const autosize_model *m)
{
	double h = m->hidden;
	double q_dim = autosize_model_q_width(m);
	double kv_dim = autosize_model_kv_width(m);
	double p;

	if (m->kv_lora_rank > 0)
		return model_mla_params(m);
	p = 2.0 * h * q_dim + 2.0 * h * kv_dim;   /* q, o; k, v (GQA) */
	if (m->mlp == AUTOSIZE_MLP_GELU)
		p += q_dim + h + 2.0 * kv_dim;    /* GPT biases */
	return p;
}

/* One norm per sublayer (mixer or MLP): RMSNorm has h weights,
 * LayerNorm 2h. */
static double model_norm_params(const autosize_model *m)
{
	return (m->mlp == AUTOSIZE_MLP_GELU ? 2.0 : 1.0) * m->hidden;
}

/* Mamba-2's conv1d kernel (d_conv 4: Mamba-2, Nemotron-H). */
#define MODEL_MAMBA_CONV 4

double autosize_model_mamba_inner(const autosize_model *m)
{
	return (double)m->mamba_heads * m->mamba_head_dim;
}

double autosize_model_mamba_params(const autosize_model *m)
{
	double h = m->hidden, d = autosize_model_mamba_inner(m);
	double bc = 2.0 * m->mamba_groups * m->mamba_state;
	double nh = m->mamba_heads;

	if (m->mamba_layers <= 0)
		return 0;
	return h * (2.0 * d + bc + nh) +        /* in_proj: z, x, B, C, dt */
	       (d + bc) * (MODEL_MAMBA_CONV + 1) + /* conv1d and its bias */
	       3.0 * nh + d +                   /* A_log, D, dt_bias; norm */
	       d * h;                           /* out_proj */
}

/*
 * Parameters of the layers: `routed` experts of each MoE layer counted
 * (all of them, or the experts_active a token uses), plus its shared
 * experts and router; dense MLP blocks (DeepSeek's first_k_dense_replace,
 * Nemotron-H's '-' among its 'E') have one MLP of ffn_dense; attention
 * and Mamba mixers on the blocks that hold them, a norm before each
 * sublayer.
 */
static double model_layers_params(const autosize_model *m, int routed)
{
	double attn = autosize_model_attn_layers(m) *
		      (model_attn_params(m) + model_norm_params(m));
	double mamba = m->mamba_layers *
		       (autosize_model_mamba_params(m) + model_norm_params(m));
	int n_mlp = autosize_model_mlp_layers(m), n_moe;
	double dense, moe;

	if (m->experts <= 1)
		return attn + mamba + n_mlp * (model_norm_params(m) +
					       model_mlp_params(m, m->ffn));
	n_moe = n_mlp - m->dense_layers;
	dense = model_norm_params(m) + model_mlp_params(m, m->ffn_dense);
	moe = model_norm_params(m) + (double)m->hidden * m->experts + /* router */
	      routed * model_mlp_params(m, m->ffn) +
	      m->experts_shared * model_mlp_params(m, m->ffn_shared);
	return attn + mamba + m->dense_layers * dense + n_moe * moe;
}

double autosize_model_layer_params(const autosize_model *m)
{
	return m->layers > 0 ? model_layers_params(m, m->experts) / m->layers
			     : 0;
}

double autosize_model_embedding_params(const autosize_model *m)
{
	double e = (double)m->vocab * m->hidden;
	double pos = m->learned_positions ?
		     (double)m->max_positions * m->hidden : 0;

	return (m->tied_embeddings ? e : 2.0 * e) + pos;
}

static autosize_err model_fill_defaults(autosize_model *m, autosize_error *e)
{
	if (m->kv_heads == 0)
		m->kv_heads = m->heads;
	if (m->vocab == 0)
		m->vocab = MODEL_DEFAULT_VOCAB;
	if (m->ffn == 0 && m->mlp == AUTOSIZE_MLP_GELU)
		m->ffn = 4 * m->hidden;
	if (m->ffn == 0) {
		long f = (8L * m->hidden / 3 + MODEL_SWIGLU_MULTIPLE - 1) /
			 MODEL_SWIGLU_MULTIPLE * MODEL_SWIGLU_MULTIPLE;

		if (f > AUTOSIZE_MAX_FFN)
			return autosize_fail(e, AUTOSIZE_EINVAL,
					     "model hidden %d gives an MLP "
					     "width over %d; give --ffn",
					     m->hidden, AUTOSIZE_MAX_FFN);
		m->ffn = (int)f;
	}
	if (m->ffn_shared == 0)
		m->ffn_shared = m->ffn;
	if (m->ffn_dense == 0)
		m->ffn_dense = m->ffn;
	if ((m->attn_window > 0 || m->attn_chunk > 0) &&
	    m->window_layers == 0)
		m->window_layers = autosize_model_attn_layers(m);
	if (m->kv_lora_rank > 0)
		m->head_dim = m->qk_nope_head_dim + m->qk_rope_head_dim;
	else if (m->head_dim == 0)
		m->head_dim = m->hidden / m->heads;
	if (m->mamba_layers > 0) {
		/* Megatron-Core's defaults (TransformerConfig): head width
		 * 64, state 128, an inner width of twice hidden (expand 2),
		 * 8 groups where they divide the heads (else one, Mamba-2's
		 * own default) */
		if (m->mamba_head_dim == 0)
			m->mamba_head_dim = 64;
		if (m->mamba_state == 0)
			m->mamba_state = 128;
		if (m->mamba_heads == 0)
			m->mamba_heads = 2 * m->hidden / m->mamba_head_dim;
		if (m->mamba_groups == 0)
			m->mamba_groups = m->mamba_heads % 8 ? 1 : 8;
	}
	return AUTOSIZE_OK;
}

/* Each field with its range, as named in messages (the option names). */
static autosize_err model_check_ranges(const autosize_model *m,
				       autosize_error *e)
{
	const struct {
		const char *key;
		long v, lo, hi;
	} r[] = {
		{"layers", m->layers, 1, AUTOSIZE_MAX_LAYERS},
		{"hidden", m->hidden, 1, AUTOSIZE_MAX_HIDDEN},
		{"heads", m->heads, 1, AUTOSIZE_MAX_HEADS},
		{"kv-heads", m->kv_heads, 0, AUTOSIZE_MAX_HEADS},
		{"ffn", m->ffn, 0, AUTOSIZE_MAX_FFN},
		{"vocab", m->vocab, 0, AUTOSIZE_MAX_VOCAB},
		{"experts", m->experts, 0, AUTOSIZE_MAX_EXPERTS},
		{"experts-active", m->experts_active, 0, AUTOSIZE_MAX_EXPERTS},
		{"head-dim", m->head_dim, 0, AUTOSIZE_MAX_HEAD_DIM},
		{"shared-experts", m->experts_shared, 0, AUTOSIZE_MAX_EXPERTS},
		{"shared-ffn", m->ffn_shared, 0, AUTOSIZE_MAX_FFN},
		{"dense-layers", m->dense_layers, 0, AUTOSIZE_MAX_LAYERS},
		{"dense-ffn", m->ffn_dense, 0, AUTOSIZE_MAX_FFN},
		{"q-lora-rank", m->q_lora_rank, 0, AUTOSIZE_MAX_LORA_RANK},
		{"kv-lora-rank", m->kv_lora_rank, 0, AUTOSIZE_MAX_LORA_RANK},
		{"qk-nope-head-dim", m->qk_nope_head_dim, 0,
		 AUTOSIZE_MAX_HEAD_DIM},
		{"qk-rope-head-dim", m->qk_rope_head_dim, 0,
		 AUTOSIZE_MAX_HEAD_DIM},
		{"v-head-dim", m->v_head_dim, 0, AUTOSIZE_MAX_HEAD_DIM},
		{"attn-window", m->attn_window, 0, AUTOSIZE_MAX_POSITIONS},
		{"window-layers", m->window_layers, 0, AUTOSIZE_MAX_LAYERS},
		{"attn-chunk", m->attn_chunk, 0, AUTOSIZE_MAX_POSITIONS},
		{"max-positions", m->max_positions, 0, AUTOSIZE_MAX_POSITIONS},
		{"learned-positions", m->learned_positions, 0, 1},
		{"mamba-layers", m->mamba_layers, 0, AUTOSIZE_MAX_LAYERS},
		{"attn-layers", m->attn_layers, 0, AUTOSIZE_MAX_LAYERS},
		{"mlp-layers", m->mlp_layers, 0, AUTOSIZE_MAX_LAYERS},
		{"mamba-heads", m->mamba_heads, 0, AUTOSIZE_MAX_HEADS},
		{"mamba-head-dim", m->mamba_head_dim, 0, AUTOSIZE_MAX_HEAD_DIM},
		{"mamba-state", m->mamba_state, 0, AUTOSIZE_MAX_HEAD_DIM},
		{"mamba-groups", m->mamba_groups, 0, AUTOSIZE_MAX_HEADS},
	};
	size_t i;

	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		if (r[i].v < r[i].lo || r[i].v > r[i].hi)
			return autosize_fail(e, AUTOSIZE_EINVAL,
					     "model %s %ld is out of range "
					     "(expected %ld..%ld)", r[i].key,
					     r[i].v, r[i].lo, r[i].hi);
	return AUTOSIZE_OK;
}

/* Experts and latent attention: the fields that go together. */
static autosize_err model_check_moe_mla(const autosize_model *m,
					autosize_error *e)
{
	if (m->experts > 1 && m->experts_active == 0)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "model has %d experts but no "
				     "experts-active (expected 1..%d)",
				     m->experts, m->experts);
	if (m->experts_active > (m->experts > 1 ? m->experts : 1))
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "model experts-active %d exceeds experts "
				     "%d", m->experts_active, m->experts);
	if (m->experts <= 1 && (m->experts_shared > 0 || m->dense_layers > 0))
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "model has %s but no routed experts "
				     "(expected experts above 1)",
				     m->experts_shared > 0 ? "shared-experts"
				     : "dense-layers");
	if (m->experts > 1 &&
	    m->dense_layers >= autosize_model_mlp_layers(m))
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "model dense-layers %d leaves no expert "
				     "layer of %d (expected 0..%d)",
				     m->dense_layers,
				     autosize_model_mlp_layers(m),
				     autosize_model_mlp_layers(m) - 1);
	if (m->kv_lora_rank == 0 &&
	    (m->q_lora_rank || m->qk_nope_head_dim || m->qk_rope_head_dim ||
	     m->v_head_dim))
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "model latent-attention sizes given "
				     "without kv-lora-rank (expected "
				     "kv-lora-rank above 0 with them)");
	if (m->kv_lora_rank > 0 &&
	    (m->qk_nope_head_dim + m->qk_rope_head_dim == 0 ||
	     m->v_head_dim == 0))
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "model kv-lora-rank %d needs "
				     "qk-nope-head-dim or qk-rope-head-dim, "
				     "and v-head-dim (DeepSeek-V2: 128, 64, "
				     "128)", m->kv_lora_rank);
	return AUTOSIZE_OK;
}

/* Hybrid blocks: counts within the blocks, every block holding a
 * sublayer, the Mamba sizes with Mamba layers only and dividing as the
 * mixer splits them. */
static autosize_err model_check_hybrid(const autosize_model *m,
				       autosize_error *e)
{
	int a = autosize_model_attn_layers(m);
	int p = autosize_model_mlp_layers(m);

	if (m->mamba_layers <= 0) {
		if (m->attn_layers || m->mamba_heads || m->mamba_head_dim ||
		    m->mamba_state || m->mamba_groups)
			return autosize_fail(e, AUTOSIZE_EINVAL,
					     "model %s given without "
					     "mamba-layers (expected the "
					     "blocks with a Mamba-2 mixer, "
					     "Nemotron 3 Nano: 23)",
					     m->attn_layers ? "attn-layers"
					     : "Mamba sizes");
		if (m->mlp_layers > m->layers)
			return autosize_fail(e, AUTOSIZE_EINVAL,
					     "model mlp-layers %d exceeds "
					     "layers %d", m->mlp_layers,
					     m->layers);
		return AUTOSIZE_OK;
	}
	if (m->mamba_layers > m->layers || a > m->layers || p > m->layers)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "model mamba-layers %d, attn-layers %d "
				     "and mlp-layers %d: each at most layers "
				     "%d", m->mamba_layers, a, p, m->layers);
	if (m->mamba_layers + a + p < m->layers)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "model mamba-layers %d, attn-layers %d "
				     "and mlp-layers %d leave blocks of "
				     "layers %d empty (Nemotron-H's pattern: "
				     "one sublayer a block, the three add up "
				     "to layers)", m->mamba_layers, a, p,
				     m->layers);
	if (m->window_layers > a)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "model window-layers %d exceeds the %d "
				     "attention layers", m->window_layers, a);
	if (m->mamba_heads % m->mamba_groups != 0)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "model mamba-groups %d must divide "
				     "mamba-heads %d", m->mamba_groups,
				     m->mamba_heads);
	if (m->mamba_heads < 1 || m->mamba_heads > AUTOSIZE_MAX_HEADS)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "model mamba-heads %d is out of range "
				     "(expected 1..%d; give --mamba-heads)",
				     m->mamba_heads, AUTOSIZE_MAX_HEADS);
	return AUTOSIZE_OK;
}

autosize_err autosize_model_finish_arch(autosize_model *m, autosize_error *e)
{
	autosize_err rc;
	double final_norm;

	if ((rc = model_check_ranges(m, e)))
		return rc;
	/* Even with an explicit head_dim (Gemma: 16 x 256 on 3584) the
	 * engine splits hidden by heads (tensor parallelism, GQA ratios). */
	if (m->hidden % m->heads != 0)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "model heads %d do not divide hidden %d "
				     "(hidden must be a multiple of heads)",
				     m->heads, m->hidden);
	if ((rc = model_fill_defaults(m, e)))
		return rc;
	if (m->kv_heads > m->heads || m->heads % m->kv_heads != 0)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "model kv-heads %d must divide heads %d",
				     m->kv_heads, m->heads);
	if ((rc = model_check_moe_mla(m, e)))
		return rc;
	if ((rc = model_check_hybrid(m, e)))
		return rc;
	if (m->window_layers > m->layers)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "model window-layers %d exceeds layers %d "
				     "(expected 0..%d)", m->window_layers,
				     m->layers, m->layers);
	if (m->window_layers > 0 && m->attn_window == 0 && m->attn_chunk == 0)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "model window-layers %d given without "
				     "attn-window or attn-chunk (expected the "
				     "span in tokens, Gemma 3: attn-window "
				     "1024, Llama 4: attn-chunk 8192)",
				     m->window_layers);
	if (m->attn_window > 0 && m->attn_chunk > 0)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "model attn-window %d and attn-chunk %d "
				     "both given (expected one: a layer's "
				     "local attention is a sliding window or "
				     "a chunk)", m->attn_window, m->attn_chunk);
	final_norm = (m->mlp == AUTOSIZE_MLP_GELU ? 2.0 : 1.0) * m->hidden;
	m->params = model_layers_params(m, m->experts) +
		    autosize_model_embedding_params(m) + final_norm;
	m->params_active = model_layers_params(m, m->experts > 1 ?
					       m->experts_active : 1) +
			   autosize_model_embedding_params(m) + final_norm;
	m->has_arch = 1;
	return AUTOSIZE_OK;
}

autosize_err autosize_model_synthesize(autosize_model *m, autosize_error *e)
{
	/* Llama-2 7B/13B/70B keep hidden ~= 128 x layers (4096/32,
	 * 5120/40, 8192/80) and ~12 h^2 parameters per layer, so
	 * N ~= 12 x 128^2 x L^3. */
	double n = m->params, layers, hidden;
	double params = m->params;
	char name[AUTOSIZE_NAME_MAX];
	autosize_err rc;

	if (!(n >= 1))
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "model has no parameter count (give "
				     "--model-params or --model)");
	layers = cbrt(n / (12.0 * 128 * 128));
	/* A layer count that pipelines evenly, as real models have. */
	layers = layers >= 16 ? floor(layers / 8 + 0.5) * 8
			      : floor(layers / 2 + 0.5) * 2;
	if (layers < 2)
		layers = 2;
	if (layers > 256)
		layers = 256;
	hidden = sqrt(n / (12.0 * layers));
	/* 128-wide heads; from 4096 up a multiple of 1024 so that the head
	 * count divides by 8 (tensor parallelism inside a node). */
	if (hidden >= 3584)
		hidden = floor(hidden / 1024 + 0.5) * 1024;
	else
		hidden = floor(hidden / 128 + 0.5) * 128;
	if (hidden < 128)
		hidden = 128;
	if (hidden > 65536)
		hidden = 65536;
	snprintf(name, sizeof(name), "%s", m->name);
	autosize_model_init(m);
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->layers = (int)layers;
	m->hidden = (int)hidden;
	m->heads = m->hidden / 128;
	m->kv_heads = m->heads;
	m->ffn = 0;
	m->vocab = MODEL_DEFAULT_VOCAB;
	m->mlp = AUTOSIZE_MLP_SWIGLU;
	m->experts = 0;
	m->experts_active = 0;
	if ((rc = autosize_model_finish_arch(m, e)))
		return rc;
	m->params = params;
	m->params_active = params;
	m->arch_synthetic = 1;
	return AUTOSIZE_OK;
}
