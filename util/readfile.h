/* autosize internal: reading whole files with a cap. */
#ifndef AUTOSIZE_READFILE_H
#define AUTOSIZE_READFILE_H

#include <stddef.h>
#include "autosize/error.h"

/*
 * Read a regular file of at most max_bytes into a fresh NUL-terminated
 * buffer (*buf, caller frees) of *len bytes. Refuses non-regular files
 * without blocking on them ("PATH: is a directory, expected a EXPECT",
 * with expect a noun such as "YAML file"; NULL: "regular file"). Errors:
 * AUTOSIZE_EIO, AUTOSIZE_ETOOBIG, AUTOSIZE_ENOMEM, naming the path and
 * what was expected.
 */
autosize_err autosize_read_regular_file(const char *path, size_t max_bytes,
					const char *expect, char **buf,
					size_t *len, autosize_error *e);

#endif
