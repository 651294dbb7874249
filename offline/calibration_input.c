/*
 * autosize: the finished jobs `autosize calibrate` reads: JSON lines
 * (one job a line, the plan as `autosize plan --json` prints it) and
 * sacct's parsable lines (the plan record in AdminComment).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autosize/calibration_input.h"
#include "autosize/decide.h"
#include "autosize/parse.h"
#include "date.h"
#include "json.h"

/* What a JSON line fills, and its first error. */
typedef struct cal_json_ctx {
	autosize_record *r;
	autosize_finished_job *j;
	double mem_total, mem_other, mem_cache;
	int have_plan, have_user, have_tok_s;
	char bad[96];            /* the first member that was wrong */
} cal_json_ctx;

static double cal_json_num(const autosize_json_member *m, int *ok)
{
	char buf[64];
	double v;

	*ok = 0;
	if (m->kind != AUTOSIZE_JSON_NUMBER || m->num_len >= sizeof(buf))
		return 0;
	memcpy(buf, m->num, m->num_len);
	buf[m->num_len] = '\0';
	errno = 0;
	v = strtod(buf, NULL);
	if (errno || !isfinite(v) || v < 0)
		return 0;
	*ok = 1;
	return v;
}

/* A name the record format carries (letters, digits, "._+-"). */
static int cal_json_name(const autosize_json_member *m, char *out,
			 size_t len)
{
	const char *s;

	if (m->kind != AUTOSIZE_JSON_STRING || !m->str_fits ||
	    strlen(m->str) >= len || !m->str[0])
		return 0;
	for (s = m->str; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("._+-", *s)))
			return 0;
	memcpy(out, m->str, strlen(m->str) + 1);
	return 1;
}

static void cal_json_bad(cal_json_ctx *c, const autosize_json_member *m)
{
	if (!c->bad[0])
		snprintf(c->bad, sizeof(c->bad), "%s%s%s",
			 m->parent[0] ? m->parent : "",
			 m->parent[0] ? "." : "", m->key);
}

/* Numbers of the plan object: (key, record field). */
static double *cal_plan_num(autosize_record *r, const char *key)
{
	static const struct { const char *key; size_t off; } nums[] = {
		{"params", offsetof(autosize_record, params)},
		{"tokens", offsetof(autosize_record, tokens)},
		{"eval_tokens", offsetof(autosize_record, eval_tokens)},
		{"tokens_per_s", offsetof(autosize_record, tokens_per_s)},
		{"step_s", offsetof(autosize_record, step_s)},
		{"train_hours", offsetof(autosize_record, train_hours)},
		{"train_hours_low", offsetof(autosize_record,
					     train_hours_low)},
		{"train_hours_high", offsetof(autosize_record,
					      train_hours_high)},
	};
	size_t i;

	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		if (strcmp(key, nums[i].key) == 0)
			return (double *)(void *)((char *)r + nums[i].off);
	return NULL;
}

static void cal_json_plan(cal_json_ctx *c, const autosize_json_member *m)
{
	autosize_record *r = c->r;
	double v, *dst;
	int ok = 1;

	if ((dst = cal_plan_num(r, m->key))) {
		v = cal_json_num(m, &ok);
		*dst = v;
		c->have_tok_s |= strcmp(m->key, "tokens_per_s") == 0 && ok;
	} else if (strcmp(m->key, "partition") == 0) {
		ok = cal_json_name(m, r->partition, sizeof(r->partition));
	} else if (strcmp(m->key, "gpu") == 0) {
		ok = cal_json_name(m, r->gpu, sizeof(r->gpu));
	} else if (strcmp(m->key, "framework") == 0) {
		ok = cal_json_name(m, r->framework, sizeof(r->framework));
	} else if (strcmp(m->key, "nodes") == 0) {
		v = cal_json_num(m, &ok);
		r->nodes = ok && v <= 1e7 ? (int)v : 0;
	} else if (strcmp(m->key, "gpus_per_node") == 0) {
		v = cal_json_num(m, &ok);
		r->gpus_per_node = ok && v <= 1024 ? (int)v : 0;
	} else if (strcmp(m->key, "time_limit_min") == 0) {
		v = cal_json_num(m, &ok);
		r->time_limit_min = ok && v <= 1e9 ? (long)v : 0;
	}
	if (!ok)
		cal_json_bad(c, m);
}

/* A time: sacct's text or seconds since 1970. */
static long long cal_json_time(const autosize_json_member *m, int *ok)
{
	double v;

	if (m->kind == AUTOSIZE_JSON_STRING) {
		*ok = m->str_fits;
		return date_parse(m->str);
	}
	v = cal_json_num(m, ok);
	*ok = *ok && v < 1e11;
	return *ok ? (long long)v : 0;
}

/* A count of at most max; -1 when it is not one. */
static long cal_json_count(const autosize_json_member *m, double max,
			   int *ok)
{
	double v = cal_json_num(m, ok);

	*ok = *ok && v <= max;
	return *ok ? (long)v : -1;
}

/* The optional top-level members (the report's): 1 when fine or not
 * one of them. */
static int cal_json_job(cal_json_ctx *c, const autosize_json_member *m)
{
	autosize_finished_job *j = c->j;
	autosize_record *r = c->r;
	int ok = 1;

	if (strcmp(m->key, "job_id") == 0) {
		if (m->kind == AUTOSIZE_JSON_NUMBER)
			snprintf(j->job_id, sizeof(j->job_id), "%.*s",
				 (int)m->num_len, m->num);
		else
			ok = cal_json_name(m, j->job_id, sizeof(j->job_id));
	} else if (strcmp(m->key, "job_name") == 0) {
		/* any text: the report escapes it */
		ok = m->kind == AUTOSIZE_JSON_STRING;
		if (ok && m->str_fits)
			snprintf(j->name, sizeof(j->name), "%s", m->str);
	} else if (strcmp(m->key, "partition") == 0) {
		ok = cal_json_name(m, j->partition, sizeof(j->partition));
	} else if (strcmp(m->key, "nodes") == 0) {
		j->nodes = cal_json_count(m, 1e7, &ok);
	} else if (strcmp(m->key, "gpus") == 0) {
		j->gpus = cal_json_count(m, 1e9, &ok);
	} else if (strcmp(m->key, "time_limit_min") == 0) {
		j->time_limit_s = cal_json_count(m, 1e9, &ok) * 60.0;
		if (j->time_limit_s < 0)
			j->time_limit_s = 0;
	} else if (strcmp(m->key, "submit") == 0) {
		j->submit_s = cal_json_time(m, &ok);
	} else if (strcmp(m->key, "start") == 0) {
		j->start_s = cal_json_time(m, &ok);
	} else if (strcmp(m->key, "end") == 0) {
		j->end_s = cal_json_time(m, &ok);
	} else if (strcmp(m->key, "warn") == 0) {
		ok = cal_json_name(m, r->warn, sizeof(r->warn));
	} else if (strcmp(m->key, "asked_gpus") == 0) {
		r->ask_gpus = (int)cal_json_count(m, 1e7, &ok);
		if (r->ask_gpus < 0)
			r->ask_gpus = 0;
	} else if (strcmp(m->key, "asked_time_limit_min") == 0) {
		r->ask_min = cal_json_count(m, 1e9, &ok);
		if (r->ask_min < 0)
			r->ask_min = 0;
	}
	return ok;
}

static void cal_json_visit(void *ctx, const autosize_json_member *m)
{
	cal_json_ctx *c = ctx;
	autosize_record *r = c->r;
	double v;
	int ok = 1;

	if (!m->key_fits)
		return;
	if (!m->parent[0]) {
		if (strcmp(m->key, "user") == 0)
			ok = c->have_user = cal_json_name(m, c->j->user,
						sizeof(c->j->user));
		else if (strcmp(m->key, "state") == 0)
			ok = cal_json_name(m, c->j->state,
					   sizeof(c->j->state));
		else if (strcmp(m->key, "elapsed_s") == 0)
			c->j->elapsed_s = cal_json_num(m, &ok);
		else if (strcmp(m->key, "plan") == 0)
			ok = c->have_plan = m->kind == AUTOSIZE_JSON_OBJECT;
		else
			ok = cal_json_job(c, m);
	} else if (m->grandparent[0]) {
		if (strcmp(m->grandparent, "plan") == 0 &&
		    strcmp(m->parent, "memory_per_gpu_bytes") == 0) {
			if (strcmp(m->key, "total") == 0)
				c->mem_total = cal_json_num(m, &ok);
			else if (strcmp(m->key, "other") == 0)
				c->mem_other = cal_json_num(m, &ok);
			else if (strcmp(m->key, "cache") == 0)
				c->mem_cache = cal_json_num(m, &ok);
		} else if (strcmp(m->grandparent, "plan") == 0 &&
			   strcmp(m->parent, "calibration") == 0) {
			/* the correction this plan already used */
			if (strcmp(m->key, "speed_factor") == 0)
				r->cal_speed = cal_json_num(m, &ok);
			else if (strcmp(m->key, "memory_factor") == 0) {
				v = cal_json_num(m, &ok);
				r->cal_memory = v > 1 ? v : 0;
			}
		}
	} else if (strcmp(m->parent, "plan") == 0) {
		cal_json_plan(c, m);
	} else if (strcmp(m->parent, "measured") == 0) {
		if (m->kind == AUTOSIZE_JSON_NULL)
			return;
		v = cal_json_num(m, &ok);
		if (!ok)
			;
		else if (strcmp(m->key, "tokens_per_s") == 0)
			r->m_tokens_per_s = v;
		else if (strcmp(m->key, "step_s") == 0)
			r->m_step_s = v;
		else if (strcmp(m->key, "peak_memory_bytes") == 0)
			r->m_mem_bytes = v;
		r->has_measured |= ok && v > 0;
	}
	if (!ok)
		cal_json_bad(c, m);
}

void autosize_finished_job_init(autosize_finished_job *j)
{
	memset(j, 0, sizeof(*j));
	j->nodes = j->gpus = -1;
}

autosize_err autosize_finished_json_line(const char *line, size_t len,
					 const char *what, autosize_record *r,
					 autosize_finished_job *j,
					 autosize_error *e)
{
	cal_json_ctx c;
	autosize_err rc;

	memset(&c, 0, sizeof(c));
	autosize_record_init(r);
	autosize_finished_job_init(j);
	c.r = r;
	c.j = j;
	if ((rc = autosize_json_scan_deep(line, len, what, cal_json_visit, &c,
					  e)))
		return rc;
	if (c.bad[0])
		return autosize_fail(e, AUTOSIZE_EINVAL, "%s: key '%s': not "
				     "a non-negative number or a plain name",
				     what, c.bad);
	if (!c.have_user || !c.have_plan || !c.have_tok_s ||
	    !r->partition[0] || !r->gpu[0])
		return autosize_fail(e, AUTOSIZE_EINVAL, "%s: needs \"user\" "
				     "and \"plan\" with partition, gpu and "
				     "tokens_per_s (autosize plan --json)",
				     what);
	if (!r->framework[0])
		snprintf(r->framework, sizeof(r->framework), "megatron");
	/* as a job record's mem_b: the device peak, PyTorch's cache in */
	r->mem_bytes = c.mem_total + c.mem_cache;
	r->alloc_bytes = c.mem_total > c.mem_other ? c.mem_total - c.mem_other
						   : 0;
	if (r->has_measured)
		r->m_lines = 1;
	return AUTOSIZE_OK;
}

autosize_err autosize_cal_json_line(const char *line, size_t len,
				    const char *what, autosize_record *r,
				    char *user, char *state,
				    double *elapsed_s, autosize_error *e)
{
	autosize_finished_job j;
	autosize_err rc;

	rc = autosize_finished_json_line(line, len, what, r, &j, e);
	memcpy(user, j.user, sizeof(j.user));
	memcpy(state, j.state, sizeof(j.state));
	*elapsed_s = j.elapsed_s;
	return rc;
}

/* Slurm's elapsed time: [D-]HH:MM:SS, MM:SS or MM:SS.mmm (autosize's
 * duration reader takes Slurm's forms). */
static double cal_elapsed(const char *s)
{
	double v;

	if (autosize_parse_duration(s, "Elapsed", &v, NULL) != AUTOSIZE_OK)
		return 0;
	return v;
}

/* A count of sacct's (NNodes, a TRES value); -1 when it is not one. */
static long cal_count(const char *s)
{
	char *end;
	long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || (*end && *end != ',') || v > 100000000L)
		return -1;
	return v;
}

/* GPUs in sacct's AllocTRES ("cpu=64,gres/gpu=8,mem=...,node=1"): -1
 * when there is no untyped GPU entry or it cannot be read (typed ones,
 * gres/gpu:h100=8, are counted in the untyped one Slurm always lists
 * beside them; core/gres.c reads each entry). */
static long cal_tres_gpus(const char *tres)
{
	const char *at = tres, *comma, *type;
	size_t n, type_len;
	long gpus;

	while (at && *at) {
		comma = strchr(at, ',');
		n = comma ? (size_t)(comma - at) : strlen(at);
		gpus = autosize_gres_entry_gpus(at, n, &type, &type_len);
		if (gpus != AUTOSIZE_JOB_UNSET && !type)
			return gpus >= 0 ? gpus : -1;
		at = comma ? comma + 1 : NULL;
	}
	return -1;
}

/* sacct's Timelimit: a duration; UNLIMITED, Partition_Limit: 0. */
static double cal_time_limit(const char *s)
{
	return s[0] >= '0' && s[0] <= '9' ? cal_elapsed(s) : 0;
}

int autosize_sacct_job_line(char *line, const char *delim,
			    autosize_finished_job *j)
{
	char *f[AUTOSIZE_SACCT_NFIELDS];
	size_t dlen = strlen(delim);
	int i;

	autosize_finished_job_init(j);
	if (!dlen)
		return -1;
	line[strcspn(line, "\r\n")] = '\0';
	f[0] = line;
	for (i = 1; i < AUTOSIZE_SACCT_NFIELDS; i++) {
		char *at = strstr(f[i - 1], delim);

		if (!at)
			return -1;
		*at = '\0';
		f[i] = at + dlen;
	}
	if (!f[0][0] || strchr(f[0], '.') || !f[1][0] ||
	    strlen(f[0]) >= sizeof(j->job_id) ||
	    strlen(f[1]) >= sizeof(j->user))
		return -1;
	snprintf(j->job_id, sizeof(j->job_id), "%s", f[0]);
	snprintf(j->user, sizeof(j->user), "%s", f[1]);
	/* the partition it ran in ("" when too long to be a policy's) */
	if (strlen(f[2]) < sizeof(j->partition))
		snprintf(j->partition, sizeof(j->partition), "%s", f[2]);
	/* "CANCELLED by 1000": the first word */
	snprintf(j->state, sizeof(j->state), "%.*s",
		 (int)strcspn(f[3], " "), f[3]);
	j->elapsed_s = cal_elapsed(f[4]);
	j->nodes = cal_count(f[5]);
	j->gpus = cal_tres_gpus(f[6]);
	j->time_limit_s = cal_time_limit(f[7]);
	j->submit_s = date_parse(f[8]);
	j->start_s = date_parse(f[9]);
	j->end_s = date_parse(f[10]);
	j->comment = f[11];
	snprintf(j->name, sizeof(j->name), "%s", f[12]);
	return 0;
}

int autosize_finished_record(const autosize_finished_job *j,
			     autosize_record *r, autosize_error *e)
{
	char what[96];
	size_t start, n;

	autosize_record_init(r);
	if (!j->comment || !autosize_record_find(j->comment, &start, &n))
		return 0;
	snprintf(what, sizeof(what), "job %s's AdminComment", j->job_id);
	return autosize_record_decode(j->comment + start, n, what, r, e)
	       ? -1 : 1;
}
