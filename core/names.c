/* autosize: printable names of the core's enums (names.h). */
#include "autosize/catalog.h"
#include "autosize/framework.h"
#include "autosize/plan.h"
#include "autosize/policy.h"
#include "names.h"

const char *const names_train_mode[] = {"pretrain", "finetune", "lora",
					"qlora", NULL};
/* Other words for them, as pairs (word, the name it stands for): SFT is
 * supervised fine-tuning of every weight. */
const char *const names_train_mode_aliases[] = {"sft", "finetune", "full",
						"finetune", NULL};
const char *const names_precision[] = {"bf16", "fp16", "fp8", "nvfp4",
				       NULL};
const char *const names_optimizer[] = {"adamw", "adamw-8bit", "sgd", NULL};
const char *const names_recompute[] = {"none", "selective", "full",
				       "selective-mlp", NULL};
const char *const names_mlp[] = {"swiglu", "gelu", NULL};
const char *const names_net[] = {"ib", "roce", "ethernet", NULL};
const char *const names_moe_dispatcher[] = {"alltoall", "deepep",
					    "hybridep", NULL};
const char *const names_job_mode[] = {"rewrite", "warn", "off", "explain",
				      NULL};
const char *const names_onoff[] = {"off", "on", "0", "1", "no", "yes",
				   "false", "true", NULL};
/* declared in framework.h, public */
const char *const autosize_framework_names[] = {"megatron", "fsdp",
						 "deepspeed", NULL};
const char *const names_link[] = {"nvlink", "xgmi", "hccs", "pcie", NULL};
const char *const names_mode[] = {"rewrite", "warn", "off", NULL};
const char *const names_objective[] = {"cost", "time", NULL};
const char *const names_explicit[] = {"keep", "rewrite", NULL};
const char *const names_unfit[] = {"reject", "warn", NULL};
const char *const names_other[] = {"leave", "refuse", NULL};
const char *const names_on_error[] = {"pass", "reject", NULL};
const char *const names_gpu_check[] = {"warn", "enforce", "off", NULL};
const char *const names_slurm_limits[] = {"off", "read", NULL};
const char *const names_chain[] = {"off", "on", NULL};

/* Spellings in an array, its NULL aside. */
#define NAMES_N(a) (sizeof(a) / sizeof((a)[0]) - 1)

/* One spelling per value, from 0 to the enum's last. */
#define NAMES_ENUM(a, last) \
	_Static_assert(NAMES_N(a) == (size_t)(last) + 1, #a " spells " #last)
NAMES_ENUM(names_train_mode, AUTOSIZE_TRAIN_QLORA);
NAMES_ENUM(names_precision, AUTOSIZE_PREC_NVFP4);
NAMES_ENUM(names_optimizer, AUTOSIZE_OPT_SGD);
NAMES_ENUM(names_recompute, AUTOSIZE_RECOMPUTE_SELECTIVE_MLP);
NAMES_ENUM(names_net, AUTOSIZE_NET_ETHERNET);
NAMES_ENUM(names_moe_dispatcher,
	   AUTOSIZE_MOE_DISPATCH_HYBRIDEP - AUTOSIZE_MOE_DISPATCH_ALLTOALL);
NAMES_ENUM(autosize_framework_names,
	   AUTOSIZE_FRAMEWORK_DEEPSPEED - AUTOSIZE_FRAMEWORK_MEGATRON);
NAMES_ENUM(names_link, AUTOSIZE_LINK_PCIE);
NAMES_ENUM(names_mode, AUTOSIZE_MODE_OFF);
NAMES_ENUM(names_objective, AUTOSIZE_OBJECTIVE_TIME);
NAMES_ENUM(names_explicit, AUTOSIZE_EXPLICIT_REWRITE);
NAMES_ENUM(names_unfit, AUTOSIZE_UNFIT_WARN);
NAMES_ENUM(names_other, AUTOSIZE_OTHER_REFUSE);
NAMES_ENUM(names_on_error, AUTOSIZE_ON_ERROR_REJECT);
NAMES_ENUM(names_gpu_check, AUTOSIZE_GPU_CHECK_OFF);

/* names[i], or "?" past the array. */
static const char *names_at(const char *const *names, size_t n, unsigned i)
{
	return i < n ? names[i] : "?";
}
#define NAMES_AT(a, i) names_at(a, NAMES_N(a), (unsigned)(i))

const char *autosize_train_mode_name(autosize_train_mode m)
{
	return NAMES_AT(names_train_mode, m);
}

const char *autosize_precision_name(autosize_precision p)
{
	return NAMES_AT(names_precision, p);
}

const char *autosize_optimizer_name(autosize_optimizer o)
{
	return NAMES_AT(names_optimizer, o);
}

const char *autosize_recompute_name(autosize_recompute r)
{
	return NAMES_AT(names_recompute, r);
}

const char *autosize_moe_dispatcher_name(autosize_moe_dispatcher d)
{
	if (d == AUTOSIZE_MOE_DISPATCH_DEFAULT)
		return "default";
	return NAMES_AT(names_moe_dispatcher,
			d - AUTOSIZE_MOE_DISPATCH_ALLTOALL);
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
	return NAMES_AT(names_mode, m);
}

const char *autosize_net_name(autosize_net n)
{
	return NAMES_AT(names_net, n);
}

const char *autosize_link_name(autosize_link l)
{
	return NAMES_AT(names_link, l);
}

const char *autosize_objective_name(autosize_objective o)
{
	return NAMES_AT(names_objective, o);
}

const char *autosize_explicit_name(autosize_explicit x)
{
	return NAMES_AT(names_explicit, x);
}

const char *autosize_unfit_name(autosize_unfit u)
{
	return NAMES_AT(names_unfit, u);
}

const char *autosize_on_error_name(autosize_on_error o)
{
	return NAMES_AT(names_on_error, o);
}

const char *autosize_gpu_check_name(autosize_gpu_check g)
{
	return NAMES_AT(names_gpu_check, g);
}
