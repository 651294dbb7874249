/*
 * autosize: user options: one table, for every front end. Each row names
 * an option and says how its value is read and stored.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "autosize/options.h"
#include "autosize/parse.h"
#include "names.h"
#include "perfdata.h"

#define OPT_BOTH (AUTOSIZE_OPT_CLI | AUTOSIZE_OPT_SPANK)
/* --model-params and the architecture must agree this closely. */
#define OPTIONS_PARAMS_TOLERANCE 0.10
/* --model-params below this is a unit slip ("70" for 70B). */
#define OPTIONS_MIN_PARAMS 1e6

/* The enums a choice stores through an int pointer. */
_Static_assert(sizeof(autosize_train_mode) == sizeof(int) &&
	       sizeof(autosize_precision) == sizeof(int) &&
	       sizeof(autosize_optimizer) == sizeof(int) &&
	       sizeof(autosize_framework) == sizeof(int) &&
	       sizeof(autosize_job_mode) == sizeof(int) &&
	       sizeof(autosize_mlp) == sizeof(int) &&
	       sizeof(autosize_moe_dispatcher) == sizeof(int),
	       "options_choice stores enums as int");

typedef enum options_kind {
	OPTIONS_INT,      /* int field, lo..hi */
	OPTIONS_FRACTION, /* double field, lo..hi */
	OPTIONS_COUNT,    /* double field, a count with a suffix (2T) */
	OPTIONS_STRING,   /* char array field */
	OPTIONS_CHOICE,   /* int field = base + index in names */
	OPTIONS_ONOFF,    /* int field = 0 or 1 (names_onoff) */
	OPTIONS_FUNC      /* its own reader, fn */
} options_kind;

/* How an option's value is read and where it is stored. */
struct autosize_option_setter {
	options_kind kind;
	size_t off;                  /* in autosize_request */
	size_t size;                 /* OPTIONS_STRING: the buffer's size */
	double lo, hi;               /* OPTIONS_INT, OPTIONS_FRACTION */
	const char *const *names;    /* OPTIONS_CHOICE */
	const char *const *aliases;  /* OPTIONS_CHOICE: pairs (word, name)
				      * also accepted, or NULL */
	int base;                    /* OPTIONS_CHOICE: value of names[0] */
	int arch;                    /* 1: sets arch_given, even on error */
	autosize_err (*fn)(autosize_request *r, const char *value,
			   const char *what, autosize_error *e);
};

#define OPTIONS_SET(...) (&(const struct autosize_option_setter){__VA_ARGS__})
#define OPTIONS_OFF(f) offsetof(autosize_request, f)
#define SET_INT(f, l, h) OPTIONS_SET(.kind = OPTIONS_INT, \
	.off = OPTIONS_OFF(f), .lo = l, .hi = h)
#define SET_ARCH(f, l, h) OPTIONS_SET(.kind = OPTIONS_INT, \
	.off = OPTIONS_OFF(model.f), .lo = l, .hi = h, .arch = 1)
#define SET_FRACTION(f, l, h) OPTIONS_SET(.kind = OPTIONS_FRACTION, \
	.off = OPTIONS_OFF(f), .lo = l, .hi = h)
#define SET_COUNT(f) OPTIONS_SET(.kind = OPTIONS_COUNT, .off = OPTIONS_OFF(f))
#define SET_STRING(f) OPTIONS_SET(.kind = OPTIONS_STRING, \
	.off = OPTIONS_OFF(f), .size = sizeof(((autosize_request *)0)->f))
#define SET_CHOICE(f, n, b) OPTIONS_SET(.kind = OPTIONS_CHOICE, \
	.off = OPTIONS_OFF(f), .names = n, .base = b)
#define SET_ONOFF(f) OPTIONS_SET(.kind = OPTIONS_ONOFF, .off = OPTIONS_OFF(f))
#define SET_FUNC(f) OPTIONS_SET(.kind = OPTIONS_FUNC, .fn = f)

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
	if ((rc = autosize_parse_choice(kind, what, names_net, &k,
					e)))
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

static autosize_err options_deadline(autosize_request *r, const char *value,
				     const char *what, autosize_error *e)
{
	autosize_err rc = autosize_parse_duration(value, what, &r->deadline_s,
						  e);

	r->deadline_bare_minutes = autosize_duration_is_bare_minutes(value);
	return rc;
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

/* Bytes per reduced gradient: fp32 4, bf16 2. */
static autosize_err options_grad_reduce(autosize_request *r,
					const char *value, const char *what,
					autosize_error *e)
{
	static const char *const widths[] = {"fp32", "bf16", NULL};
	int k;
	autosize_err rc = autosize_parse_choice(value, what, widths, &k, e);

	if (rc)
		return rc;
	r->grad_reduce_b = k == 0 ? 4 : 2;
	return AUTOSIZE_OK;
}

/* A stack named in etc/perf.yaml's stacks:. */
static autosize_err options_stack(autosize_request *r, const char *value,
				  const char *what, autosize_error *e)
{
	const perfdata_stack *st = perfdata_stack_find(perfdata_default(),
						       value);
	char names[256];

	/* any case (HF is hf); kept as the table spells it */
	if (st)
		return options_copy(r->stack, sizeof(r->stack), st->name, what,
				    e);
	perfdata_stack_names(perfdata_default(), names, sizeof(names));
	return autosize_fail(e, AUTOSIZE_EINVAL, "%s: unknown stack '%.32s' "
			     "(expected %s)", what, value, names);
}

/* An on|off option kept as 1 on, 2 off (0, unset, is the default). */
static autosize_err options_onoff_set(int *field, const char *value,
				      const char *what, autosize_error *e)
{
	int k;
	autosize_err rc = autosize_parse_choice(value, what,
						names_onoff, &k, e);

	if (rc)
		return rc;
	*field = k % 2 ? 1 : 2;
	return AUTOSIZE_OK;
}

/* --activation-offload: unset is the stack's. */
static autosize_err options_act_offload(autosize_request *r,
					const char *value, const char *what,
					autosize_error *e)
{
	return options_onoff_set(&r->act_offload, value, what, e);
}

/* --optimizer-offload: unset is off. */
static autosize_err options_opt_offload(autosize_request *r,
					const char *value, const char *what,
					autosize_error *e)
{
	return options_onoff_set(&r->opt_offload, value, what, e);
}

/* --param-offload: unset is off. */
static autosize_err options_param_offload(autosize_request *r,
					  const char *value, const char *what,
					  autosize_error *e)
{
	return options_onoff_set(&r->param_offload, value, what, e);
}

/* Every option, once: its name, help and where it is offered (the CLI's
 * --help, the SPANK options, the man-page check in tests/test_options.c)
 * and how its value is read and stored (autosize_request_set). The
 * architecture's minimum is 0 where 0 means none (q-lora-rank 0: a plain
 * query projection). */
static const autosize_option options_table[] = {
	{"model-params", "N", "total parameters (70e9, 70B, 7.5b; at least "
	 "1M)", OPT_BOTH, SET_FUNC(options_model_params)},
	{"model", "NAME|PATH", "model preset (llama-3-8b) or config.json",
	 OPT_BOTH, SET_STRING(model_spec)},
	{"layers", "N", "transformer layers", OPT_BOTH,
	 SET_ARCH(layers, 1, AUTOSIZE_MAX_LAYERS)},
	{"hidden", "N", "hidden size", OPT_BOTH,
	 SET_ARCH(hidden, 1, AUTOSIZE_MAX_HIDDEN)},
	{"heads", "N", "attention heads", OPT_BOTH,
	 SET_ARCH(heads, 1, AUTOSIZE_MAX_HEADS)},
	{"kv-heads", "N", "key/value heads (GQA; default heads)", OPT_BOTH,
	 SET_ARCH(kv_heads, 1, AUTOSIZE_MAX_HEADS)},
	{"head-dim", "N", "attention head width (default hidden/heads)",
	 OPT_BOTH, SET_ARCH(head_dim, 1, AUTOSIZE_MAX_HEAD_DIM)},
	{"ffn", "N", "MLP width, per routed expert for MoE (default 4h for "
	 "gelu, ~8h/3 for swiglu)", OPT_BOTH,
	 SET_ARCH(ffn, 1, AUTOSIZE_MAX_FFN)},
	{"mlp", "swiglu|gelu", "MLP kind (default swiglu)", OPT_BOTH,
	 OPTIONS_SET(.kind = OPTIONS_CHOICE, .off = OPTIONS_OFF(model.mlp),
		     .names = names_mlp, .arch = 1)},
	{"vocab", "N", "vocabulary size (default 32000)", OPT_BOTH,
	 SET_ARCH(vocab, 1, AUTOSIZE_MAX_VOCAB)},
	{"experts", "N", "MoE routed experts per layer", OPT_BOTH,
	 SET_ARCH(experts, 1, AUTOSIZE_MAX_EXPERTS)},
	{"experts-active", "K", "MoE routed experts per token", OPT_BOTH,
	 SET_ARCH(experts_active, 1, AUTOSIZE_MAX_EXPERTS)},
	{"shared-experts", "N", "MoE experts every token uses (DeepSeek)",
	 OPT_BOTH, SET_ARCH(experts_shared, 0, AUTOSIZE_MAX_EXPERTS)},
	{"shared-ffn", "N", "MLP width of one shared expert (default ffn)",
	 OPT_BOTH, SET_ARCH(ffn_shared, 1, AUTOSIZE_MAX_FFN)},
	{"dense-layers", "N", "layers with a dense MLP instead of experts "
	 "(DeepSeek first_k_dense_replace, Llama 4 Maverick 24)", OPT_BOTH,
	 SET_ARCH(dense_layers, 0, AUTOSIZE_MAX_LAYERS)},
	{"dense-ffn", "N", "MLP width of those dense layers (default ffn)",
	 OPT_BOTH, SET_ARCH(ffn_dense, 1, AUTOSIZE_MAX_FFN)},
	{"kv-lora-rank", "N", "latent attention KV rank (DeepSeek MLA)",
	 OPT_BOTH, SET_ARCH(kv_lora_rank, 0, AUTOSIZE_MAX_LORA_RANK)},
	{"q-lora-rank", "N", "latent attention query rank (0: none)",
	 OPT_BOTH, SET_ARCH(q_lora_rank, 0, AUTOSIZE_MAX_LORA_RANK)},
	{"qk-nope-head-dim", "N", "MLA query/key width without RoPE",
	 OPT_BOTH, SET_ARCH(qk_nope_head_dim, 0, AUTOSIZE_MAX_HEAD_DIM)},
	{"qk-rope-head-dim", "N", "MLA query/key width with RoPE", OPT_BOTH,
	 SET_ARCH(qk_rope_head_dim, 0, AUTOSIZE_MAX_HEAD_DIM)},
	{"v-head-dim", "N", "MLA value head width", OPT_BOTH,
	 SET_ARCH(v_head_dim, 1, AUTOSIZE_MAX_HEAD_DIM)},
	{"attn-window", "N", "sliding-window attention span in tokens of "
	 "the layers that use one (Gemma 3: 1024; 0: none)", OPT_BOTH,
	 SET_ARCH(attn_window, 0, AUTOSIZE_MAX_POSITIONS)},
	{"attn-chunk", "N", "chunked local attention: each query sees the "
	 "keys of its own N-token chunk only, on --window-layers of the "
	 "layers (Llama 4: 8192 on 3 of 4; 0: none)", OPT_BOTH,
	 SET_ARCH(attn_chunk, 0, AUTOSIZE_MAX_POSITIONS)},
	{"window-layers", "N", "how many layers use --attn-window or "
	 "--attn-chunk (default all; Gemma 2 and GPT-OSS: every other, "
	 "Gemma 3: 5 of 6, Llama 4: 3 of 4)",
	 OPT_BOTH, SET_ARCH(window_layers, 0, AUTOSIZE_MAX_LAYERS)},
	{"mamba-layers", "N", "hybrid state-space models: blocks whose "
	 "mixer is a Mamba-2 layer (Nemotron 3 Nano: 23 of its 52; 0: "
	 "none)", OPT_BOTH, SET_ARCH(mamba_layers, 0, AUTOSIZE_MAX_LAYERS)},
	{"attn-layers", "N", "with --mamba-layers: blocks with attention "
	 "(default the blocks without a Mamba mixer; Nemotron 3 Nano: 6)",
	 OPT_BOTH, SET_ARCH(attn_layers, 1, AUTOSIZE_MAX_LAYERS)},
	{"mlp-layers", "N", "blocks with an MLP or experts (default all; "
	 "Nemotron-H gives each mixer and MLP a block: Nano 23)", OPT_BOTH,
	 SET_ARCH(mlp_layers, 1, AUTOSIZE_MAX_LAYERS)},
	{"mamba-heads", "N", "Mamba-2 heads (default 2 x hidden / "
	 "--mamba-head-dim)", OPT_BOTH,
	 SET_ARCH(mamba_heads, 1, AUTOSIZE_MAX_HEADS)},
	{"mamba-head-dim", "N", "Mamba-2 head width (default 64)", OPT_BOTH,
	 SET_ARCH(mamba_head_dim, 1, AUTOSIZE_MAX_HEAD_DIM)},
	{"mamba-state", "N", "Mamba-2 state size, ssm_state_size (default "
	 "128)", OPT_BOTH, SET_ARCH(mamba_state, 1, AUTOSIZE_MAX_HEAD_DIM)},
	{"mamba-groups", "N", "Mamba-2 groups sharing B and C, n_groups "
	 "(default 8 where they divide the heads, as Megatron-Core, else "
	 "1)", OPT_BOTH,
	 SET_ARCH(mamba_groups, 1, AUTOSIZE_MAX_HEADS)},
	{"train-tokens", "N", "training tokens (2e12, 300B)", OPT_BOTH,
	 SET_COUNT(tokens)},
	{"train-tokens-done", "N", "of them, trained already (a run resumed "
	 "from its checkpoints): only the rest is planned", OPT_BOTH,
	 SET_COUNT(tokens_done)},
	{"eval-tokens", "N", "tokens the run evaluates in all, forward only "
	 "(eval set tokens x evaluations): counted in the time", OPT_BOTH,
	 SET_COUNT(eval_tokens)},
	{"train-time", "DURATION", "deadline (10d, 36h, 2-12:00:00; a bare "
	 "number is minutes, as in Slurm)", OPT_BOTH,
	 SET_FUNC(options_deadline)},
	{"train-mode", "pretrain|finetune|lora|qlora", "what is trained "
	 "(finetune: every weight; sft and full say the same)",
	 OPT_BOTH, OPTIONS_SET(.kind = OPTIONS_CHOICE,
			       .off = OPTIONS_OFF(train_mode),
			       .names = names_train_mode,
			       .aliases = names_train_mode_aliases)},
	{"lora-rank", "N", "LoRA/QLoRA adapter rank, on every linear layer "
	 "(default 16)", OPT_BOTH, SET_INT(lora_rank, 1, 65536)},
	{"train-seq-len", "N", "sequence length (default 4096; 8k = 8192)",
	 OPT_BOTH, SET_FUNC(options_seq_len)},
	{"train-batch", "N|Ntok", "global batch: sequences (1024) or, with "
	 "a tok suffix, tokens (4Mtok = 4 x 2^20; default ~4M tokens)",
	 OPT_BOTH, SET_FUNC(options_batch)},
	{"train-precision", "bf16|fp16|fp8|nvfp4", "compute precision "
	 "(nvfp4: Blackwell, Megatron-Core)", OPT_BOTH,
	 SET_CHOICE(precision, names_precision, 0)},
	{"train-optimizer", "adamw|adamw-8bit|sgd", "optimizer", OPT_BOTH,
	 SET_CHOICE(optimizer, names_optimizer, 0)},
	{"train-framework", "megatron|fsdp|deepspeed",
	 "training framework (default: the site policy's, else megatron)",
	 OPT_BOTH, SET_CHOICE(framework, autosize_framework_names,
			      AUTOSIZE_FRAMEWORK_MEGATRON)},
	{"train-stack", "NAME", "software stack run: hf, torchtune, unsloth, "
	 "axolotl, llama-factory, torchtitan, llm-foundry, megatron, nemo, "
	 "megatron-deepspeed (doc/stacks.md; implies a framework)", OPT_BOTH,
	 SET_FUNC(options_stack)},
	{"activation-offload", "on|off", "checkpointed activations kept in "
	 "host memory (default: the stack's; torchtune, unsloth)", OPT_BOTH,
	 SET_FUNC(options_act_offload)},
	{"optimizer-offload", "on|off", "optimizer state kept in host memory "
	 "and streamed over PCIe each step (bitsandbytes paged optimizers, "
	 "DeepSpeed offload_optimizer, Megatron --optimizer-cpu-offload; "
	 "default off)", OPT_BOTH,
	 SET_FUNC(options_opt_offload)},
	{"param-offload", "on|off", "ZeRO-3 parameter shards, gradients and "
	 "optimizer state kept in host memory, each shard copied in over "
	 "PCIe every pass (FSDP CPU offload, DeepSpeed offload_param; "
	 "default off)", OPT_BOTH, SET_FUNC(options_param_offload)},
	{"grad-reduce", "fp32|bf16", "gradient reduction precision (default: "
	 "the framework's; bf16: NeMo grad_sync_dtype, Composer PURE)",
	 OPT_BOTH, SET_FUNC(options_grad_reduce)},
	{"moe-overlap", "on|off", "MoE all-to-all hidden behind another "
	 "micro-batch (Megatron-Core --overlap-moe-expert-parallel-comm, "
	 "DeepSeek DualPipe; off)",
	 OPT_BOTH, SET_ONOFF(moe_overlap)},
	{"moe-dispatcher", "alltoall|deepep|hybridep", "how MoE tokens reach "
	 "their experts: a copy per routed expert (alltoall), once a rank "
	 "inside a node and once a node across nodes (deepep), the same "
	 "over a multi-node NVLink domain (hybridep); Megatron-Core's flex "
	 "dispatcher backends (default: the stack's, else alltoall)",
	 OPT_BOTH, SET_CHOICE(moe_dispatcher, names_moe_dispatcher,
			      AUTOSIZE_MOE_DISPATCH_ALLTOALL)},
	{"autosize", "rewrite|warn|off|explain",
	 "size the job, only warn, leave it, or print the plan and stop",
	 AUTOSIZE_OPT_SPANK,
	 SET_CHOICE(job_mode, names_job_mode, AUTOSIZE_JOB_REWRITE)},
	{"autosize-chain", "on|off", "a run longer than the partition's "
	 "time limit as chained jobs that resume from checkpoints (on; "
	 "sbatch only)", OPT_BOTH, SET_ONOFF(chain)},
	{"partition", "NAME", "partition from the site policy",
	 AUTOSIZE_OPT_CLI, SET_STRING(partition)},
	{"gpu", "TYPE", "GPU type without a partition (h100, a100-80gb)",
	 AUTOSIZE_OPT_CLI, SET_STRING(gpu)},
	{"gpus-per-node", "N", "GPUs per node", AUTOSIZE_OPT_CLI,
	 SET_INT(gpus_per_node, 1, 64)},
	{"gpus", "N", "fix the GPU count", AUTOSIZE_OPT_CLI,
	 SET_INT(gpus, 1, 1000000)},
	{"nodes", "N", "fix the node count", AUTOSIZE_OPT_CLI,
	 SET_INT(nodes, 1, 100000)},
	{"segment", "N", "the job's own sbatch --segment: nodes per "
	 "segment inside one NVLink domain", AUTOSIZE_OPT_CLI,
	 SET_INT(segment_nodes, 1, 65533)},
	{"network", "ib|roce|ethernet[:GBPS]",
	 "network between nodes, Gb/s per node", AUTOSIZE_OPT_CLI,
	 SET_FUNC(options_network)},
	{"tp", "N", "pin tensor parallel size", AUTOSIZE_OPT_CLI,
	 SET_INT(tp, 1, 1024)},
	{"pp", "N", "pin pipeline parallel size", AUTOSIZE_OPT_CLI,
	 SET_INT(pp, 1, 1024)},
	{"dp", "N", "pin data parallel size", AUTOSIZE_OPT_CLI,
	 SET_INT(dp, 1, 1000000)},
	{"zero", "0-3", "pin ZeRO stage", AUTOSIZE_OPT_CLI,
	 SET_INT(zero_stage, 0, 3)},
	{"recompute", "none|selective|full|selective-mlp",
	 "pin activation recomputation", AUTOSIZE_OPT_CLI,
	 SET_CHOICE(recompute, names_recompute, 0)},
	{"recompute-layers", "N", "pin Megatron's block recomputation: "
	 "the first N layers of each (virtual) pipeline stage recomputed "
	 "in full, the rest kept", AUTOSIZE_OPT_CLI,
	 SET_INT(recompute_layers, 1, AUTOSIZE_MAX_LAYERS)},
	{"micro-batch", "N", "pin micro-batch size", AUTOSIZE_OPT_CLI,
	 SET_INT(micro_batch, 1, 65536)},
	{"sequence-parallel", "on|off", "sequence parallelism with TP (on)",
	 AUTOSIZE_OPT_CLI, SET_ONOFF(sequence_parallel)},
	{"interleave", "N", "virtual pipeline stages per rank (1)",
	 AUTOSIZE_OPT_CLI, SET_INT(interleave, 1, 64)},
	{"cp", "N", "pin context parallel size (long sequences)",
	 AUTOSIZE_OPT_CLI, SET_INT(cp, 1, 1024)},
	{"ep", "N", "pin expert parallel size (MoE)", AUTOSIZE_OPT_CLI,
	 SET_INT(ep, 1, 4096)},
	{"etp", "N", "pin expert tensor parallel size (MoE, Megatron): 1, "
	 "or the TP size", AUTOSIZE_OPT_CLI, SET_INT(etp, 1, 1024)},
	{"flash-attention", "on|off", "FlashAttention kernels (on)",
	 AUTOSIZE_OPT_CLI, SET_ONOFF(flash_attention)},
	{"moe-balanced", "on|off", "MoE routing forced even over the "
	 "experts, as benchmarks run it (off: the busiest expert at 1.25x "
	 "the mean)", AUTOSIZE_OPT_CLI, SET_ONOFF(moe_balanced)},
	{"mfu", "F", "plan at a fixed utilization (0.4)", AUTOSIZE_OPT_CLI,
	 SET_FRACTION(mfu, 0.01, 1)},
	{"memory-reserve", "F", "GPU memory kept free (default 0.20)",
	 AUTOSIZE_OPT_CLI, SET_FRACTION(memory_reserve, 0, 0.9)},
	{"time-reserve", "F", "extra wall time (default 0.15)",
	 AUTOSIZE_OPT_CLI, SET_FRACTION(time_reserve, 0, 10)},
	{NULL, NULL, NULL, 0, NULL}
};

const autosize_option *autosize_options(void)
{
	return options_table;
}

const char *const *autosize_option_choices(const autosize_option *o)
{
	if (!o || !o->setter)
		return NULL;
	if (o->setter->kind == OPTIONS_ONOFF)
		return names_onoff;
	return o->setter->kind == OPTIONS_CHOICE ? o->setter->names : NULL;
}

/* value is one of row s's other words: *k is the index of its name. */
static int options_alias(const struct autosize_option_setter *s,
			 const char *value, int *k)
{
	int i, j;

	for (i = 0; s->aliases && s->aliases[i]; i += 2)
		if (strcasecmp(value, s->aliases[i]) == 0)
			for (j = 0; s->names[j]; j++)
				if (strcmp(s->names[j],
					   s->aliases[i + 1]) == 0) {
					*k = j;
					return 1;
				}
	return 0;
}

/* Read value as row s says and store it in r. */
static autosize_err options_apply(autosize_request *r,
				  const struct autosize_option_setter *s,
				  const char *value, const char *what,
				  autosize_error *e)
{
	char *field = (char *)r + s->off;
	long v;
	int k;
	autosize_err rc;

	if (s->arch)
		r->arch_given = 1;
	switch (s->kind) {
	case OPTIONS_INT:
		rc = autosize_parse_int(value, what, (long)s->lo, (long)s->hi,
					&v, e);
		if (rc == AUTOSIZE_OK)
			*(int *)field = (int)v;
		return rc;
	case OPTIONS_FRACTION:
		return autosize_parse_fraction(value, what, s->lo, s->hi,
					       (double *)field, e);
	case OPTIONS_COUNT:
		return autosize_parse_count(value, what, (double *)field, e);
	case OPTIONS_STRING:
		return options_copy(field, s->size, value, what, e);
	case OPTIONS_CHOICE:
		rc = autosize_parse_choice(value, what, s->names, &k, e);
		if (rc != AUTOSIZE_OK && options_alias(s, value, &k))
			rc = AUTOSIZE_OK;
		if (rc == AUTOSIZE_OK)
			*(int *)field = s->base + k;
		return rc;
	case OPTIONS_ONOFF:
		rc = autosize_parse_choice(value, what, names_onoff,
					   &k, e);
		if (rc == AUTOSIZE_OK)
			*(int *)field = k % 2;
		return rc;
	case OPTIONS_FUNC:
		return s->fn(r, value, what, e);
	}
	return autosize_fail(e, AUTOSIZE_EINTERNAL, "%s: no reader", what);
}

const autosize_option *autosize_option_find(const char *name)
{
	const autosize_option *o;

	for (o = options_table; name && o->name; o++)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

void autosize_request_init(autosize_request *r)
{
	memset(r, 0, sizeof(*r));
	autosize_model_init(&r->model);
	r->train_mode = AUTOSIZE_TRAIN_PRETRAIN;
	r->precision = AUTOSIZE_PREC_BF16;
	r->optimizer = AUTOSIZE_OPT_ADAMW;
	r->grad_reduce_b = AUTOSIZE_UNSET;
	r->lora_rank = AUTOSIZE_UNSET;
	r->seq_len = AUTOSIZE_UNSET;
	r->global_batch = AUTOSIZE_UNSET;
	r->gpus_per_node = AUTOSIZE_UNSET;
	r->gpus = AUTOSIZE_UNSET;
	r->nodes = AUTOSIZE_UNSET;
	r->segment_nodes = AUTOSIZE_UNSET;
	r->tp = r->pp = r->dp = AUTOSIZE_UNSET;
	r->zero_stage = r->micro_batch = AUTOSIZE_UNSET;
	r->recompute = AUTOSIZE_UNSET;
	r->recompute_layers = AUTOSIZE_UNSET;
	r->sequence_parallel = AUTOSIZE_UNSET;
	r->interleave = AUTOSIZE_UNSET;
	r->cp = r->ep = r->etp = AUTOSIZE_UNSET;
	r->flash_attention = AUTOSIZE_UNSET;
	r->memory_reserve = -1;
	r->time_reserve = -1;
	r->chain = AUTOSIZE_UNSET;
}

autosize_err autosize_request_set(autosize_request *r, const char *name,
				  const char *value, autosize_error *e)
{
	const autosize_option *o;
	char what[48];

	if (!name || !value)
		return autosize_fail(e, AUTOSIZE_EINVAL, "missing option value");
	snprintf(what, sizeof(what), "--%.40s", name);
	if (!(o = autosize_option_find(name)))
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "unknown option '%s' (see autosize plan "
				     "--help)", what);
	return options_apply(r, o->setter, value, what, e);
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

/* Stacks that run DeepSpeed besides their own FSDP (perf.yaml): the HF
 * Trainer and accelerate take --deepspeed (transformers' DeepSpeed
 * integration), and so do axolotl's and LLaMA-Factory's configs. */
static const char *const options_stacks_deepspeed[] = {"hf", "axolotl",
	"llama-factory", NULL};
/* Stacks without LoRA or QLoRA: they train every weight (Megatron-LM's
 * and Megatron-DeepSpeed's training scripts have no PEFT adapters; NeMo
 * is the LoRA over Megatron). */
static const char *const options_stacks_no_peft[] = {"megatron",
	"megatron-deepspeed", NULL};

/* Options that ask for two things at once: one line naming both. */
static autosize_err options_contradictions(const autosize_request *r,
					   autosize_error *e)
{
	const perfdata_stack *st = r->stack[0]
		? perfdata_stack_find(perfdata_default(), r->stack) : NULL;
	int peft = r->train_mode == AUTOSIZE_TRAIN_LORA ||
		   r->train_mode == AUTOSIZE_TRAIN_QLORA;
	int ds;

	if (st && r->framework != AUTOSIZE_FRAMEWORK_DEFAULT &&
	    r->framework != st->framework) {
		ds = autosize_word_in(st->name, options_stacks_deepspeed);
		if (!(ds && r->framework == AUTOSIZE_FRAMEWORK_DEEPSPEED))
			return autosize_fail(e, AUTOSIZE_EINVAL,
					     "--train-stack %s runs %s%s, not "
					     "--train-framework %s: drop one "
					     "of them", st->name,
					     autosize_framework_name(
						st->framework),
					     ds ? " or deepspeed" : "",
					     autosize_framework_name(
						r->framework));
	}
	if (st && peft && autosize_word_in(st->name, options_stacks_no_peft))
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--train-mode %s: --train-stack %s "
				     "trains every weight (no LoRA adapters); "
				     "use --train-stack=nemo, hf, "
				     "torchtune, axolotl or unsloth, or "
				     "--train-mode=finetune",
				     autosize_train_mode_name(r->train_mode),
				     st->name);
	if (r->lora_rank != AUTOSIZE_UNSET && !peft)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--lora-rank %d: --train-mode %s trains "
				     "no adapters; use --train-mode=lora or "
				     "qlora, or drop --lora-rank",
				     r->lora_rank,
				     autosize_train_mode_name(r->train_mode));
	if (r->recompute_layers != AUTOSIZE_UNSET &&
	    r->recompute != AUTOSIZE_UNSET &&
	    r->recompute != AUTOSIZE_RECOMPUTE_FULL)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--recompute-layers %d recomputes whole "
				     "layers, not --recompute %s: use "
				     "--recompute=full or drop one of them",
				     r->recompute_layers,
				     autosize_recompute_name(
					(autosize_recompute)r->recompute));
	if (r->param_offload == 1 && r->opt_offload == 2)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--param-offload on keeps the optimizer "
				     "state in host memory with the "
				     "parameters, not --optimizer-offload "
				     "off: drop one of them");
	return AUTOSIZE_OK;
}

/* --train-tokens-done is part of --train-tokens, short of all of it;
 * --eval-tokens is timed beside the training tokens. */
static autosize_err options_tokens_done(const autosize_request *r,
					autosize_error *e)
{
	if (r->eval_tokens > 0 && !(r->tokens > 0))
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--eval-tokens needs --train-tokens (the "
				     "run's time is planned from both; %.4g "
				     "evaluated tokens alone have no run to "
				     "time)", r->eval_tokens);
	if (!(r->tokens_done > 0))
		return AUTOSIZE_OK;
	if (!(r->tokens > 0))
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--train-tokens-done needs --train-tokens "
				     "(the whole run's tokens, of which %.4g "
				     "are done)", r->tokens_done);
	if (r->tokens_done >= r->tokens)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "--train-tokens-done %.4g is not less "
				     "than --train-tokens %.4g: the run is "
				     "done, nothing is left to plan",
				     r->tokens_done, r->tokens);
	return AUTOSIZE_OK;
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
	if ((rc = options_contradictions(r, e)))
		return rc;
	if ((rc = options_tokens_done(r, e)))
		return rc;
	/* a count of layers recomputed is full recomputation's */
	if (r->recompute_layers != AUTOSIZE_UNSET)
		r->recompute = AUTOSIZE_RECOMPUTE_FULL;
	if (!r->model_spec[0] && !r->arch_given && r->model.has_arch) {
		/* resolved already: AUTOSIZE_MODEL decoded in slurmctld */
	} else if (r->model_spec[0]) {
		rc = autosize_model_resolve(r->model_spec, r->model_local, m,
					    e);
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
				     "70e9) or --model (a preset, a folder "
				     "or config.json, a Hugging Face id)");
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
