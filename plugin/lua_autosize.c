/*
 * autosize: Lua 5.1 module `autosize` for slurmctld's job_submit.lua.
 *
 *   autosize.load_policy(path[, settle_s]) -> true [, note] | nil, errmsg
 *   autosize.read_limits(cli[, refresh_s, stale_s]) -> true | nil, errmsg:
 *                                 keep Slurm's QOS and association limits
 *                                 current through the helper `cli limits
 *                                 --raw` (never waits; "" plans without
 *                                 them; shorter times for the tests)
 *   autosize.plan(env, job[, parts]) -> nil (not an autosize job) | table
 *                                 | nil, errmsg (bad arguments, failure)
 *   autosize.policy_info()     -> table describing the current policy
 *   autosize.record_check(admin_comment, change) -> nil | why: whether
 *                                 the plan record still describes the job
 *                                 after scontrol update's change
 *   autosize.admin_log_ok()    -> true, missed | false: whether one more
 *                                 sized-job line may go to slurmctld's log
 *   autosize.version
 *
 * Built without -llua: slurmctld has liblua5.1 loaded globally. Every
 * entry point returns nil, errmsg instead of raising: argument checks and
 * table reads run inside lua_pcall, and the policy lock is taken only
 * around that pcall, so no Lua error ever unwinds a C frame of ours that
 * holds a lock or memory. Scratch memory is a Lua userdata (freed by the
 * collector, whatever happens); the only state kept between calls is the
 * policy cache (lua_policy.c).
 */
#include <pthread.h>
#include <pwd.h>
#include <string.h>
#include <time.h>
#include <lua.h>
#include <lauxlib.h>
#include "lua_autosize.h"

#define LUA_AUTOSIZE_VERSION AUTOSIZE_VERSION /* from the Makefile */
#define LUA_AUTOSIZE_STATE "autosize.state"       /* its metatable */
#define LUA_AUTOSIZE_SENTINEL "autosize.sentinel" /* registry key */

int luaopen_autosize(lua_State *L);

/* ---- reading the arguments (inside lua_pcall) ---- */

/* job[key] as a job_desc number; absent and Slurm sentinels are UNSET. */
static long lua_autosize_number(lua_State *L, int t, const char *key)
{
	long v;

	lua_getfield(L, t, key);
	v = lua_job_number(lua_type(L, -1) == LUA_TNUMBER,
			   lua_type(L, -1) == LUA_TNUMBER
			   ? (double)lua_tonumber(L, -1) : 0);
	lua_pop(L, 1);
	return v;
}

/* A 16-bit job_desc number (sockets_per_node): NO_VAL16 and above are
 * UNSET. */
static long lua_autosize_number16(lua_State *L, int t, const char *key)
{
	long v = lua_autosize_number(L, t, key);

	return v >= LUA_AUTOSIZE_NO_VAL16 ? AUTOSIZE_JOB_UNSET : v;
}

/* job[key] as a tres string (NULL when absent or not a string; an
 * unreadable GPU entry when too long or with a NUL, never rewritten);
 * owned by the job table. */
static const char *lua_autosize_tres_string(lua_State *L, int t,
					    const char *key)
{
	const char *s = NULL;
	size_t len = 0;

	lua_getfield(L, t, key);
	if (lua_type(L, -1) == LUA_TSTRING) {
		s = lua_tolstring(L, -1, &len);
		if (len > LUA_AUTOSIZE_TRES_MAX || strlen(s) != len)
			s = "gpu=unreadable"; /* a GPU entry, not a count */
	}
	lua_pop(L, 1);   /* the table keeps the string alive */
	return s;
}

/* job[key] as a name into buf (len bytes): absent, too long or with a
 * NUL leaves buf "". */
static void lua_autosize_name(lua_State *L, int t, const char *key,
			      char *buf, size_t len)
{
	const char *s;
	size_t n = 0;

	buf[0] = '\0';
	lua_getfield(L, t, key);
	if (lua_type(L, -1) == LUA_TSTRING) {
		s = lua_tolstring(L, -1, &n);
		if (n < len && strlen(s) == n)
			memcpy(buf, s, n + 1);
	}
	lua_pop(L, 1);
}

/* GPUs in job[key], a tres string; UNSET when absent. */
static long lua_autosize_tres(lua_State *L, int t, const char *key)
{
	return autosize_tres_gpus(lua_autosize_tres_string(L, t, key));
}

/* job.uid (the submitting user) as a name, for the policy's `exempt:`;
 * its number when the name cannot be looked up. */
static void lua_autosize_user(lua_State *L, int t, autosize_job *job)
{
	struct passwd pw, *found = NULL;
	char buf[1024];
	double uid;

	lua_getfield(L, t, "uid");
	if (lua_type(L, -1) == LUA_TNUMBER) {
		uid = lua_tonumber(L, -1);
		if (uid >= 0 && uid < 4294967295.0) {
			if (getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf),
				       &found) == 0 && found &&
			    strlen(pw.pw_name) < sizeof(job->user))
				snprintf(job->user, sizeof(job->user), "%s",
					 pw.pw_name);
			else
				snprintf(job->user, sizeof(job->user), "%.0f",
					 uid);
		}
	}
	lua_pop(L, 1);
}

/* The GPU type the job asked for: the type of its GPU entry, in
 * whichever tres string holds it. */
static void lua_autosize_gpu_type(lua_State *L, int t, autosize_job *job)
{
	static const char *const keys[] = {
		"tres_per_node", "tres_per_job", "tres_per_task",
		"tres_per_socket"
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (autosize_tres_gpu_type(lua_autosize_tres_string(L, t,
								    keys[i]),
					   job->gpu_type,
					   sizeof(job->gpu_type)))
			return;
}

/* What the job asked of its nodes besides GPUs: --exclusive (shared 0,
 * Slurm's JOB_SHARED_NONE), CPUs and memory per GPU (cpus_per_tres,
 * mem_per_tres), CPUs per task, memory per node or CPU. */
static void lua_autosize_node(lua_State *L, int t, autosize_job *job)
{
	long v;

	job->exclusive = lua_autosize_number16(L, t, "shared") == 0;
	job->cpus_per_gpu = lua_autosize_tres(L, t, "cpus_per_tres");
	job->mem_per_gpu_mb = lua_autosize_tres(L, t, "mem_per_tres");
	if (job->cpus_per_gpu < 0)
		job->cpus_per_gpu = AUTOSIZE_JOB_UNSET;
	if (job->mem_per_gpu_mb < 0)
		job->mem_per_gpu_mb = AUTOSIZE_JOB_UNSET;
	v = lua_autosize_number16(L, t, "cpus_per_task");
	job->cpus_given = v > 0;
	/* Slurm gives these only when set */
	lua_getfield(L, t, "min_mem_per_cpu");
	job->mem_given = lua_type(L, -1) == LUA_TNUMBER;
	lua_pop(L, 1);
	lua_getfield(L, t, "min_mem_per_node");
	job->mem_given |= lua_type(L, -1) == LUA_TNUMBER;
	lua_pop(L, 1);
}

/* job.segment_size (sbatch --segment): nil where this Slurm's
 * job_submit/lua does not expose it (before 25.11), 0 or NO_VAL16 when
 * the job set none (sbatch sends 0, other clients NO_VAL16). */
static void lua_autosize_segment(lua_State *L, int t, autosize_job *job)
{
	lua_getfield(L, t, "segment_size");
	if (lua_type(L, -1) != LUA_TNUMBER)
		job->segment_nodes = AUTOSIZE_JOB_UNREADABLE;
	lua_pop(L, 1);
	if (job->segment_nodes != AUTOSIZE_JOB_UNREADABLE) {
		job->segment_nodes = lua_autosize_number16(L, t,
							   "segment_size");
		if (job->segment_nodes == 0)
			job->segment_nodes = AUTOSIZE_JOB_UNSET;
	}
}

/* Read the job table (or nil: nothing given) into job. Returns 0, or -1
 * with a message on the stack. */
static int lua_autosize_read_job(lua_State *L, int t, autosize_job *job)
{
	size_t len = 0;
	const char *s;

	autosize_job_init(job);
	if (lua_isnil(L, t) || lua_isnone(L, t))
		return 0;
	if (!lua_istable(L, t)) {
		lua_pushfstring(L, "job must be a table, not %s",
				luaL_typename(L, t));
		return -1;
	}
	lua_getfield(L, t, "partition");
	if (lua_type(L, -1) == LUA_TSTRING) {
		s = lua_tolstring(L, -1, &len);
		if (len >= sizeof(job->partition) || strlen(s) != len) {
			lua_pop(L, 1);
			lua_pushstring(L, "job.partition: not a partition "
				       "list (too long or contains NUL)");
			return -1;
		}
		memcpy(job->partition, s, len + 1);
	}
	lua_pop(L, 1);
	job->min_nodes = lua_autosize_number(L, t, "min_nodes");
	job->max_nodes = lua_autosize_number(L, t, "max_nodes");
	job->time_limit_min = lua_autosize_number(L, t, "time_limit");
	job->num_tasks = lua_autosize_number(L, t, "num_tasks");
	job->het_offset = lua_autosize_number(L, t, "het_job_offset");
	job->sockets_per_node = lua_autosize_number16(L, t,
						      "sockets_per_node");
	job->ntasks_per_node = lua_autosize_number16(L, t,
						     "ntasks_per_node");
	lua_autosize_segment(L, t, job);
	lua_getfield(L, t, "batch");
	job->batch = lua_toboolean(L, -1);
	lua_pop(L, 1);
	lua_autosize_user(L, t, job);
	lua_autosize_name(L, t, "account", job->account,
			  sizeof(job->account));
	lua_autosize_name(L, t, "qos", job->qos, sizeof(job->qos));
	lua_autosize_name(L, t, "default_qos", job->default_qos,
			  sizeof(job->default_qos));
	lua_autosize_name(L, t, "features", job->features,
			  sizeof(job->features));
	job->gpus_per_node = lua_autosize_tres(L, t, "tres_per_node");
	job->gpus_per_job = lua_autosize_tres(L, t, "tres_per_job");
	job->gpus_per_task = lua_autosize_tres(L, t, "tres_per_task");
	job->gpus_per_socket = lua_autosize_tres(L, t, "tres_per_socket");
	lua_autosize_gpu_type(L, t, job);
	lua_autosize_node(L, t, job);
	return 0;
}

/*
 * Point env[] at the string entries of the spank_job_env table at t: a
 * 0-based array from Slurm (1-based accepted too), read up to the first
 * nil and at most AUTOSIZE_JOBENV_MAX_ENTRIES entries; other types and
 * entries that are not ours (lua_job_env_ours) are skipped. The strings
 * stay owned by the table, which is on the stack for the whole call.
 * Returns the count.
 */
static size_t lua_autosize_read_env(lua_State *L, int t, const char **env)
{
	size_t n = 0, seen;
	int i;

	lua_rawgeti(L, t, 0);
	i = lua_isnil(L, -1) ? 1 : 0;
	lua_pop(L, 1);
	for (seen = 0; seen < AUTOSIZE_JOBENV_MAX_ENTRIES; seen++, i++) {
		lua_rawgeti(L, t, i);
		if (lua_isnil(L, -1)) {
			lua_pop(L, 1);
			break;
		}
		if (lua_type(L, -1) == LUA_TSTRING &&
		    lua_job_env_ours(lua_tostring(L, -1)))
			env[n++] = lua_tostring(L, -1);
		lua_pop(L, 1);
	}
	return n;
}

/* ---- building the result (inside lua_pcall) ---- */

static void lua_autosize_set_string(lua_State *L, const char *key,
				    const char *value)
{
	if (!value || !value[0])
		return;
	lua_pushstring(L, value);
	lua_setfield(L, -2, key);
}

static void lua_autosize_set_number(lua_State *L, const char *key,
				    double value)
{
	lua_pushnumber(L, value);
	lua_setfield(L, -2, key);
}

static void lua_autosize_set_bool(lua_State *L, const char *key, int value)
{
	lua_pushboolean(L, value);
	lua_setfield(L, -2, key);
}

/* A per-GPU value as a tres string ("gres/gpu:8") for cpus_per_tres
 * and mem_per_tres, in the slurmctld's syntax. */
static void lua_autosize_set_per_gpu(lua_State *L, const char *key, long v,
				     autosize_tres_syntax syntax)
{
	char tres[64];

	if (v > 0 && v < 1000000000L &&
	    autosize_tres_set_gpus_as(NULL, (int)v, syntax, tres,
				      sizeof(tres)) == 0)
		lua_autosize_set_string(L, key, tres);
}

static void lua_autosize_push_decision(lua_State *L, const autosize_decision *d,
				       const char *tres_per_node,
				       const char *tres_per_job)
{
	autosize_tres_syntax syntax = lua_slurm_tres_syntax(tres_per_node);
	int i;

	lua_createtable(L, 0, 16);
	char tres[LUA_AUTOSIZE_TRES_MAX + 32];

	lua_autosize_set_string(L, "action", autosize_action_name(d->action));
	lua_autosize_set_string(L, "reason", d->reason);
	lua_autosize_set_string(L, "message", d->message);
	lua_autosize_set_string(L, "plan", d->summary);
	lua_autosize_set_string(L, "error", d->error);
	if (d->has_plan) {
		lua_autosize_set_string(L, "record", d->record);
		lua_autosize_set_string(L, "partition", d->partition);
		lua_autosize_set_number(L, "min_nodes", d->nodes);
		lua_autosize_set_number(L, "max_nodes", d->nodes);
		lua_autosize_set_number(L, "gpus_per_node", d->gpus_per_node);
		/* The GPU entry edited in place: the other gres stay, and
		 * its type (the planned one when the partition has several) */
		if (autosize_tres_set_gpus_typed(tres_per_node,
						 d->gpus_per_node,
						 d->gres_type, syntax, tres,
						 sizeof(tres)) == 0) {
			lua_autosize_set_string(L, "tres_per_node", tres);
			/* and the job's per-job GPUs dropped (gres.h), its
			 * other per-job gres kept */
			if (tres_per_job && tres_per_job[0] &&
			    autosize_tres_without_gpus(tres_per_job, tres,
						       sizeof(tres)) >= 0)
				lua_autosize_set_string(L, "tres_per_job",
							tres);
		}
		if (d->set_cpus)
			lua_autosize_set_per_gpu(L, "cpus_per_tres",
						 d->cpus_per_gpu, syntax);
		if (d->set_mem)
			lua_autosize_set_per_gpu(L, "mem_per_tres",
						 d->mem_per_gpu_mb, syntax);
		if (d->cpus_per_gpu > 0)
			lua_autosize_set_number(L, "cpus_per_gpu",
						d->cpus_per_gpu);
		if (d->mem_per_gpu_mb > 0)
			lua_autosize_set_number(L, "mem_per_gpu",
						(double)d->mem_per_gpu_mb);
		lua_autosize_set_bool(L, "preemptible", d->preemptible);
		if (d->time_limit_min > 0)
			lua_autosize_set_number(L, "time_limit",
						(double)d->time_limit_min);
		lua_autosize_set_number(L, "chained_jobs", d->chained_jobs);
		if (d->chain_index > 0)
			lua_autosize_set_number(L, "chain_index",
						d->chain_index);
		if (d->dependency[0])
			lua_autosize_set_string(L, "dependency",
						d->dependency);
		if (d->set_tasks)
			lua_autosize_set_number(L, "num_tasks",
						(double)d->num_tasks);
		if (d->segment_nodes > 0)
			lua_autosize_set_number(L, "segment_size",
						d->segment_nodes);
	}
	lua_autosize_set_bool(L, "guarded", d->guarded);
	lua_createtable(L, 0, 5);
	lua_autosize_set_bool(L, "nodes", d->set_nodes);
	lua_autosize_set_bool(L, "gpus", d->set_gpus);
	lua_autosize_set_bool(L, "time", d->set_time);
	lua_autosize_set_bool(L, "partition", d->set_partition);
	lua_autosize_set_bool(L, "tasks", d->set_tasks);
	lua_autosize_set_bool(L, "segment", d->set_segment);
	lua_autosize_set_bool(L, "cpus", d->set_cpus);
	lua_autosize_set_bool(L, "mem", d->set_mem);
	lua_setfield(L, -2, "set");
	lua_createtable(L, 0, 3);
	lua_autosize_set_bool(L, "nodes", d->explicit_nodes);
	lua_autosize_set_bool(L, "gpus", d->explicit_gpus);
	lua_autosize_set_bool(L, "time", d->explicit_time);
	lua_setfield(L, -2, "explicit");
	lua_createtable(L, d->n_warnings, 0);
	for (i = 0; i < d->n_warnings; i++) {
		lua_pushstring(L, d->warnings[i]);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "warnings");
}

/* ---- entry points ---- */

typedef struct lua_autosize_scratch {
	autosize_decision decision;
	autosize_job job;
	char metrics_msg[AUTOSIZE_PATH_MAX + 128];
	const char *env[AUTOSIZE_JOBENV_MAX_ENTRIES];
	/* then autosize_decide_work_size() bytes of work */
} lua_autosize_scratch;

/* What an entry point holds while its lua_pcall runs: the policy and,
 * for plan, Slurm's limits (locked outside the pcall, released after
 * it whatever happens inside). */
typedef struct lua_autosize_held {
	const autosize_policy *policy;
	int limits_wanted;
	const autosize_limits *limits;
	char limits_why[AUTOSIZE_MSG_LEN];
	int limits_unknown;   /* set by plan: read them again soon */
} lua_autosize_held;

/* A part_list limit: Slurm's INFINITE and NO_VAL are "no limit" (0). */
static double lua_autosize_limit(lua_State *L, int t, const char *key)
{
	long v = lua_autosize_number(L, t, key);

	return v > 0 ? (double)v : 0;
}

/*
 * The partitions slurmctld lets this job use with their limits (the
 * part_list job_submit.lua receives: a table by name of tables with
 * max_nodes, total_nodes, max_time in minutes). Only those of the policy
 * p (at most AUTOSIZE_MAX_PARTITIONS) are kept: a large site lists far
 * more, which must not crowd them out. Anything else is ignored. Not
 * known (the policy alone) when nil or empty.
 */
static void lua_autosize_read_parts(lua_State *L, int t,
				    const autosize_policy *p,
				    autosize_job *job)
{
	autosize_part_limit *l;
	size_t len;
	int listed = 0;

	if (!lua_istable(L, t))
		return;
	lua_pushnil(L);
	while (lua_next(L, t) != 0) {
		if (lua_type(L, -2) == LUA_TSTRING && lua_istable(L, -1) &&
		    job->live.n < AUTOSIZE_MAX_PARTITIONS) {
			const char *name = lua_tolstring(L, -2, &len);

			listed = 1;
			if (len > 0 && len < sizeof(l->name) &&
			    strlen(name) == len &&
			    (!p || autosize_policy_find_partition(p, name))) {
				l = &job->live.at[job->live.n++];
				memcpy(l->name, name, len + 1);
				l->max_nodes = (long)lua_autosize_limit(
					L, lua_gettop(L), "max_nodes");
				l->total_nodes = (long)lua_autosize_limit(
					L, lua_gettop(L), "total_nodes");
				l->max_time_s = 60 * lua_autosize_limit(
					L, lua_gettop(L), "max_time");
				l->max_cpus_per_node = (long)lua_autosize_limit(
					L, lua_gettop(L), "max_cpus_per_node");
				lua_autosize_name(L, lua_gettop(L), "qos",
						  l->qos, sizeof(l->qos));
			}
		}
		lua_pop(L, 1);
	}
	/* Slurm always lists at least one partition: an empty table is a
	 * caller that does not know them (one listing none of the policy's
	 * knows them all closed). */
	job->have_live = job->live.n > 0 || (listed && p);
}

/* plan(env, job, parts, policy): runs inside lua_pcall with the policy
 * locked. */
static int lua_autosize_plan_protected(lua_State *L)
{
	lua_autosize_held *held = lua_touserdata(L, 4);
	const autosize_policy *p = held->policy;
	lua_autosize_scratch *s;
	autosize_job *job;
	const char *tres = NULL, *per_job = NULL;
	int metrics_bad;
	double t0;
	size_t n;

	if (lua_isnil(L, 1))
		return 0;  /* no spank_job_env: not an autosize job */
	if (!lua_istable(L, 1)) {
		lua_pushnil(L);
		lua_pushfstring(L, "env must be a table, not %s",
				luaL_typename(L, 1));
		return 2;
	}
	/* Scratch as a userdata: collected whatever happens. */
	s = lua_newuserdata(L, sizeof(*s) + autosize_decide_work_size());
	job = &s->job;
	if (lua_autosize_read_job(L, 2, job) != 0) {
		lua_pushnil(L);
		lua_insert(L, -2);
		return 2;
	}
	if (lua_istable(L, 2)) {
		tres = lua_autosize_tres_string(L, 2, "tres_per_node");
		/* an unreadable one is never rewritten (decide.c) */
		if (job->gpus_per_job != AUTOSIZE_JOB_UNREADABLE)
			per_job = lua_autosize_tres_string(L, 2,
							   "tres_per_job");
	}
	lua_autosize_read_parts(L, 3, p, job);
	job->limits_wanted = held->limits_wanted;
	job->limits = held->limits;
	snprintf(job->limits_why, sizeof(job->limits_why), "%s",
		 held->limits_why);
	n = lua_autosize_read_env(L, 1, s->env);
	t0 = lua_metrics_now();
	autosize_decide(p, s->env, n, job, (autosize_decide_work *)(s + 1),
			&s->decision);
	held->limits_unknown = s->decision.limits_unknown;
	if (!s->decision.has_options)
		return 0;
	metrics_bad = lua_metrics_add(&s->decision, lua_metrics_now() - t0,
				      s->metrics_msg,
				      sizeof(s->metrics_msg)) != 0;
	lua_autosize_push_decision(L, &s->decision, tres, per_job);
	if (metrics_bad)
		lua_autosize_set_string(L, "metrics_error", s->metrics_msg);
	return 1;
}

/* Call f(args at 1..nargs, held) under lua_pcall with the policy (and,
 * with limits, Slurm's limits) locked; on a Lua error return nil,
 * "autosize.<what>: message". */
static int lua_autosize_call(lua_State *L, lua_CFunction f, int nargs,
			     const char *what, int limits)
{
	lua_autosize_held held;
	int rc;

	lua_settop(L, nargs);
	lua_pushcfunction(L, f);   /* may raise ENOMEM: nothing held yet */
	lua_insert(L, 1);
	memset(&held, 0, sizeof(held));
	held.policy = lua_policy_acquire();
	if (limits)
		held.limits = lua_limits_acquire(&held.limits_wanted,
						 held.limits_why,
						 sizeof(held.limits_why));
	lua_pushlightuserdata(L, &held);  /* allocates nothing */
	rc = lua_pcall(L, nargs + 1, LUA_MULTRET, 0);
	if (limits)
		lua_limits_unacquire(held.limits_unknown);
	lua_policy_unacquire();
	if (rc == 0)
		return lua_gettop(L);
	lua_pushnil(L);
	lua_pushfstring(L, "autosize.%s: %s", what,
			lua_isstring(L, -2) ? lua_tostring(L, -2)
					    : "error");
	return 2;
}

static int lua_autosize_plan(lua_State *L)
{
	int n = lua_autosize_call(L, lua_autosize_plan_protected, 3, "plan",
				  1);

	/* Prefix argument errors returned as nil, msg. */
	if (n == 2 && lua_isnil(L, -2) && lua_isstring(L, -1) &&
	    strncmp(lua_tostring(L, -1), "autosize.", 9) != 0) {
		lua_pushfstring(L, "autosize.plan: %s", lua_tostring(L, -1));
		lua_replace(L, -2);
	}
	return n;
}

static int lua_autosize_info_protected(lua_State *L)
{
	const lua_autosize_held *held = lua_touserdata(L, 1);
	const autosize_policy *p = held->policy;
	const autosize_defaults *d;
	const autosize_partition *part;
	int i;

	lua_createtable(L, 0, 8);
	if (!p)
		return 1;
	d = autosize_policy_defaults(p);
	lua_autosize_set_string(L, "source", lua_policy_source());
	lua_autosize_set_bool(L, "builtin", lua_policy_source()[0] == '\0');
	lua_autosize_set_string(L, "mode", autosize_mode_name(d->mode));
	lua_autosize_set_string(L, "explicit_size",
				autosize_explicit_name(d->explicit_size));
	lua_autosize_set_string(L, "on_unfit",
				autosize_unfit_name(d->on_unfit));
	lua_autosize_set_string(L, "on_error",
				autosize_on_error_name(d->on_error));
	lua_autosize_set_string(L, "default_partition", d->partition);
	lua_createtable(L, autosize_policy_partition_count(p), 0);
	for (i = 0; (part = autosize_policy_partition_at(p, i)); i++) {
		lua_pushstring(L, part->name);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "partitions");
	return 1;
}

static int lua_autosize_policy_info(lua_State *L)
{
	return lua_autosize_call(L, lua_autosize_info_protected, 0,
				 "policy_info", 0);
}

/* A policy file younger than this may still be being written: the last
 * good policy serves until it settles (load_policy's second argument,
 * 0 to 60 s, changes it). */
#define LUA_AUTOSIZE_SETTLE_S 2.0
#define LUA_AUTOSIZE_SETTLE_MAX_S 60.0

static int lua_autosize_load_policy(lua_State *L)
{
	double settle_s = LUA_AUTOSIZE_SETTLE_S;
	char msg[AUTOSIZE_MSG_LEN * 2];
	const char *path;
	size_t len = 0;

	if (lua_type(L, 1) != LUA_TSTRING) {
		lua_pushnil(L);
		lua_pushfstring(L, "autosize.load_policy: path must be a "
				"string, not %s", luaL_typename(L, 1));
		return 2;
	}
	path = lua_tolstring(L, 1, &len);
	if (len == 0 || strlen(path) != len) {
		lua_pushnil(L);
		lua_pushstring(L, "autosize.load_policy: path is empty or "
			       "contains NUL");
		return 2;
	}
	if (lua_type(L, 2) == LUA_TNUMBER)
		settle_s = lua_tonumber(L, 2);
	if (!(settle_s >= 0 && settle_s <= LUA_AUTOSIZE_SETTLE_MAX_S))
		settle_s = LUA_AUTOSIZE_SETTLE_S;
	msg[0] = '\0';
	/* No Lua call while the cache is locked inside. */
	switch (lua_policy_refresh(path, settle_s, msg, sizeof(msg))) {
	case 0:
		lua_pushboolean(L, 1);
		return 1;
	case 1:     /* loaded, with a note for the log */
		lua_pushboolean(L, 1);
		lua_pushfstring(L, "autosize: policy %s", msg);
		return 2;
	}
	lua_pushnil(L);
	lua_pushfstring(L, "autosize: policy %s", msg);
	return 2;
}

/* read_limits(cli[, refresh_s, stale_s]): keep Slurm's limits current
 * through the helper cli (`autosize limits --raw`), unless the policy
 * says slurm_limits: off ("" or off: plan without them). Never waits. */
static int lua_autosize_read_limits(lua_State *L)
{
	char msg[AUTOSIZE_MSG_LEN + 64];
	const autosize_policy *p;
	const char *cli = "";
	double refresh_s = 0, stale_s = 0;
	size_t len = 0;
	int off;

	if (lua_type(L, 1) == LUA_TSTRING) {
		cli = lua_tolstring(L, 1, &len);
		if (strlen(cli) != len || (len && cli[0] != '/')) {
			lua_pushnil(L);
			lua_pushstring(L, "autosize.read_limits: the helper "
				       "must be an absolute path");
			return 2;
		}
	}
	p = lua_policy_acquire();
	off = p && !autosize_policy_defaults(p)->slurm_limits;
	lua_policy_unacquire();
	msg[0] = '\0';
	/* the tests' shorter times (never longer than the defaults) */
	if (lua_type(L, 2) == LUA_TNUMBER)
		refresh_s = lua_tonumber(L, 2);
	if (lua_type(L, 3) == LUA_TNUMBER)
		stale_s = lua_tonumber(L, 3);
	if (lua_limits_refresh(off ? "" : cli, refresh_s, stale_s, msg,
			       sizeof(msg)) == 0) {
		lua_pushboolean(L, 1);
		return 1;
	}
	lua_pushnil(L);
	lua_pushstring(L, msg);
	return 2;
}

/* attach_record(admin_comment, record): the AdminComment with the plan
 * record appended to what the site wrote (or replacing an older one). */
static int lua_autosize_attach_record(lua_State *L)
{
	char out[AUTOSIZE_ADMIN_COMMENT_MAX];
	const char *comment = lua_isstring(L, 1) ? lua_tostring(L, 1) : "";
	const char *record = lua_isstring(L, 2) ? lua_tostring(L, 2) : NULL;

	if (!record || strncmp(record, AUTOSIZE_RECORD_PREFIX,
			       strlen(AUTOSIZE_RECORD_PREFIX)) != 0 ||
	    autosize_record_attach(comment, record, out, sizeof(out)) < 0) {
		lua_pushnil(L);
		lua_pushstring(L, "autosize.attach_record: no record, or the "
			       "AdminComment would exceed 4096 bytes");
		return 2;
	}
	lua_pushstring(L, out);
	return 1;
}

/*
 * record_check(admin_comment, change): whether the plan record in a
 * job's AdminComment still describes the job once change (a job_desc of
 * scontrol update: partition, min_nodes, tres_per_node, time_limit;
 * fields not changed are absent or Slurm's NO_VAL) is applied. nil when
 * it does (or there is no record), else a few words saying what moved.
 */
static int lua_autosize_record_check(lua_State *L)
{
	const char *comment = lua_isstring(L, 1) ? lua_tostring(L, 1) : NULL;
	char why[160], what[] = "the job's AdminComment";
	const char *partition = NULL;
	autosize_record rec;
	autosize_error e;
	long nodes, gpn, limit;
	size_t start, n;

	if (!comment || !lua_istable(L, 2) ||
	    !autosize_record_find(comment, &start, &n) ||
	    autosize_record_decode(comment + start, n, what, &rec, &e))
		return 0;
	lua_getfield(L, 2, "partition");
	if (lua_type(L, -1) == LUA_TSTRING)
		partition = lua_tostring(L, -1);   /* the table keeps it */
	lua_pop(L, 1);
	nodes = lua_autosize_number(L, 2, "min_nodes");
	gpn = lua_autosize_tres(L, 2, "tres_per_node");
	limit = lua_autosize_number(L, 2, "time_limit");
	if (autosize_record_mismatch(&rec, partition, nodes,
				     gpn >= 0 ? gpn * (nodes >= 0 ? nodes
							: rec.nodes) : -1,
				     why, sizeof(why))) {
		lua_pushstring(L, why);
		return 1;
	}
	if (limit != AUTOSIZE_JOB_UNSET && rec.time_limit_min > 0 &&
	    limit != rec.time_limit_min) {
		if (limit == AUTOSIZE_JOB_UNLIMITED)
			snprintf(why, sizeof(why), "time limit UNLIMITED, "
				 "planned %ld min", rec.time_limit_min);
		else
			snprintf(why, sizeof(why), "time limit %ld min, "
				 "planned %ld", limit, rec.time_limit_min);
		lua_pushstring(L, why);
		return 1;
	}
	return 0;
}

/* Sized-job lines in slurmctld's log: at most this many a minute (a
 * --test-only loop of one user plans as fast as slurmctld answers). */
#define LUA_AUTOSIZE_LOG_BURST 60
#define LUA_AUTOSIZE_LOG_WINDOW_S 60.0

static struct {
	pthread_mutex_t lock;
	int ready;
	autosize_ratelimit limit;
} lua_log = { PTHREAD_MUTEX_INITIALIZER, 0, {0, 0, 0, 0, 0} };

/* admin_log_ok() -> true, missed | false */
static int lua_autosize_admin_log_ok(lua_State *L)
{
	struct timespec now;
	long missed = 0;
	int ok;

	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&lua_log.lock);
	if (!lua_log.ready) {
		autosize_ratelimit_init(&lua_log.limit, LUA_AUTOSIZE_LOG_BURST,
					LUA_AUTOSIZE_LOG_WINDOW_S);
		lua_log.ready = 1;
	}
	ok = autosize_ratelimit_take(&lua_log.limit, (double)now.tv_sec +
				     now.tv_nsec / 1e9, &missed);
	pthread_mutex_unlock(&lua_log.lock);
	lua_pushboolean(L, ok);
	if (!ok)
		return 1;
	lua_pushnumber(L, (double)missed);
	return 2;
}

/* metrics_file(path [, every_s]) -> true | nil, msg: where the decisions'
 * metrics go (nil or "": nowhere), at most every every_s seconds. */
static int lua_autosize_metrics_file(lua_State *L)
{
	char msg[AUTOSIZE_PATH_MAX + 128];
	const char *path = lua_isstring(L, 1) ? lua_tostring(L, 1) : NULL;
	double every = lua_isnumber(L, 2) ? lua_tonumber(L, 2) : 0;

	if (lua_metrics_file(path, every, msg, sizeof(msg)) != 0) {
		lua_pushnil(L);
		lua_pushstring(L, msg);
		return 2;
	}
	lua_pushboolean(L, 1);
	return 1;
}

/* The module's hold on the policy cache ends with its Lua state. */
static int lua_autosize_state_gc(lua_State *L)
{
	if (lua_policy_release())
		lua_limits_release();
	return 0;
}

static const luaL_Reg lua_autosize_functions[] = {
	{"admin_log_ok", lua_autosize_admin_log_ok},
	{"attach_record", lua_autosize_attach_record},
	{"load_policy", lua_autosize_load_policy},
	{"metrics_file", lua_autosize_metrics_file},
	{"plan", lua_autosize_plan},
	{"policy_info", lua_autosize_policy_info},
	{"read_limits", lua_autosize_read_limits},
	{"record_check", lua_autosize_record_check},
	{NULL, NULL}
};

int luaopen_autosize(lua_State *L)
{
	luaL_register(L, "autosize", lua_autosize_functions);
	lua_pushstring(L, LUA_AUTOSIZE_VERSION);
	lua_setfield(L, -2, "version");
	lua_pushnumber(L, LUA_AUTOSIZE_NO_VAL);
	lua_setfield(L, -2, "NO_VAL");
	lua_pushnumber(L, LUA_AUTOSIZE_INFINITE);
	lua_setfield(L, -2, "INFINITE");
	lua_slurm_push_info(L);
	lua_setfield(L, -2, "slurm");
	/* A sentinel in the registry, collected when the state closes,
	 * releases this state's hold on the cache. Retain only once its
	 * __gc is set (nothing between can raise), so a failure anywhere
	 * leaves the count balanced. */
	lua_getfield(L, LUA_REGISTRYINDEX, LUA_AUTOSIZE_SENTINEL);
	if (!lua_isnil(L, -1)) {
		/* Opened again in this state (job_submit.lua loads the module
		 * by path on each reload): one hold per state, or the old
		 * sentinel's __gc would run inside a locked call later. */
		lua_pop(L, 1);
		return 1;
	}
	lua_pop(L, 1);
	lua_newuserdata(L, 1);
	luaL_newmetatable(L, LUA_AUTOSIZE_STATE);
	lua_pushcfunction(L, lua_autosize_state_gc);
	lua_setfield(L, -2, "__gc");
	lua_setmetatable(L, -2);
	lua_policy_retain();
	lua_setfield(L, LUA_REGISTRYINDEX, LUA_AUTOSIZE_SENTINEL);
	return 1;
}
