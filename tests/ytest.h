/*
 * Helpers for the YAML loader tests (header-only, static): build broken
 * variants of a good document by replacing one of its lines, and check
 * error messages. Include after testutil.h.
 */
#ifndef AUTOSIZE_YTEST_H
#define AUTOSIZE_YTEST_H

#include "autosize/error.h"

/* One broken variant: line `line` of the base replaced by `repl` (which
 * carries its own newline; "" deletes the line). The error must have
 * `code` and a message containing "WHAT:<err_line>:" and `needle`. */
typedef struct ytest_case {
	int line;
	const char *repl;
	autosize_err code;
	int err_line;
	const char *needle;
} ytest_case;

/* Copy base into out with line n (1-based) replaced by repl. */
static inline char *ytest_replace_line(const char *base, int n,
				       const char *repl, char *out,
				       size_t size)
{
	const char *p = base, *end;
	size_t used = 0, len;
	int line = 1;

	out[0] = '\0';
	while (*p) {
		end = strchr(p, '\n');
		end = end ? end + 1 : p + strlen(p);
		len = (size_t)(end - p);
		if (line == n) {
			assert_true(used + strlen(repl) < size);
			memcpy(out + used, repl, strlen(repl));
			used += strlen(repl);
		} else {
			assert_true(used + len < size);
			memcpy(out + used, p, len);
			used += len;
		}
		out[used] = '\0';
		p = end;
		line++;
	}
	assert_true(n < line); /* the line to replace existed */
	return out;
}

/* A one-line message without a trailing newline, naming what:line and
 * containing needle. */
static inline void ytest_check_msg(const autosize_error *e, const char *what,
				   int line, const char *needle)
{
	char prefix[512];
	size_t len = strlen(e->msg);

	if (getenv("AUTOSIZE_TEST_VERBOSE"))
		printf("  msg: %s\n", e->msg);
	assert_true(len > 0);
	assert_true(len < AUTOSIZE_MSG_LEN);
	assert_null(strchr(e->msg, '\n'));
	if (line > 0) {
		snprintf(prefix, sizeof(prefix), "%s:%d: ", what, line);
		if (strncmp(e->msg, prefix, strlen(prefix)) != 0)
			fail_msg("message '%s' does not start with '%s'",
				 e->msg, prefix);
	} else if (!strstr(e->msg, what)) {
		fail_msg("message '%s' does not name '%s'", e->msg, what);
	}
	if (needle && !strstr(e->msg, needle))
		fail_msg("message '%s' lacks '%s'", e->msg, needle);
}

/*
 * Run every broken variant of base through parse (which returns the
 * loaded object or NULL); each must be refused with its code and message.
 * destroy frees an object wrongly accepted.
 */
static inline void ytest_run_broken(const char *base, const char *what,
				    const ytest_case *cases, size_t n,
				    void *(*parse)(const char *, autosize_error *),
				    void (*destroy)(void *))
{
	char text[4096];
	size_t i;

	for (i = 0; i < n; i++) {
		const ytest_case *k = &cases[i];
		autosize_error e;
		void *obj;

		ytest_replace_line(base, k->line, k->repl, text, sizeof(text));
		autosize_error_clear(&e);
		obj = parse(text, &e);
		if (obj) {
			destroy(obj);
			fail_msg("case %zu (line %d: %s) was accepted", i,
				 k->line, k->repl);
		}
		if (e.code != k->code)
			fail_msg("case %zu: code %d, expected %d: %s", i,
				 e.code, k->code, e.msg);
		ytest_check_msg(&e, what, k->err_line, k->needle);
	}
}

#endif
