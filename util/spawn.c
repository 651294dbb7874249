/*
 * autosize: run a command without a shell (autosize/spawn.h), through
 * posix_spawn: nothing of this process runs in the child (no fork of a
 * multi-threaded slurmstepd or slurmctld, no stdio there).
 */
#define _GNU_SOURCE /* pipe2, posix_spawn_file_actions_addclosefrom_np */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "autosize/spawn.h"

extern char **environ;

/* How often autosize_reap_by looks whether the child has exited. */
#define SPAWN_POLL_MS 20

pid_t autosize_spawn(char *const argv[], int flags, int *out_fd)
{
	return autosize_spawn_as(argv[0], argv, flags, out_fd);
}

pid_t autosize_spawn_as(const char *path, char *const argv[], int flags,
			int *out_fd)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	short attr = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
	int fd[2], rc;
	pid_t pid;

	/* close-on-exec: a process another thread starts meanwhile must not
	 * keep the write end open (its reader would wait for its end) */
	if (pipe2(fd, O_CLOEXEC) != 0)
		return -1;
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	if (flags & AUTOSIZE_SPAWN_MERGE)
		posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
	else if (flags & AUTOSIZE_SPAWN_QUIET)
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null",
						 O_WRONLY, 0);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
	/* none of the caller's sockets and files in the command */
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
#ifdef POSIX_SPAWN_SETSID
	if (flags & AUTOSIZE_SPAWN_SETSID)
		attr |= POSIX_SPAWN_SETSID;
#endif
	posix_spawnattr_setflags(&at, attr);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	if (flags & AUTOSIZE_SPAWN_PATH)
		rc = posix_spawnp(&pid, path, &fa, &at, argv, environ);
	else
		rc = posix_spawn(&pid, path, &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(fd[1]);
	if (rc != 0) {
		close(fd[0]);
		if (!(flags & (AUTOSIZE_SPAWN_QUIET | AUTOSIZE_SPAWN_MERGE)))
			fprintf(stderr, "autosize: cannot run %s: %s\n", path,
				strerror(rc));
		errno = rc;
		return -1;
	}
	*out_fd = fd[0];
	return pid;
}

/* Milliseconds on the monotonic clock. */
static long long spawn_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The exit status waitpid reported, or -1. */
static int spawn_status(pid_t got, pid_t pid, int status)
{
	if (got != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int autosize_reap(pid_t pid)
{
	int status = 0;
	pid_t got;

	while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	return spawn_status(got, pid, status);
}

/* autosize_reap until end_ms (0: no end): then SIGKILL, reaped, -1. */
static int spawn_reap_until(pid_t pid, long long end_ms)
{
	int status = 0;
	pid_t got;

	if (!end_ms)
		return autosize_reap(pid);
	for (;;) {
		got = waitpid(pid, &status, WNOHANG);
		if (got == pid || (got < 0 && errno != EINTR))
			return spawn_status(got, pid, status);
		if (spawn_now_ms() >= end_ms)
			break;
		usleep(SPAWN_POLL_MS * 1000);
	}
	kill(pid, SIGKILL);
	autosize_reap(pid);
	return -1;
}

/* fd into buf until its end or end_ms (0: no end), NUL-terminated; what
 * does not fit is read and dropped. 1 when the time ran out first. */
static int spawn_read_until(int fd, char *buf, size_t len, size_t *used,
			    long long end_ms)
{
	char sink[512];

	*used = 0;
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		char *dst = *used + 1 < len ? buf + *used : sink;
		size_t room = *used + 1 < len ? len - 1 - *used : sizeof(sink);
		long long left = end_ms ? end_ms - spawn_now_ms() : -1;
		ssize_t n;
		int r;

		if (end_ms && left <= 0)
			break;
		/* left <= timeout_ms, an int */
		r = poll(&p, 1, end_ms ? (int)left : -1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n = read(fd, dst, room);
		if (n > 0) {
			if (dst != sink)
				*used += (size_t)n;
			continue;
		}
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (len)
			buf[*used] = '\0';
		return 0;
	}
	if (len)
		buf[*used] = '\0';
	return 1;
}

int autosize_run(const char *path, char *const argv[], int flags,
		 int timeout_ms, char *out, size_t len, size_t *out_len)
{
	long long end_ms = timeout_ms > 0 ? spawn_now_ms() + timeout_ms : 0;
	size_t used = 0;
	pid_t pid;
	int fd, rc;

	if (len)
		out[0] = '\0';
	if (out_len)
		*out_len = 0;
	pid = autosize_spawn_as(path, argv, flags, &fd);
	if (pid < 0)
		return AUTOSIZE_RUN_NOT_RUN;
	(void)spawn_read_until(fd, out, len, &used, end_ms);
	close(fd);
	rc = spawn_reap_until(pid, end_ms);
	if (out_len)
		*out_len = used;
	return rc;
}
