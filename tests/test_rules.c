/*
 * The policy's `rules:` per account, QOS and user (core/policy_rules.c):
 * read strictly, matched first-wins.
 */
#include "testutil.h"
#include "autosize.h"
#include "ytest.h"

#define WHAT "site.yaml"

/* A policy with rules; the broken cases replace one of its lines. */
static const char *const rules_policy =
	"defaults:\n"                               /* 1 */
	"  mode: warn\n"                            /* 2 */
	"partitions:\n"                             /* 3 */
	"  - name: p1\n"                            /* 4 */
	"    gpu: H100-SXM5-80GB\n"                 /* 5 */
	"    gpus_per_node: 8\n"                    /* 6 */
	"    nodes: 4\n"                            /* 7 */
	"    network: ib\n"                         /* 8 */
	"    network_gbps_per_node: 3200\n"         /* 9 */
	"  - name: p2\n"                            /* 10 */
	"    gpu: A100-SXM4-80GB\n"                 /* 11 */
	"    gpus_per_node: 8\n"                    /* 12 */
	"    nodes: 2\n"                            /* 13 */
	"    network: ib\n"                         /* 14 */
	"    network_gbps_per_node: 1600\n"         /* 15 */
	"    mode: off\n"                           /* 16 */
	"rules:\n"                                  /* 17 */
	"  - accounts: [lab, lab2]\n"               /* 18 */
	"    qos: [normal]\n"                       /* 19 */
	"    mode: rewrite\n"                       /* 20 */
	"    max_gpus: 16\n"                        /* 21 */
	"    partition: p2\n"                       /* 22 */
	"    framework: fsdp\n"                     /* 23 */
	"    stack: hf\n"                           /* 24 */
	"  - users: [alice]\n"                      /* 25 */
	"    mode: off\n"                           /* 26 */
	"  - accounts: [lab]\n"                     /* 27 */
	"    partition: p1,p2\n";                   /* 28 */

static autosize_policy *parse_str(const char *text, autosize_error *e)
{
	return autosize_policy_parse(text, strlen(text), WHAT, ".", e);
}

static void test_rules_read(void **state)
{
	autosize_error e;
	autosize_policy *p = parse_str(rules_policy, &e);
	const autosize_partition *p1, *p2;
	const autosize_rule *r;
	char buf[200];

	(void)state;
	if (!p)
		fail_msg("%s", e.msg);
	assert_int_equal(autosize_policy_rule_count(p), 3);
	assert_int_equal(autosize_policy_warning_count(p), 0);
	r = autosize_policy_rule_at(p, 0);
	assert_int_equal(r->line, 18);
	assert_int_equal(r->n_accounts, 2);
	assert_string_equal(r->accounts[1], "lab2");
	assert_int_equal(r->n_users, 0);
	assert_int_equal(r->max_gpus, 16);
	assert_int_equal(r->framework, AUTOSIZE_FRAMEWORK_FSDP);
	assert_string_equal(autosize_rule_match_text(r, buf, sizeof(buf)),
			    "account lab or lab2, QOS normal");
	assert_string_equal(autosize_rule_set_text(r, buf, sizeof(buf)),
			    "mode rewrite, at most 16 GPUs a job, partition "
			    "p2, framework fsdp, stack hf");
	assert_null(autosize_policy_rule_at(p, 3));
	assert_null(autosize_policy_rule_at(p, -1));

	/* first match wins; every key given must match; a name not known
	 * ("") matches no rule naming that key */
	assert_ptr_equal(autosize_policy_rule_for(p, "bob", "lab2", "normal"),
			 autosize_policy_rule_at(p, 0));
	assert_ptr_equal(autosize_policy_rule_for(p, "alice", "lab", "normal"),
			 autosize_policy_rule_at(p, 0));
	assert_ptr_equal(autosize_policy_rule_for(p, "alice", "lab", "big"),
			 autosize_policy_rule_at(p, 1));
	assert_ptr_equal(autosize_policy_rule_for(p, "bob", "lab", "big"),
			 autosize_policy_rule_at(p, 2));
	assert_ptr_equal(autosize_policy_rule_for(p, "bob", "lab", ""),
			 autosize_policy_rule_at(p, 2));
	assert_null(autosize_policy_rule_for(p, "bob", "", "normal"));
	assert_null(autosize_policy_rule_for(p, "bob", "Lab", "normal"));
	assert_null(autosize_policy_rule_for(p, NULL, NULL, NULL));

	/* what a rule sets for its jobs; a partition's own mode wins */
	p1 = autosize_policy_find_partition(p, "p1");
	p2 = autosize_policy_find_partition(p, "p2");
	r = autosize_policy_rule_at(p, 0);
	assert_int_equal(autosize_policy_mode_for(p, NULL, p1),
			 AUTOSIZE_MODE_WARN);
	assert_int_equal(autosize_policy_mode_for(p, r, p1),
			 AUTOSIZE_MODE_REWRITE);
	assert_int_equal(autosize_policy_mode_for(p, r, p2),
			 AUTOSIZE_MODE_OFF);
	assert_int_equal(autosize_policy_mode_for(p, r, NULL),
			 AUTOSIZE_MODE_REWRITE);
	assert_string_equal(autosize_policy_partition_for(p, r), "p2");
	assert_string_equal(autosize_policy_partition_for(p, NULL), "");
	assert_string_equal(autosize_policy_stack_for(p, r), "hf");
	assert_string_equal(autosize_policy_stack_for(p, NULL), "");
	assert_int_equal(autosize_policy_framework_for(p, r),
			 AUTOSIZE_FRAMEWORK_FSDP);
	assert_int_equal(autosize_policy_framework_for(p, NULL),
			 AUTOSIZE_FRAMEWORK_MEGATRON);
	r = autosize_policy_rule_at(p, 2);
	assert_string_equal(autosize_policy_partition_for(p, r), "p1,p2");
	assert_int_equal(autosize_policy_mode_for(p, r, p1),
			 AUTOSIZE_MODE_WARN);
	assert_int_equal(autosize_policy_is_off(p), 0);
	autosize_policy_destroy(p);
}

/* The policy is off only when no rule turns a partition on. */
static void test_rules_off(void **state)
{
	static const char *const base =
		"defaults:\n  mode: off\n"
		"partitions:\n  - name: p1\n    gpu: h100\n"
		"    gpus_per_node: 8\n    nodes: 4\n    network: ib\n"
		"    network_gbps_per_node: 3200\n%s"
		"rules:\n  - qos: [pilot]\n    mode: %s\n";
	static const struct { const char *part, *rule; int off; } cases[] = {
		{ "", "off", 1 },
		{ "", "warn", 0 },
		{ "    mode: off\n", "rewrite", 1 },   /* its own mode wins */
		{ "    mode: warn\n", "off", 0 },
	};
	char text[1024];
	autosize_error e;
	autosize_policy *p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), base, cases[i].part,
			 cases[i].rule);
		p = parse_str(text, &e);
		if (!p)
			fail_msg("case %zu: %s", i, e.msg);
		if (autosize_policy_is_off(p) != cases[i].off)
			fail_msg("case %zu: is_off %d", i,
				 autosize_policy_is_off(p));
		autosize_policy_destroy(p);
	}
}

/* A rule after one that matches all its jobs never applies: said. */
static void test_rules_shadowed(void **state)
{
	char text[2048];
	autosize_error e;
	autosize_policy *p;

	(void)state;
	snprintf(text, sizeof(text), "%s  - accounts: [lab]\n    qos: [big]\n"
		 "    mode: off\n  - accounts: [lab2]\n    max_gpus: 8\n",
		 rules_policy);
	p = parse_str(text, &e);
	if (!p)
		fail_msg("%s", e.msg);
	assert_int_equal(autosize_policy_warning_count(p), 1);
	assert_non_null(strstr(autosize_policy_warning_at(p, 0),
			       "site.yaml:29: rule: it never applies: the "
			       "rule at line 27 matches every job it matches"));
	autosize_policy_destroy(p);
}

static const ytest_case broken_rules[] = {
	{ 18, "  - accounts: lab\n", AUTOSIZE_EINVAL, 18,
	  "key 'accounts': expected a list" },
	{ 18, "  - accounts: []\n", AUTOSIZE_EINVAL, 18,
	  "key 'accounts': an empty list (leave the key out to match any "
	  "accounts)" },
	{ 18, "  - accounts: [\"lab ml\"]\n", AUTOSIZE_EINVAL, 18,
	  "key 'accounts': a name holds a space, a comma or a control "
	  "character" },
	{ 18, "  - accounts: [\"lab,ml\"]\n", AUTOSIZE_EINVAL, 18,
	  "a name holds a space, a comma" },
	{ 18, "  - acounts: [lab]\n", AUTOSIZE_EINVAL, 18,
	  "unknown key 'acounts' in rule; known keys: accounts, qos, users, "
	  "mode, max_gpus, partition, framework, stack" },
	{ 27, "  - mode: warn\n", AUTOSIZE_EINVAL, 27,
	  "rule: it matches no job (expected accounts, qos or users: the "
	  "defaults are for every job)" },
	{ 28, "    qos: [normal]\n", AUTOSIZE_EINVAL, 27,
	  "rule: it sets nothing (expected mode, max_gpus, partition, "
	  "framework or stack)" },
	{ 20, "    mode: enforce\n", AUTOSIZE_EINVAL, 20,
	  "key 'mode': 'enforce' is not valid (expected rewrite, warn or "
	  "off)" },
	{ 21, "    max_gpus: 0\n", AUTOSIZE_EINVAL, 21,
	  "key 'max_gpus': 0 is out of range" },
	{ 21, "    max_gpus: 8.5\n", AUTOSIZE_EINVAL, 21,
	  "key 'max_gpus': '8.5' is not a whole number" },
	{ 22, "    partition: p9\n", AUTOSIZE_ENOTFOUND, 22,
	  "key 'partition': no partition 'p9' under partitions (expected "
	  "one of p1, p2, or a comma list of them)" },
	{ 22, "    partition: p1,\n", AUTOSIZE_EINVAL, 22,
	  "key 'partition': expected a partition of the policy or a comma "
	  "list of them" },
	{ 22, "    partition: p1,,p2\n", AUTOSIZE_EINVAL, 22,
	  "key 'partition': expected a partition" },
	{ 23, "    framework: jax\n", AUTOSIZE_EINVAL, 23,
	  "key 'framework': 'jax' is not valid" },
	{ 24, "    stack: nosuch\n", AUTOSIZE_EINVAL, 24,
	  "key 'stack': unknown stack 'nosuch'" },
	{ 25, "  - users: [alice, \"\"]\n", AUTOSIZE_EINVAL, 25,
	  "key 'users': an item is not a name of 1 to 63 characters" },
	{ 26, "    users: [bob]\n", AUTOSIZE_EINVAL, 26,
	  "duplicate key" },
};

static void *parse_any(const char *text, autosize_error *e)
{
	return parse_str(text, e);
}

static void destroy_any(void *obj)
{
	autosize_policy_destroy(obj);
}

static void test_rules_broken(void **state)
{
	(void)state;
	ytest_run_broken(rules_policy, WHAT, broken_rules,
			 sizeof(broken_rules) / sizeof(broken_rules[0]),
			 parse_any, destroy_any);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules_read),
		cmocka_unit_test(test_rules_off),
		cmocka_unit_test(test_rules_shadowed),
		cmocka_unit_test(test_rules_broken),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
