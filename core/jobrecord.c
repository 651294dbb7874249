/*
 * autosize: the plan record in a job's AdminComment (jobrecord.h).
 * One table of keys drives the writer and the reader.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "autosize/framework.h"
#include "autosize/jobrecord.h"

typedef enum rec_type { REC_DBL, REC_INT, REC_LONG, REC_STR } rec_type;

/* Where a key lives in autosize_record and what it may hold. */
typedef struct rec_key {
	const char *name;
	rec_type type;
	size_t off;
	size_t size;       /* REC_STR: the buffer's size */
	double min, max;   /* numbers */
	int required;      /* a plan key every record has */
	int measured;      /* written only with has_measured */
	int optional;      /* written only when non-zero */
} rec_key;

#define RK_D(n, f, lo, hi, req) { n, REC_DBL, \
	offsetof(autosize_record, f), 0, lo, hi, req, 0, 0 }
#define RK_I(n, f, lo, hi, req) { n, REC_INT, \
	offsetof(autosize_record, f), 0, lo, hi, req, 0, 0 }
#define RK_S(n, f) { n, REC_STR, offsetof(autosize_record, f), \
	sizeof(((autosize_record *)0)->f), 0, 0, 1, 0, 0 }
#define RK_M(n, f, lo, hi) { n, REC_DBL, \
	offsetof(autosize_record, f), 0, lo, hi, 0, 1, 0 }
/* written only when non-zero (non-empty) */
#define RK_O(n, t, f, lo, hi) { n, t, offsetof(autosize_record, f), \
	t == REC_STR ? sizeof(((autosize_record *)0)->f) : 0, lo, hi, 0, 0, \
	1 }

static const rec_key rec_keys[] = {
	RK_D("params", params, 1e6, 1e16, 1),
	RK_D("tokens", tokens, 0, 1e18, 1),
	RK_S("part", partition),
	RK_S("gpu", gpu),
	RK_S("fw", framework),
	RK_I("nodes", nodes, 1, 1e7, 1),
	RK_I("gpn", gpus_per_node, 1, 1024, 1),
	RK_I("tp", tp, 1, 1e6, 1),
	RK_I("pp", pp, 1, 1e6, 1),
	RK_I("dp", dp, 1, 1e8, 1),
	RK_I("cp", cp, 0, 1e6, 0),
	RK_I("ep", ep, 0, 1e6, 0),
	RK_I("etp", etp, 0, 1e6, 0),
	RK_I("zero", zero_stage, 0, 3, 0),
	RK_I("mb", micro_batch, 0, 1e6, 0),
	RK_I("ga", grad_accum, 0, 1e9, 0),
	RK_I("seq", seq_len, 0, 1e8, 0),
	RK_I("gbs", global_batch, 0, 1e9, 0),
	{ "vp", REC_INT, offsetof(autosize_record, vp), 0, 0, 1e4, 0, 0, 1 },
	/* autosize_recompute: the record pins a node's layout to it */
	{ "rc", REC_INT, offsetof(autosize_record, recompute), 0, 0,
	  AUTOSIZE_RECOMPUTE_SELECTIVE_MLP, 0, 0, 1 },
	{ "rcl", REC_INT, offsetof(autosize_record, recompute_layers), 0, 0,
	  1e6, 0, 0, 1 },
	RK_D("tok_s", tokens_per_s, 0, 1e15, 1),
	RK_D("step_s", step_s, 0, 1e9, 1),
	RK_D("hours", train_hours, 0, 1e9, 1),
	RK_D("hours_lo", train_hours_low, 0, 1e9, 0),
	RK_D("hours_hi", train_hours_high, 0, 1e9, 0),
	RK_D("mem_b", mem_bytes, 0, 1e15, 1),
	RK_D("alloc_b", alloc_bytes, 0, 1e15, 0),
	{ "limit_min", REC_LONG, offsetof(autosize_record, time_limit_min),
	  0, 0, 1e9, 0, 0, 0 },
	{ "cal_speed", REC_DBL, offsetof(autosize_record, cal_speed), 0,
	  0, 100, 0, 0, 1 },
	{ "cal_jobs", REC_INT, offsetof(autosize_record, cal_jobs), 0,
	  0, 1e9, 0, 0, 1 },
	{ "cal_mem", REC_DBL, offsetof(autosize_record, cal_memory), 0,
	  0, 100, 0, 0, 1 },
	RK_O("chain", REC_STR, chain, 0, 0),
	RK_O("ci", REC_INT, chain_index, 0, 1e6),
	RK_O("ck", REC_INT, chain_jobs, 0, 1e6),
	RK_O("done", REC_DBL, tokens_done, 0, 1e18),
	RK_O("jtok", REC_DBL, chain_job_tokens, 0, 1e18),
	RK_O("sig", REC_INT, signal_s, 0, 65535),
	RK_O("ev", REC_DBL, eval_tokens, 0, 1e18),
	RK_O("ask_gpus", REC_INT, ask_gpus, 0, 1e7),
	RK_O("ask_min", REC_LONG, ask_min, 0, 1e9),
	RK_O("warn", REC_STR, warn, 0, 0),
	RK_O("model", REC_STR, model, 0, 0),
	RK_O("mode", REC_STR, mode, 0, 0),
	RK_O("stack", REC_STR, stack, 0, 0),
	RK_O("prec", REC_STR, prec, 0, 0),
	RK_M("m_tok_s", m_tokens_per_s, 0, 1e15),
	RK_M("m_step_s", m_step_s, 0, 1e9),
	RK_M("m_mem_b", m_mem_bytes, 0, 1e15),
	{ "m_lines", REC_INT, offsetof(autosize_record, m_lines), 0, 0, 1e9,
	  0, 1, 0 },
	{ "m_done", REC_DBL, offsetof(autosize_record, m_tokens_done), 0, 0,
	  1e18, 0, 1, 1 },
	{ "done_at", REC_LONG, offsetof(autosize_record, done_at), 0, 0,
	  4294967295.0, 0, 0, 1 },
};

#define REC_NKEYS (sizeof(rec_keys) / sizeof(rec_keys[0]))

void autosize_record_init(autosize_record *r)
{
	memset(r, 0, sizeof(*r));
}

static int rec_name_ok(const char *s);

int autosize_record_chain_jobs(const autosize_record *r)
{
	if (r->chain_jobs > 0)
		return r->chain_jobs;
	if (r->time_limit_min > 0 && r->train_hours * 60 > r->time_limit_min)
		return (int)fmin(ceil(r->train_hours * 60 /
				      r->time_limit_min), 1e6);
	return 1;
}

void autosize_record_from_plan(const autosize_plan *p, autosize_record *r)
{
	const autosize_memory *m = &p->mem;

	autosize_record_init(r);
	r->params = p->params;
	r->tokens = p->tokens;
	snprintf(r->partition, sizeof(r->partition), "%s", p->part.name);
	snprintf(r->gpu, sizeof(r->gpu), "%s",
		 p->part.gpu ? p->part.gpu->name : "");
	snprintf(r->framework, sizeof(r->framework), "%s",
		 autosize_framework_name(p->framework));
	r->nodes = p->nodes;
	r->gpus_per_node = p->gpus_per_node;
	r->tp = p->tp;
	r->pp = p->pp;
	r->dp = p->dp;
	r->cp = p->cp;
	r->ep = p->ep;
	r->etp = p->etp;
	r->zero_stage = p->zero_stage;
	r->micro_batch = p->micro_batch;
	r->grad_accum = p->grad_accum;
	r->seq_len = p->seq_len;
	r->global_batch = p->global_batch;
	r->vp = p->vp > 1 ? p->vp : 0;
	r->recompute = (int)p->recompute;
	r->recompute_layers = p->recompute_layers;
	r->tokens_per_s = p->tokens_per_s;
	r->step_s = p->step_s;
	r->train_hours = p->train_hours;
	r->train_hours_low = p->train_hours_low;
	r->train_hours_high = p->train_hours_high;
	/* the device peak a job with room to spare shows */
	r->mem_bytes = m->total_bytes + m->cache_bytes;
	r->alloc_bytes = m->total_bytes - m->other_bytes;
	if (r->alloc_bytes < 0)
		r->alloc_bytes = 0;
	r->time_limit_min = p->time_limit_min;
	r->cal_speed = p->calibration.applied ? p->calibration.speed_factor
					       : 0;
	r->cal_jobs = p->calibration.applied ? p->calibration.jobs : 0;
	r->tokens_done = p->tokens_done;
	r->eval_tokens = p->eval_tokens;
	r->signal_s = p->signal_s;
	if (p->chained_jobs > 1) {
		r->chain_index = p->chain_index > 0 ? p->chain_index : 1;
		r->chain_jobs = p->chained_jobs;
		r->chain_job_tokens = p->chain_job_tokens;
	}
	r->cal_memory = p->calibration.applied &&
			p->calibration.memory_factor > 1
			? p->calibration.memory_factor : 0;
	/* the request's facts a plan does not show (a name the format
	 * cannot carry is left out, not the record) */
	if (rec_name_ok(p->model) && strlen(p->model) < sizeof(r->model))
		snprintf(r->model, sizeof(r->model), "%s", p->model);
	if (p->train_mode != AUTOSIZE_TRAIN_PRETRAIN)
		snprintf(r->mode, sizeof(r->mode), "%s",
			 autosize_train_mode_name(p->train_mode));
	if (rec_name_ok(p->stack))
		snprintf(r->stack, sizeof(r->stack), "%s", p->stack);
	if (p->precision != AUTOSIZE_PREC_BF16)
		snprintf(r->prec, sizeof(r->prec), "%s",
			 autosize_precision_name(p->precision));
}

/* A name the format can carry: [A-Za-z0-9._+-], 1.. bytes. */
static int rec_name_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("._+-", *s)))
			return 0;
	return 1;
}

static double rec_get_num(const autosize_record *r, const rec_key *k)
{
	const char *base = (const char *)r + k->off;

	if (k->type == REC_INT)
		return *(const int *)(const void *)base;
	if (k->type == REC_LONG)
		return (double)*(const long *)(const void *)base;
	return *(const double *)(const void *)base;
}

int autosize_record_encode(const autosize_record *r, char *buf, size_t len)
{
	size_t used, i;
	int n;

	n = snprintf(buf, len, "%s", AUTOSIZE_RECORD_PREFIX);
	if (n < 0 || (size_t)n >= len)
		return -1;
	used = (size_t)n;
	for (i = 0; i < REC_NKEYS; i++) {
		const rec_key *k = &rec_keys[i];
		const char *sep = used > strlen(AUTOSIZE_RECORD_PREFIX)
				  ? "," : "";
		double v;

		if (k->measured && !r->has_measured)
			continue;
		if (k->type == REC_STR) {
			const char *s = (const char *)r + k->off;

			if (k->optional && !s[0])
				continue;
			if (!rec_name_ok(s))
				return -1;
			n = snprintf(buf + used, len - used, "%s%s=%s", sep,
				     k->name, s);
		} else {
			v = rec_get_num(r, k);
			if (!isfinite(v) || v < k->min || v > k->max)
				v = v < k->min || !isfinite(v) ? k->min
							       : k->max;
			if (k->optional && v == 0)
				continue;
			n = snprintf(buf + used, len - used, "%s%s=%.6g", sep,
				     k->name, v);
		}
		if (n < 0 || (size_t)n >= len - used)
			return -1;
		used += (size_t)n;
	}
	return (int)used;
}

static const rec_key *rec_key_find(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < REC_NKEYS; i++)
		if (strlen(rec_keys[i].name) == n &&
		    memcmp(rec_keys[i].name, name, n) == 0)
			return &rec_keys[i];
	return NULL;
}

/* One value into r; val is NUL-terminated. */
static autosize_err rec_set(autosize_record *r, const rec_key *k,
			    const char *val, const char *what,
			    autosize_error *e)
{
	char *base = (char *)r + k->off, *end;
	double v;

	if (k->type == REC_STR) {
		if (!rec_name_ok(val) || strlen(val) >= k->size)
			return autosize_fail(e, AUTOSIZE_EINVAL, "%s: key '%s':"
					     " not a name of at most %zu "
					     "letters, digits, '._+-'", what,
					     k->name, k->size - 1);
		memcpy(base, val, strlen(val) + 1);
		return AUTOSIZE_OK;
	}
	errno = 0;
	v = strtod(val, &end);
	if (!*val || *end || errno || !isfinite(v) || v < k->min ||
	    v > k->max || (k->type != REC_DBL && v != floor(v)))
		return autosize_fail(e, AUTOSIZE_EINVAL, "%s: key '%s': "
				     "'%.24s' is not a %s in %g..%g", what,
				     k->name, val, k->type == REC_DBL
				     ? "number" : "whole number", k->min,
				     k->max);
	if (k->type == REC_INT)
		*(int *)(void *)base = (int)v;
	else if (k->type == REC_LONG)
		*(long *)(void *)base = (long)v;
	else
		*(double *)(void *)base = v;
	if (k->measured)
		r->has_measured = 1;
	return AUTOSIZE_OK;
}

autosize_err autosize_record_decode(const char *text, size_t len,
				    const char *what, autosize_record *r,
				    autosize_error *e)
{
	size_t plen = strlen(AUTOSIZE_RECORD_PREFIX), pos, i;
	unsigned char seen[REC_NKEYS];
	char item[96];
	autosize_err rc;

	autosize_record_init(r);
	memset(seen, 0, sizeof(seen));
	if (!text || len < plen || memcmp(text, AUTOSIZE_RECORD_PREFIX, plen))
		return autosize_fail(e, AUTOSIZE_EINVAL, "%s: no '%s' record",
				     what, AUTOSIZE_RECORD_PREFIX);
	if (len > AUTOSIZE_RECORD_MAX)
		return autosize_fail(e, AUTOSIZE_ETOOBIG, "%s: record longer "
				     "than %d bytes", what,
				     AUTOSIZE_RECORD_MAX);
	for (pos = plen; pos < len;) {
		const char *s = text + pos, *comma, *eq;
		size_t n = len - pos;
		const rec_key *k;

		comma = memchr(s, ',', n);
		if (comma)
			n = (size_t)(comma - s);
		eq = memchr(s, '=', n);
		if (!eq || eq == s || n >= sizeof(item))
			return autosize_fail(e, AUTOSIZE_EINVAL, "%s: item %zu "
					     "is not key=value (expected "
					     "key=value,key=value)", what,
					     pos);
		memcpy(item, s, n);
		item[n] = '\0';
		if (strlen(item) != n)
			return autosize_fail(e, AUTOSIZE_EINVAL, "%s: NUL byte "
					     "in the record", what);
		k = rec_key_find(s, (size_t)(eq - s));
		if (k) {
			if (seen[k - rec_keys]++)
				return autosize_fail(e, AUTOSIZE_EINVAL, "%s: "
						     "key '%s' given twice",
						     what, k->name);
			if ((rc = rec_set(r, k, item + (eq - s) + 1, what, e)))
				return rc;
		}
		pos += n + (comma ? 1 : 0);
		if (comma && pos == len)
			return autosize_fail(e, AUTOSIZE_EINVAL, "%s: record "
					     "ends with ','", what);
	}
	for (i = 0; i < REC_NKEYS; i++)
		if (rec_keys[i].required && !seen[i])
			return autosize_fail(e, AUTOSIZE_EINVAL, "%s: key '%s' "
					     "missing from the record", what,
					     rec_keys[i].name);
	return AUTOSIZE_OK;
}

int autosize_record_find(const char *comment, size_t *start, size_t *len)
{
	const char *s, *hit = NULL;
	size_t plen = strlen(AUTOSIZE_RECORD_PREFIX);

	if (!comment)
		return 0;
	for (s = strstr(comment, AUTOSIZE_RECORD_PREFIX); s;
	     s = strstr(s + plen, AUTOSIZE_RECORD_PREFIX))
		if (s == comment || s[-1] == ' ')
			hit = s;
	if (!hit)
		return 0;
	*start = (size_t)(hit - comment);
	*len = strcspn(hit, " \t\r\n");
	return 1;
}

int autosize_record_attach(const char *comment, const char *token,
			   char *out, size_t len)
{
	size_t start, n;
	int w;

	if (!comment)
		comment = "";
	if (autosize_record_find(comment, &start, &n))
		w = snprintf(out, len, "%.*s%s%s", (int)start, comment, token,
			     comment + start + n);
	else
		w = snprintf(out, len, "%s%s%s", comment,
			     comment[0] ? " " : "", token);
	return w < 0 || (size_t)w >= len ? -1 : w;
}

int autosize_record_mismatch(const autosize_record *r, const char *partition,
			     long nodes, long gpus, char *why, size_t len)
{
	long planned_gpus = (long)r->nodes * r->gpus_per_node;

	/* records sacctmgr wrote for a job that ended before its script
	 * (releases before the spool) came back lowercased: names match
	 * in any case */
	if (partition && partition[0] &&
	    strcasecmp(partition, r->partition) != 0) {
		snprintf(why, len, "partition %s, planned %s", partition,
			 r->partition);
		return 1;
	}
	if (nodes >= 0 && nodes != r->nodes) {
		snprintf(why, len, "%ld nodes, planned %d", nodes, r->nodes);
		return 1;
	}
	if (gpus >= 0 && gpus != planned_gpus) {
		snprintf(why, len, "%ld GPUs, planned %ld", gpus,
			 planned_gpus);
		return 1;
	}
	return 0;
}

/* A pin the request leaves to the search takes the record's value. */
static void record_pin_int(int *pin, int value)
{
	if (*pin == AUTOSIZE_UNSET && value > 0)
		*pin = value;
}

void autosize_record_pin(const autosize_record *rec, autosize_request *r)
{
	int i;

	if (!r->partition[0] && rec->gpu[0])
		snprintf(r->gpu, sizeof(r->gpu), "%s", rec->gpu);
	record_pin_int(&r->nodes, rec->nodes);
	record_pin_int(&r->gpus_per_node, rec->gpus_per_node);
	record_pin_int(&r->tp, rec->tp);
	record_pin_int(&r->pp, rec->pp);
	record_pin_int(&r->cp, rec->cp);
	record_pin_int(&r->ep, rec->ep);
	/* expert TP is a Megatron setting (--etp); the others' follow
	 * their layout */
	if (!strcmp(rec->framework, "megatron"))
		record_pin_int(&r->etp, rec->etp);
	record_pin_int(&r->micro_batch, rec->micro_batch);
	record_pin_int(&r->interleave, rec->vp > 1 ? rec->vp : 1);
	if (r->zero_stage == AUTOSIZE_UNSET)
		r->zero_stage = rec->zero_stage;
	if (r->recompute == AUTOSIZE_UNSET) {
		int vp = rec->vp > 1 ? rec->vp : 1;

		r->recompute = rec->recompute;
		/* the record counts a pipeline rank's layers; the pin, a
		 * virtual stage's (rounded up: never less recomputed) */
		if (rec->recompute == AUTOSIZE_RECOMPUTE_FULL &&
		    rec->recompute_layers > 0 &&
		    r->recompute_layers == AUTOSIZE_UNSET)
			r->recompute_layers = (rec->recompute_layers + vp - 1) /
					      vp;
	}
	for (i = 0; r->framework == AUTOSIZE_FRAMEWORK_DEFAULT &&
		    autosize_framework_names[i]; i++)
		if (strcmp(rec->framework, autosize_framework_names[i]) == 0)
			r->framework = (autosize_framework)
				(AUTOSIZE_FRAMEWORK_MEGATRON + i);
}

int autosize_record_merge(const char *comment, const autosize_measured *m,
			  const char *what, char *out, size_t len,
			  autosize_error *e)
{
	char token[AUTOSIZE_RECORD_MAX];
	autosize_record rec;
	size_t start, n;

	if (!autosize_record_find(comment, &start, &n))
		return 0;       /* not a job slurmctld sized */
	if (autosize_record_decode(comment + start, n, what, &rec, e))
		return -1;
	if (autosize_record_add_measured(&rec, m) == 0)
		return 0;
	if (autosize_record_encode(&rec, token, sizeof(token)) < 0 ||
	    autosize_record_attach(comment, token, out, len) < 0) {
		autosize_fail(e, AUTOSIZE_ETOOBIG, "%s: the record with the "
			      "measured figures does not fit in %zu bytes",
			      what, len);
		return -1;
	}
	return 1;
}
