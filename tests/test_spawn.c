/*
 * Tests: running a command without a shell (util/spawn.c): its output,
 * read back whole, its exit status, a command that cannot be run, a
 * path run as given (no PATH search) and arguments never seen by a shell.
 */
#include <errno.h>
#include <fcntl.h>
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
 * found, /bin/echo is. A command that cannot be started is said by
 * autosize_spawn (-1, errno), not by a child. */
static void test_path_and_missing(void **state)
{
	char *bare[] = {"echo", "x", NULL};
	char *full[] = {"/bin/echo", "x", NULL};
	char *missing[] = {"autosize-no-such-command", NULL};
	char out[64];
	int fd;

	(void)state;
	errno = 0;
	assert_int_equal(autosize_spawn(bare, AUTOSIZE_SPAWN_QUIET, &fd), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(run(full, 0, out, sizeof(out)), 0);
	assert_string_equal(out, "x\n");
	assert_int_equal(autosize_run("autosize-no-such-command", missing,
				      AUTOSIZE_SPAWN_PATH |
				      AUTOSIZE_SPAWN_QUIET, 0, out,
				      sizeof(out), NULL),
			 AUTOSIZE_RUN_NOT_RUN);
	assert_int_equal(errno, ENOENT);
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

/* The command's standard input is /dev/null (it never reads the
 * caller's), and it holds no descriptor of the caller's but 0-2. */
static void test_stdin_and_descriptors(void **state)
{
	char *cat[] = {"cat", NULL};
	char *fds[] = {"sh", "-c", "ls /proc/self/fd", NULL};
	char out[256];
	int keep = open("/dev/null", O_RDONLY);   /* not close-on-exec */

	(void)state;
	assert_true(keep > 2);
	assert_int_equal(autosize_run("cat", cat, AUTOSIZE_SPAWN_PATH, 5000,
				      out, sizeof(out), NULL), 0);
	assert_string_equal(out, "");
	assert_int_equal(autosize_run("sh", fds, AUTOSIZE_SPAWN_PATH, 5000,
				      out, sizeof(out), NULL), 0);
	/* 0 1 2, and the fd ls itself opens to read the folder */
	assert_string_equal(out, "0\n1\n2\n3\n");
	close(keep);
}

/* One deadline for the whole run, on the monotonic clock: a command that
 * sleeps, and one that never stops writing, are killed (-1) in time; one
 * that ends in time gives its status and output, its stderr merged;
 * output past len is read and dropped. */
static void test_run_deadline(void **state)
{
	char *sleeper[] = {"sleep", "30", NULL};
	char *writer[] = {"sh", "-c", "while :; do echo y; done", NULL};
	char *quick[] = {"sh", "-c", "echo out; echo err >&2; exit 5", NULL};
	char *big[] = {"sh", "-c", "seq 1 100000", NULL};
	struct timespec t0, t1;
	char out[64];
	size_t n;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(autosize_run("sleep", sleeper, AUTOSIZE_SPAWN_PATH,
				      300, out, sizeof(out), NULL), -1);
	assert_int_equal(autosize_run("sh", writer, AUTOSIZE_SPAWN_PATH, 300,
				      out, sizeof(out), &n), -1);
	assert_int_equal(n, sizeof(out) - 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(t1.tv_sec - t0.tv_sec < 5);
	assert_int_equal(autosize_run("sh", quick, AUTOSIZE_SPAWN_PATH |
				      AUTOSIZE_SPAWN_MERGE, 30000, out,
				      sizeof(out), &n), 5);
	assert_string_equal(out, "out\nerr\n");
	assert_int_equal(n, 8);
	assert_int_equal(autosize_run("sh", big, AUTOSIZE_SPAWN_PATH, 0, out,
				      8, &n), 0);
	assert_string_equal(out, "1\n2\n3\n4");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_output_and_status),
		cmocka_unit_test(test_no_shell),
		cmocka_unit_test(test_path_and_missing),
		cmocka_unit_test(test_reap_signal),
		cmocka_unit_test(test_stdin_and_descriptors),
		cmocka_unit_test(test_run_deadline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
