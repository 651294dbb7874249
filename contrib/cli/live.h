/* autosize CLI: the running cluster through libslurm (live.c). */
#ifndef AUTOSIZE_CLI_LIVE_H
#define AUTOSIZE_CLI_LIVE_H

#include <stddef.h>
#include "autosize.h"

#define LIVE_MAX_PARTS 128
#define LIVE_TYPE_MAX 64

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
	int nodes_seen;             /* nodes read for it */
	int gpus_min, gpus_max;     /* GPUs per node over its nodes */
	char gpu_type[LIVE_TYPE_MAX]; /* GRES type of its typed nodes */
	int typed_nodes, untyped_nodes; /* nodes with GPUs, typed or not */
	int gpu_mixed;              /* nodes differ in GPU type */
	int gres_unreadable;
} live_part;

typedef struct live_cluster {
	int n;
	live_part parts[LIVE_MAX_PARTS];
	int truncated;              /* more partitions than LIVE_MAX_PARTS */
} live_cluster;

/* Read the partitions and nodes from slurmctld (SLURM_CONF). 0, or -1
 * with the reason in err. */
int live_load(live_cluster *c, char *err, size_t len);
/* GPUs in a node's GRES string ("gpu:h100:8(S:0-1),gpu:a10:2"). */
void live_parse_gres(const char *gres, live_gpus *g);
/* A partition by name, or NULL. */
const live_part *live_find(const live_cluster *c, const char *name);

/* live_cmd.c: `check-config --live` (after the policy is valid): 0 when
 * the policy agrees with the cluster, 1 on an error (each printed). */
int cli_live_compare(const autosize_policy *p, const live_cluster *c);
/* `autosize inventory [--gpu TYPE]`. */
int cli_inventory(int argc, char **argv);

#endif
