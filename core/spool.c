/*
 * autosize: the node's spool of measured figures (autosize/spool.h).
 * Runs as root (slurmstepd, the job epilog, `autosize spool`): every path
 * is a name in the one folder opened once, never followed through a
 * link, and every file is checked before it is read.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "autosize/spool.h"

#define SPOOL_NAME "job."
/* Longest name: "job." and an unsigned long's digits. */
#define SPOOL_NAME_MAX 32

static void spool_name(unsigned long id, char *buf, size_t len)
{
	snprintf(buf, len, SPOOL_NAME "%lu", id);
}

/* The job id of an entry's name, or 0 when it is not one. */
static unsigned long spool_name_id(const char *name)
{
	const char *p = name + strlen(SPOOL_NAME);
	unsigned long id = 0;

	if (strncmp(name, SPOOL_NAME, strlen(SPOOL_NAME)) != 0 || !*p ||
	    strlen(p) > 19)
		return 0;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return 0;
		id = id * 10 + (unsigned long)(*p - '0');
	}
	return id;
}

static int spool_cluster_ok(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("._-", *s)))
			return 0;
	return 1;
}

int autosize_spool_entry_encode(const autosize_spool_entry *en, char *buf,
				size_t len)
{
	const autosize_measured *m = &en->m;
	int n;

	if (!spool_cluster_ok(en->cluster))
		return -1;
	n = snprintf(buf, len, AUTOSIZE_SPOOL_PREFIX "job=%lu,cluster=%s,"
		     "ended=%ld,tok_s=%.9g,step_s=%.9g,mem_b=%.9g,lines=%d",
		     en->job_id, en->cluster, en->ended_s, m->tokens_per_s,
		     m->step_s, m->mem_bytes, m->lines);
	/* a chained job's progress, only when it reported one */
	if (n >= 0 && (size_t)n < len && m->tokens_done > 0)
		n += snprintf(buf + n, len - (size_t)n, ",done=%.9g",
			      m->tokens_done);
	return n < 0 || (size_t)n >= len ? -1 : n;
}

/* A non-negative finite number of at most max; -1 when not. */
static double spool_number(const char *s, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v) || v < 0 || v > max)
		return -1;
	return v;
}

autosize_err autosize_spool_entry_decode(const char *text, size_t len,
					 const char *what,
					 autosize_spool_entry *en,
					 autosize_error *e)
{
	static const char *const keys[] = {"job", "cluster", "ended", "tok_s",
		"step_s", "mem_b", "lines", "done"};
	size_t plen = strlen(AUTOSIZE_SPOOL_PREFIX), pos;
	char buf[AUTOSIZE_SPOOL_ENTRY_MAX];
	double v[8] = {0};
	int k, seen = 0;

	memset(en, 0, sizeof(*en));
	while (len > 0 && text[len - 1] == '\n')
		len--;
	if (len < plen || len >= sizeof(buf) ||
	    memcmp(text, AUTOSIZE_SPOOL_PREFIX, plen) != 0 ||
	    memchr(text, '\0', len))
		return autosize_fail(e, AUTOSIZE_EINVAL, "%s: not an entry "
				     "of autosize's spool (%s...)", what,
				     AUTOSIZE_SPOOL_PREFIX);
	memcpy(buf, text, len);
	buf[len] = '\0';
	for (pos = plen; pos < len;) {
		char *item = buf + pos, *comma = strchr(item, ','), *eq;

		if (comma)
			*comma = '\0';
		pos += strlen(item) + 1;
		eq = strchr(item, '=');
		if (!eq)
			goto bad;
		*eq = '\0';
		for (k = 0; k < 8 && strcmp(item, keys[k]) != 0; k++)
			;
		if (k == 8 || seen & (1 << k))
			goto bad;
		seen |= 1 << k;
		if (k == 1) {
			if (strlen(eq + 1) >= sizeof(en->cluster) ||
			    !spool_cluster_ok(eq + 1))
				goto bad;
			snprintf(en->cluster, sizeof(en->cluster), "%s",
				 eq + 1);
			continue;
		}
		/* job ids and times are whole; figures as jobrecord.h's */
		v[k] = spool_number(eq + 1, k == 0 ? 4294967295.0
					  : k == 2 ? 1e11 : k == 6 ? 1e9
					  : k == 7 ? 1e18 : 1e15);
		if (v[k] < 0 || ((k == 0 || k == 2 || k == 6) &&
				 v[k] != floor(v[k])))
			goto bad;
	}
	/* done= is a chained job's, optional */
	if ((seen & 0x7f) != 0x7f || v[0] < 1)
		goto bad;
	en->job_id = (unsigned long)v[0];
	en->ended_s = (long)v[2];
	en->m.tokens_per_s = v[3];
	en->m.step_s = v[4];
	en->m.mem_bytes = v[5];
	en->m.lines = (int)v[6];
	en->m.tokens_done = v[7];
	return AUTOSIZE_OK;
bad:
	return autosize_fail(e, AUTOSIZE_EINVAL, "%s: malformed entry (keys "
			     "job, cluster, ended, tok_s, step_s, mem_b, lines "
			     "once each, done at most once, numbers in range)",
			     what);
}

int autosize_spool_open(const char *path, int create, autosize_error *e)
{
	struct stat st;
	int fd;

	if (path[0] != '/')
		return autosize_fail(e, AUTOSIZE_EINVAL, "spool %.200s: give "
				     "an absolute path", path), -1;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create &&
	    (mkdir(path, 0700) == 0 || errno == EEXIST))
		fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			  O_CLOEXEC);
	if (fd < 0)
		return autosize_fail(e, AUTOSIZE_EIO, "spool %.200s: %s (a "
				     "folder, not a link)", path,
				     strerror(errno)), -1;
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0) {
		autosize_fail(e, AUTOSIZE_EINVAL, "spool %.200s: owned by uid "
			      "%u with mode %04o; it must be uid %u's alone "
			      "(chown %u %.200s; chmod 700 %.200s)", path,
			      (unsigned)st.st_uid,
			      (unsigned)(st.st_mode & 07777),
			      (unsigned)geteuid(), (unsigned)geteuid(), path,
			      path);
		close(fd);
		return -1;
	}
	return fd;
}

/* Write all of buf to fd; 0 or -1. */
static int spool_write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

autosize_err autosize_spool_put(int dirfd, const autosize_spool_entry *en,
				autosize_error *e)
{
	char line[AUTOSIZE_SPOOL_ENTRY_MAX], name[SPOOL_NAME_MAX];
	char tmp[SPOOL_NAME_MAX + 24];
	struct stat st;
	int n, fd, rc;

	n = autosize_spool_entry_encode(en, line, sizeof(line) - 1);
	if (n < 0)
		return autosize_fail(e, AUTOSIZE_EINVAL, "spool: job %lu's "
				     "entry does not fit or its cluster name "
				     "is not [A-Za-z0-9._-]", en->job_id);
	line[n++] = '\n';
	spool_name(en->job_id, name, sizeof(name));
	/* bounded: a full spool refuses new jobs, not a job's new run */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 &&
	    autosize_spool_list(dirfd, NULL, 0) >= AUTOSIZE_SPOOL_MAX_ENTRIES)
		return autosize_fail(e, AUTOSIZE_ETOOBIG, "spool: full (%d "
				     "entries): job %lu's figures not kept; "
				     "`autosize spool` lists them",
				     AUTOSIZE_SPOOL_MAX_ENTRIES, en->job_id);
	snprintf(tmp, sizeof(tmp), ".%s.%ld", name, (long)getpid());
	(void)unlinkat(dirfd, tmp, 0);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
	if (fd < 0)
		return autosize_fail(e, AUTOSIZE_EIO, "spool: cannot write job "
				     "%lu's entry: %s", en->job_id,
				     strerror(errno));
	/* on disk before it replaces anything: it must outlive a crash */
	rc = spool_write_all(fd, line, (size_t)n) != 0 || fsync(fd) != 0;
	rc |= close(fd) != 0;
	if (rc || renameat(dirfd, tmp, dirfd, name) != 0) {
		int err = errno;

		(void)unlinkat(dirfd, tmp, 0);
		return autosize_fail(e, AUTOSIZE_EIO, "spool: cannot write job "
				     "%lu's entry: %s", en->job_id,
				     strerror(err));
	}
	return AUTOSIZE_OK;
}

static int spool_id_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return (x > y) - (x < y);
}

int autosize_spool_list(int dirfd, unsigned long *ids, int max)
{
	struct dirent *de;
	DIR *d;
	int fd = dup(dirfd), n = 0;

	if (fd < 0)
		return 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	rewinddir(d);
	while ((de = readdir(d)) != NULL) {
		unsigned long id = spool_name_id(de->d_name);

		if (id == 0)
			continue;
		if (ids && n < max)
			ids[n] = id;
		n++;
	}
	closedir(d);
	if (ids)
		qsort(ids, (size_t)(n < max ? n : max), sizeof(*ids),
		      spool_id_cmp);
	return n;
}

autosize_err autosize_spool_get(int dirfd, unsigned long id,
				autosize_spool_entry *en, time_t *tried,
				autosize_error *e)
{
	char name[SPOOL_NAME_MAX], what[64], buf[AUTOSIZE_SPOOL_ENTRY_MAX];
	struct stat st;
	ssize_t got;
	int fd;

	spool_name(id, name, sizeof(name));
	snprintf(what, sizeof(what), "spool entry %s", name);
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC);
	if (fd < 0)
		return autosize_fail(e, errno == ENOENT ? AUTOSIZE_ENOTFOUND
				     : AUTOSIZE_EIO, "%s: %s", what,
				     strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || st.st_nlink != 1 ||
	    st.st_size >= (off_t)sizeof(buf)) {
		close(fd);
		return autosize_fail(e, AUTOSIZE_EINVAL, "%s: not a regular "
				     "file of uid %u's, of one link and under "
				     "%zu bytes", what, (unsigned)geteuid(),
				     sizeof(buf));
	}
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got < 0)
		return autosize_fail(e, AUTOSIZE_EIO, "%s: %s", what,
				     strerror(errno));
	if (autosize_spool_entry_decode(buf, (size_t)got, what, en, e))
		return e ? e->code : AUTOSIZE_EINVAL;
	if (en->job_id != id)
		return autosize_fail(e, AUTOSIZE_EINVAL, "%s: holds job %lu",
				     what, en->job_id);
	*tried = st.st_mtime;
	return AUTOSIZE_OK;
}

void autosize_spool_tried(int dirfd, unsigned long id)
{
	char name[SPOOL_NAME_MAX];

	spool_name(id, name, sizeof(name));
	(void)utimensat(dirfd, name, NULL, AT_SYMLINK_NOFOLLOW);
}

void autosize_spool_remove(int dirfd, unsigned long id)
{
	char name[SPOOL_NAME_MAX];

	spool_name(id, name, sizeof(name));
	(void)unlinkat(dirfd, name, 0);
}
