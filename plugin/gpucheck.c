/*
 * autosize: count and identify a node's GPUs with hwloc (PCI vendor,
 * device and class ids) and compare them with the job's allocation.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <hwloc.h>
#include "gpucheck.h"

#define GPUCHECK_VENDOR_NVIDIA 0x10de
#define GPUCHECK_VENDOR_AMD 0x1002
#define GPUCHECK_VENDOR_HUAWEI 0x19e5

/* PCI class codes (PCI Code and ID Assignment Specification, base class
 * << 8 | subclass): VGA 0x0300, 3D controller 0x0302, other display
 * 0x0380 (AMD Instinct), processing accelerator 0x1200 (Ascend). */
static int gpucheck_is_gpu(uint16_t vendor, uint16_t class_id)
{
	switch (vendor) {
	case GPUCHECK_VENDOR_NVIDIA:
		return class_id == 0x0300 || class_id == 0x0302;
	case GPUCHECK_VENDOR_AMD:
		return class_id == 0x0300 || class_id == 0x0302 ||
		       class_id == 0x0380;
	case GPUCHECK_VENDOR_HUAWEI:
		return class_id == 0x1200;
	default:
		return 0;
	}
}

autosize_err autosize_gpucheck_run(const char *xml_path,
				   const autosize_catalog *catalog,
				   autosize_gpucheck_scan *scan,
				   autosize_error *e)
{
	hwloc_topology_t topo = NULL;
	hwloc_obj_t obj = NULL;
	const char *what = xml_path && xml_path[0] ? xml_path
			   : "this node's topology";
	autosize_err rv = AUTOSIZE_EIO;

	memset(scan, 0, sizeof(*scan));
	if (hwloc_topology_init(&topo) < 0) {
		topo = NULL;
		autosize_fail(e, AUTOSIZE_ENOMEM, "hwloc: cannot initialize "
			      "a topology: %s", strerror(errno));
		rv = AUTOSIZE_ENOMEM;
		goto fail;
	}
	/* Without this hwloc drops every PCI device while loading. */
	if (hwloc_topology_set_io_types_filter(
		    topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) < 0) {
		autosize_fail(e, AUTOSIZE_EIO, "hwloc: cannot keep PCI "
			      "devices: %s", strerror(errno));
		goto fail;
	}
	/* Caches are not needed: skip them (faster live load). */
	(void)hwloc_topology_set_cache_types_filter(
		topo, HWLOC_TYPE_FILTER_KEEP_NONE);
	if (xml_path && xml_path[0] &&
	    hwloc_topology_set_xml(topo, xml_path) < 0) {
		autosize_fail(e, AUTOSIZE_EIO, "hwloc: cannot read %.200s: %s "
			      "(hwloc XML v2 expected)", xml_path,
			      strerror(errno));
		goto fail;
	}
	if (hwloc_topology_load(topo) < 0) {
		autosize_fail(e, AUTOSIZE_EIO, "hwloc: cannot load %.200s: %s",
			      what, strerror(errno));
		goto fail;
	}
	while ((obj = hwloc_get_next_pcidev(topo, obj)) != NULL) {
		const struct hwloc_pcidev_attr_s *pci = &obj->attr->pcidev;
		autosize_gpucheck_gpu *g;

		if (!gpucheck_is_gpu(pci->vendor_id, pci->class_id))
			continue;
		scan->n_gpus++;
		if (scan->n_listed >= AUTOSIZE_GPUCHECK_MAX_GPUS)
			continue;
		g = &scan->gpus[scan->n_listed++];
		g->vendor = pci->vendor_id;
		g->device = pci->device_id;
		g->class_id = pci->class_id;
		g->model = catalog ? autosize_catalog_find_pci(
				catalog, pci->vendor_id, pci->device_id)
			   : NULL;
	}
	rv = AUTOSIZE_OK;
fail:
	if (topo)
		hwloc_topology_destroy(topo);
	return rv;
}

int autosize_gpucheck_lists(const autosize_gpu *gpu, uint16_t vendor,
			    uint16_t device)
{
	uint32_t id = (uint32_t)vendor << 16 | device;
	int i;

	for (i = 0; i < gpu->n_pci_ids && i < AUTOSIZE_GPU_PCI_IDS; i++)
		if (gpu->pci_ids[i] == id)
			return 1;
	return 0;
}

/* "8 x 10de:1eb8" or "8 x V100 (10de:1db8)": the most common other
 * model on the node. */
static void gpucheck_other(const autosize_gpucheck_scan *scan,
			   const autosize_gpu *expected, char *buf,
			   size_t len)
{
	int i, j, best = -1, best_n = 0;

	for (i = 0; i < scan->n_listed; i++) {
		const autosize_gpucheck_gpu *g = &scan->gpus[i];
		int n = 0;

		if (autosize_gpucheck_lists(expected, g->vendor, g->device))
			continue;
		for (j = 0; j < scan->n_listed; j++)
			if (scan->gpus[j].vendor == g->vendor &&
			    scan->gpus[j].device == g->device)
				n++;
		if (n > best_n) {
			best = i;
			best_n = n;
		}
	}
	if (best < 0) {
		snprintf(buf, len, "no GPU");
		return;
	}
	if (scan->gpus[best].model)
		snprintf(buf, len, "%d x %s (%04x:%04x)", best_n,
			 scan->gpus[best].model->name,
			 scan->gpus[best].vendor, scan->gpus[best].device);
	else
		snprintf(buf, len, "%d x %04x:%04x", best_n,
			 scan->gpus[best].vendor, scan->gpus[best].device);
}

int autosize_gpucheck_compare(const autosize_gpucheck_scan *scan,
			      int allocated, const char *partition,
			      const autosize_gpu *expected, char *msg,
			      size_t len)
{
	char other[96];
	int i, n_match = 0;

	if (msg && len > 0)
		msg[0] = '\0';
	if (allocated > 0 && scan->n_gpus < allocated) {
		snprintf(msg, len, "found %d GPU%s on this node but the job "
			 "was allocated %d", scan->n_gpus,
			 scan->n_gpus == 1 ? "" : "s", allocated);
		return 1;
	}
	if (!expected || expected->n_pci_ids <= 0)
		return 0;
	for (i = 0; i < scan->n_listed; i++)
		if (autosize_gpucheck_lists(expected, scan->gpus[i].vendor,
				      scan->gpus[i].device))
			n_match++;
	/* Past the listed ones, trust the count: a node with more than
	 * AUTOSIZE_GPUCHECK_MAX_GPUS GPUs is not a model mix-up. */
	n_match += scan->n_gpus - scan->n_listed;
	if (n_match >= (allocated > 0 ? allocated : 1))
		return 0;
	gpucheck_other(scan, expected, other, sizeof(other));
	snprintf(msg, len, "partition %s is sized for %s but this node has "
		 "%s", partition && partition[0] ? partition : "(default)",
		 expected->name, other);
	return 1;
}
