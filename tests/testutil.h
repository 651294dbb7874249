/*
 * Shared helpers for the cmocka tests (header-only, static).
 */
#ifndef AUTOSIZE_TESTUTIL_H
#define AUTOSIZE_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <math.h>
#include <cmocka.h>

/* Folder of the project's test data (tests/data), from the repo root. */
#define TEST_DATA "tests/data"

/* ../shared, or NULL (with a message) when a fresh clone lacks it. */
static inline const char *test_shared_dir(void)
{
	const char *dir = getenv("AUTOSIZE_SHARED");

	if (!dir)
		dir = "../shared";
	if (access(dir, R_OK) != 0) {
		printf("skip: %s not present (fresh clone)\n", dir);
		return NULL;
	}
	return dir;
}

/* The build folder (make check sets AUTOSIZE_BUILD). */
static inline const char *test_build_dir(void)
{
	const char *dir = getenv("AUTOSIZE_BUILD");

	return dir ? dir : "build";
}

/* Write text to a fresh temporary file; returns its path (static buffer
 * per call site is the caller's: pass buf of at least 64 bytes). */
static inline const char *test_write_tmp(char *buf, size_t len,
					 const char *text)
{
	int fd;
	FILE *f;

	snprintf(buf, len, "/tmp/autosize-test-XXXXXX");
	fd = mkstemp(buf);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return buf;
}

/* The value of "--name N" in args, or -1. */
static inline int arg_value(const char *args, const char *name)
{
	char key[96];
	const char *at;

	snprintf(key, sizeof(key), "%s ", name);
	at = strstr(args, key);
	return at ? atoi(at + strlen(key)) : -1;
}

/* 1 when name is a line of the list file (comments skipped). */
static inline int list_has(const char *file, const char *name)
{
	char line[256];
	FILE *f = fopen(file, "r");
	int found = 0;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		found = line[0] != '#' && strcmp(line, name) == 0;
	}
	fclose(f);
	return found;
}

/* Every "--flag" of args, and the key of every "key=value" word, is a
 * line of the list file (a parser's names). */
static inline void assert_names_in(const char *args, const char *file,
				   const char *tool)
{
	char copy[1024], *tok, *save = NULL;

	snprintf(copy, sizeof(copy), "%s", args);
	for (tok = strtok_r(copy, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		if (strncmp(tok, "--", 2) != 0 && !strchr(tok, '='))
			continue;
		if (strncmp(tok, "--", 2) != 0)
			tok[strcspn(tok, "=")] = '\0';
		if (!list_has(file, tok))
			fail_msg("%s is not a %s argument", tok, tool);
	}
}

#endif
