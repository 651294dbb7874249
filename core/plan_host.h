/*
 * autosize internal: what a plan needs of its nodes besides their GPUs
 * (plan_host.c): the CPUs and memory each GPU gets, the GPUs per node a
 * job's own --cpus-per-gpu / --mem-per-gpu allow, and the host memory of
 * offloaded model states.
 */
#ifndef AUTOSIZE_PLAN_HOST_H
#define AUTOSIZE_PLAN_HOST_H

#include <stddef.h>
#include "autosize/plan.h"

/*
 * The most GPUs per node the job's own CPUs and memory per GPU leave room
 * for on part's nodes (Slurm's node CPUs at most MaxCPUsPerNode, its
 * RealMemory; live may be NULL): part->gpus_per_node when they do not
 * limit it or the nodes are not known, else fewer, with why ("--cpus-per-
 * gpu=32: nodes of partition h100 have 64 CPUs"); 0 when not one fits.
 */
int plan_host_gpn_cap(const autosize_request *r,
		      const autosize_partition *part,
		      const autosize_part_limit *live, char *why, size_t len);

/* What each GPU of plan gets (plan->cpus_per_gpu, mem_per_gpu_bytes and
 * who set them): the job's own, the policy's, Slurm's DefCpuPerGPU /
 * DefMemPerGPU, else the node's share. */
void plan_host_per_gpu(const autosize_request *r,
		       const autosize_part_limit *live, autosize_plan *plan);

/*
 * The offloaded states of plan (host_bytes_per_node) against its nodes:
 * 0 when they fit (the memory per GPU raised to hold them where the job
 * did not set it), else the fewest nodes whose memory holds them (a
 * node's RealMemory, or what the job fixed), with why; -1 when even
 * that is not known to help (no node memory known).
 */
int plan_host_memory(const autosize_request *r, autosize_plan *plan,
		     char *why, size_t len);

#endif
