/*
 * autosize SPANK plugin: what the per-context files share. Internal to
 * spank_autosize.so (plugin/spank.map exports none of it).
 */
#ifndef AUTOSIZE_SPANK_COMMON_H
#define AUTOSIZE_SPANK_COMMON_H

#include <slurm/spank.h>
#include "autosize.h"

#define AUTOSIZE_SPANK_DEFAULT_POLICY "/etc/slurm/autosize/autosize.yaml"
#define AUTOSIZE_SPANK_DEFAULT_TMPDIR "/tmp"

/* Plugstack arguments (plugstack.conf: policy= tmpdir= hwloc_xml=
 * disabled=). */
typedef struct autosize_spank_config {
	char policy[AUTOSIZE_PATH_MAX];    /* site policy file */
	char tmpdir[AUTOSIZE_PATH_MAX];    /* DeepSpeed JSON folder */
	char hwloc_xml[AUTOSIZE_PATH_MAX]; /* "" = the live machine */
	int disabled;                      /* 1: options accepted, ignored */
} autosize_spank_config;

/* spank_common.c: parse the plugstack arguments (strict key=value; an
 * unknown key is an error naming it). 0 or -1 (logged). */
int autosize_spank_config_parse(int ac, char **av);
/* The configuration parsed in slurm_spank_init (defaults before). */
const autosize_spank_config *autosize_spank_config_get(void);
void autosize_spank_config_reset(void);

/* spank_options.c: the user options, kept from their callbacks. */
int autosize_spank_options_register(spank_t sp);
/* 1 when any autosize option was given. */
int autosize_spank_options_given(void);
/* 1 when a value was refused in the remote context (ignored there). */
int autosize_spank_options_bad(void);
/* Copy of the request built from the option values (not finished). */
void autosize_spank_options_request(autosize_request *r);
void autosize_spank_options_reset(void);

/*
 * spank_common.c: load the policy file; a missing file gives the
 * built-in defaults. NULL with *e filled when the file is unreadable or
 * broken. The caller owns the result.
 */
autosize_policy *autosize_spank_policy_load(const char *path,
					    autosize_error *e);

/* spank_allocator.c: sbatch/salloc, and srun outside a job. */
int autosize_spank_allocator_post_opt(spank_t sp, spank_context_t ctx);
void autosize_spank_allocator_exit(void);

/* spank_remote.c: slurmstepd. */
int autosize_spank_remote_user_init(spank_t sp);
void autosize_spank_remote_exit(void);

#endif
