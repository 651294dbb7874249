/*
 * Hostile slurmctld requests shared by the decision benchmark and the
 * decision tests: the inputs that stalled slurmctld once and a
 * policy with the most partitions a policy may have.
 */
#ifndef AUTOSIZE_BENCH_HOSTILE_H
#define AUTOSIZE_BENCH_HOSTILE_H

#include <stdio.h>
#include <string.h>
#include "autosize.h"

/* A policy of AUTOSIZE_MAX_PARTITIONS partitions over several GPU types,
 * large node limits, into buf. */
static inline size_t hostile_policy_text(char *buf, size_t len)
{
	static const char *const gpus[] = {"H100-SXM5-80GB", "A100-SXM4-80GB",
		"H200-SXM-141GB", "L40S", "A100-SXM4-40GB", "MI300X"};
	size_t used;
	int i, n;

	n = snprintf(buf, len, "defaults:\n  mode: rewrite\n"
		     "  explicit_size: keep\npartitions:\n");
	used = n > 0 ? (size_t)n : 0;
	for (i = 0; i < AUTOSIZE_MAX_PARTITIONS && used < len; i++) {
		n = snprintf(buf + used, len - used,
			     "  - name: p%d\n    gpu: %s\n    gpus_per_node: "
			     "8\n    nodes: 4096\n    max_nodes_per_job: 4096\n"
			     "    max_time: 30-00:00:00\n    network: ib\n"
			     "    network_gbps_per_node: 3200\n", i, gpus[i % 6]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	return used < len ? used : len;
}

/* A partition list of one name repeated: "p0,p0,...,p0" (a Slurm job's
 * partition field holds up to 255 bytes). */
static inline void hostile_partition_list(char *buf, size_t len,
					  const char *name)
{
	size_t used = 0, n = strlen(name);

	buf[0] = '\0';
	while (used + n + 2 < len) {
		if (used)
			buf[used++] = ',';
		memcpy(buf + used, name, n);
		used += n;
		buf[used] = '\0';
	}
}

#endif
