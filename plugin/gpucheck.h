/*
 * autosize: the compute-node check of the GPUs a job got, with hwloc.
 * No Slurm headers, so it is unit-tested against recorded topologies.
 */
#ifndef AUTOSIZE_GPUCHECK_H
#define AUTOSIZE_GPUCHECK_H

#include <stddef.h>
#include <stdint.h>
#include "autosize.h"

/* GPUs remembered one by one; more are counted but not listed. */
#define AUTOSIZE_GPUCHECK_MAX_GPUS 64

typedef struct autosize_gpucheck_gpu {
	uint16_t vendor;            /* PCI vendor id, e.g. 0x10de */
	uint16_t device;            /* PCI device id */
	uint16_t class_id;          /* PCI class, e.g. 0x0302 */
	const autosize_gpu *model;  /* catalog entry, NULL when unknown */
} autosize_gpucheck_gpu;

typedef struct autosize_gpucheck_scan {
	int n_gpus;                 /* all GPUs found */
	int n_listed;               /* entries filled in gpus[] */
	autosize_gpucheck_gpu gpus[AUTOSIZE_GPUCHECK_MAX_GPUS];
} autosize_gpucheck_scan;

/*
 * Find the node's GPUs: PCI devices of class 0x0300/0x0302 from NVIDIA
 * (0x10de) and AMD (0x1002, also 0x0380), and of class 0x1200 from Huawei
 * (0x19e5), each identified in catalog by its vendor:device id. xml_path
 * loads a recorded topology (hwloc XML v2) instead of the live machine
 * (NULL or "" = live). catalog may be NULL (no identification).
 * AUTOSIZE_EIO with *e filled when hwloc cannot load the topology.
 */
autosize_err autosize_gpucheck_run(const char *xml_path,
				   const autosize_catalog *catalog,
				   autosize_gpucheck_scan *scan,
				   autosize_error *e);

/* 1 when the catalog entry gpu lists PCI id vendor:device, else 0. */
int autosize_gpucheck_lists(const autosize_gpu *gpu, uint16_t vendor,
			    uint16_t device);

/*
 * Compare a scan with what the job was given: allocated GPUs on this node
 * (<= 0: not checked) and the partition's GPU model (NULL, or a model
 * without PCI ids: not checked). Returns 0 when the node matches, else 1
 * with one line in msg saying what differs ("found 8 GPUs but the job was
 * allocated 16", "partition h100 is sized for H100-SXM5-80GB but this node
 * has 8 x 10de:1eb8").
 */
int autosize_gpucheck_compare(const autosize_gpucheck_scan *scan,
			      int allocated, const char *partition,
			      const autosize_gpu *expected, char *msg,
			      size_t len);

#endif
