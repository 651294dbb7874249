/*
 * autosize internal: readers shared by the policy loader (policy.c) and
 * the policy sections parsed beside it: a partition's price schedule
 * (price.c) and the checkpoint policy (checkpoint.c). Errors name the
 * file, line and key like every other key of the policy. The value
 * readers are in policy_read.c, each section's parser in its module.
 */
#ifndef AUTOSIZE_POLICY_READ_H
#define AUTOSIZE_POLICY_READ_H

#include "autosize/policy.h"
#include "ytree.h"

/* An optional fraction in [0, max] of map's key: a number or a
 * percentage ("20%"); absent leaves *out. */
autosize_err policy_fraction(const autosize_ytree *t,
			     const autosize_ynode *map, const char *key,
			     double max, double *out, autosize_error *e);

/* An optional duration (Slurm or human form) into *out seconds; with
 * unlimited_ok, UNLIMITED / INFINITE give 0. Absent leaves *out. */
autosize_err policy_duration(const autosize_ytree *t,
			     const autosize_ynode *map, const char *key,
			     int unlimited_ok, double *out,
			     autosize_error *e);

/* An optional memory size as Slurm writes it (--mem-per-gpu): a number
 * of megabytes, or with K, M, G or T (powers of 1024), into *out bytes;
 * absent leaves *out. */
autosize_err policy_mem_bytes(const autosize_ytree *t,
			      const autosize_ynode *map, const char *key,
			      double *out, autosize_error *e);

/* An optional list of names (users, accounts, QOS: no space, comma or
 * control character, each shorter than AUTOSIZE_EXEMPT_NAME_MAX) of
 * map's key, at most max, into names (*n of them; 0 when absent, *found
 * then 0); `what` names the key in messages ("exempt.users"). */
autosize_err policy_names(const autosize_ytree *t, const autosize_ynode *map,
			  const char *key, const char *what, int max,
			  char (*names)[AUTOSIZE_EXEMPT_NAME_MAX], int *n,
			  int *found, autosize_error *e);

/* A partition's optional `pricing:` map (price.c) into part->pricing;
 * part's price_per_gpu_hour and gpus_per_node are already read. A
 * schedule that loads but looks wrong (a whole-node price above the
 * GPUs' own) leaves a one-line warning in warn ("" when none). */
autosize_err price_policy_parse(const autosize_ytree *t,
				const autosize_ynode *part_map,
				autosize_partition *part, char *warn,
				size_t warn_len, autosize_error *e);

/* The policy's optional top-level `checkpoint:` map (checkpoint.c). */
autosize_err checkpoint_policy_parse(const autosize_ytree *t,
				     const autosize_ynode *root,
				     autosize_checkpoint_policy *cp,
				     autosize_error *e);

/* What `rules:` is read against, and where its warnings go: the
 * policy's partitions and perf table, its warnings (max of them). */
typedef struct policy_rules_in {
	const autosize_partition *parts;
	int n_parts;
	const struct perfdata_table *perf;
	char (*warnings)[AUTOSIZE_POLICY_WARNING_LEN];
	int *n_warnings;
	int max_warnings;
} policy_rules_in;

/* The policy's optional top-level `rules:` list (policy_rules.c) into
 * *rules (one allocation, *n of them; NULL when none), read once the
 * partitions and the site's perf table are. */
autosize_err policy_rules_parse(const autosize_ytree *t,
				const policy_rules_in *in,
				autosize_rule **rules, int *n,
				autosize_error *e);
/* The first of the n rules matching a job (NULL none); names "" or NULL
 * when not known. */
const autosize_rule *policy_rules_match(const autosize_rule *rules, int n,
					const char *user, const char *account,
					const char *qos);

#endif
