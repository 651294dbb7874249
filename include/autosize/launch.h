/*
 * autosize: what a job is told about its plan: a one-line summary, a
 * report, and the arguments of the common launchers (torchrun, Megatron-LM,
 * DeepSpeed). Pure string formatting: used by the SPANK plugin on compute
 * nodes and usable by the CLI.
 *
 * Every function writes a NUL-terminated string into buf (len bytes) and
 * returns its length, or -1 when it does not fit or an argument is invalid
 * (buf then holds "" when len > 0). Nothing is allocated.
 */
#ifndef AUTOSIZE_LAUNCH_H
#define AUTOSIZE_LAUNCH_H

#include <stddef.h>
#include "autosize/plan.h"

/*
 * The rendezvous port of a step: AUTOSIZE_LAUNCH_PORT_BASE + (job id mod
 * 256) x 8 + a slot for the step (0 for the batch or interactive step, 1
 * + step mod 7 for numbered steps): 29500-31547, above the privileged
 * ports, below Linux's default ephemeral range (32768-60999) and clear
 * of Slurm's own (6817-6819). Two steps on one first node get the same
 * port only when their job ids differ by a multiple of 256 or their step
 * numbers by a multiple of 7.
 */
#define AUTOSIZE_LAUNCH_PORT_BASE 29500
#define AUTOSIZE_LAUNCH_PORT_JOBS 256
#define AUTOSIZE_LAUNCH_PORT_SLOTS 8
/* Longest host name accepted (RFC 1035 full name). */
#define AUTOSIZE_LAUNCH_HOST_MAX 255
/* Slurm's step ids of the batch and interactive steps (slurm.h). */
#define AUTOSIZE_LAUNCH_STEP_BATCH 0xfffffffbU
#define AUTOSIZE_LAUNCH_STEP_INTERACTIVE 0xfffffffaU

#define AUTOSIZE_LAUNCH_TORCHRUN_MAX 512
#define AUTOSIZE_LAUNCH_MEGATRON_MAX 1024
#define AUTOSIZE_LAUNCH_DEEPSPEED_MAX 1024
#define AUTOSIZE_LAUNCH_TORCHTITAN_MAX 768
#define AUTOSIZE_LAUNCH_ACCELERATE_MAX 768
#define AUTOSIZE_LAUNCH_ACCELERATE_CONFIG_MAX 512
#define AUTOSIZE_LAUNCH_HF_TRAINER_MAX 256
#define AUTOSIZE_LAUNCH_TORCHTUNE_MAX 512
#define AUTOSIZE_LAUNCH_AXOLOTL_MAX 512
#define AUTOSIZE_LAUNCH_RECIPE_MAX 32
#define AUTOSIZE_LAUNCH_NOTE_MAX 768
/* Environment variables one launch sets (launch.env). */
#define AUTOSIZE_LAUNCH_ENV_MAX 4

/* The rendezvous port of job_id's step step_id (above). */
int autosize_launch_rdzv_port(unsigned long job_id, unsigned long step_id);

/*
 * Where a step runs, for torchrun's rendezvous: the first node of the
 * step, the port (autosize_launch_rdzv_port) and the run id ("JOB-STEP").
 * host, port and run_id unset (NULL, 0, NULL): a plan not yet running;
 * the arguments then hold the words FIRST_NODE, PORT and RUN_ID there.
 */
typedef struct autosize_launch_where {
	const char *host;
	int port;
	const char *run_id;
	int node_rank;                /* this node's index in the step
				       * (with host: accelerate's
				       * --machine_rank) */
	const char *deepspeed_config; /* the DeepSpeed JSON's path, or NULL
				       * (the word DEEPSPEED_CONFIG) */
	const char *accelerate_config; /* accelerate's config file's path
					* (DeepSpeed-Ulysses), or NULL (the
					* word ACCELERATE_CONFIG) */
} autosize_launch_where;

/* One environment variable a launcher's start-up checks or reads. */
typedef struct autosize_launch_var {
	char name[32];
	char value[16];
} autosize_launch_var;

/*
 * What the tasks of a step get: torchrun's arguments, Megatron-LM's (""
 * when the plan's framework is not Megatron or Megatron cannot run the
 * layout: note says why), a DeepSpeed configuration ("" unless the
 * plan's framework is DeepSpeed), torchtitan's options for its current
 * release and its job_config.py releases ("" unless the plan's
 * framework is FSDP), the environment they need and the optimizer steps
 * that train the plan's tokens.
 */
typedef struct autosize_launch {
	char torchrun[AUTOSIZE_LAUNCH_TORCHRUN_MAX];
	char megatron[AUTOSIZE_LAUNCH_MEGATRON_MAX];
	char deepspeed[AUTOSIZE_LAUNCH_DEEPSPEED_MAX];
	char torchtitan[AUTOSIZE_LAUNCH_TORCHTITAN_MAX]; /* "" unless FSDP */
	char torchtitan_v1[AUTOSIZE_LAUNCH_TORCHTITAN_MAX];
	/* the fine-tuning stacks (launch_dp.c): "" unless the layout is
	 * one they run (data parallel alone under FSDP or DeepSpeed, FSDP2
	 * with TP or CP, DeepSpeed-Ulysses) */
	char accelerate[AUTOSIZE_LAUNCH_ACCELERATE_MAX];
	/* accelerate's config file for DeepSpeed-Ulysses (YAML), "" for
	 * any other plan */
	char accelerate_config[AUTOSIZE_LAUNCH_ACCELERATE_CONFIG_MAX];
	char hf_trainer[AUTOSIZE_LAUNCH_HF_TRAINER_MAX];
	char axolotl[AUTOSIZE_LAUNCH_AXOLOTL_MAX];
	/* torchtune (FSDP only): tune run's torchrun options ("" for a
	 * single-device recipe), the recipe, its overrides */
	char tune_run[AUTOSIZE_LAUNCH_TORCHRUN_MAX];
	char torchtune_recipe[AUTOSIZE_LAUNCH_RECIPE_MAX];
	char torchtune[AUTOSIZE_LAUNCH_TORCHTUNE_MAX];
	autosize_launch_var env[AUTOSIZE_LAUNCH_ENV_MAX];
	int n_env;
	long steps;                   /* the whole run's; 0: no token
				       * count */
	long job_steps;               /* this job's part of them */
	char note[AUTOSIZE_LAUNCH_NOTE_MAX];
	/* what the job's tasks are told (spank_remote.c): the note less
	 * what concerns only the lines of a stack the job does not run
	 * (torchtitan's, to a job of the HF Trainer or torchtune) */
	char task_note[AUTOSIZE_LAUNCH_NOTE_MAX];
} autosize_launch;

/*
 * Fill out for plan p of request r, run at where (NULL: not yet running).
 * 0, or -1 when an argument is invalid or a string did not fit (out is
 * then all "").
 */
int autosize_launch_build(const autosize_request *r, const autosize_plan *p,
			  const autosize_launch_where *where,
			  autosize_launch *out);

/*
 * The launch as one JSON object: {"torchrun": "...", "megatron": "..." or
 * null, "deepspeed": {...} or null, "torchtitan", "torchtitan_v1",
 * "accelerate", "accelerate_config", "hf_trainer", "axolotl", "tune_run",
 * "torchtune_recipe", "torchtune": "..." or null, "env": {"NAME": "value", ...}, "steps": N,
 * "note": "..."}. Length or -1.
 */
int autosize_launch_to_json(const autosize_launch *l, char *buf, size_t len);

/*
 * The plan as JSON (autosize_plan_to_json) with "launch" added: what the
 * tasks of the planned job get (where NULL). Length or -1.
 */
int autosize_launch_plan_json(const autosize_request *r,
			      const autosize_plan *p, char *buf, size_t len);

/*
 * One line: "2 nodes x 8 H100-SXM5-80GB, TP 8 PP 2 DP 1, ZeRO-1,
 * recompute full, micro-batch 1, grad accum 1024, global batch 1024 x 4096
 * tokens, MFU 31.7%, 24.9 h, time limit 1-04:36:00" (the time parts only
 * when the plan has a training time).
 */
int autosize_launch_summary(const autosize_plan *p, char *buf, size_t len);

/*
 * Megatron's and NeMo's --recompute-num-layers under the block method for
 * the plan: with full recomputation of part of each stage, the layers of
 * each virtual stage recomputed (the plan's recompute_layers / vp, rounded
 * up); with every layer recomputed, a virtual stage's whole count (r gives
 * the model's layers; 0 when r is NULL); 0 without full recomputation,
 * which the block method reads as none.
 */
int autosize_launch_recompute_num_layers(const autosize_request *r,
					 const autosize_plan *p);

/* A count as people write it: 70.6B, 2T, 1.5M, 950 (three digits). */
char *autosize_launch_count(double v, char *buf, size_t len);

/*
 * The full plan as several lines (each ending in '\n'), as the CLI and
 * the submit side print it: model, size, layout, memory, speed, time,
 * cost, feasibility and warnings. r gives the model name.
 */
int autosize_launch_report(const autosize_request *r, const autosize_plan *p,
			   char *buf, size_t len);

/*
 * torchrun arguments for the plan's size, in the underscore spelling that
 * every torchrun accepts (torch 1.x has no dashed forms): "--nnodes=2
 * --nproc_per_node=8 --rdzv_backend=c10d --rdzv_endpoint=HOST:PORT
 * --rdzv_id=RUN_ID". One node: the endpoint is localhost:PORT (not
 * --standalone: torch 1.x puts every standalone job on port 29400).
 * host and run_id must be made of letters, digits, '.', '_' and '-'
 * (they end up word-split in a shell); host is required with more than
 * one node. NULL host / run_id and port 0 write FIRST_NODE, RUN_ID and
 * PORT (a plan not yet running).
 */
int autosize_launch_torchrun_args(const autosize_plan *p, const char *host,
				  int port, const char *run_id, char *buf,
				  size_t len);

/*
 * Megatron-LM arguments (Megatron-LM's megatron/training/arguments.py;
 * its parser and validate_args read them back in test_launch_parsers):
 * "--tensor-model-parallel-size 8 --pipeline-model-parallel-size 2
 * --micro-batch-size 1 --global-batch-size 1024 --seq-length 4096
 * [--sequence-parallel] [--context-parallel-size N]
 * [--expert-model-parallel-size N [--expert-tensor-parallel-size 1]]
 * [--moe-token-dispatcher-type alltoall | --moe-token-dispatcher-type
 *  flex --moe-flex-dispatcher-backend deepep|hybridep --moe-router-dtype
 *  fp32] [--moe-grouped-gemm]
 * (a MoE model: the plan's dispatcher, whose exchange the step time
 * prices) [--overlap-moe-expert-parallel-comm --delay-wgrad-compute]
 * (--moe-overlap)
 * [--decoder-first-pipeline-num-layers N --decoder-last-pipeline-num-layers
 * N] [--num-layers-per-virtual-pipeline-stage N |
 * --num-virtual-stages-per-pipeline-rank N] [--use-distributed-optimizer]
 * [--overlap-grad-reduce [--overlap-param-gather]] [--tp-comm-overlap]
 * [--recompute-granularity full --recompute-method uniform
 * --recompute-num-layers 1 | --recompute-granularity full
 * --recompute-method block --recompute-num-layers N (part of each virtual
 * stage) | --recompute-granularity selective [--recompute-modules
 * core_attn mlp]] --bf16|--fp16 [--fp8-format hybrid]
 * [--grad-reduce-in-bf16]". Layers the pipeline does not
 * divide go to lighter first and last stages. Returns 0 and "" for a plan
 * whose framework is not Megatron, or a layout Megatron cannot run (no
 * split of the layers that Megatron accepts).
 */
int autosize_launch_megatron_args(const autosize_request *r,
				  const autosize_plan *p, char *buf,
				  size_t len);

/*
 * A DeepSpeed configuration (JSON object, pretty-printed, ending in '\n';
 * read back by DeepSpeed's DeepSpeedConfig in test_launch_parsers):
 * train_batch_size (not under Ulysses, --cp: the HF Trainer would check
 * it against world x micro-batch x accumulation; DeepSpeed derives it),
 * train_micro_batch_size_per_gpu, [sequence_parallel_size CP],
 * gradient_accumulation_steps, gradient_clipping 1.0 (the Trainer's
 * max_grad_norm, which it checks), zero_optimization.stage (and overlap_comm
 * from stage 1: the step time hides the reduction), bf16/fp16
 * enabled (fp8 plans train in bf16 as far as DeepSpeed is concerned),
 * zero_optimization.offload_param (--param-offload, ZeRO-3) and
 * offload_optimizer (--optimizer-offload or --param-offload, ZeRO-1 up)
 * to pinned CPU memory, and activation_checkpointing when the plan
 * recomputes. -1 when
 * train_batch_size = micro batch x accumulation x DP does not hold (as
 * DeepSpeed requires).
 */
int autosize_launch_deepspeed_json(const autosize_request *r,
				   const autosize_plan *p, char *buf,
				   size_t len);

/*
 * torchtitan options for an FSDP plan in which every weight is trained
 * or LoRA trains the adapters (the current release's LoRAConverter,
 * from the config function; 0 and "" otherwise), every degree of the
 * layout so that their product
 * is the step's GPUs, for its current release (config_registry
 * functions; b5bcd76c, 2026-08-21):
 * "--parallelism.data_parallel_replicate_degree R
 * --parallelism.data_parallel_shard_degree S
 * --parallelism.tensor_parallel_degree T
 * --parallelism.pipeline_parallel_degree P
 * --parallelism.context_parallel_degree C
 * --parallelism.expert_parallel_degree E [--parallelism.
 * fsdp_reshard_after_forward never] [--parallelism.pipeline_parallel_
 * schedule Interleaved1F1B --parallelism.pipeline_parallel_layers_per_
 * stage N] [--parallelism.num_pp_microbatches GA (a pipeline)]
 * --training.num_tokens_per_microbatch_per_dp_rank MB x SEQ
 * --training.num_tokens_per_train_step GB x SEQ
 * --training.max_context_length SEQ [--training.steps N]
 * [--training.enable_cpu_offload] [--training.disable_cuda_graphs (PP
 * or EP)] activation_checkpoint:none|selective|full" (a subcommand:
 * last). ZeRO-3 shards over DP (S = DP), ZeRO-2 too but keeps parameters
 * after the forward, ZeRO-0/1 replicates (R = DP).
 */
int autosize_launch_torchtitan_args(const autosize_request *r,
				    const autosize_plan *p, char *buf,
				    size_t len);

/*
 * The same for the torchtitan releases with config/job_config.py (up to
 * 238fa995, 2026-02-23; no LoRA): the parallelism options as above, then
 * "[--parallelism.pipeline_parallel_microbatch_size MB (a pipeline)]
 * --training.local_batch_size L (a pipeline's: MB x GA)
 * --training.global_batch_size GB --training.seq_len SEQ
 * [--training.steps N] [--training.enable_cpu_offload]
 * [--model.converters quantize.linear.float8]
 * --activation_checkpoint.mode none|selective|full".
 */
int autosize_launch_torchtitan_v1_args(const autosize_request *r,
				       const autosize_plan *p, char *buf,
				       size_t len);

/*
 * Optimizer steps that train the whole run's tokens (tokens_done and
 * the plan's tokens: a launcher resumed from its checkpoint counts on
 * from the step it holds): tokens / (global batch x sequence), rounded
 * up; 0 without a token count.
 */
long autosize_launch_steps(const autosize_plan *p);

/*
 * Optimizer steps this job of the run trains: its part
 * (autosize_plan_part: chain_index, chain_done_before), the rest of the
 * run when it is not chained. 0: no token count.
 */
long autosize_launch_job_steps(const autosize_plan *p);

/*
 * Megatron-LM's --exit-duration-in-mins for a chained job: its time
 * limit less the warning signal's lead and two minutes before Megatron's
 * clock starts, so that it saves and exits before the signal; 0 when the
 * plan is not chained.
 */
long autosize_launch_exit_minutes(const autosize_plan *p);

/*
 * The precision request r trains in under its stack: r's, except where
 * the stack has no such training (torchtune's LoRA and QLoRA recipes
 * read no enable_fp8_training: bf16). When it differs and why is not
 * NULL, why (len bytes) says so in one sentence; else why is "".
 */
autosize_precision autosize_launch_precision(const autosize_request *r,
					     char *why, size_t len);

/*
 * The launchers of the fine-tuning stacks, for a plan whose layout is
 * data parallel alone (TP, PP, CP, EP 1) under FSDP or DeepSpeed, FSDP2
 * with TP or CP (not QLoRA: FSDP2 shards no 4-bit weights), or
 * DeepSpeed-Ulysses (CP under DeepSpeed); each returns 0 and "" for
 * another plan (autosize_launch_stack_gap says why), -1 when buf is too
 * small. Each tool's own parser reads them back in
 * test_launch_parsers (axolotl's names: tests/data/axolotl-args.txt).
 *
 * `accelerate launch` (Hugging Face accelerate, commands/launch.py):
 * "--num_machines N --num_processes N x G [--machine_rank R
 * --main_process_ip HOST --rdzv_backend c10d] --main_process_port PORT
 * --mixed_precision bf16|fp16|fp8" (FP8's backend is the launch's
 * ACCELERATE_FP8_BACKEND=TE), then the engine: one GPU nothing, unless
 * the engine offloads state there; ZeRO-0 "--multi_gpu" (DDP); FSDP
 * with TP or CP "--use_fsdp --fsdp_version 2 --fsdp_reshard_after_forward
 * true|false --fsdp_auto_wrap_policy TRANSFORMER_BASED_WRAP
 * --fsdp_activation_checkpointing true|false --use_parallelism_config
 * --parallelism_config_dp_shard_size DP --parallelism_config_tp_size TP
 * --parallelism_config_cp_size CP"; FSDP "--use_fsdp
 * --fsdp_sharding_strategy FULL_SHARD (ZeRO-3) | SHARD_GRAD_OP (ZeRO-2)
 * --fsdp_auto_wrap_policy TRANSFORMER_BASED_WRAP --fsdp_use_orig_params
 * true (frozen and trained weights in one unit: PEFT)
 * --fsdp_activation_checkpointing true|false [--fsdp_offload_params true]"
 * (the last with --param-offload, on one GPU too); DeepSpeed
 * "--use_deepspeed --deepspeed_config_file PATH
 * [--deepspeed_multinode_launcher standard]" (the plan's JSON:
 * autosize_launch_deepspeed_json); Ulysses "--config_file PATH" first
 * (autosize_launch_accelerate_config) and the JSON without
 * --use_deepspeed. where as for torchrun; NULL writes MACHINE_RANK,
 * FIRST_NODE, PORT, DEEPSPEED_CONFIG and ACCELERATE_CONFIG.
 */
int autosize_launch_accelerate_args(const autosize_request *r,
				    const autosize_plan *p,
				    const autosize_launch_where *where,
				    char *buf, size_t len);

/*
 * Hugging Face Trainer (transformers TrainingArguments):
 * "--per_device_train_batch_size MB --gradient_accumulation_steps GA
 * --gradient_checkpointing True|False [--max_steps N] [--bf16 True |
 * --fp16 True]".
 * Under FSDP on more than one GPU (or offloading parameters on one, or
 * FSDP2 with TP or CP), recomputation is accelerate's
 * --fsdp_activation_checkpointing and gradient_checkpointing is False
 * (both would recompute twice). An FP8 plan gets no precision flag (the
 * Trainer's --bf16 would override accelerate's fp8).
 */
int autosize_launch_hf_trainer_args(const autosize_request *r,
				    const autosize_plan *p, char *buf,
				    size_t len);

/*
 * torchtune recipe overrides (`tune run [TORCHRUN ARGS] RECIPE --config C`
 * then key=value; keys its recipes read):
 * "batch_size=MB gradient_accumulation_steps=GA dtype=bf16
 * enable_activation_checkpointing=True|False
 * enable_activation_offloading=True|False tokenizer.max_seq_len=SEQ
 * [epochs=1 max_steps_per_epoch=N] [data_parallel_shard_dim=DP
 * [tensor_parallel_dim=TP] [context_parallel_dim=CP] (TP or CP)]
 * [fsdp_reshard_after_forward=False (distributed recipe, ZeRO-0 to 2)]
 * [fsdp_cpu_offload=True|False (distributed: --param-offload)]
 * [enable_fp8_training=True (full fine-tuning)]". FSDP plans only; none
 * for FP16 (torchtune trains in bf16 or fp32) nor TP with LoRA (its LoRA
 * recipes refuse TP); TP needs the config's tensor_parallel_plan.
 * Offloading is on only with full recomputation and
 * --activation-offload=on, as the memory model counts it.
 */
int autosize_launch_torchtune_args(const autosize_request *r,
				   const autosize_plan *p, char *buf,
				   size_t len);

/*
 * The torchtune recipe of the plan: full_finetune_* or lora_finetune_*
 * (LoRA, QLoRA), _distributed on more than one GPU, with --param-offload
 * (fsdp_cpu_offload) and for FP8 full fine-tuning (one process on one
 * GPU), else _single_device, which refuses torchrun's options. "" for
 * NULL arguments.
 */
const char *autosize_launch_torchtune_recipe(const autosize_request *r,
					     const autosize_plan *p);

/*
 * axolotl's own options (`axolotl train CONFIG ...`, from its CLI's
 * option table; tests/data/axolotl-args.txt): "--micro-batch-size MB
 * --gradient-accumulation-steps GA --sequence-len SEQ [--max-steps N]
 * --gradient-checkpointing true|false --bf16 true|--fp16|--bf16 true
 * --fp8", then the engine as for accelerate: DeepSpeed "--deepspeed
 * PATH"; FSDP ZeRO-2/3 "--fsdp-version 2 --fsdp-config.auto-wrap-policy
 * TRANSFORMER_BASED_WRAP --[no-]fsdp-config.reshard-after-forward
 * --[no-]fsdp-config.activation-checkpointing
 * [--fsdp-config.offload-params] [--dp-shard-size DP
 * --tensor-parallel-size TP --context-parallel-size CP (TP or CP)]";
 * nothing for DDP or one GPU; none for Ulysses (axolotl's context
 * parallelism is ring attention) nor QLoRA with TP.
 */
int autosize_launch_axolotl_args(const autosize_request *r,
				 const autosize_plan *p,
				 const autosize_launch_where *where,
				 char *buf, size_t len);

/*
 * accelerate's config file for a DeepSpeed-Ulysses plan (DeepSpeed with
 * --cp; "" and 0 for any other plan), which `accelerate launch
 * --config_file` reads: accelerate takes the sequence-parallel size
 * only from a file's parallelism_config (its command line refuses
 * --use_parallelism_config without FSDP2):
 * "compute_environment: LOCAL_MACHINE / distributed_type: DEEPSPEED /
 * parallelism_config: {parallelism_config_dp_replicate_size: 1,
 * parallelism_config_dp_shard_size: DP, parallelism_config_sp_size: CP,
 * parallelism_config_sp_backend: deepspeed,
 * parallelism_config_sp_seq_length_is_variable: true}" (block YAML).
 */
int autosize_launch_accelerate_config(const autosize_request *r,
				      const autosize_plan *p, char *buf,
				      size_t len);

/*
 * The stack r names (hf, llama-factory, unsloth: accelerate and the
 * Trainer; axolotl; torchtune; torchtitan) cannot run plan p's layout
 * with the values the launch gives it: 1 and why (one sentence, len
 * bytes; "stack S cannot run this layout: ..."), else 0 and "". The
 * planner warns with it (code stack_no_launch).
 */
int autosize_launch_stack_gap(const autosize_request *r,
			      const autosize_plan *p, char *why, size_t len);

/*
 * The first host of a Slurm node list ("gpu[07-08,11],login1" ->
 * "gpu07"; "n1" -> "n1"; "a[1-2]-ib" -> "a1-ib"): the first entry, each
 * bracket replaced by the first number in it as written (zero padding
 * kept). -1 for an empty or malformed list or a name with characters
 * other than letters, digits, '.', '_' and '-'.
 */
int autosize_launch_first_host(const char *nodelist, char *buf, size_t len);

#endif
