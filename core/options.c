/*
 * autosize: user options: one table, one setter, for every front end.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "autosize/options.h"
#include "autosize/parse.h"
#include "perfdata.h"

#define OPT_BOTH (AUTOSIZE_OPT_CLI | AUTOSIZE_OPT_SPANK)
/* --model-params and the architecture must agree this closely. */
#define OPTIONS_PARAMS_TOLERANCE 0.10
/* --model-params below this is a unit slip ("70" for 70B). */
#define OPTIONS_MIN_PARAMS 1e6

static const autosize_option options_table[] = {
	{"model-params", "N", "total parameters (70e9, 70B, 7.5b; at least "
	 "1M)", OPT_BOTH},
	{"model", "NAME|PATH", "model preset (llama-3-8b) or config.json",
	 OPT_BOTH},
	{"layers", "N", "transformer layers", OPT_BOTH},
	{"hidden", "N", "hidden size", OPT_BOTH},
	{"heads", "N", "attention heads", OPT_BOTH},
	{"kv-heads", "N", "key/value heads (GQA; default heads)", OPT_BOTH},
	{"head-dim", "N", "attention head width (default hidden/heads)",
	 OPT_BOTH},
	{"ffn", "N", "MLP width, per routed expert for MoE (default 4h for "
	 "gelu, ~8h/3 for swiglu)", OPT_BOTH},
	{"mlp", "swiglu|gelu", "MLP kind (default swiglu)", OPT_BOTH},
	{"vocab", "N", "vocabulary size (default 32000)", OPT_BOTH},
	{"experts", "N", "MoE routed experts per layer", OPT_BOTH},
	{"experts-active", "K", "MoE routed experts per token", OPT_BOTH},
	{"shared-experts", "N", "MoE experts every token uses (DeepSeek)",
	 OPT_BOTH},
	{"shared-ffn", "N", "MLP width of one shared expert (default ffn)",
	 OPT_BOTH},
	{"dense-layers", "N", "leading layers with a dense MLP (DeepSeek "
	 "first_k_dense_replace)", OPT_BOTH},
	{"dense-ffn", "N", "MLP width of those dense layers (default ffn)",
	 OPT_BOTH},
	{"kv-lora-rank", "N", "latent attention KV rank (DeepSeek MLA)",
	 OPT_BOTH},
	{"q-lora-rank", "N", "latent attention query rank (0: none)",
	 OPT_BOTH},
	{"qk-nope-head-dim", "N", "MLA query/key width without RoPE",
	 OPT_BOTH},
	{"qk-rope-head-dim", "N", "MLA query/key width with RoPE", OPT_BOTH},
	{"v-head-dim", "N", "MLA value head width", OPT_BOTH},
	{"train-tokens", "N", "training tokens (2e12, 300B)", OPT_BOTH},
	{"train-time", "DURATION", "deadline (10d, 36h, 2-12:00:00; a bare "
	 "number is minutes, as in Slurm)", OPT_BOTH},
	{"train-mode", "pretrain|finetune|lora|qlora", "what is trained",
	 OPT_BOTH},
	{"train-seq-len", "N", "sequence length (default 4096; 8k = 8192)",
	 OPT_BOTH},
	{"train-batch", "N|Ntok", "global batch: sequences (1024) or, with "
	 "a tok suffix, tokens (4Mtok = 4 x 2^20; default ~4M tokens)",
	 OPT_BOTH},
	{"train-precision", "bf16|fp16|fp8", "compute precision", OPT_BOTH},
	{"train-optimizer", "adamw|adamw-8bit|sgd", "optimizer", OPT_BOTH},
	{"train-framework", "megatron|fsdp|deepspeed",
	 "training framework (default: the site policy's, else megatron)",
	 OPT_BOTH},
	{"train-stack", "hf|torchtune|unsloth|axolotl|llama-factory|"
	 "torchtitan|llm-foundry|megatron|nemo|megatron-deepspeed",
	 "software stack run (doc/stacks.md; implies a framework)", OPT_BOTH},
	{"activation-offload", "on|off", "checkpointed activations kept in "
	 "host memory (default: the stack's; torchtune, unsloth)", OPT_BOTH},
	{"grad-reduce", "fp32|bf16", "gradient reduction precision (default: "
	 "the framework's; bf16: NeMo grad_sync_dtype, Composer PURE)",
	 OPT_BOTH},
	{"moe-overlap", "on|off", "MoE all-to-all hidden behind another "
	 "micro-batch, experts issued without a host sync per layer "
	 "(DeepSeek DualPipe; Megatron-Core EP overlap with DeepEP; off)",
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
	{"recompute", "none|selective|full|selective-mlp",
	 "pin activation recomputation",
	 AUTOSIZE_OPT_CLI},
	{"micro-batch", "N", "pin micro-batch size", AUTOSIZE_OPT_CLI},
	{"sequence-parallel", "on|off", "sequence parallelism with TP (on)",
	 AUTOSIZE_OPT_CLI},
	{"interleave", "N", "virtual pipeline stages per rank (1)",
	 AUTOSIZE_OPT_CLI},
	{"cp", "N", "pin context parallel size (long sequences)",
	 AUTOSIZE_OPT_CLI},
	{"ep", "N", "pin expert parallel size (MoE)", AUTOSIZE_OPT_CLI},
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

/* The architecture options: the model field each sets, its range. */
static const struct options_arch_field {
	const char *name;
	size_t offset;
	long min;       /* 0 where 0 means none (q-lora-rank 0: a plain
			 * query projection) */
	long max;
} options_arch_fields[] = {
#define OPTIONS_F(n, f, lo, hi) {n, offsetof(autosize_model, f), lo, hi}
	OPTIONS_F("layers", layers, 1, AUTOSIZE_MAX_LAYERS),
	OPTIONS_F("hidden", hidden, 1, AUTOSIZE_MAX_HIDDEN),
	OPTIONS_F("heads", heads, 1, AUTOSIZE_MAX_HEADS),
	OPTIONS_F("kv-heads", kv_heads, 1, AUTOSIZE_MAX_HEADS),
	OPTIONS_F("head-dim", head_dim, 1, AUTOSIZE_MAX_HEAD_DIM),
	OPTIONS_F("ffn", ffn, 1, AUTOSIZE_MAX_FFN),
	OPTIONS_F("vocab", vocab, 1, AUTOSIZE_MAX_VOCAB),
	OPTIONS_F("experts", experts, 1, AUTOSIZE_MAX_EXPERTS),
	OPTIONS_F("experts-active", experts_active, 1, AUTOSIZE_MAX_EXPERTS),
	OPTIONS_F("shared-experts", experts_shared, 0, AUTOSIZE_MAX_EXPERTS),
	OPTIONS_F("shared-ffn", ffn_shared, 1, AUTOSIZE_MAX_FFN),
	OPTIONS_F("dense-layers", dense_layers, 0, AUTOSIZE_MAX_LAYERS),
	OPTIONS_F("dense-ffn", ffn_dense, 1, AUTOSIZE_MAX_FFN),
	OPTIONS_F("kv-lora-rank", kv_lora_rank, 0, AUTOSIZE_MAX_LORA_RANK),
	OPTIONS_F("q-lora-rank", q_lora_rank, 0, AUTOSIZE_MAX_LORA_RANK),
	OPTIONS_F("qk-nope-head-dim", qk_nope_head_dim, 0,
		  AUTOSIZE_MAX_HEAD_DIM),
	OPTIONS_F("qk-rope-head-dim", qk_rope_head_dim, 0,
		  AUTOSIZE_MAX_HEAD_DIM),
	OPTIONS_F("v-head-dim", v_head_dim, 1, AUTOSIZE_MAX_HEAD_DIM),
#undef OPTIONS_F
};

/* An architecture option (--layers, --experts, --mlp, ...); 1 when name
 * is one, with the value applied or refused in *rc. */
static int options_arch(autosize_request *r, const char *name,
			const char *value, const char *what,
			autosize_err *rc, autosize_error *e)
{
	static const char *const mlps[] = {"swiglu", "gelu", NULL};
	size_t i;
	long v;
	int k;

	for (i = 0; i < sizeof(options_arch_fields) /
	     sizeof(options_arch_fields[0]); i++) {
		const struct options_arch_field *f = &options_arch_fields[i];

		if (strcmp(name, f->name) != 0)
			continue;
		r->arch_given = 1;
		*rc = autosize_parse_int(value, what, f->min, f->max, &v, e);
		if (*rc == AUTOSIZE_OK)
			*(int *)((char *)&r->model + f->offset) = (int)v;
		return 1;
	}
	if (strcmp(name, "mlp") != 0)
		return 0;
	r->arch_given = 1;
	*rc = autosize_parse_choice(value, what, mlps, &k, e);
	if (*rc == AUTOSIZE_OK)
		r->model.mlp = (autosize_mlp)k;
	return 1;
}

/* even index: off, odd: on */
static const char *const onoff[] = {"off", "on", "0", "1", "no", "yes",
				    "false", "true", NULL};

static autosize_err options_pin(autosize_request *r, const char *name,
				const char *value, const char *what,
				autosize_error *e)
{
	static const char *const rcs[] = {"none", "selective", "full",
					  "selective-mlp", NULL};
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
	if (strcmp(name, "cp") == 0)
		return options_int(value, what, 1, 1024, &r->cp, e);
	if (strcmp(name, "ep") == 0)
		return options_int(value, what, 1, 4096, &r->ep, e);
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

/* Under a million parameters is a typo for billions ("70" for 70B). */
static autosize_err options_model_params(autosize_request *r,
					 const char *value, const char *what,
					 autosize_error *e)
{
	double v = 0;
	autosize_err rc = autosize_parse_count(value, what, &v, e);

	if (rc)
		return rc;
	if (v < OPTIONS_MIN_PARAMS)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: %.0f parameters is under a million "
				     "(did you mean %.4gB? write 70B or 70e9)",
				     what, v, v);
	r->model_params = v;
	return AUTOSIZE_OK;
}

static autosize_err options_seq_len(autosize_request *r, const char *value,
				    const char *what, autosize_error *e)
{
	long v;
	autosize_err rc = autosize_parse_tokens(value, what, 16, 4194304, &v,
						e);

	if (rc == AUTOSIZE_OK)
		r->seq_len = (int)v;
	return rc;
}

static autosize_err options_batch(autosize_request *r, const char *value,
				  const char *what, autosize_error *e)
{
	long seqs;
	double tokens;
	autosize_err rc = autosize_parse_batch(value, what, &seqs, &tokens, e);

	if (rc)
		return rc;
	r->global_batch = seqs > 0 ? (int)seqs : AUTOSIZE_UNSET;
	r->batch_tokens = tokens;
	return AUTOSIZE_OK;
}

const autosize_option *autosize_option_find(const char *name)
{
	const autosize_option *o;

	for (o = options_table; name && o->name; o++)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
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
		return options_model_params(r, value, what, e);
	if (strcmp(name, "model") == 0)
		return options_copy(r->model_spec, sizeof(r->model_spec),
				    value, what, e);
	if (strcmp(name, "train-tokens") == 0)
		return autosize_parse_count(value, what, &r->tokens, e);
	if (strcmp(name, "train-time") == 0) {
		rc = autosize_parse_duration(value, what, &r->deadline_s, e);
		r->deadline_bare_minutes =
			autosize_duration_is_bare_minutes(value);
		return rc;
	}
	if (strcmp(name, "train-seq-len") == 0)
		return options_seq_len(r, value, what, e);
	if (strcmp(name, "train-batch") == 0)
		return options_batch(r, value, what, e);
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
	if (strcmp(name, "grad-reduce") == 0) {
		static const char *const widths[] = {"fp32", "bf16", NULL};

		if ((rc = autosize_parse_choice(value, what, widths, &k, e)))
			return rc;
		r->grad_reduce_b = k == 0 ? 4 : 2;
		return AUTOSIZE_OK;
	}
	if (strcmp(name, "moe-overlap") == 0) {
		if ((rc = autosize_parse_choice(value, what, onoff, &k, e)))
			return rc;
		r->moe_overlap = k % 2;
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
	if (strcmp(name, "train-stack") == 0) {
		char names[256];

		if (perfdata_stack_find(perfdata_default(), value))
			return options_copy(r->stack, sizeof(r->stack),
					    value, what, e);
		perfdata_stack_names(perfdata_default(), names,
				     sizeof(names));
		return autosize_fail(e, AUTOSIZE_EINVAL, "%s: unknown stack "
				     "'%.32s' (expected %s)", what, value,
				     names);
	}
	if (strcmp(name, "activation-offload") == 0) {
		if ((rc = autosize_parse_choice(value, what, onoff, &k, e)))
			return rc;
		r->act_offload = k % 2 ? 1 : 2;
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
	    strcmp(name, "interleave") == 0 || strcmp(name, "cp") == 0 ||
	    strcmp(name, "ep") == 0 ||
	    strcmp(name, "sequence-parallel") == 0 ||
	    strcmp(name, "flash-attention") == 0)
		return options_pin(r, name, value, what, e);
	if (options_arch(r, name, value, what, &rc, e))
		return rc;
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

int autosize_request_seq_len(const autosize_request *r)
{
	const autosize_model *m = &r->model;

	if (r->seq_len > 0)
		return r->seq_len;
	/* GPT-2-era models were trained at 2048 (GPT-3, Brown et al.
	 * 2020, table 2.1); Llama-era ones at 4096 (Llama 2). */
	return m->mlp == AUTOSIZE_MLP_GELU && !m->arch_synthetic ? 2048
								 : 4096;
}

/* --train-batch=NUMtok: whole sequences of the planned length. */
static void options_batch_sequences(autosize_request *r)
{
	double seqs;

	if (!(r->batch_tokens > 0))
		return;
	seqs = floor(r->batch_tokens / autosize_request_seq_len(r) + 0.5);
	r->global_batch = (int)fmin(fmax(seqs, 1), 100000000);
}

autosize_err autosize_request_finish(autosize_request *r, autosize_error *e)
{
	autosize_model *m = &r->model;
	autosize_err rc;

	if (r->partition[0] && r->gpu[0])
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--partition %s and --gpu %s both given: "
				     "a partition has its own GPU type (give "
				     "--partition, or --gpu for its reference "
				     "server)", r->partition, r->gpu);
	if (r->model_spec[0] && r->arch_given)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--model and --layers/--hidden/... both "
				     "given: use one or the other");
	if (!r->model_spec[0] && !r->arch_given && r->model.has_arch) {
		/* resolved already: AUTOSIZE_MODEL decoded in slurmctld */
	} else if (r->model_spec[0]) {
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
		if ((rc = autosize_model_synthesize(m, e)))
			return rc;
		options_batch_sequences(r);
		return AUTOSIZE_OK;
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
	/* The default length never exceeds the model's positions (GPT-2:
	 * 1024). */
	if (r->seq_len <= 0 && m->max_positions > 0 &&
	    autosize_request_seq_len(r) > m->max_positions)
		r->seq_len = m->max_positions < 16 ? 16 : m->max_positions;
	options_batch_sequences(r);
	return AUTOSIZE_OK;
}

/* Add a warning unless the plan has it already (callable twice). */
static void options_warn(autosize_plan *plan, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void options_warn(autosize_plan *plan, const char *fmt, ...)
{
	char msg[AUTOSIZE_WARNING_LEN];
	va_list ap;
	int i;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (i = 0; i < plan->n_warnings; i++)
		if (strcmp(plan->warnings[i], msg) == 0)
			return;
	autosize_plan_warn(plan, "%s", msg);
}

void autosize_request_warnings(const autosize_request *r,
			       autosize_plan *plan)
{
	double step_tokens = (double)plan->global_batch * plan->seq_len;
	int max_pos = r->model.max_positions;

	if (r->deadline_bare_minutes && r->deadline_s < 3600)
		options_warn(plan, "--train-time %.0f is read as %.0f minutes "
			     "(a bare number is minutes, as in Slurm); write "
			     "%.0fh or %.0fd for hours or days",
			     r->deadline_s / 60, r->deadline_s / 60,
			     r->deadline_s / 60, r->deadline_s / 60);
	if (r->tokens > 0 && step_tokens > 0 && r->tokens < step_tokens)
		options_warn(plan, "--train-tokens %.0f is less than one "
			     "optimizer step (%d x %d = %.0f tokens); did "
			     "you mean %.4gB?", r->tokens, plan->global_batch,
			     plan->seq_len, step_tokens, r->tokens);
	if (max_pos > 0 && plan->seq_len > max_pos)
		options_warn(plan, "sequence length %d is above the model's "
			     "%d positions (max_position_embeddings); "
			     "give --train-seq-len %d or extend the "
			     "positions first", plan->seq_len, max_pos,
			     max_pos);
	if (r->batch_tokens > 0 && plan->global_batch > 0 &&
	    fabs(r->batch_tokens - step_tokens) >= 1)
		options_warn(plan, "--train-batch %.0f tokens is %d "
			     "sequences of %d (%.0f tokens)", r->batch_tokens,
			     plan->global_batch, plan->seq_len, step_tokens);
}
