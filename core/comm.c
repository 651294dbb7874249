/*
 * autosize: collectives and the links they cross (comm.h). Efficiencies
 * and latencies come from the plan's performance data (etc/perf.yaml).
 */
#include <math.h>
#include "comm.h"

/* NVLink SHARP (NVLS) all-reduce bus bandwidth over the one-way NVLink
 * rate: 476 GB/s on 8 H100 of 450 GB/s one way, "the expected range for
 * H100" (NCCL maintainer, github.com/NVIDIA/nccl-tests/issues/290,
 * 2025-03-03); taken as the same share on other NVSwitch systems. */
#define COMM_NVLS_SHARE (476.0 / 450.0)

/* The in-switch reductions a partition has (policy nvlink_sharp,
 * ib_sharp) on a link inside (net 0) or across (1) nodes. */
static void comm_link_sharp(const autosize_partition *part, int net,
			    comm_link *l)
{
	l->allreduce_bw_bytes_s = 0;
	l->in_network = 0;
	if (!net && part->nvlink_sharp &&
	    part->intra_link == AUTOSIZE_LINK_NVLINK) {
		double nvls = part->intra_gbs * 1e9 / 2 * COMM_NVLS_SHARE;

		l->allreduce_bw_bytes_s = nvls > l->bw_bytes_s ? nvls : 0;
	}
	/* SHARP aggregates in InfiniBand switches (Graham et al. 2016,
	 * "Scalable Hierarchical Aggregation Protocol"; NCCL CollNet):
	 * each node sends its data up once and receives the sum once */
	if (net && part->ib_sharp && part->net == AUTOSIZE_NET_IB)
		l->in_network = 1;
}

/* NCCL between PCIe GPUs without peer-to-peer (GeForce RTX 4090:
 * catalog p2p 0) falls back to its SHM transport: each ring step is a
 * copy to pinned host memory and one back, both across the GPUs' PCIe
 * links and the host's memory. Measured all_reduce_perf bus bandwidth
 * on two such GPUs under one PCIe Gen3 x16 switch: 4.00 GB/s at 8 MB -
 * 1 GB, against 15.75 GB/s one way (2080 Ti, P2P "NS"; nccl-tests on
 * AutoDL, Anthony-Hoo/Anthony-Hoo.github.io @37e805e
 * posts/AutoDL_Multi-GPU_Interconnection_Test.md): 0.25 of the one-way
 * link rate, which stands in for pcie_eff. The NCCL maintainers put
 * PCIe collectives at what the CPU and its memory deliver
 * (github.com/NVIDIA/nccl/issues/1639), so the share, not the rate,
 * carries to Gen4. */
#define COMM_HOST_STAGED_SHARE (4.00 / 15.75)

void comm_link_intra(const sizing_job *job, comm_link *l)
{
	const perf_params *pp = sizing_perf(job);
	const autosize_partition *part = job->part;
	double eff = part->intra_link == AUTOSIZE_LINK_PCIE ? pp->pcie_eff
							     : pp->nvlink_eff;

	if (part->intra_link == AUTOSIZE_LINK_PCIE && part->gpu &&
	    part->gpu->no_p2p)
		eff = COMM_HOST_STAGED_SHARE;

	/* intra_gbs is both directions together: half one way */
	l->bw_bytes_s = part->intra_gbs * 1e9 / 2 * eff;
	l->latency_s = part->intra_link == AUTOSIZE_LINK_PCIE
		       ? pp->pcie_latency_s : pp->intra_latency_s;
	l->crosses_nodes = 0;
	comm_link_sharp(part, 0, l);
}

void comm_link_net(const sizing_job *job, comm_link *l)
{
	const perf_params *pp = sizing_perf(job);
	const autosize_partition *part = job->part;
	double eff = pp->ib_eff;

	l->latency_s = pp->ib_latency_s;
	if (part->net == AUTOSIZE_NET_ROCE) {
		eff = pp->roce_eff;
		l->latency_s = pp->roce_latency_s;
	} else if (part->net == AUTOSIZE_NET_ETHERNET) {
		eff = pp->ethernet_eff;
		l->latency_s = pp->ethernet_latency_s;
	}
	/* Gb/s per node, shared by all its GPUs: one GPU's NIC on
	 * rail-optimized nodes (DGX H100: eight 400 Gb/s ConnectX-7, one
	 * per GPU). A job on fewer of the node's GPUs (sizing_gpn) gets
	 * its own GPUs' share, not the idle ones': Slurm allocates GPUs,
	 * not NICs, so the rest serve the node's other jobs, and NCCL
	 * sends each ring on the NIC nearest its GPU (comm_link_group).
	 * NCCL may spread over NICs left idle ("if they are available
	 * and it thinks it can gain better performance that way, it will
	 * use them", github.com/NVIDIA/nccl-tests/issues/277): this errs
	 * slow then, the side a time limit keeps. */
	l->bw_bytes_s = part->net_gbps_per_node * 1e9 / 8 * eff /
			part->gpus_per_node;
	l->crosses_nodes = 1;
	comm_link_sharp(part, 1, l);
}

/*
 * Slurm's topology/block plugin (one block per NVL72 rack) places a job
 * of --segment=n as segments of n nodes, each inside one block; a job
 * of more nodes than n must be a multiple of n, else it is never placed
 * (eval_nodes_block.c: "segment_size ... does not fit the job size"),
 * and n at or above the job's nodes is ignored ("If all nodes fit
 * within a single segment, this option has no effect", sbatch(1),
 * 24.11+). Without a block or ring topology it is stored and ignored.
 * Ranks follow the nodes' order, a block's nodes are consecutive there,
 * so each segment's trays hold consecutive ranks on one rack's NVLink.
 */
int autosize_segment_nodes(const autosize_partition *part, int nodes,
			   int user_nodes)
{
	int dom_nodes = part->domain_nodes, s;

	if (dom_nodes <= 1 || nodes <= 1)
		return 0;
	if (user_nodes > 0)
		return user_nodes < nodes && nodes % user_nodes == 0 &&
		       user_nodes <= dom_nodes ? user_nodes : 0;
	if (nodes <= dom_nodes)
		return 0;
	for (s = dom_nodes; nodes % s; s--)
		;
	return s;
}

/*
 * GB200 NVL72: the 18 compute trays of a rack (72 GPUs) share nine
 * NVLink switch trays, every GPU 1.8 TB/s to every other ("72 Blackwell
 * GPUs ... act as a single massive GPU", NVIDIA GB200 NVL72 product
 * page; NCCL multi-node NVLink, MNNVL, NCCL 2.20+ release notes), so a
 * collective among GPUs of one rack runs at the NVLink rate; between
 * racks it takes the ConnectX network. Slurm's topology/block keeps a
 * job that fits a rack in one; past a rack the plan asks for segments
 * (sbatch --segment, autosize_segment_nodes: 64 trays in segments of
 * 16), each inside one rack, and ranks fill a segment's trays in order.
 * The job's NVLink share is thus its GPUs inside one rack, or one
 * segment's, and a group stays in it when it fits and divides it: 16 of
 * a 256-GPU job in segments of 16 trays (64 GPUs) does, 16 in racks
 * filled in order (72) would not (the fifth group straddles two racks).
 * Each tray holds only the job's GPUs per node (sizing_gpn): 36 trays
 * of 2 are two segments of 18 trays, 36 GPUs of the job in each.
 */
static int comm_domain_gpus(const sizing_job *job, int job_gpus)
{
	const autosize_partition *part = job->part;
	int gpn = sizing_gpn(job), dom = part->domain_nodes * gpn, seg;

	if (job_gpus % gpn)
		return job_gpus < dom ? job_gpus : gpn;
	seg = autosize_segment_nodes(part, job_gpus / gpn,
				     job->segment_user_nodes);
	if (seg)
		return seg * gpn;
	return job_gpus < dom ? job_gpus : dom;
}

int comm_in_domain(const sizing_job *job, int span_gpus, int job_gpus)
{
	int dom;

	if (span_gpus <= sizing_gpn(job))
		return 1;
	if (job->part->domain_nodes <= 1)
		return 0;
	dom = comm_domain_gpus(job, job_gpus);
	return span_gpus <= dom && dom % span_gpus == 0;
}

int comm_domain_share(const sizing_job *job, int span_gpus, int job_gpus)
{
	int dom, least = span_gpus, k, b, off;

	if (job->part->domain_nodes <= 1)
		return sizing_gpn(job);
	dom = comm_domain_gpus(job, job_gpus);
	if (job_gpus <= dom)
		return span_gpus;
	/* groups start at multiples of span_gpus, domain shares (racks
	 * or segments) at multiples of dom: the pieces of the group each
	 * boundary b cuts, at most dom long; their pattern repeats within
	 * span_gpus boundaries */
	for (k = 1, b = dom; b < job_gpus && k <= span_gpus; k++, b += dom) {
		off = b % span_gpus;
		if (!off)
			continue;
		if (off < least)
			least = off;
		if (span_gpus - off < least)
			least = span_gpus - off;
	}
	return least < dom ? least : dom;
}

int comm_group_peers(const sizing_job *job, int stride, int n,
		     int job_gpus)
{
	int peers;

	if (comm_in_domain(job, stride * n, job_gpus))
		return n;
	peers = comm_domain_share(job, stride * n, job_gpus) / stride;
	if (peers < 1)
		return 1;
	return peers < n ? peers : n;
}

void comm_link_for(const sizing_job *job, int span_gpus, int job_gpus,
		   comm_link *l)
{
	int net = !comm_in_domain(job, span_gpus, job_gpus);

	if (job->prepared) {
		/* the two links of a prepared job (sizing_perf_prepare) */
		l->bw_bytes_s = job->link_bw[net];
		l->latency_s = job->link_lat[net];
		l->crosses_nodes = net;
		comm_link_sharp(job->part, net, l);
		return;
	}
	if (!net)
		comm_link_intra(job, l);
	else
		comm_link_net(job, l);
}

/*
 * Across nodes NCCL builds one ring (or tree) per channel and gives each
 * channel its own NIC, the one nearest the GPU that sends on it: "NCCL
 * detects the 4 NICs correctly and creates 4 rings, each using a
 * different NIC" (NCCL maintainer, github.com/NVIDIA/nccl/issues/601),
 * "AllReduce ... will form multiple rings so that it can utilize all the
 * available NICs" (github.com/NVIDIA/nccl-tests/issues/277), and rings
 * keep to one rail, NIC i of every node talking to NIC i (NCCL
 * environment variables, NCCL_CROSS_NIC, docs.nvidia.com/deeplearning/
 * nccl/user-guide/docs/env.html). A group with k members on each node
 * thus drives k NICs at once, each ring carrying 1/k of the data: a ring
 * all-reduce of S bytes over N = n k ranks takes 2 S (N - 1) / N /
 * (k x nic x eff), not / (nic x eff). Measured: 192 GB/s all-reduce bus
 * bandwidth on DGX A100 with 8 HDR NICs of 25 GB/s
 * (github.com/NVIDIA/nccl/issues/812); 78 GB/s on two nodes of 4 A100
 * with 4 HDR NICs each, 45 GB/s with 2 (nccl-tests/issues/277); 46-48
 * GB/s per NDR NIC on H100 (nccl-tests/issues/290); a 1.6 GB ring
 * all-reduce over 8 DGX-2 V100 GPUs took 363 ms with 1 GPU (and NIC)
 * per node, 173 ms with 2, 132 ms with 4 (nccl/issues/569). Each node's k
 * members of the group share no NIC with the node's other groups, which
 * reduce at the same time on theirs: k NICs of the node's gpus_per_node,
 * so k x network_gbps_per_node / gpus_per_node, never more than the
 * job's GPUs on the node have (sizing_gpn: a job on 4 of 8 GPUs drives
 * 4 NICs at most). The ring also passes the k members inside each node over
 * NVLink (PCIe), so the link inside the node caps it ("add more NICs ...
 * up to 160GB/s which is the NVLink intra-node bandwidth",
 * github.com/NVIDIA/nccl/issues/412).
 */
/* A ring across nodes keeps less of its bus bandwidth the more ranks it
 * has: measured reduce-scatter bus bandwidth on H100 nodes of 8 GPUs,
 * 360, 345, 320, 300, 280 and 260 GB/s at 32, 64, 128, 256, 512 and 1024
 * ranks (4 to 128 nodes; github.com/NVIDIA/nccl/issues/1229): (260 /
 * 360)^(1/5) = 0.937 per doubling of the ranks past 32. The ring's
 * latency grows with its length (NCCL maintainer,
 * github.com/NVIDIA/nccl/issues/1712), which messages of a training
 * step's size (tens of MB per bucket) feel. */
#define COMM_RING_BASE_RANKS 32.0
#define COMM_RING_DOUBLING_SHARE 0.937

/*
 * Multi-node NVLink (GB200 NVL72): NCCL fuses the topology of every rank
 * of the job's NVLink clique into one system, as it fuses a host's ranks
 * elsewhere ("MNNVL clique support", ncclTopoGetSystem in NCCL's
 * src/graph/topo.cc, 2.20+): the job's share of a rack (or segment) is
 * one node to its ring search, with the NICs of all its trays. A group
 * with k members there drives k NICs, its rings passing the members over
 * NVLink, as on a DGX node of k members; capped by the NVLink rate.
 * Every rank then takes the least channel count and inter-node bandwidth
 * any rank's search found (init.cc, after AllGather3: "align all ranks
 * so that the tuning is consistent"), so a group that the domain (or
 * segment) boundaries cut unevenly runs at its smallest piece's NICs
 * (comm_domain_share): 312 consecutive ranks over segments of 64 leave
 * a piece of 8.
 */
static int comm_members_in(int gpus, int stride, int n)
{
	int k = stride < gpus ? gpus / stride : 1;

	return k < n ? k : n;
}

/* Members of the group on one node, or on the job's share of an NVLink
 * domain where several nodes share one (comm_link_group's k). */
static int comm_members_per_node(const sizing_job *job, int span_gpus,
				 int job_gpus, int stride, int n)
{
	int k = comm_members_in(sizing_gpn(job), stride, n), k_dom;

	if (job->part->domain_nodes > 1) {
		k_dom = comm_members_in(comm_domain_share(job, span_gpus,
							  job_gpus),
					stride, n);
		if (k_dom > k)
			k = k_dom;
	}
	return k;
}

void comm_link_group(const sizing_job *job, int span_gpus, int job_gpus,
		     int stride, comm_link *l)
{
	int n, k;

	if (stride < 1)
		stride = 1;
	n = span_gpus / stride > 1 ? span_gpus / stride : 1;
	comm_link_for(job, span_gpus, job_gpus, l);
	if (!l->crosses_nodes)
		return;
	k = comm_members_per_node(job, span_gpus, job_gpus, stride, n);
	if (k > 1) {
		comm_link in;

		/* a group of one rank is the link inside, prepared or not */
		comm_link_for(job, 1, job_gpus, &in);
		l->bw_bytes_s *= k;
		if (l->bw_bytes_s > in.bw_bytes_s)
			l->bw_bytes_s = in.bw_bytes_s;
	}
	/* the ring's ranks: the group's members, not the nodes it spans */
	if (n > COMM_RING_BASE_RANKS)
		l->bw_bytes_s *= pow(COMM_RING_DOUBLING_SHARE,
				     log2(n / COMM_RING_BASE_RANKS));
}

double comm_ring_latency_s(const sizing_job *job, int span_gpus,
			   int job_gpus, int stride)
{
	int n, k, nodes;
	comm_link net, in;

	if (stride < 1)
		stride = 1;
	n = span_gpus / stride;
	if (n <= 1)
		return 0;
	comm_link_for(job, span_gpus, job_gpus, &net);
	if (!net.crosses_nodes)
		return (n - 1) * net.latency_s;
	k = comm_members_per_node(job, span_gpus, job_gpus, stride, n);
	nodes = (n + k - 1) / k;
	comm_link_for(job, 1, job_gpus, &in);
	return (n - nodes) * in.latency_s + (nodes - 1) * net.latency_s;
}

double comm_allreduce_s(double bytes, int n, const comm_link *l)
{
	double bw = l->allreduce_bw_bytes_s > 0 ? l->allreduce_bw_bytes_s
						 : l->bw_bytes_s;

	if (n <= 1 || bytes <= 0)
		return 0;
	return (l->in_network ? 1.0 : 2.0 * (n - 1) / n) * bytes / bw +
	       2.0 * (n - 1) * l->latency_s;
}

double comm_allgather_s(double bytes, int n, const comm_link *l)
{
	if (n <= 1 || bytes <= 0)
		return 0;
	return (double)(n - 1) / n * bytes / l->bw_bytes_s +
	       (n - 1) * l->latency_s;
}

double comm_reduce_scatter_s(double bytes, int n, const comm_link *l)
{
	/* the mirror image of all-gather: same volume and steps */
	return comm_allgather_s(bytes, n, l);
}

double comm_alltoall_parts_s(const sizing_job *job, double bytes_in,
			     double bytes_net)
{
	comm_link in, net;
	double t_in = 0, t_net = 0;

	/* every GPU of a node sends its own share at once, each on its own
	 * NIC: "Alltoall cannot aggregate the bandwidth of multiple NICs, so
	 * the performance you should see is the performance of a single
	 * NIC" (NCCL maintainer, github.com/NVIDIA/nccl-tests/issues/267),
	 * whatever the number of the group's members on the node */
	comm_link_intra(job, &in);
	comm_link_net(job, &net);
	if (bytes_in > 0)
		t_in = bytes_in / in.bw_bytes_s + in.latency_s;
	if (bytes_net > 0)
		t_net = bytes_net / net.bw_bytes_s + net.latency_s;
	return t_in > t_net ? t_in : t_net;
}

double comm_alltoall_s(const sizing_job *job, double bytes, int n,
		       int n_per_node)
{
	int local = n < n_per_node ? n : n_per_node;

	if (n <= 1 || bytes <= 0)
		return 0;
	/* (local - 1) of n peers share the node, (n - local) are remote */
	return comm_alltoall_parts_s(job, bytes * (local - 1) / n,
				     bytes * (n - local) / n);
}

double comm_p2p_s(double bytes, const comm_link *l)
{
	if (bytes <= 0)
		return 0;
	return bytes / l->bw_bytes_s + l->latency_s;
}
