/*
 * autosize CLI: run a Slurm command (sacct, sbatch, scontrol) without a
 * shell and read its standard output (cli.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"

pid_t cli_spawn(char *const argv[], int *out_fd)
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
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], argv);
		fprintf(stderr, "autosize: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	*out_fd = fd[0];
	return pid;
}

int cli_reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}
