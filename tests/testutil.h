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

#endif
