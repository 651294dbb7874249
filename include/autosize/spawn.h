/*
 * autosize: run a command without a shell and read its standard output.
 * The CLI runs sacct, sbatch and scontrol with it, the SPANK plugin
 * squeue and scontrol on the compute side ($AUTOSIZE_REPORT).
 */
#ifndef AUTOSIZE_SPAWN_H
#define AUTOSIZE_SPAWN_H

#include <sys/types.h>
#include <time.h>

/* How autosize_spawn runs argv[0] and where its standard error goes. */
#define AUTOSIZE_SPAWN_PATH 1        /* argv[0] searched in PATH (else a
				      * path, run as given) */
#define AUTOSIZE_SPAWN_QUIET 2       /* its stderr to /dev/null (else
				      * inherited) */
#define AUTOSIZE_SPAWN_MERGE 4       /* its stderr onto the same pipe as
				      * its stdout (2>&1) */

/*
 * Start argv[0] with the arguments argv[1..] (NULL-ended; execv does not
 * write through them), its standard output on a pipe whose read end goes
 * to *out_fd: the caller reads it to its end, closes it, then waits with
 * autosize_reap. Returns the child's pid, or -1 (no pipe or fork; nothing
 * left open). A command that cannot be run exits 127, and says so on its
 * standard error unless AUTOSIZE_SPAWN_QUIET.
 */
pid_t autosize_spawn(char *const argv[], int flags, int *out_fd);

/* The same, running path with argv as its arguments (argv[0] the name it
 * sees: sbatch running /proc/self/exe again as "sbatch"). */
pid_t autosize_spawn_as(const char *path, char *const argv[], int flags,
			int *out_fd);

/* Wait for pid (EINTR retried): its exit status 0-255, or -1 when it did
 * not exit normally (a signal) or cannot be waited for. */
int autosize_reap(pid_t pid);

/* Read fd (a spawned command's output) into buf until it ends or the
 * clock passes deadline (time(NULL) seconds), NUL-terminated; what does
 * not fit len is read and dropped (a command that never stops writing is
 * cut off too). Returns the bytes kept. fd is made non-blocking. */
size_t autosize_spawn_read_by(int fd, char *buf, size_t len,
			      time_t deadline);

/* autosize_reap that waits until deadline (time(NULL) seconds) at most:
 * a child still running then is killed (SIGKILL), reaped and reported
 * as -1. For callers that must never hang (slurmstepd). */
int autosize_reap_by(pid_t pid, time_t deadline);

#endif
