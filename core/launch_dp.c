/*
 * autosize: the launchers of the fine-tuning stacks that most renters
 * run: `accelerate launch` (Hugging Face accelerate) and its config file
 * for DeepSpeed-Ulysses, the Hugging Face Trainer's arguments, axolotl's
 * options, torchtune's recipe overrides (launch.h), and why a stack gets
 * none for a plan. Pure string formatting over a plan.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "autosize/launch.h"
#include "framework_private.h"
#include "launch_private.h"

/* The layout of a plan, as these stacks split it. */
typedef enum dp_split {
	DP_NOT = 0,   /* not theirs: Megatron, a pipeline or expert split,
		       * tensor parallelism under DeepSpeed */
	DP_PLAIN,     /* data parallel alone: FSDP, DDP, DeepSpeed ZeRO */
	DP_ND,        /* FSDP2 with tensor and/or context parallelism
		       * (accelerate's ParallelismConfig, axolotl's and
		       * torchtune's device meshes) */
	DP_ULYSSES    /* DeepSpeed with --cp: Ulysses sequence parallelism
		       * (accelerate's sp_size) */
} dp_split;

/* The launchers, by the stacks that run them. */
typedef enum dp_tool {
	DP_ACCELERATE, /* accelerate launch + the HF Trainer: hf,
			* llama-factory, unsloth */
	DP_AXOLOTL,
	DP_TORCHTUNE,
	DP_TORCHTITAN  /* launch.c's line; its gaps are told here */
} dp_tool;

static int dp_fsdp(const autosize_plan *p)
{
	return framework_resolve(p->framework) == AUTOSIZE_FRAMEWORK_FSDP;
}

static dp_split dp_split_of(const autosize_plan *p)
{
	autosize_framework f = framework_resolve(p->framework);

	if ((f != AUTOSIZE_FRAMEWORK_FSDP &&
	     f != AUTOSIZE_FRAMEWORK_DEEPSPEED) || p->tp < 1 || p->pp != 1 ||
	    p->ep > 1 || p->nodes < 1 || p->gpus_per_node < 1 ||
	    p->micro_batch < 1 || p->grad_accum < 1)
		return DP_NOT;
	if (p->tp == 1 && p->cp <= 1)
		return DP_PLAIN;
	if (f == AUTOSIZE_FRAMEWORK_FSDP)
		return DP_ND;
	/* DeepSpeed's tensor parallelism is Megatron-DeepSpeed's (or
	 * AutoTP, which the plan does not price): not these stacks' */
	return p->tp == 1 ? DP_ULYSSES : DP_NOT;
}

/* Each tool as its gaps name it. */
static const char *const dp_tool_name[] = {"the HF Trainer", "axolotl",
					   "torchtune", "torchtitan"};

static int dp_say(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int dp_say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return 1;
}

/*
 * 1 when tool gets no line for plan p of request r, with why (len
 * bytes): a phrase that starts with the tool's name; 0 when it gets one.
 * Read in each tool's sources at the commits of doc/launch.md.
 */
static int dp_gap(dp_tool tool, const autosize_request *r,
		  const autosize_plan *p, char *why, size_t len)
{
	const char *name = dp_tool_name[tool];
	dp_split s = dp_split_of(p);
	int fsdp = dp_fsdp(p), tp = p->tp > 1;
	int qlora = r->train_mode == AUTOSIZE_TRAIN_QLORA;

	if ((tool == DP_TORCHTUNE || tool == DP_TORCHTITAN) && !fsdp)
		return dp_say(why, len, "%s runs FSDP2 only", name);
	if (tool == DP_TORCHTITAN)
		/* components/lora.py wraps 16-bit linears */
		return qlora && dp_say(why, len, "torchtitan has no QLoRA (its "
				       "LoRAConverter wraps 16-bit linears)");
	if (s == DP_NOT)
		return p->pp > 1 || p->ep > 1
		       ? dp_say(why, len, "%s splits no pipeline and no "
				"experts", name)
		       : !fsdp && tp
		       ? dp_say(why, len, "%s splits tensor parallelism under "
				"FSDP2 (accelerate's ParallelismConfig), not "
				"under DeepSpeed", name)
		       : dp_say(why, len, "%s runs under FSDP or DeepSpeed, "
				"not Megatron", name);
	switch (tool) {
	case DP_ACCELERATE:
		/* ParallelismConfig needs FSDP2 (commands/launch.py), whose
		 * fully_shard shards no uint8 Params4bit (accelerate issue
		 * 3874) */
		return s == DP_ND && qlora &&
		       dp_say(why, len, "the HF Trainer splits TP and CP under "
			      "FSDP2 only (accelerate's ParallelismConfig), "
			      "which shards no bitsandbytes 4-bit weights "
			      "(QLoRA)");
	case DP_AXOLOTL:
		/* context_parallel_size: ring-flash-attn, under FSDP or
		 * DeepSpeed alike; transformers' bitsandbytes quantizer has
		 * no update_tp_plan (quantizers/quantizer_bnb_4bit.py) */
		if (s == DP_ULYSSES)
			return dp_say(why, len, "axolotl's context parallelism "
				      "is ring attention (ring-flash-attn), not "
				      "the DeepSpeed-Ulysses exchange planned");
		return s == DP_ND && qlora && tp &&
		       dp_say(why, len, "axolotl's bitsandbytes 4-bit layers "
			      "have no tensor-parallel plan (QLoRA)");
	default:
		/* lora_finetune_distributed asserts tensor_parallel_dim 1 */
		if (tp && launch_peft(r))
			return dp_say(why, len, "torchtune's LoRA recipes "
				      "refuse tensor parallelism");
		return r->precision == AUTOSIZE_PREC_FP16 &&
		       dp_say(why, len, "torchtune trains in bf16 or fp32, "
			      "not fp16");
	}
}

/* --param-offload under FSDP: parameters and gradients offloaded from
 * FULL_SHARD units, on one GPU too. */
static int dp_fsdp_offload(const autosize_request *r,
			   const autosize_plan *p)
{
	return dp_fsdp(p) && r->param_offload == 1 && p->zero_stage >= 3;
}

/* State offloaded by the sharding engine itself (FSDP's parameters,
 * DeepSpeed's parameters or optimizer): it must run on one GPU too. */
static int dp_engine_offload(const autosize_request *r,
			     const autosize_plan *p)
{
	return dp_fsdp_offload(r, p) ||
	       (!dp_fsdp(p) && p->zero_stage >= 1 &&
		(r->param_offload == 1 || r->opt_offload == 1));
}

/* 1 when the plan runs plainly on one process (no engine at all). */
static int dp_one_plain(const autosize_request *r, const autosize_plan *p)
{
	return p->nodes * p->gpus_per_node == 1 && !dp_engine_offload(r, p);
}

/* Recomputation in FSDP's own wrapper (accelerate's and axolotl's
 * flag), not the model's gradient_checkpointing: FSDP2 with TP or CP,
 * or sharded FSDP on several GPUs (or offloading on one). */
static int dp_fsdp_recompute(const autosize_request *r,
			     const autosize_plan *p)
{
	return dp_fsdp(p) &&
	       (dp_split_of(p) == DP_ND ||
		(p->zero_stage >= 2 && (p->dp > 1 || dp_fsdp_offload(r, p))));
}

/* Start o on buf for tool: -1 for bad arguments, 0 ("") for a plan the
 * tool does not run, 1 to go on. */
static int dp_begin(launch_out *o, char *buf, size_t len,
		    const autosize_request *r, const autosize_plan *p,
		    dp_tool tool)
{
	char why[AUTOSIZE_LAUNCH_NOTE_MAX];

	launch_init(o, buf, len);
	if (!r || !p)
		return launch_fail(buf, len);
	return !dp_gap(tool, r, p, why, sizeof(why));
}

static const char *dp_bool(int on, const char *yes, const char *no)
{
	return on ? yes : no;
}

static int dp_recompute(const autosize_plan *p)
{
	return p->recompute != AUTOSIZE_RECOMPUTE_NONE;
}

/* What the PyTorch-native launchers train in: the stack's precision,
 * bf16 for NVFP4, which none of them has (plan_job plans such a job in
 * bf16 where the site's default framework is one of them). */
static autosize_precision dp_launch_precision(const autosize_request *r)
{
	autosize_precision prec = autosize_launch_precision(r, NULL, 0);

	return prec == AUTOSIZE_PREC_NVFP4 ? AUTOSIZE_PREC_BF16 : prec;
}

/* The precision the job trains in, as accelerate and the Trainer
 * name it. */
static const char *dp_precision_name(const autosize_request *r)
{
	return autosize_precision_name(dp_launch_precision(r));
}

/* A file of the launch: its path where the step has one, else the
 * word a script's author sees. */
static const char *dp_path(const char *path, const char *word)
{
	return path ? path : word;
}

/* accelerate's size and rendezvous, as torchrun's (launch.c). */
static void dp_accelerate_where(launch_out *o, const autosize_plan *p,
				const autosize_launch_where *w)
{
	launch_put(o, "--num_machines %d --num_processes %d", p->nodes,
		   p->nodes * p->gpus_per_node);
	if (p->nodes > 1) {
		if (w && w->host)
			launch_put(o, " --machine_rank %d --main_process_ip "
				   "%s", w->node_rank, w->host);
		else
			launch_put(o, " --machine_rank MACHINE_RANK "
				   "--main_process_ip FIRST_NODE");
		/* c10d: the agents meet at the first node's store and agree
		 * on ranks themselves. Not --same_network: accelerate then
		 * sets the master address, not the rendezvous endpoint
		 * (utils/launch.py), and every node waits at its own store */
		launch_put(o, " --rdzv_backend c10d");
	}
	if (w && w->port > 0)
		launch_put(o, " --main_process_port %d", w->port);
	else
		launch_put(o, " --main_process_port PORT");
}

/* DeepSpeed under accelerate: the plan's JSON; Ulysses takes the engine
 * from the config file (--config_file, first), the others by flag. */
static void dp_accelerate_deepspeed(launch_out *o, const autosize_plan *p,
				    const autosize_launch_where *w,
				    dp_split s)
{
	launch_put(o, "%s --deepspeed_config_file %s",
		   s == DP_ULYSSES ? "" : " --use_deepspeed",
		   dp_path(w ? w->deepspeed_config : NULL,
			   "DEEPSPEED_CONFIG"));
	/* accelerate's default multi-node DeepSpeed launcher is pdsh over
	 * ssh; under Slurm each node runs its own agent */
	if (p->nodes > 1)
		launch_put(o, " --deepspeed_multinode_launcher standard");
}

/* FSDP2 with TP and CP through accelerate's ParallelismConfig
 * (commands/launch.py: --use_parallelism_config needs --use_fsdp and
 * --fsdp_version 2): the data-parallel ranks shard (dp_shard_size; a
 * replicated group cannot carry TP or CP, parallelism_config.py), ZeRO-3
 * reshards after the forward, ZeRO-0 to 2 keep the parameters gathered
 * to the backward (FSDP2 always shards at rest: an all-reduce's traffic,
 * at most the memory the plan counts). */
static void dp_accelerate_nd(launch_out *o, const autosize_plan *p)
{
	launch_put(o, " --use_fsdp --fsdp_version 2 "
		   "--fsdp_reshard_after_forward %s "
		   "--fsdp_auto_wrap_policy TRANSFORMER_BASED_WRAP "
		   "--fsdp_activation_checkpointing %s "
		   "--use_parallelism_config --parallelism_config_dp_shard_size "
		   "%d --parallelism_config_tp_size %d "
		   "--parallelism_config_cp_size %d",
		   dp_bool(p->zero_stage >= 3, "true", "false"),
		   dp_bool(dp_recompute(p), "true", "false"), p->dp, p->tp,
		   p->cp > 1 ? p->cp : 1);
}

int autosize_launch_accelerate_args(const autosize_request *r,
				    const autosize_plan *p,
				    const autosize_launch_where *where,
				    char *buf, size_t len)
{
	launch_out o;
	int go = dp_begin(&o, buf, len, r, p, DP_ACCELERATE);
	dp_split s;

	if (go <= 0)
		return go;
	if (where && where->node_rank < 0)
		return launch_fail(buf, len);
	s = dp_split_of(p);
	/* sp_size reaches accelerate only from a config file: it takes the
	 * file's parallelism_config and engine only when no engine flag is
	 * given (launch.py _validate_launch_command) */
	if (s == DP_ULYSSES)
		launch_put(&o, "--config_file %s ",
			   dp_path(where ? where->accelerate_config : NULL,
				   "ACCELERATE_CONFIG"));
	dp_accelerate_where(&o, p, where);
	/* FP8 through Transformer Engine: ACCELERATE_FP8_BACKEND=TE in
	 * the launch's environment (launch.c), not --fp8_backend te, which
	 * accelerate passes on as "te", a value its Accelerator refuses */
	launch_put(&o, " --mixed_precision %s", dp_precision_name(r));
	if (dp_one_plain(r, p))
		return launch_done(&o);
	if (!dp_fsdp(p)) {
		dp_accelerate_deepspeed(&o, p, where, s);
		return launch_done(&o);
	}
	if (s == DP_ND)
		dp_accelerate_nd(&o, p);
	else if (p->zero_stage < 2)
		launch_put(&o, " --multi_gpu");
	else
		launch_put(&o, " --use_fsdp --fsdp_sharding_strategy %s "
			   "--fsdp_auto_wrap_policy TRANSFORMER_BASED_WRAP "
			   "--fsdp_use_orig_params true "
			   "--fsdp_activation_checkpointing %s",
			   p->zero_stage >= 3 ? "FULL_SHARD" : "SHARD_GRAD_OP",
			   dp_bool(dp_recompute(p), "true", "false"));
	/* --param-offload: "offload parameters and gradients to CPU" */
	if (dp_fsdp_offload(r, p))
		launch_put(&o, " --fsdp_offload_params true");
	return launch_done(&o);
}

int autosize_launch_accelerate_config(const autosize_request *r,
				      const autosize_plan *p, char *buf,
				      size_t len)
{
	launch_out o;
	int go = dp_begin(&o, buf, len, r, p, DP_ACCELERATE);

	if (go <= 0 || dp_split_of(p) != DP_ULYSSES)
		return go < 0 ? go : 0;
	/* the keys `accelerate config` writes (commands/config/cluster.py),
	 * copied onto the launch's arguments; dp_shard_size is DeepSpeed's
	 * data-parallel ranks: accelerate sets train_batch_size to
	 * micro-batch x accumulation x dp_replicate x dp_shard under
	 * Ulysses (accelerator.py), as the plan counts it */
	launch_put(&o, "# accelerate launch --config_file: "
		   "DeepSpeed-Ulysses (autosize)\n"
		   "compute_environment: LOCAL_MACHINE\n"
		   "distributed_type: DEEPSPEED\n"
		   "parallelism_config:\n"
		   "  parallelism_config_dp_replicate_size: 1\n"
		   "  parallelism_config_dp_shard_size: %d\n"
		   "  parallelism_config_sp_size: %d\n"
		   "  parallelism_config_sp_backend: deepspeed\n"
		   "  parallelism_config_sp_seq_length_is_variable: true\n",
		   p->dp, p->cp);
	return launch_done(&o);
}

int autosize_launch_hf_trainer_args(const autosize_request *r,
				    const autosize_plan *p, char *buf,
				    size_t len)
{
	launch_out o;
	int go = dp_begin(&o, buf, len, r, p, DP_ACCELERATE);

	if (go <= 0)
		return go;
	launch_put(&o, "--per_device_train_batch_size %d "
		   "--gradient_accumulation_steps %d "
		   "--gradient_checkpointing %s", p->micro_batch,
		   p->grad_accum,
		   dp_bool(dp_recompute(p) && !dp_fsdp_recompute(r, p),
			   "True", "False"));
	/* the planned tokens: --max_steps overrides num_train_epochs */
	if (autosize_launch_steps(p) > 0)
		launch_put(&o, " --max_steps %ld", autosize_launch_steps(p));
	if (dp_launch_precision(r) == AUTOSIZE_PREC_FP16)
		launch_put(&o, " --fp16 True");
	else if (dp_launch_precision(r) == AUTOSIZE_PREC_BF16)
		launch_put(&o, " --bf16 True");
	return launch_done(&o);
}

/* torchtune runs its distributed recipe (FSDP) on several GPUs, to
 * offload parameters (fsdp_cpu_offload) and for FP8 (only
 * full_finetune_distributed has it), on one GPU with one process. */
static int dp_tune_distributed(const autosize_request *r,
			       const autosize_plan *p)
{
	return p->nodes * p->gpus_per_node > 1 || dp_fsdp_offload(r, p) ||
	       (!launch_peft(r) &&
		dp_launch_precision(r) == AUTOSIZE_PREC_FP8);
}

const char *autosize_launch_torchtune_recipe(const autosize_request *r,
					     const autosize_plan *p)
{
	if (!r || !p)
		return "";
	if (launch_peft(r))
		return dp_tune_distributed(r, p) ? "lora_finetune_distributed"
						 : "lora_finetune_single_device";
	return dp_tune_distributed(r, p) ? "full_finetune_distributed"
					 : "full_finetune_single_device";
}

/* The distributed recipes' device mesh (training.ParallelDims):
 * data_parallel_shard_dim x context_parallel_dim x tensor_parallel_dim
 * (the last needs the config's tensor_parallel_plan, as torchtune's 70B
 * configs have). */
static void dp_tune_mesh(launch_out *o, const autosize_plan *p)
{
	launch_put(o, " data_parallel_shard_dim=%d", p->dp);
	if (p->tp > 1)
		launch_put(o, " tensor_parallel_dim=%d", p->tp);
	if (p->cp > 1)
		launch_put(o, " context_parallel_dim=%d", p->cp);
}

int autosize_launch_torchtune_args(const autosize_request *r,
				   const autosize_plan *p, char *buf,
				   size_t len)
{
	launch_out o;
	int go = dp_begin(&o, buf, len, r, p, DP_TORCHTUNE), dist;
	long steps;

	if (go <= 0)
		return go;
	dist = dp_tune_distributed(r, p);
	steps = autosize_launch_steps(p);
	/* torchtune checkpoints whole layers: a selective plan (another
	 * stack's) gets it too, more recomputation than planned, never
	 * more memory */
	launch_put(&o, "batch_size=%d gradient_accumulation_steps=%d "
		   "dtype=bf16 enable_activation_checkpointing=%s "
		   "enable_activation_offloading=%s tokenizer.max_seq_len=%d",
		   p->micro_batch, p->grad_accum,
		   dp_bool(dp_recompute(p), "True", "False"),
		   dp_bool(r->act_offload == 1 &&
			   p->recompute == AUTOSIZE_RECOMPUTE_FULL, "True",
			   "False"), p->seq_len);
	/* the planned tokens: one epoch of at most this many optimizer
	 * steps (a shorter dataset ends the run sooner) */
	if (steps > 0)
		launch_put(&o, " epochs=1 max_steps_per_epoch=%ld", steps);
	if (dp_split_of(p) == DP_ND)
		dp_tune_mesh(&o, p);
	/* ZeRO-0 to 2: parameters stay gathered from the forward to the
	 * backward (FSDP2 reshard_after_forward=False: the traffic of an
	 * all-reduce, the memory the plan counts or less) */
	if (dist && p->zero_stage < 3)
		launch_put(&o, " fsdp_reshard_after_forward=False");
	/* --param-offload: the distributed recipes' FSDP2 CPUOffloadPolicy
	 * (on one GPU too, with one process); off otherwise, over a config
	 * that turns it on (llama3_1/70B_full.yaml does) */
	if (dist)
		launch_put(&o, " fsdp_cpu_offload=%s",
			   dp_bool(dp_fsdp_offload(r, p), "True", "False"));
	if (!launch_peft(r) &&
	    dp_launch_precision(r) == AUTOSIZE_PREC_FP8)
		launch_put(&o, " enable_fp8_training=True");
	return launch_done(&o);
}

int autosize_launch_axolotl_args(const autosize_request *r,
				 const autosize_plan *p,
				 const autosize_launch_where *where,
				 char *buf, size_t len)
{
	autosize_precision prec;
	launch_out o;
	int go = dp_begin(&o, buf, len, r, p, DP_AXOLOTL);
	long steps = autosize_launch_steps(p);

	if (go <= 0)
		return go;
	prec = dp_launch_precision(r);
	launch_put(&o, "--micro-batch-size %d --gradient-accumulation-steps "
		   "%d --sequence-len %d", p->micro_batch, p->grad_accum,
		   p->seq_len);
	if (steps > 0)
		launch_put(&o, " --max-steps %ld", steps);
	launch_put(&o, " --gradient-checkpointing %s",
		   dp_bool(dp_recompute(p) && !dp_fsdp_recompute(r, p),
			   "true", "false"));
	/* FP8 (torchao) on top of bf16 autocast */
	launch_put(&o, "%s", prec == AUTOSIZE_PREC_FP16 ? " --fp16"
		   : prec == AUTOSIZE_PREC_FP8 ? " --bf16 true --fp8"
		   : " --bf16 true");
	if (dp_one_plain(r, p))
		return launch_done(&o);
	if (!dp_fsdp(p)) {
		launch_put(&o, " --deepspeed %s",
			   dp_path(where ? where->deepspeed_config : NULL,
				   "DEEPSPEED_CONFIG"));
		return launch_done(&o);
	}
	if (p->zero_stage < 2 && dp_split_of(p) != DP_ND)
		return launch_done(&o); /* DDP */
	/* FSDP2: ZeRO-3 reshards after the forward, ZeRO-0 to 2 keep the
	 * parameters gathered; recomputation in FSDP's wrapper */
	launch_put(&o, " --fsdp-version 2 --fsdp-config.auto-wrap-policy "
		   "TRANSFORMER_BASED_WRAP --%sfsdp-config.reshard-after-"
		   "forward --%sfsdp-config.activation-checkpointing",
		   p->zero_stage >= 3 ? "" : "no-",
		   dp_recompute(p) ? "" : "no-");
	if (dp_fsdp_offload(r, p))
		launch_put(&o, " --fsdp-config.offload-params");
	/* its N-D parallelism over FSDP2 (accelerate's ParallelismConfig
	 * underneath) */
	if (dp_split_of(p) == DP_ND)
		launch_put(&o, " --dp-shard-size %d --tensor-parallel-size %d "
			   "--context-parallel-size %d", p->dp, p->tp,
			   p->cp > 1 ? p->cp : 1);
	return launch_done(&o);
}

/* The launcher a stack runs its jobs with (doc/stacks.md). */
static int dp_stack_tool(const char *stack, dp_tool *tool)
{
	static const struct {
		const char *name;
		dp_tool tool;
	} stacks[] = {
		{"hf", DP_ACCELERATE}, {"llama-factory", DP_ACCELERATE},
		{"unsloth", DP_ACCELERATE}, {"axolotl", DP_AXOLOTL},
		{"torchtune", DP_TORCHTUNE}, {"torchtitan", DP_TORCHTITAN},
	};
	size_t i;

	for (i = 0; i < sizeof(stacks) / sizeof(stacks[0]); i++)
		if (strcmp(stack, stacks[i].name) == 0) {
			*tool = stacks[i].tool;
			return 1;
		}
	return 0;
}

int autosize_launch_stack_gap(const autosize_request *r,
			      const autosize_plan *p, char *why, size_t len)
{
	char gap[AUTOSIZE_LAUNCH_NOTE_MAX];
	dp_tool tool;

	if (why && len)
		why[0] = '\0';
	if (!r || !p || p->tp < 1 || !dp_stack_tool(r->stack, &tool) ||
	    !dp_gap(tool, r, p, gap, sizeof(gap)))
		return 0;
	if (why && len)
		snprintf(why, len, "stack %s cannot run this layout: %s; its "
			 "job gets no %s values", r->stack, gap,
			 tool == DP_ACCELERATE ? "accelerate or Trainer"
			 : r->stack);
	return 1;
}

int launch_dp_none(const autosize_request *r, const autosize_plan *p,
		   char *why, size_t len)
{
	char gap[4][AUTOSIZE_LAUNCH_NOTE_MAX / 2];
	int t;

	if (!dp_fsdp(p))
		return 0;
	for (t = DP_ACCELERATE; t <= DP_TORCHTITAN; t++)
		if (!dp_gap((dp_tool)t, r, p, gap[t], sizeof(gap[t])))
			return 0;
	snprintf(why, len, "no launcher here runs this layout, its tasks get "
		 "the degrees and AUTOSIZE_TORCHRUN_ARGS only: %s; %s; %s; %s",
		 gap[0], gap[1], gap[2], gap[3]);
	return 1;
}
