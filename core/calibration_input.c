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
#include "autosize/calibration.h"
#include "autosize/parse.h"
#include "json.h"

/* What a JSON line fills, and its first error. */
typedef struct cal_json_ctx {
	autosize_record *r;
	char *user, *state;
	double *elapsed_s;
	double mem_total, mem_other;
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
			ok = c->have_user = cal_json_name(m, c->user,
						AUTOSIZE_CAL_USER_MAX);
		else if (strcmp(m->key, "state") == 0)
			ok = cal_json_name(m, c->state,
					   AUTOSIZE_CAL_USER_MAX);
		else if (strcmp(m->key, "elapsed_s") == 0)
			*c->elapsed_s = cal_json_num(m, &ok);
		else if (strcmp(m->key, "plan") == 0)
			ok = c->have_plan = m->kind == AUTOSIZE_JSON_OBJECT;
	} else if (m->grandparent[0]) {
		if (strcmp(m->grandparent, "plan") == 0 &&
		    strcmp(m->parent, "memory_per_gpu_bytes") == 0) {
			if (strcmp(m->key, "total") == 0)
				c->mem_total = cal_json_num(m, &ok);
			else if (strcmp(m->key, "other") == 0)
				c->mem_other = cal_json_num(m, &ok);
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

autosize_err autosize_cal_json_line(const char *line, size_t len,
				    const char *what, autosize_record *r,
				    char *user, char *state,
				    double *elapsed_s, autosize_error *e)
{
	cal_json_ctx c;
	autosize_err rc;

	memset(&c, 0, sizeof(c));
	autosize_record_init(r);
	user[0] = state[0] = '\0';
	*elapsed_s = 0;
	c.r = r;
	c.user = user;
	c.state = state;
	c.elapsed_s = elapsed_s;
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
	r->mem_bytes = c.mem_total;
	r->alloc_bytes = c.mem_total > c.mem_other ? c.mem_total - c.mem_other
						   : 0;
	if (r->has_measured)
		r->m_lines = 1;
	return AUTOSIZE_OK;
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
 * when there is no gres/gpu entry (typed ones, gres/gpu:h100=8, are
 * counted in the untyped one Slurm always lists beside them). */
static long cal_tres_gpus(const char *tres)
{
	const char *at = tres;

	while (at && *at) {
		if (strncmp(at, "gres/gpu=", 9) == 0)
			return cal_count(at + 9);
		at = strchr(at, ',');
		if (at)
			at++;
	}
	return -1;
}

int autosize_cal_sacct_line(char *line, char *user, char *partition,
			    char *state, double *elapsed_s, long *nodes,
			    long *gpus, const char **comment)
{
	char *f[8];
	int i;

	f[0] = line;
	for (i = 1; i < 8; i++) {
		char *bar = strchr(f[i - 1], '|');

		if (!bar)
			return -1;
		*bar = '\0';
		f[i] = bar + 1;
	}
	f[7][strcspn(f[7], "\r\n")] = '\0';
	*nodes = cal_count(f[5]);
	*gpus = cal_tres_gpus(f[6]);
	if (!f[0][0] || strchr(f[0], '.') || !f[1][0] ||
	    strlen(f[1]) >= AUTOSIZE_CAL_USER_MAX)
		return -1;
	snprintf(user, AUTOSIZE_CAL_USER_MAX, "%s", f[1]);
	/* the partition it ran in ("" when too long to be a policy's) */
	if (strlen(f[2]) < AUTOSIZE_PART_NAME_MAX)
		snprintf(partition, AUTOSIZE_PART_NAME_MAX, "%s", f[2]);
	else
		partition[0] = '\0';
	/* "CANCELLED by 1000": the first word */
	snprintf(state, AUTOSIZE_CAL_USER_MAX, "%.*s",
		 (int)strcspn(f[3], " "), f[3]);
	*elapsed_s = cal_elapsed(f[4]);
	*comment = f[7];
	return 0;
}
