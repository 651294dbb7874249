/*
 * autosize: the Lua 5.1 module `autosize` for slurmctld's job_submit.lua.
 * Internal to plugin/lua_*.c (nothing here is exported: see lua.map).
 *
 * lua_autosize.c  Lua entry points: argument checks, lua_pcall wrappers,
 *                 result tables.
 * lua_policy.c    the one policy cache (reload on change, keep last good).
 * lua_job.c       what job_submit.lua passes about a job (sentinels,
 *                 tres strings) as a C struct.
 * lua_decide.c    the decision: rewrite / warn / reject / none for a job,
 *                 in plain C (no Lua calls).
 */
#ifndef AUTOSIZE_LUA_AUTOSIZE_H
#define AUTOSIZE_LUA_AUTOSIZE_H

#include <stddef.h>
#include "autosize/error.h"
#include "autosize/jobenv.h"
#include "autosize/plan.h"
#include "autosize/policy.h"

/* Slurm's "unset" and "unlimited" for 32-bit job_desc numbers
 * (slurm.h NO_VAL, INFINITE). */
#define LUA_AUTOSIZE_NO_VAL 4294967294.0
#define LUA_AUTOSIZE_INFINITE 4294967295.0
/* lua_job number fields: not given, or --time=UNLIMITED. */
#define LUA_JOB_UNSET (-1)
#define LUA_JOB_GIVEN_UNKNOWN (-2) /* a GPU request we cannot read */
#define LUA_JOB_UNLIMITED (-3)
/* Partition field: Slurm allows a comma list of partitions. */
#define LUA_JOB_PARTITION_MAX 256
#define LUA_AUTOSIZE_LINE_MAX 640

/* ---- lua_policy.c ---- */

/*
 * Make the cache current for path: reload when the file's device, inode,
 * size or mtime changed. A broken or unreadable file keeps the last good
 * policy (or the built-in defaults when there never was one). Returns 0
 * when there is nothing new to report, or -1 with msg filled the first
 * time a given broken version of the file is seen.
 */
int lua_policy_refresh(const char *path, char *msg, size_t len);

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
 * cache is freed when the last state closes. */
void lua_policy_retain(void);
void lua_policy_release(void);

/* ---- lua_job.c ---- */

/* What job_submit.lua passes about the job, decoded. */
typedef struct lua_job {
	char partition[LUA_JOB_PARTITION_MAX]; /* "" = none given */
	long min_nodes;     /* LUA_JOB_UNSET when Slurm's NO_VAL / absent */
	long max_nodes;
	int gpus_per_node;  /* from tres_per_node "gres:gpu:N"; UNSET or
			     * GIVEN_UNKNOWN */
	int gpus;           /* from tres_per_job "gres:gpu:N" (--gpus) */
	long time_limit_min; /* UNSET, UNLIMITED or minutes */
} lua_job;

void lua_job_init(lua_job *job);

/* A job_desc number as Slurm sends it: -1 for absent / NaN / NO_VAL,
 * LUA_JOB_UNLIMITED for INFINITE, else the value (capped at 1e7). */
long lua_job_number(int present, double v);

/*
 * 1 when a spank_job_env entry is one the core decodes (an autosize SPANK
 * option or AUTOSIZE_MODEL). Only those are handed to the core: the rest
 * of a job's environment is not ours to read, and the core's decoder must
 * not see entries shorter than its prefix.
 */
int lua_job_env_ours(const char *entry);

/* GPUs in a tres string ("gres:gpu:8", "gres:gpu:a100:2", "gres/gpu=4",
 * "gpu:8", comma lists): the count, LUA_JOB_UNSET when no GPU entry,
 * LUA_JOB_GIVEN_UNKNOWN when the GPU entry is unreadable. */
int lua_job_tres_gpus(const char *tres);

/* ---- lua_decide.c ---- */

typedef enum lua_action {
	LUA_ACTION_NONE = 0, /* leave the job (maybe with a message) */
	LUA_ACTION_REWRITE,  /* write the fields marked in set_* */
	LUA_ACTION_WARN,     /* leave the job, tell the user the plan */
	LUA_ACTION_EXPLAIN,  /* --autosize=explain: as warn, more detail */
	LUA_ACTION_REJECT    /* refuse the submission with message */
} lua_action;

typedef struct lua_decision {
	int has_options;     /* 0: not an autosize job, never touch it */
	lua_action action;
	/* Why a job is rejected or warned about: "input" (bad options),
	 * "unfit" (no plan fits), "internal" (the plugin failed); "". */
	const char *reason;
	char message[LUA_AUTOSIZE_LINE_MAX]; /* one line for the user */
	char summary[LUA_AUTOSIZE_LINE_MAX]; /* one-line plan, "" if none */
	char error[AUTOSIZE_MSG_LEN]; /* internal failure, "" if none */
	int has_plan;        /* the fields below hold a plan */
	char partition[AUTOSIZE_PART_NAME_MAX];
	int nodes;
	int gpus_per_node;
	long time_limit_min; /* 0 = no time known (no --train-tokens) */
	int chained_jobs;
	/* For LUA_ACTION_REWRITE: which job_desc fields to write. */
	int set_nodes, set_gpus, set_time, set_partition;
	/* The user's own size, when given (kept or replaced). */
	int explicit_nodes, explicit_gpus, explicit_time;
	int n_warnings;
	char warnings[AUTOSIZE_MAX_WARNINGS][AUTOSIZE_WARNING_LEN];
} lua_decision;

/* Scratch space for lua_decide (large: kept off the C stack). */
typedef struct lua_decide_work {
	autosize_request req;
	autosize_request alt;
	autosize_plan plan;
	autosize_plan best;
	autosize_plan first;  /* the requested partition's attempt */
	autosize_plan other;
} lua_decide_work;

/*
 * Decide what to do with one job: env are its spank_job_env entries (n
 * of them, at most AUTOSIZE_JOBENV_MAX_ENTRIES are looked at), job what
 * job_submit.lua read from job_desc, p the site policy (NULL: the plugin
 * failed to build even the defaults). Never fails: every outcome,
 * internal errors included, is a decision.
 */
void lua_decide(const autosize_policy *p, const char *const *env, size_t n,
		const lua_job *job, lua_decide_work *w, lua_decision *d);

const char *lua_action_name(lua_action a);

#endif
