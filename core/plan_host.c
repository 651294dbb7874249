/*
 * autosize: what a plan needs of its nodes besides their GPUs
 * (plan_host.h). What Slurm gives a job per GPU comes from, in order:
 * the job's own --cpus-per-gpu / --mem-per-gpu, the policy partition's
 * cpus_per_gpu / mem_per_gpu, the Slurm partition's DefCpuPerGPU /
 * DefMemPerGPU, else the node's share (its CPUs, at most MaxCPUsPerNode,
 * and its RealMemory over its GPUs): a training job's data loaders want
 * the CPUs beside its GPUs, and Slurm's own default (one CPU, DefMemPerCPU)
 * starves them.
 */
#include <math.h>
#include <stdio.h>
#include "plan_host.h"

#define HOST_MB (1024.0 * 1024)
#define HOST_GIB (HOST_MB * 1024)

/* Slurm's record of the partition's nodes of part's GPU type. */
static const autosize_slurm_part *host_nodes(const autosize_request *r,
					     const autosize_partition *part)
{
	return autosize_limits_partition(r->slurm, part->name,
					 part->gres_type);
}

/* CPUs one job may have on a node: the node's, at most MaxCPUsPerNode;
 * -1 unknown. */
static long host_cpus(const autosize_slurm_part *sp,
		      const autosize_part_limit *live)
{
	long cpus = sp ? sp->node_cpus : -1;
	long max = live && live->max_cpus_per_node > 0
		   ? live->max_cpus_per_node
		   : sp && sp->max_cpus_per_node > 0 ? sp->max_cpus_per_node
		   : -1;

	if (cpus < 0 || (max > 0 && max < cpus))
		cpus = max;
	return cpus;
}

int plan_host_gpn_cap(const autosize_request *r,
		      const autosize_partition *part,
		      const autosize_part_limit *live, char *why, size_t len)
{
	const autosize_slurm_part *sp = host_nodes(r, part);
	long cpus = host_cpus(sp, live), gpn = part->gpus_per_node, cap;
	double mem = sp && sp->node_mem_mb > 0 ? sp->node_mem_mb * HOST_MB : 0;

	if (len)
		why[0] = '\0';
	if (r->cpus_per_gpu > 0 && cpus > 0 && cpus / r->cpus_per_gpu < gpn) {
		gpn = cpus / r->cpus_per_gpu;
		snprintf(why, len, "--cpus-per-gpu=%d: nodes of partition %s "
			 "have %ld CPUs for a job, room for %ld GPU%s",
			 r->cpus_per_gpu, part->name, cpus, gpn,
			 gpn == 1 ? "" : "s");
	}
	if (r->mem_per_gpu_bytes > 0 && mem > 0) {
		cap = (long)floor(mem / r->mem_per_gpu_bytes);
		if (cap < gpn) {
			gpn = cap;
			snprintf(why, len, "--mem-per-gpu=%.0fM: nodes of "
				 "partition %s have %.0f GiB, room for %ld GPU%s",
				 r->mem_per_gpu_bytes / HOST_MB, part->name,
				 mem / HOST_GIB, gpn, gpn == 1 ? "" : "s");
		}
	}
	return (int)gpn;
}

void plan_host_per_gpu(const autosize_request *r,
		       const autosize_part_limit *live, autosize_plan *plan)
{
	const autosize_partition *part = &plan->part;
	const autosize_slurm_part *sp = host_nodes(r, part);
	long cpus = host_cpus(sp, live);
	long node_gpus = sp && sp->node_gpus > 0 ? sp->node_gpus
			 : part->gpus_per_node;

	plan->cpus_from = plan->mem_from = AUTOSIZE_PER_GPU_NONE;
	plan->cpus_per_gpu = 0;
	plan->mem_per_gpu_bytes = 0;
	if (r->cpus_per_gpu > 0) {
		plan->cpus_per_gpu = r->cpus_per_gpu;
		plan->cpus_from = AUTOSIZE_PER_GPU_JOB;
	} else if (part->cpus_per_gpu > 0) {
		plan->cpus_per_gpu = part->cpus_per_gpu;
		plan->cpus_from = AUTOSIZE_PER_GPU_POLICY;
	} else if (sp && sp->def_cpus_per_gpu > 0) {
		plan->cpus_per_gpu = (int)sp->def_cpus_per_gpu;
		plan->cpus_from = AUTOSIZE_PER_GPU_SLURM;
	} else if (cpus > 0 && node_gpus > 0 && cpus / node_gpus >= 1) {
		plan->cpus_per_gpu = (int)(cpus / node_gpus);
		plan->cpus_from = AUTOSIZE_PER_GPU_NODE;
	}
	if (r->mem_per_gpu_bytes > 0) {
		plan->mem_per_gpu_bytes = r->mem_per_gpu_bytes;
		plan->mem_from = AUTOSIZE_PER_GPU_JOB;
	} else if (part->mem_per_gpu_bytes > 0) {
		plan->mem_per_gpu_bytes = part->mem_per_gpu_bytes;
		plan->mem_from = AUTOSIZE_PER_GPU_POLICY;
	} else if (sp && sp->def_mem_per_gpu_mb > 0) {
		plan->mem_per_gpu_bytes = sp->def_mem_per_gpu_mb * HOST_MB;
		plan->mem_from = AUTOSIZE_PER_GPU_SLURM;
	} else if (sp && sp->node_mem_mb > 0 && node_gpus > 0) {
		/* whole megabytes, as Slurm counts them */
		plan->mem_per_gpu_bytes = floor((double)sp->node_mem_mb /
						node_gpus) * HOST_MB;
		plan->mem_from = AUTOSIZE_PER_GPU_NODE;
	}
}

int plan_host_memory(const autosize_request *r, autosize_plan *plan,
		     char *why, size_t len)
{
	const autosize_slurm_part *sp = host_nodes(r, &plan->part);
	double need = plan->host_bytes_per_node, total, cap, per_gpu;
	double node = sp && sp->node_mem_mb > 0 ? sp->node_mem_mb * HOST_MB
		      : 0;
	int fixed = r->host_fixed || plan->mem_from == AUTOSIZE_PER_GPU_JOB;
	long nodes;

	if (len)
		why[0] = '\0';
	if (!(need > 0))
		return 0;
	/* what one node may hold: all of it, unless the job fixed it */
	cap = fixed && plan->mem_per_gpu_bytes > 0
	      ? plan->mem_per_gpu_bytes * plan->gpus_per_node : node;
	if (cap > 0 && need <= cap) {
		per_gpu = ceil(need / plan->gpus_per_node / HOST_MB) * HOST_MB;
		if (!fixed && plan->mem_per_gpu_bytes > 0 &&
		    per_gpu > plan->mem_per_gpu_bytes) {
			/* more than the default per GPU: ask for it */
			plan->mem_per_gpu_bytes = per_gpu;
			plan->mem_from = AUTOSIZE_PER_GPU_HOST;
		}
		return 0;
	}
	if (!(cap > 0))
		return -1;
	/* ZeRO-3 shards spread over every GPU: more nodes, less each */
	total = need * plan->nodes;
	nodes = (long)ceil(total / cap - 1e-9);
	snprintf(why, len, "its offloaded model states need %.0f GiB of "
		 "host memory per node (%d node%s), %s %.0f GiB: %ld nodes "
		 "hold them", need / HOST_GIB, plan->nodes,
		 plan->nodes == 1 ? "" : "s",
		 fixed ? "the job asked for" : "nodes here have",
		 cap / HOST_GIB, nodes);
	return nodes > plan->nodes ? (int)(nodes < 1000000 ? nodes : 1000000)
				   : plan->nodes + 1;
}
