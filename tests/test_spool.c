/*
 * The node's spool of measured figures (core/spool.c): its entries read
 * back strictly, its folder only when it is this user's alone, its files
 * never through a link nor when planted, and at most
 * AUTOSIZE_SPOOL_MAX_ENTRIES of them.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "testutil.h"
#include "autosize.h"

static char dir[64];

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/autosize-spool-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	/* the spool itself is a folder inside: made by autosize */
	strcat(dir, "/s");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%.*s'", (int)strlen(dir) - 2,
		 dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void entry(unsigned long id, autosize_spool_entry *en)
{
	memset(en, 0, sizeof(*en));
	en->job_id = id;
	snprintf(en->cluster, sizeof(en->cluster), "gpu-cluster_2");
	en->ended_s = 1790000000L;
	en->m.tokens_per_s = 42245.8125;
	en->m.step_s = 1.5;
	en->m.mem_bytes = 5.49931e10;
	en->m.lines = 3;
}

static void test_entry_roundtrip(void **state)
{
	autosize_spool_entry en, back;
	autosize_error e;
	char buf[AUTOSIZE_SPOOL_ENTRY_MAX];
	int n;

	entry(4294967295UL, &en);
	n = autosize_spool_entry_encode(&en, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(autosize_spool_entry_decode(buf, (size_t)n, "t",
						     &back, &e), AUTOSIZE_OK);
	assert_true(back.job_id == en.job_id);
	assert_string_equal(back.cluster, en.cluster);
	assert_true(back.ended_s == en.ended_s);
	assert_true(back.m.tokens_per_s == en.m.tokens_per_s);
	assert_true(back.m.step_s == en.m.step_s);
	assert_true(back.m.mem_bytes == en.m.mem_bytes);
	assert_int_equal(back.m.lines, 3);
	/* a cluster name outside the format is never written */
	snprintf(en.cluster, sizeof(en.cluster), "a,b=c");
	assert_int_equal(autosize_spool_entry_encode(&en, buf, sizeof(buf)),
			 -1);
}

static void test_entry_hostile(void **state)
{
	static const char *const bad[] = {
		"",
		"autosize-spool:v2:job=1",
		"job=1,cluster=c,ended=1,tok_s=1,step_s=1,mem_b=1,lines=1",
		/* a key missing, twice, unknown */
		"autosize-spool:v1:job=1,cluster=c,ended=1,tok_s=1,step_s=1,"
		"mem_b=1",
		"autosize-spool:v1:job=1,job=2,cluster=c,ended=1,tok_s=1,"
		"step_s=1,mem_b=1,lines=1",
		"autosize-spool:v1:job=1,cluster=c,ended=1,tok_s=1,step_s=1,"
		"mem_b=1,lines=1,x=1",
		/* out of range, not whole, not a number */
		"autosize-spool:v1:job=0,cluster=c,ended=1,tok_s=1,step_s=1,"
		"mem_b=1,lines=1",
		"autosize-spool:v1:job=4294967296,cluster=c,ended=1,tok_s=1,"
		"step_s=1,mem_b=1,lines=1",
		"autosize-spool:v1:job=1.5,cluster=c,ended=1,tok_s=1,step_s=1,"
		"mem_b=1,lines=1",
		"autosize-spool:v1:job=1,cluster=c,ended=1,tok_s=-1,step_s=1,"
		"mem_b=1,lines=1",
		"autosize-spool:v1:job=1,cluster=c,ended=1,tok_s=nan,step_s=1,"
		"mem_b=1,lines=1",
		"autosize-spool:v1:job=1,cluster=c,ended=1,tok_s=1,step_s=1,"
		"mem_b=1e300,lines=1",
		/* a cluster name that could forge a key or a path */
		"autosize-spool:v1:job=1,cluster=../x,ended=1,tok_s=1,step_s=1,"
		"mem_b=1,lines=1",
		"autosize-spool:v1:job=1,cluster=a b,ended=1,tok_s=1,step_s=1,"
		"mem_b=1,lines=1",
		NULL
	};
	autosize_spool_entry en;
	autosize_error e;
	int i;

	for (i = 0; bad[i]; i++) {
		autosize_error_clear(&e);
		if (autosize_spool_entry_decode(bad[i], strlen(bad[i]),
						"spool entry job.1", &en,
						&e) == AUTOSIZE_OK)
			fail_msg("accepted: %s", bad[i]);
		assert_memory_equal(e.msg, "spool entry job.1", 17);
	}
	/* a NUL inside */
	assert_int_not_equal(autosize_spool_entry_decode("autosize-spool:v1:"
							 "job=1\0x", 24, "t",
							 &en, &e),
			     AUTOSIZE_OK);
}

/* The folder: made 0700 when absent; refused when others may use it,
 * when it is a link, or a file. */
static void test_open_checks(void **state)
{
	char link[80];
	struct stat st;
	autosize_error e;
	int fd;

	assert_int_equal(autosize_spool_open(dir, 0, &e), -1);
	fd = autosize_spool_open(dir, 1, &e);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(autosize_spool_open(dir, 1, &e), -1);
	assert_non_null(strstr(e.msg, "mode 0755"));
	assert_non_null(strstr(e.msg, "chmod 700"));
	assert_int_equal(chmod(dir, 0700), 0);
	snprintf(link, sizeof(link), "%s.link", dir);
	assert_int_equal(symlink(dir, link), 0);
	assert_int_equal(autosize_spool_open(link, 1, &e), -1);
	assert_int_equal(unlink(link), 0);
	assert_int_equal(autosize_spool_open("relative/spool", 1, &e), -1);
	assert_non_null(strstr(e.msg, "absolute"));
	if (geteuid() == 0) {
		/* root's spool: a folder another user owns is refused */
		assert_int_equal(chown(dir, 65534, 65534), 0);
		assert_int_equal(autosize_spool_open(dir, 0, &e), -1);
		assert_non_null(strstr(e.msg, "owned by uid 65534"));
		assert_int_equal(chown(dir, 0, 0), 0);
	}
}

static void test_put_list_get(void **state)
{
	autosize_spool_entry en, back;
	unsigned long ids[4];
	autosize_error e;
	time_t tried;
	int fd = autosize_spool_open(dir, 1, &e);

	assert_true(fd >= 0);
	entry(30, &en);
	assert_int_equal(autosize_spool_put(fd, &en, &e), AUTOSIZE_OK);
	entry(7, &en);
	assert_int_equal(autosize_spool_put(fd, &en, &e), AUTOSIZE_OK);
	entry(12, &en);
	assert_int_equal(autosize_spool_put(fd, &en, &e), AUTOSIZE_OK);
	/* a job's new entry replaces its old one */
	en.m.lines = 9;
	assert_int_equal(autosize_spool_put(fd, &en, &e), AUTOSIZE_OK);
	assert_int_equal(autosize_spool_list(fd, ids, 4), 3);
	assert_true(ids[0] == 7 && ids[1] == 12 && ids[2] == 30);
	assert_int_equal(autosize_spool_get(fd, 12, &back, &tried, &e),
			 AUTOSIZE_OK);
	assert_int_equal(back.m.lines, 9);
	assert_true(back.job_id == 12);
	/* tried: the file's time moves to now */
	assert_int_equal(utimensat(fd, "job.12", (const struct timespec[2])
				   {{0, 0}, {1000, 0}}, 0), 0);
	assert_int_equal(autosize_spool_get(fd, 12, &back, &tried, &e),
			 AUTOSIZE_OK);
	assert_true(tried == 1000);
	autosize_spool_tried(fd, 12);
	assert_int_equal(autosize_spool_get(fd, 12, &back, &tried, &e),
			 AUTOSIZE_OK);
	assert_true(tried > 1000);
	autosize_spool_remove(fd, 12);
	assert_int_equal(autosize_spool_list(fd, ids, 4), 2);
	assert_int_equal(autosize_spool_get(fd, 12, &back, &tried, &e),
			 AUTOSIZE_ENOTFOUND);
	/* names that are not entries are not listed */
	assert_int_equal(mkdirat(fd, "job.x", 0700), 0);
	assert_int_equal(autosize_spool_list(fd, NULL, 0), 2);
	close(fd);
}

/* A file in the spool is read only when it is a regular file of the
 * spool's owner, with one link, small: a link planted as an entry (to a
 * file of root's elsewhere, or a FIFO that would block) is refused. */
static void test_get_refuses_planted(void **state)
{
	autosize_spool_entry en, back;
	autosize_error e;
	time_t tried;
	char big[2048];
	int fd = autosize_spool_open(dir, 1, &e), f;

	assert_true(fd >= 0);
	entry(5, &en);
	assert_int_equal(autosize_spool_put(fd, &en, &e), AUTOSIZE_OK);
	/* a link to an entry */
	assert_int_equal(symlinkat("job.5", fd, "job.6"), 0);
	assert_int_not_equal(autosize_spool_get(fd, 6, &back, &tried, &e),
			     AUTOSIZE_OK);
	/* a second name of the same file */
	assert_int_equal(linkat(fd, "job.5", fd, "job.7", 0), 0);
	assert_int_not_equal(autosize_spool_get(fd, 7, &back, &tried, &e),
			     AUTOSIZE_OK);
	assert_non_null(strstr(e.msg, "one link"));
	assert_int_equal(unlinkat(fd, "job.7", 0), 0);
	/* a FIFO: refused without blocking */
	assert_int_equal(mkfifoat(fd, "job.8", 0600), 0);
	assert_int_not_equal(autosize_spool_get(fd, 8, &back, &tried, &e),
			     AUTOSIZE_OK);
	/* too long */
	f = openat(fd, "job.9", O_WRONLY | O_CREAT, 0600);
	assert_true(f >= 0);
	memset(big, 'x', sizeof(big));
	assert_int_equal(write(f, big, sizeof(big)), (ssize_t)sizeof(big));
	close(f);
	assert_int_not_equal(autosize_spool_get(fd, 9, &back, &tried, &e),
			     AUTOSIZE_OK);
	/* an entry whose content names another job */
	assert_int_equal(renameat(fd, "job.5", fd, "job.10"), 0);
	assert_int_not_equal(autosize_spool_get(fd, 10, &back, &tried, &e),
			     AUTOSIZE_OK);
	assert_non_null(strstr(e.msg, "holds job 5"));
	close(fd);
}

/* Bounded: a full spool refuses a new job, not a job already in it. */
static void test_bounded(void **state)
{
	autosize_spool_entry en;
	autosize_error e;
	int fd = autosize_spool_open(dir, 1, &e), i;

	assert_true(fd >= 0);
	for (i = 1; i <= AUTOSIZE_SPOOL_MAX_ENTRIES; i++) {
		entry((unsigned long)i, &en);
		assert_int_equal(autosize_spool_put(fd, &en, &e), AUTOSIZE_OK);
	}
	entry(AUTOSIZE_SPOOL_MAX_ENTRIES + 1, &en);
	assert_int_equal(autosize_spool_put(fd, &en, &e), AUTOSIZE_ETOOBIG);
	assert_non_null(strstr(e.msg, "full"));
	entry(1, &en);
	assert_int_equal(autosize_spool_put(fd, &en, &e), AUTOSIZE_OK);
	assert_int_equal(autosize_spool_list(fd, NULL, 0),
			 AUTOSIZE_SPOOL_MAX_ENTRIES);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entry_roundtrip),
		cmocka_unit_test(test_entry_hostile),
		cmocka_unit_test_setup_teardown(test_open_checks, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_put_list_get, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_get_refuses_planted,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounded, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
