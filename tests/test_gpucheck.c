/*
 * Unit tests of plugin/gpucheck.c against recorded topologies of real GPU
 * servers (../shared/fixtures/hwloc, see its README.md). Skipped with a
 * message when ../shared is absent.
 */
#include "testutil.h"
#include "autosize.h"
#include "gpucheck.h"

/* A test catalog with the PCI ids (pci.ids) of these older GPUs, whatever
 * the shipped one lists. Figures are datasheet peaks. */
static const char test_catalog_yaml[] =
	"gpus:\n"
	"  - name: V100-SXM3-32GB\n"
	"    bf16_tflops: 125\n    fp16_tflops: 125\n    fp8_tflops: 0\n"
	"    memory_gib: 32\n    hbm_gbs: 981\n    link: nvlink\n"
	"    link_gbs: 300\n    net: ib\n    net_gbps_per_gpu: 100\n"
	"    pci_ids: [\"10de:1db8\"]\n"
	"  - name: V100-SXM2-16GB\n"
	"    bf16_tflops: 125\n    fp16_tflops: 125\n    fp8_tflops: 0\n"
	"    memory_gib: 16\n    hbm_gbs: 900\n    link: nvlink\n"
	"    link_gbs: 300\n    net: ib\n    net_gbps_per_gpu: 100\n"
	"    pci_ids: [\"10de:1db1\"]\n"
	"  - name: T4\n"
	"    bf16_tflops: 65\n    fp16_tflops: 65\n    fp8_tflops: 0\n"
	"    memory_gib: 16\n    hbm_gbs: 320\n    link: pcie\n"
	"    link_gbs: 32\n    net: ethernet\n    net_gbps_per_gpu: 12.5\n"
	"    pci_ids: [\"10de:1eb8\"]\n";

typedef struct fixture {
	const char *file;
	int gpus;
	uint16_t vendor, device, class_id;
	const char *model; /* in the test catalog, or NULL */
} fixture;

static const fixture fixtures[] = {
	/* 16 V100 behind NVSwitches (class 0x0680 bridges: not GPUs). */
	{"nvidiaDGX2.xml", 16, 0x10de, 0x1db8, 0x0302, "V100-SXM3-32GB"},
	{"power8gpudistances.xml", 4, 0x10de, 0x15f9, 0x0302, NULL},
	/* An ASPEED VGA (0x1a03, class 0x0300) is not a GPU. */
	{"coral-lassen.xml", 4, 0x10de, 0x1db1, 0x0302, "V100-SXM2-16GB"},
	{"cts1-pascal.xml", 2, 0x10de, 0x15f8, 0x0302, NULL},
	{"g4dnmetal.xml", 8, 0x10de, 0x1eb8, 0x0302, "T4"},
	/* 4 MI250X = 8 GCDs, AMD class 0x0380. */
	{"eas-tioga.xml", 8, 0x1002, 0x7408, 0x0380, NULL},
};

static autosize_catalog *test_catalog;
static autosize_catalog *default_catalog;
static const char *shared;

static int setup(void **state)
{
	autosize_error e;

	test_catalog = autosize_catalog_parse(test_catalog_yaml,
					      strlen(test_catalog_yaml),
					      "test catalog", &e);
	if (!test_catalog)
		printf("test catalog: %s\n", e.msg);
	default_catalog = autosize_catalog_default(&e);
	shared = test_shared_dir();
	return test_catalog && default_catalog ? 0 : -1;
}

static int teardown(void **state)
{
	autosize_catalog_destroy(test_catalog);
	autosize_catalog_destroy(default_catalog);
	return 0;
}

static int fixture_path(const char *file, char *buf, size_t len)
{
	if (!shared)
		return -1;
	snprintf(buf, len, "%s/fixtures/hwloc/%s", shared, file);
	return 0;
}

static void test_fixtures(void **state)
{
	autosize_gpucheck_scan scan;
	autosize_error e;
	char path[512];
	size_t i;
	int j;

	if (!shared)
		skip();
	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		const fixture *f = &fixtures[i];

		fixture_path(f->file, path, sizeof(path));
		assert_int_equal(autosize_gpucheck_run(path, test_catalog,
						       &scan, &e),
				 AUTOSIZE_OK);
		printf("%s: %d GPUs\n", f->file, scan.n_gpus);
		assert_int_equal(scan.n_gpus, f->gpus);
		assert_int_equal(scan.n_listed, f->gpus);
		for (j = 0; j < scan.n_listed; j++) {
			assert_int_equal(scan.gpus[j].vendor, f->vendor);
			assert_int_equal(scan.gpus[j].device, f->device);
			assert_int_equal(scan.gpus[j].class_id, f->class_id);
			if (f->model) {
				assert_non_null(scan.gpus[j].model);
				assert_string_equal(scan.gpus[j].model->name,
						    f->model);
			} else {
				assert_null(scan.gpus[j].model);
			}
		}
		/* The shipped catalog names a GPU only by one of that
		 * entry's own PCI ids (it may not list the GPU at all). */
		assert_int_equal(autosize_gpucheck_run(path, default_catalog,
						       &scan, &e),
				 AUTOSIZE_OK);
		for (j = 0; j < scan.n_listed; j++)
			if (scan.gpus[j].model)
				assert_true(autosize_gpucheck_lists(
					scan.gpus[j].model, f->vendor,
					f->device));
	}
}

static void test_compare(void **state)
{
	autosize_gpucheck_scan scan;
	autosize_error e;
	const autosize_gpu *v100, *h100;
	char path[512], msg[AUTOSIZE_MSG_LEN];

	if (!shared)
		skip();
	v100 = autosize_catalog_find(test_catalog, "v100-sxm3-32gb");
	h100 = autosize_catalog_find(default_catalog, "h100");
	assert_non_null(v100);
	assert_non_null(h100);
	fixture_path("nvidiaDGX2.xml", path, sizeof(path));
	assert_int_equal(autosize_gpucheck_run(path, test_catalog, &scan, &e),
			 AUTOSIZE_OK);
	/* The right model, as many or more GPUs than allocated. */
	assert_int_equal(autosize_gpucheck_compare(&scan, 16, "v100", v100,
						   msg, sizeof(msg)), 0);
	assert_string_equal(msg, "");
	assert_int_equal(autosize_gpucheck_compare(&scan, 8, "v100", v100,
						   msg, sizeof(msg)), 0);
	/* No model to compare with: only the count. */
	assert_int_equal(autosize_gpucheck_compare(&scan, 16, NULL, NULL, msg,
						   sizeof(msg)), 0);
	/* Fewer GPUs than allocated. */
	assert_int_equal(autosize_gpucheck_compare(&scan, 32, "v100", v100,
						   msg, sizeof(msg)), 1);
	assert_string_equal(msg, "found 16 GPUs on this node but the job was "
			    "allocated 32");
	/* Another model than the partition's. */
	assert_int_equal(autosize_gpucheck_compare(&scan, 8, "h100", h100,
						   msg, sizeof(msg)), 1);
	assert_string_equal(msg, "partition h100 is sized for H100-SXM5-80GB "
			    "but this node has 16 x V100-SXM3-32GB "
			    "(10de:1db8)");
	fixture_path("g4dnmetal.xml", path, sizeof(path));
	assert_int_equal(autosize_gpucheck_run(path, default_catalog, &scan,
					       &e), AUTOSIZE_OK);
	assert_int_equal(autosize_gpucheck_compare(&scan, 8, "h100", h100,
						   msg, sizeof(msg)), 1);
	assert_string_equal(msg, "partition h100 is sized for H100-SXM5-80GB "
			    "but this node has 8 x 10de:1eb8");
}

static void test_bad_file(void **state)
{
	autosize_gpucheck_scan scan;
	autosize_error e;
	char path[128];

	assert_int_equal(autosize_gpucheck_run("/nonexistent/topo.xml",
					       NULL, &scan, &e), AUTOSIZE_EIO);
	assert_non_null(strstr(e.msg, "/nonexistent/topo.xml"));
	assert_int_equal(scan.n_gpus, 0);
	test_write_tmp(path, sizeof(path), "<topology>not hwloc</topology>");
	assert_int_equal(autosize_gpucheck_run(path, NULL, &scan, &e),
			 AUTOSIZE_EIO);
	unlink(path);
}

/* A node with no GPU at all: allocated GPUs are missing. */
static void test_no_gpu(void **state)
{
	autosize_gpucheck_scan scan;
	char msg[AUTOSIZE_MSG_LEN];

	memset(&scan, 0, sizeof(scan));
	assert_int_equal(autosize_gpucheck_compare(&scan, 8, "h100", NULL, msg,
						   sizeof(msg)), 1);
	assert_string_equal(msg, "found 0 GPUs on this node but the job was "
			    "allocated 8");
	assert_int_equal(autosize_gpucheck_compare(&scan, 0, "h100", NULL, msg,
						   sizeof(msg)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_bad_file),
		cmocka_unit_test(test_no_gpu),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
