/*
 * autosize SPANK plugin, remote context: the job's private folder on this
 * node, for the files the plugin hands to the job (the DeepSpeed JSON;
 * later the AUTOSIZE_REPORT the training loop appends to).
 *
 * TMPDIR/autosize-JOBID-XXXXXX, made with mkdtemp (an unpredictable name,
 * retried on collision) by the job's user, mode 0700. A step on a node
 * where the job already has one (the batch step's, for the sruns of the
 * batch script) uses it: a folder of that name, not a link, owned by the
 * job's user, mode 0700, which nobody else can have made. Anything another
 * user planted under a predictable name is never used, so it cannot break
 * the job.
 *
 * Cleaning up: each step removes its own files (spank_remote.c); the
 * folder is the job's, shared by all its steps on the node (the report a
 * training step wrote is read at the batch script's end, and the batch
 * shell may append to it after an srun), so only the job's end removes
 * it: the job epilog, on every node of the job.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(SYS_openat2) && defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define JOBDIR_HAVE_OPENAT2 1
#endif
#endif
#include "spank_common.h"

#define JOBDIR_PREFIX "autosize-"
#define JOBDIR_RANDOM 6 /* mkdtemp's XXXXXX */

static struct jobdir_context {
	char path[AUTOSIZE_PATH_MAX];
	int known;       /* path is the job's folder */
	dev_t dev;
	ino_t ino;
} jobdir;

/* The job's user and group; 0 or -1. */
static int jobdir_owner(spank_t sp, uid_t *uid, gid_t *gid)
{
	if (spank_get_item(sp, S_JOB_UID, uid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_GID, gid) != ESPANK_SUCCESS)
		return -1;
	return 0;
}

/* 1 when st is a folder only uid can use: ours to put files in. */
static int jobdir_private(const struct stat *st, uid_t uid)
{
	return S_ISDIR(st->st_mode) && st->st_uid == uid &&
	       (st->st_mode & 07777) == 0700;
}

/* 1 when name is PREFIX JOBID - and six characters. */
static int jobdir_name_matches(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(name, prefix, n) == 0 &&
	       strlen(name + n) == JOBDIR_RANDOM &&
	       strchr(name + n, '/') == NULL;
}

/* A folder of this job that an earlier step on this node made; 0 when
 * found (jobdir filled), -1 when none. */
static int jobdir_find(const char *tmpdir, const char *prefix, uid_t uid)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	struct stat st;
	int rv = -1;

	if (!d)
		return -1;
	while (rv != 0 && (de = readdir(d)) != NULL) {
		int n;

		if (!jobdir_name_matches(de->d_name, prefix) ||
		    fstatat(dirfd(d), de->d_name, &st,
			    AT_SYMLINK_NOFOLLOW) != 0 ||
		    !jobdir_private(&st, uid))
			continue;
		n = snprintf(jobdir.path, sizeof(jobdir.path), "%s/%s",
			     tmpdir, de->d_name);
		if (n < 0 || (size_t)n >= sizeof(jobdir.path))
			continue;
		jobdir.dev = st.st_dev;
		jobdir.ino = st.st_ino;
		rv = 0;
	}
	closedir(d);
	return rv;
}

/* A new folder for the job: mkdtemp, then handed to the job's user when
 * this runs as root. 0 or -1 (warned). */
static int jobdir_create(const char *tmpdir, const char *prefix, uid_t uid,
			 gid_t gid)
{
	struct stat st;
	int n;

	n = snprintf(jobdir.path, sizeof(jobdir.path), "%s/%sXXXXXX", tmpdir,
		     prefix);
	if (n < 0 || (size_t)n >= sizeof(jobdir.path)) {
		autosize_spank_warn("tmpdir %.200s is too "
				"long: no job folder", tmpdir);
		return -1;
	}
	if (!mkdtemp(jobdir.path)) {
		autosize_spank_warn("cannot make a folder in "
				"tmpdir %.200s: %s", tmpdir, strerror(errno));
		return -1;
	}
	if ((geteuid() == 0 && chown(jobdir.path, uid, gid) != 0) ||
	    chmod(jobdir.path, 0700) != 0 || lstat(jobdir.path, &st) != 0 ||
	    !jobdir_private(&st, uid)) {
		autosize_spank_warn("cannot make %.200s "
				"private to the job's user: not using it",
				jobdir.path);
		(void)rmdir(jobdir.path);
		return -1;
	}
	jobdir.dev = st.st_dev;
	jobdir.ino = st.st_ino;
	return 0;
}

const char *autosize_spank_job_dir(spank_t sp)
{
	const autosize_spank_config *cfg = autosize_spank_config_get();
	char prefix[64];
	uint32_t job_id;
	uid_t uid;
	gid_t gid;

	if (jobdir.known)
		return jobdir.path;
	if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS ||
	    jobdir_owner(sp, &uid, &gid) != 0) {
		autosize_spank_warn("cannot read the job id "
				"and user: no job folder");
		return NULL;
	}
	snprintf(prefix, sizeof(prefix), JOBDIR_PREFIX "%u-", job_id);
	if (jobdir_find(cfg->tmpdir, prefix, uid) != 0 &&
	    jobdir_create(cfg->tmpdir, prefix, uid, gid) != 0)
		return NULL;
	jobdir.known = 1;
	return jobdir.path;
}

/*
 * openat(dirfd, name) that neither follows a link nor leaves dirfd's
 * file system: the job's user may mount a file system over a name in
 * its folder (FUSE, which can leave root's open or read waiting
 * forever), and openat2's RESOLVE_NO_XDEV refuses the crossing before
 * anything on the mount is asked (Linux 5.6). A kernel without openat2
 * gets O_NOFOLLOW and the device checks of the callers.
 */
static int jobdir_openat(int dirfd, const char *name, int flags)
{
#ifdef JOBDIR_HAVE_OPENAT2
	struct open_how how;
	long fd;

	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC);
	if (flags & O_CREAT)
		how.mode = 0600;   /* the job's user's alone */
	how.resolve = RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS |
		      RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH;
	fd = syscall(SYS_openat2, dirfd, name, &how, sizeof(how));
	/* ENOSYS: an older kernel; EPERM: a seccomp filter that does not
	 * know the call */
	if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
		return (int)fd;
#endif
	return openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC, 0600);
}

/* The job's folder opened, only when its name still leads to that very
 * folder (not a link nor a mount, the same device and inode); -1 when
 * not. It is opened from tmpdir (root's): the folder's own name may be
 * a mount point of the job's user. */
static int jobdir_open(void)
{
	char parent[AUTOSIZE_PATH_MAX];
	const char *base = strrchr(jobdir.path, '/');
	struct stat st;
	int fd, pfd;

	if (!base || base == jobdir.path ||
	    (size_t)(base - jobdir.path) >= sizeof(parent))
		return -1;
	memcpy(parent, jobdir.path, (size_t)(base - jobdir.path));
	parent[base - jobdir.path] = '\0';
	pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return -1;
	fd = jobdir_openat(pfd, base + 1, O_RDONLY | O_DIRECTORY);
	close(pfd);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_dev != jobdir.dev ||
	    st.st_ino != jobdir.ino) {
		close(fd);
		return -1;
	}
	return fd;
}

void autosize_spank_job_dir_unlink(const char *name, dev_t dev, ino_t ino)
{
	struct stat st;
	int fd;

	if (!jobdir.known || strchr(name, '/') || (fd = jobdir_open()) < 0)
		return;
	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode) && st.st_dev == dev && st.st_ino == ino)
		(void)unlinkat(fd, name, 0);
	close(fd);
}

int autosize_spank_job_dir_openat(const char *name, int flags)
{
	struct stat st;
	int dir, fd;

	if (!jobdir.known || strchr(name, '/') || (dir = jobdir_open()) < 0)
		return -1;
	fd = jobdir_openat(dir, name, flags);
	close(dir);
	/* on the folder's own device, whatever the kernel checked */
	if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_dev != jobdir.dev)) {
		close(fd);
		errno = EXDEV;
		return -1;
	}
	return fd;
}

/* Remove what is in the folder (one level: files, links and empty
 * folders; unlinkat never follows a link), only when its name still
 * leads to that very folder. */
static void jobdir_empty(void)
{
	struct dirent *de;
	DIR *d = NULL;
	int fd;

	fd = jobdir_open();
	if (fd < 0)
		return;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) != 0 &&
		    (errno == EISDIR || errno == EPERM))
			(void)unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
	}
	closedir(d); /* closes fd */
}

void autosize_spank_job_dir_exit(void)
{
	memset(&jobdir, 0, sizeof(jobdir));
}

void autosize_spank_job_dir_remove(spank_t sp)
{
	const autosize_spank_config *cfg = autosize_spank_config_get();
	char prefix[64];
	uint32_t job_id;
	uid_t uid;
	gid_t gid;
	int i;

	if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS ||
	    jobdir_owner(sp, &uid, &gid) != 0)
		return;
	snprintf(prefix, sizeof(prefix), JOBDIR_PREFIX "%u-", job_id);
	/* Each pass removes one (steps racing at the first use of a node
	 * can leave two); bounded. */
	for (i = 0; i < 8 && jobdir_find(cfg->tmpdir, prefix, uid) == 0;
	     i++) {
		jobdir.known = 1;
		jobdir_empty();
		if (rmdir(jobdir.path) != 0)
			break;
	}
	memset(&jobdir, 0, sizeof(jobdir));
}
