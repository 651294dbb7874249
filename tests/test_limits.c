/*
 * Slurm's limits as autosize reads them (core/limits.c): the snapshot's
 * strict reader and the caps of one job in Slurm's order of limits
 * (partition QOS, job QOS, association and its parents; where first
 * defined; OverPartQOS).
 */
#include "testutil.h"
#include "autosize.h"

/* The testbed's realistic profile (contrib/testbed/up), with a deeper
 * account tree and a partition QOS. */
static const char snapshot[] =
	"# autosize limits --raw\n"
	"autosize-limits 1\n"
	"enforce limits\n"
	"qos normal user_gpus=16\n"
	"qos tiny flags=deny job_gpus=2\n"
	"qos short wall_min=240\n"
	"qos big flags=deny,over_part job_gpus=64 job_nodes=8\n"
	"qos partq job_gpus=24 grp_nodes=3\n"
	"assoc 1 0 root - -\n"
	"assoc 2 1 root root -\n"
	"assoc 3 1 ml - - job_nodes=3\n"
	"assoc 4 3 ml renter - def_qos=normal qos=normal,tiny,short,big\n"
	"assoc 5 1 lab - - grp_gpus=8\n"
	"assoc 6 5 lab renter - grp_gpus=12 wall_min=600\n"
	"assoc 7 1 solo - -\n"
	"assoc 8 7 solo single - qos=short\n"
	"user renter default_account=ml\n"
	"user single default_account=solo\n"
	"part gpu - def_cpus_per_gpu=8 def_mem_per_gpu_mb=61440 node_cpus=64 "
	"node_mem_mb=512000\n"
	"part gpu h100 node_cpus=64 node_mem_mb=1024000 node_gpus=8\n"
	"part gpu a100 node_cpus=64 node_mem_mb=512000\n"
	"part guarded - qos=partq node_cpus=64\n"
	"end\n";

static autosize_limits *load(const char *text)
{
	autosize_error e;
	autosize_limits *l = autosize_limits_parse(text, strlen(text), &e);

	if (!l)
		fprintf(stderr, "%s\n", e.msg);
	return l;
}

static void test_caps_in_slurm_order(void **state)
{
	autosize_limits *l = load(snapshot);
	autosize_caps c;
	char why[200];

	assert_non_null(l);
	assert_int_equal(autosize_limits_enforced(l), 1);
	assert_int_equal(autosize_limits_qos_count(l), 5);
	/* default account and QOS: the user's per-user GPUs, the inherited
	 * node limit of account ml */
	assert_int_equal(autosize_limits_caps(l, "renter", "", "", "gpu", NULL,
					      &c, why, sizeof(why)), 0);
	assert_string_equal(c.qos, "normal");
	assert_string_equal(c.account, "ml");
	assert_int_equal(c.gpus.value, 16);
	assert_string_equal(c.gpus.who,
			    "QOS normal MaxTRESPerUser=gres/gpu=16");
	assert_int_equal(c.nodes.value, 3);
	assert_string_equal(c.nodes.who, "account ml MaxTRES=node=3");
	assert_int_equal(c.wall_min.value, -1);
	/* a QOS asked for */
	assert_int_equal(autosize_limits_caps(l, "renter", "ml", "tiny", "gpu",
					      NULL, &c, why, sizeof(why)), 0);
	assert_int_equal(c.gpus.value, 2);
	assert_string_equal(c.gpus.who, "QOS tiny MaxTRESPerJob=gres/gpu=2");
	assert_int_equal(autosize_limits_caps(l, "renter", "ml", "short", "gpu",
					      NULL, &c, why, sizeof(why)), 0);
	assert_int_equal(c.wall_min.value, 240);
	assert_string_equal(c.wall_min.who, "QOS short MaxWall=04:00:00");
	/* a group limit at every level: the user's 12 and the account's 8;
	 * the association's MaxWall */
	assert_int_equal(autosize_limits_caps(l, "renter", "lab", "", "gpu",
					      NULL, &c, why, sizeof(why)), 0);
	assert_int_equal(c.gpus.value, 8);
	assert_string_equal(c.gpus.who, "account lab GrpTRES=gres/gpu=8");
	assert_int_equal(c.wall_min.value, 600);
	/* one QOS allowed and no default: that one */
	assert_int_equal(autosize_limits_caps(l, "single", "", "", "gpu", NULL,
					      &c, why, sizeof(why)), 0);
	assert_string_equal(c.qos, "short");
	autosize_limits_destroy(l);
}

static void test_partition_qos_first(void **state)
{
	autosize_limits *l = load(snapshot);
	autosize_caps c;
	char why[200];

	assert_non_null(l);
	/* the partition's QOS sets the per-job GPUs first; its group
	 * nodes beat the account's inherited MaxTRES */
	assert_int_equal(autosize_limits_caps(l, "renter", "ml", "normal",
					      "guarded", NULL, &c, why,
					      sizeof(why)), 0);
	assert_int_equal(c.gpus.value, 16);
	assert_int_equal(autosize_limits_caps(l, "renter", "ml", "tiny",
					      "guarded", NULL, &c, why,
					      sizeof(why)), 0);
	assert_int_equal(c.gpus.value, 24);
	assert_string_equal(c.gpus.who, "QOS partq MaxTRESPerJob=gres/gpu=24");
	assert_int_equal(c.nodes.value, 3);
	/* OverPartQOS: the job's QOS first */
	assert_int_equal(autosize_limits_caps(l, "renter", "ml", "big",
					      "guarded", NULL, &c, why,
					      sizeof(why)), 0);
	assert_int_equal(c.gpus.value, 64);
	/* another kind of limit, the partition QOS's group nodes, holds */
	assert_int_equal(c.nodes.value, 3);
	assert_string_equal(c.nodes.who, "QOS partq GrpTRES=node=3");
	/* the caller's partition QOS (slurmctld's part_list) wins */
	assert_int_equal(autosize_limits_caps(l, "renter", "ml", "tiny", "gpu",
					      "partq", &c, why, sizeof(why)),
			 0);
	assert_int_equal(c.gpus.value, 24);
	autosize_limits_destroy(l);
}

static void test_unknown_is_said(void **state)
{
	autosize_limits *l = load(snapshot);
	autosize_caps c;
	char why[200];

	assert_non_null(l);
	assert_int_equal(autosize_limits_caps(l, "renter", "ml", "nosuch",
					      "gpu", NULL, &c, why,
					      sizeof(why)), -1);
	assert_string_equal(why, "QOS nosuch is not among Slurm's QOS");
	assert_int_equal(autosize_limits_caps(l, "stranger", "", "", "gpu",
					      NULL, &c, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "stranger has no default account"));
	assert_int_equal(autosize_limits_caps(l, "renter", "solo", "", "gpu",
					      NULL, &c, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no association of user renter in "
			       "account solo"));
	autosize_limits_destroy(l);
}

/* The account and QOS a job is held to (the policy's rules match on
 * them), and the names Slurm knows (check-config --live). */
static void test_job_names(void **state)
{
	autosize_limits *l = load(snapshot);
	char account[AUTOSIZE_LIMITS_NAME_MAX], qos[AUTOSIZE_LIMITS_NAME_MAX];

	assert_non_null(l);
	/* the user's default account, its association's default QOS */
	assert_int_equal(autosize_limits_job_names(l, "renter", "", "", "",
						   account, qos), 0);
	assert_string_equal(account, "ml");
	assert_string_equal(qos, "normal");
	/* an account without a default QOS: normal, as Slurm */
	assert_int_equal(autosize_limits_job_names(l, "renter", "lab", NULL,
						   "gpu", account, qos), 0);
	assert_string_equal(account, "lab");
	assert_string_equal(qos, "normal");
	/* the association's only QOS; a QOS named is kept */
	assert_int_equal(autosize_limits_job_names(l, "single", "", "", "",
						   account, qos), 0);
	assert_string_equal(qos, "short");
	assert_int_equal(autosize_limits_job_names(l, "single", "", "big", "",
						   account, qos), 0);
	assert_string_equal(qos, "big");
	/* not known: -1, both "" */
	assert_int_equal(autosize_limits_job_names(l, "stranger", "", "", "",
						   account, qos), -1);
	assert_string_equal(account, "");
	assert_string_equal(qos, "");
	assert_int_equal(autosize_limits_job_names(l, "renter", "solo", "", "",
						   account, qos), -1);
	assert_int_equal(autosize_limits_job_names(NULL, "renter", "", "", "",
						   account, qos), -1);
	assert_true(autosize_limits_has_account(l, "lab"));
	assert_false(autosize_limits_has_account(l, "Lab"));
	assert_false(autosize_limits_has_account(l, "renter"));
	assert_true(autosize_limits_has_qos(l, "tiny"));
	assert_false(autosize_limits_has_qos(l, "nosuch"));
	assert_true(autosize_limits_has_user(l, "single"));
	assert_false(autosize_limits_has_user(l, "root"));
	assert_false(autosize_limits_has_user(NULL, "single"));
	autosize_limits_destroy(l);
}

static void test_not_enforced(void **state)
{
	autosize_limits *l = load("autosize-limits 1\nenforce none\n"
				  "qos normal job_gpus=1\nend\n");
	autosize_caps c;
	char why[200];

	assert_non_null(l);
	assert_int_equal(autosize_limits_caps(l, "anyone", "", "nosuch", "gpu",
					      NULL, &c, why, sizeof(why)), 0);
	assert_int_equal(c.gpus.value, -1);
	autosize_limits_destroy(l);
}

static void test_partitions(void **state)
{
	autosize_limits *l = load(snapshot);
	const autosize_slurm_part *p;

	assert_non_null(l);
	p = autosize_limits_partition(l, "gpu", "h100");
	assert_non_null(p);
	assert_int_equal(p->node_mem_mb, 1024000);
	assert_int_equal(p->def_cpus_per_gpu, -1);
	p = autosize_limits_partition(l, "gpu", NULL);
	assert_int_equal(p->def_cpus_per_gpu, 8);
	assert_int_equal(p->node_mem_mb, 512000);
	p = autosize_limits_partition(l, "gpu", "l40s");
	assert_int_equal(p->def_mem_per_gpu_mb, 61440);
	assert_null(autosize_limits_partition(l, "nosuch", NULL));
	autosize_limits_destroy(l);
}

static void test_lines(void **state)
{
	autosize_limits *l = load(snapshot);
	char buf[300];

	assert_non_null(l);
	assert_string_equal(autosize_limits_qos_line(l, 0, buf, sizeof(buf)),
			    "QOS normal: MaxTRESPerUser=gres/gpu=16");
	assert_string_equal(autosize_limits_qos_line(l, 3, buf, sizeof(buf)),
			    "QOS big: MaxTRESPerJob=gres/gpu=64, "
			    "MaxTRESPerJob=node=8 (OverPartQOS)");
	assert_null(autosize_limits_qos_line(l, 5, buf, sizeof(buf)));
	/* only those with a limit: lab, lab/renter, ml */
	assert_string_equal(autosize_limits_assoc_line(l, 0, buf, sizeof(buf)),
			    "account lab: GrpTRES=gres/gpu=8");
	assert_string_equal(autosize_limits_assoc_line(l, 1, buf, sizeof(buf)),
			    "the association of user renter in account lab: "
			    "GrpTRES=gres/gpu=12, MaxWall=10:00:00");
	assert_non_null(autosize_limits_assoc_line(l, 2, buf, sizeof(buf)));
	assert_null(autosize_limits_assoc_line(l, 3, buf, sizeof(buf)));
	autosize_limits_destroy(l);
}

/* Limits on one GPU type's TRES (MaxTRESPerUser=gres/gpu:h100=4): a
 * kind of their own in Slurm's order, bounding plans on that type only,
 * beside the untyped ones (the smaller wins). */
static void test_typed_gpus(void **state)
{
	static const char typed[] =
		"autosize-limits 1\nenforce limits\n"
		"qos normal user_gpus=16 user_gpus:h100=4 node_gpus:a100=2\n"
		"qos partq job_gpus:h100=8 user_gpus:h100=6\n"
		"assoc 1 0 root - -\n"
		"assoc 3 1 ml - - grp_gpus:a100=3 grp_gpus:h100=12\n"
		"assoc 4 3 ml renter - def_qos=normal\n"
		"user renter default_account=ml\n"
		"part guarded - qos=partq\n"
		"part hpart -\npart hpart h100\n"
		"end\n";
	autosize_limits *l = load(typed);
	autosize_caps c, t;
	char why[200], buf[300];

	assert_non_null(l);
	assert_int_equal(autosize_limits_caps(l, "renter", "", "", "gpu", NULL,
					      &c, why, sizeof(why)), 0);
	assert_int_equal(c.gpus.value, 16);
	assert_int_equal(c.n_typed, 2);
	autosize_caps_of_type(l, &c, "gpu", "h100", &t);
	assert_int_equal(t.gpus.value, 4);
	assert_string_equal(t.gpus.who,
			    "QOS normal MaxTRESPerUser=gres/gpu:h100=4");
	assert_int_equal(t.gpus_per_node.value, -1);
	autosize_caps_of_type(l, &c, "gpu", "a100", &t);
	assert_int_equal(t.gpus.value, 3);
	assert_string_equal(t.gpus.who,
			    "account ml GrpTRES=gres/gpu:a100=3");
	assert_int_equal(t.gpus_per_node.value, 2);
	/* another type, or none: the untyped caps alone */
	autosize_caps_of_type(l, &c, "gpu", "l40s", &t);
	assert_int_equal(t.gpus.value, 16);
	autosize_caps_of_type(l, &c, "gpu", "", &t);
	assert_int_equal(t.gpus.value, 16);
	/* an untyped job lands on the partition's nodes, here all H100:
	 * their type's limits hold, not the A100's */
	assert_int_equal(autosize_limits_caps(l, "renter", "", "", "hpart",
					      NULL, &c, why, sizeof(why)), 0);
	autosize_caps_of_type(l, &c, "hpart", "", &t);
	assert_int_equal(t.gpus.value, 4);
	assert_int_equal(t.gpus_per_node.value, -1);
	/* the partition QOS first: its per-user h100 limit (6) is the one
	 * Slurm uses, not the job QOS's (4); its per-job limit joins */
	assert_int_equal(autosize_limits_caps(l, "renter", "", "", "guarded",
					      NULL, &c, why, sizeof(why)), 0);
	autosize_caps_of_type(l, &c, "gpu", "h100", &t);
	assert_int_equal(t.gpus.value, 6);
	assert_string_equal(t.gpus.who,
			    "QOS partq MaxTRESPerUser=gres/gpu:h100=6");
	/* check-config --live lists them */
	assert_string_equal(autosize_limits_qos_line(l, 0, buf, sizeof(buf)),
			    "QOS normal: MaxTRESPerUser=gres/gpu=16, "
			    "MaxTRESPerUser=gres/gpu:h100=4, "
			    "MaxTRESPerNode=gres/gpu:a100=2");
	assert_string_equal(autosize_limits_assoc_line(l, 0, buf, sizeof(buf)),
			    "account ml: GrpTRES=gres/gpu:a100=3, "
			    "GrpTRES=gres/gpu:h100=12");
	autosize_limits_destroy(l);
}

/* Each broken snapshot is refused with its line; none crashes. */
static void test_strict(void **state)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "", "line 1: empty" },
		{ "autosize-limits 2\nend\n", "line 1: not 'autosize-limits 1'" },
		{ "autosize-limits 1\nenforce limits\n", "line 3: no 'end'" },
		{ "autosize-limits 1\nqos a job_gpus=x\nend\n",
		  "line 2: a limit that is not a number" },
		{ "autosize-limits 1\nqos a nice=1\nend\n",
		  "line 2: an unknown key" },
		{ "autosize-limits 1\nqos a;rm\nend\n",
		  "line 2: not a Slurm name" },
		{ "autosize-limits 1\nassoc 1 0 a\nend\n",
		  "line 2: an association needs" },
		{ "autosize-limits 1\nassoc x 0 a - -\nend\n",
		  "line 2: an association id" },
		{ "autosize-limits 1\npart - -\nend\n",
		  "line 2: a partition without a name" },
		{ "autosize-limits 1\nend\nqos a\n", "line 3: text after 'end'" },
		{ "autosize-limits 1\nwhat\nend\n", "line 2: an unknown record" },
		{ "autosize-limits 1\nqos a job_gpus=99999999999999\nend\n",
		  "line 2: a limit that is not a number" },
		{ "autosize-limits 1\nqos a user_gpus:h100=x\nend\n",
		  "line 2: a limit that is not a number" },
		{ "autosize-limits 1\nqos a user_gpus:=4\nend\n",
		  "line 2: a limit that is not a number" },
		{ "autosize-limits 1\nqos a user_gpus:h1;0=4\nend\n",
		  "line 2: a limit that is not a number" },
		{ "autosize-limits 1\nqos a user_gpus:h100\nend\n",
		  "line 2: a limit that is not a number" },
		{ "autosize-limits 1\nqos a user_submit:h100=4\nend\n",
		  "line 2: an unknown key" },
		{ "autosize-limits 1\nassoc 1 0 a - - user_gpus:h100=4\nend\n",
		  "line 2: an unknown key" },
	};
	autosize_error e;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		autosize_error_clear(&e);
		assert_null(autosize_limits_parse(bad[i].text,
						  strlen(bad[i].text), &e));
		if (!strstr(e.msg, bad[i].want))
			fail_msg("%s: got '%s'", bad[i].want, e.msg);
	}
	/* a parent loop ends */
	{
		static const char loop[] = "autosize-limits 1\nenforce limits\n"
			"qos normal\nassoc 1 2 a - - grp_gpus=4\n"
			"assoc 2 1 b - - grp_gpus=2\n"
			"assoc 3 1 a u -\nend\n";
		autosize_limits *l = load(loop);
		autosize_caps c;
		char why[100];

		assert_non_null(l);
		assert_int_equal(autosize_limits_caps(l, "u", "a", "", "p",
						      NULL, &c, why,
						      sizeof(why)), 0);
		assert_int_equal(c.gpus.value, 2);
		autosize_limits_destroy(l);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caps_in_slurm_order),
		cmocka_unit_test(test_partition_qos_first),
		cmocka_unit_test(test_unknown_is_said),
		cmocka_unit_test(test_job_names),
		cmocka_unit_test(test_not_enforced),
		cmocka_unit_test(test_partitions),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_typed_gpus),
		cmocka_unit_test(test_strict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
