/*
 * autosize: the launchers of the data-parallel fine-tuning stacks that
 * most renters run: `accelerate launch` (Hugging Face accelerate), the
 * Hugging Face Trainer's arguments, torchtune's recipe overrides
 * (launch.h). Pure string formatting over a plan.
 */
#include <stdio.h>
#include <string.h>
#include "autosize/launch.h"
#include "framework_private.h"
#include "launch_private.h"

/* 1 when p is data parallel alone under FSDP or DeepSpeed: what these
 * stacks run (the HF Trainer, accelerate and torchtune shard by data
 * parallel; their tensor-parallel plans are model-specific). */
static int dp_only(const autosize_plan *p)
{
	autosize_framework f = framework_resolve(p->framework);

	return (f == AUTOSIZE_FRAMEWORK_FSDP ||
		f == AUTOSIZE_FRAMEWORK_DEEPSPEED) &&
	       p->tp == 1 && p->pp == 1 && p->cp <= 1 && p->ep <= 1 &&
	       p->nodes >= 1 && p->gpus_per_node >= 1 && p->micro_batch >= 1 &&
	       p->grad_accum >= 1;
}

static int dp_fsdp(const autosize_plan *p)
{
	return framework_resolve(p->framework) == AUTOSIZE_FRAMEWORK_FSDP;
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

/* Recomputation in FSDP's own wrapper (accelerate's flag), not the
 * model's gradient_checkpointing. */
static int dp_fsdp_recompute(const autosize_request *r,
			     const autosize_plan *p)
{
	return dp_fsdp(p) && p->zero_stage >= 2 &&
	       (p->dp > 1 || dp_fsdp_offload(r, p));
}

/* Start o on buf: -1 for bad arguments, 0 ("") for a plan these stacks
 * do not run, 1 to go on. */
static int dp_begin(launch_out *o, char *buf, size_t len,
		    const autosize_request *r, const autosize_plan *p)
{
	launch_init(o, buf, len);
	if (!r || !p)
		return launch_fail(buf, len);
	return dp_only(p);
}

static const char *dp_bool(int on, const char *yes, const char *no)
{
	return on ? yes : no;
}

/* The precision the job trains in, as accelerate and the Trainer
 * name it. */
static const char *dp_precision_name(const autosize_request *r)
{
	return autosize_precision_name(autosize_launch_precision(r, NULL, 0));
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

int autosize_launch_accelerate_args(const autosize_request *r,
				    const autosize_plan *p,
				    const autosize_launch_where *where,
				    char *buf, size_t len)
{
	launch_out o;
	int go = dp_begin(&o, buf, len, r, p);

	if (go <= 0)
		return go;
	if (where && where->node_rank < 0)
		return launch_fail(buf, len);
	dp_accelerate_where(&o, p, where);
	/* FP8 through Transformer Engine: ACCELERATE_FP8_BACKEND=TE in
	 * the launch's environment (launch.c), not --fp8_backend te, which
	 * accelerate passes on as "te", a value its Accelerator refuses */
	launch_put(&o, " --mixed_precision %s", dp_precision_name(r));
	/* one GPU runs plain, unless the engine offloads state there */
	if (p->nodes * p->gpus_per_node == 1 && !dp_engine_offload(r, p))
		return launch_done(&o);
	if (!dp_fsdp(p)) {
		launch_put(&o, " --use_deepspeed --deepspeed_config_file %s",
			   where && where->deepspeed_config
			   ? where->deepspeed_config : "DEEPSPEED_CONFIG");
		/* accelerate's default multi-node DeepSpeed launcher is pdsh
		 * over ssh; under Slurm each node runs its own agent */
		if (p->nodes > 1)
			launch_put(&o, " --deepspeed_multinode_launcher "
				   "standard");
		return launch_done(&o);
	}
	if (p->zero_stage < 2) {
		launch_put(&o, " --multi_gpu");
		return launch_done(&o);
	}
	launch_put(&o, " --use_fsdp --fsdp_sharding_strategy %s "
		   "--fsdp_auto_wrap_policy TRANSFORMER_BASED_WRAP "
		   "--fsdp_use_orig_params true "
		   "--fsdp_activation_checkpointing %s",
		   p->zero_stage >= 3 ? "FULL_SHARD" : "SHARD_GRAD_OP",
		   dp_bool(p->recompute != AUTOSIZE_RECOMPUTE_NONE, "true",
			   "false"));
	/* --param-offload: "offload parameters and gradients to CPU" */
	if (dp_fsdp_offload(r, p))
		launch_put(&o, " --fsdp_offload_params true");
	return launch_done(&o);
}

int autosize_launch_hf_trainer_args(const autosize_request *r,
				    const autosize_plan *p, char *buf,
				    size_t len)
{
	launch_out o;
	int go = dp_begin(&o, buf, len, r, p);

	if (go <= 0)
		return go;
	launch_put(&o, "--per_device_train_batch_size %d "
		   "--gradient_accumulation_steps %d "
		   "--gradient_checkpointing %s", p->micro_batch,
		   p->grad_accum,
		   dp_bool(p->recompute != AUTOSIZE_RECOMPUTE_NONE &&
			   !dp_fsdp_recompute(r, p), "True", "False"));
	/* the planned tokens: --max_steps overrides num_train_epochs */
	if (autosize_launch_steps(p) > 0)
		launch_put(&o, " --max_steps %ld", autosize_launch_steps(p));
	if (autosize_launch_precision(r, NULL, 0) == AUTOSIZE_PREC_FP16)
		launch_put(&o, " --fp16 True");
	else if (autosize_launch_precision(r, NULL, 0) == AUTOSIZE_PREC_BF16)
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
		autosize_launch_precision(r, NULL, 0) == AUTOSIZE_PREC_FP8);
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

int autosize_launch_torchtune_args(const autosize_request *r,
				   const autosize_plan *p, char *buf,
				   size_t len)
{
	launch_out o;
	int go = dp_begin(&o, buf, len, r, p), recompute, dist;
	long steps;

	if (go <= 0 || !dp_fsdp(p) || r->precision == AUTOSIZE_PREC_FP16)
		return go < 0 ? go : 0;
	dist = dp_tune_distributed(r, p);
	steps = autosize_launch_steps(p);
	/* torchtune checkpoints whole layers: selective plans get it too
	 * (more recomputation than planned, never more memory) */
	recompute = p->recompute != AUTOSIZE_RECOMPUTE_NONE;
	launch_put(&o, "batch_size=%d gradient_accumulation_steps=%d "
		   "dtype=bf16 enable_activation_checkpointing=%s "
		   "enable_activation_offloading=%s tokenizer.max_seq_len=%d",
		   p->micro_batch, p->grad_accum,
		   dp_bool(recompute, "True", "False"),
		   dp_bool(r->act_offload == 1 &&
			   p->recompute == AUTOSIZE_RECOMPUTE_FULL, "True",
			   "False"), p->seq_len);
	/* the planned tokens: one epoch of at most this many optimizer
	 * steps (a shorter dataset ends the run sooner) */
	if (steps > 0)
		launch_put(&o, " epochs=1 max_steps_per_epoch=%ld", steps);
	/* ZeRO-0 to 2: parameters stay gathered from the forward to the
	 * backward (FSDP2 reshard_after_forward=False: the traffic of an
	 * all-reduce, the memory the plan counts or less) */
	if (dist && p->zero_stage < 3)
		launch_put(&o, " fsdp_reshard_after_forward=False");
	/* --param-offload: the distributed recipes' FSDP2 CPUOffloadPolicy
	 * (on one GPU too, with one process) */
	if (dist && dp_fsdp_offload(r, p))
		launch_put(&o, " fsdp_cpu_offload=True");
	if (!launch_peft(r) &&
	    autosize_launch_precision(r, NULL, 0) == AUTOSIZE_PREC_FP8)
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
	int go = dp_begin(&o, buf, len, r, p);
	long steps = autosize_launch_steps(p);

	if (go <= 0)
		return go;
	prec = autosize_launch_precision(r, NULL, 0);
	launch_put(&o, "--micro-batch-size %d --gradient-accumulation-steps "
		   "%d --sequence-len %d", p->micro_batch, p->grad_accum,
		   p->seq_len);
	if (steps > 0)
		launch_put(&o, " --max-steps %ld", steps);
	launch_put(&o, " --gradient-checkpointing %s",
		   dp_bool(p->recompute != AUTOSIZE_RECOMPUTE_NONE &&
			   !dp_fsdp_recompute(r, p), "true", "false"));
	/* FP8 (torchao) on top of bf16 autocast */
	launch_put(&o, "%s", prec == AUTOSIZE_PREC_FP16 ? " --fp16"
		   : prec == AUTOSIZE_PREC_FP8 ? " --bf16 true --fp8"
		   : " --bf16 true");
	if (p->nodes * p->gpus_per_node == 1 && !dp_engine_offload(r, p))
		return launch_done(&o);
	if (!dp_fsdp(p)) {
		launch_put(&o, " --deepspeed %s",
			   where && where->deepspeed_config
			   ? where->deepspeed_config : "DEEPSPEED_CONFIG");
		return launch_done(&o);
	}
	if (p->zero_stage < 2)
		return launch_done(&o); /* DDP */
	/* FSDP2: ZeRO-3 reshards after the forward, ZeRO-2 keeps the
	 * parameters gathered; recomputation in FSDP's wrapper */
	launch_put(&o, " --fsdp-version 2 --fsdp-config.auto-wrap-policy "
		   "TRANSFORMER_BASED_WRAP --%sfsdp-config.reshard-after-"
		   "forward --%sfsdp-config.activation-checkpointing",
		   p->zero_stage >= 3 ? "" : "no-",
		   p->recompute != AUTOSIZE_RECOMPUTE_NONE ? "" : "no-");
	if (dp_fsdp_offload(r, p))
		launch_put(&o, " --fsdp-config.offload-params");
	return launch_done(&o);
}
