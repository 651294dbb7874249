/*
 * Tests: the calibration attacks of an unprivileged-user attack run,
 * replayed against the calibrator (core/calibrate*.c): sockpuppet
 * accounts with impossible jobs, a minority of accounts against 20
 * honest users, a narrow group taken over by puppets, and a flood of
 * reports ahead of the honest ones (scaled down 10x, same order and
 * ratio).
 */
#include "testutil.h"
#include <malloc.h>
#include "autosize.h"
#include "autosize/calibration_input.h"
#include "autosize/calibration_learn.h"

#define POLICY "contrib/testbed/autosize.yaml"

/* The policy, and the 7B plan on its H100 partition as a record. */
typedef struct att_site {
	autosize_policy *p;
	autosize_record mega, ds;  /* megatron and deepspeed plans */
} att_site;

static void att_plan(autosize_policy *p, const char *fw, autosize_record *r)
{
	autosize_request q;
	autosize_plan plan;
	autosize_error e;

	autosize_request_init(&q);
	assert_int_equal(autosize_request_set(&q, "model-params", "7e9", &e),
			 0);
	assert_int_equal(autosize_request_set(&q, "train-tokens", "2e9", &e),
			 0);
	assert_int_equal(autosize_request_set(&q, "partition", "gpu", &e), 0);
	assert_int_equal(autosize_request_set(&q, "train-framework", fw, &e),
			 0);
	assert_int_equal(autosize_request_finish(&q, &e), 0);
	if (autosize_plan_compute(p, &q, &plan, &e) != AUTOSIZE_OK)
		fail_msg("plan: %s", e.msg);
	autosize_record_from_plan(&plan, r);
}

static void att_site_init(att_site *s)
{
	autosize_error e;

	s->p = autosize_policy_load(POLICY, &e);
	if (!s->p)
		fail_msg("%s", e.msg);
	att_plan(s->p, "megatron", &s->mega);
	att_plan(s->p, "deepspeed", &s->ds);
}

/* A calibrator checking against the site's GPUs; max_step <= 1:
 * unbounded. */
static autosize_calibrator *att_calibrator(const att_site *s,
					   double max_step,
					   const autosize_calibration *prev)
{
	autosize_cal_options o;

	autosize_cal_options_init(&o);
	o.catalog = autosize_policy_catalog(s->p);
	o.max_step = max_step;
	o.previous = prev;
	return autosize_calibrator_create(&o);
}

/* One job of user: plan r measured at ratio x its speed,
 * its memory as planned, 10 report lines, elapsed_s long. */
static int att_job(autosize_calibrator *k, const char *user,
		   const autosize_record *plan, double ratio,
		   double elapsed_s)
{
	autosize_record r = *plan;

	r.has_measured = 1;
	r.m_tokens_per_s = plan->tokens_per_s * ratio;
	r.m_mem_bytes = plan->alloc_bytes;
	r.m_lines = 10;
	return autosize_calibrator_add(k, user, &r, "COMPLETED", elapsed_s);
}

/* n users named prefix00.., jobs each at ratio (+-1% by job). */
static void att_users(autosize_calibrator *k, const char *prefix, int n,
		      int jobs, const autosize_record *plan, double ratio)
{
	char user[32];
	int u, j;

	for (u = 0; u < n; u++)
		for (j = 0; j < jobs; j++) {
			snprintf(user, sizeof(user), "%s%02d", prefix, u);
			assert_int_equal(att_job(k, user, plan, ratio *
				(1 + 0.01 * ((j + u) % 3 - 1)), 7200), 1);
		}
}

static const autosize_cal_entry *att_find(const autosize_calibration *c,
					  const autosize_record *r)
{
	return autosize_calibration_find(c, r->partition, r->gpu,
					 r->framework, r->nodes *
					 r->gpus_per_node);
}

/* atk1-3, 3 jobs each of 0-1 s at 2.95x (was: speed_factor 2.95 and
 * memory_factor 2.95): nothing used. Run long enough, 2.95x is an MFU
 * no GPU reaches: still nothing. */
static void test_attack_short_puppets(void **state)
{
	autosize_calibrator *k;
	autosize_calibration *c;
	autosize_record r;
	autosize_error e;
	att_site s;
	char user[8], summary[512];
	int i, pass;

	att_site_init(&s);
	for (pass = 0; pass < 2; pass++) {
		k = att_calibrator(&s, 0, NULL);
		for (i = 0; i < 9; i++) {
			snprintf(user, sizeof(user), "atk%d", i % 3 + 1);
			r = s.mega;
			r.has_measured = 1;
			r.m_tokens_per_s = r.tokens_per_s * 2.95;
			r.m_lines = 3;
			assert_int_equal(autosize_calibrator_add(k, user, &r,
				"COMPLETED", pass ? 7200 : i % 2), 0);
		}
		c = autosize_calibrator_result(k, &e);
		assert_non_null(c);
		assert_int_equal(autosize_calibration_count(c), 0);
		autosize_calibrator_summary(k, summary, sizeof(summary));
		if (!strstr(summary, pass ? "9 speed above the GPU's MFU "
			    "ceiling" : "elapsed time under --min-run"))
			fail_msg("summary: %s", summary);
		autosize_calibration_destroy(c);
		autosize_calibrator_destroy(k);
	}
	/* a report of steps the job had no time for */
	k = att_calibrator(&s, 0, NULL);
	r = s.mega;
	r.has_measured = 1;
	r.m_tokens_per_s = r.tokens_per_s;
	r.m_lines = 200;    /* 8 ranks, 25 steps of ~37 s in 10 minutes */
	assert_int_equal(autosize_calibrator_add(k, "u", &r, "COMPLETED",
						 600), 0);
	assert_int_equal(autosize_calibrator_add(k, "u", &r, "FAILED",
						 86400), 0);
	assert_int_equal(autosize_calibrator_add(k, "u", &r, NULL, 86400), 0);
	assert_int_equal(autosize_calibrator_add(k, "u", &r, "COMPLETED",
						 86400), 1);
	autosize_calibrator_summary(k, summary, sizeof(summary));
	assert_non_null(strstr(summary, "elapsed time shorter than the steps "
			       "reported"));
	assert_non_null(strstr(summary, "no job state"));
	autosize_calibrator_destroy(k);
	autosize_policy_destroy(s.p);
}

/* 3 puppets with physically possible jobs (1.3x, 50 jobs each) against
 * 20 honest users at 0.9945x: the honest median holds. */
static void test_attack_minority(void **state)
{
	autosize_calibrator *k;
	autosize_calibration *c;
	const autosize_cal_entry *x;
	autosize_error e;
	att_site s;

	att_site_init(&s);
	k = att_calibrator(&s, 0, NULL);
	att_users(k, "atk", 3, 50, &s.mega, 1.3);
	att_users(k, "hon", 20, 5, &s.mega, 0.9945);
	c = autosize_calibrator_result(k, &e);
	assert_non_null(c);
	x = att_find(c, &s.mega);
	assert_non_null(x);
	assert_int_equal(x->users, 23);
	if (fabs(x->speed_factor / 0.9945 - 1) > 0.011)
		fail_msg("factor %.4f, want 0.9945 (+-1%%)", x->speed_factor);
	autosize_calibration_destroy(c);
	autosize_calibrator_destroy(k);
	autosize_policy_destroy(s.p);
}

/* 20 honest Megatron users, 2 honest DeepSpeed users, 3 DeepSpeed
 * puppets at 0.21x (was: deepspeed 0.21 beside any 0.9945). The narrow
 * factor moves from the broad one by 5/(5+8) of the way in log space;
 * with the default bound, at most 1.25x from the model. */
static void test_attack_narrow(void **state)
{
	const autosize_cal_entry *any, *ds;
	autosize_calibrator *k;
	autosize_calibration *c;
	autosize_error e;
	att_site s;
	double want, w = 5.0 / (5 + AUTOSIZE_CAL_SHRINK_USERS);
	int bounded;

	att_site_init(&s);
	assert_string_equal(s.ds.framework, "deepspeed");
	for (bounded = 0; bounded < 2; bounded++) {
		k = att_calibrator(&s, bounded ? AUTOSIZE_CAL_MAX_STEP : 0,
				   NULL);
		att_users(k, "hon", 20, 5, &s.mega, 0.9945);
		att_users(k, "dsh", 2, 5, &s.ds, 1.0);
		att_users(k, "atk", 3, 5, &s.ds, 0.21);
		c = autosize_calibrator_result(k, &e);
		assert_non_null(c);
		any = autosize_calibration_find(c, "gpu", s.mega.gpu, "fsdp",
						0);
		ds = att_find(c, &s.ds);
		assert_non_null(any);
		assert_non_null(ds);
		assert_string_equal(any->framework, "any");
		assert_string_equal(ds->framework, "deepspeed");
		/* the raw narrow median is a puppet's 0.21 */
		want = exp(w * log(0.21) + (1 - w) * log(any->speed_factor));
		if (!bounded && fabs(ds->speed_factor / want - 1) > 0.011)
			fail_msg("deepspeed %.4f, want %.4f", ds->speed_factor,
				 want);
		if (bounded && fabs(ds->speed_factor -
				    1 / AUTOSIZE_CAL_MAX_STEP) > 1e-9)
			fail_msg("bounded deepspeed %.4f, want 0.8",
				 ds->speed_factor);
		assert_true(ds->speed_low <= ds->speed_factor &&
			    ds->speed_factor <= ds->speed_high);
		autosize_calibration_destroy(c);
		autosize_calibrator_destroy(k);
	}
	autosize_policy_destroy(s.p);
}

/* 210,000 puppet reports first, then 40 from 20 honest users (the
 * attack's 2.1 M then 400, scaled 10x down; was: users 3, factor 0.25,
 * 535 MB): the honest factor, the same in the other order, and the
 * heap grows by at most the 3 + 20 slots (32 jobs each), not by the
 * reports. */
static void test_attack_volume(void **state)
{
	const autosize_cal_entry *x;
	autosize_calibrator *k;
	autosize_calibration *c;
	autosize_error e;
	att_site s;
	struct mallinfo2 m0, m1;
	double factor[2];
	char user[8], summary[512];
	int order, i;

	att_site_init(&s);
	for (order = 0; order < 2; order++) {
		k = att_calibrator(&s, 0, NULL);
		m0 = mallinfo2();
		if (order)
			att_users(k, "hon", 20, 2, &s.mega, 1.0);
		for (i = 0; i < 210000; i++) {
			snprintf(user, sizeof(user), "atk%d", i % 3 + 1);
			assert_int_equal(att_job(k, user, &s.mega, 0.25,
						 7200), 1);
		}
		if (!order)
			att_users(k, "hon", 20, 2, &s.mega, 1.0);
		m1 = mallinfo2();
		if (m1.uordblks > m0.uordblks + 23 * 2048 + 300000)
			fail_msg("heap grew by %zu bytes",
				 m1.uordblks - m0.uordblks);
		c = autosize_calibrator_result(k, &e);
		assert_non_null(c);
		x = att_find(c, &s.mega);
		assert_non_null(x);
		assert_int_equal(x->users, 23);
		assert_int_equal(x->jobs, 3 * 32 + 40);
		factor[order] = x->speed_factor;
		if (fabs(x->speed_factor - 1) > 0.011)
			fail_msg("factor %.4f, want the honest 1.0",
				 x->speed_factor);
		autosize_calibrator_summary(k, summary, sizeof(summary));
		assert_non_null(strstr(summary, "209904 jobs sampled over"));
		autosize_calibration_destroy(c);
		autosize_calibrator_destroy(k);
	}
	assert_true(factor[0] == factor[1]);
	autosize_policy_destroy(s.p);
}

/* Puppets that pass every check and are the only users move the factor
 * 1.25x per update at most, and the change names them. */
static void test_attack_bounded(void **state)
{
	autosize_calibration *c[3] = { NULL, NULL, NULL };
	const autosize_cal_entry *x;
	autosize_calibrator *k;
	autosize_error e;
	const char *line;
	att_site s;
	double want[3] = { 1.25, 1.3, 1.3 };
	int run;

	att_site_init(&s);
	for (run = 0; run < 2; run++) {
		k = att_calibrator(&s, AUTOSIZE_CAL_MAX_STEP,
				   run ? c[0] : NULL);
		att_users(k, "atk", 3, 3, &s.mega, 1.3);
		c[run] = autosize_calibrator_result(k, &e);
		assert_non_null(c[run]);
		x = att_find(c[run], &s.mega);
		assert_non_null(x);
		if (fabs(x->speed_factor / want[run] - 1) > 0.011)
			fail_msg("run %d: %.4f, want %.2f", run,
				 x->speed_factor, want[run]);
		line = autosize_calibrator_change(k, 0);
		assert_non_null(line);
		if (!strstr(line, run ? "speed 1.250 -> 1.3" :
			    "speed 1.000 -> 1.250 (wanted 1.3") ||
		    !strstr(line, "9 jobs of 3 users: atk00 3, atk01 3, "
			    "atk02 3"))
			fail_msg("change: %s", line);
		assert_null(autosize_calibrator_change(k, 1));
		autosize_calibrator_destroy(k);
	}
	autosize_calibration_destroy(c[0]);
	autosize_calibration_destroy(c[1]);
	autosize_policy_destroy(s.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attack_short_puppets),
		cmocka_unit_test(test_attack_minority),
		cmocka_unit_test(test_attack_narrow),
		cmocka_unit_test(test_attack_volume),
		cmocka_unit_test(test_attack_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
