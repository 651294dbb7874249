/*
 * The slurmctld decision (core/decide.c) and Slurm's tres strings
 * (core/gres.c): what a job gets, on the testbed's policy (partitions gpu:
 * 4 nodes / 2 days, small: 2 nodes / 12 h, 8 x H100 each) and on a policy
 * with every partition slot used.
 */
#include "testutil.h"
#include "autosize.h"
#include "bench/hostile.h"

#define P AUTOSIZE_SPANK_OPTION_PREFIX
#define TESTBED_POLICY "contrib/testbed/autosize.yaml"

typedef struct decide_fixture {
	autosize_policy *pol;
	autosize_decide_work *w;
	autosize_decision d;
	autosize_job job;
} decide_fixture;

static decide_fixture fx;

static int setup(void **state)
{
	autosize_error e;

	fx.pol = autosize_policy_load(TESTBED_POLICY, &e);
	if (!fx.pol)
		fprintf(stderr, "%s\n", e.msg);
	fx.w = malloc(autosize_decide_work_size());
	return fx.pol && fx.w ? 0 : -1;
}

static int teardown(void **state)
{
	autosize_policy_destroy(fx.pol);
	free(fx.w);
	return 0;
}

/* The testbed policy with its first `from` replaced by `to`. */
static autosize_policy *policy_edit(const char *from, const char *to)
{
	char text[16384], out[17000];
	autosize_policy *p;
	autosize_error e;
	const char *at;
	size_t n;
	FILE *f = fopen(TESTBED_POLICY, "r");

	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	at = strstr(text, from);
	assert_non_null(at);
	snprintf(out, sizeof(out), "%.*s%s%s", (int)(at - text), text, to,
		 at + strlen(from));
	p = autosize_policy_parse(out, strlen(out), "edited policy", ".", &e);
	if (!p)
		fail_msg("%s", e.msg);
	return p;
}

/* The testbed policy with lines added under `defaults:`. */
static autosize_policy *policy_with_defaults(const char *lines)
{
	char to[512];

	snprintf(to, sizeof(to), "defaults:\n  %s", lines);
	return policy_edit("defaults:\n", to);
}

/* Decide a 70B x 1B-token job with extra env entries (NULL-ended). */
static void decide_70b(const autosize_policy *p, const char *extra)
{
	const char *env[3] = {P "model_params=70e9", P "train_tokens=1e9",
			      extra};

	autosize_decide(p, env, extra ? 3 : 2, &fx.job, fx.w, &fx.d);
}

static void test_no_options_untouched(void **state)
{
	const char *env[2] = {"PATH=/bin", "_SLURM_SPANK_OPTION_other_x=1"};

	autosize_job_init(&fx.job);
	autosize_decide(fx.pol, env, 2, &fx.job, fx.w, &fx.d);
	assert_int_equal(fx.d.has_options, 0);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_NONE);
	assert_string_equal(fx.d.message, "");
}

static void test_rewrite_within_limits(void **state)
{
	autosize_job_init(&fx.job);
	decide_70b(fx.pol, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REWRITE);
	assert_true(fx.d.set_nodes && fx.d.set_gpus && fx.d.set_time);
	assert_string_equal(fx.d.partition, "gpu");
	assert_true(fx.d.nodes >= 1 && fx.d.nodes <= 4);
	assert_true(fx.d.evaluated > 0 &&
		    fx.d.evaluated <= AUTOSIZE_PLAN_MAX_LAYOUTS);
}

/* The guards hold on every path that changes a job: rewrite and explain
 * (a client may send explain's test-only marker with a real job). */
static void test_guards_every_path(void **state)
{
	const char *paths[] = {NULL, P "autosize=explain",
			       P "autosize=rewrite"};
	size_t i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		/* srun -n 1: fewer tasks than the planned nodes. */
		autosize_job_init(&fx.job);
		fx.job.num_tasks = 1;
		decide_70b(fx.pol, paths[i]);
		assert_true(fx.d.nodes >= 2);
		assert_true(fx.d.action == AUTOSIZE_ACTION_REWRITE ||
			    fx.d.action == AUTOSIZE_ACTION_EXPLAIN);
		assert_int_equal(fx.d.guarded, 1);
		assert_false(fx.d.set_nodes || fx.d.set_gpus ||
			     fx.d.set_time || fx.d.set_partition ||
			     fx.d.set_tasks);
		assert_string_equal(fx.d.record, "");
		assert_non_null(strstr(fx.d.message, "not resized"));
		/* srun -n 64: enough tasks, resized. */
		fx.job.num_tasks = 64;
		decide_70b(fx.pol, paths[i]);
		assert_int_equal(fx.d.guarded, 0);
		assert_true(fx.d.set_nodes && !fx.d.set_tasks);
		/* A batch job's tasks follow its nodes. */
		autosize_job_init(&fx.job);
		fx.job.batch = 1;
		fx.job.num_tasks = 1;
		decide_70b(fx.pol, paths[i]);
		assert_int_equal(fx.d.guarded, 0);
		assert_true(fx.d.set_nodes && fx.d.set_tasks);
		assert_int_equal(fx.d.num_tasks, fx.d.nodes);
		fx.job.ntasks_per_node = 2;
		fx.job.num_tasks = 2;
		decide_70b(fx.pol, paths[i]);
		assert_true(fx.d.set_tasks);
		assert_int_equal(fx.d.num_tasks, 2L * fx.d.nodes);
		fx.job.ntasks_per_node = AUTOSIZE_JOB_UNSET;
		fx.job.num_tasks = 1000;
		decide_70b(fx.pol, paths[i]);
		assert_false(fx.d.set_tasks);
	}
}

/* The record of a decision against what the scheduler gave the job. */
static void test_record_mismatch(void **state)
{
	autosize_record rec;
	autosize_error e;
	char why[128];
	long gpus;

	autosize_job_init(&fx.job);
	fx.job.batch = 1;
	decide_70b(fx.pol, NULL);
	assert_int_equal(autosize_record_decode(fx.d.record,
						strlen(fx.d.record), "test",
						&rec, &e), AUTOSIZE_OK);
	gpus = (long)fx.d.nodes * fx.d.gpus_per_node;
	assert_int_equal(autosize_record_mismatch(&rec, fx.d.partition,
						  fx.d.nodes, gpus, why,
						  sizeof(why)), 0);
	assert_int_equal(autosize_record_mismatch(&rec, NULL, -1, -1, why,
						  sizeof(why)), 0);
	assert_int_equal(autosize_record_mismatch(&rec, "small", fx.d.nodes,
						  gpus, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "partition small"));
	assert_int_equal(autosize_record_mismatch(&rec, fx.d.partition,
						  fx.d.nodes + 1, -1, why,
						  sizeof(why)), 1);
	assert_int_equal(autosize_record_mismatch(&rec, "", -1, gpus / 2,
						  why, sizeof(why)), 1);
	assert_non_null(strstr(why, "GPUs"));
}

/* Issue 8: -N 10000000 under keep is refused before any search at that
 * size, naming the limit, never planned as another size. */
static void test_huge_explicit_nodes_refused(void **state)
{
	autosize_job_init(&fx.job);
	fx.job.min_nodes = 10000000;
	snprintf(fx.job.partition, sizeof(fx.job.partition), "gpu");
	decide_70b(fx.pol, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REJECT);
	assert_string_equal(fx.d.reason, "unfit");
	assert_non_null(strstr(fx.d.message, "10000000 nodes"));
	assert_non_null(strstr(fx.d.message, "limit of 4 per job"));
	assert_true(fx.d.evaluated <= AUTOSIZE_PLAN_MAX_LAYOUTS);
}

/* Issue 11: the quickstart's 70B x 2T on the testbed's 4 nodes is 1.5
 * years: past max_train_time, on_unfit applies (reject; warn lets it
 * through), saying why in time, not in memory. */
static void test_too_long_on_unfit(void **state)
{
	static const char warn_text[] =
		"defaults:\n  on_unfit: warn\npartitions:\n"
		"  - {name: gpu, gpu: h100, gpus_per_node: 8, nodes: 4,\n"
		"     network: ib, network_gbps_per_node: 3200}\n";
	const char *env[2] = {P "model_params=70e9", P "train_tokens=2e12"};
	autosize_policy *warn;
	autosize_error e;

	autosize_job_init(&fx.job);
	autosize_decide(fx.pol, env, 2, &fx.job, fx.w, &fx.d);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REJECT);
	assert_string_equal(fx.d.reason, "unfit");
	assert_non_null(strstr(fx.d.message, "on partition gpu"));
	assert_non_null(strstr(fx.d.message, "maximum training time"));
	assert_null(strstr(fx.d.message, "memory"));
	warn = autosize_policy_parse(warn_text, strlen(warn_text), "w.yaml",
				     ".", &e);
	assert_non_null(warn);
	autosize_job_init(&fx.job);
	autosize_decide(warn, env, 2, &fx.job, fx.w, &fx.d);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_WARN);
	assert_non_null(strstr(fx.d.message, "(submitted unchanged)"));
	autosize_policy_destroy(warn);
}

/* Issue 8: a partition list of 63 repeated names is planned once. */
static void test_partition_list_deduplicated(void **state)
{
	char list[AUTOSIZE_PART_LIST_MAX];
	long once;

	autosize_job_init(&fx.job);
	snprintf(fx.job.partition, sizeof(fx.job.partition), "gpu");
	decide_70b(fx.pol, NULL);
	once = fx.d.evaluated;
	hostile_partition_list(list, sizeof(list), "gpu");
	assert_true(strlen(list) > 200);
	snprintf(fx.job.partition, sizeof(fx.job.partition), "%s", list);
	decide_70b(fx.pol, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REWRITE);
	assert_int_equal(fx.d.evaluated, once);
	/* a list of two: the better of the two, each planned once */
	snprintf(fx.job.partition, sizeof(fx.job.partition),
		 "small,gpu,small");
	decide_70b(fx.pol, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REWRITE);
}

/* A job that may run outside the policy's partitions: left as submitted
 * and told (other_partitions: leave, the default), or refused (refuse). */
static void test_unknown_partition_in_list(void **state)
{
	static const char refuse[] =
		"other_partitions: refuse\n";
	autosize_policy *p;

	autosize_job_init(&fx.job);
	snprintf(fx.job.partition, sizeof(fx.job.partition), "gpu,nope");
	decide_70b(fx.pol, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_NONE);
	assert_int_equal(fx.d.has_plan, 0);
	assert_false(fx.d.set_nodes || fx.d.set_gpus || fx.d.set_time);
	assert_non_null(strstr(fx.d.message, "'nope'"));
	assert_non_null(strstr(fx.d.message, "autosize partitions: gpu"));
	p = policy_with_defaults(refuse);
	decide_70b(p, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REJECT);
	assert_string_equal(fx.d.reason, "input");
	assert_non_null(strstr(fx.d.message, "'nope'"));
	autosize_policy_destroy(p);
}

/* The nodes lay out what slurmctld decided: a request pinned from the
 * plan record, planned under the built-in defaults (a node whose policy
 * is broken), gets the record's layout back, for models that take
 * different layouts. */
static void test_record_pin_round_trip(void **state)
{
	static const char *const models[][2] = {
		{"70e9", "1e9"}, {"7e9", "2e9"}, {"13e9", "1e11"},
	};
	autosize_policy *builtin;
	autosize_request r;
	autosize_plan pl;
	autosize_record rec;
	autosize_error e;
	char mp[64], mt[64];
	const char *env[2];
	size_t i;

	builtin = autosize_policy_default(&e);
	assert_non_null(builtin);
	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		snprintf(mp, sizeof(mp), P "model_params=%s", models[i][0]);
		snprintf(mt, sizeof(mt), P "train_tokens=%s", models[i][1]);
		env[0] = mp;
		env[1] = mt;
		autosize_job_init(&fx.job);
		fx.job.batch = 1;
		autosize_decide(fx.pol, env, 2, &fx.job, fx.w, &fx.d);
		assert_true(fx.d.record[0] != '\0');
		assert_int_equal(autosize_record_decode(fx.d.record,
				 strlen(fx.d.record), "test", &rec, &e),
				 AUTOSIZE_OK);
		autosize_request_init(&r);
		assert_int_equal(autosize_request_set(&r, "model-params",
				 models[i][0], &e), AUTOSIZE_OK);
		assert_int_equal(autosize_request_set(&r, "train-tokens",
				 models[i][1], &e), AUTOSIZE_OK);
		assert_int_equal(autosize_request_finish(&r, &e), AUTOSIZE_OK);
		autosize_record_pin(&rec, &r);
		assert_int_equal(autosize_plan_compute(builtin, &r, &pl, &e),
				 AUTOSIZE_OK);
		assert_int_equal(pl.nodes, rec.nodes);
		assert_int_equal(pl.gpus_per_node, rec.gpus_per_node);
		assert_int_equal(pl.tp, rec.tp);
		assert_int_equal(pl.pp, rec.pp);
		assert_int_equal(pl.dp, rec.dp);
		assert_int_equal(pl.zero_stage, rec.zero_stage);
		assert_int_equal(pl.micro_batch, rec.micro_batch);
		assert_int_equal((int)pl.recompute, rec.recompute);
		assert_int_equal(pl.vp > 1 ? pl.vp : 0, rec.vp);
	}
	/* part of each stage recomputed: the record counts a rank's
	 * layers, the pin a virtual stage's, rounded up (never less
	 * recomputed than slurmctld planned) */
	memset(&rec, 0, sizeof(rec));
	rec.recompute = AUTOSIZE_RECOMPUTE_FULL;
	rec.recompute_layers = 7;
	rec.vp = 2;
	autosize_request_init(&r);
	autosize_record_pin(&rec, &r);
	assert_int_equal(r.recompute, AUTOSIZE_RECOMPUTE_FULL);
	assert_int_equal(r.recompute_layers, 4);
	autosize_policy_destroy(builtin);
}

/* Admins turn sizing off for a partition, or for users and accounts. */
static void test_partition_mode_and_exempt(void **state)
{
	autosize_policy *p = policy_edit("name: small", "name: small\n"
					 "    mode: off");

	/* small is off: a job that may use only small is left alone */
	autosize_job_init(&fx.job);
	snprintf(fx.job.partition, sizeof(fx.job.partition), "small");
	decide_70b(p, NULL);
	assert_int_equal(fx.d.has_options, 1);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_NONE);
	assert_string_equal(fx.d.message, "");
	assert_string_equal(fx.d.record, "");
	/* gpu keeps the default mode */
	snprintf(fx.job.partition, sizeof(fx.job.partition), "gpu");
	decide_70b(p, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REWRITE);
	autosize_policy_destroy(p);
	/* exempt users and accounts: never touched */
	p = policy_edit("partitions:", "exempt:\n  users: [alice, \"1234\"]\n"
			"  accounts: [ops]\npartitions:");
	autosize_job_init(&fx.job);
	snprintf(fx.job.user, sizeof(fx.job.user), "alice");
	decide_70b(p, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_NONE);
	assert_string_equal(fx.d.message, "");
	snprintf(fx.job.user, sizeof(fx.job.user), "1234");
	decide_70b(p, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_NONE);
	snprintf(fx.job.user, sizeof(fx.job.user), "bob");
	snprintf(fx.job.account, sizeof(fx.job.account), "ops");
	decide_70b(p, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_NONE);
	snprintf(fx.job.account, sizeof(fx.job.account), "research");
	decide_70b(p, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REWRITE);
	autosize_policy_destroy(p);
}

/* Issue 8: GPUs per task / socket are an explicit size, never
 * rewritten, and planned for. */
static void test_gpus_per_task_kept(void **state)
{
	autosize_job_init(&fx.job);
	fx.job.gpus_per_task = 1;
	fx.job.num_tasks = 24;
	decide_70b(fx.pol, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REWRITE);
	assert_true(fx.d.explicit_gpus);
	assert_false(fx.d.set_gpus);
	assert_int_equal(fx.d.nodes * fx.d.gpus_per_node, 24);
}

static void test_gpus_per_socket_kept(void **state)
{
	autosize_job_init(&fx.job);
	fx.job.gpus_per_socket = 4;
	fx.job.sockets_per_node = 2;
	decide_70b(fx.pol, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REWRITE);
	assert_false(fx.d.set_gpus);
	assert_int_equal(fx.d.gpus_per_node, 8);
	/* 2 GPUs on one socket cannot hold 70B: refused with the size */
	fx.job.gpus_per_socket = 2;
	fx.job.sockets_per_node = 1;
	fx.job.min_nodes = 1;
	decide_70b(fx.pol, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REJECT);
	assert_non_null(strstr(fx.d.message, "1 node x 2 GPUs"));
}

/* A GPU request that cannot be read (two GPU entries) is never sized: a
 * plan at a GPU count of its own choosing would give the job the plan's
 * nodes and time with the job's own GPUs. Passed unchanged, and said. */
static void test_unreadable_gpus_not_sized(void **state)
{
	autosize_job_init(&fx.job);
	fx.job.gpus_per_node = autosize_tres_gpus("gres:gpu:a100:2,"
						  "gres:gpu:h100:2");
	assert_int_equal(fx.job.gpus_per_node, AUTOSIZE_JOB_UNREADABLE);
	decide_70b(fx.pol, NULL);
	assert_int_equal(fx.d.has_options, 1);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_NONE);
	assert_false(fx.d.has_plan);
	assert_false(fx.d.set_nodes || fx.d.set_gpus || fx.d.set_time);
	assert_non_null(strstr(fx.d.message, "cannot be read"));
	autosize_job_init(&fx.job);
	fx.job.gpus_per_job = AUTOSIZE_JOB_UNREADABLE;
	decide_70b(fx.pol, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_NONE);
	assert_false(fx.d.has_plan);
}

static void test_zero_gpus_refused(void **state)
{
	autosize_job_init(&fx.job);
	fx.job.gpus_per_node = autosize_tres_gpus("gres:gpu:0");
	assert_int_equal(fx.job.gpus_per_node, 0);
	decide_70b(fx.pol, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REJECT);
	assert_non_null(strstr(fx.d.message, "no GPUs"));
}

/* Issue 8: a heterogeneous job is never refused for its size nor
 * resized; its later components get nothing. */
static void test_het_job(void **state)
{
	autosize_job_init(&fx.job);
	fx.job.het_offset = 0;
	fx.job.min_nodes = 1;
	decide_70b(fx.pol, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_NONE);
	assert_false(fx.d.has_plan);
	assert_non_null(strstr(fx.d.message, "heterogeneous"));
	fx.job.het_offset = 1;
	decide_70b(fx.pol, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_NONE);
	assert_string_equal(fx.d.message, "");
	/* bad input is still refused */
	fx.job.het_offset = 0;
	decide_70b(fx.pol, P "train_mode=bogus");
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REJECT);
	assert_string_equal(fx.d.reason, "input");
}

/* Issue 33: the words of the submit-time line: "1 node x 1 GPU", a
 * count that reads as one ("5T", not "5e+03B"), a het job's component
 * named as Slurm numbers it. */
static void test_wording(void **state)
{
	const char *small[3] = {P "model_params=1e9", P "train_tokens=1e8",
				P "train_time=30d"};
	const char *huge[2] = {P "model_params=5e15", P "train_tokens=1e9"};

	autosize_job_init(&fx.job);
	fx.job.min_nodes = 1;
	fx.job.gpus_per_node = 1;
	autosize_decide(fx.pol, small, 3, &fx.job, fx.w, &fx.d);
	assert_true(fx.d.has_plan);
	assert_non_null(strstr(fx.d.summary, ": 1 node x 1 GPU,"));
	autosize_job_init(&fx.job);
	autosize_decide(fx.pol, huge, 2, &fx.job, fx.w, &fx.d);
	assert_null(strstr(fx.d.message, "e+"));
	assert_non_null(strstr(fx.d.message, "a model of 5000T parameters"));
	autosize_job_init(&fx.job);
	fx.job.het_offset = 0;
	decide_70b(fx.pol, NULL);
	assert_non_null(strstr(fx.d.message, "for component 0, suggested "
			       "size"));
}

/* Issue 8 item 7: escape sequences in AUTOSIZE_MODEL's name are
 * refused, never echoed. */
static void test_model_name_filtered(void **state)
{
	const char *env[2] = {"AUTOSIZE_MODEL=mlp=swiglu;layers=32;"
		"hidden=4096;heads=32;kv_heads=8;ffn=14336;vocab=128256;"
		"experts=0;experts_active=0;tied=0;name=x\x1b[2Jy",
		P "train_tokens=1e9"};
	size_t i;

	autosize_job_init(&fx.job);
	autosize_decide(fx.pol, env, 2, &fx.job, fx.w, &fx.d);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REJECT);
	for (i = 0; fx.d.message[i]; i++)
		assert_true((unsigned char)fx.d.message[i] >= 0x20);
}

static void test_no_policy_is_internal(void **state)
{
	autosize_job_init(&fx.job);
	decide_70b(NULL, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_NONE);
	assert_string_equal(fx.d.reason, "internal");
}

/* The two requests that once held slurmctld for 170 ms and 25 ms: every
 * candidate they enumerate (EP and TP degrees, micro-batch lists,
 * depths) is charged to the budget. slurmctld refuses them saying why;
 * the library's plan (no clock) stops at the count and says so. */
static void test_crafted_requests_bounded(void **state)
{
	static const char *const moe[] = {P "layers=4096", P "hidden=1024",
		P "heads=8", P "ffn=4096", P "experts=1024",
		P "experts_active=1024", P "shared_experts=64",
		P "train_seq_len=4194304"};
	static const char *const mix[] = {P "model=mixtral-8x7b",
		P "train_tokens=1e15"};
	static const char *const moe_opts[][2] = {{"layers", "4096"},
		{"hidden", "1024"}, {"heads", "8"}, {"ffn", "4096"},
		{"experts", "1024"}, {"experts-active", "1024"},
		{"shared-experts", "64"}, {"train-seq-len", "4194304"}};
	char text[16384];
	size_t len = hostile_policy_text(text, sizeof(text)), i;
	autosize_error e;
	autosize_policy *wide = autosize_policy_parse(text, len, "wide",
						      NULL, &e);
	autosize_request r;
	autosize_plan plan;

	assert_non_null(wide);
	autosize_job_init(&fx.job);
	autosize_decide(wide, moe, 8, &fx.job, fx.w, &fx.d);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REJECT);
	assert_string_equal(fx.d.reason, "unfit");
	assert_true(fx.d.evaluated > 0 &&
		    fx.d.evaluated <= AUTOSIZE_PLAN_MAX_LAYOUTS);
	assert_true(strstr(fx.d.message, "GiB per GPU") ||
		    strstr(fx.d.message, "work budget"));
	autosize_job_init(&fx.job);
	autosize_decide(wide, mix, 2, &fx.job, fx.w, &fx.d);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REJECT);
	assert_true(fx.d.evaluated > 0 &&
		    fx.d.evaluated <= AUTOSIZE_PLAN_MAX_LAYOUTS);
	assert_true(fx.d.message[0] != '\0');

	autosize_request_init(&r);
	for (i = 0; i < sizeof(moe_opts) / sizeof(moe_opts[0]); i++)
		assert_int_equal(autosize_request_set(&r, moe_opts[i][0],
						      moe_opts[i][1], &e),
				 AUTOSIZE_OK);
	assert_int_equal(autosize_request_finish(&r, &e), AUTOSIZE_OK);
	assert_int_equal(autosize_plan_compute(wide, &r, &plan, &e),
			 AUTOSIZE_ENOFIT);
	assert_int_equal(plan.evaluated, AUTOSIZE_PLAN_MAX_LAYOUTS);
	assert_non_null(strstr(plan.reason, "GiB per GPU"));
	assert_non_null(strstr(plan.reason, "stopped at its work budget "
				"(100000 candidates)"));
	/* no partition is ruled out by a search that did not finish */
	assert_null(strstr(plan.reason, "no partition can hold it"));
	autosize_policy_destroy(wide);
}

/* Every partition of a full policy, a model that fits none: bounded. */
static void test_wide_policy_bounded(void **state)
{
	char text[16384];
	size_t len = hostile_policy_text(text, sizeof(text));
	autosize_error e;
	autosize_policy *wide = autosize_policy_parse(text, len, "wide",
						      NULL, &e);
	const char *env[2] = {P "model_params=50e12", P "train_tokens=1e12"};

	assert_non_null(wide);
	autosize_job_init(&fx.job);
	autosize_decide(wide, env, 2, &fx.job, fx.w, &fx.d);
	assert_true(fx.d.evaluated > 0 &&
		    fx.d.evaluated <= AUTOSIZE_PLAN_MAX_LAYOUTS);
	fx.job.min_nodes = 10000000;
	decide_70b(wide, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REJECT);
	assert_true(fx.d.evaluated <= AUTOSIZE_PLAN_MAX_LAYOUTS);
	autosize_policy_destroy(wide);
}

/* Issue 12: Slurm's own partition limits (part_list) over the policy's:
 * the smaller wins, and the user is told; partitions the job may not use
 * are not chosen. */
static void live_limit(const char *name, long max_nodes, double max_time_s)
{
	autosize_part_limit *l = &fx.job.live.at[fx.job.live.n++];

	snprintf(l->name, sizeof(l->name), "%s", name);
	l->max_nodes = max_nodes;
	l->total_nodes = 4;
	l->max_time_s = max_time_s;
	fx.job.have_live = 1;
}

static void test_live_limits(void **state)
{
	int i;

	/* MaxNodes 2 on gpu: a 70B job (3 nodes) no longer fits there */
	autosize_job_init(&fx.job);
	live_limit("gpu", 2, 2 * 86400);
	live_limit("small", 2, 12 * 3600);
	snprintf(fx.job.partition, sizeof(fx.job.partition), "gpu");
	decide_70b(fx.pol, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REJECT);
	assert_non_null(strstr(fx.d.message, "allows 2 per job"));
	/* MaxTime 1 h on gpu: the time limit stays within it, and said */
	autosize_job_init(&fx.job);
	live_limit("gpu", 4, 3600);
	snprintf(fx.job.partition, sizeof(fx.job.partition), "gpu");
	decide_70b(fx.pol, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REWRITE);
	assert_true(fx.d.time_limit_min <= 60);
	for (i = 0; i < fx.d.n_warnings; i++)
		if (strstr(fx.d.warnings[i], "Slurm's MaxTime is 1 h"))
			break;
	assert_true(i < fx.d.n_warnings);
}

/* A policy without a default partition: of its 32, only the one Slurm
 * lets this job use is chosen. */
static void test_live_partitions_only(void **state)
{
	char text[16384];
	size_t len = hostile_policy_text(text, sizeof(text));
	autosize_error e;
	autosize_policy *wide = autosize_policy_parse(text, len, "wide",
						      NULL, &e);

	assert_non_null(wide);
	autosize_job_init(&fx.job);
	decide_70b(wide, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REWRITE);
	autosize_job_init(&fx.job);
	live_limit("p7", 4096, 30 * 86400.0);
	decide_70b(wide, NULL);
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REWRITE);
	assert_string_equal(fx.d.partition, "p7");
	autosize_policy_destroy(wide);
}

static void test_classify(void **state)
{
	assert_int_equal(autosize_err_classify(AUTOSIZE_OK),
			 AUTOSIZE_CLASS_OK);
	assert_int_equal(autosize_err_classify(AUTOSIZE_ETOOBIG),
			 AUTOSIZE_CLASS_USER);
	assert_int_equal(autosize_err_classify(AUTOSIZE_EIO),
			 AUTOSIZE_CLASS_USER);
	assert_int_equal(autosize_err_classify(AUTOSIZE_ENOFIT),
			 AUTOSIZE_CLASS_NOFIT);
	assert_int_equal(autosize_err_classify(AUTOSIZE_ENOMEM),
			 AUTOSIZE_CLASS_INTERNAL);
	assert_int_equal(autosize_err_classify((autosize_err)99),
			 AUTOSIZE_CLASS_INTERNAL);
}

static void test_tres_read(void **state)
{
	assert_int_equal(autosize_tres_gpus(NULL), AUTOSIZE_JOB_UNSET);
	assert_int_equal(autosize_tres_gpus("gres:gpu:8"), 8);
	assert_int_equal(autosize_tres_gpus("gres:gpu:a100:2"), 2);
	assert_int_equal(autosize_tres_gpus("gres/gpu=4"), 4);
	assert_int_equal(autosize_tres_gpus("gpu:8"), 8);
	assert_int_equal(autosize_tres_gpus("gres:gpu"), 1);
	assert_int_equal(autosize_tres_gpus("gres:gpu:h100"), 1);
	assert_int_equal(autosize_tres_gpus("gres:gpu:0"), 0);
	assert_int_equal(autosize_tres_gpus("gres:shard:2,gres:gpu:4"), 4);
	assert_int_equal(autosize_tres_gpus("gres:gpufake:4"),
			 AUTOSIZE_JOB_UNSET);
	assert_int_equal(autosize_tres_gpus("license:x:1"),
			 AUTOSIZE_JOB_UNSET);
	assert_int_equal(autosize_tres_gpus("gres:gpu:2,gres:gpu:4"),
			 AUTOSIZE_JOB_UNREADABLE);
	assert_int_equal(autosize_tres_gpus("gres:gpu:a:b:c"),
			 AUTOSIZE_JOB_UNREADABLE);
	assert_int_equal(autosize_tres_gpus("gres:gpu:a100:x9"),
			 AUTOSIZE_JOB_UNREADABLE);
	assert_int_equal(autosize_tres_gpus("gres:gpu:99999999"),
			 AUTOSIZE_JOB_UNREADABLE);
}

static void test_tres_edit(void **state)
{
	char out[128];

	assert_int_equal(autosize_tres_set_gpus(NULL, 8, out, sizeof(out)),
			 0);
	assert_string_equal(out, "gres:gpu:8");
	assert_int_equal(autosize_tres_set_gpus("gres:gpu:a100:2", 8, out,
						sizeof(out)), 0);
	assert_string_equal(out, "gres:gpu:a100:8");
	assert_int_equal(autosize_tres_set_gpus("gres:shard:1,gres:gpu:2,"
						"gres:nic:1", 4, out,
						sizeof(out)), 0);
	assert_string_equal(out, "gres:shard:1,gres:gpu:4,gres:nic:1");
	assert_int_equal(autosize_tres_set_gpus("gres:shard:1", 8, out,
						sizeof(out)), 0);
	assert_string_equal(out, "gres:gpu:8,gres:shard:1");
	assert_int_equal(autosize_tres_set_gpus("gres/gpu=4", 2, out,
						sizeof(out)), 0);
	assert_string_equal(out, "gres:gpu:2");
	assert_int_equal(autosize_tres_set_gpus("gres:gpu:2,gres:gpu:4", 8,
						out, sizeof(out)), -1);
	assert_int_equal(autosize_tres_set_gpus("gres:gpu:8", 8, out, 6), -1);
}


/* ---- the realistic profile (contrib/testbed): what Slurm enforces ---- */

#define REAL_POLICY "contrib/testbed/autosize-realistic.yaml"

/* Slurm's limits and nodes as `autosize limits --raw` writes them for
 * the realistic testbed (user renter). */
static const char real_snapshot[] =
	"autosize-limits 1\nenforce limits\n"
	"qos normal user_gpus=8\nqos tiny job_gpus=2\nqos short wall_min=240\n"
	"qos big job_gpus=32\nqos few user_submit=2 wall_min=240\n"
	"qos typed user_gpus=8 user_gpus:h100=2\n"
	"assoc 1 0 root - -\nassoc 3 1 ml - -\n"
	"assoc 6 3 ml renter - def_qos=normal "
	"qos=normal,tiny,short,big,few,typed\n"
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

typedef struct real_fixture {
	autosize_policy *pol;
	autosize_limits *lim;
} real_fixture;

static real_fixture real;

/* A renter's job with Slurm's part_list of the realistic testbed and its
 * limits read. */
static void real_job(const char *partition, const char *qos)
{
	static const char *const parts[] = { "gpu", "h100", "a100", "spot" };
	size_t i;

	autosize_job_init(&fx.job);
	snprintf(fx.job.partition, sizeof(fx.job.partition), "%s",
		 partition ? partition : "");
	snprintf(fx.job.user, sizeof(fx.job.user), "renter");
	snprintf(fx.job.qos, sizeof(fx.job.qos), "%s", qos ? qos : "");
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		live_limit(parts[i], i == 0 ? 4 : 2,
			   i == 3 ? 4 * 3600.0 : 2 * 86400.0);
	fx.job.limits_wanted = 1;
	fx.job.limits = real.lim;
}

/* Decide MODEL (an option=value) x TOKENS, with up to two more options
 * ("" none). */
static void real_decide_with(const char *model, const char *tokens,
			     const char *more1, const char *more2)
{
	char m[96], t[96], a[96], b[96];
	const char *env[4] = { m, t, a, b };

	snprintf(m, sizeof(m), P "%s", model);
	snprintf(t, sizeof(t), P "train_tokens=%s", tokens);
	/* AUTOSIZE_CHAIN=... as sbatch sends it, the rest as options */
	snprintf(a, sizeof(a), "%s%s", strncmp(more1, "AUTOSIZE_", 9) ? P : "",
		 more1);
	snprintf(b, sizeof(b), "%s%s", strncmp(more2, "AUTOSIZE_", 9) ? P : "",
		 more2);
	autosize_decide(real.pol, env, more2[0] ? 4 : more1[0] ? 3 : 2,
			&fx.job, fx.w, &fx.d);
}

/* sbatch's mark of a chain's first job (chain.h), SIGUSR1 8 min early */
#define REAL_MARK "AUTOSIZE_CHAIN=0123456789abcdef:1:0:480"

static void real_decide(const char *model, const char *tokens)
{
	real_decide_with(model, tokens, "", "");
}

static int real_warned(const char *words)
{
	int i;

	for (i = 0; i < fx.d.n_warnings; i++)
		if (strstr(fx.d.warnings[i], words))
			return 1;
	return 0;
}

static int real_setup(void **state)
{
	autosize_error e;

	real.pol = autosize_policy_load(REAL_POLICY, &e);
	real.lim = autosize_limits_parse(real_snapshot, strlen(real_snapshot),
					 &e);
	if (!real.pol || !real.lim)
		fprintf(stderr, "%s\n", e.msg);
	return real.pol && real.lim ? 0 : -1;
}

static int real_teardown(void **state)
{
	autosize_policy_destroy(real.pol);
	autosize_limits_destroy(real.lim);
	return 0;
}

/* Item 1: the QOS and association caps are the plan's; none fits:
 * refused naming the limit; a QOS or snapshot autosize cannot read:
 * the job as submitted, said. */
static void test_real_limits(void **state)
{
	real_job(NULL, NULL);
	real_decide("model=llama-3.1-8b", "2e10");
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REWRITE);
	assert_true(fx.d.nodes * fx.d.gpus_per_node <= 8);
	assert_true(real_warned("QOS normal MaxTRESPerUser=gres/gpu=8: "
				"planned within 8 GPUs"));
	real_job(NULL, "tiny");
	real_decide("model_params=70e9", "2e10");
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REJECT);
	assert_string_equal(fx.d.reason, "limit");
	assert_non_null(strstr(fx.d.message,
			       "QOS tiny MaxTRESPerJob=gres/gpu=2 allows fewer"));
	real_job(NULL, "nosuch");
	real_decide("model_params=7e9", "1e9");
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_NONE);
	assert_int_equal(fx.d.limits_unknown, 1);
	assert_non_null(strstr(fx.d.message, "not sized: QOS nosuch is not "
			       "among Slurm's QOS"));
	real_job(NULL, NULL);
	fx.job.limits = NULL;
	snprintf(fx.job.limits_why, sizeof(fx.job.limits_why),
		 "cannot run /usr/bin/autosize");
	real_decide("model_params=7e9", "1e9");
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_NONE);
	assert_string_equal(fx.d.message, "not sized: Slurm's QOS and "
			    "association limits cannot be read (cannot run "
			    "/usr/bin/autosize): the job goes as submitted");
	/* the QOS's MaxWall keeps the time limits (a chain, as sbatch
	 * marked it); a -t past it refused */
	real_job(NULL, "short");
	fx.job.batch = 1;
	real_decide_with("model_params=7e9", "2e10", REAL_MARK, "");
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REWRITE);
	assert_true(fx.d.time_limit_min <= 240 && fx.d.chained_jobs > 1);
	real_job(NULL, "short");
	fx.job.time_limit_min = 300;
	real_decide("model_params=7e9", "2e10");
	assert_string_equal(fx.d.reason, "time");
	assert_non_null(strstr(fx.d.message, "your -t 05:00:00 is past QOS "
			       "short MaxWall=04:00:00"));
}

/* A limit on one GPU type (MaxTRESPerUser=gres/gpu:h100=2): a job of
 * that type is refused naming it; an untyped one is planned on the
 * partition's other type, which it does not limit. */
static void test_real_typed_limits(void **state)
{
	real_job("gpu", "typed");
	snprintf(fx.job.gpu_type, sizeof(fx.job.gpu_type), "h100");
	real_decide("model_params=7e9", "2e10");
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REJECT);
	assert_string_equal(fx.d.reason, "limit");
	assert_non_null(strstr(fx.d.message, "QOS typed "
			       "MaxTRESPerUser=gres/gpu:h100=2 allows fewer"));
	real_job("gpu", "typed");
	real_decide("model_params=7e9", "2e10");
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REWRITE);
	assert_string_equal(fx.d.gres_type, "a100");
	assert_true(fx.d.nodes * fx.d.gpus_per_node <= 8);
	/* a model two H100 hold: planned within them, said */
	real_job("gpu", "typed");
	snprintf(fx.job.gpu_type, sizeof(fx.job.gpu_type), "h100");
	real_decide("model_params=3e9", "5e10");
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REWRITE);
	assert_true(fx.d.nodes * fx.d.gpus_per_node <= 2);
	assert_true(real_warned("QOS typed MaxTRESPerUser=gres/gpu:h100=2: "
				"planned within 2 GPUs"));
}

/* Chained jobs (issue 31): a first job marked by sbatch is recorded with
 * its chain; a follower waits for the job before it and is planned as
 * its place; a batch job sbatch did not mark, an interactive one and
 * --autosize-chain=off are one job, said once; the QOS's MaxSubmitJobs
 * cuts the chain; a mark that does not read is refused. */
static void test_real_chain(void **state)
{
	autosize_record rec;
	autosize_error e;
	size_t start, len;

	/* the first job: 7B x 2e10 on the QOS short's 4 h */
	real_job(NULL, "short");
	fx.job.batch = 1;
	real_decide_with("model_params=7e9", "2e10", REAL_MARK, "");
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REWRITE);
	assert_true(fx.d.chained_jobs > 2);
	assert_string_equal(fx.d.chain_id, "0123456789abcdef");
	assert_int_equal(fx.d.chain_index, 1);
	assert_string_equal(fx.d.dependency, "");
	assert_true(autosize_record_find(fx.d.record, &start, &len));
	assert_int_equal(autosize_record_decode(fx.d.record + start, len, "r",
						&rec, &e), AUTOSIZE_OK);
	assert_string_equal(rec.chain, "0123456789abcdef");
	assert_int_equal(rec.chain_index, 1);
	assert_int_equal(rec.chain_jobs, fx.d.chained_jobs);
	assert_int_equal(rec.signal_s, 480);
	assert_true(rec.chain_job_tokens > 0 && rec.chain_job_tokens < 2e10);
	/* told once: in the plan's words, no warning says it again */
	assert_non_null(strstr(fx.d.summary, "chained jobs, which cover at "
			       "least the upper end, SIGUSR1 8 min before "
			       "each limit"));
	assert_false(real_warned("chained"));
	/* its third job */
	real_job(NULL, "short");
	fx.job.batch = 1;
	real_decide_with("model_params=7e9", "2e10",
			 "AUTOSIZE_CHAIN=0123456789abcdef:3:4242:480", "");
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REWRITE);
	assert_string_equal(fx.d.dependency, "afterany:4242");
	assert_int_equal(fx.d.chain_index, 3);
	assert_true(strstr(fx.d.record, ",ci=3,") != NULL);
	/* MaxSubmitJobsPerUser=2: cut to 2, said with the limit */
	real_job(NULL, "few");
	fx.job.batch = 1;
	real_decide_with("model_params=7e9", "2e10", REAL_MARK, "");
	assert_int_equal(fx.d.chained_jobs, 2);
	assert_true(real_warned("QOS few MaxSubmitJobsPerUser=2 lets you "
				"queue 2: the chain is cut to 2"));
	/* not marked by sbatch (a script on standard input, --wait) */
	real_job(NULL, "short");
	fx.job.batch = 1;
	real_decide("model_params=7e9", "2e10");
	assert_int_equal(fx.d.chained_jobs, 1);
	assert_string_equal(fx.d.chain_id, "");
	assert_true(real_warned("sbatch did not queue it as a chain"));
	/* salloc, srun: never chained, even marked */
	real_job(NULL, "short");
	real_decide_with("model_params=7e9", "2e10", REAL_MARK, "");
	assert_int_equal(fx.d.chained_jobs, 1);
	assert_true(real_warned("an interactive allocation (salloc, srun) is "
				"never chained"));
	/* --autosize-chain=off */
	real_job(NULL, "short");
	fx.job.batch = 1;
	real_decide_with("model_params=7e9", "2e10", REAL_MARK,
			 "autosize_chain=off");
	assert_int_equal(fx.d.chained_jobs, 1);
	assert_true(real_warned("--autosize-chain=off: this job trains "
				"about"));
	/* hostile marks: refused with one line naming the mark */
	real_job(NULL, "short");
	fx.job.batch = 1;
	real_decide_with("model_params=7e9", "2e10",
			 "AUTOSIZE_CHAIN=0123456789abcdef:2:0:480", "");
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REJECT);
	assert_non_null(strstr(fx.d.message, "AUTOSIZE_CHAIN"));
	real_decide_with("model_params=7e9", "2e10",
			 "AUTOSIZE_CHAIN=../../etc:1:0:480", "");
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REJECT);
	real_decide_with("model_params=7e9", "2e10",
			 "AUTOSIZE_CHAIN=0123456789abcdef:1:0:99999", "");
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REJECT);
}

/* Items 2, 6, 7: one node for GPUs per node, whole nodes for
 * --exclusive, --gpus=12 as 2 x 6, 13 refused with the counts that
 * split, a -t past MaxTime named. */
static void test_real_sizes(void **state)
{
	real_job(NULL, NULL);
	fx.job.gpus_per_node = 1;
	real_decide("model_params=3e9", "5e10");
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REWRITE);
	assert_int_equal(fx.d.nodes, 1);
	assert_int_equal(fx.d.gpus_per_node, 1);
	real_job(NULL, "big");    /* more nodes for memory only, said */
	fx.job.gpus_per_node = 8;
	real_decide("model_params=30e9", "1e9");
	assert_int_equal(fx.d.nodes, 2);
	assert_true(real_warned("2 nodes: the model does not fit the memory "
				"of 8 GPUs on one node"));
	real_job("h100", "big");
	fx.job.exclusive = 1;
	fx.job.gpus_per_node = 4;
	real_decide("model_params=7e9", "1e9");
	assert_int_equal(fx.d.gpus_per_node, 8);
	assert_int_equal(fx.d.set_gpus, 1);
	assert_true(real_warned("--exclusive"));
	real_job("h100", "big");
	fx.job.gpus_per_job = 12;
	real_decide("model_params=7e9", "2e9");
	assert_int_equal(fx.d.nodes, 2);
	assert_int_equal(fx.d.gpus_per_node, 6);
	assert_true(fx.d.set_gpus && fx.d.set_nodes);
	real_job("h100", "big");
	fx.job.gpus_per_job = 13;
	real_decide("model_params=7e9", "2e9");
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REJECT);
	assert_non_null(strstr(fx.d.message, "--gpus=12 or --gpus=16"));
	real_job("h100", NULL);
	fx.job.time_limit_min = 3 * 1440;
	real_decide("model_params=7e9", "2e10");
	assert_string_equal(fx.d.reason, "time");
	assert_non_null(strstr(fx.d.message, "your -t 3-00:00:00 is past "
			       "partition h100's MaxTime=2-00:00:00"));
}

/* Items 3, 4, 5: CPUs and memory per GPU by who sets them; the GPU type
 * planned for written; typed requests; the preemptible partition. */
static void test_real_node(void **state)
{
	real_job("h100", NULL);   /* no Slurm default: the node's share */
	real_decide("model_params=7e9", "2e9");
	assert_int_equal(fx.d.cpus_per_gpu, 8);
	assert_int_equal(fx.d.mem_per_gpu_mb, 128000);
	assert_true(fx.d.set_cpus && fx.d.set_mem);
	real_job("a100", NULL);   /* the policy's */
	real_decide("model_params=7e9", "2e9");
	assert_int_equal(fx.d.cpus_per_gpu, 6);
	assert_int_equal(fx.d.mem_per_gpu_mb, 61440);
	assert_true(fx.d.set_cpus && fx.d.set_mem);
	real_job("gpu", NULL);    /* Slurm's DefCpuPerGPU: Slurm's own */
	real_decide("model_params=7e9", "2e9");
	assert_int_equal(fx.d.cpus_per_gpu, 8);
	assert_false(fx.d.set_cpus || fx.d.set_mem);
	assert_true(strcmp(fx.d.gres_type, "h100") == 0 ||
		    strcmp(fx.d.gres_type, "a100") == 0);
	assert_int_equal(fx.d.set_gpus, 1);
	real_job("h100", NULL);   /* the job's own caps its GPUs per node */
	fx.job.cpus_per_gpu = 32;
	real_decide("model_params=7e9", "2e9");
	assert_true(fx.d.gpus_per_node <= 2);
	assert_false(fx.d.set_cpus);
	real_job("h100", "big");  /* offloaded states: host memory said */
	real_decide_with("model_params=70e9", "1e7", "train_mode=finetune",
			 "param_offload=on");
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REWRITE);
	assert_non_null(strstr(fx.d.summary, "GiB per node"));
	real_job("a100", "big");  /* more than a100's 2 nodes of 500 GiB */
	real_decide_with("model_params=70e9", "1e7", "train_mode=finetune",
			 "param_offload=on");
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REJECT);
	assert_non_null(strstr(fx.d.message, "offloaded model states need"));
	real_job("h100", NULL);   /* ... and its own GPUs per node past it */
	fx.job.cpus_per_gpu = 32;
	fx.job.gpus_per_node = 8;
	real_decide("model_params=7e9", "2e9");
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REJECT);
	assert_non_null(strstr(fx.d.message, "8 GPUs per node asked for on "
			       "partition h100, but --cpus-per-gpu=32"));
	real_job(NULL, NULL);     /* a typed request: that type only */
	snprintf(fx.job.gpu_type, sizeof(fx.job.gpu_type), "a100");
	fx.job.gpus_per_node = 8;
	real_decide("model_params=7e9", "2e9");
	assert_int_equal(fx.d.action, AUTOSIZE_ACTION_REWRITE);
	assert_true(strcmp(fx.d.partition, "a100") == 0 ||
		    strcmp(fx.d.partition, "gpu") == 0);
	assert_string_equal(fx.d.gres_type, "");
	real_job(NULL, NULL);     /* -C h100 */
	snprintf(fx.job.features, sizeof(fx.job.features), "h100");
	real_decide("model_params=7e9", "2e9");
	assert_true(strcmp(fx.d.partition, "h100") == 0 ||
		    strcmp(fx.d.gres_type, "h100") == 0);
	real_job(NULL, NULL);     /* spot is never picked unnamed */
	real_decide("model=llama-3.1-8b", "2e10");
	assert_string_not_equal(fx.d.partition, "spot");
	assert_int_equal(fx.d.preemptible, 0);
	real_job("spot", NULL);
	real_decide("model=llama-3.1-8b", "2e9");
	assert_string_equal(fx.d.partition, "spot");
	assert_int_equal(fx.d.preemptible, 1);
	assert_true(real_warned("partition spot is preemptible"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_options_untouched),
		cmocka_unit_test(test_rewrite_within_limits),
		cmocka_unit_test(test_guards_every_path),
		cmocka_unit_test(test_record_mismatch),
		cmocka_unit_test(test_partition_mode_and_exempt),
		cmocka_unit_test(test_record_pin_round_trip),
		cmocka_unit_test(test_huge_explicit_nodes_refused),
		cmocka_unit_test(test_partition_list_deduplicated),
		cmocka_unit_test(test_unknown_partition_in_list),
		cmocka_unit_test(test_gpus_per_task_kept),
		cmocka_unit_test(test_gpus_per_socket_kept),
		cmocka_unit_test(test_unreadable_gpus_not_sized),
		cmocka_unit_test(test_zero_gpus_refused),
		cmocka_unit_test(test_het_job),
		cmocka_unit_test(test_model_name_filtered),
		cmocka_unit_test(test_no_policy_is_internal),
		cmocka_unit_test(test_wide_policy_bounded),
		cmocka_unit_test(test_crafted_requests_bounded),
		cmocka_unit_test(test_live_limits),
		cmocka_unit_test(test_live_partitions_only),
		cmocka_unit_test(test_too_long_on_unfit),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_tres_read),
		cmocka_unit_test(test_tres_edit),
		cmocka_unit_test(test_wording),
	};

	const struct CMUnitTest real_tests[] = {
		cmocka_unit_test(test_real_limits),
		cmocka_unit_test(test_real_typed_limits),
		cmocka_unit_test(test_real_chain),
		cmocka_unit_test(test_real_sizes),
		cmocka_unit_test(test_real_node),
	};
	int rc = cmocka_run_group_tests(tests, setup, teardown);

	if (setup(NULL) != 0)
		return 1;
	rc |= cmocka_run_group_tests(real_tests, real_setup, real_teardown);
	teardown(NULL);
	return rc;
}
