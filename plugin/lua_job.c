/*
 * autosize: decode what job_submit.lua reads from job_desc: Slurm's
 * sentinels for numbers the user did not give, and GPU counts inside tres
 * strings. Plain C, no Lua calls; every input is untrusted.
 */
#include <math.h>
#include <string.h>
#include "lua_autosize.h"

/* Largest node count / minutes taken as given; anything above is capped
 * (the core then reports it against the partition's limits). */
#define LUA_JOB_NUMBER_MAX 10000000L
#define LUA_JOB_GPUS_MAX 1024
#define LUA_JOB_TRES_TOKEN_MAX 128

void lua_job_init(lua_job *job)
{
	memset(job, 0, sizeof(*job));
	job->min_nodes = LUA_JOB_UNSET;
	job->max_nodes = LUA_JOB_UNSET;
	job->gpus_per_node = LUA_JOB_UNSET;
	job->gpus = LUA_JOB_UNSET;
	job->time_limit_min = LUA_JOB_UNSET;
}

long lua_job_number(int present, double v)
{
	if (!present || isnan(v) || v < 0 || v == LUA_AUTOSIZE_NO_VAL)
		return LUA_JOB_UNSET;
	if (v == LUA_AUTOSIZE_INFINITE)
		return LUA_JOB_UNLIMITED;
	/* NO_VAL16 / NO_VAL64 never reach these 32-bit fields, but a
	 * value past the 32-bit range is not a real request either. */
	if (v > LUA_AUTOSIZE_INFINITE)
		return LUA_JOB_UNSET;
	if (v > (double)LUA_JOB_NUMBER_MAX)
		return LUA_JOB_NUMBER_MAX;
	return (long)v;
}

/* A whole number 1..LUA_JOB_GPUS_MAX spelled in decimal digits only. */
static int lua_job_count(const char *s, size_t n)
{
	long v = 0;
	size_t i;

	if (n == 0 || n > 4)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v >= 1 && v <= LUA_JOB_GPUS_MAX ? (int)v : -1;
}

/* One entry of a tres list: the GPU count, UNSET when it is not a GPU,
 * GIVEN_UNKNOWN when it is one we cannot read. */
static int lua_job_tres_token(const char *tok, size_t n)
{
	const char *end = tok + n, *last;
	int count;

	if (n >= 5 && (strncmp(tok, "gres:", 5) == 0 ||
		       strncmp(tok, "gres/", 5) == 0)) {
		tok += 5;
		n -= 5;
	}
	if (n < 3 || strncmp(tok, "gpu", 3) != 0)
		return LUA_JOB_UNSET;
	if (n == 3)
		return 1;  /* "gres:gpu": one GPU */
	if (tok[3] != ':' && tok[3] != '=')
		return LUA_JOB_UNSET;  /* "gpuX...": another gres */
	/* gpu:N, gpu:TYPE:N, gpu=N; a bare type means one GPU. */
	for (last = end; last > tok + 3 && last[-1] != ':' &&
	     last[-1] != '='; last--)
		;
	count = lua_job_count(last, (size_t)(end - last));
	if (count > 0)
		return count;
	if (last == tok + 4 && memchr(tok + 4, ':', n - 4) == NULL &&
	    n > 4 && tok[3] == ':')
		return 1;  /* gpu:TYPE */
	return LUA_JOB_GIVEN_UNKNOWN;
}

int lua_job_env_ours(const char *entry)
{
	static const char model[] = AUTOSIZE_ENV_MODEL "=";

	return strncmp(entry, AUTOSIZE_SPANK_OPTION_PREFIX,
		       sizeof(AUTOSIZE_SPANK_OPTION_PREFIX) - 1) == 0 ||
	       strncmp(entry, model, sizeof(model) - 1) == 0;
}

int lua_job_tres_gpus(const char *tres)
{
	const char *p = tres, *comma;
	int found = LUA_JOB_UNSET, g;
	size_t n;

	if (!tres)
		return LUA_JOB_UNSET;
	while (*p) {
		comma = strchr(p, ',');
		n = comma ? (size_t)(comma - p) : strlen(p);
		if (n > 0 && n < LUA_JOB_TRES_TOKEN_MAX) {
			g = lua_job_tres_token(p, n);
			if (g != LUA_JOB_UNSET) {
				/* two GPU entries: not something we size */
				if (found != LUA_JOB_UNSET)
					return LUA_JOB_GIVEN_UNKNOWN;
				found = g;
			}
		} else if (n > 0 && strstr(p, "gpu") &&
			   (size_t)(strstr(p, "gpu") - p) < n) {
			found = LUA_JOB_GIVEN_UNKNOWN;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	return found;
}
