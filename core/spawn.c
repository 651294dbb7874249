/*
 * autosize: run a command without a shell (autosize/spawn.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "autosize/spawn.h"

pid_t autosize_spawn(char *const argv[], int flags, int *out_fd)
{
	int fd[2];
	pid_t pid;

	if (pipe(fd) != 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		if (flags & AUTOSIZE_SPAWN_QUIET) {
			int null = open("/dev/null", O_RDWR);

			if (null >= 0)
				dup2(null, 2);
		}
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		if (flags & AUTOSIZE_SPAWN_PATH)
			execvp(argv[0], argv);
		else
			execv(argv[0], argv);
		if (!(flags & AUTOSIZE_SPAWN_QUIET))
			fprintf(stderr, "autosize: cannot run %s: %s\n",
				argv[0], strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	*out_fd = fd[0];
	return pid;
}

int autosize_reap(pid_t pid)
{
	int status;
	pid_t got;

	while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (got != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}
