/*
 * The fuzz targets, shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.c,
 * built with clang by `make fuzz`) and by the regression replay
 * (tests/test_regressions.c, built by `make check` with any compiler), so
 * every input ever found crashing is replayed through the same code.
 *
 * Each target takes raw bytes, feeds them to the core's entry points for
 * untrusted input and checks what every caller relies on: a known error
 * code, and on error one non-empty line without control characters; on
 * success values within their documented ranges. A broken invariant calls
 * FUZZ_FAIL (abort() by default: libFuzzer records the input).
 */
#ifndef AUTOSIZE_FUZZ_TARGETS_H
#define AUTOSIZE_FUZZ_TARGETS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autosize.h"

#ifndef FUZZ_FAIL
#define FUZZ_FAIL(...) \
	do { \
		fprintf(stderr, "fuzz: invariant broken: " __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} while (0)
#endif

/* Fields and entries taken from one input; the rest is ignored. */
#define FUZZ_MAX_FIELDS 64
/* Options applied per plan input: bounds the work per input. */
#define FUZZ_MAX_OPTIONS 24
/* The site policy the plan target also plans under (repo root). */
#define FUZZ_SITE_POLICY "etc/autosize.yaml"

/* Copy bytes into a fresh NUL-terminated string (NULs inside stay). */
static inline char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		FUZZ_FAIL("out of memory copying %zu bytes", size);
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * Split s (len bytes, NUL-terminated copy) in place at '\n' and NUL into
 * at most max fields; returns the count.
 */
static inline size_t fuzz_split(char *s, size_t len, char **fields,
				size_t max)
{
	size_t i, n = 0, start = 0;

	for (i = 0; i <= len && n < max; i++) {
		if (i == len || s[i] == '\n' || s[i] == '\0') {
			s[i] = '\0';
			fields[n++] = s + start;
			start = i + 1;
		}
	}
	return n;
}

/* The checks on every result of the core. */
static inline void fuzz_check_rc(const char *where, autosize_err rc,
				 const autosize_error *e)
{
	size_t i;

	if ((int)rc < AUTOSIZE_OK || rc > AUTOSIZE_EINTERNAL)
		FUZZ_FAIL("%s: unknown error code %d", where, (int)rc);
	if (rc == AUTOSIZE_EINTERNAL)
		FUZZ_FAIL("%s: internal error on input: %s", where, e->msg);
	if (rc == AUTOSIZE_OK)
		return;
	if (e->code != rc)
		FUZZ_FAIL("%s: returned %d but error says %d", where, (int)rc,
			  (int)e->code);
	if (!memchr(e->msg, '\0', sizeof(e->msg)))
		FUZZ_FAIL("%s: error message not terminated", where);
	if (!e->msg[0])
		FUZZ_FAIL("%s: error %d without a message", where, (int)rc);
	for (i = 0; e->msg[i]; i++)
		if ((unsigned char)e->msg[i] < 0x20 || e->msg[i] == 0x7f)
			FUZZ_FAIL("%s: control character 0x%02x in error "
				  "message '%s'", where,
				  (unsigned char)e->msg[i], e->msg);
}

static inline void fuzz_check_model(const char *where,
				    const autosize_model *m)
{
	if (!memchr(m->name, '\0', sizeof(m->name)))
		FUZZ_FAIL("%s: model name not terminated", where);
	if (!m->has_arch)
		FUZZ_FAIL("%s: model accepted without an architecture", where);
	if (!(isfinite(m->params) && m->params > 0 &&
	      isfinite(m->params_active) && m->params_active > 0 &&
	      m->params_active <= m->params * (1 + 1e-9)))
		FUZZ_FAIL("%s: model params %g active %g", where, m->params,
			  m->params_active);
	if (m->layers < 1 || m->layers > AUTOSIZE_MAX_LAYERS ||
	    m->hidden < 1 || m->hidden > AUTOSIZE_MAX_HIDDEN ||
	    m->heads < 1 || m->heads > AUTOSIZE_MAX_HEADS ||
	    m->kv_heads < 1 || m->kv_heads > m->heads ||
	    m->hidden % m->heads != 0 || m->heads % m->kv_heads != 0)
		FUZZ_FAIL("%s: model shape out of range: layers %d hidden %d "
			  "heads %d kv %d", where, m->layers, m->hidden,
			  m->heads, m->kv_heads);
}

/* --- numbers, durations, choices --- */

static inline void fuzz_parse_field(const char *s)
{
	static const char *const words[] = {"bf16", "fp16", "fp8",
					    "adamw-8bit", NULL};
	autosize_error e;
	autosize_err rc;
	double d;
	long l;
	int k;
	char buf[64];

	autosize_error_clear(&e);
	rc = autosize_parse_count(s, "--count", &d, &e);
	fuzz_check_rc("parse_count", rc, &e);
	if (!rc && !(isfinite(d) && d >= 1 && d <= 1e18))
		FUZZ_FAIL("parse_count('%s') = %g", s, d);

	rc = autosize_parse_int(s, "--int", 1, 1024, &l, &e);
	fuzz_check_rc("parse_int", rc, &e);
	if (!rc && (l < 1 || l > 1024))
		FUZZ_FAIL("parse_int('%s') = %ld", s, l);
	rc = autosize_parse_int(s, "--int", 0, 2147483647L, &l, &e);
	fuzz_check_rc("parse_int", rc, &e);
	if (!rc && (l < 0 || l > 2147483647L))
		FUZZ_FAIL("parse_int('%s') = %ld", s, l);

	rc = autosize_parse_fraction(s, "--fraction", 0, 0.9, &d, &e);
	fuzz_check_rc("parse_fraction", rc, &e);
	if (!rc && !(d >= 0 && d <= 0.9))
		FUZZ_FAIL("parse_fraction('%s') = %g", s, d);

	rc = autosize_parse_duration(s, "--duration", &d, &e);
	fuzz_check_rc("parse_duration", rc, &e);
	if (!rc) {
		if (!(isfinite(d) && d > 0 && d <= 100.0 * 365 * 86400))
			FUZZ_FAIL("parse_duration('%s') = %g", s, d);
		autosize_format_duration(d, buf, sizeof(buf));
		if (!memchr(buf, '\0', sizeof(buf)) || !buf[0])
			FUZZ_FAIL("format_duration(%g)", d);
	}

	rc = autosize_parse_choice(s, "--choice", words, &k, &e);
	fuzz_check_rc("parse_choice", rc, &e);
	if (!rc && (k < 0 || k > 3))
		FUZZ_FAIL("parse_choice('%s') = %d", s, k);

	rc = autosize_parse_tokens(s, "--tokens", 16, 4194304, &l, &e);
	fuzz_check_rc("parse_tokens", rc, &e);
	if (!rc && (l < 16 || l > 4194304))
		FUZZ_FAIL("parse_tokens('%s') = %ld", s, l);

	rc = autosize_parse_batch(s, "--batch", &l, &d, &e);
	fuzz_check_rc("parse_batch", rc, &e);
	if (!rc && !((l >= 1 && l <= 100000000 && d == 0) ||
		     (l == 0 && d >= 1 && d <= 1e12)))
		FUZZ_FAIL("parse_batch('%s') = %ld sequences, %g tokens", s,
			  l, d);
}

static inline void fuzz_parse_target(const uint8_t *data, size_t size)
{
	char *s = fuzz_strndup(data, size), *fields[FUZZ_MAX_FIELDS];
	size_t i, n = fuzz_split(s, size, fields, FUZZ_MAX_FIELDS);

	for (i = 0; i < n; i++)
		fuzz_parse_field(fields[i]);
	free(s);
}

/* --- config.json --- */

static inline void fuzz_json_target(const uint8_t *data, size_t size)
{
	autosize_model m;
	autosize_error e;
	autosize_err rc;
	/* an exact-size copy: a read past the end is caught by ASan */
	char *text = malloc(size ? size : 1);

	if (!text)
		FUZZ_FAIL("out of memory");
	if (size)
		memcpy(text, data, size);
	autosize_error_clear(&e);
	rc = autosize_model_from_json_text(text, size, "config.json", &m, &e);
	fuzz_check_rc("model_from_json_text", rc, &e);
	if (!rc)
		fuzz_check_model("model_from_json_text", &m);
	free(text);
}

/* --- policy and catalog YAML --- */

static inline void fuzz_yaml_target(const uint8_t *data, size_t size)
{
	autosize_policy *p;
	autosize_catalog *c;
	autosize_error e;
	const autosize_partition *part;
	char *text = malloc(size ? size : 1);
	int i;

	if (!text)
		FUZZ_FAIL("out of memory");
	if (size)
		memcpy(text, data, size);
	autosize_error_clear(&e);
	/* `catalog:` resolves against etc/ (repo root), where gpus.yaml is */
	p = autosize_policy_parse(text, size, "fuzz.yaml", "etc", &e);
	fuzz_check_rc("policy_parse", p ? AUTOSIZE_OK : e.code, &e);
	if (!p && e.code == AUTOSIZE_OK)
		FUZZ_FAIL("policy_parse: NULL without an error");
	for (i = 0; p && i < autosize_policy_partition_count(p); i++) {
		part = autosize_policy_partition_at(p, i);
		if (!part || !part->gpu || part->gpus_per_node < 1 ||
		    part->nodes < 1 || part->max_nodes_per_job < 1 ||
		    part->max_nodes_per_job > part->nodes ||
		    !memchr(part->name, '\0', sizeof(part->name)) ||
		    autosize_policy_find_partition(p, part->name) != part)
			FUZZ_FAIL("policy_parse: bad partition %d", i);
	}
	if (p) {
		const autosize_defaults *d = autosize_policy_defaults(p);

		if (!(d->memory_reserve >= 0 && d->memory_reserve <= 0.9 &&
		      d->time_reserve >= 0 && d->time_reserve <= 10))
			FUZZ_FAIL("policy_parse: reserves %g %g",
				  d->memory_reserve, d->time_reserve);
	}
	autosize_policy_destroy(p);

	autosize_error_clear(&e);
	c = autosize_catalog_parse(text, size, "fuzz-gpus.yaml", &e);
	fuzz_check_rc("catalog_parse", c ? AUTOSIZE_OK : e.code, &e);
	if (!c && e.code == AUTOSIZE_OK)
		FUZZ_FAIL("catalog_parse: NULL without an error");
	for (i = 0; c && i < autosize_catalog_count(c); i++) {
		const autosize_gpu *g = autosize_catalog_at(c, i);

		if (!g || !memchr(g->name, '\0', sizeof(g->name)) ||
		    !(g->mem_bytes > 0) || !(g->bf16_tflops > 0) ||
		    autosize_catalog_find(c, g->name) == NULL)
			FUZZ_FAIL("catalog_parse: bad GPU %d", i);
	}
	autosize_catalog_destroy(c);
	free(text);
}

/* --- the job environment that reaches slurmctld --- */

static inline void fuzz_jobenv_target(const uint8_t *data, size_t size)
{
	char *s = fuzz_strndup(data, size), *fields[FUZZ_MAX_FIELDS];
	size_t n = fuzz_split(s, size, fields, FUZZ_MAX_FIELDS);
	autosize_request *r = malloc(sizeof(*r));
	autosize_model m;
	autosize_error e;
	autosize_err rc;
	int found = -1;

	if (!r)
		FUZZ_FAIL("out of memory");
	autosize_error_clear(&e);
	rc = autosize_request_from_env((const char *const *)fields, n, r,
				       &found, &e);
	fuzz_check_rc("request_from_env", rc, &e);
	if (found != 0 && found != 1)
		FUZZ_FAIL("request_from_env: found = %d", found);
	if (!rc && found && r->job_mode != AUTOSIZE_JOB_OFF)
		fuzz_check_model("request_from_env", &r->model);
	if (!memchr(r->model_spec, '\0', sizeof(r->model_spec)) ||
	    !memchr(r->partition, '\0', sizeof(r->partition)) ||
	    !memchr(r->gpu, '\0', sizeof(r->gpu)))
		FUZZ_FAIL("request_from_env: unterminated string");

	/* each entry also as an AUTOSIZE_MODEL line */
	for (size_t i = 0; i < n && i < 4; i++) {
		const char *line = fields[i];

		if (strncmp(line, AUTOSIZE_ENV_MODEL "=",
			    strlen(AUTOSIZE_ENV_MODEL) + 1) == 0)
			line += strlen(AUTOSIZE_ENV_MODEL) + 1;
		autosize_error_clear(&e);
		rc = autosize_model_decode(line, &m, &e);
		fuzz_check_rc("model_decode", rc, &e);
		if (!rc) {
			char buf[AUTOSIZE_JOBENV_VALUE_MAX + 1];
			autosize_model back;

			fuzz_check_model("model_decode", &m);
			/* what decodes re-encodes and decodes the same */
			if (autosize_model_encode(&m, buf, sizeof(buf)) < 0)
				FUZZ_FAIL("model_encode after decode");
			rc = autosize_model_decode(buf, &back, &e);
			if (rc || back.params != m.params)
				FUZZ_FAIL("model round trip '%s': %s", buf,
					  e.msg);
		}
	}
	free(r);
	free(s);
}

/* --- a whole plan from options --- */

/* The site policy, loaded once per process (NULL when absent). */
static inline const autosize_policy *fuzz_site_policy(void)
{
	static autosize_policy *site;
	static int tried;
	autosize_error e;

	if (!tried) {
		tried = 1;
		site = autosize_policy_load(FUZZ_SITE_POLICY, &e);
		if (!site)
			fprintf(stderr, "fuzz: %s not loaded (%s): planning "
				"under the default policy only\n",
				FUZZ_SITE_POLICY, e.msg);
	}
	return site;
}

static inline const autosize_policy *fuzz_default_policy(void)
{
	static autosize_policy *bare;
	autosize_error e;

	if (!bare && !(bare = autosize_policy_default(&e)))
		FUZZ_FAIL("default policy: %s", e.msg);
	return bare;
}

static inline void fuzz_check_plan(const autosize_request *r,
				   const autosize_plan *plan)
{
	char buf[8192];

	if (plan->nodes < 1 || plan->gpus_per_node < 1 ||
	    plan->gpus != plan->nodes * plan->gpus_per_node)
		FUZZ_FAIL("plan size %d x %d = %d", plan->nodes,
			  plan->gpus_per_node, plan->gpus);
	if (plan->tp < 1 || plan->pp < 1 || plan->dp < 1 ||
	    plan->micro_batch < 1 || plan->grad_accum < 1)
		FUZZ_FAIL("plan layout tp %d pp %d dp %d mb %d ga %d",
			  plan->tp, plan->pp, plan->dp, plan->micro_batch,
			  plan->grad_accum);
	if (!memchr(plan->reason, '\0', sizeof(plan->reason)) ||
	    plan->n_warnings < 0 || plan->n_warnings > AUTOSIZE_MAX_WARNINGS)
		FUZZ_FAIL("plan strings");
	if (plan->feasible && (plan->time_limit_min < 0 ||
			       !(plan->mem.total_bytes <=
				 plan->mem.usable_bytes * (1 + 1e-9))))
		FUZZ_FAIL("feasible plan over memory or with a bad time limit");
	/* what the front ends print must format */
	if (autosize_plan_to_json(plan, buf, sizeof(buf)) < 0)
		FUZZ_FAIL("plan_to_json does not fit 8 KiB");
	if (autosize_launch_summary(plan, buf, sizeof(buf)) < 0 ||
	    autosize_launch_report(r, plan, buf, sizeof(buf)) < 0 ||
	    autosize_launch_megatron_args(r, plan, buf, sizeof(buf)) < 0 ||
	    autosize_launch_deepspeed_json(r, plan, buf, sizeof(buf)) < 0)
		FUZZ_FAIL("launch strings do not fit 8 KiB");
	/* every launcher's line of the plan in its fixed field, and the
	 * launch object of plan --json */
	{
		static autosize_launch l;
		static char json[16384];

		if (autosize_launch_build(r, plan, NULL, &l) != 0 ||
		    autosize_launch_to_json(&l, json, sizeof(json)) < 0)
			FUZZ_FAIL("the launch does not fit its fields");
	}
}

/*
 * Lines of "name=value" (an option from the table), or a first byte that
 * picks an option by index followed by its value. The first line's first
 * byte also picks the policies: bit 0 default, bit 1 the site policy.
 */
static inline void fuzz_plan_target(const uint8_t *data, size_t size)
{
	const autosize_option *opts = autosize_options();
	char *s = fuzz_strndup(data, size), *fields[FUZZ_MAX_OPTIONS];
	size_t i, n = fuzz_split(s, size, fields, FUZZ_MAX_OPTIONS);
	autosize_request *r = malloc(sizeof(*r));
	autosize_plan *plan = malloc(sizeof(*plan));
	const autosize_policy *pols[2];
	autosize_error e;
	autosize_err rc;
	int n_opts = 0, which = size ? data[0] & 3 : 1, k;

	if (!r || !plan)
		FUZZ_FAIL("out of memory");
	while (opts[n_opts].name)
		n_opts++;
	autosize_request_init(r);
	for (i = 0; i < n; i++) {
		char *f = fields[i], *eq = strchr(f, '=');
		const char *name = NULL, *value = NULL;

		if (eq) {
			*eq = '\0';
			for (k = 0; k < n_opts && !name; k++)
				if (strcmp(opts[k].name, f) == 0)
					name = opts[k].name;
			value = eq + 1;
			if (!name)
				*eq = '=';
		}
		if (!name) {
			if (!f[0])
				continue;
			name = opts[(unsigned char)f[0] % (unsigned)n_opts].name;
			value = f + 1;
		}
		autosize_error_clear(&e);
		rc = autosize_request_set(r, name, value, &e);
		fuzz_check_rc("request_set", rc, &e);
	}
	autosize_error_clear(&e);
	rc = autosize_request_finish(r, &e);
	fuzz_check_rc("request_finish", rc, &e);
	if (rc)
		goto out;
	fuzz_check_model("request_finish", &r->model);
	pols[0] = which & 1 ? fuzz_default_policy() : NULL;
	pols[1] = which & 2 ? fuzz_site_policy() : NULL;
	if (!pols[0] && !pols[1])
		pols[0] = fuzz_default_policy();
	for (k = 0; k < 2; k++) {
		if (!pols[k])
			continue;
		autosize_error_clear(&e);
		rc = autosize_plan_compute(pols[k], r, plan, &e);
		/* a pinned size is that size, never another */
		if ((rc == AUTOSIZE_OK || rc == AUTOSIZE_ENOFIT) &&
		    r->nodes > 0 && plan->nodes != r->nodes)
			FUZZ_FAIL("plan_compute: --nodes %d planned as %d",
				  r->nodes, plan->nodes);
		if ((rc == AUTOSIZE_OK || rc == AUTOSIZE_ENOFIT) &&
		    r->gpus > 0 && plan->gpus != r->gpus)
			FUZZ_FAIL("plan_compute: --gpus %d planned as %d",
				  r->gpus, plan->gpus);
		/* no fit is told in plan->reason, not in e */
		if (rc != AUTOSIZE_ENOFIT)
			fuzz_check_rc("plan_compute", rc, &e);
		if (rc == AUTOSIZE_OK && !plan->feasible)
			FUZZ_FAIL("plan_compute: OK but not feasible");
		if (rc == AUTOSIZE_OK || rc == AUTOSIZE_ENOFIT) {
			if (rc == AUTOSIZE_ENOFIT && !plan->reason[0])
				FUZZ_FAIL("plan_compute: no fit, no reason");
			if (plan->evaluated < 0 ||
			    plan->evaluated > AUTOSIZE_PLAN_MAX_LAYOUTS)
				FUZZ_FAIL("plan_compute: %ld layouts evaluated, "
					  "over the budget of %ld",
					  plan->evaluated,
					  AUTOSIZE_PLAN_MAX_LAYOUTS);
			if (rc == AUTOSIZE_OK || plan->tp > 0)
				fuzz_check_plan(r, plan);
			else if (plan->nodes > 0 && plan->gpus !=
				 plan->nodes * plan->gpus_per_node)
				FUZZ_FAIL("pinned miss size %d x %d = %d",
					  plan->nodes, plan->gpus_per_node,
					  plan->gpus);
		}
	}
out:
	free(plan);
	free(r);
	free(s);
}

/* --- a Slurm-shaped job request at slurmctld --- */

/* A message for a user: terminated, one line, no control characters. */
static inline void fuzz_check_line(const char *where, const char *msg,
				   size_t size)
{
	size_t i;

	if (!memchr(msg, '\0', size))
		FUZZ_FAIL("%s: not terminated", where);
	for (i = 0; msg[i]; i++)
		if ((unsigned char)msg[i] < 0x20 || msg[i] == 0x7f)
			FUZZ_FAIL("%s: control character 0x%02x in '%s'",
				  where, (unsigned char)msg[i], msg);
}

/* The policy with the most partitions (tests/bench/hostile.h text). */
static inline const autosize_policy *fuzz_wide_policy(const char *text,
						      size_t len)
{
	static autosize_policy *wide;
	autosize_error e;

	if (!wide && !(wide = autosize_policy_parse(text, len, "wide.yaml",
						    NULL, &e)))
		FUZZ_FAIL("wide policy: %s", e.msg);
	return wide;
}

/* A job field from a fuzz line: a number (or Slurm's NO_VAL / huge). */
static inline long fuzz_job_number(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || !(v >= 0))
		return AUTOSIZE_JOB_UNSET;
	return v > 1e7 ? 10000000L : (long)v;
}

/*
 * Lines: partition list, min_nodes, time_limit, num_tasks, het offset,
 * sockets per node, tres_per_node, tres_per_job, tres_per_task,
 * tres_per_socket, then environment entries ("name=value" lines become
 * autosize SPANK options unless they already name an entry). The first
 * byte picks the policy: the site's, or one with every partition slot
 * used. Checks the decision's invariants and its bounded work.
 */
static inline void fuzz_decide_target(const uint8_t *data, size_t size,
				      const char *wide_text, size_t wide_len)
{
	char *s = fuzz_strndup(data, size), *fields[FUZZ_MAX_FIELDS];
	size_t i, n = fuzz_split(s, size, fields, FUZZ_MAX_FIELDS);
	static char env_buf[FUZZ_MAX_FIELDS][AUTOSIZE_JOBENV_VALUE_MAX + 64];
	const char *env[FUZZ_MAX_FIELDS], *tres[4] = {NULL, NULL, NULL, NULL};
	autosize_decide_work *w = malloc(autosize_decide_work_size());
	autosize_decision *d = malloc(sizeof(*d));
	const autosize_policy *p;
	const autosize_partition *part;
	autosize_job job;
	size_t n_env = 0;

	if (!w || !d)
		FUZZ_FAIL("out of memory");
	p = size && (data[0] & 1) ? fuzz_wide_policy(wide_text, wide_len)
				  : fuzz_site_policy();
	if (!p)
		p = fuzz_wide_policy(wide_text, wide_len);
	autosize_job_init(&job);
	if (n > 0)
		snprintf(job.partition, sizeof(job.partition), "%s",
			 fields[0] + (size ? 1 : 0));
	if (n > 1) job.min_nodes = fuzz_job_number(fields[1]);
	if (n > 2) job.time_limit_min = fuzz_job_number(fields[2]);
	if (n > 3) job.num_tasks = fuzz_job_number(fields[3]);
	if (n > 4) job.het_offset = fuzz_job_number(fields[4]);
	if (n > 5) job.sockets_per_node = fuzz_job_number(fields[5]);
	/* the second byte: a batch script or not, --ntasks-per-node */
	job.batch = size > 1 && (data[1] & 1);
	if (size > 1 && (data[1] & 2))
		job.ntasks_per_node = 1 + (data[1] >> 2);
	for (i = 0; i < 4 && 6 + i < n; i++)
		tres[i] = fields[6 + i][0] ? fields[6 + i] : NULL;
	job.gpus_per_node = autosize_tres_gpus(tres[0]);
	job.gpus_per_job = autosize_tres_gpus(tres[1]);
	job.gpus_per_task = autosize_tres_gpus(tres[2]);
	job.gpus_per_socket = autosize_tres_gpus(tres[3]);
	for (i = 10; i < n; i++) {
		const char *f = fields[i];

		if (strncmp(f, "_SLURM", 6) == 0 ||
		    strncmp(f, AUTOSIZE_ENV_MODEL, 14) == 0)
			env[n_env++] = f;
		else {
			snprintf(env_buf[n_env], sizeof(env_buf[n_env]),
				 AUTOSIZE_SPANK_OPTION_PREFIX "%s", f);
			env[n_env] = env_buf[n_env];
			n_env++;
		}
	}
	autosize_decide(p, env, n_env, &job, w, d);
	if ((int)d->action < AUTOSIZE_ACTION_NONE ||
	    d->action > AUTOSIZE_ACTION_REJECT)
		FUZZ_FAIL("decide: action %d", (int)d->action);
	if (d->evaluated < 0 || d->evaluated > AUTOSIZE_PLAN_MAX_LAYOUTS)
		FUZZ_FAIL("decide: %ld layouts, over the budget of %ld",
			  d->evaluated, AUTOSIZE_PLAN_MAX_LAYOUTS);
	fuzz_check_line("decide message", d->message, sizeof(d->message));
	fuzz_check_line("decide summary", d->summary, sizeof(d->summary));
	for (i = 0; i < (size_t)d->n_warnings; i++)
		fuzz_check_line("decide warning", d->warnings[i],
				AUTOSIZE_WARNING_LEN);
	if (!d->has_options && (d->action != AUTOSIZE_ACTION_NONE ||
				d->message[0]))
		FUZZ_FAIL("decide: a job without options got '%s'",
			  d->message);
	if (job.het_offset > 0 && (d->action != AUTOSIZE_ACTION_NONE ||
				   d->message[0]))
		FUZZ_FAIL("decide: het component %ld got '%s'",
			  job.het_offset, d->message);
	if (job.het_offset == 0 && d->action == AUTOSIZE_ACTION_REJECT &&
	    strcmp(d->reason, "unfit") == 0)
		FUZZ_FAIL("decide: het job refused for its size");
	/* the guards, on every action that changes a job: a job without a
	 * script never gets more nodes than its tasks; a batch job's task
	 * count written is at least its nodes */
	if ((d->action == AUTOSIZE_ACTION_REWRITE ||
	     d->action == AUTOSIZE_ACTION_EXPLAIN) && d->set_nodes &&
	    !job.batch && job.num_tasks > 0 && job.num_tasks < d->nodes)
		FUZZ_FAIL("decide: %ld tasks resized to %d nodes without a "
			  "script", job.num_tasks, d->nodes);
	if (d->set_tasks && (!job.batch || d->num_tasks < d->nodes))
		FUZZ_FAIL("decide: tasks %ld written for %d nodes (batch %d)",
			  d->num_tasks, d->nodes, job.batch);
	if (d->guarded && (d->set_nodes || d->set_gpus || d->set_time ||
			   d->set_partition || d->record[0]))
		FUZZ_FAIL("decide: a guarded job still changes");
	if (d->action == AUTOSIZE_ACTION_REWRITE) {
		part = autosize_policy_find_partition(p, d->partition);
		if (!d->has_plan || !part || d->nodes < 1 ||
		    d->gpus_per_node < 1 ||
		    d->nodes > part->max_nodes_per_job ||
		    d->gpus_per_node > part->gpus_per_node ||
		    (part->max_time_s > 0 &&
		     d->time_limit_min * 60.0 > part->max_time_s))
			FUZZ_FAIL("decide: rewrite outside the limits: %s %d x "
				  "%d, %ld min", d->partition, d->nodes,
				  d->gpus_per_node, d->time_limit_min);
		if (autosize_policy_defaults(p)->explicit_size ==
		    AUTOSIZE_EXPLICIT_KEEP && job.min_nodes > 0 &&
		    (d->set_nodes || d->nodes != job.min_nodes))
			FUZZ_FAIL("decide: -N %ld swapped for %d", job.min_nodes,
				  d->nodes);
		if ((job.gpus_per_task != AUTOSIZE_JOB_UNSET ||
		     job.gpus_per_socket != AUTOSIZE_JOB_UNSET) && d->set_gpus)
			FUZZ_FAIL("decide: GPUs per task/socket rewritten");
	}
	/* the GPU entry edits in place */
	if (d->has_plan && d->gpus_per_node > 0) {
		char out[2048];

		if (autosize_tres_set_gpus(tres[0], d->gpus_per_node, out,
					   sizeof(out)) == 0 &&
		    autosize_tres_gpus(out) != d->gpus_per_node)
			FUZZ_FAIL("tres edit '%s' -> '%s' reads %ld",
				  tres[0] ? tres[0] : "(none)", out,
				  autosize_tres_gpus(out));
	}
	free(d);
	free(w);
	free(s);
}

#endif
