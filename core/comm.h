/*
 * autosize internal: collectives (core/comm.c). The time of all-reduce,
 * all-gather, reduce-scatter, all-to-all and point-to-point transfers, and
 * the link each crosses: NVLink/xGMI/PCIe inside a node, the network
 * across nodes. Every parallel dimension's traffic (TP, DP/ZeRO/FSDP, PP,
 * CP, EP) is priced here.
 */
#ifndef AUTOSIZE_COMM_H
#define AUTOSIZE_COMM_H

#include "sizing.h"

/* A link as NCCL sees it: bytes/s per GPU one way (a ring's bus
 * bandwidth), seconds per step. */
typedef struct comm_link {
	double bw_bytes_s;
	double latency_s;
	int crosses_nodes;
	double allreduce_bw_bytes_s; /* > 0: all-reduce's own bus bandwidth
				      * (NVLink SHARP reduces in the
				      * NVSwitch); 0: bw_bytes_s */
	int in_network;  /* 1: the switches reduce (IB SHARP): an
			  * all-reduce moves its bytes once, not
			  * 2 (n - 1) / n times */
} comm_link;

/* The GPU-to-GPU link inside a node (NVLink, xGMI, HCCS or PCIe). */
void comm_link_intra(const sizing_job *job, comm_link *l);

/* The network between nodes, per GPU: one GPU's share of the node's
 * ports (one NIC where each GPU has its own rail), whatever share of
 * the node's GPUs the job holds. */
void comm_link_net(const sizing_job *job, comm_link *l);

/*
 * Nodes per Slurm segment (sbatch --segment) a job of nodes nodes in
 * part is planned with, so that its ranks' NVLink domain share is
 * known: 0 where none is needed (the partition's NVLink domain is one
 * node, or the job fits in one domain: topology/block keeps it in one
 * block), else the largest divisor of nodes of at most domain_nodes
 * (64 trays on 18-tray GB200 racks: 16; a prime count: 1, nothing
 * shared across trays). user_nodes > 0 is the job's own --segment,
 * which Slurm keeps: used where it divides nodes, is below it and fits
 * a domain, else 0 (racks in node order, as without one).
 */
int autosize_segment_nodes(const autosize_partition *part, int nodes,
			   int user_nodes);

/*
 * 1 when a group of span_gpus consecutive ranks of a job of job_gpus
 * GPUs stays on the link inside a node: it spans at most the job's GPUs
 * on a node (sizing_gpn), or, where several nodes share one NVLink
 * switch domain (GB200 NVL72: 18 nodes of 4), at most the job's part of
 * a domain (its GPUs per node on each of the domain's nodes, or on each
 * of one Slurm segment's past a domain: autosize_segment_nodes) and a
 * whole fraction of it, so that no group of the job straddles two.
 */
int comm_in_domain(const sizing_job *job, int span_gpus, int job_gpus);

/* How many of a group's span_gpus consecutive ranks share a node or
 * NVLink domain at the least, in the group the domains cut most unevenly
 * (for comm_in_domain false): on a multi-node domain the smallest piece
 * a domain or segment boundary leaves (16 of a 288-GPU job on NVL72:
 * the group of ranks 64-79, 8 in each rack; one group of 128 in
 * segments of 16 trays: 64; 144: 72),
 * else the job's GPUs on a node (sizing_gpn). */
int comm_domain_share(const sizing_job *job, int span_gpus, int job_gpus);

/* Of an all-to-all group of n members strided by stride ranks (an EP
 * group by its expert TP, a Ulysses group by TP) in a job of job_gpus
 * GPUs, how many share the link inside a node or NVLink domain: all n
 * where the group stays in one (comm_in_domain), else the members of the
 * least piece of it that shares one (comm_domain_share); from 1 to n. */
int comm_group_peers(const sizing_job *job, int stride, int n,
		     int job_gpus);

/* The link a group of ranks crosses: inside the node (or NVLink domain)
 * when comm_in_domain (span_gpus: the ranks it covers, consecutive
 * ranks included, e.g. tp x dp x cp for a DP group), else the
 * network. */
void comm_link_for(const sizing_job *job, int span_gpus, int job_gpus,
		   comm_link *l);

/* The link of a group whose members are every stride-th of span_gpus
 * consecutive ranks (as comm_link_for; stride 1 for TP, tp for a DP
 * group): across nodes, one ring per rail, so the NICs of its members on
 * a node (on a multi-node NVLink domain, on the least piece of the group
 * the job's share of a domain holds: comm_domain_share), at most the link
 * inside the node, less in a ring of more than 32 ranks (its measured
 * loss per doubling); inside a node, comm_link_for's. */
void comm_link_group(const sizing_job *job, int span_gpus, int job_gpus,
		     int stride, comm_link *l);

/*
 * The latency of one pass of a ring over the n = span_gpus / stride
 * members of a group: n - 1 steps, of which only those from one node
 * (or NVLink domain share) to the next cross the network, the rest
 * staying on the link inside (NCCL's ring model, src/graph/tuning.cc:
 * (nsteps - nInterSteps) x intraLat + nInterSteps x interLat, nInterSteps
 * = nNodes - 1 for reduce-scatter and all-gather).
 */
double comm_ring_latency_s(const sizing_job *job, int span_gpus,
			   int job_gpus, int stride);

/* Ring all-reduce of bytes over n ranks (Patarasuk and Yuan 2009):
 * 2 (n - 1) / n x bytes / bw + 2 (n - 1) latencies. */
double comm_allreduce_s(double bytes, int n, const comm_link *l);
/* With in_network: bytes / bw + the same latencies; with
 * allreduce_bw_bytes_s: at that bandwidth. */

/* Ring all-gather / reduce-scatter of a buffer of bytes (the full,
 * gathered size): (n - 1) / n x bytes / bw + (n - 1) latencies. */
double comm_allgather_s(double bytes, int n, const comm_link *l);
double comm_reduce_scatter_s(double bytes, int n, const comm_link *l);

/*
 * All-to-all where each rank sends bytes in total, spread evenly over n
 * ranks of which the ones beyond a node cross the network: the slower of
 * the intra-node share and the network share (NCCL runs both at once).
 */
double comm_alltoall_s(const sizing_job *job, double bytes, int n,
		       int n_per_node);

/* An all-to-all whose rank sends bytes_in to peers on its node and
 * bytes_net to peers on other nodes, both at once: the slower of the
 * two (one NIC a GPU). */
double comm_alltoall_parts_s(const sizing_job *job, double bytes_in,
			     double bytes_net);

/* One point-to-point transfer. */
double comm_p2p_s(double bytes, const comm_link *l);

#endif
