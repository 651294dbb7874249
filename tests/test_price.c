/*
 * Tests: price schedules (core/price.c): the cost of a size under a
 * whole-node price, a small-job price, off-peak hours, rental-length
 * discounts and a platform fee; the policy's `pricing:` read strictly;
 * a plan's cost follows the schedule it would really pay.
 */
#include "testutil.h"
#include "autosize/plan.h"
#include "autosize/policy.h"
#include "autosize/price.h"
#include "ytest.h"

#define PLANTEST_WHAT "rent.yaml"
#include "plantest.h"

/* A site that rents H100s as rental markets price them: 6.00 per
 * GPU-hour, whole nodes 15% cheaper (40.80 per node-hour), 7.50 below
 * 8 GPUs, 00:00-08:00 at 40% off, 10% off from a week and 20% from a
 * month, a 5% fee. */
static const char *const rent_policy =
	"partitions:\n"                              /* 1 */
	"  - name: rent\n"                           /* 2 */
	"    gpu: h100\n"                            /* 3 */
	"    gpus_per_node: 8\n"                     /* 4 */
	"    nodes: 64\n"                            /* 5 */
	"    network: ib\n"                          /* 6 */
	"    network_gbps_per_node: 3200\n"          /* 7 */
	"    price_per_gpu_hour: 6.0\n"              /* 8 */
	"    currency: CNY\n"                        /* 9 */
	"    pricing:\n"                             /* 10 */
	"      price_per_node_hour: 40.8\n"          /* 11 */
	"      min_gpus: 8\n"                        /* 12 */
	"      price_below_min_per_gpu_hour: 7.5\n"  /* 13 */
	"      off_peak: 00:00-08:00\n"              /* 14 */
	"      off_peak_discount: 40%\n"             /* 15 */
	"      rental_discounts:\n"                  /* 16 */
	"        - {min_rental: 7d, discount: 10%}\n"   /* 17 */
	"        - {min_rental: 30d, discount: 0.2}\n"  /* 18 */
	"      platform_fee: 5%\n";                  /* 19 */

/* A partition with only a price per GPU-hour. */
static void plain_part(autosize_partition *part, double price)
{
	memset(part, 0, sizeof(*part));
	part->gpus_per_node = 8;
	part->price_per_gpu_hour = price;
}

static void test_plain_price(void **state)
{
	autosize_partition part;
	autosize_cost c;

	(void)state;
	plain_part(&part, 2.5);
	/* 3 nodes x 8 GPUs x 10 h x 2.5 */
	assert_float_equal(autosize_price_cost(&part, 3, 8, 10, -1, &c), 600,
			   1e-9);
	assert_float_equal(c.list, 600, 1e-9);
	assert_float_equal(c.gpu_hours, 240, 1e-9);
	assert_false(c.whole_nodes);
	assert_float_equal(c.fee, 0, 0);
	/* nothing to pay for nothing, or without a price */
	assert_float_equal(autosize_price_cost(&part, 0, 8, 10, -1, &c), 0, 0);
	assert_float_equal(autosize_price_cost(&part, 3, 8, 0, -1, &c), 0, 0);
	plain_part(&part, 0);
	assert_float_equal(autosize_price_cost(&part, 3, 8, 10, -1, &c), 0, 0);
	assert_float_equal(c.gpu_hours, 240, 1e-9);
}

/* Hours of a rental inside a daily window, against a minute-by-minute
 * count. */
static double count_minutes(double start, double hours, double from,
			    double to)
{
	long m, n = lround(hours * 60);
	double in = 0, h;

	for (m = 0; m < n; m++) {
		h = fmod(start + (m + 0.5) / 60.0, 24);
		if (from < to ? (h >= from && h < to) : (h >= from || h < to))
			in += 1.0 / 60;
	}
	return in;
}

static void test_off_peak_hours(void **state)
{
	static const double starts[] = {0, 3.5, 7.75, 12, 21, 23.5, 30};
	static const double lengths[] = {0.5, 5, 8, 13.25, 24, 50, 170};
	static const double windows[][2] = {{0, 8}, {22, 6}, {9.5, 17}};
	size_t i, j, k;

	(void)state;
	/* 22:00 to 10:00 the next day meets 00:00-08:00 for 8 h */
	assert_float_equal(autosize_price_off_peak_hours(22, 12, 0, 8), 8,
			   1e-9);
	/* a window over midnight: 20:00-01:00 meets 22:00-06:00 for 3 h */
	assert_float_equal(autosize_price_off_peak_hours(20, 5, 22, 6), 3,
			   1e-9);
	/* three days and two hours from 07:00: 3 x 8 + 1 */
	assert_float_equal(autosize_price_off_peak_hours(7, 74, 0, 8), 25,
			   1e-9);
	assert_float_equal(autosize_price_off_peak_hours(7, 0, 0, 8), 0, 0);
	assert_float_equal(autosize_price_off_peak_hours(7, 5, 8, 8), 0, 0);
	for (i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
		for (j = 0; j < sizeof(lengths) / sizeof(lengths[0]); j++)
			for (k = 0; k < sizeof(windows) / sizeof(windows[0]);
			     k++)
				assert_float_equal(
					autosize_price_off_peak_hours(
						starts[i], lengths[j],
						windows[k][0], windows[k][1]),
					count_minutes(starts[i], lengths[j],
						      windows[k][0],
						      windows[k][1]),
					1e-6);
}

/* The schedule loads with every part, and each part changes the cost
 * the way the site says. */
static void test_schedule(void **state)
{
	autosize_error e;
	autosize_policy *p = plantest_parse(rent_policy, &e);
	const autosize_partition *part;
	autosize_partition capped;
	const autosize_price_schedule *s;
	autosize_cost c;
	double paid;

	(void)state;
	if (!p)
		fail_msg("%s", e.msg);
	assert_int_equal(autosize_policy_warning_count(p), 0);
	part = autosize_policy_partition_at(p, 0);
	s = &part->pricing;
	assert_float_equal(s->per_node_hour, 40.8, 1e-12);
	assert_int_equal(s->min_gpus, 8);
	assert_float_equal(s->below_min_per_gpu_hour, 7.5, 1e-12);
	assert_true(s->off_peak);
	assert_float_equal(s->off_peak_from_h, 0, 0);
	assert_float_equal(s->off_peak_to_h, 8, 0);
	assert_float_equal(s->off_peak_discount, 0.4, 1e-12);
	assert_int_equal(s->n_rental, 2);
	assert_float_equal(s->rental[0].min_hours, 7 * 24, 1e-9);
	assert_float_equal(s->rental[1].discount, 0.2, 1e-12);
	assert_float_equal(s->platform_fee, 0.05, 1e-12);

	/* 2 whole nodes for 10 h from 10:00 (no off-peak hour, no
	 * rental discount): 16 x 10 x 40.8 / 8, + 5% */
	paid = autosize_price_cost(part, 2, 8, 10, 10, &c);
	assert_true(c.whole_nodes);
	assert_float_equal(c.rate_per_gpu_hour, 5.1, 1e-12);
	assert_float_equal(c.list, 16 * 10 * 6.0, 1e-9);
	assert_float_equal(c.fee, 16 * 10 * 5.1 * 0.05, 1e-9);
	assert_float_equal(paid, 16 * 10 * 5.1 * 1.05, 1e-9);
	/* 4 GPUs of one node: below 8 GPUs, 7.50 */
	paid = autosize_price_cost(part, 1, 4, 10, 10, &c);
	assert_true(c.below_min);
	assert_false(c.whole_nodes);
	assert_float_equal(paid, 4 * 10 * 7.5 * 1.05, 1e-9);
	/* 4 GPUs on each of 3 nodes: 12 GPUs by the GPU */
	paid = autosize_price_cost(part, 3, 4, 10, 10, &c);
	assert_false(c.below_min || c.whole_nodes);
	assert_float_equal(paid, 12 * 10 * 6.0 * 1.05, 1e-9);
	/* a QOS cap of 4 GPUs a node shrinks the planned partition's
	 * gpus_per_node (plan_cap_gpn): 2 nodes x 4 share their nodes and
	 * pay by the GPU, not a whole node's price for half of one */
	capped = *part;
	capped.gpus_per_node = 4;
	paid = autosize_price_cost(&capped, 2, 4, 10, 10, &c);
	assert_false(c.whole_nodes);
	assert_float_equal(paid, 8 * 10 * 6.0 * 1.05, 1e-9);
	paid = autosize_price_cost(&capped, 2, 8, 10, 10, &c);
	assert_true(c.whole_nodes);
	/* from 02:00 for 10 h: 6 of them at 40% off */
	paid = autosize_price_cost(part, 2, 8, 10, 2, &c);
	assert_float_equal(c.off_peak_share, 0.6, 1e-12);
	assert_float_equal(paid, 16 * 5.1 * (4 + 6 * 0.6) * 1.05, 1e-9);
	/* start unknown: a third of the hours off-peak */
	paid = autosize_price_cost(part, 2, 8, 10, -1, &c);
	assert_float_equal(c.off_peak_share, 1.0 / 3, 1e-12);
	assert_float_equal(paid, 16 * 10 * 5.1 * (1 - 0.4 / 3) * 1.05,
			   1e-9);
	/* rental tiers: under a week none, a week 10%, a month 20% */
	autosize_price_cost(part, 2, 8, 7 * 24 - 1, -1, &c);
	assert_float_equal(c.rental_discount, 0, 0);
	autosize_price_cost(part, 2, 8, 7 * 24, -1, &c);
	assert_float_equal(c.rental_discount, 0.1, 1e-12);
	paid = autosize_price_cost(part, 2, 8, 40 * 24, -1, &c);
	assert_float_equal(c.rental_discount, 0.2, 1e-12);
	assert_float_equal(paid, 16 * 40 * 24 * 5.1 * (1 - 0.4 / 3) * 0.8 *
			   1.05, 1e-6);
	assert_true(paid < c.list);
	autosize_policy_destroy(p);
}

static const ytest_case broken_cases[] = {
	{11, "      price_per_node: 40.8\n", AUTOSIZE_EINVAL, 11,
	 "unknown key 'price_per_node' in pricing"},
	{11, "      price_per_node_hour: 0\n", AUTOSIZE_EINVAL, 11,
	 "price_per_node_hour"},
	{11, "      price_per_node_hour: cheap\n", AUTOSIZE_EINVAL, 11,
	 "price_per_node_hour"},
	{12, "", AUTOSIZE_EINVAL, 12, "given without 'min_gpus'"},
	{13, "", AUTOSIZE_EINVAL, 12,
	 "given without 'price_below_min_per_gpu_hour'"},
	{12, "      min_gpus: 1\n", AUTOSIZE_EINVAL, 12, "min_gpus"},
	{14, "      off_peak: 8-16\n", AUTOSIZE_EINVAL, 14,
	 "expected HH:MM-HH:MM"},
	{14, "      off_peak: 00:00-25:00\n", AUTOSIZE_EINVAL, 14,
	 "not a time range"},
	{14, "      off_peak: 08:00-08:00\n", AUTOSIZE_EINVAL, 14,
	 "empty or the whole day"},
	{14, "      off_peak: 00:00-24:00\n", AUTOSIZE_EINVAL, 14,
	 "empty or the whole day"},
	{14, "      off_peak: 00:00-08:00x\n", AUTOSIZE_EINVAL, 14,
	 "not a time range"},
	{15, "", AUTOSIZE_EINVAL, 14, "given without 'off_peak_discount'"},
	{15, "      off_peak_discount: 100%\n", AUTOSIZE_EINVAL, 15,
	 "off_peak_discount"},
	{17, "        - {min_rental: 7d, discount: 10%, extra: 1}\n",
	 AUTOSIZE_EINVAL, 17, "unknown key 'extra'"},
	{17, "        - {discount: 10%}\n", AUTOSIZE_EINVAL, 17,
	 "key 'min_rental': missing"},
	{17, "        - {min_rental: 7d}\n", AUTOSIZE_EINVAL, 17,
	 "key 'discount': missing"},
	{17, "        - {min_rental: 60d, discount: 10%}\n", AUTOSIZE_EINVAL,
	 18, "not longer than the tier before"},
	{17, "        - {min_rental: 7d, discount: 30%}\n", AUTOSIZE_EINVAL,
	 18, "below the shorter rental's"},
	{17, "        - {min_rental: 7x, discount: 10%}\n", AUTOSIZE_EINVAL,
	 17, "min_rental"},
	{19, "      platform_fee: 150%\n", AUTOSIZE_EINVAL, 19,
	 "platform_fee"},
	{8, "", AUTOSIZE_EINVAL, 9, "has no price_per_gpu_hour"},
};

static void test_broken_schedules(void **state)
{
	(void)state;
	ytest_run_broken(rent_policy, PLANTEST_WHAT, broken_cases,
			 sizeof(broken_cases) / sizeof(broken_cases[0]),
			 plantest_parse_any, plantest_destroy_any);
}

/* A schedule that loads but contradicts itself is said, with numbers. */
static void test_schedule_warnings(void **state)
{
	char text[4096];
	autosize_error e;
	autosize_policy *p;

	(void)state;
	ytest_replace_line(rent_policy, 11, "      price_per_node_hour: 50\n",
			   text, sizeof(text));
	p = plantest_parse(text, &e);
	if (!p)
		fail_msg("%s", e.msg);
	assert_int_equal(autosize_policy_warning_count(p), 1);
	assert_non_null(strstr(autosize_policy_warning_at(p, 0),
			       PLANTEST_WHAT ":11: key 'price_per_node_hour': "
			       "50 is not below 8 GPUs x 6 = 48"));
	autosize_policy_destroy(p);
	ytest_replace_line(rent_policy, 13,
			   "      price_below_min_per_gpu_hour: 5\n", text,
			   sizeof(text));
	p = plantest_parse(text, &e);
	if (!p)
		fail_msg("%s", e.msg);
	assert_int_equal(autosize_policy_warning_count(p), 1);
	assert_non_null(strstr(autosize_policy_warning_at(p, 0),
			       PLANTEST_WHAT ":13: key "
			       "'price_below_min_per_gpu_hour'"));
	autosize_policy_destroy(p);
}

/* A plan pays what the schedule asks for its size and predicted hours:
 * whole nodes at the node price, the fee on top. */
static void test_plan_cost(void **state)
{
	static const char *const whole[] = {"model-params", "7e9",
		"train-tokens", "20B", "nodes", "2", NULL};
	static const char *const small[] = {"model-params", "1e9",
		"train-tokens", "1B", "gpus", "2", NULL};
	autosize_error e;
	autosize_policy *p = plantest_parse(rent_policy, &e);
	autosize_plan a, b;
	double want;

	(void)state;
	assert_non_null(p);
	assert_int_equal(plantest_plan(p, whole, &a), AUTOSIZE_OK);
	assert_int_equal(a.gpus_per_node, 8);
	assert_true(a.price.whole_nodes);
	want = autosize_price_cost(&a.part, a.nodes, a.gpus_per_node,
				   a.train_hours, -1, NULL);
	assert_float_equal(a.cost, want, 1e-9 * want);
	assert_float_equal(a.price.list, a.gpu_hours * 6.0,
			   1e-9 * a.price.list);
	/* whole nodes, a third off-peak, the fee: 5.1 x (1 - 0.4/3) x 1.05
	 * = 4.641 per GPU-hour instead of 6 */
	assert_float_equal(a.cost / a.gpu_hours, 4.641, 1e-9);
	assert_float_equal(a.price.fee, a.cost / 1.05 * 0.05, 1e-9 * a.cost);

	assert_int_equal(plantest_plan(p, small, &b), AUTOSIZE_OK);
	assert_int_equal(b.gpus, 2);
	assert_true(b.price.below_min);
	assert_float_equal(b.cost / b.gpu_hours, 7.5 * (1 - 0.4 / 3) * 1.05,
			   1e-9);
	autosize_policy_destroy(p);
}

/* The search itself pays the schedule: with whole nodes at half the
 * price per GPU, a small job takes a whole node rather than one GPU for
 * the same GPU-hours; at the plain price it takes the one GPU. */
static void test_search_pays_schedule(void **state)
{
	static const char *const node_priced =
		"partitions:\n"
		"  - name: rent\n"
		"    gpu: h100\n"
		"    gpus_per_node: 8\n"
		"    nodes: 64\n"
		"    network: ib\n"
		"    network_gbps_per_node: 3200\n"
		"    price_per_gpu_hour: 10\n"
		"    pricing:\n"
		"      price_per_node_hour: 40\n";
	static const char *const small[] = {"model-params", "1e9",
		"train-tokens", "10B", NULL};
	char plain[1024];
	autosize_error e;
	autosize_policy *p = plantest_parse(node_priced, &e);
	autosize_plan a, b;

	(void)state;
	assert_non_null(p);
	assert_int_equal(plantest_plan(p, small, &a), AUTOSIZE_OK);
	autosize_policy_destroy(p);
	snprintf(plain, sizeof(plain), "%.*s", (int)(strstr(node_priced,
		 "    pricing:") - node_priced), node_priced);
	p = plantest_parse(plain, &e);
	assert_non_null(p);
	assert_int_equal(plantest_plan(p, small, &b), AUTOSIZE_OK);
	autosize_policy_destroy(p);
	assert_int_equal(a.gpus_per_node, 8);
	assert_true(a.price.whole_nodes);
	assert_true(b.gpus < 8);
	assert_false(b.price.whole_nodes);
	/* about the same GPU-hours, half the money */
	assert_true(a.gpu_hours < 1.1 * b.gpu_hours);
	assert_true(a.cost < 0.6 * b.cost);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_price),
		cmocka_unit_test(test_off_peak_hours),
		cmocka_unit_test(test_schedule),
		cmocka_unit_test(test_broken_schedules),
		cmocka_unit_test(test_schedule_warnings),
		cmocka_unit_test(test_plan_cost),
		cmocka_unit_test(test_search_pays_schedule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
