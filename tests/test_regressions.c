/*
 * Replays every fuzzing input kept in the tree through the same targets
 * as the libFuzzer harnesses (tests/fuzz/targets.h), with any compiler:
 * the crashes found (tests/fuzz/regressions/<harness>/) and the seeds
 * (tests/fuzz/corpus/<harness>/). A broken invariant fails the test.
 */
#include <dirent.h>
#include <sys/stat.h>
#include "testutil.h"

static char replay_file[512];
#define FUZZ_FAIL(...) \
	fail_msg("%s: " __VA_ARGS__, replay_file)
#include "fuzz/targets.h"
#include "bench/hostile.h"

#define REPLAY_MAX_BYTES (1024 * 1024)

typedef void (*replay_target)(const uint8_t *data, size_t size);

/* Feed every regular file of dir to target; returns how many. */
static int replay_dir(const char *dir, replay_target target)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	static uint8_t buf[REPLAY_MAX_BYTES];
	int count = 0;

	if (!d)
		return 0;   /* a harness with no regressions yet */
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		FILE *f;
		size_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(replay_file, sizeof(replay_file), "%s/%s", dir,
			 de->d_name);
		if (stat(replay_file, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		f = fopen(replay_file, "rb");
		assert_non_null(f);
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		target(buf, n);
		count++;
	}
	closedir(d);
	return count;
}

static void replay(const char *harness, replay_target target)
{
	char dir[256];
	int found, seeds;

	snprintf(dir, sizeof(dir), "tests/fuzz/regressions/%s", harness);
	found = replay_dir(dir, target);
	snprintf(dir, sizeof(dir), "tests/fuzz/corpus/%s", harness);
	seeds = replay_dir(dir, target);
	printf("fuzz_%s: %d regression inputs, %d seeds replayed\n",
	       harness, found, seeds);
	assert_true(seeds > 0);
}

static void test_parse(void **state) { replay("parse", fuzz_parse_target); }
static void test_json(void **state) { replay("json", fuzz_json_target); }
static void test_yaml(void **state) { replay("yaml", fuzz_yaml_target); }
static void test_jobenv(void **state)
{
	replay("jobenv", fuzz_jobenv_target);
}
static void test_plan(void **state) { replay("plan", fuzz_plan_target); }

static void replay_decide(const uint8_t *data, size_t size)
{
	static char wide[16384];
	static size_t wide_len;

	if (!wide_len)
		wide_len = hostile_policy_text(wide, sizeof(wide));
	fuzz_decide_target(data, size, wide, wide_len);
}

static void test_decide(void **state) { replay("decide", replay_decide); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_yaml),
		cmocka_unit_test(test_jobenv),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_decide),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
