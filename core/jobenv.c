/*
 * autosize: encode and decode the job metadata that travels through
 * Slurm (spank_job_env, task environment).
 */
#include <stdio.h>
#include <string.h>
#include "autosize/jobenv.h"
#include "autosize/options.h"
#include "autosize/parse.h"
#include "names.h"

/* Integer fields of the encoded model, in encoding order. */
typedef struct jobenv_field {
	const char *key;
	size_t offset;
	long max;
	int if_set;     /* written only when not 0: newer fields, so an
			 * older decoder still reads a line without them */
} jobenv_field;

#define JOBENV_F(k, f, max) {k, offsetof(autosize_model, f), max, 0}
#define JOBENV_F_IF_SET(k, f, max) {k, offsetof(autosize_model, f), max, 1}
static const jobenv_field jobenv_fields[] = {
	JOBENV_F("layers", layers, AUTOSIZE_MAX_LAYERS),
	JOBENV_F("hidden", hidden, AUTOSIZE_MAX_HIDDEN),
	JOBENV_F("heads", heads, AUTOSIZE_MAX_HEADS),
	JOBENV_F("kv_heads", kv_heads, AUTOSIZE_MAX_HEADS),
	JOBENV_F("ffn", ffn, AUTOSIZE_MAX_FFN),
	JOBENV_F("vocab", vocab, AUTOSIZE_MAX_VOCAB),
	JOBENV_F("experts", experts, AUTOSIZE_MAX_EXPERTS),
	JOBENV_F("experts_active", experts_active, AUTOSIZE_MAX_EXPERTS),
	JOBENV_F("tied", tied_embeddings, 1),
	JOBENV_F("head_dim", head_dim, AUTOSIZE_MAX_HEAD_DIM),
	JOBENV_F("experts_shared", experts_shared, AUTOSIZE_MAX_EXPERTS),
	JOBENV_F("ffn_shared", ffn_shared, AUTOSIZE_MAX_FFN),
	JOBENV_F("dense_layers", dense_layers, AUTOSIZE_MAX_LAYERS),
	JOBENV_F("ffn_dense", ffn_dense, AUTOSIZE_MAX_FFN),
	JOBENV_F("q_lora_rank", q_lora_rank, AUTOSIZE_MAX_LORA_RANK),
	JOBENV_F("kv_lora_rank", kv_lora_rank, AUTOSIZE_MAX_LORA_RANK),
	JOBENV_F("qk_nope_head_dim", qk_nope_head_dim, AUTOSIZE_MAX_HEAD_DIM),
	JOBENV_F("qk_rope_head_dim", qk_rope_head_dim, AUTOSIZE_MAX_HEAD_DIM),
	JOBENV_F("v_head_dim", v_head_dim, AUTOSIZE_MAX_HEAD_DIM),
	JOBENV_F("max_positions", max_positions, AUTOSIZE_MAX_POSITIONS),
	JOBENV_F("learned_positions", learned_positions, 1),
	JOBENV_F("vision_ignored", vision_ignored, 1),
	JOBENV_F_IF_SET("attn_window", attn_window, AUTOSIZE_MAX_POSITIONS),
	JOBENV_F_IF_SET("window_layers", window_layers, AUTOSIZE_MAX_LAYERS),
	JOBENV_F_IF_SET("attn_chunk", attn_chunk, AUTOSIZE_MAX_POSITIONS),
	JOBENV_F_IF_SET("mamba_layers", mamba_layers, AUTOSIZE_MAX_LAYERS),
	JOBENV_F_IF_SET("attn_layers", attn_layers, AUTOSIZE_MAX_LAYERS),
	JOBENV_F_IF_SET("mlp_layers", mlp_layers, AUTOSIZE_MAX_LAYERS),
	JOBENV_F_IF_SET("mamba_heads", mamba_heads, AUTOSIZE_MAX_HEADS),
	JOBENV_F_IF_SET("mamba_head_dim", mamba_head_dim,
			AUTOSIZE_MAX_HEAD_DIM),
	JOBENV_F_IF_SET("mamba_state", mamba_state, AUTOSIZE_MAX_HEAD_DIM),
	JOBENV_F_IF_SET("mamba_groups", mamba_groups, AUTOSIZE_MAX_HEADS),
};
#define JOBENV_N_FIELDS (sizeof(jobenv_fields) / sizeof(jobenv_fields[0]))

/* The characters a model name may carry through Slurm: letters, digits
 * and ._+- (the encoder replaces others, the decoder refuses them, so no
 * control or escape sequence reaches a user's terminal). */
static int jobenv_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("._+-", c));
}

static int *jobenv_int(autosize_model *m, const jobenv_field *f)
{
	return (int *)((char *)m + f->offset);
}

int autosize_model_encode(const autosize_model *m, char *buf, size_t len)
{
	size_t used = 0, i;
	int n;

	n = snprintf(buf, len, "mlp=%s",
		     names_mlp[m->mlp == AUTOSIZE_MLP_GELU]);
	if (n < 0 || (size_t)n >= len)
		return -1;
	used = (size_t)n;
	for (i = 0; i < JOBENV_N_FIELDS; i++) {
		if (jobenv_fields[i].if_set &&
		    *jobenv_int((autosize_model *)m, &jobenv_fields[i]) == 0)
			continue;
		n = snprintf(buf + used, len - used, ";%s=%d",
			     jobenv_fields[i].key,
			     *jobenv_int((autosize_model *)m, &jobenv_fields[i]));
		if (n < 0 || (size_t)n >= len - used)
			return -1;
		used += (size_t)n;
	}
	/* The name last: letters, digits and ._+- only. */
	if (m->name[0]) {
		n = snprintf(buf + used, len - used, ";name=");
		if (n < 0 || (size_t)n >= len - used)
			return -1;
		used += (size_t)n;
		for (i = 0; m->name[i] && used + 1 < len; i++)
			buf[used++] = jobenv_name_char(m->name[i])
				      ? m->name[i] : '_';
		if (m->name[i])
			return -1;
		buf[used] = '\0';
	}
	return (int)used;
}

static autosize_err jobenv_pair(autosize_model *m, const char *key,
				const char *value, autosize_error *e)
{
	char what[48];
	size_t i;
	long v;
	int k;
	autosize_err rc;

	snprintf(what, sizeof(what), AUTOSIZE_ENV_MODEL " %.24s", key);
	if (strcmp(key, "mlp") == 0) {
		if ((rc = autosize_parse_choice(value, what,
						names_mlp, &k, e)))
			return rc;
		m->mlp = (autosize_mlp)k;
		return AUTOSIZE_OK;
	}
	if (strcmp(key, "name") == 0) {
		if (strlen(value) >= sizeof(m->name))
			return autosize_fail(e, AUTOSIZE_EINVAL,
					     "%s: too long", what);
		for (i = 0; value[i]; i++)
			if (!jobenv_name_char(value[i]))
				return autosize_fail(e, AUTOSIZE_EINVAL,
						     "%s: only letters, digits "
						     "and ._+- are allowed",
						     what);
		snprintf(m->name, sizeof(m->name), "%s", value);
		return AUTOSIZE_OK;
	}
	for (i = 0; i < JOBENV_N_FIELDS; i++) {
		if (strcmp(key, jobenv_fields[i].key) != 0)
			continue;
		rc = autosize_parse_int(value, what, 0, jobenv_fields[i].max,
					&v, e);
		if (rc)
			return rc;
		*jobenv_int(m, &jobenv_fields[i]) = (int)v;
		return AUTOSIZE_OK;
	}
	return autosize_fail(e, AUTOSIZE_EINVAL,
			     AUTOSIZE_ENV_MODEL ": unknown key '%.24s'", key);
}

autosize_err autosize_model_decode(const char *text, autosize_model *m,
				   autosize_error *e)
{
	char buf[AUTOSIZE_JOBENV_VALUE_MAX + 1], *save = NULL, *pair;
	size_t n = strlen(text);
	autosize_err rc;

	if (n > AUTOSIZE_JOBENV_VALUE_MAX)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     AUTOSIZE_ENV_MODEL ": longer than %d "
				     "bytes", AUTOSIZE_JOBENV_VALUE_MAX);
	memcpy(buf, text, n + 1);
	autosize_model_init(m);
	for (pair = strtok_r(buf, ";", &save); pair;
	     pair = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(pair, '=');

		if (!eq)
			return autosize_fail(e, AUTOSIZE_EINVAL,
					     AUTOSIZE_ENV_MODEL ": expected "
					     "key=value pairs separated by ';'");
		*eq = '\0';
		if ((rc = jobenv_pair(m, pair, eq + 1, e)))
			return rc;
	}
	return autosize_model_finish_arch(m, e);
}

/* The option name of a _SLURM_SPANK_OPTION_autosize_x_y entry ("x-y"),
 * or NULL when the entry is not one of ours. */
static const char *jobenv_option(const char *entry, char *name, size_t len,
				 const char **value)
{
	size_t plen = strlen(AUTOSIZE_SPANK_OPTION_PREFIX), i, n;
	const char *p, *eq;

	/* The prefix first: entry may be shorter than it. */
	if (strncmp(entry, AUTOSIZE_SPANK_OPTION_PREFIX, plen) != 0)
		return NULL;
	p = entry + plen;
	eq = strchr(p, '=');
	if (!eq)
		return NULL;
	n = (size_t)(eq - p);
	if (n == 0 || n >= len)
		return NULL;
	for (i = 0; i < n; i++)
		name[i] = p[i] == '_' ? '-' : p[i];
	name[n] = '\0';
	*value = eq + 1;
	return name;
}

static int jobenv_spank_option(const char *name)
{
	const autosize_option *o;

	for (o = autosize_options(); o->name; o++)
		if ((o->where & AUTOSIZE_OPT_SPANK) &&
		    strcmp(o->name, name) == 0)
			return 1;
	return 0;
}

autosize_err autosize_request_from_env(const char *const *env, size_t n,
				       autosize_request *r, int *found,
				       autosize_error *e)
{
	const char *model_line = NULL, *value;
	char name[64];
	size_t i;
	autosize_err rc;

	autosize_request_init(r);
	*found = 0;
	if (n > AUTOSIZE_JOBENV_MAX_ENTRIES)
		n = AUTOSIZE_JOBENV_MAX_ENTRIES;
	for (i = 0; i < n; i++) {
		if (!env[i])
			continue;
		if (strncmp(env[i], AUTOSIZE_ENV_MODEL "=",
			    strlen(AUTOSIZE_ENV_MODEL) + 1) == 0) {
			model_line = env[i] + strlen(AUTOSIZE_ENV_MODEL) + 1;
			continue;
		}
		if (!jobenv_option(env[i], name, sizeof(name), &value))
			continue;
		if (!jobenv_spank_option(name))
			return autosize_fail(e, AUTOSIZE_EINVAL,
					     "unknown autosize option "
					     "'--%.40s'", name);
		if (strlen(value) > AUTOSIZE_JOBENV_VALUE_MAX)
			return autosize_fail(e, AUTOSIZE_EINVAL,
					     "--%s: value longer than %d bytes",
					     name, AUTOSIZE_JOBENV_VALUE_MAX);
		*found = 1;
		if ((rc = autosize_request_set(r, name, value, e)))
			return rc;
	}
	if (!*found)
		return AUTOSIZE_OK;
	if (r->job_mode == AUTOSIZE_JOB_OFF)
		return AUTOSIZE_OK;
	if (model_line) {
		r->model_spec[0] = '\0';
		if ((rc = autosize_model_decode(model_line, &r->model, e)))
			return rc;
		/* --train-batch=NUMtok, the default length within the
		 * model's positions: as on the submit host */
		return autosize_request_finish(r, e);
	}
	if (!r->model_spec[0] && !(r->model_params > 0) && !r->arch_given)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "autosize options without a model: add "
				     "--model-params (e.g. 70e9), --model or "
				     "the architecture (--layers ...)");
	return autosize_request_finish(r, e);
}
