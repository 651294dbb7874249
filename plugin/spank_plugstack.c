/*
 * autosize SPANK plugin: is this plugin `required` or `optional` in the
 * node's plugstack.conf? Slurm ignores the return codes of an optional
 * plugin, so gpu_check: enforce refuses nothing there; the plugin says so.
 *
 * Read the way Slurm 22.05 reads it (src/common/plugstack.c): the file is
 * PlugStackConfig= in slurm.conf, else plugstack.conf beside slurm.conf;
 * lines "required|optional PATH [ARGS]" and "include GLOB" (relative to the
 * including file's folder); '#' starts a comment. The plugin's line is the
 * first whose PATH has the same file name as the plugin.
 */
#define _GNU_SOURCE /* dladdr */
#include <ctype.h>
#include <dlfcn.h>
#include <glob.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "spank_common.h"

#define PLUGSTACK_LINE_MAX 4096
#define PLUGSTACK_DEPTH_MAX 4

static const char *plugstack_basename(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The next blank-separated word of *s into buf ("" at the end). */
static void plugstack_word(char **s, char *buf, size_t len)
{
	char *p = *s;
	size_t n = 0;

	while (*p && isspace((unsigned char)*p))
		p++;
	while (p[n] && !isspace((unsigned char)p[n]))
		n++;
	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
	*s = p + n;
}

/* dir of file (with the trailing '/') into buf. */
static void plugstack_dirname(const char *file, char *buf, size_t len)
{
	const char *s = strrchr(file, '/');

	snprintf(buf, len, "%.*s", s ? (int)(s - file + 1) : 0, file);
}

static int plugstack_file(const char *file, const char *name, int depth,
			  char *where, size_t len);

/* "include GLOB": every file it matches, in order. */
static int plugstack_include(const char *from, const char *pattern,
			     const char *name, int depth, char *where,
			     size_t len)
{
	char full[AUTOSIZE_PATH_MAX], dir[AUTOSIZE_PATH_MAX];
	glob_t g;
	size_t i;
	int rv = AUTOSIZE_PLUGSTACK_UNKNOWN;

	int n;

	if (pattern[0] == '/')
		dir[0] = '\0';
	else
		plugstack_dirname(from, dir, sizeof(dir));
	n = snprintf(full, sizeof(full), "%s%s", dir, pattern);
	if (n < 0 || (size_t)n >= sizeof(full) ||
	    glob(full, 0, NULL, &g) != 0)
		return rv;
	for (i = 0; i < g.gl_pathc && rv == AUTOSIZE_PLUGSTACK_UNKNOWN; i++)
		rv = plugstack_file(g.gl_pathv[i], name, depth + 1, where,
				    len);
	globfree(&g);
	return rv;
}

static int plugstack_file(const char *file, const char *name, int depth,
			  char *where, size_t len)
{
	char line[PLUGSTACK_LINE_MAX], kind[16], path[AUTOSIZE_PATH_MAX];
	FILE *f;
	int n = 0, rv = AUTOSIZE_PLUGSTACK_UNKNOWN;

	if (depth > PLUGSTACK_DEPTH_MAX || !(f = fopen(file, "re")))
		return rv;
	while (rv == AUTOSIZE_PLUGSTACK_UNKNOWN &&
	       fgets(line, sizeof(line), f)) {
		char *s = line, *hash = strchr(line, '#');

		n++;
		if (hash)
			*hash = '\0';
		plugstack_word(&s, kind, sizeof(kind));
		plugstack_word(&s, path, sizeof(path));
		if (!path[0])
			continue;
		if (strcmp(kind, "include") == 0) {
			rv = plugstack_include(file, path, name, depth, where,
					       len);
			continue;
		}
		if (strcmp(plugstack_basename(path), name) != 0)
			continue;
		if (strcmp(kind, "required") == 0)
			rv = AUTOSIZE_PLUGSTACK_REQUIRED;
		else if (strcmp(kind, "optional") == 0)
			rv = AUTOSIZE_PLUGSTACK_OPTIONAL;
		else
			continue;
		snprintf(where, len, "%.200s:%d", file, n);
	}
	fclose(f);
	return rv;
}

/* PlugStackConfig= from slurm.conf, else plugstack.conf beside it. */
static void plugstack_path(const char *slurm_conf, char *buf, size_t len)
{
	char line[PLUGSTACK_LINE_MAX], dir[AUTOSIZE_PATH_MAX];
	FILE *f = fopen(slurm_conf, "re");

	int n;

	plugstack_dirname(slurm_conf, dir, sizeof(dir));
	n = snprintf(buf, len, "%splugstack.conf", dir);
	if (n < 0 || (size_t)n >= len)
		buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		char *s = line, *hash = strchr(line, '#');

		if (hash)
			*hash = '\0';
		while (isspace((unsigned char)*s))
			s++;
		if (strncasecmp(s, "PlugStackConfig=", 16) != 0)
			continue;
		s += 16;
		plugstack_word(&s, buf, len);
	}
	if (f)
		fclose(f);
}

int autosize_spank_plugstack_mode(const char *slurm_conf, const char *plugin,
				  char *where, size_t len)
{
	char file[AUTOSIZE_PATH_MAX];

	if (where && len > 0)
		where[0] = '\0';
	if (!slurm_conf || !slurm_conf[0] || !plugin || !plugin[0])
		return AUTOSIZE_PLUGSTACK_UNKNOWN;
	plugstack_path(slurm_conf, file, sizeof(file));
	return plugstack_file(file, plugstack_basename(plugin), 0, where, len);
}

int autosize_spank_plugstack_self(char *where, size_t len)
{
	const char *conf = getenv("SLURM_CONF");
	Dl_info info;

	if (where && len > 0)
		where[0] = '\0';
	/* slurmd exports SLURM_CONF to slurmstepd; Debian's default else. */
	if (!conf || !conf[0])
		conf = AUTOSIZE_SPANK_DEFAULT_SLURM_CONF;
	if (dladdr((void *)autosize_spank_plugstack_self, &info) == 0 ||
	    !info.dli_fname)
		return AUTOSIZE_PLUGSTACK_UNKNOWN;
	return autosize_spank_plugstack_mode(conf, info.dli_fname, where, len);
}

void autosize_spank_plugstack_check(void)
{
	const autosize_spank_config *cfg = autosize_spank_config_get();
	autosize_policy *policy;
	autosize_error err;
	char where[AUTOSIZE_PATH_MAX + 16];

	if (cfg->disabled)
		return;
	/* A policy that cannot be read is said by every step. */
	policy = autosize_spank_policy_load(cfg->policy, &err);
	if (!policy)
		return;
	if (autosize_policy_defaults(policy)->gpu_check ==
	    AUTOSIZE_GPU_CHECK_ENFORCE &&
	    autosize_spank_plugstack_self(where, sizeof(where)) ==
	    AUTOSIZE_PLUGSTACK_OPTIONAL)
		slurm_error("autosize: %.200s sets gpu_check: enforce but %s "
			    "loads the plugin as optional: Slurm ignores its "
			    "refusals and starts mismatching steps; write "
			    "required there", cfg->policy, where);
	autosize_policy_destroy(policy);
}
