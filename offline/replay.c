/*
 * autosize: the jobs of a period decided again under two policies
 * (replay.h), and what differs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "autosize/framework.h"
#include "autosize/jobenv.h"
#include "autosize/parse.h"
#include "autosize/replay.h"
#include "utf8.h"

#define REPLAY_ENV_MAX 12
#define REPLAY_ENV_LEN 128
#define REPLAY_PARTS 256
#define REPLAY_NAME_MAX 200

struct autosize_replay {
	const autosize_policy *policy[2];
	char name[2][REPLAY_NAME_MAX];
	long max_jobs;
	autosize_replay_totals t;
	autosize_replay_job *jobs;
	long n_jobs, cap_jobs;
	char parts[REPLAY_PARTS][AUTOSIZE_PART_NAME_MAX];
	int n_parts;
	autosize_decide_work *work;
	autosize_decision d;
};

autosize_replay *autosize_replay_create(const autosize_policy *baseline,
					const char *baseline_name,
					const autosize_policy *candidate,
					const char *candidate_name,
					long max_jobs)
{
	autosize_replay *r = calloc(1, sizeof(*r));

	if (!r || !(r->work = malloc(autosize_decide_work_size()))) {
		free(r);
		return NULL;
	}
	r->policy[0] = baseline;
	r->policy[1] = candidate;
	snprintf(r->name[0], sizeof(r->name[0]), "%s",
		 baseline_name ? baseline_name : "the built-in defaults");
	snprintf(r->name[1], sizeof(r->name[1]), "%s",
		 candidate_name ? candidate_name : "the built-in defaults");
	r->max_jobs = max_jobs > 0 ? max_jobs : AUTOSIZE_REPLAY_MAX_JOBS;
	return r;
}

void autosize_replay_destroy(autosize_replay *r)
{
	if (!r)
		return;
	free(r->work);
	free(r->jobs);
	free(r);
}

static int replay_partition(autosize_replay *r, const char *name)
{
	int i;

	for (i = 0; i < r->n_parts; i++)
		if (strcasecmp(r->parts[i], name) == 0)
			return i;
	if (r->n_parts == REPLAY_PARTS)
		return REPLAY_PARTS - 1;     /* the last one stands for more */
	snprintf(r->parts[r->n_parts], sizeof(r->parts[0]), "%s", name);
	return r->n_parts++;
}

static autosize_replay_job *replay_slot(autosize_replay *r)
{
	if (r->n_jobs >= r->max_jobs)
		return NULL;
	if (r->n_jobs == r->cap_jobs) {
		long cap = r->cap_jobs ? r->cap_jobs * 2 : 256;
		autosize_replay_job *j;

		if (cap > r->max_jobs)
			cap = r->max_jobs;
		j = realloc(r->jobs, (size_t)cap * sizeof(*j));
		if (!j)
			return NULL;
		r->jobs = j;
		r->cap_jobs = cap;
	}
	return &r->jobs[r->n_jobs++];
}

/*
 * The submission rebuilt from the record: the options slurmctld got (the
 * parameter count, tokens, sequence, batch, framework) as the SPANK
 * plugin sends them, and what the user asked of Slurm (the partition the
 * job was planned in, its GPUs and time limit when it gave them).
 */
static size_t replay_request(const autosize_record *rec,
			     char env[REPLAY_ENV_MAX][REPLAY_ENV_LEN],
			     autosize_job *job)
{
	size_t n = 0;

#define REPLAY_ENV(...) snprintf(env[n++], REPLAY_ENV_LEN, \
	AUTOSIZE_SPANK_OPTION_PREFIX __VA_ARGS__)
	/* a preset's shape when the record names one, else its size */
	if (rec->model[0] && autosize_model_is_preset(rec->model))
		REPLAY_ENV("model=%s", rec->model);
	else
		REPLAY_ENV("model_params=%.6g", rec->params);
	if (rec->mode[0])
		REPLAY_ENV("train_mode=%s", rec->mode);
	if (rec->stack[0])
		REPLAY_ENV("train_stack=%s", rec->stack);
	if (rec->prec[0])
		REPLAY_ENV("train_precision=%s", rec->prec);
	if (rec->tokens > 0)
		REPLAY_ENV("train_tokens=%.6g", rec->tokens);
	/* the plan's share of the evaluations, beside its tokens */
	if (rec->tokens > 0 && rec->eval_tokens > 0)
		REPLAY_ENV("eval_tokens=%.6g", rec->eval_tokens);
	if (rec->seq_len > 0)
		REPLAY_ENV("train_seq_len=%d", rec->seq_len);
	if (rec->global_batch > 0)
		REPLAY_ENV("train_batch=%d", rec->global_batch);
	if (rec->framework[0])
		REPLAY_ENV("train_framework=%s", rec->framework);
#undef REPLAY_ENV
	autosize_job_init(job);
	snprintf(job->partition, sizeof(job->partition), "%s",
		 rec->partition);
	if (rec->ask_gpus > 0)
		job->gpus_per_job = rec->ask_gpus;
	if (rec->ask_min > 0)
		job->time_limit_min = rec->ask_min;
	job->batch = 1;
	return n;
}

/* A decision as the job would be left by it. */
static void replay_side(const autosize_decision *d,
			const autosize_record *rec, autosize_replay_side *s)
{
	memset(s, 0, sizeof(*s));
	s->action = d->action;
	snprintf(s->reason, sizeof(s->reason), "%s",
		 d->reason ? d->reason : "");
	snprintf(s->message, sizeof(s->message), "%.*s",
		 (int)sizeof(s->message) - 1, d->message);
	if (d->action == AUTOSIZE_ACTION_REJECT)
		return;
	if (d->has_plan && d->action != AUTOSIZE_ACTION_WARN) {
		s->sized = 1;
		snprintf(s->partition, sizeof(s->partition), "%s",
			 d->partition);
		s->nodes = d->nodes;
		s->gpus_per_node = d->gpus_per_node;
		s->time_limit_min = d->set_time ? d->time_limit_min
			: rec->ask_min > 0 ? rec->ask_min : d->time_limit_min;
		s->gpu_hours = (double)s->nodes * s->gpus_per_node *
			       s->time_limit_min / 60.0;
		return;
	}
	/* left as submitted (warned, not ours, off): what the user asked */
	s->time_limit_min = rec->ask_min;
	s->gpu_hours = (double)rec->ask_gpus * rec->ask_min / 60.0;
}

static unsigned replay_diff(const autosize_replay_side *a,
			    const autosize_replay_side *b)
{
	unsigned c = 0;
	int ra = a->action == AUTOSIZE_ACTION_REJECT;
	int rb = b->action == AUTOSIZE_ACTION_REJECT;

	if (!ra && rb)
		return AUTOSIZE_REPLAY_REFUSED;
	if (ra && !rb)
		return AUTOSIZE_REPLAY_ACCEPTED;
	if (ra)
		return 0;
	if (a->sized != b->sized || a->action != b->action)
		c |= AUTOSIZE_REPLAY_ACTION;
	if (a->nodes * a->gpus_per_node != b->nodes * b->gpus_per_node ||
	    a->nodes != b->nodes)
		c |= AUTOSIZE_REPLAY_SIZE;
	if (a->time_limit_min != b->time_limit_min)
		c |= AUTOSIZE_REPLAY_LIMIT;
	if (a->sized && b->sized && strcasecmp(a->partition, b->partition))
		c |= AUTOSIZE_REPLAY_PARTITION;
	return c;
}

void autosize_replay_bad_record(autosize_replay *r)
{
	r->t.read++;
	r->t.bad_record++;
}

void autosize_replay_add(autosize_replay *r, const autosize_finished_job *j,
			 const autosize_record *rec)
{
	char env[REPLAY_ENV_MAX][REPLAY_ENV_LEN];
	const char *envp[REPLAY_ENV_MAX];
	autosize_replay_totals *t = &r->t;
	autosize_replay_job *k;
	autosize_job job;
	size_t n, i;
	int side;

	t->read++;
	if (!rec) {
		t->no_record++;
		return;
	}
	if (!(k = replay_slot(r))) {
		t->over_cap++;
		return;
	}
	memset(k, 0, sizeof(*k));
	snprintf(k->job_id, sizeof(k->job_id), "%s", j->job_id);
	snprintf(k->user, sizeof(k->user), "%s", j->user);
	snprintf(k->name, sizeof(k->name), "%.*s", (int)sizeof(k->name) - 1,
		 j->name);
	snprintf(k->state, sizeof(k->state), "%.*s", (int)sizeof(k->state) - 1,
		 j->state);
	k->partition = replay_partition(r, rec->partition);
	if (j->elapsed_s > 0)
		k->used_gpu_hours = (j->gpus >= 0 ? (double)j->gpus
			: (double)rec->nodes * rec->gpus_per_node) *
			j->elapsed_s / 3600;
	n = replay_request(rec, env, &job);
	/* the policy's exempt users and rules on users (accounting's
	 * listing has no account or QOS: rules on those do not match) */
	snprintf(job.user, sizeof(job.user), "%s", j->user);
	for (i = 0; i < n; i++)
		envp[i] = env[i];
	for (side = 0; side < 2; side++) {
		autosize_decide(r->policy[side], envp, n, &job, r->work, &r->d);
		replay_side(&r->d, rec, side ? &k->after : &k->before);
	}
	k->reproduced = k->before.sized &&
		k->before.nodes == rec->nodes &&
		k->before.gpus_per_node == rec->gpus_per_node &&
		strcasecmp(k->before.partition, rec->partition) == 0 &&
		(rec->time_limit_min <= 0 ||
		 k->before.time_limit_min == rec->time_limit_min);
	k->changed = replay_diff(&k->before, &k->after);
	t->replayed++;
	t->reproduced += k->reproduced;
	t->changed += k->changed != 0;
	t->size += !!(k->changed & AUTOSIZE_REPLAY_SIZE);
	t->limit += !!(k->changed & AUTOSIZE_REPLAY_LIMIT);
	t->partition += !!(k->changed & AUTOSIZE_REPLAY_PARTITION);
	t->refused += !!(k->changed & AUTOSIZE_REPLAY_REFUSED);
	t->accepted += !!(k->changed & AUTOSIZE_REPLAY_ACCEPTED);
	t->action += !!(k->changed & AUTOSIZE_REPLAY_ACTION);
	t->gpu_hours_before += k->before.gpu_hours;
	t->gpu_hours_after += k->after.gpu_hours;
	if (k->changed & AUTOSIZE_REPLAY_REFUSED)
		t->gpu_hours_refused += k->before.gpu_hours;
	t->gpu_hours_used += k->used_gpu_hours;
}

const autosize_replay_totals *autosize_replay_totals_of(
	const autosize_replay *r)
{
	return &r->t;
}

const autosize_replay_job *autosize_replay_jobs(const autosize_replay *r,
						long *n)
{
	*n = r->n_jobs;
	return r->jobs;
}

const char *autosize_replay_partition(const autosize_replay *r, int i)
{
	return i >= 0 && i < r->n_parts ? r->parts[i] : "";
}

const char *autosize_replay_policy_name(const autosize_replay *r,
					int candidate)
{
	return r->name[candidate ? 1 : 0];
}

void autosize_replay_side_text(const autosize_replay_side *s, char *buf,
			       size_t len)
{
	char lim[32] = "no limit";

	if (s->time_limit_min > 0)
		autosize_format_duration(s->time_limit_min * 60.0, lim,
					 sizeof(lim));
	if (s->action == AUTOSIZE_ACTION_REJECT)
		snprintf(buf, len, "refused (%s)", s->reason[0] ? s->reason
								 : "-");
	else if (s->sized)
		snprintf(buf, len, "%s %d x %d GPU%s, %s", s->partition,
			 s->nodes, s->gpus_per_node,
			 autosize_plural(s->gpus_per_node), lim);
	else
		snprintf(buf, len, "left as submitted (%s)",
			 autosize_action_name(s->action));
}

/* The changes of a job as words: "size, time limit". */
static void replay_changes(unsigned c, char *buf, size_t len)
{
	static const struct {
		unsigned bit;
		const char *word;
	} w[] = {
		{AUTOSIZE_REPLAY_REFUSED, "refused"},
		{AUTOSIZE_REPLAY_ACCEPTED, "no longer refused"},
		{AUTOSIZE_REPLAY_ACTION, "sized otherwise"},
		{AUTOSIZE_REPLAY_PARTITION, "partition"},
		{AUTOSIZE_REPLAY_SIZE, "size"},
		{AUTOSIZE_REPLAY_LIMIT, "time limit"},
	};
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (c & w[i].bit && used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 used ? ", " : "", w[i].word);
}

/* Jobs listed by the text report at most (the JSON lists all). */
#define REPLAY_TEXT_ROWS 30

int autosize_replay_write_text(const autosize_replay *r, FILE *f,
			       const char *source)
{
	const autosize_replay_totals *t = &r->t;
	char a[96], b[96], what[96], name[40], user[24];
	long i, shown = 0;
	double d = t->gpu_hours_after - t->gpu_hours_before;

	fprintf(f, "autosize replay: %ld jobs from %s, decided again under "
		"%s against %s\n", t->read, source, r->name[1], r->name[0]);
	fprintf(f, "  %ld sized by autosize, %ld without a plan record, %ld "
		"with one that could not be read%s\n", t->replayed,
		t->no_record, t->bad_record, t->over_cap ? "; more past "
		"--max-jobs counted only" : "");
	fprintf(f, "  %ld of %ld get their recorded plan again under %s "
		"(a job whose record names no preset is rebuilt from its "
		"parameter count: a config.json's shape, and records older "
		"than model= and mode=, come out otherwise)\n",
		t->reproduced, t->replayed, r->name[0]);
	fprintf(f, "\nwhat changes: %ld of %ld jobs\n", t->changed,
		t->replayed);
	fprintf(f, "  size %ld, time limit %ld, partition %ld, sized "
		"otherwise %ld; refused %ld, no longer refused %ld\n", t->size,
		t->limit, t->partition, t->action, t->refused, t->accepted);
	fprintf(f, "  GPU-hours held (GPUs x time limit): %.0f -> %.0f "
		"(%+.0f", t->gpu_hours_before, t->gpu_hours_after, d);
	if (t->gpu_hours_before > 0)
		fprintf(f, ", %+.0f%%", 100 * d / t->gpu_hours_before);
	fprintf(f, "); used %.0f by the jobs that ran\n",
		t->gpu_hours_used);
	if (t->refused)
		fprintf(f, "  the refused jobs held %.0f GPU-hours under %s\n",
			t->gpu_hours_refused, r->name[0]);
	for (i = 0; i < r->n_jobs && shown < REPLAY_TEXT_ROWS; i++) {
		const autosize_replay_job *k = &r->jobs[i];

		if (!k->changed)
			continue;
		if (!shown++)
			fprintf(f, "\njobs that change (before -> after):\n");
		autosize_replay_side_text(&k->before, a, sizeof(a));
		autosize_replay_side_text(&k->after, b, sizeof(b));
		replay_changes(k->changed, what, sizeof(what));
		utf8_safe_text(k->name, name, sizeof(name));
		utf8_safe_text(k->user, user, sizeof(user));
		fprintf(f, "  job %s %s \"%s\": %s -> %s [%s]\n", k->job_id,
			user, name, a, b, what);
		if (k->changed & AUTOSIZE_REPLAY_REFUSED)
			fprintf(f, "    %.*s\n", (int)sizeof(k->after.message),
				k->after.message);
	}
	if (t->changed > shown)
		fprintf(f, "  ... and %ld more (--json lists all)\n",
			t->changed - shown);
	return ferror(f) ? -1 : 0;
}

static void replay_json_side(FILE *f, const autosize_replay_side *s)
{
	fputs("{\"action\":", f);
	autosize_report_json_str(f, autosize_action_name(s->action));
	fputs(",\"reason\":", f);
	autosize_report_json_str(f, s->reason);
	fputs(",\"partition\":", f);
	if (s->sized)
		autosize_report_json_str(f, s->partition);
	else
		fputs("null", f);
	fprintf(f, ",\"nodes\":%d,\"gpus_per_node\":%d,\"time_limit_min\":%ld,"
		"\"gpu_hours\":%.6g,\"message\":", s->nodes, s->gpus_per_node,
		s->time_limit_min, s->gpu_hours);
	autosize_report_json_str(f, s->message);
	fputc('}', f);
}

int autosize_replay_write_json(const autosize_replay *r, FILE *f,
			       const char *source)
{
	const autosize_replay_totals *t = &r->t;
	char what[96];
	long i;

	fprintf(f, "{\"replay_version\":%d,\"source\":",
		AUTOSIZE_REPLAY_VERSION);
	autosize_report_json_str(f, source);
	fputs(",\"baseline\":", f);
	autosize_report_json_str(f, r->name[0]);
	fputs(",\"policy\":", f);
	autosize_report_json_str(f, r->name[1]);
	fprintf(f, ",\"totals\":{\"read\":%ld,\"no_record\":%ld,"
		"\"bad_record\":%ld,\"replayed\":%ld,\"over_cap\":%ld,"
		"\"reproduced\":%ld,\"changed\":%ld,\"size\":%ld,\"limit\":%ld,"
		"\"partition\":%ld,\"action\":%ld,\"refused\":%ld,"
		"\"accepted\":%ld,\"gpu_hours_before\":%.6g,"
		"\"gpu_hours_after\":%.6g,\"gpu_hours_refused\":%.6g,"
		"\"gpu_hours_used\":%.6g},\"jobs\":[", t->read, t->no_record,
		t->bad_record, t->replayed, t->over_cap, t->reproduced,
		t->changed, t->size, t->limit, t->partition, t->action,
		t->refused, t->accepted, t->gpu_hours_before,
		t->gpu_hours_after, t->gpu_hours_refused, t->gpu_hours_used);
	for (i = 0; i < r->n_jobs; i++) {
		const autosize_replay_job *k = &r->jobs[i];

		autosize_report_json_job(f, i == 0, k->job_id, k->user,
					 k->name, k->state);
		fputs(",\"partition\":", f);
		autosize_report_json_str(f, autosize_replay_partition(
			r, k->partition));
		fprintf(f, ",\"used_gpu_hours\":%.6g,\"reproduced\":%s,"
			"\"changed\":[", k->used_gpu_hours,
			k->reproduced ? "true" : "false");
		replay_changes(k->changed, what, sizeof(what));
		if (what[0]) {
			char *p = what, *c;

			for (;;) {
				c = strstr(p, ", ");
				if (c)
					*c = '\0';
				autosize_report_json_str(f, p);
				if (!c)
					break;
				fputc(',', f);
				p = c + 2;
			}
		}
		fputs("],\"before\":", f);
		replay_json_side(f, &k->before);
		fputs(",\"after\":", f);
		replay_json_side(f, &k->after);
		fputc('}', f);
	}
	fputs("]}\n", f);
	return ferror(f) ? -1 : 0;
}
