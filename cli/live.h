/* autosize CLI: the running cluster through libslurm (live.c). */
#ifndef AUTOSIZE_CLI_LIVE_H
#define AUTOSIZE_CLI_LIVE_H

#include <stddef.h>
#include <stdio.h>
#include "autosize.h"

/* Partitions read at most (a cluster with more is said to have more:
 * `truncated`); 4096 x ~250 bytes, 1 MB on the heap. */
#define LIVE_MAX_PARTS 4096
#define LIVE_TYPE_MAX 64
#define LIVE_MAX_TYPES 8

/* The GPUs of one node, from its GRES string. */
typedef struct live_gpus {
	int count;                  /* GPUs, all gpu entries together */
	char type[LIVE_TYPE_MAX];   /* the GRES type when typed */
	int typed;                  /* a type was named */
	int mixed;                  /* two different types */
	int unreadable;             /* a count that is not a number */
} live_gpus;

/* One Slurm partition and the GPUs of its nodes. */
typedef struct live_part {
	char name[AUTOSIZE_PART_NAME_MAX];
	int nodes;                  /* TotalNodes */
	int max_nodes;              /* MaxNodes per job, 0 = UNLIMITED */
	double max_time_s;          /* MaxTime, 0 = UNLIMITED */
	double default_time_s;      /* DefaultTime, 0 = none */
	int up;                     /* State=UP */
	int preempted;              /* its jobs are preempted (PreemptMode
				     * suspend, requeue or cancel) */
	int priority_tier;          /* PriorityTier */
	int nodes_seen;             /* nodes read for it */
	int gpus_min, gpus_max;     /* GPUs per node over its nodes */
	char gpu_type[LIVE_TYPE_MAX]; /* GRES type of its typed nodes */
	int typed_nodes, untyped_nodes; /* nodes with GPUs, typed or not */
	int gpu_mixed;              /* nodes differ in GPU type */
	int gres_unreadable;
	/* Its GPU types (nodes of one type each), their nodes and GPUs per
	 * node (the fewest); n_types LIVE_MAX_TYPES + 1: more types. */
	int n_types;
	char types[LIVE_MAX_TYPES][LIVE_TYPE_MAX];
	int type_nodes[LIVE_MAX_TYPES];
	int type_gpus[LIVE_MAX_TYPES];
} live_part;

typedef struct live_cluster {
	int n;
	live_part parts[LIVE_MAX_PARTS];
	int truncated;              /* more partitions than LIVE_MAX_PARTS */
} live_cluster;

/* libslurm's slurm_init, once per process (slurm_fini at its exit):
 * 24.11 crashes in slurm_init after a slurm_fini, so no command ends
 * and starts it again between two questions to slurmctld. */
void live_slurm_init(void);
/* Read the partitions and nodes from slurmctld (SLURM_CONF). 0, or -1
 * with the reason in err. */
int live_load(live_cluster *c, char *err, size_t len);
/* GPUs in a node's GRES string ("gpu:h100:8(S:0-1),gpu:a10:2"). */
void live_parse_gres(const char *gres, live_gpus *g);
/* The index of GPU type in lp->types, -1 when it has none such. */
int live_type_index(const live_part *lp, const char *type);
/* 1 when the comma list has name as one of its items. */
int live_in_list(const char *list, const char *name);
/* A partition by name, or NULL. */
const live_part *live_find(const live_cluster *c, const char *name);
/* "2-00:00:00", or "UNLIMITED" for 0. */
const char *live_time(double s, char *buf, size_t len);
/* Slurm's MaxNodes as scontrol prints it. */
const char *live_max_nodes(const live_part *lp, char *buf, size_t len);
/* Nodes one job may have in Slurm: MaxNodes, at most the nodes there. */
int live_job_nodes(const live_part *lp);

/* live_limits.c: Slurm's QOS and association limits and nodes as the
 * snapshot of limits.h, written to f (0, or -1 with err); read back
 * (NULL with err); printed one line each after lead. `autosize limits
 * [--raw]`. */
int live_limits_write(FILE *f, char *err, size_t len);
autosize_limits *live_limits_load(char *err, size_t len);
void live_limits_print(FILE *f, const autosize_limits *l, const char *lead);
int cli_limits(int argc, char **argv);

/* live_cmd.c: `check-config --live` (after the policy is valid): 0 when
 * the policy agrees with the cluster, 1 on an error (each printed); with
 * limits, Slurm's QOS and association limits too (live_limits.c asks
 * slurmctld for them). */
int cli_live_compare(const autosize_policy *p, const live_cluster *c,
		     int limits);
/* inventory.c: the starting policy for cluster c on f (gpu_flag: --gpu
 * TYPE, or NULL): every GPU partition, the first AUTOSIZE_MAX_PARTITIONS
 * that can be written in full active, the others commented out with the
 * reason; names quoted for YAML. Returns the active ones; *gpu_parts
 * the partitions with GPUs. */
int live_inventory_write(FILE *f, const autosize_catalog *cat,
			 const live_cluster *c, const char *gpu_flag,
			 int *gpu_parts);
/* s as a YAML double-quoted scalar in buf (", \, control and non-ASCII
 * bytes escaped; cut to fit): a name YAML would read as null, true, a
 * number or a comment stays the string it is. */
const char *live_yaml_quote(const char *s, char *buf, size_t len);
/* `autosize inventory [--gpu TYPE]`. */
int cli_inventory(int argc, char **argv);

#endif
