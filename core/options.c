/*
 * autosize: user options: one table, one setter, for every front end.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "autosize/options.h"
#include "autosize/parse.h"

#define OPT_BOTH (AUTOSIZE_OPT_CLI | AUTOSIZE_OPT_SPANK)
/* --model-params and the architecture must agree this closely. */
#define OPTIONS_PARAMS_TOLERANCE 0.10

static const autosize_option options_table[] = {
	{"model-params", "N", "total parameters (70e9, 70B, 7.5b)", OPT_BOTH},
	{"model", "NAME|PATH", "model preset (llama-3-8b) or config.json",
	 OPT_BOTH},
	{"layers", "N", "transformer layers", AUTOSIZE_OPT_CLI},
	{"hidden", "N", "hidden size", AUTOSIZE_OPT_CLI},
	{"heads", "N", "attention heads", AUTOSIZE_OPT_CLI},
	{"kv-heads", "N", "key/value heads (GQA; default heads)",
	 AUTOSIZE_OPT_CLI},
	{"ffn", "N", "MLP width (default 4h for gelu, ~8h/3 for swiglu)",
	 AUTOSIZE_OPT_CLI},
	{"mlp", "swiglu|gelu", "MLP kind (default swiglu)", AUTOSIZE_OPT_CLI},
	{"vocab", "N", "vocabulary size (default 32000)", AUTOSIZE_OPT_CLI},
	{"experts", "N", "MoE experts per layer", AUTOSIZE_OPT_CLI},
	{"experts-active", "K", "MoE experts per token", AUTOSIZE_OPT_CLI},
	{"train-tokens", "N", "training tokens (2e12, 300B)", OPT_BOTH},
	{"train-time", "DURATION", "deadline (10d, 36h, 2-12:00:00)", OPT_BOTH},
	{"train-mode", "pretrain|finetune|lora|qlora", "what is trained",
	 OPT_BOTH},
	{"train-seq-len", "N", "sequence length (default 4096)", OPT_BOTH},
	{"train-batch", "N", "global batch in sequences (default ~4M tokens)",
	 OPT_BOTH},
	{"train-precision", "bf16|fp16|fp8", "compute precision", OPT_BOTH},
	{"train-optimizer", "adamw|adamw-8bit|sgd", "optimizer", OPT_BOTH},
	{"train-framework", "megatron|fsdp|deepspeed",
	 "training framework (default: the site policy's, else megatron)",
	 OPT_BOTH},
	{"autosize", "rewrite|warn|off|explain",
	 "size the job, only warn, leave it, or print the plan and stop",
	 AUTOSIZE_OPT_SPANK},
	{"partition", "NAME", "partition from the site policy",
	 AUTOSIZE_OPT_CLI},
	{"gpu", "TYPE", "GPU type without a partition (h100, a100-80gb)",
	 AUTOSIZE_OPT_CLI},
	{"gpus-per-node", "N", "GPUs per node", AUTOSIZE_OPT_CLI},
	{"gpus", "N", "fix the GPU count", AUTOSIZE_OPT_CLI},
	{"nodes", "N", "fix the node count", AUTOSIZE_OPT_CLI},
	{"network", "ib|roce|ethernet[:GBPS]",
	 "network between nodes, Gb/s per node", AUTOSIZE_OPT_CLI},
	{"tp", "N", "pin tensor parallel size", AUTOSIZE_OPT_CLI},
	{"pp", "N", "pin pipeline parallel size", AUTOSIZE_OPT_CLI},
	{"dp", "N", "pin data parallel size", AUTOSIZE_OPT_CLI},
	{"zero", "0-3", "pin ZeRO stage", AUTOSIZE_OPT_CLI},
	{"recompute", "none|selective|full", "pin activation recomputation",
	 AUTOSIZE_OPT_CLI},
	{"micro-batch", "N", "pin micro-batch size", AUTOSIZE_OPT_CLI},
	{"sequence-parallel", "on|off", "sequence parallelism with TP (on)",
	 AUTOSIZE_OPT_CLI},
	{"interleave", "N", "virtual pipeline stages per rank (1)",
	 AUTOSIZE_OPT_CLI},
	{"flash-attention", "on|off", "FlashAttention kernels (on)",
	 AUTOSIZE_OPT_CLI},
	{"mfu", "F", "plan at a fixed utilization (0.4)", AUTOSIZE_OPT_CLI},
	{"memory-reserve", "F", "GPU memory kept free (default 0.20)",
	 AUTOSIZE_OPT_CLI},
	{"time-reserve", "F", "extra wall time (default 0.15)",
	 AUTOSIZE_OPT_CLI},
	{NULL, NULL, NULL, 0}
};

const autosize_option *autosize_options(void)
{
	return options_table;
}

static autosize_err options_int(const char *value, const char *what,
				long lo, long hi, int *out, autosize_error *e)
{
	long v;
	autosize_err rc = autosize_parse_int(value, what, lo, hi, &v, e);

	if (rc == AUTOSIZE_OK)
		*out = (int)v;
	return rc;
}

static autosize_err options_copy(char *dst, size_t len, const char *value,
				 const char *what, autosize_error *e)
{
	size_t i, n = strlen(value);

	if (n == 0)
		return autosize_fail(e, AUTOSIZE_EINVAL, "%s: empty value",
				     what);
	if (n >= len)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: value is longer than %zu "
				     "characters", what, len - 1);
	for (i = 0; i < n; i++)
		if ((unsigned char)value[i] < 0x20 || value[i] == 0x7f)
			return autosize_fail(e, AUTOSIZE_EINVAL,
					     "%s: value contains a control "
					     "character", what);
	memcpy(dst, value, n + 1);
	return AUTOSIZE_OK;
}

static autosize_err options_network(autosize_request *r, const char *value,
				    const char *what, autosize_error *e)
{
	static const char *const kinds[] = {"ib", "roce", "ethernet", NULL};
	char kind[16];
	const char *colon = strchr(value, ':');
	size_t n = colon ? (size_t)(colon - value) : strlen(value);
	int k;
	double gbps = 0;
	autosize_err rc;

	if (n == 0 || n >= sizeof(kind))
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: expected ib|roce|ethernet[:GBPS_"
				     "PER_NODE] (e.g. ethernet:100)", what);
	memcpy(kind, value, n);
	kind[n] = '\0';
	if ((rc = autosize_parse_choice(kind, what, kinds, &k, e)))
		return rc;
	if (colon) {
		rc = autosize_parse_count(colon + 1, what, &gbps, e);
		if (rc)
			return rc;
		if (gbps > 1e6)
			return autosize_fail(e, AUTOSIZE_EINVAL,
					     "%s: %g Gb/s per node is more "
					     "than 1e6", what, gbps);
	} else {
		/* Typical per-node rates: 8 x 200 Gb/s IB or RoCE, one
		 * 100 Gb/s Ethernet port. */
		gbps = k == AUTOSIZE_NET_ETHERNET ? 100 : 1600;
	}
	r->net_set = 1;
	r->net = (autosize_net)k;
	r->net_gbps_per_node = gbps;
	return AUTOSIZE_OK;
}

static autosize_err options_arch(autosize_request *r, const char *name,
				 const char *value, const char *what,
				 autosize_error *e)
{
	static const char *const mlps[] = {"swiglu", "gelu", NULL};
	autosize_model *m = &r->model;
	int k;
	autosize_err rc;

	r->arch_given = 1;
	if (strcmp(name, "layers") == 0)
		return options_int(value, what, 1, AUTOSIZE_MAX_LAYERS,
				   &m->layers, e);
	if (strcmp(name, "hidden") == 0)
		return options_int(value, what, 1, AUTOSIZE_MAX_HIDDEN,
				   &m->hidden, e);
	if (strcmp(name, "heads") == 0)
		return options_int(value, what, 1, AUTOSIZE_MAX_HEADS,
				   &m->heads, e);
	if (strcmp(name, "kv-heads") == 0)
		return options_int(value, what, 1, AUTOSIZE_MAX_HEADS,
				   &m->kv_heads, e);
	if (strcmp(name, "ffn") == 0)
		return options_int(value, what, 1, AUTOSIZE_MAX_FFN, &m->ffn,
				   e);
	if (strcmp(name, "vocab") == 0)
		return options_int(value, what, 1, AUTOSIZE_MAX_VOCAB,
				   &m->vocab, e);
	if (strcmp(name, "experts") == 0)
		return options_int(value, what, 1, AUTOSIZE_MAX_EXPERTS,
				   &m->experts, e);
	if (strcmp(name, "experts-active") == 0)
		return options_int(value, what, 1, AUTOSIZE_MAX_EXPERTS,
				   &m->experts_active, e);
	/* mlp */
	if ((rc = autosize_parse_choice(value, what, mlps, &k, e)))
		return rc;
	m->mlp = (autosize_mlp)k;
	return AUTOSIZE_OK;
}

static autosize_err options_pin(autosize_request *r, const char *name,
				const char *value, const char *what,
				autosize_error *e)
{
	static const char *const rcs[] = {"none", "selective", "full", NULL};
	/* even index: off, odd: on */
	static const char *const onoff[] = {"off", "on", "0", "1", "no", "yes",
					    "false", "true", NULL};
	int k;
	autosize_err rc;

	if (strcmp(name, "tp") == 0)
		return options_int(value, what, 1, 1024, &r->tp, e);
	if (strcmp(name, "pp") == 0)
		return options_int(value, what, 1, 1024, &r->pp, e);
	if (strcmp(name, "dp") == 0)
		return options_int(value, what, 1, 1000000, &r->dp, e);
	if (strcmp(name, "zero") == 0)
		return options_int(value, what, 0, 3, &r->zero_stage, e);
	if (strcmp(name, "micro-batch") == 0)
		return options_int(value, what, 1, 65536, &r->micro_batch, e);
	if (strcmp(name, "interleave") == 0)
		return options_int(value, what, 1, 64, &r->interleave, e);
	if (strcmp(name, "sequence-parallel") == 0 ||
	    strcmp(name, "flash-attention") == 0) {
		if ((rc = autosize_parse_choice(value, what, onoff, &k, e)))
			return rc;
		if (name[0] == 's')
			r->sequence_parallel = k % 2;
		else
			r->flash_attention = k % 2;
		return AUTOSIZE_OK;
	}
	if ((rc = autosize_parse_choice(value, what, rcs, &k, e)))
		return rc;
	r->recompute = k;
	return AUTOSIZE_OK;
}

autosize_err autosize_request_set(autosize_request *r, const char *name,
				  const char *value, autosize_error *e)
{
	static const char *const modes[] = {"pretrain", "finetune", "lora",
					    "qlora", NULL};
	static const char *const precs[] = {"bf16", "fp16", "fp8", NULL};
	static const char *const job_modes[] = {"rewrite", "warn", "off",
						"explain", NULL};
	static const char *const opts[] = {"adamw", "adamw-8bit", "sgd",
					   NULL};
	char what[48];
	int k;
	autosize_err rc;

	if (!name || !value)
		return autosize_fail(e, AUTOSIZE_EINVAL, "missing option value");
	snprintf(what, sizeof(what), "--%.40s", name);
	if (strcmp(name, "model-params") == 0)
		return autosize_parse_count(value, what, &r->model_params, e);
	if (strcmp(name, "model") == 0)
		return options_copy(r->model_spec, sizeof(r->model_spec),
				    value, what, e);
	if (strcmp(name, "train-tokens") == 0)
		return autosize_parse_count(value, what, &r->tokens, e);
	if (strcmp(name, "train-time") == 0)
		return autosize_parse_duration(value, what, &r->deadline_s, e);
	if (strcmp(name, "train-seq-len") == 0)
		return options_int(value, what, 16, 4194304, &r->seq_len, e);
	if (strcmp(name, "train-batch") == 0)
		return options_int(value, what, 1, 100000000,
				   &r->global_batch, e);
	if (strcmp(name, "train-mode") == 0) {
		if ((rc = autosize_parse_choice(value, what, modes, &k, e)))
			return rc;
		r->train_mode = (autosize_train_mode)k;
		return AUTOSIZE_OK;
	}
	if (strcmp(name, "autosize") == 0) {
		if ((rc = autosize_parse_choice(value, what, job_modes, &k, e)))
			return rc;
		r->job_mode = (autosize_job_mode)(k + 1);
		return AUTOSIZE_OK;
	}
	if (strcmp(name, "train-precision") == 0) {
		if ((rc = autosize_parse_choice(value, what, precs, &k, e)))
			return rc;
		r->precision = (autosize_precision)k;
		return AUTOSIZE_OK;
	}
	if (strcmp(name, "train-optimizer") == 0) {
		if ((rc = autosize_parse_choice(value, what, opts, &k, e)))
			return rc;
		r->optimizer = (autosize_optimizer)k;
		return AUTOSIZE_OK;
	}
	if (strcmp(name, "train-framework") == 0) {
		if ((rc = autosize_parse_choice(value, what,
						autosize_framework_names, &k,
						e)))
			return rc;
		r->framework = (autosize_framework)(k +
				AUTOSIZE_FRAMEWORK_MEGATRON);
		return AUTOSIZE_OK;
	}
	if (strcmp(name, "partition") == 0)
		return options_copy(r->partition, sizeof(r->partition), value,
				    what, e);
	if (strcmp(name, "gpu") == 0)
		return options_copy(r->gpu, sizeof(r->gpu), value, what, e);
	if (strcmp(name, "gpus-per-node") == 0)
		return options_int(value, what, 1, 64, &r->gpus_per_node, e);
	if (strcmp(name, "gpus") == 0)
		return options_int(value, what, 1, 1000000, &r->gpus, e);
	if (strcmp(name, "nodes") == 0)
		return options_int(value, what, 1, 100000, &r->nodes, e);
	if (strcmp(name, "network") == 0)
		return options_network(r, value, what, e);
	if (strcmp(name, "mfu") == 0)
		return autosize_parse_fraction(value, what, 0.01, 1, &r->mfu,
					       e);
	if (strcmp(name, "memory-reserve") == 0)
		return autosize_parse_fraction(value, what, 0, 0.9,
					       &r->memory_reserve, e);
	if (strcmp(name, "time-reserve") == 0)
		return autosize_parse_fraction(value, what, 0, 10,
					       &r->time_reserve, e);
	if (strcmp(name, "tp") == 0 || strcmp(name, "pp") == 0 ||
	    strcmp(name, "dp") == 0 || strcmp(name, "zero") == 0 ||
	    strcmp(name, "micro-batch") == 0 || strcmp(name, "recompute") == 0 ||
	    strcmp(name, "interleave") == 0 ||
	    strcmp(name, "sequence-parallel") == 0 ||
	    strcmp(name, "flash-attention") == 0)
		return options_pin(r, name, value, what, e);
	for (k = 0; options_table[k].name; k++)
		if (strcmp(options_table[k].name, name) == 0)
			return options_arch(r, name, value, what, e);
	return autosize_fail(e, AUTOSIZE_EINVAL,
			     "unknown option '%s' (see autosize plan --help)",
			     what);
}

static int options_is_path(const char *spec)
{
	size_t n = strlen(spec);

	return strchr(spec, '/') != NULL ||
	       (n > 5 && strcmp(spec + n - 5, ".json") == 0);
}

autosize_err autosize_request_finish(autosize_request *r, autosize_error *e)
{
	autosize_model *m = &r->model;
	autosize_err rc;

	if (r->model_spec[0] && r->arch_given)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--model and --layers/--hidden/... both "
				     "given: use one or the other");
	if (r->model_spec[0]) {
		if (options_is_path(r->model_spec))
			rc = autosize_model_from_config_json(r->model_spec, m,
							     e);
		else
			rc = autosize_model_preset(r->model_spec, m, e);
		if (rc)
			return rc;
	} else if (r->arch_given) {
		if ((rc = autosize_model_finish_arch(m, e)))
			return rc;
	} else if (r->model_params > 0) {
		autosize_model_init(m);
		m->params = r->model_params;
		m->params_active = r->model_params;
		return autosize_model_synthesize(m, e);
	} else {
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "no model: give --model-params (e.g. "
				     "70e9) or --model (preset or "
				     "config.json)");
	}
	if (r->model_params > 0 &&
	    fabs(r->model_params - m->params) >
	    OPTIONS_PARAMS_TOLERANCE * m->params)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--model-params %.4g disagrees with the "
				     "architecture (%.4g parameters): drop "
				     "one of them", r->model_params,
				     m->params);
	return AUTOSIZE_OK;
}
