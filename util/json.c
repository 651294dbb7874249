/*
 * autosize: a small, strict, bounded JSON scanner (RFC 8259), used for
 * Hugging Face config.json files; the key mapping is in hfconfig.c.
 *
 * The whole text is validated (strings with escapes and UTF-8, numbers,
 * literals) without recursion, nesting capped at JSON_MAX_DEPTH, and the
 * members of the top-level object and of objects one level in
 * ("text_config") are handed to a visitor. Nothing is allocated.
 *
 * Its own scanner rather than json-c: the core runs inside slurmctld,
 * sbatch and slurmstepd, where a parse makes no heap allocation here
 * (json-c: one per value) and check-leaks and bench count on that; the
 * strict grammar refuses what json-c's tokener accepts (trailing commas,
 * single quotes, NaN, lone surrogates, overlong UTF-8) with the line,
 * column and expected token in the message.
 */
#include <stdio.h>
#include <string.h>
#include "json.h"
#include "utf8.h"

#define JSON_MAX_DEPTH AUTOSIZE_JSON_MAX_DEPTH
#define JSON_STR_MAX AUTOSIZE_JSON_STR_MAX

struct json_parser {
	const char *text;
	size_t len;
	size_t pos;
	const char *what;
	int depth;
	char stack[JSON_MAX_DEPTH];          /* '{' or '[' per level */
	int member;                          /* the next value is a reported
						member's */
	char key1[JSON_STR_MAX];             /* current top-level key */
	int key1_fits;
	char key2[JSON_STR_MAX];             /* current key one level in */
	int key2_fits;
	int deep;                            /* report depth 3 too */
	char key3[JSON_STR_MAX];             /* current key two levels in */
	int key3_fits;
	char str[JSON_STR_MAX];              /* a reported string value */
	autosize_json_visit visit;
	void *ctx;
};

enum json_state {
	JSON_ST_VALUE,       /* a value must come */
	JSON_ST_FIRST_KEY,   /* after '{': a key or '}' */
	JSON_ST_FIRST_ELEM,  /* after '[': a value or ']' */
	JSON_ST_KEY,         /* after ',' in an object: a key */
	JSON_ST_AFTER        /* after a value: ',', a closer or the end */
};

/* Describe the byte at `at` for an error: "unexpected 'x'" etc. */
static void json_describe(const struct json_parser *p, size_t at, char *buf,
			  size_t len)
{
	unsigned char c;

	if (at >= p->len) {
		snprintf(buf, len, "unexpected end of text");
		return;
	}
	c = (unsigned char)p->text[at];
	if (c > 0x20 && c < 0x7f && c != '\'')
		snprintf(buf, len, "unexpected '%c'", c);
	else
		snprintf(buf, len, "unexpected byte 0x%02x", c);
}

/* A syntax error at byte `at`, with line and column (both from 1). */
static autosize_err json_syntax(const struct json_parser *p, size_t at,
				autosize_err code, const char *problem,
				const char *expected, autosize_error *e)
{
	size_t i, line = 1, col = 1;
	size_t end = at < p->len ? at : p->len;

	for (i = 0; i < end; i++) {
		if (p->text[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	return autosize_fail(e, code,
			     "%s: line %zu, column %zu (byte %zu): %s "
			     "(expected %s)", p->what, line, col, at, problem,
			     expected);
}

static autosize_err json_unexpected(const struct json_parser *p, size_t at,
				    const char *expected, autosize_error *e)
{
	char what[40];

	json_describe(p, at, what, sizeof(what));
	return json_syntax(p, at, AUTOSIZE_EINVAL, what, expected, e);
}

static void json_skip_ws(struct json_parser *p)
{
	while (p->pos < p->len) {
		char c = p->text[p->pos];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			return;
		p->pos++;
	}
}

/* Append k bytes to a bounded output; *fits = 0 once it overflows. */
static void json_put(char *out, size_t outlen, size_t *n, int *fits,
		     const char *bytes, size_t k)
{
	if (!out || !*fits)
		return;
	if (*n + k >= outlen) {
		*fits = 0;
		return;
	}
	memcpy(out + *n, bytes, k);
	*n += k;
	out[*n] = '\0';
}

static int json_hex4(const char *s, unsigned *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 4; i++) {
		char c = s[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		*v = *v << 4 | d;
	}
	return 0;
}

static size_t json_utf8_encode(unsigned cp, char *buf)
{
	if (cp < 0x80) {
		buf[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		buf[0] = (char)(0xc0 | cp >> 6);
		buf[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		buf[0] = (char)(0xe0 | cp >> 12);
		buf[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		buf[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	buf[0] = (char)(0xf0 | cp >> 18);
	buf[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	buf[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	buf[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * One \uXXXX escape at p->pos (the backslash). Surrogates must come in
 * high-low pairs: a lone one is refused, since it is no character and
 * cannot be written as UTF-8.
 */
static autosize_err json_escape_u(struct json_parser *p, unsigned *cp,
				  autosize_error *e)
{
	size_t at = p->pos;
	unsigned lo;

	if (p->len - p->pos < 6 || json_hex4(p->text + p->pos + 2, cp) != 0)
		return json_syntax(p, at, AUTOSIZE_EINVAL,
				   "bad \\u escape in string",
				   "\\u and four hex digits", e);
	p->pos += 6;
	if (*cp >= 0xdc00 && *cp <= 0xdfff)
		return json_syntax(p, at, AUTOSIZE_EINVAL,
				   "lone low surrogate \\u escape in string",
				   "a high surrogate \\uD800-\\uDBFF first",
				   e);
	if (*cp < 0xd800 || *cp > 0xdbff)
		return AUTOSIZE_OK;
	if (p->len - p->pos < 6 || p->text[p->pos] != '\\' ||
	    p->text[p->pos + 1] != 'u' ||
	    json_hex4(p->text + p->pos + 2, &lo) != 0 ||
	    lo < 0xdc00 || lo > 0xdfff)
		return json_syntax(p, at, AUTOSIZE_EINVAL,
				   "lone high surrogate \\u escape in string",
				   "a low surrogate \\uDC00-\\uDFFF next", e);
	p->pos += 6;
	*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
	return AUTOSIZE_OK;
}

/* One escape sequence at p->pos (the backslash); *cp is the character. */
static autosize_err json_escape(struct json_parser *p, unsigned *cp,
				autosize_error *e)
{
	char c;

	if (p->pos + 1 >= p->len)
		return json_unexpected(p, p->len, "an escape after '\\'", e);
	c = p->text[p->pos + 1];
	switch (c) {
	case '"': *cp = '"'; break;
	case '\\': *cp = '\\'; break;
	case '/': *cp = '/'; break;
	case 'b': *cp = '\b'; break;
	case 'f': *cp = '\f'; break;
	case 'n': *cp = '\n'; break;
	case 'r': *cp = '\r'; break;
	case 't': *cp = '\t'; break;
	case 'u': return json_escape_u(p, cp, e);
	default:
		return json_syntax(p, p->pos, AUTOSIZE_EINVAL,
				   "invalid escape in string",
				   "one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t "
				   "\\uXXXX", e);
	}
	p->pos += 2;
	return AUTOSIZE_OK;
}

/* Length of the well-formed UTF-8 sequence at p->pos, or 0 (utf8.h). */
static size_t json_utf8_len(const struct json_parser *p)
{
	return (size_t)utf8_decode(p->text + p->pos, p->len - p->pos, NULL);
}

/*
 * The string at p->pos (its opening quote). When out is not NULL the
 * decoded text goes there, NUL-terminated; *fits is 0 when it was longer
 * than outlen - 1 bytes.
 */
static autosize_err json_string(struct json_parser *p, char *out,
				size_t outlen, int *fits, autosize_error *e)
{
	size_t n = 0, start = p->pos;
	autosize_err rc;

	*fits = 1;
	if (out)
		out[0] = '\0';
	p->pos++;
	for (;;) {
		unsigned char c;
		char buf[4];
		unsigned cp = 0;
		size_t k;

		if (p->pos >= p->len)
			return json_syntax(p, start, AUTOSIZE_EINVAL,
					   "unterminated string",
					   "a closing '\"'", e);
		c = (unsigned char)p->text[p->pos];
		if (c == '"')
			break;
		if (c < 0x20)
			return json_syntax(p, p->pos, AUTOSIZE_EINVAL,
					   "control character in string",
					   "it escaped, e.g. \\n or \\u0001",
					   e);
		if (c == '\\') {
			rc = json_escape(p, &cp, e);
			if (rc != AUTOSIZE_OK)
				return rc;
			k = json_utf8_encode(cp, buf);
			json_put(out, outlen, &n, fits, buf, k);
		} else if (c < 0x80) {
			json_put(out, outlen, &n, fits, p->text + p->pos, 1);
			p->pos++;
		} else {
			k = json_utf8_len(p);
			if (k == 0)
				return json_syntax(p, p->pos, AUTOSIZE_EINVAL,
						   "invalid UTF-8 in string",
						   "UTF-8 text", e);
			json_put(out, outlen, &n, fits, p->text + p->pos, k);
			p->pos += k;
		}
	}
	p->pos++;
	if (out && !*fits)
		out[0] = '\0';
	return AUTOSIZE_OK;
}

static int json_is_digit(const struct json_parser *p, size_t at)
{
	return at < p->len && p->text[at] >= '0' && p->text[at] <= '9';
}

static void json_skip_digits(struct json_parser *p)
{
	while (json_is_digit(p, p->pos))
		p->pos++;
}

/* A number at p->pos: -? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)? */
static autosize_err json_number(struct json_parser *p, autosize_error *e)
{
	if (p->text[p->pos] == '-')
		p->pos++;
	if (!json_is_digit(p, p->pos))
		return json_unexpected(p, p->pos, "a digit", e);
	if (p->text[p->pos] == '0')
		p->pos++;
	else
		json_skip_digits(p);
	if (p->pos < p->len && p->text[p->pos] == '.') {
		p->pos++;
		if (!json_is_digit(p, p->pos))
			return json_unexpected(p, p->pos,
					       "a digit after '.'", e);
		json_skip_digits(p);
	}
	if (p->pos < p->len &&
	    (p->text[p->pos] == 'e' || p->text[p->pos] == 'E')) {
		p->pos++;
		if (p->pos < p->len &&
		    (p->text[p->pos] == '+' || p->text[p->pos] == '-'))
			p->pos++;
		if (!json_is_digit(p, p->pos))
			return json_unexpected(p, p->pos,
					       "a digit in the exponent", e);
		json_skip_digits(p);
	}
	return AUTOSIZE_OK;
}

/* A literal (true, false, null) at p->pos; *which is 't', 'f' or 'n'. */
static autosize_err json_literal(struct json_parser *p, char *which,
				 autosize_error *e)
{
	static const char *const words[] = { "true", "false", "null" };
	size_t i, k;

	for (i = 0; i < 3; i++) {
		k = strlen(words[i]);
		if (p->text[p->pos] == words[i][0]) {
			if (p->len - p->pos < k ||
			    memcmp(p->text + p->pos, words[i], k) != 0)
				break;
			*which = words[i][0];
			p->pos += k;
			return AUTOSIZE_OK;
		}
	}
	return json_unexpected(p, p->pos, "a value", e);
}

/* Report a value to the visitor when it is a reported member's. */
static void json_report(struct json_parser *p, autosize_json_kind kind,
			size_t start, int str_fits)
{
	autosize_json_member m;

	if (!p->member)
		return;
	p->member = 0;
	memset(&m, 0, sizeof(m));
	m.grandparent = "";
	m.parent = p->depth <= 1 ? "" : p->key1;
	m.key = p->depth <= 1 ? p->key1 : p->key2;
	m.key_fits = p->depth <= 1 ? p->key1_fits : p->key2_fits;
	if (p->depth > 1 && !p->key1_fits)
		return;         /* inside an object under an unreadable key */
	if (p->depth == 3) {
		if (!p->key2_fits)
			return;
		m.grandparent = p->key1;
		m.parent = p->key2;
		m.key = p->key3;
		m.key_fits = p->key3_fits;
	}
	m.kind = kind;
	if (kind == AUTOSIZE_JSON_NUMBER) {
		m.num = p->text + start;
		m.num_len = p->pos - start;
	}
	if (kind == AUTOSIZE_JSON_STRING) {
		m.str = p->str;
		m.str_fits = str_fits;
	}
	p->visit(p->ctx, &m);
}

/* A string, number or literal at p->pos. */
static autosize_err json_scalar(struct json_parser *p, autosize_error *e)
{
	size_t start = p->pos;
	char c = p->text[p->pos];
	autosize_err rc;
	char which = 'n';
	int fits;

	if (c == '"') {
		rc = json_string(p, p->member ? p->str : NULL,
				 sizeof(p->str), &fits, e);
		if (rc == AUTOSIZE_OK)
			json_report(p, AUTOSIZE_JSON_STRING, start, fits);
		return rc;
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		rc = json_number(p, e);
		if (rc == AUTOSIZE_OK)
			json_report(p, AUTOSIZE_JSON_NUMBER, start, 1);
		return rc;
	}
	rc = json_literal(p, &which, e);
	if (rc == AUTOSIZE_OK)
		json_report(p, which == 't' ? AUTOSIZE_JSON_TRUE :
			    which == 'f' ? AUTOSIZE_JSON_FALSE :
			    AUTOSIZE_JSON_NULL, start, 1);
	return rc;
}

/*
 * A key at p->pos. Members of the top-level object (depth 1) and of an
 * object that is a top-level member's value (depth 2) are reported.
 */
static autosize_err json_member_key(struct json_parser *p,
				     autosize_error *e)
{
	char *name = NULL;
	int *fits = NULL, scratch;
	autosize_err rc;

	if (p->pos >= p->len || p->text[p->pos] != '"')
		return json_unexpected(p, p->pos, "a key in double quotes",
				       e);
	if (p->depth == 1) {
		name = p->key1;
		fits = &p->key1_fits;
	} else if (p->depth == 2 && p->stack[1] == '{') {
		name = p->key2;
		fits = &p->key2_fits;
	} else if (p->deep && p->depth == 3 && p->stack[1] == '{' &&
		   p->stack[2] == '{') {
		name = p->key3;
		fits = &p->key3_fits;
	}
	rc = json_string(p, name, JSON_STR_MAX, fits ? fits : &scratch, e);
	if (rc != AUTOSIZE_OK)
		return rc;
	p->member = name != NULL;
	json_skip_ws(p);
	if (p->pos >= p->len || p->text[p->pos] != ':')
		return json_unexpected(p, p->pos, "':' after the key", e);
	p->pos++;
	return AUTOSIZE_OK;
}

/* A value at p->pos: open a container or read a scalar. */
static autosize_err json_value(struct json_parser *p, enum json_state *st,
			       autosize_error *e)
{
	char c;
	autosize_err rc;

	if (p->pos >= p->len)
		return json_unexpected(p, p->pos, "a value", e);
	c = p->text[p->pos];
	if (p->depth == 0 && c != '{')
		return json_syntax(p, p->pos, AUTOSIZE_EINVAL,
				   c == '[' ? "the top-level value is a list" :
				   "the top-level value is not an object",
				   "a config.json object {...}", e);
	if (c != '{' && c != '[') {
		rc = json_scalar(p, e);
		p->member = 0;
		*st = JSON_ST_AFTER;
		return rc;
	}
	json_report(p, c == '{' ? AUTOSIZE_JSON_OBJECT : AUTOSIZE_JSON_ARRAY,
		    p->pos, 1);
	if (p->depth >= JSON_MAX_DEPTH)
		return json_syntax(p, p->pos, AUTOSIZE_ETOOBIG,
				   "JSON nested deeper than 32 levels",
				   "at most 32 nested objects and lists", e);
	p->stack[p->depth++] = c;
	p->pos++;
	*st = c == '{' ? JSON_ST_FIRST_KEY : JSON_ST_FIRST_ELEM;
	return AUTOSIZE_OK;
}

/* After a value: a comma, the container's closer, or the end of text. */
static autosize_err json_after(struct json_parser *p, enum json_state *st,
			       int *done, autosize_error *e)
{
	char open, c;

	if (p->depth == 0) {
		if (p->pos < p->len)
			return json_unexpected(p, p->pos, "nothing after the "
					       "top-level object", e);
		*done = 1;
		return AUTOSIZE_OK;
	}
	open = p->stack[p->depth - 1];
	c = p->pos < p->len ? p->text[p->pos] : '\0';
	if (p->pos < p->len && c == ',') {
		p->pos++;
		*st = open == '{' ? JSON_ST_KEY : JSON_ST_VALUE;
		return AUTOSIZE_OK;
	}
	if (p->pos < p->len && c == (open == '{' ? '}' : ']')) {
		p->pos++;
		p->depth--;
		return AUTOSIZE_OK;
	}
	return json_unexpected(p, p->pos, open == '{' ? "',' or '}'" :
			       "',' or ']'", e);
}

/* Validate the whole text, keeping the wanted top-level values. */
static autosize_err json_parse(struct json_parser *p, autosize_error *e)
{
	enum json_state st = JSON_ST_VALUE;
	autosize_err rc = AUTOSIZE_OK;
	int done = 0;

	/* RFC 8259 section 8.1: a parser may ignore a byte order mark. */
	if (p->len >= 3 && memcmp(p->text, "\xef\xbb\xbf", 3) == 0)
		p->pos = 3;
	while (!done && rc == AUTOSIZE_OK) {
		json_skip_ws(p);
		switch (st) {
		case JSON_ST_VALUE:
			rc = json_value(p, &st, e);
			break;
		case JSON_ST_FIRST_KEY:
		case JSON_ST_FIRST_ELEM:
			if (p->pos < p->len &&
			    p->text[p->pos] == (st == JSON_ST_FIRST_KEY ?
						'}' : ']')) {
				p->pos++;
				p->depth--;
				st = JSON_ST_AFTER;
			} else {
				st = st == JSON_ST_FIRST_KEY ? JSON_ST_KEY :
				     JSON_ST_VALUE;
			}
			break;
		case JSON_ST_KEY:
			rc = json_member_key(p, e);
			st = JSON_ST_VALUE;
			break;
		case JSON_ST_AFTER:
			rc = json_after(p, &st, &done, e);
			break;
		}
	}
	return rc;
}

static autosize_err json_scan(const char *text, size_t len,
			      const char *what, autosize_json_visit visit,
			      void *ctx, int deep, autosize_error *e)
{
	struct json_parser p;

	memset(&p, 0, sizeof(p));
	p.deep = deep;
	p.text = text ? text : "";
	p.len = text ? len : 0;
	p.what = what ? what : "JSON text";
	p.visit = visit;
	p.ctx = ctx;
	return json_parse(&p, e);
}

autosize_err autosize_json_scan(const char *text, size_t len,
				const char *what, autosize_json_visit visit,
				void *ctx, autosize_error *e)
{
	return json_scan(text, len, what, visit, ctx, 0, e);
}

autosize_err autosize_json_scan_deep(const char *text, size_t len,
				     const char *what,
				     autosize_json_visit visit, void *ctx,
				     autosize_error *e)
{
	return json_scan(text, len, what, visit, ctx, 1, e);
}
