/*
 * autosize: Slurm's QOS and association limits for slurmctld's module,
 * read without ever blocking slurmctld. job_submit.lua runs inside
 * slurmctld holding its locks, where asking slurmctld or slurmdbd (an
 * RPC, sacctmgr, scontrol) would wait on those very locks: instead a
 * helper process, `autosize limits --raw` (the CLI, through libslurm),
 * reads them from slurmctld's association manager, its partitions and
 * nodes, and writes a snapshot on a pipe. This file starts the helper
 * (autosize/spawn.h, posix_spawn: no fork of slurmctld's memory; no
 * shell; stdin from /dev/null; no descriptor of slurmctld's kept), reads
 * what it wrote without waiting, a little at each call, and keeps the
 * last whole snapshot. A job finding the snapshot older than
 * LIMITS_REFRESH_S starts a new helper; a snapshot that no helper has
 * managed to replace for LIMITS_STALE_S since then is not used (the job
 * goes as submitted, saying why). Time without jobs does not count: on a
 * cluster left idle for an hour, the first job is planned on the last
 * snapshot while a new one is read (limits rarely change; the next jobs
 * get the new one). Nothing here waits: a helper that hangs is killed
 * after LIMITS_HELPER_MAX_S.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "autosize/spawn.h"
#include "lua_autosize.h"

/* A snapshot this old starts a new helper: limits changed with sacctmgr
 * reach plans within a minute (the refresh, plus the helper's run). */
#define LIMITS_REFRESH_S 30.0
/* A snapshot due this long for a new read, and none read, is not used:
 * a helper that keeps failing must not size jobs on limits long gone. */
#define LIMITS_STALE_S 300.0
/* A helper running this long is killed (slurmctld busy or down). */
#define LIMITS_HELPER_MAX_S 60.0
/* Between failed helpers. */
#define LIMITS_RETRY_S 5.0
/* A job whose QOS or association the snapshot lacks (made since) asks
 * for a new one once the snapshot is this old. */
#define LIMITS_UNKNOWN_S 2.0
/* Helpers ended but not yet waited for, kept to wait for later. */
#define LIMITS_REAP_MAX 4
/* Most output taken from a helper (a big site: 500k associations). */
#define LIMITS_OUTPUT_MAX (64u << 20)

static struct {
	pthread_mutex_t lock;
	autosize_limits *cur;       /* the last whole snapshot, or NULL */
	double cur_at;              /* when it was read (monotonic s) */
	pid_t child;                /* the helper running, or 0 */
	int fd;                     /* its output, or -1 */
	double child_at;            /* when it started */
	double last_try;            /* when the last one started */
	pid_t reap[LIMITS_REAP_MAX]; /* helpers still to wait for (0 none) */
	char *buf;                  /* its output so far */
	size_t len, cap;
	double first_at;            /* the first refresh (slurmctld's start) */
	double due_at;              /* when a job first found cur due for a
				     * new read (0: not yet) */
	double refresh_s, stale_s;  /* LIMITS_REFRESH_S, LIMITS_STALE_S, or
				     * shorter (the tests) */
	char why[AUTOSIZE_MSG_LEN]; /* why the last helper failed, "" none */
	char told[AUTOSIZE_MSG_LEN]; /* the last failure logged */
	int wanted;                 /* job_submit.lua asked for them */
	int soon;                   /* a job named what the snapshot lacks */
} lim = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

static double limits_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* Wait for finished helpers, never blocking (WNOHANG); with pid, keep
 * it to wait for later when it has not exited yet. */
static void limits_reap(pid_t pid)
{
	int i;

	for (i = 0; i < LIMITS_REAP_MAX; i++)
		if (lim.reap[i] > 0 && waitpid(lim.reap[i], NULL, WNOHANG) != 0)
			lim.reap[i] = 0;
	if (pid <= 0 || waitpid(pid, NULL, WNOHANG) != 0)
		return;
	for (i = 0; i < LIMITS_REAP_MAX; i++)
		if (lim.reap[i] <= 0) {
			lim.reap[i] = pid;
			return;
		}
}

/* The helper is done (or given up on): close its pipe, reap it later. */
static void limits_end_child(int kill_it)
{
	if (lim.fd >= 0)
		close(lim.fd);
	lim.fd = -1;
	if (lim.child > 0) {
		if (kill_it)
			kill(lim.child, SIGKILL);
		limits_reap(lim.child);
	}
	lim.child = 0;
	lim.len = 0;
}

/* The helper's whole output: a snapshot, or why not. */
static void limits_take(double now)
{
	autosize_limits *l;
	autosize_error e;
	size_t n;

	autosize_error_clear(&e);
	l = autosize_limits_parse(lim.buf ? lim.buf : "", lim.len, &e);
	if (l) {
		autosize_limits_destroy(lim.cur);
		lim.cur = l;
		lim.cur_at = now;
		lim.due_at = 0;
		lim.why[0] = '\0';
		return;
	}
	/* the CLI says what went wrong on its first line */
	if (lim.len > 10 && strncmp(lim.buf, "autosize: ", 10) == 0) {
		n = strcspn(lim.buf, "\n");
		snprintf(lim.why, sizeof(lim.why), "%.*s",
			 (int)(n < 300 ? n : 300), lim.buf);
	} else {
		snprintf(lim.why, sizeof(lim.why), "%s", e.msg);
	}
	autosize_one_line(lim.why);
}

/* Read what the helper wrote since the last call, without waiting. */
static void limits_read(double now)
{
	char *bigger;
	ssize_t got;

	while (lim.fd >= 0) {
		if (lim.cap - lim.len < 65536) {
			if (lim.cap >= LIMITS_OUTPUT_MAX) {
				snprintf(lim.why, sizeof(lim.why), "autosize "
					 "limits wrote more than %u MiB",
					 LIMITS_OUTPUT_MAX >> 20);
				limits_end_child(1);
				return;
			}
			bigger = realloc(lim.buf, lim.cap ? lim.cap * 2
							  : 1u << 20);
			if (!bigger) {
				snprintf(lim.why, sizeof(lim.why), "out of "
					 "memory reading autosize limits");
				limits_end_child(1);
				return;
			}
			lim.buf = bigger;
			lim.cap = lim.cap ? lim.cap * 2 : 1u << 20;
		}
		got = read(lim.fd, lim.buf + lim.len, lim.cap - lim.len);
		if (got > 0) {
			lim.len += (size_t)got;
			continue;
		}
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && errno == EAGAIN) {
			if (now - lim.child_at > LIMITS_HELPER_MAX_S) {
				snprintf(lim.why, sizeof(lim.why), "autosize "
					 "limits did not finish in %.0f s",
					 LIMITS_HELPER_MAX_S);
				limits_end_child(1);
			}
			return;
		}
		limits_take(now);       /* end of its output */
		limits_end_child(0);
	}
}

/* Start the helper: its stdout and stderr on a non-blocking pipe, in a
 * session of its own (autosize/spawn.h). */
static void limits_spawn(const char *cli, double now)
{
	char *argv[] = { (char *)cli, (char *)"limits", (char *)"--raw", NULL };
	pid_t pid;
	int fd;

	lim.last_try = now;
	pid = autosize_spawn_as(cli, argv, AUTOSIZE_SPAWN_MERGE |
				AUTOSIZE_SPAWN_SETSID, &fd);
	if (pid < 0) {
		snprintf(lim.why, sizeof(lim.why), "cannot run %.200s: %s",
			 cli, strerror(errno));
		return;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	lim.child = pid;
	lim.fd = fd;
	lim.child_at = now;
	lim.len = 0;
}

/* s when 0 < s < dflt (a test's shorter time), else dflt. */
static double limits_time(double s, double dflt)
{
	return s > 0 && s < dflt ? s : dflt;
}

int lua_limits_refresh(const char *cli, double refresh_s, double stale_s,
		       char *msg, size_t len)
{
	double now = limits_now();
	int rc = 0;

	pthread_mutex_lock(&lim.lock);
	lim.wanted = cli && cli[0];
	lim.refresh_s = limits_time(refresh_s, LIMITS_REFRESH_S);
	lim.stale_s = limits_time(stale_s, LIMITS_STALE_S);
	if (lim.first_at == 0)
		lim.first_at = now;
	limits_reap(0);
	limits_read(now);
	if (lim.wanted && lim.cur && lim.due_at == 0 &&
	    now - lim.cur_at >= lim.refresh_s)
		lim.due_at = now;   /* the stale clock starts: jobs came */
	if (!lim.child && lim.wanted &&
	    (!lim.cur || now - lim.cur_at >= lim.refresh_s ||
	     (lim.soon && now - lim.cur_at >= LIMITS_UNKNOWN_S)) &&
	    (lim.last_try == 0 ||
	     now - lim.last_try >= limits_time(lim.refresh_s,
					       LIMITS_RETRY_S) ||
	     lim.soon)) {
		lim.soon = 0;
		limits_spawn(cli, now);
	}
	/* each new failure once in slurmctld's log */
	if (lim.why[0] && strcmp(lim.why, lim.told) != 0) {
		snprintf(lim.told, sizeof(lim.told), "%s", lim.why);
		snprintf(msg, len, "autosize: Slurm's limits: %s", lim.why);
		rc = -1;
	}
	pthread_mutex_unlock(&lim.lock);
	return rc;
}

const autosize_limits *lua_limits_acquire(int *wanted, char *why, size_t len)
{
	double now = limits_now(), age;

	pthread_mutex_lock(&lim.lock);
	why[0] = '\0';
	*wanted = lim.wanted;
	if (!lim.wanted)
		return NULL;
	age = now - lim.cur_at;
	if (lim.cur && (lim.due_at == 0 || now - lim.due_at <= lim.stale_s))
		return lim.cur;
	if (lim.cur)
		snprintf(why, len, "the last were read %.0f s ago, none in "
			 "%.0f s since%s%s", age, now - lim.due_at,
			 lim.why[0] ? "; the last try: " : "", lim.why);
	else if (lim.why[0])
		snprintf(why, len, "%s", lim.why);
	else
		snprintf(why, len, "still being read (first asked %.0f s "
			 "ago)", lim.first_at > 0 ? now - lim.first_at : 0);
	return NULL;
}

void lua_limits_unacquire(int unknown)
{
	if (unknown)
		lim.soon = 1;
	pthread_mutex_unlock(&lim.lock);
}

void lua_limits_release(void)
{
	pthread_mutex_lock(&lim.lock);
	limits_end_child(1);
	autosize_limits_destroy(lim.cur);
	lim.cur = NULL;
	free(lim.buf);
	lim.buf = NULL;
	lim.cap = lim.len = 0;
	lim.why[0] = lim.told[0] = '\0';
	lim.first_at = lim.last_try = lim.due_at = 0;
	lim.wanted = 0;
	pthread_mutex_unlock(&lim.lock);
}
