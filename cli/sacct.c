/*
 * autosize CLI: finished jobs from accounting (sacct), for calibrate and
 * report (cli.h). sacct runs without a shell, -P with a delimiter made
 * of random bytes for this run: a job name (the one field a user
 * chooses) may hold '|', a newline or any fixed delimiter, but cannot
 * guess this one, so no name can forge another job's line. And the
 * other source of finished jobs, JSON-lines files, read line by line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include "cli.h"
#include "opts.h"
#include "autosize/spawn.h"

#define SACCT_LINE_MAX (1024 * 1024)

void cli_sacct_init(cli_sacct *s)
{
	memset(s, 0, sizeof(*s));
	s->start = "now-30days";
}

int cli_sacct_take(cli_sacct *s, int key, const char *value)
{
	switch (key) {
	case CLI_SACCT_USE:
		s->use = 1;
		return 1;
	case CLI_SACCT_START:
		s->start = value;
		return 1;
	case CLI_SACCT_END:
		s->end = value;
		return 1;
	case CLI_SACCT_PARTITION:
		s->partition = value;
		return 1;
	case CLI_SACCT_USER:
		s->user = value;
		return 1;
	}
	return 0;
}

void cli_sacct_describe(const cli_sacct *s, char *buf, size_t len)
{
	snprintf(buf, len, "sacct -S %s%s%s%s%s%s%s", s->start,
		 s->end ? " -E " : "", s->end ? s->end : "",
		 s->partition ? " -r " : "", s->partition ? s->partition : "",
		 s->user ? " -u " : "", s->user ? s->user : "");
}

/* "|~" 16 random hex digits "~|" */
static int sacct_delimiter(char *buf, size_t len)
{
	unsigned char r[8];
	size_t i;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r) || len < 21)
		return -1;
	snprintf(buf, len, "|~");
	for (i = 0; i < sizeof(r); i++)
		snprintf(buf + 2 + 2 * i, len - 2 - 2 * i, "%02x", r[i]);
	snprintf(buf + 18, len - 18, "~|");
	return 0;
}

/* sacct could not be run or did not succeed: one line on stderr. */
static void sacct_failed(const char *cmd)
{
	fprintf(stderr, "autosize: %s: sacct failed (is slurmdbd reachable? "
		"AccountingStorageType=accounting_storage/slurmdbd)\n", cmd);
}

int cli_sacct_read(const cli_sacct *s, const char *cmd, cli_sacct_each each,
		   void *ctx)
{
	char delim[24], delim_opt[40];
	char *argv[20], *line = NULL;
	autosize_finished_job j;
	size_t cap = 0;
	ssize_t n;
	int a = 0, fd, rv = -1;
	FILE *f;
	pid_t pid;

	if (sacct_delimiter(delim, sizeof(delim)) != 0) {
		fprintf(stderr, "autosize: %s: no random bytes for sacct's "
			"delimiter: %s\n", cmd, strerror(errno));
		return -1;
	}
	snprintf(delim_opt, sizeof(delim_opt), "--delimiter=%s", delim);
	argv[a++] = "sacct";
	argv[a++] = "-P";
	argv[a++] = "-n";
	argv[a++] = "-X";
	argv[a++] = delim_opt;
	argv[a++] = "-o";
	argv[a++] = AUTOSIZE_SACCT_FIELDS;
	if (s->duplicates)
		argv[a++] = "-D";
	if (s->jobs) {
		argv[a++] = "-j";
		argv[a++] = (char *)s->jobs;
	} else {
		argv[a++] = "-S";
		argv[a++] = (char *)s->start;
	}
	if (s->end) {
		argv[a++] = "-E";
		argv[a++] = (char *)s->end;
	}
	if (s->partition) {
		argv[a++] = "-r";
		argv[a++] = (char *)s->partition;
	}
	if (s->user) {
		argv[a++] = "-u";
		argv[a++] = (char *)s->user;
	} else {
		argv[a++] = "-a";
	}
	argv[a] = NULL;
	pid = autosize_spawn(argv, AUTOSIZE_SPAWN_PATH, &fd);
	if (pid < 0) {
		sacct_failed(cmd);
		return -1;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		autosize_reap(pid);
		return -1;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		/* the rest of a name with a newline, a step, a line too
		 * long to be a job's: not a job line */
		if (n > SACCT_LINE_MAX ||
		    autosize_sacct_job_line(line, delim, &j) != 0)
			continue;
		each(ctx, &j);
	}
	free(line);
	fclose(f);
	if (autosize_reap(pid) != 0)
		sacct_failed(cmd);
	else
		rv = 0;
	return rv;
}

void cli_jsonl_read(FILE *f, const char *name, cli_jsonl_each each,
		    void (*too_long)(void *ctx), void *ctx)
{
	char what[AUTOSIZE_PATH_MAX + 32];
	char *line = NULL;
	size_t cap = 0, len;
	ssize_t n;
	long lineno = 0;

	while ((n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (n > CLI_JSONL_MAX) {
			too_long(ctx);
			continue;
		}
		len = (size_t)n;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		if (len == 0)
			continue;
		snprintf(what, sizeof(what), "%s:%ld", name, lineno);
		each(ctx, what, line, len);
	}
	free(line);
}
