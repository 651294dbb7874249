/*
 * autosize: decode what job_submit.lua reads from job_desc: Slurm's
 * sentinels for numbers the user did not give; which spank_job_env
 * entries are ours. Plain C, no Lua calls; every input is untrusted.
 */
#include <math.h>
#include <string.h>
#include "autosize/chain.h"
#include "lua_autosize.h"

/* Largest node count / minutes taken as given; anything above is capped
 * (the core then reports it against the partition's limits). */
#define LUA_JOB_NUMBER_MAX 10000000L

long lua_job_number(int present, double v)
{
	if (!present || isnan(v) || v < 0 || v == LUA_AUTOSIZE_NO_VAL)
		return AUTOSIZE_JOB_UNSET;
	if (v == LUA_AUTOSIZE_INFINITE)
		return AUTOSIZE_JOB_UNLIMITED;
	/* NO_VAL16 / NO_VAL64 never reach these 32-bit fields, but a
	 * value past the 32-bit range is not a real request either. */
	if (v > LUA_AUTOSIZE_INFINITE)
		return AUTOSIZE_JOB_UNSET;
	if (v > (double)LUA_JOB_NUMBER_MAX)
		return LUA_JOB_NUMBER_MAX;
	return (long)v;
}

int lua_job_env_ours(const char *entry)
{
	static const char model[] = AUTOSIZE_ENV_MODEL "=";
	static const char chain[] = AUTOSIZE_ENV_CHAIN "=";

	return strncmp(entry, AUTOSIZE_SPANK_OPTION_PREFIX,
		       sizeof(AUTOSIZE_SPANK_OPTION_PREFIX) - 1) == 0 ||
	       strncmp(entry, model, sizeof(model) - 1) == 0 ||
	       strncmp(entry, chain, sizeof(chain) - 1) == 0;
}
