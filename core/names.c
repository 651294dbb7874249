/* autosize: printable names of the core's enums (names.h). */
#include "autosize/catalog.h"
#include "autosize/framework.h"
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
const char *const autosize_framework_names[] = {"megatron", "fsdp",
						 "deepspeed", NULL};
const char *const autosize_link_names[] = {"nvlink", "xgmi", "hccs", "pcie",
					   NULL};
const char *const autosize_mode_names[] = {"rewrite", "warn", "off", NULL};
const char *const autosize_objective_names[] = {"cost", "time", NULL};
const char *const autosize_explicit_names[] = {"keep", "rewrite", NULL};
const char *const autosize_unfit_names[] = {"reject", "warn", NULL};
const char *const autosize_other_names[] = {"leave", "refuse", NULL};
const char *const autosize_on_error_names[] = {"pass", "reject", NULL};
const char *const autosize_gpu_check_names[] = {"warn", "enforce", "off",
						NULL};
const char *const autosize_slurm_limits_names[] = {"off", "read", NULL};
const char *const autosize_chain_names[] = {"off", "on", NULL};

/* Spellings in an array, its NULL aside. */
#define NAMES_N(a) (sizeof(a) / sizeof((a)[0]) - 1)

/* One spelling per value, from 0 to the enum's last. */
#define NAMES_ENUM(a, last) \
	_Static_assert(NAMES_N(a) == (size_t)(last) + 1, #a " spells " #last)
NAMES_ENUM(autosize_train_mode_names, AUTOSIZE_TRAIN_QLORA);
NAMES_ENUM(autosize_precision_names, AUTOSIZE_PREC_FP8);
NAMES_ENUM(autosize_optimizer_names, AUTOSIZE_OPT_SGD);
NAMES_ENUM(autosize_recompute_names, AUTOSIZE_RECOMPUTE_SELECTIVE_MLP);
NAMES_ENUM(autosize_net_names, AUTOSIZE_NET_ETHERNET);
NAMES_ENUM(autosize_framework_names,
	   AUTOSIZE_FRAMEWORK_DEEPSPEED - AUTOSIZE_FRAMEWORK_MEGATRON);
NAMES_ENUM(autosize_link_names, AUTOSIZE_LINK_PCIE);
NAMES_ENUM(autosize_mode_names, AUTOSIZE_MODE_OFF);
NAMES_ENUM(autosize_objective_names, AUTOSIZE_OBJECTIVE_TIME);
NAMES_ENUM(autosize_explicit_names, AUTOSIZE_EXPLICIT_REWRITE);
NAMES_ENUM(autosize_unfit_names, AUTOSIZE_UNFIT_WARN);
NAMES_ENUM(autosize_other_names, AUTOSIZE_OTHER_REFUSE);
NAMES_ENUM(autosize_on_error_names, AUTOSIZE_ON_ERROR_REJECT);
NAMES_ENUM(autosize_gpu_check_names, AUTOSIZE_GPU_CHECK_OFF);

/* names[i], or "?" past the array. */
static const char *names_at(const char *const *names, size_t n, unsigned i)
{
	return i < n ? names[i] : "?";
}
#define NAMES_AT(a, i) names_at(a, NAMES_N(a), (unsigned)(i))

const char *autosize_train_mode_name(autosize_train_mode m)
{
	return NAMES_AT(autosize_train_mode_names, m);
}

const char *autosize_precision_name(autosize_precision p)
{
	return NAMES_AT(autosize_precision_names, p);
}

const char *autosize_optimizer_name(autosize_optimizer o)
{
	return NAMES_AT(autosize_optimizer_names, o);
}

const char *autosize_recompute_name(autosize_recompute r)
{
	return NAMES_AT(autosize_recompute_names, r);
}

const char *autosize_framework_name(autosize_framework f)
{
	if (f == AUTOSIZE_FRAMEWORK_DEFAULT)
		return "default";
	return NAMES_AT(autosize_framework_names,
			f - AUTOSIZE_FRAMEWORK_MEGATRON);
}

const char *autosize_mode_name(autosize_mode m)
{
	return NAMES_AT(autosize_mode_names, m);
}

const char *autosize_net_name(autosize_net n)
{
	return NAMES_AT(autosize_net_names, n);
}

const char *autosize_link_name(autosize_link l)
{
	return NAMES_AT(autosize_link_names, l);
}

const char *autosize_objective_name(autosize_objective o)
{
	return NAMES_AT(autosize_objective_names, o);
}

const char *autosize_explicit_name(autosize_explicit x)
{
	return NAMES_AT(autosize_explicit_names, x);
}

const char *autosize_unfit_name(autosize_unfit u)
{
	return NAMES_AT(autosize_unfit_names, u);
}

const char *autosize_on_error_name(autosize_on_error o)
{
	return NAMES_AT(autosize_on_error_names, o);
}

const char *autosize_gpu_check_name(autosize_gpu_check g)
{
	return NAMES_AT(autosize_gpu_check_names, g);
}
