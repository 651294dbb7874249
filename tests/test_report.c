/*
 * Tests for the admin's report: warning codes (core/plan_warn.c), the
 * record's warn=/ask_ keys (core/jobrecord.c, core/decide.c), the
 * finished-job readers (offline/calibration_input.c: sacct lines, JSON
 * lines), the aggregation and its writers (offline/report.c, report_out.c)
 * and `autosize report` against a stand-in sacct.
 */
#include <ctype.h>
#include "testutil.h"
#include <sys/wait.h>
#include "autosize.h"
#include "autosize/metrics.h"
#include "autosize/replay.h"
#include "autosize/report.h"
#include "date.h"

#define POLICY "contrib/testbed/autosize.yaml"
#define P "_SLURM_SPANK_OPTION_autosize_"
#define DELIM "|~0123456789abcdef~|"

static autosize_policy *rep_policy(void)
{
	autosize_error e;
	autosize_policy *p = autosize_policy_load(POLICY, &e);

	if (!p)
		fail_msg("%s", e.msg);
	return p;
}

/* A plan's record: 7B x 2B tokens on partition gpu. */
static void rep_record(autosize_record *r)
{
	autosize_policy *p = rep_policy();
	autosize_request q;
	autosize_plan plan;
	autosize_error e;

	autosize_request_init(&q);
	assert_int_equal(autosize_request_set(&q, "model-params", "7e9", &e),
			 AUTOSIZE_OK);
	assert_int_equal(autosize_request_set(&q, "train-tokens", "2e9", &e),
			 AUTOSIZE_OK);
	assert_int_equal(autosize_request_set(&q, "partition", "gpu", &e),
			 AUTOSIZE_OK);
	assert_int_equal(autosize_request_finish(&q, &e), AUTOSIZE_OK);
	if (autosize_plan_compute(p, &q, &plan, &e) != AUTOSIZE_OK)
		fail_msg("plan: %s", e.msg);
	autosize_record_from_plan(&plan, r);
	autosize_policy_destroy(p);
}

/* ---- warning codes ---- */

static void test_warning_codes(void **state)
{
	char w[4][AUTOSIZE_WARNING_LEN] = {
		"predicted utilization 20.1% of peak is below 25%: check",
		"predicted 40.0 h exceeds partition gpu max time 48 h: run 2 "
		"chained jobs",
		"predicted utilization 19.0% of peak is below 25%: again",
		"a sentence no table knows",
	};
	char out[AUTOSIZE_RECORD_WARN_MAX];

	assert_string_equal(autosize_warning_code(w[0]), "low_mfu");
	assert_string_equal(autosize_warning_code(w[1]), "chained");
	assert_string_equal(autosize_warning_code(w[3]), "other");
	assert_string_equal(autosize_warning_code(NULL), "other");
	assert_string_equal(autosize_warning_code(
		"your time limit (60 min) ends before the predicted 9.0 h: "
		"checkpoint and chain jobs"), "limit_short");
	assert_string_equal(autosize_warning_code(
		"keeping 3 checkpoints of 1 TB needs 3 TB; partition gpu's "
		"storage holds 1 TB"), "ckpt_storage");
	assert_string_equal(autosize_warning_code(
		"checkpoints of 1 TB need 9.0 GB/s to take 5% of each 1.0 h"),
		"ckpt_bandwidth");
	/* each code once, '+'-joined */
	assert_int_equal(autosize_warning_codes(
		(const char (*)[AUTOSIZE_WARNING_LEN])w, 4, out, sizeof(out)),
		3);
	assert_string_equal(out, "low_mfu+chained+other");
	/* what does not fit is left out, never cut */
	assert_int_equal(autosize_warning_codes(
		(const char (*)[AUTOSIZE_WARNING_LEN])w, 4, out, 12), 1);
	assert_string_equal(out, "low_mfu");
}

/* The warnings real plans give all have a code of their own. */
static void test_warning_codes_of_plans(void **state)
{
	static const char *const asks[][4] = {
		{"7e9", "2e9", "gpu", NULL},
		{"70e9", "1e12", "gpu", NULL},
		{"70e9", "1e12", "small", NULL},
		{"7e9", "1e6", "gpu", NULL},
		{"1e9", "1e9", "gpu", "32"},
		{"405e9", "1e12", "gpu", NULL},
	};
	autosize_policy *p = rep_policy();
	size_t i;
	int w, seen = 0;

	for (i = 0; i < sizeof(asks) / sizeof(asks[0]); i++) {
		autosize_request q;
		autosize_plan plan;
		autosize_error e;

		autosize_request_init(&q);
		assert_int_equal(autosize_request_set(&q, "model-params",
						      asks[i][0], &e), 0);
		assert_int_equal(autosize_request_set(&q, "train-tokens",
						      asks[i][1], &e), 0);
		assert_int_equal(autosize_request_set(&q, "partition",
						      asks[i][2], &e), 0);
		if (asks[i][3])
			assert_int_equal(autosize_request_set(&q, "gpus",
							      asks[i][3], &e),
					 0);
		if (autosize_request_finish(&q, &e) != AUTOSIZE_OK ||
		    autosize_plan_compute(p, &q, &plan, &e) != AUTOSIZE_OK)
			continue;
		for (w = 0; w < plan.n_warnings; w++, seen++)
			if (strcmp(autosize_warning_code(plan.warnings[w]),
				   "other") == 0)
				fail_msg("no code for: %s", plan.warnings[w]);
	}
	assert_true(seen > 0);
	autosize_policy_destroy(p);
}

/* ---- the record ---- */

static void test_record_extras(void **state)
{
	autosize_record r, back;
	autosize_error e;
	char buf[AUTOSIZE_RECORD_MAX];
	int n;

	rep_record(&r);
	r.ask_gpus = 16;
	r.ask_min = 600;
	snprintf(r.warn, sizeof(r.warn), "low_mfu+chained");
	n = autosize_record_encode(&r, buf, sizeof(buf));
	assert_true(n > 0);
	assert_non_null(strstr(buf, ",ask_gpus=16,ask_min=600,"
			       "warn=low_mfu+chained"));
	assert_int_equal(autosize_record_decode(buf, (size_t)n, "t", &back,
						&e), AUTOSIZE_OK);
	assert_int_equal(back.ask_gpus, 16);
	assert_int_equal(back.ask_min, 600);
	assert_string_equal(back.warn, "low_mfu+chained");
	/* none given: no key written */
	r.ask_gpus = 0;
	r.ask_min = 0;
	r.warn[0] = '\0';
	n = autosize_record_encode(&r, buf, sizeof(buf));
	assert_null(strstr(buf, "ask_"));
	assert_null(strstr(buf, "warn="));
	/* a warn= outside the format is refused, naming the key */
	snprintf(buf + n, sizeof(buf) - (size_t)n, ",warn=<b>");
	assert_int_not_equal(autosize_record_decode(buf, strlen(buf), "t",
						    &back, &e), AUTOSIZE_OK);
	assert_non_null(strstr(e.msg, "'warn'"));
}

/* slurmctld's decision carries what the user asked and the warning
 * codes, and leaves room for the measured figures. */
static void test_decide_records_ask_and_warnings(void **state)
{
	const char *env[2] = {P "model_params=7e9", P "train_tokens=2e9"};
	autosize_policy *p = rep_policy();
	autosize_decide_work *w = malloc(autosize_decide_work_size());
	autosize_decision *d = malloc(sizeof(*d));
	autosize_record r;
	autosize_error e;
	autosize_job job;

	assert_non_null(w);
	assert_non_null(d);
	autosize_job_init(&job);
	snprintf(job.partition, sizeof(job.partition), "gpu");
	job.min_nodes = 1;
	job.gpus_per_node = 8;
	job.time_limit_min = 60;
	job.batch = 1;
	autosize_decide(p, env, 2, &job, w, d);
	assert_true(d->record[0] != '\0');
	assert_true(strlen(d->record) + AUTOSIZE_RECORD_MEASURED_MAX <
		    AUTOSIZE_RECORD_MAX);
	assert_int_equal(autosize_record_decode(d->record, strlen(d->record),
						"t", &r, &e), AUTOSIZE_OK);
	assert_int_equal(r.ask_gpus, 8);
	assert_int_equal(r.ask_min, 60);
	assert_non_null(strstr(r.warn, "limit_short"));
	/* nothing asked: no ask keys */
	autosize_job_init(&job);
	job.batch = 1;
	autosize_decide(p, env, 2, &job, w, d);
	assert_int_equal(autosize_record_decode(d->record, strlen(d->record),
						"t", &r, &e), AUTOSIZE_OK);
	assert_int_equal(r.ask_gpus, 0);
	assert_int_equal(r.ask_min, 0);
	free(d);
	free(w);
	autosize_policy_destroy(p);
}

/* ---- the readers ---- */

static void test_sacct_line(void **state)
{
	autosize_finished_job j;
	char line[1024];

	/* a name holding '|', the delimiter itself, markup, control bytes */
	snprintf(line, sizeof(line), "123" DELIM "alice" DELIM "gpu" DELIM
		 "CANCELLED by 0" DELIM "1-02:03:04" DELIM "2" DELIM
		 "billing=1,cpu=64,gres/gpu=16,node=2" DELIM "2-00:00:00"
		 DELIM "2026-11-03T10:00:00" DELIM "2026-11-03T10:00:05"
		 DELIM "Unknown" DELIM "site autosize:v1:x" DELIM
		 "<b>x</b>&\"|a" DELIM "\x1b[31mz\n");
	assert_int_equal(autosize_sacct_job_line(line, DELIM, &j), 0);
	assert_string_equal(j.job_id, "123");
	assert_string_equal(j.user, "alice");
	assert_string_equal(j.partition, "gpu");
	assert_string_equal(j.state, "CANCELLED");
	assert_true(fabs(j.elapsed_s - 93784) < 1e-6);
	assert_int_equal(j.nodes, 2);
	assert_int_equal(j.gpus, 16);
	assert_true(fabs(j.time_limit_s - 172800) < 1e-6);
	assert_true(j.submit_s == date_parse("2026-11-03T10:00:00"));
	assert_true(j.start_s == j.submit_s + 5);
	assert_true(j.end_s == 0);
	assert_string_equal(j.comment, "site autosize:v1:x");
	assert_string_equal(j.name, "<b>x</b>&\"|a" DELIM "\x1b[31mz");
	/* UNLIMITED, no GPUs, a step, the rest of a name's newline, a
	 * line of too few fields */
	snprintf(line, sizeof(line), "7" DELIM "u" DELIM "p" DELIM
		 "TIMEOUT" DELIM "00:10:00" DELIM "x" DELIM "cpu=1" DELIM
		 "UNLIMITED" DELIM DELIM DELIM DELIM DELIM "n");
	assert_int_equal(autosize_sacct_job_line(line, DELIM, &j), 0);
	assert_true(j.time_limit_s == 0 && j.gpus == -1 && j.nodes == -1);
	assert_true(fabs(j.elapsed_s - 600) < 1e-6);
	snprintf(line, sizeof(line), "7.batch" DELIM "u" DELIM "p" DELIM
		 "TIMEOUT" DELIM "00:10" DELIM "x" DELIM "cpu=1" DELIM
		 "UNLIMITED" DELIM DELIM DELIM DELIM DELIM "n");
	assert_int_equal(autosize_sacct_job_line(line, DELIM, &j), -1);
	snprintf(line, sizeof(line), "rest|of|a|name|with|a|newline|and|"
		 "pipes|12|13|14|15");
	assert_int_equal(autosize_sacct_job_line(line, DELIM, &j), -1);
	snprintf(line, sizeof(line), "7" DELIM "u" DELIM "p");
	assert_int_equal(autosize_sacct_job_line(line, DELIM, &j), -1);
	snprintf(line, sizeof(line), "%s", "");
	assert_int_equal(autosize_sacct_job_line(line, DELIM, &j), -1);
	/* a long name is cut, never overflows */
	memset(line, 'n', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	memcpy(line, "8" DELIM "u" DELIM "p" DELIM "COMPLETED" DELIM "1"
	       DELIM "1" DELIM "x" DELIM "1" DELIM DELIM DELIM DELIM DELIM,
	       strlen("8" DELIM "u" DELIM "p" DELIM "COMPLETED" DELIM "1"
		      DELIM "1" DELIM "x" DELIM "1" DELIM DELIM DELIM DELIM
		      DELIM));
	assert_int_equal(autosize_sacct_job_line(line, DELIM, &j), 0);
	assert_int_equal(strlen(j.name), AUTOSIZE_JOB_NAME_MAX - 1);
}

static void test_sacct_time(void **state)
{
	assert_true(date_parse("1970-01-01T00:00:00") == 0);
	assert_true(date_parse("1970-01-02T00:00:01") == 86401);
	/* 2026-11-03 is 20760 days after 1970-01-01 */
	assert_true(date_parse("2026-11-03T12:00:00") ==
		    20760LL * 86400 + 43200);
	assert_true(date_parse("Unknown") == 0);
	assert_true(date_parse("None") == 0);
	assert_true(date_parse("2026-13-03T12:00:00") == 0);
	assert_true(date_parse("2026-11-03T12:00:00x") == 0);
	assert_true(date_parse(NULL) == 0);
}

static void test_iso_week(void **state)
{
	static const struct { const char *day, *week; } w[] = {
		{"2026-01-01T00:00:00", "2026-W01"}, /* a Thursday */
		{"2027-01-01T12:00:00", "2026-W53"}, /* a Friday */
		{"2024-12-30T00:00:00", "2025-W01"}, /* a Monday */
		{"2026-11-01T23:59:59", "2026-W44"}, /* a Sunday */
		{"2026-11-02T00:00:00", "2026-W45"},
		{"2021-01-03T00:00:00", "2020-W53"},
	};
	char buf[AUTOSIZE_REPORT_WEEK_MAX], t[32];
	long long monday;
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		date_iso_week(date_parse(w[i].day), buf,
					 sizeof(buf), &monday);
		assert_string_equal(buf, w[i].week);
	}
	date_iso_week(date_parse("2026-11-05T10:00:00"),
				 buf, sizeof(buf), &monday);
	date_time(monday, t, sizeof(t));
	assert_string_equal(t, "2026-11-02T00:00:00");
}

static void test_json_line_extras(void **state)
{
	char line[2048];
	autosize_finished_job j;
	autosize_record r;
	autosize_error e;

	snprintf(line, sizeof(line), "{\"job_id\":42,\"user\":\"bob\","
		 "\"job_name\":\"<script>x</script>\\u001b\",\"plan\":"
		 "{\"partition\":\"gpu\",\"gpu\":\"H100-SXM5-80GB\","
		 "\"tokens_per_s\":1000,\"nodes\":1,\"gpus_per_node\":8,"
		 "\"time_limit_min\":120},\"measured\":{\"tokens_per_s\":700},"
		 "\"state\":\"TIMEOUT\",\"elapsed_s\":7200,\"partition\":"
		 "\"gpu\",\"nodes\":1,\"gpus\":8,\"time_limit_min\":120,"
		 "\"submit\":\"2026-11-03T10:00:00\",\"end\":1790000000,"
		 "\"warn\":\"low_mfu\",\"asked_gpus\":32,"
		 "\"asked_time_limit_min\":60}");
	assert_int_equal(autosize_finished_json_line(line, strlen(line), "t",
						     &r, &j, &e), AUTOSIZE_OK);
	assert_string_equal(j.job_id, "42");
	assert_string_equal(j.name, "<script>x</script>\x1b");
	assert_true(j.nodes == 1 && j.gpus == 8);
	assert_true(fabs(j.time_limit_s - 7200) < 1e-9);
	assert_true(j.submit_s == date_parse("2026-11-03T10:00:00"));
	assert_true(j.end_s == 1790000000LL);
	assert_string_equal(r.warn, "low_mfu");
	assert_int_equal(r.ask_gpus, 32);
	assert_int_equal(r.ask_min, 60);
	assert_int_equal(r.time_limit_min, 120);
	assert_true(fabs(r.m_tokens_per_s - 700) < 1e-9);
	/* bad types and forms: errors naming the key */
	snprintf(line, sizeof(line), "{\"user\":\"bob\",\"warn\":\"a b\","
		 "\"plan\":{\"partition\":\"gpu\",\"gpu\":\"H\","
		 "\"tokens_per_s\":1}}");
	assert_int_not_equal(autosize_finished_json_line(line, strlen(line),
							 "t", &r, &j, &e), 0);
	assert_non_null(strstr(e.msg, "'warn'"));
	snprintf(line, sizeof(line), "{\"user\":\"bob\",\"nodes\":-1,"
		 "\"plan\":{\"partition\":\"gpu\",\"gpu\":\"H\","
		 "\"tokens_per_s\":1}}");
	assert_int_not_equal(autosize_finished_json_line(line, strlen(line),
							 "t", &r, &j, &e), 0);
	snprintf(line, sizeof(line), "{\"user\":\"bob\",\"job_name\":7,"
		 "\"plan\":{\"partition\":\"gpu\",\"gpu\":\"H\","
		 "\"tokens_per_s\":1}}");
	assert_int_not_equal(autosize_finished_json_line(line, strlen(line),
							 "t", &r, &j, &e), 0);
}

/* ---- the aggregation ---- */

/* A finished job on gpu with r's plan, measured at ratio x predicted
 * (0: none), in state, elapsed_s of limit_s, submitted at day. */
static void rep_add(autosize_report *rep, const autosize_record *plan,
		    const char *id, double ratio, const char *state,
		    double elapsed_s, double limit_s, const char *day)
{
	autosize_finished_job j;
	autosize_record r = *plan;

	autosize_finished_job_init(&j);
	snprintf(j.job_id, sizeof(j.job_id), "%s", id);
	snprintf(j.user, sizeof(j.user), "u%s", id);
	snprintf(j.name, sizeof(j.name), "job %s", id);
	snprintf(j.partition, sizeof(j.partition), "%s", r.partition);
	snprintf(j.state, sizeof(j.state), "%s", state);
	j.elapsed_s = elapsed_s;
	j.time_limit_s = limit_s;
	j.nodes = r.nodes;
	j.gpus = (long)r.nodes * r.gpus_per_node;
	j.submit_s = date_parse(day);
	if (ratio > 0) {
		r.has_measured = 1;
		r.m_tokens_per_s = r.tokens_per_s * ratio;
		r.m_lines = 3;
	}
	autosize_report_add(rep, &j, &r);
}

static void test_report_figures(void **state)
{
	autosize_report *rep = autosize_report_create(NULL);
	const autosize_report_totals *t;
	const autosize_report_group *g;
	const autosize_report_week *w;
	const autosize_report_job *k;
	autosize_finished_job j;
	autosize_record r, cal;
	long nk, nw;
	int ng;

	assert_non_null(rep);
	rep_record(&r);
	r.train_hours = 1;
	r.time_limit_min = 80;
	snprintf(r.warn, sizeof(r.warn), "low_mfu+chained");
	cal = r;
	cal.cal_speed = 0.7;
	cal.warn[0] = '\0';
	/* week 45: 0.6, 0.7, 0.8, 0.9, 1.0 and a TIMEOUT at 0.5 */
	rep_add(rep, &r, "1", 0.6, "COMPLETED", 3000, 4800,
		"2026-11-02T10:00:00");
	rep_add(rep, &r, "2", 0.7, "COMPLETED", 3000, 4800,
		"2026-11-03T10:00:00");
	rep_add(rep, &r, "3", 0.8, "COMPLETED", 2000, 4800,
		"2026-11-04T10:00:00");
	rep_add(rep, &r, "4", 0.9, "COMPLETED", 1000, 4800,
		"2026-11-05T10:00:00");
	rep_add(rep, &r, "5", 1.0, "COMPLETED", 3000, 4800,
		"2026-11-06T10:00:00");
	rep_add(rep, &r, "6", 0.5, "TIMEOUT", 4800, 4800,
		"2026-11-06T11:00:00");
	/* week 46, calibrated at 0.7: a TIMEOUT without a report */
	rep_add(rep, &cal, "7", 0, "TIMEOUT", 4800, 4800,
		"2026-11-09T10:00:00");
	rep_add(rep, &cal, "8", 1.0, "COMPLETED", 4000, 4800,
		"2026-11-10T10:00:00");
	/* moved to another partition: out of the speed figures */
	autosize_finished_job_init(&j);
	snprintf(j.job_id, sizeof(j.job_id), "9");
	snprintf(j.partition, sizeof(j.partition), "small");
	snprintf(j.state, sizeof(j.state), "COMPLETED");
	r.has_measured = 1;
	r.m_tokens_per_s = r.tokens_per_s * 5;
	autosize_report_add(rep, &j, &r);
	/* not sized, still running, unreadable */
	autosize_finished_job_init(&j);
	snprintf(j.state, sizeof(j.state), "COMPLETED");
	autosize_report_add(rep, &j, NULL);
	snprintf(j.state, sizeof(j.state), "RUNNING");
	autosize_report_add(rep, &j, &r);
	autosize_report_bad_record(rep);
	autosize_report_finish(rep);

	t = autosize_report_totals_of(rep);
	assert_int_equal(t->read, 12);
	assert_int_equal(t->sized, 9);
	assert_int_equal(t->no_record, 1);
	assert_int_equal(t->running, 1);
	assert_int_equal(t->bad_record, 1);
	assert_int_equal(t->kept, 9);
	assert_int_equal(t->mismatched, 1);
	assert_int_equal(t->measured, 7);
	/* 0.5 0.6 0.7 0.8 0.9 1.0 1.0: median 0.8; p10 at 0.6 x 0.6 + ... */
	assert_true(fabs(t->median - 0.8) < 1e-9);
	assert_true(fabs(t->p10 - 0.56) < 1e-9);
	assert_true(fabs(t->p90 - 1.0) < 1e-9);
	assert_int_equal(t->in_band, 3);       /* 0.9, 1.0, 1.0 */
	assert_int_equal(t->timeouts, 2);
	assert_int_equal(t->timeouts_measured, 1);
	/* job 6: 1 h of work at half speed in an 80 min limit */
	assert_true(fabs(t->need_max - 1.5) < 1e-9);
	/* far under: jobs 3 (2000 s) and 4 (1000 s) of 4800 s */
	assert_int_equal(t->far_under, 2);
	assert_true(fabs(t->far_under_median - 1500.0 / 4800) < 1e-9);
	assert_int_equal(t->completed, 7);
	assert_int_equal(t->warned, 7);

	g = autosize_report_groups(rep, &ng);
	assert_int_equal(ng, 1);
	assert_int_equal(g[0].jobs, 9);
	assert_int_equal(g[0].measured, 7);
	assert_int_equal(g[0].n_steps, 2);
	assert_int_equal(g[0].changes, 1);
	assert_true(fabs(g[0].step_factor[0] - 1) < 1e-9);
	assert_true(fabs(g[0].step_factor[1] - 0.7) < 1e-9);

	w = autosize_report_weeks(rep, &nw);
	assert_true(nw >= 2);
	assert_string_equal(w[0].week, "2026-W45");
	assert_int_equal(w[0].jobs, 6);
	assert_int_equal(w[0].timeouts, 1);
	/* |0.5-1| .. |1-1|: 0.5 0.4 0.3 0.2 0.1 0 -> 0.25 */
	assert_true(fabs(w[0].median_abs_error - 0.25) < 1e-9);
	assert_true(fabs(w[0].median_cal - 1) < 1e-9);
	assert_string_equal(w[1].week, "2026-W46");
	assert_int_equal(w[1].timeouts, 1);
	assert_true(fabs(w[1].median_cal - 0.7) < 1e-9);

	k = autosize_report_jobs(rep, &nk);
	assert_int_equal(nk, 9);
	assert_true(k[8].mismatch && k[8].ratio == 0);
	autosize_report_destroy(rep);
	autosize_report_destroy(NULL);
}

/* Issue 33: planned (and asked) GPU-hours count the jobs that ran, not
 * one cancelled while pending; preempted runs and the runs of a requeued
 * job (sacct --duplicates: REQUEUED) are kept and shown. */
static void test_report_interrupted(void **state)
{
	autosize_report *rep = autosize_report_create(NULL);
	const autosize_report_totals *t;
	const autosize_report_job *k;
	autosize_record r;
	char *text = NULL;
	size_t len = 0;
	double per_job;
	FILE *f;
	long nk;

	assert_non_null(rep);
	rep_record(&r);
	r.time_limit_min = 120;
	r.ask_gpus = 64;
	r.ask_min = 600;
	per_job = (double)r.nodes * r.gpus_per_node * 2;   /* GPU-hours */
	rep_add(rep, &r, "1", 1.0, "COMPLETED", 3600, 7200,
		"2026-11-02T10:00:00");
	rep_add(rep, &r, "2", 0, "CANCELLED", 0, 7200, "2026-11-02T11:00:00");
	rep_add(rep, &r, "3", 0, "PREEMPTED", 1800, 7200,
		"2026-11-02T12:00:00");
	rep_add(rep, &r, "4", 1.0, "REQUEUED", 600, 7200,
		"2026-11-02T13:00:00");
	autosize_report_finish(rep);
	t = autosize_report_totals_of(rep);
	assert_int_equal(t->running, 0);     /* REQUEUED: a run that ended */
	assert_int_equal(t->kept, 4);
	assert_int_equal(t->never_ran, 1);
	assert_int_equal(t->preempted, 1);
	assert_int_equal(t->requeued, 1);
	assert_true(fabs(t->gpu_h_planned - 3 * per_job) < 1e-6);
	assert_int_equal(t->asked_jobs, 3);
	assert_true(fabs(t->gpu_h_asked - 3 * 64 * 10.0) < 1e-6);
	k = autosize_report_jobs(rep, &nk);
	assert_int_equal(nk, 4);
	assert_false(k[1].ran);
	assert_true(k[2].preempted && k[2].ran);
	assert_true(k[3].requeued);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(autosize_report_write_text(rep, f, "test"), 0);
	fclose(f);
	assert_non_null(strstr(text, "preempted or requeued: 1 preempted, 1 "
			       "run requeued"));
	assert_non_null(strstr(text, "\"job 3\" gpu: PREEMPTED after"));
	assert_non_null(strstr(text, "1 job cancelled before it started"));
	free(text);
	text = NULL;
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(autosize_report_write_json(rep, f, "test"), 0);
	fclose(f);
	assert_non_null(strstr(text, "\"preempted\":1,\"requeued\":1,"
			       "\"never_ran\":1"));
	assert_non_null(strstr(text, "\"preempted\":true,\"requeued\":false,"
			       "\"ran\":true"));
	free(text);
	autosize_report_destroy(rep);
}

/*
 * autosize replay's core: a job's record decided again under the policy
 * that made it (the testbed's: the recorded plan comes back) and under
 * tests/data/replay-policy.yaml (gpu: 2 nodes and 10 hours a job); what
 * the user asked is kept as slurmctld keeps it, and refused where the
 * candidate cannot hold it.
 */
static void test_replay(void **state)
{
	autosize_policy *base = rep_policy(), *cand;
	const autosize_replay_totals *t;
	const autosize_replay_job *k;
	autosize_finished_job j;
	autosize_replay *rp;
	autosize_record r, big;
	autosize_error e;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	long n;

	cand = autosize_policy_load("tests/data/replay-policy.yaml", &e);
	if (!cand)
		fail_msg("%s", e.msg);
	rp = autosize_replay_create(base, "testbed", cand, "tried", 0);
	assert_non_null(rp);
	rep_record(&r);
	autosize_finished_job_init(&j);
	snprintf(j.job_id, sizeof(j.job_id), "1");
	snprintf(j.state, sizeof(j.state), "PENDING");
	autosize_replay_add(rp, &j, &r);
	/* the user asked 4 nodes x 8 and a day: more than gpu holds now */
	big = r;
	big.ask_gpus = 32;
	big.ask_min = 1440;
	snprintf(j.job_id, sizeof(j.job_id), "2");
	autosize_replay_add(rp, &j, &big);
	autosize_replay_add(rp, &j, NULL);
	autosize_replay_bad_record(rp);
	t = autosize_replay_totals_of(rp);
	assert_int_equal(t->read, 4);
	assert_int_equal(t->replayed, 2);
	assert_int_equal(t->no_record, 1);
	assert_int_equal(t->bad_record, 1);
	k = autosize_replay_jobs(rp, &n);
	assert_int_equal(n, 2);
	/* the plan the record holds comes back under its own policy */
	assert_true(k[0].reproduced);
	assert_int_equal(k[0].before.nodes, r.nodes);
	assert_true(k[0].before.time_limit_min == r.time_limit_min);
	assert_true(fabs(k[0].before.gpu_hours - (double)r.nodes *
			 r.gpus_per_node * r.time_limit_min / 60) < 1e-6);
	/* 5% time reserve instead of 15%: a shorter limit */
	assert_true(k[0].changed & AUTOSIZE_REPLAY_LIMIT);
	assert_true(k[0].after.time_limit_min < k[0].before.time_limit_min);
	/* the asked size is kept under the testbed, refused under 2 nodes */
	assert_int_equal(k[1].before.nodes * k[1].before.gpus_per_node, 32);
	assert_int_equal(k[1].before.time_limit_min, 1440);
	assert_int_equal(k[1].changed, AUTOSIZE_REPLAY_REFUSED);
	assert_int_equal(k[1].after.action, AUTOSIZE_ACTION_REJECT);
	assert_string_equal(k[1].after.reason, "unfit");
	assert_int_equal(t->refused, 1);
	assert_true(fabs(t->gpu_hours_refused - 32 * 24.0) < 1e-6);
	assert_true(fabs(t->gpu_hours_after - k[0].after.gpu_hours) < 1e-6);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(autosize_replay_write_json(rp, f, "test"), 0);
	fclose(f);
	assert_non_null(strstr(text, "\"changed\":[\"refused\"],"
			       "\"before\":{\"action\":\"rewrite\""));
	assert_non_null(strstr(text, "\"reproduced\":1,"));
	free(text);
	autosize_replay_destroy(rp);
	/* a LoRA job on a preset, as slurmctld records it (model=, mode=):
	 * rebuilt as such, its plan comes back */
	{
		const char *env[3] = {P "model=llama-3.1-8b",
				      P "train_mode=lora",
				      P "train_tokens=2e9"};
		autosize_decide_work *w = malloc(autosize_decide_work_size());
		autosize_decision d;
		autosize_job job;
		autosize_record lora;

		assert_non_null(w);
		autosize_job_init(&job);
		autosize_decide(base, env, 3, &job, w, &d);
		assert_true(d.has_plan);
		assert_int_equal(autosize_record_decode(d.record,
			strlen(d.record), "test", &lora, &e), 0);
		assert_string_equal(lora.model, "llama-3.1-8b");
		assert_string_equal(lora.mode, "lora");
		assert_string_equal(lora.prec, "");
		rp = autosize_replay_create(base, "testbed", cand, "tried", 0);
		assert_non_null(rp);
		autosize_replay_add(rp, &j, &lora);
		k = autosize_replay_jobs(rp, &n);
		assert_true(k[0].reproduced);
		autosize_replay_destroy(rp);
		free(w);
	}
	/* a rule on users applies to the job's user (accounting has it) */
	{
		static const char rule[] = "\nrules:\n  - users: [alice]\n"
					   "    mode: off\n";
		char text2[8192];
		size_t got;
		FILE *pf = fopen(POLICY, "r");
		autosize_policy *ruled;

		assert_non_null(pf);
		got = fread(text2, 1, sizeof(text2) - sizeof(rule), pf);
		fclose(pf);
		memcpy(text2 + got, rule, sizeof(rule));
		ruled = autosize_policy_parse(text2, strlen(text2), "ruled",
					      ".", &e);
		if (!ruled)
			fail_msg("%s", e.msg);
		rp = autosize_replay_create(base, "testbed", ruled, "ruled", 0);
		assert_non_null(rp);
		snprintf(j.user, sizeof(j.user), "alice");
		autosize_replay_add(rp, &j, &r);
		snprintf(j.user, sizeof(j.user), "bob");
		autosize_replay_add(rp, &j, &r);
		k = autosize_replay_jobs(rp, &n);
		assert_int_equal(n, 2);
		assert_true(k[0].changed & AUTOSIZE_REPLAY_ACTION);
		assert_int_equal(k[0].after.sized, 0);
		assert_int_equal(k[1].changed, 0);
		autosize_replay_destroy(rp);
		autosize_policy_destroy(ruled);
	}
	autosize_replay_destroy(NULL);
	autosize_policy_destroy(base);
	autosize_policy_destroy(cand);
}

/* The record of a job that ended before its script comes back from
 * sacctmgr lowercased: the same group, shown as the catalog spells it
 * whichever job came first. */
static void test_report_any_case(void **state)
{
	autosize_report *rep = autosize_report_create(NULL);
	const autosize_report_group *g;
	autosize_record r, lower;
	size_t i;
	int ng;

	assert_non_null(rep);
	rep_record(&r);
	assert_true(r.gpu[0] >= 'A' && r.gpu[0] <= 'Z');
	lower = r;
	for (i = 0; lower.gpu[i]; i++)
		lower.gpu[i] = (char)tolower((unsigned char)lower.gpu[i]);
	rep_add(rep, &lower, "1", 0.5, "TIMEOUT", 4800, 4800,
		"2026-11-02T10:00:00");
	rep_add(rep, &r, "2", 1.0, "COMPLETED", 3000, 4800,
		"2026-11-03T10:00:00");
	autosize_report_finish(rep);
	g = autosize_report_groups(rep, &ng);
	assert_int_equal(ng, 1);
	assert_int_equal(g[0].jobs, 2);
	assert_string_equal(g[0].gpu, r.gpu);
	autosize_report_destroy(rep);
}

static void test_report_cap(void **state)
{
	autosize_report_options o;
	autosize_report *rep;
	autosize_record r;
	int i;

	autosize_report_options_init(&o);
	o.max_jobs = 3;
	rep = autosize_report_create(&o);
	rep_record(&r);
	/* huge sizes and hours stay finite */
	r.nodes = 10000000;
	r.ask_gpus = 10000000;
	r.ask_min = 1000000000;
	for (i = 0; i < 5; i++)
		rep_add(rep, &r, "1", 1, "COMPLETED", 1e9, 1e9,
			"2026-11-02T10:00:00");
	autosize_report_finish(rep);
	assert_int_equal(autosize_report_totals_of(rep)->kept, 3);
	assert_int_equal(autosize_report_totals_of(rep)->over_cap, 2);
	assert_true(isfinite(autosize_report_totals_of(rep)->gpu_h_asked));
	autosize_report_destroy(rep);
}

static void test_report_ctld_lines(void **state)
{
	autosize_report *rep = autosize_report_create(NULL);
	const autosize_report_count *c;
	int n;

	assert_int_equal(autosize_report_ctld_line(rep, "[2026-11-03T10:00:"
		"00.000] lua: autosize: refused: reason=input "
		"what=--model-params uid=1000: --model-params: 'lots' is not"), 1);
	assert_int_equal(autosize_report_ctld_line(rep, "autosize: refused: "
		"reason=input what=--model-params uid=1001: x\n"), 1);
	/* words in the user's message after ": " are not the line's */
	assert_int_equal(autosize_report_ctld_line(rep, "autosize: refused: "
		"reason=unfit what=- uid=7: reason=internal what=<b>"), 1);
	assert_int_equal(autosize_report_ctld_line(rep, "autosize: refused: "
		"reason=<script> what=\x1b uid=7: x"), 1);
	assert_int_equal(autosize_report_ctld_line(rep, "autosize: 12 admin "
		"lines not logged (more than 60 a minute)"), 1);
	assert_int_equal(autosize_report_ctld_line(rep, "autosize: 3 "
		"sized-job lines not logged (more than 60 a minute)"), 1);
	assert_int_equal(autosize_report_ctld_line(rep, "autosize: uid 1 job "
		"x: nodes 1 -> 2"), 0);
	autosize_report_finish(rep);
	c = autosize_report_refusals(rep, &n);
	assert_int_equal(n, 3);
	assert_string_equal(c[0].code, "input --model-params");
	assert_int_equal(c[0].count, 2);
	assert_int_equal(autosize_report_totals_of(rep)->refusals, 4);
	assert_int_equal(autosize_report_totals_of(rep)->log_missed, 15);
	for (; n-- > 0;)
		assert_null(strpbrk(c[n].code, "<>\x1b"));
	autosize_report_destroy(rep);
}

/*
 * Issue 33: refusals made in sbatch reach no slurmctld: the SPANK plugin
 * logs them on the submit host's syslog with where=sbatch, read by the
 * same reader; the report's figures as Prometheus text (--metrics).
 */
static void test_report_submit_refusals_metrics(void **state)
{
	autosize_report *rep = autosize_report_create(NULL);
	autosize_record r;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(rep);
	assert_int_equal(autosize_report_ctld_line(rep, "Dec  6 10:00:00 "
		"login1 sbatch: autosize: refused: reason=input what=--model "
		"uid=1000 where=sbatch: unknown model 'llama3-70b': did you "
		"mean llama-3-70b?"), 1);
	assert_int_equal(autosize_report_ctld_line(rep, "autosize: refused: "
		"reason=unfit what=- uid=7: too big"), 1);
	rep_record(&r);
	rep_add(rep, &r, "1", 0.8, "COMPLETED", 3600, 7200,
		"2026-11-02T10:00:00");
	autosize_report_finish(rep);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(autosize_report_write_metrics(rep, f), 0);
	fclose(f);
	assert_non_null(strstr(text, "autosize_report_refusals{kind="
			       "\"sbatch input --model\"} 1\n"));
	assert_non_null(strstr(text, "autosize_report_refusals{kind="
			       "\"unfit\"} 1\n"));
	assert_non_null(strstr(text, "# TYPE autosize_report_jobs gauge\n"));
	assert_non_null(strstr(text, "autosize_report_jobs{kind=\"sized\"} "
			       "1\n"));
	assert_non_null(strstr(text, "autosize_report_speed_ratio{partition="
			       "\"gpu\",gpu=\"H100-SXM5-80GB\",framework=\""));
	assert_non_null(strstr(text, "q=\"0.5\"} 0.8\n"));
	free(text);
	autosize_report_destroy(rep);
}

static int metrics_cb(const void *ctx, FILE *f)
{
	return fputs(ctx, f) < 0 ? -1 : 0;
}

/* slurmctld's decision metrics: counters by action and reason, a
 * cumulative histogram; the file replaced whole, at most every N s. */
static void test_decision_metrics(void **state)
{
	char dir[] = "/tmp/autosize-metrics-XXXXXX", path[256], cmd[512];
	autosize_metrics m;
	autosize_decision d;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	autosize_metrics_init(&m);
	memset(&d, 0, sizeof(d));
	d.action = AUTOSIZE_ACTION_REWRITE;
	d.evaluated = 50;
	autosize_metrics_add(&m, &d, 0.00002);
	autosize_metrics_add(&m, &d, 0.003);
	d.action = AUTOSIZE_ACTION_REJECT;
	d.reason = "unfit";
	autosize_metrics_add(&m, &d, 2.0);
	d.reason = "limit";
	autosize_metrics_add(&m, &d, 2.0);
	d.reason = "something new";
	autosize_metrics_add(&m, &d, 2.0);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(autosize_metrics_write(&m, f), 0);
	fclose(f);
	assert_non_null(strstr(text, "autosize_decisions_total{action="
			       "\"rewrite\"} 2\n"));
	assert_non_null(strstr(text, "autosize_refusals_total{reason="
			       "\"unfit\"} 1\n"));
	assert_non_null(strstr(text, "autosize_refusals_total{reason="
			       "\"limit\"} 1\n"));
	assert_non_null(strstr(text, "autosize_refusals_total{reason="
			       "\"time\"} 0\n"));
	assert_non_null(strstr(text, "autosize_refusals_total{reason="
			       "\"other\"} 1\n"));
	assert_non_null(strstr(text, "autosize_decision_seconds_bucket{le="
			       "\"0.0001\"} 1\n"));
	assert_non_null(strstr(text, "autosize_decision_seconds_bucket{le="
			       "\"0.005\"} 2\n"));
	assert_non_null(strstr(text, "autosize_decision_seconds_bucket{le="
			       "\"1\"} 2\n"));
	assert_non_null(strstr(text, "autosize_decision_seconds_bucket{le="
			       "\"+Inf\"} 5\n"));
	assert_non_null(strstr(text, "autosize_decision_seconds_count 5\n"));
	assert_non_null(strstr(text, "autosize_layouts_evaluated_total 250"));
	free(text);
	/* written when due only; replaced whole, nothing left beside */
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/autosize.prom", dir);
	assert_int_equal(autosize_metrics_flush(&m, path, 100, 15), 1);
	assert_int_equal(autosize_metrics_flush(&m, path, 110, 15), 0);
	assert_int_equal(autosize_metrics_flush(&m, path, 116, 15), 1);
	assert_int_equal(autosize_write_file_atomic(path, metrics_cb, "x\n"),
			 0);
	snprintf(cmd, sizeof(cmd), "test \"$(cat %s)\" = x && test $(ls %s "
		 "| wc -l) = 1", path, dir);
	assert_int_equal(system(cmd), 0);
	/* a folder that cannot be written: -1, nothing left */
	snprintf(path, sizeof(path), "%s/no/such/autosize.prom", dir);
	assert_int_equal(autosize_write_file_atomic(path, metrics_cb, "x"),
			 -1);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* Hostile names and users: the text has no control bytes, the JSON
 * escapes markup and stays valid. */
static void test_report_writers_escape(void **state)
{
	autosize_report *rep = autosize_report_create(NULL);
	autosize_finished_job j;
	autosize_record r;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	rep_record(&r);
	autosize_finished_job_init(&j);
	snprintf(j.job_id, sizeof(j.job_id), "5");
	snprintf(j.user, sizeof(j.user), "<i>u</i>");
	snprintf(j.name, sizeof(j.name), "<b>x</b>&\"\x1b]0;pwn\x07\n");
	snprintf(j.state, sizeof(j.state), "TIMEOUT");
	j.elapsed_s = 60;
	j.time_limit_s = 60;
	r.has_measured = 1;
	r.m_tokens_per_s = r.tokens_per_s * 0.5;
	autosize_report_add(rep, &j, &r);
	autosize_report_finish(rep);
	f = open_memstream(&text, &len);
	assert_int_equal(autosize_report_write_text(rep, f, "t"), 0);
	fclose(f);
	assert_null(strchr(text, '\x1b'));
	assert_null(strchr(text, '\x07'));
	assert_non_null(strstr(text, "\"<b>x</b>&\"?]0;pwn??\""));
	free(text);
	f = open_memstream(&text, &len);
	assert_int_equal(autosize_report_write_json(rep, f, "t<"), 0);
	fclose(f);
	assert_null(strchr(text, '<'));
	assert_null(strchr(text, '\x1b'));
	assert_non_null(strstr(text, "\"name\":\"\\u003cb\\u003ex\\u003c/b"
			       "\\u003e\\u0026\\\"?]0;pwn??\""));
	assert_non_null(strstr(text, "\"report_version\":1,"));
	assert_non_null(strstr(text, "\"timeout\":true"));
	free(text);
	autosize_report_destroy(rep);
}

static int rep_sh(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* autosize report --sacct against a stand-in sacct that uses the
 * delimiter asked for: jobs, a name with '|' and markup, a step, and a
 * name with a newline whose second line forges a job in '|' form. */
static void test_cli_report_sacct(void **state)
{
	char dir[] = "/tmp/autosize-report-XXXXXX", cmd[4096], tok[1024];
	char *cli = realpath(test_build_dir(), NULL);
	autosize_record r;
	FILE *f;
	int i;

	assert_non_null(mkdtemp(dir));
	assert_non_null(cli);
	rep_record(&r);
	r.has_measured = 1;
	r.m_tokens_per_s = r.tokens_per_s * 0.7;
	r.m_lines = 3;
	assert_true(autosize_record_encode(&r, tok, sizeof(tok)) > 0);
	snprintf(cmd, sizeof(cmd), "%s/lines", dir);
	f = fopen(cmd, "w");
	assert_non_null(f);
	for (i = 0; i < 3; i++)
		fprintf(f, "%d@u%d@gpu@%s@01:00:00@%d@gres/gpu=%d@02:00:00@"
			"2026-11-03T10:00:00@2026-11-03T10:00:00@"
			"2026-11-03T11:00:00@%s@<b>x</b>&\"|%d\n"
			"%d.batch@u%d@gpu@COMPLETED@01:00:00@1@@@@@@@batch\n",
			100 + i, i, i ? "COMPLETED" : "TIMEOUT", r.nodes,
			r.nodes * r.gpus_per_node, tok, i, 100 + i, i);
	fprintf(f, "200@u9@gpu@COMPLETED@01:00:00@1@@@@@@@not "
		"sized\n9999|root|gpu|TIMEOUT|01:00:00|1|gres/gpu=8|02:00:00|||"
		"|%s|forged\n", tok);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "printf '#!/bin/sh\\nfor a; do case $a in "
		 "--delimiter=*) d=${a#--delimiter=};; esac; done\\n"
		 "sed \"s/@/$d/g\" %s/lines\\n' >%s/sacct && chmod +x "
		 "%s/sacct && PATH=%s:$PATH %s/autosize report --sacct "
		 "--starttime now-1day >%s/out 2>%s/err && "
		 "PATH=%s:$PATH %s/autosize report --sacct --json >%s/json "
		 "&& grep -q '4 jobs from sacct -S now-1day' %s/out && "
		 "grep -q '3 sized by autosize, 1 without' %s/out && "
		 "grep -q 'hit (TIMEOUT): 1 of 3 jobs' %s/out && "
		 "grep -q 'median 0.70' %s/out && "
		 "! grep -q forged %s/out %s/json && "
		 "grep -q '\"name\":\"\\\\u003cb' %s/json && "
		 "PATH=%s:$PATH %s/autosize report --sacct --html %s/page "
		 "&& ! grep -q '<b>' %s/page && ! grep -qi '<script' %s/page "
		 "&& grep -q '&lt;b&gt;x&lt;/b&gt;&amp;&quot;|0' %s/page",
		 dir, dir, dir, dir, cli, dir, dir, dir, cli, dir, dir, dir,
		 dir, dir, dir, dir, dir, dir, cli, dir, dir, dir, dir);
	if (rep_sh(cmd) != 0) {
		snprintf(cmd, sizeof(cmd), "cat %s/out %s/err %s/json; grep -o "
			 "'.\\{20\\}x&lt;.\\{40\\}' %s/page", dir, dir, dir,
			 dir);
		rep_sh(cmd);
		fail_msg("report --sacct");
	}
	/* no input, --json with --html, a bad --max-jobs: usage errors */
	snprintf(cmd, sizeof(cmd), "%s/autosize report 2>/dev/null; "
		 "test $? = 2 && %s/autosize report --json --html x f "
		 "2>/dev/null; test $? = 2 && %s/autosize report --max-jobs "
		 "0 f 2>/dev/null; test $? = 2", cli, cli, cli);
	assert_int_equal(rep_sh(cmd), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(rep_sh(cmd), 0);
	free(cli);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_warning_codes),
		cmocka_unit_test(test_warning_codes_of_plans),
		cmocka_unit_test(test_record_extras),
		cmocka_unit_test(test_decide_records_ask_and_warnings),
		cmocka_unit_test(test_sacct_line),
		cmocka_unit_test(test_sacct_time),
		cmocka_unit_test(test_iso_week),
		cmocka_unit_test(test_json_line_extras),
		cmocka_unit_test(test_report_figures),
		cmocka_unit_test(test_report_any_case),
		cmocka_unit_test(test_report_interrupted),
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_report_cap),
		cmocka_unit_test(test_report_ctld_lines),
		cmocka_unit_test(test_report_submit_refusals_metrics),
		cmocka_unit_test(test_decision_metrics),
		cmocka_unit_test(test_report_writers_escape),
		cmocka_unit_test(test_cli_report_sacct),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
