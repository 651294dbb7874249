/*
 * autosize: what slurmctld does with one job: rewrite its size, only warn,
 * reject it, or leave it. Plain C over the core; job_submit.lua applies
 * the decision.
 *
 * Order of rules (policy.h, etc/autosize.yaml):
 *   1. no autosize option in spank_job_env: not our job (has_options 0);
 *   2. bad options (EINVAL/ENOTFOUND/ETOOBIG): reject with the core's
 *      one-line message; never rewrite a job from input we could not read;
 *   3. mode: the policy's `mode: off` is the site's switch and wins; else
 *      the job's --autosize overrides the policy (explain acts as warn);
 *   4. explicit size (-N, --gpus-per-node/--gres=gpu:N, --gpus, -t) with
 *      explicit_size keep: those fields stay, the rest is planned around
 *      them; with rewrite they are replaced (the message says so);
 *   5. no plan fits: on_unfit (reject or warn), naming what would fit;
 *   6. the plugin itself fails (ENOMEM, EINTERNAL, no policy): on_error.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "autosize/parse.h"
#include "lua_autosize.h"

const char *lua_action_name(lua_action a)
{
	switch (a) {
	case LUA_ACTION_NONE: return "none";
	case LUA_ACTION_REWRITE: return "rewrite";
	case LUA_ACTION_WARN: return "warn";
	case LUA_ACTION_EXPLAIN: return "explain";
	case LUA_ACTION_REJECT: return "reject";
	}
	return "none";
}

static int lua_decide_user_error(autosize_err rc)
{
	return rc == AUTOSIZE_EINVAL || rc == AUTOSIZE_ENOTFOUND ||
	       rc == AUTOSIZE_ETOOBIG;
}

/* The plugin failed, not the user: on_error decides. */
static void lua_decide_internal(const autosize_policy *p, lua_decision *d,
				const char *what)
{
	int reject = p && autosize_policy_defaults(p)->on_error ==
			      AUTOSIZE_ON_ERROR_REJECT;

	d->action = reject ? LUA_ACTION_REJECT : LUA_ACTION_NONE;
	d->reason = "internal";
	snprintf(d->error, sizeof(d->error), "%s", what);
	snprintf(d->message, sizeof(d->message),
		 "internal error (%.200s): %s", what,
		 reject ? "submission refused by site policy, try again or "
			  "ask your admins"
			: "the job was not sized and goes through as "
			  "submitted");
}

static void lua_decide_reject(lua_decision *d, const char *msg)
{
	d->action = LUA_ACTION_REJECT;
	d->reason = "input";
	snprintf(d->message, sizeof(d->message), "%s", msg);
}

/* Effective mode of this job, as a lua_action (NONE for off). */
static lua_action lua_decide_mode(const autosize_defaults *def,
				  const autosize_request *r)
{
	if (def->mode == AUTOSIZE_MODE_OFF)
		return LUA_ACTION_NONE;
	switch (r->job_mode) {
	case AUTOSIZE_JOB_OFF: return LUA_ACTION_NONE;
	case AUTOSIZE_JOB_WARN: return LUA_ACTION_WARN;
	case AUTOSIZE_JOB_EXPLAIN: return LUA_ACTION_EXPLAIN;
	case AUTOSIZE_JOB_REWRITE: return LUA_ACTION_REWRITE;
	case AUTOSIZE_JOB_POLICY: break;
	}
	return def->mode == AUTOSIZE_MODE_WARN ? LUA_ACTION_WARN
					       : LUA_ACTION_REWRITE;
}

static int lua_decide_meets(const autosize_plan *pl, double deadline_s)
{
	return deadline_s <= 0 || pl->train_hours <= 0 ||
	       pl->train_hours * 3600 <= deadline_s;
}

/* 1 when plan c is better than plan b under the policy's objective
 * (used across partitions; search.c ranks layouts within one). */
static int lua_decide_better(const autosize_defaults *def,
			     const autosize_plan *c, const autosize_plan *b,
			     double deadline_s)
{
	int c_ok = lua_decide_meets(c, deadline_s);
	int b_ok = lua_decide_meets(b, deadline_s);
	double vc, vb;

	if (c->tokens <= 0 || b->tokens <= 0) {
		if (c->gpus != b->gpus)
			return c->gpus < b->gpus;
		return c->nodes < b->nodes;
	}
	if (c_ok != b_ok)
		return c_ok;
	if (def->objective == AUTOSIZE_OBJECTIVE_TIME || !c_ok) {
		vc = c->train_hours;
		vb = b->train_hours;
	} else if (c->cost > 0 && b->cost > 0) {
		vc = c->cost;
		vb = b->cost;
	} else {
		vc = c->gpu_hours;
		vb = b->gpu_hours;
	}
	if (vc < vb * 0.995)
		return 1;
	if (vc > vb * 1.005)
		return 0;
	return c->nodes < b->nodes;
}

/* Next name of a comma list into buf; returns the rest or NULL at end. */
static const char *lua_decide_next_name(const char *list, char *buf,
					size_t len)
{
	const char *comma = strchr(list, ',');
	size_t n = comma ? (size_t)(comma - list) : strlen(list);

	if (n >= len)
		n = len - 1;
	memcpy(buf, list, n);
	buf[n] = '\0';
	return comma ? comma + 1 : NULL;
}

static void lua_decide_model_name(const autosize_request *r,
				  const autosize_plan *pl, char *buf,
				  size_t len)
{
	if (r->model.name[0])
		snprintf(buf, len, "%s", r->model.name);
	else
		snprintf(buf, len, "a %.3gB-parameter model",
			 pl->params / 1e9);
}

static void lua_decide_summary(const autosize_request *r,
			       const autosize_plan *pl, char *buf,
			       size_t len)
{
	char model[AUTOSIZE_NAME_MAX + 32], limit[32] = "";
	int n;

	lua_decide_model_name(r, pl, model, sizeof(model));
	if (pl->time_limit_min > 0)
		autosize_format_duration(pl->time_limit_min * 60.0, limit,
					 sizeof(limit));
	n = snprintf(buf, len, "%s on %s: %d node%s x %d GPUs, TP %d x PP %d "
		     "x DP %d, ZeRO-%d, MFU %.0f%%", model, pl->part.name,
		     pl->nodes, pl->nodes == 1 ? "" : "s", pl->gpus_per_node,
		     pl->tp, pl->pp, pl->dp, pl->zero_stage, pl->mfu * 100);
	if (n < 0 || (size_t)n >= len || pl->train_hours <= 0)
		return;
	snprintf(buf + n, len - (size_t)n,
		 ", %.1f h predicted, time limit %s%s",
		 pl->train_hours, limit,
		 pl->chained_jobs > 1 ? " per job" : "");
	if (pl->chained_jobs > 1) {
		size_t used = strlen(buf);

		snprintf(buf + used, len - used, " x %d chained jobs",
			 pl->chained_jobs);
	}
}

/*
 * Fewest nodes of part's GPU (gpus_per_node each) that hold the model:
 * the reference server without node limit and without a token budget, so
 * the search returns the smallest size that fits. -1 when unknown.
 */
static int lua_decide_min_nodes(const autosize_policy *p,
				const autosize_request *r,
				const autosize_partition *part,
				lua_decide_work *w)
{
	autosize_error e;

	if (!part->gpu)
		return -1;
	w->alt = *r;
	w->alt.partition[0] = '\0';
	snprintf(w->alt.gpu, sizeof(w->alt.gpu), "%s", part->gpu->name);
	w->alt.gpus_per_node = part->gpus_per_node;
	w->alt.nodes = AUTOSIZE_UNSET;
	w->alt.gpus = AUTOSIZE_UNSET;
	w->alt.tokens = 0;
	w->alt.deadline_s = 0;
	if (autosize_plan_compute(p, &w->alt, &w->other, &e) != AUTOSIZE_OK)
		return -1;
	return w->other.nodes;
}

/* A policy partition other than skip that fits the job at a size we
 * choose; its name and nodes into buf, or "" when none does. */
static void lua_decide_elsewhere(const autosize_policy *p,
				 const autosize_request *r, const char *skip,
				 lua_decide_work *w, char *buf, size_t len)
{
	const autosize_defaults *def = autosize_policy_defaults(p);
	double deadline_s = r->deadline_s > 0 ? r->deadline_s
					      : def->deadline_s;
	const autosize_partition *part;
	autosize_error e;
	int i, found = 0;

	buf[0] = '\0';
	for (i = 0; i < autosize_policy_partition_count(p); i++) {
		part = autosize_policy_partition_at(p, i);
		if (!part || strcmp(part->name, skip) == 0)
			continue;
		w->alt = *r;
		snprintf(w->alt.partition, sizeof(w->alt.partition), "%s",
			 part->name);
		w->alt.nodes = AUTOSIZE_UNSET;
		w->alt.gpus = AUTOSIZE_UNSET;
		w->alt.gpus_per_node = AUTOSIZE_UNSET;
		if (autosize_plan_compute(p, &w->alt, &w->other, &e) !=
		    AUTOSIZE_OK)
			continue;
		if (!found || lua_decide_better(def, &w->other, &w->plan,
						deadline_s)) {
			/* w->plan is free here: it holds nothing we need
			 * once the failed attempt is in w->first. */
			w->plan = w->other;
			found = 1;
		}
	}
	if (found)
		snprintf(buf, len, "partition %s fits it with %d node%s",
			 w->plan.part.name, w->plan.nodes,
			 w->plan.nodes == 1 ? "" : "s");
}

/* No plan fits (the attempt is in w->first): on_unfit, and say what
 * would fit. */
static void lua_decide_unfit(const autosize_policy *p,
			     const autosize_request *r, lua_decision *d,
			     lua_decide_work *w)
{
	const autosize_partition *part = &w->first.part;
	char model[AUTOSIZE_NAME_MAX + 32], where[160], head[480];
	int min_nodes;
	int warn = autosize_policy_defaults(p)->on_unfit ==
		   AUTOSIZE_UNFIT_WARN;

	lua_decide_model_name(r, &w->first, model, sizeof(model));
	min_nodes = lua_decide_min_nodes(p, r, part, w);
	if ((r->nodes > 0 || r->gpus > 0 || r->gpus_per_node > 0) &&
	    min_nodes > 0)
		snprintf(head, sizeof(head), "%s does not fit the size you "
			 "asked for on partition %s (%d node%s x %d GPUs: "
			 "%.160s); it needs at least %d nodes of %s there",
			 model, part->name, w->first.nodes,
			 w->first.nodes == 1 ? "" : "s",
			 w->first.gpus_per_node, w->first.reason, min_nodes,
			 part->gpu ? part->gpu->name : "?");
	else if (r->nodes > 0 || r->gpus > 0 || r->gpus_per_node > 0)
		snprintf(head, sizeof(head), "%s does not fit the size you "
			 "asked for on partition %s (%d node%s x %d GPUs): "
			 "%.160s", model, part->name, w->first.nodes,
			 w->first.nodes == 1 ? "" : "s",
			 w->first.gpus_per_node, w->first.reason);
	else if (min_nodes > 0)
		snprintf(head, sizeof(head), "%s needs at least %d nodes of "
			 "%s (%d GPUs each); partition %s allows %d per job",
			 model, min_nodes, part->gpu ? part->gpu->name : "?",
			 part->gpus_per_node, part->name,
			 part->max_nodes_per_job);
	else
		snprintf(head, sizeof(head), "%s does not fit partition %s: "
			 "%.160s", model, part->name, w->first.reason);
	lua_decide_elsewhere(p, r, part->name, w, where, sizeof(where));
	snprintf(d->message, sizeof(d->message), "%.400s; %.150s%s", head,
		 where[0] ? where : "no partition in the site policy fits it",
		 warn ? " (submitted unchanged: it will likely run out of "
			"memory)" : "");
	d->action = warn ? LUA_ACTION_WARN : LUA_ACTION_REJECT;
	d->reason = "unfit";
	d->has_plan = 0;
}

/* The user's explicit size goes into the request when policy keeps it. */
static void lua_decide_explicit(const autosize_defaults *def,
				const lua_job *job, autosize_request *r,
				lua_decision *d)
{
	int keep = def->explicit_size == AUTOSIZE_EXPLICIT_KEEP;

	d->explicit_nodes = job->min_nodes > 0;
	d->explicit_gpus = job->gpus_per_node != LUA_JOB_UNSET ||
			   job->gpus != LUA_JOB_UNSET;
	d->explicit_time = job->time_limit_min != LUA_JOB_UNSET;
	if (!keep)
		return;
	if (d->explicit_nodes)
		r->nodes = (int)job->min_nodes;
	if (job->gpus_per_node > 0)
		r->gpus_per_node = job->gpus_per_node;
	if (job->gpus > 0)
		r->gpus = job->gpus;
}

/*
 * Plan on every candidate partition (the job's, its comma list, the
 * policy default, or all policy partitions) and keep the best in w->best.
 * Returns OK, ENOFIT (w->first: the first candidate's attempt) or the
 * first hard error (e filled).
 */
static autosize_err lua_decide_search(const autosize_policy *p,
				      const lua_job *job, lua_decide_work *w,
				      autosize_error *e)
{
	const autosize_defaults *def = autosize_policy_defaults(p);
	double deadline_s = w->req.deadline_s > 0 ? w->req.deadline_s
						  : def->deadline_s;
	const char *list = job->partition, *rest;
	char name[AUTOSIZE_PART_NAME_MAX];
	autosize_error first_e = { AUTOSIZE_OK, "" };
	autosize_err rc, first_rc = AUTOSIZE_OK;
	int i = 0, have_best = 0, have_first = 0, all = 0;

	if (!list[0] && def->partition[0])
		list = def->partition;
	all = !list[0];
	rest = list;
	for (;;) {
		if (all) {
			const autosize_partition *part =
				autosize_policy_partition_at(p, i++);

			if (!part)
				break;
			snprintf(name, sizeof(name), "%s", part->name);
		} else {
			if (!rest)
				break;
			rest = lua_decide_next_name(rest, name, sizeof(name));
			if (!name[0])
				continue;
		}
		snprintf(w->req.partition, sizeof(w->req.partition), "%s",
			 name);
		rc = autosize_plan_compute(p, &w->req, &w->plan, e);
		if (rc == AUTOSIZE_OK) {
			if (!have_best || lua_decide_better(def, &w->plan,
							    &w->best,
							    deadline_s))
				w->best = w->plan;
			have_best = 1;
			continue;
		}
		if (!have_first) {
			have_first = 1;
			first_rc = rc;
			first_e = *e;
			if (rc == AUTOSIZE_ENOFIT)
				w->first = w->plan;
		}
		if (rc != AUTOSIZE_ENOFIT && !all)
			return rc;  /* e names the problem */
	}
	if (have_best)
		return AUTOSIZE_OK;
	if (!have_first)
		return autosize_fail(e, AUTOSIZE_ENOTFOUND, "no partition "
				     "given and none in the site policy");
	if (first_rc != AUTOSIZE_ENOFIT)
		*e = first_e;
	return first_rc;
}

/* Partition names of the policy, for "not in the site policy". */
static void lua_decide_partition_names(const autosize_policy *p, char *buf,
				       size_t len)
{
	const autosize_partition *part;
	size_t used = 0;
	int i, n;

	buf[0] = '\0';
	for (i = 0; (part = autosize_policy_partition_at(p, i)); i++) {
		n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
			     part->name);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
}

/* Fill the plan part of d from w->best, and what rewrite would write. */
static void lua_decide_fill(const autosize_request *r, const lua_job *job,
			    const autosize_defaults *def, lua_decide_work *w,
			    lua_decision *d)
{
	const autosize_plan *pl = &w->best;
	int keep = def->explicit_size == AUTOSIZE_EXPLICIT_KEEP;
	int i;

	d->has_plan = 1;
	snprintf(d->partition, sizeof(d->partition), "%s", pl->part.name);
	d->nodes = pl->nodes;
	d->gpus_per_node = pl->gpus_per_node;
	d->time_limit_min = pl->time_limit_min;
	d->chained_jobs = pl->chained_jobs;
	lua_decide_summary(r, pl, d->summary, sizeof(d->summary));
	for (i = 0; i < pl->n_warnings && i < AUTOSIZE_MAX_WARNINGS; i++)
		snprintf(d->warnings[d->n_warnings++], AUTOSIZE_WARNING_LEN,
			 "%s", pl->warnings[i]);
	d->set_nodes = !(keep && d->explicit_nodes);
	d->set_gpus = !(keep && d->explicit_gpus);
	d->set_time = pl->time_limit_min > 0 && !(keep && d->explicit_time);
	d->set_partition = strcmp(job->partition, pl->part.name) != 0;
	if (keep && d->explicit_time && job->time_limit_min > 0 &&
	    pl->train_hours > 0 && d->n_warnings < AUTOSIZE_MAX_WARNINGS &&
	    job->time_limit_min < pl->train_hours * 60)
		snprintf(d->warnings[d->n_warnings++], AUTOSIZE_WARNING_LEN,
			 "your time limit (%ld min) ends before the "
			 "predicted %.1f h: checkpoint and chain jobs",
			 job->time_limit_min, pl->train_hours);
}

static void lua_decide_suggest(lua_decision *d)
{
	char limit[32] = "";

	if (d->time_limit_min > 0)
		autosize_format_duration(d->time_limit_min * 60.0, limit,
					 sizeof(limit));
	snprintf(d->message, sizeof(d->message), "suggested size: -p %s "
		 "-N %d --gpus-per-node=%d%s%s (%.400s)", d->partition,
		 d->nodes,
		 d->gpus_per_node, limit[0] ? " -t " : "", limit, d->summary);
}

void lua_decide(const autosize_policy *p, const char *const *env, size_t n,
		const lua_job *job, lua_decide_work *w, lua_decision *d)
{
	const autosize_defaults *def;
	autosize_error e;
	char names[256];
	int found = 0;
	autosize_err rc;
	lua_action mode;

	memset(d, 0, sizeof(*d));
	d->reason = "";
	autosize_error_clear(&e);
	if (n > AUTOSIZE_JOBENV_MAX_ENTRIES)
		n = AUTOSIZE_JOBENV_MAX_ENTRIES;
	rc = autosize_request_from_env(env, n, &w->req, &found, &e);
	/* An error means an entry of ours was there (an unknown or
	 * oversized option is refused before *found is set). */
	if (!found && rc == AUTOSIZE_OK)
		return;
	d->has_options = 1;
	if (!p) {
		lua_decide_internal(p, d, "no site policy (out of memory)");
		return;
	}
	def = autosize_policy_defaults(p);
	if (rc != AUTOSIZE_OK) {
		if (lua_decide_user_error(rc))
			lua_decide_reject(d, e.msg);
		else
			lua_decide_internal(p, d, e.msg[0] ? e.msg
					    : autosize_strerror(rc));
		return;
	}
	mode = lua_decide_mode(def, &w->req);
	if (mode == LUA_ACTION_NONE)
		return;  /* off: nothing to say */
	if (autosize_policy_partition_count(p) == 0) {
		lua_decide_internal(p, d, "the site policy has no partitions "
				    "(was autosize.yaml loaded?)");
		return;
	}
	lua_decide_explicit(def, job, &w->req, d);
	rc = lua_decide_search(p, job, w, &e);
	if (rc == AUTOSIZE_ENOFIT) {
		lua_decide_unfit(p, &w->req, d, w);
		return;
	}
	if (rc == AUTOSIZE_ENOTFOUND) {
		lua_decide_partition_names(p, names, sizeof(names));
		snprintf(d->message, sizeof(d->message), "%s (autosize "
			 "partitions: %s)", e.msg, names);
		d->action = LUA_ACTION_REJECT;
		d->reason = "input";
		return;
	}
	if (rc != AUTOSIZE_OK) {
		if (lua_decide_user_error(rc))
			lua_decide_reject(d, e.msg);
		else
			lua_decide_internal(p, d, e.msg);
		return;
	}
	lua_decide_fill(&w->req, job, def, w, d);
	if (d->nodes < 1 || d->gpus_per_node < 1 ||
	    d->nodes > w->best.part.max_nodes_per_job ||
	    (w->best.part.max_time_s > 0 &&
	     d->time_limit_min * 60.0 > w->best.part.max_time_s)) {
		lua_decide_internal(p, d, "plan outside the partition's "
				    "limits");
		d->has_plan = 0;
		return;
	}
	d->action = mode;
	if (mode == LUA_ACTION_REWRITE) {
		snprintf(d->message, sizeof(d->message), "%s", d->summary);
		if (!d->set_nodes && !d->set_gpus && !d->set_time &&
		    !d->set_partition) {
			d->action = LUA_ACTION_NONE;
			snprintf(d->message, sizeof(d->message), "keeping "
				 "your size and time: %.560s", d->summary);
		}
	} else {
		lua_decide_suggest(d);
	}
}
