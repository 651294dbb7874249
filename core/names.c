/* autosize: printable names of the core's enums (names.h). */
#include "autosize/plan.h"
#include "autosize/policy.h"
#include "names.h"

const char *const autosize_train_mode_names[] = {"pretrain", "finetune",
						 "lora", "qlora", NULL};
/* Other words for them, as pairs (word, the name it stands for): SFT is
 * supervised fine-tuning of every weight. */
const char *const autosize_train_mode_aliases[] = {"sft", "finetune",
						   "full", "finetune", NULL};
const char *const autosize_precision_names[] = {"bf16", "fp16", "fp8",
						NULL};
const char *const autosize_optimizer_names[] = {"adamw", "adamw-8bit", "sgd",
						NULL};
const char *const autosize_recompute_names[] = {"none", "selective", "full",
						"selective-mlp", NULL};
const char *const autosize_mlp_names[] = {"swiglu", "gelu", NULL};
const char *const autosize_net_names[] = {"ib", "roce", "ethernet", NULL};
const char *const autosize_job_mode_names[] = {"rewrite", "warn", "off",
					       "explain", NULL};
const char *const autosize_onoff_names[] = {"off", "on", "0", "1", "no",
					    "yes", "false", "true", NULL};

const char *autosize_train_mode_name(autosize_train_mode m)
{
	return (unsigned)m <= AUTOSIZE_TRAIN_QLORA ?
	       autosize_train_mode_names[m] : "?";
}

const char *autosize_precision_name(autosize_precision p)
{
	return (unsigned)p <= AUTOSIZE_PREC_FP8 ?
	       autosize_precision_names[p] : "?";
}

const char *autosize_optimizer_name(autosize_optimizer o)
{
	return (unsigned)o <= AUTOSIZE_OPT_SGD ?
	       autosize_optimizer_names[o] : "?";
}

const char *autosize_recompute_name(autosize_recompute r)
{
	return (unsigned)r <= AUTOSIZE_RECOMPUTE_SELECTIVE_MLP ?
	       autosize_recompute_names[r] : "?";
}
