/* Unit tests: number, duration, fraction and choice parsers. */
#include "testutil.h"
#include "autosize.h"

static void test_counts_good(void **state)
{
	static const struct { const char *text; double want; } cases[] = {
		{"70e9", 70e9}, {"70B", 70e9}, {"7.5b", 7.5e9}, {"2T", 2e12},
		{"2e12", 2e12}, {"1.5M", 1.5e6}, {"350k", 350e3},
		{"13000000000", 13e9}, {"1E3", 1e3}, {"2.5e+3", 2500},
		{"7G", 7e9},
	};
	size_t i;
	double v;
	autosize_error e;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(autosize_parse_count(cases[i].text, "--x", &v,
						      &e), AUTOSIZE_OK);
		assert_true(fabs(v - cases[i].want) <= 1e-9 * cases[i].want);
	}
}

static void test_counts_bad(void **state)
{
	static const char *const bad[] = {
		"", "-70e9", "0", "0.5", "nan", "inf", "1e400", "0x10",
		"70e9x", "70 B", "70BB", "B", ".", "1e", "1e+", "+5",
		"70e9\n", "7\x01", "1e19", "--1",
	};
	char digits[10001];
	size_t i;
	double v = 42;
	autosize_error e;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(autosize_parse_count(bad[i], "--model-params",
						      &v, &e), AUTOSIZE_EINVAL);
		/* The message names the option, is one line. */
		assert_non_null(strstr(e.msg, "--model-params"));
		assert_null(strchr(e.msg, '\n'));
	}
	memset(digits, '9', sizeof(digits) - 1);
	digits[sizeof(digits) - 1] = '\0';
	assert_int_equal(autosize_parse_count(digits, "--x", &v, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "longer than"));
	assert_int_equal(v, 42);   /* untouched on error */
}

static void test_ints(void **state)
{
	long v;
	autosize_error e;

	assert_int_equal(autosize_parse_int("8", "--tp", 1, 64, &v, &e), 0);
	assert_int_equal(v, 8);
	assert_int_equal(autosize_parse_int("4k", "--n", 1, 1e6, &v, &e), 0);
	assert_int_equal(v, 4000);
	assert_int_equal(autosize_parse_int("1.5", "--tp", 1, 64, &v, &e),
			 AUTOSIZE_EINVAL);
	assert_int_equal(autosize_parse_int("65", "--tp", 1, 64, &v, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "1..64"));
	assert_int_equal(autosize_parse_int("0", "--zero", 0, 3, &v, &e), 0);
	assert_int_equal(v, 0);
}

static void test_durations(void **state)
{
	static const struct { const char *text; double s; } good[] = {
		{"10d", 864000}, {"36h", 129600}, {"90m", 5400},
		{"45s", 45}, {"2w", 1209600}, {"1d12h", 129600},
		{"1.5d", 129600}, {"90", 5400}, {"90:30", 5430},
		{"1:30:00", 5400}, {"2-12", 216000},
		{"2-12:30", 217800}, {"2-12:00:00", 216000},
		{"0-00:00:01", 1},
	};
	static const char *const bad[] = {
		"", "0", "0d", "-1d", "10x", "d", "1:2:3:4", "1-", "-5",
		"1d-", "nan", "inf", "1e400d", "200000d", "1::2", "10 d",
		"2-12:00:00x", "1-2-3",
	};
	size_t i;
	double s;
	autosize_error e;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(autosize_parse_duration(good[i].text, "--t",
							 &s, &e), 0);
		assert_true(fabs(s - good[i].s) < 1e-6);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(autosize_parse_duration(bad[i], "--train-time",
							 &s, &e),
				 AUTOSIZE_EINVAL);
		assert_non_null(strstr(e.msg, "--train-time"));
	}
}

static void test_fraction_choice_format(void **state)
{
	static const char *const words[] = {"ib", "roce", "ethernet", NULL};
	double f;
	int k;
	char buf[32];
	autosize_error e;

	assert_int_equal(autosize_parse_fraction("0.2", "--r", 0, 0.9, &f, &e),
			 0);
	assert_true(fabs(f - 0.2) < 1e-12);
	assert_int_equal(autosize_parse_fraction("20%", "--r", 0, 0.9, &f, &e),
			 0);
	assert_true(fabs(f - 0.2) < 1e-12);
	assert_int_equal(autosize_parse_fraction("0.95", "--r", 0, 0.9, &f,
						 &e), AUTOSIZE_EINVAL);
	assert_int_equal(autosize_parse_choice("RoCE", "--net", words, &k, &e),
			 0);
	assert_int_equal(k, 1);
	assert_int_equal(autosize_parse_choice("tcp", "--net", words, &k, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "ib|roce|ethernet"));
	assert_string_equal(autosize_format_duration(216000, buf, sizeof(buf)),
			    "2-12:00:00");
	assert_string_equal(autosize_format_duration(5400, buf, sizeof(buf)),
			    "01:30:00");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_good),
		cmocka_unit_test(test_counts_bad),
		cmocka_unit_test(test_ints),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_fraction_choice_format),
	};

	return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}
