/*
 * autosize: the training framework a job runs under. It decides which
 * layouts exist (Megatron: TP/PP/VP/CP/EP and a distributed optimizer;
 * FSDP2: ZeRO-3-like sharding with optional TP/PP as in torchtitan;
 * DeepSpeed: ZeRO 0-3) and how model states are stored. Stated by the
 * user or the site policy, never inferred from the layout.
 */
#ifndef AUTOSIZE_FRAMEWORK_H
#define AUTOSIZE_FRAMEWORK_H

typedef enum autosize_framework {
	AUTOSIZE_FRAMEWORK_DEFAULT = 0, /* request: the policy's default */
	AUTOSIZE_FRAMEWORK_MEGATRON,    /* Megatron-LM / NeMo */
	AUTOSIZE_FRAMEWORK_FSDP,        /* PyTorch FSDP2 (torchtitan) */
	AUTOSIZE_FRAMEWORK_DEEPSPEED    /* DeepSpeed ZeRO */
} autosize_framework;

/* The framework used when neither the request nor the policy names one. */
#define AUTOSIZE_FRAMEWORK_BUILTIN AUTOSIZE_FRAMEWORK_MEGATRON

/* "megatron", "fsdp", "deepspeed" ("default" for the unset value). */
const char *autosize_framework_name(autosize_framework f);

/* Choices as the options and the policy spell them, NULL-terminated, in
 * enum order from AUTOSIZE_FRAMEWORK_MEGATRON. */
extern const char *const autosize_framework_names[];

#endif
