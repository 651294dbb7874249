/* autosize: printable names of the core's enums. */
#include "autosize/plan.h"

const char *autosize_train_mode_name(autosize_train_mode m)
{
	static const char *const names[] = {"pretrain", "finetune", "lora",
					    "qlora"};

	return (unsigned)m < 4 ? names[m] : "?";
}

const char *autosize_precision_name(autosize_precision p)
{
	static const char *const names[] = {"bf16", "fp16", "fp8"};

	return (unsigned)p < 3 ? names[p] : "?";
}

const char *autosize_optimizer_name(autosize_optimizer o)
{
	static const char *const names[] = {"adamw", "adamw-8bit", "sgd"};

	return (unsigned)o < 3 ? names[o] : "?";
}

const char *autosize_recompute_name(autosize_recompute r)
{
	static const char *const names[] = {"none", "selective", "full",
					    "selective-mlp"};

	return (unsigned)r < 4 ? names[r] : "?";
}
