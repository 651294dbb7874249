/*
 * autosize: a small, strict, bounded JSON reader for Hugging Face
 * config.json files.
 *
 * The whole text is validated against RFC 8259 (strings with escapes and
 * UTF-8, numbers, literals) without recursion, with nesting capped at
 * JSON_MAX_DEPTH. Nothing is allocated while parsing: only a few top-level
 * keys are kept, in fixed-size fields. A file is read into one buffer that
 * is freed before returning.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "autosize/model.h"
#include "readfile.h"

#define JSON_MAX_DEPTH 32
#define JSON_STR_MAX 64     /* longest key or kept string value, with NUL */
#define JSON_SHOW_MAX 24    /* bytes of a bad number quoted in errors */
#define JSON_INT_HUGE 1000000000000L /* stop accumulating digits past this */

enum json_kind { JSON_INT, JSON_BOOL, JSON_STR };

enum json_field {
	JSON_F_HIDDEN = 0,
	JSON_F_LAYERS,
	JSON_F_HEADS,
	JSON_F_KV_HEADS,
	JSON_F_FFN,
	JSON_F_VOCAB,
	JSON_F_TIED,
	JSON_F_EXPERTS,
	JSON_F_EXPERTS_ACTIVE,
	JSON_F_MOE_FFN,
	JSON_F_ACT,
	JSON_F_TYPE,
	JSON_F_COUNT
};

struct json_key {
	const char *name;
	enum json_field field;
	enum json_kind kind;
	long min;
	long max;
};

/* The top-level keys read; Llama-style names and their GPT-2 spellings. */
static const struct json_key json_keys[] = {
	{ "hidden_size", JSON_F_HIDDEN, JSON_INT, 1, AUTOSIZE_MAX_HIDDEN },
	{ "n_embd", JSON_F_HIDDEN, JSON_INT, 1, AUTOSIZE_MAX_HIDDEN },
	{ "num_hidden_layers", JSON_F_LAYERS, JSON_INT, 1,
	  AUTOSIZE_MAX_LAYERS },
	{ "n_layer", JSON_F_LAYERS, JSON_INT, 1, AUTOSIZE_MAX_LAYERS },
	{ "num_attention_heads", JSON_F_HEADS, JSON_INT, 1,
	  AUTOSIZE_MAX_HEADS },
	{ "n_head", JSON_F_HEADS, JSON_INT, 1, AUTOSIZE_MAX_HEADS },
	{ "num_key_value_heads", JSON_F_KV_HEADS, JSON_INT, 1,
	  AUTOSIZE_MAX_HEADS },
	{ "intermediate_size", JSON_F_FFN, JSON_INT, 1, AUTOSIZE_MAX_FFN },
	{ "n_inner", JSON_F_FFN, JSON_INT, 1, AUTOSIZE_MAX_FFN },
	{ "vocab_size", JSON_F_VOCAB, JSON_INT, 1, AUTOSIZE_MAX_VOCAB },
	{ "tie_word_embeddings", JSON_F_TIED, JSON_BOOL, 0, 1 },
	{ "num_local_experts", JSON_F_EXPERTS, JSON_INT, 0,
	  AUTOSIZE_MAX_EXPERTS },
	{ "num_experts_per_tok", JSON_F_EXPERTS_ACTIVE, JSON_INT, 0,
	  AUTOSIZE_MAX_EXPERTS },
	{ "moe_intermediate_size", JSON_F_MOE_FFN, JSON_INT, 0,
	  AUTOSIZE_MAX_FFN },
	{ "hidden_act", JSON_F_ACT, JSON_STR, 0, 0 },
	{ "activation_function", JSON_F_ACT, JSON_STR, 0, 0 },
	{ "model_type", JSON_F_TYPE, JSON_STR, 0, 0 },
};

#define JSON_N_KEYS (sizeof(json_keys) / sizeof(json_keys[0]))

/*
 * model_type values with a plain two-matrix MLP (GPT-style), and with a
 * gated three-matrix one (SwiGLU, or GeGLU for Gemma: same count), from
 * each model's Hugging Face modeling code.
 */
static const char *const json_plain_mlp_types[] = {
	"gpt2", "gpt_neo", "gpt_neox", "gptj", "gpt_bigcode", "opt", "bloom",
	"falcon", "phi", "starcoder2", "codegen", NULL
};
static const char *const json_gated_mlp_types[] = {
	"llama", "mistral", "mixtral", "qwen2", "qwen3", "gemma", "gemma2",
	"gemma3_text", "phi3", "olmo", "olmo2", "internlm2", "cohere",
	"granite", "stablelm", "yi", NULL
};
/*
 * Types whose configuration class ties embeddings when the file does not
 * say (transformers' PretrainedConfig default is true; Llama, Mistral,
 * Qwen2, GPT-NeoX, ... override it to false).
 */
static const char *const json_tied_types[] = {
	"gpt2", "gpt_neo", "gpt_bigcode", "opt", "bloom", "falcon", "gemma",
	"gemma2", "gemma3_text", "starcoder2", NULL
};

struct json_value {
	int set;                    /* a key gave a non-null value */
	long num;                   /* integer, or 0/1 for a boolean */
	char str[JSON_STR_MAX];     /* string value ("" when too long) */
	const struct json_key *key; /* the key that gave it */
};

struct json_parser {
	const char *text;
	size_t len;
	size_t pos;
	const char *what;
	int depth;
	char stack[JSON_MAX_DEPTH];          /* '{' or '[' per level */
	const struct json_key *member;       /* key of the top-level value
						being read, or NULL */
	unsigned char key_seen[JSON_N_KEYS];
	struct json_value vals[JSON_F_COUNT];
	autosize_error sem;                  /* first error in a value,
						reported once the syntax
						is known to be good */
};

enum json_state {
	JSON_ST_VALUE,       /* a value must come */
	JSON_ST_FIRST_KEY,   /* after '{': a key or '}' */
	JSON_ST_FIRST_ELEM,  /* after '[': a value or ']' */
	JSON_ST_KEY,         /* after ',' in an object: a key */
	JSON_ST_AFTER        /* after a value: ',', a closer or the end */
};

static int json_in_list(const char *s, const char *const *list)
{
	int i;

	for (i = 0; list[i]; i++)
		if (strcmp(s, list[i]) == 0)
			return 1;
	return 0;
}

/* Record the first error found in a value (not in the syntax). */
static void json_sem(struct json_parser *p, autosize_err code,
		     const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void json_sem(struct json_parser *p, autosize_err code,
		     const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->sem.code != AUTOSIZE_OK)
		return;
	p->sem.code = code;
	n = snprintf(p->sem.msg, sizeof(p->sem.msg), "%s: ", p->what);
	if (n < 0 || (size_t)n >= sizeof(p->sem.msg))
		return;
	va_start(ap, fmt);
	vsnprintf(p->sem.msg + n, sizeof(p->sem.msg) - n, fmt, ap);
	va_end(ap);
}

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

/*
 * Length of the well-formed UTF-8 sequence at p->pos (lead byte >= 0x80),
 * or 0: no overlong forms, no surrogates, nothing past U+10FFFF.
 */
static size_t json_utf8_len(const struct json_parser *p)
{
	const unsigned char *s = (const unsigned char *)p->text + p->pos;
	size_t left = p->len - p->pos;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;
		else if (s[0] == 0xed)
			hi = 0x9f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		if (s[0] == 0xf0)
			lo = 0x90;
		else if (s[0] == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	if (left < n || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
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

/* Keep the integer value of a top-level member (number text at start). */
static void json_take_int(struct json_parser *p, const struct json_key *k,
			  size_t start)
{
	const char *s = p->text + start;
	size_t n = p->pos - start, i = 0;
	int shown = n > JSON_SHOW_MAX ? JSON_SHOW_MAX : (int)n;
	const char *more = n > JSON_SHOW_MAX ? "..." : "";
	struct json_value *v = &p->vals[k->field];
	int neg = 0;
	long num = 0;

	if (memchr(s, '.', n) || memchr(s, 'e', n) || memchr(s, 'E', n)) {
		json_sem(p, AUTOSIZE_EINVAL,
			 "%s %.*s%s is not an integer (expected a whole "
			 "number %ld..%ld)", k->name, shown, s, more, k->min,
			 k->max);
		return;
	}
	if (s[0] == '-') {
		neg = 1;
		i = 1;
	}
	for (; i < n && num <= JSON_INT_HUGE; i++)
		num = num * 10 + (s[i] - '0');
	if (neg)
		num = -num;
	if (num < k->min || num > k->max) {
		json_sem(p, AUTOSIZE_EINVAL,
			 "%s %.*s%s is out of range (expected an integer "
			 "%ld..%ld)", k->name, shown, s, more, k->min,
			 k->max);
		return;
	}
	if (v->set && v->key != k && v->num != num) {
		json_sem(p, AUTOSIZE_EINVAL,
			 "%s %ld and %s %ld disagree (expected one value)",
			 v->key->name, v->num, k->name, num);
		return;
	}
	v->set = 1;
	v->num = num;
	v->key = k;
}

static void json_wrong_type(struct json_parser *p, const struct json_key *k,
			    const char *got)
{
	static const char *const expected[] = {
		[JSON_INT] = "an integer",
		[JSON_BOOL] = "true or false",
		[JSON_STR] = "a string",
	};

	json_sem(p, AUTOSIZE_EINVAL, "%s is %s (expected %s)", k->name, got,
		 expected[k->kind]);
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

/* A string, number or literal at p->pos, kept when it is a wanted key's. */
static autosize_err json_scalar(struct json_parser *p, autosize_error *e)
{
	const struct json_key *k = p->member;
	struct json_value *v = k ? &p->vals[k->field] : NULL;
	size_t start = p->pos;
	char c = p->text[p->pos];
	autosize_err rc;
	char which = 'n';
	int fits;

	if (c == '"') {
		if (k && k->kind == JSON_STR) {
			rc = json_string(p, v->str, sizeof(v->str), &fits, e);
			v->set = 1;
			v->key = k;
		} else {
			rc = json_string(p, NULL, 0, &fits, e);
			if (rc == AUTOSIZE_OK && k)
				json_wrong_type(p, k, "a string");
		}
		return rc;
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		rc = json_number(p, e);
		if (rc == AUTOSIZE_OK && k && k->kind == JSON_INT)
			json_take_int(p, k, start);
		else if (rc == AUTOSIZE_OK && k)
			json_wrong_type(p, k, "a number");
		return rc;
	}
	rc = json_literal(p, &which, e);
	if (rc != AUTOSIZE_OK || !k || which == 'n')
		return rc;          /* null: as if the key were absent */
	if (k->kind == JSON_BOOL) {
		v->set = 1;
		v->num = which == 't';
		v->key = k;
	} else {
		json_wrong_type(p, k, which == 't' ? "true" : "false");
	}
	return AUTOSIZE_OK;
}

/* A key at p->pos; at the top level, note whether it is a wanted one. */
static autosize_err json_member_key(struct json_parser *p,
				     autosize_error *e)
{
	char name[JSON_STR_MAX];
	autosize_err rc;
	size_t i;
	int fits;

	if (p->pos >= p->len || p->text[p->pos] != '"')
		return json_unexpected(p, p->pos, "a key in double quotes",
				       e);
	rc = json_string(p, p->depth == 1 ? name : NULL, sizeof(name), &fits,
			 e);
	if (rc != AUTOSIZE_OK)
		return rc;
	p->member = NULL;
	for (i = 0; p->depth == 1 && fits && i < JSON_N_KEYS; i++) {
		if (strcmp(name, json_keys[i].name) != 0)
			continue;
		if (p->key_seen[i])
			json_sem(p, AUTOSIZE_EINVAL,
				 "duplicate key %s (expected each key once)",
				 json_keys[i].name);
		p->key_seen[i] = 1;
		p->member = &json_keys[i];
		break;
	}
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
		p->member = NULL;
		*st = JSON_ST_AFTER;
		return rc;
	}
	if (p->member)
		json_wrong_type(p, p->member, c == '{' ? "an object" :
				"a list");
	p->member = NULL;
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

static autosize_err json_missing(const struct json_parser *p,
				 const char *key, const char *expected,
				 autosize_error *e)
{
	return autosize_fail(e, AUTOSIZE_EINVAL, "%s: missing %s (expected %s)",
			     p->what, key, expected);
}

/* Plain two-matrix MLP (GPT) or gated three-matrix one (Llama)? */
static autosize_mlp json_pick_mlp(const struct json_parser *p)
{
	const struct json_value *type = &p->vals[JSON_F_TYPE];
	const struct json_value *act = &p->vals[JSON_F_ACT];
	const struct json_value *hidden = &p->vals[JSON_F_HIDDEN];

	if (type->set && json_in_list(type->str, json_plain_mlp_types))
		return AUTOSIZE_MLP_GELU;
	if (type->set && json_in_list(type->str, json_gated_mlp_types))
		return AUTOSIZE_MLP_SWIGLU;
	if (act->set && act->str[0])
		return strncasecmp(act->str, "gelu", 4) == 0 ||
		       strcasecmp(act->str, "relu") == 0 ?
		       AUTOSIZE_MLP_GELU : AUTOSIZE_MLP_SWIGLU;
	if (strcmp(hidden->key->name, "n_embd") == 0)
		return AUTOSIZE_MLP_GELU;
	return AUTOSIZE_MLP_SWIGLU;
}

/*
 * Name the model after the file: its base name without ".json", or, for
 * the usual ".../Model-Name/config.json", the folder's name. Bytes other
 * than letters, digits and "._+-" become "_".
 */
static void json_set_name(autosize_model *m, const char *what)
{
	const char *base = strrchr(what, '/');
	const char *dir = NULL;
	size_t n, i;

	base = base ? base + 1 : what;
	n = strlen(base);
	if (n > 5 && strcmp(base + n - 5, ".json") == 0)
		n -= 5;
	if (n == 6 && strncmp(base, "config", 6) == 0 && base != what) {
		dir = base - 1;
		while (dir > what && dir[-1] != '/')
			dir--;
		if (dir < base - 1) {
			n = (size_t)(base - 1 - dir);
			base = dir;
		}
	}
	if (n >= sizeof(m->name))
		n = sizeof(m->name) - 1;
	for (i = 0; i < n; i++) {
		char c = base[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '.' || c == '_' ||
			 c == '+' || c == '-';

		m->name[i] = ok ? c : '_';
	}
	m->name[n] = '\0';
}

/* Turn the kept values into a model and finish its architecture. */
static autosize_err json_to_model(const struct json_parser *p,
				  autosize_model *m, autosize_error *e)
{
	const struct json_value *v = p->vals;
	const struct json_value *type = &v[JSON_F_TYPE];
	char inner[AUTOSIZE_MSG_LEN];
	autosize_err rc;

	if (!v[JSON_F_HIDDEN].set)
		return json_missing(p, "hidden_size", "the model width as "
				    "hidden_size or n_embd", e);
	if (!v[JSON_F_LAYERS].set)
		return json_missing(p, "num_hidden_layers", "the layer count "
				    "as num_hidden_layers or n_layer", e);
	if (!v[JSON_F_HEADS].set)
		return json_missing(p, "num_attention_heads", "the head "
				    "count as num_attention_heads or n_head",
				    e);
	if (v[JSON_F_MOE_FFN].set && v[JSON_F_MOE_FFN].num > 0 &&
	    !v[JSON_F_EXPERTS].set)
		return autosize_fail(e, AUTOSIZE_EINVAL,
				     "%s: moe_intermediate_size: this "
				     "mixture-of-experts layout is not "
				     "supported (expected Mixtral-style "
				     "num_local_experts; give the parameter "
				     "count instead)", p->what);
	m->hidden = (int)v[JSON_F_HIDDEN].num;
	m->layers = (int)v[JSON_F_LAYERS].num;
	m->heads = (int)v[JSON_F_HEADS].num;
	m->kv_heads = v[JSON_F_KV_HEADS].set ? (int)v[JSON_F_KV_HEADS].num : 0;
	m->ffn = v[JSON_F_FFN].set ? (int)v[JSON_F_FFN].num : 0;
	m->vocab = v[JSON_F_VOCAB].set ? (int)v[JSON_F_VOCAB].num : 0;
	m->mlp = json_pick_mlp(p);
	if (v[JSON_F_TIED].set)
		m->tied_embeddings = (int)v[JSON_F_TIED].num;
	else
		m->tied_embeddings = type->set &&
				     json_in_list(type->str, json_tied_types);
	if (v[JSON_F_EXPERTS].set && v[JSON_F_EXPERTS].num > 1) {
		m->experts = (int)v[JSON_F_EXPERTS].num;
		m->experts_active = v[JSON_F_EXPERTS_ACTIVE].set ?
				    (int)v[JSON_F_EXPERTS_ACTIVE].num : 0;
	}
	rc = autosize_model_finish_arch(m, e);
	if (rc != AUTOSIZE_OK && e) {
		snprintf(inner, sizeof(inner), "%s", e->msg);
		autosize_fail(e, rc, "%s: %s", p->what, inner);
	}
	return rc;
}

autosize_err autosize_model_from_json_text(const char *text, size_t len,
					  const char *what, autosize_model *m,
					  autosize_error *e)
{
	struct json_parser p;
	autosize_err rc;

	if (!what)
		what = "config.json";
	if (!m || (!text && len > 0))
		return autosize_fail(e, AUTOSIZE_EINTERNAL,
				     "%s: no model or text given", what);
	autosize_model_init(m);
	if (len > AUTOSIZE_CONFIG_JSON_MAX_BYTES)
		return autosize_fail(e, AUTOSIZE_ETOOBIG,
				     "%s: %zu bytes is over the %d-byte limit "
				     "for a config.json (expected a few KiB)",
				     what, len, AUTOSIZE_CONFIG_JSON_MAX_BYTES);
	memset(&p, 0, sizeof(p));
	p.text = text ? text : "";
	p.len = len;
	p.what = what;
	rc = json_parse(&p, e);
	if (rc != AUTOSIZE_OK)
		return rc;
	if (p.sem.code != AUTOSIZE_OK)
		return autosize_fail(e, p.sem.code, "%s", p.sem.msg);
	json_set_name(m, what);
	rc = json_to_model(&p, m, e);
	if (rc == AUTOSIZE_OK)
		autosize_error_clear(e);
	return rc;
}

/* Thread-safe text for an errno value (XSI strerror_r). */

autosize_err autosize_model_from_config_json(const char *path,
					     autosize_model *m,
					     autosize_error *e)
{
	autosize_err rc;
	char *text = NULL;
	size_t len = 0;

	if (!path || !m)
		return autosize_fail(e, AUTOSIZE_EINTERNAL,
				     "config.json: no path or model given");
	autosize_model_init(m);
	/* before quoting it whole in messages (they would lose the end) */
	if (strnlen(path, PATH_MAX) >= PATH_MAX)
		return autosize_fail(e, AUTOSIZE_EIO, "%.40s...: path longer "
				     "than %d bytes (expected a readable "
				     "config.json file)", path, PATH_MAX - 1);
	rc = autosize_read_regular_file(path, AUTOSIZE_CONFIG_JSON_MAX_BYTES,
					"config.json file", &text, &len, e);
	if (rc == AUTOSIZE_OK)
		rc = autosize_model_from_json_text(text, len, path, m, e);
	free(text);
	return rc;
}
