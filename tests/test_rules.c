/*
 * The policy's `rules:` per account, QOS and user (core/policy_rules.c):
 * read strictly, matched first-wins, and what slurmctld's decision does
 * with them (core/decide.c, decide_slurm.c) on the realistic testbed's
 * policy and Slurm limits: the account and QOS as Slurm holds the job
 * to them, a cap beside Slurm's (the smaller wins, named), the mode,
 * default partition, framework and stack; never a guard skipped.
 */
#include "testutil.h"
#include "autosize.h"
#include "ytest.h"

#define P AUTOSIZE_SPANK_OPTION_PREFIX
#define WHAT "site.yaml"
#define REAL_POLICY "contrib/testbed/autosize-realistic.yaml"

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

/* ---- slurmctld's decision, on the realistic testbed ---- */

/* Slurm's limits of the realistic testbed (contrib/testbed/up) as
 * `autosize limits --raw` writes them: the renter in accounts ml (its
 * default) and lab (GrpTRES gres/gpu=4), default QOS normal. */
static const char snapshot[] =
	"autosize-limits 1\nenforce limits\n"
	"qos normal user_gpus=8\nqos tiny job_gpus=2\nqos short wall_min=240\n"
	"qos big job_gpus=32\n"
	"assoc 1 0 root - -\nassoc 3 1 ml - -\nassoc 4 1 lab - - grp_gpus=4\n"
	"assoc 6 3 ml renter - def_qos=normal qos=normal,tiny,short,big\n"
	"assoc 7 4 lab renter - def_qos=normal qos=normal,tiny,short,big\n"
	"user renter default_account=ml\n"
	"part gpu - def_cpus_per_gpu=8 def_mem_per_gpu_mb=61440 node_cpus=64 "
	"node_mem_mb=512000 node_gpus=8\n"
	"part gpu h100 def_cpus_per_gpu=8 def_mem_per_gpu_mb=61440 "
	"node_cpus=64 node_mem_mb=1024000 node_gpus=8\n"
	"part gpu a100 def_cpus_per_gpu=8 def_mem_per_gpu_mb=61440 "
	"node_cpus=64 node_mem_mb=512000 node_gpus=8\n"
	"part h100 - node_cpus=64 node_mem_mb=1024000 node_gpus=8\n"
	"part a100 - node_cpus=64 node_mem_mb=512000 node_gpus=8\n"
	"part spot - node_cpus=64 node_mem_mb=1024000 node_gpus=8\n"
	"end\n";

static struct {
	autosize_policy *pol;
	autosize_limits *lim;
	autosize_decide_work *w;
	autosize_job job;
	autosize_decision d;
} rx;

static int real_setup(void **state)
{
	autosize_error e;

	(void)state;
	rx.pol = autosize_policy_load(REAL_POLICY, &e);
	if (!rx.pol)
		fprintf(stderr, "%s\n", e.msg);
	rx.lim = autosize_limits_parse(snapshot, strlen(snapshot), &e);
	rx.w = malloc(autosize_decide_work_size());
	return rx.pol && rx.lim && rx.w ? 0 : -1;
}

static int real_teardown(void **state)
{
	(void)state;
	autosize_policy_destroy(rx.pol);
	autosize_limits_destroy(rx.lim);
	free(rx.w);
	return 0;
}

/* The renter's job under account and qos ("": as Slurm defaults them),
 * with Slurm's part_list and limits as slurmctld's module has them. */
static void real_job(const char *account, const char *qos)
{
	static const char *const parts[] = { "gpu", "h100", "a100", "spot" };
	autosize_part_limit *l;
	size_t i;

	autosize_job_init(&rx.job);
	snprintf(rx.job.user, sizeof(rx.job.user), "renter");
	snprintf(rx.job.account, sizeof(rx.job.account), "%s", account);
	snprintf(rx.job.qos, sizeof(rx.job.qos), "%s", qos);
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		l = &rx.job.live.at[rx.job.live.n++];
		snprintf(l->name, sizeof(l->name), "%s", parts[i]);
		l->max_nodes = i == 0 ? 4 : 2;
		l->total_nodes = l->max_nodes;
		l->max_time_s = i == 3 ? 4 * 3600.0 : 2 * 86400.0;
	}
	rx.job.have_live = 1;
	rx.job.limits_wanted = 1;
	rx.job.limits = rx.lim;
}

static void real_decide(const char *model_params, const char *more)
{
	char m[64];
	const char *env[3] = { m, P "train_tokens=2e10", more };

	snprintf(m, sizeof(m), P "model_params=%s", model_params);
	autosize_decide(rx.pol, env, more ? 3 : 2, &rx.job, rx.w, &rx.d);
}

static int real_warned(const char *words)
{
	int i;

	for (i = 0; i < rx.d.n_warnings; i++)
		if (strstr(rx.d.warnings[i], words))
			return 1;
	return 0;
}

/* The account and QOS a rule matches are Slurm's: given, else the
 * user's default account and the association's default QOS; the rule
 * sets the partition, framework and stack; Slurm's smaller cap wins. */
static void test_real_rule_settings(void **state)
{
	autosize_record rec;
	autosize_error e;
	size_t start, n;

	(void)state;
	real_job("lab", "");          /* -A lab, QOS defaulted: normal */
	real_decide("7e9", NULL);
	assert_int_equal(rx.d.action, AUTOSIZE_ACTION_REWRITE);
	assert_string_equal(rx.d.partition, "a100");
	assert_int_equal(rx.d.set_partition, 1);
	assert_true(rx.d.nodes * rx.d.gpus_per_node <= 4);
	assert_true(real_warned("account lab GrpTRES=gres/gpu=4: planned "
				"within 4 GPUs"));
	assert_false(real_warned("autosize rule"));
	assert_true(autosize_record_find(rx.d.record, &start, &n));
	assert_int_equal(autosize_record_decode(rx.d.record + start, n, "rec",
						&rec, &e), 0);
	assert_string_equal(rec.stack, "hf");
	assert_string_equal(rec.framework, "fsdp");
	/* a partition the job names is kept */
	real_job("lab", "");
	snprintf(rx.job.partition, sizeof(rx.job.partition), "h100");
	real_decide("7e9", NULL);
	assert_string_equal(rx.d.partition, "h100");
	/* the association's default QOS from slurmctld, without limits */
	real_job("lab", "");
	rx.job.limits = NULL;
	rx.job.limits_wanted = 0;
	snprintf(rx.job.default_qos, sizeof(rx.job.default_qos), "normal");
	real_decide("7e9", NULL);
	assert_string_equal(rx.d.partition, "a100");
	/* neither known: a rule on QOS does not match; the next one does */
	rx.job.default_qos[0] = '\0';
	real_decide("7e9", NULL);
	assert_int_equal(rx.d.action, AUTOSIZE_ACTION_WARN);
}

/* The rule's cap, named, where it is the smaller; a size the user keeps
 * past it is refused naming it; a rule's mode. */
static void test_real_rule_cap_and_mode(void **state)
{
	(void)state;
	real_job("", "short");        /* the default account, ml */
	real_decide("7e9", NULL);
	assert_int_equal(rx.d.action, AUTOSIZE_ACTION_REWRITE);
	assert_true(rx.d.nodes * rx.d.gpus_per_node <= 4);
	assert_true(real_warned("autosize rule for account ml, QOS short "
				"max_gpus=4: planned within 4 GPUs"));
	real_job("", "short");
	rx.job.min_nodes = 1;
	rx.job.gpus_per_node = 8;
	real_decide("7e9", NULL);
	assert_int_equal(rx.d.action, AUTOSIZE_ACTION_REJECT);
	assert_string_equal(rx.d.message, "8 GPUs asked for on partition "
			    "gpu, but autosize rule for account ml, QOS short "
			    "max_gpus=4 allows at most 4 to this job: ask for "
			    "fewer, or leave the size out and autosize sizes "
			    "the job within it");
	/* so is one past Slurm's own cap (it would never start) */
	real_job("", "tiny");
	rx.job.min_nodes = 1;
	rx.job.gpus_per_node = 8;
	real_decide("7e9", NULL);
	assert_int_equal(rx.d.action, AUTOSIZE_ACTION_REJECT);
	assert_non_null(strstr(rx.d.message, "but QOS tiny MaxTRESPerJob="
			       "gres/gpu=2 allows at most 2 to this job"));
	/* the same cap without Slurm's limits read */
	real_job("ml", "short");
	rx.job.limits = NULL;
	rx.job.limits_wanted = 0;
	rx.job.have_live = 0;
	real_decide("7e9", NULL);
	assert_true(rx.d.nodes * rx.d.gpus_per_node <= 4);
	assert_true(real_warned("autosize rule for account ml, QOS short "
				"max_gpus=4"));
	/* a rule's mode: advice only */
	real_job("lab", "short");
	real_decide("7e9", NULL);
	assert_int_equal(rx.d.action, AUTOSIZE_ACTION_WARN);
	assert_non_null(strstr(rx.d.message, "suggested size: -p "));
	/* the job's own --autosize still chooses within it, as on a
	 * partition of mode warn */
	real_job("lab", "short");
	real_decide("7e9", P "autosize=rewrite");
	assert_int_equal(rx.d.action, AUTOSIZE_ACTION_REWRITE);
}

/* No rule skips a guard: bad options are refused under a rule of mode
 * off, Slurm's limits still bound a rule's larger cap, and a job whose
 * limits cannot be read goes as submitted whatever its rule. */
static void test_real_rule_guards(void **state)
{
	char text[16384];
	autosize_policy *p, *keep = rx.pol;
	autosize_error e;
	FILE *f = fopen(REAL_POLICY, "r");
	size_t n;
	char *at;

	(void)state;
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 200, f);
	fclose(f);
	text[n] = '\0';
	at = strstr(text, "\nrules:\n");
	assert_non_null(at);
	snprintf(at, sizeof(text) - (size_t)(at - text), "\nrules:\n"
		 "  - qos: [tiny]\n    mode: off\n"
		 "  - qos: [big]\n    max_gpus: 64\n");
	p = autosize_policy_parse(text, strlen(text), "edited", ".", &e);
	if (!p)
		fail_msg("%s", e.msg);
	rx.pol = p;
	real_job("", "tiny");
	real_decide("abc", NULL);
	assert_int_equal(rx.d.action, AUTOSIZE_ACTION_REJECT);
	assert_string_equal(rx.d.reason, "input");
	real_decide("7e9", NULL);
	assert_int_equal(rx.d.has_options, 1);
	assert_int_equal(rx.d.action, AUTOSIZE_ACTION_NONE);
	assert_string_equal(rx.d.message, "");
	real_job("", "big");         /* QOS big MaxTRESPerJob 32 < 64 */
	real_decide("70e9", NULL);
	assert_true(rx.d.nodes * rx.d.gpus_per_node <= 32);
	real_job("", "big");
	rx.job.limits = NULL;
	snprintf(rx.job.limits_why, sizeof(rx.job.limits_why), "not read yet");
	real_decide("7e9", NULL);
	assert_int_equal(rx.d.action, AUTOSIZE_ACTION_NONE);
	assert_non_null(strstr(rx.d.message, "not sized: Slurm's QOS"));
	rx.pol = keep;
	autosize_policy_destroy(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules_read),
		cmocka_unit_test(test_rules_off),
		cmocka_unit_test(test_rules_shadowed),
		cmocka_unit_test(test_rules_broken),
		cmocka_unit_test(test_real_rule_settings),
		cmocka_unit_test(test_real_rule_cap_and_mode),
		cmocka_unit_test(test_real_rule_guards),
	};

	return cmocka_run_group_tests(tests, real_setup, real_teardown);
}
