/*
 * autosize: the Lua 5.1 module `autosize` for slurmctld's job_submit.lua.
 * Internal to plugin/lua_*.c (nothing here is exported: see lua.map).
 *
 * lua_autosize.c  Lua entry points: argument checks, lua_pcall wrappers,
 *                 result tables.
 * lua_policy.c    the one policy cache (reload on change, keep last good).
 * lua_job.c       Slurm's sentinels in job_desc numbers; which
 *                 spank_job_env entries are ours.
 * lua_limits.c    Slurm's QOS and association limits, read by a helper
 *                 process (autosize limits --raw), never waited for.
 * lua_slurm.c     what differs between the Slurm releases it runs in.
 * lua_metrics.c   the decisions counted for monitoring (metrics.h).
 * The decision itself is the core's (core/decide.c, autosize/decide.h).
 */
#ifndef AUTOSIZE_LUA_AUTOSIZE_H
#define AUTOSIZE_LUA_AUTOSIZE_H

#include <stddef.h>
#include "autosize/decide.h"
#include "autosize/error.h"
#include "autosize/jobenv.h"
#include "autosize/plan.h"
#include "autosize/policy.h"
#include "autosize/ratelimit.h"

/* Slurm's "unset" and "unlimited" for 32-bit job_desc numbers
 * (slurm.h NO_VAL, INFINITE). */
#define LUA_AUTOSIZE_NO_VAL 4294967294.0
#define LUA_AUTOSIZE_INFINITE 4294967295.0
#define LUA_AUTOSIZE_NO_VAL16 65534L
/* Longest tres string taken (longer: unreadable, never rewritten). */
#define LUA_AUTOSIZE_TRES_MAX 1024

/* ---- lua_policy.c ---- */

/*
 * Make the cache current for path: reload when the file's device, inode,
 * size or mtime changed. A broken or unreadable file keeps the last good
 * policy (or the built-in defaults when there never was one). Returns 0
 * when there is nothing new to report, or -1 with msg filled the first
 * time a given broken version of the file is seen.
 */
/* Load the policy at path when it changed (the files it names too); a
 * version younger than settle_s seconds waits, one dated in the future
 * until it has stayed the same for settle_s. 0; 1 with msg when it
 * loaded a file dated ahead of this host's clock (said once); -1 with
 * msg. */
int lua_policy_refresh(const char *path, double settle_s, char *msg,
		       size_t len);

/* Lock the cache and return the current policy: the last good one, else
 * built-in defaults; NULL only when even those could not be built (out of
 * memory). Owned by the cache; use it only until lua_policy_unacquire(),
 * which must follow every acquire (never raise a Lua error in between
 * outside a lua_pcall). */
const autosize_policy *lua_policy_acquire(void);
void lua_policy_unacquire(void);

/* Path of the file the current policy came from, "" for the built-in
 * defaults. Only between acquire and unacquire. */
const char *lua_policy_source(void);

/* Module reference count: one per Lua state that loaded the module; the
 * cache is freed when the last state closes (release returns 1 then). */
void lua_policy_retain(void);
int lua_policy_release(void);

/* ---- lua_job.c ---- */

/* A job_desc number as Slurm sends it: AUTOSIZE_JOB_UNSET for absent /
 * NaN / NO_VAL, AUTOSIZE_JOB_UNLIMITED for INFINITE, else the value
 * (capped at 1e7). */
long lua_job_number(int present, double v);

/*
 * 1 when a spank_job_env entry is one the core decodes (an autosize SPANK
 * option, AUTOSIZE_MODEL or AUTOSIZE_CHAIN). Only those are handed to the
 * core: the rest of a job's environment is not ours to read, and the
 * core's decoder must not see entries shorter than its prefix.
 */
int lua_job_env_ours(const char *entry);

/* ---- lua_limits.c ---- */

/*
 * Keep Slurm's limits current, without waiting: read what the helper
 * wrote, start `cli limits --raw` when the snapshot is older than 30 s
 * (cli "" or NULL: limits are not wanted, jobs are planned without
 * them). refresh_s and stale_s shorten those 30 s and the 5 minutes a
 * snapshot stays usable once due (0: the defaults; the tests). Returns
 * 0, or -1 with msg filled the first time a given failure is seen (for
 * slurmctld's log).
 */
int lua_limits_refresh(const char *cli, double refresh_s, double stale_s,
		       char *msg, size_t len);

/* Lock the snapshot and return it: NULL when not wanted (*wanted 0),
 * when there is none, or when jobs have found it due for a new read for
 * 5 minutes and none came (why says why). Owned by the
 * cache; lua_limits_unacquire() must follow every acquire, unknown 1
 * when the job named a QOS or association the snapshot lacks (the next
 * refresh then reads a new one a few seconds on). */
const autosize_limits *lua_limits_acquire(int *wanted, char *why,
					  size_t len);
void lua_limits_unacquire(int unknown);

/* Free the snapshot and stop the helper (the last Lua state closed). */
void lua_limits_release(void);

/* ---- lua_metrics.c ---- */

/* A monotonic clock, seconds. */
double lua_metrics_now(void);
/* The file the metrics go to ("" or NULL: none) and the seconds between
 * two writes. 0, or -1 with msg when path is not an absolute path. */
int lua_metrics_file(const char *path, double every_s, char *msg,
		     size_t len);
/* Count one decision that took seconds; write the file when due. 0, or
 * -1 with msg the first time a write fails. */
int lua_metrics_add(const autosize_decision *d, double seconds, char *msg,
		    size_t len);

/* ---- lua_slurm.c ---- */

/* How a GPU entry of tres_per_node is spelled for the slurmctld the
 * module runs in (tres: the job's own string, a hint; may be NULL).
 * Never UNKNOWN. */
autosize_tres_syntax lua_slurm_tres_syntax(const char *tres);

/* Push the table autosize.slurm: built_for ("26.05.3", absent when built
 * without Slurm's headers), api_major (of the running libslurm, absent
 * outside Slurm), tres_gpu ("gres/gpu" or "gres:gpu"). */
typedef struct lua_State lua_State;
void lua_slurm_push_info(lua_State *L);

#endif
