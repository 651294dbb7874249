/*
 * autosize internal: a strict, bounded JSON scanner (RFC 8259) that
 * reports the members of the top-level object, and of objects that are
 * values of top-level members (e.g. a config.json's "text_config"), to a
 * visitor. It allocates nothing; nesting is capped at
 * AUTOSIZE_JSON_MAX_DEPTH. The key mapping for Hugging Face config.json
 * files lives in hfconfig.c.
 */
#ifndef AUTOSIZE_JSON_H
#define AUTOSIZE_JSON_H

#include <stddef.h>
#include "autosize/error.h"

#define AUTOSIZE_JSON_MAX_DEPTH 32
/* longest key or string passed, with NUL (Nemotron-H's layer pattern:
 * a character a layer) */
#define AUTOSIZE_JSON_STR_MAX 512

typedef enum autosize_json_kind {
	AUTOSIZE_JSON_NUMBER = 0,
	AUTOSIZE_JSON_STRING,
	AUTOSIZE_JSON_TRUE,
	AUTOSIZE_JSON_FALSE,
	AUTOSIZE_JSON_NULL,
	AUTOSIZE_JSON_OBJECT, /* reported when it opens; its members follow */
	AUTOSIZE_JSON_ARRAY   /* reported when it opens; elements are not */
} autosize_json_kind;

typedef struct autosize_json_member {
	const char *parent;  /* "" at the top level, else the top-level key
				whose object holds this member (deep scan,
				depth 3: the key one level in) */
	const char *grandparent; /* deep scan, depth 3: the top-level key;
				    else "" */
	const char *key;     /* decoded; "" when longer than STR_MAX - 1 */
	int key_fits;
	autosize_json_kind kind;
	const char *num;     /* NUMBER: its text (num_len bytes, no NUL) */
	size_t num_len;
	const char *str;     /* STRING: decoded, "" when too long */
	int str_fits;
} autosize_json_member;

typedef void (*autosize_json_visit)(void *ctx,
				    const autosize_json_member *m);

/*
 * Validate text (len bytes, need not be NUL-terminated) as one JSON
 * object and call visit for each member at depth 1 and 2, in order.
 * Syntax errors name `what`, the line, column and byte. The visitor's
 * pointers are valid only during the call.
 */
autosize_err autosize_json_scan(const char *text, size_t len,
				const char *what, autosize_json_visit visit,
				void *ctx, autosize_error *e);

/* As autosize_json_scan, also reporting depth-3 members (an object in
 * an object in the top-level one: a record's "plan" object's
 * "memory_per_gpu_bytes"), with parent and grandparent set. */
autosize_err autosize_json_scan_deep(const char *text, size_t len,
				     const char *what,
				     autosize_json_visit visit, void *ctx,
				     autosize_error *e);

#endif
