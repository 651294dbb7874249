/*
 * autosize: the accepted spellings of the core's enums, in enum order and
 * NULL-terminated. The option parser, the policy, catalog and preset
 * readers and the *_name() printers all read these, so a spelling is
 * written once.
 */
#ifndef AUTOSIZE_NAMES_H
#define AUTOSIZE_NAMES_H

extern const char *const autosize_train_mode_names[];
/* Pairs (other word, the name in autosize_train_mode_names it means),
 * NULL-terminated: "sft" is "finetune". */
extern const char *const autosize_train_mode_aliases[];
extern const char *const autosize_precision_names[];
extern const char *const autosize_optimizer_names[];
extern const char *const autosize_recompute_names[];
extern const char *const autosize_mlp_names[];
extern const char *const autosize_net_names[];
/* --autosize: AUTOSIZE_JOB_REWRITE onwards (AUTOSIZE_JOB_POLICY, the
 * unset value, has no spelling). */
extern const char *const autosize_job_mode_names[];
/* Switches: an even index is off, an odd one on. */
extern const char *const autosize_onoff_names[];
/* autosize_link (the catalog's link:, a partition's intra_node_link:). */
extern const char *const autosize_link_names[];
/* The site policy's words (autosize.yaml), in the orders of the enums in
 * policy.h: mode:, objective:, explicit_size:, on_unfit:,
 * other_partitions:, on_error:, gpu_check:; slurm_limits: and chain:
 * (off 0). */
extern const char *const autosize_mode_names[];
extern const char *const autosize_objective_names[];
extern const char *const autosize_explicit_names[];
extern const char *const autosize_unfit_names[];
extern const char *const autosize_other_names[];
extern const char *const autosize_on_error_names[];
extern const char *const autosize_gpu_check_names[];
extern const char *const autosize_slurm_limits_names[];
extern const char *const autosize_chain_names[];

#endif
