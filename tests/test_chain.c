/*
 * Tests: chained jobs (issue 31). The mark sbatch sends slurmctld, read
 * strictly; a plan longer than its partition's max time as a chain whose
 * limits cover the upper end, each warned before its limit; the parts
 * of a chain and --train-tokens-done; a run that may not chain; the
 * chain's keys in the record and the report's progress; the spool entry
 * with a run's progress; the QOS's MaxSubmitJobs in Slurm's limits; the
 * chained runs of the admin's report; a chained job in `autosize show`.
 */
#include <math.h>
#include "testutil.h"
#include "autosize.h"
#include "autosize/chain.h"
#include "autosize/report.h"
#include "autosize/show.h"
#include "autosize/spool.h"

#define PLANTEST_WHAT "chain.yaml"
#include "plantest.h"

static const char *const chain_policy =
	"partitions:\n"
	"  - name: small\n"
	"    gpu: h100\n"
	"    gpus_per_node: 8\n"
	"    nodes: 4\n"
	"    max_nodes_per_job: 2\n"
	"    max_time: \"12:00:00\"\n"
	"    network: ib\n"
	"    network_gbps_per_node: 3200\n"
	"  - name: slowdisk\n"
	"    gpu: h100\n"
	"    gpus_per_node: 8\n"
	"    nodes: 4\n"
	"    max_nodes_per_job: 2\n"
	"    network: ib\n"
	"    network_gbps_per_node: 3200\n"
	"    storage_write_gbs: 0.2\n";

static const char *const run_7b[] = {"model-params", "7e9", "partition",
	"small", "train-tokens", "1.2e10", NULL, NULL, NULL, NULL};

/* ---- the mark --------------------------------------------------------- */

static void test_mark(void **state)
{
	static const char *const bad[] = {
		"", "0123456789abcdef", "0123456789abcdef:1:0",
		"0123456789abcdef:1:0:480:9", "0123456789ABCDEF:1:0:480",
		"0123456789abcde:1:0:480", "0123456789abcdef:0:0:480",
		"0123456789abcdef:1001:7:480", "0123456789abcdef:2:0:480",
		"0123456789abcdef:1:7:480", "0123456789abcdef:1:0:65536",
		"0123456789abcdef:1:0:-1", "0123456789abcdef:2:4294967296:0",
		"0123456789abcdef:1:0: 480", "../../etc/pas:1:0:480",
		"0123456789abcdef::0:480", NULL,
	};
	autosize_chain_mark m;
	autosize_error e;
	char buf[AUTOSIZE_CHAIN_MARK_MAX], id[AUTOSIZE_CHAIN_ID_MAX];
	const char *env[3] = {"PATH=/bin", "AUTOSIZE_CHAIN=0123456789abcdef:3:"
			      "4242:480", NULL};
	int i;

	assert_int_equal(autosize_chain_mark_decode("0123456789abcdef:3:4242:"
						    "480", &m, &e),
			 AUTOSIZE_OK);
	assert_string_equal(m.id, "0123456789abcdef");
	assert_int_equal(m.index, 3);
	assert_int_equal(m.prev, 4242);
	assert_int_equal(m.signal_s, 480);
	assert_int_equal(autosize_chain_mark_encode(&m, buf, sizeof(buf)), 27);
	assert_string_equal(buf, "0123456789abcdef:3:4242:480");
	for (i = 0; bad[i]; i++) {
		if (autosize_chain_mark_decode(bad[i], &m, &e) == AUTOSIZE_OK)
			fail_msg("'%s' was read as a mark", bad[i]);
		assert_non_null(strstr(e.msg, "AUTOSIZE_CHAIN"));
		assert_string_equal(m.id, "");
	}
	assert_int_equal(autosize_chain_from_env(env, 2, &m, &e), AUTOSIZE_OK);
	assert_int_equal(m.index, 3);
	assert_int_equal(autosize_chain_from_env(env, 1, &m, &e), AUTOSIZE_OK);
	assert_string_equal(m.id, "");
	/* ids are drawn fresh, 16 hex digits */
	assert_int_equal(autosize_chain_id_new(id), 0);
	assert_true(autosize_chain_id_ok(id));
	assert_string_not_equal(id, "0000000000000000");
}

/* ---- the plan ---------------------------------------------------------- */

/* The small partition's 12 h: the chain covers the upper end; its jobs'
 * parts add up to the run; the signal's lead is the slowest storage's
 * write plus the margin, in whole minutes; told once, not as a warning. */
static void test_chain_plan(void **state)
{
	autosize_error e;
	autosize_policy *p = plantest_parse(chain_policy, &e);
	autosize_plan plan;
	double sum = 0, upper, job_h, write_slow;
	int i;

	assert_non_null(p);
	assert_int_equal(plantest_plan(p, run_7b, &plan), AUTOSIZE_OK);
	assert_int_equal(plan.time_limit_min, 720);
	upper = fmax(plan.train_hours_high,
		     plan.train_hours * (1 + plan.time_reserve));
	assert_true(plan.chained_jobs > 1);
	/* one job fewer would not cover the upper end */
	job_h = plan.chain_job_tokens / plan.tokens * plan.train_hours;
	assert_true(plan.chained_jobs * job_h * 1.0001 >=
		    upper * plan.chain_job_tokens / plan.tokens /
		    (plan.chain_job_tokens / plan.tokens));
	assert_true((plan.chained_jobs - 1) * job_h < upper);
	assert_true(job_h < 12 && job_h > 10);
	/* the slowdisk partition writes 98 GB at 0.2 GB/s: 490 s + 300 */
	write_slow = plan.ckpt.bytes / 0.2e9;
	assert_int_equal(plan.signal_s,
			 (int)(ceil((write_slow + 300) / 60) * 60));
	assert_false(plantest_warned(&plan, "chained"));
	for (i = 1; i <= plan.chained_jobs; i++)
		sum += autosize_plan_part(&plan, i, -1);
	assert_float_equal(sum, plan.tokens, plan.tokens * 1e-9);
	/* the last job's part is the rest, past it nothing */
	assert_true(autosize_plan_part(&plan, plan.chained_jobs, -1) <=
		    plan.chain_job_tokens);
	assert_float_equal(autosize_plan_part(&plan, plan.chained_jobs + 1,
					      -1), 0, 0);
	/* from what the job before reported */
	assert_float_equal(autosize_plan_part(&plan, 2, 3e9),
			   fmin(plan.chain_job_tokens, 9e9), 1);
	assert_float_equal(autosize_plan_part(&plan, 2, 1.2e10), 0, 0);
	autosize_policy_destroy(p);
}

/* --train-tokens-done of four fifths plans a fifth: tokens, hours, and
 * the launchers' steps stay the whole run's. */
static void test_tokens_done(void **state)
{
	const char *opts[sizeof(run_7b) / sizeof(run_7b[0])];
	autosize_error e;
	autosize_policy *p = plantest_parse(chain_policy, &e);
	autosize_plan full, rest;

	memcpy(opts, run_7b, sizeof(opts));
	assert_int_equal(plantest_plan(p, opts, &full), AUTOSIZE_OK);
	opts[6] = "train-tokens-done";
	opts[7] = "9.6e9";
	assert_int_equal(plantest_plan(p, opts, &rest), AUTOSIZE_OK);
	assert_float_equal(rest.tokens, 2.4e9, 1);
	assert_float_equal(rest.tokens_done, 9.6e9, 1);
	assert_float_equal(rest.train_hours / full.train_hours, 0.2, 1e-9);
	assert_int_equal(rest.chained_jobs, 1);
	assert_int_equal(autosize_launch_steps(&rest),
			 autosize_launch_steps(&full));
	assert_true(autosize_launch_job_steps(&rest) <
		    autosize_launch_steps(&rest) / 4);
	autosize_policy_destroy(p);
}

/* Bad --train-tokens-done: without --train-tokens, all of them done. */
static void test_tokens_done_refused(void **state)
{
	autosize_request r;
	autosize_error e;

	autosize_request_init(&r);
	assert_int_equal(autosize_request_set(&r, "model-params", "7e9", &e),
			 0);
	assert_int_equal(autosize_request_set(&r, "train-tokens-done", "1e9",
					      &e), 0);
	assert_int_equal(autosize_request_finish(&r, &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "--train-tokens-done needs "
			       "--train-tokens"));
	assert_int_equal(autosize_request_set(&r, "train-tokens", "1e9", &e),
			 0);
	assert_int_equal(autosize_request_finish(&r, &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "the run is done"));
	assert_int_equal(autosize_request_set(&r, "train-tokens-done", "-5",
					      &e), AUTOSIZE_EINVAL);
}

/* --eval-tokens: evaluated tokens are timed as forward passes, a third
 * of a training token's FLOPs without recomputation (2N + a/3 over
 * 6N + a), a quarter with full recomputation (over 8N + 4a/3), and
 * join the hours and the limit; a resumed run keeps the rest's share;
 * without --train-tokens there is no run to time. */
static void test_eval_tokens(void **state)
{
	const char *opts[] = {"model-params", "7e9", "partition", "small",
			      "train-tokens", "1.2e9", "gpus", "8",
			      "recompute", "none", "eval-tokens", "6e8",
			      NULL, NULL, NULL};
	autosize_error e;
	autosize_policy *p = plantest_parse(chain_policy, &e);
	autosize_plan none, ev, full, rest;
	autosize_request r;
	double steps_h;

	(void)state;
	opts[10] = NULL;
	assert_int_equal(plantest_plan(p, opts, &none), AUTOSIZE_OK);
	assert_float_equal(none.eval_hours, 0, 0);
	opts[10] = "eval-tokens";
	assert_int_equal(plantest_plan(p, opts, &ev), AUTOSIZE_OK);
	assert_int_equal(ev.recompute, AUTOSIZE_RECOMPUTE_NONE);
	assert_int_equal(ev.dp, none.dp);
	assert_float_equal(ev.tokens_per_s, none.tokens_per_s, 0);
	assert_float_equal(ev.eval_tokens, 6e8, 1);
	steps_h = ev.tokens / ev.tokens_per_s / 3600;
	/* 6e8 evaluated at a third of 1.2e9 trained: a sixth */
	assert_float_equal(ev.eval_hours / steps_h, 1.0 / 6, 1e-9);
	assert_float_equal(ev.train_hours / none.train_hours, 1 + 1.0 / 6,
			   1e-9);
	assert_int_equal(ev.chained_jobs, 1);
	assert_true(ev.time_limit_min > none.time_limit_min);
	opts[9] = "full";
	assert_int_equal(plantest_plan(p, opts, &full), AUTOSIZE_OK);
	assert_int_equal(full.recompute, AUTOSIZE_RECOMPUTE_FULL);
	assert_int_equal(full.recompute_layers, 0);
	assert_float_equal(full.eval_hours /
			   (full.tokens / full.tokens_per_s / 3600),
			   0.5 / 4, 1e-9);
	opts[9] = "none";
	opts[12] = "train-tokens-done";
	opts[13] = "9.6e8";
	assert_int_equal(plantest_plan(p, opts, &rest), AUTOSIZE_OK);
	assert_float_equal(rest.eval_tokens, 1.2e8, 1);
	assert_float_equal(rest.train_hours / ev.train_hours, 0.2, 1e-9);
	autosize_policy_destroy(p);
	autosize_request_init(&r);
	assert_int_equal(autosize_request_set(&r, "model-params", "7e9", &e),
			 0);
	assert_int_equal(autosize_request_set(&r, "eval-tokens", "1e9", &e),
			 0);
	assert_int_equal(autosize_request_finish(&r, &e), AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "--eval-tokens needs --train-tokens"));
	assert_int_equal(autosize_request_set(&r, "eval-tokens", "-1", &e),
			 AUTOSIZE_EINVAL);
}

/* The GPUs a deadline needs count the evaluations as the plan times
 * them: a plan on 8 GPUs that meets its deadline never says it needs
 * more (LoRA, whose step is no 3x its forward pass, under full
 * recomputation). */
static void test_eval_gpus_min(void **state)
{
	const char *opts[] = {"model", "llama-2-70b", "partition", "small",
			      "train-mode", "lora", "gpus", "8",
			      "train-tokens", "15.7e6", "eval-tokens", "6.2e8",
			      "mfu", "0.4", NULL, NULL, NULL};
	autosize_error e;
	autosize_policy *p = plantest_parse(chain_policy, &e);
	autosize_plan first, plan;
	char deadline[32];

	(void)state;
	assert_int_equal(plantest_plan(p, opts, &first), AUTOSIZE_OK);
	assert_true(first.eval_hours > first.train_hours / 2);
	snprintf(deadline, sizeof(deadline), "%.0fm",
		 ceil(first.train_hours * 60 * 1.01));
	opts[14] = "train-time";
	opts[15] = deadline;
	assert_int_equal(plantest_plan(p, opts, &plan), AUTOSIZE_OK);
	assert_int_equal(plan.gpus, 8);
	assert_true(plan.train_hours * 60 <= atof(deadline));
	if (!(plan.gpus_min <= plan.gpus))
		fail_msg("%d GPUs meet the %s deadline (%.2f h), yet %.0f "
			 "are the least that could", plan.gpus, deadline,
			 plan.train_hours, plan.gpus_min);
	assert_true(plan.gpus_min >= plan.gpus - 1);
	autosize_policy_destroy(p);
}

/* A run that may not chain: one job, told what it holds and why. */
static void test_not_chained(void **state)
{
	const char *opts[sizeof(run_7b) / sizeof(run_7b[0])];
	autosize_error e;
	autosize_policy *p = plantest_parse(chain_policy, &e);
	autosize_plan plan;
	char *off;
	size_t n;

	memcpy(opts, run_7b, sizeof(opts));
	opts[6] = "autosize-chain";
	opts[7] = "off";
	assert_int_equal(plantest_plan(p, opts, &plan), AUTOSIZE_OK);
	assert_int_equal(plan.chained_jobs, 1);
	assert_int_equal(plan.signal_s, 0);
	assert_int_equal(plan.time_limit_min, 720);
	assert_true(plantest_warned(&plan, "--autosize-chain=off: this job "
				    "trains about"));
	assert_string_equal(autosize_warning_code(plan.warnings[0]),
			    "not_chained");
	autosize_policy_destroy(p);
	/* the site's chain: off */
	n = strlen(chain_policy) + 32;
	off = malloc(n);
	assert_non_null(off);
	snprintf(off, n, "defaults:\n  chain: off\n%s", chain_policy);
	p = plantest_parse(off, &e);
	free(off);
	assert_non_null(p);
	assert_int_equal(plantest_plan(p, run_7b, &plan), AUTOSIZE_OK);
	assert_int_equal(plan.chained_jobs, 1);
	assert_true(plantest_warned(&plan, "(chain: off)"));
	autosize_policy_destroy(p);
	/* a bad key is refused */
	p = plantest_parse("defaults:\n  chain: maybe\n", &e);
	assert_null(p);
	assert_non_null(strstr(e.msg, "chain"));
	p = plantest_parse("checkpoint:\n  signal_margin: 13h\n", &e);
	assert_null(p);
	assert_non_null(strstr(e.msg, "signal_margin"));
}

/* ---- the record, the report, the spool -------------------------------- */

static void test_record_keys(void **state)
{
	autosize_record r, back;
	autosize_measured m;
	autosize_error e;
	char buf[AUTOSIZE_RECORD_MAX];
	int bad, n;
	const char *report = "{\"tokens_done\": 3e9}\n"
			     "{\"tokens_per_s\": 1000, \"tokens_done\": 5e9}\n"
			     "{\"tokens_done\": -1}\n";

	autosize_record_init(&r);
	r.params = 7e9;
	r.tokens = 1.2e10;
	snprintf(r.partition, sizeof(r.partition), "small");
	snprintf(r.gpu, sizeof(r.gpu), "H100-SXM5-80GB");
	snprintf(r.framework, sizeof(r.framework), "megatron");
	r.nodes = 2;
	r.gpus_per_node = 8;
	r.tp = r.pp = 1;
	r.dp = 16;
	r.tokens_per_s = 1000;
	r.train_hours = 28;
	r.mem_bytes = 3e10;
	snprintf(r.chain, sizeof(r.chain), "0123456789abcdef");
	r.chain_index = 2;
	r.chain_jobs = 4;
	r.chain_job_tokens = 4.7e9;
	r.signal_s = 480;
	r.eval_tokens = 2.5e9;
	/* the largest progress reported; a negative one is a bad line */
	assert_int_equal(autosize_report_summary(report, strlen(report), 0,
						 &m, &bad), 2);
	assert_int_equal(bad, 1);
	assert_float_equal(m.tokens_done, 5e9, 0);
	assert_true(autosize_record_add_measured(&r, &m) > 0);
	assert_float_equal(r.m_tokens_done, 5e9, 0);
	r.done_at = 77;
	n = autosize_record_encode(&r, buf, sizeof(buf));
	assert_true(n > 0);
	assert_non_null(strstr(buf, ",chain=0123456789abcdef,ci=2,ck=4,"
			       "jtok=4.7e+09,sig=480,"));
	assert_non_null(strstr(buf, ",m_done=5e+09"));
	assert_non_null(strstr(buf, ",ev=2.5e+09"));
	assert_non_null(strstr(buf, ",done_at=77"));
	assert_int_equal(autosize_record_decode(buf, (size_t)n, "t", &back,
						&e), AUTOSIZE_OK);
	assert_string_equal(back.chain, r.chain);
	assert_int_equal(back.chain_index, 2);
	assert_int_equal(back.chain_jobs, 4);
	assert_int_equal(back.signal_s, 480);
	assert_float_equal(back.eval_tokens, 2.5e9, 0);
	assert_float_equal(back.m_tokens_done, 5e9, 0);
	assert_int_equal(back.done_at, 77);
	assert_int_equal(autosize_record_chain_jobs(&back), 4);
	/* progress past twice the run is not this plan's */
	m.tokens_done = 3e10;
	autosize_record_add_measured(&r, &m);
	assert_float_equal(r.m_tokens_done, 0, 0);
	/* a hostile chain id is no name of the format */
	assert_int_equal(autosize_record_decode("autosize:v1:chain=a/b", 21,
						"t", &back, &e),
			 AUTOSIZE_EINVAL);
}

static void test_spool_progress(void **state)
{
	autosize_spool_entry en, back;
	autosize_error e;
	char line[AUTOSIZE_SPOOL_ENTRY_MAX];
	const char *old = AUTOSIZE_SPOOL_PREFIX "job=7,cluster=c,ended=5,"
			  "tok_s=1,step_s=2,mem_b=3,lines=1";
	int n;

	memset(&en, 0, sizeof(en));
	en.job_id = 7;
	en.ended_s = 5;
	en.m.tokens_per_s = 1;
	en.m.lines = 1;
	en.m.tokens_done = 1.2e10;
	n = autosize_spool_entry_encode(&en, line, sizeof(line));
	assert_true(n > 0);
	assert_non_null(strstr(line, ",done=1.2e+10"));
	assert_int_equal(autosize_spool_entry_decode(line, (size_t)n, "t",
						     &back, &e), AUTOSIZE_OK);
	assert_float_equal(back.m.tokens_done, 1.2e10, 0);
	/* an entry of a job that reported no progress reads as before */
	assert_int_equal(autosize_spool_entry_decode(old, strlen(old), "t",
						     &back, &e), AUTOSIZE_OK);
	assert_float_equal(back.m.tokens_done, 0, 0);
	snprintf(line, sizeof(line), "%s,done=1,done=2", old);
	assert_int_equal(autosize_spool_entry_decode(line, strlen(line), "t",
						     &back, &e),
			 AUTOSIZE_EINVAL);
}

/* ---- Slurm's limits ---------------------------------------------------- */

static void test_submit_caps(void **state)
{
	static const char snap[] =
		"autosize-limits 1\nenforce limits\n"
		"qos normal user_submit=8\n"
		"assoc 1 0 root - - grp_submit=6\nassoc 2 1 ml - -\n"
		"assoc 3 2 ml alice - def_qos=normal user_submit=20\n"
		"user alice default_account=ml\nend\n";
	autosize_limits *l;
	autosize_caps caps;
	autosize_error e;
	char why[128], line[256];

	l = autosize_limits_parse(snap, strlen(snap), &e);
	assert_non_null(l);
	assert_int_equal(autosize_limits_caps(l, "alice", "", "", "gpu", "",
					      &caps, why, sizeof(why)), 0);
	/* the QOS's per-user 8 is taken before the association's 20 (the
	 * first defined, as Slurm's hierarchy), the root's group 6 is the
	 * smaller cap */
	assert_int_equal(caps.submit_jobs.value, 6);
	assert_non_null(strstr(caps.submit_jobs.who, "GrpSubmitJobs=6"));
	assert_non_null(autosize_limits_qos_line(l, 0, line, sizeof(line)));
	assert_non_null(strstr(line, "MaxSubmitJobsPerUser=8"));
	autosize_limits_destroy(l);
	assert_null(autosize_limits_parse("autosize-limits 1\nqos x "
					  "user_submit=-1\nend\n", 34, &e));
}

/* ---- the report's runs and show -------------------------------------- */

static void runs_job(autosize_report *r, const char *id, int index,
		     const char *state, double elapsed, double done,
		     unsigned long done_at)
{
	autosize_finished_job j;
	autosize_record rec;

	memset(&j, 0, sizeof(j));
	snprintf(j.job_id, sizeof(j.job_id), "%s", id);
	snprintf(j.user, sizeof(j.user), "alice");
	snprintf(j.state, sizeof(j.state), "%s", state);
	snprintf(j.partition, sizeof(j.partition), "small");
	snprintf(j.name, sizeof(j.name), "train.sh");
	j.nodes = 2;
	j.gpus = 16;
	j.elapsed_s = elapsed;
	j.start_s = elapsed > 0 ? 1000 * index : 0;
	j.end_s = elapsed > 0 ? 1000 * index + (long long)elapsed : 0;
	autosize_record_init(&rec);
	rec.params = 7e9;
	rec.tokens = 1.2e10;
	snprintf(rec.partition, sizeof(rec.partition), "small");
	rec.nodes = 2;
	rec.gpus_per_node = 8;
	rec.tokens_per_s = 1000;
	rec.train_hours = 28;
	rec.time_limit_min = 720;
	snprintf(rec.chain, sizeof(rec.chain), "0123456789abcdef");
	rec.chain_index = index;
	rec.chain_jobs = 4;
	rec.m_tokens_done = done;
	rec.has_measured = done > 0;
	rec.done_at = done_at;
	autosize_report_add(r, &j, &rec);
}

static void test_report_runs(void **state)
{
	autosize_report_options o;
	autosize_report_run runs[4];
	autosize_report *r;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	autosize_report_options_init(&o);
	r = autosize_report_create(&o);
	assert_non_null(r);
	runs_job(r, "16", 1, "COMPLETED", 3600, 3e9, 0);
	runs_job(r, "17", 2, "COMPLETED", 7200, 1.2e10, 0);
	runs_job(r, "18", 3, "CANCELLED", 0, 0, 17);
	autosize_report_finish(r);
	assert_int_equal(autosize_report_runs(r, runs, 4), 1);
	assert_string_equal(runs[0].first_job, "16");
	assert_int_equal(runs[0].planned, 4);
	assert_int_equal(runs[0].ran, 2);
	assert_int_equal(runs[0].unrun, 1);
	assert_true(runs[0].done);
	assert_float_equal(runs[0].elapsed_s, 10800, 0);
	assert_float_equal(runs[0].gpu_h, 48, 1e-9);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(autosize_report_write_text(r, f, "t"), 0);
	fclose(f);
	assert_non_null(strstr(text, "chained runs: 1 (1 done), 2 jobs run of "
			       "the 4 their plans queued; 1 took fewer"));
	assert_non_null(strstr(text, "run 01234567 from job 16 alice "
			       "\"train.sh\": 2 of 4 jobs ran (the rest "
			       "cancelled unrun)"));
	free(text);
	autosize_report_destroy(r);
}

static void test_show_chain(void **state)
{
	autosize_finished_job j;
	autosize_record rec;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	memset(&j, 0, sizeof(j));
	snprintf(j.job_id, sizeof(j.job_id), "18");
	snprintf(j.state, sizeof(j.state), "CANCELLED");
	snprintf(j.name, sizeof(j.name), "x");
	autosize_record_init(&rec);
	rec.params = 7e9;
	rec.tokens = 1.2e10;
	rec.nodes = 2;
	rec.gpus_per_node = 8;
	rec.train_hours = 28;
	rec.train_hours_low = 18;
	rec.train_hours_high = 37;
	rec.time_limit_min = 720;
	snprintf(rec.chain, sizeof(rec.chain), "0123456789abcdef");
	rec.chain_index = 3;
	rec.chain_jobs = 4;
	rec.chain_job_tokens = 4.7e9;
	rec.signal_s = 480;
	rec.done_at = 17;
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(autosize_show_write_text(&j, &rec, NULL, "t", f), 0);
	assert_int_equal(autosize_show_write_json(&j, &rec, NULL, "t", f), 0);
	fclose(f);
	assert_non_null(strstr(text, ", 28.0 h predicted (likely 18.0-37.0 "
			       "h), time limit 12:00:00 per job x 4 chained "
			       "jobs, which cover at least the upper end, "
			       "SIGUSR1 8 min before each limit"));
	assert_non_null(strstr(text, "  chain      job 3 of 4 of run "
			       "0123456789abcdef, 4.7B tokens a job, SIGUSR1 "
			       "8 min before its limit; not run: the run was "
			       "complete when job 17 ended"));
	assert_non_null(strstr(text, "\"chain\":{\"id\":\"0123456789abcdef\","
			       "\"index\":3,\"jobs\":4,"));
	assert_non_null(strstr(text, "\"done_at\":\"17\"}"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mark),
		cmocka_unit_test(test_chain_plan),
		cmocka_unit_test(test_tokens_done),
		cmocka_unit_test(test_tokens_done_refused),
		cmocka_unit_test(test_eval_tokens),
		cmocka_unit_test(test_eval_gpus_min),
		cmocka_unit_test(test_not_chained),
		cmocka_unit_test(test_record_keys),
		cmocka_unit_test(test_spool_progress),
		cmocka_unit_test(test_submit_caps),
		cmocka_unit_test(test_report_runs),
		cmocka_unit_test(test_show_chain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
