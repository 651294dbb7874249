/*
 * Collectives (core/comm.c): ring formulas on hand-computed cases and the
 * link each group crosses.
 */
#include "testutil.h"
#include "autosize.h"
#include "comm.h"

static void job_on(sizing_job *job, autosize_partition *part,
		   autosize_catalog *c, const char *gpu)
{
	const autosize_gpu *g = autosize_catalog_find(c, gpu);

	assert_non_null(g);
	autosize_partition_reference(part, g, 8);
	memset(job, 0, sizeof(*job));
	job->part = part;
	perfdata_resolve(perfdata_default(), g, AUTOSIZE_PREC_BF16,
			 &job->perf);
}

static void test_ring_formulas(void **state)
{
	comm_link l = {100e9, 10e-6, 0, 0, 0};

	/* 2 (n - 1) / n x 8 GB / 100 GB/s + 2 (n - 1) x 10 us, n = 8 */
	assert_true(fabs(comm_allreduce_s(8e9, 8, &l) -
			 (2.0 * 7 / 8 * 0.08 + 14 * 10e-6)) < 1e-12);
	assert_true(fabs(comm_allgather_s(8e9, 8, &l) -
			 (7.0 / 8 * 0.08 + 7 * 10e-6)) < 1e-12);
	assert_true(comm_reduce_scatter_s(8e9, 8, &l) ==
		    comm_allgather_s(8e9, 8, &l));
	assert_true(comm_allreduce_s(8e9, 1, &l) == 0);
	assert_true(comm_allgather_s(0, 8, &l) == 0);
	assert_true(fabs(comm_p2p_s(1e9, &l) - (0.01 + 10e-6)) < 1e-12);
}

/* A job on the reference server of gpu (the catalog to destroy), with
 * its links inside and across nodes. */
static autosize_catalog *links_on(sizing_job *job, autosize_partition *part,
				  const char *gpu, comm_link *in,
				  comm_link *net)
{
	autosize_error e;
	autosize_catalog *c = autosize_catalog_default(&e);

	assert_non_null(c);
	job_on(job, part, c, gpu);
	comm_link_intra(job, in);
	comm_link_net(job, net);
	return c;
}

static void test_links(void **state)
{
	autosize_partition part;
	sizing_job job;
	comm_link in, net, l;
	autosize_catalog *c = links_on(&job, &part, "a100-80gb", &in, &net);

	/* DGX A100: 600 GB/s both ways -> 300 one way x 0.73 */
	assert_true(fabs(in.bw_bytes_s - 300e9 * 0.73) < 1);
	/* 8 x 200 Gb/s per node, one port per GPU: 25 GB/s x 0.80 */
	assert_true(fabs(net.bw_bytes_s - 25e9 * 0.80) < 1);
	assert_int_equal(net.crosses_nodes, 1);
	comm_link_for(&job, 8, 16, &l);
	assert_int_equal(l.crosses_nodes, 0);
	comm_link_for(&job, 16, 16, &l);
	assert_int_equal(l.crosses_nodes, 1);
	/* Ethernet: lower efficiency, higher latency */
	part.net = AUTOSIZE_NET_ETHERNET;
	comm_link_net(&job, &l);
	assert_true(l.bw_bytes_s < net.bw_bytes_s / 2);
	assert_true(l.latency_s > net.latency_s);
	autosize_catalog_destroy(c);
}

/* A group across nodes gets one NIC per member on each node (one ring
 * per rail), at most the node's NICs and the link inside the node, less
 * in a ring of more than 32 ranks; inside a node the group's link is the
 * intra-node one. */
static void test_link_group(void **state)
{
	autosize_partition part;
	sizing_job job;
	comm_link in, net, l;
	autosize_catalog *c = links_on(&job, &part, "h100", &in, &net);

	/* one member per node: one NIC, as comm_link_net */
	comm_link_group(&job, 32, 8192, 8, &l);
	assert_int_equal(l.crosses_nodes, 1);
	assert_true(fabs(l.bw_bytes_s - net.bw_bytes_s) < 1);
	/* 4 per node (every second rank): 4 NICs of 400 Gb/s x ib_eff */
	comm_link_group(&job, 32, 8192, 2, &l);
	assert_true(fabs(l.bw_bytes_s - 4 * net.bw_bytes_s) < 1);
	/* 8 per node: the whole node, 8 x 50 GB/s x 0.95 = 380 GB/s,
	 * capped by NVLink's 450 x 0.80 = 360 GB/s */
	comm_link_group(&job, 32, 8192, 1, &l);
	assert_true(8 * net.bw_bytes_s > in.bw_bytes_s);
	assert_true(fabs(l.bw_bytes_s - in.bw_bytes_s) < 1);
	/* every 16th rank: one member per node, one NIC */
	comm_link_group(&job, 256, 8192, 16, &l);
	assert_true(fabs(l.bw_bytes_s - net.bw_bytes_s) < 1);
	/* a ring of 1024 ranks: five doublings past 32 of its measured
	 * loss, 360 -> 260 GB/s (nccl#1229); one member per node on 1024
	 * nodes, or 8 on 128 */
	comm_link_group(&job, 8192, 8192, 8, &l);
	assert_true(fabs(l.bw_bytes_s - net.bw_bytes_s *
			 pow(0.937, 5)) < 1);
	comm_link_group(&job, 1024, 8192, 1, &l);
	assert_true(fabs(l.bw_bytes_s - in.bw_bytes_s *
			 pow(0.937, 5)) < 1);
	/* inside a node: the intra-node link, members or not */
	comm_link_group(&job, 8, 8192, 1, &l);
	assert_int_equal(l.crosses_nodes, 0);
	assert_true(fabs(l.bw_bytes_s - in.bw_bytes_s) < 1);
	/* a thin network: 8 x 12.5 Gb/s Ethernet NICs stay under NVLink */
	part.net = AUTOSIZE_NET_ETHERNET;
	part.net_gbps_per_node = 100;
	comm_link_net(&job, &net);
	comm_link_group(&job, 32, 8192, 1, &l);
	assert_true(fabs(l.bw_bytes_s - 8 * net.bw_bytes_s) < 1);
	autosize_catalog_destroy(c);
}

/* A ring's latency: of its n - 1 steps only those from one node (or
 * NVLink domain share) to the next take the network's latency, the rest
 * the link inside (NCCL's ring model, nInterSteps = nNodes - 1 for
 * reduce-scatter and all-gather). */
static void test_ring_latency(void **state)
{
	autosize_partition part;
	sizing_job job;
	comm_link in, net;
	autosize_catalog *c = links_on(&job, &part, "h100", &in, &net);
	autosize_error e;
	const autosize_gpu *gb;

	assert_true(net.latency_s > in.latency_s);
	/* 8 ranks in a node: 7 steps on NVLink */
	assert_true(fabs(comm_ring_latency_s(&job, 8, 64, 1) -
			 7 * in.latency_s) < 1e-12);
	/* 64 ranks on 8 nodes: 56 steps inside, 7 crossings */
	assert_true(fabs(comm_ring_latency_s(&job, 64, 64, 1) -
			 (56 * in.latency_s + 7 * net.latency_s)) < 1e-12);
	/* one member a node (stride 8): every step crosses */
	assert_true(fabs(comm_ring_latency_s(&job, 64, 64, 8) -
			 7 * net.latency_s) < 1e-12);
	assert_true(comm_ring_latency_s(&job, 1, 64, 1) == 0);
	autosize_catalog_destroy(c);
	/* GB300 NVL72 trays in segments of 16 (64 GPUs): a data-parallel
	 * group of TP 2 over 512 GPUs, 256 members, 32 in each of 8
	 * segments: 7 crossings */
	c = autosize_catalog_default(&e);
	gb = autosize_catalog_find(c, "gb300");
	assert_non_null(gb);
	autosize_partition_reference(&part, gb, gb->gpus_per_node);
	memset(&job, 0, sizeof(job));
	job.part = &part;
	perfdata_resolve(perfdata_default(), gb, AUTOSIZE_PREC_BF16,
			 &job.perf);
	comm_link_intra(&job, &in);
	comm_link_net(&job, &net);
	assert_true(fabs(comm_ring_latency_s(&job, 512, 512, 2) -
			 (248 * in.latency_s + 7 * net.latency_s)) < 1e-12);
	autosize_catalog_destroy(c);
}

/* GB200 NVL72: 18 trays of 4 GPUs share the NVLink switches of a rack.
 * A group that stays inside the job's part of a rack, or of one Slurm
 * segment past a rack (autosize_segment_nodes), and tiles it so that no
 * group straddles two, runs at the NVLink rate even across trays; the
 * same group on 8-GPU B200 nodes crosses the network, and a group wider
 * than the share crosses it on GB200 too. */
static void test_nvlink_domain(void **state)
{
	autosize_error e;
	autosize_catalog *c = autosize_catalog_default(&e);
	const autosize_gpu *gb = autosize_catalog_find(c, "gb200");
	autosize_partition part, bpart;
	sizing_job job, bjob;
	comm_link in, net, l;

	assert_non_null(gb);
	assert_int_equal(gb->gpus_per_node, 4);
	assert_int_equal(gb->nvlink_domain_gpus, 72);
	autosize_partition_reference(&part, gb, gb->gpus_per_node);
	assert_int_equal(part.domain_nodes, 18);
	memset(&job, 0, sizeof(job));
	job.part = &part;
	perfdata_resolve(perfdata_default(), gb, AUTOSIZE_PREC_BF16,
			 &job.perf);
	comm_link_intra(&job, &in);
	/* NVLink 5: 1800 GB/s both ways, 900 one way x nvlink_eff */
	assert_true(fabs(in.bw_bytes_s - 900e9 * job.perf.nvlink_eff) < 1);

	/* which groups stay in a rack: 8 of 256 GPUs (64 trays in
	 * segments of 16, 64 GPUs each) and 72 of 288 (segments of 18
	 * trays, whole racks); any divisor of a job that fits one rack
	 * (16 of 64) */
	assert_true(comm_in_domain(&job, 4, 256));
	assert_true(comm_in_domain(&job, 8, 256));
	assert_true(comm_in_domain(&job, 72, 288));
	assert_true(comm_in_domain(&job, 16, 64));
	assert_true(comm_in_domain(&job, 64, 64));
	/* 16 of 256: with segments of 16 trays a group of 16 (and 64) is
	 * inside one; racks filled in order (72 GPUs, the model before
	 * segments) cut ranks 64-79 over two racks */
	assert_true(comm_in_domain(&job, 16, 256));
	assert_true(comm_in_domain(&job, 64, 256));
	assert_false(comm_in_domain(&job, 128, 256));
	assert_false(comm_in_domain(&job, 144, 288));
	assert_false(comm_in_domain(&job, 128, 128));
	/* 19 trays, a prime count: segments of 1, nothing past the tray
	 * (racks in order had a group of 8 inside a rack) */
	assert_false(comm_in_domain(&job, 8, 76));
	assert_int_equal(comm_domain_share(&job, 8, 76), 4);
	/* the least piece of a straddling group that shares a rack or
	 * segment: 144 over two racks, 72 each; one group of 128 over
	 * two segments of 64; 32 of 288 (segments of 18 trays), cut
	 * 8 | 24, 16 | 16 and 24 | 8 */
	assert_int_equal(comm_domain_share(&job, 144, 288), 72);
	assert_int_equal(comm_domain_share(&job, 128, 128), 64);
	assert_int_equal(comm_domain_share(&job, 32, 288), 8);
	assert_int_equal(comm_domain_share(&job, 16, 64), 16);
	/* the job's own --segment: 8 trays divide 64, so groups of 32 stay
	 * in one and 64 do not; 12 does not divide 64, so Slurm's
	 * placement is unknown and racks in order stand (16 cut) */
	job.segment_user_nodes = 8;
	assert_true(comm_in_domain(&job, 32, 256));
	assert_false(comm_in_domain(&job, 64, 256));
	assert_int_equal(comm_domain_share(&job, 64, 256), 32);
	job.segment_user_nodes = 12;
	assert_false(comm_in_domain(&job, 16, 256));
	assert_int_equal(comm_domain_share(&job, 16, 256), 8);
	job.segment_user_nodes = 0;
	/* 36 trays of 2 of the job's GPUs: two racks of 36, not one of
	 * 72; a group of 4 spans two trays of a rack, one of 8 (ranks
	 * 32-39) straddles the racks, 4 in each */
	job.gpus_per_node = 2;
	assert_false(comm_in_domain(&job, 72, 72));
	assert_true(comm_in_domain(&job, 36, 72));
	assert_true(comm_in_domain(&job, 4, 72));
	assert_false(comm_in_domain(&job, 8, 72));
	assert_int_equal(comm_domain_share(&job, 8, 72), 4);
	assert_int_equal(comm_domain_share(&job, 72, 72), 36);
	job.gpus_per_node = 4;
	assert_true(comm_in_domain(&job, 72, 72));
	assert_true(comm_in_domain(&job, 8, 72));
	job.gpus_per_node = 0;

	/* a TP/EP group of 16 in a 64-GPU job: four trays, NVLink */
	comm_link_group(&job, 16, 64, 1, &l);
	assert_int_equal(l.crosses_nodes, 0);
	assert_true(fabs(l.bw_bytes_s - in.bw_bytes_s) < 1);
	comm_link_for(&job, 16, 64, &l);
	assert_int_equal(l.crosses_nodes, 0);
	/* the same group on B200 (8-GPU nodes) takes the network:
	 * 8 NICs x 400 Gb/s x ib_eff, under NVLink */
	job_on(&bjob, &bpart, c, "b200");
	assert_int_equal(bpart.domain_nodes, 1);
	assert_int_equal(comm_domain_share(&bjob, 16, 256), 8);
	/* and a group of 16 in 256 GPUs, on NVLink in segments of 16 GB200
	 * trays, over the network on B200 */
	comm_link_group(&job, 16, 256, 1, &l);
	assert_int_equal(l.crosses_nodes, 0);
	comm_link_group(&bjob, 16, 256, 1, &l);
	assert_int_equal(l.crosses_nodes, 1);
	comm_link_group(&bjob, 16, 64, 1, &l);
	assert_int_equal(l.crosses_nodes, 1);
	assert_true(l.bw_bytes_s < in.bw_bytes_s);
	/* wider than a rack: the network on GB200 too, but NCCL takes the
	 * job's share of the rack (its MNNVL clique) for one node, so the
	 * group's 72 members there drive 72 NICs: 72 x 50 GB/s x ib_eff,
	 * past the NVLink rate, which caps it */
	comm_link_net(&job, &net);
	comm_link_group(&job, 144, 288, 1, &l);
	assert_int_equal(l.crosses_nodes, 1);
	assert_true(72 * net.bw_bytes_s > in.bw_bytes_s);
	assert_true(fabs(l.bw_bytes_s - in.bw_bytes_s *
			 pow(0.937, log2(144 / 32.0))) < 1);
	/* a DP group of TP 8 in 512 GPUs (128 trays in segments of 16, 64
	 * GPUs each): a member every second tray, 8 a segment, 8 NICs; the
	 * ring of its 64 members loses one doubling past 32 */
	comm_link_group(&job, 512, 512, 8, &l);
	assert_int_equal(l.crosses_nodes, 1);
	assert_true(8 * net.bw_bytes_s < in.bw_bytes_s);
	assert_true(fabs(l.bw_bytes_s - 8 * net.bw_bytes_s * 0.937) < 1);
	/* the expert data-parallel group of EP 32 there: 2 members a
	 * segment, 2 NICs, a ring of its 16 members (not of the 128 trays
	 * it spans), under 32: no loss */
	comm_link_group(&job, 512, 512, 32, &l);
	assert_true(fabs(l.bw_bytes_s - 2 * net.bw_bytes_s) < 1);
	/* a group the segments cut unevenly runs at its least piece: NCCL
	 * aligns every rank on the least channels and inter-node bandwidth
	 * any rank found. 288 GPUs in racks of 72, DP groups of 96 ranks
	 * (PP 3) strided by TP 4: ranks 72-95 are 24 of one group in a
	 * rack, 6 members, 6 NICs (not the 18 a whole rack share holds,
	 * which NVLink would cap) */
	assert_int_equal(comm_domain_share(&job, 96, 288), 24);
	comm_link_group(&job, 96, 288, 4, &l);
	assert_int_equal(l.crosses_nodes, 1);
	assert_true(6 * net.bw_bytes_s < in.bw_bytes_s);
	assert_true(fabs(l.bw_bytes_s - 6 * net.bw_bytes_s) < 1);
	/* cut evenly (groups of 144, two whole racks): 18 members a rack,
	 * 18 NICs, capped by NVLink; a ring of 36 */
	comm_link_group(&job, 144, 288, 4, &l);
	assert_true(18 * net.bw_bytes_s > in.bw_bytes_s);
	assert_true(fabs(l.bw_bytes_s - in.bw_bytes_s *
			 pow(0.937, log2(36 / 32.0))) < 1);
	/* a site without rack-aware placement: the tray alone, one NIC of
	 * the DP group's member on it */
	part.domain_nodes = 1;
	comm_link_for(&job, 16, 64, &l);
	assert_int_equal(l.crosses_nodes, 1);
	comm_link_group(&job, 512, 512, 8, &l);
	assert_true(fabs(l.bw_bytes_s - net.bw_bytes_s * 0.937) < 1);
	autosize_catalog_destroy(c);
}

/* The segment a plan asks Slurm for (sbatch --segment): the largest
 * divisor of the job's nodes up to the NVLink domain's, none inside one
 * domain or off a multi-node one; the job's own where Slurm would keep
 * it to one domain. Every count it gives divides the nodes, as
 * topology/block requires of a job larger than its segment. */
static void test_segment_nodes(void **state)
{
	autosize_error e;
	autosize_catalog *c = autosize_catalog_default(&e);
	autosize_partition part;
	int n, s, d;

	autosize_partition_reference(&part, autosize_catalog_find(c, "gb200"),
				     4);
	assert_int_equal(part.domain_nodes, 18);
	assert_int_equal(autosize_segment_nodes(&part, 64, 0), 16);
	assert_int_equal(autosize_segment_nodes(&part, 72, 0), 18);
	assert_int_equal(autosize_segment_nodes(&part, 36, 0), 18);
	assert_int_equal(autosize_segment_nodes(&part, 100, 0), 10);
	/* prime counts: segments of one tray */
	assert_int_equal(autosize_segment_nodes(&part, 19, 0), 1);
	assert_int_equal(autosize_segment_nodes(&part, 37, 0), 1);
	/* inside one rack: none (topology/block keeps it in one) */
	assert_int_equal(autosize_segment_nodes(&part, 18, 0), 0);
	assert_int_equal(autosize_segment_nodes(&part, 5, 0), 0);
	assert_int_equal(autosize_segment_nodes(&part, 1, 0), 0);
	/* the user's: used where it divides, is below the job and fits a
	 * rack; else none (Slurm keeps theirs, racks in order stand) */
	assert_int_equal(autosize_segment_nodes(&part, 64, 16), 16);
	assert_int_equal(autosize_segment_nodes(&part, 64, 8), 8);
	assert_int_equal(autosize_segment_nodes(&part, 16, 8), 8);
	assert_int_equal(autosize_segment_nodes(&part, 64, 12), 0);
	assert_int_equal(autosize_segment_nodes(&part, 64, 32), 0);
	assert_int_equal(autosize_segment_nodes(&part, 64, 64), 0);
	assert_int_equal(autosize_segment_nodes(&part, 8, 16), 0);
	for (n = 1; n <= 4096; n++) {
		s = autosize_segment_nodes(&part, n, 0);
		if (n <= 18) {
			assert_int_equal(s, 0);
			continue;
		}
		assert_true(s >= 1 && s <= 18 && n % s == 0);
		for (d = s + 1; d <= 18; d++)
			assert_true(n % d != 0);
	}
	/* a domain of one node (H100, or a site's nvlink_domain_gpus 4) */
	part.domain_nodes = 1;
	assert_int_equal(autosize_segment_nodes(&part, 64, 0), 0);
	assert_int_equal(autosize_segment_nodes(&part, 64, 16), 0);
	autosize_partition_reference(&part, autosize_catalog_find(c, "h100"),
				     8);
	assert_int_equal(autosize_segment_nodes(&part, 64, 0), 0);
	autosize_catalog_destroy(c);
}

/* All-to-all: inside a node only NVLink; across nodes the network share
 * dominates, and grows with the share of remote peers. */
static void test_alltoall(void **state)
{
	autosize_error e;
	autosize_catalog *c = autosize_catalog_default(&e);
	autosize_partition part;
	sizing_job job;
	comm_link in;
	double t8, t16, t64;

	assert_non_null(c);
	job_on(&job, &part, c, "h100");
	comm_link_intra(&job, &in);
	t8 = comm_alltoall_s(&job, 1e9, 8, 8);
	assert_true(fabs(t8 - (1e9 * 7 / 8 / in.bw_bytes_s +
			       in.latency_s)) < 1e-12);
	t16 = comm_alltoall_s(&job, 1e9, 16, 8);
	t64 = comm_alltoall_s(&job, 1e9, 64, 8);
	assert_true(t16 > 3 * t8);
	assert_true(t64 > t16);
	assert_true(comm_alltoall_s(&job, 1e9, 1, 8) == 0);
	autosize_catalog_destroy(c);
}

/* In-switch reductions: IB SHARP moves an all-reduce's bytes once (about
 * half a ring's 2 (n - 1) / n), NVLink SHARP raises the all-reduce's bus
 * bandwidth inside a node; neither touches all-gather. */
static void test_sharp(void **state)
{
	autosize_error e;
	autosize_catalog *c = autosize_catalog_default(&e);
	autosize_partition part;
	sizing_job job;
	comm_link l0, l1;
	double ar0, ar1;

	assert_non_null(c);
	job_on(&job, &part, c, "h100");
	comm_link_net(&job, &l0);
	part.ib_sharp = 1;
	comm_link_net(&job, &l1);
	assert_int_equal(l1.in_network, 1);
	l0.latency_s = l1.latency_s = 0;
	ar0 = comm_allreduce_s(1e9, 64, &l0);
	ar1 = comm_allreduce_s(1e9, 64, &l1);
	assert_true(fabs(ar1 - ar0 * 64 / (2.0 * 63)) < 1e-12);
	assert_true(comm_allgather_s(1e9, 64, &l1) ==
		    comm_allgather_s(1e9, 64, &l0));
	/* SHARP is InfiniBand's */
	part.net = AUTOSIZE_NET_ROCE;
	comm_link_net(&job, &l1);
	assert_int_equal(l1.in_network, 0);
	part.net = AUTOSIZE_NET_IB;
	part.ib_sharp = 0;
	comm_link_intra(&job, &l0);
	part.nvlink_sharp = 1;
	comm_link_intra(&job, &l1);
	assert_true(l1.allreduce_bw_bytes_s > l0.bw_bytes_s);
	assert_true(comm_allreduce_s(1e9, 8, &l1) <
		    comm_allreduce_s(1e9, 8, &l0));
	assert_true(comm_allgather_s(1e9, 8, &l1) ==
		    comm_allgather_s(1e9, 8, &l0));
	autosize_catalog_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_formulas),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_link_group),
		cmocka_unit_test(test_ring_latency),
		cmocka_unit_test(test_nvlink_domain),
		cmocka_unit_test(test_segment_nodes),
		cmocka_unit_test(test_alltoall),
		cmocka_unit_test(test_sharp),
	};

	return cmocka_run_group_tests_name("comm", tests, NULL, NULL);
}
