/*
 * autosize: run a command without a shell (autosize/spawn.h).
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "autosize/spawn.h"

/* How often autosize_reap_by looks whether the child has exited. */
#define SPAWN_POLL_US 20000

pid_t autosize_spawn(char *const argv[], int flags, int *out_fd)
{
	return autosize_spawn_as(argv[0], argv, flags, out_fd);
}

pid_t autosize_spawn_as(const char *path, char *const argv[], int flags,
			int *out_fd)
{
	int fd[2];
	pid_t pid;

	/* close-on-exec: a process another thread forks meanwhile must not
	 * keep the write end open (its reader would wait for its end) */
	if (pipe2(fd, O_CLOEXEC) != 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		if (flags & AUTOSIZE_SPAWN_QUIET) {
			int null = open("/dev/null", O_RDWR | O_CLOEXEC);

			if (null >= 0)
				dup2(null, 2);
		}
		/* dup2 leaves the copy open across exec */
		dup2(fd[1], 1);
		if (flags & AUTOSIZE_SPAWN_MERGE)
			dup2(fd[1], 2);
		if (flags & AUTOSIZE_SPAWN_PATH)
			execvp(path, argv);
		else
			execv(path, argv);
		if (!(flags & AUTOSIZE_SPAWN_QUIET))
			fprintf(stderr, "autosize: cannot run %s: %s\n",
				path, strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	*out_fd = fd[0];
	return pid;
}

size_t autosize_spawn_read_by(int fd, char *buf, size_t len,
			      time_t deadline)
{
	size_t used = 0;
	char sink[512];

	fcntl(fd, F_SETFL, O_NONBLOCK);
	/* checked on every pass: one that never stops writing is cut off */
	while (time(NULL) <= deadline) {
		char *dst = used + 1 < len ? buf + used : sink;
		size_t room = used + 1 < len ? len - 1 - used : sizeof(sink);
		ssize_t n = read(fd, dst, room);

		if (n > 0) {
			if (dst != sink)
				used += (size_t)n;
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			break;
		usleep(SPAWN_POLL_US);
	}
	if (len)
		buf[used] = '\0';
	return used;
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

int autosize_reap_by(pid_t pid, time_t deadline)
{
	int status = 0;
	pid_t got;

	for (;;) {
		got = waitpid(pid, &status, WNOHANG);
		if (got == pid || (got < 0 && errno != EINTR))
			return spawn_status(got, pid, status);
		if (time(NULL) > deadline)
			break;
		usleep(SPAWN_POLL_US);
	}
	kill(pid, SIGKILL);
	autosize_reap(pid);
	return -1;
}
