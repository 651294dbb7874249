/*
 * autosize: model presets, from etc/models.yaml compiled into the library.
 * Parsed once (pthread_once) into a static table that is never changed
 * afterwards, so lookups are safe from any thread.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "autosize/model.h"
#include "embedded.h"
#include "names.h"
#include "ytree.h"

#define PRESET_MAX 128
#define PRESET_WHAT "etc/models.yaml (built in)"

typedef struct preset_table {
	int n;
	autosize_model models[PRESET_MAX];
	autosize_error err;  /* why the table is empty, when it is */
} preset_table;

static preset_table preset_tab;
static pthread_once_t preset_once = PTHREAD_ONCE_INIT;

static const char *const preset_top_keys[] = { "models", NULL };

static const char *const preset_keys[] = {
	"name", "layers", "hidden", "heads", "kv_heads", "ffn", "mlp",
	"vocab", "tied_embeddings", "experts", "experts_active",
	"max_positions", "learned_positions", "params_published", "source",
	"notes", NULL
};

/* Same order as autosize_mlp. */

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
					   autosize_mlp_names, &mlp,
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
		rc = autosize_ytree_double(t, n, "params_published",
					   req | AUTOSIZE_Y_GT_MIN, 0, 1e18,
					   &m->params_published, NULL, e);
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

/* "unknown model" message with as many preset names as fit. */
static autosize_err preset_not_found(const preset_table *tab,
				     const char *name, autosize_error *e)
{
	char list[AUTOSIZE_MSG_LEN], ex[48];
	size_t used = 0, room;
	int i;

	autosize_ytree_excerpt(name, strlen(name), ex, sizeof(ex));
	/* leave room for the fixed text around the list */
	room = sizeof(list) - 120 - strlen(ex);
	list[0] = '\0';
	for (i = 0; i < tab->n; i++) {
		const char *sep = i ? ", " : "";
		size_t need = strlen(sep) + strlen(tab->models[i].name);

		if (used + need + 5 >= room) {
			snprintf(list + used, sizeof(list) - used, ", ...");
			break;
		}
		used += (size_t)snprintf(list + used, sizeof(list) - used,
					 "%s%s", sep, tab->models[i].name);
	}
	return autosize_fail(e, AUTOSIZE_ENOTFOUND,
			     "unknown model '%s' (expected a preset: %s; or the path of a Hugging Face config.json)",
			     ex, list);
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
	for (i = 0; i < tab->n; i++)
		if (strcasecmp(tab->models[i].name, name) == 0)
			break;
	if (i == tab->n)
		return preset_not_found(tab, name, e);
	*m = tab->models[i];
	rc = autosize_model_finish_arch(m, &sub);
	if (rc)
		return autosize_fail(e, rc, "%s: preset '%s': %s",
				     PRESET_WHAT, tab->models[i].name,
				     sub.msg);
	return AUTOSIZE_OK;
}
