/*
 * Tests: running a command without a shell (util/spawn.c): its output
 * read back whole, its exit status, a command that cannot be run, a
 * path run as given (no PATH search) and arguments never seen by a shell.
 */
#include <errno.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include "testutil.h"
#include "autosize/spawn.h"

/* Run argv with flags; its standard output into out, its status back. */
static int run(char *const argv[], int flags, char *out, size_t len)
{
	size_t used = 0;
	ssize_t n;
	int fd;
	pid_t pid = autosize_spawn(argv, flags, &fd);

	assert_true(pid > 0);
	while (used + 1 < len && (n = read(fd, out + used,
					   len - 1 - used)) > 0)
		used += (size_t)n;
	out[used] = '\0';
	close(fd);
	return autosize_reap(pid);
}

static void test_output_and_status(void **state)
{
	char *echo[] = {"echo", "one", "two words", NULL};
	char *fail[] = {"sh", "-c", "exit 3", NULL};
	char out[128];

	(void)state;
	assert_int_equal(run(echo, AUTOSIZE_SPAWN_PATH, out, sizeof(out)), 0);
	assert_string_equal(out, "one two words\n");
	assert_int_equal(run(fail, AUTOSIZE_SPAWN_PATH, out, sizeof(out)), 3);
	assert_string_equal(out, "");
}

/* No shell between: a ; or $() in an argument is text. */
static void test_no_shell(void **state)
{
	char *echo[] = {"echo", "a; touch /tmp/autosize-spawn-x", "$(id)",
			NULL};
	char out[128];

	(void)state;
	unlink("/tmp/autosize-spawn-x");
	assert_int_equal(run(echo, AUTOSIZE_SPAWN_PATH, out, sizeof(out)), 0);
	assert_string_equal(out, "a; touch /tmp/autosize-spawn-x $(id)\n");
	assert_int_equal(access("/tmp/autosize-spawn-x", F_OK), -1);
}

/* Without AUTOSIZE_SPAWN_PATH argv[0] is a path: "echo" alone is not
 * found (127), /bin/echo is; a missing command exits 127 either way. */
static void test_path_and_missing(void **state)
{
	char *bare[] = {"echo", "x", NULL};
	char *full[] = {"/bin/echo", "x", NULL};
	char *missing[] = {"autosize-no-such-command", NULL};
	char out[64];

	(void)state;
	assert_int_equal(run(bare, AUTOSIZE_SPAWN_QUIET, out, sizeof(out)),
			 127);
	assert_string_equal(out, "");
	assert_int_equal(run(full, 0, out, sizeof(out)), 0);
	assert_string_equal(out, "x\n");
	assert_int_equal(run(missing, AUTOSIZE_SPAWN_PATH |
			     AUTOSIZE_SPAWN_QUIET, out, sizeof(out)), 127);
}

/* A child killed by a signal did not exit: -1, as for a pid not ours. */
static void test_reap_signal(void **state)
{
	char *self_kill[] = {"sh", "-c", "kill -9 $$", NULL};
	char out[16];

	(void)state;
	assert_int_equal(run(self_kill, AUTOSIZE_SPAWN_PATH, out,
			     sizeof(out)), -1);
	assert_int_equal(autosize_reap(1), -1);
}

/* A child still running at the deadline is killed and reaped: -1, and no
 * such process after; one that exits in time gives its status. */
static void test_reap_by(void **state)
{
	char *sleeper[] = {"sleep", "30", NULL};
	char *quick[] = {"sh", "-c", "exit 5", NULL};
	pid_t pid;
	int fd;

	(void)state;
	pid = autosize_spawn(sleeper, AUTOSIZE_SPAWN_PATH, &fd);
	assert_true(pid > 0);
	close(fd);
	assert_int_equal(autosize_reap_by(pid, time(NULL) + 1), -1);
	assert_int_equal(kill(pid, 0), -1);
	assert_int_equal(errno, ESRCH);
	pid = autosize_spawn(quick, AUTOSIZE_SPAWN_PATH, &fd);
	assert_true(pid > 0);
	close(fd);
	assert_int_equal(autosize_reap_by(pid, time(NULL) + 30), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_output_and_status),
		cmocka_unit_test(test_no_shell),
		cmocka_unit_test(test_path_and_missing),
		cmocka_unit_test(test_reap_signal),
		cmocka_unit_test(test_reap_by),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
