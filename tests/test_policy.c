/* Tests: site policy loader (core/policy.c) and etc/autosize.yaml. */
#include "testutil.h"
#include <errno.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "autosize/plan.h"
#include "autosize/policy.h"
#include "ytest.h"

#define WHAT "site.yaml"

/* A good policy; the broken cases replace one of its lines. */
static const char *const good_policy =
	"defaults:\n"                               /* 1 */
	"  mode: warn\n"                            /* 2 */
	"  memory_reserve: 0.25\n"                  /* 3 */
	"  time_reserve: 0.5\n"                     /* 4 */
	"  objective: time\n"                       /* 5 */
	"  deadline: 10d\n"                         /* 6 */
	"  partition: p1\n"                         /* 7 */
	"partitions:\n"                             /* 8 */
	"  - name: p1\n"                            /* 9 */
	"    gpu: h100\n"                           /* 10 */
	"    gpus_per_node: 8\n"                    /* 11 */
	"    nodes: 4\n"                            /* 12 */
	"    max_nodes_per_job: 2\n"                /* 13 */
	"    max_time: 2-00:00:00\n"                /* 14 */
	"    intra_node_link: nvlink\n"             /* 15 */
	"    intra_node_gbs: 450\n"                 /* 16 */
	"    network: roce\n"                       /* 17 */
	"    network_gbps_per_node: 3200\n"         /* 18 */
	"    price_per_gpu_hour: 2.5\n"             /* 19 */
	"    currency: EUR\n"                       /* 20 */
	"  - name: p2.small_x-1\n"                  /* 21 */
	"    gpu: A100_SXM4_80GB\n"                 /* 22 */
	"    gpus_per_node: 4\n"                    /* 23 */
	"    nodes: 2\n"                            /* 24 */
	"    intra_node_link: pcie\n"               /* 25 */
	"    network: ethernet\n"                   /* 26 */
	"    network_gbps_per_node: 100\n";         /* 27 */

static autosize_policy *parse_str(const char *text, autosize_error *e)
{
	return autosize_policy_parse(text, strlen(text), WHAT, "/nonexistent",
				     e);
}

static void check_part(const autosize_partition *p, const char *name,
		       const char *gpu, int gpn, int nodes, int max_nodes,
		       double max_time_s, autosize_link link,
		       autosize_net net, double net_gbps, double price)
{
	assert_non_null(p);
	assert_string_equal(p->name, name);
	assert_non_null(p->gpu);
	assert_string_equal(p->gpu->name, gpu);
	assert_int_equal(p->gpus_per_node, gpn);
	assert_int_equal(p->nodes, nodes);
	assert_int_equal(p->max_nodes_per_job, max_nodes);
	assert_true(p->max_time_s == max_time_s);
	assert_int_equal(p->intra_link, link);
	assert_int_equal(p->net, net);
	assert_true(p->net_gbps_per_node == net_gbps);
	assert_true(p->price_per_gpu_hour == price);
	assert_string_equal(p->currency, "USD");
}

/* The defaults doc/users.md and etc/autosize.yaml document. */
static void assert_documented_defaults(const autosize_defaults *d)
{
	assert_int_equal(d->mode, AUTOSIZE_MODE_REWRITE);
	assert_true(d->memory_reserve == 0.20);
	assert_true(d->time_reserve == 0.15);
	assert_int_equal(d->objective, AUTOSIZE_OBJECTIVE_COST);
	assert_true(d->deadline_s == 0);
	assert_true(d->horizon_s == 30 * 86400.0);
	assert_true(d->max_train_s == 180 * 86400.0);
	assert_true(d->min_scaling == 0.60);
	assert_string_equal(d->partition, "");
	assert_int_equal(d->explicit_size, AUTOSIZE_EXPLICIT_KEEP);
	assert_int_equal(d->on_unfit, AUTOSIZE_UNFIT_REJECT);
	assert_int_equal(d->on_error, AUTOSIZE_ON_ERROR_PASS);
	assert_int_equal(d->gpu_check, AUTOSIZE_GPU_CHECK_WARN);
}

/* etc/autosize.yaml loads and says what its comments say. */
static void test_shipped_policy(void **state)
{
	autosize_error e;
	autosize_policy *p = autosize_policy_load("etc/autosize.yaml", &e);
	const autosize_defaults *d;
	const autosize_partition *part;
	const autosize_catalog *c;

	(void)state;
	if (!p)
		fail_msg("etc/autosize.yaml: %s", e.msg);
	d = autosize_policy_defaults(p);
	assert_documented_defaults(d);
	c = autosize_policy_catalog(p);
	assert_true(autosize_catalog_count(c) >= 13);

	assert_int_equal(autosize_policy_partition_count(p), 3);
	part = autosize_policy_partition_at(p, 0);
	check_part(part, "a100", "A100-SXM4-80GB", 8, 16, 8, 2 * 86400.0,
		   AUTOSIZE_LINK_NVLINK, AUTOSIZE_NET_IB, 1600, 1.80);
	assert_true(part->intra_gbs == part->gpu->link_gbs);
	assert_ptr_equal(part->gpu, autosize_catalog_find(c, "a100-80gb"));
	part = autosize_policy_partition_at(p, 1);
	check_part(part, "h100", "H100-SXM5-80GB", 8, 32, 16, 3 * 86400.0,
		   AUTOSIZE_LINK_NVLINK, AUTOSIZE_NET_IB, 3200, 2.90);
	assert_true(part->intra_gbs == part->gpu->link_gbs);
	part = autosize_policy_partition_at(p, 2);
	check_part(part, "l40s", "L40S", 8, 8, 4, 86400.0,
		   AUTOSIZE_LINK_PCIE, AUTOSIZE_NET_ETHERNET, 100, 0.90);
	assert_true(part->intra_gbs == part->gpu->link_gbs);
	assert_null(autosize_policy_partition_at(p, 3));
	assert_null(autosize_policy_partition_at(p, -1));

	assert_ptr_equal(autosize_policy_find_partition(p, "h100"),
			 autosize_policy_partition_at(p, 1));
	assert_null(autosize_policy_find_partition(p, "H100")); /* exact */
	assert_null(autosize_policy_find_partition(p, "nope"));
	assert_null(autosize_policy_find_partition(p, NULL));
	autosize_policy_destroy(p);
	autosize_policy_destroy(NULL);
}

static void test_good_policy(void **state)
{
	autosize_error e;
	autosize_policy *p = parse_str(good_policy, &e);
	const autosize_defaults *d;
	const autosize_partition *part;

	(void)state;
	if (!p)
		fail_msg("good policy: %s", e.msg);
	d = autosize_policy_defaults(p);
	assert_int_equal(d->mode, AUTOSIZE_MODE_WARN);
	assert_true(d->memory_reserve == 0.25);
	assert_true(d->time_reserve == 0.5);
	assert_int_equal(d->objective, AUTOSIZE_OBJECTIVE_TIME);
	assert_true(d->deadline_s == 10 * 86400.0);
	assert_string_equal(d->partition, "p1");
	assert_int_equal(autosize_policy_partition_count(p), 2);

	part = autosize_policy_find_partition(p, "p1");
	assert_non_null(part);
	assert_string_equal(part->gpu->name, "H100-SXM5-80GB");
	assert_int_equal(part->max_nodes_per_job, 2);
	assert_true(part->max_time_s == 2 * 86400.0);
	assert_true(part->intra_gbs == 450);
	assert_int_equal(part->net, AUTOSIZE_NET_ROCE);
	assert_true(part->price_per_gpu_hour == 2.5);
	assert_string_equal(part->currency, "EUR");

	part = autosize_policy_find_partition(p, "p2.small_x-1");
	assert_non_null(part);
	assert_string_equal(part->gpu->name, "A100-SXM4-80GB");
	assert_int_equal(part->max_nodes_per_job, 2); /* default: nodes */
	assert_true(part->max_time_s == 0);           /* unlimited */
	assert_int_equal(part->intra_link, AUTOSIZE_LINK_PCIE);
	assert_true(part->intra_gbs == 64);           /* pcie on an SXM GPU */
	assert_true(part->price_per_gpu_hour == 0);
	assert_string_equal(part->currency, "USD");
	autosize_policy_destroy(p);
}

/* Defaults apply when the file leaves them out. */
static void test_minimal_policy(void **state)
{
	static const char *const text =
		"partitions:\n"
		"  - {name: x, gpu: mi300x, gpus_per_node: 8, nodes: 1,\n"
		"     network: ib, network_gbps_per_node: 400}\n";
	autosize_error e;
	autosize_policy *p = parse_str(text, &e);
	const autosize_defaults *d;
	const autosize_partition *part;

	(void)state;
	if (!p)
		fail_msg("minimal policy: %s", e.msg);
	d = autosize_policy_defaults(p);
	assert_documented_defaults(d);
	part = autosize_policy_partition_at(p, 0);
	assert_int_equal(part->intra_link, AUTOSIZE_LINK_XGMI);
	assert_true(part->intra_gbs == part->gpu->link_gbs);
	assert_int_equal(part->max_nodes_per_job, 1);
	/* no in-switch reductions */
	assert_int_equal(part->nvlink_sharp, 0);
	assert_int_equal(part->ib_sharp, 0);
	autosize_policy_destroy(p);
}

/* The fabric's in-switch reductions, as a site states them. */
static void test_fabric_keys(void **state)
{
	static const char *const text =
		"partitions:\n"
		"  - {name: x, gpu: h100, gpus_per_node: 8, nodes: 4,\n"
		"     network: ib, network_gbps_per_node: 3200,\n"
		"     nvlink_sharp: true, ib_sharp: yes}\n";
	static const char *const bad =
		"partitions:\n"
		"  - {name: x, gpu: h100, gpus_per_node: 8, nodes: 4,\n"
		"     network: ib, network_gbps_per_node: 3200,\n"
		"     ib_sharp: 2}\n";
	autosize_error e;
	autosize_policy *p = parse_str(text, &e);
	const autosize_partition *part;

	(void)state;
	if (!p)
		fail_msg("fabric keys: %s", e.msg);
	part = autosize_policy_partition_at(p, 0);
	assert_int_equal(part->nvlink_sharp, 1);
	assert_int_equal(part->ib_sharp, 1);
	autosize_policy_destroy(p);
	assert_null(parse_str(bad, &e));
	assert_non_null(strstr(e.msg, "ib_sharp"));
}

/* A GB200 partition takes the catalog's NVL72 domain (18 trays of 4); a
 * site without rack-aware placement narrows it to the tray; a domain
 * that is not whole nodes, or wider than the node off NVLink, is an
 * error naming the key. */
static void test_nvlink_domain_key(void **state)
{
	static const char *const text =
		"partitions:\n"
		"  - {name: nvl72, gpu: gb200, gpus_per_node: 4, nodes: 72,\n"
		"     network: ib, network_gbps_per_node: 1600,\n"
		"     gres_type: gb200}\n"
		"  - {name: tray, gpu: gb200-nvl72, gpus_per_node: 4, nodes: 8,\n"
		"     network: ib, network_gbps_per_node: 1600,\n"
		"     nvlink_domain_gpus: 4}\n"
		"  - {name: h, gpu: h100, gpus_per_node: 8, nodes: 4,\n"
		"     network: ib, network_gbps_per_node: 3200}\n"
		"  - {name: wide, gpu: gb200, gpus_per_node: 8, nodes: 4,\n"
		"     network: ib, network_gbps_per_node: 3200}\n"
		"  - {name: odd, gpu: gb200, gpus_per_node: 5, nodes: 4,\n"
		"     network: ib, network_gbps_per_node: 2000}\n";
	static const char *const bad[] = {
		"partitions:\n"
		"  - {name: x, gpu: gb200, gpus_per_node: 4, nodes: 4,\n"
		"     network: ib, network_gbps_per_node: 1600,\n"
		"     nvlink_domain_gpus: 18}\n",
		"partitions:\n"
		"  - {name: x, gpu: gb200, gpus_per_node: 4, nodes: 4,\n"
		"     network: ib, network_gbps_per_node: 1600,\n"
		"     intra_node_link: pcie, nvlink_domain_gpus: 8}\n",
	};
	autosize_error e;
	autosize_policy *p = parse_str(text, &e);
	const autosize_partition *part;
	size_t i;

	(void)state;
	if (!p)
		fail_msg("nvlink domain: %s", e.msg);
	part = autosize_policy_find_partition(p, "nvl72");
	assert_int_equal(part->domain_nodes, 18);
	assert_true(autosize_partition_has_type(p, part, "gb200"));
	assert_int_equal(autosize_policy_find_partition(p, "tray")
			 ->domain_nodes, 1);
	assert_int_equal(autosize_policy_find_partition(p, "h")
			 ->domain_nodes, 1);
	/* never more GPUs than the catalog's 72: 9 nodes of 8, 14 of 5 */
	assert_int_equal(autosize_policy_find_partition(p, "wide")
			 ->domain_nodes, 9);
	assert_int_equal(autosize_policy_find_partition(p, "odd")
			 ->domain_nodes, 14);
	autosize_policy_destroy(p);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_null(parse_str(bad[i], &e));
		assert_non_null(strstr(e.msg, "key 'nvlink_domain_gpus'"));
		assert_non_null(strstr(e.msg, WHAT ":4: "));
	}
}

/* Slurm's spellings (MaxTime=UNLIMITED, scontrol's INFINITE, InfiniBand)
 * and the command line's percentages mean what they say. */
static void test_slurm_spellings(void **state)
{
	static const char *const forms[][4] = {
		/* max_time, network, memory_reserve, time_reserve */
		{ "UNLIMITED", "infiniband", "20%", "15%" },
		{ "infinite", "InfiniBand", "0.2", "0.15" },
		{ "Unlimited", "ib", "20.0%", "15.0%" },
	};
	char text[512];
	autosize_error e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		autosize_policy *p;
		const autosize_partition *part;
		const autosize_defaults *d;

		snprintf(text, sizeof(text),
			 "defaults:\n  memory_reserve: %s\n"
			 "  time_reserve: %s\n"
			 "partitions:\n  - name: x\n    gpu: h100\n"
			 "    gpus_per_node: 8\n    nodes: 2\n"
			 "    max_time: %s\n    network: %s\n"
			 "    network_gbps_per_node: 3200\n",
			 forms[i][2], forms[i][3], forms[i][0], forms[i][1]);
		p = parse_str(text, &e);
		if (!p)
			fail_msg("form %zu: %s", i, e.msg);
		part = autosize_policy_partition_at(p, 0);
		d = autosize_policy_defaults(p);
		assert_true(part->max_time_s == 0);
		assert_int_equal(part->net, AUTOSIZE_NET_IB);
		assert_true(fabs(d->memory_reserve - 0.20) < 1e-12);
		assert_true(fabs(d->time_reserve - 0.15) < 1e-12);
		autosize_policy_destroy(p);
	}
	/* a percentage above 100 where the range allows it */
	snprintf(text, sizeof(text),
		 "defaults: {time_reserve: 150%%}\npartitions:\n"
		 "  - {name: x, gpu: h100, gpus_per_node: 8, nodes: 1,\n"
		 "     network: roce, network_gbps_per_node: 400}\n");
	{
		autosize_policy *p = parse_str(text, &e);

		if (!p)
			fail_msg("time_reserve 150%%: %s", e.msg);
		assert_true(fabs(autosize_policy_defaults(p)->time_reserve -
				 1.5) < 1e-12);
		assert_int_equal(autosize_policy_partition_at(p, 0)->net,
				 AUTOSIZE_NET_ROCE);
		autosize_policy_destroy(p);
	}
}

/* An ambiguous GPU alias is accepted, taken as the catalog says, and
 * kept as a warning naming the file, the line and the choice. */
static void test_ambiguous_gpu(void **state)
{
	char text[1024];
	autosize_error e;
	autosize_policy *p;

	(void)state;
	p = parse_str(good_policy, &e);
	assert_non_null(p);
	assert_int_equal(autosize_policy_warning_count(p), 0);
	assert_null(autosize_policy_warning_at(p, 0));
	autosize_policy_destroy(p);

	ytest_replace_line(good_policy, 22, "    gpu: a100\n", text,
			   sizeof(text));
	p = parse_str(text, &e);
	if (!p)
		fail_msg("gpu: a100: %s", e.msg);
	assert_string_equal(autosize_policy_partition_at(p, 1)->gpu->name,
			    "A100-SXM4-80GB");
	assert_int_equal(autosize_policy_warning_count(p), 1);
	assert_string_equal(autosize_policy_warning_at(p, 0),
			    "site.yaml:22: key 'gpu': a100 is ambiguous: "
			    "a100-40gb or a100-80gb; taking a100-80gb (name "
			    "the part to be sure)");
	assert_null(autosize_policy_warning_at(p, 1));
	assert_null(autosize_policy_warning_at(p, -1));
	autosize_policy_destroy(p);
	assert_int_equal(autosize_policy_warning_count(NULL), 0);
	assert_null(autosize_policy_warning_at(NULL, 0));
}

/* The horizon, the maximum training time and the scaling floor: Slurm's
 * UNLIMITED turns the first two off, a percentage sets the third. */
static void test_horizon_keys(void **state)
{
	static const char text[] =
		"defaults:\n"
		"  horizon: 14d\n"
		"  max_train_time: UNLIMITED\n"
		"  min_scaling_efficiency: 50%\n"
		"partitions:\n"
		"  - name: p\n"
		"    gpu: h100\n"
		"    gpus_per_node: 8\n"
		"    nodes: 4\n"
		"    network: ib\n"
		"    network_gbps_per_node: 3200\n";
	autosize_error e;
	autosize_policy *p = parse_str(text, &e);
	const autosize_defaults *d;

	(void)state;
	if (!p)
		fail_msg("horizon keys: %s", e.msg);
	d = autosize_policy_defaults(p);
	assert_true(d->horizon_s == 14 * 86400.0);
	assert_true(d->max_train_s == 0);
	assert_true(d->min_scaling == 0.5);
	autosize_policy_destroy(p);
}

static void test_default_policy(void **state)
{
	autosize_error e;
	autosize_policy *p = autosize_policy_default(&e);
	const autosize_defaults *d;

	(void)state;
	if (!p)
		fail_msg("default policy: %s", e.msg);
	assert_int_equal(autosize_policy_partition_count(p), 0);
	assert_null(autosize_policy_partition_at(p, 0));
	d = autosize_policy_defaults(p);
	assert_documented_defaults(d);
	assert_true(autosize_catalog_count(autosize_policy_catalog(p)) >= 13);
	autosize_policy_destroy(p);
}

static void test_reference_partition(void **state)
{
	autosize_error e;
	autosize_catalog *c = autosize_catalog_default(&e);
	const autosize_gpu *g;
	autosize_partition part;

	(void)state;
	assert_non_null(c);
	g = autosize_catalog_find(c, "h100");
	autosize_partition_reference(&part, g, 8);
	assert_string_equal(part.name, "H100-SXM5-80GB");
	assert_ptr_equal(part.gpu, g);
	assert_int_equal(part.gpus_per_node, 8);
	assert_int_equal(part.nodes, AUTOSIZE_REFERENCE_MAX_NODES);
	assert_int_equal(part.max_nodes_per_job, AUTOSIZE_REFERENCE_MAX_NODES);
	assert_true(part.max_time_s == 0);
	assert_int_equal(part.intra_link, g->link);
	assert_true(part.intra_gbs == g->link_gbs);
	assert_int_equal(part.net, (autosize_net)g->net_kind);
	assert_true(part.net_gbps_per_node == g->net_gbps_per_gpu * 8);
	assert_true(part.price_per_gpu_hour == 0);
	assert_string_equal(part.currency, "USD");

	g = autosize_catalog_find(c, "L40S");
	autosize_partition_reference(&part, g, 4);
	assert_int_equal(part.intra_link, AUTOSIZE_LINK_PCIE);
	assert_int_equal(part.net, (autosize_net)g->net_kind);
	assert_true(part.net_gbps_per_node == g->net_gbps_per_gpu * 4);

	/* GB200 NVL72: the rack's 18 trays, fewer GPUs used on each or
	 * not; nodes wider than a tray hold the same 72 GPUs, not 144 */
	g = autosize_catalog_find(c, "gb200");
	autosize_partition_reference(&part, g, 4);
	assert_int_equal(part.domain_nodes, 18);
	autosize_partition_reference(&part, g, 2);
	assert_int_equal(part.domain_nodes, 18);
	autosize_partition_reference(&part, g, 8);
	assert_int_equal(part.domain_nodes, 9);
	autosize_partition_reference(&part, g, 64);
	assert_int_equal(part.domain_nodes, 1);
	autosize_catalog_destroy(c);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(autosize_mode_name(AUTOSIZE_MODE_REWRITE),
			    "rewrite");
	assert_string_equal(autosize_mode_name(AUTOSIZE_MODE_WARN), "warn");
	assert_string_equal(autosize_mode_name(AUTOSIZE_MODE_OFF), "off");
	assert_string_equal(autosize_net_name(AUTOSIZE_NET_IB), "ib");
	assert_string_equal(autosize_net_name(AUTOSIZE_NET_ROCE), "roce");
	assert_string_equal(autosize_net_name(AUTOSIZE_NET_ETHERNET),
			    "ethernet");
	assert_string_equal(autosize_link_name(AUTOSIZE_LINK_NVLINK),
			    "nvlink");
	assert_string_equal(autosize_link_name(AUTOSIZE_LINK_XGMI), "xgmi");
	assert_string_equal(autosize_link_name(AUTOSIZE_LINK_HCCS), "hccs");
	assert_string_equal(autosize_link_name(AUTOSIZE_LINK_PCIE), "pcie");
	assert_string_equal(autosize_objective_name(AUTOSIZE_OBJECTIVE_COST),
			    "cost");
	assert_string_equal(autosize_objective_name(AUTOSIZE_OBJECTIVE_TIME),
			    "time");
	assert_string_equal(autosize_mode_name((autosize_mode)9), "?");
	assert_string_equal(autosize_net_name((autosize_net)-1), "?");
	/* each printer's last spelling, and "?" one past it (names.c:
	 * the bounds are the arrays') */
	assert_string_equal(autosize_gpu_check_name(AUTOSIZE_GPU_CHECK_OFF),
			    "off");
	assert_string_equal(autosize_gpu_check_name(
		(autosize_gpu_check)(AUTOSIZE_GPU_CHECK_OFF + 1)), "?");
	assert_string_equal(autosize_on_error_name(AUTOSIZE_ON_ERROR_REJECT),
			    "reject");
	assert_string_equal(autosize_on_error_name(
		(autosize_on_error)(AUTOSIZE_ON_ERROR_REJECT + 1)), "?");
	assert_string_equal(autosize_unfit_name(AUTOSIZE_UNFIT_WARN), "warn");
	assert_string_equal(autosize_unfit_name(
		(autosize_unfit)(AUTOSIZE_UNFIT_WARN + 1)), "?");
	assert_string_equal(autosize_explicit_name(AUTOSIZE_EXPLICIT_REWRITE),
			    "rewrite");
	assert_string_equal(autosize_explicit_name(
		(autosize_explicit)(AUTOSIZE_EXPLICIT_REWRITE + 1)), "?");
	assert_string_equal(autosize_link_name(
		(autosize_link)(AUTOSIZE_LINK_PCIE + 1)), "?");
	assert_string_equal(autosize_objective_name(
		(autosize_objective)(AUTOSIZE_OBJECTIVE_TIME + 1)), "?");
	assert_string_equal(autosize_framework_name(
		AUTOSIZE_FRAMEWORK_DEFAULT), "default");
	assert_string_equal(autosize_framework_name(
		AUTOSIZE_FRAMEWORK_DEEPSPEED), "deepspeed");
	assert_string_equal(autosize_framework_name(
		(autosize_framework)(AUTOSIZE_FRAMEWORK_DEEPSPEED + 1)), "?");
	assert_string_equal(autosize_framework_name((autosize_framework)-1),
			    "?");
	assert_string_equal(autosize_recompute_name(
		AUTOSIZE_RECOMPUTE_SELECTIVE_MLP), "selective-mlp");
	assert_string_equal(autosize_recompute_name(
		(autosize_recompute)(AUTOSIZE_RECOMPUTE_SELECTIVE_MLP + 1)),
		"?");
}

static const ytest_case broken_cases[] = {
	/* unknown keys at each level */
	{ 1, "foo: 1\ndefaults:\n", AUTOSIZE_EINVAL, 1,
	  "unknown key 'foo' in the policy; known keys: catalog, defaults, partitions" },
	{ 2, "  mod: warn\n", AUTOSIZE_EINVAL, 2,
	  "unknown key 'mod' in defaults; known keys: mode, memory_reserve" },
	{ 10, "    gpu_type: h100\n", AUTOSIZE_EINVAL, 10,
	  "unknown key 'gpu_type' in partition; known keys: name, gpu," },
	/* wrong types */
	{ 12, "    nodes: many\n", AUTOSIZE_EINVAL, 12,
	  "key 'nodes': 'many' is not a whole number (expected a whole number from 1 to 100000)" },
	{ 11, "    gpus_per_node: [8]\n", AUTOSIZE_EINVAL, 11,
	  "key 'gpus_per_node': expected a whole number from 1 to 64, got a list" },
	{ 11, "    gpus_per_node: 8.5\n", AUTOSIZE_EINVAL, 11,
	  "key 'gpus_per_node': '8.5' is not a whole number" },
	{ 3, "  memory_reserve: lots\n", AUTOSIZE_EINVAL, 3,
	  "key 'memory_reserve': 'lots' is not a number" },
	{ 20, "    currency: {code: EUR}\n", AUTOSIZE_EINVAL, 20,
	  "key 'currency': expected text, got a mapping" },
	/* duplicates */
	{ 21, "  - name: p1\n", AUTOSIZE_EINVAL, 21,
	  "key 'name': partition 'p1' is listed twice (first at line 9)" },
	{ 11, "    gpu: a100\n", AUTOSIZE_EINVAL, 11,
	  "key 'gpu': duplicate key (first at line 10)" },
	/* unknown names */
	{ 10, "    gpu: Z100\n", AUTOSIZE_ENOTFOUND, 10,
	  "key 'gpu': unknown GPU 'Z100' (expected a catalog name or alias: A100-SXM4-40GB, " },
	{ 7, "  partition: p3\n", AUTOSIZE_ENOTFOUND, 7,
	  "key 'partition': no partition 'p3' under partitions (expected one of p1, p2.small_x-1)" },
	/* out of range */
	{ 19, "    price_per_gpu_hour: -1\n", AUTOSIZE_EINVAL, 19,
	  "key 'price_per_gpu_hour': -1 is out of range (expected a number from 0 to" },
	{ 3, "  memory_reserve: 0.95\n", AUTOSIZE_EINVAL, 3,
	  "key 'memory_reserve': 0.95 is out of range (expected a number from 0 to 0.9)" },
	{ 3, "  memory_reserve: -0.1\n", AUTOSIZE_EINVAL, 3,
	  "key 'memory_reserve'" },
	{ 4, "  time_reserve: 11\n", AUTOSIZE_EINVAL, 4,
	  "key 'time_reserve': 11 is out of range (expected a number from 0 to 10)" },
	{ 13, "    max_nodes_per_job: 5\n", AUTOSIZE_EINVAL, 13,
	  "key 'max_nodes_per_job': 5 is more than the partition's 4 nodes" },
	{ 11, "    gpus_per_node: 65\n", AUTOSIZE_EINVAL, 11,
	  "key 'gpus_per_node': 65 is out of range (expected a whole number from 1 to 64)" },
	{ 11, "    gpus_per_node: 0\n", AUTOSIZE_EINVAL, 11,
	  "key 'gpus_per_node'" },
	{ 12, "    nodes: 100001\n", AUTOSIZE_EINVAL, 12, "key 'nodes'" },
	{ 12, "    nodes: 99999999999999999999999\n", AUTOSIZE_EINVAL, 12,
	  "key 'nodes'" },
	{ 18, "    network_gbps_per_node: 0\n", AUTOSIZE_EINVAL, 18,
	  "key 'network_gbps_per_node': 0 is out of range (expected a number > 0" },
	{ 16, "    intra_node_gbs: -5\n", AUTOSIZE_EINVAL, 16,
	  "key 'intra_node_gbs'" },
	/* durations */
	{ 14, "    max_time: 3 days\n", AUTOSIZE_EINVAL, 14,
	  "key 'max_time': " },
	{ 14, "    max_time: 3x\n", AUTOSIZE_EINVAL, 14,
	  "key 'max_time': '3x' is not a duration" },
	{ 14, "    max_time: 0\n", AUTOSIZE_EINVAL, 14, "key 'max_time'" },
	{ 6, "  deadline: soon\n", AUTOSIZE_EINVAL, 6,
	  "key 'deadline': 'soon' is not a duration" },
	{ 6, "  max_train_time: forever\n", AUTOSIZE_EINVAL, 6,
	  "key 'max_train_time': 'forever' is not a duration" },
	{ 6, "  horizon: 200d\n", AUTOSIZE_EINVAL, 6,
	  "key 'horizon': 200 days is longer than max_train_time, 180 days" },
	{ 6, "  deadline: 10d\n  max_train_time: 5d\n", AUTOSIZE_EINVAL, 6,
	  "key 'deadline': 10 days is longer than max_train_time, 5 days" },
	{ 6, "  min_scaling_efficiency: 1.5\n", AUTOSIZE_EINVAL, 6,
	  "key 'min_scaling_efficiency': 1.5 is out of range (expected a "
	  "number from 0 to 1)" },
	/* enums and names */
	{ 2, "  mode: yes\n", AUTOSIZE_EINVAL, 2,
	  "key 'mode': 'yes' is not valid (expected rewrite, warn or off)" },
	{ 5, "  objective: speed\n", AUTOSIZE_EINVAL, 5,
	  "key 'objective': 'speed' is not valid (expected cost or time)" },
	{ 17, "    network: token-ring\n", AUTOSIZE_EINVAL, 17,
	  "key 'network': 'token-ring' is not valid (expected ib, roce or ethernet)" },
	{ 17, "    network: infiniband-hdr\n", AUTOSIZE_EINVAL, 17,
	  "key 'network': 'infiniband-hdr' is not valid" },
	/* Slurm's and the command line's spellings, where they do not fit */
	{ 3, "  memory_reserve: 95%\n", AUTOSIZE_EINVAL, 3,
	  "key 'memory_reserve': '95%' is out of range (expected 0..0.9)" },
	{ 3, "  memory_reserve: 20 %\n", AUTOSIZE_EINVAL, 3,
	  "key 'memory_reserve': value '20 %' contains a space" },
	{ 3, "  memory_reserve: \"%\"\n", AUTOSIZE_EINVAL, 3,
	  "key 'memory_reserve': '%' is not a number" },
	{ 4, "  time_reserve: 1001%\n", AUTOSIZE_EINVAL, 4,
	  "key 'time_reserve': '1001%' is out of range" },
	{ 6, "  deadline: UNLIMITED\n", AUTOSIZE_EINVAL, 6,
	  "key 'deadline': 'UNLIMITED' is not a duration" },
	{ 14, "    max_time: UNLIMITEDX\n", AUTOSIZE_EINVAL, 14,
	  "key 'max_time': 'UNLIMITEDX' is not a duration" },
	{ 15, "    intra_node_link: xgmi\n", AUTOSIZE_EINVAL, 15,
	  "key 'intra_node_link': H100-SXM5-80GB has nvlink, not xgmi" },
	{ 9, "  - name: gpu part\n", AUTOSIZE_EINVAL, 9,
	  "key 'name': 'gpu part' is not a partition name" },
	{ 9, "  - name: \"p1;rm -rf\"\n", AUTOSIZE_EINVAL, 9,
	  "is not a partition name" },
	{ 20, "    currency: usd\n", AUTOSIZE_EINVAL, 20,
	  "key 'currency': 'usd' is not a currency code" },
	{ 20, "    currency: EURODOLLAR\n", AUTOSIZE_EINVAL, 20,
	  "key 'currency': 'EURODOLLAR' is too long (expected at most 7 characters)" },
	/* missing required keys: the partition's line */
	{ 10, "", AUTOSIZE_EINVAL, 9, "key 'gpu' is missing" },
	{ 17, "", AUTOSIZE_EINVAL, 9, "key 'network' is missing" },
	{ 12, "    nodes:\n", AUTOSIZE_EINVAL, 12, "key 'nodes': no value" },
	/* YAML-level rejections */
	{ 11, "    gpus_per_node: &n 8\n", AUTOSIZE_EINVAL, 11,
	  "YAML aliases/anchors are not allowed" },
	{ 23, "    gpus_per_node: *n\n", AUTOSIZE_EINVAL, 23,
	  "YAML aliases/anchors are not allowed" },
	/* catalog: */
	{ 1, "catalog: [gpus.yaml]\ndefaults:\n", AUTOSIZE_EINVAL, 1,
	  "key 'catalog': expected text, got a list" },
};

static void *parse_any(const char *text, autosize_error *e)
{
	return parse_str(text, e);
}

static void destroy_any(void *obj)
{
	autosize_policy_destroy(obj);
}

static void test_broken_policies(void **state)
{
	(void)state;
	ytest_run_broken(good_policy, WHAT, broken_cases,
			 sizeof(broken_cases) / sizeof(broken_cases[0]),
			 parse_any, destroy_any);
}

/* Whole-document problems. */
static void test_broken_documents(void **state)
{
	static const char *const bomb =
		"defaults: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
		"x1: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
		"x2: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
		"x3: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
		"partitions: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n";
	autosize_error e;

	(void)state;
	assert_null(parse_str("", &e));
	assert_int_equal(e.code, AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 1, "empty YAML file");

	assert_null(parse_str(bomb, &e));
	assert_int_equal(e.code, AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 1, "YAML aliases/anchors are not allowed");

	assert_null(parse_str("partitions: []\n", &e));
	assert_int_equal(e.code, AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 1, "key 'partitions': no partitions");
	assert_null(parse_str("defaults: {mode: off}\n", &e));
	assert_int_equal(e.code, AUTOSIZE_EINVAL);
	ytest_check_msg(&e, WHAT, 1, "key 'partitions' is missing");
	assert_null(parse_str("partitions: {name: x}\n", &e));
	ytest_check_msg(&e, WHAT, 1,
			"key 'partitions': expected a list, got a mapping");
	assert_null(parse_str("partitions: [h100]\n", &e));
	ytest_check_msg(&e, WHAT, 1,
			"partition: expected a mapping, got a single value");
	assert_null(parse_str("defaults: [1]\npartitions: []\n", &e));
	ytest_check_msg(&e, WHAT, 1,
			"key 'defaults': expected a mapping, got a list");
	assert_null(parse_str("- partitions\n", &e));
	ytest_check_msg(&e, WHAT, 1,
			"the policy: expected a mapping, got a list");
}

static void test_too_many_partitions(void **state)
{
	char *text;
	size_t n = 0, cap = 65536;
	autosize_error e;
	int i;

	(void)state;
	text = malloc(cap);
	assert_non_null(text);
	n += (size_t)snprintf(text + n, cap - n, "partitions:\n");
	for (i = 0; i <= AUTOSIZE_MAX_PARTITIONS; i++)
		n += (size_t)snprintf(text + n, cap - n,
			"  - {name: p%d, gpu: h100, gpus_per_node: 8, "
			"nodes: 1, network: ib, network_gbps_per_node: 1}\n",
			i);
	assert_null(parse_str(text, &e));
	assert_int_equal(e.code, AUTOSIZE_ETOOBIG);
	ytest_check_msg(&e, WHAT, 1, "key 'partitions': 33 items");
	free(text);
}

/* Files: the folder, catalog: relative to it, and bad paths. */
static void test_files(void **state)
{
	char dir[64], path[256], sub[256], big[256];
	autosize_error e;
	autosize_policy *p;
	const autosize_partition *part;
	FILE *f;
	int i;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/autosize-test-pol-XXXXXX");
	assert_non_null(mkdtemp(dir));

	/* a site catalog next to the policy, named relatively */
	snprintf(path, sizeof(path), "%s/site-gpus.yaml", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("gpus:\n"
	      "  - name: Site-GPU\n"
	      "    bf16_tflops: 500\n"
	      "    fp16_tflops: 500\n"
	      "    memory_gib: 96\n"
	      "    hbm_gbs: 4000\n"
	      "    link: nvlink\n"
	      "    link_gbs: 900\n"
	      "    net_gbps_per_gpu: 400\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/autosize.yaml", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("catalog: site-gpus.yaml\n"
	      "partitions:\n"
	      "  - name: site\n"
	      "    gpu: site_gpu\n"
	      "    gpus_per_node: 4\n"
	      "    nodes: 10\n"
	      "    network: ib\n"
	      "    network_gbps_per_node: 800\n", f);
	fclose(f);
	p = autosize_policy_load(path, &e);
	if (!p)
		fail_msg("%s: %s", path, e.msg);
	assert_int_equal(autosize_catalog_count(autosize_policy_catalog(p)),
			 1);
	part = autosize_policy_partition_at(p, 0);
	assert_string_equal(part->gpu->name, "Site-GPU");
	assert_ptr_equal(part->gpu,
			 autosize_catalog_at(autosize_policy_catalog(p), 0));
	autosize_policy_destroy(p);

	/* the site catalog lacks the shipped GPUs */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("catalog: site-gpus.yaml\n"
	      "partitions:\n"
	      "  - {name: x, gpu: h100, gpus_per_node: 8, nodes: 1,\n"
	      "     network: ib, network_gbps_per_node: 400}\n", f);
	fclose(f);
	assert_null(autosize_policy_load(path, &e));
	assert_int_equal(e.code, AUTOSIZE_ENOTFOUND);
	ytest_check_msg(&e, path, 3,
		"key 'gpu': unknown GPU 'h100' (expected a catalog name or alias: Site-GPU)");

	/* catalog: pointing to a missing file */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("partitions:\n"
	      "  - {name: x, gpu: h100, gpus_per_node: 8, nodes: 1,\n"
	      "     network: ib, network_gbps_per_node: 400}\n"
	      "catalog: missing-gpus.yaml\n", f);
	fclose(f);
	assert_null(autosize_policy_load(path, &e));
	assert_int_equal(e.code, AUTOSIZE_EIO);
	ytest_check_msg(&e, path, 4, "key 'catalog': ");
	snprintf(sub, sizeof(sub), "%s/missing-gpus.yaml: cannot open", dir);
	assert_non_null(strstr(e.msg, sub));

	/* catalog: pointing to a broken catalog names both files */
	snprintf(sub, sizeof(sub), "%s/site-gpus.yaml", dir);
	f = fopen(sub, "w");
	assert_non_null(f);
	fputs("gpus:\n  - name: X\n    tflops: 1\n", f);
	fclose(f);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("catalog: site-gpus.yaml\n"
	      "partitions:\n"
	      "  - {name: x, gpu: X, gpus_per_node: 8, nodes: 1,\n"
	      "     network: ib, network_gbps_per_node: 400}\n", f);
	fclose(f);
	assert_null(autosize_policy_load(path, &e));
	assert_int_equal(e.code, AUTOSIZE_EINVAL);
	ytest_check_msg(&e, path, 1, "key 'catalog': ");
	snprintf(sub, sizeof(sub), "%s/site-gpus.yaml:3: unknown key 'tflops'",
		 dir);
	assert_non_null(strstr(e.msg, sub));
	/* parse from memory: catalog: is relative to the given folder */
	assert_null(autosize_policy_parse("catalog: site-gpus.yaml\n", 24,
					  "mem", dir, &e));
	assert_non_null(strstr(e.msg, sub));

	/* a directory, a FIFO, a missing file */
	assert_null(autosize_policy_load(dir, &e));
	assert_int_equal(e.code, AUTOSIZE_EIO);
	ytest_check_msg(&e, dir, 0, ": is a directory, expected a YAML file");

	snprintf(sub, sizeof(sub), "%s/fifo.yaml", dir);
	assert_int_equal(mkfifo(sub, 0600), 0);
	assert_null(autosize_policy_load(sub, &e)); /* must not block */
	assert_int_equal(e.code, AUTOSIZE_EIO);
	ytest_check_msg(&e, sub, 0, ": is a FIFO");
	unlink(sub);

	assert_null(autosize_policy_load(sub, &e));
	assert_int_equal(e.code, AUTOSIZE_EIO);
	ytest_check_msg(&e, sub, 0, "cannot open: No such file or directory");

	/* a 2 MiB file */
	snprintf(big, sizeof(big), "%s/big.yaml", dir);
	f = fopen(big, "w");
	assert_non_null(f);
	for (i = 0; i < 2 * 1024 * 16; i++)
		fprintf(f, "# %61d\n", i);
	fclose(f);
	assert_null(autosize_policy_load(big, &e));
	assert_int_equal(e.code, AUTOSIZE_ETOOBIG);
	ytest_check_msg(&e, big, 0, ": 2097152 bytes, larger than the 1048576-byte limit");

	/* errors in a file name the file and line */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("defaults:\n  memory_reserve: 0.95\n", f);
	fclose(f);
	assert_null(autosize_policy_load(path, &e));
	ytest_check_msg(&e, path, 2, "key 'memory_reserve'");

	unlink(big);
	unlink(path);
	snprintf(sub, sizeof(sub), "%s/site-gpus.yaml", dir);
	unlink(sub);
	assert_int_equal(rmdir(dir), 0);
}


/* What Slurm is told besides the size: a partition of several GPU types
 * (one entry per type, each its gres_type), CPUs and memory per GPU,
 * preemption; each bad value one line naming the key. */
static void test_slurm_side_keys(void **state)
{
	static const char base[] =
		"defaults:\n  slurm_limits: %s\n"
		"partitions:\n"
		"  - {name: gpu, gpu: h100, gres_type: %s, gpus_per_node: 8,"
		" nodes: 2, network: ib, network_gbps_per_node: 3200%s}\n"
		"  - {name: gpu, gpu: a100-80gb, gres_type: a100,"
		" gpus_per_node: 8, nodes: 2, network: ib,"
		" network_gbps_per_node: 1600%s}\n";
	static const struct {
		const char *limits, *type, *first, *second, *want;
	} bad[] = {
		{ "read", "h100", ", cpus_per_gpu: 0", "", "key 'cpus_per_gpu'" },
		{ "read", "h100", ", mem_per_gpu: 60X", "", "is not a memory size" },
		{ "read", "h100", ", preempted_every: 2h", "",
		  "the partition is not preemptible" },
		{ "read", "h100", "", ", cpus_per_gpu: 4097", "key 'cpus_per_gpu'" },
		{ "read", "\"h 100\"", "", "", "not a GRES type" },
		{ "read", "A100", "", "",
		  "a partition of several GPU types is one entry per type" },
		{ "read", "h100", "", ", mode: warn", "has another mode" },
		{ "maybe", "h100", "", "", "key 'slurm_limits'" },
	};
	char text[1024];
	autosize_policy *p;
	autosize_error e;
	const autosize_partition *a, *b;
	size_t i;

	snprintf(text, sizeof(text), base, "off", "h100",
		 ", cpus_per_gpu: 12, mem_per_gpu: 96G",
		 ", preemptible: true, preempted_every: 6h");
	p = parse_str(text, &e);
	if (!p)
		fail_msg("%s", e.msg);
	assert_int_equal(autosize_policy_defaults(p)->slurm_limits, 0);
	a = autosize_policy_partition_at(p, 0);
	b = autosize_policy_partition_at(p, 1);
	assert_string_equal(a->gres_type, "h100");
	assert_string_equal(b->gres_type, "a100");
	assert_int_equal(a->cpus_per_gpu, 12);
	assert_true(a->mem_per_gpu_bytes == 96.0 * 1024 * 1024 * 1024);
	assert_int_equal(b->preemptible, 1);
	assert_true(b->preempt_every_s == 6 * 3600.0);
	assert_int_equal(a->preemptible, 0);
	assert_ptr_equal(autosize_policy_find_partition(p, "gpu"), a);
	assert_int_equal(autosize_partition_has_type(p, a, "H100"), 1);
	assert_int_equal(autosize_partition_has_type(p, a, "a100"), 0);
	autosize_policy_destroy(p);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), base, bad[i].limits, bad[i].type,
			 bad[i].first, bad[i].second);
		autosize_error_clear(&e);
		p = parse_str(text, &e);
		if (p || !strstr(e.msg, bad[i].want))
			fail_msg("case %zu: %s", i, p ? "accepted" : e.msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped_policy),
		cmocka_unit_test(test_good_policy),
		cmocka_unit_test(test_nvlink_domain_key),
		cmocka_unit_test(test_slurm_side_keys),
		cmocka_unit_test(test_minimal_policy),
		cmocka_unit_test(test_fabric_keys),
		cmocka_unit_test(test_horizon_keys),
		cmocka_unit_test(test_default_policy),
		cmocka_unit_test(test_slurm_spellings),
		cmocka_unit_test(test_ambiguous_gpu),
		cmocka_unit_test(test_reference_partition),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_broken_policies),
		cmocka_unit_test(test_broken_documents),
		cmocka_unit_test(test_too_many_partitions),
		cmocka_unit_test(test_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
