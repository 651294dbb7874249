/*
 * autosize: what the job of a plan runs, for the launchers (launch.h):
 * the optimizer steps that train its tokens, the precision its stack
 * trains in, adapter training. Used by the launcher files and by the
 * planner, which prices the precision the stack runs.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "autosize/launch.h"
#include "framework_private.h"
#include "launch_private.h"
#include "perfdata.h"

int launch_peft(const autosize_request *r)
{
	return r->train_mode == AUTOSIZE_TRAIN_LORA ||
	       r->train_mode == AUTOSIZE_TRAIN_QLORA;
}

/* 1 for the stacks that run the Hugging Face Trainer (doc/stacks.md). */
static int run_trainer_stack(const char *stack)
{
	static const char *const names[] = {"hf", "axolotl", "llama-factory",
					    "unsloth"};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(stack, names[i]) == 0)
			return 1;
	return 0;
}

/* 1 where NVFP4 can train: Megatron-Core with Transformer Engine's
 * NVFP4BlockScaling (--fp4-format e2m1, launch.c): the framework named,
 * else a shipped stack's; a site's own stack or the site's default
 * framework is left to plan_job, which knows the site's table and
 * plans any framework but Megatron in bf16. */
static int run_nvfp4(const autosize_request *r)
{
	const perfdata_stack *st;

	if (r->framework != AUTOSIZE_FRAMEWORK_DEFAULT)
		return r->framework == AUTOSIZE_FRAMEWORK_MEGATRON;
	st = r->stack[0] ? perfdata_stack_find(perfdata_default(), r->stack)
			 : NULL;
	return !st || framework_resolve(st->framework) ==
		      AUTOSIZE_FRAMEWORK_MEGATRON;
}

autosize_precision autosize_launch_precision(const autosize_request *r,
					     char *why, size_t len)
{
	if (why && len)
		why[0] = '\0';
	if (!r)
		return AUTOSIZE_PREC_BF16;
	if (r->precision == AUTOSIZE_PREC_NVFP4 && !run_nvfp4(r)) {
		if (why && len)
			snprintf(why, len, "NVFP4 trains under Megatron-Core "
				 "(Transformer Engine's NVFP4BlockScaling, "
				 "--fp4-format e2m1); %s has no 4-bit "
				 "recipe: planned in bf16, as the job trains",
				 r->stack[0] ? r->stack
				 : autosize_framework_name(r->framework));
		return AUTOSIZE_PREC_BF16;
	}
	/* the HF Trainer checks the DeepSpeed JSON's bf16.enabled against
	 * its --bf16 (integrations/deepspeed.py trainer_config_process,
	 * transformers 5.2) and --bf16 turns accelerate's fp8 off, while
	 * accelerate enables bf16 in the JSON for fp8: no FP8 there */
	if (r->precision == AUTOSIZE_PREC_FP8 &&
	    r->framework == AUTOSIZE_FRAMEWORK_DEEPSPEED &&
	    run_trainer_stack(r->stack)) {
		if (why && len)
			snprintf(why, len, "the Hugging Face Trainer (stack %s) "
				 "cannot train FP8 under DeepSpeed (its check "
				 "of the JSON's bf16 against --bf16 fails): "
				 "planned in bf16, as the job trains", r->stack);
		return AUTOSIZE_PREC_BF16;
	}
	/* torchtune: only full_finetune_distributed reads
	 * enable_fp8_training (torchtune recipes at bd2a0fc7); its LoRA and
	 * QLoRA recipes train in bf16 */
	if (strcmp(r->stack, "torchtune") == 0 && launch_peft(r) &&
	    r->precision == AUTOSIZE_PREC_FP8) {
		if (why && len)
			snprintf(why, len, "torchtune's %s recipes have no FP8 "
				 "(only full_finetune_distributed reads "
				 "enable_fp8_training): planned in bf16, as "
				 "the job trains",
				 autosize_train_mode_name(r->train_mode));
		return AUTOSIZE_PREC_BF16;
	}
	return (autosize_precision)r->precision;
}

/* Whole optimizer steps that train tokens (the last one may run past
 * them); 0 for none, or past what a count of steps means (1e15). */
static long run_steps(const autosize_plan *p, double tokens)
{
	double n;

	if (!(tokens > 0) || p->global_batch < 1 || p->seq_len < 1)
		return 0;
	n = ceil(tokens / ((double)p->global_batch * p->seq_len) - 1e-9);
	return n < 1e15 ? (long)n : 0;
}

long autosize_launch_steps(const autosize_plan *p)
{
	/* the whole run's: a resumed launcher counts on from the steps
	 * its checkpoint holds (the Trainer's global_step, Megatron's
	 * iteration, torchtitan's step) */
	return p ? run_steps(p, p->tokens + p->tokens_done) : 0;
}

long autosize_launch_job_steps(const autosize_plan *p)
{
	return p ? run_steps(p, autosize_plan_part(p, p->chain_index,
						   p->chain_done_before))
		 : 0;
}

long autosize_launch_exit_minutes(const autosize_plan *p)
{
	double lead_s;
	long m;

	if (!p || p->chained_jobs <= 1 || p->time_limit_min <= 0)
		return 0;
	lead_s = p->signal_s > 0 ? p->signal_s
				 : p->ckpt.write_s +
				   AUTOSIZE_CHECKPOINT_SIGNAL_MARGIN_S;
	/* Megatron's clock starts at its initialisation, a minute or two
	 * into the job (LAUNCH_EXIT_SLACK_MIN): it stops with its
	 * checkpoint written before the signal would come */
	m = p->time_limit_min - (long)ceil(lead_s / 60) -
	    LAUNCH_EXIT_SLACK_MIN;
	return m > 0 ? m : 0;
}
