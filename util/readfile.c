/*
 * autosize: read a whole regular file (YAML, config.json) with a size cap,
 * refusing directories, FIFOs and devices without blocking on them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "readfile.h"

static const char *rf_strerror(int err, char *buf, size_t size)
{
	if (strerror_r(err, buf, size) != 0)
		snprintf(buf, size, "error %d", err);
	return buf;
}

autosize_err autosize_read_regular_file(const char *path, size_t max_bytes,
					const char *expect, char **buf,
					size_t *len, autosize_error *e)
{
	char eb[128];
	struct stat st;
	char *data = NULL;
	size_t have = 0;
	autosize_err rc;
	int fd, err;

	*buf = NULL;
	*len = 0;
	if (!expect)
		expect = "regular file";
	if (!path || !*path)
		return autosize_fail(e, AUTOSIZE_EIO,
				     "empty path, expected a %s", expect);
	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		err = errno;
		return autosize_fail(e, AUTOSIZE_EIO, "%s: cannot open: %s "
				     "(expected a readable %s)", path,
				     rf_strerror(err, eb, sizeof(eb)), expect);
	}
	if (fstat(fd, &st) != 0) {
		err = errno;
		rc = autosize_fail(e, AUTOSIZE_EIO, "%s: cannot stat: %s "
				   "(expected a readable %s)", path,
				   rf_strerror(err, eb, sizeof(eb)), expect);
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = autosize_fail(e, AUTOSIZE_EIO,
				   "%s: is a directory, expected a %s", path,
				   expect);
		goto fail;
	}
	if (S_ISFIFO(st.st_mode)) {
		rc = autosize_fail(e, AUTOSIZE_EIO,
				   "%s: is a FIFO (named pipe), expected a %s",
				   path, expect);
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = autosize_fail(e, AUTOSIZE_EIO,
				   "%s: is a device or socket, expected a %s",
				   path, expect);
		goto fail;
	}
	if (st.st_size < 0 || (unsigned long long)st.st_size > max_bytes) {
		rc = autosize_fail(e, AUTOSIZE_ETOOBIG,
				   "%s: %lld bytes, larger than the %zu-byte limit",
				   path, (long long)st.st_size, max_bytes);
		goto fail;
	}
	data = malloc(max_bytes + 2);
	if (!data) {
		rc = autosize_fail(e, AUTOSIZE_ENOMEM,
				   "%s: out of memory reading it", path);
		goto fail;
	}
	/* read up to one byte past the cap: a file that grew is caught */
	while (have <= max_bytes) {
		ssize_t n = read(fd, data + have, max_bytes + 1 - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			rc = autosize_fail(e, AUTOSIZE_EIO,
					   "%s: cannot read: %s (expected a "
					   "readable %s)", path,
					   rf_strerror(err, eb, sizeof(eb)), expect);
			goto fail;
		}
		if (n == 0)
			break;
		have += (size_t)n;
	}
	if (have > max_bytes) {
		rc = autosize_fail(e, AUTOSIZE_ETOOBIG,
				   "%s: larger than the %zu-byte limit", path,
				   max_bytes);
		goto fail;
	}
	close(fd);
	data[have] = '\0';
	*buf = data;
	*len = have;
	return AUTOSIZE_OK;
fail:
	free(data);
	close(fd);
	return rc;
}

