/*
 * autosize: the GPU catalog (etc/gpus.yaml). A default catalog is compiled
 * into the library; a site may load its own file.
 */
#ifndef AUTOSIZE_CATALOG_H
#define AUTOSIZE_CATALOG_H

#include <stddef.h>
#include <stdint.h>
#include "autosize/error.h"

#define AUTOSIZE_GPU_NAME_MAX 32
#define AUTOSIZE_GPU_ALIASES 8
#define AUTOSIZE_GPU_PCI_IDS 8
#define AUTOSIZE_CATALOG_MAX_GPUS 64

typedef enum autosize_link {
	AUTOSIZE_LINK_NVLINK = 0, /* NVLink / NVSwitch all-to-all */
	AUTOSIZE_LINK_XGMI,       /* AMD Infinity Fabric */
	AUTOSIZE_LINK_HCCS,       /* Huawei HCCS */
	AUTOSIZE_LINK_PCIE        /* no GPU-to-GPU link: through PCIe */
} autosize_link;

typedef struct autosize_gpu {
	char name[AUTOSIZE_GPU_NAME_MAX];
	char aliases[AUTOSIZE_GPU_ALIASES][AUTOSIZE_GPU_NAME_MAX];
	int n_aliases;
	double bf16_tflops;  /* dense peak */
	double fp16_tflops;  /* dense peak */
	double fp8_tflops;   /* dense peak, 0 when unsupported */
	double fp4_tflops;   /* dense NVFP4 peak, 0 when unsupported */
	double mem_bytes;    /* HBM capacity */
	double hbm_gbs;      /* memory bandwidth, GB/s */
	double link_gbs;     /* GPU-to-GPU bandwidth per GPU, GB/s, bidir. */
	autosize_link link;
	double net_gbps_per_gpu; /* reference server: IB Gb/s per GPU */
	uint32_t pci_ids[AUTOSIZE_GPU_PCI_IDS]; /* vendor << 16 | device */
	int n_pci_ids;
	int net_kind; /* reference server network, an autosize_net value
		       * (policy.h): 0 ib, 1 roce, 2 ethernet */
	int no_p2p;   /* 1: no GPU peer-to-peer over PCIe (catalog p2p:
		       * 0): collectives are staged through host memory */
	int gpus_per_node;      /* reference server's GPUs per node (8) */
	int nvlink_domain_gpus; /* GPUs sharing the GPU-to-GPU link: the
				 * node's, or a multi-node NVLink switch
				 * domain (GB200 NVL72: 72, 18 nodes) */
} autosize_gpu;

/* The most GPUs an NVLink domain may hold, in the catalog's
 * nvlink_domain_gpus and a partition's (NVLink switch systems reach
 * 576). */
#define AUTOSIZE_NVLINK_DOMAIN_MAX 1024

typedef struct autosize_catalog autosize_catalog;

/*
 * Load a catalog file (strict: unknown keys, wrong types and out-of-range
 * values are errors naming file, line and key). Returns NULL on error with
 * *e filled. The caller owns the result: free with autosize_catalog_destroy.
 */
autosize_catalog *autosize_catalog_load(const char *path, autosize_error *e);

/* The compiled-in default catalog; same ownership. */
autosize_catalog *autosize_catalog_default(autosize_error *e);

/* Parse catalog YAML from memory; `what` names it in errors. */
autosize_catalog *autosize_catalog_parse(const char *text, size_t len,
					 const char *what, autosize_error *e);

/* Free a catalog; NULL is allowed. */
void autosize_catalog_destroy(autosize_catalog *c);

int autosize_catalog_count(const autosize_catalog *c);
/* GPU i (0-based), or NULL past the end. Owned by the catalog. */
const autosize_gpu *autosize_catalog_at(const autosize_catalog *c, int i);

/*
 * Find a GPU by name or alias, case-insensitively; "-", "_" and " " are
 * ignored ("a100-80gb", "A100_80GB", "h100"). NULL when unknown.
 */
const autosize_gpu *autosize_catalog_find(const autosize_catalog *c,
					  const char *name);

/*
 * autosize_catalog_find, and when name is ambiguous (other entries list
 * it under ambiguous_aliases: "a100" for the 40 and 80 GB parts) the
 * warning "a100 is ambiguous: a100-40gb or a100-80gb; taking a100-80gb"
 * in warn (len bytes, may be NULL); warn is "" otherwise. The core
 * prints nothing: the CLI, check-config and plan warnings show it.
 */
const autosize_gpu *autosize_catalog_resolve(const autosize_catalog *c,
					     const char *name, char *warn,
					     size_t len);

/* Find a GPU by PCI vendor:device id; NULL when unknown. */
const autosize_gpu *autosize_catalog_find_pci(const autosize_catalog *c,
					      uint16_t vendor,
					      uint16_t device);

/* Dense peak FLOP/s of gpu at a precision ("bf16", "fp16", "fp8"). */
double autosize_gpu_peak_flops(const autosize_gpu *gpu, int precision);

#endif
