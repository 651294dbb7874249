/*
 * autosize: the Lua module's one piece of state: the current site policy.
 *
 * job_submit.lua calls autosize.load_policy(path) for every job; a stat()
 * tells whether the file changed (device, inode, size, mtime). A file that
 * fails to load keeps the last good policy; its error is reported once per
 * version of the file, so slurmctld's log gets one line per broken edit,
 * not one per job. The files the policy names (`catalog:`, `perf:`, and
 * `calibration:`, which `autosize calibrate` rewrites from cron) are part
 * of its version: a new version of any reloads the policy, a broken one
 * keeps the last good policy.
 *
 * A file caught while it is being written must not load as a policy (a
 * prefix of a YAML file is often valid YAML): a version whose files
 * changed in the last settle_s seconds is not loaded yet (the last good
 * policy serves meanwhile), and one that changes while it is read is
 * dropped. Editors and `autosize calibrate` that rename a complete file
 * into place are never caught at all. A file dated in the future (its
 * file server's clock, or a touch, ahead of this host's) has no age to
 * wait for: it loads once it has stayed the same for settle_s by this
 * host's own clock, and the load says by how much it is ahead, once.
 *
 * slurmctld runs job_submit.lua under its own lock; the mutex here only
 * guards against a second Lua state in the same process (a plan holds it
 * while it reads the policy).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "lua_autosize.h"

/* One version of the policy file, as stat() sees it. */
typedef struct lua_policy_key {
	int stat_errno;       /* 0: stat worked and the fields below hold */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
} lua_policy_key;

/* A version of the policy: its file and the files it names. */
typedef struct lua_policy_version {
	lua_policy_key file;
	lua_policy_key named[AUTOSIZE_POLICY_MAX_FILES];
} lua_policy_version;

static struct {
	pthread_mutex_t lock;
	int refs;                 /* Lua states that loaded the module */
	autosize_policy *policy;  /* last good, or built-in defaults */
	int builtin;              /* 1: policy is the built-in defaults */
	char path[AUTOSIZE_PATH_MAX]; /* the path asked for */
	char source[AUTOSIZE_PATH_MAX]; /* where policy came from */
	int have_good;
	lua_policy_version good;  /* the version policy was loaded from */
	int have_bad;
	lua_policy_version bad;   /* the last version that failed, reported */
	/* files dated in the future, since when each has been seen as it
	 * is (this host's monotonic clock) */
	struct {
		lua_policy_key key;
		struct timespec since;
	} ahead[1 + AUTOSIZE_POLICY_MAX_FILES];
} lua_cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int lua_policy_key_equal(const lua_policy_key *a,
				const lua_policy_key *b)
{
	if (a->stat_errno || b->stat_errno)
		return a->stat_errno == b->stat_errno;
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec;
}

static void lua_policy_stat(const char *path, lua_policy_key *k)
{
	struct stat st;

	memset(k, 0, sizeof(*k));
	if (stat(path, &st) != 0) {
		k->stat_errno = errno ? errno : EIO;
		return;
	}
	k->dev = st.st_dev;
	k->ino = st.st_ino;
	k->size = st.st_size;
	k->mtime = st.st_mtim;
}

/* Built-in defaults when there is no policy at all (first load failed). */
static void lua_policy_fallback(void)
{
	autosize_error e;

	if (lua_cache.policy)
		return;
	lua_cache.policy = autosize_policy_default(&e);
	lua_cache.builtin = lua_cache.policy != NULL;
	lua_cache.source[0] = '\0';
}

static int lua_policy_version_equal(const lua_policy_version *a,
				    const lua_policy_version *b)
{
	int i;

	if (!lua_policy_key_equal(&a->file, &b->file))
		return 0;
	for (i = 0; i < AUTOSIZE_POLICY_MAX_FILES; i++)
		if (!lua_policy_key_equal(&a->named[i], &b->named[i]))
			return 0;
	return 1;
}

/* The version of path with the files policy p names (p NULL: the ones
 * the current policy names; a file not named is ENOENT). */
static void lua_policy_version_of(const char *path, const autosize_policy *p,
				  lua_policy_version *v)
{
	const char *named;
	int i;

	if (!p && !lua_cache.builtin)
		p = lua_cache.policy;
	lua_policy_stat(path, &v->file);
	for (i = 0; i < AUTOSIZE_POLICY_MAX_FILES; i++) {
		named = p ? autosize_policy_file_at(p, i) : NULL;
		if (named) {
			lua_policy_stat(named, &v->named[i]);
		} else {
			memset(&v->named[i], 0, sizeof(v->named[i]));
			v->named[i].stat_errno = ENOENT;
		}
	}
}

static double lua_policy_seconds(const struct timespec *a,
				 const struct timespec *b)
{
	return (double)(a->tv_sec - b->tv_sec) +
	       (a->tv_nsec - b->tv_nsec) / 1e9;
}

/* How long k, dated in the future, has been seen as it is now (s): 0
 * the first time. */
static double lua_policy_ahead_seen(const lua_policy_key *k)
{
	struct timespec mono;
	size_t i, n = sizeof(lua_cache.ahead) / sizeof(lua_cache.ahead[0]);
	size_t slot = 0;

	clock_gettime(CLOCK_MONOTONIC, &mono);
	for (i = 0; i < n; i++) {
		if (lua_policy_key_equal(&lua_cache.ahead[i].key, k))
			return lua_policy_seconds(&mono,
						  &lua_cache.ahead[i].since);
		/* the oldest entry makes room */
		if (lua_policy_seconds(&lua_cache.ahead[slot].since,
				       &lua_cache.ahead[i].since) > 0)
			slot = i;
	}
	lua_cache.ahead[slot].key = *k;
	lua_cache.ahead[slot].since = mono;
	return 0;
}

/* 1 when a file of v changed less than settle_s seconds ago: it may
 * still be being written. A file dated in the future: until it has
 * stayed as it is for settle_s by this host's clock. *ahead_s: the most
 * a file of v is dated ahead (0: none), *ahead_i its index (-1 the
 * policy file). */
static int lua_policy_version_fresh(const lua_policy_version *v,
				    double settle_s, double *ahead_s,
				    int *ahead_i)
{
	struct timespec now;
	const lua_policy_key *k;
	double age_s;
	int i, fresh = 0;

	*ahead_s = 0;
	*ahead_i = -1;
	clock_gettime(CLOCK_REALTIME, &now);
	for (i = -1; i < AUTOSIZE_POLICY_MAX_FILES; i++) {
		k = i < 0 ? &v->file : &v->named[i];
		if (k->stat_errno)
			continue;
		age_s = lua_policy_seconds(&now, &k->mtime);
		if (age_s < 0 && -age_s > *ahead_s) {
			*ahead_s = -age_s;
			*ahead_i = i;
		}
		if (settle_s > 0 &&
		    (age_s < 0 ? lua_policy_ahead_seen(k) < settle_s
			       : age_s < settle_s))
			fresh = 1;
	}
	return fresh;
}

static int lua_policy_refresh_locked(const char *path, double settle_s,
				     char *msg, size_t len)
{
	lua_policy_version now, after;
	autosize_policy *fresh;
	autosize_error e;
	double ahead_s;
	int ahead_i;

	if (strlen(path) >= sizeof(lua_cache.path)) {
		lua_policy_fallback();
		snprintf(msg, len, "policy path is longer than %zu bytes",
			 sizeof(lua_cache.path) - 1);
		return -1;
	}
	if (strcmp(path, lua_cache.path) != 0) {
		/* Another file: its versions are new, the policy stays
		 * until the new file loads. */
		snprintf(lua_cache.path, sizeof(lua_cache.path), "%s", path);
		lua_cache.have_good = 0;
		lua_cache.have_bad = 0;
	}
	lua_policy_version_of(path, NULL, &now);
	if (lua_cache.have_good &&
	    lua_policy_version_equal(&now, &lua_cache.good)) {
		lua_cache.have_bad = 0;
		return 0;
	}
	if (lua_cache.have_bad &&
	    lua_policy_version_equal(&now, &lua_cache.bad)) {
		lua_policy_fallback();
		return 0;
	}
	if (lua_policy_version_fresh(&now, settle_s, &ahead_s, &ahead_i)) {
		lua_policy_fallback();   /* not yet: the last good serves */
		return 0;
	}
	autosize_error_clear(&e);
	fresh = now.file.stat_errno ? NULL : autosize_policy_load(path, &e);
	if (fresh) {
		/* The version read: the files the new policy names, and
		 * none of them changed while it was read. */
		lua_policy_version_of(path, fresh, &after);
		if (!lua_policy_key_equal(&now.file, &after.file) ||
		    lua_policy_version_fresh(&after, settle_s, &ahead_s,
					     &ahead_i)) {
			autosize_policy_destroy(fresh);
			lua_policy_fallback();
			return 0;   /* changed under us: the next job retries */
		}
		autosize_policy_destroy(lua_cache.policy);
		lua_cache.policy = fresh;
		lua_cache.builtin = 0;
		snprintf(lua_cache.source, sizeof(lua_cache.source), "%s",
			 path);
		lua_cache.good = after;
		lua_cache.have_good = 1;
		lua_cache.have_bad = 0;
		if (ahead_s < 1)
			return 0;
		snprintf(msg, len, "%s is dated %.0f s ahead of this host's "
			 "clock (check NTP on both): loaded, once it stayed "
			 "the same for %.0f s", ahead_i < 0 ? path
			 : autosize_policy_file_at(fresh, ahead_i), ahead_s,
			 settle_s);
		return 1;
	}
	lua_cache.bad = now;
	lua_cache.have_bad = 1;
	lua_policy_fallback();
	if (now.file.stat_errno)
		snprintf(e.msg, sizeof(e.msg), "%s: %s", path,
			 strerror(now.file.stat_errno));
	else if (!e.msg[0])
		snprintf(e.msg, sizeof(e.msg), "%s: %s", path,
			 autosize_strerror(e.code));
	if (!lua_cache.builtin)
		snprintf(msg, len, "%s (keeping the policy loaded before "
			 "from %s)", e.msg, lua_cache.source);
	else
		snprintf(msg, len, "%s (using the built-in defaults, which "
			 "have no partitions: autosize jobs pass unchanged)",
			 e.msg);
	return -1;
}

int lua_policy_refresh(const char *path, double settle_s, char *msg,
		       size_t len)
{
	int rc;

	pthread_mutex_lock(&lua_cache.lock);
	rc = lua_policy_refresh_locked(path, settle_s, msg, len);
	pthread_mutex_unlock(&lua_cache.lock);
	return rc;
}

const autosize_policy *lua_policy_acquire(void)
{
	pthread_mutex_lock(&lua_cache.lock);
	lua_policy_fallback();
	return lua_cache.policy;
}

void lua_policy_unacquire(void)
{
	pthread_mutex_unlock(&lua_cache.lock);
}

const char *lua_policy_source(void)
{
	return lua_cache.source;
}

void lua_policy_retain(void)
{
	pthread_mutex_lock(&lua_cache.lock);
	lua_cache.refs++;
	pthread_mutex_unlock(&lua_cache.lock);
}

int lua_policy_release(void)
{
	int last = 0;

	pthread_mutex_lock(&lua_cache.lock);
	if (lua_cache.refs > 0 && --lua_cache.refs == 0) {
		last = 1;
		autosize_policy_destroy(lua_cache.policy);
		lua_cache.policy = NULL;
		lua_cache.builtin = 0;
		lua_cache.path[0] = '\0';
		lua_cache.source[0] = '\0';
		lua_cache.have_good = 0;
		lua_cache.have_bad = 0;
	}
	pthread_mutex_unlock(&lua_cache.lock);
	return last;
}
