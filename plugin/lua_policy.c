/*
 * autosize: the Lua module's one piece of state: the current site policy.
 *
 * job_submit.lua calls autosize.load_policy(path) for every job; a stat()
 * tells whether the file changed (device, inode, size, mtime). A file that
 * fails to load keeps the last good policy; its error is reported once per
 * version of the file, so slurmctld's log gets one line per broken edit,
 * not one per job. The policy's calibration file (`calibration:`, which
 * `autosize calibrate` rewrites from cron) is a part of its version: a
 * new calibration reloads the policy, a broken one keeps the last good
 * policy and calibration. slurmctld runs job_submit.lua under its own lock; the
 * mutex here only guards against a second Lua state in the same process
 * (a plan holds it while it reads the policy).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "lua_autosize.h"

/* One version of the policy file, as stat() sees it. */
typedef struct lua_policy_key {
	int stat_errno;       /* 0: stat worked and the fields below hold */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
} lua_policy_key;

static struct {
	pthread_mutex_t lock;
	int refs;                 /* Lua states that loaded the module */
	autosize_policy *policy;  /* last good, or built-in defaults */
	int builtin;              /* 1: policy is the built-in defaults */
	char path[AUTOSIZE_PATH_MAX]; /* the path asked for */
	char source[AUTOSIZE_PATH_MAX]; /* where policy came from */
	int have_good;
	lua_policy_key good;      /* the version policy was loaded from */
	int have_bad;
	lua_policy_key bad;       /* the last version that failed, reported */
	lua_policy_key good_cal;  /* its calibration file's version */
	lua_policy_key bad_cal;
} lua_cache = { PTHREAD_MUTEX_INITIALIZER, 0, NULL, 0, "", "", 0, {0}, 0,
		{0}, {0}, {0} };

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

/* The version of the current policy's calibration file (stat_errno
 * ENOENT-like when there is none). */
static void lua_policy_cal_stat(lua_policy_key *k)
{
	const char *cal = lua_cache.policy && !lua_cache.builtin
			  ? autosize_policy_calibration_path(lua_cache.policy)
			  : "";

	if (!cal[0]) {
		memset(k, 0, sizeof(*k));
		k->stat_errno = ENOENT;
		return;
	}
	lua_policy_stat(cal, k);
}

static int lua_policy_refresh_locked(const char *path, char *msg,
				     size_t len)
{
	lua_policy_key key, cal;
	autosize_policy *fresh;
	autosize_error e;

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
	lua_policy_stat(path, &key);
	lua_policy_cal_stat(&cal);
	if (lua_cache.have_good &&
	    lua_policy_key_equal(&key, &lua_cache.good) &&
	    lua_policy_key_equal(&cal, &lua_cache.good_cal)) {
		lua_cache.have_bad = 0;
		return 0;
	}
	if (lua_cache.have_bad && lua_policy_key_equal(&key, &lua_cache.bad) &&
	    lua_policy_key_equal(&cal, &lua_cache.bad_cal)) {
		lua_policy_fallback();
		return 0;
	}
	autosize_error_clear(&e);
	fresh = key.stat_errno ? NULL : autosize_policy_load(path, &e);
	if (fresh) {
		autosize_policy_destroy(lua_cache.policy);
		lua_cache.policy = fresh;
		lua_cache.builtin = 0;
		snprintf(lua_cache.source, sizeof(lua_cache.source), "%s",
			 path);
		lua_cache.good = key;
		lua_policy_cal_stat(&lua_cache.good_cal);
		lua_cache.have_good = 1;
		lua_cache.have_bad = 0;
		return 0;
	}
	lua_cache.bad = key;
	lua_cache.bad_cal = cal;
	lua_cache.have_bad = 1;
	lua_policy_fallback();
	if (key.stat_errno)
		snprintf(e.msg, sizeof(e.msg), "%s: %s", path,
			 strerror(key.stat_errno));
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

int lua_policy_refresh(const char *path, char *msg, size_t len)
{
	int rc;

	pthread_mutex_lock(&lua_cache.lock);
	rc = lua_policy_refresh_locked(path, msg, len);
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

void lua_policy_release(void)
{
	pthread_mutex_lock(&lua_cache.lock);
	if (lua_cache.refs > 0 && --lua_cache.refs == 0) {
		autosize_policy_destroy(lua_cache.policy);
		lua_cache.policy = NULL;
		lua_cache.builtin = 0;
		lua_cache.path[0] = '\0';
		lua_cache.source[0] = '\0';
		lua_cache.have_good = 0;
		lua_cache.have_bad = 0;
	}
	pthread_mutex_unlock(&lua_cache.lock);
}
