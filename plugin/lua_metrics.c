/*
 * autosize: slurmctld's decisions counted and written for monitoring
 * (autosize/metrics.h): job_submit.lua names the file
 * (settings.metrics_file, none by default); each decision adds to the
 * counters and, at most every metrics_every seconds, the file is
 * replaced whole. No socket, nothing read: a few counters a decision and
 * a small file write now and then, under the module's own lock.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "lua_autosize.h"
#include "autosize/metrics.h"

static struct {
	pthread_mutex_t lock;
	autosize_metrics m;
	char path[AUTOSIZE_PATH_MAX];
	double every_s;
	int failed;          /* the last write failed: said once */
} lua_metrics = { PTHREAD_MUTEX_INITIALIZER, {{0}, {0}, 0, {0}, 0, 0, 0},
		  "", AUTOSIZE_METRICS_EVERY_S, 0 };

double lua_metrics_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

int lua_metrics_file(const char *path, double every_s, char *msg,
		     size_t len)
{
	int rv = 0;

	pthread_mutex_lock(&lua_metrics.lock);
	if (!path || !path[0]) {
		lua_metrics.path[0] = '\0';
	} else if (path[0] != '/' ||
		   strlen(path) >= sizeof(lua_metrics.path) - 32) {
		snprintf(msg, len, "autosize: metrics_file %.200s: expected an "
			 "absolute path (node exporter's textfile folder, "
			 "e.g. /var/lib/prometheus/node-exporter/"
			 "autosize.prom): no metrics written", path);
		lua_metrics.path[0] = '\0';
		rv = -1;
	} else if (strcmp(path, lua_metrics.path) != 0) {
		snprintf(lua_metrics.path, sizeof(lua_metrics.path), "%s",
			 path);
		lua_metrics.m.last_write_s = 0;  /* write at the next one */
		lua_metrics.failed = 0;
	}
	lua_metrics.every_s = every_s >= 1 && every_s <= 3600
			      ? every_s : AUTOSIZE_METRICS_EVERY_S;
	pthread_mutex_unlock(&lua_metrics.lock);
	return rv;
}

int lua_metrics_add(const autosize_decision *d, double seconds, char *msg,
		    size_t len)
{
	int rv = 0, wrote;

	pthread_mutex_lock(&lua_metrics.lock);
	autosize_metrics_add(&lua_metrics.m, d, seconds);
	wrote = autosize_metrics_flush(&lua_metrics.m, lua_metrics.path,
				       lua_metrics_now(), lua_metrics.every_s);
	if (wrote > 0)
		lua_metrics.failed = 0;
	if (wrote < 0 && !lua_metrics.failed) {
		lua_metrics.failed = 1;
		snprintf(msg, len, "autosize: metrics_file %.200s: cannot "
			 "write it (%m); tried again every %.0f s",
			 lua_metrics.path, lua_metrics.every_s);
		rv = -1;
	}
	pthread_mutex_unlock(&lua_metrics.lock);
	return rv;
}
