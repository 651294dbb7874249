/*
 * autosize: run a command without a shell and read its standard output:
 * the one way the project runs a program. The CLI runs sacct, sbatch,
 * squeue and scontrol with it; the SPANK plugin sbatch (a chain), the
 * autosize command (show, spool --flush) at a step's start and end; the
 * Lua module `autosize limits`. posix_spawn: the command's standard
 * input is /dev/null, it gets no descriptor of the caller's but its
 * standard output and error, its signal mask is empty and its signals
 * default; nothing of the caller runs in the child.
 */
#ifndef AUTOSIZE_SPAWN_H
#define AUTOSIZE_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

/* How autosize_spawn runs argv[0] and where its standard error goes. */
#define AUTOSIZE_SPAWN_PATH 1        /* argv[0] searched in PATH (else a
				      * path, run as given) */
#define AUTOSIZE_SPAWN_QUIET 2       /* its stderr to /dev/null (else
				      * inherited) */
#define AUTOSIZE_SPAWN_MERGE 4       /* its stderr onto the same pipe as
				      * its stdout (2>&1) */
#define AUTOSIZE_SPAWN_SETSID 8      /* in a session of its own (no
				      * signal of the caller's terminal or
				      * process group reaches it) */

/*
 * Start argv[0] with the arguments argv[1..] (NULL-ended; execv does not
 * write through them), its standard output on a pipe whose read end goes
 * to *out_fd: the caller reads it to its end, closes it, then waits with
 * autosize_reap. Returns the child's pid, or -1 with errno set when no
 * pipe could be made or the command cannot be run (missing, not
 * executable: "autosize: cannot run PATH: why" on standard error, unless
 * AUTOSIZE_SPAWN_QUIET or _MERGE, whose callers say it); nothing is left
 * open then.
 */
pid_t autosize_spawn(char *const argv[], int flags, int *out_fd);

/* The same, running path with argv as its arguments (argv[0] the name it
 * sees: sbatch running /proc/self/exe again as "sbatch"). */
pid_t autosize_spawn_as(const char *path, char *const argv[], int flags,
			int *out_fd);

/* Wait for pid (EINTR retried): its exit status 0-255, or -1 when it did
 * not exit normally (a signal) or cannot be waited for. */
int autosize_reap(pid_t pid);

/*
 * Run path with argv as autosize_spawn_as does and read its output into
 * out (NUL-terminated; what does not fit len is read and dropped, so a
 * command that writes much never blocks), until it exits. timeout_ms > 0
 * bounds the whole run on the monotonic clock: a command still running
 * (or holding its output open) then is killed (SIGKILL) and reaped. For
 * every command a Slurm daemon's side runs: nothing there may hang.
 * Returns its exit status 0-255; -1 when it was killed by a signal or ran
 * out of time; AUTOSIZE_RUN_NOT_RUN when it could not be started (errno
 * says why: no such command, not executable). *out_len (may be NULL):
 * the bytes kept.
 */
#define AUTOSIZE_RUN_NOT_RUN (-2)
int autosize_run(const char *path, char *const argv[], int flags,
		 int timeout_ms, char *out, size_t len, size_t *out_len);

#endif
