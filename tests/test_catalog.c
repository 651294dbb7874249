/* Tests: the GPU catalog loader (core/catalog.c over util/ytree.c). */
#include "testutil.h"
#include <math.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "autosize/catalog.h"
#include "autosize/plan.h"
#include "ytest.h"
#include "ytree.h"

#define WHAT "test-gpus.yaml"

/* A good one-GPU catalog; the broken cases replace one of its lines. */
static const char *const good_catalog =
	"gpus:\n"                                     /* 1 */
	"  - name: Test-GPU-80GB\n"                   /* 2 */
	"    aliases: [tg80, \"test gpu\"]\n"         /* 3 */
	"    bf16_tflops: 100\n"                      /* 4 */
	"    fp16_tflops: 110.5\n"                    /* 5 */
	"    fp8_tflops: 2.5e2\n"                     /* 6 */
	"    memory_gib: 79.5\n"                      /* 7 */
	"    hbm_gbs: 2000\n"                         /* 8 */
	"    link: xgmi\n"                            /* 9 */
	"    link_gbs: 600\n"                         /* 10 */
	"    net: roce\n"                             /* 11 */
	"    net_gbps_per_gpu: 200\n"                 /* 12 */
	"    pci_ids: [\"10de:abcd\", \"1002:74A1\"]\n" /* 13 */
	"    source: \"test\"\n";                     /* 14 */

static const char *const second_gpu =
	"  - name: Other\n"                           /* 15 */
	"    aliases: [other-1]\n"                    /* 16 */
	"    bf16_tflops: 1\n"                        /* 17 */
	"    fp16_tflops: 1\n"                        /* 18 */
	"    memory_gib: 1\n"                         /* 19 */
	"    hbm_gbs: 1\n"                            /* 20 */
	"    link: pcie\n"                            /* 21 */
	"    link_gbs: 64\n"                          /* 22 */
	"    net_gbps_per_gpu: 25\n";                 /* 23 */

static const char *const shipped_names[] = {
	"A100-SXM4-40GB", "A100-SXM4-80GB", "A800-SXM4-80GB",
	"H100-SXM5-80GB", "H100-PCIe-80GB", "H800-SXM5-80GB",
	"H200-SXM-141GB", "H20", "L40S", "RTX-4090", "B200", "MI300X",
	"Ascend-910B", "V100-SXM2-16GB", "V100-SXM2-32GB", "A10G", "L4",
	"RTX-6000-Ada", "H100-NVL-94GB", "GH200-96GB", "GH200-144GB",
	"MI250X", "GB200", "B300", "GB300", NULL
};

static autosize_catalog *parse_str(const char *text, autosize_error *e)
{
	return autosize_catalog_parse(text, strlen(text), WHAT, e);
}

static void test_shipped_catalog(void **state)
{
	autosize_error e;
	autosize_catalog *c = autosize_catalog_default(&e);
	int i, n;

	(void)state;
	if (!c)
		fail_msg("shipped catalog: %s", e.msg);
	n = autosize_catalog_count(c);
	assert_true(n >= 22);
	assert_true(n <= AUTOSIZE_CATALOG_MAX_GPUS);
	for (i = 0; shipped_names[i]; i++) {
		const autosize_gpu *g = autosize_catalog_find(c,
							      shipped_names[i]);

		if (!g)
			fail_msg("shipped catalog lacks %s", shipped_names[i]);
		assert_string_equal(g->name, shipped_names[i]);
	}
	for (i = 0; i < n; i++) {
		const autosize_gpu *g = autosize_catalog_at(c, i);

		assert_non_null(g);
		assert_true(g->bf16_tflops >= 0);   /* 0: V100 */
		assert_true(g->fp16_tflops > 0);
		/* a part that has BF16 runs it at its FP16 rate or faster */
		assert_true(g->bf16_tflops == 0 ||
			    g->bf16_tflops >= g->fp16_tflops * 0.99);
		/* dense figures: FP8 is twice BF16 where it exists */
		assert_true(g->fp8_tflops == 0 ||
			    fabs(g->fp8_tflops / g->bf16_tflops - 2) < 0.05);
		assert_true(g->n_pci_ids >= 1);
		assert_true(g->fp8_tflops >= 0);
		/* at least 8 GiB, at most 1 TiB: catches GB/GiB/bytes mixups */
		assert_true(g->mem_bytes >= 8.0 * (1 << 30));
		assert_true(g->mem_bytes <= 1024.0 * (1 << 30));
		assert_true(g->hbm_gbs > 100);
		assert_true(g->link_gbs > 0);
		assert_true(g->net_gbps_per_gpu > 0);
		assert_in_range(g->net_kind, 0, 2);
		assert_in_range(g->link, AUTOSIZE_LINK_NVLINK,
				AUTOSIZE_LINK_PCIE);
		/* the NVLink domain is whole nodes; only the NVL72 racks
		 * (GB200, GB300) span more than one */
		assert_int_equal(g->nvlink_domain_gpus % g->gpus_per_node, 0);
		if (strcmp(g->name, "GB200") != 0 &&
		    strcmp(g->name, "GB300") != 0) {
			assert_int_equal(g->gpus_per_node, 8);
			assert_int_equal(g->nvlink_domain_gpus, 8);
		}
		/* every name and alias finds its own GPU */
		assert_ptr_equal(autosize_catalog_find(c, g->name), g);
	}
	assert_null(autosize_catalog_at(c, n));
	assert_null(autosize_catalog_at(c, -1));
	autosize_catalog_destroy(c);
}

static void test_shipped_lookups(void **state)
{
	autosize_error e;
	autosize_catalog *c = autosize_catalog_default(&e);
	const autosize_gpu *g;
	int i, j;

	(void)state;
	assert_non_null(c);
	g = autosize_catalog_find(c, "a100-80gb");
	assert_non_null(g);
	assert_string_equal(g->name, "A100-SXM4-80GB");
	g = autosize_catalog_find(c, "h100");
	assert_non_null(g);
	assert_string_equal(g->name, "H100-SXM5-80GB");
	g = autosize_catalog_find(c, "H100_SXM5_80GB");
	assert_non_null(g);
	assert_string_equal(g->name, "H100-SXM5-80GB");
	g = autosize_catalog_find(c, " h100 sxm5 80gb ");
	assert_non_null(g);
	assert_string_equal(g->name, "H100-SXM5-80GB");
	g = autosize_catalog_find(c, "mi300x");
	assert_non_null(g);
	assert_string_equal(g->name, "MI300X");
	assert_null(autosize_catalog_find(c, "Z100"));
	assert_null(autosize_catalog_find(c, "h100x"));
	assert_null(autosize_catalog_find(c, ""));
	assert_null(autosize_catalog_find(c, "- _"));
	assert_null(autosize_catalog_find(c, NULL));
	assert_null(autosize_catalog_find(NULL, "h100"));

	g = autosize_catalog_find_pci(c, 0x10de, 0x20b2);
	assert_non_null(g);
	assert_string_equal(g->name, "A100-SXM4-80GB");
	assert_null(autosize_catalog_find_pci(c, 0x10de, 0x0000));
	assert_null(autosize_catalog_find_pci(c, 0x20b2, 0x10de));

	/* aliases resolve to their GPU and no alias is claimed twice */
	for (i = 0; i < autosize_catalog_count(c); i++) {
		g = autosize_catalog_at(c, i);
		for (j = 0; j < g->n_aliases; j++)
			assert_ptr_equal(autosize_catalog_find(c,
						g->aliases[j]), g);
	}

	g = autosize_catalog_find(c, "A100-SXM4-80GB");
	assert_non_null(g);
	assert_true(g->mem_bytes == 80.0 * 1073741824.0);
	assert_true(autosize_gpu_peak_flops(g, AUTOSIZE_PREC_BF16) ==
		    312e12);
	assert_true(autosize_gpu_peak_flops(g, AUTOSIZE_PREC_FP8) == 0);
	/* GB200 NVL72: 4 GPUs a compute tray, 72 on one NVLink switch
	 * fabric; the 1200 W part's 2500 dense BF16; nvidia-smi's
	 * 189471 MiB */
	g = autosize_catalog_find(c, "gb200");
	assert_non_null(g);
	assert_string_equal(g->name, "GB200");
	assert_ptr_equal(autosize_catalog_find(c, "GB200-NVL72"), g);
	assert_ptr_equal(autosize_catalog_find_pci(c, 0x10de, 0x2941), g);
	assert_int_equal(g->gpus_per_node, 4);
	assert_int_equal(g->nvlink_domain_gpus, 72);
	assert_int_equal(g->link, AUTOSIZE_LINK_NVLINK);
	assert_true(g->link_gbs == 1800);
	assert_true(autosize_gpu_peak_flops(g, AUTOSIZE_PREC_BF16) ==
		    2500e12);
	assert_true(fabs(g->mem_bytes - 189471.0 * 1048576) <
		    0.01 * 1073741824.0);
	/* Blackwell Ultra: B200's BF16 and FP8 peaks, 1.5x its dense FP4,
	 * 288 GB HBM3e (nvidia-smi: 275040 MiB on B300, 284208 MiB on a
	 * GB300 tray), 800 Gb/s ConnectX-8 a GPU */
	g = autosize_catalog_find(c, "b300");
	assert_non_null(g);
	assert_string_equal(g->name, "B300");
	assert_ptr_equal(autosize_catalog_find_pci(c, 0x10de, 0x3182), g);
	assert_int_equal(g->gpus_per_node, 8);
	assert_true(autosize_gpu_peak_flops(g, AUTOSIZE_PREC_BF16) ==
		    autosize_gpu_peak_flops(autosize_catalog_find(c, "b200"),
					    AUTOSIZE_PREC_BF16));
	assert_true(autosize_gpu_peak_flops(g, AUTOSIZE_PREC_NVFP4) ==
		    1.5 * autosize_gpu_peak_flops(autosize_catalog_find(c,
						  "b200"), AUTOSIZE_PREC_NVFP4));
	assert_true(fabs(g->mem_bytes - 275040.0 * 1048576) <
		    0.01 * 1073741824.0);
	assert_true(g->net_gbps_per_gpu == 800);
	g = autosize_catalog_find(c, "GB300-NVL72");
	assert_non_null(g);
	assert_string_equal(g->name, "GB300");
	assert_ptr_equal(autosize_catalog_find_pci(c, 0x10de, 0x31c2), g);
	assert_int_equal(g->gpus_per_node, 4);
	assert_int_equal(g->nvlink_domain_gpus, 72);
	assert_true(autosize_gpu_peak_flops(g, AUTOSIZE_PREC_BF16) ==
		    2500e12);
	assert_true(fabs(g->mem_bytes - 284208.0 * 1048576) <
		    0.01 * 1073741824.0);
	g = autosize_catalog_find(c, "h100");
	assert_true(autosize_gpu_peak_flops(g, AUTOSIZE_PREC_FP8) >
		    autosize_gpu_peak_flops(g, AUTOSIZE_PREC_BF16));
	assert_true(autosize_gpu_peak_flops(g, 7) == 0);
	assert_true(autosize_gpu_peak_flops(NULL, 0) == 0);
	autosize_catalog_destroy(c);
}

static void test_good_catalog(void **state)
{
	autosize_error e;
	autosize_catalog *c;
	const autosize_gpu *g;
	char text[2048];

	(void)state;
	snprintf(text, sizeof(text), "%s%s", good_catalog, second_gpu);
	c = parse_str(text, &e);
	if (!c)
		fail_msg("good catalog: %s", e.msg);
	assert_int_equal(autosize_catalog_count(c), 2);
	g = autosize_catalog_at(c, 0);
	assert_string_equal(g->name, "Test-GPU-80GB");
	assert_int_equal(g->n_aliases, 2);
	assert_string_equal(g->aliases[0], "tg80");
	assert_string_equal(g->aliases[1], "test gpu");
	assert_true(g->bf16_tflops == 100);
	assert_true(g->fp16_tflops == 110.5);
	assert_true(g->fp8_tflops == 250);
	assert_true(g->mem_bytes == 79.5 * 1073741824.0);
	assert_true(g->hbm_gbs == 2000);
	assert_int_equal(g->link, AUTOSIZE_LINK_XGMI);
	assert_true(g->link_gbs == 600);
	assert_int_equal(g->net_kind, 1);
	assert_true(g->net_gbps_per_gpu == 200);
	assert_int_equal(g->n_pci_ids, 2);
	assert_int_equal(g->pci_ids[0], 0x10deabcd);
	assert_int_equal(g->pci_ids[1], 0x100274a1);
	assert_ptr_equal(autosize_catalog_find_pci(c, 0x1002, 0x74a1), g);
	assert_ptr_equal(autosize_catalog_find(c, "TESTGPU"), g);
	assert_ptr_equal(autosize_catalog_find(c, "test-gpu-80gb"), g);
	assert_true(autosize_gpu_peak_flops(g, AUTOSIZE_PREC_FP16) ==
		    110.5e12);
	assert_true(autosize_gpu_peak_flops(g, AUTOSIZE_PREC_FP8) == 250e12);

	g = autosize_catalog_at(c, 1);
	assert_string_equal(g->name, "Other");
	assert_true(g->fp8_tflops == 0);       /* absent: unsupported */
	assert_int_equal(g->net_kind, 0);      /* absent: ib */
	assert_int_equal(g->n_pci_ids, 0);
	assert_int_equal(g->link, AUTOSIZE_LINK_PCIE);
	assert_true(autosize_gpu_peak_flops(g, AUTOSIZE_PREC_FP8) == 0);
	/* absent: 8-GPU nodes, each its own link domain */
	assert_int_equal(g->gpus_per_node, 8);
	assert_int_equal(g->nvlink_domain_gpus, 8);
	autosize_catalog_destroy(c);
	autosize_catalog_destroy(NULL);
}

static const ytest_case broken_cases[] = {
	/* unknown key */
	{ 4, "    bf16_tflop: 100\n", AUTOSIZE_EINVAL, 4,
	  "unknown key 'bf16_tflop' in gpu entry; known keys: name, aliases" },
	{ 1, "gpu:\n", AUTOSIZE_EINVAL, 1, "unknown key 'gpu'" },
	/* bad PCI ids */
	{ 13, "    pci_ids: [\"10de:20b\"]\n", AUTOSIZE_EINVAL, 13,
	  "key 'pci_ids': '10de:20b' is not a PCI id" },
	{ 13, "    pci_ids: [\"10de-20b2\"]\n", AUTOSIZE_EINVAL, 13,
	  "'10de-20b2'" },
	{ 13, "    pci_ids: [\"10dg:20b2\"]\n", AUTOSIZE_EINVAL, 13,
	  "'10dg:20b2'" },
	{ 13, "    pci_ids: [\"0x10de:20b2\"]\n", AUTOSIZE_EINVAL, 13,
	  "key 'pci_ids'" },
	{ 13, "    pci_ids: [\"10de:abcd\", \"10DE:ABCD\"]\n",
	  AUTOSIZE_EINVAL, 13, "10de:abcd is already listed" },
	{ 13, "    pci_ids: \"10de:abcd\"\n", AUTOSIZE_EINVAL, 13,
	  "key 'pci_ids': expected a list" },
	/* negative, zero, junk and overflowing numbers */
	{ 4, "    bf16_tflops: -312\n", AUTOSIZE_EINVAL, 4,
	  "key 'bf16_tflops': -312 is out of range (expected a number from 0 to" },
	{ 5, "    fp16_tflops: 0\n", AUTOSIZE_EINVAL, 5,
	  "key 'fp16_tflops': 0 is out of range (expected a number > 0" },
	{ 4, "    bf16_tflops: -0.5\n", AUTOSIZE_EINVAL, 4,
	  "key 'bf16_tflops': -0.5 is out of range (expected a number from 0 to" },
	{ 6, "    fp8_tflops: -1\n", AUTOSIZE_EINVAL, 6,
	  "key 'fp8_tflops'" },
	{ 4, "    bf16_tflops: 312 TFLOPS\n", AUTOSIZE_EINVAL, 4,
	  "key 'bf16_tflops': '312 TFLOPS' is not a number" },
	{ 4, "    bf16_tflops: .nan\n", AUTOSIZE_EINVAL, 4,
	  "key 'bf16_tflops': '.nan' is not a number" },
	{ 4, "    bf16_tflops: nan\n", AUTOSIZE_EINVAL, 4, "'nan'" },
	{ 4, "    bf16_tflops: inf\n", AUTOSIZE_EINVAL, 4, "'inf'" },
	{ 4, "    bf16_tflops: 1e999\n", AUTOSIZE_EINVAL, 4, "'1e999'" },
	{ 4, "    bf16_tflops: 0x10\n", AUTOSIZE_EINVAL, 4, "'0x10'" },
	{ 4, "    bf16_tflops: 5e9\n", AUTOSIZE_EINVAL, 4,
	  "5e9 is out of range" },
	{ 7, "    memory_gib: [80]\n", AUTOSIZE_EINVAL, 7,
	  "key 'memory_gib': expected a number > 0 and <= 100000, got a list" },
	{ 7, "    memory_gib:\n", AUTOSIZE_EINVAL, 7,
	  "key 'memory_gib': no value" },
	/* missing required keys: the entry's line */
	{ 8, "", AUTOSIZE_EINVAL, 2, "key 'hbm_gbs' is missing" },
	{ 9, "", AUTOSIZE_EINVAL, 2, "key 'link' is missing" },
	{ 2, "  - notes: x\n", AUTOSIZE_EINVAL, 2,
	  "key 'name' is missing" },
	/* enums */
	{ 9, "    link: infiniband\n", AUTOSIZE_EINVAL, 9,
	  "key 'link': 'infiniband' is not valid (expected nvlink, xgmi, hccs or pcie)" },
	{ 11, "    net: omnipath\n", AUTOSIZE_EINVAL, 11,
	  "key 'net': 'omnipath' is not valid (expected ib, roce or ethernet)" },
	/* node and NVLink domain sizes */
	{ 13, "    gpus_per_node: 0\n", AUTOSIZE_EINVAL, 13,
	  "key 'gpus_per_node': 0 is out of range" },
	/* 16 is two nodes of 8: what is wrong is the link (xgmi) */
	{ 13, "    nvlink_domain_gpus: 16\n", AUTOSIZE_EINVAL, 13,
	  "key 'nvlink_domain_gpus': 16 GPUs span nodes of 8, which needs NVLink" },
	{ 9, "    link: nvlink\n    nvlink_domain_gpus: 12\n", AUTOSIZE_EINVAL,
	  10, "key 'nvlink_domain_gpus': 12 is not a whole number of nodes of 8 GPUs" },
	{ 9, "    link: nvlink\n    gpus_per_node: 4\n"
	  "    nvlink_domain_gpus: 18\n", AUTOSIZE_EINVAL, 11,
	  "key 'nvlink_domain_gpus': 18 is not a whole number" },
	{ 13, "    nvlink_domain_gpus: 4096\n", AUTOSIZE_EINVAL, 13,
	  "key 'nvlink_domain_gpus': 4096 is out of range" },
	/* names and aliases */
	{ 2, "  - name: Test-GPU-80GB-with-a-much-too-long-name\n",
	  AUTOSIZE_EINVAL, 2, "key 'name': " },
	{ 2, "  - name: \"bad\\tname\"\n", AUTOSIZE_EINVAL, 2,
	  "control character" },
	{ 2, "  - name: \"--\"\n", AUTOSIZE_EINVAL, 2,
	  "key 'name': '--' is not a name" },
	{ 3, "    aliases: [tg80, TG_80]\n", AUTOSIZE_EINVAL, 3,
	  "key 'aliases': 'TG_80' is listed twice" },
	{ 3, "    aliases: [test_gpu_80gb]\n", AUTOSIZE_EINVAL, 3,
	  "key 'aliases': 'test_gpu_80gb' repeats the name" },
	{ 3, "    aliases: tg80\n", AUTOSIZE_EINVAL, 3,
	  "key 'aliases': expected a list, got a single value" },
	{ 3, "    aliases: [a, b, c, d, e, f, g, h, i]\n", AUTOSIZE_ETOOBIG,
	  3, "key 'aliases': 9 items (expected at most 8)" },
	{ 3, "    aliases: [[a]]\n", AUTOSIZE_EINVAL, 3,
	  "key 'aliases': expected text, got a list" },
	/* YAML-level rejections */
	{ 4, "    bf16_tflops: &x 100\n", AUTOSIZE_EINVAL, 4,
	  "YAML aliases/anchors are not allowed" },
	{ 5, "    fp16_tflops: *x\n", AUTOSIZE_EINVAL, 5,
	  "YAML aliases/anchors are not allowed" },
	{ 4, "    bf16_tflops: !!float 100\n", AUTOSIZE_EINVAL, 4,
	  "YAML tags" },
	{ 5, "    bf16_tflops: 100\n", AUTOSIZE_EINVAL, 5,
	  "key 'bf16_tflops': duplicate key (first at line 4)" },
	{ 5, "    fp16_tflops: [110\n", AUTOSIZE_EINVAL, 0, "YAML syntax" },
	{ 14, "    source: x\n---\ngpus: []\n", AUTOSIZE_EINVAL, 15,
	  "more than one YAML document" },
	{ 14, "    source: {a: 1}\n", AUTOSIZE_EINVAL, 14,
	  "key 'source': expected text or a list of text" },
};

static void *parse_any(const char *text, autosize_error *e)
{
	return parse_str(text, e);
}

static void destroy_any(void *obj)
{
	autosize_catalog_destroy(obj);
}

static void test_broken_catalogs(void **state)
{
	(void)state;
	ytest_run_broken(good_catalog, WHAT, broken_cases,
			 sizeof(broken_cases) / sizeof(broken_cases[0]),
			 parse_any, destroy_any);
}

/* Clashes between two GPUs. */
static void test_duplicates(void **state)
{
	static const struct {
		int line;
		const char *repl;
		const char *needle;
	} cases[] = {
		{ 15, "  - name: TEST_GPU_80GB\n",
		  "key 'name': 'TEST_GPU_80GB' is already used by Test-GPU-80GB" },
		{ 15, "  - name: tg80\n",
		  "key 'name': 'tg80' is already used by Test-GPU-80GB" },
		{ 16, "    aliases: [Test GPU]\n",
		  "key 'aliases': 'Test GPU' is already used by Test-GPU-80GB" },
		{ 23, "    net_gbps_per_gpu: 25\n    pci_ids: [\"10de:ABCD\"]\n",
		  "key 'pci_ids': 10de:abcd is already listed for Test-GPU-80GB" },
	};
	char base[2048], text[4096];
	size_t i;
	int line;

	(void)state;
	snprintf(base, sizeof(base), "%s%s", good_catalog, second_gpu);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		autosize_error e;

		ytest_replace_line(base, cases[i].line, cases[i].repl, text,
				   sizeof(text));
		assert_null(parse_str(text, &e));
		assert_int_equal(e.code, AUTOSIZE_EINVAL);
		line = cases[i].line == 23 ? 24 : cases[i].line;
		ytest_check_msg(&e, WHAT, line, cases[i].needle);
	}
}

/* Ambiguous aliases: the shipped ones warn and resolve as documented;
 * a catalog's own are checked. */
static void test_ambiguous(void **state)
{
	static const struct {
		const char *name, *gpu, *warn;
	} shipped[] = {
		{ "a100", "A100-SXM4-80GB",
		  "a100 is ambiguous: a100-40gb or a100-80gb; taking a100-80gb" },
		{ "A100", "A100-SXM4-80GB",
		  "A100 is ambiguous: a100-40gb or a100-80gb; taking a100-80gb" },
		{ "v100", "V100-SXM2-32GB",
		  "v100 is ambiguous: v100-16gb or v100-32gb; taking v100-32gb" },
		{ "GH200", "GH200-144GB",
		  "GH200 is ambiguous: gh200-hbm3 or gh200-hbm3e; taking gh200-hbm3e" },
		{ "blackwell-ultra", "B300",
		  "blackwell-ultra is ambiguous: b300-sxm6 or gb300-nvl72; taking b300-sxm6" },
		{ "a100-40gb", "A100-SXM4-40GB", "" },
		{ "a100_80gb", "A100-SXM4-80GB", "" },
		{ "h100", "H100-SXM5-80GB", "" },
		{ "mi250x", "MI250X", "" },
	};
	static const struct {
		int line;
		const char *repl, *needle;
	} broken[] = {
		{ 16, "    aliases: [other-1]\n    ambiguous_aliases: [z100]\n",
		  "key 'ambiguous_aliases': no other GPU has the name or alias 'z100'" },
		{ 16, "    aliases: [other-1]\n    ambiguous_aliases: [Other]\n",
		  "key 'ambiguous_aliases': 'Other' is this GPU's own name" },
		{ 16, "    aliases: [other-1]\n    ambiguous_aliases: [other_1]\n",
		  "key 'ambiguous_aliases': 'other_1' is also under this GPU's aliases" },
		{ 16, "    aliases: [other-1]\n    ambiguous_aliases: [\"- \"]\n",
		  "key 'ambiguous_aliases': '- ' is not a name" },
		{ 16, "    aliases: [other-1]\n    ambiguous_aliases: tg80\n",
		  "key 'ambiguous_aliases': expected a list" },
	};
	char base[2048], text[4096], warn[160];
	autosize_error e;
	autosize_catalog *c = autosize_catalog_default(&e);
	const autosize_gpu *g;
	size_t i;

	(void)state;
	assert_non_null(c);
	for (i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
		g = autosize_catalog_resolve(c, shipped[i].name, warn,
					     sizeof(warn));
		assert_non_null(g);
		assert_string_equal(g->name, shipped[i].gpu);
		assert_string_equal(warn, shipped[i].warn);
		/* the plain lookup agrees, silently */
		assert_ptr_equal(autosize_catalog_find(c, shipped[i].name), g);
	}
	assert_null(autosize_catalog_resolve(c, "z100", warn, sizeof(warn)));
	assert_string_equal(warn, "");
	assert_non_null(autosize_catalog_resolve(c, "a100", NULL, 0));
	/* a short buffer is cut, never overrun */
	memset(warn, 'x', sizeof(warn));
	assert_non_null(autosize_catalog_resolve(c, "a100", warn, 12));
	assert_int_equal(strlen(warn), 11);
	assert_null(autosize_catalog_resolve(NULL, "a100", warn,
					     sizeof(warn)));
	g = autosize_catalog_find(c, "v100-16gb");
	assert_true(autosize_gpu_peak_flops(g, AUTOSIZE_PREC_BF16) == 0);
	assert_true(autosize_gpu_peak_flops(g, AUTOSIZE_PREC_FP16) == 125e12);
	autosize_catalog_destroy(c);

	/* a catalog's own: Other also called tg80, which Test-GPU owns */
	snprintf(base, sizeof(base), "%s%s", good_catalog, second_gpu);
	ytest_replace_line(base, 16,
			   "    aliases: [other-1]\n    ambiguous_aliases: [TG80]\n",
			   text, sizeof(text));
	c = parse_str(text, &e);
	if (!c)
		fail_msg("ambiguous_aliases: %s", e.msg);
	g = autosize_catalog_resolve(c, "tg80", warn, sizeof(warn));
	assert_string_equal(g->name, "Test-GPU-80GB");
	assert_string_equal(warn,
			    "tg80 is ambiguous: tg80 or other-1; taking tg80");
	autosize_catalog_destroy(c);
	for (i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		ytest_replace_line(base, broken[i].line, broken[i].repl, text,
				   sizeof(text));
		assert_null(parse_str(text, &e));
		assert_int_equal(e.code, AUTOSIZE_EINVAL);
		ytest_check_msg(&e, WHAT, 17, broken[i].needle);
	}
}

static void test_hostile_yaml(void **state)
{
	static const char *const bomb =
		"a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
		"b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
		"c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
		"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
		"e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
		"f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
		"g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
		"h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
		"i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n";
	autosize_error e;
	char *text;
	size_t i, n;

	(void)state;
	assert_null(parse_str(bomb, &e));
	assert_int_equal(e.code, AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 1, "YAML aliases/anchors are not allowed");

	/* 100 levels of nesting, flow and block style */
	text = malloc(8192);
	assert_non_null(text);
	n = (size_t)snprintf(text, 8192, "gpus: ");
	for (i = 0; i < 100; i++)
		text[n++] = '[';
	for (i = 0; i < 100; i++)
		text[n++] = ']';
	text[n] = '\0';
	assert_null(parse_str(text, &e));
	assert_int_equal(e.code, AUTOSIZE_ETOOBIG);
	ytest_check_msg(&e, WHAT, 1, "nesting deeper than 16 levels");

	n = 0;
	for (i = 0; i < 100; i++)
		n += (size_t)snprintf(text + n, 8192 - n, "%*sk%zu:\n",
				      (int)i, "", i);
	assert_null(parse_str(text, &e));
	assert_int_equal(e.code, AUTOSIZE_ETOOBIG);
	ytest_check_msg(&e, WHAT, 17, "nesting deeper than 16 levels");
	free(text);

	/* empty, comments only, a bare document marker */
	assert_null(autosize_catalog_parse("", 0, WHAT, &e));
	assert_int_equal(e.code, AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 1, "empty YAML file");
	assert_null(parse_str("# nothing\n\n# here\n", &e));
	ytest_check_msg(&e, WHAT, 1, "empty YAML file");
	assert_null(parse_str("---\n", &e));
	ytest_check_msg(&e, WHAT, 1, "empty YAML file");

	/* the top level must be a mapping */
	assert_null(parse_str("- gpus\n- x\n", &e));
	assert_int_equal(e.code, AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 1,
			"the catalog: expected a mapping, got a list");
	assert_null(parse_str("gpus\n", &e));
	ytest_check_msg(&e, WHAT, 1,
			"the catalog: expected a mapping, got a single value");

	assert_null(parse_str("gpus: {}\n", &e));
	ytest_check_msg(&e, WHAT, 1,
			"key 'gpus': expected a list, got a mapping");
	assert_null(parse_str("gpus: []\n", &e));
	ytest_check_msg(&e, WHAT, 1, "key 'gpus': no GPUs");
	assert_null(parse_str("gpus:\n", &e));
	ytest_check_msg(&e, WHAT, 1, "key 'gpus' is missing");
	assert_null(parse_str("gpus: [1]\n", &e));
	ytest_check_msg(&e, WHAT, 1,
			"gpu entry: expected a mapping, got a single value");

	/* a NUL byte in the text, a NUL escape, invalid UTF-8 */
	assert_null(autosize_catalog_parse("gpus:\0 []\n", 10, WHAT, &e));
	assert_int_equal(e.code, AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 0, WHAT);
	assert_null(parse_str("gpus: [\"a\\0b\"]\n", &e));
	ytest_check_msg(&e, WHAT, 1, "NUL");
	assert_null(parse_str("gpus: [\"\xff\xfe\"]\n", &e));
	assert_int_equal(e.code, AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 0, WHAT);
}

static void test_caps(void **state)
{
	autosize_error e;
	char *text, entry[512];
	size_t n, cap = 2 * 1024 * 1024;
	int i;

	(void)state;
	text = malloc(cap);
	assert_non_null(text);

	/* 65 GPUs: over AUTOSIZE_CATALOG_MAX_GPUS */
	n = (size_t)snprintf(text, cap, "gpus:\n");
	for (i = 0; i <= AUTOSIZE_CATALOG_MAX_GPUS; i++) {
		snprintf(entry, sizeof(entry),
			 "  - {name: g%d, bf16_tflops: 1, fp16_tflops: 1, "
			 "memory_gib: 1, hbm_gbs: 1, link: pcie, link_gbs: 1, "
			 "net_gbps_per_gpu: 1}\n", i);
		n += (size_t)snprintf(text + n, cap - n, "%s", entry);
	}
	assert_null(parse_str(text, &e));
	assert_int_equal(e.code, AUTOSIZE_ETOOBIG);
	ytest_check_msg(&e, WHAT, 1, "key 'gpus': 65 items (expected at most 64)");
	/* exactly 64 is fine */
	*strrchr(text, '-') = '\0';
	text[strlen(text) - 2] = '\0';
	{
		autosize_catalog *c = parse_str(text, &e);

		if (!c)
			fail_msg("64 GPUs: %s", e.msg);
		assert_int_equal(autosize_catalog_count(c), 64);
		assert_string_equal(autosize_catalog_at(c, 63)->name, "g63");
		autosize_catalog_destroy(c);
	}

	/* a scalar over 4096 bytes */
	n = (size_t)snprintf(text, cap, "gpus: [\"");
	memset(text + n, 'x', 5000);
	n += 5000;
	snprintf(text + n, cap - n, "\"]\n");
	assert_null(parse_str(text, &e));
	assert_int_equal(e.code, AUTOSIZE_ETOOBIG);
	ytest_check_msg(&e, WHAT, 1, "longer than 4096 bytes");

	/* more than 20000 nodes */
	n = (size_t)snprintf(text, cap, "gpus: [");
	for (i = 0; i < 20001; i++)
		n += (size_t)snprintf(text + n, cap - n, "1,");
	snprintf(text + n, cap - n, "1]\n");
	assert_null(parse_str(text, &e));
	assert_int_equal(e.code, AUTOSIZE_ETOOBIG);
	ytest_check_msg(&e, WHAT, 1, "more than 20000 YAML nodes");

	/* over 1 MiB of text */
	memset(text, '#', cap);
	assert_null(autosize_catalog_parse(text, AUTOSIZE_YAML_MAX_BYTES + 1,
					   WHAT, &e));
	assert_int_equal(e.code, AUTOSIZE_ETOOBIG);
	ytest_check_msg(&e, WHAT, 0, "larger than the 1048576-byte limit");
	free(text);
}

static void test_files(void **state)
{
	char path[64], fifo[128], dir[64];
	autosize_error e;
	autosize_catalog *c;

	(void)state;
	test_write_tmp(path, sizeof(path), good_catalog);
	c = autosize_catalog_load(path, &e);
	if (!c)
		fail_msg("load %s: %s", path, e.msg);
	assert_int_equal(autosize_catalog_count(c), 1);
	autosize_catalog_destroy(c);
	unlink(path);

	/* errors in a file name the file */
	test_write_tmp(path, sizeof(path), "gpus:\n  - name: x\n    foo: 1\n");
	assert_null(autosize_catalog_load(path, &e));
	assert_int_equal(e.code, AUTOSIZE_EINVAL);
	ytest_check_msg(&e, path, 3, "unknown key 'foo'");
	unlink(path);

	snprintf(dir, sizeof(dir), "/tmp/autosize-test-dir-XXXXXX");
	assert_non_null(mkdtemp(dir));
	assert_null(autosize_catalog_load(dir, &e));
	assert_int_equal(e.code, AUTOSIZE_EIO);
	ytest_check_msg(&e, dir, 0, ": is a directory, expected a YAML file");

	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_null(autosize_catalog_load(fifo, &e)); /* must not block */
	assert_int_equal(e.code, AUTOSIZE_EIO);
	ytest_check_msg(&e, fifo, 0, ": is a FIFO");
	unlink(fifo);

	assert_null(autosize_catalog_load(fifo, &e));
	assert_int_equal(e.code, AUTOSIZE_EIO);
	ytest_check_msg(&e, fifo, 0, "cannot open");
	rmdir(dir);

	assert_null(autosize_catalog_load("/dev/null", &e));
	assert_int_equal(e.code, AUTOSIZE_EIO);
	ytest_check_msg(&e, "/dev/null", 0, "expected a YAML file");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped_catalog),
		cmocka_unit_test(test_shipped_lookups),
		cmocka_unit_test(test_good_catalog),
		cmocka_unit_test(test_broken_catalogs),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_ambiguous),
		cmocka_unit_test(test_hostile_yaml),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
