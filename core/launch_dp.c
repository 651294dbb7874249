/*
 * autosize: the launchers of the data-parallel fine-tuning stacks that
 * most renters run: `accelerate launch` (Hugging Face accelerate), the
 * Hugging Face Trainer's arguments, torchtune's recipe overrides
 * (launch.h). Pure string formatting over a plan.
 */
#include <stdio.h>
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
		/* every node reaches the first over one network; c10d:
		 * the agents agree on ranks themselves */
		launch_put(o, " --rdzv_backend c10d --same_network");
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
	launch_put(&o, " --mixed_precision %s",
		   r->precision == AUTOSIZE_PREC_FP16 ? "fp16"
		   : r->precision == AUTOSIZE_PREC_FP8 ? "fp8 --fp8_backend te"
		   : "bf16");
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
	if (r->precision == AUTOSIZE_PREC_FP16)
		launch_put(&o, " --fp16 True");
	else if (r->precision == AUTOSIZE_PREC_BF16)
		launch_put(&o, " --bf16 True");
	return launch_done(&o);
}

int autosize_launch_torchtune_args(const autosize_request *r,
				   const autosize_plan *p, char *buf,
				   size_t len)
{
	launch_out o;
	int go = dp_begin(&o, buf, len, r, p), recompute;

	if (go <= 0 || !dp_fsdp(p) || r->precision == AUTOSIZE_PREC_FP16)
		return go < 0 ? go : 0;
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
	if (r->precision == AUTOSIZE_PREC_FP8)
		launch_put(&o, " enable_fp8_training=True");
	/* --param-offload: the distributed recipes' FSDP2 CPUOffloadPolicy
	 * (on one GPU too: run the distributed recipe with one process;
	 * the single-device recipes have no parameter offload) */
	if (dp_fsdp_offload(r, p))
		launch_put(&o, " fsdp_cpu_offload=True");
	return launch_done(&o);
}
