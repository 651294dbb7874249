/*
 * autosize internal: performance parameters as data (etc/perf.yaml,
 * compiled in), per GPU generation and precision, resolved once per plan
 * into the numbers the step-time model (perf.c) and the collectives
 * (comm.c) read.
 */
#ifndef AUTOSIZE_PERFDATA_H
#define AUTOSIZE_PERFDATA_H

#include "autosize/catalog.h"
#include "autosize/plan.h"
#include "autosize/policy.h"

#define PERFDATA_NAME_MAX 16
#define PERFDATA_MAX_ENTRIES 12
#define PERFDATA_MAX_GPUS 12
#define PERFDATA_MAX_REGIMES 48
#define PERFDATA_MAX_STACKS 16

/* The numbers one plan uses. */
typedef struct perf_params {
	char entry[PERFDATA_NAME_MAX];      /* perf.yaml entry used */
	char generation[PERFDATA_NAME_MAX]; /* ampere, hopper, ... */
	int fallback;     /* 1: the GPU has no numbers of its own */
	double gemm_eff_max;       /* GEMM share of peak, large shapes */
	double gemm_half_dim;      /* GEMM dimension at half of that share */
	double attn_share;         /* attention kernels vs GEMM efficiency */
	double hbm_eff;            /* share of HBM bandwidth reached */
	double elementwise_bytes_per_h; /* per token, layer, hidden unit */
	double scores_bytes;       /* per token, layer, head x seq (unfused) */
	double layer_overhead_s;   /* per layer and micro-batch, fwd + bwd */
	double nvlink_eff;         /* NCCL bus bandwidth share of the link */
	double pcie_eff;
	double ib_eff;
	double roce_eff;
	double ethernet_eff;
	double intra_latency_s;    /* per collective step inside a node
				    * (NVLink, xGMI) */
	double pcie_latency_s;     /* per collective step over PCIe */
	double ib_latency_s;       /* per collective step across nodes */
	double roce_latency_s;
	double ethernet_latency_s;
	double fp8_gemm_speedup;   /* FP8 GEMM rate over BF16 */
	double fp8_gemm_share;     /* share of GEMM FLOPs run in FP8 (or
				    * NVFP4): the linear layers */
	double fp4_gemm_speedup;   /* NVFP4 GEMM rate over BF16, with its
				    * quantization; 0: no NVFP4 */
	double tp_overlap;         /* share of Megatron TP collectives hidden
				    * behind the GEMMs (sequence parallel) */
	double torch_eff;          /* share of Megatron-Core's GEMM and
				    * attention rate the PyTorch-native
				    * stacks reach (FSDP, DeepSpeed);
				    * optional, 1 when absent */
	double attn_half_seq;      /* sequence (per CP rank) at which
				    * FlashAttention kernels reach half
				    * their rate; optional, 0 (no length
				    * term) when absent */
	double torch_attn_eff;     /* share of Megatron-Core's attention rate
				    * PyTorch's own SDPA kernels reach
				    * (FlashAttention-2 against cuDNN /
				    * FlashAttention-3 class); optional, 0:
				    * torch_eff */
	double expert_host_s;      /* host time to issue one local expert's
				    * kernels per pass unit where the
				    * framework issues them one by one
				    * (perf.c perf_moe_host_s); optional,
				    * 200e-6 */
	double expert_fp8_host_s;  /* more of it under FP8 where the
				    * generation's recipe scales per tensor
				    * (an amax and a cast per expert GEMM
				    * input); optional, 0 */
	double expert_flex_host_cut; /* share of that issue the flex
				    * dispatchers (DeepEP, HybridEP) do
				    * not spend; optional, 0 */
	double host_adam_gbs;      /* GB/s of host memory a node's CPU
				    * optimizer step moves (DeepSpeed CPU
				    * Adam under offload_optimizer);
				    * optional, 0: not priced */
} perf_params;

/* Spread of log(real / predicted) time of one regime (perf.yaml
 * residuals:, from make validate). */
typedef struct perfdata_regime {
	char generation[PERFDATA_NAME_MAX];
	char framework[PERFDATA_NAME_MAX];
	char scale[PERFDATA_NAME_MAX];   /* gpus bucket: small, mid, large */
	int runs;
	double q_low;    /* lower 98% prediction bound of log(real /
			  * predicted) for a new run (tests/fit) */
	double q_high;   /* upper bound */
} perfdata_regime;

/* perfdata_stack.splits (perf.yaml stacks: splits: all|pinned|none) */
enum {
	PERFDATA_SPLITS_ALL = 0,    /* whatever its framework runs */
	PERFDATA_SPLITS_PINNED,     /* TP and CP where the request pins
				     * them (accelerate ParallelismConfig);
				     * the search keeps to data parallel */
	PERFDATA_SPLITS_NONE        /* data parallel only */
};

/* A software stack (perf.yaml stacks:): what the user names with
 * --train-stack, on top of the sharding engine (framework) it implies. */
typedef struct perfdata_stack {
	char name[24];
	autosize_framework framework; /* implied when none is given */
	int validated;       /* 0: no published runs checked: wide interval */
	double kernel_eff;   /* GEMM and attention rate over the engine's */
	double layer_overhead_s; /* host time per layer and micro-batch
				  * pass (eager Python modeling, adapters) */
	double dequant_eff;  /* share of HBM bandwidth a 4-bit base
			      * weight's dequantization reaches (QLoRA) */
	double logit_bytes;  /* bytes per logit at the loss; 0: engine's */
	double grad_reduce_bytes; /* gradient reduce precision under FSDP
				   * where the request states none; 0: the
				   * framework's */
	double moe_grad_reduce_bytes; /* the same for a MoE model; 0: as
				       * grad_reduce_bytes */
	int bf16_states;     /* 1: bf16 weights, grads and moments, no fp32
			      * master copy */
	int act_offload;     /* 1: checkpointed layer inputs kept in host
			      * memory */
	int splits;          /* PERFDATA_SPLITS_*: the model splits (TP,
			      * PP, CP, EP) the stack runs on top of its
			      * framework's data parallelism */
	int recompute_whole; /* 1 (recompute: full): recomputes whole
			      * layers or none, never a selection of ops
			      * (the HF Trainer's gradient_checkpointing,
			      * torchtune's enable_activation_checkpointing) */
	int expert_loop;     /* 1: MoE experts run in a Python loop
			      * (transformers' MoE blocks) */
	int te_kernels;      /* 1: Transformer Engine GEMM and attention
			      * kernels (no torch_eff) */
	int deepep;          /* 1: MoE dispatch sends a token once a rank
			      * (once a node across nodes), DeepEP */
	int grouped_experts; /* 1: the stack's model code runs the local
			      * experts as one grouped GEMM, whatever its
			      * framework's own MoE layer does */
	int experts_outside_fsdp; /* 1: routed experts that EP splits over
				   * all of dp x cp are not FSDP modules
				   * (no unsharded gradients held) */
	int accum_no_sync;   /* 1: under FSDP, no gradient reduction until
			      * a step's last micro-batch (the HF
			      * Trainer's no_sync): the gradients stay
			      * unsharded in between */
	double elementwise_factor; /* element-wise bytes over the engine's
				    * (eager, unfused modeling code and
				    * adapter dropout); 1: the engine's */
	double q_low, q_high; /* interval of log(real / predicted) time;
			       * both 0: the generation's regimes */
	int runs;            /* fit-half runs behind q_low/q_high */
	/* GPU generations its published runs were measured on; none: all */
	char validated_on[PERFDATA_MAX_ENTRIES][PERFDATA_NAME_MAX];
	int n_validated_on;
	/* by_generation: kernel_eff, layer_overhead_s and
	 * elementwise_factor of one GPU generation where it differs (an
	 * eager stack's kernels and host reach another share of a faster
	 * GPU); < 0: the stack's own */
	int n_by_gen;
	struct {
		char generation[PERFDATA_NAME_MAX];
		double kernel_eff, layer_overhead_s, elementwise_factor;
	} by_gen[PERFDATA_MAX_ENTRIES];
} perfdata_stack;

typedef struct perfdata_entry {
	perf_params p;
	char measured_on[PERFDATA_MAX_GPUS][AUTOSIZE_GPU_NAME_MAX];
	int n_measured;
	char members[PERFDATA_MAX_GPUS][AUTOSIZE_GPU_NAME_MAX];
	int n_members;
} perfdata_entry;

typedef struct perfdata_table {
	int n;
	perfdata_entry entries[PERFDATA_MAX_ENTRIES];
	int n_regimes;
	perfdata_regime regimes[PERFDATA_MAX_REGIMES];
	perfdata_regime pooled;     /* all runs together */
	char residuals_note[160];   /* date, run count, source */
	int n_stacks;
	perfdata_stack stacks[PERFDATA_MAX_STACKS];
	double run_efficiency;      /* whole_run: efficiency, 1 when absent */
	int run_efficiency_runs;    /* the fit-half runs behind it */
} perfdata_table;

/* 1 when st has published runs checked on GPU generation gen. */
int perfdata_stack_validated(const perfdata_stack *st, const char *gen);

/* st with the numbers of GPU generation gen (by_generation) into out. */
void perfdata_stack_for(const perfdata_stack *st, const char *gen,
			perfdata_stack *out);

/* The stack named name in t, or NULL. */
const perfdata_stack *perfdata_stack_find(const perfdata_table *t,
					  const char *name);

/* The stack names of t as "a|b|c" into buf (for messages). */
void perfdata_stack_names(const perfdata_table *t, char *buf, size_t len);

/*
 * Parse perf.yaml text into *t (no allocation kept). Strict: unknown keys,
 * missing numbers or sources, out-of-range values are errors naming the
 * line and key.
 */
autosize_err perfdata_parse(const char *text, size_t len, const char *what,
			    perfdata_table *t, autosize_error *e);

/* The table plans under policy p use: the site's `perf:` file, else the
 * compiled-in one (p may be NULL). Defined in policy.c. */
const perfdata_table *perfdata_for(const autosize_policy *p);

/* The compiled-in table (etc/perf.yaml), parsed once per process. Never
 * NULL: should the embedded file not parse, a table with the A100
 * calibration alone. */
const perfdata_table *perfdata_default(void);

/* Use t instead of the compiled-in table from now on (calibration tools;
 * not for threaded callers). NULL restores the compiled-in one. */
void perfdata_use(const perfdata_table *t);

/*
 * The parameters for gpu at precision: the entry measured on it, else
 * the entry listing it as a member, else the entry of the generation its
 * catalog figures suggest (out->fallback = 1 in both latter cases).
 */
void perfdata_resolve(const perfdata_table *t, const autosize_gpu *gpu,
		      autosize_precision prec, perf_params *out);

/* Runs a regime needs before its own spread is used instead of the
 * pooled one (fewer give quantiles that are mostly noise). */
#define PERFDATA_MIN_REGIME_RUNS 5

/* Scale bucket of a GPU count as the residuals name it: "small" (up to 64
 * GPUs), "mid" (up to 1024), "large". */
const char *perfdata_scale(int gpus);

/*
 * The residual spread for a plan's regime into *out: its own with at
 * least PERFDATA_MIN_REGIME_RUNS runs, else the pooled one (*pooled = 1).
 * Returns 0 when the table has no residuals (out zeroed).
 */
int perfdata_interval(const perfdata_table *t, const char *generation,
		      autosize_framework framework, int gpus,
		      perfdata_regime *out, int *pooled);

/* The A100 calibration (the ampere entry as compiled), for jobs built
 * without a resolved table (unit tests). */
const perf_params *perfdata_ampere_builtin(void);

#endif
