/*
 * What the tasks of a job get, through the launchers' own parsers: a table
 * of plans (every framework and stack, one GPU to several nodes, FP8,
 * offloads, MoE with EP, CP, interleaving, LoRA and QLoRA), each laid out
 * as the SPANK plugin lays out a running step (first node, port, run id,
 * this node's rank, the DeepSpeed JSON written to a file), then checked
 * by tests/launchers/check.py with the real parsers and start-up checks
 * of torchrun, accelerate, the Hugging Face Trainer, torchtune, Megatron-
 * LM, DeepSpeed and two torchtitan releases, from
 * ../shared/launchers/launcher-sources.tar.xz (unpacked once into
 * build/launchers, or $AUTOSIZE_LAUNCHERS_CACHE). Each value they read back must be the plan's: degrees,
 * micro-batch and accumulation, precision, sharding, offloads, steps.
 * check.py also feeds each tool a copy of a plan with one value made wrong
 * and fails unless the tool catches it.
 *
 * What is stubbed (stand-in modules: torch where a newer one than
 * Debian's is imported, the GPU packages, a few runtime-only modules;
 * spawning processes) is listed per tool in tests/launchers/README.md and
 * at the top of each tests/launchers/tool_*.py.
 *
 * Skipped with one line without ../shared or python3; a tool whose Python
 * packages are missing is skipped by check.py with one line.
 */
#include <limits.h>
#include <sys/wait.h>
#include "testutil.h"
#include "autosize.h"

#define JOB_ID 4242UL
#define NODELIST "gpu[07-22]"

/* One plan of the table: its request, and what a user's script names
 * besides the exported values (torchtune's model config, torchtitan's
 * config function). */
typedef struct plan_case {
	const char *name;
	const char *opts[32]; /* request option, value pairs; NULL ends */
	const char *tune;     /* torchtune config family ("llama3_1/8B"),
			       * then any override the user adds to that
			       * config (the TP plan of one without) */
	const char *titan;    /* torchtitan module/config function */
} plan_case;

/* The plans of the table that are a job of a chained run, laid out as
 * its step lays it out from the job's record (spank_remote.c): the jobs
 * queued, this one's place, each one's limit (minutes). */
static const struct {
	const char *name;
	int jobs, index;
	long limit_min;
} chained[] = {
	{"megatron-70b-chain-2-of-3", 3, 2, 720},
	{"megatron-8b-resumed-chain", 2, 1, 2880},
	{"hf-8b-resumed-chain", 4, 3, 720},
	{"torchtitan-8b-chain-4-of-4", 4, 4, 720},
};

static const plan_case cases[] = {
	/* Megatron-LM */
	{"megatron-70b-tp8-pp2", {"model", "llama-3-70b", "gpu", "h100",
	 "gpus", "32", "tp", "8", "pp", "2", "train-tokens", "2e9"},
	 NULL, NULL},
	{"megatron-1b-1gpu", {"model", "llama-3.2-1b", "gpu", "h100", "gpus",
	 "1", "train-tokens", "1e8"}, NULL, NULL},
	{"megatron-70b-fp8-64", {"model", "llama-3-70b", "gpu", "h100",
	 "gpus", "64", "train-precision", "fp8", "train-tokens", "1e10"},
	 NULL, NULL},
	{"megatron-70b-nvfp4-64", {"model", "llama-3-70b", "gpu", "b200",
	 "gpus", "64", "train-precision", "nvfp4", "train-tokens", "1e10"},
	 NULL, NULL},
	{"megatron-8b-cp4", {"model", "llama-3.1-8b", "gpu", "h100", "gpus",
	 "16", "train-seq-len", "65536", "cp", "4", "tp", "2",
	 "train-batch", "16", "train-tokens", "1e9"}, NULL, NULL},
	/* the output head balanced: 8, 9, 9 and 6 layers */
	{"megatron-8b-pp4-head", {"model", "llama-3-8b", "gpu", "h100",
	 "gpus", "32", "tp", "1", "pp", "4", "train-tokens", "1e9"},
	 NULL, NULL},
	{"megatron-70b-interleaved", {"model", "llama-3-70b", "gpu", "h100",
	 "gpus", "32", "tp", "4", "pp", "4", "interleave", "2",
	 "train-tokens", "1e9"}, NULL, NULL},
	/* whole experts with EP inside DP: --expert-tensor-parallel-size 1
	 * where Megatron's default would split them over TP */
	{"megatron-mixtral-etp1", {"model", "mixtral-8x7b", "gpu", "h100",
	 "gpus", "32", "tp", "2", "ep", "8", "etp", "1", "train-tokens",
	 "1e9"}, NULL, NULL},
	{"megatron-mixtral-ep8", {"model", "mixtral-8x7b", "gpu", "h100",
	 "gpus", "16", "ep", "8", "tp", "2", "train-tokens", "1e9"},
	 NULL, NULL},
	{"megatron-mixtral-overlap", {"model", "mixtral-8x22b", "gpu",
	 "h100", "gpus", "64", "ep", "8", "tp", "2", "pp", "4",
	 "moe-overlap", "on", "train-tokens", "1e9"}, NULL, NULL},
	/* the overlap's line where Megatron-LM's checks bite: one stage
	 * (combined 1F1B without a pipeline), selective recompute with
	 * the MLP, FP8, Megatron-FSDP (ZeRO-3) with --delay-wgrad-compute;
	 * and beside TP and CP (CUDA_DEVICE_MAX_CONNECTIONS 32, a warning
	 * below Blackwell, not the assertion) */
	{"megatron-moe-overlap-fsdp-fp8", {"model", "mixtral-8x7b", "gpu",
	 "h100", "gpus", "32", "ep", "8", "tp", "1", "pp", "1",
	 "train-precision", "fp8", "recompute", "selective-mlp",
	 "moe-overlap", "on", "train-tokens", "1e9"}, NULL, NULL},
	/* FP8 and NVFP4 parameters (--fp8-param-gather,
	 * --fp4-param-gather) with the distributed optimizer, read back
	 * after validate_args (which turns them off in some setups): the
	 * overlap at ZeRO-1, and NVFP4 experts over EP with interleaving;
	 * FP8 at ZeRO-0 (data parallel 1) keeps 16-bit parameters */
	{"megatron-moe-overlap-fp8-zero1", {"model", "mixtral-8x7b", "gpu",
	 "h100", "gpus", "32", "ep", "8", "tp", "2", "pp", "1", "zero", "1",
	 "train-precision", "fp8", "moe-overlap", "on", "train-tokens",
	 "1e9"}, NULL, NULL},
	{"megatron-moe-nvfp4-interleaved", {"model", "mixtral-8x7b", "gpu",
	 "b200", "gpus", "32", "ep", "8", "tp", "2", "pp", "2",
	 "interleave", "2", "train-precision", "nvfp4", "train-tokens",
	 "1e9"}, NULL, NULL},
	{"megatron-8b-fp8-zero0", {"model", "llama-3.1-8b", "gpu", "h100",
	 "gpus", "8", "tp", "8", "train-precision", "fp8", "train-tokens",
	 "1e9"}, NULL, NULL},
	/* the flex dispatcher's backends (Megatron-Core's
	 * moe_flex_dispatcher_backend): DeepEP on one node beside TP and
	 * the overlap, HybridEP over a GB200 NVLink domain */
	{"megatron-moe-deepep", {"model", "mixtral-8x7b", "gpu", "h100",
	 "gpus", "16", "ep", "8", "tp", "2", "pp", "2", "interleave", "2",
	 "moe-dispatcher", "deepep", "moe-overlap", "on", "train-tokens",
	 "1e9"}, NULL, NULL},
	{"megatron-moe-hybridep-gb200", {"model", "qwen3-30b-a3b", "gpu",
	 "gb200", "gpus", "32", "ep", "32", "moe-dispatcher", "hybridep",
	 "train-tokens", "1e9"}, NULL, NULL},
	{"megatron-moe-overlap-cp", {"model", "mixtral-8x7b", "gpu", "h100",
	 "gpus", "32", "ep", "8", "tp", "2", "cp", "2", "train-seq-len",
	 "32768", "train-batch", "64", "moe-overlap", "on", "train-tokens",
	 "1e9"}, NULL, NULL},
	{"megatron-fsdp-8b", {"model", "llama-3.1-8b", "gpu", "h100", "gpus",
	 "16", "train-framework", "megatron", "zero", "3", "tp", "1",
	 "train-tokens", "1e9"}, NULL, NULL},
	{"megatron-70b-optimizer-offload", {"model", "llama-3-70b", "gpu",
	 "h100", "gpus", "8", "train-framework", "megatron",
	 "optimizer-offload", "on", "train-tokens", "1e9"}, NULL, NULL},
	{"megatron-v100-fp16", {"model", "llama-2-7b", "gpu", "v100-32gb",
	 "gpus", "32", "train-precision", "fp16", "train-tokens", "1e9"},
	 NULL, NULL},
	{"megatron-b200-tp", {"model", "llama-3.1-70b", "gpu", "b200",
	 "gpus", "16", "tp", "8", "train-tokens", "1e9"}, NULL, NULL},
	{"megatron-selective-mlp", {"model", "llama-3-70b", "gpu", "h100",
	 "gpus", "32", "tp", "8", "recompute", "selective-mlp",
	 "train-tokens", "1e9"}, NULL, NULL},
	{"megatron-lora-note", {"model", "llama-3.1-8b", "gpu", "h100",
	 "gpus", "8", "train-framework", "megatron", "train-mode", "lora",
	 "train-tokens", "1e8"}, NULL, NULL},
	/* FSDP: torchtitan */
	{"torchtitan-8b-zero3", {"model", "llama-3.1-8b", "gpu", "h100",
	 "gpus", "8", "train-stack", "torchtitan", "zero", "3",
	 "train-tokens", "1e9"}, "llama3_1/8B", "llama3/llama3_8b"},
	{"torchtitan-70b-2d", {"model", "llama-3-70b", "gpu", "h100", "gpus",
	 "64", "train-stack", "torchtitan", "tp", "8", "train-tokens",
	 "1e10"}, "llama3/70B", "llama3/llama3_70b"},
	{"torchtitan-70b-3d", {"model", "llama-3-70b", "gpu", "h100", "gpus",
	 "64", "train-stack", "torchtitan", "tp", "4", "pp", "4",
	 "train-tokens", "1e10"}, NULL, "llama3/llama3_70b"},
	{"torchtitan-interleaved", {"model", "llama-3-70b", "gpu", "h100",
	 "gpus", "64", "train-stack", "torchtitan", "tp", "8", "pp", "2",
	 "interleave", "2", "train-tokens", "1e9"}, NULL,
	 "llama3/llama3_70b"},
	{"torchtitan-cp", {"model", "llama-3.1-8b", "gpu", "h100", "gpus",
	 "16", "train-stack", "torchtitan", "train-seq-len", "65536", "cp",
	 "4", "train-batch", "16", "train-tokens", "1e9"},
	 "llama3_1/8B tensor_parallel_plan._component_="
	 "torchtune.models.llama3.base_llama_tp_plan", "llama3/llama3_8b"},
	{"torchtitan-mixtral-ep", {"model", "mixtral-8x7b", "gpu", "h100",
	 "gpus", "16", "train-stack", "torchtitan", "ep", "8",
	 "train-tokens", "1e9"}, NULL, "deepseek_v3/deepseek_v3_16b"},
	{"torchtitan-fp8", {"model", "llama-3.1-8b", "gpu", "h100", "gpus",
	 "16", "train-stack", "torchtitan", "train-precision", "fp8",
	 "train-tokens", "1e9"}, "llama3_1/8B", "llama3/llama3_405b"},
	{"torchtitan-zero2", {"model", "llama-3.1-8b", "gpu", "h100", "gpus",
	 "8", "train-framework", "fsdp", "zero", "2", "train-tokens",
	 "1e9"}, "llama3_1/8B", "llama3/llama3_8b"},
	{"torchtitan-ddp-a100", {"model", "llama-3.2-1b", "gpu", "a100-80gb",
	 "gpus", "16", "train-framework", "fsdp", "zero", "0",
	 "train-tokens", "1e9"}, "llama3_2/1B", "llama3/llama3_8b"},
	/* DeepSpeed */
	{"deepspeed-zero3-offload-16", {"model", "llama-3.1-70b", "gpu",
	 "h100", "gpus", "16", "train-framework", "deepspeed",
	 "train-mode", "finetune", "param-offload", "on", "train-tokens",
	 "1e8"}, NULL, NULL},
	{"deepspeed-zero-offload-1gpu", {"model", "llama-3.2-1b", "gpu",
	 "rtx-4090", "gpus", "1", "train-framework", "deepspeed",
	 "train-mode", "finetune", "optimizer-offload", "on",
	 "train-tokens", "1e7"}, NULL, NULL},
	{"deepspeed-zero1-8", {"model", "llama-3.2-1b", "gpu", "a100-80gb", "gpus",
	 "8", "train-framework", "deepspeed", "zero", "1", "train-tokens",
	 "1e9"}, NULL, NULL},
	{"deepspeed-mixtral-ep4", {"model", "mixtral-8x7b", "gpu", "h100",
	 "gpus", "32", "train-framework", "deepspeed", "ep", "4",
	 "train-tokens", "1e9"}, NULL, NULL},
	{"megatron-deepspeed-tp-pp", {"model", "llama-2-13b", "gpu", "a100-80gb",
	 "gpus", "32", "train-stack", "megatron-deepspeed", "tp", "4", "pp",
	 "2", "train-tokens", "1e9"}, NULL, NULL},
	{"deepspeed-v100-fp16", {"model", "llama-2-7b", "gpu", "v100-32gb",
	 "gpus", "16", "train-framework", "deepspeed", "train-mode", "lora",
	 "train-precision", "fp16", "train-tokens", "1e8"}, NULL, NULL},
	{"deepspeed-hf-fp8", {"model", "llama-3.1-8b", "gpu", "h100", "gpus",
	 "8", "train-stack", "hf", "train-framework", "deepspeed",
	 "train-mode", "lora", "train-precision", "fp8", "train-tokens",
	 "1e8"}, NULL, NULL},
	/* the fine-tuning stacks */
	{"hf-lora-8", {"model", "llama-3.1-8b", "gpu", "h100", "gpus", "8",
	 "train-stack", "hf", "train-mode", "lora", "train-seq-len", "2048",
	 "train-tokens", "1e9"}, "llama3_1/8B", NULL},
	{"hf-finetune-16-h100", {"model", "llama-3.1-8b", "gpu", "h100",
	 "gpus", "16", "train-stack", "hf", "train-mode", "finetune",
	 "train-tokens", "1e9"}, "llama3_1/8B", NULL},
	{"axolotl-qlora-16-a100", {"model", "llama-3.1-70b", "gpu", "a100-80gb",
	 "gpus", "16", "train-stack", "axolotl", "train-mode", "qlora",
	 "train-tokens", "1e8"}, "llama3_1/70B", NULL},
	{"hf-fp8-8", {"model", "llama-3.1-8b", "gpu", "h100", "gpus", "8",
	 "train-stack", "hf", "train-mode", "lora", "train-precision", "fp8",
	 "train-tokens", "1e9"}, "llama3_1/8B", NULL},
	{"hf-nvfp4-8", {"model", "llama-3.1-8b", "gpu", "b200", "gpus", "8",
	 "train-stack", "hf", "train-mode", "lora", "train-precision",
	 "nvfp4", "train-tokens", "1e9"}, "llama3_1/8B", NULL},
	{"hf-v100-fp16", {"model", "llama-2-7b", "gpu", "v100-32gb", "gpus",
	 "8", "train-stack", "hf", "train-mode", "lora", "train-precision",
	 "fp16", "train-tokens", "1e8"}, NULL, NULL},
	{"torchtune-lora-1gpu", {"model", "llama-3.1-8b", "gpu", "l40s",
	 "gpus", "1", "train-stack", "torchtune", "train-mode", "lora",
	 "train-seq-len", "2048", "train-tokens", "1e7"}, "llama3_1/8B",
	 NULL},
	{"torchtune-qlora-1gpu", {"model", "llama-3.1-8b", "gpu", "l40s",
	 "gpus", "1", "train-stack", "torchtune", "train-mode", "qlora",
	 "train-seq-len", "2048", "train-tokens", "1e7"}, "llama3_1/8B",
	 NULL},
	{"torchtune-full-zero2-8", {"model", "llama-3.1-8b", "gpu", "a100-80gb",
	 "gpus", "8", "train-stack", "torchtune", "train-mode", "finetune",
	 "zero", "2", "train-tokens", "1e8"}, "llama3_1/8B", NULL},
	{"torchtune-lora-fp8", {"model", "llama-3.1-8b", "gpu", "h100",
	 "gpus", "8", "train-stack", "torchtune", "train-mode", "lora",
	 "train-precision", "fp8", "train-tokens", "1e8"}, "llama3_1/8B",
	 NULL},
	{"torchtune-full-fp8-1gpu", {"model", "llama-3.2-1b", "gpu", "h100",
	 "gpus", "1", "train-stack", "torchtune", "train-mode", "finetune",
	 "train-precision", "fp8", "train-tokens", "1e8"}, "llama3_2/1B",
	 NULL},
	{"torchtune-70b-qlora-offload", {"model", "llama-2-70b", "gpu",
	 "rtx-4090", "gpus", "2", "train-stack", "torchtune", "train-mode",
	 "qlora", "param-offload", "on", "train-seq-len", "2048",
	 "train-tokens", "1e6"}, "llama2/70B", NULL},
	{"torchtune-lora-2-nodes", {"model", "llama-3.1-70b", "gpu", "h100",
	 "gpus", "16", "train-stack", "torchtune", "train-mode", "lora",
	 "train-tokens", "1e8"}, "llama3_1/70B", NULL},
	{"unsloth-1gpu", {"model", "llama-3.1-8b", "gpu", "l40s", "gpus", "1",
	 "train-stack", "unsloth", "train-mode", "qlora", "train-tokens",
	 "1e7"}, "llama3_1/8B", NULL},
	{"llama-factory-8", {"model", "qwen2.5-7b", "gpu", "a100-80gb", "gpus",
	 "8", "train-stack", "llama-factory", "train-mode", "lora",
	 "train-tokens", "1e8"}, "qwen2_5/7B", NULL},
	/* layouts of engine v4: FSDP2 with TP or CP (accelerate's
	 * ParallelismConfig), DeepSpeed-Ulysses, LoRA with TP (torchtitan's
	 * LoRAConverter: its one config function with it), TP above the
	 * KV heads, a pinned layout with no framework named */
	{"hf-lora-tp2-8", {"model", "llama-3.1-8b", "gpu", "h100", "gpus",
	 "8", "train-stack", "hf", "train-mode", "lora", "tp", "2",
	 "train-tokens", "1e9"}, "llama3_1/8B",
	 "llama3/llama3_debugmodel_float8_emulate_lora"},
	{"hf-lora-cp2-32k", {"model", "llama-3.1-8b", "gpu", "h100", "gpus",
	 "8", "train-stack", "hf", "train-mode", "lora", "cp", "2",
	 "train-seq-len", "32768", "train-tokens", "1e9"}, "llama3_1/8B",
	 "llama3/llama3_debugmodel_float8_emulate_lora"},
	/* 64 GPUs: on 32 the default batch needs accumulation, whose
	 * unsharded gradients (the Trainer's no_sync) do not fit */
	{"axolotl-70b-tp4-64", {"model", "llama-3.1-70b", "gpu", "h100",
	 "gpus", "64", "train-stack", "axolotl", "train-mode", "finetune",
	 "tp", "4", "train-tokens", "1e9"}, "llama3_1/70B",
	 "llama3/llama3_70b"},
	{"hf-ulysses-cp4-64k", {"model", "llama-3.1-8b", "gpu", "h100",
	 "gpus", "8", "train-stack", "hf", "train-framework", "deepspeed",
	 "train-mode", "lora", "cp", "4", "train-seq-len", "65536",
	 "train-tokens", "1e9"}, NULL, NULL},
	{"deepspeed-ulysses-cp4-64k-16", {"model", "llama-3.1-8b", "gpu",
	 "h100", "gpus", "16", "train-framework", "deepspeed", "tp", "1",
	 "cp", "4", "train-seq-len", "65536", "train-tokens", "1e9"},
	 NULL, NULL},
	{"fsdp-lora-tp2-2-nodes", {"model", "llama-3.1-8b", "gpu", "h100",
	 "gpus", "16", "train-mode", "lora", "tp", "2", "train-tokens",
	 "1e9"}, "llama3_1/8B",
	 "llama3/llama3_debugmodel_float8_emulate_lora"},
	{"megatron-mqa-48h-1kv-tp4", {"layers", "40", "hidden", "6144",
	 "heads", "48", "kv-heads", "1", "ffn", "24576", "mlp", "gelu",
	 "vocab", "49152", "gpu", "a100-80gb", "gpus", "32", "tp", "4",
	 "pp", "2", "train-framework", "megatron", "train-seq-len", "8192",
	 "train-tokens", "1e9"}, NULL, NULL},
	{"pinned-no-framework-pp2", {"model", "llama-3.1-8b", "gpu", "h100",
	 "gpus", "16", "zero", "3", "pp", "2", "train-tokens", "1e9"},
	 "llama3_1/8B", "llama3/llama3_8b"},
	/* chained runs (issue 31): every launcher's step count is the whole
	 * run's (they count on from their checkpoint), Megatron stops itself
	 * before the warning signal (--exit-duration-in-mins), a resumed run
	 * (--train-tokens-done) keeps the run's steps */
	{"megatron-70b-chain-2-of-3", {"model", "llama-3-70b", "gpu", "h100",
	 "gpus", "64", "train-tokens", "2e11"}, NULL, NULL},
	{"megatron-8b-resumed-chain", {"model", "llama-3.1-8b", "gpu", "h100",
	 "gpus", "8", "train-framework", "megatron", "train-tokens", "5e10",
	 "train-tokens-done", "4e10"}, NULL, NULL},
	{"hf-8b-resumed-chain", {"model", "llama-3.1-8b", "gpu", "h100",
	 "gpus", "8", "train-stack", "hf", "train-mode", "finetune",
	 "train-tokens", "1e10", "train-tokens-done", "6e9"}, "llama3_1/8B",
	 NULL},
	{"torchtitan-8b-chain-4-of-4", {"model", "llama-3.1-8b", "gpu", "h100",
	 "gpus", "16", "train-framework", "fsdp", "train-tokens", "3e10"},
	 "llama3_1/8B", "llama3/llama3_8b"},
};

static autosize_policy *pol;

static int setup(void **state)
{
	autosize_error e;

	pol = autosize_policy_default(&e);
	return pol ? 0 : -1;
}

static int teardown(void **state)
{
	autosize_policy_destroy(pol);
	return 0;
}

static const char *framework_word(autosize_framework f)
{
	switch (f) {
	case AUTOSIZE_FRAMEWORK_FSDP:
		return "fsdp";
	case AUTOSIZE_FRAMEWORK_DEEPSPEED:
		return "deepspeed";
	default:
		return "megatron";
	}
}

/* The plan as every tool must read it back, and the model a script
 * passes besides (JSON object). */
static void write_expect(FILE *f, const autosize_request *r,
			 const autosize_plan *p)
{
	const autosize_model *m = &r->model;
	char warnings[AUTOSIZE_MAX_WARNINGS * AUTOSIZE_WARNING_LEN];
	int i;

	fprintf(f, "{\"nodes\":%d,\"gpus_per_node\":%d,\"tp\":%d,\"pp\":%d,"
		"\"cp\":%d,\"dp\":%d,\"ep\":%d,\"vp\":%d,\"zero_stage\":%d,"
		"\"recompute\":\"%s\",\"micro_batch\":%d,\"grad_accum\":%d,"
		"\"global_batch\":%d,\"seq_len\":%d,\"tokens\":%.0f,"
		"\"exit_minutes\":%ld,\"job_steps\":%ld,"
		"\"framework\":\"%s\",\"precision\":\"%s\","
		"\"train_mode\":\"%s\",\"stack\":\"%s\",\"param_offload\":%d,"
		"\"opt_offload\":%d,\"act_offload\":%d,\"gpu\":\"%s\","
		"\"moe_dispatcher\":\"%s\",\"stage_layers\":[%d,%d,%d],"
		"\"etp\":%d,",
		p->nodes, p->gpus_per_node, p->tp, p->pp, p->cp > 1 ? p->cp : 1,
		p->dp, p->ep > 1 ? p->ep : 1, p->vp > 1 ? p->vp : 1,
		p->zero_stage, autosize_recompute_name(p->recompute),
		p->micro_batch, p->grad_accum, p->global_batch, p->seq_len,
		/* the run's: the launchers count their steps over it */
		p->tokens + p->tokens_done, autosize_launch_exit_minutes(p),
		autosize_launch_job_steps(p), framework_word(p->framework),
		autosize_precision_name(r->precision),
		autosize_train_mode_name(r->train_mode), r->stack,
		r->param_offload == 1, r->opt_offload == 1,
		r->act_offload == 1, p->part.gpu->name,
		autosize_moe_dispatcher_name(p->moe_dispatcher),
		p->stage_layers[0], p->stage_layers[1], p->stage_layers[2],
		p->etp);
	fprintf(f, "\"model\":{\"layers\":%d,\"hidden\":%d,\"heads\":%d,"
		"\"kv_heads\":%d,\"ffn\":%d,\"vocab\":%d,\"experts\":%d,"
		"\"experts_active\":%d,\"max_positions\":%d,\"mlp\":\"%s\"},",
		m->layers, m->hidden, m->heads,
		m->kv_heads > 0 ? m->kv_heads : m->heads, m->ffn, m->vocab,
		m->experts, m->experts_active, m->max_positions,
		m->mlp == AUTOSIZE_MLP_GELU ? "gelu" : "swiglu");
	warnings[0] = '\0';
	for (i = 0; i < p->n_warnings; i++)
		snprintf(warnings + strlen(warnings),
			 sizeof(warnings) - strlen(warnings), "%s%s",
			 i ? " | " : "", p->warnings[i]);
	/* the warnings as one string, quotes left out */
	for (i = 0; warnings[i]; i++)
		if (warnings[i] == '"' || warnings[i] == '\\')
			warnings[i] = '\'';
	fprintf(f, "\"warnings\":\"%s\"}", warnings);
}

/* text into path, unless text is "". */
static void write_file(const char *path, const char *text)
{
	FILE *f;

	if (!text[0])
		return;
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* One line of the plans file: plan c laid out on node rank of a step. */
static void write_record(FILE *f, const plan_case *c,
			 const autosize_request *r, const autosize_plan *p,
			 int rank, const char *dir, int index)
{
	static char json[16384];
	char host[64], ds[PATH_MAX + 32], acc[PATH_MAX + 32], run_id[32];
	autosize_launch_where w;
	autosize_launch l;
	const char *slash = c->titan ? strchr(c->titan, '/') : NULL;

	assert_true(autosize_launch_first_host(NODELIST, host,
					       sizeof(host)) > 0);
	snprintf(ds, sizeof(ds), "%s/deepspeed-%d.json", dir, index);
	snprintf(acc, sizeof(acc), "%s/accelerate-%d.yaml", dir, index);
	snprintf(run_id, sizeof(run_id), "%lu-batch", JOB_ID);
	w.host = p->nodes > 1 ? host : NULL;
	w.port = autosize_launch_rdzv_port(JOB_ID,
					   AUTOSIZE_LAUNCH_STEP_BATCH);
	w.run_id = run_id;
	w.node_rank = rank;
	w.deepspeed_config = ds;
	w.accelerate_config = acc;
	if (autosize_launch_build(r, p, &w, &l) != 0)
		fail_msg("%s: the launch values do not fit", c->name);
	/* the files the plugin writes for the step */
	write_file(ds, l.deepspeed);
	write_file(acc, l.accelerate_config);
	assert_true(autosize_launch_to_json(&l, json, sizeof(json)) > 0);
	fprintf(f, "{\"name\":\"%s\",\"expect\":", c->name);
	write_expect(f, r, p);
	fprintf(f, ",\"where\":{\"host\":\"%s\",\"port\":%d,\"run_id\":\"%s\","
		"\"node_rank\":%d,\"deepspeed_config\":\"%s\","
		"\"accelerate_config\":\"%s\"}", host, w.port, run_id, rank,
		ds, acc);
	fprintf(f, ",\"user\":{\"torchtune\":\"%s\",\"titan_module\":\"%.*s\","
		"\"titan_config\":\"%s\"}", c->tune ? c->tune : "",
		slash ? (int)(slash - c->titan) : 0, c->titan ? c->titan : "",
		slash ? slash + 1 : "");
	fprintf(f, ",\"launch\":%s}\n", json);
}

static void plan_one(const plan_case *c, autosize_request *r,
		     autosize_plan *p)
{
	autosize_error e;
	int i;

	autosize_request_init(r);
	for (i = 0; c->opts[i]; i += 2)
		if (autosize_request_set(r, c->opts[i], c->opts[i + 1], &e))
			fail_msg("%s: %s=%s: %s", c->name, c->opts[i],
				 c->opts[i + 1], e.msg);
	if (autosize_request_finish(r, &e) != AUTOSIZE_OK)
		fail_msg("%s: %s", c->name, e.msg);
	if (autosize_plan_compute(pol, r, p, &e) != AUTOSIZE_OK)
		fail_msg("%s: no plan: %s %s", c->name, e.msg, p->reason);
	for (i = 0; i < (int)(sizeof(chained) / sizeof(chained[0])); i++)
		if (strcmp(chained[i].name, c->name) == 0) {
			/* what the step takes from the job's record */
			p->chained_jobs = chained[i].jobs;
			p->chain_index = chained[i].index;
			p->time_limit_min = chained[i].limit_min;
			p->chain_job_tokens = p->tokens / chained[i].jobs;
			p->signal_s = autosize_plan_signal_lead(pol, p);
		}
}

/* Every plan of the table through every launcher's parser. */
static void test_parsers(void **state)
{
	const char *shared = test_shared_dir();
	const char *cache = getenv("AUTOSIZE_LAUNCHERS_CACHE");
	char tarball[512], dir[PATH_MAX], plans[PATH_MAX + 16];
	char cmd[3 * PATH_MAX], line[1024];
	static autosize_request r;
	static autosize_plan p;
	int status, records = 0, rank, i;
	FILE *f, *out;

	if (!shared)
		skip();
	snprintf(tarball, sizeof(tarball),
		 "%s/launchers/launcher-sources.tar.xz", shared);
	if (access(tarball, R_OK) != 0 ||
	    system("command -v python3 >/dev/null 2>&1") != 0) {
		printf("skip: %s or python3 missing: the launchers' parsers "
		       "are not run\n", tarball);
		skip();
	}
	/* the sources unpacked once for every build (build/asan, a Slurm's
	 * build folder) and the plans at a fixed place: the same plans, an
	 * unchanged check.py and sources make the same verdict, which
	 * check.py then keeps */
	if (!cache)
		cache = "build/launchers";
	snprintf(plans, sizeof(plans), "%s/run", cache);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", plans,
		 plans);
	assert_int_equal(system(cmd), 0);
	/* absolute, as the plugin writes the DeepSpeed JSON's path */
	assert_non_null(realpath(plans, dir));
	snprintf(plans, sizeof(plans), "%s/plans.jsonl", dir);
	f = fopen(plans, "w");
	assert_non_null(f);
	for (i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++) {
		plan_one(&cases[i], &r, &p);
		/* every node of two; the first and the last of more */
		for (rank = 0; rank < p.nodes; rank++) {
			if (rank > 0 && rank < p.nodes - 1 && p.nodes > 2)
				continue;
			write_record(f, &cases[i], &r, &p, rank, dir, records);
			records++;
		}
	}
	fclose(f);
	assert_true(sizeof(cases) / sizeof(cases[0]) >= 30);
	snprintf(cmd, sizeof(cmd), "python3 tests/launchers/check.py '%s' "
		 "'%s' '%s' 2>&1", tarball, cache, plans);
	out = popen(cmd, "r");
	assert_non_null(out);
	while (fgets(line, sizeof(line), out))
		fputs(line, stdout);
	status = pclose(out);
	printf("%d plans, %d records (one per node checked)\n",
	       (int)(sizeof(cases) / sizeof(cases[0])), records);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parsers),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
