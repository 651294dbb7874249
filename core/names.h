/*
 * autosize: the accepted spellings of the core's enums, in enum order and
 * NULL-terminated. The option parser, the policy, catalog and preset
 * readers and the *_name() printers all read these, so a spelling is
 * written once. The frameworks' are public: autosize_framework_names
 * (framework.h), defined in names.c with the rest.
 */
#ifndef AUTOSIZE_NAMES_H
#define AUTOSIZE_NAMES_H

extern const char *const names_train_mode[];
/* Pairs (other word, the name in names_train_mode it means),
 * NULL-terminated: "sft" is "finetune". */
extern const char *const names_train_mode_aliases[];
extern const char *const names_precision[];
extern const char *const names_optimizer[];
extern const char *const names_recompute[];
extern const char *const names_mlp[];
extern const char *const names_net[];
/* --moe-dispatcher: AUTOSIZE_MOE_DISPATCH_ALLTOALL onwards (DEFAULT, the
 * unset value, has no spelling). */
extern const char *const names_moe_dispatcher[];
/* --autosize: AUTOSIZE_JOB_REWRITE onwards (AUTOSIZE_JOB_POLICY, the
 * unset value, has no spelling). */
extern const char *const names_job_mode[];
/* Switches: an even index is off, an odd one on. */
extern const char *const names_onoff[];
/* autosize_link (the catalog's link:, a partition's intra_node_link:). */
extern const char *const names_link[];
/* The site policy's words (autosize.yaml), in the orders of the enums in
 * policy.h: mode:, objective:, explicit_size:, on_unfit:,
 * other_partitions:, on_error:, gpu_check:; slurm_limits: and chain:
 * (off 0). */
extern const char *const names_mode[];
extern const char *const names_objective[];
extern const char *const names_explicit[];
extern const char *const names_unfit[];
extern const char *const names_other[];
extern const char *const names_on_error[];
extern const char *const names_gpu_check[];
extern const char *const names_slurm_limits[];
extern const char *const names_chain[];

#endif
