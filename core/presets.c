/*
 * autosize: model presets, from etc/models.yaml compiled into the library.
 * Parsed once (pthread_once) into a static table that is never changed
 * afterwards, so lookups are safe from any thread.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "autosize/model.h"
#include "embedded.h"
#include "names.h"
#include "ytree.h"

#define PRESET_MAX 128
#define PRESET_WHAT "etc/models.yaml (built in)"

/* A Hugging Face repository id: at most 96 characters each side of the
 * '/' (the Hub's own limit). */
#define PRESET_HF_ID_MAX 200

typedef struct preset_table {
	int n;
	autosize_model models[PRESET_MAX];
	char hf_id[PRESET_MAX][PRESET_HF_ID_MAX]; /* "" when none */
	autosize_error err;  /* why the table is empty, when it is */
} preset_table;

static preset_table preset_tab;
static pthread_once_t preset_once = PTHREAD_ONCE_INIT;

static const char *const preset_top_keys[] = { "models", NULL };

static const char *const preset_keys[] = {
	"name", "hf_id", "layers", "hidden", "heads", "kv_heads", "head_dim",
	"ffn", "mlp", "vocab", "tied_embeddings", "experts", "experts_active",
	"shared_experts", "shared_ffn", "dense_layers", "dense_ffn",
	"q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",
	"v_head_dim", "attn_window", "window_layers", "attn_chunk",
	"mamba_layers", "attn_layers", "mlp_layers", "mamba_heads",
	"mamba_head_dim", "mamba_state", "mamba_groups", "max_positions", "learned_positions", "params_published",
	"params_active_published", "source", "notes", NULL
};

/* The optional integer keys of the newer architectures, 0 = absent. */
static const struct preset_int_key {
	const char *key;
	size_t off;
	long max;
} preset_int_keys[] = {
	{"head_dim", offsetof(autosize_model, head_dim), AUTOSIZE_MAX_HEAD_DIM},
	{"shared_experts", offsetof(autosize_model, experts_shared),
	 AUTOSIZE_MAX_EXPERTS},
	{"shared_ffn", offsetof(autosize_model, ffn_shared), AUTOSIZE_MAX_FFN},
	{"dense_layers", offsetof(autosize_model, dense_layers),
	 AUTOSIZE_MAX_LAYERS},
	{"dense_ffn", offsetof(autosize_model, ffn_dense), AUTOSIZE_MAX_FFN},
	{"q_lora_rank", offsetof(autosize_model, q_lora_rank),
	 AUTOSIZE_MAX_LORA_RANK},
	{"kv_lora_rank", offsetof(autosize_model, kv_lora_rank),
	 AUTOSIZE_MAX_LORA_RANK},
	{"qk_nope_head_dim", offsetof(autosize_model, qk_nope_head_dim),
	 AUTOSIZE_MAX_HEAD_DIM},
	{"qk_rope_head_dim", offsetof(autosize_model, qk_rope_head_dim),
	 AUTOSIZE_MAX_HEAD_DIM},
	{"v_head_dim", offsetof(autosize_model, v_head_dim),
	 AUTOSIZE_MAX_HEAD_DIM},
	{"attn_window", offsetof(autosize_model, attn_window),
	 AUTOSIZE_MAX_POSITIONS},
	{"window_layers", offsetof(autosize_model, window_layers),
	 AUTOSIZE_MAX_LAYERS},
	{"attn_chunk", offsetof(autosize_model, attn_chunk),
	 AUTOSIZE_MAX_POSITIONS},
	{"mamba_layers", offsetof(autosize_model, mamba_layers),
	 AUTOSIZE_MAX_LAYERS},
	{"attn_layers", offsetof(autosize_model, attn_layers),
	 AUTOSIZE_MAX_LAYERS},
	{"mlp_layers", offsetof(autosize_model, mlp_layers),
	 AUTOSIZE_MAX_LAYERS},
	{"mamba_heads", offsetof(autosize_model, mamba_heads),
	 AUTOSIZE_MAX_HEADS},
	{"mamba_head_dim", offsetof(autosize_model, mamba_head_dim),
	 AUTOSIZE_MAX_HEAD_DIM},
	{"mamba_state", offsetof(autosize_model, mamba_state),
	 AUTOSIZE_MAX_HEAD_DIM},
	{"mamba_groups", offsetof(autosize_model, mamba_groups),
	 AUTOSIZE_MAX_HEADS},
};

static autosize_err preset_more_ints(const autosize_ytree *t,
				     const autosize_ynode *n,
				     autosize_model *m, autosize_error *e)
{
	autosize_err rc = AUTOSIZE_OK;
	size_t i;

	for (i = 0; !rc && i < sizeof(preset_int_keys) /
	     sizeof(preset_int_keys[0]); i++)
		rc = autosize_ytree_int(t, n, preset_int_keys[i].key, 0, 0,
					preset_int_keys[i].max,
					(int *)(void *)((char *)m +
					preset_int_keys[i].off), NULL, e);
	return rc;
}

static autosize_err preset_entry(const autosize_ytree *t,
				 const autosize_ynode *n, int idx,
				 autosize_model *m, autosize_error *e)
{
	const int req = AUTOSIZE_Y_REQUIRED;
	const autosize_ynode *name_node;
	int mlp = AUTOSIZE_MLP_SWIGLU;
	autosize_err rc;
	int i;

	autosize_model_init(m);
	rc = autosize_ytree_check_keys(t, n, "model preset", preset_keys, e);
	if (!rc)
		rc = autosize_ytree_str(t, n, "name", req, m->name,
					sizeof(m->name), NULL, e);
	if (rc)
		return rc;
	name_node = autosize_ynode_get(n, "name");
	for (i = 0; i < idx; i++)
		if (strcasecmp(preset_tab.models[i].name, m->name) == 0)
			return autosize_ytree_fail(t, name_node->line, e,
				AUTOSIZE_EINVAL,
				"key 'name': preset '%s' is listed twice (names are compared ignoring case)",
				m->name);
	if (!rc)
		rc = autosize_ytree_int(t, n, "layers", req, 1,
					AUTOSIZE_MAX_LAYERS, &m->layers, NULL,
					e);
	if (!rc)
		rc = autosize_ytree_int(t, n, "hidden", req, 1,
					AUTOSIZE_MAX_HIDDEN, &m->hidden, NULL,
					e);
	if (!rc)
		rc = autosize_ytree_int(t, n, "heads", req, 1,
					AUTOSIZE_MAX_HEADS, &m->heads, NULL,
					e);
	if (!rc)
		rc = autosize_ytree_int(t, n, "kv_heads", 0, 1,
					AUTOSIZE_MAX_HEADS, &m->kv_heads, NULL,
					e);
	if (!rc)
		rc = autosize_ytree_int(t, n, "ffn", 0, 1, AUTOSIZE_MAX_FFN,
					&m->ffn, NULL, e);
	if (!rc)
		rc = autosize_ytree_choice(t, n, "mlp", req,
					   names_mlp, &mlp,
					   NULL, e);
	if (!rc)
		rc = autosize_ytree_int(t, n, "vocab", req, 1,
					AUTOSIZE_MAX_VOCAB, &m->vocab, NULL,
					e);
	if (!rc)
		rc = autosize_ytree_bool(t, n, "tied_embeddings", 0,
					 &m->tied_embeddings, NULL, e);
	if (!rc)
		rc = autosize_ytree_int(t, n, "experts", 0, 0,
					AUTOSIZE_MAX_EXPERTS, &m->experts,
					NULL, e);
	if (!rc)
		rc = autosize_ytree_int(t, n, "experts_active", 0, 0,
					AUTOSIZE_MAX_EXPERTS,
					&m->experts_active, NULL, e);
	if (!rc)
		rc = autosize_ytree_int(t, n, "max_positions", 0, 0,
					AUTOSIZE_MAX_POSITIONS,
					&m->max_positions, NULL, e);
	if (!rc)
		rc = autosize_ytree_bool(t, n, "learned_positions", 0,
					 &m->learned_positions, NULL, e);
	if (!rc)
		rc = preset_more_ints(t, n, m, e);
	if (!rc)
		rc = autosize_ytree_str(t, n, "hf_id", 0, preset_tab.hf_id[idx],
					sizeof(preset_tab.hf_id[idx]), NULL, e);
	if (!rc)
		rc = autosize_ytree_double(t, n, "params_published",
					   req | AUTOSIZE_Y_GT_MIN, 0, 1e18,
					   &m->params_published, NULL, e);
	if (!rc)
		rc = autosize_ytree_double(t, n, "params_active_published", 0,
					   0, 1e18, &m->params_active_published,
					   NULL, e);
	if (!rc)
		rc = autosize_ytree_text(t, n, "source", e);
	if (!rc)
		rc = autosize_ytree_text(t, n, "notes", e);
	m->mlp = (autosize_mlp)mlp;
	return rc;
}

static autosize_err preset_walk(const autosize_ytree *t, autosize_error *e)
{
	const autosize_ynode *root = autosize_ytree_root(t), *seq, *it;
	autosize_err rc;

	rc = autosize_ytree_check_keys(t, root, "the presets",
				       preset_top_keys, e);
	if (!rc)
		rc = autosize_ytree_seq(t, root, "models", AUTOSIZE_Y_REQUIRED,
					PRESET_MAX, &seq, e);
	if (rc)
		return rc;
	for (it = seq->child; it; it = it->next) {
		rc = preset_entry(t, it, preset_tab.n,
				  &preset_tab.models[preset_tab.n], e);
		if (rc)
			return rc;
		preset_tab.n++;
	}
	return AUTOSIZE_OK;
}

static void preset_init(void)
{
	autosize_ytree *t;

	autosize_error_clear(&preset_tab.err);
	t = autosize_ytree_parse(autosize_embedded_models_yaml,
				 autosize_embedded_models_yaml_len,
				 PRESET_WHAT, &preset_tab.err);
	if (t && preset_walk(t, &preset_tab.err))
		preset_tab.n = 0;
	autosize_ytree_destroy(t);
	if (!preset_tab.n && preset_tab.err.code == AUTOSIZE_OK)
		autosize_fail(&preset_tab.err, AUTOSIZE_EINTERNAL,
			      "%s: no model presets", PRESET_WHAT);
}

static const preset_table *preset_get(void)
{
	pthread_once(&preset_once, preset_init);
	return &preset_tab;
}

int autosize_model_preset_count(void)
{
	return preset_get()->n;
}

const char *autosize_model_preset_name(int i)
{
	const preset_table *tab = preset_get();

	if (i < 0 || i >= tab->n)
		return NULL;
	return tab->models[i].name;
}

/*
 * The suffixes of a model's variants that keep its shape: chat and
 * instruction tunes (Llama's -Instruct and -chat, Gemma's -it), a base
 * or reasoning release (-Base, Gemma's -pt, -Thinking), Meta's -hf
 * conversions, the weights' precision of one checkpoint published in
 * several (NVIDIA's -BF16 and -FP8) and a release date (Qwen's -2507,
 * Mistral's -2501). Stripped one at a time from the end.
 */
static const char *const preset_variant_suffixes[] = {
	"-instruct", "-chat", "-it", "-pt", "-base", "-thinking", "-hf",
	"-bf16", "-fp8", NULL
};

/* Length of name without one variant suffix; its length when none. */
static size_t preset_strip_one(const char *name, size_t n)
{
	size_t i, k;

	/* a release date: -YYMM */
	if (n > 5 && name[n - 5] == '-') {
		for (k = n - 4; k < n && name[k] >= '0' && name[k] <= '9'; k++)
			;
		if (k == n)
			return n - 5;
	}
	for (i = 0; preset_variant_suffixes[i]; i++) {
		k = strlen(preset_variant_suffixes[i]);
		if (n > k && strncasecmp(name + n - k,
					 preset_variant_suffixes[i], k) == 0)
			return n - k;
	}
	return n;
}

/* Length of s without all its variant suffixes (Llama-2-7b-chat-hf:
 * Llama-2-7b). */
static size_t preset_canonical(const char *s, size_t n)
{
	size_t prev;

	do {
		prev = n;
		n = preset_strip_one(s, n);
	} while (n != prev && n > 0);
	return n;
}

/* The part of a Hugging Face id after its '/' (all of s without one). */
static const char *preset_repo_part(const char *s)
{
	const char *slash = strchr(s, '/');

	return slash ? slash + 1 : s;
}

/* a[0..n) and key are the same model: equal in any case, or equal once
 * both lose their variant suffixes. */
static int preset_same(const char *a, size_t n, const char *key)
{
	size_t k = strlen(key), ca, ck;

	if (!k)
		return 0;
	if (k == n && strncasecmp(a, key, n) == 0)
		return 1;
	ca = preset_canonical(a, n);
	ck = preset_canonical(key, k);
	return ca && ca == ck && strncasecmp(a, key, ca) == 0;
}

/*
 * The preset named name: its own name, or its Hugging Face id (with or
 * without the organisation), any case, with or without variant
 * suffixes. -1 when none.
 */
static int preset_index(const preset_table *tab, const char *name)
{
	size_t n = strlen(name);
	int i;

	for (i = 0; i < tab->n; i++)
		if (preset_same(name, n, tab->models[i].name) ||
		    preset_same(name, n, tab->hf_id[i]) ||
		    (!strchr(name, '/') &&
		     preset_same(name, n, preset_repo_part(tab->hf_id[i]))))
			return i;
	return -1;
}

int autosize_model_is_preset(const char *name)
{
	const preset_table *tab = preset_get();

	return name && tab->n && preset_index(tab, name) >= 0;
}

/* Lower-case letters and digits of s (the rest dropped), cut to len. */
static void preset_squash(const char *s, size_t n, char *out, size_t len)
{
	size_t i, k = 0;

	for (i = 0; i < n && s[i] && k + 1 < len; i++) {
		char c = s[i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			out[k++] = c;
	}
	out[k] = '\0';
}

/* Optimal string alignment distance (Levenshtein with transpositions)
 * of a and b, both shorter than PRESET_SQUASH_MAX, on three rows. */
#define PRESET_SQUASH_MAX 64
static int preset_distance(const char *a, const char *b)
{
	int row[3][PRESET_SQUASH_MAX];
	int n = (int)strlen(a), m = (int)strlen(b), i, j;
	int *prev2 = row[0], *prev = row[1], *cur = row[2], *t;

	for (j = 0; j <= m; j++)
		prev[j] = j;
	for (i = 1; i <= n; i++) {
		cur[0] = i;
		for (j = 1; j <= m; j++) {
			int v = prev[j] + 1;

			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (prev[j - 1] + (a[i - 1] != b[j - 1]) < v)
				v = prev[j - 1] + (a[i - 1] != b[j - 1]);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < v)
				v = prev2[j - 2] + 1;
			cur[j] = v;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[m];
}

#define PRESET_NEAREST_MAX 3

int autosize_model_preset_nearest(const char *name, char *buf, size_t len)
{
	const preset_table *tab = preset_get();
	char want[PRESET_SQUASH_MAX], have[PRESET_SQUASH_MAX];
	int best[PRESET_NEAREST_MAX], dist[PRESET_NEAREST_MAX];
	int found = 0, i, j, k, limit;
	size_t n, used = 0;

	if (len)
		buf[0] = '\0';
	if (!name || !len)
		return 0;
	name = preset_repo_part(name);
	n = preset_canonical(name, strlen(name));
	preset_squash(name, n, want, sizeof(want));
	if (!want[0])
		return 0;
	/* a few edits, more for longer names: "llama3-70b" is 0 from
	 * llama-3-70b once squashed, "qwen-3-8" 1 from qwen3-8b */
	limit = strlen(want) < 6 ? 1 : strlen(want) < 12 ? 2 : 3;
	for (i = 0; i < tab->n; i++) {
		preset_squash(tab->models[i].name, strlen(tab->models[i].name),
			      have, sizeof(have));
		k = preset_distance(want, have);
		if (k > limit)
			continue;
		/* insert in rising distance, then table order */
		for (j = found; j > 0 && dist[j - 1] > k; j--)
			if (j < PRESET_NEAREST_MAX) {
				best[j] = best[j - 1];
				dist[j] = dist[j - 1];
			}
		if (j < PRESET_NEAREST_MAX) {
			best[j] = i;
			dist[j] = k;
			if (found < PRESET_NEAREST_MAX)
				found++;
		}
	}
	/* only the nearest: "did you mean llama-3-70b?", not its cousins */
	while (found > 1 && dist[found - 1] > dist[0])
		found--;
	for (i = 0; i < found; i++) {
		int w = snprintf(buf + used, len - used, "%s%s",
				 i == 0 ? "" : i == found - 1 ? " or " : ", ",
				 tab->models[best[i]].name);

		if (w < 0 || (size_t)w >= len - used) {
			buf[used] = '\0';
			return i;
		}
		used += (size_t)w;
	}
	return found;
}

/* "unknown model" message: the nearest names, else where the list is. */
static autosize_err preset_not_found(const char *name, autosize_error *e)
{
	char ex[48], near[3 * AUTOSIZE_NAME_MAX + 16];

	autosize_ytree_excerpt(name, strlen(name), ex, sizeof(ex));
	if (autosize_model_preset_nearest(name, near, sizeof(near)) > 0)
		return autosize_fail(e, AUTOSIZE_ENOTFOUND,
				     "unknown model '%s': did you mean %s? "
				     "(`autosize presets` lists the presets; "
				     "or give a folder with a config.json, the "
				     "file, or a Hugging Face id)", ex, near);
	return autosize_fail(e, AUTOSIZE_ENOTFOUND,
			     "unknown model '%s' (expected a preset: "
			     "`autosize presets` lists them; or a folder with "
			     "a config.json, the file, or a Hugging Face id)",
			     ex);
}

autosize_err autosize_model_preset(const char *name, autosize_model *m,
				   autosize_error *e)
{
	const preset_table *tab = preset_get();
	autosize_error sub;
	autosize_err rc;
	int i;

	if (!name || !m)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "no model preset name given");
	if (!tab->n)
		return autosize_fail(e, tab->err.code ? tab->err.code :
				     AUTOSIZE_EINTERNAL, "%s", tab->err.msg);
	i = preset_index(tab, name);
	if (i < 0)
		return preset_not_found(name, e);
	*m = tab->models[i];
	rc = autosize_model_finish_arch(m, &sub);
	if (rc)
		return autosize_fail(e, rc, "%s: preset '%s': %s",
				     PRESET_WHAT, tab->models[i].name,
				     sub.msg);
	return AUTOSIZE_OK;
}

const char *autosize_model_preset_hf_id(int i)
{
	const preset_table *tab = preset_get();

	if (i < 0 || i >= tab->n)
		return NULL;
	return tab->hf_id[i];
}
