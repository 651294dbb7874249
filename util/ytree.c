/* autosize: a bounded YAML tree over libyaml's event parser. */
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>
#include "ytree.h"
#include "readfile.h"

#define YT_CHUNK_BYTES 65536
#define YT_WHAT_MAX 512
#define YT_EXCERPT 48

typedef struct yt_chunk {
	struct yt_chunk *next;
	size_t used;
	size_t size;
	_Alignas(max_align_t) unsigned char data[];
} yt_chunk;

struct autosize_ytree {
	yt_chunk *chunks;
	const char *what;
	autosize_ynode *root;
	int n_nodes;
	int max_nodes;          /* AUTOSIZE_YTREE_MAX_NODES, or the data cap */
};

typedef struct yt_frame {
	autosize_ynode *node;
	autosize_ynode *last;
	int has_key;
	const char *key;
	size_t key_len;
	int key_line;
	uint64_t key_hash;
} yt_frame;

typedef struct yt_builder {
	autosize_ytree *t;
	yt_frame stack[AUTOSIZE_YTREE_MAX_DEPTH];
	int depth;
	int docs;
	int done;
} yt_builder;

/* Arena: chunks that are never moved, so node pointers stay valid. */
static void *yt_alloc(autosize_ytree *t, size_t size)
{
	const size_t align = _Alignof(max_align_t);
	yt_chunk *c = t->chunks;
	void *p;

	size = (size + align - 1) / align * align;
	if (!c || c->size - c->used < size) {
		size_t cap = size > YT_CHUNK_BYTES ? size : YT_CHUNK_BYTES;

		c = calloc(1, sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->size = cap;
		c->next = t->chunks;
		t->chunks = c;
	}
	p = c->data + c->used;
	c->used += size;
	return p;
}

static char *yt_strdup(autosize_ytree *t, const char *s, size_t n)
{
	char *p = yt_alloc(t, n + 1);

	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* FNV-1a, to make duplicate-key checks cheap. */
static uint64_t yt_hash(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

const char *autosize_ytree_excerpt(const char *s, size_t n, char *buf,
				   size_t size)
{
	size_t i, k = n, out = 0;
	int cut = 0;

	if (!size)
		return buf;
	if (!s)
		n = k = 0;
	if (k > 40) {
		k = 40;
		/* do not end inside a UTF-8 sequence */
		while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
			k--;
		cut = 1;
	}
	for (i = 0; i < k && out + 1 < size; i++) {
		unsigned char ch = (unsigned char)s[i];

		buf[out++] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
	}
	if (cut && out + 4 < size) {
		memcpy(buf + out, "...", 3);
		out += 3;
	}
	buf[out] = '\0';
	return buf;
}

autosize_err autosize_ytree_fail(const autosize_ytree *t, int line,
				 autosize_error *e, autosize_err code,
				 const char *fmt, ...)
{
	char text[AUTOSIZE_MSG_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return autosize_fail(e, code, "%s:%d: %s",
			     t && t->what ? t->what : "(input)",
			     line > 0 ? line : 1, text);
}

static const char *yt_kind_name(const autosize_ynode *n)
{
	if (!n)
		return "nothing";
	switch (n->kind) {
	case AUTOSIZE_YNODE_MAP: return "mapping";
	case AUTOSIZE_YNODE_SEQ: return "list";
	case AUTOSIZE_YNODE_SCALAR: break;
	}
	return "single value";
}

/* --- building the tree from events --- */

static autosize_err yt_new_node(yt_builder *b, autosize_ynode_kind kind,
				int line, autosize_ynode **out,
				autosize_error *e)
{
	autosize_ynode *n;

	if (b->t->n_nodes >= b->t->max_nodes)
		return autosize_ytree_fail(b->t, line, e, AUTOSIZE_ETOOBIG,
			"more than %d YAML nodes", b->t->max_nodes);
	n = yt_alloc(b->t, sizeof(*n));
	if (!n)
		return autosize_fail(e, AUTOSIZE_ENOMEM,
			"%s: out of memory reading YAML", b->t->what);
	b->t->n_nodes++;
	n->kind = kind;
	n->line = line;
	*out = n;
	return AUTOSIZE_OK;
}

/* A scalar in key position of the mapping on top of the stack. */
static autosize_err yt_take_key(yt_builder *b, yt_frame *top,
				const yaml_event_t *ev, int line,
				autosize_error *e)
{
	const char *text = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	const autosize_ynode *c;
	char ex[YT_EXCERPT];
	uint64_t h;

	if (b->t->n_nodes >= b->t->max_nodes)
		return autosize_ytree_fail(b->t, line, e, AUTOSIZE_ETOOBIG,
			"more than %d YAML nodes", b->t->max_nodes);
	b->t->n_nodes++;
	h = yt_hash(text, len);
	for (c = top->node->child; c; c = c->next) {
		if (c->key_hash == h && c->key_len == len &&
		    memcmp(c->key, text, len) == 0)
			return autosize_ytree_fail(b->t, line, e,
				AUTOSIZE_EINVAL,
				"key '%s': duplicate key (first at line %d)",
				autosize_ytree_excerpt(text, len, ex,
						       sizeof(ex)),
				c->key_line);
	}
	top->key = yt_strdup(b->t, text, len);
	if (!top->key)
		return autosize_fail(e, AUTOSIZE_ENOMEM,
			"%s: out of memory reading YAML", b->t->what);
	top->key_len = len;
	top->key_line = line;
	top->key_hash = h;
	top->has_key = 1;
	return AUTOSIZE_OK;
}

/* Hang n under the collection on top of the stack (or make it the root). */
static autosize_err yt_attach(yt_builder *b, autosize_ynode *n,
			      autosize_error *e)
{
	yt_frame *top;

	if (b->depth == 0) {
		if (b->t->root)
			return autosize_ytree_fail(b->t, n->line, e,
				AUTOSIZE_EINVAL,
				"more than one YAML document (expected exactly one)");
		b->t->root = n;
		return AUTOSIZE_OK;
	}
	top = &b->stack[b->depth - 1];
	if (top->node->kind == AUTOSIZE_YNODE_MAP) {
		if (!top->has_key)
			return autosize_ytree_fail(b->t, n->line, e,
				AUTOSIZE_EINVAL,
				"a %s as a mapping key is not allowed (expected a plain key)",
				yt_kind_name(n));
		n->key = top->key;
		n->key_len = top->key_len;
		n->key_line = top->key_line;
		n->key_hash = top->key_hash;
		top->has_key = 0;
	}
	if (top->last)
		top->last->next = n;
	else
		top->node->child = n;
	top->last = n;
	top->node->n_children++;
	return AUTOSIZE_OK;
}

static autosize_err yt_scalar(yt_builder *b, const yaml_event_t *ev,
			      int line, autosize_error *e)
{
	const char *text = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	autosize_ynode *n = NULL;
	autosize_err rc;

	if (len > AUTOSIZE_YTREE_MAX_SCALAR_BYTES)
		return autosize_ytree_fail(b->t, line, e, AUTOSIZE_ETOOBIG,
			"a YAML value longer than %d bytes",
			AUTOSIZE_YTREE_MAX_SCALAR_BYTES);
	if (memchr(text, '\0', len))
		return autosize_ytree_fail(b->t, line, e, AUTOSIZE_EINVAL,
			"a NUL character in a YAML value is not allowed");
	if (b->depth > 0) {
		yt_frame *top = &b->stack[b->depth - 1];

		if (top->node->kind == AUTOSIZE_YNODE_MAP && !top->has_key)
			return yt_take_key(b, top, ev, line, e);
	}
	rc = yt_new_node(b, AUTOSIZE_YNODE_SCALAR, line, &n, e);
	if (rc)
		return rc;
	n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	n->value = yt_strdup(b->t, text, len);
	if (!n->value)
		return autosize_fail(e, AUTOSIZE_ENOMEM,
			"%s: out of memory reading YAML", b->t->what);
	n->len = len;
	return yt_attach(b, n, e);
}

static autosize_err yt_open(yt_builder *b, autosize_ynode_kind kind,
			    int line, autosize_error *e)
{
	autosize_ynode *n = NULL;
	yt_frame *f;
	autosize_err rc;

	if (b->depth >= AUTOSIZE_YTREE_MAX_DEPTH)
		return autosize_ytree_fail(b->t, line, e, AUTOSIZE_ETOOBIG,
			"YAML nesting deeper than %d levels",
			AUTOSIZE_YTREE_MAX_DEPTH);
	rc = yt_new_node(b, kind, line, &n, e);
	if (rc)
		return rc;
	rc = yt_attach(b, n, e);
	if (rc)
		return rc;
	f = &b->stack[b->depth++];
	memset(f, 0, sizeof(*f));
	f->node = n;
	return AUTOSIZE_OK;
}

static autosize_err yt_event(yt_builder *b, const yaml_event_t *ev,
			     autosize_error *e)
{
	int line = (int)ev->start_mark.line + 1;
	const yaml_char_t *anchor = NULL, *tag = NULL;

	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		anchor = ev->data.scalar.anchor;
		tag = ev->data.scalar.tag;
		break;
	case YAML_SEQUENCE_START_EVENT:
		anchor = ev->data.sequence_start.anchor;
		tag = ev->data.sequence_start.tag;
		break;
	case YAML_MAPPING_START_EVENT:
		anchor = ev->data.mapping_start.anchor;
		tag = ev->data.mapping_start.tag;
		break;
	default:
		break;
	}
	if (anchor)
		return autosize_ytree_fail(b->t, line, e, AUTOSIZE_EINVAL,
			"YAML aliases/anchors are not allowed");
	if (tag)
		return autosize_ytree_fail(b->t, line, e, AUTOSIZE_EINVAL,
			"YAML tags (!...) are not allowed");

	switch (ev->type) {
	case YAML_NO_EVENT:
	case YAML_STREAM_START_EVENT:
	case YAML_DOCUMENT_END_EVENT:
		return AUTOSIZE_OK;
	case YAML_STREAM_END_EVENT:
		b->done = 1;
		return AUTOSIZE_OK;
	case YAML_DOCUMENT_START_EVENT:
		if (b->docs++ > 0)
			return autosize_ytree_fail(b->t, line, e,
				AUTOSIZE_EINVAL,
				"more than one YAML document (expected exactly one)");
		return AUTOSIZE_OK;
	case YAML_ALIAS_EVENT:
		return autosize_ytree_fail(b->t, line, e, AUTOSIZE_EINVAL,
			"YAML aliases/anchors are not allowed");
	case YAML_SCALAR_EVENT:
		return yt_scalar(b, ev, line, e);
	case YAML_SEQUENCE_START_EVENT:
		return yt_open(b, AUTOSIZE_YNODE_SEQ, line, e);
	case YAML_MAPPING_START_EVENT:
		return yt_open(b, AUTOSIZE_YNODE_MAP, line, e);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (b->depth > 0)
			b->depth--;
		return AUTOSIZE_OK;
	}
	return autosize_ytree_fail(b->t, line, e, AUTOSIZE_EINTERNAL,
				   "unexpected YAML event %d", (int)ev->type);
}

static autosize_err yt_syntax_error(const autosize_ytree *t,
				    const yaml_parser_t *p,
				    autosize_error *e)
{
	const char *problem = p->problem ? p->problem : "unknown problem";
	int line = (int)p->problem_mark.line + 1;

	if (p->error == YAML_MEMORY_ERROR)
		return autosize_fail(e, AUTOSIZE_ENOMEM,
				     "%s: out of memory reading YAML", t->what);
	if (p->error == YAML_READER_ERROR)
		return autosize_fail(e, AUTOSIZE_EINVAL,
			"%s:1: not valid YAML text: %s (at byte %zu)",
			t->what, problem, p->problem_offset);
	if (p->context)
		return autosize_ytree_fail(t, line, e, AUTOSIZE_EINVAL,
			"YAML syntax error: %s (%s at line %d)", problem,
			p->context, (int)p->context_mark.line + 1);
	return autosize_ytree_fail(t, line, e, AUTOSIZE_EINVAL,
				   "YAML syntax error: %s", problem);
}

static autosize_err yt_build(autosize_ytree *t, const char *text,
			     size_t len, autosize_error *e)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	yt_builder *b;
	autosize_err rc = AUTOSIZE_OK;

	b = calloc(1, sizeof(*b));
	if (!b)
		return autosize_fail(e, AUTOSIZE_ENOMEM,
				     "%s: out of memory reading YAML", t->what);
	b->t = t;
	if (!yaml_parser_initialize(&parser)) {
		free(b);
		return autosize_fail(e, AUTOSIZE_ENOMEM,
				     "%s: out of memory reading YAML", t->what);
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text,
				     len);
	while (!b->done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			rc = yt_syntax_error(t, &parser, e);
			goto fail;
		}
		rc = yt_event(b, &ev, e);
		yaml_event_delete(&ev);
		if (rc)
			goto fail;
	}
	if (autosize_ynode_is_null(t->root))
		rc = autosize_ytree_fail(t, 1, e, AUTOSIZE_EINVAL,
			"empty YAML file (expected a mapping of settings)");
fail:
	yaml_parser_delete(&parser);
	free(b);
	return rc;
}

static autosize_ytree *yt_parse(const char *text, size_t len,
				const char *what, size_t max_bytes,
				int max_nodes, autosize_error *e)
{
	autosize_ytree *t;
	size_t wlen;

	if (!what)
		what = "(input)";
	if (len > max_bytes) {
		autosize_fail(e, AUTOSIZE_ETOOBIG,
			      "%s: %zu bytes, larger than the %zu-byte limit for YAML files",
			      what, len, max_bytes);
		return NULL;
	}
	if (!text && len) {
		autosize_fail(e, AUTOSIZE_EINTERNAL, "%s: no text", what);
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		goto nomem;
	t->max_nodes = max_nodes;
	wlen = strnlen(what, YT_WHAT_MAX);
	t->what = yt_strdup(t, what, wlen);
	if (!t->what)
		goto nomem;
	if (yt_build(t, text ? text : "", len, e))
		goto fail;
	return t;
nomem:
	autosize_fail(e, AUTOSIZE_ENOMEM, "%s: out of memory reading YAML",
		      what);
fail:
	autosize_ytree_destroy(t);
	return NULL;
}

autosize_ytree *autosize_ytree_parse(const char *text, size_t len,
				     const char *what, autosize_error *e)
{
	return yt_parse(text, len, what, AUTOSIZE_YAML_MAX_BYTES,
			AUTOSIZE_YTREE_MAX_NODES, e);
}

void autosize_ytree_destroy(autosize_ytree *t)
{
	yt_chunk *c, *next;

	if (!t)
		return;
	for (c = t->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(t);
}

const autosize_ynode *autosize_ytree_root(const autosize_ytree *t)
{
	return t ? t->root : NULL;
}

const char *autosize_ytree_what(const autosize_ytree *t)
{
	return t && t->what ? t->what : "(input)";
}

/* --- reading files --- */

static autosize_ytree *yt_load(const char *path, size_t max_bytes,
			       int max_nodes, autosize_error *e)
{
	autosize_ytree *t;
	char *buf;
	size_t len;

	if (autosize_read_regular_file(path, max_bytes, "YAML file", &buf,
				       &len, e))
		return NULL;
	t = yt_parse(buf, len, path, max_bytes, max_nodes, e);
	free(buf);
	return t;
}

autosize_ytree *autosize_ytree_load(const char *path, autosize_error *e)
{
	return yt_load(path, AUTOSIZE_YAML_MAX_BYTES, AUTOSIZE_YTREE_MAX_NODES,
		       e);
}

autosize_ytree *autosize_ytree_load_data(const char *path,
					 autosize_error *e)
{
	return yt_load(path, AUTOSIZE_YAML_DATA_MAX_BYTES,
		       AUTOSIZE_YTREE_DATA_MAX_NODES, e);
}

/* --- getters --- */

/* Where to point for a value: its key's line (a block list or mapping
 * starts on the next one), else its own. */
static int yt_line(const autosize_ynode *n)
{
	if (!n)
		return 1;
	return n->key ? n->key_line : n->line;
}

int autosize_ynode_is_null(const autosize_ynode *n)
{
	if (!n)
		return 1;
	if (n->kind != AUTOSIZE_YNODE_SCALAR || !n->plain)
		return 0;
	return n->len == 0 || strcmp(n->value, "~") == 0 ||
	       strcmp(n->value, "null") == 0 ||
	       strcmp(n->value, "Null") == 0 ||
	       strcmp(n->value, "NULL") == 0;
}

const autosize_ynode *autosize_ynode_get(const autosize_ynode *map,
					 const char *key)
{
	const autosize_ynode *c;
	size_t len;

	if (!map || map->kind != AUTOSIZE_YNODE_MAP || !key)
		return NULL;
	len = strlen(key);
	for (c = map->child; c; c = c->next)
		if (c->key_len == len && memcmp(c->key, key, len) == 0)
			return c;
	return NULL;
}

static int yt_in_list(const char *s, size_t len, const char *const *words)
{
	int i;

	for (i = 0; words[i]; i++)
		if (strlen(words[i]) == len && memcmp(words[i], s, len) == 0)
			return i;
	return -1;
}

/* "a, b, c" (or "a, b or c" when `or`) into buf. */
static const char *yt_join(const char *const *words, int or, char *buf,
			   size_t size)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; words[i] && used < size; i++) {
		const char *sep = "";

		if (i > 0)
			sep = (or && !words[i + 1]) ? " or " : ", ";
		used += (size_t)snprintf(buf + used, size - used, "%s%s", sep,
					 words[i]);
	}
	return buf;
}

autosize_err autosize_ytree_check_keys(const autosize_ytree *t,
				       const autosize_ynode *n,
				       const char *ctx,
				       const char *const *known,
				       autosize_error *e)
{
	const autosize_ynode *c;
	char ex[YT_EXCERPT], list[256];

	if (!n || n->kind != AUTOSIZE_YNODE_MAP)
		return autosize_ytree_fail(t, yt_line(n), e,
			AUTOSIZE_EINVAL, "%s: expected a mapping, got a %s",
			ctx, yt_kind_name(n));
	for (c = n->child; c; c = c->next) {
		if (yt_in_list(c->key, c->key_len, known) >= 0)
			continue;
		return autosize_ytree_fail(t, c->key_line, e,
			AUTOSIZE_EINVAL,
			"unknown key '%s' in %s; known keys: %s",
			autosize_ytree_excerpt(c->key, c->key_len, ex,
					       sizeof(ex)),
			ctx, yt_join(known, 0, list, sizeof(list)));
	}
	return AUTOSIZE_OK;
}

/*
 * The value of key in map as a node of one kind: *out = NULL when
 * absent/null (an error when required: a scalar key present with no
 * value says so, any other says it is missing), else a node of kind.
 */
static autosize_err yt_node_of(const autosize_ytree *t,
			       const autosize_ynode *map, const char *key,
			       int flags, autosize_ynode_kind kind,
			       const char *expect, const autosize_ynode **out,
			       autosize_error *e)
{
	const autosize_ynode *n = autosize_ynode_get(map, key);

	*out = NULL;
	if (autosize_ynode_is_null(n)) {
		if (!(flags & AUTOSIZE_Y_REQUIRED))
			return AUTOSIZE_OK;
		if (n && kind == AUTOSIZE_YNODE_SCALAR)
			return autosize_ytree_fail(t, yt_line(n), e,
				AUTOSIZE_EINVAL,
				"key '%s': no value (expected %s)", key,
				expect);
		return autosize_ytree_fail(t, n ? yt_line(n) : yt_line(map),
			e, AUTOSIZE_EINVAL,
			"key '%s' is missing (expected %s)", key, expect);
	}
	if (n->kind != kind)
		return autosize_ytree_fail(t, yt_line(n), e, AUTOSIZE_EINVAL,
			"key '%s': expected %s, got a %s", key, expect,
			yt_kind_name(n));
	*out = n;
	return AUTOSIZE_OK;
}

/* The scalar value of key in map (yt_node_of). */
static autosize_err yt_scalar_of(const autosize_ytree *t,
				 const autosize_ynode *map, const char *key,
				 int flags, const char *expect,
				 const autosize_ynode **out, autosize_error *e)
{
	return yt_node_of(t, map, key, flags, AUTOSIZE_YNODE_SCALAR, expect,
			  out, e);
}

static const char *yt_range(int flags, double min, double max, char *buf,
			    size_t size)
{
	int gt = flags & AUTOSIZE_Y_GT_MIN;

	if (max >= DBL_MAX)
		snprintf(buf, size, "a number %s %g", gt ? ">" : ">=", min);
	else if (gt)
		snprintf(buf, size, "a number > %g and <= %g", min, max);
	else
		snprintf(buf, size, "a number from %g to %g", min, max);
	return buf;
}

/* Strict decimal number: digits, sign, point, exponent; finite. */
static int yt_parse_number(const char *s, size_t len, double *out)
{
	char *end;
	double v;
	size_t i;
	int digits = 0;

	if (len == 0 || len > 64)
		return -1;
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (c >= '0' && c <= '9')
			digits++;
		else if (!strchr("+-.eE", c))
			return -1;
	}
	if (!digits)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (end != s + len || errno == ERANGE || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

autosize_err autosize_ynode_double(const autosize_ytree *t,
				   const autosize_ynode *n, const char *key,
				   int flags, double min, double max,
				   double *out, autosize_error *e)
{
	char ex[YT_EXCERPT], range[96];
	double v;
	int bad;

	yt_range(flags, min, max, range, sizeof(range));
	if (!n || n->kind != AUTOSIZE_YNODE_SCALAR ||
	    autosize_ynode_is_null(n))
		return autosize_ytree_fail(t, yt_line(n), e,
			AUTOSIZE_EINVAL, "key '%s': expected %s, got a %s",
			key, range,
			autosize_ynode_is_null(n) ? "null" : yt_kind_name(n));
	autosize_ytree_excerpt(n->value, n->len, ex, sizeof(ex));
	if (yt_parse_number(n->value, n->len, &v))
		return autosize_ytree_fail(t, yt_line(n), e, AUTOSIZE_EINVAL,
			"key '%s': '%s' is not a number (expected %s)", key,
			ex, range);
	bad = (flags & AUTOSIZE_Y_GT_MIN) ? !(v > min) : !(v >= min);
	if (bad || v > max)
		return autosize_ytree_fail(t, yt_line(n), e, AUTOSIZE_EINVAL,
			"key '%s': %s is out of range (expected %s)", key,
			ex, range);
	*out = v;
	return AUTOSIZE_OK;
}

autosize_err autosize_ytree_double(const autosize_ytree *t,
				   const autosize_ynode *map, const char *key,
				   int flags, double min, double max,
				   double *out, int *found,
				   autosize_error *e)
{
	const autosize_ynode *n;
	char range[96];
	autosize_err rc;

	if (found)
		*found = 0;
	rc = yt_scalar_of(t, map, key, flags,
			  yt_range(flags, min, max, range, sizeof(range)),
			  &n, e);
	if (rc || !n)
		return rc;
	rc = autosize_ynode_double(t, n, key, flags, min, max, out, e);
	if (!rc && found)
		*found = 1;
	return rc;
}

autosize_err autosize_ytree_int(const autosize_ytree *t,
				const autosize_ynode *map, const char *key,
				int flags, long min, long max, int *out,
				int *found, autosize_error *e)
{
	const autosize_ynode *n;
	char ex[YT_EXCERPT], range[96];
	const char *p;
	char *end;
	autosize_err rc;
	long v;

	if (found)
		*found = 0;
	snprintf(range, sizeof(range), "a whole number from %ld to %ld", min,
		 max);
	rc = yt_scalar_of(t, map, key, flags, range, &n, e);
	if (rc || !n)
		return rc;
	autosize_ytree_excerpt(n->value, n->len, ex, sizeof(ex));
	p = n->value;
	if (*p == '+' || *p == '-')
		p++;
	if (!*p || n->len > 24 || strspn(p, "0123456789") != strlen(p))
		return autosize_ytree_fail(t, yt_line(n), e, AUTOSIZE_EINVAL,
			"key '%s': '%s' is not a whole number (expected %s)",
			key, ex, range);
	errno = 0;
	v = strtol(n->value, &end, 10);
	if (errno == ERANGE || *end || v < min || v > max)
		return autosize_ytree_fail(t, yt_line(n), e, AUTOSIZE_EINVAL,
			"key '%s': %s is out of range (expected %s)", key, ex,
			range);
	*out = (int)v;
	if (found)
		*found = 1;
	return AUTOSIZE_OK;
}

autosize_err autosize_ytree_bool(const autosize_ytree *t,
				 const autosize_ynode *map, const char *key,
				 int flags, int *out, int *found,
				 autosize_error *e)
{
	static const char *const words[] = {
		"false", "no", "true", "yes", NULL
	};
	const autosize_ynode *n;
	char ex[YT_EXCERPT];
	autosize_err rc;
	int i;

	if (found)
		*found = 0;
	rc = yt_scalar_of(t, map, key, flags, "true or false", &n, e);
	if (rc || !n)
		return rc;
	for (i = 0; words[i]; i++)
		if (strcasecmp(n->value, words[i]) == 0)
			break;
	if (!words[i])
		return autosize_ytree_fail(t, yt_line(n), e, AUTOSIZE_EINVAL,
			"key '%s': '%s' is not a boolean (expected true or false)",
			key, autosize_ytree_excerpt(n->value, n->len, ex,
						    sizeof(ex)));
	*out = i >= 2;
	if (found)
		*found = 1;
	return AUTOSIZE_OK;
}

autosize_err autosize_ynode_str(const autosize_ytree *t,
				const autosize_ynode *n, const char *key,
				char *buf, size_t size, autosize_error *e)
{
	char ex[YT_EXCERPT];
	size_t i;

	if (!n || n->kind != AUTOSIZE_YNODE_SCALAR ||
	    autosize_ynode_is_null(n))
		return autosize_ytree_fail(t, yt_line(n), e,
			AUTOSIZE_EINVAL, "key '%s': expected text, got a %s",
			key,
			autosize_ynode_is_null(n) ? "null" : yt_kind_name(n));
	autosize_ytree_excerpt(n->value, n->len, ex, sizeof(ex));
	if (n->len == 0)
		return autosize_ytree_fail(t, yt_line(n), e, AUTOSIZE_EINVAL,
			"key '%s': empty text (expected 1 to %zu characters)",
			key, size - 1);
	for (i = 0; i < n->len; i++) {
		unsigned char c = (unsigned char)n->value[i];

		if (c < 0x20 || c == 0x7f)
			return autosize_ytree_fail(t, yt_line(n), e,
				AUTOSIZE_EINVAL,
				"key '%s': '%s' has a control character (expected printable text)",
				key, ex);
	}
	if (n->len >= size)
		return autosize_ytree_fail(t, yt_line(n), e, AUTOSIZE_EINVAL,
			"key '%s': '%s' is too long (expected at most %zu characters)",
			key, ex, size - 1);
	memcpy(buf, n->value, n->len + 1);
	return AUTOSIZE_OK;
}

autosize_err autosize_ytree_str(const autosize_ytree *t,
				const autosize_ynode *map, const char *key,
				int flags, char *buf, size_t size, int *found,
				autosize_error *e)
{
	const autosize_ynode *n;
	autosize_err rc;

	if (found)
		*found = 0;
	rc = yt_scalar_of(t, map, key, flags, "text", &n, e);
	if (rc || !n)
		return rc;
	rc = autosize_ynode_str(t, n, key, buf, size, e);
	if (!rc && found)
		*found = 1;
	return rc;
}

autosize_err autosize_ytree_choice(const autosize_ytree *t,
				   const autosize_ynode *map, const char *key,
				   int flags, const char *const *words,
				   int *out, int *found, autosize_error *e)
{
	const autosize_ynode *n;
	char ex[YT_EXCERPT], list[160], expect[176];
	autosize_err rc;
	int i;

	if (found)
		*found = 0;
	yt_join(words, 1, list, sizeof(list));
	snprintf(expect, sizeof(expect), "one of %s", list);
	rc = yt_scalar_of(t, map, key, flags, expect, &n, e);
	if (rc || !n)
		return rc;
	for (i = 0; words[i]; i++)
		if (strcasecmp(n->value, words[i]) == 0)
			break;
	if (!words[i])
		return autosize_ytree_fail(t, yt_line(n), e, AUTOSIZE_EINVAL,
			"key '%s': '%s' is not valid (expected %s)", key,
			autosize_ytree_excerpt(n->value, n->len, ex,
					       sizeof(ex)),
			list);
	*out = i;
	if (found)
		*found = 1;
	return AUTOSIZE_OK;
}

/* The value of key as a list or a mapping, or NULL when absent and
 * optional. */
static autosize_err yt_container(const autosize_ytree *t,
				 const autosize_ynode *map, const char *key,
				 int flags, autosize_ynode_kind kind,
				 const autosize_ynode **out, autosize_error *e)
{
	return yt_node_of(t, map, key, flags, kind,
			  kind == AUTOSIZE_YNODE_SEQ ? "a list" : "a mapping",
			  out, e);
}

autosize_err autosize_ytree_seq(const autosize_ytree *t,
				const autosize_ynode *map, const char *key,
				int flags, int max_items,
				const autosize_ynode **seq, autosize_error *e)
{
	autosize_err rc = yt_container(t, map, key, flags,
				       AUTOSIZE_YNODE_SEQ, seq, e);

	if (rc || !*seq || (*seq)->n_children <= max_items)
		return rc;
	rc = autosize_ytree_fail(t, yt_line(*seq), e, AUTOSIZE_ETOOBIG,
		"key '%s': %d items (expected at most %d)", key,
		(*seq)->n_children, max_items);
	*seq = NULL;
	return rc;
}

autosize_err autosize_ytree_map(const autosize_ytree *t,
				const autosize_ynode *map, const char *key,
				int flags, const autosize_ynode **out,
				autosize_error *e)
{
	return yt_container(t, map, key, flags, AUTOSIZE_YNODE_MAP, out, e);
}

autosize_err autosize_ytree_text(const autosize_ytree *t,
				 const autosize_ynode *map, const char *key,
				 autosize_error *e)
{
	const autosize_ynode *n = autosize_ynode_get(map, key), *c;

	if (!n || n->kind == AUTOSIZE_YNODE_SCALAR)
		return AUTOSIZE_OK;
	if (n->kind == AUTOSIZE_YNODE_SEQ) {
		for (c = n->child; c; c = c->next)
			if (c->kind != AUTOSIZE_YNODE_SCALAR)
				return autosize_ytree_fail(t, yt_line(c), e,
					AUTOSIZE_EINVAL,
					"key '%s': expected text, got a %s",
					key, yt_kind_name(c));
		return AUTOSIZE_OK;
	}
	return autosize_ytree_fail(t, yt_line(n), e, AUTOSIZE_EINVAL,
		"key '%s': expected text or a list of text, got a %s", key,
		yt_kind_name(n));
}
