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
#include "launch_private.h"

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

autosize_precision autosize_launch_precision(const autosize_request *r,
					     char *why, size_t len)
{
	if (why && len)
		why[0] = '\0';
	if (!r)
		return AUTOSIZE_PREC_BF16;
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

long autosize_launch_steps(const autosize_plan *p)
{
	double step_tokens, n;

	if (!p || p->tokens <= 0 || p->global_batch < 1 || p->seq_len < 1)
		return 0;
	step_tokens = (double)p->global_batch * p->seq_len;
	/* whole steps: the last one may run past the count; none past
	 * what a count of steps means (1e15) */
	n = ceil(p->tokens / step_tokens);
	return n < 1e15 ? (long)n : 0;
}
