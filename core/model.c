/*
 * autosize: model architecture checks and parameter counts.
 */
#include <math.h>
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

static autosize_err model_check_range(const char *key, long v, long lo,
				      long hi, autosize_error *e)
{
	if (v < lo || v > hi)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "model %s %ld is out of range "
				     "(expected %ld..%ld)", key, v, lo, hi);
	return AUTOSIZE_OK;
}

static double model_mlp_params(const autosize_model *m)
{
	double h = m->hidden, f = m->ffn;

	if (m->mlp == AUTOSIZE_MLP_SWIGLU)
		return 3.0 * h * f;           /* gate, up, down */
	return 2.0 * h * f + f + h;           /* fc1, fc2 and their biases */
}

static double model_attn_params(const autosize_model *m)
{
	double h = m->hidden;
	double kv_dim = (double)m->kv_heads * (h / m->heads);
	double p = 2.0 * h * h + 2.0 * h * kv_dim;  /* q, o; k, v (GQA) */

	if (m->mlp == AUTOSIZE_MLP_GELU)
		p += 2.0 * h + 2.0 * kv_dim;          /* GPT biases */
	return p;
}

static double model_norm_params(const autosize_model *m)
{
	/* Two norms per layer: RMSNorm has h weights, LayerNorm 2h. */
	return (m->mlp == AUTOSIZE_MLP_GELU ? 4.0 : 2.0) * m->hidden;
}

static int model_n_experts(const autosize_model *m)
{
	return m->experts > 1 ? m->experts : 1;
}

double autosize_model_layer_params(const autosize_model *m)
{
	double router = m->experts > 1 ? (double)m->hidden * m->experts : 0;

	return model_attn_params(m) + model_norm_params(m) + router +
	       model_n_experts(m) * model_mlp_params(m);
}

double autosize_model_embedding_params(const autosize_model *m)
{
	double e = (double)m->vocab * m->hidden;

	return m->tied_embeddings ? e : 2.0 * e;
}

static double model_active_layer_params(const autosize_model *m)
{
	int k = m->experts > 1 ? m->experts_active : 1;
	double router = m->experts > 1 ? (double)m->hidden * m->experts : 0;

	return model_attn_params(m) + model_norm_params(m) + router +
	       k * model_mlp_params(m);
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
	return AUTOSIZE_OK;
}

autosize_err autosize_model_finish_arch(autosize_model *m, autosize_error *e)
{
	autosize_err rc;
	double final_norm;

	if ((rc = model_check_range("layers", m->layers, 1,
				    AUTOSIZE_MAX_LAYERS, e)) ||
	    (rc = model_check_range("hidden", m->hidden, 1,
				    AUTOSIZE_MAX_HIDDEN, e)) ||
	    (rc = model_check_range("heads", m->heads, 1,
				    AUTOSIZE_MAX_HEADS, e)) ||
	    (rc = model_check_range("kv-heads", m->kv_heads, 0,
				    AUTOSIZE_MAX_HEADS, e)) ||
	    (rc = model_check_range("ffn", m->ffn, 0,
				    AUTOSIZE_MAX_FFN, e)) ||
	    (rc = model_check_range("vocab", m->vocab, 0,
				    AUTOSIZE_MAX_VOCAB, e)) ||
	    (rc = model_check_range("experts", m->experts, 0,
				    AUTOSIZE_MAX_EXPERTS, e)) ||
	    (rc = model_check_range("experts-active", m->experts_active, 0,
				    AUTOSIZE_MAX_EXPERTS, e)))
		return rc;
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
	if (m->experts > 1 && m->experts_active == 0)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "model has %d experts but no "
				     "experts-active (expected 1..%d)",
				     m->experts, m->experts);
	if (m->experts_active > (m->experts > 1 ? m->experts : 1))
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "model experts-active %d exceeds experts "
				     "%d", m->experts_active, m->experts);
	final_norm = (m->mlp == AUTOSIZE_MLP_GELU ? 2.0 : 1.0) * m->hidden;
	m->params = m->layers * autosize_model_layer_params(m) +
		    autosize_model_embedding_params(m) + final_norm;
	m->params_active = m->layers * model_active_layer_params(m) +
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
