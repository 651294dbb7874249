/*
 * Internal: a bounded YAML document tree for the strict schema loaders
 * (catalog, presets, policy). libyaml's event parser fills it; aliases,
 * anchors and tags are refused, and input size, nesting, node count and
 * scalar length are capped, so a hostile file costs little.
 */
#ifndef AUTOSIZE_YTREE_H
#define AUTOSIZE_YTREE_H

#include <stddef.h>
#include <stdint.h>
#include "autosize/error.h"

/* Cap on any YAML file read (catalog, policy, presets, rules). */
#define AUTOSIZE_YAML_MAX_BYTES (1024 * 1024)
#define AUTOSIZE_YTREE_MAX_DEPTH 16
#define AUTOSIZE_YTREE_MAX_NODES 20000
#define AUTOSIZE_YTREE_MAX_SCALAR_BYTES 4096
/* The project's own data files, read by its tests and tools only
 * (tests/validation/runs.yaml: some 400 published runs): the same
 * schema rules, larger caps. */
#define AUTOSIZE_YAML_DATA_MAX_BYTES (8 * 1024 * 1024)
#define AUTOSIZE_YTREE_DATA_MAX_NODES 400000

typedef enum autosize_ynode_kind {
	AUTOSIZE_YNODE_SCALAR = 0,
	AUTOSIZE_YNODE_MAP,
	AUTOSIZE_YNODE_SEQ
} autosize_ynode_kind;

typedef struct autosize_ynode autosize_ynode;
struct autosize_ynode {
	autosize_ynode_kind kind;
	int line;               /* 1-based line where the node starts */
	int plain;              /* scalar written without quotes */
	const char *value;      /* scalar: text, NUL-terminated (no inner NUL) */
	size_t len;             /* scalar: strlen(value) */
	const char *key;        /* value of a mapping: its key, else NULL */
	size_t key_len;
	int key_line;
	uint64_t key_hash;
	autosize_ynode *child;  /* first value / item of a mapping / sequence */
	autosize_ynode *next;   /* next sibling */
	int n_children;
};

typedef struct autosize_ytree autosize_ytree;

/* Getter flags. */
#define AUTOSIZE_Y_OPTIONAL 0
#define AUTOSIZE_Y_REQUIRED 1  /* absent or null is an error */
#define AUTOSIZE_Y_GT_MIN 2    /* numbers: min itself is excluded */

/*
 * Parse one YAML document of len bytes (at most AUTOSIZE_YAML_MAX_BYTES;
 * need not be NUL-terminated). `what` names the input in errors. Returns
 * NULL with *e filled on error. Caller owns the tree (destroy).
 */
autosize_ytree *autosize_ytree_parse(const char *text, size_t len,
				     const char *what, autosize_error *e);

/*
 * Read and parse a regular file (directories, FIFOs, devices refused; at
 * most AUTOSIZE_YAML_MAX_BYTES). Errors name the path.
 */
autosize_ytree *autosize_ytree_load(const char *path, autosize_error *e);

/*
 * As autosize_ytree_load, for the project's own data files (never a
 * site's or a user's): at most AUTOSIZE_YAML_DATA_MAX_BYTES and
 * AUTOSIZE_YTREE_DATA_MAX_NODES.
 */
autosize_ytree *autosize_ytree_load_data(const char *path,
					 autosize_error *e);

/* Free a tree; NULL is allowed. */
void autosize_ytree_destroy(autosize_ytree *t);

/* The root node (never NULL for a parsed tree) and the input's name. */
const autosize_ynode *autosize_ytree_root(const autosize_ytree *t);
const char *autosize_ytree_what(const autosize_ytree *t);


/*
 * Fill *e with "WHAT:LINE: " and a printf-style message; returns code.
 */
autosize_err autosize_ytree_fail(const autosize_ytree *t, int line,
				 autosize_error *e, autosize_err code,
				 const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/*
 * Copy a printable excerpt of s (at most n bytes, up to 40 shown, control
 * characters as '?', "..." when cut) into buf for use in messages.
 */
const char *autosize_ytree_excerpt(const char *s, size_t n, char *buf,
				   size_t size);

/* 1 when n is absent or a plain "", "~", "null" scalar. */
int autosize_ynode_is_null(const autosize_ynode *n);

/* The value of key in mapping map (possibly a null scalar), or NULL. */
const autosize_ynode *autosize_ynode_get(const autosize_ynode *map,
					 const char *key);

/*
 * Check that n is a mapping whose keys are all in the NULL-terminated list
 * `known`. `ctx` names the mapping in messages ("partition"):
 * "WHAT:LINE: unknown key 'foo' in partition; known keys: a, b, c".
 */
autosize_err autosize_ytree_check_keys(const autosize_ytree *t,
				       const autosize_ynode *n,
				       const char *ctx,
				       const char *const *known,
				       autosize_error *e);

/*
 * Typed getters for key in mapping map. When the key is absent or null
 * and not AUTOSIZE_Y_REQUIRED, *out is left as it was and *found (when
 * not NULL) is 0. Errors: "WHAT:LINE: key 'K': what is wrong (expected
 * ...)".
 */
autosize_err autosize_ytree_double(const autosize_ytree *t,
				   const autosize_ynode *map, const char *key,
				   int flags, double min, double max,
				   double *out, int *found,
				   autosize_error *e);
autosize_err autosize_ytree_int(const autosize_ytree *t,
				const autosize_ynode *map, const char *key,
				int flags, long min, long max, int *out,
				int *found, autosize_error *e);
/* true/false/yes/no, any case. */
autosize_err autosize_ytree_bool(const autosize_ytree *t,
				 const autosize_ynode *map, const char *key,
				 int flags, int *out, int *found,
				 autosize_error *e);
/* A string of 1 .. size-1 bytes without control characters. */
autosize_err autosize_ytree_str(const autosize_ytree *t,
				const autosize_ynode *map, const char *key,
				int flags, char *buf, size_t size, int *found,
				autosize_error *e);
/* One of a NULL-terminated list of words (any case); *out = its index. */
autosize_err autosize_ytree_choice(const autosize_ytree *t,
				   const autosize_ynode *map, const char *key,
				   int flags, const char *const *words,
				   int *out, int *found, autosize_error *e);
/*
 * A sequence of at most max_items items: *seq is set to it (NULL when
 * absent and optional).
 */
autosize_err autosize_ytree_seq(const autosize_ytree *t,
				const autosize_ynode *map, const char *key,
				int flags, int max_items,
				const autosize_ynode **seq, autosize_error *e);
/*
 * A mapping: *out is set to it (NULL when absent and optional).
 */
autosize_err autosize_ytree_map(const autosize_ytree *t,
				const autosize_ynode *map, const char *key,
				int flags, const autosize_ynode **out,
				autosize_error *e);

/*
 * Free text (source, notes): absent, a string, or a list of strings;
 * only checked for type.
 */
autosize_err autosize_ytree_text(const autosize_ytree *t,
				 const autosize_ynode *map, const char *key,
				 autosize_error *e);

/*
 * Node-level versions, for sequence items: `key` names the list in
 * messages. The node must be a non-null scalar.
 */
autosize_err autosize_ynode_str(const autosize_ytree *t,
				const autosize_ynode *n, const char *key,
				char *buf, size_t size, autosize_error *e);
autosize_err autosize_ynode_double(const autosize_ytree *t,
				   const autosize_ynode *n, const char *key,
				   int flags, double min, double max,
				   double *out, autosize_error *e);

#endif
