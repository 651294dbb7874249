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
	    autosize_launch_megatron_args(plan, r, buf, sizeof(buf)) < 0 ||
	    autosize_launch_deepspeed_json(plan, r, buf, sizeof(buf)) < 0)
		FUZZ_FAIL("launch strings do not fit 8 KiB");
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
		/* no fit is told in plan->reason, not in e */
		if (rc != AUTOSIZE_ENOFIT)
			fuzz_check_rc("plan_compute", rc, &e);
		if (rc == AUTOSIZE_OK && !plan->feasible)
			FUZZ_FAIL("plan_compute: OK but not feasible");
		if (rc == AUTOSIZE_OK || rc == AUTOSIZE_ENOFIT) {
			if (rc == AUTOSIZE_ENOFIT && !plan->reason[0])
				FUZZ_FAIL("plan_compute: no fit, no reason");
			if (rc == AUTOSIZE_OK || plan->nodes > 0)
				fuzz_check_plan(r, plan);
		}
	}
out:
	free(plan);
	free(r);
	free(s);
}

#endif
