/*
 * autosize internal: the one writer of JSON strings. Every JSON the
 * project writes (plan, launch, report, show, replay, the CLI's errors)
 * puts its strings through it, so all of it is valid UTF-8 whatever
 * bytes a user, sacct or a config file gave.
 *
 * The rule: '"' and '\' are escaped with a backslash, control
 * characters below U+0020 as \u00XX, and each byte that starts no
 * well-formed UTF-8 sequence (utf8.h) is replaced by U+FFFD, the
 * Unicode replacement character (Unicode 15, section 3.9, "U+FFFD
 * substitution"; what Python's errors="replace" and Rust's
 * from_utf8_lossy write). Replaced, not escaped: JSON has no escape for
 * a byte (\u00ff is the character U+00FF, another text), and a
 * replacement keeps the rest of the value, which an error would lose.
 */
#ifndef AUTOSIZE_JSON_WRITE_H
#define AUTOSIZE_JSON_WRITE_H

#include <stddef.h>
#include <stdio.h>

/* Also escape <, > and & (\u003c ...): the JSON may be put into an
 * HTML page's <script> (the report's --html). */
#define JSON_WRITE_HTML 1u

/*
 * s as a JSON string, quotes included, appended to buf at *used; *used
 * grows by the whole length even past len (as snprintf counts), so a
 * caller sees that the text did not fit. buf stays NUL-terminated
 * while there is room.
 */
void json_write_str(char *buf, size_t len, size_t *used, const char *s,
		    unsigned flags);

/* The same onto f. */
void json_write_str_file(FILE *f, const char *s, unsigned flags);

#endif
