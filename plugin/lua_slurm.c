/*
 * autosize: which Slurm release the Lua module serves, where the releases
 * differ in what job_submit.lua may write. slurmctld 23.02 and newer
 * accept a GPU entry in job_desc.tres_per_node only as "gres/gpu:N" and
 * 22.05 only as "gres:gpu:N"; either refuses the other's spelling with
 * "Invalid Trackable RESource (TRES) specification".
 *
 * The module is not a Slurm plugin (no plugin_version), so one build can
 * be loaded by any slurmctld: the release is asked of the process it
 * runs in first (slurm_api_version(), exported by the libslurmfull that
 * slurmctld links), then read off the job's own tres string, then taken
 * from the slurm_version.h it was built with.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <lua.h>
#include "lua_autosize.h"

#if defined(__has_include)
#if __has_include(<slurm/slurm_version.h>)
#include <slurm/slurm_version.h>
#endif
#endif
#ifdef SLURM_VERSION_NUMBER
#define LUA_SLURM_BUILT_FOR ((unsigned long)SLURM_VERSION_NUMBER)
#else
#define LUA_SLURM_BUILT_FOR 0UL
#endif

/* slurm_api_version() of the process, 0 when it has none (lua5.1 in the
 * tests, a slurmctld that does not export it). */
static long lua_slurm_running_api(void)
{
	long (*api)(void);
	void *sym = dlsym(RTLD_DEFAULT, "slurm_api_version");

	if (!sym)
		return 0;
	/* POSIX: a function pointer converts from dlsym's void *. */
	*(void **)&api = sym;
	return api();
}

autosize_tres_syntax lua_slurm_tres_syntax(const char *tres)
{
	autosize_tres_syntax s;

	s = autosize_tres_syntax_of_api(lua_slurm_running_api());
	if (s == AUTOSIZE_TRES_UNKNOWN)
		s = autosize_tres_syntax_of(tres);
	if (s == AUTOSIZE_TRES_UNKNOWN)
		s = autosize_tres_syntax_of_version(LUA_SLURM_BUILT_FOR);
	return s == AUTOSIZE_TRES_UNKNOWN ? AUTOSIZE_TRES_COLON : s;
}

void lua_slurm_push_info(lua_State *L)
{
	char ver[32];
	unsigned long v = LUA_SLURM_BUILT_FOR;
	long api = lua_slurm_running_api();

	lua_createtable(L, 0, 3);
	if (v) {
		snprintf(ver, sizeof(ver), "%lu.%02lu.%lu", (v >> 16) & 0xff,
			 (v >> 8) & 0xff, v & 0xff);
		lua_pushstring(L, ver);
		lua_setfield(L, -2, "built_for");
	}
	if (api > 0) {
		lua_pushnumber(L, (lua_Number)(api >> 16));
		lua_setfield(L, -2, "api_major");
	}
	lua_pushstring(L, lua_slurm_tres_syntax(NULL) == AUTOSIZE_TRES_SLASH ?
			  "gres/gpu" : "gres:gpu");
	lua_setfield(L, -2, "tres_gpu");
}
