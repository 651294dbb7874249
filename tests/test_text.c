/* Tests: the shared text rules (util/): UTF-8 checks, the one JSON
 * string writer every JSON output uses, and job liveness
 * (core/jobstate.c). Well-formed UTF-8 is judged by glibc's C.UTF-8
 * decoder (mbstowcs), not by the code under test. */
#include <locale.h>
#include <wchar.h>
#include "testutil.h"
#include "autosize/jobstate.h"
#include "autosize/plan.h"
#include "date.h"
#include "json_write.h"
#include "utf8.h"

/* 1 when s is well-formed UTF-8 by the C library's decoder. */
static int libc_utf8(const char *s)
{
	return mbstowcs(NULL, s, 0) != (size_t)-1;
}

static void test_utf8_seq_len(void **state)
{
	static const struct {
		const char *s;
		int n;
	} cases[] = {
		{"a", 1}, {"\x7f", 1}, {"\xc2\xa9", 2}, {"\xe2\x82\xac", 3},
		{"\xf0\x9f\x98\x80", 4}, {"\xff", 0}, {"\x80", 0},
		{"\xc0\xaf", 0},                 /* overlong '/' */
		{"\xe0\x80\xaf", 0},             /* overlong, 3 bytes */
		{"\xed\xa0\x80", 0},             /* surrogate U+D800 */
		{"\xf4\x90\x80\x80", 0},         /* past U+10FFFF */
		{"\xe2\x82", 0},                 /* cut short */
		{"", 0},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(utf8_seq_len(cases[i].s), cases[i].n);
	assert_int_equal(utf8_decode("\xe2\x82\xac", 2, NULL), 0);
	assert_true(utf8_is_control(0x1b));
	assert_true(utf8_is_control(0x9b));
	assert_false(utf8_is_control(0xa0));
}

static void test_safe_text(void **state)
{
	char out[16];

	utf8_safe_text("a\x1b[2Jb\x7f\xc2\x9b\xff\xe2\x82\xac", out,
		       sizeof(out));
	assert_string_equal(out, "a?[2Jb????\xe2\x82\xac");
	/* cut on a character boundary */
	utf8_safe_text("abcdefghijklm\xe2\x82\xac", out, 16);
	assert_string_equal(out, "abcdefghijklm");
}

/* The writer's text for s into a fresh buffer. */
static const char *json_of(const char *s, unsigned flags)
{
	static char buf[256];
	size_t used = 0;

	json_write_str(buf, sizeof(buf), &used, s, flags);
	assert_int_equal(used, strlen(buf));
	return buf;
}

static void test_json_write(void **state)
{
	char small[8], *file = NULL;
	size_t used = 0, flen = 0;
	FILE *f;

	assert_string_equal(json_of("a\"b\\c", 0), "\"a\\\"b\\\\c\"");
	assert_string_equal(json_of("t\tn\n\x01", 0),
			    "\"t\\u0009n\\u000a\\u0001\"");
	assert_string_equal(json_of("<&>", 0), "\"<&>\"");
	assert_string_equal(json_of("<&>", JSON_WRITE_HTML),
			    "\"\\u003c\\u0026\\u003e\"");
	/* valid UTF-8 kept byte for byte, each invalid byte U+FFFD */
	assert_string_equal(json_of("caf\xc3\xa9 \xe2\x82\xac", 0),
			    "\"caf\xc3\xa9 \xe2\x82\xac\"");
	assert_string_equal(json_of("llama\xff", 0),
			    "\"llama\xef\xbf\xbd\"");
	assert_string_equal(json_of("\xc0\xaf\xed\xa0\x80x", 0),
			    "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
			    "\xef\xbf\xbdx\"");
	assert_true(libc_utf8(json_of("\xe2\x82 \x80\xf4\x90\x80\x80", 0)));
	/* counts past the end, as snprintf does; stays terminated */
	json_write_str(small, sizeof(small), &used, "abcdefghij", 0);
	assert_int_equal(used, 12);
	assert_string_equal(small, "\"abcdef");
	/* the FILE form writes the same bytes */
	f = open_memstream(&file, &flen);
	assert_non_null(f);
	json_write_str_file(f, "x\xff<", JSON_WRITE_HTML);
	fclose(f);
	assert_string_equal(file, "\"x\xef\xbf\xbd\\u003c\"");
	free(file);
}

/* A plan's strings come out valid UTF-8: the reason quotes what the
 * user gave (an unknown framework here is not; a preset name is). */
static void test_plan_json_utf8(void **state)
{
	static char json[65536];
	autosize_plan p;

	memset(&p, 0, sizeof(p));
	snprintf(p.reason, sizeof(p.reason), "no partition 'h\xff\xfe'");
	assert_true(autosize_plan_to_json(&p, json, sizeof(json)) > 0);
	assert_true(libc_utf8(json));
	assert_non_null(strstr(json, "\"reason\":\"no partition "
			       "'h\xef\xbf\xbd\xef\xbf\xbd'\""));
	assert_int_equal(strncmp(json, "{\"schema_version\":1,", 20), 0);
	assert_int_equal(AUTOSIZE_PLAN_JSON_SCHEMA, 1);
}

/* Every state name Slurm 22.05 to 26.05 gives a job
 * (job_state_string, sacct): live or ended. */
static void test_job_state_live(void **state)
{
	static const char *const live[] = {
		"PENDING", "RUNNING", "SUSPENDED", "COMPLETING", "STAGE_OUT",
		"CONFIGURING", "POWER_UP_NODE", "EXPEDITING", "RESIZING",
		"REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "SPECIAL_EXIT",
		"RESV_DEL_HOLD", "STOPPED", "SIGNALING",
		"COMPLETED,COMPLETING", "RUNNING,POWER_UP_NODE", NULL
	};
	static const char *const ended[] = {
		"COMPLETED", "CANCELLED", "CANCELLED by 1000", "FAILED",
		"TIMEOUT", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE",
		"OUT_OF_MEMORY", "REVOKED", "COMPLETED,LAUNCH_FAILED", "?",
		"", "PENDINGX", "PEND", "running", NULL
	};
	int i;

	for (i = 0; live[i]; i++)
		if (!autosize_job_state_live(live[i]))
			fail_msg("%s: not live", live[i]);
	for (i = 0; ended[i]; i++)
		if (autosize_job_state_live(ended[i]))
			fail_msg("%s: live", ended[i]);
	assert_false(autosize_job_state_live(NULL));
}

/* Civil dates over libc: sacct's times, ISO weeks at year edges. */
static void test_dates(void **state)
{
	static const struct {
		const char *day, *week, *monday;
	} w[] = {
		{"2020-12-31T23:59:59", "2020-W53", "2020-12-28T00:00:00"},
		{"2021-01-03T12:00:00", "2020-W53", "2020-12-28T00:00:00"},
		{"2021-01-04T00:00:00", "2021-W01", "2021-01-04T00:00:00"},
		{"2024-12-30T08:00:00", "2025-W01", "2024-12-30T00:00:00"},
		{"2026-11-05T10:00:00", "2026-W45", "2026-11-02T00:00:00"},
		{"1970-01-01T00:00:00", "1970-W01", "1969-12-29T00:00:00"},
	};
	char buf[32], t[32];
	long long monday;
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		date_iso_week(date_parse(w[i].day), buf, sizeof(buf), &monday);
		assert_string_equal(buf, w[i].week);
		if (monday > 0) {
			date_time(monday, t, sizeof(t));
			assert_string_equal(t, w[i].monday);
		}
	}
	assert_int_equal(date_parse("1970-01-02T00:00:01"), 86401);
	/* a 31st of a short month and a leap second carry over */
	date_time(date_parse("2026-02-31T00:00:00"), t, sizeof(t));
	assert_string_equal(t, "2026-03-03T00:00:00");
	assert_int_equal(date_parse("2026-01-01T23:59:60"),
			 date_parse("2026-01-02T00:00:00"));
	assert_int_equal(date_parse("Unknown"), 0);
	assert_int_equal(date_parse("1969-12-31T00:00:00"), 0);
	assert_int_equal(date_parse("2026-11-03T12:00:00x"), 0);
	date_time(0, t, sizeof(t));
	assert_string_equal(t, "");
	assert_int_equal(date_day(date_parse("2026-11-03T12:00:00"), t,
				  sizeof(t)), 0);
	assert_string_equal(t, "2026-11-03");
	assert_int_equal(date_day(1e18, t, sizeof(t)), -1);
	assert_string_equal(t, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_seq_len),
		cmocka_unit_test(test_safe_text),
		cmocka_unit_test(test_json_write),
		cmocka_unit_test(test_plan_json_utf8),
		cmocka_unit_test(test_job_state_live),
		cmocka_unit_test(test_dates),
	};

	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
