/* autosize: the GPU catalog (etc/gpus.yaml), strict loader and lookups. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "autosize/catalog.h"
#include "autosize/plan.h"
#include "embedded.h"
#include "names.h"
#include "ytree.h"

#define CAT_EXCERPT 48

/* Names people use for a part that the catalog resolves to another
 * entry (`ambiguous_aliases`): "a100" on the 40 GB part, whose 80 GB
 * sibling lists it as an alias. Lookups of them still succeed, with a
 * warning the caller prints. */
typedef struct cat_ambiguous {
	char names[AUTOSIZE_GPU_ALIASES][AUTOSIZE_GPU_NAME_MAX];
	int lines[AUTOSIZE_GPU_ALIASES];
	int n;
} cat_ambiguous;

struct autosize_catalog {
	int n;
	autosize_gpu gpus[AUTOSIZE_CATALOG_MAX_GPUS];
	cat_ambiguous ambiguous[AUTOSIZE_CATALOG_MAX_GPUS];
};

static const char *const cat_top_keys[] = { "gpus", NULL };

static const char *const cat_gpu_keys[] = {
	"name", "aliases", "ambiguous_aliases", "bf16_tflops", "fp16_tflops",
	"fp8_tflops", "fp4_tflops",
	"memory_gib", "hbm_gbs", "link", "link_gbs", "p2p", "net",
	"net_gbps_per_gpu", "gpus_per_node", "nvlink_domain_gpus", "pci_ids",
	"source", "notes", NULL
};

/* Upper bounds that only catch typos (a factor 1000 off). */
#define CAT_MAX_TFLOPS 1e6
#define CAT_MAX_GIB 1e5
#define CAT_MAX_GBS 1e6
#define CAT_DEFAULT_GPN 8     /* reference server: 8 GPUs (HGX, DGX) */

static int cat_ignored(char c)
{
	return c == '-' || c == '_' || c == ' ';
}

static char cat_lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* 1 when s has a character that counts (not only '-', '_', ' '). */
static int cat_is_name(const char *s)
{
	while (*s && cat_ignored(*s))
		s++;
	return *s != '\0';
}

/* Equal ignoring ASCII case and '-', '_', ' '. */
static int cat_name_eq(const char *a, const char *b)
{
	for (;;) {
		while (*a && cat_ignored(*a))
			a++;
		while (*b && cat_ignored(*b))
			b++;
		if (!*a || !*b)
			return !*a && !*b;
		if (cat_lower(*a) != cat_lower(*b))
			return 0;
		a++;
		b++;
	}
}

/* The GPU among c->gpus[0 .. upto] whose name or alias matches s. */
static const autosize_gpu *cat_match(const autosize_catalog *c, int upto,
				     const char *s)
{
	int i, j;

	for (i = 0; i < upto && i < c->n; i++) {
		const autosize_gpu *g = &c->gpus[i];

		if (cat_name_eq(g->name, s))
			return g;
		for (j = 0; j < g->n_aliases; j++)
			if (cat_name_eq(g->aliases[j], s))
				return g;
	}
	return NULL;
}

/* A new name or alias s of gpu g (number idx): not empty, not taken. */
static autosize_err cat_check_name(const autosize_ytree *t,
				   const autosize_catalog *c, int idx,
				   const autosize_gpu *g, const char *key,
				   const char *s, int line, autosize_error *e)
{
	const autosize_gpu *other;
	char ex[CAT_EXCERPT];
	int j;

	autosize_ytree_excerpt(s, strlen(s), ex, sizeof(ex));
	if (!cat_is_name(s))
		return autosize_ytree_fail(t, line, e, AUTOSIZE_EINVAL,
			"key '%s': '%s' is not a name (expected letters or digits)",
			key, ex);
	other = cat_match(c, idx, s);
	if (other)
		return autosize_ytree_fail(t, line, e, AUTOSIZE_EINVAL,
			"key '%s': '%s' is already used by %s (names and aliases must be unique, ignoring case, '-', '_' and ' ')",
			key, ex, other->name);
	/* the GPU's own name and earlier aliases (g is not in c->n yet) */
	if (g->name[0] && g->name != s && cat_name_eq(g->name, s))
		return autosize_ytree_fail(t, line, e, AUTOSIZE_EINVAL,
			"key '%s': '%s' repeats the name %s", key, ex,
			g->name);
	for (j = 0; j < g->n_aliases; j++)
		if (cat_name_eq(g->aliases[j], s))
			return autosize_ytree_fail(t, line, e,
				AUTOSIZE_EINVAL,
				"key '%s': '%s' is listed twice", key, ex);
	return AUTOSIZE_OK;
}

static int cat_hex(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* "vvvv:dddd" -> vendor << 16 | device; -1 when malformed. */
static int cat_parse_pci(const char *s, uint32_t *out)
{
	uint32_t v = 0;
	int i, d;

	if (strlen(s) != 9 || s[4] != ':')
		return -1;
	for (i = 0; i < 9; i++) {
		if (i == 4)
			continue;
		d = cat_hex(s[i]);
		if (d < 0)
			return -1;
		v = v << 4 | (uint32_t)d;
	}
	*out = v;
	return 0;
}

static const autosize_gpu *cat_pci_owner(const autosize_catalog *c,
					 const autosize_gpu *g, uint32_t id)
{
	int i, j;

	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->gpus[i].n_pci_ids; j++)
			if (c->gpus[i].pci_ids[j] == id)
				return &c->gpus[i];
	for (j = 0; j < g->n_pci_ids; j++)
		if (g->pci_ids[j] == id)
			return g;
	return NULL;
}

/* The optional list of names `key` into names[], their lines into
 * lines[]; *n of them (at most AUTOSIZE_GPU_ALIASES). */
static autosize_err cat_read_names(const autosize_ytree *t,
				   const autosize_ynode *m, const char *key,
				   char names[][AUTOSIZE_GPU_NAME_MAX],
				   int *lines, int *n, autosize_error *e)
{
	const autosize_ynode *seq, *it;
	autosize_err rc;

	*n = 0;
	rc = autosize_ytree_seq(t, m, key, AUTOSIZE_Y_OPTIONAL,
				AUTOSIZE_GPU_ALIASES, &seq, e);
	if (rc || !seq)
		return rc;
	for (it = seq->child; it; it = it->next) {
		rc = autosize_ynode_str(t, it, key, names[*n],
					AUTOSIZE_GPU_NAME_MAX, e);
		if (rc)
			return rc;
		lines[(*n)++] = it->line;
	}
	return AUTOSIZE_OK;
}

static autosize_err cat_aliases(const autosize_ytree *t,
				const autosize_catalog *c,
				const autosize_ynode *m, autosize_gpu *g,
				autosize_error *e)
{
	int lines[AUTOSIZE_GPU_ALIASES], n, j;
	autosize_err rc;

	rc = cat_read_names(t, m, "aliases", g->aliases, lines, &n, e);
	/* each against the names before it */
	for (j = 0; !rc && j < n; j++) {
		g->n_aliases = j;
		rc = cat_check_name(t, c, c->n, g, "aliases", g->aliases[j],
				    lines[j], e);
	}
	g->n_aliases = rc ? 0 : n;
	return rc;
}

/* `ambiguous_aliases` of gpu number c->n: names, not this GPU's own;
 * that another GPU owns each is checked once all are loaded. */
static autosize_err cat_ambiguous_aliases(const autosize_ytree *t,
					  autosize_catalog *c,
					  const autosize_ynode *m,
					  const autosize_gpu *g,
					  autosize_error *e)
{
	cat_ambiguous *amb = &c->ambiguous[c->n];
	char ex[CAT_EXCERPT];
	autosize_err rc;
	int i, j;

	memset(amb, 0, sizeof(*amb));
	rc = cat_read_names(t, m, "ambiguous_aliases", amb->names, amb->lines,
			    &amb->n, e);
	for (i = 0; !rc && i < amb->n; i++) {
		const char *a = amb->names[i];
		int line = amb->lines[i];

		autosize_ytree_excerpt(a, strlen(a), ex, sizeof(ex));
		if (!cat_is_name(a))
			return autosize_ytree_fail(t, line, e,
				AUTOSIZE_EINVAL,
				"key 'ambiguous_aliases': '%s' is not a name (expected letters or digits)",
				ex);
		if (cat_name_eq(g->name, a))
			return autosize_ytree_fail(t, line, e,
				AUTOSIZE_EINVAL,
				"key 'ambiguous_aliases': '%s' is this GPU's own name (expected a name another GPU lists under aliases)",
				ex);
		for (j = 0; j < g->n_aliases; j++)
			if (cat_name_eq(g->aliases[j], a))
				return autosize_ytree_fail(t, line, e,
					AUTOSIZE_EINVAL,
					"key 'ambiguous_aliases': '%s' is also under this GPU's aliases (list it in one place)",
					ex);
	}
	return rc;
}

/* Every ambiguous alias names another GPU, which it resolves to. */
static autosize_err cat_check_ambiguous(const autosize_ytree *t,
					const autosize_catalog *c,
					autosize_error *e)
{
	const autosize_gpu *owner;
	char ex[CAT_EXCERPT];
	int i, j;

	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->ambiguous[i].n; j++) {
			const char *a = c->ambiguous[i].names[j];

			owner = cat_match(c, c->n, a);
			if (owner && owner != &c->gpus[i])
				continue;
			return autosize_ytree_fail(t,
				c->ambiguous[i].lines[j], e, AUTOSIZE_EINVAL,
				"key 'ambiguous_aliases': no other GPU has the name or alias '%s' (list it under the aliases of the part it should mean)",
				autosize_ytree_excerpt(a, strlen(a), ex,
						       sizeof(ex)));
		}
	return AUTOSIZE_OK;
}

static autosize_err cat_pci_ids(const autosize_ytree *t,
				const autosize_catalog *c,
				const autosize_ynode *m, autosize_gpu *g,
				autosize_error *e)
{
	const autosize_ynode *seq, *it;
	const autosize_gpu *owner;
	char text[16], ex[CAT_EXCERPT];
	autosize_err rc;
	uint32_t id;

	rc = autosize_ytree_seq(t, m, "pci_ids", AUTOSIZE_Y_OPTIONAL,
				AUTOSIZE_GPU_PCI_IDS, &seq, e);
	if (rc || !seq)
		return rc;
	for (it = seq->child; it; it = it->next) {
		if (it->kind != AUTOSIZE_YNODE_SCALAR ||
		    cat_parse_pci(it->value, &id))
			return autosize_ytree_fail(t, it->line, e,
				AUTOSIZE_EINVAL,
				"key 'pci_ids': '%s' is not a PCI id (expected \"vvvv:dddd\", 4 + 4 hex digits)",
				it->kind == AUTOSIZE_YNODE_SCALAR ?
				autosize_ytree_excerpt(it->value, it->len, ex,
						       sizeof(ex)) :
				"(not text)");
		owner = cat_pci_owner(c, g, id);
		if (owner) {
			snprintf(text, sizeof(text), "%04x:%04x",
				 (unsigned)(id >> 16), (unsigned)(id & 0xffff));
			return autosize_ytree_fail(t, it->line, e,
				AUTOSIZE_EINVAL,
				"key 'pci_ids': %s is already listed for %s",
				text, owner->name[0] ? owner->name : "this GPU");
		}
		g->pci_ids[g->n_pci_ids++] = id;
	}
	return AUTOSIZE_OK;
}

/* gpus_per_node (the reference server's, default 8) and
 * nvlink_domain_gpus (GPUs that share the GPU-to-GPU link, default the
 * node's): a domain wider than the node must be NVLink and a whole
 * number of nodes (GB200 NVL72: 18 trays of 4). */
static autosize_err cat_domain(const autosize_ytree *t,
			       const autosize_ynode *m, autosize_gpu *g,
			       int link, autosize_error *e)
{
	int found;
	autosize_err rc;

	g->gpus_per_node = CAT_DEFAULT_GPN;
	rc = autosize_ytree_int(t, m, "gpus_per_node", AUTOSIZE_Y_OPTIONAL,
				1, 64, &g->gpus_per_node, NULL, e);
	if (rc)
		return rc;
	g->nvlink_domain_gpus = g->gpus_per_node;
	rc = autosize_ytree_int(t, m, "nvlink_domain_gpus",
				AUTOSIZE_Y_OPTIONAL, 1, AUTOSIZE_NVLINK_DOMAIN_MAX,
				&g->nvlink_domain_gpus, &found, e);
	if (rc || !found || g->nvlink_domain_gpus == g->gpus_per_node)
		return rc;
	if (link != AUTOSIZE_LINK_NVLINK ||
	    g->nvlink_domain_gpus % g->gpus_per_node)
		return autosize_ytree_fail(t,
			autosize_ynode_get(m, "nvlink_domain_gpus")->line, e,
			AUTOSIZE_EINVAL,
			g->nvlink_domain_gpus % g->gpus_per_node
			? "key 'nvlink_domain_gpus': %d is not a whole number "
			  "of nodes of %d GPUs (expected a multiple of "
			  "gpus_per_node)"
			: "key 'nvlink_domain_gpus': %d GPUs span nodes of %d, "
			  "which needs NVLink (expected gpus_per_node, or "
			  "link: nvlink)",
			g->nvlink_domain_gpus, g->gpus_per_node);
	return AUTOSIZE_OK;
}

/* One entry of `gpus:` into g (not yet counted in c). */
static autosize_err cat_gpu(const autosize_ytree *t, autosize_catalog *c,
			    const autosize_ynode *m, autosize_gpu *g,
			    autosize_error *e)
{
	const int req = AUTOSIZE_Y_REQUIRED | AUTOSIZE_Y_GT_MIN;
	const autosize_ynode *name_node;
	double gib = 0, p2p = 1;
	int link = 0, net = AUTOSIZE_NET_IB;
	autosize_err rc;

	memset(g, 0, sizeof(*g));
	rc = autosize_ytree_check_keys(t, m, "gpu entry", cat_gpu_keys, e);
	if (rc)
		return rc;
	rc = autosize_ytree_str(t, m, "name", AUTOSIZE_Y_REQUIRED, g->name,
				sizeof(g->name), NULL, e);
	if (rc)
		return rc;
	name_node = autosize_ynode_get(m, "name");
	rc = cat_check_name(t, c, c->n, g, "name", g->name, name_node->line,
			    e);
	if (rc)
		return rc;
	rc = cat_aliases(t, c, m, g, e);
	if (!rc)
		rc = cat_ambiguous_aliases(t, c, m, g, e);
	/* 0: no BF16 (V100); the planner then refuses bf16 on it */
	if (!rc)
		rc = autosize_ytree_double(t, m, "bf16_tflops",
					   AUTOSIZE_Y_REQUIRED, 0,
					   CAT_MAX_TFLOPS, &g->bf16_tflops,
					   NULL, e);
	if (!rc)
		rc = autosize_ytree_double(t, m, "fp16_tflops", req, 0,
					   CAT_MAX_TFLOPS, &g->fp16_tflops,
					   NULL, e);
	if (!rc)
		rc = autosize_ytree_double(t, m, "fp8_tflops",
					   AUTOSIZE_Y_OPTIONAL, 0,
					   CAT_MAX_TFLOPS, &g->fp8_tflops,
					   NULL, e);
	if (!rc)
		rc = autosize_ytree_double(t, m, "fp4_tflops",
					   AUTOSIZE_Y_OPTIONAL, 0,
					   CAT_MAX_TFLOPS, &g->fp4_tflops,
					   NULL, e);
	if (!rc)
		rc = autosize_ytree_double(t, m, "memory_gib", req, 0,
					   CAT_MAX_GIB, &gib, NULL, e);
	if (!rc)
		rc = autosize_ytree_double(t, m, "hbm_gbs", req, 0,
					   CAT_MAX_GBS, &g->hbm_gbs, NULL, e);
	if (!rc)
		rc = autosize_ytree_choice(t, m, "link", AUTOSIZE_Y_REQUIRED,
					   names_link, &link, NULL, e);
	if (!rc)
		rc = autosize_ytree_double(t, m, "link_gbs", req, 0,
					   CAT_MAX_GBS, &g->link_gbs, NULL,
					   e);
	if (!rc)
		rc = autosize_ytree_double(t, m, "p2p", AUTOSIZE_Y_OPTIONAL, 0,
					   1, &p2p, NULL, e);
	if (!rc)
		rc = autosize_ytree_choice(t, m, "net", AUTOSIZE_Y_OPTIONAL,
					   names_net, &net, NULL, e);
	if (!rc)
		rc = autosize_ytree_double(t, m, "net_gbps_per_gpu", req, 0,
					   CAT_MAX_GBS, &g->net_gbps_per_gpu,
					   NULL, e);
	if (!rc)
		rc = cat_domain(t, m, g, link, e);
	if (!rc)
		rc = cat_pci_ids(t, c, m, g, e);
	if (!rc)
		rc = autosize_ytree_text(t, m, "source", e);
	if (!rc)
		rc = autosize_ytree_text(t, m, "notes", e);
	if (rc)
		return rc;
	g->mem_bytes = gib * 1073741824.0; /* GiB = 2^30 bytes */
	g->link = (autosize_link)link;
	g->net_kind = net;
	g->no_p2p = p2p < 0.5;
	return AUTOSIZE_OK;
}

static autosize_err cat_walk(const autosize_ytree *t, autosize_catalog *c,
			     autosize_error *e)
{
	const autosize_ynode *root = autosize_ytree_root(t), *seq, *it;
	autosize_err rc;

	rc = autosize_ytree_check_keys(t, root, "the catalog", cat_top_keys,
				       e);
	if (rc)
		return rc;
	rc = autosize_ytree_seq(t, root, "gpus", AUTOSIZE_Y_REQUIRED,
				AUTOSIZE_CATALOG_MAX_GPUS, &seq, e);
	if (rc)
		return rc;
	if (!seq->child)
		return autosize_ytree_fail(t, seq->line, e, AUTOSIZE_EINVAL,
			"key 'gpus': no GPUs (expected a list of at least one GPU)");
	for (it = seq->child; it; it = it->next) {
		rc = cat_gpu(t, c, it, &c->gpus[c->n], e);
		if (rc)
			return rc;
		c->n++;
	}
	return cat_check_ambiguous(t, c, e);
}

static autosize_catalog *cat_from_tree(autosize_ytree *t, autosize_error *e)
{
	autosize_catalog *c;

	if (!t)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c) {
		autosize_fail(e, AUTOSIZE_ENOMEM, "%s: out of memory",
			      autosize_ytree_what(t));
		goto fail;
	}
	if (cat_walk(t, c, e))
		goto fail;
	autosize_ytree_destroy(t);
	return c;
fail:
	autosize_ytree_destroy(t);
	free(c);
	return NULL;
}

autosize_catalog *autosize_catalog_load(const char *path, autosize_error *e)
{
	return cat_from_tree(autosize_ytree_load(path, e), e);
}

autosize_catalog *autosize_catalog_parse(const char *text, size_t len,
					 const char *what, autosize_error *e)
{
	return cat_from_tree(autosize_ytree_parse(text, len, what, e), e);
}

autosize_catalog *autosize_catalog_default(autosize_error *e)
{
	return autosize_catalog_parse(autosize_embedded_gpus_yaml,
				      autosize_embedded_gpus_yaml_len,
				      "etc/gpus.yaml (built in)", e);
}

void autosize_catalog_destroy(autosize_catalog *c)
{
	free(c);
}

int autosize_catalog_count(const autosize_catalog *c)
{
	return c ? c->n : 0;
}

const autosize_gpu *autosize_catalog_at(const autosize_catalog *c, int i)
{
	if (!c || i < 0 || i >= c->n)
		return NULL;
	return &c->gpus[i];
}

const autosize_gpu *autosize_catalog_find(const autosize_catalog *c,
					  const char *name)
{
	if (!c || !name || !cat_is_name(name))
		return NULL;
	return cat_match(c, c->n, name);
}

/* The name to show for g in a warning: its first alias, else its name. */
static const char *cat_short(const autosize_gpu *g)
{
	return g->n_aliases > 0 ? g->aliases[0] : g->name;
}

/* 1 when gpu number i lists name under ambiguous_aliases. */
static int cat_lists_ambiguous(const autosize_catalog *c, int i,
			       const char *name)
{
	int j;

	for (j = 0; j < c->ambiguous[i].n; j++)
		if (cat_name_eq(c->ambiguous[i].names[j], name))
			return 1;
	return 0;
}

const autosize_gpu *autosize_catalog_resolve(const autosize_catalog *c,
					     const char *name, char *warn,
					     size_t len)
{
	const autosize_gpu *g = autosize_catalog_find(c, name);
	const char *parts[AUTOSIZE_CATALOG_MAX_GPUS];
	char ex[CAT_EXCERPT];
	size_t used;
	int i, n = 0, k;

	if (warn && len > 0)
		warn[0] = '\0';
	if (!g || !warn || len == 0)
		return g;
	for (i = 0; i < c->n; i++)
		if (&c->gpus[i] == g || cat_lists_ambiguous(c, i, name))
			parts[n++] = cat_short(&c->gpus[i]);
	if (n < 2)
		return g;
	used = (size_t)snprintf(warn, len, "%s is ambiguous: ",
				autosize_ytree_excerpt(name, strlen(name), ex,
						       sizeof(ex)));
	for (k = 0; k < n && used < len; k++)
		used += (size_t)snprintf(warn + used, len - used, "%s%s",
					 k == 0 ? "" : k + 1 == n ? " or " :
					 ", ", parts[k]);
	if (used < len)
		snprintf(warn + used, len - used, "; taking %s",
			 cat_short(g));
	return g;
}

const autosize_gpu *autosize_catalog_find_pci(const autosize_catalog *c,
					      uint16_t vendor,
					      uint16_t device)
{
	uint32_t id = (uint32_t)vendor << 16 | device;
	int i, j;

	if (!c)
		return NULL;
	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->gpus[i].n_pci_ids; j++)
			if (c->gpus[i].pci_ids[j] == id)
				return &c->gpus[i];
	return NULL;
}

double autosize_gpu_peak_flops(const autosize_gpu *gpu, int precision)
{
	if (!gpu)
		return 0;
	switch (precision) {
	case AUTOSIZE_PREC_BF16: return gpu->bf16_tflops * 1e12;
	case AUTOSIZE_PREC_FP16: return gpu->fp16_tflops * 1e12;
	case AUTOSIZE_PREC_FP8: return gpu->fp8_tflops * 1e12;
	case AUTOSIZE_PREC_NVFP4: return gpu->fp4_tflops * 1e12;
	}
	return 0;
}
